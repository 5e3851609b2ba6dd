/* SPDX-License-Identifier: MIT */
/*
 * ghcb.c - the GHCB MSR protocol and one exit through the GHCB page (see
 * ghcb.h for the facts and their sources).
 */
#include "arch/x86_64/cc/ghcb.h"

#include "arch/kernel_errno.h"

#include <string.h>

void ghcb_invalidate(struct ghcb *g)
{
	/* As Linux vc_ghcb_invalidate(): the exit code and the bitmap. The other
	 * fields may hold stale values; without their valid bit they are not
	 * inputs. */
	g->sw_exit_code = 0;
	memset(g->valid_bitmap, 0, sizeof(g->valid_bitmap));
}

uint64_t ghcb_msr_call(const struct tee_insn_ops *insn, uint64_t req)
{
	insn->wr_ghcb_msr(insn->ctx, req);
	insn->vmgexit(insn->ctx, NULL);
	return insn->rd_ghcb_msr(insn->ctx);
}

int ghcb_msr_cpuid(const struct tee_insn_ops *insn, uint32_t leaf, unsigned int reg, uint32_t *out)
{
	uint64_t v = ghcb_msr_call(insn, ghcb_msr_cpuid_req(leaf, reg));

	if (GHCB_MSR_INFO(v) != GHCB_MSR_CPUID_RESP)
		return KERR_IO;
	*out = (uint32_t)(v >> 32);
	return 0;
}

int ghcb_register(const struct tee_insn_ops *insn, uint64_t gpa)
{
	uint64_t gfn = gpa >> 12;

	if (gpa & 0xfff)
		return KERR_INVAL;
	if (!ghcb_msr_reg_resp_ok(ghcb_msr_call(insn, ghcb_msr_reg_req(gfn)), gfn))
		return KERR_IO;
	return 0;
}

uint32_t ghcb_call(const struct tee_insn_ops *insn, struct ghcb *g, uint64_t gpa,
		   uint64_t exit_code, uint64_t info1, uint64_t info2)
{
	g->protocol_version = GHCB_PROTOCOL_VERSION;
	g->ghcb_usage = GHCB_USAGE_STANDARD;
	GHCB_SET(g, sw_exit_code, exit_code);
	GHCB_SET(g, sw_exit_info_1, info1);
	GHCB_SET(g, sw_exit_info_2, info2);
	/* Every exit writes the MSR: an MSR-protocol request in between (a
	 * single-page PSC, a termination) leaves its own value there. */
	insn->wr_ghcb_msr(insn->ctx, gpa);
	insn->vmgexit(insn->ctx, g);
	/* The page is the hypervisor's to write: read the status once. */
	return (uint32_t)(*(volatile uint64_t *)&g->sw_exit_info_1);
}
