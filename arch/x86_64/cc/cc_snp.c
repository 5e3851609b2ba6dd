/* SPDX-License-Identifier: MIT */
/*
 * cc_snp.c - this kernel as an SEV-SNP guest (see cc_snp.h).
 */
#include "arch/x86_64/cc/cc_snp.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arch/x86_64/cpu/cpu.h"
#include "arch/x86_64/cpu/descriptors.h"
#include "arch/x86_64/smp/smp.h"
#include "arch/x86_64/cc/snp_boot.h"

static struct snp snp;
static struct pvio_snp pv;
/* Its lock also covers the MSR-protocol exchanges of a GHCB set-up: they share
 * the protocol's state and the RMP model behind it. */
static struct cc_glue glue;
static bool active;

/* One GHCB per CPU, shared with the hypervisor; a backup of each for a nested
 * exchange (snp.h, struct snp_ghcb_slot); one VMSA per AP, private. The VMSA
 * array has a spare page: a VMSA must not be 2 MiB aligned (snp_vmsa_mark()). */
static struct ghcb ghcb_pages[SMP_MAX_CPUS];
static struct ghcb ghcb_backups[SMP_MAX_CPUS];
static struct snp_ghcb_slot slots[SMP_MAX_CPUS];
static struct snp_vmsa vmsa_pages[SMP_MAX_CPUS + 1];
static struct snp_vmsa *vmsa_of[SMP_MAX_CPUS];
static unsigned long aps_created, aps_destroyed, ghcbs_registered;
/* The boot: the GHCB MSR as the firmware left it (never used), our pages made
 * shared at entry, the console up once ours is registered; what the window
 * before that asked (CPUID through the MSR protocol; requests that needed a
 * GHCB, refused: none are expected). */
static uint64_t fw_ghcb_msr;
static unsigned int ghcbs_prepared;
static bool console_up;
static unsigned long early_no_ghcb, early_cpuid_hv;
static const struct snp_cpuid_page *cpuid_page;

static struct snp_ghcb_slot *cpu_slot(void *ctx)
{
	(void)ctx;
	return &slots[smp_cpu_id() % SMP_MAX_CPUS];
}

/* snp.c speaks of the private attribute, the kernel's mappings of shared. */
/* The cache-coherency mitigation (snp_pt_ops.evict_cache): one read of the
 * first and of the last byte of each page, through its private mapping (the
 * kernel identity-maps RAM), as Linux sev_evict_cache() does. */
static void evict_cache(void *ctx, uint64_t gpa, uint64_t npages)
{
	(void)ctx;
	for (uint64_t i = 0; i < npages; i++) {
		const volatile uint8_t *p = (const volatile uint8_t *)(uintptr_t)(gpa + i * 4096);

		(void)p[0];
		(void)p[4095];
	}
}

static int set_pte_private(void *ctx, uint64_t gpa, uint64_t len, bool private_)
{
	return cc_glue_set_pte_shared(ctx, gpa, len, !private_);
}

/* The protocol behind mmu_set_shared() (run under the glue's lock). */
static int snp_convert(void *ctx, uint64_t va, uint64_t len, bool shared)
{
	return shared ? snp_to_shared(ctx, va, len) : snp_to_private(ctx, va, len);
}

static uint64_t ghcb_gpa_of(unsigned int cpu)
{
	return (uint64_t)(uintptr_t)&ghcb_pages[cpu];
}

/* This CPU's GHCB, made shared at boot (cc_snp_early(), cc_snp_after_mmu()):
 * registered by this CPU. */
static int ghcb_setup_this_cpu(unsigned int cpu)
{
	int rc;

	slots[cpu].backup = &ghcb_backups[cpu];
	spin_lock(&glue.lock);
	rc = cpu < ghcbs_prepared ? snp_ghcb_register(&snp, &ghcb_pages[cpu], ghcb_gpa_of(cpu)) :
				    SNP_ERR_INVAL;
	if (!rc)
		ghcbs_registered++;
	spin_unlock(&glue.lock);
	return rc;
}

/* The #VC exit codes this kernel could meet (SVM exit codes; GHCB spec). */
static const char *vc_name(uint64_t code)
{
	switch (code) {
	case 0x6f:
		return "RDTSCP";
	case 0x6e:
		return "RDTSC";
	case 0x72:
		return "CPUID";
	case 0x78:
		return "HLT";
	case 0x7b:
		return "IOIO";
	case 0x7c:
		return "MSR";
	case 0x81:
		return "VMMCALL";
	case 0x89:
		return "WBINVD";
	case 0x400:
		return "NPF: MMIO or a C-bit mismatch";
	case 0x404:
		return "a private access to an unvalidated page";
	default:
		return "other";
	}
}

/*
 * The #VC guard: the hardware's account (the exit code is the error code),
 * printed through the paravirtual I/O layer, which raises no #VC; the exception
 * report and the end through the MSR protocol follow (trap.c). Nothing is
 * emulated: every operation an SNP guest traps on already goes through pvio,
 * so a #VC is a bug, or the hypervisor misbehaving.
 */
static void vc_report(uint64_t rip, uint64_t code)
{
	printf("#VC: exit code 0x%" PRIx64 " (%s), rip 0x%" PRIx64 "\n", code, vc_name(code), rip);
}

/* ------------------------------------------------------------ APs */

static inline void sgdt_sidt(struct vmcb_seg *gdtr, struct vmcb_seg *idtr)
{
	struct __attribute__((packed)) {
		uint16_t limit;
		uint64_t base;
	} g, i;

	__asm__ volatile("sgdt %0\n\tsidt %1" : "=m"(g), "=m"(i));
	gdtr->limit = g.limit;
	gdtr->base = g.base;
	idtr->limit = i.limit;
	idtr->base = i.base;
}

#define MSR_EFER 0xC0000080u
#define EFER_SVME (UINT64_C(1) << 12)
#define EFER_LMA (UINT64_C(1) << 10)

/*
 * The AP's VMSA: 64-bit mode at @entry on this kernel's page tables, GDT and
 * IDT, RSP and RDI given, the GS base at its per-CPU data (smp.c), the SEV
 * features of this guest (Linux: SEV_STATUS >> 2). Segment attributes in the
 * VMCB's packed form (APM vol. 2 "VMCB Layout, State Save Area").
 */
static void vmsa_fill(struct snp_vmsa *v, uint64_t entry, uint64_t rsp, uint64_t arg)
{
	const struct vmcb_seg data = { GDT_KERNEL_DATA, 0x0c93, 0xffffffff, 0 };

	snp_vmsa_ap_defaults(v);
	v->cs = (struct vmcb_seg){ GDT_KERNEL_CODE, 0x029b, 0xffffffff, 0 };
	v->ds = v->es = v->ss = data;
	v->fs = (struct vmcb_seg){ 0, 0, 0xffffffff, 0 };
	v->gs = (struct vmcb_seg){ 0, 0, 0xffffffff, arg };
	v->tr = (struct vmcb_seg){ 0, 0x008b, 0xffff, 0 };
	sgdt_sidt(&v->gdtr, &v->idtr);
	v->efer = rdmsr(MSR_EFER) | EFER_LMA | EFER_SVME;
	v->cr0 = read_cr0();
	v->cr3 = read_cr3();
	v->cr4 = read_cr4();
	v->rip = entry;
	v->rsp = rsp;
	v->rdi = arg;
	v->sev_features = snp.sev_status >> 2;
	v->vmpl = 0;
	v->cpl = 0;
}

static int ap_create(void *ctx, unsigned int cpu, uint32_t apic_id, uint64_t entry, uint64_t rsp,
		     uint64_t arg)
{
	struct snp_vmsa *v = vmsa_of[cpu % SMP_MAX_CPUS];
	uint64_t gpa = (uint64_t)(uintptr_t)v;
	int rc;

	(void)ctx;
	/* A page that was a VMSA before (an earlier attempt) is made a plain
	 * page again first: the guest cannot write a VMSA page. */
	snp_vmsa_mark(&snp, gpa, false);
	vmsa_fill(v, entry, rsp, arg);
	rc = snp_vmsa_mark(&snp, gpa, true);
	if (rc)
		return rc;
	rc = snp_ap_create(&snp, apic_id, SNP_AP_CREATE, gpa, v->sev_features);
	if (rc) {
		snp_vmsa_mark(&snp, gpa, false);
		return rc;
	}
	aps_created++;
	return 0;
}

static void ap_destroy(void *ctx, unsigned int cpu, uint32_t apic_id)
{
	struct snp_vmsa *v = vmsa_of[cpu % SMP_MAX_CPUS];

	(void)ctx;
	if (!snp_ap_create(&snp, apic_id, SNP_AP_DESTROY, (uint64_t)(uintptr_t)v, 0))
		aps_destroyed++;
	/* Its VMSA page stays a VMSA: the AP may still run from it if the
	 * hypervisor ignored the request; never written again. */
	vmsa_of[cpu % SMP_MAX_CPUS] = NULL;
}

/* On the AP, before its first paravirtual I/O (smp.c ap_entry()). */
static int ap_start(void *ctx, unsigned int cpu)
{
	(void)ctx;
	return ghcb_setup_this_cpu(cpu % SMP_MAX_CPUS);
}

static const struct smp_ap_ops ap_ops = { "SNP AP creation (a VMSA per AP)", ap_create, ap_destroy,
					  ap_start, NULL };

static void vmsa_pages_assign(void)
{
	unsigned int k = 0;

	for (unsigned int cpu = 0; cpu < SMP_MAX_CPUS; cpu++, k++) {
		if (!((uint64_t)(uintptr_t)&vmsa_pages[k] & (SNP_PAGE_2M - 1)))
			k++;
		vmsa_of[cpu] = k <= SMP_MAX_CPUS ? &vmsa_pages[k] : NULL;
	}
}

static int early_fail(unsigned int *term_set, unsigned int *term_code, unsigned int set,
		      unsigned int code, int rc)
{
	*term_set = set;
	*term_code = code;
	return rc ? rc : SNP_ERR_REFUSED;
}

int cc_snp_early(const struct tee_insn_ops *insn, const struct cc_observer *obs, const char *name,
		 uint64_t sev_status, const struct snp_cpuid_page *cpuid, unsigned int *term_set,
		 unsigned int *term_code, char *why, size_t why_len)
{
	const struct snp_pt_ops pt = { set_pte_private, cc_glue_flush_tlb, cc_glue_flush_cache,
				       &glue, evict_cache };
	uint32_t leaf[4];
	unsigned int code;
	int rc;

	cc_glue_init(&glue, insn, obs, name);
	pvio_snp_cpuid_lookup(cpuid, 0x8000001Fu, 0, leaf);
	rc = snp_init(&snp, insn, &pt, sev_status, leaf, why, why_len);
	if (rc)
		return early_fail(term_set, term_code, GHCB_TERM_SET_GENERAL,
				  GHCB_TERM_SNP_UNSUPPORTED, rc);
	cpuid_page = cpuid;
	/* Below VMPL0 nothing else here is meaningful: checked first, on a page
	 * of ours that is still private and validated (the first GHCB page, as
	 * Linux uses its boot GHCB page before making it shared). */
	rc = snp_check_vmpl0(&snp, ghcb_gpa_of(0));
	if (rc) {
		snprintf(why, why_len,
			 "snp: RMPADJUST for VMPL1 failed: this guest runs below VMPL0 (an SVSM "
			 "or another VMPL0 owns the platform), which this kernel does not "
			 "support");
		return early_fail(term_set, term_code, GHCB_TERM_SET_SLUICE,
				  GHCB_TERM_SLUICE_NOT_VMPL0, rc);
	}
	/* What the firmware left in the GHCB MSR (its GHCB's GPA, as OVMF
	 * leaves it) is only reported: the host chose that page, and Linux never
	 * uses it either (its early code speaks the MSR protocol until its own
	 * boot GHCB is registered). The GHCB MSR is never intercepted. */
	fw_ghcb_msr = insn->rd_ghcb_msr(insn->ctx);
	/* The protocol version and the hypervisor's features before anything
	 * else (Linux sev_es_negotiate_protocol(), then GHCB_HV_FT_SNP). */
	rc = snp_negotiate(&snp, &code, why, why_len);
	if (rc)
		return early_fail(term_set, term_code, GHCB_TERM_SET_GENERAL, code, rc);
	/* No GHCB until cc_snp_after_mmu(): the backend answers CPUID from the
	 * page (post-processed through the MSR protocol) and SEV_STATUS from
	 * snp_init(); any request that needs a GHCB is refused and counted. */
	snp.cpu_slot = NULL;
	snp.slot.ghcb = NULL;
	pvio_snp_init(&pv, &snp, cpuid);
	pvio_select(&pv.ops);
	/* Our own GHCB pages, the RMP half (rescind, PSC through the MSR
	 * protocol): from here until cc_snp_after_mmu() nothing touches them. */
	for (unsigned int cpu = 0; cpu < SMP_MAX_CPUS; cpu++) {
		rc = snp_ghcb_prepare(&snp, ghcb_gpa_of(cpu));
		if (rc) {
			snprintf(why, why_len,
				 "snp: GHCB page %u (0x%llx) could not be made shared (%d, PSC "
				 "error 0x%llx)",
				 cpu, (unsigned long long)ghcb_gpa_of(cpu), rc,
				 (unsigned long long)snp.last_psc_error);
			return early_fail(term_set, term_code, GHCB_TERM_SET_SLUICE,
					  GHCB_TERM_SLUICE_GHCB_SETUP, rc);
		}
		ghcbs_prepared++;
	}
	return 0;
}

bool cc_snp_console_up(void)
{
	return console_up;
}

int cc_snp_after_mmu(char *why, size_t why_len)
{
	int rc = 0;

	/* The firmware's GHCB stays mapped private in our tables (never made
	 * shared by us); ours become shared here, then the bootstrap CPU's is
	 * registered: the first GHCB of this boot. */
	for (unsigned int cpu = 0; !rc && cpu < ghcbs_prepared; cpu++)
		rc = snp_ghcb_map(&snp, ghcb_gpa_of(cpu));
	if (!rc) {
		snp.cpu_slot = cpu_slot;
		rc = ghcb_setup_this_cpu(smp_cpu_id() % SMP_MAX_CPUS);
	}
	if (rc) {
		snprintf(why, why_len, "snp: the bootstrap CPU's GHCB could not be set up (%d)",
			 rc);
		return rc;
	}
	early_no_ghcb = pv.no_ghcb;
	early_cpuid_hv = pv.cpuid_hv_requests;
	console_up = true;
	return 0;
}

void cc_snp_finish(void)
{
	cc_glue_install(&glue, "SNP", snp_convert, &snp);
	trap_set_vc_reporter(vc_report);
	vmsa_pages_assign();
	/* Linux creates APs with VMGEXIT only when the hypervisor offers it
	 * (snp_set_wakeup_secondary_cpu()); without, INIT-SIPI is no way either. */
	if (snp.hv_features & GHCB_HV_FT_SNP_AP_CREATION)
		smp_set_ap_ops(&ap_ops);
	else
		smp_disable_aps("the hypervisor does not offer SNP AP creation "
				"(GHCB_HV_FT_SNP_AP_CREATION)");
	active = true;
	printf("cc: %s boot: GHCB protocol version %u, hypervisor features 0x%" PRIx64
	       "; VMPL0 (RMPADJUST for VMPL1 allowed); CPUID page from the CC blob "
	       "(%u leaves); %u GHCB pages of ours made shared at kernel entry (MSR protocol), "
	       "mapped shared and the bootstrap CPU's registered right after mmu_init\n",
	       glue.platform, snp.ghcb_version, snp.hv_features, cpuid_page ? cpuid_page->count : 0,
	       ghcbs_prepared);
	/* The counts are the backend's own, up to our GHCB's registration. */
	printf("cc: %s: firmware GHCB: never used (the GHCB MSR held 0x%" PRIx64
	       " at kernel entry; %s in our page tables); kernel entry to our GHCB: CPUID from "
	       "the CPUID page with %lu MSR-protocol CPUID requests, %lu requests needing a GHCB\n",
	       glue.platform, fw_ghcb_msr,
	       mmu_is_shared(fw_ghcb_msr & ~UINT64_C(0xfff)) ? "mapped shared" : "private",
	       early_cpuid_hv, early_no_ghcb);
}

bool cc_snp_active(void)
{
	return active;
}

void cc_snp_encoding(unsigned int cbit_pos, struct mmu_encoding *enc)
{
	snprintf(glue.encoding_name, sizeof(glue.encoding_name), "the C-bit 1<<%u (clear = shared)",
		 cbit_pos);
	*enc = (struct mmu_encoding){ .shared_set_mask = 0,
				      .shared_clear_mask = UINT64_C(1) << cbit_pos,
				      .name = glue.encoding_name };
}

const struct snp *cc_snp_guest(void)
{
	return &snp;
}

void cc_snp_stats_get(struct snp_stats *out)
{
	cc_glue_stats_get(&glue, out, &snp.stats, sizeof(*out));
}

void cc_snp_report(const char *when, const char *extra)
{
	struct snp_stats s;
	unsigned long nested = 0;

	cc_snp_stats_get(&s);
	for (unsigned int i = 0; i < SMP_MAX_CPUS; i++)
		nested += slots[i].nested;
	printf("cc: %s %s: SEV_STATUS 0x%" PRIx64 ", C-bit %u, %lu GHCB%s registered (one per "
	       "CPU), paravirtual I/O %s (%lu hypervisor errors, %lu CPUID misses, %lu nested), "
	       "APs created %lu (%lu destroyed); PSC %" PRIu64 " requests (%" PRIu64
	       " MSR, %" PRIu64 " batches, %" PRIu64 " early returns), pages validated %" PRIu64
	       " (%" PRIu64 " evicted from the cache after it), rescinded %" PRIu64 " (%" PRIu64
	       " x 2M, %" PRIu64 " 2M->4K), ",
	       glue.platform, when, snp.sev_status, snp.cbit_pos, ghcbs_registered,
	       ghcbs_registered == 1 ? "" : "s", pvio->name, pv.errors, pv.cpuid_misses, nested,
	       aps_created, aps_destroyed, s.psc_requests, s.psc_msr, s.psc_batches,
	       s.psc_early_returns, s.pages_validated, s.pages_evicted, s.pages_rescinded,
	       s.pvalidate_2m, s.size_fallbacks);
	cc_glue_conversions_print(s.to_shared, s.to_private, s.failed, s.rolled_back,
				  s.leaked_pages, extra);
}
