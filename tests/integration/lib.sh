# SPDX-License-Identifier: MIT
# Shared helpers for the integration scripts (POSIX sh).
# $MCP is the mcp binary; $BIN the build directory.

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# expect_exit CODE DESCRIPTION -- command...: run, compare the exit code.
expect_exit() {
    want=$1
    what=$2
    shift 3
    "$@" >"$WORK/out" 2>"$WORK/err"
    got=$?
    [ "$got" -eq "$want" ] || {
        echo "--- stdout"; cat "$WORK/out"; echo "--- stderr"; cat "$WORK/err"
        fail "$what: exit $got, expected $want"
    }
    echo "ok: $what (exit $got)"
}

# contains FILE TEXT DESCRIPTION
contains() {
    grep -qF -- "$2" "$1" || { echo "--- $1"; cat "$1"; fail "$3: no '$2'"; }
}

# lacks FILE TEXT DESCRIPTION
lacks() {
    if grep -qF -- "$2" "$1"; then echo "--- $1"; cat "$1"; fail "$3: found '$2'"; fi
}

# wait_for FILE TEXT SECONDS: until FILE contains TEXT.
wait_for() {
    i=0
    while ! grep -qF -- "$2" "$1" 2>/dev/null; do
        i=$((i + 1))
        [ "$i" -le $(($3 * 20)) ] || { echo "--- $1"; cat "$1"; fail "waited $3 s for '$2'"; }
        sleep 0.05
    done
}

# wait_count FILE TEXT N SECONDS: until N lines of FILE contain TEXT.
wait_count() {
    i=0
    while [ "$(grep -cF -- "$2" "$1" 2>/dev/null)" -lt "$3" ]; do
        i=$((i + 1))
        [ "$i" -le $(($4 * 20)) ] || { echo "--- $1"; cat "$1"; fail "waited $4 s for $3 lines with '$2'"; }
        sleep 0.05
    done
}

# running PID: alive and not a zombie (an orphan may wait for a reaper).
running() {
    [ -r "/proc/$1/stat" ] || return 1
    state=$(sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f1)
    [ "$state" != Z ]
}

# gone_within PID SECONDS WHAT: PID has ended within SECONDS, else it is
# killed and the test fails saying WHAT outlived its end.
gone_within() {
    i=0
    while running "$1"; do
        i=$((i + 1))
        [ $i -le $(($2 * 20)) ] || { kill -9 "$1"; fail "$3 outlived its end"; }
        sleep 0.05
    done
}

# missing WHAT: this test cannot run here. That fails it: a test that did
# not run must not pass for one that did. Only where the user asked for
# skips (MCP_TEST_ALLOW_SKIP=1) does it exit 77, which ctest reports as
# Skipped, and make check refuses all the same.
missing() {
    if [ "${MCP_TEST_ALLOW_SKIP:-}" = 1 ]; then
        echo "skipped: $* (MCP_TEST_ALLOW_SKIP=1)"
        exit 77
    fi
    fail "$* (make deps installs it; MCP_TEST_ALLOW_SKIP=1 skips the test instead)"
}

# requires COMMAND...: each is on PATH, or the test is missing it.
requires() {
    for cmd in "$@"; do
        command -v "$cmd" >/dev/null 2>&1 || missing "no $cmd"
    done
}

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
