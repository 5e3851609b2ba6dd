/* SPDX-License-Identifier: MIT */
/*
 * trap.c - the exception report.
 *
 * Prints vector, name, error code (a page fault's bit by bit, with its cause),
 * RIP (absolute and relative to the image base), CR2, the registers and a
 * frame-pointer stack trace, then leaves QEMU with SLUICE_EXIT_EXCEPTION. It
 * uses only the polled serial port: printf or the heap may be what broke.
 */
#include <stdbool.h>

#include "arch/x86_64/cpu/cpu.h"
#include "arch/x86_64/cpu/descriptors.h"
#include "arch/x86_64/cpu/qemu_exit.h"
#include "arch/x86_64/cpu/serial.h"
#include "arch/x86_64/smp/percpu.h"

#define TRAP_MAX_FRAMES 16

static uint64_t stack_lo[SMP_MAX_CPUS], stack_hi[SMP_MAX_CPUS];
static uint64_t image_base;
static int in_trap[SMP_MAX_CPUS];
/* The CPU whose report is being printed; the others wait (their report would
 * interleave with it, and the first report's exit ends the run anyway). */
static int reporting_cpu = -1;

static const char *const trap_names[32] = {
	"#DE divide error",
	"#DB debug",
	"NMI",
	"#BP breakpoint",
	"#OF overflow",
	"#BR bound range",
	"#UD invalid opcode",
	"#NM device not available",
	"#DF double fault",
	"coprocessor segment overrun",
	"#TS invalid TSS",
	"#NP segment not present",
	"#SS stack fault",
	"#GP general protection",
	"#PF page fault",
	"reserved 15",
	"#MF x87 error",
	"#AC alignment check",
	"#MC machine check",
	"#XM SIMD error",
	"#VE virtualization exception",
	"#CP control protection",
	"reserved 22",
	"reserved 23",
	"reserved 24",
	"reserved 25",
	"reserved 26",
	"reserved 27",
	"#HV hypervisor injection",
	"#VC VMM communication",
	"#SX security exception",
	"reserved 31",
};

void trap_set_stack_bounds(uint64_t lo, uint64_t hi)
{
	trap_set_cpu_stack_bounds(0, lo, hi);
}

void trap_set_cpu_stack_bounds(unsigned int cpu, uint64_t lo, uint64_t hi)
{
	if (cpu < SMP_MAX_CPUS) {
		stack_lo[cpu] = lo;
		stack_hi[cpu] = hi;
	}
}

void trap_set_image_base(uint64_t base)
{
	image_base = base;
}

static void trap_put_dec(unsigned long v)
{
	char buf[24];
	int i = sizeof(buf);

	buf[--i] = '\0';
	do {
		buf[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	serial_puts(&buf[i]);
}

static void trap_put_reg(const char *name, uint64_t v)
{
	serial_puts(name);
	serial_puts("=");
	serial_put_hex(v);
}

static void trap_put_code_addr(uint64_t addr)
{
	serial_put_hex(addr);
	if (image_base && addr >= image_base) {
		serial_puts(" (image+");
		serial_put_hex(addr - image_base);
		serial_puts(")");
	}
}

/*
 * The #PF error code, bit by bit, and what it means (SDM vol. 3 4.7): a fetch
 * from a present page is a non-executable page (NX; with SMEP also a user page,
 * of which there are none here), a write to a present page a read-only one.
 */
static void trap_print_pf_cause(uint64_t code)
{
	static const struct {
		uint64_t bit;
		const char *name;
	} bits[] = {
		{ 1u << 0, "P" },   { 1u << 1, "W/R" }, { 1u << 2, "U/S" }, { 1u << 3, "RSVD" },
		{ 1u << 4, "I/D" }, { 1u << 5, "PK" },	{ 1u << 6, "SS" },  { 1u << 15, "SGX" },
	};
	bool present = code & 1, write = code & 2, fetch = code & 16;
	const char *what;

	serial_puts("#PF error code:");
	for (unsigned int i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		serial_puts(" ");
		serial_puts(bits[i].name);
		serial_puts(code & bits[i].bit ? "=1" : "=0");
	}
	if (code & 8)
		what = "a reserved bit is set in a paging entry";
	else if (code & 32)
		what = "protection-key violation";
	else if (code & 64)
		what = "shadow-stack access";
	else if (!present)
		what = fetch ? "instruction fetch from a non-present page" :
		       write ? "write to a non-present page" :
			       "read of a non-present page";
	else if (fetch)
		what = "instruction fetch from a non-executable page";
	else if (write)
		what = "write to a read-only page";
	else
		what = "protection violation on a read";
	serial_puts(" -> ");
	serial_puts(what);
	serial_puts("\n");
}

static void trap_print_stack(unsigned int cpu, uint64_t rbp)
{
	uint64_t lo = stack_lo[cpu], hi = stack_hi[cpu];

	serial_puts("stack trace (addr2line -e build/sluice.so <image+offset>):\n");
	for (int depth = 0; depth < TRAP_MAX_FRAMES; depth++) {
		const uint64_t *frame = (const uint64_t *)rbp;

		/* Follow only frames that lie inside the known stack: never fault here. */
		if (!hi || rbp & 7 || rbp < lo || rbp + 16 > hi)
			break;
		if (!frame[1])
			break;
		serial_puts("  #");
		trap_put_dec((unsigned long)depth);
		serial_puts(" ");
		trap_put_code_addr(frame[1]);
		serial_puts("\n");
		if (frame[0] <= rbp)
			break;
		rbp = frame[0];
	}
}

static void (*ve_reporter)(uint64_t rip);

void trap_set_ve_reporter(void (*fn)(uint64_t rip))
{
	ve_reporter = fn;
}

static void (*vc_reporter)(uint64_t rip, uint64_t exit_code);

void trap_set_vc_reporter(void (*fn)(uint64_t rip, uint64_t exit_code))
{
	vc_reporter = fn;
}

void trap_handler(struct trap_frame *f)
{
	unsigned int cpu = percpu_cpu_id() % SMP_MAX_CPUS;
	int expected = -1;

	/* #VE: the TDX module's account of it comes first (TDG.VP.VEINFO.GET). */
	if (f->vector == 20 && ve_reporter)
		ve_reporter(f->rip);
	/* #VC: the exit code is the error code; said before anything else. */
	if (f->vector == 29 && vc_reporter)
		vc_reporter(f->rip, f->error_code);

	if (in_trap[cpu]++) {
		serial_puts("\nEXCEPTION inside the exception handler, vector ");
		trap_put_dec(f->vector);
		serial_puts(" on cpu ");
		trap_put_dec(cpu);
		serial_puts("\n");
		qemu_exit(SLUICE_EXIT_EXCEPTION);
	}
	while (!__atomic_compare_exchange_n(&reporting_cpu, &expected, (int)cpu, false,
					    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		expected = -1;
		__asm__ volatile("pause");
	}
	serial_puts("\n*** EXCEPTION ");
	trap_put_dec(f->vector);
	serial_puts(" ");
	serial_puts(f->vector < 32 ? trap_names[f->vector] : "unknown");
	serial_puts(" on cpu ");
	trap_put_dec(cpu);
	serial_puts("\n");
	trap_put_reg("error_code", f->error_code);
	serial_puts(" rip=");
	trap_put_code_addr(f->rip);
	serial_puts("\n");
	if (f->vector == 14)
		trap_print_pf_cause(f->error_code);
	trap_put_reg("cr2", read_cr2());
	serial_puts(" ");
	trap_put_reg("cr3", read_cr3());
	serial_puts(" ");
	trap_put_reg("rflags", f->rflags);
	serial_puts("\n");
	trap_put_reg("rax", f->rax);
	serial_puts(" ");
	trap_put_reg("rbx", f->rbx);
	serial_puts(" ");
	trap_put_reg("rcx", f->rcx);
	serial_puts(" ");
	trap_put_reg("rdx", f->rdx);
	serial_puts("\n");
	trap_put_reg("rsi", f->rsi);
	serial_puts(" ");
	trap_put_reg("rdi", f->rdi);
	serial_puts(" ");
	trap_put_reg("rbp", f->rbp);
	serial_puts(" ");
	trap_put_reg("rsp", f->rsp);
	serial_puts("\n");
	trap_put_reg("r8", f->r8);
	serial_puts(" ");
	trap_put_reg("r9", f->r9);
	serial_puts(" ");
	trap_put_reg("r10", f->r10);
	serial_puts(" ");
	trap_put_reg("r11", f->r11);
	serial_puts("\n");
	trap_put_reg("r12", f->r12);
	serial_puts(" ");
	trap_put_reg("r13", f->r13);
	serial_puts(" ");
	trap_put_reg("r14", f->r14);
	serial_puts(" ");
	trap_put_reg("r15", f->r15);
	serial_puts("\n");
	serial_puts("  #- ");
	trap_put_code_addr(f->rip);
	serial_puts(" (faulting instruction)\n");
	trap_print_stack(cpu, f->rbp);
	serial_puts("sluice: exiting with status 3 (exception)\n");
	/* An SNP guest's #VC ends through the backend: the exit port, then the
	 * GHCB MSR protocol's termination request where there is no such port. */
	if (f->vector == 29 && vc_reporter)
		pvio_fatal(SLUICE_EXIT_EXCEPTION, "#VC");
	qemu_exit(SLUICE_EXIT_EXCEPTION);
}
