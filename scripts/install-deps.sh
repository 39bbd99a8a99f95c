#!/bin/sh
# Install, with apt-get, the Debian packages libmcp needs that are missing.
# Runs `apt-get update` once, only when something must be installed; works as
# root or through sudo. Safe to run again: it installs nothing twice.
set -eu

# build: cmake pkg-config (gcc and make are assumed, like any C project)
# runtime deps: libuv1-dev libmicrohttpd-dev libcurl4-openssl-dev
# tests: libcmocka-dev valgrind, libjansson-dev (test-only JSON oracle),
#        locales (locale sources, for the locale-independence test)
# fuzzing and sanitizers: clang libclang-rt-14-dev
# interoperability tests: nodejs npm (checked as commands, below)
PACKAGES="cmake pkg-config libuv1-dev libmicrohttpd-dev libcurl4-openssl-dev
libcmocka-dev clang libclang-rt-14-dev libjansson-dev valgrind locales"

say() { printf 'install-deps: %s\n' "$*"; }

if ! command -v dpkg-query >/dev/null 2>&1; then
    say "this is not a Debian-based system; install these packages (or their"
    say "equivalents) yourself:" $PACKAGES
    exit 1
fi

missing=""
for p in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done

# Node.js and npm run the interoperability tests against the official SDKs.
# Any node >= 18 with npm will do (the tests pin their own Node 22 through
# npm), so only install Debian's when the commands are missing: mixing
# Debian's npm with another vendor's nodejs package would conflict.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    missing="$missing nodejs npm"
fi

if [ -z "$missing" ]; then
    say "all dependencies are installed"
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
    say "not root: using sudo"
else
    say "missing:$missing"
    say "run this script as root, or install sudo"
    exit 1
fi

say "missing:$missing"
say "running apt-get update"
$SUDO apt-get update
say "installing:$missing"
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends $missing
say "done"
