#!/usr/bin/python3
"""plot.py - PNG charts of a Sluice benchmark results file (docs/BENCHMARKS.md).

  plot.py RESULTS OUTDIR        e.g. plot.py build/bench/results.json build/bench/

Reads the JSON lines bench.py wrote (same grouping: median, min and max over the runs of
each configuration) and writes into OUTDIR, for whatever suites the file holds:

  blk_iops.png              block IOPS per workload, one bar per mode/policy (median,
                            error bars from min to max), one panel per rw
  net_fps.png               the same for the network suite's frames per second
  cycles_breakdown.png      cycles per I/O stacked by where they went (the cycles_*
                            keys of the blk rows: map, copy, convert, dma, driver,
                            device), one bar per mode/policy, one panel per workload;
                            each segment is that key's median
  cycles_breakdown_cpu.png  the same without the wait for the device, so the CPU-side
                            "I/O tax" stays readable next to the device time
  iotlb_misses.png          IOTLB misses per mode/policy, log scale
  dma_tax_blk.png           the DMA tax (dma_tax_pct: % of the guest cycles per I/O spent
                            in the DMA layer) per block workload and mode/policy
  dma_tax_net.png           the same per frame size of the network suite

A file with figures of more than one accelerator (the "accel" key: tcg, kvm) gets each
chart once per accelerator, named <accel>_<chart>.png: TCG and KVM never share a chart.

Exit status: 0 when at least one chart was written, 1 when the file has nothing to plot
or cannot be read, 2 when matplotlib is missing (install python3-matplotlib:
`scripts/deps.sh bench` as root). If the running interpreter lacks matplotlib but
Debian's /usr/bin/python3 has it, the script re-runs itself there.

What it is not: it computes no figure of its own and judges none.
"""
import math
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in scripts/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (shares parsing and grouping with the table)

DEBIAN_PYTHON = "/usr/bin/python3"
REEXEC_ENV = "SLUICE_PLOT_REEXEC"
# Parts of the cycles per I/O, bottom to top; any other cycles_* key of a blk row (but
# the totals in NOT_PARTS) is stacked too, below the device wait.
CYCLE_KEYS = ("cycles_map", "cycles_copy", "cycles_convert", "cycles_driver", "cycles_device")
# Sums of parts, not parts: cycles_dma = map + copy, cycles_io = all of them.
NOT_PARTS = {"cycles_per_op", "cycles_dma", "cycles_io"}
COLOURS = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860",
           "#da8bc3", "#8c8c8c", "#ccb974", "#64b5cd")


def load_pyplot():
    """matplotlib.pyplot on the Agg backend; exits 2 with a clear message if missing."""
    try:
        import matplotlib
    except ImportError:
        if (os.path.realpath(sys.executable) != os.path.realpath(DEBIAN_PYTHON)
                and os.path.exists(DEBIAN_PYTHON) and not os.environ.get(REEXEC_ENV)):
            # A pyenv or venv python3 first on PATH hides Debian's dist-packages.
            os.environ[REEXEC_ENV] = "1"
            os.execv(DEBIAN_PYTHON, [DEBIAN_PYTHON, os.path.abspath(__file__)] + sys.argv[1:])
        print("plot: matplotlib is missing: install python3-matplotlib "
              "(as root: scripts/deps.sh bench, or apt-get install python3-matplotlib)",
              file=sys.stderr)
        sys.exit(2)
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


# ------------------------------------------------------------------ data

def table(objs, suite, figure):
    """Medians of one figure of one suite.

    Return (workloads, cells, data): workloads in first-appearance order, cells
    (mode, policy) in the usual order, data[(workload, cell)] = (median, min, max).
    """
    workloads, cells, data = [], set(), {}
    for config, members in bench.group_objects(objs).items():
        if bench.cfg_get(config, "suite") != suite:
            continue
        med, lo, hi, n = bench.stats([m.get(figure) for m in members])
        if not n:
            continue
        workload = bench.workload_of(config)
        cell = (bench.cfg_get(config, "mode"), bench.cfg_get(config, "policy"))
        if workload not in workloads:
            workloads.append(workload)
        cells.add(cell)
        data[(workload, cell)] = (med, lo, hi)
    return workloads, sorted(cells, key=lambda c: bench.cell_sort_key(*c)), data


def accel_note(objs):
    """", under TCG" (or KVM): the accelerator of a chart's figures, for its title."""
    names = sorted({str(o.get("accel") or "unknown") for o in objs})
    return f", under {'/'.join(n.upper() for n in names)}" if names else ""


def varying_keys(workloads):
    """Keys whose value differs between workloads (the rest go in the title)."""
    keys = set()
    for workload in workloads:
        for key, value in workload:
            if any(bench.cfg_get(w, key) != value for w in workloads):
                keys.add(key)
    return keys


def short_label(workload, keys):
    kept = tuple(kv for kv in workload if kv[0] in keys)
    return bench.config_label(kept).replace(" ", "\n") or "-"


def common_label(workloads, skip):
    """The key=value pairs shared by every workload, for a chart's title."""
    if not workloads:
        return ""
    keys = {k for k, _ in workloads[0]} - varying_keys(workloads) - skip
    return bench.config_label(tuple(kv for kv in workloads[0] if kv[0] in keys))


def cell_label(cell):
    return bench.mode_label(*cell)


# Every mode and, for bounce, every policy, in the kernel's order (scripts/names.py).
KNOWN_CELLS = [c for m in bench.MODE_ORDER
               for c in ([(m, p) for p in bench.POLICY_ORDER] if m == bench.BOUNCE else [(m, None)])]


def cell_colour(cell, cells):
    """The same colour for a mode/policy in every chart."""
    if cell in KNOWN_CELLS:
        return COLOURS[KNOWN_CELLS.index(cell)]
    extra = [c for c in cells if c not in KNOWN_CELLS]
    return COLOURS[(len(KNOWN_CELLS) + extra.index(cell)) % len(COLOURS)]


def split_by(workloads, key):
    """{value of key: [workloads]} keeping order; one group when no workload has key."""
    panels = {}
    for workload in workloads:
        panels.setdefault(bench.cfg_get(workload, key), []).append(workload)
    return panels


# ------------------------------------------------------------------ charts

def grouped_bars(ax, workloads, cells, data, log=False):
    """One group of bars per workload, one bar per cell, min..max error bars."""
    keys = varying_keys(workloads) - {"suite"}
    width = 0.8 / max(1, len(cells))
    for j, cell in enumerate(cells):
        xs, meds, errs = [], [], [[], []]
        for i, workload in enumerate(workloads):
            if (workload, cell) not in data:
                continue
            med, lo, hi = data[(workload, cell)]
            xs.append(i - 0.4 + width * (j + 0.5))
            meds.append(med)
            errs[0].append(med - lo)
            errs[1].append(hi - med)
        if xs:
            bars = ax.bar(xs, meds, width, yerr=errs, capsize=2, label=cell_label(cell),
                          color=cell_colour(cell, cells), error_kw={"elinewidth": 0.8})
            if log:  # a log axis hides how far apart the bars are: print the values
                ax.bar_label(bars, labels=[bench.fmt_num(m) for m in meds], fontsize=7)
    ax.set_xlim(-0.5, len(workloads) - 0.5)
    ax.set_xticks(range(len(workloads)))
    ax.set_xticklabels([short_label(w, keys) if keys else "" for w in workloads], fontsize=7)
    if log:
        ax.set_yscale("log")
    ax.grid(axis="y", alpha=0.3)


def figure_bars(plt, objs, suite, figure, split_key, ylabel, path, log=False):
    """A grouped-bar chart of one figure, one panel per value of split_key."""
    workloads, cells, data = table(objs, suite, figure)
    if not workloads:
        print(f"plot: no {suite} rows with \"{figure}\"; {os.path.basename(path)} not written")
        return False
    panels = split_by(workloads, split_key)
    width = max(8.0, 0.35 * len(cells) * max(len(w) for w in panels.values()) + 2)
    fig, axes = plt.subplots(len(panels), 1, figsize=(width, 3.6 * len(panels)),
                             squeeze=False, layout="constrained")
    for ax, (value, members) in zip(axes[:, 0], panels.items()):
        grouped_bars(ax, members, cells, data, log=log)
        ax.set_ylabel(ylabel)
        if value is not None:
            ax.set_title(f"{split_key}={value}", fontsize=10)
    axes[0, 0].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.005, 1.0))
    title = f"{suite}: {ylabel}, median of runs (bars: min..max){accel_note(objs)}"
    common = common_label(workloads, {"suite", split_key})
    fig.suptitle(title + (f"\n{common}" if common else ""), fontsize=11)
    save(fig, plt, path)
    return True


def cycle_keys(objs):
    """The cycles_* parts the blk rows carry, in stacking order."""
    present = []
    for obj in objs:
        if obj.get("suite") == "blk":
            present += [k for k in obj if k.startswith("cycles_") and k not in NOT_PARTS
                        and k not in present]
    extra = [k for k in present if k not in CYCLE_KEYS]
    known = [k for k in CYCLE_KEYS if k in present]
    if "cycles_device" in known:
        return known[:-1] + extra + ["cycles_device"]
    return known + extra


def cycle_breakdown(plt, objs, path, with_device=True):
    """Stacked cycles per I/O per mode/policy, one panel per workload."""
    keys = [k for k in cycle_keys(objs) if with_device or k != "cycles_device"]
    tables = {k: table(objs, "blk", k) for k in keys}
    workloads = []
    for wl, _, _ in tables.values():
        workloads += [w for w in wl if w not in workloads]
    cells = sorted({c for _, cs, _ in tables.values() for c in cs},
                   key=lambda c: bench.cell_sort_key(*c))
    if not workloads:
        print(f"plot: no blk rows with cycles_* figures; {os.path.basename(path)} not written")
        return False
    label_keys = varying_keys(workloads) - {"suite"}
    ncols = min(4, len(workloads))
    nrows = math.ceil(len(workloads) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.2 * ncols, 3.4 * nrows), squeeze=False,
                             layout="constrained")
    for ax, workload in zip(axes.flat, workloads):
        bottoms = [0.0] * len(cells)
        for n, key in enumerate(keys):
            data = tables[key][2]
            values = [data.get((workload, c), (0.0,))[0] for c in cells]
            ax.bar(range(len(cells)), values, 0.7, bottom=bottoms,
                   color=COLOURS[n % len(COLOURS)], label=key[len("cycles_"):])
            bottoms = [b + v for b, v in zip(bottoms, values)]
        ax.set_xticks(range(len(cells)))
        ax.set_xticklabels([cell_label(c) for c in cells], rotation=35, ha="right", fontsize=7)
        ax.set_title(bench.config_label(tuple(kv for kv in workload if kv[0] in label_keys))
                     or "blk", fontsize=8)
        ax.tick_params(axis="y", labelsize=7)
        ax.grid(axis="y", alpha=0.3)
    for ax in list(axes.flat)[len(workloads):]:
        ax.axis("off")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles[::-1], labels[::-1], fontsize=8, loc="upper left",
               bbox_to_anchor=(1.0, 0.95))
    what = "cycles per I/O" if with_device else "CPU cycles per I/O (device wait left out)"
    common = common_label(workloads, {"suite"})
    fig.suptitle(f"blk: {what}, median of runs per part{accel_note(objs)}"
                 + (f"\n{common}" if common else ""),
                 fontsize=11)
    save(fig, plt, path)
    return True


def save(fig, plt, path):
    fig.savefig(path, dpi=90, bbox_inches="tight")  # keeps legends placed outside
    plt.close(fig)
    print(f"plot: wrote {path}")


# ------------------------------------------------------------------ main

def main(argv):
    if len(argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 1
    results, outdir = argv[1], argv[2]
    plt = load_pyplot()
    try:
        objs, bad = bench.load_results(results)
    except OSError as e:
        print(f"plot: cannot read {results}: {e.strerror}", file=sys.stderr)
        return 1
    if bad:
        print(f"plot: {len(bad)} line(s) of {results} do not parse; ignored", file=sys.stderr)
    os.makedirs(outdir, exist_ok=True)
    # TCG and KVM figures never share a chart: with one accelerator in the file the
    # names are as listed above; with several, each chart is made per accelerator and
    # its name starts with it (tcg_blk_iops.png, kvm_blk_iops.png, ...).
    groups = bench.by_accelerator(objs)
    wrote = []
    for accel, members in groups:
        prefix = f"{accel}_" if len(groups) > 1 else ""
        out = lambda name: os.path.join(outdir, prefix + name)  # noqa: E731
        wrote += [
            figure_bars(plt, members, "blk", "iops", "rw", "IOPS", out("blk_iops.png")),
            figure_bars(plt, members, "net", "fps", None, "frames/s", out("net_fps.png")),
            cycle_breakdown(plt, members, out("cycles_breakdown.png")),
            cycle_breakdown(plt, members, out("cycles_breakdown_cpu.png"), with_device=False),
            figure_bars(plt, members, "iotlb", "misses", None, "IOTLB misses",
                        out("iotlb_misses.png"), log=True),
            figure_bars(plt, members, "blk", "dma_tax_pct", "rw", "DMA tax, % of guest cycles",
                        out("dma_tax_blk.png")),
            figure_bars(plt, members, "net", "dma_tax_pct", None, "DMA tax, % of guest cycles",
                        out("dma_tax_net.png")),
        ]
    if not any(wrote):
        print(f"plot: {results} has no blk, net or iotlb figures to plot", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
