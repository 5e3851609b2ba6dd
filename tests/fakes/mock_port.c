/* SPDX-License-Identifier: MIT */
/*
 * mock_port.c - host implementation of the DMA porting ops (see mock_port.h).
 */
#include "tests/fakes/mock_port.h"
#include "tests/fakes/mock_port_inline.h"

#include <assert.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

_Thread_local unsigned int mock_port_cpu_index;
/* The library calls set_shared/set_private with no lock of its own held, so
 * several threads may convert at once: the bookkeeping needs its own lock. */
static pthread_mutex_t mock_conversion_lock = PTHREAD_MUTEX_INITIALIZER;

void mock_port_set_cpu(unsigned int cpu)
{
	mock_port_cpu_index = cpu;
}

static bool mock_fail_now(long *countdown)
{
	if (*countdown < 0)
		return false;
	if (*countdown == 0)
		return true;
	(*countdown)--;
	return false;
}

static int mock_set_shared_locked(void *ctx, void *vaddr, size_t len)
{
	struct mock_port *mp = ctx;
	uintptr_t start = (uintptr_t)vaddr;

	assert(len && !(start & 4095) && !(len & 4095));
	mp->to_shared_calls++;
	if (mock_fail_now(&mp->fail_to_shared_after))
		return SLUICE_DMA_ERR_IO;
	/* Converting a page that is already shared is a bug in the caller. */
	for (unsigned int i = 0; i < mp->nshared; i++)
		assert(start + len <= mp->shared[i].start || start >= mp->shared[i].end);
	assert(mp->nshared < MOCK_PORT_MAX_RANGES);
	mp->shared[mp->nshared].start = start;
	mp->shared[mp->nshared].end = start + len;
	mp->nshared++;
	return 0;
}

static int mock_set_private_locked(void *ctx, void *vaddr, size_t len)
{
	struct mock_port *mp = ctx;
	uintptr_t start = (uintptr_t)vaddr;

	assert(len && !(start & 4095) && !(len & 4095));
	mp->to_private_calls++;
	if (mock_fail_now(&mp->fail_to_private_after))
		return SLUICE_DMA_ERR_IO;
	/* The library converts back exactly the ranges it converted (or pieces of one). */
	for (unsigned int i = 0; i < mp->nshared; i++) {
		uintptr_t s = mp->shared[i].start, e = mp->shared[i].end;

		if (start < s || start + len > e)
			continue;
		if (start == s && start + len == e) {
			mp->shared[i] = mp->shared[--mp->nshared];
		} else if (start == s) {
			mp->shared[i].start = start + len;
		} else if (start + len == e) {
			mp->shared[i].end = start;
		} else {
			assert(mp->nshared < MOCK_PORT_MAX_RANGES);
			mp->shared[mp->nshared].start = start + len;
			mp->shared[mp->nshared].end = e;
			mp->nshared++;
			mp->shared[i].end = start;
		}
		return 0;
	}
	assert(!"set_private on a range that was never made shared");
	return SLUICE_DMA_ERR_INVAL;
}

static int mock_set_shared(void *ctx, void *vaddr, size_t len)
{
	int rc;

	/* Called with no library lock held (dma_port.h): the "interrupts" are on. */
	assert(mock_port_irqs_on());

	pthread_mutex_lock(&mock_conversion_lock);
	rc = mock_set_shared_locked(ctx, vaddr, len);
	pthread_mutex_unlock(&mock_conversion_lock);
	return rc;
}

static int mock_set_private(void *ctx, void *vaddr, size_t len)
{
	int rc;

	pthread_mutex_lock(&mock_conversion_lock);
	rc = mock_set_private_locked(ctx, vaddr, len);
	pthread_mutex_unlock(&mock_conversion_lock);
	return rc;
}

static uint64_t mock_virt_to_dma(void *ctx, const void *vaddr)
{
	(void)ctx;
	return (uint64_t)(uintptr_t)vaddr;
}

static void *mock_dma_to_virt(void *ctx, uint64_t dma_addr)
{
	(void)ctx;
	return (void *)(uintptr_t)dma_addr;
}

unsigned int mock_port_cpu_id(void *ctx)
{
	return mock_port_cpu_id_body(ctx);
}

/* A lock word lock_destroy released: taking it again is a library bug. */
#define MOCK_LOCK_DEAD 0xdead

static void mock_lock_init(void *ctx, void *lock)
{
	struct mock_port *mp = ctx;

	atomic_init((atomic_int *)lock, 0);
	atomic_fetch_add_explicit(&mp->locks_live, 1, memory_order_relaxed);
}

static void mock_lock_destroy(void *ctx, void *lock)
{
	struct mock_port *mp = ctx;

	/* Never while held, never twice. */
	assert(atomic_load_explicit((atomic_int *)lock, memory_order_relaxed) == 0);
	atomic_store_explicit((atomic_int *)lock, MOCK_LOCK_DEAD, memory_order_relaxed);
	atomic_fetch_sub_explicit(&mp->locks_live, 1, memory_order_relaxed);
}

/*
 * What a lock's save word stands for here: the caller's "interrupt flag",
 * per thread. lock saves it and clears it, as an irqsave spinlock does; unlock
 * restores it from the word the library hands back. Each hold is also pushed
 * on a per-thread stack with the word it got, so unlock checks that the
 * library releases in reverse order (dma_port.h, nesting) and hands back the
 * very word that hold's lock returned.
 */
#define MOCK_HELD_MAX 64
static _Thread_local bool mock_irq_off;
static _Thread_local unsigned int mock_depth;
static _Thread_local uint64_t mock_seq;
static _Thread_local struct {
	void *lock;
	uint64_t saved;
} mock_held[MOCK_HELD_MAX];

bool mock_port_irqs_on(void)
{
	return !mock_irq_off && mock_depth == 0;
}

/* The spin-wait hint and the cycle counter of the architecture the tests run on
 * (x86_64, i386, or aarch64 under qemu-user: tests/portable.mk). */
static inline void mock_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#endif
}

static uint64_t mock_lock(void *ctx, void *lock)
{
	struct mock_port *mp = ctx;
	atomic_int *word = lock;
	int expected = 0;
	uint64_t saved;
	unsigned int max;

	assert(atomic_load_explicit(word, memory_order_relaxed) != MOCK_LOCK_DEAD);
	assert(mock_depth < MOCK_HELD_MAX);
	for (unsigned int i = 0; i < mock_depth; i++)
		assert(mock_held[i].lock != lock); /* no recursion */
	while (!atomic_compare_exchange_weak_explicit(word, &expected, 1, memory_order_acquire,
						      memory_order_relaxed)) {
		expected = 0;
		while (atomic_load_explicit(word, memory_order_relaxed))
			mock_cpu_relax();
	}
	saved = (++mock_seq << 1) | (mock_irq_off ? 0 : 1);
	mock_irq_off = true;
	mock_held[mock_depth].lock = lock;
	mock_held[mock_depth].saved = saved;
	mock_depth++;
	max = atomic_load_explicit(&mp->lock_depth_max, memory_order_relaxed);
	while (mock_depth > max &&
	       !atomic_compare_exchange_weak_explicit(&mp->lock_depth_max, &max, mock_depth,
						      memory_order_relaxed, memory_order_relaxed))
		;
	return saved;
}

static void mock_unlock(void *ctx, void *lock, uint64_t saved)
{
	(void)ctx;
	assert(mock_depth > 0);
	assert(mock_held[mock_depth - 1].lock == lock);	  /* reverse order */
	assert(mock_held[mock_depth - 1].saved == saved); /* that hold's word */
	mock_depth--;
	atomic_store_explicit((atomic_int *)lock, 0, memory_order_release);
	mock_irq_off = !(saved & 1);
}

static uint64_t mock_cycles(void *ctx)
{
	(void)ctx;
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

static void mock_log(void *ctx, enum sluice_dma_log_level level, const char *msg)
{
	struct mock_port *mp = ctx;

	mp->log_lines++;
	snprintf(mp->last_log, sizeof(mp->last_log), "%s", msg);
	if (level == SLUICE_DMA_LOG_ERR || getenv("SLUICE_VERBOSE"))
		fprintf(stderr, "dma: %s\n", msg);
}

void mock_port_init(struct mock_port *mp, unsigned int ncpus)
{
	memset(mp, 0, sizeof(*mp));
	mp->ncpus = ncpus ? ncpus : 1;
	mp->fail_to_shared_after = -1;
	mp->fail_to_private_after = -1;
	mp->ops.ctx = mp;
	mp->ops.set_shared = mock_set_shared;
	mp->ops.set_private = mock_set_private;
	mp->ops.virt_to_dma = mock_virt_to_dma;
	mp->ops.dma_to_virt = mock_dma_to_virt;
	mp->ops.cpu_id = mock_port_cpu_id;
	mp->ops.lock_init = mock_lock_init;
	mp->ops.lock = mock_lock;
	mp->ops.unlock = mock_unlock;
	mp->ops.lock_destroy = mock_lock_destroy;
	mp->ops.cycles = mock_cycles;
	mp->ops.log = mock_log;
	mock_port_cpu_index = 0;
}

bool mock_port_is_shared(const struct mock_port *mp, const void *addr, size_t len)
{
	uintptr_t pos = (uintptr_t)addr, end = pos + (len ? len : 1);

	/* Ranges may be adjacent pieces; walk forward through them. */
	while (pos < end) {
		bool found = false;

		for (unsigned int i = 0; i < mp->nshared; i++) {
			if (pos >= mp->shared[i].start && pos < mp->shared[i].end) {
				pos = mp->shared[i].end;
				found = true;
				break;
			}
		}
		if (!found)
			return false;
	}
	return true;
}

size_t mock_port_shared_bytes(const struct mock_port *mp)
{
	size_t total = 0;

	for (unsigned int i = 0; i < mp->nshared; i++)
		total += mp->shared[i].end - mp->shared[i].start;
	return total;
}

/* ------------------------------------------------------------ copy and clear */

void mock_port_copy_libc(void *ctx, void *dst, const void *src, size_t len)
{
	(void)ctx;
	memcpy(dst, src, len);
}

void mock_port_zero_libc(void *ctx, void *dst, size_t len)
{
	(void)ctx;
	memset(dst, 0, len);
}

#if defined(__x86_64__) && defined(__SSE2__)
bool mock_port_avx2_copy, mock_port_avx2_zero;

void mock_port_copy_chosen(void *ctx, void *dst, const void *src, size_t len)
{
	(void)ctx;
	mock_port_copy_body(dst, src, len);
}

void mock_port_zero_chosen(void *ctx, void *dst, size_t len)
{
	(void)ctx;
	mock_port_zero_body(dst, len);
}

void mock_port_copy_movsq(void *ctx, void *dst, const void *src, size_t len)
{
	size_t q = len >> 3, r = len & 7;

	(void)ctx;
	__asm__ volatile("rep movsq" : "+D"(dst), "+S"(src), "+c"(q) : : "memory");
	__asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(r) : : "memory");
}

static void mock_port_cpuid(unsigned int leaf, unsigned int r[4])
{
	__asm__ volatile("cpuid"
			 : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
			 : "a"(leaf), "c"(0));
}

bool mock_port_cpu_erms(bool *fsrm)
{
	unsigned int r[4];

	mock_port_cpuid(7, r);
	if (fsrm)
		*fsrm = (r[3] >> 4) & 1;
	return (r[1] >> 9) & 1;
}

bool mock_port_cpu_avx2(void)
{
	unsigned int r1[4], r7[4] = { 0 };

	mock_port_cpuid(0, r1);
	if (r1[0] >= 7)
		mock_port_cpuid(7, r7);
	mock_port_cpuid(1, r1);
	/* XGETBV raises #UD unless the OS set CR4.OSXSAVE, which CPUID 1 mirrors. */
	return cpu_avx2_usable(r1[2], r7[1], (r1[2] & CPUID1_ECX_OSXSAVE) ? xgetbv(0) : 0);
}
#else
void mock_port_copy_chosen(void *ctx, void *dst, const void *src, size_t len)
{
	mock_port_copy_libc(ctx, dst, src, len);
}

void mock_port_zero_chosen(void *ctx, void *dst, size_t len)
{
	mock_port_zero_libc(ctx, dst, len);
}

void mock_port_copy_movsq(void *ctx, void *dst, const void *src, size_t len)
{
	mock_port_copy_libc(ctx, dst, src, len);
}

bool mock_port_cpu_erms(bool *fsrm)
{
	if (fsrm)
		*fsrm = false;
	return false;
}

bool mock_port_cpu_avx2(void)
{
	return false;
}
#endif

#if defined(__SSE2__)
#include <emmintrin.h>

/*
 * Non-temporal clear: 16-byte streaming stores (movntdq) over the aligned
 * middle, plain stores for an unaligned head and tail, then sfence. The fence
 * is what makes it correct: streaming stores are weakly ordered and wait in
 * write-combining buffers that a later lock release does not order and a
 * device's DMA read does not snoop, and the library hands the memory out
 * right after this returns (dma_port.h, @zero).
 */
void mock_port_zero_nt(void *ctx, void *dst, size_t len)
{
	unsigned char *p = dst;
	size_t head = (size_t)(-(uintptr_t)p & 15);

	(void)ctx;
	if (head > len)
		head = len;
	memset(p, 0, head);
	p += head;
	len -= head;
	for (; len >= 64; p += 64, len -= 64) {
		_mm_stream_si128((__m128i *)p, _mm_setzero_si128());
		_mm_stream_si128((__m128i *)(p + 16), _mm_setzero_si128());
		_mm_stream_si128((__m128i *)(p + 32), _mm_setzero_si128());
		_mm_stream_si128((__m128i *)(p + 48), _mm_setzero_si128());
	}
	for (; len >= 16; p += 16, len -= 16)
		_mm_stream_si128((__m128i *)p, _mm_setzero_si128());
	memset(p, 0, len);
	_mm_sfence();
}
#else
void mock_port_zero_nt(void *ctx, void *dst, size_t len)
{
	mock_port_zero_libc(ctx, dst, len);
}
#endif

/*
 * What @impl names, installed as the copy (@zero false) or the clear: "libc"
 * (NULL), "movsb" or "avx2" (the chosen op, its body set), "auto" (movsb with
 * ERMS, else libc). NULL, changing nothing, for a name unknown or not run here.
 */
static const char *mock_port_install(struct mock_port *mp, const char *impl, bool zero)
{
	const char *name;
	bool avx2 = false;

	if (!strcmp(impl, "auto"))
		impl = mock_port_cpu_erms(NULL) ? "movsb" : "libc";
	/* The names returned are the port's own strings, never the caller's. */
	if (!strcmp(impl, "libc"))
		name = "libc";
	else if (!strcmp(impl, "movsb"))
		name = "movsb";
	else if (!strcmp(impl, "avx2") && mock_port_cpu_avx2())
		name = "avx2", avx2 = true;
	else
		return NULL;
#if defined(__x86_64__) && defined(__SSE2__)
	if (zero)
		mock_port_avx2_zero = avx2;
	else
		mock_port_avx2_copy = avx2;
#else
	(void)avx2; /* never true here: mock_port_cpu_avx2() is false */
#endif
	if (zero)
		mp->ops.zero = strcmp(name, "libc") ? mock_port_zero_chosen : NULL;
	else
		mp->ops.copy = strcmp(name, "libc") ? mock_port_copy_chosen : NULL;
	return name;
}

const char *mock_port_set_copy(struct mock_port *mp, const char *impl)
{
	const char *name = mock_port_install(mp, impl, false);

	return name ? mock_port_install(mp, name, true) : NULL;
}

const char *mock_port_set_zero(struct mock_port *mp, const char *impl)
{
	return mock_port_install(mp, impl, true);
}

int mock_run_child(int (*fn)(void *ctx), void *ctx, char *out, size_t outlen)
{
	int fds[2], status;
	ssize_t got;
	size_t total = 0;
	pid_t pid;

	if (pipe(fds) != 0)
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		signal(MOCK_TRAP_SIGNAL, SIG_DFL);
		dup2(fds[1], 2);
		close(fds[0]);
		_exit(fn(ctx) & 0xff);
	}
	close(fds[1]);
	while (total < outlen - 1 && (got = read(fds[0], out + total, outlen - 1 - total)) > 0)
		total += (size_t)got;
	out[total] = '\0';
	close(fds[0]);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}
