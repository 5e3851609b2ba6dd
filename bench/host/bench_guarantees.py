#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench_guarantees.py RUNS OUT.json BASE NOSTATS NOCHECKS NOCAS BARE CALLS - what each
guarantee of the bounce path and the arena costs (make bench-guarantees).

Each binary is bench_alloc built with one guarantee turned off (bench/host/host.mk):
BASE none, NOSTATS the exact statistics (SLUICE_DMA_BENCH_NO_STATS), NOCHECKS the
refusals and asserts of the common request (SLUICE_DMA_BENCH_NO_CHECKS), NOCAS the
arena's compare-and-swap claim (SLUICE_DMA_BENCH_NO_CAS), BARE all three; CALLS is
BASE with the port's ops (CPU index, copy, zero) called through the table instead of
inline (no SLUICE_DMA_PORT_INLINE): not a guarantee, what inlining them saves. For each:

- instructions per call, exact (bench_insns.sh: callgrind over `-I`, the copy and
  the scrub subtracted): map+unmap, and the arena's free+alloc;
- times, from the 4 KiB one-thread cells of `bench_alloc -s 4096 -t 1 -C COPY`
  (sluice, exclusive port; COPY from the environment's GUARANTEE_COPY, default
  movsb, the same for every build: `-C avx2/movsb` copies with the AVX2 loop and
  clears with `rep stosb`; `timed` lets each run choose as bench-host does, and the
  table's last line says what every run installed), each binary run once per round,
  RUNS rounds, binaries in
  turn so that a burst of other work hits them alike; medians over the rounds:
  the map+unmap with copy and the plain memcpy of the same footprint (0 %), the
  slot pair of sluice and linux (50 %), the arena's free+alloc with its scrub on
  free and that scrub alone.

A measurement: it prints and writes JSON lines ("suite": "guarantees"), and fails
only when a binary or valgrind fails, never on a figure.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

NAMES = ("default", "no statistics", "no checks", "no arena CAS", "bare", "ops called")
KEYS = ("default", "nostats", "nochecks", "nocas", "bare", "calls")
GUARANTEES = 5  # the first five: the last one turns no guarantee off
HERE = os.path.dirname(os.path.abspath(__file__))


def insns(binary):
    """{figure: instructions per call} from bench_insns.sh's lines."""
    out = subprocess.run([os.path.join(HERE, "bench_insns.sh"), binary], check=True,
                         capture_output=True, text=True).stdout
    got = {}
    for line in out.splitlines():
        words = line.split()
        if line.strip().startswith("map+unmap less the copy"):
            got["pair_insns"] = float(words[-1])
        elif line.strip().startswith("arena pair less scrub"):
            got["arena_insns"] = float(words[-1])
        elif line.strip().startswith("slot alloc+free"):
            got["slot_insns"] = float(words[2])
    if set(got) != {"pair_insns", "arena_insns", "slot_insns"}:
        raise SystemExit(f"bench_guarantees: no instruction figures from {binary}:\n{out}")
    return got


# One CPU for every run: on this project's VM the two vCPUs run the same code at
# different speeds (a plain 4 KiB copy ~37 ns on one, ~47 ns on the other at times),
# and a thread that migrates mixes them.
PIN = ["taskset", "-c", "0"] if shutil.which("taskset") else []
# One copy for every build, named: a choice by timing could differ between them.
COPY = os.environ.get("GUARANTEE_COPY") or "movsb"


def times(binary):
    """({figure: ns}, "copy/clear" installed) from one run of the 4 KiB one-thread cells."""
    with tempfile.NamedTemporaryFile("r", suffix=".json") as tmp:
        subprocess.run(PIN + [binary, "-s", "4096", "-t", "1", "-C", COPY, "-o", tmp.name],
                       check=True, stdout=subprocess.DEVNULL)
        lines = [json.loads(line) for line in tmp if line.strip()]

    def cell(**want):
        # The receive-path bounce cells carry "scrub"; the map+unmap cells do not.
        for obj in lines:
            if all(obj.get(k) == v for k, v in want.items()) and \
                    (obj["mode"] == "arena" or "scrub" not in obj):
                return obj
        raise SystemExit(f"bench_guarantees: {binary} wrote no cell {want}")
    pair = cell(mode="bounce", policy="sluice", copy=True, occupancy=0)["ns_per_op"]
    memcpy = cell(mode="direct", policy="memcpy", copy=True, occupancy=0)["ns_per_op"]
    arena = cell(mode="arena", strategy="free")
    first = lines[0]
    installed = f"{first['copy_impl']}/{first['zero_impl']}"
    return {"copy_pair_ns": pair, "memcpy_ns": memcpy, "copy_ratio": pair / memcpy,
            "slot_sluice_ns": cell(mode="bounce", policy="sluice", copy=False,
                                   occupancy=50)["ns_per_op"],
            "slot_linux_ns": cell(mode="bounce", policy="linux", copy=False,
                                  occupancy=50)["ns_per_op"],
            "arena_ns": arena["ns_per_op"], "arena_scrub_ns": arena["scrub_ns"],
            "arena_over_scrub_ns": arena["ns_per_op"] - arena["scrub_ns"]}, installed


def installed_line(installed, runs):
    """One line: the copy/clear every run installed, or each build's when they differ."""
    pairs = {p for per in installed.values() for p in per}
    if len(pairs) == 1:
        return f"copy/clear installed: {pairs.pop()} in every run of every build"
    return "copy/clear installed differ between runs (compare with care): " + "; ".join(
        f"{name} " + ", ".join(f"{p} {n} of {runs}" for p, n in sorted(installed[k].items()))
        for k, name in zip(KEYS, NAMES))


def main(argv):
    if len(argv) != 3 + len(KEYS):
        raise SystemExit(__doc__.splitlines()[0])
    runs, out_path, binaries = int(argv[1]), argv[2], argv[3:]
    figures = {k: insns(b) for k, b in zip(KEYS, binaries)}
    rounds = {k: [] for k in KEYS}
    # What each run installed: one copy named for all (GUARANTEE_COPY), or each
    # run's own choice by timing (timed), which could differ between runs.
    installed = {k: {} for k in KEYS}
    for r in range(runs):
        for k, b in zip(KEYS, binaries):
            figs, pair = times(b)
            rounds[k].append(figs)
            installed[k][pair] = installed[k].get(pair, 0) + 1
        print(f"bench_guarantees: round {r + 1} of {runs} done", file=sys.stderr)
    for k in KEYS:
        for fig in rounds[k][0]:
            figures[k][fig] = statistics.median(x[fig] for x in rounds[k])
        figures[k]["slot_ratio"] = figures[k]["slot_linux_ns"] / figures[k]["slot_sluice_ns"]
    with open(out_path, "w") as out:
        for k, name in zip(KEYS, NAMES):
            obj = {"suite": "guarantees", "build": k, "rounds": runs, "installed": installed[k]}
            obj.update({f: round(v, 3) for f, v in figures[k].items()})
            out.write(json.dumps(obj) + "\n")
    base = figures["default"]
    print(f"what each guarantee costs: 4 KiB, 1 thread, sluice, exclusive port, copy {COPY}; "
          f"instructions exact (callgrind), times medians of {runs} rounds "
          f"(every build once a round{', pinned to CPU 0' if PIN else ''})")
    head = ("build", "pair insns", "pair+copy ns", "memcpy ns", "ratio", "slot insns",
            "slot x linux", "arena insns", "arena-scrub ns")
    rows = []
    for k, name in zip(KEYS, NAMES):
        f = figures[k]
        rows.append((name, f"{f['pair_insns']:.0f}", f"{f['copy_pair_ns']:.1f}",
                     f"{f['memcpy_ns']:.1f}", f"{f['copy_ratio']:.2f}x",
                     f"{f['slot_insns']:.0f}", f"{f['slot_ratio']:.2f}x", f"{f['arena_insns']:.1f}",
                     f"{f['arena_over_scrub_ns']:+.1f}"))
    widths = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
    for r in [head] + rows:
        print("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in
                        enumerate(zip(r, widths))))
    print(installed_line(installed, runs))
    print("what turning one off saves (default minus that build):")
    for k, name in zip(KEYS[1:GUARANTEES], NAMES[1:GUARANTEES]):
        f = figures[k]
        print(f"  {name:14s} pair {base['pair_insns'] - f['pair_insns']:6.0f} insns "
              f"{base['copy_pair_ns'] - f['copy_pair_ns']:+6.1f} ns; slot pair "
              f"{base['slot_insns'] - f['slot_insns']:5.0f} insns "
              f"{base['slot_sluice_ns'] - f['slot_sluice_ns']:+5.1f} ns; arena "
              f"{base['arena_insns'] - f['arena_insns']:6.1f} insns "
              f"{base['arena_over_scrub_ns'] - f['arena_over_scrub_ns']:+6.1f} ns")
    f = figures["calls"]
    print("what running the port's ops inline saves (ops called minus default):")
    print(f"  {'inline ops':14s} pair {f['pair_insns'] - base['pair_insns']:6.0f} insns "
          f"{f['copy_pair_ns'] - base['copy_pair_ns']:+6.1f} ns; slot pair "
          f"{f['slot_insns'] - base['slot_insns']:5.0f} insns "
          f"{f['slot_sluice_ns'] - base['slot_sluice_ns']:+5.1f} ns; arena "
          f"{f['arena_insns'] - base['arena_insns']:6.1f} insns "
          f"{f['arena_over_scrub_ns'] - base['arena_over_scrub_ns']:+6.1f} ns")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
