# The examples of examples/, tested as the library's users would use them.
# examples/edk2_iommu: an EDKII_IOMMU_PROTOCOL-shaped adapter; its host test
# checks EDK2's status semantics (MdeModulePkg/Include/Protocol/IoMmu.h).
HOST_TESTS += test_edk2_iommu
test_edk2_iommu_SRCS := examples/edk2_iommu/test_edk2_iommu.c examples/edk2_iommu/edk2_iommu.c \
	tests/mock_port.c $(DMA_SRCS)
