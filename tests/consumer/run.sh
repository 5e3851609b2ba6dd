#!/usr/bin/env bash
# tests/consumer/run.sh - install the DMA library into a temporary staging root
# and build and run an out-of-tree program against it, with only the flags
# pkg-config gives (no repository include path: the program is copied out of
# the tree first). Exercises `make install PREFIX=... DESTDIR=...`, the .pc
# file, the public headers alone and the archive itself (the host tests
# compile dma/*.c with their own flags; this links libsluice-dma.a).
set -euo pipefail

prefix=/opt/sluice-dma-test
# Nothing but the staged files (scripts/stage-dma-lib.sh).
# shellcheck source=scripts/stage-dma-lib.sh
. "$(dirname "$0")/../../scripts/stage-dma-lib.sh"
pkg-config --exists --print-errors sluice-dma
echo "sluice-dma $(pkg-config --modversion sluice-dma): $(pkg-config --cflags --libs sluice-dma)"

mkdir "$tmp/src"
cp "$top/tests/consumer/consumer.c" "$tmp/src/"
cd "$tmp/src"
# shellcheck disable=SC2046 # the flags are words
${CC:-gcc} -std=c11 -Wall -Wextra -Werror -pedantic -O1 consumer.c \
	$(pkg-config --cflags --libs sluice-dma) -o consumer
./consumer
