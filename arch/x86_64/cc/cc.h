/* SPDX-License-Identifier: MIT */
/*
 * cc.h - the confidential-computing platforms behind one interface.
 *
 * CC_PLATFORMS(X) is the one list of platforms. Everything that names them
 * reads it: the ops table (cc.c), the cc= option's choices (boot/options.c),
 * the boot report and the benchmark JSON (the ops' name), and the scripts
 * (scripts/cc-platforms.py parses the list below). Each platform implements
 * struct cc_platform_ops in a file of its own under arch/x86_64/cc/:
 *
 *   emulated  cc_emulated.c  a software PTE bit plus one trapping port write
 *   tdx       cc_tdx.c       a real TD (found by CPUID before ExitBootServices)
 *   snp       cc_snp.c       a real SEV-SNP guest (found by SEV_STATUS)
 *   sim-tdx   cc_sim_tdx.c   the TDX protocol against the model of tdx_model.c
 *   sim-snp   cc_sim_snp.c   the SNP protocol against the model of snp_model.c
 *
 * One platform is chosen once, at kernel entry (cc_platform_select()), and the
 * kernel calls its ops at fixed points of the boot (kernel/cc_setup.c):
 * early (kernel entry) -> pt_encoding (mmu_init) -> after_mmu -> start ->
 * ap_setup (before smp_init) -> arm_faults (after the DMA self-test) ->
 * report. A conversion goes mmu_set_shared() -> ops->convert (one indirect
 * call) -> the protocol, whose page-table half (struct cc_pt_ops) points
 * straight back at mm/.
 *
 * README.md, "Adding a CC platform": the recipe.
 */
#ifndef SLUICE_ARCH_CC_H
#define SLUICE_ARCH_CC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/x86_64/cc/cc_stats.h"
#include "arch/x86_64/cc/snp_cc_blob.h"
#include "arch/x86_64/cpu/cpu.h"
#include "arch/x86_64/mm/mem_range.h"

struct mmu_encoding;
struct tdx_model_faults;
struct snp_model_faults;

/*
 * The list: X(ID, symbol, "name", HOW). HOW says how the platform is chosen:
 * OPTION (cc=name, on a plain VM) or HARDWARE (found by CPUID / SEV_STATUS
 * before ExitBootServices, with cc=auto). The symbol names the ops
 * (cc_platform_<symbol>, defined by the platform's file). The first OPTION
 * platform is what cc=auto gives on a plain VM.
 */
#define CC_PLATFORMS(X)                           \
	X(EMULATED, emulated, "emulated", OPTION) \
	X(TDX, tdx, "tdx", HARDWARE)              \
	X(SNP, snp, "snp", HARDWARE)              \
	X(SIM_TDX, sim_tdx, "sim-tdx", OPTION)    \
	X(SIM_SNP, sim_snp, "sim-snp", OPTION)

/* CC_PLATFORM_EMULATED, CC_PLATFORM_TDX, ...: each platform's index in the list. */
enum cc_platform_id {
#define CC_PLATFORM_ENUM(id, sym, name, how) CC_PLATFORM_##id,
	CC_PLATFORMS(CC_PLATFORM_ENUM)
#undef CC_PLATFORM_ENUM
		CC_PLATFORM_COUNT
};

/* The names the cc= option accepts after "auto": the OPTION platforms, in
 * list order (boot/options.c builds its choice table from this). */
#define CC_OPTION_NAME_OPTION(name) name,
#define CC_OPTION_NAME_HARDWARE(name)
#define CC_OPTION_NAME(id, sym, name, how) CC_OPTION_NAME_##how(name)

/* CC_OPT_AUTO, then CC_OPT_<ID> for each OPTION platform: the values of
 * kernel_options.cc, indices into the option's choice table. */
#define CC_OPTION_ENUM_OPTION(id) CC_OPT_##id,
#define CC_OPTION_ENUM_HARDWARE(id)
#define CC_OPTION_ENUM(id, sym, name, how) CC_OPTION_ENUM_##how(id)
enum cc_option { CC_OPT_AUTO, CC_PLATFORMS(CC_OPTION_ENUM) CC_OPT_COUNT };

/**
 * struct cc_boot - what the boot stage found and the options asked, for the
 *	platform (filled by kernel/cc_setup.c from its hand-off; the platform keeps
 *	no pointer into it after early() and start() returned, except @ranges).
 * @option_auto: cc=auto (a real TD or SNP guest refuses any other value).
 * @ranges: the memory map.
 * @nranges: its entries.
 * @sev_status: SEV_STATUS read before ExitBootServices (0 elsewhere).
 * @cc_blob_found: the EFI configuration table held the SNP CC blob.
 * @cc_blob: a copy of it.
 * @cc_cpuid: the SNP CPUID page copied from it.
 * @cc_cpuid_copied: bytes copied (0: not read).
 * @sim_snp_fw_ghcb: cc=sim-snp: the page the simulated firmware set aside as
 *	the bootstrap CPU's GHCB (0: none).
 * @tdx_faults: cc=sim-tdx: what the model injects once armed (or NULL).
 * @tdx_ap_silent: cc=sim-tdx: the simulated firmware's APs never take the
 *	mailbox's command.
 * @tdx_ap_late: cc=sim-tdx: they take it only after the kernel's deadline.
 * @snp_faults: cc=sim-snp: what the model injects (or NULL).
 * @snp_ap_silent: cc=sim-snp: AP creation accepted, the AP never run.
 * @snp_vmpl: cc=sim-snp: the VMPL the simulated guest runs at.
 */
struct cc_boot {
	bool option_auto;
	const struct mem_range *ranges;
	unsigned int nranges;
	uint64_t sev_status;
	bool cc_blob_found;
	const struct snp_cc_blob *cc_blob;
	const void *cc_cpuid;
	size_t cc_cpuid_copied;
	uint64_t sim_snp_fw_ghcb;
	const struct tdx_model_faults *tdx_faults;
	bool tdx_ap_silent, tdx_ap_late;
	const struct snp_model_faults *snp_faults;
	bool snp_ap_silent;
	unsigned int snp_vmpl;
};

/**
 * struct cc_platform_ops - one confidential-computing platform.
 *
 * Mandatory (tests/arch/test_cc_platforms.c checks every platform of the list):
 * @name: as in the list ("sim-tdx"): reports, benchmark JSON, cc=.
 * @id: its CC_PLATFORM_* index.
 * @hardware: the cc_mode CPUID found that selects it (CC_TDX, CC_SEV_SNP), or
 *	CC_NONE for a platform chosen by option.
 * @early: at kernel entry, before any port I/O, CPUID or MSR access (a real
 *	TD or SNP guest starts here); ends the guest if it cannot run. The heap
 *	is set.
 * @pt_encoding: how the kernel's page tables say "shared", for mmu_init():
 *	NULL for the software bit (every platform QEMU runs without TDX/SNP).
 * @after_mmu: right after mmu_init() returned 0, before anything prints.
 * @start: after mmu_init(): the rest of the platform (conversions routed
 *	through @convert, the #VE / #VC guard, the simulated TD); ends the
 *	kernel if it cannot.
 * @ap_setup: how application processors start on this platform (INIT-SIPI,
 *	the ACPI mailbox only, AP creation, the simulated firmware's part):
 *	called once, after @start, before smp_init().
 * @stats: the protocol's counters, consistent with one another.
 * @report: one line: the platform's parameters and counters (@when: what
 *	they cover, "at boot", "after the tasks").
 *
 * Optional (NULL or 0: the platform has none):
 * @guest: what makes the guest confidential, for messages ("TD", "sim-snp");
 *	NULL for a platform that is not (emulated): the options' trust check
 *	(boot/options_trust.c) applies to every platform that has one.
 * @boot_firmware: CC_FW_* bits: what the UEFI stage does for the platform
 *	before ExitBootServices (the simulated platforms' firmware pieces need
 *	UEFI's allocator and configuration table, which only boot/ may call).
 * @protocol: the conversion protocol's name ("TDX", "SNP") for the MMU
 *	report; NULL when @convert is NULL.
 * @convert: the conversion behind mmu_set_shared() (mmu_cc_backend's
 *	signature, @ctx unused): NULL keeps mm/'s emulated one.
 * @arm_faults: start the faults the options asked of a simulated platform
 *	(after the DMA self-test, so that they hit the tasks).
 * @stage_ve: what the next #VE will be reported as (the TDX module's
 *	TDG.VP.VEINFO.GET answer), before fault=ve raises vector 20.
 * @raise_vc: deliver a #VC with @exit_code as the hardware does (vector 29
 *	on IST3 with an error code); never returns. fault=vc needs it.
 */
/* Before ExitBootServices (cc_platform_ops.boot_firmware). */
#define CC_FW_FIND_CC_BLOB (1u << 0) /* copy the SNP CC blob and its CPUID page */
#define CC_FW_SIM_SNP (1u << 1)	     /* play OVMF's SNP part: GHCB, CPUID page, CC blob */
#define CC_FW_SIM_TDVF (1u << 2)     /* play TDVF's part: the wakeup mailbox in the MADT */

struct cc_platform_ops {
	const char *name;
	enum cc_platform_id id;
	enum cc_mode hardware;
	void (*early)(const struct cc_boot *b);
	const struct mmu_encoding *(*pt_encoding)(void);
	void (*after_mmu)(void);
	void (*start)(const struct cc_boot *b);
	void (*ap_setup)(const struct cc_boot *b);
	void (*stats)(struct cc_stats *out);
	void (*report)(const char *when);
	const char *guest;
	unsigned int boot_firmware;
	const char *protocol;
	int (*convert)(void *ctx, uint64_t va, uint64_t len, bool shared);
	void (*arm_faults)(void);
	void (*stage_ve)(uint32_t exit_reason, uint64_t exit_qual, uint64_t gpa);
	__attribute__((noreturn)) void (*raise_vc)(uint64_t exit_code);
};

/* Each platform's ops, defined in its own file. */
#define CC_PLATFORM_DECLARE(id, sym, name, how) \
	extern const struct cc_platform_ops cc_platform_##sym;
CC_PLATFORMS(CC_PLATFORM_DECLARE)
#undef CC_PLATFORM_DECLARE

/* Every platform, in list order (cc_platforms[CC_PLATFORM_TDX] is tdx's). */
extern const struct cc_platform_ops *const cc_platforms[CC_PLATFORM_COUNT];

/**
 * cc_platform_find() - a platform by its name.
 * @name: "sim-tdx", ...
 * Return: its ops, or NULL when the list has no such name.
 */
const struct cc_platform_ops *cc_platform_find(const char *name);

/**
 * cc_platform_choose() - which platform runs, from what CPUID found before
 *	ExitBootServices and the cc= option; pure (the host tests call it).
 * @at_boot: the enum cc_mode found.
 * @option: the cc= value (enum cc_option).
 *
 * Hardware first: a TD or an SNP guest runs as one whatever cc= says (its
 * early() refuses an option other than auto); SEV or SEV-ES without SNP runs
 * the first OPTION platform of the list (emulated). On a plain VM: auto gives
 * that one too, any other value its platform.
 * Return: the platform's ops, or NULL (@option out of range).
 */
const struct cc_platform_ops *cc_platform_choose(enum cc_mode at_boot, unsigned int option);

/**
 * cc_platform_select() - choose once (cc_platform_choose()) and keep the
 *	choice for cc_platform(); the kernel calls it first thing at entry.
 * @at_boot: the enum cc_mode found before ExitBootServices.
 * @option: the cc= value.
 * Return: the chosen ops (never NULL: an option out of range gives emulated).
 */
const struct cc_platform_ops *cc_platform_select(enum cc_mode at_boot, unsigned int option);

/**
 * cc_platform() - the platform chosen by cc_platform_select(); the emulated
 *	one before.
 */
const struct cc_platform_ops *cc_platform(void);

/**
 * cc_conversions_print() - the end of a platform's report line: the
 *	conversions' outcomes, then @extra after a comma, and the newline.
 * @s: the protocol's counters.
 * @extra: the simulated platform's model, or NULL.
 */
void cc_conversions_print(const struct cc_stats *s, const char *extra);

/**
 * cc_model_violation() - a simulated platform's model caught the kernel
 *	breaking a rule: said, and the kernel ends with SLUICE_EXIT_FAIL.
 * @model: the model's name ("tdx-model").
 * @guest: what it simulates ("the TDX protocol broke a rule of the simulated TD").
 * @rule: the rule.
 * @gpa: where.
 */
__attribute__((noreturn)) void cc_model_violation(const char *model, const char *guest,
						  const char *rule, uint64_t gpa);

#endif /* SLUICE_ARCH_CC_H */
