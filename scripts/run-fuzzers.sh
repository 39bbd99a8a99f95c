#!/bin/sh
# SPDX-License-Identifier: MIT
# run-fuzzers.sh DIR SECONDS JOBS: fuzz every fuzz_* binary in DIR for
# SECONDS each, JOBS at a time, starting from a scratch copy of its corpus.
# Fails if any target finds a crash; the crashing input is kept in DIR.
set -eu
dir=$1
seconds=$2
jobs=$3
root=$(cd "$(dirname "$0")/.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

run_one() {
    name=${1#fuzz_}
    mkdir -p "$scratch/$name"
    cp "$root/fuzz/corpus/$name/"* "$scratch/$name/"
    log="$scratch/$name.log"
    if "$dir/$1" -max_total_time="$seconds" -print_final_stats=1 \
        -artifact_prefix="$dir/$name-" "$scratch/$name" >"$log" 2>&1; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
        echo "fuzz $name: ok, $runs executions in ${seconds}s"
    else
        echo "fuzz $name: FAILED"
        tail -n 40 "$log"
        return 1
    fi
}

status=0
pids=""
running=0
for bin in "$dir"/fuzz_*; do
    [ -x "$bin" ] || continue
    run_one "$(basename "$bin")" &
    pids="$pids $!"
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        for p in $pids; do wait "$p" || status=1; done
        pids=""
        running=0
    fi
done
for p in $pids; do wait "$p" || status=1; done
exit $status
