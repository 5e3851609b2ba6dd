#!/usr/bin/env bash
# examples/port/run.sh - build the example port out of the tree, against the
# installed library only (make install into a staging root, pkg-config flags,
# no repository include path), the port itself freestanding, and run it.
set -euo pipefail

prefix=/opt/sluice-dma-port
# shellcheck source=scripts/stage-dma-lib.sh
. "$(dirname "$0")/../../scripts/stage-dma-lib.sh"
mkdir "$tmp/src"
cp "$top"/examples/port/port.c "$top"/examples/port/port.h "$top"/examples/port/main.c "$tmp/src/"
cd "$tmp/src"
cc=${CC:-gcc}
# shellcheck disable=SC2046 # the flags are words
cflags=$(pkg-config --cflags sluice-dma)
# The port as firmware builds it: freestanding, no libc headers beyond the
# compiler's own (stdint, stddef, stdbool).
# shellcheck disable=SC2086
$cc -std=c11 -Wall -Wextra -Werror -pedantic -O2 -ffreestanding -c port.c $cflags -o port.o
# shellcheck disable=SC2086
$cc -std=c11 -Wall -Wextra -Werror -pedantic -O2 -c main.c $cflags -o main.o
# shellcheck disable=SC2046
$cc main.o port.o $(pkg-config --libs sluice-dma) -o port
./port
