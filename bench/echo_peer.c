/* SPDX-License-Identifier: MIT */
/*
 * The raw limit for bench_stdio: answers every request with a canned
 * response carrying its id, without any MCP machinery: what a pipe and a
 * trivial process cost. One write per read, like a server that answers
 * everything that has arrived.
 */
#include <string.h>
#include <unistd.h>

static const char init_result[] =
    "\"result\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{}},"
    "\"serverInfo\":{\"name\":\"echo-peer\",\"version\":\"0\"}}}\n";
static const char call_result[] =
    "\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"x\"}]}}\n";

static char in[1 << 20], out[1 << 21];
static size_t in_len, out_len;

static void put(const char *s, size_t n)
{
    memcpy(out + out_len, s, n);
    out_len += n;
}

static int flush_out(void)
{
    for (size_t off = 0; off < out_len;) {
        ssize_t w = write(1, out + off, out_len - off);
        if (w <= 0)
            return -1;
        off += (size_t)w;
    }
    out_len = 0;
    return 0;
}

int main(void)
{
    for (;;) {
        ssize_t r = read(0, in + in_len, sizeof in - in_len);
        if (r <= 0)
            return 0;
        in_len += (size_t)r;
        char *line = in, *nl;
        while ((nl = memchr(line, '\n', (size_t)(in + in_len - line)))) {
            *nl = '\0';
            char *id = strstr(line, "\"id\":");
            if (id && out_len < sizeof out - 512) {
                id += 5;
                put("{\"jsonrpc\":\"2.0\",\"id\":", 22);
                put(id, strcspn(id, ",}"));
                put(",", 1);
                if (strstr(line, "\"initialize\""))
                    put(init_result, sizeof init_result - 1);
                else
                    put(call_result, sizeof call_result - 1);
            }
            line = nl + 1;
        }
        in_len = (size_t)(in + in_len - line);
        memmove(in, line, in_len);
        if (flush_out() != 0)
            return 0;
    }
}
