# scripts/stage-dma-lib.sh - sourced (not run) by tests/consumer/run.sh and
# examples/port/run.sh, with $prefix set: installs the DMA library into a staging
# root under a fresh temporary directory ($tmp, removed on exit) with
# `make install PREFIX=$prefix DESTDIR=$tmp/stage`, and makes pkg-config see
# nothing but the staged .pc, its paths prefixed with the staging root (what a
# cross build's sysroot does). Sets $top (the repository), $tmp and $stage.
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
stage=$tmp/stage

make -s -C "$top" install PREFIX="$prefix" DESTDIR="$stage"
export PKG_CONFIG_LIBDIR=$stage$prefix/lib/pkgconfig
export PKG_CONFIG_PATH=
export PKG_CONFIG_SYSROOT_DIR=$stage
