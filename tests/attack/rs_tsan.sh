#!/bin/sh
# SPDX-License-Identifier: MIT
# The key-set refetch under ThreadSanitizer: a worker posted its result and
# then unlocked the job's mutex, while the loop, woken by the post, could
# already have freed the job (http_keys.c job_run / job_posted). Builds
# SRC/build-tsan if needed, runs the refetching cases of rs_keys.py, and
# fails on any ThreadSanitizer report.
#   rs_tsan.sh [SRC]
set -e
SRC=${1:-$(dirname "$0")/../..}
B="$SRC/build-tsan"
[ -x "$B/mcp" ] || {
    cmake -S "$SRC" -B "$B" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS=-fsanitize=thread \
        -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread >/dev/null
    nice make -C "$B" -j1 mcp_cli >/dev/null
}
LOG=$(mktemp -d)
trap 'rm -rf "$LOG"' EXIT
TSAN_OPTIONS="log_path=$LOG/tsan" python3 "$(dirname "$0")/rs_keys.py" "$B/mcp" \
    "rotation with a cached token" "flood of unknown kids" "AS gone" "SIGTERM during a refetch" || true
if ls "$LOG"/tsan.* >/dev/null 2>&1; then
    grep -h -A4 "WARNING: ThreadSanitizer" "$LOG"/tsan.* | head -40
    echo "FAIL: ThreadSanitizer reports"
    exit 1
fi
echo "ok: no ThreadSanitizer report"
