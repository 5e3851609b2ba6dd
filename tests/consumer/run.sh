#!/usr/bin/env bash
# tests/consumer/run.sh - install the DMA library into a temporary staging root
# and build and run an out-of-tree program against it, with only the flags
# pkg-config gives (no repository include path: the program is copied out of
# the tree first). Exercises `make install PREFIX=... DESTDIR=...`, the .pc
# file, the public headers alone and the archive itself (the host tests
# compile dma/*.c with their own flags; this links libsluice-dma.a).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=/opt/sluice-dma-test
stage=$tmp/stage

make -s -C "$top" install PREFIX="$prefix" DESTDIR="$stage"
# Nothing but the staged files: the .pc from the staging root, its paths
# prefixed with it (what a cross build's sysroot does).
export PKG_CONFIG_LIBDIR=$stage$prefix/lib/pkgconfig
export PKG_CONFIG_PATH=
export PKG_CONFIG_SYSROOT_DIR=$stage
pkg-config --exists --print-errors sluice-dma
echo "sluice-dma $(pkg-config --modversion sluice-dma): $(pkg-config --cflags --libs sluice-dma)"

mkdir "$tmp/src"
cp "$top/tests/consumer/consumer.c" "$tmp/src/"
cd "$tmp/src"
# shellcheck disable=SC2046 # the flags are words
${CC:-gcc} -std=c11 -Wall -Wextra -Werror -pedantic -O1 consumer.c \
	$(pkg-config --cflags --libs sluice-dma) -o consumer
./consumer
