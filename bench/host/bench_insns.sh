#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_insns.sh BENCH_ALLOC [PAIRS] - instructions per call of the bounce path
# and the arena, counted by valgrind's callgrind (make bench-insns).
#
# Runs `BENCH_ALLOC -I PAIRS -C movsb` under callgrind, collecting only inside
# the loops of bench_alloc's -I mode (insn_bounce_pairs, insn_slot_pairs,
# insn_arena_pairs, and insn_copy_4096/_0 and insn_zero_4096/_0, the port's
# copy and zero alone at 4 KiB and at 0 bytes), and prints per call:
# sluice_dma_map and sluice_dma_unmap with and without the copy, the alloc
# cell's whole slot pair (its loop, the request, the pool's alloc and free),
# sluice_dma_arena_free with and without its scrub (the port's zero),
# sluice_dma_arena_alloc. Instruction counts repeat exactly from run to run on
# a loaded machine, where times do not; they are not times.
# `rep movsb` / `rep stosb` count one instruction per byte under valgrind, so
# the copy and the zero are subtracted, not compared: what is subtracted is
# the 4 KiB loop less the 0-byte loop, the bytes alone, so a port whose copy
# runs inline (SLUICE_DMA_PORT_INLINE, as bench_alloc's) and one that calls it
# are counted alike, every instruction but the bytes' own to the layer. A
# measurement: it never fails on a figure, only when valgrind or the run fails.
set -eu
bin=${1:?usage: bench_insns.sh BENCH_ALLOC [PAIRS]}
n=${2:-20000}
command -v valgrind >/dev/null || { echo "bench_insns: valgrind not installed" >&2; exit 2; }
out=$(mktemp /tmp/bench_insns.XXXXXX)
trap 'rm -f "$out"' EXIT
valgrind --tool=callgrind --callgrind-out-file="$out" \
	--toggle-collect=insn_bounce_pairs --toggle-collect='insn_slot_pairs*' \
	--toggle-collect=insn_arena_pairs --toggle-collect='insn_copy_*' \
	--toggle-collect='insn_zero_*' \
	"$bin" -I "$n" -C movsb >/dev/null 2>&1 || { echo "bench_insns: run failed" >&2; exit 1; }
callgrind_annotate --auto=no --inclusive=yes --threshold=100 "$out" | awk -v n="$n" '
	function grab(name) {
		for (i = 1; i <= NF; i++)
			# (a loop the compiler specialised is named name.constprop.0)
			if ($i ~ (":" name "(\\.[a-z]+\\.[0-9]+)?$")) { v = $1; gsub(",", "", v); return v + 0 }
		return -1
	}
	{
		# A function appears once per source file its code came from (inlined
		# headers); the inclusive figure of the function itself is the largest.
		for (k in want) { x = grab(k); if (x >= 0 && (!(k in got) || x > got[k])) got[k] = x }
	}
	BEGIN {
		want["sluice_dma_map"]; want["sluice_dma_unmap"]
		want["sluice_dma_arena_free"]; want["sluice_dma_arena_alloc"]
		want["insn_copy_4096"]; want["insn_copy_0"]; want["insn_zero_4096"]; want["insn_zero_0"]
		want["sluice_dma_priv_bounce_req_init"]; want["sluice_dma_priv_bounce_alloc"]
		want["sluice_dma_priv_bounce_free"]; want["insn_slot_pairs"]
	}
	END {
		# A plain tag'"'"'s request is built inline (dma_bounce_req_init()): no call.
		if (!("sluice_dma_priv_bounce_req_init" in got)) got["sluice_dma_priv_bounce_req_init"] = 0
		for (k in want) if (!(k in got)) { print "bench_insns: no figure for " k > "/dev/stderr"; bad = 1 }
		if (bad) exit 1
		d = 16  # BENCH_DEPTH: the first maps have no unmap before them
		copy = (got["insn_copy_4096"] - got["insn_copy_0"]) / n  # the bytes alone
		zero = (got["insn_zero_4096"] - got["insn_zero_0"]) / n
		printf "subtracted per 4 KiB: the copy bytes %.1f, the zero bytes %.1f instructions\n", copy, zero
		printf "instructions per call (callgrind, %d pairs, 4 KiB, sluice, 1 CPU, exclusive):\n", n
		printf "  sluice_dma_map          %8.1f  (%.1f without the port copy)\n", got["sluice_dma_map"] / n, got["sluice_dma_map"] / n - copy
		printf "  sluice_dma_unmap        %8.1f\n", got["sluice_dma_unmap"] / (n - d)
		printf "  map+unmap less the copy %8.1f\n", got["sluice_dma_map"] / n - copy + got["sluice_dma_unmap"] / (n - d)
		a = got["sluice_dma_priv_bounce_alloc"] / n; f = got["sluice_dma_priv_bounce_free"] / (n - d)
		w = got["insn_slot_pairs"] / n
		printf "  slot alloc+free         %8.1f  (the alloc cell, per pair: alloc %.1f, free %.1f; the request and the loop %.1f, %.1f of it out of line)\n", w, a, f, w - a - f, got["sluice_dma_priv_bounce_req_init"] / n
		printf "  sluice_dma_arena_free   %8.1f  (%.1f without the scrub)\n", got["sluice_dma_arena_free"] / n, got["sluice_dma_arena_free"] / n - zero
		printf "  sluice_dma_arena_alloc  %8.1f\n", got["sluice_dma_arena_alloc"] / n
		printf "  arena pair less scrub   %8.1f\n", (got["sluice_dma_arena_free"] + got["sluice_dma_arena_alloc"]) / n - zero
	}'
