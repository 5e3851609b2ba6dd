#!/usr/bin/python3
"""bench.py - host side of Sluice's benchmark: boot, collect, summarise, check.

  bench.py run [--repeats N] [--args "k=v ..."] [--out FILE] [--timeout S]
               [--run-qemu "OPTS"] [--verbose]
  bench.py summarize FILE
  bench.py check FILE [--expect-modes LIST] [--expect-policies LIST]

run: boots build/sluice.efi N times (3 by default) through scripts/run-qemu.sh with the
same kernel options, keeps every serial-log line that parses as a JSON object (the
benchmark output contract: README, "Benchmarks"; every other line is ignored), tags each object
with "run": k (1-based) and writes them all, one object a line, to FILE (default
build/bench/results.json). The serial log of boot k is kept beside it as
serial-run<k>.log. Then it prints the summary table. Exit status 1 if a boot failed or
no JSON line was found at all; a figure's value never makes it fail.

Pinning: under TCG the figures are noisy, so with 2 or more host CPUs run-qemu.sh is
started on two CPUs (A, B) and, while QEMU runs, its vCPU threads (named "CPU n/TCG"
because QEMU gets "-name sluice,debug-threads=on") are pinned to B and every other QEMU
thread to A (sched_setaffinity, what `taskset -p` does). With several vCPUs, vCPU k goes
to B when k is even and to A when it is odd, so two vCPUs run in parallel (an idle vCPU
halts and leaves its host CPU to the others). With one CPU nothing is pinned and it
says so.

summarize: the same table from an existing results file.

scaling: the multi-CPU table of a results file: for every row with "threads" above 1
(the multi-job block runs, "bench": "mq", and the in-guest allocator runs, suite
"alloc"), the median of the main figure with 1 CPU and with N, their ratio (the
median of the rows' own "scaling"), and the DMA-lock figures of the N-CPU rows
("lock_wait_cycles_per_map", "lock_contended_pct").

check: completeness of a results file: every block and network workload (suite "blk"
or "net" and its configuration: rw, bs, iodepth, size, threads, queues ...) must appear
in every expected mode, and for "bounce" with every expected policy; every line must
parse and carry "suite" and its suite's figures. Prints what is missing; exit 1 if
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

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUT = os.path.join(TOP, "build", "bench", "results.json")
RUN_QEMU = os.path.join(TOP, "scripts", "run-qemu.sh")
PROGRESS_SECONDS = 30  # a boot line "N JSON lines so far" this often when not verbose

FIGURES = {
    "iops", "bw_mbps", "lat_mean_us", "lat_p50_us", "lat_p99_us", "fps", "gbps",
    "lookups", "misses", "ns_per_op", "cycles_per_op", "conversions", "scaling",
}
FIGURE_PREFIXES = ("cycles_", "ratio_", "lat_", "ns_", "lock_", "ops_")
# Counts a run measures rather than chooses (a fixed-time run sends as many frames as
# it can); they may differ from run to run, so they never split a configuration.
COUNTS = {"frames", "ops", "rounds", "nomem", "errors", "ios", "bytes", "lost", "bad",
          "elapsed_s", "seconds", "splits"}
FIGURE_SUFFIXES = ("_s", "_ms", "_us", "_ns", "_mbps", "_bytes")
MAIN_FIGURE = {
    "blk": "iops", "net": "fps", "iotlb": "misses",
    "convert": "cycles_per_op", "alloc": "cycles_per_op",
}
# Figures each suite's lines must carry (the output contract, README "Benchmarks").
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
MODE_ORDER = ("direct", "bounce", "arena")
POLICY_ORDER = ("linux", "bitmap", "lifo", "sluice")
KEY_ORDER = ("rw", "bs", "size", "iodepth", "threads", "queues", "entries", "assoc",
             "granule", "direction", "occupancy", "copy")
SIZE_KEYS = {"bs", "size", "granule"}

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
    """The configuration of one object: a sorted tuple of (key, value) pairs."""
    items = {}
    for key, value in obj.items():
        if key in ("run", "policy") or is_figure(key, value):
            continue
        items[key] = _hashable(value)
    items["policy"] = obj.get("policy") if obj.get("mode") == "bounce" else None
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
    """Order of mode/policy cells: direct, bounce/linux, bitmap, lifo, sluice, arena."""
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
        if row["mode"] not in ("bounce", "arena"):
            continue
        wl = (row["suite"], workload_of(row["config"]))
        row["vs_direct"] = _ratio(row["median"], medians.get(wl + ("direct", None)))
        row["vs_linux"] = _ratio(row["median"], medians.get(wl + ("bounce", "linux")))
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


def print_summary(objs, out=sys.stdout):
    groups = by_accelerator(objs)
    for i, (accel, members) in enumerate(groups):
        if i:
            print(file=out)
        print(accel_heading(accel, groups), file=out)
        print_one_summary(members, out)


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


# ------------------------------------------------------------------ check

def check_results(objs, bad_lines, modes, policies):
    """Problems found in a results file, as readable strings (empty when complete)."""
    problems = [f"line {n} does not parse as a JSON object: {text[:80]!r}"
                for n, text in bad_lines]
    for i, obj in enumerate(objs, 1):
        problems += [f"object {i}: {p}" for p in contract_problems(obj)]
    cells = expected_cells(modes, policies)
    workloads = {}
    for obj in objs:
        if obj.get("suite") in CHECKED_SUITES:
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
        if mode == "bounce":
            cells += [("bounce", p) for p in policies]
        else:
            cells.append((mode, None))
    return cells


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


def cmd_run(opts):
    out = opts.out
    logdir = os.path.dirname(os.path.abspath(out))
    os.makedirs(logdir, exist_ok=True)
    results, failed = [], False
    print(f"bench: {opts.repeats} boot(s), kernel options '{opts.args}', timeout "
          f"{opts.timeout}s each, results to {out}", flush=True)
    for k in range(1, opts.repeats + 1):
        log = os.path.join(logdir, f"serial-run{k}.log")
        start = time.monotonic()
        status, objs, report, tail = boot_once(k, opts, log)
        results += objs
        write_results(out, results)
        secs = time.monotonic() - start
        print(f"bench: run {k}/{opts.repeats}: {report}")
        print(f"bench: run {k}/{opts.repeats}: exit {status}, {len(objs)} JSON lines, "
              f"{secs:.0f} s, serial log {log}", flush=True)
        if status != 0:
            if not opts.verbose:
                print("\n".join("  | " + line for line in tail))
            meaning = EXIT_MEANING.get(status, "unexpected status")
            print(f"bench: run {k} FAILED: run-qemu.sh exit {status} ({meaning}); "
                  f"stopping", file=sys.stderr)
            failed = True
            break
    print(f"bench: {len(results)} objects written to {out}")
    if results:
        print()
        print_summary(results)
    if not results:
        print("bench: no JSON line found in any serial log", file=sys.stderr)
        return 1
    return 1 if failed else 0


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
    s = sub.add_parser("summarize", help="print the table of a results file")
    s.add_argument("file")
    g = sub.add_parser("scaling", help="print the 1-CPU / N-CPU table of a results file")
    g.add_argument("file")
    c = sub.add_parser("check", help="check a results file for completeness")
    c.add_argument("file")
    c.add_argument("--expect-modes", default="direct,bounce,arena")
    c.add_argument("--expect-policies", default="linux,bitmap,lifo,sluice")
    opts = p.parse_args(argv)
    if opts.cmd == "run" and opts.repeats < 1:
        p.error("--repeats must be at least 1")
    return opts


def main(argv=None):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `bench.py summarize F | head`
    opts = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        return {"run": cmd_run, "summarize": cmd_summarize, "check": cmd_check,
                "scaling": cmd_scaling}[opts.cmd](opts)
    except FileNotFoundError as e:
        print(f"bench: {e.filename}: no such file", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
