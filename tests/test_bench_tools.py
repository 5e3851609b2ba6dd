#!/usr/bin/python3
"""test_bench_tools.py - tests of the host-side benchmark tools (scripts/bench.py, plot.py).

  python3 tests/test_bench_tools.py [-v]        exit status 0 when every test passes

Feeds synthetic serial logs (firmware noise, ANSI escapes, broken JSON) through the
parser, checks grouping, median/min/max and the ratios of the summary, check's
detection of missing cells and broken lines, `bench.py run` end to end with a fake
run-qemu.sh, and plot.py writing non-empty PNGs. No network, no QEMU. The plot tests
skip, saying why, only when matplotlib is not installed.
"""
import copy
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPTS = os.path.join(TOP, "scripts")
sys.dont_write_bytecode = True  # no __pycache__ in scripts/
sys.path.insert(0, SCRIPTS)
import bench  # noqa: E402
import plot  # noqa: E402  (matplotlib is loaded only by plot.main)

BENCH = os.path.join(SCRIPTS, "bench.py")
PLOT = os.path.join(SCRIPTS, "plot.py")
MODES = ("direct", "bounce", "arena")
# Test data: synthetic results of these cells (the scripts take any list:
# bench.POLICY_ORDER comes from scripts/names.py).
POLICIES = ("linux", "bitmap", "lifo", "sluice")
CELLS = [("direct", None)] + [("bounce", p) for p in POLICIES] + [("arena", None)]
# IOPS by cell, before the per-run factor; arena and direct are the fastest.
IOPS = {("direct", None): 20000.0, ("bounce", "linux"): 10000.0,
        ("bounce", "bitmap"): 11000.0, ("bounce", "lifo"): 12000.0,
        ("bounce", "sluice"): 15000.0, ("arena", None): 19000.0}
RUN_FACTOR = {1: 1.0, 2: 0.9, 3: 1.2}


def blk_line(mode, policy, rw="randread", bs=4096, iodepth=32, run=1, **extra):
    iops = IOPS[(mode, policy)] * RUN_FACTOR[run]
    obj = {"suite": "blk", "mode": mode, "policy": policy, "rw": rw, "bs": bs,
           "iodepth": iodepth, "threads": 1, "queues": 1, "iops": iops,
           "bw_mbps": iops * bs / 1e6, "lat_mean_us": 1e6 * iodepth / iops,
           "lat_p50_us": 1e6 * iodepth / iops, "lat_p99_us": 2e6 * iodepth / iops,
           "cycles_map": 100 if mode == "bounce" else 10,
           "cycles_copy": 900 if mode == "bounce" else 0, "cycles_convert": 0,
           "cycles_driver": 2000, "cycles_device": 50000, "conversions": 0}
    if policy is None and mode == "arena":
        del obj["policy"]  # absent and null must mean the same
    obj.update(extra)
    return obj


def net_line(mode, policy, size, run=1):
    fps = IOPS[(mode, policy)] * RUN_FACTOR[run] * 2
    return {"suite": "net", "mode": mode, "policy": policy, "size": size,
            "fps": fps, "gbps": fps * size * 8 / 1e9, "frames": int(fps / 3)}


def matrix(run=1, skip=()):
    """Every workload in every cell for one run, minus the cells in skip."""
    objs = []
    for rw in ("read", "randwrite"):
        for bs in (4096, 65536):
            for iodepth in (1, 32):
                objs += [blk_line(m, p, rw, bs, iodepth, run) for m, p in CELLS
                         if (rw, bs, iodepth, m, p) not in skip]
    for size in (64, 1514):
        objs += [net_line(m, p, size, run) for m, p in CELLS if (size, m, p) not in skip]
    objs.append({"suite": "iotlb", "mode": "bounce", "policy": "linux", "entries": 64,
                 "assoc": "full", "granule": 4096, "lookups": 1000000,
                 "misses": 300000 * RUN_FACTOR[run]})
    objs.append({"suite": "iotlb", "mode": "arena", "policy": None, "entries": 64,
                 "assoc": "full", "granule": 2097152, "lookups": 1000000, "misses": 600})
    objs.append({"suite": "convert", "mode": "emulated", "size": 4096,
                 "direction": "to_shared", "cycles_per_op": 250000, "ns_per_op": 119000.0})
    return objs


def serial_log(objs):
    """A console as the firmware and kernel print it, with the objects among the noise."""
    noise = ["\x1b[2J\x1b[01;01H\x1b[=3h\x1b[2J\x1b[01;01HBdsDxe: loading Boot0001",
             "BdsDxe: starting Boot0001 \"UEFI QEMU HARDDISK\"",
             "Sluice 0.1.0 (rev abc): DMA cost in confidential guests",
             "dma: {not json} at all", '{"suite":"blk","mode":"direct","iops":',
             "[1, 2, 3]", "42", "", "\x00\x00"]
    lines = noise[:5]
    for i, obj in enumerate(objs):
        text = json.dumps(obj)
        if i % 3 == 0:
            text = "\x1b[0m\x1b[37m\x1b[40m" + text + "\r"  # firmware colours, CRLF
        lines.append(text)
        if i % 5 == 0:
            lines.append(noise[5 + i % 4])
    lines.append("sluice: boot report complete; exit 0")
    return "\n".join(lines) + "\n"


def write_jsonl(path, objs):
    with open(path, "w") as f:
        for obj in objs:
            f.write(json.dumps(obj) + "\n")


def run_tool(*args, env=None):
    proc = subprocess.run([sys.executable] + list(args), capture_output=True, text=True,
                          env=env, timeout=300)
    return proc.returncode, proc.stdout + proc.stderr


def row_for(rows, suite, mode, policy, **workload):
    for row in rows:
        if (row["suite"], row["mode"], row["policy"]) != (suite, mode, policy):
            continue
        if all(bench.cfg_get(row["config"], k) == v for k, v in workload.items()):
            return row
    raise AssertionError(f"no row {suite} {mode} {policy} {workload}")


class ParseTests(unittest.TestCase):
    def test_log_yields_exactly_the_objects(self):
        objs = matrix()
        self.assertEqual(bench.parse_log(serial_log(objs)), objs)

    def test_ansi_escapes_and_carriage_return(self):
        line = '\x1b[0m\x1b[37m\x1b[40m{"suite":"net","fps":1.5}\r'
        self.assertEqual(bench.parse_line(line), {"suite": "net", "fps": 1.5})

    def test_broken_and_non_object_json_ignored(self):
        for line in ('{"suite":"blk","iops":', "[1,2]", "42", "null", '"text"',
                     "dma: {not json}", "{", "", "\x1b[2J"):
            self.assertIsNone(bench.parse_line(line), repr(line))

    def test_object_after_firmware_text_on_one_line(self):
        line = 'BdsDxe: starting Boot0001{"suite":"blk","mode":"direct","iops":3}'
        self.assertEqual(bench.parse_line(line)["iops"], 3)
        self.assertIsNone(bench.parse_line('text {"no_suite": 1}'))

    def test_results_file_reports_bad_lines(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "r.json")
            with open(path, "w") as f:
                f.write('{"suite":"net","fps":1}\n\nnot json\n{"suite":"net",\n')
            objs, bad = bench.load_results(path)
        self.assertEqual(len(objs), 1)
        self.assertEqual([n for n, _ in bad], [3, 4])


def mq_row(mode, policy, rw, threads, iops, run, scaling=None, wait=0.0, contended=0.0):
    obj = {"suite": "blk", "bench": "mq", "mode": mode, "policy": policy, "rw": rw,
           "bs": 4096, "iodepth": 32, "threads": threads, "queues": threads,
           "copy": mode == "bounce", "iops": iops, "bw_mbps": iops * 4096 / 1e6,
           "lat_mean_us": 1.5, "lat_p50_us": 1.0, "lat_p99_us": 9.0,
           "lock_wait_cycles_per_map": wait, "lock_contended_pct": contended,
           "ios": 100, "run": run}
    if scaling is not None:
        obj["scaling"] = scaling
    return obj


class ScalingTests(unittest.TestCase):
    def setUp(self):
        self.objs = []
        for run in (1, 2, 3):
            self.objs.append(mq_row("bounce", "lifo", "randread", 1, 1000 * run, run))
            self.objs.append(mq_row("bounce", "lifo", "randread", 2, 600 * run, run,
                                    scaling=0.6, wait=50.0 * run, contended=4.0))
            self.objs.append(mq_row("arena", None, "randread", 1, 2000, run))
            self.objs.append(mq_row("arena", None, "randread", 2, 3800, run, scaling=1.9))
            # a single-CPU row with no N-CPU partner gives no scaling row
            self.objs.append(mq_row("direct", None, "randwrite", 1, 5000, run))

    def test_one_row_per_configuration_with_both_counts(self):
        rows = bench.scaling_rows(self.objs)
        self.assertEqual([(r["mode"], r["policy"]) for r in rows],
                         [("bounce", "lifo"), ("arena", None)])

    def test_medians_scaling_and_lock_figures(self):
        lifo = bench.scaling_rows(self.objs)[0]
        self.assertEqual(lifo["figure"], "iops")
        self.assertEqual((lifo["one"], lifo["many"], lifo["threads"]), (2000, 1200, 2))
        self.assertAlmostEqual(lifo["scaling"], 0.6)
        self.assertEqual((lifo["wait_many"], lifo["contended"], lifo["runs"]), (100, 4, 3))

    def test_threads_and_queues_do_not_split_the_workload(self):
        text = bench.format_scaling(bench.scaling_rows(self.objs))
        self.assertIn("rw=randread bs=4K iodepth=32 bench=mq", text)
        self.assertNotIn("threads=", text)

    def test_pool_areas_do_not_split_the_workload(self):
        objs = [dict(o, areas=2) if o["mode"] == "bounce" else o for o in self.objs]
        self.assertEqual(len(bench.scaling_rows(objs)), 2)
        workloads = {bench.workload_of(bench.config_of(o)) for o in objs}
        self.assertEqual(len(workloads), 3)  # randread x 1, 2 threads; randwrite x 1

    def test_cli_without_multi_cpu_rows_fails(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            with open(path, "w") as f:
                f.write(json.dumps(mq_row("direct", None, "randread", 1, 5, 1)) + "\n")
            self.assertEqual(bench.main(["scaling", path]), 1)


class SummaryTests(unittest.TestCase):
    def setUp(self):
        self.objs = [dict(o, run=r) for r in (1, 2, 3) for o in matrix(r)]
        self.rows = bench.summary_rows(self.objs)

    def test_one_row_per_configuration(self):
        # 8 blk workloads + 2 net workloads, 6 cells each; 2 iotlb, 1 convert.
        self.assertEqual(len(self.rows), 10 * 6 + 3)
        self.assertTrue(all(r["n"] == 3 for r in self.rows))

    def test_median_min_max_of_the_main_figure(self):
        row = row_for(self.rows, "blk", "bounce", "lifo", rw="read", bs=4096, iodepth=1)
        self.assertEqual(row["figure"], "iops")
        self.assertAlmostEqual(row["median"], 12000.0)
        self.assertAlmostEqual(row["min"], 12000.0 * 0.9)
        self.assertAlmostEqual(row["max"], 12000.0 * 1.2)
        self.assertEqual(row_for(self.rows, "net", "arena", None, size=64)["figure"], "fps")
        self.assertEqual(row_for(self.rows, "convert", "emulated", None)["figure"],
                         "cycles_per_op")

    def test_ratios_against_direct_and_linux(self):
        row = row_for(self.rows, "blk", "bounce", "sluice", rw="randwrite", bs=65536,
                      iodepth=32)
        self.assertAlmostEqual(row["vs_direct"], 15000.0 / 20000.0)
        self.assertAlmostEqual(row["vs_linux"], 15000.0 / 10000.0)
        arena = row_for(self.rows, "net", "arena", None, size=1514)
        self.assertAlmostEqual(arena["vs_direct"], 19000.0 / 20000.0)
        direct = row_for(self.rows, "blk", "direct", None, rw="read", bs=4096, iodepth=1)
        self.assertIsNone(direct["vs_direct"])

    def test_iotlb_arena_against_bounce_linux_across_granules(self):
        row = row_for(self.rows, "iotlb", "arena", None)
        self.assertAlmostEqual(row["vs_linux"], 600 / 300000)
        self.assertIsNone(row["vs_direct"])

    def test_missing_baseline_gives_no_ratio(self):
        objs = [blk_line("bounce", "lifo"), blk_line("arena", None)]
        rows = bench.summary_rows(objs)
        self.assertTrue(all(r["vs_direct"] is None and r["vs_linux"] is None for r in rows))

    def test_figures_and_counts_do_not_split_configurations(self):
        objs = [blk_line("direct", None, run=r, ns_max=1.0 * r, nomem=r, errors=0)
                for r in (1, 2, 3)]
        objs.append(dict(blk_line("direct", None), policy="sluice"))  # ignored off bounce
        objs += [net_line("direct", None, 64, run=r) for r in (1, 2, 3)]  # frames vary
        self.assertEqual(len(bench.summary_rows(objs)), 2)

    def test_policy_splits_bounce_rows(self):
        objs = [blk_line("bounce", p) for p in POLICIES]
        self.assertEqual(len(bench.summary_rows(objs)), 4)

    def test_non_numeric_figure_is_tolerated(self):
        objs = [blk_line("direct", None, iops=None), blk_line("direct", None, iops="fast")]
        row = bench.summary_rows(objs)[0]
        self.assertEqual((row["median"], row["n"]), (None, 0))
        self.assertIn(" - ", bench.format_table([row]))

    def test_table_text(self):
        text = bench.format_table(self.rows)
        lines = text.splitlines()
        self.assertIn("vs bounce/linux", lines[0])
        self.assertEqual(len(lines), len(self.rows) + 2)
        sluice = [ln for ln in lines if "bounce/sluice" in ln and "rw=read bs=4K iodepth=1 " in ln]
        self.assertEqual(len(sluice), 1)
        self.assertRegex(sluice[0], r"15000\s+13500\s+18000\s+3\s+0\.750\s+1\.500\s+0$")
        self.assertNotIn("conversions", bench.format_table(bench.summary_rows(
            [net_line("direct", None, 64)])))

    def test_order_direct_bounce_policies_arena(self):
        blk = [r for r in self.rows if r["suite"] == "blk"][:6]
        self.assertEqual([(r["mode"], r["policy"]) for r in blk], CELLS)


class AcceleratorTests(unittest.TestCase):
    """TCG and KVM figures never share a table, a ratio or a chart."""

    def setUp(self):
        tcg = [dict(o, run=r, accel="tcg") for r in (1, 2) for o in matrix(r)]
        # KVM ten times faster: any mixing would show in medians and ratios.
        kvm = [dict(o, run=r, accel="kvm", iops=o["iops"] * 10) if "iops" in o
               else dict(o, run=r, accel="kvm") for r in (1, 2) for o in matrix(r)]
        self.objs = tcg + kvm

    def test_groups_in_first_appearance_order(self):
        groups = bench.by_accelerator(self.objs + [blk_line("direct", None)])
        self.assertEqual([a for a, _ in groups], ["tcg", "kvm", "unknown"])
        self.assertEqual(len(groups[0][1]), len(groups[1][1]))

    def test_rows_and_ratios_stay_within_one_accelerator(self):
        rows = bench.summary_rows(self.objs)
        self.assertEqual(len(rows), 2 * (10 * 6 + 3))
        for accel, factor in (("tcg", 1), ("kvm", 10)):
            row = row_for(rows, "blk", "bounce", "sluice", rw="randwrite", bs=65536,
                          iodepth=32, accel=accel)
            self.assertAlmostEqual(row["median"], 15000.0 * factor * 0.95)
            self.assertAlmostEqual(row["vs_direct"], 0.75)

    def test_summary_prints_one_table_per_accelerator(self):
        import io
        buf = io.StringIO()
        bench.print_summary(self.objs, out=buf)
        text = buf.getvalue()
        self.assertEqual(text.count("accelerator: TCG (one of 2 accelerators"), 1)
        self.assertEqual(text.count("accelerator: KVM (one of 2 accelerators"), 1)
        self.assertEqual(text.count("summary:"), 2)
        self.assertNotIn("accel=", text)  # the heading says it; rows do not repeat it
        tcg_part, kvm_part = text.split("accelerator: KVM")
        self.assertIn(" 15000 ", tcg_part)
        self.assertNotIn(" 150000 ", tcg_part)
        self.assertIn(" 150000 ", kvm_part)

    def test_one_accelerator_has_a_plain_heading(self):
        import io
        buf = io.StringIO()
        bench.print_summary([o for o in self.objs if o["accel"] == "tcg"], out=buf)
        self.assertTrue(buf.getvalue().startswith("accelerator: TCG\n"), buf.getvalue()[:80])

    def test_scaling_per_accelerator(self):
        objs = [dict(mq_row("bounce", "sluice", "randread", t, 1000.0 * t * f, 1), accel=a)
                for a, f in (("tcg", 1), ("kvm", 10)) for t in (1, 2)]
        path = os.path.join(tempfile.mkdtemp(), "r.json")
        write_jsonl(path, objs)
        rc, out = run_tool(BENCH, "scaling", path)
        self.assertEqual(rc, 0, out)
        self.assertIn("accelerator: TCG", out)
        self.assertIn("accelerator: KVM", out)
        tcg_part, kvm_part = out.split("accelerator: KVM")
        self.assertIn("accelerator: TCG", tcg_part)
        self.assertIn(" 2000 ", tcg_part)
        self.assertNotIn(" 20000 ", tcg_part)
        self.assertIn(" 20000 ", kvm_part)


class CheckTests(unittest.TestCase):
    def check(self, objs, bad=(), modes=MODES, policies=POLICIES):
        return bench.check_results(objs, list(bad), list(modes), list(policies))[0]

    def test_complete_matrix_passes(self):
        self.assertEqual(self.check(matrix(1) + matrix(2)), [])

    def test_missing_cells_are_named(self):
        objs = matrix(skip={("read", 65536, 32, "bounce", "lifo"), (1514, "arena", None)})
        problems = self.check(objs)
        self.assertEqual(len(problems), 2, problems)
        self.assertIn("blk rw=read bs=64K iodepth=32 threads=1 queues=1: bounce/lifo",
                      problems[0])
        self.assertIn("net size=1514: arena", problems[1])

    def test_expected_lists_are_honoured(self):
        objs = [o for o in matrix() if o.get("mode") != "arena"]
        self.assertEqual(self.check(objs, modes=("direct", "bounce")), [])
        self.assertTrue(self.check(objs))
        self.assertTrue(self.check(matrix(), policies=POLICIES + ("segment",)))

    def test_contract_keys(self):
        objs = matrix()
        del objs[0]["iops"]
        objs[1]["lat_p99_us"] = None
        del objs[2]["mode"]
        objs.append({"mode": "direct", "iops": 1})
        problems = self.check(objs)
        self.assertTrue(any('lacks "iops"' in p for p in problems), problems)
        self.assertTrue(any('"lat_p99_us": None' in p for p in problems), problems)
        self.assertTrue(any('lacks "mode"' in p for p in problems), problems)
        self.assertTrue(any('no "suite"' in p for p in problems), problems)

    def test_broken_line_and_empty_file(self):
        self.assertIn("line 7", self.check(matrix(), bad=[(7, "{oops")])[0])
        self.assertEqual(self.check([]), ["no blk or net workload found"])

    def test_cli_exit_status(self):
        with tempfile.TemporaryDirectory() as tmp:
            good, bad = os.path.join(tmp, "good.json"), os.path.join(tmp, "bad.json")
            write_jsonl(good, matrix())
            write_jsonl(bad, matrix(skip={("read", 4096, 1, "direct", None)}))
            rc, out = run_tool(BENCH, "check", good, "--expect-modes", "direct,bounce,arena",
                               "--expect-policies", "linux,bitmap,lifo,sluice")
            self.assertEqual(rc, 0, out)
            rc, out = run_tool(BENCH, "check", bad)
            self.assertEqual(rc, 1, out)
            self.assertIn("missing blk rw=read bs=4K iodepth=1", out)
            rc, out = run_tool(BENCH, "summarize", good)
            self.assertEqual(rc, 0, out)
            self.assertIn("bounce/sluice", out)
            rc, out = run_tool(BENCH, "summarize", os.path.join(tmp, "absent.json"))
            self.assertEqual(rc, 1, out)


def kernel_blk(mode, policy, rw="randread", bs=4096, iodepth=32, run=1, scrub="zero"):
    """A blk line exactly as bench/blk_bench.c prints it (copy, cycles, DMA tax, counts)."""
    iops = IOPS[(mode, policy)] * RUN_FACTOR[run]
    pol = json.dumps(policy)
    copy = "true" if mode == "bounce" else "false"
    cmap, ccopy = (300 + run, 600 * (2 if scrub == "copy" else 1)) if copy == "true" else (20, 0)
    cio = cmap + ccopy + 2000 + 50000
    # Bounce lines of boots with direct (cycles_dma 20) and bounce/linux (the same
    # cycles as every policy here): what they add over direct, and 1x linux's.
    over = (f',"dma_over_direct":{cmap + ccopy - 20},"dma_over_direct_vs_linux":1.000,'
            f'"copy_floor_vs_linux":{ccopy / (cmap + ccopy - 20):.3f}'
            if copy == "true" and scrub == "zero" else "")
    return json.loads(
        f'{{"suite":"blk","copy_impl":"libc","scrub":"{scrub}",'
        f'"mode":"{mode}","policy":{pol},"rw":"{rw}","bs":{bs},'
        f'"iodepth":{iodepth},"threads":1,"queues":1,"copy":{copy},"iops":{iops:.1f},'
        f'"bw_mbps":{iops * bs / 1e6:.2f},"lat_mean_us":12.5,"lat_p50_us":11.0,'
        f'"lat_p99_us":40.0,"cycles_map":{cmap},"cycles_copy":{ccopy},"cycles_convert":0,'
        f'"cycles_driver":2000,"cycles_device":50000,"conversions":0,'
        f'"bounced_bytes":{4096 * run if copy == "true" else 0},"ios":{int(iops * 2)},'
        f'"errors":0,"seconds":{2.0 + run / 1000:.3f},"cycles_dma":{cmap + ccopy},'
        f'"cycles_io":{cio},"dma_tax_pct":{100 * (cmap + ccopy) / cio:.2f},'
        f'"dma_tax_pct_linux":1.8,"ratio_direct":0.5,"ratio_linux":1.0{over}}}')


def kernel_iotlb(mode, policy, run=1):
    granule = 2097152 if mode == "arena" else 4096
    misses = 30000 if mode == "arena" else 16600000 + run
    return {"suite": "iotlb", "mode": mode, "policy": policy, "rw": "randread", "bs": 4096,
            "iodepth": 256, "threads": 1, "entries": 64, "assoc": "full", "ways": 64,
            "granule": granule, "ios": 1000 + run, "lookups": 20000000, "misses": misses}


class KernelFormatTests(unittest.TestCase):
    """Lines in the format the in-kernel benchmark prints (bench/*.c)."""

    def setUp(self):
        self.objs = [dict(kernel_blk(m, p, rw, 4096, d, r), run=r)
                     for r in (1, 2, 3) for rw in ("read", "randwrite") for d in (1, 256)
                     for m, p in CELLS]
        self.objs += [dict(kernel_iotlb(m, p, r), run=r) for r in (1, 2, 3) for m, p in CELLS]
        self.objs.append({"suite": "convert", "mode": "emulated", "case": "4k", "size": 4096,
                          "direction": "to_shared", "cycles_per_op": 250000,
                          "ns_per_op": 119000.0, "ops": 64, "splits": 64, "conversions": 64})

    def test_boots_with_another_copy_share_a_row(self):
        # A boot that timed another bounce copy the fastest is the same configuration:
        # one row per workload, its median over all three boots; the heading names both.
        objs = copy.deepcopy(self.objs)
        for o in objs:
            if o.get("run") == 2 and "copy_impl" in o:
                o["copy_impl"] = "movsq"
        self.assertEqual(len(bench.summary_rows(objs)), len(bench.summary_rows(self.objs)))
        self.assertEqual(bench.copy_impl_note(objs), "bounce copy: libc, movsq")

    def test_copy_and_granule_follow_the_mode(self):
        rows = bench.summary_rows(self.objs)
        self.assertEqual(len(rows), 4 * 6 + 6 + 1)
        row = row_for(rows, "blk", "bounce", "sluice", rw="read", iodepth=256)
        self.assertAlmostEqual(row["vs_direct"], 0.75)
        self.assertAlmostEqual(row["vs_linux"], 1.5)
        self.assertEqual(row["n"], 3)
        arena = row_for(rows, "iotlb", "arena", None)
        self.assertAlmostEqual(arena["vs_linux"], 30000 / 16600002)

    def test_check_passes_on_a_complete_run(self):
        problems, workloads, cells = bench.check_results(self.objs, [], list(MODES),
                                                         list(POLICIES))
        self.assertEqual((problems, workloads, cells), ([], 4, 6))

    def test_copy_stays_an_axis_of_the_alloc_suite(self):
        objs = [{"suite": "alloc", "mode": "bounce", "policy": p, "size": 4096, "copy": c,
                 "ns_per_op": 10.0, "cycles_per_op": 20.0 + (10 if p == "lifo" else 0)}
                for p in ("linux", "lifo") for c in (False, True)]
        rows = bench.summary_rows(objs)
        self.assertEqual(len(rows), 4)
        self.assertTrue(all(r["vs_linux"] in (1.0, 1.5) for r in rows), rows)

    def test_cycle_parts_in_stacking_order(self):
        # cycles_dma (map + copy) and cycles_io (all parts) are sums: never stacked.
        self.assertEqual(plot.cycle_keys(self.objs),
                         ["cycles_map", "cycles_copy", "cycles_convert", "cycles_driver",
                          "cycles_device"])
        self.assertEqual(plot.cycle_keys([blk_line("direct", None)]),
                         ["cycles_map", "cycles_copy", "cycles_convert", "cycles_driver",
                          "cycles_device"])


def kernel_net(mode, policy, size=1514, run=1, dma=None):
    """A net line as bench/net_bench.c prints it, with the per-frame DMA figures."""
    copy = 500 if mode == "bounce" else 0
    dma = (2000 + copy + run) if dma is None else dma
    return {"suite": "net", "copy_impl": "libc", "scrub": "zero", "mode": mode,
            "policy": policy, "size": size, "threads": 1, "copy": mode == "bounce",
            "fps": IOPS[(mode, policy)], "gbps": 0.1, "frames": 1000, "lost": 0,
            "seconds": 0.3, "cycles_copy": copy, "cycles_dma": dma, "cycles_io": 100000,
            "dma_tax_pct": dma / 1000, "run": run}


def tax_matrix():
    """Three boots of 4 KiB and 64 KiB block lines and 1514-byte frames in every cell,
    plus a scrub=copy boot (4) of bounce/linux and bounce/sluice, and mq rows."""
    objs = [dict(kernel_blk(m, p, rw, bs, 32, r), run=r) for r in (1, 2, 3)
            for rw, bs in (("randread", 4096), ("read", 65536)) for m, p in CELLS]
    objs += [kernel_net(m, p, 1514, r) for r in (1, 2, 3) for m, p in CELLS]
    objs += [dict(kernel_blk("bounce", p, "randread", 4096, 32, 1, scrub="copy"), run=4)
             for p in ("linux", "sluice")]
    objs += [mq_row(m, p, "randread", 1, 1000.0, 1) for m, p in CELLS]
    return objs


class DmaTaxTests(unittest.TestCase):
    """The DMA tables of the summary: cycles added over direct, the tax, the scrub."""

    def setUp(self):
        self.objs = tax_matrix()

    def test_columns_are_4k_block_workloads_then_net_1514(self):
        cols = [c[0] for c in bench.tax_columns(self.objs)]
        # 64 KiB, mq and scrub=copy rows are not columns; net comes last.
        self.assertEqual(cols, ["randread qd32", "net 1514 B"])

    def test_added_cycles_are_medians_of_same_boot_differences(self):
        added = bench.dma_added_table(self.objs)
        # bounce/linux: map 300 + run, copy 600; direct 20: 880 + run, median over 1..3.
        self.assertEqual(added[("randread qd32", ("bounce", "linux"))], 882)
        self.assertEqual(added[("randread qd32", ("arena", None))], 0)
        self.assertEqual(added[("net 1514 B", ("bounce", "sluice"))], 500)
        self.assertNotIn(("randread qd32", ("direct", None)), added)

    def test_added_cycles_pair_each_boot_with_its_own_direct(self):
        objs = [kernel_net("direct", None, run=r, dma=d) for r, d in ((1, 10), (2, 100), (3, 1000))]
        objs += [kernel_net("bounce", "linux", run=r, dma=d)
                 for r, d in ((1, 1010), (2, 105), (3, 1005))]
        added = bench.dma_added_table(objs)
        # Per boot: 1000, 5, 5 -> 5; the difference of the medians would be 905.
        self.assertEqual(added[("net 1514 B", ("bounce", "linux"))], 5)
        # A boot without direct counts for nothing.
        objs.append(kernel_net("bounce", "linux", run=4, dma=99999))
        self.assertEqual(bench.dma_added_table(objs)[("net 1514 B", ("bounce", "linux"))], 5)

    @staticmethod
    def without_over(obj):
        """A line without its own figures over direct (a net line, or a line of
        before they were printed): the tables pair it with direct's in its boot."""
        for key in ("dma_over_direct", "dma_over_direct_vs_linux", "copy_floor_vs_linux"):
            obj.pop(key, None)
        return obj

    def test_over_direct_against_linux_pairs_each_boot(self):
        objs = []
        for run, (d, lx, sl) in enumerate(((20, 1020, 520), (500, 600, 540), (20, 220, 120)), 1):
            objs += [self.without_over(dict(kernel_blk(m, p, run=run), run=run, cycles_dma=v))
                     for (m, p), v in ((("direct", None), d), (("bounce", "linux"), lx),
                                       (("bounce", "sluice"), sl))]
        table = bench.dma_vs_linux_table(objs)
        # Per boot: 500/1000, 40/100, 100/200 -> median 0.5; the medians of the cycles
        # (direct 20, linux 600, sluice 520) would give 500/580.
        self.assertAlmostEqual(table[("randread qd32", ("bounce", "sluice"))], 0.5)
        self.assertAlmostEqual(table[("randread qd32", ("bounce", "linux"))], 1.0)
        # A boot whose linux adds nothing counts for nothing.
        objs += [self.without_over(dict(kernel_blk(m, p), run=4, cycles_dma=v))
                 for (m, p), v in ((("direct", None), 20), (("bounce", "linux"), 20),
                                   (("bounce", "sluice"), 99999))]
        # Nor does one without direct.
        objs += [self.without_over(dict(kernel_blk("bounce", "sluice"), run=5, cycles_dma=9))]
        self.assertAlmostEqual(bench.dma_vs_linux_table(objs)[
            ("randread qd32", ("bounce", "sluice"))], 0.5)
        text = dict((t[0], t[2]) for t in bench.tax_tables(objs))[
            "bounce DMA cycles over direct against bounce/linux's"]
        self.assertIn("0.500", text)

    def test_lines_of_rounds_give_their_own_figures(self):
        # Lines of three rounds: each carries the medians of its rounds' own figures,
        # which its median-round cycles_dma do not give back. The tables take the
        # lines' figures, the check only wants them present.
        objs = []
        for run, (over, ratio) in enumerate(((700, 0.6), (900, 0.7), (800, 0.65)), 1):
            cyc = {("direct", None): 1000, ("bounce", "linux"): 2500, ("bounce", "sluice"): 2000}
            for (m, p), v in cyc.items():
                o = dict(kernel_blk(m, p, run=run), run=run, cycles_dma=v, rounds=3)
                if p == "sluice":
                    o.update(dma_over_direct=over, dma_over_direct_vs_linux=ratio,
                             copy_floor_vs_linux=0.5)
                objs.append(o)
        self.assertAlmostEqual(bench.dma_vs_linux_table(objs)[
            ("randread qd32", ("bounce", "sluice"))], 0.65)
        self.assertEqual(bench.dma_added_table(objs)[
            ("randread qd32", ("bounce", "sluice"))], 800)
        self.assertEqual(bench.over_direct_problems(objs), [])
        del objs[2]["dma_over_direct"]
        self.assertTrue(any('bounce/sluice lacks "dma_over_direct"' in p
                            for p in bench.over_direct_problems(objs)))
        # One round: the figures must be the lines' own differences.
        for o in objs:
            o["rounds"] = 1
        self.assertTrue(any('has "dma_over_direct_vs_linux"' in p
                            for p in bench.over_direct_problems(objs)))

    def test_over_direct_keys_are_checked(self):
        def check(objs, modes=("direct", "bounce")):
            return bench.check_results(objs, [], list(modes), ["linux", "sluice"])[0]
        cells = [("direct", None), ("bounce", "linux"), ("bounce", "sluice")]
        good = [dict(kernel_blk(m, p, run=1), run=1) for m, p in cells]
        self.assertEqual(check(good), [])
        for key in ("dma_over_direct", "dma_over_direct_vs_linux", "copy_floor_vs_linux"):
            for policy in ("linux", "sluice"):
                objs = copy.deepcopy(good)
                del next(o for o in objs if o["policy"] == policy)[key]
                self.assertTrue(any(f'bounce/{policy} lacks "{key}"' in p
                                    for p in check(objs)), (key, policy, check(objs)))
        objs = copy.deepcopy(good)
        objs[2]["dma_over_direct"] += 10
        self.assertTrue(any('has "dma_over_direct"' in p for p in check(objs)), check(objs))
        objs = copy.deepcopy(good)
        objs[2]["dma_over_direct_vs_linux"] = 0.5
        self.assertTrue(any('has "dma_over_direct_vs_linux"' in p for p in check(objs)))
        objs = copy.deepcopy(good)
        objs[2]["copy_floor_vs_linux"] += 0.1
        self.assertTrue(any('has "copy_floor_vs_linux"' in p for p in check(objs)))
        # Without direct in the boot there is nothing to be over: no key is due.
        objs = [o for o in copy.deepcopy(good) if o["mode"] != "direct"]
        for o in objs:
            del o["dma_over_direct"], o["dma_over_direct_vs_linux"], o["copy_floor_vs_linux"]
        self.assertEqual(check(objs, modes=("bounce",)), [])

    def test_tax_table_has_direct_and_percentages(self):
        tax = bench.dma_tax_table(self.objs)
        self.assertAlmostEqual(tax[("net 1514 B", ("direct", None))], 2.002)
        titles = [t[0] for t in bench.tax_tables(self.objs)]
        self.assertEqual(titles, ["cycles the DMA layer adds per 4 KiB I/O over direct",
                                  "bounce DMA cycles over direct against bounce/linux's",
                                  "DMA tax", "from-device scrub"])
        text = bench.tax_tables(self.objs)[2][2]
        lines = text.splitlines()
        self.assertEqual(lines[0].split("|")[1].strip(), "mode/policy")
        self.assertEqual([ln.split("|")[1].strip() for ln in lines[2:]],
                         ["direct", "bounce/linux", "bounce/bitmap", "bounce/lifo",
                          "bounce/sluice", "arena"])
        self.assertIn("%", lines[2])

    def test_many_workloads_turn_the_table(self):
        objs = [dict(kernel_blk(m, p, rw, 4096, d, 1), run=1) for m, p in CELLS
                for rw in ("read", "write", "randread") for d in (1, 32, 256)]
        table = bench.tax_tables(objs)[0][2].splitlines()
        self.assertEqual([c.strip() for c in table[0].split("|")[1:-1]],
                         ["workload", "bounce/linux", "bounce/bitmap", "bounce/lifo",
                          "bounce/sluice", "arena"])
        self.assertEqual(len(table), 2 + 9)
        self.assertEqual(table[2].split("|")[1].strip(), "read qd1")

    def test_scrub_rows_compare_copy_with_the_default(self):
        rows = bench.scrub_rows(self.objs)
        self.assertEqual([(r[0], bench.config_label(r[1]), r[2]) for r in rows],
                         [("linux", "rw=randread bs=4K iodepth=32 threads=1 queues=1", "copy"),
                          ("sluice", "rw=randread bs=4K iodepth=32 threads=1 queues=1",
                           "copy")])
        figs = rows[0][3]
        self.assertEqual(figs["copy"][0], 1200)  # copy cycles doubled by the fixture
        self.assertEqual(figs["zero"][0], 600)
        head = bench.format_scrub(rows).splitlines()[0]
        self.assertIn("copy cycles copy", head)
        self.assertIn("DMA zero/copy", head)

    def test_scrub_boots_are_not_missing_cells(self):
        problems, _, _ = bench.check_results(self.objs, [], list(MODES), list(POLICIES))
        self.assertEqual(problems, [])

    def test_summary_prints_the_tables(self):
        buf = io.StringIO()
        bench.print_summary(self.objs, out=buf)
        text = buf.getvalue()
        self.assertIn("bounce copy: libc", text)
        self.assertIn("cycles the DMA layer adds per 4 KiB I/O over direct", text)
        self.assertIn("DMA tax", text)
        self.assertIn("scrub=copy", text)  # the other scrub's rows say so in their label


class ReportTests(unittest.TestCase):
    """REPORT.md: what ran, where, with what else, and the tables."""

    ENV = {"command": "make bench BENCH_REPEATS=3 ARGS=\"\"", "bench_py": "scripts/bench.py run",
           "git": "abc1234", "date_start": "2026-12-03 10:00:00 UTC",
           "date_end": "2026-12-03 10:30:00 UTC", "seconds": 1800.0,
           "cpu_model": "AMD EPYC Test", "cpus": 2, "cpus_usable": 2, "qemu": "QEMU 7.2",
           "load_before": [0.5, 0.4, 0.3], "load_after": [1.5, 1.0, 0.5],
           "load_max": [2.0, 1.1, 0.6], "failed": False,
           "cpu_seconds_busy": 3000.0, "cpu_seconds_ours": 1800.0,
           "other_processes": [{"cpu_seconds": 90.0, "cpu_pct": 5.0, "processes": 3,
                                "comm": "cc1", "cmdline": "cc1 -O2 a|b.c"}]}

    def test_report_text_has_every_part(self):
        objs = tax_matrix() + [dict(mq_row("bounce", "linux", "randread", 2, 900.0, 1,
                                           scaling=0.9))]
        text = bench.report_text(objs, self.ENV, ["blk_iops.png", "dma_tax_blk.png"],
                                 host="command: make bench-host\nsluice 23 ns")
        for part in ("make bench BENCH_REPEATS=3", "abc1234", "2026-12-03 10:00:00 UTC",
                     "AMD EPYC Test, 2 CPUs", "before 0.50 / 0.40 / 0.30",
                     "after 1.50 / 1.00 / 0.50", "| cc1 ", "cc1 -O2 a\\|b.c",
                     "3000 s busy of 3600 s (2 CPUs)", "everything else about 1200 s (33 %",
                     "accelerator: unknown", "## Summary", "## 1 CPU against N CPUs",
                     "## Cycles the DMA layer adds per 4 KiB I/O over direct",
                     "## Bounce DMA cycles over direct against bounce/linux's",
                     "## DMA tax", "## From-device scrub", "[dma_tax_blk.png](dma_tax_blk.png)",
                     "## Host benchmark", "sluice 23 ns", "bounce copy: libc"):
            self.assertIn(part, text)
        # The tax tables are sections of their own, not repeated inside the summary.
        self.assertEqual(text.count("| mode/policy"), 3)

    def test_report_without_environment_says_so(self):
        text = bench.report_text([blk_line("direct", None)], None, [])
        self.assertIn("no environment file", text)
        self.assertNotIn("## Charts", text)

    def test_report_command_writes_the_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            results = os.path.join(tmp, "results.json")
            write_jsonl(results, tax_matrix())
            with open(os.path.join(tmp, "results-env.json"), "w") as f:
                json.dump(self.ENV, f)
            with open(os.path.join(tmp, "host.txt"), "w") as f:
                f.write("command: make bench-host\n")
            open(os.path.join(tmp, "net_fps.png"), "wb").close()
            rc, out = run_tool(BENCH, "report", results)
            self.assertEqual(rc, 0, out)
            with open(os.path.join(tmp, "REPORT.md")) as f:
                text = f.read()
            self.assertIn("AMD EPYC Test", text)
            self.assertIn("[net_fps.png](net_fps.png)", text)
            self.assertIn("command: make bench-host", text)


def contract_emitters():
    """{path: keys} of every file that prints benchmark JSON lines."""
    out = {}
    for name in ("bench/result_json.c", "bench/blk_bench.c", "bench/blk_mq_bench.c",
                 "bench/net_bench.c", "bench/convert_bench.c", "bench/alloc_smp_bench.c",
                 "bench/host/bench_alloc.c", "tests/firmware/iommu_app.c"):
        with open(os.path.join(TOP, name)) as f:
            text = f.read()
        # Keys in format strings, and keys handed to bench/host/bench_json.h's builders.
        out[name] = set(re.findall(r'\\"([a-z][a-z0-9_]*)\\":', text)) | set(
            re.findall(r'bench_json_(?:str|num|ulong|bool)\([^,]+,\s*"([a-z][a-z0-9_]*)"', text))
    return out


class ContractTests(unittest.TestCase):
    """docs/BENCHMARKS.md's contract table against the code and the lines."""

    def setUp(self):
        self.contract = bench.documented_contract()

    def test_table_is_found_and_parsed(self):
        self.assertGreater(len(self.contract), 50)
        self.assertEqual(self.contract["cycles_dma"], {"blk", "net"})
        self.assertIn("convert", self.contract["accel"])  # "all" expands to the guest

    def test_every_printed_key_is_documented_and_every_documented_key_printed(self):
        printed = set().union(*contract_emitters().values())
        self.assertGreater(len(printed), 50)  # the scan itself works
        self.assertEqual(sorted(printed - set(self.contract)), [],
                         "printed but not in docs/BENCHMARKS.md's contract table")
        # "run" is added by bench.py run, not printed by a kernel.
        self.assertEqual(sorted(set(self.contract) - printed - {"run"}), [],
                         "in the contract table but printed by none")

    def test_lines_of_the_fixtures_follow_the_contract(self):
        objs = tax_matrix() + [kernel_iotlb("arena", None)]
        self.assertEqual(bench.contract_violations(objs, self.contract), [])

    def test_an_undocumented_key_or_suite_is_caught(self):
        bad = [dict(kernel_net("direct", None), cycles_bogus=1),
               dict(kernel_net("direct", None), iops=5.0)]
        problems = bench.contract_violations(bad, self.contract)
        self.assertEqual(len(problems), 2, problems)
        self.assertIn('"cycles_bogus"', problems[0])
        self.assertIn('net line carries "iops"', problems[1])
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "serial.log")
            with open(path, "w") as f:
                f.write(serial_log(bad))
            rc, out = run_tool(BENCH, "contract", path)
            self.assertEqual(rc, 1, out)
            with open(path, "w") as f:
                f.write(serial_log(tax_matrix()))
            rc, out = run_tool(BENCH, "contract", path)
            self.assertEqual(rc, 0, out)


FAKE_RUN_QEMU = """\
#!/usr/bin/env bash
# A stand-in for run-qemu.sh: prints a prepared console into --log, exits as told.
log=""
while [ $# -gt 0 ]; do
	case "$1" in
	--log) log=$2; shift 2 ;;
	--args|--timeout) echo "fake: $1 $2" >>"{tmp}/calls"; shift 2 ;;
	--) break ;;
	*) shift ;;
	esac
done
n=$(($(cat "{tmp}/count" 2>/dev/null || echo 0) + 1))
echo $n >"{tmp}/count"
cat "{tmp}/console$n" | tee "$log"
exit $(cat "{tmp}/status$n" 2>/dev/null || echo 0)
"""


class RunTests(unittest.TestCase):
    """`bench.py run` end to end, with a fake run-qemu.sh instead of QEMU."""

    def run_bench(self, consoles, statuses=(), repeats=3, extra=()):
        tmp = self.tmp.name
        script = os.path.join(tmp, "fake-run-qemu.sh")
        with open(script, "w") as f:
            f.write(FAKE_RUN_QEMU.replace("{tmp}", tmp))
        os.chmod(script, 0o755)
        for k, text in enumerate(consoles, 1):
            with open(os.path.join(tmp, f"console{k}"), "w") as f:
                f.write(text)
        for k, status in enumerate(statuses, 1):
            with open(os.path.join(tmp, f"status{k}"), "w") as f:
                f.write(str(status))
        out = os.path.join(tmp, "bench", "results.json")
        rc, text = run_tool(BENCH, "run", "--repeats", str(repeats), "--args", "modes=all",
                            "--out", out, "--timeout", "60", "--run-qemu-script", script,
                            *extra)
        return rc, text, out

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def test_three_runs_tagged_and_summarised(self):
        consoles = [serial_log(matrix(r)) for r in (1, 2, 3)]
        rc, text, out = self.run_bench(consoles)
        self.assertEqual(rc, 0, text)
        objs, bad = bench.load_results(out)
        self.assertEqual(bad, [])
        self.assertEqual(len(objs), 3 * len(matrix()))
        self.assertEqual(sorted({o["run"] for o in objs}), [1, 2, 3])
        self.assertEqual([o for o in objs if o["run"] == 2],
                         [dict(o, run=2) for o in matrix(2)])
        self.assertIn("vs bounce/linux", text)
        self.assertIn("pinning:", text)
        for k in (1, 2, 3):
            self.assertTrue(os.path.exists(os.path.join(os.path.dirname(out),
                                                        f"serial-run{k}.log")))
        with open(os.path.join(self.tmp.name, "calls")) as f:
            self.assertEqual(f.read().count("fake: --args modes=all"), 3)

    def test_variant_boots_follow_each_boot_and_the_machine_is_recorded(self):
        consoles = [serial_log(matrix(r)) for r in (1, 2)]
        consoles.insert(1, serial_log([blk_line("bounce", "linux", scrub="copy")]))
        consoles.append(serial_log([blk_line("bounce", "linux", scrub="copy")]))
        rc, text, out = self.run_bench(consoles, repeats=2,
                                       extra=("--variant", "scrub=copy modes=bounce",
                                              "--command", "make bench X=1"))
        self.assertEqual(rc, 0, text)
        with open(os.path.join(self.tmp.name, "calls")) as f:
            calls = [c for c in f.read().splitlines() if c.startswith("fake: --args")]
        self.assertEqual(calls, ["fake: --args modes=all", "fake: --args modes=all scrub=copy "
                                 "modes=bounce"] * 2)
        objs, _ = bench.load_results(out)
        self.assertEqual(sorted({o["run"] for o in objs if o.get("scrub") == "copy"}), [2, 4])
        with open(bench.env_path(out)) as f:
            env = json.load(f)
        self.assertEqual(env["command"], "make bench X=1")
        self.assertEqual([b["what"] for b in env["boots"]],
                         ["main", "variant 'scrub=copy modes=bounce'"] * 2)
        for key in ("git", "cpu_model", "cpus", "load_before", "load_after", "date_end"):
            self.assertIn(key, env)
        self.assertIsInstance(env["other_processes"], list)
        self.assertIn("scrub=copy", text)

    def test_failed_boot_stops_and_fails(self):
        consoles = [serial_log(matrix(1)), "panic\n", serial_log(matrix(3))]
        rc, text, out = self.run_bench(consoles, statuses=(0, 5, 0))
        self.assertEqual(rc, 1, text)
        self.assertIn("run 2 FAILED", text)
        self.assertIn("kernel panic", text)
        objs, _ = bench.load_results(out)
        self.assertEqual({o["run"] for o in objs}, {1})  # kept what it had

    def test_no_json_fails(self):
        rc, text, _ = self.run_bench(["no figures here\n"], repeats=1)
        self.assertEqual(rc, 1, text)
        self.assertIn("no JSON line", text)

    def test_some_json_is_enough(self):
        rc, text, _ = self.run_bench([serial_log([blk_line("direct", None)]), "x\n"],
                                     repeats=2)
        self.assertEqual(rc, 0, text)


class PlotTests(unittest.TestCase):
    def plot(self, objs, env=None):
        tmp = self.tmp.name
        results = os.path.join(tmp, "results.json")
        write_jsonl(results, objs)
        rc, out = run_tool(PLOT, results, os.path.join(tmp, "out"), env=env)
        if rc == 2 and "matplotlib is missing" in out and env is None:
            self.skipTest("matplotlib is not installed (scripts/deps.sh bench installs "
                          "python3-matplotlib); plot.py not exercised")
        return rc, out

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def test_charts_are_non_empty_pngs(self):
        objs = [dict(o, run=r) for r in (1, 2, 3) for o in matrix(r)]
        objs += [dict(kernel_blk(m, p, "write", 512, 8, r), run=r)
                 for r in (1, 2) for m, p in CELLS]
        rc, out = self.plot(objs)
        self.assertEqual(rc, 0, out)
        for name in ("blk_iops.png", "net_fps.png", "cycles_breakdown.png",
                     "cycles_breakdown_cpu.png", "iotlb_misses.png"):
            path = os.path.join(self.tmp.name, "out", name)
            self.assertTrue(os.path.exists(path), f"{name} missing; output:\n{out}")
            with open(path, "rb") as f:
                data = f.read()
            self.assertGreater(len(data), 5000, name)
            self.assertEqual(data[:8], b"\x89PNG\r\n\x1a\n", name)

    def test_one_chart_set_per_accelerator(self):
        objs = [dict(o, accel=a) for a in ("tcg", "kvm") for o in matrix(1)]
        rc, out = self.plot(objs)
        self.assertEqual(rc, 0, out)
        names = sorted(os.listdir(os.path.join(self.tmp.name, "out")))
        for accel in ("tcg", "kvm"):
            self.assertIn(f"{accel}_blk_iops.png", names)
            self.assertIn(f"{accel}_net_fps.png", names)
        self.assertNotIn("blk_iops.png", names)

    def test_nothing_to_plot(self):
        rc, out = self.plot([{"suite": "convert", "cycles_per_op": 5}])
        self.assertEqual(rc, 1, out)
        self.assertIn("nothing", out.replace("no blk, net or iotlb", "nothing"))

    def test_missing_matplotlib_says_so(self):
        hide = os.path.join(self.tmp.name, "hide", "matplotlib")
        os.makedirs(hide)
        with open(os.path.join(hide, "__init__.py"), "w") as f:
            f.write(textwrap.dedent("raise ImportError('hidden by the test')\n"))
        env = dict(os.environ, PYTHONPATH=os.path.dirname(hide), SLUICE_PLOT_REEXEC="1")
        rc, out = self.plot([blk_line("direct", None)], env=env)
        self.assertEqual(rc, 2, out)
        self.assertIn("matplotlib is missing", out)
        self.assertIn("python3-matplotlib", out)


if __name__ == "__main__":
    unittest.main()
