#!/usr/bin/python3
"""bench.py - host side of Sluice's benchmark: boot, collect, summarise, check.

  bench.py run [--repeats N] [--args "k=v ..."] [--variant "k=v ..."]... [--out FILE]
               [--timeout S] [--run-qemu "OPTS"] [--command "CMD"] [--verbose]
  bench.py summarize FILE
  bench.py scaling FILE
  bench.py check FILE [--expect-modes LIST] [--expect-policies LIST]
  bench.py report FILE [--out REPORT.md] [--env ENV.json] [--host TEXT]
  bench.py contract FILE

run: boots build/sluice.efi N times (3 by default) through scripts/run-qemu.sh with the
same kernel options, keeps every serial-log line that parses as a JSON object (the
benchmark output contract: docs/BENCHMARKS.md; every other line is ignored), tags each object
with "run": k (1-based) and writes them all, one object a line, to FILE (default
build/bench/results.json). The serial log of boot k is kept beside it as
serial-run<k>.log. With --variant, every boot is followed by one more with those options
appended (`make bench`: scrub=copy, for the scrub table); boots are numbered in the order
they ran. While it runs it samples /proc (load average, CPU time of the other processes)
and writes what it saw, the command, the revision and the machine to <FILE
without .json>-env.json for the report. Then it prints the summary table. Exit status 1
if a boot failed or no JSON line was found at all; a figure's value never makes it fail.

Pinning: under TCG the figures are noisy, so with 2 or more host CPUs run-qemu.sh is
started on two CPUs (A, B) and, while QEMU runs, its vCPU threads (named "CPU n/TCG"
because QEMU gets "-name sluice,debug-threads=on") are pinned to B and every other QEMU
thread to A (sched_setaffinity, what `taskset -p` does). With several vCPUs, vCPU k goes
to B when k is even and to A when it is odd, so two vCPUs run in parallel (an idle vCPU
halts and leaves its host CPU to the others). With one CPU nothing is pinned and it
says so.

summarize: the same table from an existing results file. After the summary come the DMA
tables of the block (4 KiB, one thread) and network (1514 B) rows: the cycles the DMA layer
adds over direct (per boot, cycles_dma minus that of direct in the same boot; median over
the boots), the DMA tax (dma_tax_pct) per mode/policy, and, when the file holds boots with
another scrub= than the default, the from-device scrub compared.

report: build/bench/REPORT.md (Markdown) from a results file, its -env.json, the PNG
charts beside it and `make bench-host`'s host.txt when present.

contract: every key of every JSON line of a log or results file must be listed for the
line's suite in the contract table of docs/BENCHMARKS.md; exit 1 otherwise.

scaling: the multi-CPU table of a results file: for every row with "threads" above 1
(the multi-job block runs, "bench": "mq", and the in-guest allocator runs, suite
"alloc"), the median of the main figure with 1 CPU and with N, their ratio (the
median of the rows' own "scaling"), and the DMA-lock figures of the N-CPU rows
("lock_wait_cycles_per_map", "lock_contended_pct").

check: completeness of a results file: every block and network workload (suite "blk"
or "net" and its configuration: rw, bs, iodepth, size, threads, queues ...) must appear
in every expected mode, and for "bounce" with every expected policy; every line must
parse and carry "suite" and its suite's figures. Rows of boots with a scrub= other than
the default are a comparison, not part of the matrix. Prints what is missing; exit 1 if
anything is.

Grouping: a row's configuration is every key except the figures and "run". Figures are
the keys in FIGURES and COUNTS, any key starting with one of FIGURE_PREFIXES or ending
with one of FIGURE_SUFFIXES, and any key whose value is a non-integer number (so an
extra measured key such as "ns_max" or "nomem" never splits a configuration). "policy"
counts only for mode "bounce": a null, absent or other policy on a direct or arena row
is ignored. A workload is a configuration without "mode", "policy" and what the mode
decides (MODE_DECIDES: "copy" of blk/net/iotlb rows, the IOTLB "granule", the bounce
pool's lock count "areas" of blk and alloc rows). Ratios are
ratios of medians of the suite's main figure (MAIN_FIGURE): a row against the same
workload in mode "direct", and against mode "bounce" policy "linux".

What it is not: it does not build the image (make does) and it judges no figure.
"""
import argparse
import io
import json
import math
import os
import re
import shlex
import signal
import statistics
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import names  # noqa: E402  (the one list of each set of names)

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUT = os.path.join(TOP, "build", "bench", "results.json")
RUN_QEMU = os.path.join(TOP, "scripts", "run-qemu.sh")
PROGRESS_SECONDS = 30  # a boot line "N JSON lines so far" this often when not verbose

FIGURES = {
    "iops", "bw_mbps", "lat_mean_us", "lat_p50_us", "lat_p99_us", "fps", "gbps",
    "lookups", "misses", "ns_per_op", "cycles_per_op", "conversions", "scaling",
}
FIGURE_PREFIXES = ("cycles_", "ratio_", "lat_", "ns_", "lock_", "ops_", "dma_tax_",
                   "dma_over_direct")
# Counts a run measures rather than chooses (a fixed-time run sends as many frames as
# it can); they may differ from run to run, so they never split a configuration.
COUNTS = {"frames", "ops", "rounds", "nomem", "errors", "ios", "bytes", "lost", "bad",
          "elapsed_s", "seconds", "splits"}
FIGURE_SUFFIXES = ("_s", "_ms", "_us", "_ns", "_mbps", "_bytes")
MAIN_FIGURE = {
    "blk": "iops", "net": "fps", "iotlb": "misses",
    "convert": "cycles_per_op", "alloc": "cycles_per_op",
}
# Figures each suite's lines must carry (the output contract, docs/BENCHMARKS.md).
CONTRACT = {
    "blk": ("mode", "iops", "bw_mbps", "lat_mean_us", "lat_p50_us", "lat_p99_us"),
    "net": ("mode", "fps", "gbps"),
    "iotlb": ("mode", "lookups", "misses"),
    "convert": ("cycles_per_op",),
    "alloc": ("ns_per_op", "cycles_per_op"),
}
CHECKED_SUITES = ("blk", "net")
# Keys the DMA mode decides rather than the workload: bounce rows of the I/O suites say
# "copy": true, and the IOTLB granule is 4 KiB for bounce and 2 MiB for the arena. (In
# the alloc suite "copy" is a real axis of the workload.)
NOT_WORKLOAD = {"mode", "policy"}
MODE_DECIDES = {"blk": {"copy", "areas"}, "net": {"copy"}, "iotlb": {"copy", "granule"},
                "alloc": {"areas"}}
SUITE_ORDER = ("blk", "net", "iotlb", "convert", "alloc")
# The modes and policies, in the kernel's order, from their one list each
# (scripts/names.py); the ones this script gives a role by name.
MODE_ORDER = names.modes()
POLICY_ORDER = names.policies()
DIRECT, BOUNCE, ARENA = names.mode("DIRECT"), names.mode("BOUNCE"), names.mode("ARENA")
LINUX = names.policy("LINUX")  # the baseline of every ratio (upstream swiotlb)
KEY_ORDER = ("rw", "bs", "size", "iodepth", "threads", "queues", "entries", "assoc",
             "granule", "direction", "occupancy", "copy")
SIZE_KEYS = {"bs", "size", "granule"}
# The kernel's default scrub= (boot/options.c); rows of boots with another one are a
# comparison (the scrub table), not part of the mode/policy matrix `check` expects.
DEFAULT_SCRUB = "zero"

ANSI_RE = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")

# run-qemu.sh exit statuses (README "Exit codes").
EXIT_MEANING = {
    1: "a check inside the kernel failed", 2: "invalid options",
    3: "CPU exception", 4: "boot failed before the kernel proper",
    5: "kernel panic / abort()",
    6: "a device broke its protocol, missed its deadline or did not reset",
    124: "QEMU killed at the timeout",
    125: "QEMU ended without the kernel's exit code",
}


# ------------------------------------------------------------------ parsing

def strip_ansi(text):
    """Remove terminal escape sequences (the firmware's cursor moves and colours)."""
    return ANSI_RE.sub("", text)


def parse_line(line):
    """Return the JSON object on one serial line, or None.

    The line may carry ANSI escapes and a carriage return. A line that does not start
    with "{" is still accepted when an object holding "suite" starts later on it (the
    kernel's first line can follow firmware output that ended without a newline).
    """
    text = strip_ansi(line).strip().strip("\x00")
    if not text:
        return None
    if text.startswith("{"):
        obj = _loads_object(text)
        if obj is not None:
            return obj
    start = text.find('{"', 1)
    if start > 0:
        obj = _loads_object(text[start:])
        if obj is not None and "suite" in obj:
            return obj
    return None


def _loads_object(text):
    try:
        obj = json.loads(text)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None


def parse_log(text):
    """Every JSON object in a serial log, in order."""
    objs = []
    for line in text.splitlines():
        obj = parse_line(line)
        if obj is not None:
            objs.append(obj)
    return objs


def load_results(path):
    """Read a results file: (objects, [(line number, text) of lines that do not parse])."""
    objs, bad = [], []
    with open(path, encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            obj = _loads_object(line.strip())
            if obj is None:
                bad.append((n, line.rstrip("\n")))
            else:
                objs.append(obj)
    return objs, bad


def write_results(path, objs):
    """Write objects one a line (JSON lines), replacing the file atomically."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        for obj in objs:
            f.write(json.dumps(obj, separators=(",", ":")) + "\n")
    os.replace(tmp, path)


# ------------------------------------------------------------------ grouping

def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_figure(key, value):
    """True for a measured value, which never takes part in a configuration."""
    if key in FIGURES or key in COUNTS or key.startswith(FIGURE_PREFIXES) \
            or key.endswith(FIGURE_SUFFIXES):
        return True
    return isinstance(value, float)


def _hashable(value):
    if isinstance(value, (list, dict)):
        return json.dumps(value, sort_keys=True)
    return value


def config_of(obj):
    """The configuration of one object: a sorted tuple of (key, value) pairs. The
    bounce copy a boot timed and installed ("copy_impl") is no part of it: two boots of
    one machine may pick two copies that tie, and a table's heading names them all."""
    items = {}
    for key, value in obj.items():
        if key in ("run", "policy", "copy_impl") or is_figure(key, value):
            continue
        items[key] = _hashable(value)
    items["policy"] = obj.get("policy") if obj.get("mode") == BOUNCE else None
    return tuple(sorted(items.items(), key=lambda kv: kv[0]))


def workload_of(config):
    """The configuration without what the DMA mode decides."""
    drop = NOT_WORKLOAD | MODE_DECIDES.get(cfg_get(config, "suite"), set())
    return tuple(kv for kv in config if kv[0] not in drop)


def cfg_get(config, key):
    for k, v in config:
        if k == key:
            return v
    return None


def group_objects(objs):
    """{configuration: [objects]} in first-appearance order."""
    groups = {}
    for obj in objs:
        groups.setdefault(config_of(obj), []).append(obj)
    return groups


def stats(values):
    """(median, min, max, n) of the numeric, finite values; (None, None, None, 0) if none."""
    nums = [float(v) for v in values if is_number(v) and math.isfinite(v)]
    if not nums:
        return None, None, None, 0
    return statistics.median(nums), min(nums), max(nums), len(nums)


def main_figure(suite, objs=()):
    """The figure a suite is judged by; for an unknown suite, its first figure."""
    if suite in MAIN_FIGURE:
        return MAIN_FIGURE[suite]
    for obj in objs:
        for key, value in obj.items():
            if key != "run" and is_figure(key, value) and is_number(value):
                return key
    return None


def _rank(value, order):
    return (order.index(value), "") if value in order else (len(order), str(value))


def cell_sort_key(mode, policy):
    """Order of mode/policy cells: the modes', bounce once per policy (the lists' order)."""
    return (_rank(mode, MODE_ORDER), _rank(policy, POLICY_ORDER))


def _sort_key(config, first_seen):
    suite = cfg_get(config, "suite")
    return (_rank(suite, SUITE_ORDER), first_seen[(suite, workload_of(config))],
            _rank(cfg_get(config, "mode"), MODE_ORDER),
            _rank(cfg_get(config, "policy"), POLICY_ORDER))


def summary_rows(objs):
    """One row per configuration: median/min/max of the main figure and its ratios."""
    groups = group_objects(objs)
    first_seen = {}
    for config in groups:
        first_seen.setdefault((cfg_get(config, "suite"), workload_of(config)), len(first_seen))
    rows = []
    for config, members in groups.items():
        suite = cfg_get(config, "suite")
        figure = main_figure(suite, members)
        med, lo, hi, n = stats([m.get(figure) for m in members]) if figure else (None,) * 3 + (0,)
        rows.append({"config": config, "suite": suite, "mode": cfg_get(config, "mode"),
                     "policy": cfg_get(config, "policy"), "figure": figure,
                     "median": med, "min": lo, "max": hi, "n": n,
                     "runs": len({m.get("run") for m in members}),
                     "conversions": stats([m.get("conversions") for m in members])[0]})
    medians = {}
    for row in rows:
        key = (row["suite"], workload_of(row["config"]), row["mode"], row["policy"])
        medians.setdefault(key, []).append(row["median"])
    for row in rows:
        row["vs_direct"] = row["vs_linux"] = None
        if row["mode"] not in (BOUNCE, ARENA):
            continue
        wl = (row["suite"], workload_of(row["config"]))
        row["vs_direct"] = _ratio(row["median"], medians.get(wl + (DIRECT, None)))
        row["vs_linux"] = _ratio(row["median"], medians.get(wl + (BOUNCE, LINUX)))
    rows.sort(key=lambda r: _sort_key(r["config"], first_seen))
    return rows


def _ratio(value, bases):
    """value / base; None when the base is missing, ambiguous or zero."""
    if value is None or not bases or len(bases) != 1 or not bases[0]:
        return None
    return value / bases[0]


# ------------------------------------------------------------------ formatting

def human_size(value):
    if is_number(value) and value >= 1024 and value % 1024 == 0:
        for unit in ("K", "M", "G"):
            value //= 1024
            if value < 1024 or value % 1024:
                return f"{value}{unit}"
    return str(value)


def config_label(config):
    """Workload keys as "rw=randread bs=4K iodepth=32 ..." in a fixed order."""
    items = dict(workload_of(config))
    items.pop("suite", None)
    items.pop("accel", None)  # every table is of one accelerator and says so above
    if items.get("scrub") == DEFAULT_SCRUB:
        del items["scrub"]  # only a boot with the other scrub says so in its rows
    keys = [k for k in KEY_ORDER if k in items] + sorted(k for k in items if k not in KEY_ORDER)
    parts = []
    for key in keys:
        value = items[key]
        if value is None:
            value = "-"
        elif isinstance(value, bool):
            value = str(value).lower()
        elif key in SIZE_KEYS:
            value = human_size(value)
        parts.append(f"{key}={value}")
    return " ".join(parts)


def mode_label(mode, policy):
    if mode is None:
        return "-"
    return f"{mode}/{policy}" if policy else str(mode)


def fmt_num(value):
    if value is None:
        return "-"
    if abs(value) >= 100:
        return f"{value:.0f}"
    if abs(value) >= 1:
        return f"{value:.2f}"
    return f"{value:.3g}"


def fmt_ratio(value):
    return "-" if value is None else f"{value:.3f}"


def format_table(rows):
    """The summary as aligned text columns; a conversions column when any row has one."""
    head = ("suite", "workload", "mode", "figure", "median", "min", "max", "n",
            "vs direct", "vs bounce/linux")
    conv = any(r.get("conversions") is not None for r in rows)
    if conv:
        head += ("conversions",)
    lines = [head]
    for r in rows:
        line = (str(r["suite"]), config_label(r["config"]) or "-",
                mode_label(r["mode"], r["policy"]), str(r["figure"] or "-"),
                fmt_num(r["median"]), fmt_num(r["min"]), fmt_num(r["max"]), str(r["n"]),
                fmt_ratio(r["vs_direct"]), fmt_ratio(r["vs_linux"]))
        if conv:
            line += (fmt_num(r.get("conversions")),)
        lines.append(line)
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    numeric = set(range(4, len(head)))
    out = []
    for line in lines:
        cells = [c.rjust(w) if i in numeric else c.ljust(w)
                 for i, (c, w) in enumerate(zip(line, widths))]
        out.append("  ".join(cells).rstrip())
    out.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(out)


def by_accelerator(objs):
    """[(accelerator, objects)] in first-appearance order; "unknown" for rows without one.

    Figures taken under TCG and under KVM differ by orders of magnitude, so no table
    and no ratio ever combines them: every table is made per accelerator.
    """
    groups = {}
    for obj in objs:
        groups.setdefault(str(obj.get("accel") or "unknown"), []).append(obj)
    return list(groups.items())


def accel_heading(accel, groups):
    """The line that opens a table: which accelerator its figures come from."""
    note = "" if len(groups) == 1 else (f" (one of {len(groups)} accelerators in this file; "
                                        "each has its own table)")
    return f"accelerator: {accel.upper() if accel != 'unknown' else 'unknown'}{note}"


def copy_impl_note(objs):
    """Which bounce copy the boots installed (the "copy_impl" key), for a table heading;
    "" when no line says."""
    impls = sorted({str(o["copy_impl"]) for o in objs if o.get("copy_impl")})
    return f"bounce copy: {', '.join(impls)}" if impls else ""


def print_summary(objs, out=sys.stdout, tax=True):
    """The summary per accelerator; with @tax, each followed by its DMA-tax tables."""
    groups = by_accelerator(objs)
    for i, (accel, members) in enumerate(groups):
        if i:
            print(file=out)
        print(accel_heading(accel, groups), file=out)
        if copy_impl_note(members):
            print(copy_impl_note(members), file=out)
        print_one_summary(members, out)
        for title, what, text in tax_tables(members) if tax else ():
            print(file=out)
            print(f"{title} ({what}):", file=out)
            print(text, file=out)


def print_one_summary(objs, out=sys.stdout):
    rows = summary_rows(objs)
    runs = sorted({o.get("run") for o in objs if o.get("run") is not None})
    print(f"summary: {len(objs)} objects, {len(rows)} configurations, "
          f"{len(runs) or 1} run(s); median [min, max] over the runs", file=out)
    print("ratios: this row's median / the median of the same workload in mode direct, "
          "or in bounce/linux", file=out)
    print("        (iops, fps: above 1 is faster; misses, cycles: below 1 is cheaper); "
          "conversions: median private<->shared conversions", file=out)
    print(format_table(rows), file=out)


# ------------------------------------------------------------------ DMA tax

# Rows of the DMA tables: every configuration that adds DMA work over direct.
TAX_CELLS = [(BOUNCE, p) for p in POLICY_ORDER] + [(ARENA, None)]


def _run_of(obj):
    return obj.get("run", 0)


def tax_columns(objs):
    """Columns of the DMA tables: [(label, suite, workload)].

    The 4 KiB block workloads of one thread in first-appearance order (with their queue
    count when the file has several), then the network's 1514-byte frames; only rows of
    the default scrub that carry "cycles_dma".
    """
    cols, queues = [], set()
    for obj in objs:
        if "cycles_dma" not in obj or obj.get("scrub", DEFAULT_SCRUB) != DEFAULT_SCRUB:
            continue
        suite = obj.get("suite")
        if suite == "blk" and obj.get("bs") == 4096 and obj.get("threads", 1) == 1 \
                and "bench" not in obj:
            queues.add(obj.get("queues"))
        elif not (suite == "net" and obj.get("size") == 1514):
            continue
        wl = workload_of(config_of(obj))
        if (suite, wl) not in [(c[1], c[2]) for c in cols]:
            cols.append((None, suite, wl))
    out = []
    for _, suite, wl in sorted(cols, key=lambda c: c[1] == "net"):
        if suite == "net":
            label = "net 1514 B"
        else:
            label = f"{cfg_get(wl, 'rw')} qd{cfg_get(wl, 'iodepth')}"
            if len(queues) > 1:
                label += f" {cfg_get(wl, 'queues')}q"
        out.append((label, suite, wl))
    return out


def _by_cell_run(objs, figure):
    """{(suite, workload, mode, policy): {run: value}} of one figure."""
    table = {}
    for obj in objs:
        value = obj.get(figure)
        if not (is_number(value) and math.isfinite(value)):
            continue
        config = config_of(obj)
        key = (cfg_get(config, "suite"), workload_of(config), cfg_get(config, "mode"),
               cfg_get(config, "policy"))
        table.setdefault(key, {})[_run_of(obj)] = value
    return table


def dma_added_table(objs):
    """{(column label, (mode, policy)): median over boots of cycles_dma - direct's}.

    Each boot's figure is the line's own "dma_over_direct" where it has one (a blk line
    of several rounds: the median of each round's difference, which its median-round
    cycles_dma cannot give back), else taken against the direct row of the same
    workload in the same boot; a boot without either is left out.
    """
    per = _by_cell_run(objs, "cycles_dma")
    own = _by_cell_run(objs, "dma_over_direct")
    out = {}
    for label, suite, wl in tax_columns(objs):
        direct = per.get((suite, wl, DIRECT, None), {})
        for mode, policy in TAX_CELLS:
            mine = per.get((suite, wl, mode, policy), {})
            given = own.get((suite, wl, mode, policy), {})
            diffs = [given[run] if run in given else v - direct[run]
                     for run, v in mine.items() if run in given or run in direct]
            if diffs:
                out[(label, (mode, policy))] = statistics.median(diffs)
    return out


def dma_vs_linux_table(objs):
    """{(column label, (mode, policy)): median over boots of the cycles a bounce policy
    adds over direct divided by those bounce/linux adds, both against the direct row of
    the same workload in the same boot (the dma_over_direct_vs_linux of the lines).

    A line's own "dma_over_direct_vs_linux" is its boot's figure where it has one (a
    blk line of several rounds: the median of each round's ratio). Otherwise a boot
    without direct or bounce/linux, or whose bounce/linux adds no cycle, is left out.
    """
    per = _by_cell_run(objs, "cycles_dma")
    own = _by_cell_run(objs, "dma_over_direct_vs_linux")
    out = {}
    for label, suite, wl in tax_columns(objs):
        direct = per.get((suite, wl, DIRECT, None), {})
        linux = per.get((suite, wl, BOUNCE, LINUX), {})
        base = {run: v - direct[run] for run, v in linux.items() if run in direct}
        for policy in POLICY_ORDER:
            mine = per.get((suite, wl, BOUNCE, policy), {})
            given = own.get((suite, wl, BOUNCE, policy), {})
            ratios = [given[run] if run in given else (v - direct[run]) / base[run]
                      for run, v in mine.items() if run in given or base.get(run, 0) > 0]
            if ratios:
                out[(label, (BOUNCE, policy))] = statistics.median(ratios)
    return out


def dma_tax_table(objs):
    """{(column label, (mode, policy)): median over boots of dma_tax_pct}, direct included."""
    per = _by_cell_run(objs, "dma_tax_pct")
    out = {}
    for label, suite, wl in tax_columns(objs):
        for mode, policy in [(DIRECT, None)] + TAX_CELLS:
            values = list(per.get((suite, wl, mode, policy), {}).values())
            if values:
                out[(label, (mode, policy))] = statistics.median(values)
    return out


def markdown_table(head, rows, text_columns=(0,)):
    """A Markdown table (it reads as an aligned text table on a console too); the
    columns in text_columns are aligned left, the others (figures) right."""
    lines = [head] + rows
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]

    def fmt(line):
        return "| " + " | ".join(c.ljust(w) if i in text_columns else c.rjust(w)
                                 for i, (c, w) in enumerate(zip(line, widths))) + " |"
    return "\n".join([fmt(head), "| " + " | ".join("-" * w for w in widths) + " |"]
                     + [fmt(r) for r in rows])


# More workloads than this (the full block set: 12 at 4 KiB, with 1 and 2 queues) and a
# DMA table gets one row per workload and one column per mode/policy instead.
TAX_MAX_COLUMNS = 8


def _cell_table(objs, table, cells, fmt):
    """Rows mode/policy, columns workloads; transposed past TAX_MAX_COLUMNS workloads."""
    columns = [c[0] for c in tax_columns(objs)]
    cells = [c for c in cells if any((col, c) in table for col in columns)]
    if not cells:
        return ""
    if len(columns) > TAX_MAX_COLUMNS:
        return markdown_table(["workload"] + [mode_label(*c) for c in cells],
                              [[col] + [fmt(table.get((col, c))) for c in cells]
                               for col in columns])
    return markdown_table(["mode/policy"] + columns,
                          [[mode_label(*c)] + [fmt(table.get((col, c))) for col in columns]
                           for c in cells])


def scrub_rows(objs):
    """The from-device scrub compared: one row per bounce policy and block workload of
    one thread that ran with the default scrub and with another one.

    Return [(policy, workload, other scrub, {scrub: (cycles_copy, cycles_dma, iops)})]:
    medians over the boots of each scrub.
    """
    groups = {}
    for obj in objs:
        if obj.get("suite") != "blk" or obj.get("mode") != BOUNCE or "bench" in obj \
                or obj.get("threads", 1) != 1 or "scrub" not in obj:
            continue
        wl = tuple(kv for kv in workload_of(config_of(obj)) if kv[0] != "scrub")
        groups.setdefault((obj.get("policy"), wl), {}).setdefault(obj["scrub"], []).append(obj)
    rows = []
    for (policy, wl), by_scrub in groups.items():
        others = [k for k in by_scrub if k != DEFAULT_SCRUB]
        if DEFAULT_SCRUB not in by_scrub or not others:
            continue
        figs = {k: tuple(stats([m.get(f) for m in members])[0]
                         for f in ("cycles_copy", "cycles_dma", "iops"))
                for k, members in by_scrub.items()}
        for other in others:
            rows.append((policy, wl, other, figs))
    rows.sort(key=lambda r: (_rank(r[0], POLICY_ORDER), config_label(r[1])))
    return rows


def format_scrub(rows):
    if not rows:
        return ""
    out, others = [], sorted({r[2] for r in rows})
    for policy, wl, other, figs in rows:
        mine, base = figs[other], figs[DEFAULT_SCRUB]
        out.append([f"bounce/{policy} {config_label(wl)}"]
                   + ([other] if len(others) > 1 else [])
                   + [fmt_num(mine[0]), fmt_num(base[0]), fmt_num(mine[1]), fmt_num(base[1]),
                      fmt_ratio(_ratio(base[1], [mine[1]])), fmt_num(mine[2]),
                      fmt_num(base[2])])
    o, d = (others[0] if len(others) == 1 else "other"), DEFAULT_SCRUB
    head = (["workload"] + (["scrub"] if len(others) > 1 else [])
            + [f"copy cycles {o}", f"copy cycles {d}", f"DMA cycles {o}", f"DMA cycles {d}",
               f"DMA {d}/{o}", f"IOPS {o}", f"IOPS {d}"])
    return markdown_table(head, out)


def tax_tables(objs):
    """[(heading, what it shows, table)] of the DMA-tax tables a set of rows (one
    accelerator) allows."""
    out = []
    added = _cell_table(objs, dma_added_table(objs), TAX_CELLS, fmt_num)
    if added:
        out.append(("cycles the DMA layer adds per 4 KiB I/O over direct",
                    "net: per 1514-byte frame; median over the boots of cycles_dma minus "
                    "that of direct in the same boot", added))
    vs_linux = _cell_table(objs, dma_vs_linux_table(objs),
                           [(BOUNCE, p) for p in POLICY_ORDER], fmt_ratio)
    if vs_linux:
        out.append(("bounce DMA cycles over direct against bounce/linux's",
                    "per boot: (cycles_dma - direct's) / (bounce/linux's - direct's), same "
                    "workload, same boot; median over the boots; below 1 adds less", vs_linux))
    tax = _cell_table(objs, dma_tax_table(objs), [(DIRECT, None)] + TAX_CELLS,
                      lambda v: "-" if v is None else f"{v:.1f} %")
    if tax:
        out.append(("DMA tax", "the share of the guest cycles per I/O (frame) spent in the "
                    "DMA layer, dma_tax_pct, median over the boots", tax))
    scrub = format_scrub(scrub_rows(objs))
    if scrub:
        out.append(("from-device scrub", f"scrub=copy (Linux's) against the default "
                    f"scrub={DEFAULT_SCRUB}: cycles per I/O and IOPS, medians over the boots "
                    "of each", scrub))
    return out


# ------------------------------------------------------------------ check

def check_results(objs, bad_lines, modes, policies):
    """Problems found in a results file, as readable strings (empty when complete)."""
    problems = [f"line {n} does not parse as a JSON object: {text[:80]!r}"
                for n, text in bad_lines]
    for i, obj in enumerate(objs, 1):
        problems += [f"object {i}: {p}" for p in contract_problems(obj)]
    problems += over_direct_problems(objs)
    cells = expected_cells(modes, policies)
    workloads = {}
    for obj in objs:
        if obj.get("suite") in CHECKED_SUITES and obj.get("scrub", DEFAULT_SCRUB) == DEFAULT_SCRUB:
            config = config_of(obj)
            workloads.setdefault(workload_of(config), set()).add(
                (cfg_get(config, "mode"), cfg_get(config, "policy")))
    if not workloads:
        problems.append("no blk or net workload found")
    for workload, seen in workloads.items():
        missing = [mode_label(m, p) for m, p in cells if (m, p) not in seen]
        if missing:
            problems.append(f"missing {cfg_get(workload, 'suite')} {config_label(workload)}: "
                            + ", ".join(missing))
    return problems, len(workloads), len(cells)


def _same_boot_blk(objs):
    """{(run, workload): {(mode, policy): line}} of the single-CPU blk lines."""
    groups = {}
    for obj in objs:
        if obj.get("suite") != "blk" or "bench" in obj:
            continue
        key = (obj.get("run"), obj.get("scrub"), obj.get("queues"), obj.get("rw"),
               obj.get("bs"), obj.get("iodepth"))
        groups.setdefault(key, {})[(obj.get("mode"), obj.get("policy"))] = obj
    return groups


def _finite(obj, key):
    return is_number(obj.get(key)) and math.isfinite(obj[key])


def over_direct_problems(objs):
    """Readable problems of the bounce blk lines' "dma_over_direct" (cycles_dma minus
    direct's, same workload, same boot), "dma_over_direct_vs_linux" (that over
    bounce/linux's) and "copy_floor_vs_linux" (the line's cycles_copy over bounce/linux's
    figure): missing where the boot ran direct (and bounce/linux adding cycles), or, in
    a line of one round, not the difference (the ratio) of the lines' own cycles. A line
    of several rounds ("rounds" > 1) carries medians of each round's own figures, which
    the lines' median-round cycles do not give back (tests/e2e/bench_smoke.sh checks
    them against the round lines): only their presence is checked."""
    out = []
    for (run, _, queues, rw, bs, iodepth), cells in _same_boot_blk(objs).items():
        direct = cells.get((DIRECT, None))
        if direct is None or not _finite(direct, "cycles_dma"):
            continue
        where = f"blk rw={rw} bs={bs} iodepth={iodepth} queues={queues} run={run}"
        linux = cells.get((BOUNCE, LINUX))
        base = None
        if linux is not None and _finite(linux, "cycles_dma"):
            base = linux["cycles_dma"] - direct["cycles_dma"]
        for (mode, policy), obj in cells.items():
            if mode != BOUNCE or not _finite(obj, "cycles_dma"):
                continue
            over = obj["cycles_dma"] - direct["cycles_dma"]
            rounds = any(_finite(o, "rounds") and o["rounds"] > 1
                         for o in (obj, direct, linux) if o is not None)
            if not _finite(obj, "dma_over_direct"):
                out.append(f'{where} bounce/{policy} lacks "dma_over_direct"')
            elif not rounds and abs(obj["dma_over_direct"] - over) > 1.5:  # rounded to 1
                out.append(f'{where} bounce/{policy} has "dma_over_direct": '
                           f'{obj["dma_over_direct"]}, not cycles_dma - direct\'s = {over:g}')
            if base is None or (base < 1 and not rounds):
                continue
            if not _finite(obj, "dma_over_direct_vs_linux"):
                if not rounds:  # with rounds: present when some round's linux added cycles
                    out.append(f'{where} bounce/{policy} lacks "dma_over_direct_vs_linux"')
            elif not rounds and base >= 100 and \
                    abs(obj["dma_over_direct_vs_linux"] - over / base) > 0.01 + 3 / base:
                out.append(f'{where} bounce/{policy} has "dma_over_direct_vs_linux": '
                           f'{obj["dma_over_direct_vs_linux"]}, not {over / base:.3f}')
            # The floor under that ratio: the line's own copy cycles over linux's figure.
            if not _finite(obj, "copy_floor_vs_linux"):
                if not rounds or _finite(obj, "dma_over_direct_vs_linux"):
                    out.append(f'{where} bounce/{policy} lacks "copy_floor_vs_linux"')
            elif not rounds and base >= 100 and _finite(obj, "cycles_copy") and \
                    abs(obj["copy_floor_vs_linux"] - obj["cycles_copy"] / base) > 0.01 + 3 / base:
                out.append(f'{where} bounce/{policy} has "copy_floor_vs_linux": '
                           f'{obj["copy_floor_vs_linux"]}, not '
                           f'{obj["cycles_copy"] / base:.3f}')
    return out


def contract_problems(obj):
    suite = obj.get("suite")
    if not isinstance(suite, str) or not suite:
        return ['no "suite"']
    out = []
    for key in CONTRACT.get(suite, ()):
        if key not in obj:
            out.append(f'{suite} line lacks "{key}"')
        elif key != "mode" and not (is_number(obj[key]) and math.isfinite(obj[key])):
            out.append(f'{suite} line has "{key}": {obj[key]!r}, not a number')
    return out


def expected_cells(modes, policies):
    cells = []
    for mode in modes:
        if mode == BOUNCE:
            cells += [(BOUNCE, p) for p in policies]
        else:
            cells.append((mode, None))
    return cells


# ------------------------------------------------------------------ contract

CONTRACT_DOC = os.path.join(TOP, "docs", "BENCHMARKS.md")
CONTRACT_HEADING = "## The benchmark output contract"
# What "all" stands for in the table's suites column: every suite of the guest.
GUEST_SUITES = ("blk", "mq", "net", "iotlb", "convert", "alloc (guest)")
CONTRACT_ROW_RE = re.compile(r"^\| `([a-z0-9_]+)` \|[^|]*\|([^|]*)\|")


def documented_contract(path=CONTRACT_DOC):
    """{key: {suite, ...}} from the contract table of docs/BENCHMARKS.md; {} if none."""
    keys, inside = {}, False
    for line in _read(path).splitlines():
        if line.startswith("## "):
            inside = line.strip() == CONTRACT_HEADING
            continue
        m = CONTRACT_ROW_RE.match(line) if inside else None
        if m:
            suites = {x.strip() for x in m.group(2).split(",") if x.strip()}
            if "all" in suites:
                suites = (suites - {"all"}) | set(GUEST_SUITES)
            keys[m.group(1)] = suites
    return keys


def line_suite(obj):
    """The suite a line belongs to in the contract table."""
    suite = obj.get("suite")
    if suite == "blk" and obj.get("bench") == "mq":
        return "mq"
    if suite == "alloc":
        return "alloc (guest)" if "accel" in obj else "alloc (host)"
    return suite


def contract_violations(objs, contract):
    """Readable problems: keys of a line that the contract does not list for its suite."""
    seen = set()
    for obj in objs:
        suite = line_suite(obj)
        for key in obj:
            if suite not in contract.get(key, ()):
                seen.add((str(suite), key))
    return [f'{suite} line carries "{key}", not documented for {suite} in the contract '
            f"table ({os.path.relpath(CONTRACT_DOC, TOP)}, \"{CONTRACT_HEADING[3:]}\")"
            for suite, key in sorted(seen)]


def cmd_contract(opts):
    contract = documented_contract()
    if not contract:
        print(f"contract: no contract table under '{CONTRACT_HEADING}' in {CONTRACT_DOC}",
              file=sys.stderr)
        return 1
    with open(opts.file, encoding="utf-8", errors="replace") as f:
        objs = parse_log(f.read())
    if not objs:
        print(f"contract: no JSON line in {opts.file}", file=sys.stderr)
        return 1
    problems = contract_violations(objs, contract)
    for p in problems:
        print(f"contract: {p}")
    if problems:
        return 1
    print(f"contract: {len(objs)} lines of {opts.file}: every key is in the contract "
          f"({len(contract)} keys)")
    return 0


# ------------------------------------------------------------------ pinning

def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def descendants(pid):
    """Process ids of every descendant of pid (from /proc/*/stat)."""
    children = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        stat = _read(f"/proc/{name}/stat")
        if ")" in stat:
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(name))
    found, stack = [], [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


def find_qemu(root):
    for pid in descendants(root):
        if _read(f"/proc/{pid}/comm").startswith("qemu-system"):
            return pid
    return None


def qemu_threads(pid):
    """[(tid, name)] of a process's threads."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    return [(int(t), _read(f"/proc/{pid}/task/{t}/comm").strip()) for t in tids]


VCPU_RE = re.compile(r"^CPU (\d+)/")


class Pinner(threading.Thread):
    """Keeps QEMU's vCPU threads on one host CPU and its other threads on another.

    It polls, because QEMU creates threads after start-up (a new worker inherits the
    main loop's CPU, but re-checking is cheap and catches anything else).
    """

    def __init__(self, root, other_cpu, vcpu_cpu):
        super().__init__(daemon=True)
        self.root, self.other_cpu, self.vcpu_cpu = root, other_cpu, vcpu_cpu
        self.stop = threading.Event()
        self.qemu = None
        self.vcpus, self.others = {}, set()

    def run(self):
        start = time.monotonic()
        while not self.stop.is_set():
            if self.qemu is None:
                self.qemu = find_qemu(self.root)
            if self.qemu is not None:
                self.pin_once()
            self.stop.wait(0.2 if time.monotonic() - start < 20 else 1.0)

    def pin_once(self):
        for tid, name in qemu_threads(self.qemu):
            m = VCPU_RE.match(name)
            vcpu = bool(m)
            want = self.other_cpu
            if vcpu:
                want = self.vcpu_cpu if int(m.group(1)) % 2 == 0 else self.other_cpu
            try:
                if os.sched_getaffinity(tid) != {want}:
                    os.sched_setaffinity(tid, {want})
            except OSError:
                continue  # the thread ended meanwhile
            if vcpu:
                self.vcpus[tid] = name
            else:
                self.others.add(tid)

    def report(self):
        if self.qemu is None:
            return "pinning: no QEMU process found under run-qemu.sh; nothing pinned"
        if not self.vcpus:
            return (f"pinning: QEMU pid {self.qemu}: no thread named 'CPU n/...' found; "
                    f"all {len(self.others)} QEMU threads were put on CPU {self.other_cpu}")
        names = ", ".join(f"'{n}' (tid {t})" for t, n in sorted(self.vcpus.items()))
        return (f"pinning: QEMU pid {self.qemu}: vCPU thread(s) {names}: even-numbered on "
                f"host CPU {self.vcpu_cpu}, odd-numbered on {self.other_cpu}; "
                f"{len(self.others)} other QEMU thread(s) on CPU {self.other_cpu}")


def pick_cpus():
    """(other_cpu, vcpu_cpu) from the CPUs this process may use, or None with one CPU."""
    cpus = sorted(os.sched_getaffinity(0))
    return (cpus[0], cpus[1]) if len(cpus) >= 2 else None


# ------------------------------------------------------------------ run

def boot_once(k, opts, log):
    """Boot once; return (status, objects tagged with run k, pinning report, last lines)."""
    cmd = [opts.run_qemu_script, "--args", opts.args, "--log", log,
           "--timeout", str(opts.timeout)] + shlex.split(opts.run_qemu)
    cmd += ["--", "-name", "sluice,debug-threads=on"]
    cpus = pick_cpus()
    preexec = (lambda: os.sched_setaffinity(0, set(cpus))) if cpus else None
    if os.path.exists(log):
        os.remove(log)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, preexec_fn=preexec)
    pinner = None
    if cpus:
        pinner = Pinner(proc.pid, *cpus)
        pinner.start()
    tail, found, start = [], 0, time.monotonic()
    last = start
    for raw in proc.stdout:
        line = raw.decode("utf-8", "replace").rstrip("\n")
        if opts.verbose:
            print(line, flush=True)
        tail = (tail + [line])[-15:]
        found += parse_line(line) is not None
        if not opts.verbose and time.monotonic() - last >= PROGRESS_SECONDS:
            last = time.monotonic()
            print(f"bench: run {k}: {found} JSON lines so far, {last - start:.0f} s",
                  flush=True)
    status = proc.wait()
    if pinner:
        pinner.stop.set()
        pinner.join()
        report = pinner.report()
    else:
        report = "pinning: only one host CPU available; QEMU not pinned (figures are noisier)"
    text = _read(log)
    objs = [dict(obj, run=k) for obj in parse_log(text)]
    return status, objs, report, [line for line in tail if parse_line(line) is None]


def boot_plan(opts):
    """[(kernel options, what the boot is)]: per repeat, the main boot, then one boot per
    --variant (its options appended, so they win)."""
    variants = [v.strip() for v in opts.variant if v.strip()]
    plan = []
    for _ in range(opts.repeats):
        plan.append((opts.args, "main"))
        plan += [(f"{opts.args} {v}", f"variant '{v}'") for v in variants]
    return plan


def cmd_run(opts):
    out = opts.out
    logdir = os.path.dirname(os.path.abspath(out))
    os.makedirs(logdir, exist_ok=True)
    results, failed = [], False
    plan = boot_plan(opts)
    env = run_env_start(opts, plan)
    sampler = LoadSampler(os.getpid())
    sampler.start()
    print(f"bench: {opts.repeats} boot(s), kernel options '{opts.args}', timeout "
          f"{opts.timeout}s each, results to {out}", flush=True)
    for k, (args, what) in enumerate(plan, 1):
        log = os.path.join(logdir, f"serial-run{k}.log")
        start = time.monotonic()
        if what != "main":
            print(f"bench: run {k}/{len(plan)}: {what}", flush=True)
        status, objs, report, tail = boot_once(k, argparse.Namespace(**dict(
            vars(opts), args=args)), log)
        results += objs
        write_results(out, results)
        secs = time.monotonic() - start
        print(f"bench: run {k}/{len(plan)}: {report}")
        print(f"bench: run {k}/{len(plan)}: exit {status}, {len(objs)} JSON lines, "
              f"{secs:.0f} s, serial log {log}", flush=True)
        if status != 0:
            if not opts.verbose:
                print("\n".join("  | " + line for line in tail))
            meaning = EXIT_MEANING.get(status, "unexpected status")
            print(f"bench: run {k} FAILED: run-qemu.sh exit {status} ({meaning}); "
                  f"stopping", file=sys.stderr)
            failed = True
            break
    sampler.stop.set()
    sampler.join()
    run_env_finish(env, sampler, failed)
    write_json(env_path(out), env)
    print(f"bench: {len(results)} objects written to {out}; the machine during the run: "
          f"{env_path(out)}")
    if results:
        print()
        print_summary(results)
    if not results:
        print("bench: no JSON line found in any serial log", file=sys.stderr)
        return 1
    return 1 if failed else 0


# ------------------------------------------------------------------ the machine

ENV_SAMPLE_SECONDS = 5  # how often the other processes' CPU time is sampled
TOP_PROCESSES = 5


def env_path(results):
    """The environment file of a results file: build/bench/results-env.json."""
    return os.path.splitext(results)[0] + "-env.json"


def write_json(path, obj):
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(path + ".tmp", path)


def loadavg():
    """The 1, 5 and 15-minute load averages, or None."""
    parts = _read("/proc/loadavg").split()
    return [float(x) for x in parts[:3]] if len(parts) >= 3 else None


def cpu_model():
    for line in _read("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown"


def _command_output(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=20,
                              cwd=TOP).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def git_revision():
    rev = _command_output(["git", "rev-parse", "--short", "HEAD"]) or "unknown"
    dirty = _command_output(["git", "status", "--porcelain", "--untracked-files=no"])
    return rev + ("-dirty" if dirty else "")


def proc_cpu_ticks():
    """{pid: (utime + stime clock ticks, comm)} of every process now."""
    out = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        stat = _read(f"/proc/{name}/stat")
        if ")" not in stat:
            continue
        comm = stat[stat.find("(") + 1:stat.rfind(")")]
        fields = stat.rsplit(")", 1)[1].split()
        try:
            out[int(name)] = (int(fields[11]) + int(fields[12]), comm)
        except (IndexError, ValueError):
            continue
    return out


def machine_busy_ticks():
    """Clock ticks all CPUs spent busy since boot (/proc/stat: all but idle and iowait)."""
    for line in _read("/proc/stat").splitlines():
        if line.startswith("cpu "):
            v = [int(x) for x in line.split()[1:]]
            return sum(v[:8]) - v[3] - (v[4] if len(v) > 4 else 0)
    return 0


class LoadSampler(threading.Thread):
    """What else ran on the machine during a run, sampled from /proc every
    ENV_SAMPLE_SECONDS: the CPU time of every process that is not this one or its
    children (QEMU), by command name; the machine's busy time; the load average.

    A process that starts and ends between two samples is not seen by name (the
    machine's busy time still counts it).
    """

    def __init__(self, root):
        super().__init__(daemon=True)
        self.root = root
        self.stop = threading.Event()
        self.first = proc_cpu_ticks()
        self.last = dict(self.first)
        self.cmdline = {}
        self.ours = {root}
        self.load_max = loadavg()
        self.busy0 = machine_busy_ticks()
        self.busy = 0
        self.start_time = time.monotonic()
        self.seconds = 0.0

    def sample(self):
        self.ours.update(descendants(self.root))
        now = proc_cpu_ticks()
        for pid, (ticks, comm) in now.items():
            if pid not in self.cmdline and ticks > self.first.get(pid, (0, comm))[0]:
                self.cmdline[pid] = _read(f"/proc/{pid}/cmdline").replace("\0", " ").strip()
        self.last.update(now)
        load = loadavg()
        if load and self.load_max:
            self.load_max = [max(a, b) for a, b in zip(self.load_max, load)]
        self.busy = machine_busy_ticks() - self.busy0
        self.seconds = time.monotonic() - self.start_time

    def run(self):
        while not self.stop.wait(ENV_SAMPLE_SECONDS):
            self.sample()
        self.sample()

    def used(self):
        """{pid: (cpu seconds in the run, comm)} of every process seen using CPU."""
        hz = os.sysconf("SC_CLK_TCK")
        out = {}
        for pid, (ticks, comm) in self.last.items():
            used = (ticks - self.first.get(pid, (0, comm))[0]) / hz
            if used > 0:
                out[pid] = (used, comm)
        return out

    def top(self, n=TOP_PROCESSES):
        """[(cpu seconds, processes, comm, a command line)] of the busiest other
        commands, their processes added up."""
        by_comm = {}
        for pid, (used, comm) in self.used().items():
            if pid in self.ours:
                continue
            entry = by_comm.setdefault(comm, [0.0, 0, ""])
            entry[0] += used
            entry[1] += 1
            entry[2] = entry[2] or self.cmdline.get(pid, "")
        busy = sorted(((u, k, c, cmd[:100]) for c, (u, k, cmd) in by_comm.items()), reverse=True)
        return busy[:n]

    def cpu_seconds(self):
        """(machine busy, ours) CPU seconds during the run."""
        hz = os.sysconf("SC_CLK_TCK")
        ours = sum(u for pid, (u, _) in self.used().items() if pid in self.ours)
        return self.busy / hz, ours


def run_env_start(opts, plan):
    return {
        "command": opts.command or "scripts/bench.py " + " ".join(
            shlex.quote(a) for a in sys.argv[1:]),
        "bench_py": "scripts/bench.py run --repeats %d --args %s%s" % (
            opts.repeats, shlex.quote(opts.args),
            "".join(f" --variant {shlex.quote(v)}" for v in opts.variant if v.strip())),
        "boots": [{"run": k, "args": args, "what": what} for k, (args, what) in
                  enumerate(plan, 1)],
        "git": git_revision(),
        "date_start": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "cpu_model": cpu_model(),
        "cpus": os.cpu_count(),
        "cpus_usable": len(os.sched_getaffinity(0)),
        "qemu": _command_output(["qemu-system-x86_64", "--version"]).split("\n")[0],
        "load_before": loadavg(),
    }


def run_env_finish(env, sampler, failed):
    env["date_end"] = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    env["load_after"] = loadavg()
    env["load_max"] = sampler.load_max
    env["seconds"] = round(sampler.seconds, 1)
    env["failed"] = failed
    env["other_processes"] = [
        {"cpu_seconds": round(used, 1), "cpu_pct": round(100 * used / sampler.seconds, 1)
         if sampler.seconds else None, "processes": count, "comm": comm, "cmdline": cmd}
        for used, count, comm, cmd in sampler.top()]
    busy, ours = sampler.cpu_seconds()
    env["cpu_seconds_busy"] = round(busy, 1)
    env["cpu_seconds_ours"] = round(ours, 1)


# ------------------------------------------------------------------ report

def _code(text):
    return "```\n" + text.rstrip("\n") + "\n```\n"


def _fmt_load(load):
    return " / ".join(f"{x:.2f}" for x in load) if load else "unknown"


def report_text(objs, env, charts, host=None):
    """REPORT.md: how the run was made, on what, with what else running, and its tables."""
    accels = sorted({str(o.get("accel") or "unknown") for o in objs})
    out = ["# Sluice benchmark report", ""]
    if env:
        out += [f"- command: `{env.get('command')}`",
                f"- boots: `{env.get('bench_py')}`",
                f"- revision: {env.get('git')}",
                f"- date: {env.get('date_start')} to {env.get('date_end')} "
                f"({env.get('seconds')} s)",
                f"- accelerator: {', '.join(accels)} (from the JSON lines)",
                f"- {copy_impl_note(objs) or 'bounce copy: not reported'} (from the JSON lines)",
                f"- machine: {env.get('cpu_model')}, {env.get('cpus')} CPUs "
                f"({env.get('cpus_usable')} usable by the run); {env.get('qemu') or 'QEMU ?'}",
                f"- load average (1/5/15 min): before {_fmt_load(env.get('load_before'))}, "
                f"after {_fmt_load(env.get('load_after'))}, highest seen "
                f"{_fmt_load(env.get('load_max'))}"]
        if env.get("failed"):
            out.append("- **a boot failed**: the tables hold what ran before it")
        if env.get("cpu_seconds_busy") is not None and env.get("seconds"):
            busy, ours = env["cpu_seconds_busy"], env.get("cpu_seconds_ours", 0)
            total = env["seconds"] * (env.get("cpus") or 1)
            out.append(f"- CPU time during the run: {busy:.0f} s busy of {total:.0f} s "
                       f"({env.get('cpus')} CPUs), of which QEMU and this script "
                       f"{ours:.0f} s; everything else about {max(busy - ours, 0):.0f} s "
                       f"({100 * max(busy - ours, 0) / total:.0f} % of the machine)")
        others = env.get("other_processes") or []
        out += ["", "The busiest other commands during the run (CPU time of their "
                    f"processes added up; /proc sampled every {ENV_SAMPLE_SECONDS} s):", ""]
        if others:
            out.append(markdown_table(
                ["command", "processes", "CPU s", "% of one CPU", "a command line"],
                [[p["comm"], str(p.get("processes", 1)), f"{p['cpu_seconds']:.1f}",
                  "-" if p["cpu_pct"] is None else f"{p['cpu_pct']:.1f}",
                  p["cmdline"].replace("|", "\\|") or "-"] for p in others],
                text_columns=(0, 4)))
        else:
            out.append("none seen using CPU time")
    else:
        out += [f"- accelerator: {', '.join(accels)} (from the JSON lines)",
                "- no environment file: command, machine and load unknown"]
    out += ["", "## Summary", ""]
    summary = io_capture(print_summary, objs, tax=False)
    out.append(_code(summary))
    scaling = [r for _, members in by_accelerator(objs) for r in scaling_rows(members)]
    if scaling:
        out += ["## 1 CPU against N CPUs", "", _code(format_scaling(scaling))]
    for accel, members in by_accelerator(objs):
        for title, what, table in tax_tables(members):
            out += [f"## {title[0].upper()}{title[1:]} ({accel})", "", what[0].upper() + what[1:]
                    + ".", "", table, ""]
    if charts:
        out += ["## Charts", ""] + [f"- [{c}]({c})" for c in charts] + [""]
    if host:
        out += ["## Host benchmark (`make bench-host`)", "", _code(host)]
    return "\n".join(out).rstrip("\n") + "\n"


def io_capture(fn, *args, **kwargs):
    buf = io.StringIO()
    fn(*args, out=buf, **kwargs)
    return buf.getvalue()


def cmd_report(opts):
    objs, bad = load_results(opts.file)
    if not objs:
        print(f"report: no JSON object in {opts.file}", file=sys.stderr)
        return 1
    outdir = os.path.dirname(os.path.abspath(opts.file))
    out = opts.out or os.path.join(outdir, "REPORT.md")
    env = None
    env_file = opts.env or env_path(opts.file)
    if os.path.exists(env_file):
        with open(env_file, encoding="utf-8") as f:
            env = json.load(f)
    host_file = opts.host or os.path.join(outdir, "host.txt")
    host = _read(host_file) if os.path.exists(host_file) else None
    reportdir = os.path.dirname(os.path.abspath(out))
    charts = sorted(os.path.relpath(os.path.join(outdir, n), reportdir)
                    for n in os.listdir(outdir) if n.endswith(".png"))
    with open(out + ".tmp", "w", encoding="utf-8") as f:
        f.write(report_text(objs, env, charts, host))
    os.replace(out + ".tmp", out)
    print(f"report: wrote {out}")
    return 0


def cmd_summarize(opts):
    objs, bad = load_results(opts.file)
    if bad:
        print(f"summarize: {len(bad)} line(s) of {opts.file} do not parse; ignored",
              file=sys.stderr)
    if not objs:
        print(f"summarize: no JSON object in {opts.file}", file=sys.stderr)
        return 1
    print_summary(objs)
    return 0


def scaling_rows(objs):
    """Rows of the scaling table: one per (suite, workload, mode, policy) with N > 1."""
    groups = group_objects(objs)
    by_key = {}
    for config, members in groups.items():
        threads = cfg_get(config, "threads")
        if not is_number(threads):
            continue
        suite = cfg_get(config, "suite")
        wl = tuple(kv for kv in workload_of(config) if kv[0] not in ("threads", "queues"))
        key = (suite, wl, cfg_get(config, "mode"), cfg_get(config, "policy"))
        by_key.setdefault(key, {})[threads] = members
    rows = []
    for (suite, wl, mode, policy), per_threads in by_key.items():
        many = [t for t in per_threads if t > 1]
        if 1 not in per_threads or not many:
            continue
        n = max(many)
        figure = main_figure(suite, per_threads[n])
        one_members, n_members = per_threads[1], per_threads[n]
        rows.append({
            "suite": suite, "workload": wl, "mode": mode, "policy": policy,
            "figure": figure, "threads": n,
            "one": stats([m.get(figure) for m in one_members])[0],
            "many": stats([m.get(figure) for m in n_members])[0],
            "scaling": stats([m.get("scaling") for m in n_members])[0],
            "wait_one": stats([m.get("lock_wait_cycles_per_map") for m in one_members])[0],
            "wait_many": stats([m.get("lock_wait_cycles_per_map") for m in n_members])[0],
            "contended": stats([m.get("lock_contended_pct") for m in n_members])[0],
            "runs": len({m.get("run") for m in n_members}),
        })
    rows.sort(key=lambda r: (_rank(r["suite"], SUITE_ORDER), str(r["workload"]),
                             cell_sort_key(r["mode"], r["policy"])))
    return rows


def format_scaling(rows):
    head = ("suite", "workload", "mode", "figure", "1 CPU", "N CPUs", "N", "scaling",
            "lock wait/map 1", "lock wait/map N", "contended % N", "runs")
    lines = [head]
    for r in rows:
        label = config_label(r["workload"]) or "-"
        lines.append((str(r["suite"]), label, mode_label(r["mode"], r["policy"]),
                      str(r["figure"]), fmt_num(r["one"]), fmt_num(r["many"]),
                      str(r["threads"]), fmt_ratio(r["scaling"]), fmt_num(r["wait_one"]),
                      fmt_num(r["wait_many"]), fmt_num(r["contended"]), str(r["runs"])))
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    out = []
    for line in lines:
        out.append("  ".join(c.rjust(w) if i >= 4 else c.ljust(w)
                             for i, (c, w) in enumerate(zip(line, widths))).rstrip())
    out.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(out)


def cmd_scaling(opts):
    objs, _ = load_results(opts.file)
    rows = scaling_rows(objs)
    if not rows:
        print(f"scaling: no rows with 1 and more CPUs in {opts.file}", file=sys.stderr)
        return 1
    print("scaling: median over the runs; scaling = N-CPU figure / 1-CPU figure of the "
          "same boot (median of the rows' own ratios); lock figures: the DMA layer's "
          "spinlocks, cycles waited per 4 KiB mapping")
    groups = by_accelerator(objs)
    for i, (accel, members) in enumerate(groups):
        part = scaling_rows(members)
        if not part:
            continue
        if i:
            print()
        print(accel_heading(accel, groups))
        print(format_scaling(part))
    return 0


def split_list(text):
    return [item.strip() for item in text.split(",") if item.strip()]


def cmd_check(opts):
    objs, bad = load_results(opts.file)
    modes, policies = split_list(opts.expect_modes), split_list(opts.expect_policies)
    problems, n_workloads, n_cells = check_results(objs, bad, modes, policies)
    for p in problems:
        print(f"check: {p}")
    if problems:
        print(f"check: {opts.file}: {len(problems)} problem(s)")
        return 1
    print(f"check: {opts.file}: {len(objs)} lines parse and carry the contract keys; "
          f"{n_workloads} blk/net workloads x {n_cells} mode/policy cells all present")
    return 0


def parse_args(argv):
    p = argparse.ArgumentParser(prog="bench.py", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="boot N times, collect the JSON lines, summarise")
    r.add_argument("--repeats", type=int, default=3, help="boots (default 3)")
    r.add_argument("--args", default="", help="kernel options, 'k=v ...'")
    r.add_argument("--out", default=DEFAULT_OUT, help="results file (JSON lines)")
    r.add_argument("--timeout", type=int, default=900, help="seconds per boot (default 900)")
    r.add_argument("--run-qemu", default="",
                   help="extra run-qemu.sh options, e.g. '--blk-queues 2'")
    r.add_argument("--run-qemu-script", default=RUN_QEMU, help=argparse.SUPPRESS)
    r.add_argument("-v", "--verbose", action="store_true", help="echo the console")
    r.add_argument("--variant", action="append", default=[],
                   help="after each boot, one more with these options appended "
                        "(repeatable; e.g. 'scrub=copy modes=bounce')")
    r.add_argument("--command", default="",
                   help="the command that started the run, for the report")
    k = sub.add_parser("contract", help="check that every key of a log's JSON lines is "
                                        "documented for its suite")
    k.add_argument("file")
    t = sub.add_parser("report", help="write a Markdown report of a results file")
    t.add_argument("file")
    t.add_argument("--out", help="REPORT.md (default: beside the results file)")
    t.add_argument("--env", help="the run's environment file (default: <results>-env.json)")
    t.add_argument("--host", help="text output of `make bench-host` to include "
                                  "(default: host.txt beside the results, if present)")
    s = sub.add_parser("summarize", help="print the table of a results file")
    s.add_argument("file")
    g = sub.add_parser("scaling", help="print the 1-CPU / N-CPU table of a results file")
    g.add_argument("file")
    c = sub.add_parser("check", help="check a results file for completeness")
    c.add_argument("file")
    c.add_argument("--expect-modes", default=",".join(MODE_ORDER))
    c.add_argument("--expect-policies", default=",".join(POLICY_ORDER))
    opts = p.parse_args(argv)
    if opts.cmd == "run" and opts.repeats < 1:
        p.error("--repeats must be at least 1")
    return opts


def main(argv=None):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `bench.py summarize F | head`
    opts = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        return {"run": cmd_run, "summarize": cmd_summarize, "check": cmd_check,
                "scaling": cmd_scaling, "report": cmd_report,
                "contract": cmd_contract}[opts.cmd](opts)
    except FileNotFoundError as e:
        print(f"bench: {e.filename}: no such file", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
