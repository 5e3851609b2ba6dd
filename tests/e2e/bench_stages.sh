#!/usr/bin/env bash
# The bench-only image (make image-stages: dma/stage.h's markers on) puts the stage
# totals per I/O in every blk line ("cycles_stage_*", docs/BENCHMARKS.md); a stage
# the mode's path never enters (a slot, a copy in direct) stays exactly 0. Figures
# are not judged (no test asserts a time); the default image carries none of these
# keys (tests/e2e/bench_smoke.sh).
. "$(dirname "$0")/lib.sh"

efi="$E2E_TOP/build/stages/sluice.efi"
[ -f "$efi" ] || e2e_fail "$efi missing: make image-stages builds it"
boot_kernel bench_stages 0 --efi "$efi" \
	--args "blk=none frames=0 bench=blk bench_ms=60 modes=direct,bounce policies=linux,sluice"
python3 - "$BOOT_LOG" <<'PY' || e2e_fail "stage totals missing from the blk lines"
import json, math, sys
stages = ("args", "tag", "pool", "slot", "record", "copy", "cache", "stats", "lookup",
          "copy_back", "release")
rows = [json.loads(l) for l in open(sys.argv[1], errors="replace") if l.startswith("{")]
rows = [r for r in rows if r["suite"] == "blk"]
assert {(r["mode"], r["policy"]) for r in rows} == {
    ("direct", None), ("bounce", "linux"), ("bounce", "sluice")}, rows
for r in rows:
    for s in stages:
        v = r.get("cycles_stage_" + s)
        assert isinstance(v, (int, float)) and math.isfinite(v), (s, r)
    if r["mode"] == "direct":
        for s in ("slot", "record", "copy", "copy_back", "release"):
            assert r["cycles_stage_" + s] == 0, (s, r)
print(f"{len(rows)} blk lines with the {len(stages)} stage totals")
PY
python3 "$E2E_TOP/scripts/bench.py" contract "$BOOT_LOG" || e2e_fail "a key outside the output contract"
