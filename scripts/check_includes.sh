#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The layers of docs/architecture.md, checked on the includes: a folder
# includes only the headers its layer may see (arrows point down). Every
# #include of the project's own headers in src/, tools/, examples/,
# bench/ and fuzz/ is classified by the layer it belongs to and checked
# against the rules below; libuv, libmicrohttpd and libcurl count as
# layers too (the engine and what is offered do no I/O), and so does hiredis
# (only the tasks kept in Redis talk to it).
#
#   scripts/check_includes.sh [ROOT]    exit 0: every include allowed;
#                                       exit 1: each violation printed
#   scripts/check_includes.sh --prove [ROOT]
#                                       the check itself: a copy of the
#                                       sources with includes that break
#                                       the layers must fail it, each named
#
# tests/ is not checked: a test includes the internals of the layer it
# tests, whatever that layer is.
set -eu

if [ "${1:-}" = "--prove" ]; then
    root=$(cd "${2:-.}" && pwd)
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    for d in src tools examples bench fuzz; do
        [ -d "$root/$d" ] && cp -R "$root/$d" "$tmp/"
    done
    echo '#include "server/core/core.h"' >>"$tmp/src/session/session.c"
    echo '#include "server/ask/ask.h"' >>"$tmp/src/server/core/conn.c"
    echo '#include <uv.h>' >>"$tmp/src/server/offer/registry.c"
    echo '#include "runtime/internal.h"' >>"$tmp/examples/server.c"
    if out=$(sh "$0" "$tmp"); then
        echo "check_includes --prove: includes against the layers were not seen" >&2
        exit 1
    fi
    for f in src/session/session.c src/server/core/conn.c src/server/offer/registry.c \
             examples/server.c; do
        echo "$out" | grep -q "^$f:" || {
            echo "check_includes --prove: the bad include in $f was not named" >&2
            echo "$out" >&2
            exit 1
        }
    done
    echo "check_includes --prove: all 4 bad includes refused"
    exit 0
fi

cd "${1:-.}"

files=$(find src tools examples bench fuzz -name '*.[ch]' 2>/dev/null | LC_ALL=C sort)
[ -n "$files" ] || { echo "check_includes: no sources under ${1:-.}" >&2; exit 1; }

# shellcheck disable=SC2086
grep -HnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]' $files | LC_ALL=C awk '
BEGIN {
    # unit: the layers it may include besides its own and the public
    # headers of the lower layers (mcp/*.h but client.h, server.h, mcp.h).
    low = "core json jsonrpc schema uri_template jose"
    allow["core"] = ""
    allow["jose"] = "json core"
    allow["json"] = "core"
    allow["jsonrpc"] = "json core"
    allow["uri_template"] = "core"
    allow["schema"] = "json core"
    allow["session"] = "jsonrpc json core"
    allow["runtime"] = "transport session " low " libuv"
    allow["transport"] = "runtime " low " libuv libmicrohttpd libcurl"
    allow["client"] = "client-api session runtime transport " low " libuv libcurl"
    below_server = "server-api session runtime transport " low " libuv"
    allow["server/offer"] = "server-api " low
    allow["server/core"] = "server/offer " below_server
    allow["server/methods"] = "server/core server/offer " below_server
    allow["server/ask"] = "server/methods server/core server/offer " below_server
    allow["server/tasks"] = "server/methods server/core server/offer " below_server " hiredis"
    allow["server/gateway"] = "server/methods server/core server/offer " below_server
    allow["server/http"] = "server/auth server/core server/offer " below_server " libmicrohttpd"
    allow["server/auth"] = below_server
    allow["server/stdio"] = "server/core server/offer " below_server
    # src/server/features.c: the list of features, above them all.
    allow["server"] = "server/ask server/tasks server/gateway server/methods server/core server/offer server/http " \
                      "server/stdio " below_server
    # The programs: the public API only (the mcp command also runs its own
    # libuv loop; the bare libmicrohttpd server is a benchmark reference).
    allow["tools"] = "client-api server-api umbrella libuv"
    allow["examples"] = "client-api server-api umbrella"
    # bench_jwt times one low unit, the JWT check.
    allow["bench"] = "client-api server-api umbrella libmicrohttpd jose core"
    # Fuzz targets drive the units below the server and client directly,
    # and the readers of what servers send to the client (client/auth).
    allow["fuzz"] = "client-api server-api umbrella transport " low " session client"

    # Named exceptions: code that breaks the rules today, each with why and
    # what removes it. Format: "file include".
    # The server checks a URL elicitation with the client rule for a URL
    # a browser can open (mcp_elicitation_url_host), so both sides agree;
    # the rule belongs below both (src/core), then this goes.
    exception["src/server/ask/url_elicitation.c mcp/client.h"] = 1
    # mcp check-cancel speaks raw Streamable HTTP (it must drop a stream
    # mid-call and resume it, which no client of the library does) with
    # libcurl, reading event streams and header values with the library
    # own transport helpers rather than a second copy of them; a public
    # SSE decoder would remove the transport ones.
    exception["tools/mcp/check_http.c curl/curl.h"] = 1
    exception["tools/mcp/check_http.c transport/sse.h"] = 1
    exception["tools/mcp/check_http.c transport/http_headers.h"] = 1
}

function unit_of(f,    n, p) {
    n = split(f, p, "/")
    if (p[1] == "src" && p[2] == "server")
        return n >= 4 ? "server/" p[3] : "server"
    if (p[1] == "src")
        return p[2]
    return p[1]
}

function layer_of(inc, quoted,    n, p) {
    if (inc == "uv.h") return "libuv"
    if (inc == "microhttpd.h") return "libmicrohttpd"
    if (inc ~ /^curl\//) return "libcurl"
    if (inc ~ /^hiredis\//) return "hiredis"
    if (inc == "mcp/client.h") return "client-api"
    if (inc == "mcp/server.h") return "server-api"
    if (inc == "mcp/mcp.h") return "umbrella"
    if (inc ~ /^mcp\//) return "public"
    if (!quoted) return "system"
    n = split(inc, p, "/")
    if (n == 1) return "local"
    if (p[1] == "server") return n > 2 ? "server/" p[2] : "server"
    return p[1]
}

function allowed(u, l,    list, i, n, a) {
    if (l == "public" || l == "local" || l == "system" || l == u) return 1
    # A folder of the server sees its own header; the server band sees
    # its public header.
    if (u ~ /^server/ && l == "server-api") return 1
    if (u == "client" && l == "client-api") return 1
    n = split(allow[u], a, " ")
    for (i = 1; i <= n; i++)
        if (a[i] == l) return 1
    return 0
}

{
    # file:line:#include "x" or <x>
    file = $0; sub(/:.*/, "", file)
    rest = $0; sub(/^[^:]*:/, "", rest)
    line = rest; sub(/:.*/, "", line)
    quoted = index(rest, "\"") > 0
    inc = rest; sub(/^[^<"]*[<"]/, "", inc); sub(/[>"].*$/, "", inc)
    u = unit_of(file)
    if (!(u in allow)) {
        printf "%s:%s: no layer rule for %s (add it to scripts/check_includes.sh)\n", file, line, u
        bad++
        next
    }
    l = layer_of(inc, quoted)
    if (allowed(u, l) || ((file " " inc) in exception))
        next
    printf "%s:%s: %s (layer %s) may not include \"%s\" (layer %s)\n", file, line, file, u, inc, l
    bad++
}

END {
    if (bad) {
        printf "check_includes: %d include(s) against the layers (docs/architecture.md)\n", bad
        exit 1
    }
}
'
