/* SPDX-License-Identifier: MIT */
/*
 * The ceiling of bench_http's 2026-07-28 rate: libmicrohttpd alone, answering
 * every request with a fixed 40-byte JSON body, in the thread model measured
 * fastest before HTTP was built (docs: epoll, its own pool of 2 threads).
 * Prints "listening PORT"; runs until SIGTERM.
 */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char body[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}   ";

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **state)
{
    (void)cls, (void)url, (void)method, (void)version, (void)upload;
    if (!*state) {
        *state = (void *)1;
        return MHD_YES;
    }
    if (*upload_size) {
        *upload_size = 0; /* read and dropped */
        return MHD_YES;
    }
    struct MHD_Response *r =
        MHD_create_response_from_buffer(sizeof body - 1, (void *)body, MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(r, "Content-Type", "application/json");
    enum MHD_Result rc = MHD_queue_response(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return rc;
}

int main(void)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_TURBO, 0, NULL, NULL, on_request, NULL,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa, MHD_OPTION_THREAD_POOL_SIZE, 2u,
        MHD_OPTION_CONNECTION_LIMIT, 1024u, MHD_OPTION_END);
    if (!d) {
        perror("bare_mhd: MHD_start_daemon");
        return 1;
    }
    printf("listening %u\n", (unsigned)MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port);
    fflush(stdout);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigprocmask(SIG_BLOCK, &set, NULL);
    int sig;
    sigwait(&set, &sig);
    MHD_stop_daemon(d);
    return 0;
}
