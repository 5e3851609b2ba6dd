/* SPDX-License-Identifier: MIT */
/*
 * log.c - the library's one formatter and its three outcomes (log.h): a
 * report, a refusal, a trap. The layer, the bounce pools, the policies and
 * the arena all come here, so every line has the same shape and a port sees
 * every message through its one log op.
 *
 * No printf: the library is freestanding. The formatter is a small subset
 * that needs no floating point and no allocation; a line lives on the stack.
 */
#include "dma/log.h"
#include "dma/arith.h"

#include <stdint.h>

#include <sluice/dma_errors.h>

struct dma_fmt_buf {
	char *p;
	char *end;
};

static void dma_fmt_putc(struct dma_fmt_buf *b, char c)
{
	if (b->p < b->end)
		*b->p++ = c;
}

static void dma_fmt_num(struct dma_fmt_buf *b, unsigned long long v, unsigned int base, bool neg)
{
	char tmp[24];
	int n = 0;
	uint64_t u64 = v;

	/* No 64-bit division: on i386 it would call libgcc (dma/arith.h). */
	do {
		tmp[n++] = "0123456789abcdef"[dma_divmod_small(&u64, base)];
	} while (u64);
	if (neg)
		dma_fmt_putc(b, '-');
	while (n)
		dma_fmt_putc(b, tmp[--n]);
}

/* A printf subset, enough for log lines: %s %c %d %u %x %p with l, ll, z. */
static void dma_vfmt(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct dma_fmt_buf b = { buf, buf + size - 1 };

	for (; *fmt; fmt++) {
		int longs = 0;
		unsigned long long u;
		long long s;

		if (*fmt != '%') {
			dma_fmt_putc(&b, *fmt);
			continue;
		}
		fmt++;
		while (*fmt == 'l' || *fmt == 'z') {
			/* %z: size_t is an int on ILP32 targets (i386), a long on LP64. */
			longs += *fmt != 'z'			? 1 :
				 sizeof(size_t) == sizeof(int)	? 0 :
				 sizeof(size_t) == sizeof(long) ? 1 :
								  2;
			fmt++;
		}
		switch (*fmt) {
		case 's': {
			const char *str = va_arg(ap, const char *);

			if (!str)
				str = "(null)";
			while (*str)
				dma_fmt_putc(&b, *str++);
			break;
		}
		case 'c':
			dma_fmt_putc(&b, (char)va_arg(ap, int));
			break;
		case 'd':
			s = longs >= 2 ? va_arg(ap, long long) :
			    longs == 1 ? va_arg(ap, long) :
					 va_arg(ap, int);
			dma_fmt_num(&b, s < 0 ? -(unsigned long long)s : (unsigned long long)s, 10,
				    s < 0);
			break;
		case 'u':
		case 'x':
			u = longs >= 2 ? va_arg(ap, unsigned long long) :
			    longs == 1 ? va_arg(ap, unsigned long) :
					 va_arg(ap, unsigned int);
			if (*fmt == 'x')
				dma_fmt_num(&b, u, 16, false);
			else
				dma_fmt_num(&b, u, 10, false);
			break;
		case 'p':
			dma_fmt_putc(&b, '0');
			dma_fmt_putc(&b, 'x');
			dma_fmt_num(&b, (uintptr_t)va_arg(ap, void *), 16, false);
			break;
		case '%':
			dma_fmt_putc(&b, '%');
			break;
		case '\0':
			fmt--;
			break;
		default:
			dma_fmt_putc(&b, '?');
			break;
		}
	}
	*b.p = '\0';
}

void sluice_dma_priv_vlogf(const struct sluice_dma_port_ops *ops, enum sluice_dma_log_level level,
			   const char *fmt, va_list ap)
{
	char line[256];

	if (!ops || !ops->log)
		return;
	dma_vfmt(line, sizeof(line), fmt, ap);
	ops->log(ops->ctx, level, line);
}

static void dma_fmt(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dma_vfmt(buf, size, fmt, ap);
	va_end(ap);
}

void sluice_dma_priv_logf(const struct sluice_dma_port_ops *ops, enum sluice_dma_log_level level,
			  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sluice_dma_priv_vlogf(ops, level, fmt, ap);
	va_end(ap);
}

void sluice_dma_priv_fail(const struct sluice_dma_port_ops *ops, const char *file, int line,
			  const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	/* Formatted first: the BUG and refused lines wrap the caller's text. */
	dma_vfmt(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sluice_dma_priv_logf(ops, SLUICE_DMA_LOG_ERR, "BUG: %s (%s:%d)", msg, file, line);
	/* The port's own stop, with the message, where it has one (dma_port.h, fatal). */
	if (ops && ops->fatal) {
		char bug[256];

		dma_fmt(bug, sizeof(bug), "BUG: %s (%s:%d)", msg, file, line);
		ops->fatal(ops->ctx, bug);
	}
	/* Stop before the bad argument corrupts memory; a port's trap handler reports it. */
	__builtin_trap();
}

int sluice_dma_priv_refuse(const struct sluice_dma_port_ops *ops, bool strict, int err,
			   const char *file, int line, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	/* Formatted first: the BUG and refused lines wrap the caller's text. */
	dma_vfmt(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (strict)
		sluice_dma_priv_fail(ops, file, line, "%s", msg);
	sluice_dma_priv_logf(ops, SLUICE_DMA_LOG_ERR, "refused: %s (%s)", msg,
			     sluice_dma_strerror(err));
	return err;
}

int sluice_dma_priv_config_err(const struct sluice_dma_port_ops *ops, int err, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	dma_vfmt(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sluice_dma_priv_logf(ops, SLUICE_DMA_LOG_ERR, "config refused: %s (%s)", msg,
			     sluice_dma_strerror(err));
	return err;
}
