#!/bin/sh
# SPDX-License-Identifier: MIT
# Every line of `make bench` for two trees in one run: an older commit (a
# git worktree, built the same way) and this one. The benchmarks run
# alternately, RUNS times each, so that what the machine is doing meanwhile
# falls on both; each figure is the median of its runs.
#
#   bench/compare.sh OLD_TREE NEW_TREE [RUNS]
#
# Each tree is a checkout whose build/ holds its mcp and bench/ programs
# (make build) and whose tests/interop has its npm packages (make
# interop-deps). Prints, per figure, the old and new medians and new/old,
# and marks a figure that moved more than 5% the wrong way with "worse":
# for rates and ratios higher is better; for times, latencies and bytes
# lower is.
set -eu
[ $# -ge 2 ] || { echo "usage: bench/compare.sh OLD_TREE NEW_TREE [RUNS]" >&2; exit 2; }
OLD=$(cd "$1" && pwd)
NEW=$(cd "$2" && pwd)
RUNS=${3:-3}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# bench TREE OUT: every benchmark of the tree, as make bench runs them.
bench() {
    t=$1
    b=$t/build
    node=$t/tests/interop/node_modules/.bin/node
    {
        "$b/bench/bench_json" "$t/bench/data/tools_call_1k.json"
        "$b/bench/bench_stdio" "$b/mcp" "$b/bench/bench_server" "$b/bench/echo_peer" \
            "$node" "$t/tests/interop/ts_echo_server.mjs" "$t/tests/interop/ts2_echo_server.mjs"
        # Trees from before it have no such line (nor bench_stdio --calls).
        if [ -f "$t/bench/stdio_instructions.sh" ]; then
            sh "$t/bench/stdio_instructions.sh" "$b/mcp" "$b/bench/bench_stdio"
        fi
        sh "$t/bench/bench_http.sh" "$b/mcp" "$b/bench/bare_mhd" "$node" "$t/tests/interop"
        "$b/bench/bench_http_streams"
        "$b/bench/bench_schema" "$t/bench/data/search_documents.schema.json" \
            "$t/bench/data/tools_call_1k.json" "$node" "$t/tests/interop" \
            "$t/bench/ajv_validate.mjs"
    } >"$2" 2>"$2.err" || { cat "$2.err" >&2; exit 1; }
}

i=1
while [ "$i" -le "$RUNS" ]; do
    echo "run $i of $RUNS: old" >&2
    bench "$OLD" "$WORK/old.$i"
    echo "run $i of $RUNS: new" >&2
    bench "$NEW" "$WORK/new.$i"
    i=$((i + 1))
done

# One row per (line label, key): "label|key value" from "label: k=v k=v"
# or "label: v".
cat "$WORK"/old.* | awk -v side=old '{ print side "\t" $0 }' >"$WORK/all"
cat "$WORK"/new.* | awk -v side=new '{ print side "\t" $0 }' >>"$WORK/all"
awk -F '\t' '
function lower_better(label, key) {
    if (key ~ /^(ratio|of_bare|of_2025)$/) return 0
    if (label ~ /instructions/) return 1
    if (key ~ /^(p50|p99|rss_per_stream)$/) return 1
    if (label ~ /(bytes|latency|disconnect| us)/) return 1
    if (label ~ /^(json|schema)/) return 1   # nanoseconds per operation
    return 0
}
function median(list,    n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
    side = $1
    line = $2
    c = index(line, ": ")
    if (!c) next
    label = substr(line, 1, c - 1)
    rest = substr(line, c + 2)
    n = split(rest, f, " ")
    for (i = 1; i <= n; i++) {
        key = f[i]; val = f[i]
        if (index(f[i], "=")) { key = substr(f[i], 1, index(f[i], "=") - 1); val = substr(f[i], index(f[i], "=") + 1) }
        else key = "value"
        sub(/%$/, "", val)
        if (val !~ /^[0-9.]+$/) continue
        id = label "|" key
        if (!(id in seen)) { seen[id] = 1; order[++k] = id }
        vals[side, id] = vals[side, id] " " val
    }
}
END {
    for (i = 1; i <= k; i++) {
        id = order[i]
        if (!((("old", id) in vals) && (("new", id) in vals))) continue
        o = median(vals["old", id]); nw = median(vals["new", id])
        split(id, p, "|")
        r = o ? nw / o : 0
        lb = lower_better(p[1], p[2])
        mark = (o && ((lb && r > 1.05) || (!lb && r < 0.95))) ? "  worse" : ""
        printf "%-60s %-14s old=%-10s new=%-10s new/old=%.3f%s\n", p[1], p[2], o, nw, r, mark
    }
}' "$WORK/all"
