/* SPDX-License-Identifier: MIT */
/* The mcp command: a client for any MCP server, and a demo server. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "text.h"

static const struct {
    const char *name;
    const char *usage;
} commands[] = {
    {"serve",
     "usage: mcp serve\n"
     "       mcp serve --http [HOST:]PORT [--path P] [--allow-origin O]...\n"
     "                 [--allow-host H]... [--tls-cert FILE --tls-key FILE] [--token T]...\n"
     "                 [--response auto|json|sse] [--poll-retry MS] [--request-timeout S]\n"
     "                 [--max-connections N] [--max-per-address N]\n"
     "                 [--task-store memory|redis://[[USER]:PASS@]HOST[:PORT][/DB]]\n"
     "                 [--task-store-timeout MS] [--task-lease MS]\n"
     "                 [--auth-issuer URL --auth-resource URL [--auth-audience URL]\n"
     "                  [--auth-scope S]... [--auth-item-scope ITEM=S]...\n"
     "                  [--auth-jwks FILE | --auth-jwks-refetch S |\n"
     "                   --auth-introspect URL --auth-client-id ID\n"
     "                   --auth-client-secret-file FILE [--auth-introspect-ttl S]]]\n"
     "       (either form) [--state-key-file FILE] [--page-size N]\n"
     "\n"
     "With --http, Streamable HTTP on HOST (a numeric address; default 127.0.0.1) and\n"
     "PORT (0: any free one, printed on stderr), endpoint P (default /mcp): 2025 sessions\n"
     "and 2026-07-28 stateless requests on one endpoint; a 2026 client that closes its\n"
     "connection cancels its call. --allow-origin and --allow-host widen the DNS-rebinding\n"
     "checks (default: the loopback names when bound to loopback); --token requires\n"
     "'Authorization: Bearer T' (one of up to 16 tokens; a 2026-07-28 requestState\n"
     "given to one is refused with another); --tls-cert and --tls-key (PEM files)\n"
     "serve HTTPS.\n"
     "--poll-retry closes 2025-11-25 event streams after their first event, asking the\n"
     "client to come back (GET with Last-Event-ID) after MS milliseconds.\n"
     "--request-timeout: a request's headers and body must all arrive within S seconds\n"
     "(default 30) of its connection opening or finishing the previous one; a fifth of\n"
     "that past three quarters of --max-connections (default 1024; more: 503).\n"
     "--max-per-address: at most N connections from one IP address (of no use behind\n"
     "a proxy or on loopback, where every client has the same address).\n"
     "--state-key-file: the key that signs 2026-07-28 requestState is FILE's bytes (32\n"
     "to 1024; make one with 'head -c 32 /dev/urandom > FILE', mode 600) instead of one\n"
     "made per process: give every process behind one load balancer the same file, so\n"
     "that the answer to an input_required round may land on any of them.\n"
     "--page-size: items per page of the lists (default 100); a cursor names an item,\n"
     "so any process serving the same items in the same order reads another's.\n"
     "--task-store: where 2026-07-28 tasks live: memory (this process, the default) or\n"
     "Redis, shared by every process given the same URL: tasks/get, tasks/update and\n"
     "tasks/cancel may land on any of them, and a cancel stops the handler on the one\n"
     "running the task. Task requests get an error within --task-store-timeout (default\n"
     "1000 ms) while Redis cannot be reached. A process that dies has its running tasks\n"
     "failed by the others once its lease (--task-lease, default 3000 ms, at least 500\n"
     "and twice the timeout) runs out.\n"
     "--auth-issuer makes the server an OAuth resource server (the MCP authorization\n"
     "specification): each request needs a bearer JWT access token (RFC 9068) from that\n"
     "issuer, signed by a key of the issuer's key set, for this server (--auth-resource,\n"
     "its URL as clients reach it; or --auth-audience), holding every --auth-scope. The\n"
     "key set is fetched from the issuer's metadata (RFC 8414 or OpenID discovery; its\n"
     "\"issuer\" must be URL exactly; https, or http on loopback) before serving: the\n"
     "server does not start without it (exit 3, the reason on stderr); again when a\n"
     "token names an unknown key (at most once per --auth-jwks-refetch S, default 30),\n"
     "and hourly. --auth-jwks FILE gives the set instead, read once. Refused with 401 and a\n"
     "WWW-Authenticate challenge, 400 or 403 insufficient_scope; the Protected Resource\n"
     "Metadata is served at /.well-known/oauth-protected-resource<path of the resource>.\n"     "--auth-introspect URL: for opaque tokens, each token is asked about at that\n"
     "introspection endpoint (RFC 7662; https, or http on loopback) as client ID with\n"
     "the secret on the first line of FILE (mode 600), and the answer remembered for\n"
     "--auth-introspect-ttl S (default 60; never past the token's exp; a refusal 10 s):\n"
     "a token revoked meanwhile is honoured that long. No key set is fetched; an\n"
     "endpoint that fails gets the requests 503 with Retry-After.\n"
     "--auth-item-scope ITEM=S: a call of the tool ITEM (or prompts/get of the prompt, a\n"
     "read of the resource URI or through the URI template ITEM) also needs scope S;\n"
     "without it 403 insufficient_scope naming every scope needed. Lists show all.\n"
     "\n"
     "Without it, the demo server on stdin/stdout, for 2025-06-18, 2025-11-25 and\n"
     "2026-07-28 clients at once. Tools: echo, sleep (returns early when cancelled), count (progress),\n"
     "fail (a tool error), add_tool (adds a tool: listeners hear tools/list_changed).\n"
     "Logs go to stderr (MCP_LOG_LEVEL=debug|info|warn|error); MCP_TRACE=1 prints every\n"
     "message. SIGTERM, Ctrl-C or SIGHUP ends subscriptions gracefully, then exits with\n"
     "status 0, as the end of stdin does; SIGUSR1 adds a tool (added_1, added_2, ...), so\n"
     "subscribers hear tools/list_changed.\n"
     "\n"
     "exit codes: 0 end of input, SIGTERM, Ctrl-C or SIGHUP; 2 usage; 3 stdin or\n"
     "            stdout failed (reading failed, or writing did: the reader went\n"
     "            away, a write error, the client stopped reading), so replies may\n"
     "            be lost\n"},
    {"tools",
     "usage: mcp tools [--json] [--timeout S] [--max-time S] [--protocol P] [--trace]\n"
     "                 (-- COMMAND [ARG...] | --url URL [--header 'NAME: VALUE']...)\n"
     "\n"
     "Start COMMAND as an MCP server over stdio, or reach the Streamable HTTP server at\n"
     "URL, and list its tools (every page). Ctrl-C (or SIGTERM) ends it at once,\n"
     "killing a started server.\n"},
    {"tasks",
     "usage: mcp tasks [--json] [--timeout S] [--max-time S] [--protocol P] [--trace]\n"
     "                 (list | get ID | result ID | cancel ID | update ID JSON)\n"
     "                 (-- COMMAND [ARG...] | --url URL [--header 'NAME: VALUE']...)\n"
     "\n"
     "A server's tasks (2025-11-25): list them (every page), read one's state, wait for\n"
     "its result (printed as JSON), or cancel it (tasks/cancel). A server may keep a\n"
     "task only for the session that made it (mcp serve does): a new connection finds\n"
     "none of those. Under 2026-07-28 (the tasks extension): get (its result or error\n"
     "included), cancel, and update (JSON: the answers to its inputRequests, by key);\n"
     "that revision has no list and no result.\n"},
    {"call",
     "usage: mcp call [--timeout S] [--max-time S] [--cancel-after S] [--protocol P]\n"
     "                [--json] [--trace] [--sampling-command CMD] [--root URI]...\n"
     "                [--task [--ttl S] [--detach]] TOOL [ARGS_JSON]\n"
     "                (-- COMMAND [ARG...] | --url URL [--header 'NAME: VALUE']...)\n"
     "\n"
     "Call TOOL with ARGS_JSON (an object, default {}) on COMMAND's server, or on the\n"
     "Streamable HTTP server at URL. A progress bar shows on a terminal; Ctrl-C (or\n"
     "SIGTERM) cancels the call on the wire (over 2026-07-28 HTTP by closing its\n"
     "stream, otherwise with notifications/cancelled), then stops the server (over\n"
     "HTTP: ends a 2025 session with DELETE); a second one exits at once, killing a\n"
     "started server.\n"
     "The result's text is written byte for byte into a file or pipe; on a terminal its\n"
     "control characters but newline and tab are shown escaped (\\x1b), as everything\n"
     "else from the server always is (messages, names, descriptions, URIs, traces).\n"
     "\n"
     "The tool may ask questions (both protocol eras). A form (elicitation) is filled\n"
     "in on the terminal when stdin and stderr are one: each field is asked with its\n"
     "title and description and checked against its type, choices and limits, then\n"
     "the answer is accepted, edited, declined or cancelled; with no terminal it is\n"
     "declined, and stderr says so. A model's answer (sampling) is declined, saying\n"
     "so, unless --sampling-command CMD is given: `sh -c CMD` then reads the request\n"
     "on its stdin, one line of JSON {\"method\":\"sampling/createMessage\",\"params\":\n"
     "{...}}, and its stdout is the answer: a CreateMessageResult object, or plain\n"
     "text taken as the model's reply; a non-zero exit answers an error. The time a\n"
     "question takes counts toward --timeout. Ctrl-C while a question is open\n"
     "cancels the call.\n"
     "A page to visit (URL-mode elicitation: a sign-in, a payment) is never opened or\n"
     "fetched by mcp: on the terminal it shows the message, the whole URL and its host\n"
     "apart (warning of a user@ before the host, Punycode, plain http) and asks\n"
     "whether you accept, once you have opened it yourself in a browser: y accepts,\n"
     "anything else declines; with no terminal it is declined, and stderr says so.\n"
     "When the server says an accepted page's interaction is complete, stderr says\n"
     "so. A call the server refuses until pages are visited (error -32042) names\n"
     "them and exits 3: visit them, then call again.\n"
     "--root URI (a file:// URI; up to 16) declares roots, and roots/list is answered\n"
     "with them, in order; without it the client offers none.\n"},
    {"resources",
     "usage: mcp resources [--json] [--timeout S] [--max-time S] [--protocol P] [--trace]\n"
     "                     (-- COMMAND [ARG...] | --url URL [--header 'NAME: VALUE']...)\n"
     "\n"
     "List the server's resources (every page): URI, name, description. Ctrl-C (or\n"
     "SIGTERM) ends it at once, killing a started server.\n"},
    {"templates",
     "usage: mcp templates [--json] [--timeout S] [--max-time S] [--protocol P] [--trace]\n"
     "                     (-- COMMAND [ARG...] | --url URL [--header 'NAME: VALUE']...)\n"
     "\n"
     "List the server's resource templates (every page): URI template, name, description.\n"},
    {"read",
     "usage: mcp read [--json] [--timeout S] [--max-time S] [--protocol P] [--trace] URI\n"
     "                (-- COMMAND [ARG...] | --url URL [--header 'NAME: VALUE']...)\n"
     "\n"
     "Read the resource at URI. Into a file or pipe its contents are written byte for\n"
     "byte: text as it is, binary (a blob) decoded. On a terminal, text has its control\n"
     "characters but newline and tab shown escaped, and binary contents are summarised\n"
     "in one line (size and type). --json prints the whole result instead.\n"},
    {"prompts",
     "usage: mcp prompts [--json] [--timeout S] [--max-time S] [--protocol P] [--trace]\n"
     "                   (-- COMMAND [ARG...] | --url URL [--header 'NAME: VALUE']...)\n"
     "\n"
     "List the server's prompts (every page), each with its arguments.\n"},
    {"prompt",
     "usage: mcp prompt [--json] [--timeout S] [--max-time S] [--protocol P] [--trace]\n"
     "                  NAME [ARGS_JSON]\n"
     "                  (-- COMMAND [ARG...] | --url URL [--header 'NAME: VALUE']...)\n"
     "\n"
     "Get the prompt NAME with ARGS_JSON, a JSON object whose values are strings\n"
     "(default {}), and print its messages: each role in brackets, then its text (as\n"
     "mcp call prints a result) or a line naming other content.\n"},
    {"complete",
     "usage: mcp complete [--json] [--timeout S] [--max-time S] [--protocol P] [--trace]\n"
     "                    (--prompt NAME | --template URI) [--context JSON] ARG VALUE\n"
     "                    (-- COMMAND [ARG...] | --url URL [--header 'NAME: VALUE']...)\n"
     "\n"
     "Ask for completions of the argument ARG of the prompt NAME or of the resource\n"
     "template URI, typed so far as VALUE (may be ''), one per line (at most 100; the\n"
     "total and whether there are more on stderr). --context gives the arguments\n"
     "already chosen, a JSON object of strings.\n"},
    {"watch",
     "usage: mcp watch [--tools] [--prompts] [--resources] [--resource URI]...\n"
     "                 [--timeout S] [--protocol P] [--json] [--trace]\n"
     "                 (-- COMMAND [ARG...] | --url URL [--header 'NAME: VALUE']...)\n"
     "\n"
     "Open a subscription (2026-07-28 subscriptions/listen) and print each notification\n"
     "as it arrives, until Ctrl-C, which cancels the subscription on the wire (a second\n"
     "Ctrl-C exits at once, killing the server). Without a filter, --tools. Against a\n"
     "legacy server, prints the list_changed notifications asked for (over HTTP, from\n"
     "its GET stream), and subscribes to each --resource URI (resources/subscribe),\n"
     "printing its updates. If the server exits (or the HTTP stream breaks, or the session ends), it\n"
     "is started again (reached again) and the subscription opened again, waiting 0, 1,\n"
     "2, 4 ... 60 s between attempts; it gives up (exit 3) after 5 attempts in a row\n"
     "(10 over HTTP, about 4 minutes), or when a 2025 server refuses its GET stream (405)\n"
     "or that stream failed 10 times in a row.\n"},
    {"check-cancel",
     "usage: mcp check-cancel [--protocol 2026-07-28|2025-11-25|2025-06-18]\n"
     "                        [--tool NAME [--args JSON]] [--trials N] [--json] [--strict]\n"
     "                        [--trace] (-- COMMAND [ARG...] | --url URL [--header 'N: v']...)\n"
     "       mcp check-cancel --client [--protocol 2025-11-25|2026-07-28] [--wait S]\n"
     "                        [--json] [--strict] [--trace]\n"
     "                        -- CLIENT_COMMAND [ARG...]\n"
     "\n"
     "Checks whether the server (the stdio COMMAND, or the Streamable HTTP endpoint URL,\n"
     "each --header on every request) honours cancellation, rule by rule: a cancelled\n"
     "call gets no response and its progress stops; the server stays usable;\n"
     "cancels of an unknown id, a finished request, malformed params, or an id of the\n"
     "other JSON type are ignored without a reply; progress increases and comes only\n"
     "for requests that gave a token. The revision is --protocol, else the one the\n"
     "server speaks (server/discover, else initialize). 2025 over HTTP: the cancel is\n"
     "posted, and a dropped connection must not cancel (the result comes on resume,\n"
     "when the server gives event ids). 2026-07-28: the server never sends\n"
     "notifications/cancelled; over HTTP the cancel is closing the call's stream (what\n"
     "the server then does is not observable: SKIP), and a new call must work after.\n"
     "With tasks (2025-11-25), the long tool also runs as a task: tasks/cancel answers\n"
     "with the task cancelled, which stays so past the run's end, and a terminal or\n"
     "unknown task's cancel gets -32602; with the 2026-07-28 tasks extension, the\n"
     "cancel is acknowledged and an unknown task's refused. Under 2026-07-28 a\n"
     "subscriptions/listen is opened and cancelled: acknowledged first, nothing of it\n"
     "after the cancel.\n"
     "Each check is PASS, FAIL (a MUST broken), WARN (a SHOULD broken) or SKIP (and\n"
     "why), with the rule and revision it checks; then the time from the cancel to\n"
     "the last message for the request, p50 and p99 over --trials (5). The long tool\n"
     "is --tool, else the first whose parameters look like a duration, a delay or a\n"
     "count.\n"
     "--client checks a client instead: it plays a 2025-11-25 (or --protocol) stdio server to\n"
     "CLIENT_COMMAND, whose server command is appended to it (this program as a relay:\n"
     "check-cancel --relay SOCKET), once per scenario, named to the client in\n"
     "MCP_CHECK_CANCEL_SCENARIO: timeout (a tool that never answers: the client's\n"
     "cancel when it gives up, with the call's id; the late answer then sent is\n"
     "ignored), initialize (2025 only; never answered: never cancelled), task (a tool run as a\n"
     "task that never ends: cancelled with tasks/cancel, not notifications/cancelled).\n"
     "The client's timeout is its own; each scenario is watched --wait S (20).\n"
     "exit: 0 nothing failed (--strict: nor warned), 1 something did, 2 usage, 3 the\n"
     "server could not be reached (--client: the client never ran the server).\n"},
    {"proxy",
     "usage: mcp proxy --url URL [--header 'NAME: VALUE']... [--ca-file F]\n"
     "                 [--protocol P] [--max-message BYTES] [--trace]\n"
     "\n"
     "Offer the Streamable HTTP server at URL on stdin/stdout, for clients that only\n"
     "start processes: each line the client writes (a JSON-RPC message) goes to the\n"
     "server, each message of the server's (responses, progress, logs, its requests:\n"
     "sampling, elicitation) comes back as one line, unchanged. The era follows the\n"
     "client: a request with the 2026-07-28 _meta envelope goes as that revision\n"
     "wants, and its cancel closes its HTTP stream; after a 2025 initialize the\n"
     "session's id, GET stream and resumption are the proxy's business, and a cancel\n"
     "is posted. A request whose HTTP exchange fails (server unreachable, an HTTP\n"
     "error, a broken stream) is answered with a JSON-RPC error (-32603, the HTTP\n"
     "status in data.httpStatus), said on stderr too. A line that is not JSON gets a\n"
     "-32700 error (id null); one over --max-message (default 4194304 bytes, also the\n"
     "cap of the server's messages) an error for its id; the proxy stays up.\n"
     "The end of stdin, a reader of stdout that went away, SIGINT, SIGTERM or SIGHUP\n"
     "cancel every request still unanswered (each era's way; never initialize, nor a\n"
     "request still waiting for its answer), end a 2025 session (DELETE), and exit once\n"
     "the server has taken that, or after 2 s. A cancel naming no request in flight\n"
     "is not sent.\n"
     "--header and --ca-file as for the other commands; the authorization kept by\n"
     "'mcp auth login URL' is used unless a header gives Authorization. --protocol P\n"
     "carries revision P only: a request of another is answered with an error.\n"
     "--trace prints every line crossing on stderr.\n"
     "\n"
     "exit codes: 0 end of input; 2 usage; 3 stdout failed; 129 SIGHUP; 130 SIGINT;\n"
     "143 SIGTERM\n"
     "\n"
     "usage: mcp proxy --http [HOST:]PORT [--max-children N] [options of mcp serve --http]\n"
     "                 -- COMMAND [ARG...]\n"
     "\n"
     "Offer the stdio server COMMAND over Streamable HTTP. COMMAND is run once first,\n"
     "to learn what it declares (its capabilities, name and instructions become the\n"
     "proxy's). A 2025 session gets a run of COMMAND of its own, started at its first\n"
     "request and ended with the session (its stdin closed, SIGTERM 2 s later,\n"
     "SIGKILL 2 s after that); 2026-07-28 requests share one run, started at the\n"
     "first and again after it dies, spoken to in 2025-11-25 (results get the 2026\n"
     "envelope and caching hints). A request the client cancels (a posted cancel, or\n"
     "under 2026-07-28 its HTTP request closed) is cancelled on COMMAND with COMMAND's\n"
     "id; progress comes back; a 2025 session's COMMAND may ask its client (sampling,\n"
     "elicitation, roots) and notify it. A 2026-07-28 call that may ask (the client\n"
     "declared sampling, elicitation or roots) runs on a run of its own (one call at\n"
     "a time, kept 30 s for the next), held across input-required rounds: COMMAND's\n"
     "question ends the request as input_required, the retry's answer goes to\n"
     "COMMAND's call (its requestState names a call held in this process: good only\n"
     "here, whatever --state-key-file says). When COMMAND runs tools as 2025-11-25\n"
     "tasks, a 2026-07-28 client that declares the tasks extension gets tasks of the\n"
     "proxy's (tasks/get, tasks/update, tasks/cancel; COMMAND's task behind each).\n"
     "A COMMAND that exits answers what it had in\n"
     "flight at once (-32603, naming its exit status), and a 2025 session ends with\n"
     "its run (its next request gets 404: initialize again). 2026-07-28 listens of\n"
     "resources have the shared run subscribed to them. --max-children N (default\n"
     "64): runs of COMMAND at once; a request past it (or whose run cannot start) is\n"
     "refused with HTTP 503 and Retry-After, and an idle run (or one whose call has\n"
     "waited over a minute for its client) is ended to make room for the next try.\n"
     "The options of mcp serve --http (--path, --tls-cert, --allow-origin, --token,\n"
     "--auth-*, ...) apply as there. SIGTERM, SIGINT and SIGHUP stop it: every\n"
     "COMMAND is ended.\n"
     "\n"
     "exit codes: 0 stopped; 2 usage; 3 COMMAND could not be used, or the listener\n"
     "failed; 130 or 143 Ctrl-C or SIGTERM while COMMAND's first run is asked what it\n"
     "declares (that run ended with its process group)\n"},
    {"auth",
     "usage: mcp auth login URL [--scope S] [--open] [--timeout S] [--ca-file F]\n"
     "                [--client-id ID [--client-secret-file F] | --client-metadata-url U]\n"
     "                [--client-credentials] [--dpop] [--without-s256]\n"
     "       mcp auth status [URL] [--json]\n"
     "       mcp auth logout URL\n"
     "\n"
     "login authorizes mcp at the HTTP server at URL (OAuth 2.1, as the MCP\n"
     "specification says): it finds the server's authorization server, registers\n"
     "(dynamically unless --client-id or --client-metadata-url says who mcp is there),\n"
     "and prints the page to open in a browser, its host apart; --open hands it to\n"
     "xdg-open. The browser comes back to a listener of mcp on 127.0.0.1; the tokens\n"
     "are kept in a file for URL under $XDG_CONFIG_HOME/mcp/auth (~/.config/mcp/auth),\n"
     "mode 0600 (a file others may read is refused). --client-credentials: no user,\n"
     "the client's own credentials (--client-id, --client-secret-file). Every command\n"
     "with --url URL then sends the kept token, refreshed when it expires; when a new\n"
     "authorization is needed it fails, saying to log in again. --timeout: how long\n"
     "the browser may take (300 s). status shows what is kept (issuer, scope, expiry;\n"
     "never the tokens); logout forgets it.\n"},
};

static const char common_options[] =
    "\n"
    "  --timeout S       give up after S seconds without an answer or progress (60);\n"
    "                    bounds connecting too, and (watch) the wait for the\n"
    "                    subscription's acknowledgment\n"
    "  --max-time S      give up after S seconds in all, connecting included (1800)\n"
    "  --cancel-after S  (call) cancel the call after S seconds, as Ctrl-C would\n"
    "  --sampling-command CMD  (call) answer the server's sampling requests with CMD\n"
    "  --root URI        (call) a root to declare and list (a file:// URI); repeatable\n"
    "  --task            (call) run the call as a task (2025-11-25; a tool whose listing\n"
    "                    says it must be one runs as one anyway; 2026-07-28: declare\n"
    "                    the tasks extension, the server decides): its status changes\n"
    "                    show on stderr, Ctrl-C sends tasks/cancel and prints the\n"
    "                    state it ended in\n"
    "  --ttl S           (call) ask for the task to be kept S seconds (implies --task)\n"
    "  --detach          (call) start the task, print its id (its Task with --json)\n"
    "                    and exit (implies --task); 2026-07-28 only (a 2025 task\n"
    "                    ends with its session, which ends with the command)\n"
    "  --protocol P      2025-06-18, 2025-11-25, 2026-07-28 or auto (default: probe\n"
    "                    with server/discover, fall back to initialize)\n"
    "  --json            print results as JSON\n"
    "  --trace           print every message on stderr (-> sent, <- received)\n"
    "  --url URL         the server is the Streamable HTTP endpoint at URL (http:// or\n"
    "                    https://, certificates checked), instead of -- COMMAND\n"
    "  --header 'N: V'   (with --url) send this header with every HTTP request, for\n"
    "                    example 'Authorization: Bearer TOKEN'; repeatable\n"
    "  --ca-file F       (with --url) trust the certificates in the PEM file F\n"
    "\n"
    "  S is a decimal number of seconds (2, 0.5); below 1 ms counts as 1 ms.\n"
    "\n"
    "Every command declares the same client capabilities (sampling, elicitation) and\n"
    "answers the server's questions as mcp call does; the server's log messages\n"
    "(notifications/message) are shown on stderr at the level it sent.\n"
    "\n"
    "exit codes: 0 success, 1 tool error or the output could not be written, 2 usage,\n"
    "            3 connection or protocol error, 4 timed out, 130 cancelled (Ctrl-C,\n"
    "            --cancel-after), 143 terminated\n";

void cli_usage(const char *command, bool to_stdout)
{
    FILE *f = to_stdout ? stdout : stderr;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!command || !strcmp(command, commands[i].name)) {
            fputs(commands[i].usage, f);
            if (command && strcmp(command, "serve") != 0 && strcmp(command, "auth") != 0 &&
                strcmp(command, "check-cancel") != 0 && strcmp(command, "proxy") != 0)
                fputs(common_options, f);
            if (!command)
                fputc('\n', f);
        }
    if (!command) {
        fputs("       mcp --version | --help\n", f);
        fputs(common_options, f);
    }
}

/* A standard descriptor that is closed (a supervisor's `<&-`, `>&-`, `2>&-`)
 * would be taken by the next descriptor opened, an internal pipe or the
 * loop's own, which then gets written to as if it were stdout, or closed as
 * stdin by whoever thinks it is. Hold the slot with /dev/null, read-only:
 * writes to stdout or stderr fail (EBADF), as they would have on the closed
 * descriptor, instead of vanishing in success; stdin reads as empty, so
 * `mcp serve <&-` is a conversation that ends at once (exit 0). (The
 * library reserves the slots too, but so that reading stdin fails: it
 * finds them taken here.) Inherited by the server mcp starts, whose stderr
 * is ours. */
static void hold_closed_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        int got = open("/dev/null", O_RDONLY); /* the lowest free slot: fd */
        if (got >= 0 && got != fd) {
            dup2(got, fd);
            close(got);
        }
    }
}

static int run(int argc, char **argv)
{
    if (argc >= 2) {
        const char *c = argv[1];
        if (!strcmp(c, "serve"))
            return cli_serve(argc - 2, argv + 2);
        if (!strcmp(c, "tools"))
            return cli_tools(argc - 2, argv + 2);
        if (!strcmp(c, "tasks"))
            return cli_tasks(argc - 2, argv + 2);
        if (!strcmp(c, "call"))
            return cli_call(argc - 2, argv + 2);
        if (!strcmp(c, "watch"))
            return cli_watch(argc - 2, argv + 2);
        if (!strcmp(c, "auth"))
            return cli_auth(argc - 2, argv + 2);
        if (!strcmp(c, "check-cancel"))
            return cli_check_cancel(argc - 2, argv + 2);
        if (!strcmp(c, "proxy"))
            return cli_proxy(argc - 2, argv + 2);
        static const struct {
            const char *name;
            int (*run)(int, char **);
        } features[] = {{"resources", cli_resources}, {"templates", cli_templates},
                        {"read", cli_read},           {"prompts", cli_prompts},
                        {"prompt", cli_prompt},       {"complete", cli_complete}};
        for (size_t i = 0; i < sizeof features / sizeof features[0]; i++)
            if (!strcmp(c, features[i].name))
                return features[i].run(argc - 2, argv + 2);
    }
    if (argc > 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "--help") ||
                     !strcmp(argv[1], "-h"))) {
        fprintf(stderr, "mcp: unexpected argument '%s' after %s\ntry 'mcp --help'\n",
                cli_safe(argv[2]), argv[1]);
        return EXIT_USAGE;
    }
    if (argc == 2 && strcmp(argv[1], "--version") == 0) {
        printf("mcp %s (protocol revisions 2026-07-28, 2025-11-25, 2025-06-18)\n",
               mcp_version());
        return 0;
    }
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        cli_usage(NULL, true);
        return 0;
    }
    if (argc < 2)
        fputs("mcp: missing command\n", stderr);
    else
        fprintf(stderr, "mcp: unknown command or option '%s'\n", cli_safe(argv[1]));
    cli_usage(NULL, false);
    return EXIT_USAGE;
}

int main(int argc, char **argv)
{
    hold_closed_std_fds();
    /* Output that fits the buffer is written at the end, where a failure
     * is seen with its reason (a full disk); the usage text alone is more
     * than the default 4 KiB. Streams (watch) flush each line themselves. */
    static char out_buffer[1 << 16];
    if (!isatty(STDOUT_FILENO))
        setvbuf(stdout, out_buffer, _IOFBF, sizeof out_buffer);
    int code = run(argc, argv);
    /* What went to stdout (a result, a list, --help) must have arrived:
     * a full disk or a closed stdout is a failure, not a success. */
    if (!cli_output_ok() && code == 0)
        code = EXIT_OUTPUT;
    return code;
}
