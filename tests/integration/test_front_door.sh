#!/bin/sh
# SPDX-License-Identifier: MIT
# test_front_door.sh SOURCE_DIR: the Makefile, the CMake options and
# scripts/install-deps.sh, on scratch build trees (the source tree is only
# read):
#  (a) a configuration that failed is tried again by the next make, in every
#      build tree, although cmake left a CMakeCache.txt behind;
#  (b) the library and the mcp command configure and build without the test
#      tools: cmocka hidden from pkg-config, valgrind, node and npm from PATH
#      (and valgrind not even looked for); no tests are registered;
#  (c) install-deps.sh exits 0 without dpkg when everything is present, and
#      calls no apt-get.
# Fails when this machine lacks a dependency, so (c) cannot run (exits 77,
# skipped, only with MCP_TEST_ALLOW_SKIP=1).
. "$(dirname "$0")/lib.sh"
SRC=$(cd "$1" && pwd)
[ -f "$SRC/Makefile" ] || fail "usage: $0 SOURCE_DIR"
# make runs in the source tree, as a user would; run by ctest under
# `make test`, it must not talk to that make's jobserver.
cd "$SRC" || fail "cannot cd to $SRC"
unset MAKEFLAGS MFLAGS MAKELEVEL

# mkbin DIR NAME...: DIR holds a link to every command on PATH (first one
# wins, as for the shell) except the NAMEs.
mkbin() {
    bin=$1
    shift
    mkdir "$bin"
    old_ifs=$IFS
    IFS=:
    for d in $PATH; do
        case $d in /*) [ -d "$d" ] && ln -s "$d"/* "$bin"/ 2>/dev/null ;; esac
    done
    IFS=$old_ifs
    for name in "$@"; do rm -f "$bin/$name"; done
}

# --- (a) a failed configuration is retried --------------------------------
mkdir "$WORK/no-pc"
b="$WORK/a"
expect_exit 2 "make configure fails when pkg-config finds no libuv" -- \
    env PKG_CONFIG_LIBDIR="$WORK/no-pc" PKG_CONFIG_PATH= make BUILD="$b" configure
contains "$WORK/out" "Checking for module 'libuv'" "configure looked for libuv"
contains "$WORK/out" "Configuring incomplete" "configure failed there"
[ -f "$b/CMakeCache.txt" ] || fail "cmake left no CMakeCache.txt: the case under test did not arise"
expect_exit 0 "make configure again, libuv visible: configures" -- make BUILD="$b" configure
contains "$WORK/out" "Build files have been written" "cmake ran again and succeeded"
expect_exit 0 "make configure a third time: nothing to do" -- make BUILD="$b" configure
lacks "$WORK/out" "cmake -S" "a configured tree was configured again"

# Every tree, statically (make -n): a CMakeCache.txt alone, as a failed
# configuration leaves it, does not count as configured.
for case in "BUILD build" "BUILD check-build" "ASAN_BUILD test-asan" \
            "TSAN_BUILD test-tsan" "FUZZ_BUILD fuzz-build"; do
    set -- $case # "VARIABLE target"
    dir="$WORK/n-$2"
    mkdir "$dir"
    : >"$dir/CMakeCache.txt"
    expect_exit 0 "make -n $2 after a failed configuration" -- make -n "$1=$dir" "$2"
    contains "$WORK/out" "cmake -S . -B $dir" "make $2 configures $1 again"
done

# --- (b) no test tools: the library and the mcp command alone -------------
mkdir "$WORK/pc-uv"
# Every module pkg-config knows but cmocka (libmicrohttpd's own needs,
# gnutls and the rest, included).
for dir in $(pkg-config --variable pc_path pkg-config | tr ':' ' '); do
    for pc in "$dir"/*.pc; do
        if [ -e "$pc" ] && [ "${pc##*/}" != cmocka.pc ] && [ ! -e "$WORK/pc-uv/${pc##*/}" ]; then
            ln -s "$pc" "$WORK/pc-uv/"
        fi
    done
done
[ -e "$WORK/pc-uv/libuv.pc" ] || fail "no libuv.pc on this machine"
mkbin "$WORK/bin-no-test-tools" valgrind node npm
b="$WORK/b"
no_tests() {
    env PATH="$WORK/bin-no-test-tools" PKG_CONFIG_LIBDIR="$WORK/pc-uv" PKG_CONFIG_PATH= \
        CMAKE_PREFIX_PATH= "$@"
}
expect_exit 0 "make configure without cmocka, valgrind or npm" -- \
    no_tests make BUILD="$b" configure
contains "$WORK/err" "cmocka not found: the tests are not built" "configure said why"
contains "$b/CMakeCache.txt" "MCP_WERROR:BOOL=OFF" "make build's tree has no -Werror"
lacks "$b/CMakeCache.txt" "VALGRIND:FILEPATH" "make build's configuration looked for valgrind"
expect_exit 0 "ctest -N in that tree" -- ctest --test-dir "$b" -N
contains "$WORK/out" "Total Tests: 0" "no tests are registered"
expect_exit 0 "the library and the mcp command build" -- \
    no_tests cmake --build "$b" -j 2 --target mcp mcp_static mcp_cli
[ -f "$b/src/libmcp.a" ] || fail "libmcp.a was not built"
[ -n "$(find "$b/src" -name 'libmcp.so*')" ] || fail "libmcp.so was not built"
expect_exit 0 "the mcp command runs" -- "$b/mcp" --version

# --- (c) install-deps.sh without dpkg --------------------------------------
# apt-get and sudo (which would find the real apt-get) fail loudly.
mkdir "$WORK/fake"
for cmd in apt-get sudo; do
    printf '#!/bin/sh\necho "FAKE %s CALLED: $*" >&2\n: >"%s"\nexit 99\n' \
        "$cmd" "$WORK/apt-called" >"$WORK/fake/$cmd"
    chmod +x "$WORK/fake/$cmd"
done
# With the full PATH first: is everything present on this machine at all?
if ! PATH="$WORK/fake:$PATH" "$SRC/scripts/install-deps.sh" >"$WORK/out" 2>&1; then
    cat "$WORK/out"
    grep -q "^install-deps: missing" "$WORK/out" || fail "install-deps.sh failed"
    missing "(c) cannot run: this machine lacks dependencies"
fi
rm -f "$WORK/apt-called"
mkbin "$WORK/bin-no-dpkg" dpkg dpkg-query apt-get sudo
expect_exit 0 "install-deps.sh without dpkg-query, everything present" -- \
    env PATH="$WORK/fake:$WORK/bin-no-dpkg" "$SRC/scripts/install-deps.sh"
contains "$WORK/out" "all dependencies are present" "install-deps.sh found them all"
[ ! -e "$WORK/apt-called" ] || fail "install-deps.sh called apt-get or sudo"
echo "front door: ok"
