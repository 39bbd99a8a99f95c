// SPDX-License-Identifier: MIT
// A fetch for the official SDKs' StreamableHTTPClientTransport (both take
// `fetch` as an option) that records every HTTP exchange as the wire had it,
// so that the interop scripts check what our server sent, not only what the
// SDK chose to surface: the SDKs swallow priming events, retry fields and
// event ids, and report a connection closed without a response only as
// "fetch failed".
//
// makeTap() returns { exchanges, tappedFetch, settled, how }. One record per
// exchange, in the order requested:
//   method, headers (the request's, lower-case names), rpc (a POST's parsed
//   JSON body), sid and lastEventId (request headers), started (ms);
//   status, type (Content-Type without parameters), respSid (the response's
//   Mcp-Session-Id), events [{id, data, msg (parsed data), at}] for an event
//   stream, retry (the last retry field), ended (when the body ended, by
//   its end or an error), bodyError;
//   failed, error, cause when the fetch itself failed (no HTTP response).

function sseTap(rec) {
  const decoder = new TextDecoder();
  let buf = "";
  const parse = (block) => {
    const ev = {};
    for (const line of block.split(/\r\n|\r|\n/)) {
      const i = line.indexOf(":");
      if (i === 0) continue; // a comment
      const field = i < 0 ? line : line.slice(0, i);
      const value = i < 0 ? "" : line.slice(i + 1).replace(/^ /, "");
      if (field === "data") ev.data = ev.data === undefined ? value : `${ev.data}\n${value}`;
      else if (field === "id") ev.id = value;
      else if (field === "retry") ev.retry = Number(value);
    }
    if (ev.retry !== undefined) rec.retry = ev.retry;
    if (ev.id === undefined && ev.data === undefined) return; // a retry alone, or a comment
    if (ev.data !== undefined) {
      try { ev.msg = JSON.parse(ev.data); } catch { ev.msg = null; }
    }
    ev.at = Date.now();
    rec.events.push(ev);
  };
  return new TransformStream({
    transform(chunk, ctl) {
      buf += decoder.decode(chunk, { stream: true });
      for (let m; (m = buf.match(/\r\n\r\n|\n\n|\r\r/)); ) {
        parse(buf.slice(0, m.index));
        buf = buf.slice(m.index + m[0].length);
      }
      ctl.enqueue(chunk);
    },
  });
}

export function makeTap() {
  const exchanges = [];
  async function tappedFetch(input, init = {}) {
    const headers = new Headers(init.headers);
    const rec = {
      method: init.method ?? "GET", headers: Object.fromEntries(headers),
      sid: headers.get("mcp-session-id"), lastEventId: headers.get("last-event-id"),
      events: [], started: Date.now(),
    };
    if (typeof init.body === "string") {
      try { rec.rpc = JSON.parse(init.body); } catch { rec.rpc = null; }
    }
    exchanges.push(rec);
    let res;
    try {
      res = await fetch(input, init);
    } catch (e) {
      rec.failed = Date.now();
      rec.error = String(e);
      rec.cause = e?.cause ? String(e.cause.code ?? e.cause) : undefined;
      throw e;
    }
    rec.status = res.status;
    rec.type = (res.headers.get("content-type") ?? "").split(";")[0].trim();
    rec.respSid = res.headers.get("mcp-session-id");
    if (!res.body) {
      rec.ended = Date.now();
      return res;
    }
    const reader = (rec.type === "text/event-stream" ? res.body.pipeThrough(sseTap(rec)) : res.body).getReader();
    // Handed to the SDK in place of the body: it reads as the bytes arrive,
    // and the end (or an error: an abort, a reset) is noted on the way.
    const body = new ReadableStream({
      async pull(ctl) {
        try {
          const { value, done } = await reader.read();
          if (done) {
            rec.ended ??= Date.now();
            ctl.close();
          } else ctl.enqueue(value);
        } catch (e) {
          rec.bodyError = String(e?.cause?.code ?? e?.name ?? e);
          rec.ended ??= Date.now();
          ctl.error(e);
        }
      },
      cancel(reason) {
        rec.ended ??= Date.now();
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  }
  // When an exchange ended: its body, or its fetch failing (no HTTP response).
  const settled = (x) => x?.ended ?? x?.failed;
  const how = (x) => !x ? "no such request" : x.status !== undefined
    ? `${x.status} ${x.type || "(no Content-Type)"}, ` +
      (x.ended ? (x.bodyError ? `body cut (${x.bodyError})` : "body ended") : "body open")
    : x.error ? `no HTTP response (${x.error}${x.cause ? `: ${x.cause}` : ""})` : "no response yet";
  return { exchanges, tappedFetch, settled, how };
}
