/* SPDX-License-Identifier: MIT */
/*
 * mock_port.h - the DMA layer's porting ops for host tests and host benches.
 *
 * "Shared" is bookkeeping only: every 4 KiB page the library converts is recorded,
 * so a test can check that the library only hands out converted memory and that it
 * converts back what it releases. Conversions can be made to fail on demand.
 * Locks are real spinlocks, so tests with several threads exercise real contention.
 */
#ifndef SLUICE_TESTS_MOCK_PORT_H
#define SLUICE_TESTS_MOCK_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>

#include <sluice/dma_port.h>

#define MOCK_PORT_MAX_RANGES 4096

/**
 * struct mock_port - state behind the mock ops.
 * @ops: the ops table to hand to the library (ctx points back here).
 * @ncpus: value range of the cpu_id op.
 * @shared: converted ranges, [start, end) in bytes, unsorted.
 * @nshared: entries used in @shared.
 * @to_shared_calls: successful and failed calls of set_shared.
 * @to_private_calls: successful and failed calls of set_private.
 * @fail_to_shared_after: after this many more successful calls, set_shared fails,
 *	and keeps failing until the test sets it back to -1 (-1: never fails).
 * @fail_to_private_after: same for set_private.
 * @log_lines: number of log lines received.
 * @last_log: the text of the last log line.
 * @locks_live: lock_init calls minus lock_destroy calls.
 * @lock_depth_max: most locks one thread held at once.
 */
struct mock_port {
	struct sluice_dma_port_ops ops;
	unsigned int ncpus;
	struct {
		uintptr_t start, end;
	} shared[MOCK_PORT_MAX_RANGES];
	unsigned int nshared;
	unsigned long to_shared_calls;
	unsigned long to_private_calls;
	long fail_to_shared_after;
	long fail_to_private_after;
	unsigned long log_lines;
	char last_log[256];
	atomic_long locks_live;
	atomic_uint lock_depth_max;
};

/**
 * mock_port_init() - reset @mp and fill its ops table.
 * @mp: the mock.
 * @ncpus: CPUs the library may see; mock_port_set_cpu() picks the caller's.
 */
void mock_port_init(struct mock_port *mp, unsigned int ncpus);

/**
 * mock_port_irqs_on() - whether the calling thread holds no mock lock and its
 *	"interrupt flag", which each lock saves in its save word and clears and
 *	each unlock restores from the word handed back, is set again.
 */
bool mock_port_irqs_on(void);

/**
 * mock_port_set_cpu() - set the CPU index the calling thread reports.
 * @cpu: index, below the ncpus given at init.
 */
void mock_port_set_cpu(unsigned int cpu);

/**
 * mock_port_is_shared() - whether every byte of a range was converted to shared.
 * @mp: the mock.
 * @addr: start of the range.
 * @len: its length in bytes (0 is treated as 1).
 * Return: true when the whole range lies in converted memory.
 */
bool mock_port_is_shared(const struct mock_port *mp, const void *addr, size_t len);

/**
 * mock_port_shared_bytes() - bytes currently converted to shared.
 * @mp: the mock.
 * Return: the sum of the recorded ranges.
 */
size_t mock_port_shared_bytes(const struct mock_port *mp);

/*
 * The signal the library's trap (__builtin_trap()) raises: SIGILL from ud2 on
 * x86, SIGTRAP from brk on aarch64 (tests/portable.mk runs the tests there).
 */
#if defined(__aarch64__)
#define MOCK_TRAP_SIGNAL SIGTRAP
#else
#define MOCK_TRAP_SIGNAL SIGILL
#endif

/**
 * mock_run_child() - run @fn(@ctx) in a child process, as the tests of the
 *	library's traps do: the trap signal gets its default action back (CMocka
 *	catches it to report a crash; the child must really die of it), and what
 *	the child writes to stderr is captured.
 * @fn: the child's work; the low byte of what it returns is the exit status.
 * @ctx: its argument.
 * @out: the child's stderr, NUL-terminated (cut to @outlen - 1 bytes).
 * @outlen: size of @out (at least 1).
 *
 * Return: the child's wait status, or -1 if no child could be started.
 */
int mock_run_child(int (*fn)(void *ctx), void *ctx, char *out, size_t outlen);

/*
 * Copy and clear implementations a port may install (ops.copy / ops.zero),
 * for the host benchmark and tests: the port's chosen copy and clear
 * (x86-64 `rep movsb` / `rep stosb`, fast with ERMS and for short copies with
 * FSRM, or the AVX2 loops of arch/x86_64/cpu/memops.h where this CPU runs
 * them and mock_port_set_copy() chose them), `rep movsq` with a byte tail
 * (the shape of newlib's x86-64 memcpy.S), and plain libc. On other
 * architectures the x86 ones fall back to libc.
 */
void mock_port_copy_chosen(void *ctx, void *dst, const void *src, size_t len);
void mock_port_zero_chosen(void *ctx, void *dst, size_t len);
void mock_port_copy_movsq(void *ctx, void *dst, const void *src, size_t len);
void mock_port_copy_libc(void *ctx, void *dst, const void *src, size_t len);
void mock_port_zero_libc(void *ctx, void *dst, size_t len);
/*
 * A non-temporal clear (SSE2 streaming stores, then sfence), the scrub a port
 * may offer where it does not want the cleared lines in the cache; libc's
 * memset where SSE2 is not available.
 */
void mock_port_zero_nt(void *ctx, void *dst, size_t len);

/**
 * mock_port_cpu_erms() - whether this CPU reports ERMS (CPUID 7.0:EBX bit 9),
 *	and in *@fsrm whether it reports FSRM (CPUID 7.0:EDX bit 4).
 */
bool mock_port_cpu_erms(bool *fsrm);

/**
 * mock_port_cpu_avx2() - whether this CPU and its OS run AVX2
 *	(cpu_avx2_usable() of CPUID and XCR0); false off x86-64.
 */
bool mock_port_cpu_avx2(void);

/**
 * mock_port_set_copy() - install a copy and a clear in @mp's ops, by name:
 *	"libc" (NULL ops: the library's own memcpy / memset), "movsb"
 *	(`rep movsb` / `rep stosb`), "avx2" (the AVX2 loops), or "auto" (movsb
 *	when the CPU has ERMS, else libc). movsb and avx2 install
 *	mock_port_copy_chosen() / _zero_chosen(), the ops the library runs
 *	inline, and set which body they run for the whole process.
 * Return: the name of what was installed ("libc", "movsb" or "avx2"), NULL
 *	if @impl is unknown or, for avx2, if this CPU does not run it.
 */
const char *mock_port_set_copy(struct mock_port *mp, const char *impl);

/**
 * mock_port_set_zero() - the same for the clear alone, after
 *	mock_port_set_copy(): a copy and a clear chosen apart.
 * Return: the name installed, NULL as for mock_port_set_copy().
 */
const char *mock_port_set_zero(struct mock_port *mp, const char *impl);

#endif /* SLUICE_TESTS_MOCK_PORT_H */
