#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check-bench-only.py [--self-test] - the flags that turn a guarantee off
(SLUICE_DMA_BENCH_NO_CHECKS, _NO_STATS, _NO_CAS: DMA_CHECKED() in dma/log.h and its
kin) are defined by bench/host/host.mk's bench-only binaries and nowhere else: no
other make fragment, script, CMake file or source may pass or #define one, so no
library, kernel, firmware or test build can ship without its checks (documents,
*.md, may name them).

Exit 0 when the tree keeps that rule, 1 with one line per offence.
"""
import os
import re
import subprocess
import sys
import tempfile

ALLOWED = {"bench/host/host.mk"}
DEFINES = re.compile(r"(-D\s*SLUICE_DMA_BENCH_\w+|#\s*define\s+SLUICE_DMA_BENCH_\w+)")


def tracked_files(top):
    try:
        out = subprocess.run(["git", "-C", top, "ls-files"], check=True,
                             capture_output=True, text=True).stdout
        return [f for f in out.splitlines() if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for root, dirs, names in os.walk(top):
            dirs[:] = [d for d in dirs if d not in (".git", "build")]
            files += [os.path.relpath(os.path.join(root, n), top) for n in names]
        return files


def offences(top, files):
    out = []
    for rel in files:
        # Documents may name the flags; they build nothing.
        if rel in ALLOWED or rel == "scripts/check-bench-only.py" or rel.endswith(".md"):
            continue
        try:
            with open(os.path.join(top, rel), errors="replace") as f:
                text = f.read()
        except (IsADirectoryError, FileNotFoundError):
            continue
        for n, line in enumerate(text.splitlines(), 1):
            m = DEFINES.search(line)
            if m:
                out.append(f"{rel}:{n}: defines a bench-only flag ({m.group(1)}); only "
                           f"{', '.join(sorted(ALLOWED))} may")
    return out


def self_test():
    with tempfile.TemporaryDirectory() as top:
        os.makedirs(os.path.join(top, "bench/host"))
        os.makedirs(os.path.join(top, "dma"))
        with open(os.path.join(top, "bench/host/host.mk"), "w") as f:
            f.write("X := -DSLUICE_DMA_BENCH_NO_CHECKS\n")
        with open(os.path.join(top, "dma/ok.c"), "w") as f:
            f.write("#ifdef SLUICE_DMA_BENCH_NO_CHECKS\n#endif\n")
        files = ["bench/host/host.mk", "dma/ok.c"]
        assert offences(top, files) == [], offences(top, files)
        with open(os.path.join(top, "dma/bad.c"), "w") as f:
            f.write("#define SLUICE_DMA_BENCH_NO_STATS 1\n")
        with open(os.path.join(top, "dma/build.mk"), "w") as f:
            f.write("CFLAGS += -DSLUICE_DMA_BENCH_NO_CAS\n")
        got = offences(top, files + ["dma/bad.c", "dma/build.mk"])
        assert len(got) == 2 and "dma/bad.c:1" in got[0] and "dma/build.mk:1" in got[1], got
    print("check-bench-only: self-test passed (a #define and a -D outside host.mk refused)")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    bad = offences(top, tracked_files(top))
    for line in bad:
        print(line)
    if bad:
        return 1
    print("check-bench-only: the bench-only flags are set in bench/host/host.mk alone")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
