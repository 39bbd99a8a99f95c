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
# The conformance fixtures are test code: built, never installed.
[ -x "$build/mcp-conformance" ] || { echo "no mcp-conformance in $build" >&2; exit 1; }
if [ -n "$(find "$prefix" -name '*conformance*')" ]; then
    echo "the conformance fixtures were installed:" >&2
    find "$prefix" -name '*conformance*' >&2
    exit 1
fi
libdir=$(dirname "$(find "$prefix" -name libmcp.pc | head -n 1)")/..
export PKG_CONFIG_PATH="$libdir/pkgconfig"

cc -o "$work/with_pc" "$src/tests/install/consumer.c" $(pkg-config --cflags --libs libmcp)
# One version everywhere: the .pc file, the header and the library (the
# consumer compares the last two), and the SONAME derived from it.
version=$(pkg-config --modversion libmcp)
out=$(LD_LIBRARY_PATH="$libdir" "$work/with_pc")
echo "$out"
if [ "$out" != "libmcp $version: ok" ]; then
    echo "the .pc file says $version, the consumer said: $out" >&2
    exit 1
fi
major=${version%%.*}
minor=${version#*.}
minor=${minor%%.*}
if [ "$major" = 0 ]; then soname=libmcp.so.0.$minor; else soname=libmcp.so.$major; fi
if ! readelf -d "$libdir/libmcp.so" | grep -q "SONAME.*\[$soname\]"; then
    echo "libmcp.so's SONAME is not $soname:" >&2
    readelf -d "$libdir/libmcp.so" | grep SONAME >&2
    exit 1
fi

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
      -DCMAKE_PREFIX_PATH="$prefix" -DMCP_EXPECT_VERSION="$version" >/dev/null
cmake --build "$work/cmake-build" >/dev/null
LD_LIBRARY_PATH="$libdir" "$work/cmake-build/consumer_shared"
"$work/cmake-build/consumer_static"
echo "install: pkg-config and CMake consumers built and ran"
