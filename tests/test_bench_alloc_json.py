#!/usr/bin/python3
"""test_bench_alloc_json.py - every line bench_alloc writes parses as JSON.

  python3 tests/test_bench_alloc_json.py BENCH_ALLOC_BINARY STAGE_BINARY [-v]

Runs a short `make bench-host`-style run of the host benchmark (every size, every
policy, the arena, the copy and scrub cells, 2 threads, one round of few pairs) and
parses every line with Python's json module: once with the measured values, and once
each with every number replaced by the widest a run can produce (-W max: -DBL_MAX
printed with %.1f, 309 digits, and ULONG_MAX; -W nan / -W inf: not finite, which
must come out as null). A fixed line buffer, or printf's "nan", fails it. The same
for the cost breakdown (-K) of the stage build (build/bench/bench_alloc_stages): every
stage and total has its line; and -K of the build without markers refuses, saying
why. Every line's keys are in docs/BENCHMARKS.md's contract table. It asserts no
time.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no __pycache__ in scripts/
sys.path.insert(0, os.path.join(TOP, "scripts"))
import bench  # noqa: E402

BIN = None
STAGES_BIN = None
STAGES = ("args", "tag", "pool", "slot", "record", "copy", "cache", "stats", "lookup",
          "copy_back", "release")
TOTALS = ("pair", "unattributed", "not_copy", "memcpy", "port_copy")
SHORT = ["-n", "200", "-r", "1", "-t", "2", "-P", "2"]
# The keys whose values are longest in an arena line, last in the line.
ARENA_TAIL = ("scrub_ns", "scrub_cycles", "ns_excl_scrub", "scrub_cycles_arena")


def run(*extra, binary=None):
    """The JSON lines of one short run with @extra arguments, parsed."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "alloc.json")
        proc = subprocess.run([binary or BIN] + SHORT + list(extra) + ["-o", out],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, timeout=600)
        if proc.returncode != 0:
            raise AssertionError("bench_alloc %s: exit %d\n%s" % (
                " ".join(extra), proc.returncode, proc.stderr))
        with open(out) as f:
            text = f.read()
    lines = text.split("\n")
    if lines[-1] != "":
        raise AssertionError("the last line has no newline: %r" % lines[-1][-80:])
    parsed = []
    for n, line in enumerate(lines[:-1], 1):
        try:
            parsed.append(json.loads(line))
        except ValueError as e:
            raise AssertionError("line %d does not parse (%s): ...%s" % (n, e, line[-120:]))
    return parsed


class BenchAllocJson(unittest.TestCase):
    def check_shape(self, objs):
        modes = {o["mode"] for o in objs}
        for m in ("bounce", "direct", "copy", "clear", "arena"):
            self.assertIn(m, modes)
        for o in objs:
            self.assertEqual(o["suite"], "alloc")
        arena = [o for o in objs if o["mode"] == "arena"]
        for o in arena:
            for k in ARENA_TAIL:
                self.assertIn(k, o)

    def test_measured_values_parse(self):
        objs = run()
        self.check_shape(objs)
        self.assertEqual(bench.contract_violations(objs, bench.documented_contract()), [])

    def check_breakdown(self, objs):
        seen = {(o["direction"], o["stage"]) for o in objs}
        for d in ("to_device", "bidirectional"):
            for st in STAGES + TOTALS:
                self.assertIn((d, st), seen)
        for o in objs:
            self.assertEqual((o["suite"], o["mode"], o["size"]), ("alloc", "breakdown", 4096))

    def test_breakdown_parses(self):
        objs = run("-K", binary=STAGES_BIN)
        self.check_breakdown(objs)
        self.assertEqual(bench.contract_violations(objs, bench.documented_contract()), [])
        for kind in ("max", "nan"):
            objs = run("-K", "-W", kind, binary=STAGES_BIN)
            for o in objs:
                self.assertEqual(o["direction"] in ("to_device", "bidirectional"), True)
                self.assertEqual(o["cycles_per_op"],
                                 -sys.float_info.max if kind == "max" else None)

    def test_breakdown_needs_the_stage_build(self):
        proc = subprocess.run([BIN, "-K", "-n", "200", "-r", "1"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("bench_alloc_stages", proc.stderr)

    def test_widest_values_parse(self):
        objs = run("-W", "max")
        self.check_shape(objs)
        for o in objs:
            self.assertEqual(o["ns_per_op"], -sys.float_info.max)
            self.assertEqual(o["ops"], 2 ** 64 - 1)
        for o in (o for o in objs if o["mode"] == "arena"):
            for k in ARENA_TAIL:
                self.assertEqual(o[k], -sys.float_info.max, k)

    def test_not_finite_values_are_null(self):
        for kind in ("nan", "inf"):
            objs = run("-W", kind)
            self.check_shape(objs)
            for o in objs:
                self.assertIsNone(o["ns_per_op"])
                for k in ARENA_TAIL:
                    if o["mode"] == "arena":
                        self.assertIsNone(o[k])


def header(*extra):
    """Exit status, stdout and stderr of a run of the copy cells alone at 4 KiB."""
    proc = subprocess.run([BIN, "-n", "50", "-r", "1", "-s", "4096", "-c", "1"] + list(extra),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


class BenchAllocCopyChoice(unittest.TestCase):
    """-C: the copy and the clear the port installs, and what every line says of them."""

    def impls(self, *extra):
        objs = run("-s", "4096", "-c", "1", *extra)
        self.assertTrue(objs)
        return {(o["copy_impl"], o["zero_impl"]) for o in objs}

    def test_named(self):
        self.assertEqual(self.impls("-C", "movsb"), {("movsb", "movsb")})
        self.assertEqual(self.impls("-C", "libc/movsb"), {("libc", "movsb")})

    def test_timed_by_default(self):
        rc, out, err = header()
        self.assertEqual(rc, 0, err)
        line = [x for x in out.splitlines() if "chosen by timing" in x]
        self.assertEqual(len(line), 1, out[:400])
        copy = line[0].split("bounce copy ")[1].split(",")[0]
        self.assertIn(copy, ("libc", "movsb", "avx2"))
        self.assertIn("movsb ", line[0])

    def test_avx2_only_where_it_runs(self):
        rc, out, err = header("-C", "avx2")
        avx2 = "AVX2 yes" in header()[1]
        if avx2:
            self.assertEqual(rc, 0, err)
            self.assertEqual(self.impls("-C", "avx2/movsb"), {("avx2", "movsb")})
        else:
            self.assertEqual(rc, 2)
            self.assertIn("-C avx2: unknown, or not run by this CPU", err)

    def test_unknown_refused(self):
        for bad in ("sse", "movsb/", "/movsb", "movsb/sse", "movsb/movsb/movsb", "a" * 40):
            rc, _, err = header("-C", bad)
            self.assertEqual(rc, 2, bad)
            self.assertIn("unknown, or not run by this CPU", err, bad)


if __name__ == "__main__":
    if len(sys.argv) < 3 or not all(os.access(a, os.X_OK) for a in sys.argv[1:3]):
        sys.exit("usage: test_bench_alloc_json.py BENCH_ALLOC_BINARY STAGE_BINARY [-v]")
    BIN = sys.argv.pop(1)
    STAGES_BIN = sys.argv.pop(1)
    unittest.main()
