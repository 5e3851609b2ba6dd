/* SPDX-License-Identifier: MIT */
/*
 * log.h - the one logging, refusal and trap path of the library. Every
 * message of the layer, the bounce pools, the policies and the arena is
 * formatted by the same small printf (log.c) and goes out through the log op
 * of the object's port ops; every programmer error ends in the same trap.
 * Not a public header.
 *
 * The functions take the port ops, not an object: the layer and the arena
 * each keep their ops (see port.h), and a NULL ops (a NULL object) is
 * allowed everywhere: there is then nothing to log through, but a trap still
 * traps.
 *
 * Three outcomes, one rule for each (dma/README.md, "What the API offers firmware", Errors):
 *  - sluice_dma_priv_logf(): report (errors the caller also gets as a code,
 *    warnings, statistics);
 *  - sluice_dma_priv_refuse(): a bad handle refused before anything changed:
 *    log it, naming the address, and return the error; a strict object (a
 *    strict layer, an arena with SLUICE_DMA_ARENA_STRICT) traps instead;
 *  - sluice_dma_priv_fail() (DMA_FAIL, DMA_ASSERT): a programmer error that
 *    cannot be refused safely: log "BUG: ... (file:line)", then trap.
 */
#ifndef SLUICE_DMA_LOG_H
#define SLUICE_DMA_LOG_H

#include <stdarg.h>
#include <stdbool.h>

#include <sluice/dma_port.h>

#include "dma/priv.h"

/*
 * DMA_CHECKED() - the condition of a check on a common request's path (a
 * bad-argument refusal, the unmap's record checks, the arena free's claim
 * checks, an internal assert): the condition itself, in every build but the
 * bench-only ones that define SLUICE_DMA_BENCH_NO_CHECKS
 * (build/bench/bench_alloc_nochecks and _bare) to measure what those checks
 * cost (make bench-guarantees). There every such check passes: a measurement
 * of valid calls only, never a configuration to ship; no library, kernel or
 * test build has it.
 */
#ifdef SLUICE_DMA_BENCH_NO_CHECKS
#define DMA_CHECKED(cond) (0 && (cond))
#else
#define DMA_CHECKED(cond) (cond)
#endif

/*
 * Log one formatted line through @ops->log (nothing when @ops or its log op
 * is NULL). The format is a printf subset, enough for log lines: %s %c %d %u
 * %x %p %% with the l, ll and z modifiers; a line is cut at 255 bytes.
 */
SLUICE_DMA_PRIV void sluice_dma_priv_logf(const struct sluice_dma_port_ops *ops,
					  enum sluice_dma_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

SLUICE_DMA_PRIV void sluice_dma_priv_vlogf(const struct sluice_dma_port_ops *ops,
					   enum sluice_dma_log_level level, const char *fmt,
					   va_list ap) __attribute__((format(printf, 3, 0)));

/* Report a programmer error through @ops' log ("BUG: msg (file:line)"), then trap. */
SLUICE_DMA_PRIV void sluice_dma_priv_fail(const struct sluice_dma_port_ops *ops, const char *file,
					  int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5), noreturn, cold));

/*
 * A refused call with a bad handle (an address never mapped or allocated, a
 * double unmap or free, another length): log "refused: msg (reason)" and
 * return @err; with @strict, trap (after the BUG line) instead. Called before
 * anything is changed, so a refusal changes nothing.
 */
SLUICE_DMA_PRIV int sluice_dma_priv_refuse(const struct sluice_dma_port_ops *ops, bool strict,
					   int err, const char *file, int line, const char *fmt,
					   ...) __attribute__((format(printf, 6, 7), cold));

/*
 * A configuration the library refuses (an init or a pool add given a missing
 * op, a misplaced or short area, a bad size...): log "config refused: msg
 * (reason)" at ERR and return @err, so that no -22 comes back unexplained.
 * With no @ops (or no log op) there is nothing to print through.
 */
SLUICE_DMA_PRIV int sluice_dma_priv_config_err(const struct sluice_dma_port_ops *ops, int err,
					       const char *fmt, ...)
	__attribute__((format(printf, 3, 4), cold));

#define DMA_CONFIG_ERR(ops, err, ...) sluice_dma_priv_config_err((ops), (err), __VA_ARGS__)

/* A programmer error at this line: the message must name the address. */
#define DMA_FAIL(ops, ...) sluice_dma_priv_fail((ops), __FILE__, __LINE__, __VA_ARGS__)

/*
 * DMA_CHECK() - one invariant of a self-check (sluice_dma_layer_check(),
 * sluice_dma_arena_check()): when @cond is false, log "check failed: ..."
 * and return SLUICE_DMA_ERR_FAULT from the calling function.
 */
#define DMA_CHECK(ops, cond, ...)                                           \
	do {                                                                \
		if (!(cond)) {                                              \
			sluice_dma_priv_logf((ops), SLUICE_DMA_LOG_ERR,     \
					     "check failed: " __VA_ARGS__); \
			return SLUICE_DMA_ERR_FAULT;                        \
		}                                                           \
	} while (0)

#endif /* SLUICE_DMA_LOG_H */
