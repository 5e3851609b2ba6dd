/* SPDX-License-Identifier: MIT */
/*
 * options.h - the kernel's run-time options ("key=value" words).
 *
 * They come from `make run ARGS="..."`, which the run script writes to sluice.cfg
 * on the boot volume; boot/efi_entry.c reads that file before ExitBootServices.
 * Parsing is plain C so the host tests exercise it.
 */
#ifndef SLUICE_BOOT_OPTIONS_H
#define SLUICE_BOOT_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "arch/x86_64/cc/cc.h"

/**
 * enum fault_kind - a deliberate fault, to test the exception report.
 * @FAULT_NONE: no fault.
 * @FAULT_PAGE: read an unmapped canonical address (#PF).
 * @FAULT_GP: read a non-canonical address (#GP).
 * @FAULT_UD: execute ud2 (#UD).
 * @FAULT_DIVIDE: divide by zero (#DE).
 * @FAULT_WRITE_TEXT: write to the kernel's own text (#PF, W/R=1: text is read-only).
 * @FAULT_EXEC_SHARED: call a `ret` placed in a shared DMA arena block, as the host
 *	could (#PF, I/D=1: shared memory is non-executable).
 * @FAULT_EXEC_DATA: call a `ret` in the image's data section (#PF, I/D=1).
 * @FAULT_EXEC_STACK: call a `ret` on the calling CPU's stack (#PF, I/D=1).
 * @FAULT_VE: a #VE (vector 20), as a TD raises one; with cc=sim-tdx the model
 *	first stages what TDG.VP.VEINFO.GET reports (an I/O instruction on the
 *	serial port), so the #VE guard's whole path runs.
 * @FAULT_VC: a #VC (vector 29, error code = the exit code of an I/O
 *	instruction), as an SEV-SNP guest raises one; with cc=sim-snp the
 *	simulated hardware delivers it on the #VC stack, so the guard's whole
 *	path runs.
 */
enum fault_kind {
	FAULT_NONE,
	FAULT_PAGE,
	FAULT_GP,
	FAULT_UD,
	FAULT_DIVIDE,
	FAULT_WRITE_TEXT,
	FAULT_EXEC_SHARED,
	FAULT_EXEC_DATA,
	FAULT_EXEC_STACK,
	FAULT_VE,
	FAULT_VC,
};

/**
 * struct kernel_options - parsed options, with defaults filled in.
 * @heap_bytes: newlib heap reserved at boot (heap=SIZE).
 * @dma_bytes: memory reserved at boot for the DMA layer, a multiple of 2 MiB and
 *	2 MiB aligned (dma=SIZE).
 * @fault: a deliberate fault after the boot report (fault=...).
 * @pool_bytes: bytes of each bounce pool carved from the DMA region (pool=SIZE),
 *	one pool per policy in @policies; the rest, whole 2 MiB chunks, is the
 *	shared arena.
 * @policies: bounce pool policies to set up and run the bounce mode with, a bit
 *	per index of options_policy_names (policies=LIST).
 * @scrub: stale-data strategy of from-device bounces (scrub=copy|zero|written):
 *	0 copy, 1 zero (the default: no private byte is copied into shared
 *	memory), 2 written (zero, but block reads are mapped with
 *	SLUICE_DMA_ATTR_UNMAP_WRITTEN: not zeroed, since their unmap names what
 *	the device wrote; kernel_dma.read_attrs).
 * @modes: DMA modes to run, a bit per index of options_mode_names (modes=a,b).
 * @blk: block task (blk=none|check): 1 reads the whole disk in each mode and
 *	prints its cksum, then writes a pattern to a region per mode.
 * @iodepth: requests in flight for block tasks (iodepth=N).
 * @bs: bytes per block request (bs=SIZE).
 * @frames: frames the network task sends from NIC 0 to NIC 1 (frames=N; 0 skips it).
 * @bench: benchmark suites to run, a bit per index of options_bench_names (bench=LIST).
 * @bench_set: 0 short, 1 full (bench_set=short|full).
 * @bench_ms: measured milliseconds per benchmark run (bench_ms=N).
 * @iotlb_entries: entries of the IOTLB model (iotlb_entries=N).
 * @iotlb_ways: its ways per set, 0 for fully associative (iotlb_ways=N).
 * @fail_private: fault injection: every Nth conversion back to private fails
 *	(fail_private=N, 0 never).
 * @areas: most areas per bounce pool, 0 for one per CPU (areas=N).
 * @net: network task, index into options_net_names (net=check|smp).
 * @cpus: CPUs to use, 0 for all the firmware lists (cpus=N).
 * @fault_cpu: the CPU that triggers @fault (fault_cpu=N).
 * @device_timeout_ms: the deadline of every wait on a device, in milliseconds
 *	(device_timeout_ms=N): a reset, a control command, a request, a frame.
 * @cc: the confidential-computing platform, index into options_cc_names
 *	(cc=auto|emulated|sim-tdx|sim-snp): auto is the emulated model unless the
 *	CPU is a real TD (or SNP guest); sim-tdx runs every conversion through the
 *	TDX protocol against a model of the TDX module, sim-snp through the SEV-SNP
 *	protocol against a model of the RMP and the hypervisor.
 * @tdx_fault: faults the simulated TD injects, a bit per index of
 *	options_tdx_fault_names (tdx_fault=LIST).
 * @tdx_fault_every: every Nth call of a faulted kind fails (tdx_fault_every=N).
 * @snp_fault: faults the simulated SNP guest injects, a bit per index of
 *	options_snp_fault_names (snp_fault=LIST).
 * @snp_fault_every: every Nth call of a faulted kind fails (snp_fault_every=N).
 * @accel: the accelerator the host ran us under, index into options_accel_names
 *	(accel=unknown|tcg|kvm; scripts/run-qemu.sh sets it). A label only: it
 *	changes nothing but the report and every benchmark line, so that figures of
 *	two accelerators are never compared.
 */
struct kernel_options {
	uint64_t heap_bytes;
	uint64_t dma_bytes;
	enum fault_kind fault;
	uint64_t pool_bytes;
	uint64_t policies;
	int scrub;
	uint64_t modes;
	int blk;
	uint64_t iodepth;
	uint64_t bs;
	uint64_t frames;
	uint64_t bench;
	int bench_set;
	uint64_t bench_ms;
	uint64_t iotlb_entries;
	uint64_t iotlb_ways;
	uint64_t fail_private;
	uint64_t areas;
	int net;
	uint64_t cpus;
	uint64_t fault_cpu;
	uint64_t device_timeout_ms;
	int cc;
	uint64_t tdx_fault;
	uint64_t tdx_fault_every;
	uint64_t snp_fault;
	uint64_t snp_fault_every;
	int accel;
};

/* Values of cc=: "auto", then the platforms of CC_PLATFORMS() chosen by option,
 * in list order; their indices are enum cc_option (CC_OPT_AUTO, CC_OPT_SIM_TDX,
 * ... in arch/x86_64/cc/cc.h). */
extern const char *const options_cc_names[];
/* Values of tdx_fault=. */
extern const char *const options_tdx_fault_names[];
/* Values of snp_fault=. */
extern const char *const options_snp_fault_names[];
#define SNP_FAULT_EARLY_RETURN 1
#define SNP_FAULT_PSC_ERROR 2
#define SNP_FAULT_SIZE_MISMATCH 3
#define SNP_FAULT_CF 4
#define SNP_FAULT_AP_SILENT 5
#define SNP_FAULT_VMPL1 6	/* the guest runs at VMPL1: refused at kernel entry */
#define SNP_FAULT_NO_CC_BLOB 7	/* the simulated firmware installs no CC blob */
#define SNP_FAULT_BAD_CC_BLOB 8 /* it installs one whose CPUID count overflows the page */
/* Values of accel=. */
extern const char *const options_accel_names[];
/* Values of bench=. */
extern const char *const options_bench_names[];
/* Values of bench_set=. */
extern const char *const options_bench_set_names[];

/* Values of modes=, in the order of enum kernel_dma_mode. */
extern const char *const options_mode_names[];
/* Values of blk=. */
extern const char *const options_blk_names[];
extern const char *const options_net_names[];

/* Values of policy=, in the order of enum sluice_dma_bounce_policy. */
extern const char *const options_policy_names[];
/* Values of scrub=: the first two in the order of enum sluice_dma_scrub, then
 * OPTIONS_SCRUB_WRITTEN (a zero-scrub layer whose block reads are not zeroed). */
#define OPTIONS_SCRUB_WRITTEN 2
extern const char *const options_scrub_names[];

#define OPTIONS_MAX_TEXT 1024

/**
 * options_list_format() - the choices of a LIST option set in @mask, as the
 *	option is written: "linux,bitmap", no separator before the first or
 *	after the last, "" for none.
 * @buf: where the text goes (NUL-terminated when @len > 0).
 * @len: its size.
 * @names: the option's NULL-terminated choices (options_policy_names, ...).
 * @mask: a bit per index of @names; bits beyond them are ignored.
 *
 * Return: the length of the text; @len - 1 when it was cut to fit.
 */
size_t options_list_format(char *buf, size_t len, const char *const *names, uint64_t mask);

/**
 * options_defaults() - fill @opts with the defaults.
 * @opts: the options.
 */
void options_defaults(struct kernel_options *opts);

/**
 * options_parse() - parse whitespace-separated key=value words over the defaults.
 * @text: the option text; '#' starts a comment that runs to the end of the line.
 * @opts: filled in (defaults first, then each word in order).
 * @err: on failure, a one-line message naming the bad word and listing valid keys.
 * @err_len: size of @err.
 * Return: 0, or -22 (EINVAL) with @err set.
 */
int options_parse(const char *text, struct kernel_options *opts, char *err, size_t err_len);

/**
 * options_parse_over() - parse option words over @opts as they are (no defaults
 *	first, no cross-option checks): one source of several.
 * @text: the option text (NULL or empty: nothing).
 * @opts: updated word by word.
 * @set: or-ed with options_key_bit() of every key the text sets (may be NULL).
 * @err: on failure, a one-line message naming the bad word.
 * @err_len: size of @err.
 * Return: 0, or -22 with @err set.
 */
int options_parse_over(const char *text, struct kernel_options *opts, uint64_t *set, char *err,
		       size_t err_len);

/**
 * options_validate() - the checks across options (areas a power of two, the
 *	IOTLB geometry, the pools within dma=) once every source is parsed.
 * @opts: the options.
 * @err: on failure, a one-line message.
 * @err_len: size of @err.
 * Return: 0, or -22 with @err set.
 */
int options_validate(const struct kernel_options *opts, char *err, size_t err_len);

/**
 * options_key_bit() - the bit of option @key in the masks options_parse_over()
 *	fills (its row in the option table); 0 for an unknown key.
 * @key: an option name ("scrub").
 */
uint64_t options_key_bit(const char *key);

/**
 * options_trust_check() - hold the host's options to what a confidential guest
 *	may let the host choose (boot/options_trust.c says which and why).
 * @trusted: the options from measured sources only: the defaults and the
 *	options built into the image (BUILTIN_OPTIONS).
 * @opts: the options in force, @trusted with the boot volume's sluice.cfg
 *	applied; in a confidential guest the default modes lose direct here
 *	unless the image's own options asked for it.
 * @builtin_set: keys the built-in options set (options_key_bit() bits).
 * @cfg_set: keys sluice.cfg set.
 * @guest: what makes the guest confidential ("TD", "sim-tdx", ...), for the message.
 * @err: on refusal, one line naming the option, the guarantee it weakens and
 *	where such an option may come from.
 * @err_len: size of @err.
 *
 * Called only in a confidential guest (a real TD or SEV-SNP guest, or under
 * cc=sim-tdx / cc=sim-snp); elsewhere every option may come from sluice.cfg.
 * Return: 0, or -1 (EPERM) with @err set: refuse to boot.
 */
int options_trust_check(const struct kernel_options *trusted, struct kernel_options *opts,
			uint64_t builtin_set, uint64_t cfg_set, const char *guest, char *err,
			size_t err_len);

/**
 * options_usage() - a multi-line description of every option, its values and default.
 * Return: a static string.
 */
const char *options_usage(void);

/**
 * options_fault_name() - the option value naming @fault ("none", "pf", ...).
 * @fault: the fault kind.
 */
const char *options_fault_name(enum fault_kind fault);

#endif /* SLUICE_BOOT_OPTIONS_H */
