/* Session engine internals, shared by the files of src/session. */
#ifndef MCP_SESSION_INTERNAL_H
#define MCP_SESSION_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/u64map.h"
#include "mcp/session.h"

/* ------------------------------------------------------------------------ */
/* Eras: what each protocol revision allows, as data (see era.c).           */

typedef struct mcp__era {
    const char *version;
    bool speaks;          /* fully supported; otherwise accepted as an older peer */
    bool initialize;      /* the session starts with initialize (legacy) */
    bool batches;         /* JSON-RPC batches must be received (2025-03-26) */
    bool client_cancels;  /* a client may cancel its requests */
    bool server_cancels;  /* a server may cancel its requests */
} mcp__era;

/* The era of `version` (exact match), or NULL for a revision we neither
 * speak nor accept. */
const mcp__era *mcp__era_find(const char *version, size_t len);
/* The newest revision we speak. */
const mcp__era *mcp__era_latest(void);

/* ------------------------------------------------------------------------ */
/* Inbound requests: a slab of entries addressed by generation-checked
 * handles, so a handle of a settled request can never reach a new one.     */

enum inbound_state {
    IN_FREE = 0,
    IN_RECEIVED, /* registered, handler not yet started */
    IN_RUNNING   /* handed to on_request */
};

typedef struct inbound {
    uint32_t gen;       /* bumped on every release */
    uint8_t state;
    uint8_t has_token;
    uint8_t sent_progress;
    uint32_t next_free; /* free list link (index + 1), 0 = end */
    uint32_t hash;      /* of the id, for the id index */
    mcp_message *msg;   /* one reference held while in flight */
    mcp_id token;       /* progress token, borrowed from msg */
    double last_progress;
    uint64_t route;
    uint64_t start;
} inbound;

#define INBOUND_CHUNK 1024u

/* Open addressing index from the peer's request id to a slab slot. */
typedef struct idmap {
    uint32_t *slots; /* slab index + 1; 0 = empty */
    uint32_t size;   /* power of two, or 0 */
    uint32_t count;
} idmap;

/* ------------------------------------------------------------------------ */
/* Outbound requests                                                         */

typedef struct outbound {
    int64_t id; /* our JSON-RPC id; also the handle */
    char *method;
    bool cancellable; /* false for initialize: settle locally instead */
    bool internal_init;
    mcp_progress_mode progress;
    bool got_progress;
    double last_progress;
    uint64_t start;
    uint64_t idle_ms, max_ms;
    uint64_t idle_deadline, max_deadline;
    size_t heap_index;
    mcp_response_fn cb;
    mcp_progress_fn progress_cb;
    void *user_data;
} outbound;

typedef struct timer_heap {
    outbound **items;
    size_t count, cap;
} timer_heap;

/* ------------------------------------------------------------------------ */

enum lifecycle {
    LC_NEW = 0,       /* server: waiting for initialize; client: not started */
    LC_INITIALIZING,  /* client: initialize sent */
    LC_READY,         /* initialize done */
};

struct mcp_session {
    mcp_mem mem;
    mcp_role role;
    mcp_session_callbacks cb;
    mcp_log_level log_level;
    char *name, *version, *instructions;
    mcp_json_doc *caps_doc; /* our capabilities (a copy) */
    uint64_t timeout_ms, max_time_ms;
    unsigned max_inbound;
    mcp_json_parse_options parse;

    enum lifecycle lifecycle;
    bool peer_initialized; /* server: notifications/initialized received */
    bool closed;
    const mcp__era *era;
    mcp_message *peer_msg; /* initialize params (server) or result (client) */
    const mcp_json *peer_info;
    mcp_response_fn init_cb;
    void *init_ud;

    inbound **chunks;
    uint32_t nchunks;
    uint32_t free_head; /* index + 1 */
    uint32_t in_count;
    idmap in_ids;

    int64_t next_id;
    mcp__u64map out_ids; /* our id -> outbound */
    timer_heap timers;

    mcp_buf out;   /* encoding scratch for one message */
    bool emitting; /* out is in use (a callback re-entered) */
    int depth;     /* session calls in progress on the stack */
    bool doomed;   /* mcp_session_free was called inside a callback */
};

/* Every public entry point brackets its work so a free from inside a
 * callback is deferred to the outermost return. */
void mcp__session_enter(mcp_session *s);
void mcp__session_leave(mcp_session *s);

/* Send one encoded message (in buf) on route; clears buf. */
void mcp__emit(mcp_session *s, uint64_t route, mcp_buf *buf);

/* A scratch buffer for encoding one message (the session's own, or a fresh
 * one when a callback re-entered during a send); release with
 * mcp__scratch_done. */
mcp_buf *mcp__scratch(mcp_session *s, mcp_buf *local);
void mcp__scratch_done(mcp_session *s, mcp_buf *b, mcp_buf *local);

/* Encode and send an error response; id may be NULL (null id). */
void mcp__send_error(mcp_session *s, uint64_t route, const mcp_id *id,
                     int64_t code, const char *message);

/* Logging with the structured fields of mcp_log_record. fmt may be NULL for
 * records whose message is built from the fields. */
void mcp__log(mcp_session *s, mcp_log_level level, mcp_log_event event,
              const mcp_id *id, const char *method, const char *direction,
              const char *reason, int64_t age_ms, const char *fmt, ...)
    __attribute__((format(printf, 9, 10)));

/* Whether method may be sent as a request in the current lifecycle state. */
bool mcp__may_request(const mcp_session *s, const char *method);

/* inbound.c */
void mcp__inbound_request(mcp_session *s, uint64_t now, uint64_t route,
                          mcp_message *msg);
void mcp__inbound_cancelled(mcp_session *s, uint64_t now, const mcp_message *msg);
void mcp__inbound_close_all(mcp_session *s, uint64_t now);
void mcp__inbound_free_all(mcp_session *s);

/* outbound.c */
int mcp__outbound_send(mcp_session *s, uint64_t now, const char *method,
                       const mcp_json *params, const mcp_request_options *opts,
                       bool cancellable, bool internal_init,
                       mcp_response_fn cb, mcp_progress_fn progress_cb,
                       void *user_data, mcp_handle *out);
void mcp__outbound_response(mcp_session *s, uint64_t now, const mcp_message *msg);
void mcp__outbound_progress(mcp_session *s, uint64_t now, const mcp_message *msg);
void mcp__outbound_close_all(mcp_session *s, uint64_t now);
void mcp__outbound_free_all(mcp_session *s);

/* lifecycle.c */
void mcp__server_initialize(mcp_session *s, uint64_t route, const mcp_message *msg);
void mcp__client_init_done(mcp_session *s, mcp_handle h, int outcome,
                           const mcp_message *msg);

/* Append `"key":` to buf; helpers for hand-written envelopes. */
int mcp__put_key(mcp_buf *b, const char *key);
int mcp__put(mcp_buf *b, const char *literal);

/* Saturating now + ms (MCP_NO_TIMEOUT stays UINT64_MAX). */
static inline uint64_t mcp__deadline(uint64_t now, uint64_t ms)
{
    return ms == MCP_NO_TIMEOUT || now > UINT64_MAX - ms ? UINT64_MAX : now + ms;
}

static inline int64_t mcp__age(uint64_t now, uint64_t start)
{
    return now >= start ? (int64_t)(now - start) : 0;
}

#endif
