/* SPDX-License-Identifier: MIT */
/*
 * main.c - the kernel proper: set up the CPU, the clock, the heap and the page
 * tables, print the boot report, run what the options ask for, exit QEMU.
 *
 * Runs after ExitBootServices on the kernel stack; no GNU-EFI headers here.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86_64/acpi.h"
#include "arch/x86_64/cc_sim_snp.h"
#include "arch/x86_64/cc_sim_tdx.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/descriptors.h"
#include "arch/x86_64/mmu.h"
#include "arch/x86_64/qemu_exit.h"
#include "arch/x86_64/serial.h"
#include "arch/x86_64/smp.h"
#include "arch/x86_64/tsc.h"
#include "boot/boot_info.h"
#include "boot/cc_setup.h"
#include "boot/dma_setup.h"
#include "boot/memmap.h"
#include "boot/pci_setup.h"
#include "boot/virtio_probe.h"
#include "bench/alloc_smp_bench.h"
#include "bench/blk_bench.h"
#include "bench/blk_mq_bench.h"
#include "bench/blk_smp_check.h"
#include "bench/blk_check.h"
#include "bench/convert_bench.h"
#include "bench/net_bench.h"
#include "bench/net_check.h"
#include "bench/net_smp_check.h"
#include "bench/result_json.h"
#include "drivers/deadline.h"
#include "drivers/quarantine.h"
#include "drivers/virtio/virtio_blk.h"
#include "drivers/virtio/virtio_net.h"
#include "boot/syscalls.h"

#define MIB (UINT64_C(1) << 20)
static uint64_t deadline_tsc_now(void *ctx)
{
	(void)ctx;
	return rdtsc();
}

/* Devices that broke their protocol, missed a deadline or did not reset. */
static unsigned int device_faults;

/*
 * A task failed: say whether a device was at fault (exit code 6, the device was
 * stopped, what it still holds is quarantined) or a check of ours (exit code 1).
 */
static __attribute__((noreturn)) void exit_task_failed(const char *task)
{
	struct quarantine_totals q;

	quarantine_totals_get(&q);
	if (q.devices)
		printf("quarantine: %" PRIu64 " device%s did not reset; %" PRIu64 " bytes and %"
		       PRIu64 " DMA mappings left to them, never reused\n",
		       q.devices, q.devices == 1 ? "" : "s", q.bytes, q.mappings);
	if (device_faults) {
		printf("sluice: %s failed: %u device fault%s (deadline %u ms); exit %d\n", task,
		       device_faults, device_faults == 1 ? "" : "s", deadline_timeout_ms(),
		       SLUICE_EXIT_DEVICE);
		exit(SLUICE_EXIT_DEVICE);
	}
	printf("sluice: %s failed; exit %d\n", task, SLUICE_EXIT_FAIL);
	exit(SLUICE_EXIT_FAIL);
}

/* Index of "smp" in options_blk_names: the write pass runs on every CPU at once. */
#define BLK_TASK_SMP 2
/* Index of "smp" in options_net_names: every CPU sends and receives at once. */
#define NET_TASK_SMP 1

static void report_memory(const struct boot_info *bi)
{
	uint64_t bytes[MEM_MMIO + 1] = { 0 };

	for (unsigned int i = 0; i < bi->nranges; i++)
		bytes[bi->ranges[i].kind] += bi->ranges[i].size;
	printf("memory: %" PRIu64 " MiB usable, %" PRIu64 " MiB kernel, %" PRIu64
	       " KiB acpi, %" PRIu64 " MiB reserved, %u ranges\n",
	       bytes[MEM_USABLE] / MIB, bytes[MEM_KERNEL] / MIB, bytes[MEM_ACPI] / 1024,
	       bytes[MEM_RESERVED] / MIB, bi->nranges);
	for (unsigned int i = 0; i < bi->nranges; i++)
		printf("  [%2u] 0x%010" PRIx64 "-0x%010" PRIx64 " %-8s %8" PRIu64 " KiB\n", i,
		       bi->ranges[i].base, bi->ranges[i].base + bi->ranges[i].size,
		       mem_kind_name(bi->ranges[i].kind), bi->ranges[i].size / 1024);
	printf("reserved at boot:\n");
	printf("  image  0x%010" PRIx64 " %6" PRIu64 " KiB\n", bi->image_base,
	       bi->image_size / 1024);
	printf("  heap   0x%010" PRIx64 " %6" PRIu64 " KiB\n", bi->heap.base, bi->heap.size / 1024);
	printf("  dma    0x%010" PRIx64 " %6" PRIu64 " KiB (2 MiB aligned)\n", bi->dma.base,
	       bi->dma.size / 1024);
	printf("  ptpool 0x%010" PRIx64 " %6" PRIu64 " KiB\n", bi->pagetables.base,
	       bi->pagetables.size / 1024);
	printf("  stack  0x%010" PRIx64 " %6" PRIu64 " KiB\n", bi->stack.base,
	       bi->stack.size / 1024);
}

static void report_cpu(const struct cpu_info *cpu)
{
	printf("cpu: %s \"%s\" family %u model %u stepping %u%s%s\n", cpu->vendor, cpu->brand,
	       cpu->family, cpu->model, cpu->stepping, cpu->hypervisor[0] ? ", hypervisor " : "",
	       cpu->hypervisor);
	printf("cpu: %u-bit physical addresses, invariant TSC %s, x2APIC %s, 1G pages %s\n",
	       cpu->phys_addr_bits, cpu->has_invariant_tsc ? "yes" : "no",
	       cpu->has_x2apic ? "yes" : "no", cpu->has_1g_pages ? "yes" : "no");
	if (cpu->cc == CC_NONE)
		printf("cc: none detected; private/shared conversions are emulated in the page "
		       "tables\n");
	else
		printf("cc: %s detected (C-bit %u); the platform's own lines follow\n",
		       cc_mode_name(cpu->cc), cpu->c_bit);
}

/*
 * The accelerator label for the report and every result line. The runner names it
 * (accel=); QEMU's CPUID hypervisor signature says it too ("TCGTCGTCGTCG",
 * "KVMKVMKVM"), and where the two disagree the signature wins: figures must never
 * be filed under the wrong accelerator.
 */
static void report_accel(const struct cpu_info *cpu, struct kernel_options *opts)
{
	static const char *const signatures[] = { "", "TCGTCGTCGTCG", "KVMKVMKVM" };
	int seen = 0;

	for (int i = 1; i < (int)(sizeof(signatures) / sizeof(signatures[0])); i++)
		if (strcmp(cpu->hypervisor, signatures[i]) == 0)
			seen = i;
	if (seen && opts->accel && seen != opts->accel)
		printf("options: accel=%s, but the CPU's hypervisor signature says %s; "
		       "results are labelled %s\n", options_accel_names[opts->accel],
		       options_accel_names[seen], options_accel_names[seen]);
	const char *source = !opts->accel ? (seen ? "from the CPU's hypervisor signature" :
						    "not named by the runner") :
			     seen == opts->accel ? "named by the runner, confirmed by CPUID" :
			     seen ? "from the CPU's hypervisor signature" : "as the runner named it";

	if (seen)
		opts->accel = seen;
	printf("options: accel=%s (%s; every result line names it)\n",
	       options_accel_names[opts->accel], source);
	bench_json_set_accel(options_accel_names[opts->accel]);
}

static void report_tsc(const struct acpi_pm_timer *pm)
{
	uint64_t hz = tsc_hz();

	if (tsc_reference() == TSC_REF_ACPI_PM)
		printf("tsc: %" PRIu64 ".%06" PRIu64 " MHz, calibrated against the ACPI PM timer "
		       "(port 0x%x, %s)\n",
		       hz / 1000000, hz % 1000000, pm->port, pm->is_32bit ? "32-bit" : "24-bit");
	else
		printf("tsc: %" PRIu64 ".%06" PRIu64 " MHz, calibrated against PIT channel 2\n",
		       hz / 1000000, hz % 1000000);
}

/* Convert one 4 KiB page of the DMA region to shared and back: proves the
 * emulated conversion path works before anything depends on it. */
static int selftest_shared_attribute(const struct boot_info *bi)
{
	uint64_t page = bi->dma.base + 4096, t0, t1, t2;
	int rc;

	t0 = rdtsc();
	rc = mmu_set_shared(page, 4096, true);
	t1 = rdtsc();
	if (rc || !mmu_is_shared(page) || mmu_is_shared(page + 4096)) {
		printf("selftest: converting 0x%" PRIx64 " to shared failed (%d)\n", page, rc);
		return -1;
	}
	rc = mmu_set_shared(page, 4096, false);
	t2 = rdtsc();
	if (rc || mmu_is_shared(page)) {
		printf("selftest: converting 0x%" PRIx64 " back to private failed (%d)\n", page, rc);
		return -1;
	}
	printf("mmu: 4 KiB page to shared %" PRIu64 " cycles (includes the 2 MiB split), back "
	       "%" PRIu64 " cycles\n",
	       t1 - t0, t2 - t1);
	return 0;
}

/* The first usable virtio-blk device, or NULL. */
static struct virtio_device *blk_find_device(void)
{
	struct virtio_pci *vps;
	int n = virtio_probed(&vps);

	for (int i = 0; i < n; i++)
		if (vps[i].vdev.device_type == VIRTIO_ID_BLOCK)
			return &vps[i].vdev;
	return NULL;
}

/* The block task in every selected mode, each on its own DMA layer. Returns the
 * number of failures. */
static int run_blk_tasks(struct kernel_dma *kd, const struct kernel_options *opts)
{
	struct virtio_pci *vps;
	struct virtio_device *vdev = NULL;
	struct kdma_config cfgs[KDMA_MAX_CONFIGS];
	int n = virtio_probed(&vps), failures = 0, ncfg;

	for (int i = 0; i < n && !vdev; i++)
		if (vps[i].vdev.device_type == VIRTIO_ID_BLOCK)
			vdev = &vps[i].vdev;
	if (!vdev) {
		printf("blk: no usable virtio-blk device; block task skipped\n");
		return 0;
	}
	/* Every configuration reads the untouched disk first (so all print the same
	 * cksum), then each writes its mode's region. */
	ncfg = kernel_dma_configs(kd, opts->modes, cfgs);
	for (int pass = 0; pass < 2; pass++) {
		for (int c = 0; c < ncfg; c++) {
			const struct kdma_config *cfg = &cfgs[c];
			const char *name = kernel_dma_config_name(cfg);
			struct virtio_blk blk;
			struct virtio_blk_stats st;
			char why[192];
			int rc;

			/* Direct mode is the plain VM: the device may reach any memory. */
			vdev->confidential = cfg->mode != KDMA_DIRECT;
			rc = virtio_blk_init(&blk, vdev, kernel_dma_layer(kd, cfg),
					     VIRTIO_BLK_MAX_QUEUES, 0, why, sizeof(why));
			if (rc) {
				printf("blk: mode=%s: %s\n", name, why);
				failures++;
				continue;
			}
			/* More CPUs than queues: they share queues under each queue's lock. */
			virtio_blk_share_queues(&blk, blk.nqueues < smp_cpu_count());
			if (pass == 0)
				printf("blk: mode=%s %s: %" PRIu64 " sectors (%" PRIu64
				       " MiB), block %u, %u queue%s of %u, seg_max %u, size_max %u, "
				       "flush %s, features 0x%" PRIx64 "\n",
				       name, vdev->name, blk.capacity, blk.capacity >> 11,
				       blk.blk_size, blk.nqueues, blk.nqueues == 1 ? "" : "s",
				       blk.queue_size, blk.seg_max, blk.size_max,
				       blk.has_flush ? "yes" : "no", vdev->features);
			if (pass == 0)
				failures += blk_check_read(&blk, kd, cfg, (unsigned int)opts->iodepth,
							   (size_t)opts->bs);
			else if (opts->blk == BLK_TASK_SMP)
				failures += blk_smp_check(&blk, kd, cfg, (unsigned int)opts->iodepth,
							  (size_t)opts->bs);
			else
				failures += blk_check_write(&blk, kd, cfg, (unsigned int)opts->iodepth,
							    (size_t)opts->bs);
			virtio_blk_get_stats(&blk, &st);
			printf("blk: mode=%s %" PRIu64 " requests, %" PRIu64 " errors, %" PRIu64
			       " busy retries, %" PRIu64 " bad lengths, %" PRIu64 " bad status bytes, %"
			       PRIu64 " abandoned, %" PRIu64 " bad used entries\n",
			       name, st.completed, st.errors, st.busy, st.bad_len, st.bad_status,
			       st.abandoned, st.bad_used);
			/* A device that lied in its answers, even where each lie was caught
			 * (entry skipped, request failed), is at fault: the data of requests
			 * it completed validly is still only as good as its word. */
			if (virtio_blk_protocol_errors(&st)) {
				failures++;
				printf("blk: mode=%s the device broke the virtio protocol: %" PRIu64
				       " bad used entries, %" PRIu64 " bad lengths, %" PRIu64
				       " bad status bytes\n",
				       name, st.bad_used, st.bad_len, st.bad_status);
			}
			/* Stopped before removal: a deadline passed or a queue broke. */
			if (blk.stopped || virtio_blk_protocol_errors(&st))
				device_faults++;
			if (virtio_blk_remove(&blk)) {
				printf("blk: mode=%s %s did not reset: %" PRIu64 " bytes, %" PRIu64
				       " mappings quarantined, never reused\n",
				       name, vdev->name, blk.quarantined_bytes,
				       blk.quarantined_mappings);
				device_faults++;
			}
		}
	}
	return failures;
}

struct net_buf_ctx {
	struct kernel_dma *kd;
	enum kernel_dma_mode mode;
};

static void *net_buf_alloc(void *ctx, size_t size)
{
	struct net_buf_ctx *c = ctx;

	return kernel_dma_buf_alloc(c->kd, c->mode, size);
}

static void net_buf_free(void *ctx, void *ptr)
{
	struct net_buf_ctx *c = ctx;

	kernel_dma_buf_free(c->kd, c->mode, ptr);
}

/* Ring size for a configuration: posted receive buffers hold bounce slots for as
 * long as they wait for a frame, so in bounce mode each NIC's ring gets at most
 * 1/8 of the pool (transmit and the other NIC still find slots); in arena mode
 * each buffer is one 4 KiB block and both NICs' rings may take half the arena. */
static unsigned int net_ring_size(struct kernel_dma *kd, const struct kdma_config *cfg)
{
	unsigned int qsize;

	if (cfg->mode == KDMA_BOUNCE) {
		struct sluice_dma_bounce_stats bs;

		sluice_dma_bounce_stats_get(kernel_dma_layer(kd, cfg), -1, &bs);
		qsize = (unsigned int)(bs.nslabs / 8);
	} else if (cfg->mode == KDMA_ARENA) {
		qsize = (unsigned int)(kd->arena_bytes / 2 / (4 * 4096));
	} else {
		return 0; /* what the device offers */
	}
	while (qsize & (qsize - 1))
		qsize &= qsize - 1;
	return qsize < 2 ? 2 : qsize;
}

/* Both NICs on a configuration's layer, receiver first (with a small bounce pool
 * it gets its buffers before the sender's idle receive ring takes the slots),
 * each with up to @pairs queue pairs (locked when fewer than the CPUs). */
static int net_pair_init(struct kernel_dma *kd, const struct kdma_config *cfg,
			 struct virtio_device *nic[2], struct virtio_net net[2],
			 struct net_buf_ctx *bctx, unsigned int qsize, unsigned int pairs,
			 int *links_up)
{
	struct virtio_net_buffers bufs = { net_buf_alloc, net_buf_free, bctx };
	char why[192];
	int rc;

	*links_up = 0;
	for (int k = 1; k >= 0; k--) {
		nic[k]->confidential = cfg->mode != KDMA_DIRECT;
		rc = virtio_net_init_mq(&net[k], nic[k], kernel_dma_layer(kd, cfg), &bufs, qsize,
					pairs, why, sizeof(why));
		if (rc) {
			printf("net: mode=%s: %s\n", kernel_dma_config_name(cfg), why);
			if (k == 0)
				virtio_net_remove(&net[1]);
			return rc;
		}
		virtio_net_share_pairs(&net[k], net[k].npairs < smp_cpu_count() && pairs > 1);
		*links_up += virtio_net_link_up(&net[k]);
	}
	return 0;
}

/* The two NICs the network task and benchmark use; 0 if fewer than two. */
static int net_find_pair(struct virtio_device *nic[2])
{
	struct virtio_pci *vps;
	int n = virtio_probed(&vps), found = 0;

	for (int i = 0; i < n && found < 2; i++)
		if (vps[i].vdev.device_type == VIRTIO_ID_NET)
			nic[found++] = &vps[i].vdev;
	return found;
}

/* The network benchmark: 64 B and 1514 B frames in every configuration. */
static int run_net_bench(struct kernel_dma *kd, const struct kernel_options *opts)
{
	static const unsigned int sizes[] = { 64, 1514 };
	struct virtio_device *nic[2];
	struct kdma_config cfgs[KDMA_MAX_CONFIGS];
	static struct net_result res[2][KDMA_MAX_CONFIGS];
	static bool ok[2][KDMA_MAX_CONFIGS];
	int ncfg, failures = 0;

	if (net_find_pair(nic) < 2) {
		printf("bench: net needs two virtio-net devices\n");
		return 1;
	}
	ncfg = kernel_dma_configs(kd, opts->modes, cfgs);
	for (int c = 0; c < ncfg; c++) {
		static struct virtio_net net[2];
		struct net_buf_ctx bctx = { kd, cfgs[c].mode };
		int up;

		if (net_pair_init(kd, &cfgs[c], nic, net, &bctx, net_ring_size(kd, &cfgs[c]), 1,
				  &up)) {
			failures++;
			continue;
		}
		for (int s = 0; s < 2; s++) {
			struct net_result *r = &res[s][c];

			ok[s][c] = !net_bench_run(&net[0], &net[1], sizes[s],
						  (unsigned int)opts->bench_ms / 5,
						  (unsigned int)opts->bench_ms, r);
			if (!ok[s][c])
				failures++;
			printf("bench: net mode=%s %u-byte frames: %.0f frames/s, %.3f Gbit/s, %" PRIu64
			       " lost\n",
			       kernel_dma_config_name(&cfgs[c]), sizes[s], r->fps, r->gbps, r->lost);
		}
		virtio_net_remove(&net[0]);
		virtio_net_remove(&net[1]);
	}
	for (int s = 0; s < 2; s++) {
		double direct = 0, linux_fps = 0;

		for (int c = 0; c < ncfg; c++) {
			if (!ok[s][c])
				continue;
			if (cfgs[c].mode == KDMA_DIRECT)
				direct = res[s][c].fps;
			if (cfgs[c].mode == KDMA_BOUNCE &&
			    cfgs[c].policy == SLUICE_DMA_POLICY_LINUX)
				linux_fps = res[s][c].fps;
		}
		for (int c = 0; c < ncfg; c++)
			if (ok[s][c])
				net_bench_print(&cfgs[c], sizes[s], &res[s][c],
						direct > 0 ? res[s][c].fps / direct : 0,
						linux_fps > 0 ? res[s][c].fps / linux_fps : 0);
	}
	return failures;
}

/* The network task in every selected mode: NIC 0 sends to NIC 1 on the hub. */
static int run_net_tasks(struct kernel_dma *kd, const struct kernel_options *opts)
{
	struct virtio_device *nic[2] = { NULL, NULL };
	struct kdma_config cfgs[KDMA_MAX_CONFIGS];
	int found = net_find_pair(nic), failures = 0, ncfg;

	if (found < 2) {
		printf("net: %d usable virtio-net device%s, 2 needed; network task skipped\n", found,
		       found == 1 ? "" : "s");
		return 0;
	}
	ncfg = kernel_dma_configs(kd, opts->modes, cfgs);
	for (int c = 0; c < ncfg; c++) {
		const struct kdma_config *cfg = &cfgs[c];
		const char *name = kernel_dma_config_name(cfg);
		static struct virtio_net net[2];
		struct virtio_net_stats rx_st, tx_st;
		struct net_buf_ctx bctx = { kd, cfg->mode };
		int rc = 0, up = 0;
		bool smp = opts->net == NET_TASK_SMP;
		unsigned int pairs = smp ? smp_cpu_count() : 1, qsize = net_ring_size(kd, cfg);

		if (pairs > VIRTIO_NET_MAX_PAIRS)
			pairs = VIRTIO_NET_MAX_PAIRS;
		/* The pool's share for posted receive buffers is split among the pairs. */
		if (qsize && pairs > 1)
			qsize = qsize / pairs < 2 ? 2 : qsize / pairs;
		rc = net_pair_init(kd, cfg, nic, net, &bctx, qsize, pairs, &up);
		if (rc) {
			failures++;
			continue;
		}
		printf("net: mode=%s %s mac %02x:%02x:%02x:%02x:%02x:%02x -> %s mac "
		       "%02x:%02x:%02x:%02x:%02x:%02x, queues of %u, %u+%u queue pair%s, links up "
		       "%d/2\n",
		       name, nic[0]->name, net[0].mac[0], net[0].mac[1], net[0].mac[2],
		       net[0].mac[3], net[0].mac[4], net[0].mac[5], nic[1]->name, net[1].mac[0],
		       net[1].mac[1], net[1].mac[2], net[1].mac[3], net[1].mac[4], net[1].mac[5],
		       net[0].queue_size, net[0].npairs, net[1].npairs,
		       net[0].npairs + net[1].npairs == 2 ? "" : "s", up);
		if (smp)
			failures += net_smp_check(&net[0], &net[1], cfg, (unsigned int)opts->frames);
		else
			failures += net_check_run(&net[0], &net[1], cfg, (unsigned int)opts->frames);
		virtio_net_get_stats(&net[1], &rx_st);
		virtio_net_get_stats(&net[0], &tx_st);
		printf("net: mode=%s rx: %" PRIu64 " bad lengths, %" PRIu64 " bad headers, %" PRIu64
		       " dropped; tx busy %" PRIu64 "\n",
		       name, rx_st.rx_bad_len, rx_st.rx_bad_hdr, rx_st.rx_dropped, tx_st.tx_busy);
		for (int k = 0; k < 2; k++) {
			if (!virtio_net_remove(&net[k]))
				continue;
			printf("net: mode=%s %s did not reset: %" PRIu64 " bytes, %" PRIu64
			       " mappings quarantined, never reused\n",
			       name, nic[k]->name, net[k].quarantined_bytes,
			       net[k].quarantined_mappings);
			device_faults++;
			failures++;
		}
	}
	return failures;
}

/* A `ret` in the image's data section (initialised, so .data and not .bss). */
static uint8_t fault_ret_in_data[16] = { 0xc3 };

/* Call @code as a function: a `ret` there returns at once, if it may run at all. */
static void fault_call(const volatile void *code)
{
	void (*fn)(void) = (void (*)(void))(uintptr_t)code;

	fn();
}

struct fault_request {
	enum fault_kind fault;
	unsigned int cpu;
	const volatile void *code; /* FAULT_EXEC_SHARED: a shared page holding a ret */
};

/* Raise the exception @req asks for on the calling CPU (no printing: this may
 * run on an application processor). Returns only if nothing trapped. */
static void fault_trigger(const struct fault_request *req)
{
	volatile uint64_t sink;

	switch (req->fault) {
	case FAULT_NONE:
		return;
	case FAULT_PAGE:
		/* Canonical, but far above any RAM the kernel maps. */
		sink = *(volatile uint64_t *)0x00007f0000000000ull;
		break;
	case FAULT_GP:
		sink = *(volatile uint64_t *)0xdead000000000000ull;
		break;
	case FAULT_UD:
		__asm__ volatile("ud2");
		break;
	case FAULT_DIVIDE:
		/* In assembly: the compiler may turn a C division by a known divisor
		 * into something that does not trap. */
		__asm__ volatile("xorl %%ecx, %%ecx\n\tmovl $1, %%eax\n\txorl %%edx, %%edx\n\t"
				 "divl %%ecx"
				 :
				 :
				 : "eax", "ecx", "edx");
		break;
	case FAULT_WRITE_TEXT: {
		/* This function's first byte, written back unchanged: where text is
		 * writable the run goes on (and fails as "no exception"). */
		volatile uint8_t *text = (volatile uint8_t *)(uintptr_t)&fault_trigger;

		*text = *text;
		break;
	}
	case FAULT_EXEC_SHARED:
		fault_call(req->code);
		break;
	case FAULT_EXEC_DATA:
		fault_call(fault_ret_in_data);
		break;
	case FAULT_EXEC_STACK: {
		volatile uint8_t code[16] = { 0xc3 };

		fault_call(code);
		break;
	}
	case FAULT_VE:
		/* Vector 20 by software: the path a #VE takes, IST2 and guard included. */
		__asm__ volatile("int $20");
		break;
	case FAULT_VC:
		/* The simulated hardware's #VC for an I/O instruction (exit code
		 * 0x7b): vector 29 with its error code, on IST3 (cc_sim_snp.c). */
		cc_sim_snp_raise_vc(0x7b);
		break;
	}
	(void)sink;
}

static void fault_on_cpu(void *arg, unsigned int cpu)
{
	const struct fault_request *req = arg;

	if (cpu == req->cpu)
		fault_trigger(req);
}

static void deliberate_fault(struct kernel_dma *kd, enum fault_kind fault, unsigned int cpu)
{
	struct fault_request req = { fault, cpu, NULL };

	if (cpu >= smp_cpu_count()) {
		printf("fault: fault_cpu=%u but only %u CPU%s online\n", cpu, smp_cpu_count(),
		       smp_cpu_count() == 1 ? " is" : "s are");
		exit(SLUICE_EXIT_FAIL);
	}
	if (fault == FAULT_EXEC_SHARED) {
		/* An arena block is memory the host can write: put there what it could. */
		uint8_t *block = kernel_dma_buf_alloc(kd, KDMA_ARENA, 4096);

		if (!block || !mmu_is_shared((uint64_t)(uintptr_t)block)) {
			printf("fault: no shared arena block to run from\n");
			exit(SLUICE_EXIT_FAIL);
		}
		block[0] = 0xc3;
		req.code = block;
		printf("fault: shared arena block 0x%" PRIx64 " holds a ret; calling it\n",
		       (uint64_t)(uintptr_t)block);
	} else if (fault == FAULT_VE) {
		/* What a TD's module would report for a stray port write: an I/O
		 * instruction (exit reason 30), 1 byte out to port 0x3f8. */
		bool sim = !strcmp(cc_setup_name(), "sim-tdx");

		if (sim)
			cc_sim_tdx_stage_ve(30, (UINT64_C(0x3f8) << 16), 0);
		printf("fault: raising #VE (vector 20)%s\n",
		       sim ? "; the simulated TD reports an I/O instruction" : "");
	} else if (fault == FAULT_VC) {
		/* Only the simulated SNP guest can deliver one: INT 29 pushes no
		 * error code, and a #VC without its exit code is not a #VC. */
		if (strcmp(cc_setup_name(), "sim-snp")) {
			printf("fault: fault=vc needs cc=sim-snp\n");
			exit(SLUICE_EXIT_FAIL);
		}
		printf("fault: raising #VC (vector 29) for an I/O instruction (exit code 0x7b)\n");
	} else if (fault == FAULT_EXEC_DATA) {
		printf("fault: image data 0x%" PRIx64 " holds a ret; calling it\n",
		       (uint64_t)(uintptr_t)fault_ret_in_data);
	} else if (fault == FAULT_WRITE_TEXT) {
		printf("fault: writing the first byte of fault_trigger at 0x%" PRIx64 "\n",
		       (uint64_t)(uintptr_t)&fault_trigger);
	}
	printf("fault: triggering '%s' on cpu %u as the options asked\n",
	       options_fault_name(fault), cpu);
	fflush(stdout);
	smp_run(cpu + 1, fault_on_cpu, &req);
	printf("fault: no exception happened\n");
	exit(SLUICE_EXIT_FAIL);
}

void kernel_main(struct boot_info *bi)
{
	struct cpu_info cpu;
	struct acpi_pm_timer pm;
	struct kernel_dma *kd;
	uint64_t tsc_main = rdtsc();
	int rc;

	/* No I/O: the heap is plain memory (cc=sim-snp allocates its model). */
	syscalls_set_heap((void *)bi->heap.base, bi->heap.size);
	/* In a real TD or SNP guest, before anything that would raise a #VE or
	 * #VC (cc_setup.h). */
	cc_setup_early(bi);
	gdt_init();
	smp_init_bsp();
	idt_init();
	trap_set_image_base(bi->image_base);
	trap_set_stack_bounds(bi->stack.base, bi->stack.base + bi->stack.size);
	/* Unbuffered: each printf is one write, so output interleaves correctly with
	 * the exception reporter, which writes to the UART directly. */
	setvbuf(stdout, NULL, _IONBF, 0);
	setvbuf(stderr, NULL, _IONBF, 0);

	cpu_detect(&cpu);
	acpi_pm_timer(bi->acpi_rsdp, &pm);
	tsc_calibrate(pm.port, pm.is_32bit);
	/* Every wait on a device ends: deadlines count TSC time from here on. */
	deadline_set_clock(deadline_tsc_now, NULL, tsc_hz() / 1000);
	deadline_set_timeout_ms((uint32_t)bi->options.device_timeout_ms);

	printf("\nSluice %s (rev %s): DMA cost in confidential guests\n", SLUICE_VERSION,
	       SLUICE_GIT_REV);
	report_cpu(&cpu);
	report_tsc(&pm);
	report_memory(bi);
	printf("boot: efi_main -> kernel_main %.3f ms (ExitBootServices at %.3f ms, %u attempt%s)\n",
	       tsc_to_ns(tsc_main - bi->tsc_entry) / 1e6,
	       tsc_to_ns(bi->tsc_exit_boot_services - bi->tsc_entry) / 1e6, bi->ebs_attempts,
	       bi->ebs_attempts == 1 ? "" : "s");
	printf("options: heap=%" PRIu64 "K dma=%" PRIu64 "K pool=%" PRIu64
	       "K policies=%s%s%s%s scrub=%s fault=%s (from %s)\n",
	       bi->options.heap_bytes / 1024, bi->options.dma_bytes / 1024,
	       bi->options.pool_bytes / 1024, bi->options.policies & 1 ? "linux," : "",
	       bi->options.policies & 2 ? "bitmap," : "", bi->options.policies & 4 ? "lifo," : "",
	       bi->options.policies & 8 ? "sluice" : "", options_scrub_names[bi->options.scrub],
	       options_fault_name(bi->options.fault), bi->options_source);
	printf("options: modes=%s%s%s blk=%s iodepth=%" PRIu64 " bs=%" PRIu64 " frames=%" PRIu64
	       "\n",
	       bi->options.modes & 1 ? "direct," : "", bi->options.modes & 2 ? "bounce," : "",
	       bi->options.modes & 4 ? "arena" : "", options_blk_names[bi->options.blk],
	       bi->options.iodepth, bi->options.bs, bi->options.frames);
	report_accel(&cpu, &bi->options);

	rc = mmu_init(bi, &cpu, cc_setup_encoding());
	if (rc) {
		printf("mmu: building the kernel page tables failed (%d)\n", rc);
		exit(SLUICE_EXIT_BOOT);
	}
	/* Nothing in between: an SNP guest has no usable GHCB until this. */
	cc_setup_after_mmu();
	cc_setup(bi, &cpu);
	bench_json_set_cc(cc_setup_name());
	mmu_report();
	if (selftest_shared_attribute(bi))
		exit(SLUICE_EXIT_FAIL);
	smp_init(bi, (unsigned int)bi->options.cpus);
	kd = kernel_dma_init(bi);
	if (kd)
		kernel_dma_use_cpu(kd, &cpu);
	if (!kd)
		exit(SLUICE_EXIT_BOOT);
	kernel_dma_report(kd);
	if (kernel_dma_selftest(kd))
		exit(SLUICE_EXIT_FAIL);
	cc_setup_arm_faults();

	pci_setup(bi, cpu.phys_addr_bits);
	pci_report();
	virtio_probe_all(true);

	if (bi->options.fault != FAULT_NONE)
		deliberate_fault(kd, bi->options.fault, (unsigned int)bi->options.fault_cpu);

	if (bi->options.blk && run_blk_tasks(kd, &bi->options))
		exit_task_failed("block task");
	/* Idle arena chunks go back to private between tasks (lazy release); the
	 * next task's buffers come from chunks converted again, or from others. */
	if (bi->options.modes & (UINT64_C(1) << KDMA_ARENA))
		kernel_dma_arena_release(kd, "the block task");
	if (bi->options.frames && run_net_tasks(kd, &bi->options))
		exit_task_failed("network task");
	if (bi->options.modes & (UINT64_C(1) << KDMA_ARENA))
		kernel_dma_arena_release(kd, "the network task");
	if ((bi->options.bench & 4) && convert_bench_run(32)) {
		printf("sluice: conversion benchmark failed\n");
		exit(SLUICE_EXIT_FAIL);
	}
	if ((bi->options.bench & 8) && run_net_bench(kd, &bi->options)) {
		printf("sluice: network benchmark: some runs failed\n");
		exit(SLUICE_EXIT_FAIL);
	}
	if (bi->options.bench & 2) {
		struct virtio_pci *vps;
		int n = virtio_probed(&vps), failures = -1;

		for (int i = 0; i < n; i++) {
			if (vps[i].vdev.device_type == VIRTIO_ID_BLOCK) {
				struct blk_bench_iotlb iotlb = {
					(unsigned int)bi->options.iotlb_entries,
					(unsigned int)bi->options.iotlb_ways
				};

				failures = blk_bench_suite(kd, &vps[i].vdev, bi->options.modes,
							   bi->options.bench_set == 1,
							   (unsigned int)bi->options.bench_ms / 5,
							   (unsigned int)bi->options.bench_ms, &iotlb);
				break;
			}
		}
		if (failures) {
			printf("sluice: block benchmark: %s\n",
			       failures < 0 ? "no virtio-blk device" : "some runs failed");
			exit(SLUICE_EXIT_FAIL);
		}
	}

	if (bi->options.bench & 16) {
		struct virtio_device *vdev = blk_find_device();

		if (!vdev || blk_mq_bench_suite(kd, vdev, bi->options.modes,
						(unsigned int)bi->options.bench_ms / 5,
						(unsigned int)bi->options.bench_ms)) {
			printf("sluice: multi-job block benchmark: %s\n",
			       vdev ? "some runs failed" : "no virtio-blk device");
			exit(SLUICE_EXIT_FAIL);
		}
	}
	if ((bi->options.bench & 32) &&
	    alloc_smp_bench_suite(kd, bi->options.modes, (unsigned int)bi->options.bench_ms)) {
		printf("sluice: allocator benchmark: some runs failed\n");
		exit(SLUICE_EXIT_FAIL);
	}

	cc_setup_report("after the tasks");
	printf("sluice: boot report complete; exit 0\n");
	exit(SLUICE_EXIT_PASS);
}
