# tests/firmware/firmware.mk - host tests of the firmware drivers' platform-free parts (firmware/).
# firmware/iommu/edk2_iommu.c: the EDKII_IOMMU_PROTOCOL adapter; its host test checks
# EDK2's status semantics (MdeModulePkg/Include/Protocol/IoMmu.h), long mappings and
# buffers through the arena. firmware/iommu/iommu_port.c: the driver's emulated port.
HOST_TESTS += test_edk2_iommu test_iommu_port
test_edk2_iommu_SRCS := tests/firmware/test_edk2_iommu.c firmware/iommu/edk2_iommu.c \
	tests/fakes/mock_port.c $(DMA_SRCS)
test_iommu_port_SRCS := tests/firmware/test_iommu_port.c firmware/iommu/iommu_port.c $(DMA_SRCS)
