#!/bin/sh
# SPDX-License-Identifier: MIT
# check-install.sh BUILD_DIR SOURCE_DIR: install into a scratch prefix, then
# build and run a consumer with pkg-config (shared and static) and with the
# CMake package. Fails on any step.
set -eu
build=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(dirname "$(find "$prefix" -name libmcp.pc | head -n 1)")/..
export PKG_CONFIG_PATH="$libdir/pkgconfig"

cc -o "$work/with_pc" "$src/tests/install/consumer.c" $(pkg-config --cflags --libs libmcp)
LD_LIBRARY_PATH="$libdir" "$work/with_pc"

# Static: libmcp.a plus the private libraries the .pc file lists.
cc -o "$work/with_pc_static" "$src/tests/install/consumer.c" $(pkg-config --cflags libmcp) \
   -Wl,-Bstatic $(pkg-config --libs-only-L libmcp) -lmcp -Wl,-Bdynamic \
   $(pkg-config --static --libs-only-l libmcp | sed 's/-lmcp//')
if ldd "$work/with_pc_static" | grep -q libmcp; then
    echo "static consumer still needs libmcp.so" >&2
    exit 1
fi
"$work/with_pc_static"

cmake -S "$src/tests/install/cmake-consumer" -B "$work/cmake-build" \
      -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/cmake-build" >/dev/null
LD_LIBRARY_PATH="$libdir" "$work/cmake-build/consumer_shared"
"$work/cmake-build/consumer_static"
echo "install: pkg-config and CMake consumers built and ran"
