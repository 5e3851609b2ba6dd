/* SPDX-License-Identifier: MIT */
/*
 * syscalls.c - the system-call layer newlib expects, for a kernel with one console.
 *
 * write() goes to COM1, sbrk() hands out the heap region reserved at boot, exit()
 * leaves QEMU through isa-debug-exit; everything else fails with ENOSYS (or the
 * answer that keeps stdio working: the console is a character device and a tty).
 * newlib 3.3.0 configured without supplied syscalls calls the plain names; the
 * underscored aliases cover code that calls those.
 *
 * Several CPUs: newlib is built single-threaded, so stdio belongs to CPU 0 alone
 * (write() from another CPU stops the kernel with a message naming it), while
 * malloc and free take a recursive spinlock through newlib's __malloc_lock hooks,
 * which any CPU may use.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "arch/x86_64/cpu/panic.h"
#include "arch/x86_64/cpu/qemu_exit.h"
#include "arch/x86_64/cpu/serial.h"
#include "arch/x86_64/smp/smp.h"
#include "arch/x86_64/smp/spinlock.h"
#include "kernel/syscalls.h"

#undef errno
extern int errno;

static uint8_t *heap_start, *heap_end, *heap_brk;

void syscalls_set_heap(void *base, size_t size)
{
	heap_start = base;
	heap_brk = base;
	heap_end = heap_start + size;
}

size_t syscalls_heap_used(void)
{
	return (size_t)(heap_brk - heap_start);
}

void *sbrk(ptrdiff_t increment)
{
	uint8_t *old = heap_brk;

	if (!heap_start || increment > heap_end - heap_brk || increment < heap_start - heap_brk) {
		errno = ENOMEM;
		return (void *)-1;
	}
	heap_brk += increment;
	return old;
}

/* newlib's mallocr calls these around every heap operation; these definitions
 * replace its empty single-threaded ones. Recursive: malloc may call sbrk and
 * newlib may nest the lock. */
static struct spinlock malloc_lock;
static int malloc_lock_owner = -1;
static unsigned int malloc_lock_depth;

struct _reent;
void __malloc_lock(struct _reent *r);
void __malloc_unlock(struct _reent *r);

void __malloc_lock(struct _reent *r)
{
	int me = (int)smp_cpu_id();

	(void)r;
	if (__atomic_load_n(&malloc_lock_owner, __ATOMIC_RELAXED) != me) {
		spin_lock(&malloc_lock);
		__atomic_store_n(&malloc_lock_owner, me, __ATOMIC_RELAXED);
	}
	malloc_lock_depth++;
}

void __malloc_unlock(struct _reent *r)
{
	(void)r;
	if (--malloc_lock_depth == 0) {
		__atomic_store_n(&malloc_lock_owner, -1, __ATOMIC_RELAXED);
		spin_unlock(&malloc_lock);
	}
}

int write(int fd, const void *buf, size_t len)
{
	unsigned int cpu = smp_cpu_id();

	if (cpu != 0) {
		/* stdio's shared FILE state is not safe on two CPUs: fail loudly. */
		serial_puts("\nsluice: stdio used on cpu ");
		serial_put_hex(cpu);
		serial_puts(" (only cpu 0 may print); stopping\n");
		qemu_exit(SLUICE_EXIT_FAIL);
	}
	if (fd != 1 && fd != 2) {
		errno = EBADF;
		return -1;
	}
	serial_write(buf, len);
	return (int)len;
}

int read(int fd, void *buf, size_t len)
{
	(void)fd, (void)buf, (void)len;
	errno = ENOSYS;
	return -1;
}

int open(const char *path, int flags, ...)
{
	(void)path, (void)flags;
	errno = ENOSYS;
	return -1;
}

int close(int fd)
{
	(void)fd;
	errno = ENOSYS;
	return -1;
}

int fstat(int fd, struct stat *st)
{
	if (fd < 0 || fd > 2) {
		errno = EBADF;
		return -1;
	}
	st->st_mode = S_IFCHR;
	return 0;
}

int isatty(int fd)
{
	if (fd >= 0 && fd <= 2)
		return 1;
	errno = EBADF;
	return 0;
}

off_t lseek(int fd, off_t off, int whence)
{
	(void)fd, (void)off, (void)whence;
	errno = ENOSYS;
	return -1;
}

int kill(int pid, int sig)
{
	(void)pid, (void)sig;
	errno = ENOSYS;
	return -1;
}

int getpid(void)
{
	return 1;
}

void _exit(int status)
{
	fflush(stdout);
	fflush(stderr);
	qemu_exit(status == 0 ? SLUICE_EXIT_PASS : status);
}

/* newlib's abort() would raise(SIGABRT), find no kill(), and exit with 1 (a plain
 * failure); a kernel abort is a panic and says so. */
void abort(void)
{
	kernel_panic("abort() called");
}

void *_sbrk(ptrdiff_t) __attribute__((alias("sbrk")));
int _write(int, const void *, size_t) __attribute__((alias("write")));
int _read(int, void *, size_t) __attribute__((alias("read")));
int _close(int) __attribute__((alias("close")));
int _fstat(int, struct stat *) __attribute__((alias("fstat")));
int _isatty(int) __attribute__((alias("isatty")));
off_t _lseek(int, off_t, int) __attribute__((alias("lseek")));
int _kill(int, int) __attribute__((alias("kill")));
int _getpid(void) __attribute__((alias("getpid")));
