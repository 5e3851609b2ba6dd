/* SPDX-License-Identifier: MIT */
/*
 * pvio.h - paravirtual I/O: the one way the kernel does port I/O, MMIO register
 * access, CPUID, MSR access, idling and the fatal exit.
 *
 * In a plain VM these are the instructions themselves (pvio_native.c). In a TD
 * each of them would raise a #VE (port I/O, MMIO to shared memory, most CPUID
 * leaves, most MSRs, HLT) that this kernel does not emulate; the TDX backend
 * (pvio_tdx.c) asks the VMM directly with TDG.VP.VMCALL instead. A backend is
 * selected once at boot (pvio_select()); everything else calls the wrappers
 * below. The instruction audit (scripts/check-cc-insn.py, in `make test`) fails if
 * one of these instructions appears outside the native backend, the TDCALL door
 * (tee_insn.c) and the assembly entry stubs.
 */
#ifndef SLUICE_ARCH_PVIO_H
#define SLUICE_ARCH_PVIO_H

#include <stdbool.h>
#include <stdint.h>

/**
 * struct pvio_ops - one backend.
 * @name: for the boot report ("native", "tdx").
 * @io_in: read @size (1, 2 or 4) bytes from I/O port @port.
 * @io_out: write them.
 * @mmio_read: read @size (1, 2, 4 or 8) bytes of a device register at physical
 *	address @pa (identity-mapped, uncached).
 * @mmio_write: write them.
 * @cpuid: CPUID leaf @leaf, sub-leaf @sub into @r (EAX, EBX, ECX, EDX).
 * @rdmsr: read MSR @msr.
 * @wrmsr: write it.
 * @halt: with @irqs, enable interrupts, wait for one and disable them again
 *	(the idle loop: no wake-up is lost between the check and the wait); without,
 *	stop until the next NMI or reset (interrupts stay off).
 * @fatal: end the guest with @code after a last message; does not return.
 * @ctx: handed to each.
 */
struct pvio_ops {
	const char *name;
	uint32_t (*io_in)(void *ctx, uint16_t port, unsigned int size);
	void (*io_out)(void *ctx, uint16_t port, unsigned int size, uint32_t v);
	uint64_t (*mmio_read)(void *ctx, uint64_t pa, unsigned int size);
	void (*mmio_write)(void *ctx, uint64_t pa, unsigned int size, uint64_t v);
	void (*cpuid)(void *ctx, uint32_t leaf, uint32_t sub, uint32_t r[4]);
	uint64_t (*rdmsr)(void *ctx, uint32_t msr);
	void (*wrmsr)(void *ctx, uint32_t msr, uint64_t v);
	void (*halt)(void *ctx, bool irqs);
	void (*fatal)(void *ctx, int code, const char *msg);
	void *ctx;
};

/* The backend in use; the native one until pvio_select() says otherwise. */
extern const struct pvio_ops *pvio;
extern const struct pvio_ops pvio_native;

/**
 * pvio_select() - use @ops from now on. Called once at boot, before any other
 *	CPU runs.
 * @ops: the backend (kept by pointer).
 */
void pvio_select(const struct pvio_ops *ops);

/**
 * pvio_stop() - stop this CPU for good (interrupts off), through the backend: the
 *	assembly stubs call it where a function that must not return did.
 */
__attribute__((noreturn)) void pvio_stop(void);

static inline uint8_t inb(uint16_t port)
{
	return (uint8_t)pvio->io_in(pvio->ctx, port, 1);
}

static inline uint16_t inw(uint16_t port)
{
	return (uint16_t)pvio->io_in(pvio->ctx, port, 2);
}

static inline uint32_t inl(uint16_t port)
{
	return pvio->io_in(pvio->ctx, port, 4);
}

static inline void outb(uint16_t port, uint8_t v)
{
	pvio->io_out(pvio->ctx, port, 1, v);
}

static inline void outw(uint16_t port, uint16_t v)
{
	pvio->io_out(pvio->ctx, port, 2, v);
}

static inline void outl(uint16_t port, uint32_t v)
{
	pvio->io_out(pvio->ctx, port, 4, v);
}

static inline uint8_t mmio_read8(uint64_t pa)
{
	return (uint8_t)pvio->mmio_read(pvio->ctx, pa, 1);
}

static inline uint16_t mmio_read16(uint64_t pa)
{
	return (uint16_t)pvio->mmio_read(pvio->ctx, pa, 2);
}

static inline uint32_t mmio_read32(uint64_t pa)
{
	return (uint32_t)pvio->mmio_read(pvio->ctx, pa, 4);
}

static inline uint64_t mmio_read64(uint64_t pa)
{
	return pvio->mmio_read(pvio->ctx, pa, 8);
}

static inline void mmio_write8(uint64_t pa, uint8_t v)
{
	pvio->mmio_write(pvio->ctx, pa, 1, v);
}

static inline void mmio_write16(uint64_t pa, uint16_t v)
{
	pvio->mmio_write(pvio->ctx, pa, 2, v);
}

static inline void mmio_write32(uint64_t pa, uint32_t v)
{
	pvio->mmio_write(pvio->ctx, pa, 4, v);
}

static inline void mmio_write64(uint64_t pa, uint64_t v)
{
	pvio->mmio_write(pvio->ctx, pa, 8, v);
}

static inline void cpuid(uint32_t leaf, uint32_t subleaf, uint32_t r[4])
{
	pvio->cpuid(pvio->ctx, leaf, subleaf, r);
}

static inline uint64_t rdmsr(uint32_t msr)
{
	return pvio->rdmsr(pvio->ctx, msr);
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	pvio->wrmsr(pvio->ctx, msr, v);
}

static inline void pvio_halt(bool irqs)
{
	pvio->halt(pvio->ctx, irqs);
}

static inline __attribute__((noreturn)) void pvio_fatal(int code, const char *msg)
{
	pvio->fatal(pvio->ctx, code, msg);
	__builtin_unreachable();
}

#endif /* SLUICE_ARCH_PVIO_H */
