#!/bin/sh
# SPDX-License-Identifier: MIT
# Check that everything libmcp's build and tests need is present, and install
# with apt-get only what is missing. Each need is checked by what it provides
# (a command that runs, a library pkg-config knows, a runtime that links, a
# locale that compiles), not by package name, so whatever was installed by
# other means (built from source, a tarball, another distribution) counts,
# and with everything present this exits 0 on any system. Runs `apt-get
# update` once, only when something must be installed; works as root or
# through sudo. Safe to run again: it installs nothing twice.
set -eu

say() { printf 'install-deps: %s\n' "$*"; }
have() { command -v "$1" >/dev/null 2>&1; }
# has_pc MODULE: pkg-config knows the library (headers and link flags).
has_pc() { have pkg-config && pkg-config --exists "$1"; }

missing=""
# need PACKAGE: the Debian package that provides what is missing.
need() {
    case " $missing " in
        *" $1 "*) ;;
        *) missing="$missing $1" ;;
    esac
}

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# clang_links FILE FLAGS...: FILE compiles and links with FLAGS under clang.
clang_links() {
    src=$1
    shift
    clang "$@" -o "$scratch/a.out" "$scratch/$src" >/dev/null 2>&1
}

# Build: cmake and pkg-config (a C compiler and make are assumed, like any C
# project), and the runtime dependencies.
have cmake || need cmake
have pkg-config || need pkg-config
has_pc libuv || need libuv1-dev
has_pc libmicrohttpd || need libmicrohttpd-dev
has_pc libcurl || need libcurl4-openssl-dev
has_pc libpcre2-8 || need libpcre2-dev
has_pc libcrypto || need libssl-dev
# Tasks kept in Redis (src/server/tasks/redis_link.c).
has_pc hiredis || need libhiredis-dev
[ -d /usr/share/json-schema-test-suite/tests/draft7 ] || need json-schema-test-suite

# Tests: cmocka, valgrind, jansson (a test-only JSON oracle).
has_pc cmocka || need libcmocka-dev
has_pc jansson || need libjansson-dev
valgrind -q true >/dev/null 2>&1 || need valgrind
# The Redis tests start their own redis-server on private ports (never 6379:
# Debian's package may start a system one there), some behind haproxy,
# which Debian puts in /usr/sbin (not on every user's PATH).
have redis-server || need redis-server
[ -x /usr/sbin/haproxy ] || have haproxy || need haproxy
# The HTTP integration test talks to the server with plain curl.
have curl || need curl
# Scripted hostile peers, raw sockets and pseudo-terminals in the tests.
have python3 || need python3
# HTTPS: the HTTP test makes its certificate.
have openssl || need openssl
# A terminal for the progress bar and the escaping tests (script(1)).
have script || need bsdutils
# The install test reads the installed library's SONAME.
have readelf || need binutils
# make bench loads the HTTP servers with wrk.
have wrk || need wrk

# The locale-independence test needs a comma-decimal locale: de_DE.UTF-8
# installed, or localedef and the locale sources to compile it.
if ! locale -a 2>/dev/null | grep -Eqi '^de_DE\.utf-?8$'; then
    localedef -i de_DE -f UTF-8 "$scratch/de_DE.UTF-8" >/dev/null 2>&1 || need locales
fi

# Fuzzing and sanitizers: clang with its runtimes (libFuzzer, ASan, UBSan,
# TSan), checked by linking what make fuzz, test-asan and test-tsan link.
if have clang; then
    printf '%s\n' 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);' \
        'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)' \
        '{ (void)d; (void)n; return 0; }' >"$scratch/fuzz.c"
    printf '%s\n' 'int main(void) { return 0; }' >"$scratch/main.c"
    if ! clang_links fuzz.c -fsanitize=fuzzer,address,undefined ||
        ! clang_links main.c -fsanitize=thread; then
        need libclang-rt-14-dev
    fi
else
    need clang
    need libclang-rt-14-dev
fi

# Node.js and npm run the interoperability tests against the official SDKs.
# Any node >= 18 with npm will do (the tests pin their own Node 22 through
# npm), so only install Debian's when the commands are missing: mixing
# Debian's npm with another vendor's nodejs package would conflict.
if ! have node || ! have npm; then
    need nodejs
    need npm
fi

if [ -z "$missing" ]; then
    say "all dependencies are present"
    exit 0
fi

say "missing (as Debian packages):$missing"
if ! have apt-get; then
    say "apt-get is not available: install these (or their equivalents) yourself"
    exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif have sudo; then
    SUDO="sudo"
    say "not root: using sudo"
else
    say "run this script as root, or install sudo"
    exit 1
fi

say "running apt-get update"
$SUDO apt-get update
say "installing:$missing"
# shellcheck disable=SC2086
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
say "done"
