/* cli_sync.c - reads a primary's answer to SYNC/PSYNC, for valkey-cli.
 *
 * valkey-cli's --rdb, --functions-rdb and --replica act as a replica: they
 * send SYNC and receive, in order,
 *
 *   "\n" ...                     keep-alive newlines while the snapshot is made
 *   "+FULLRESYNC <id> <offset>"  (PSYNC only) then the payload line, or
 *   "+CONTINUE [<id>]"           (PSYNC only) no payload: the stream follows
 *   "$<len>\r\n" + len bytes     a snapshot written to disk first, or
 *   "$EOF:<40 chars>\r\n" + bytes + the same 40 chars   a diskless one
 *   then the replication stream (RESP commands).
 *
 * or "-ERR ..." when the sync is refused. The caller reads the lines
 * (valkey-cli.c owns the connection); cliSyncParseLine() classifies each
 * one and sets up a cliSyncPayload; cliSyncPayloadFeed() then takes the
 * bytes as they arrive, hands on the payload bytes only (never a byte of
 * the end mark, even when the mark arrives split over several reads) and
 * says where the payload ends, so bytes of the stream that came in the
 * same read are not lost.
 *
 * Pure code, no I/O: unit/test_cli_sync.c feeds it every split. */
#include <string.h>

#include "cli_sync.h"
#include "util.h"

/* Classifies one line of the answer (without its CRLF; a trailing "\r"
 * is ignored). A payload line also initialises *p. */
cliSyncLine cliSyncParseLine(const char *line, size_t len, cliSyncPayload *p) {
    if (len && line[len - 1] == '\r') len--;
    if (len == 0) return CLI_SYNC_LINE_BAD;
    if (line[0] == '-') return CLI_SYNC_LINE_ERROR;
    if (len >= 11 && !memcmp(line, "+FULLRESYNC", 11)) return CLI_SYNC_LINE_FULLRESYNC;
    if (len >= 9 && !memcmp(line, "+CONTINUE", 9)) return CLI_SYNC_LINE_CONTINUE;
    if (line[0] != '$') return CLI_SYNC_LINE_BAD;
    memset(p, 0, sizeof(*p));
    if (len >= 5 && !memcmp(line + 1, "EOF:", 4)) {
        if (len - 5 != CLI_SYNC_MARK_LEN) return CLI_SYNC_LINE_BAD;
        p->use_mark = 1;
        memcpy(p->mark, line + 5, CLI_SYNC_MARK_LEN);
        return CLI_SYNC_LINE_PAYLOAD;
    }
    long long n;
    if (!string2ll(line + 1, len - 1, &n) || n < 0) return CLI_SYNC_LINE_BAD;
    p->remaining = (unsigned long long)n;
    p->done = n == 0;
    return CLI_SYNC_LINE_PAYLOAD;
}

/* Length framing: everything up to the announced length is payload. */
static size_t feedCounted(cliSyncPayload *p, const char *buf, size_t len, sds *out) {
    size_t take = len < p->remaining ? len : (size_t)p->remaining;
    *out = sdscatlen(*out, buf, take);
    p->remaining -= take;
    p->total += take;
    if (p->remaining == 0) p->done = 1;
    return take;
}

/* Mark framing: looks for the mark in the held bytes followed by buf;
 * hands on what cannot be part of it and holds the last bytes back. */
static size_t feedMarked(cliSyncPayload *p, const char *buf, size_t len, sds *out) {
    /* The window is the held bytes then at most a mark's worth of buf,
     * the only place a mark can start inside the held bytes. */
    char win[CLI_SYNC_MARK_LEN * 2];
    size_t head = len < CLI_SYNC_MARK_LEN ? len : CLI_SYNC_MARK_LEN;
    memcpy(win, p->held, p->held_len);
    memcpy(win + p->held_len, buf, head);
    size_t winlen = p->held_len + head;
    for (size_t at = 0; at < p->held_len && at + CLI_SYNC_MARK_LEN <= winlen; at++) {
        if (memcmp(win + at, p->mark, CLI_SYNC_MARK_LEN)) continue;
        *out = sdscatlen(*out, p->held, at);
        p->total += at;
        p->done = 1;
        return at + CLI_SYNC_MARK_LEN - p->held_len; /* bytes of buf used */
    }
    /* Not starting in the held bytes: search buf itself. */
    const char *found = len >= CLI_SYNC_MARK_LEN ? memmem(buf, len, p->mark, CLI_SYNC_MARK_LEN) : NULL;
    if (found) {
        *out = sdscatlen(*out, p->held, p->held_len);
        *out = sdscatlen(*out, buf, (size_t)(found - buf));
        p->total += p->held_len + (size_t)(found - buf);
        p->held_len = 0;
        p->done = 1;
        return (size_t)(found - buf) + CLI_SYNC_MARK_LEN;
    }
    /* No mark yet: keep the last bytes, which may start one. */
    size_t all = p->held_len + len;
    size_t keep = all < CLI_SYNC_MARK_LEN ? all : CLI_SYNC_MARK_LEN - 1;
    size_t emit = all - keep;
    size_t from_held = emit < p->held_len ? emit : p->held_len;
    *out = sdscatlen(*out, p->held, from_held);
    *out = sdscatlen(*out, buf, emit - from_held);
    p->total += emit;
    char tail[CLI_SYNC_MARK_LEN];
    size_t held_left = p->held_len - from_held;
    memcpy(tail, p->held + from_held, held_left);
    memcpy(tail + held_left, buf + (emit - from_held), keep - held_left);
    memcpy(p->held, tail, keep);
    p->held_len = keep;
    return len;
}

/* Takes len bytes that arrived after the payload line. Appends the
 * payload bytes among them to *out and returns how many bytes of buf
 * belong to the payload (mark included): when p->done is set, the rest
 * of buf is already the replication stream. */
size_t cliSyncPayloadFeed(cliSyncPayload *p, const char *buf, size_t len, sds *out) {
    if (p->done || len == 0) return 0;
    return p->use_mark ? feedMarked(p, buf, len, out) : feedCounted(p, buf, len, out);
}
