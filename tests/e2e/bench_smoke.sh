#!/usr/bin/env bash
# The block benchmark runs in every configuration and prints one JSON line of the
# benchmark contract per run, with the cycle breakdown and the ratios, plus one
# IOTLB-model line per run (4 KiB translations, 2 MiB for the arena), the network
# benchmark's lines (64 and 1514-byte frames) and the conversion costs. Figures are
# not judged (a benchmark measures, it does not pass or fail on a time); only that
# every line parses and carries the contract's keys.
. "$(dirname "$0")/lib.sh"

# bench_ms=60: blk runs three rounds of 20 ms windows. Each window also waits for a
# count of completions (one turnover of its queue: iodepth requests, half a ring of
# frames), bounded only by the device deadline
# (bench_window_over()): a window of a fixed length once saw no 64 KiB read complete
# while other work loaded both host cores, and its lines carried no figures.
boot_kernel bench_smoke 0 --args "blk=none frames=0 bench=blk,convert,net bench_ms=60 policies=linux,sluice"
python3 - "$BOOT_LOG" "$E2E_TOP/scripts" <<'PY' || e2e_fail "benchmark JSON lines incomplete"
import json, re, statistics, sys
sys.path.insert(0, sys.argv[2])
import names
rows = []
for line in open(sys.argv[1], errors="replace"):
    line = line.strip()
    if line.startswith("{"):
        rows.append(json.loads(line))  # a line that starts like JSON must parse
need = {"suite", "mode", "policy", "rw", "bs", "iodepth", "threads", "iops", "bw_mbps",
        "lat_mean_us", "lat_p50_us", "lat_p99_us", "cycles_map", "cycles_copy",
        "cycles_convert", "cycles_driver", "cycles_device", "conversions", "ratio_direct",
        "ratio_linux", "cycles_dma", "cycles_io", "dma_tax_pct", "dma_tax_pct_linux",
        "copy_impl", "scrub"}
# Every line names the accelerator run-qemu.sh chose, and it is one accelerator.
assert {r.get("accel") for r in rows} <= {"tcg", "kvm"}, {r.get("accel") for r in rows}
assert len({r["accel"] for r in rows}) == 1, "lines of two accelerators in one boot"
conv = [r for r in rows if r["suite"] == "convert"]
iotlb = [r for r in rows if r["suite"] == "iotlb"]
net = [r for r in rows if r["suite"] == "net"]
rows = [r for r in rows if r["suite"] == "blk"]
assert {(r["case"], r["direction"]) for r in conv} == {
    (c, d) for c in ("4k_split", "4k", "2m") for d in ("to_shared", "to_private")}, conv
for r in conv:
    assert r["cycles_per_op"] > 0 and r["ops"] > 0, r
assert next(r for r in conv if r["case"] == "4k_split" and r["direction"] == "to_shared")["splits"] > 0
assert len(iotlb) == len(rows), (len(iotlb), len(rows))
for r in iotlb:
    assert r["granule"] == (2 << 20 if r["mode"] == "arena" else 4096), r
    assert 0 < r["misses"] <= r["lookups"], r
configs = {(r["mode"], r["policy"]) for r in rows}
assert {(r["mode"], r["policy"], r["size"]) for r in net} == {
    (m, p, z) for (m, p) in configs for z in (64, 1514)}, net
for r in net:
    assert r["fps"] > 0 and r["frames"] > 0 and "gbps" in r and "ratio_direct" in r, r
    assert r["rounds"] == 3, r  # three rounds of every configuration, as blk's
net_rounds = {}
for l in open(sys.argv[1], errors="replace"):
    m = re.search(r"bench: net mode=(\S+) (\d+)-byte frames round (\d+)/3: .*; DMA (\d+)$",
                  l.strip())
    if m:
        net_rounds.setdefault((m[1], int(m[2])), {})[int(m[3])] = int(m[4])
for r in net:
    mine = net_rounds[(r["mode"] if r["mode"] != "bounce" else "bounce/" + r["policy"],
                       r["size"])]
    assert len(mine) == 3 and abs(r["cycles_dma"] - statistics.median(mine.values())) <= 1, \
        (r, mine)
# The DMA tax: the DMA layer's cycles are a part of the I/O's (frame's) guest cycles,
# the copies a part of them, and only bounce frames copy.
for r in net + rows:
    assert 0 < r["cycles_dma"] < r["cycles_io"], r
    assert 0 <= r["cycles_copy"] <= r["cycles_dma"], r
    assert (r["cycles_copy"] > 0) == (r["mode"] == "bounce"), r
    assert abs(r["dma_tax_pct"] - 100 * r["cycles_dma"] / r["cycles_io"]) < 0.1, r
    assert r["copy_impl"] in ("movsb", "movsq", "libc", "avx2") and r["scrub"] == "zero", r
# Every mode, the bounce mode with the two policies the boot chose.
want = {(m, None) for m in names.modes() if m != "bounce"} | {
    ("bounce", "linux"), ("bounce", "sluice")}
assert configs == want, f"configurations {configs}"
workloads = {(r["rw"], r["bs"], r["iodepth"]) for r in rows}
assert len(workloads) == 4, workloads
# The default image has no stage markers (only make image-stages does).
assert not [k for r in rows for k in r if k.startswith("cycles_stage_")], "stage keys"
for r in rows:
    missing = need - r.keys()
    assert not missing, f"missing {missing} in {r}"
    assert r["suite"] == "blk" and r["ios"] > 0 and r["errors"] == 0, r
    assert (r["bounced_bytes"] > 0) == (r["mode"] == "bounce"), r
    assert (r["cycles_copy"] > 0) == (r["mode"] == "bounce"), r
    assert r["conversions"] == 0 and r["cycles_convert"] == 0, r  # none on the data path
# Each configuration ran every workload in three rounds, one after another (a human
# line per round, with its DMA cycles per I/O); a JSON line is its median round.
rounds, copies = {}, {}
for l in open(sys.argv[1], errors="replace"):
    m = re.search(r"bench: blk mode=(\S+) queues=(\d+) (\w+) bs=(\d+) iodepth=(\d+) "
                  r"round (\d+)/3: .* copy (\d+), .*; DMA (\d+)$", l.strip())
    if m:
        key = (m[1], int(m[2]), m[3], int(m[4]), int(m[5]))
        rounds.setdefault(key, {})[int(m[6])] = int(m[8])
        copies.setdefault(key, {})[int(m[6])] = int(m[7])
def name(r):
    return r["mode"] if r["mode"] != "bounce" else "bounce/" + r["policy"]
def key(r, n=None):
    return (n or name(r), r["queues"], r["rw"], r["bs"], r["iodepth"])
for r in rows:
    mine = rounds[key(r)]
    assert r["rounds"] == len(mine) == 3, (r, mine)
    # the median round's own figures: its DMA cycles are the median of the three
    assert abs(r["cycles_dma"] - statistics.median(mine.values())) <= 1, (r, mine)
# Bounce lines carry the DMA cycles they add over direct in this boot, and that over
# bounce/linux's, for every workload (docs/BENCHMARKS.md), each the median over the
# rounds of that round's own figure; direct and the arena do not.
for r in rows:
    if r["mode"] == "bounce":
        mine, d, lx = rounds[key(r)], rounds[key(r, "direct")], rounds[key(r, "bounce/linux")]
        over = [mine[k] - d[k] for k in mine]
        assert abs(r["dma_over_direct"] - statistics.median(over)) <= 1.5, (r, over)
        dens = [lx[k] - d[k] for k in mine if lx[k] - d[k] > 0]
        vs = [(mine[k] - d[k]) / (lx[k] - d[k]) for k in mine if lx[k] - d[k] > 0]
        if vs:
            assert "dma_over_direct_vs_linux" in r and "copy_floor_vs_linux" in r, r
        if vs and min(dens) >= 100:  # the rounded cycles of the human lines suffice
            assert abs(r["dma_over_direct_vs_linux"] - statistics.median(vs)) <= 0.01, (r, vs)
            # a round where linux added nothing over direct has no floor, as no ratio
            floor = [copies[key(r)][k] / (lx[k] - d[k]) for k in mine if lx[k] - d[k] > 0]
            assert abs(r["copy_floor_vs_linux"] - statistics.median(floor)) <= 0.01, (r, floor)
for r in rows:
    if r["mode"] != "bounce":
        assert "dma_over_direct" not in r and "dma_over_direct_vs_linux" not in r, r
        continue
    assert "dma_over_direct" in r, f"missing dma_over_direct in {r}"
lines = [l for l in open(sys.argv[1], errors="replace") if "DMA cycles per I/O over direct" in l]
assert len(lines) == 3 * len({r["queues"] for r in rows}), lines  # the 4 KiB workloads
print(f"{len(rows)} blk, {len(net)} net, {len(iotlb)} iotlb and {len(conv)} convert lines, "
      f"{len(configs)} configurations x {len(workloads)} workloads")
PY
# Every key of every line is in the contract table (docs/BENCHMARKS.md) for its suite.
python3 "$E2E_TOP/scripts/bench.py" contract "$BOOT_LOG" || e2e_fail "a key outside the output contract"
