/* replication.c - the primary/replica link (see replication.h).
 *
 * A primary keeps one stream of everything that changes its dataset: the
 * commands propagate.c hands to replicationFeedReplicas(), with a SELECT
 * whenever the database changes, in RESP. The stream's length so far is
 * the replication offset (server.primary_repl_offset); together with the
 * replication id (server.replid) it names a point of the history. Each
 * command is encoded once, straight into the replication buffer: a list
 * of blocks shared by the backlog and every replica (see "The replication
 * buffer" below). Once per event loop iteration, before clients are
 * written, replicationFlushReplicas() writes to each replica's link,
 * straight from the blocks, what it was not sent yet; so a pipeline of
 * writes costs each replica one write, not one per command, and the
 * stream is never copied per replica, however far one lags.
 *
 * A replica connects (the one function that picks the transport is
 * replicationConnectionType()), says who it is (REPLCONF listening-port,
 * capa eof psync2) and asks to continue from where its own data ends
 * (PSYNC <replid> <offset+1>). If the backlog still holds that point, the
 * primary answers +CONTINUE and sends the missing bytes (partial resync);
 * otherwise +FULLRESYNC <replid> <offset>, then a snapshot of the dataset
 * as it was at <offset>, then the stream from there. Replicas that ask
 * while a snapshot is starting share it. A primary that answers PSYNC
 * with an error it does not mean as "later" (-LOADING, -NOMASTERLINK,
 * -BUSY) predates PSYNC: the replica asks again with SYNC on the same
 * link and gets the snapshot alone, with no replication id; its offset
 * starts at -1 and it sends that primary no ACKs (CLIENT_PRE_PSYNC).
 *
 * How the snapshot reaches a replica is a replSnapshotMethod:
 *   disk    the child writes dbfilename; the parent sends the file with a
 *           "$<size>" header (repl-diskless-sync no);
 *   socket  the child writes the RDB between "$EOF:<40 random chars>" and
 *           the same 40 chars into a pipe; the parent relays the bytes to
 *           every replica of that sync (repl-diskless-sync yes). The child
 *           never touches a connection: TLS and RDMA links are written by
 *           the parent only.
 *   rdma-region  (repl_rdma.c) the child writes the RDB into a ring of
 *           shared-memory segments; replicas on RDMA links READ them
 *           (repl-rdma-snapshot yes, capa rdma-read), and replicas of the
 *           socket kind that ask at the same time get the same bytes
 *           pushed with the EOF framing. The method of the next sync is
 *           the one that serves every waiting replica when there is one
 *           (replicationNextSnapshotMethod()).
 * Until its snapshot is delivered, a replica's stream accumulates in the
 * replication buffer, from the offset its snapshot was taken at, and is
 * not sent (replicaStreamMayWrite()). With dual-channel-replication-enabled
 * (Valkey 8) a replica that says "capa dual-channel" takes its snapshot on
 * a second link instead, and its main link gets the stream while it loads
 * (see "Dual-channel sync" below).
 *
 * On the replica, the primary is a client (CLIENT_PRIMARY) whose commands
 * run without replies; the bytes of the commands it applied are proxied
 * to our own backlog and replicas straight from its query buffer, in one
 * copy per read (replicationPrimaryProcessed()), so that a chain of
 * replicas sees exactly the primary's stream and its offsets, and a
 * promoted replica can serve partial resyncs of the old history through
 * replid2 (PSYNC2). A replica loading a snapshot from the link with
 * repl-diskless-load swapdb loads it aside and swaps it in when complete;
 * when it continues the history the old data belongs to, the old data is
 * served meanwhile (async loading). A primary restarted from its own RDB
 * takes up the history the file records (replicationOwnFileLoadEnd()).
 *
 * Everything here runs in the event loop, except the snapshot children
 * (snapshot.c). */
#include "replication.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aof.h"
#include "blocked.h"
#include "config.h"
#include "propagate.h"
#include "rdb.h"
#include "repl_rdma.h"
#include "snapshot.h"

struct replicationState repl;

#define REPL_SYNCIO_TIMEOUT_MS 5000 /* one handshake reply, or one write of it */
#define REPL_TRANSFER_CHUNK (16 * 1024)

static void replicationCachePrimaryState(void);
static void replicationPrimaryFeedApplied(client *c);
static void replicationAbortSyncTransfer(void);
static void replicationStartFullSyncs(void);
static void replicationDisconnectReplicas(void);
static void replicationDiscardBacklog(void);
static void replicationCreateBacklog(void);
static void replicationUnsetPrimary(void);
static void failoverUpdate(void);
static void failoverAbort(const char *why);
static void failoverCompleted(void);
static const char *failoverStateName(void);
static replSnapshotMethod *replicationJoinableSnapshot(client *c);
static int snapshotMethodDelayed(replSnapshotMethod *m);
static replSnapshotMethod diskSnapshotMethod, socketSnapshotMethod; /* defined with their code below */
static void psyncHoldsReleaseAll(void);
static void psyncHoldsAdopt(replBufBlock *bl);
static void dualChannelReset(void);
static int dualChannelStart(connection *conn);
static void dualChannelSnapshotLoaded(connection *rdb, size_t leftlen);

/* ---------------------------------------------------------------------------
 * Ids and offsets
 * ------------------------------------------------------------------------- */

/* Starts a new history: a fresh random replid. Used when this server's
 * dataset stops being a copy of what its replid names (a failed sync
 * emptied it, a primary with no replicas yet). */
static void replicationNewReplid(void) {
    getRandomHexChars(server.replid, CONFIG_RUN_ID_SIZE);
    server.replid[CONFIG_RUN_ID_SIZE] = '\0';
}

static void replicationClearReplid2(void) {
    memset(repl.replid2, '0', CONFIG_RUN_ID_SIZE);
    repl.replid2[CONFIG_RUN_ID_SIZE] = '\0';
    repl.second_replid_offset = -1;
}

/* A replica becoming a primary: its history so far stays reachable under
 * the old id up to here (replid2), and the new history gets a new id. */
static void replicationShiftReplid(void) {
    memcpy(repl.replid2, server.replid, sizeof(repl.replid2));
    repl.second_replid_offset = server.primary_repl_offset + 1;
    replicationNewReplid();
    serverLog(LL_NOTICE, "Setting secondary replication ID to %s, valid up to offset: %lld. New replication ID is %s",
              repl.replid2, repl.second_replid_offset, server.replid);
}

/* Called once by initServer(). */
void replicationInit(void) {
    memset(&repl, 0, sizeof(repl));
    repl.replicas = listCreate();
    repl.waiting_clients = listCreate();
    repl.psync_holds = listCreate();
    repl.last_seldb = -1;
    repl.transfer_fd = -1;
    repl.stream_db = -1;
    repl.no_replicas_since = time(NULL);
    replicationClearReplid2();
    repl.state = server.primary_host ? REPL_STATE_CONNECT : REPL_STATE_NONE;
    repl.down_since = 0;
}

/* ---------------------------------------------------------------------------
 * The replication buffer
 *
 * The stream is appended once, to the tail of a list of blocks
 * (REPL_BUF_BLOCK_BYTES each, or as big as a piece that does not fit in
 * one). That list is the backlog and, at the same time, the output of
 * every replica: a replica past WAIT_BGSAVE_START records the block of
 * the next byte it must be sent and its position in it, and holds a
 * reference on that block; its bytes are written to its link straight
 * from the blocks (replicaWriteStream()), never copied per replica. So
 * two replicas cost what one does, and what a lagging replica has not
 * been sent yet is memory it shares with the backlog and the others.
 *
 * Blocks leave from the head only, when no replica holds a reference on
 * the head (a replica pins its own block and, through the list, every
 * later one) and the blocks after it still hold repl-backlog-size bytes.
 * So the backlog is at least repl-backlog-size bytes of history, and
 * longer while a lagging replica still needs older bytes: a partial
 * resync is served from any offset still held (as Valkey 7+ does). At
 * most REPL_BUF_TRIM_BLOCKS blocks are freed per call, so that a replica
 * that leaves gigabytes behind it does not stall the event loop; the
 * rest goes at the following event loop iterations.
 *
 * A replica's output buffer, for client-output-buffer-limit replica and
 * CLIENT LIST omem, is what it holds of the list: from the start of its
 * block to the end of the tail (replicationReplicaOutputMemory()).
 * ------------------------------------------------------------------------- */

#define REPL_BUF_TRIM_BLOCKS 64 /* blocks freed at most per trimming call */

/* A command that does not fit in the tail's room goes whole into a new
 * block when that room is at most this (an eighth of a block, left
 * unused); with more room, the command is bigger than this: it is
 * encoded apart and copied, filling the room first
 * (replicationFeedCommandSlow()). */
#define REPL_BUF_DIRECT_MAX (REPL_BUF_BLOCK_BYTES / 8)

static void replicaReleaseBlock(client *r);

static void replicationCreateBacklog(void) {
    serverAssert(repl.backlog == NULL);
    replBacklog *b = zcalloc(sizeof(*b));
    b->offset = server.primary_repl_offset + 1;
    repl.backlog = b;
    /* The next command starts with a SELECT, whatever came before. */
    repl.last_seldb = -1;
}

/* Frees every block. Replicas still attached lose their place (they are
 * being disconnected: the callers drop them first). */
static void replicationDiscardBacklog(void) {
    if (!repl.backlog) return;
    listIter li;
    listNode *ln;
    listRewind(repl.replicas, &li);
    while ((ln = listNext(&li))) replicaReleaseBlock(listNodeValue(ln));
    psyncHoldsReleaseAll();
    replBufBlock *bl = repl.backlog->head;
    while (bl) {
        replBufBlock *next = bl->next;
        zfree(bl);
        bl = next;
    }
    zfree(repl.backlog->spare);
    zfree(repl.backlog);
    repl.backlog = NULL;
}

/* Bytes of history the backlog holds (INFO repl_backlog_histlen). */
static long long backlogHistlen(void) {
    return repl.backlog ? server.primary_repl_offset - repl.backlog->offset + 1 : 0;
}

/* Appends a new, empty block with room for at least need bytes and
 * returns it: the spare one when it is big enough (in a steady stream
 * each new block is the one the backlog just let go, with no trip to the
 * allocator). Replicas positioned at the end of an empty buffer get
 * their reference on it. */
static replBufBlock *replBufAddBlock(size_t need) {
    replBacklog *b = repl.backlog;
    size_t want = need + sizeof(replBufBlock);
    if (want < REPL_BUF_BLOCK_BYTES) want = REPL_BUF_BLOCK_BYTES;
    size_t usable;
    replBufBlock *bl;
    if (b->spare && b->spare->alloc >= want) {
        bl = b->spare;
        usable = bl->alloc;
        b->spare = NULL;
    } else {
        bl = zmalloc_usable(want, &usable);
    }
    bl->next = NULL;
    bl->refcount = 0;
    bl->offset = server.primary_repl_offset + 1;
    bl->alloc = usable;
    bl->size = usable - sizeof(replBufBlock);
    bl->used = 0;
    bl->mem_before = b->tail ? b->tail->mem_before + (long long)b->tail->alloc : 0;
    if (b->tail) {
        b->tail->next = bl;
    } else {
        b->head = bl;
        b->offset = bl->offset;
        listIter li;
        listNode *ln;
        listRewind(repl.replicas, &li);
        while ((ln = listNext(&li))) {
            client *r = listNodeValue(ln);
            if (r->repl->state == REPLICA_STATE_WAIT_BGSAVE_START || r->repl->block || r->repl->rdb_channel)
                continue;
            r->repl->block = bl;
            r->repl->block_pos = 0;
            bl->refcount++;
        }
        psyncHoldsAdopt(bl);
    }
    b->tail = bl;
    b->mem += usable;
    return bl;
}

/* Frees head blocks that neither a replica nor the backlog's
 * repl-backlog-size of history needs, at most max of them (one of the
 * usual size is kept as the spare). Never the last block. */
static void replBufTrim(int max) {
    replBacklog *b = repl.backlog;
    if (b == NULL) return;
    while (max-- > 0) {
        replBufBlock *h = b->head;
        if (h == NULL || h->next == NULL || h->refcount) return;
        if (backlogHistlen() - (long long)h->used < server.repl_backlog_size) return;
        b->head = h->next;
        b->offset = b->head->offset;
        b->mem -= h->alloc;
        if (b->spare == NULL && h->alloc == REPL_BUF_BLOCK_BYTES) b->spare = h;
        else zfree(h);
    }
}

/* After a new block: the replicas whose share of the buffer is now past
 * client-output-buffer-limit replica are dropped (Valkey's log line).
 * Those under both limits, with no soft-limit time running, are skipped
 * at the cost of a subtraction (the full check logs and times). */
static void replicasCheckOutputLimits(void) {
    clientBufferLimitsConfig *lim = &server.client_obuf_limits[CLIENT_TYPE_REPLICA];
    unsigned long long hard = lim->hard_limit_bytes ? lim->hard_limit_bytes : ULLONG_MAX;
    unsigned long long soft = lim->soft_limit_bytes ? lim->soft_limit_bytes : ULLONG_MAX;
    unsigned long long under = hard < soft ? hard : soft;
    listIter li;
    listNode *ln;
    listRewind(repl.replicas, &li);
    while ((ln = listNext(&li))) {
        client *r = listNodeValue(ln);
        if (r->obuf_soft_limit_reached_time == 0 && replicationReplicaOutputMemory(r) < under) continue;
        closeClientOnOutputBufferLimitReached(r, 1);
    }
}

/* Appends len bytes to the stream: into the tail's room, then into a new
 * block for the rest. The backlog exists (callers check). */
static void replicationFeedBytes(const char *p, size_t len) {
    replBufBlock *t = repl.backlog->tail;
    if (t && t->size > t->used) {
        size_t n = t->size - t->used < len ? t->size - t->used : len;
        memcpy(t->buf + t->used, p, n);
        t->used += n;
        server.primary_repl_offset += (long long)n;
        p += n;
        len -= n;
    }
    if (len == 0) return;
    t = replBufAddBlock(len);
    memcpy(t->buf, p, len);
    t->used = len;
    server.primary_repl_offset += (long long)len;
    replBufTrim(REPL_BUF_TRIM_BLOCKS);
    replicasCheckOutputLimits();
}

/* Finds the block holding stream offset off (which the backlog holds, or
 * is the next byte to come) and the position in it. */
static replBufBlock *replBufLocate(long long off, size_t *pos) {
    serverAssert(off >= repl.backlog->offset && off <= server.primary_repl_offset + 1);
    replBufBlock *bl = repl.backlog->head;
    while (bl && bl->next && off >= bl->next->offset) bl = bl->next;
    *pos = bl ? (size_t)(off - bl->offset) : 0;
    return bl;
}

/* Gives r its place in the stream: the next byte it is sent is offset
 * off, which the backlog holds (or the next byte to come). */
static void replicaSetStreamStart(client *r, long long off) {
    replicaReleaseBlock(r);
    size_t pos;
    replBufBlock *bl = replBufLocate(off, &pos);
    r->repl->block = bl;
    r->repl->block_pos = pos;
    if (bl) bl->refcount++;
}

/* r gives up its place in the stream (it is freed, or the buffer is). */
static void replicaReleaseBlock(client *r) {
    replClientData *d = r->repl;
    if (d == NULL || d->block == NULL) return;
    d->block->refcount--;
    d->block = NULL;
    d->block_pos = 0;
}

/* 1 if r has stream bytes it was not sent yet. */
static inline int replicaStreamPending(replClientData *d) {
    replBufBlock *bl = d->block;
    return bl && (d->block_pos < bl->used || bl->next != NULL);
}

/* 1 if r's stream may be written now: its snapshot is delivered (and,
 * after a streamed one, its first ACK came), or it is the main channel
 * of a dual-channel sync, whose replica buffers the stream while it
 * loads. */
static inline int replicaStreamMayWrite(client *r) {
    return r->conn && !(r->flags & CLIENT_CLOSE_ASAP) &&
           ((r->repl->state == REPLICA_STATE_ONLINE && !r->repl->start_stream_on_ack) ||
            r->repl->state == REPLICA_STATE_BG_RDB_LOAD);
}

/* Moves r's place n bytes forward, block after block, carrying its
 * reference along. */
static void replicaAdvance(replClientData *d, size_t n) {
    while (n) {
        replBufBlock *bl = d->block;
        size_t left = bl->used - d->block_pos;
        if (n < left) {
            d->block_pos += n;
            return;
        }
        n -= left;
        d->block_pos = bl->used;
        if (bl->next == NULL) break;
        bl->refcount--;
        d->block = bl->next;
        d->block->refcount++;
        d->block_pos = 0;
    }
    /* Sent all of a full block that is the tail: stay at its end. */
}

static void replicaStreamWriteHandler(connection *conn);

/* Writes r's pending stream to its link straight from the blocks, with
 * one writev of up to REPL_WRITE_IOV blocks at a time, until everything
 * is out or the socket is full; in the latter case the rest goes from a
 * write handler when the link is writable again. Returns C_ERR if the
 * link failed (r is freed asynchronously), C_OK otherwise. Event loop. */
#define REPL_WRITE_IOV 64
static int replicaWriteStream(client *r) {
    replClientData *d = r->repl;
    long long total = 0;
    int full = 0;
    server.stat_total_writes_processed++;
    while (replicaStreamPending(d)) {
        struct iovec iov[REPL_WRITE_IOV];
        int cnt = 0;
        size_t bytes = 0, pos = d->block_pos;
        for (replBufBlock *bl = d->block; bl && cnt < REPL_WRITE_IOV; bl = bl->next, pos = 0) {
            if (bl->used == pos) continue;
            iov[cnt].iov_base = bl->buf + pos;
            iov[cnt].iov_len = bl->used - pos;
            bytes += iov[cnt].iov_len;
            cnt++;
        }
        if (cnt == 0) break;
        ssize_t n = cnt == 1 ? connWrite(r->conn, iov[0].iov_base, iov[0].iov_len) : connWritev(r->conn, iov, cnt);
        if (n <= 0) {
            if (n == -1 && connGetState(r->conn) != CONN_STATE_CONNECTED) {
                serverLog(LL_VERBOSE, "Error writing to client: %s", connGetLastError(r->conn));
                freeClientAsync(r);
                return C_ERR;
            }
            full = 1;
            break;
        }
        total += n;
        replicaAdvance(d, (size_t)n);
        if ((size_t)n < bytes) {
            full = 1;
            break;
        }
    }
    if (total) {
        server.stat_net_repl_output_bytes += total;
        r->net_output_bytes += total;
        r->lastinteraction = server.unixtime;
    }
    if (full && replicaStreamPending(d)) {
        if (!d->stream_handler && connSetWriteHandler(r->conn, replicaStreamWriteHandler) == C_OK)
            d->stream_handler = 1;
    } else if (d->stream_handler) {
        connSetWriteHandler(r->conn, NULL);
        d->stream_handler = 0;
    }
    return C_OK;
}

/* Write handler of a replica whose socket did not take all its stream. */
static void replicaStreamWriteHandler(connection *conn) {
    client *r = connGetPrivateData(conn);
    if (r->repl == NULL || !replicaStreamMayWrite(r)) {
        connSetWriteHandler(conn, NULL);
        if (r->repl) r->repl->stream_handler = 0;
        return;
    }
    if (replicaWriteStream(r) == C_OK) replBufTrim(REPL_BUF_TRIM_BLOCKS);
}

/* See replication.h. A replica that is waiting for its write handler
 * (its socket is full) is left to it. */
void replicationFlushReplicas(void) {
    if (repl.backlog == NULL) return;
    listIter li;
    listNode *ln;
    listRewind(repl.replicas, &li);
    while ((ln = listNext(&li))) {
        client *r = listNodeValue(ln);
        replClientData *d = r->repl;
        if (d->stream_handler || !replicaStreamPending(d) || !replicaStreamMayWrite(r)) continue;
        replicaWriteStream(r);
    }
    replBufTrim(REPL_BUF_TRIM_BLOCKS);
}

/* See replication.h. Keeps the newest history that fits; the rest goes
 * as replicas stop needing it. */
void resizeReplicationBacklog(void) {
    replBufTrim(REPL_BUF_TRIM_BLOCKS);
}

/* See replication.h. */
size_t replicationBufferMemory(void) {
    return repl.backlog ? repl.backlog->mem : 0;
}

/* See replication.h. */
size_t replicationReplicaOutputMemory(client *c) {
    replBufBlock *bl = c->repl ? c->repl->block : NULL;
    if (bl == NULL) return 0;
    replBufBlock *t = repl.backlog->tail;
    return (size_t)(t->mem_before + (long long)t->alloc - bl->mem_before);
}

/* ---------------------------------------------------------------------------
 * Feeding the stream
 * ------------------------------------------------------------------------- */

/* Writes the command in RESP at p, after a SELECT of dictid when the
 * stream's database (repl.last_seldb) differs (dictid -1: never), never
 * past limit. Returns the end, or NULL if it does not fit. The caller
 * records dictid as the stream's database once it keeps the bytes. */
static char *writeCommandProto(char *p, const char *limit, int dictid, robj **argv, int argc) {
    return propagateWriteCommand(p, limit, dictid != repl.last_seldb ? dictid : -1, argv, argc);
}

/* A command that did not fit in the tail's room. When that room is small
 * (REPL_BUF_DIRECT_MAX at most) it is left unused and the command is
 * encoded straight into a new block. Otherwise, or if the command does
 * not fit in a whole block either, the command is big: it is encoded
 * into a buffer kept between calls, then appended as bytes, filling the
 * tail's room first. */
static void replicationFeedCommandSlow(int dictid, robj **argv, int argc) {
    replBufBlock *t = repl.backlog->tail;
    if (t == NULL || t->size - t->used <= REPL_BUF_DIRECT_MAX) {
        if (t == NULL || t->used) t = replBufAddBlock(0);
        char *end = writeCommandProto(t->buf, t->buf + t->size, dictid, argv, argc);
        if (end) {
            t->used = (size_t)(end - t->buf);
            server.primary_repl_offset += (long long)t->used;
            replBufTrim(REPL_BUF_TRIM_BLOCKS);
            replicasCheckOutputLimits();
            return;
        }
    }
    size_t need = propagateCommandMaxLen(argv, argc);
    static char *buf = NULL;
    static size_t cap = 0;
    if (need > cap) {
        zfree(buf);
        buf = zmalloc_usable(need, &cap);
    }
    char *end = writeCommandProto(buf, buf + cap, dictid, argv, argc);
    serverAssert(end != NULL);
    replicationFeedBytes(buf, (size_t)(end - buf));
    if (cap > 64 * 1024) {
        zfree(buf);
        buf = NULL;
        cap = 0;
    }
}

/* See replication.h. A replica never feeds its own commands: it proxies
 * its primary's stream instead (replicationPrimaryProcessed()). The command
 * is encoded once, straight into the tail block when it fits there: no
 * copy, no allocation. Replicas get it at the next
 * replicationFlushReplicas(). */
void replicationFeedReplicas(int dictid, robj **argv, int argc) {
    if (server.primary_host != NULL || repl.backlog == NULL) return;
    replBufBlock *t = repl.backlog->tail;
    char *end = t ? writeCommandProto(t->buf + t->used, t->buf + t->size, dictid, argv, argc) : NULL;
    if (end) {
        size_t n = (size_t)(end - (t->buf + t->used));
        t->used += n;
        server.primary_repl_offset += (long long)n;
    } else {
        replicationFeedCommandSlow(dictid, argv, argc);
    }
    if (dictid >= 0) repl.last_seldb = dictid;
}

/* Feeds a command given as C strings (PING, REPLCONF GETACK). */
static void replicationFeedCommandStrings(int argc, const char **args) {
    robj *argv[4];
    serverAssert(argc <= 4);
    for (int j = 0; j < argc; j++) argv[j] = createStringObject(args[j], strlen(args[j]));
    replicationFeedReplicas(-1, argv, argc);
    for (int j = 0; j < argc; j++) decrRefCount(argv[j]);
}

/* ---------------------------------------------------------------------------
 * Replica clients (primary side)
 * ------------------------------------------------------------------------- */

static replClientData *replClientDataCreate(void) {
    replClientData *d = zcalloc(sizeof(*d));
    d->dbfd = -1;
    d->ack_time = server.unixtime;
    d->aof_ack_off = -1; /* no FACK yet: not counted by WAITAOF, even at offset 0 */
    return d;
}

static void replClientDataFree(replClientData *d) {
    if (d == NULL) return;
    if (d->dbfd != -1) close(d->dbfd);
    sdsfree(d->preamble);
    sdsfree(d->announced_ip);
    zfree(d);
}

/* The address a replica is known by: the one it announced (REPLCONF
 * ip-address) or its peer address. C_ERR if neither is known. */
static int replicaAddress(client *r, char *ip, size_t len) {
    if (r->repl && r->repl->announced_ip) {
        snprintf(ip, len, "%s", r->repl->announced_ip);
        return C_OK;
    }
    return r->conn ? connAddrPeerName(r->conn, ip, len, NULL) : C_ERR;
}

/* "ip:port" of a replica as its logs name it: its address and its
 * listening port. */
char *replicaName(client *c) {
    static char buf[NET_HOST_PORT_STR_LEN];
    char ip[NET_IP_STR_LEN];
    if (replicaAddress(c, ip, sizeof(ip)) == C_ERR) snprintf(ip, sizeof(ip), "?");
    snprintf(buf, sizeof(buf), "%s:%d", ip, c->repl ? c->repl->listening_port : 0);
    return buf;
}

/* See replication.h. The stream never goes through a replica's output
 * buffer: a reply there could only come from a command the replica sent
 * on its replication link (a real replica sends REPLCONF ACK, which has
 * none), and would land in the middle of the stream. */
int replicationClientMayWrite(client *c) {
    if (c->flags & CLIENT_PRIMARY) return (c->flags & CLIENT_PRIMARY_FORCE_REPLY) != 0;
    if (!(c->flags & CLIENT_REPLICA) || (c->flags & CLIENT_MONITOR)) return 1;
    sds info = catClientInfoString(sdsempty(), c);
    serverLog(LL_WARNING, "Replica generated a reply to command '%s', disconnecting it: %s",
              c->lastcmd ? c->lastcmd->fullname : "<unknown>", info);
    sdsfree(info);
    freeClientAsync(c);
    return 0;
}

/* The replica's snapshot is delivered: from now on it gets the stream
 * (what accumulated for it goes at the next replicationFlushReplicas(),
 * before the event loop sleeps). */
void replicaPutOnline(client *c, int wait_first_ack) {
    if (c->repl->rdb_only) {
        c->repl->state = REPLICA_STATE_RDB_TRANSMITTED;
        serverLog(LL_NOTICE, "RDB transfer completed, rdb only replica (%s) should be disconnected asap",
                  replicaName(c));
        freeClientAsync(c);
        return;
    }
    c->repl->state = REPLICA_STATE_ONLINE;
    c->repl->ack_time = server.unixtime;
    c->repl->start_stream_on_ack = wait_first_ack;
    refreshGoodReplicasCount();
    serverLog(LL_NOTICE, "Synchronization with replica %s succeeded", replicaName(c));
}

/* ---------------------------------------------------------------------------
 * Dual-channel sync, primary side (dual-channel-replication-enabled)
 *
 * Valkey 8's protocol, so that its replicas can sync from us:
 *   main link   REPLCONF capa dual-channel, then PSYNC. When that PSYNC
 *               cannot continue and this option is on, the answer is
 *               "+DUALCHANNELSYNC" and the link stays a plain client.
 *   rdb link    a second connection: REPLCONF capa eof rdb-only 1
 *               rdb-channel 1, then SYNC. When its snapshot starts it gets
 *               "$ENDOFF:<offset> <replid> <dbid> <client id>" instead of
 *               +FULLRESYNC, then the snapshot with the EOF framing, and
 *               is closed once the snapshot is out (an rdb-only replica).
 *   main link   REPLCONF set-rdb-client-id <client id>, then PSYNC <replid>
 *               <offset+1>: a partial resync from the snapshot's offset.
 *               It gets the stream at once (state bg_transfer) while the
 *               replica loads and buffers it; it is online at its first
 *               REPLCONF ACK, sent once the replica has loaded.
 * Between "$ENDOFF" and that PSYNC, the stream after the snapshot must
 * stay in the replication buffer: a replPsyncHold keeps a reference on
 * the block of that offset (the stream is never copied). The rdb channel
 * itself holds no place in the stream, so what accumulates meanwhile is
 * counted against no replica's output limit until the main channel takes
 * it over. A hold goes when its main channel attaches, when its rdb
 * channel fails before its snapshot is out, or repl-timeout after a
 * delivered snapshot's rdb channel left without a main channel coming.
 * ------------------------------------------------------------------------- */

typedef struct replPsyncHold {
    uint64_t rdb_client_id; /* the rdb channel that was sent "$ENDOFF" */
    long long offset;       /* the first stream byte after its snapshot */
    replBufBlock *block;    /* the block of offset, referenced; NULL while the buffer has none */
    time_t orphan_since;    /* when its delivered rdb channel left; 0 while it lives */
} replPsyncHold;

/* The hold of rdb channel client id, or NULL. */
static replPsyncHold *psyncHoldFind(uint64_t id, listNode **node) {
    listIter li;
    listNode *ln;
    listRewind(repl.psync_holds, &li);
    while ((ln = listNext(&li))) {
        replPsyncHold *h = listNodeValue(ln);
        if (h->rdb_client_id != id) continue;
        if (node) *node = ln;
        return h;
    }
    return NULL;
}

/* Keeps the stream from offset on in the buffer for rdb channel c. */
static void psyncHoldCreate(client *c, long long offset) {
    replPsyncHold *h = zcalloc(sizeof(*h));
    h->rdb_client_id = c->id;
    h->offset = offset;
    size_t pos;
    h->block = replBufLocate(offset, &pos);
    if (h->block) h->block->refcount++;
    listAddNodeTail(repl.psync_holds, h);
}

static void psyncHoldRelease(uint64_t id) {
    listNode *ln;
    replPsyncHold *h = psyncHoldFind(id, &ln);
    if (h == NULL) return;
    if (h->block) h->block->refcount--;
    listDelNode(repl.psync_holds, ln);
    zfree(h);
}

/* The replication buffer is being freed: every hold lets go. */
static void psyncHoldsReleaseAll(void) {
    while (listLength(repl.psync_holds)) {
        replPsyncHold *h = listNodeValue(listFirst(repl.psync_holds));
        psyncHoldRelease(h->rdb_client_id);
    }
}

/* The buffer got its first block bl: holds made while it was empty
 * reference it (their offset is its first byte). */
static void psyncHoldsAdopt(replBufBlock *bl) {
    listIter li;
    listNode *ln;
    listRewind(repl.psync_holds, &li);
    while ((ln = listNext(&li))) {
        replPsyncHold *h = listNodeValue(ln);
        if (h->block) continue;
        h->block = bl;
        bl->refcount++;
    }
}

/* Rdb channel c is being freed: its hold goes if its snapshot was not
 * delivered (the replica starts over), and otherwise waits repl-timeout
 * for the main channel (psyncHoldsCron()). */
static void psyncHoldRdbChannelGone(client *c) {
    replPsyncHold *h = psyncHoldFind(c->id, NULL);
    if (h == NULL) return;
    if (c->repl->state != REPLICA_STATE_RDB_TRANSMITTED) psyncHoldRelease(c->id);
    else h->orphan_since = server.unixtime;
}

/* Cron: holds whose main channel did not come within repl-timeout go. */
static void psyncHoldsCron(void) {
    listIter li;
    listNode *ln;
    listRewind(repl.psync_holds, &li);
    while ((ln = listNext(&li))) {
        replPsyncHold *h = listNodeValue(ln);
        if (h->orphan_since == 0 || server.unixtime - h->orphan_since <= server.repl_timeout) continue;
        serverLog(LL_WARNING, "Dropping the replication buffer reference of RDB client %llu: no main channel "
                              "PSYNC within repl-timeout", (unsigned long long)h->rdb_client_id);
        psyncHoldRelease(h->rdb_client_id);
    }
}

/* The snapshot of rdb channel c starts at offset: the stream after it is
 * held for the main channel and c gets "$ENDOFF". The db is the one the
 * stream after the snapshot is in (it starts with a SELECT anyway). */
static int dualChannelSendEndOffset(client *c, long long offset) {
    psyncHoldCreate(c, offset + 1);
    rdbReplInfo ri;
    int dbid = replicationGetSaveInfo(&ri) ? ri.stream_db : 0;
    char buf[128];
    int len = snprintf(buf, sizeof(buf), "$ENDOFF:%lld %s %d %llu\r\n", offset, server.replid, dbid,
                       (unsigned long long)c->id);
    if (connSyncWrite(c->conn, buf, len, REPL_SYNCIO_TIMEOUT_MS) != len) {
        freeClientAsync(c);
        return C_ERR;
    }
    return C_OK;
}

/* PSYNC of main channel c could not continue: if c and this server both
 * do dual-channel syncs, c is told to take the snapshot on an rdb channel
 * ("+DUALCHANNELSYNC") and 1 is returned; c stays a plain client. 0 if
 * the full sync goes on this link. */
static int dualChannelRedirectFullSync(client *c) {
    if (!server.dual_channel_replication || !(c->repl->capa & REPLICA_CAPA_DUAL_CHANNEL) || c->repl->rdb_channel ||
        c->repl->rdb_only || c->repl->rdb_exclude)
        return 0;
    serverLog(LL_NOTICE,
              "Replica %s is capable of dual channel synchronization, and partial sync isn't possible. Full sync "
              "will continue with dedicated RDB channel.",
              replicaName(c));
    const char *reply = "+DUALCHANNELSYNC\r\n";
    if (connSyncWrite(c->conn, reply, strlen(reply), REPL_SYNCIO_TIMEOUT_MS) != (ssize_t)strlen(reply))
        freeClientAsync(c);
    return 1;
}

/* REPLCONF set-rdb-client-id <id> on a main channel: the rdb channel it
 * continues after. C_ERR after replying with Valkey's error when no
 * snapshot of that client is held. */
static int replconfSetRdbClientId(client *c, robj *val) {
    long long id;
    if (getLongLongFromObjectOrReply(c, val, &id, NULL) != C_OK) return C_ERR;
    if (id <= 0 || psyncHoldFind((uint64_t)id, NULL) == NULL) {
        addReplyErrorFormat(c, "Unrecognized RDB client id %lld", id);
        return C_ERR;
    }
    if (c->repl == NULL) c->repl = replClientDataCreate();
    c->repl->rdb_client_id = (uint64_t)id;
    return C_OK;
}

/* Sends "+FULLRESYNC <replid> <offset>" (PSYNC replicas; SYNC ones get
 * nothing) and marks c as waiting for the snapshot that starts now. The
 * reply goes straight to the connection: c's output buffer is held back
 * until its snapshot is delivered, and this line must come before it. */
static int replicaSetupFullResync(client *c, long long offset) {
    c->repl->psync_initial_offset = offset;
    c->repl->state = REPLICA_STATE_WAIT_BGSAVE_END;
    repl.last_seldb = -1; /* the stream after the snapshot starts with SELECT */
    if (c->repl->rdb_channel) return dualChannelSendEndOffset(c, offset);
    replicaSetStreamStart(c, offset + 1); /* the stream after its snapshot accumulates from here */
    if (c->flags & CLIENT_PRE_PSYNC) return C_OK;
    char buf[128];
    int len = snprintf(buf, sizeof(buf), "+FULLRESYNC %s %lld\r\n", server.replid, offset);
    if (connSyncWrite(c->conn, buf, len, REPL_SYNCIO_TIMEOUT_MS) != len) {
        freeClientAsync(c);
        return C_ERR;
    }
    return C_OK;
}

/* Tries to serve PSYNC <replid> <offset> from the backlog. Returns C_OK
 * if the replica continues (partial resync), C_ERR if it needs a full
 * one. */
static int primaryTryPartialResync(client *c, const char *replid, long long psync_offset) {
    int same = !strcasecmp(replid, server.replid);
    int old = !strcasecmp(replid, repl.replid2) && psync_offset <= repl.second_replid_offset;
    if (!same && !old) {
        if (replid[0] != '?') {
            if (strcasecmp(replid, repl.replid2))
                serverLog(LL_NOTICE,
                          "Partial resynchronization not accepted: Replication ID mismatch (Replica asked for "
                          "'%s', my replication IDs are '%s' and '%s')",
                          replid, server.replid, repl.replid2);
            else
                serverLog(LL_NOTICE,
                          "Partial resynchronization not accepted: Requested offset for second ID was %lld, but I "
                          "can reply up to %lld",
                          psync_offset, repl.second_replid_offset);
        } else {
            serverLog(LL_NOTICE, "Full resync requested by replica %s", replicaName(c));
        }
        return C_ERR;
    }
    replBacklog *b = repl.backlog;
    if (!b || psync_offset < b->offset || psync_offset > b->offset + backlogHistlen()) {
        serverLog(LL_NOTICE,
                  "Unable to partial resync with replica %s for lack of backlog (Replica request was: %lld).",
                  replicaName(c), psync_offset);
        if (b && psync_offset > server.primary_repl_offset + 1)
            serverLog(LL_WARNING, "Warning: replica %s tried to PSYNC with an offset that is greater than the "
                                  "primary replication offset.", replicaName(c));
        return C_ERR;
    }
    c->flags |= CLIENT_REPLICA;
    /* A dual-channel main channel gets the stream while its replica loads
     * the snapshot; it is online once that is done (its first ACK). */
    c->repl->state = c->repl->rdb_client_id ? REPLICA_STATE_BG_RDB_LOAD : REPLICA_STATE_ONLINE;
    c->repl->ack_time = server.unixtime;
    listAddNodeTail(repl.replicas, c);
    char buf[128];
    int len = (c->repl->capa & REPLICA_CAPA_PSYNC2) ? snprintf(buf, sizeof(buf), "+CONTINUE %s\r\n", server.replid)
                                                    : snprintf(buf, sizeof(buf), "+CONTINUE\r\n");
    if (connSyncWrite(c->conn, buf, len, REPL_SYNCIO_TIMEOUT_MS) != len) {
        freeClientAsync(c);
        return C_OK;
    }
    /* It continues from the backlog's blocks: nothing is copied. */
    replicaSetStreamStart(c, psync_offset);
    if (c->repl->rdb_client_id) psyncHoldRelease(c->repl->rdb_client_id); /* c holds the stream now */
    long long sent = server.primary_repl_offset + 1 - psync_offset;
    serverLog(LL_NOTICE,
              "Partial resynchronization request from %s accepted. Sending %lld bytes of backlog starting from "
              "offset %lld.",
              replicaName(c), sent, psync_offset);
    repl.stat_sync_partial_ok++;
    refreshGoodReplicasCount();
    return C_OK;
}

/* SYNC and PSYNC <replid> <offset>: a replica asks for the stream. */
void syncCommand(client *c) {
    if (c->flags & CLIENT_REPLICA) return; /* already one: ignore */
    /* A client without a connection (an AOF being loaded) cannot be fed a
     * snapshot and a stream: its SYNC is refused and loading goes on. */
    if (c->conn == NULL) {
        addReplyError(c, "SYNC and PSYNC need a connection");
        return;
    }
    /* From here on its connection is written by the snapshot's and the
     * stream's own handlers, on the main thread (io_threads.c). */
    ioThreadsReleaseClient(c);
    /* PSYNC <replid> <offset> FAILOVER: our primary hands its role over.
     * Other words after the offset are ignored, as Valkey does. */
    if (c->argc > 3 && !strcasecmp(objectGetVal(c->argv[0]), "psync") &&
        !strcasecmp(objectGetVal(c->argv[3]), "failover")) {
        serverLog(LL_NOTICE, "Failover request received for replid %s.", (char *)objectGetVal(c->argv[1]));
        if (server.primary_host == NULL) {
            addReplyError(c, "PSYNC FAILOVER can't be sent to a master.");
            return;
        }
        if (strcasecmp(objectGetVal(c->argv[1]), server.replid)) {
            addReplyError(c, "PSYNC FAILOVER replid must match my replid.");
            return;
        }
        replicationUnsetPrimary();
        sds client = catClientInfoString(sdsempty(), c);
        serverLog(LL_NOTICE, "PRIMARY MODE enabled (failover request from '%s')", client);
        sdsfree(client);
    }
    /* A primary handing its role over has no stream to give. */
    if (repl.failover_state != FAILOVER_NONE) {
        addReplyError(c, "-NOMASTERLINK Can't SYNC while failing over");
        return;
    }
    if (server.primary_host && repl.state != REPL_STATE_CONNECTED) {
        addReplyError(c, "-NOMASTERLINK Can't SYNC while not connected with my master");
        return;
    }
    if (clientHasPendingReplies(c)) {
        addReplyError(c, "SYNC and PSYNC are invalid with pending output");
        return;
    }
    if (c->flags & CLIENT_MULTI) {
        addReplyError(c, "Command not allowed inside a transaction");
        return;
    }
    if (c->repl == NULL) c->repl = replClientDataCreate();
    /* A filtered snapshot is never a file (dbfilename is the whole
     * dataset): it is streamed, which takes the EOF framing. */
    if (c->repl->rdb_exclude && !(c->repl->capa & REPLICA_CAPA_EOF)) {
        addReplyError(c, "Filtered replica requires EOF capability");
        return;
    }
    /* A dual-channel snapshot is always streamed ("$ENDOFF" then "$EOF:"). */
    if (c->repl->rdb_channel && !(c->repl->capa & REPLICA_CAPA_EOF)) {
        addReplyError(c, "RDB channel requires EOF capability");
        return;
    }
    serverLog(LL_NOTICE, "Replica %s asks for synchronization", replicaName(c));

    if (!strcasecmp(objectGetVal(c->argv[0]), "psync")) {
        long long psync_offset;
        if (getLongLongFromObjectOrReply(c, c->argv[2], &psync_offset, NULL) != C_OK) return;
        if (!c->repl->rdb_channel && primaryTryPartialResync(c, objectGetVal(c->argv[1]), psync_offset) == C_OK)
            return;
        repl.stat_sync_partial_err += ((char *)objectGetVal(c->argv[1]))[0] != '?';
        if (dualChannelRedirectFullSync(c)) return;
    } else {
        c->flags |= CLIENT_PRE_PSYNC; /* the old protocol: no +FULLRESYNC line */
    }

    /* A full resync. */
    repl.stat_sync_full++;
    c->flags |= CLIENT_REPLICA;
    c->repl->state = REPLICA_STATE_WAIT_BGSAVE_START;
    listAddNodeTail(repl.replicas, c);
    if (repl.backlog == NULL) {
        /* The first replica ever (or after the backlog expired): a new
         * history begins, which no replica can have a piece of. */
        replicationNewReplid();
        replicationClearReplid2();
        replicationCreateBacklog();
        serverLog(LL_NOTICE, "Replication backlog created, my new replication IDs are '%s' and '%s'", server.replid,
                  repl.replid2);
    }
    /* Join a snapshot that just started for others if its method can take
     * one more; otherwise the cron starts the next one (after
     * repl-diskless-sync-delay for diskless syncs, so that more replicas
     * can share it). */
    replSnapshotMethod *m = replicationJoinableSnapshot(c);
    if (m) {
        c->repl->method = m;
        if (replicaSetupFullResync(c, repl.snapshot_offset) != C_OK) return;
        if (m->attached) m->attached(c);
        serverLog(LL_NOTICE, "Waiting for end of BGSAVE for SYNC");
    } else if (!hasActiveChildProcess() &&
               !(snapshotMethodDelayed(replicationSnapshotMethodFor(c)) && server.repl_diskless_sync_delay > 0)) {
        replicationStartFullSyncs();
    } else {
        serverLog(LL_NOTICE, "Delay next BGSAVE for diskless SYNC");
    }
}

/* REPLCONF rdb-filter-only "<filter> ...": what the replica's snapshot
 * includes, everything else being left out; "functions" is the one filter
 * there is (valkey-cli --functions-rdb), none at all leaves only the
 * header and aux fields (valkey-cli --replica). Returns C_OK, or C_ERR
 * after replying with Valkey's error. */
static int replconfRdbFilter(client *c, sds value) {
    int count;
    sds *filters = sdssplitargs(value, &count);
    if (filters == NULL) {
        addReplyError(c, "Missing rdb-filter-only values");
        return C_ERR;
    }
    int exclude = RDB_SAVE_EXCLUDE_DATA | RDB_SAVE_EXCLUDE_FUNCTIONS;
    for (int j = 0; j < count; j++) {
        if (strcasecmp(filters[j], "functions")) {
            addReplyErrorFormat(c, "Unsupported rdb-filter-only option: %s", filters[j]);
            sdsfreesplitres(filters, count);
            return C_ERR;
        }
        exclude &= ~RDB_SAVE_EXCLUDE_FUNCTIONS;
    }
    sdsfreesplitres(filters, count);
    if (c->repl == NULL) c->repl = replClientDataCreate();
    c->repl->rdb_exclude = exclude;
    return C_OK;
}

/* REPLCONF <option> <value> ...: what a replica tells about itself, and
 * the ACK/GETACK exchange. */
void replconfCommand(client *c) {
    if ((c->argc % 2) == 0) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    for (int j = 1; j < c->argc; j += 2) {
        const char *opt = objectGetVal(c->argv[j]);
        robj *val = c->argv[j + 1];
        if (!strcasecmp(opt, "listening-port")) {
            long port;
            if (getRangeLongFromObjectOrReply(c, val, 0, 65535, &port, NULL) != C_OK) return;
            if (c->repl == NULL) c->repl = replClientDataCreate();
            c->repl->listening_port = (int)port;
        } else if (!strcasecmp(opt, "ip-address")) {
            if (sdslen(objectGetVal(val)) >= NET_HOST_STR_LEN) {
                addReplyErrorFormat(c, "REPLCONF ip-address provided by replica instance is too long: %zd bytes",
                                    sdslen(objectGetVal(val)));
                return;
            }
            if (c->repl == NULL) c->repl = replClientDataCreate();
            sdsfree(c->repl->announced_ip);
            c->repl->announced_ip = sdsdup(objectGetVal(val));
        } else if (!strcasecmp(opt, "capa")) {
            if (c->repl == NULL) c->repl = replClientDataCreate();
            if (!strcasecmp(objectGetVal(val), "eof")) c->repl->capa |= REPLICA_CAPA_EOF;
            else if (!strcasecmp(objectGetVal(val), "psync2")) c->repl->capa |= REPLICA_CAPA_PSYNC2;
            else if (!strcasecmp(objectGetVal(val), "rdma-read")) c->repl->capa |= REPLICA_CAPA_RDMA_READ;
            else if (!strcasecmp(objectGetVal(val), "dual-channel")) c->repl->capa |= REPLICA_CAPA_DUAL_CHANNEL;
            /* unknown capabilities are ignored, as Valkey does */
        } else if (!strcasecmp(opt, "ack")) {
            /* From a replica: no reply, ever. */
            if (!(c->flags & CLIENT_REPLICA) || c->repl == NULL) return;
            long long offset;
            if (getLongLongFromObject(val, &offset) != C_OK) return;
            if (offset > c->repl->ack_off) c->repl->ack_off = offset;
            /* "FACK <offset>" (Valkey 7.2+): what its AOF has fsynced (WAITAOF). */
            if (j + 3 < c->argc && !strcasecmp(objectGetVal(c->argv[j + 2]), "fack")) {
                if (getLongLongFromObject(c->argv[j + 3], &offset) != C_OK) return;
                if (offset > c->repl->aof_ack_off) c->repl->aof_ack_off = offset;
            }
            c->repl->ack_time = server.unixtime;
            /* The stream that accumulated goes before the event loop sleeps. */
            if (c->repl->start_stream_on_ack && c->repl->state == REPLICA_STATE_ONLINE)
                c->repl->start_stream_on_ack = 0;
            /* A dual-channel replica ACKs once its snapshot is loaded. */
            if (c->repl->state == REPLICA_STATE_BG_RDB_LOAD) {
                c->repl->state = REPLICA_STATE_ONLINE;
                serverLog(LL_NOTICE, "Synchronization with replica %s succeeded", replicaName(c));
                refreshGoodReplicasCount();
            }
            repl.acks_arrived = 1;
            return;
        } else if (!strcasecmp(opt, "rdma-read-done")) {
            /* From a replica reading a snapshot region: no reply. */
            replRdmaReadDone(c, val);
            return;
        } else if (!strcasecmp(opt, "getack")) {
            /* From our primary, in the stream: answer with our offset, and
             * again once the AOF has fsynced up to it (aof.c). */
            if (c->flags & CLIENT_PRIMARY) {
                replicationSendAck();
                aofAckWhenFsynced(c->repl->reploff);
            }
            return;
        } else if (!strcasecmp(opt, "rdb-only")) {
            /* 1: the snapshot alone (valkey-cli --rdb); the link is closed
             * once it is out, the stream is never sent. */
            long rdb_only;
            if (getRangeLongFromObjectOrReply(c, val, 0, 1, &rdb_only, NULL) != C_OK) return;
            if (c->repl == NULL) c->repl = replClientDataCreate();
            c->repl->rdb_only = (int)rdb_only;
        } else if (!strcasecmp(opt, "rdb-filter-only")) {
            if (replconfRdbFilter(c, objectGetVal(val)) != C_OK) return;
        } else if (!strcasecmp(opt, "rdb-channel")) {
            /* 1: this link is the rdb channel of a dual-channel sync. */
            long rdb_channel;
            if (getRangeLongFromObjectOrReply(c, val, 0, 1, &rdb_channel, NULL) != C_OK) return;
            if (c->repl == NULL) c->repl = replClientDataCreate();
            c->repl->rdb_channel = (int)rdb_channel;
        } else if (!strcasecmp(opt, "set-rdb-client-id")) {
            if (replconfSetRdbClientId(c, val) != C_OK) return;
        } else if (!strcasecmp(opt, "version")) {
            /* Accepted and ignored: every replica gets the same RDB version. */
        } else {
            addReplyErrorFormat(c, "Unrecognized REPLCONF option: %s", opt);
            return;
        }
    }
    addReply(c, shared.ok);
}

/* A replica client is being freed (networking.c). */
static void replicaFreed(client *c) {
    listNode *ln = listSearchKey(repl.replicas, c);
    if (ln == NULL) return;
    if (c->repl->method && c->repl->method->replica_gone) c->repl->method->replica_gone(c);
    replicaReleaseBlock(c); /* the blocks it held go once the backlog lets them */
    if (c->repl->rdb_channel) psyncHoldRdbChannelGone(c);
    listDelNode(repl.replicas, ln);
    if (listLength(repl.replicas) == 0) repl.no_replicas_since = server.unixtime;
    serverLog(LL_NOTICE, "Connection with replica %s lost.", replicaName(c));
    refreshGoodReplicasCount();
}

/* See replication.h. */
void replicationFreeClient(client *c) {
    if (c->flags & CLIENT_REPLICA && !(c->flags & CLIENT_MONITOR)) replicaFreed(c);
    if (c == repl.primary) {
        serverLog(LL_NOTICE, "Connection with primary lost.");
        replicationPrimaryFeedApplied(c); /* what we applied is in our history */
        replicationCachePrimaryState();
        /* After a corrupt stream a partial resync would get the same bytes
         * again: ask for a full one (Valkey discards its cached primary). */
        if (c->repl->stream_broken) repl.psync_possible = 0;
        repl.primary = NULL;
        if (server.primary_host) {
            repl.state = REPL_STATE_CONNECT;
            repl.down_since = server.unixtime;
        }
    }
    replicaReleaseBlock(c);
    replClientDataFree(c->repl);
    c->repl = NULL;
}

/* Counts replicas whose last ACK is within min-replicas-max-lag. */
void refreshGoodReplicasCount(void) {
    int good = 0;
    listIter li;
    listNode *ln;
    listRewind(repl.replicas, &li);
    while ((ln = listNext(&li))) {
        client *r = listNodeValue(ln);
        time_t lag = server.unixtime - r->repl->ack_time;
        if (r->repl->state == REPLICA_STATE_ONLINE && lag <= server.repl_min_replicas_max_lag) good++;
    }
    repl.good_replicas = good;
}

/* See replication.h. */
int replicationDeniesWrites(void) {
    return server.primary_host == NULL && server.repl_min_replicas_to_write &&
           server.repl_min_replicas_max_lag && repl.good_replicas < server.repl_min_replicas_to_write;
}

/* ---------------------------------------------------------------------------
 * Snapshot delivery: the disk method
 *
 * The child is a normal BGSAVE of dbfilename (its aux fields carry the
 * replication id and offset). When it succeeds, each waiting replica is
 * sent "$<size>\r\n" and the file, chunk by chunk, from its write handler.
 * ------------------------------------------------------------------------- */

static int diskSnapshotStart(void);
static void diskSnapshotDone(int ok);
static int diskSnapshotCanAttach(void);
static replSnapshotMethod diskSnapshotMethod = {
    .name = "disk",
    .delayed = 0,
    .start = diskSnapshotStart,
    .done = diskSnapshotDone,
    .replica_gone = NULL, /* its file fd is closed with its replClientData */
    .can_attach = diskSnapshotCanAttach,
};

/* What the snapshot of method m leaves out (RDB_SAVE_EXCLUDE_*): only the
 * socket method writes filtered snapshots, each for replicas that asked
 * for the same filter. */
static int snapshotMethodExclude(replSnapshotMethod *m) {
    return m == &socketSnapshotMethod ? repl.snapshot_exclude : 0;
}

/* 1 if m serves c's full sync: it is c's method, or serves it too, and
 * its snapshot has what c asked for (REPLCONF rdb-filter-only). */
static int snapshotMethodServes(replSnapshotMethod *m, client *c) {
    if (c->repl->rdb_exclude != snapshotMethodExclude(m)) return 0;
    return replicationSnapshotMethodFor(c) == m || (m->also_serves && m->also_serves(c));
}

/* 1 if a snapshot of method m waits repl-diskless-sync-delay for more
 * replicas: a diskless sync does, and a filtered snapshot (streamed
 * whatever repl-diskless-sync says) only with repl-diskless-sync yes, as
 * Valkey decides. */
static int snapshotMethodDelayed(replSnapshotMethod *m) {
    return m->delayed && (m != &socketSnapshotMethod || server.repl_diskless_sync);
}

/* Every way a snapshot reaches replicas. */
static replSnapshotMethod *const snapshotMethods[] = {&diskSnapshotMethod, &socketSnapshotMethod,
                                                      &replRdmaRegionMethod};

/* The snapshot c can join now, or NULL: the one being produced, or one
 * whose method still delivers it after its child ended (busy), if that
 * method serves c and can take one more. */
static replSnapshotMethod *replicationJoinableSnapshot(client *c) {
    for (size_t j = 0; j < sizeof(snapshotMethods) / sizeof(snapshotMethods[0]); j++) {
        replSnapshotMethod *m = snapshotMethods[j];
        int live = m == repl.running_method || (m->busy && m->busy());
        if (live && snapshotMethodServes(m, c) && m->can_attach && m->can_attach()) return m;
    }
    return NULL;
}

/* Marks the replicas waiting to start (at most max of them, 0 = all) as
 * served by a snapshot of method m starting at offset now (+FULLRESYNC to
 * each). Those that joined go to joined[] when it is not NULL. Returns
 * how many joined. */
int replicasJoinSnapshot(replSnapshotMethod *m, long long offset, int max, client **joined) {
    int n = 0;
    listIter li;
    listNode *ln;
    listRewind(repl.replicas, &li);
    while ((ln = listNext(&li)) && (max == 0 || n < max)) {
        client *r = listNodeValue(ln);
        if (r->repl->state != REPLICA_STATE_WAIT_BGSAVE_START || !snapshotMethodServes(m, r)) continue;
        r->repl->method = m;
        if (replicaSetupFullResync(r, offset) != C_OK) continue;
        if (joined) joined[n] = r;
        n++;
    }
    return n;
}

static int diskSnapshotStart(void) {
    serverLog(LL_NOTICE, "Starting BGSAVE for SYNC with target: disk");
    repl.snapshot_offset = server.primary_repl_offset;
    if (rdbSaveBackground() != C_OK) return C_ERR;
    replicasJoinSnapshot(&diskSnapshotMethod, repl.snapshot_offset, 0, NULL);
    return C_OK;
}

/* A replica may join a disk snapshot while the stream since its fork is
 * still in the backlog: it gets the file, then the backlog from there. */
static int diskSnapshotCanAttach(void) {
    replBacklog *b = repl.backlog;
    return b && repl.snapshot_offset + 1 >= b->offset;
}

/* Write handler of a replica in SEND_BULK: the preamble, then the file. */
static void sendBulkToReplica(connection *conn) {
    client *c = connGetPrivateData(conn);
    replClientData *d = c->repl;
    if (d->preamble) {
        ssize_t n = connWrite(conn, d->preamble, sdslen(d->preamble));
        if (n == -1) {
            if (connGetState(conn) == CONN_STATE_CONNECTED) return;
            serverLog(LL_WARNING, "Write error sending DB preamble to replica: %s", connGetLastError(conn));
            freeClient(c);
            return;
        }
        server.stat_net_repl_output_bytes += n;
        sdsrange(d->preamble, n, -1);
        if (sdslen(d->preamble)) return;
        sdsfree(d->preamble);
        d->preamble = NULL;
    }
    char buf[REPL_TRANSFER_CHUNK];
    ssize_t got = pread(d->dbfd, buf, sizeof(buf), d->dboff);
    if (got <= 0) {
        serverLog(LL_WARNING, "Read error sending DB to replica: %s", got == 0 ? "premature EOF" : strerror(errno));
        freeClient(c);
        return;
    }
    ssize_t n = connWrite(conn, buf, (size_t)got);
    if (n == -1) {
        if (connGetState(conn) == CONN_STATE_CONNECTED) return;
        serverLog(LL_WARNING, "Write error sending DB to replica: %s", connGetLastError(conn));
        freeClient(c);
        return;
    }
    d->dboff += n;
    server.stat_net_repl_output_bytes += n;
    c->lastinteraction = server.unixtime;
    if (d->dboff < d->dbsize) return;
    close(d->dbfd);
    d->dbfd = -1;
    connSetWriteHandler(conn, NULL);
    replicaPutOnline(c, 0);
}

/* Starts sending the saved file to one replica. */
static void diskSnapshotSendTo(client *c) {
    replClientData *d = c->repl;
    struct stat st;
    d->dbfd = open(server.rdb_filename, O_RDONLY);
    if (d->dbfd == -1 || fstat(d->dbfd, &st) == -1) {
        serverLog(LL_WARNING, "SYNC failed. Can't open/stat DB after BGSAVE: %s", strerror(errno));
        freeClient(c);
        return;
    }
    d->dboff = 0;
    d->dbsize = st.st_size;
    d->preamble = sdscatprintf(sdsempty(), "$%lld\r\n", (long long)st.st_size);
    d->state = REPLICA_STATE_SEND_BULK;
    if (connSetWriteHandler(c->conn, sendBulkToReplica) == C_ERR) freeClient(c);
}

static void diskSnapshotDone(int ok) {
    listIter li;
    listNode *ln;
    listRewind(repl.replicas, &li);
    while ((ln = listNext(&li))) {
        client *r = listNodeValue(ln);
        if (r->repl->state != REPLICA_STATE_WAIT_BGSAVE_END || r->repl->method != &diskSnapshotMethod) continue;
        if (!ok) {
            serverLog(LL_WARNING, "SYNC failed. BGSAVE child returned an error");
            freeClientAsync(r);
            continue;
        }
        diskSnapshotSendTo(r);
    }
}

/* ---------------------------------------------------------------------------
 * Snapshot delivery: the socket method (diskless)
 *
 * The child writes "$EOF:<mark>\r\n", the RDB and "<mark>" into a pipe.
 * The parent reads a chunk and writes it to every replica of the sync;
 * while a replica's connection cannot take its part, the pipe is not read
 * (the slowest replica paces the child). At the pipe's end every replica
 * is online but receives the stream only after its first ACK, which tells
 * that it finished loading, so no stream byte can reach a replica that is
 * still reading the snapshot.
 * ------------------------------------------------------------------------- */

static struct {
    int fd;                 /* read end of the pipe, -1 when none */
    char buf[REPL_TRANSFER_CHUNK];
    size_t len;             /* bytes in buf */
    int pending;            /* replicas that have not taken buf whole */
    client **targets;       /* the replicas of this sync */
    int ntargets;
} rdbPipe = {.fd = -1};

static int socketSnapshotStart(void);
static void socketSnapshotDone(int ok);
static void socketSnapshotReplicaGone(client *c);
static replSnapshotMethod socketSnapshotMethod = {
    .name = "socket",
    .delayed = 1,
    .start = socketSnapshotStart,
    .done = socketSnapshotDone,
    .replica_gone = socketSnapshotReplicaGone,
    .can_attach = NULL,
};

static void rdbPipeReadHandler(struct aeEventLoop *el, int fd, void *privdata, int mask);

static void rdbPipeClose(void) {
    if (rdbPipe.fd != -1) {
        aeDeleteFileEvent(server.el, rdbPipe.fd, AE_READABLE);
        close(rdbPipe.fd);
        snapshotChildMustClose(-1);
    }
    rdbPipe.fd = -1;
    zfree(rdbPipe.targets);
    rdbPipe.targets = NULL;
    rdbPipe.ntargets = rdbPipe.pending = 0;
    rdbPipe.len = 0;
}

/* Removes c from the sync's targets (it failed or went away); when none
 * is left, closing the pipe ends the child (EPIPE). */
static void rdbPipeDropTarget(client *c) {
    for (int j = 0; j < rdbPipe.ntargets; j++) {
        if (rdbPipe.targets[j] != c) continue;
        if (c->repl->dboff < (off_t)rdbPipe.len && rdbPipe.len) rdbPipe.pending--;
        rdbPipe.targets[j] = rdbPipe.targets[--rdbPipe.ntargets];
        break;
    }
    if (rdbPipe.fd == -1) return;
    if (rdbPipe.ntargets == 0) {
        serverLog(LL_WARNING, "Diskless rdb transfer, last replica dropped, killing fork child.");
        killRDBChild();
        rdbPipeClose();
    } else if (rdbPipe.pending == 0) {
        aeCreateFileEvent(server.el, rdbPipe.fd, AE_READABLE, rdbPipeReadHandler, NULL);
    }
}

/* Writes what c has not yet taken of the current chunk. Returns 1 when c
 * took it all, 0 if it must wait for writability, -1 if c failed. */
static int rdbPipeWriteTo(client *c) {
    size_t off = (size_t)c->repl->dboff;
    ssize_t n = connWrite(c->conn, rdbPipe.buf + off, rdbPipe.len - off);
    if (n == -1) {
        if (connGetState(c->conn) == CONN_STATE_CONNECTED) return 0;
        serverLog(LL_WARNING, "Diskless rdb transfer, write error sending DB to replica: %s",
                  connGetLastError(c->conn));
        return -1;
    }
    c->repl->dboff += n;
    server.stat_net_repl_output_bytes += n;
    c->lastinteraction = server.unixtime;
    return (size_t)c->repl->dboff == rdbPipe.len;
}

/* Write handler of a replica that could not take a whole chunk. */
static void rdbPipeWriteHandler(connection *conn) {
    client *c = connGetPrivateData(conn);
    int r = rdbPipeWriteTo(c);
    if (r == 0) return;
    connSetWriteHandler(conn, NULL);
    if (r < 0) {
        freeClient(c); /* drops it from the targets */
        return;
    }
    if (--rdbPipe.pending == 0 && rdbPipe.fd != -1)
        aeCreateFileEvent(server.el, rdbPipe.fd, AE_READABLE, rdbPipeReadHandler, NULL);
}

/* The snapshot is all out: every target is online, streaming at its first
 * ACK. */
static void rdbPipeFinished(void) {
    serverLog(LL_NOTICE, "Diskless rdb transfer, done reading from pipe, %d replicas still up.", rdbPipe.ntargets);
    for (int j = 0; j < rdbPipe.ntargets; j++) {
        client *c = rdbPipe.targets[j];
        c->repl->method = NULL;
        serverLog(LL_NOTICE, "Streamed RDB transfer with replica %s succeeded (socket). Waiting for REPLCONF ACK "
                             "from replica to enable streaming", replicaName(c));
        replicaPutOnline(c, 1);
    }
    rdbPipeClose();
}

static void rdbPipeReadHandler(struct aeEventLoop *el, int fd, void *privdata, int mask) {
    (void)el;
    (void)privdata;
    (void)mask;
    ssize_t n = read(fd, rdbPipe.buf, sizeof(rdbPipe.buf));
    if (n < 0) {
        if (errno == EAGAIN || errno == EINTR) return;
        serverLog(LL_WARNING, "Diskless rdb transfer, read error sending DB to replicas: %s", strerror(errno));
        for (int j = rdbPipe.ntargets - 1; j >= 0; j--) freeClientAsync(rdbPipe.targets[j]);
        killRDBChild();
        rdbPipeClose();
        return;
    }
    if (n == 0) {
        rdbPipeFinished();
        return;
    }
    rdbPipe.len = (size_t)n;
    rdbPipe.pending = 0;
    for (int j = rdbPipe.ntargets - 1; j >= 0; j--) {
        client *c = rdbPipe.targets[j];
        c->repl->dboff = 0;
        int r = rdbPipeWriteTo(c);
        if (r < 0) {
            freeClientAsync(c);
            rdbPipe.targets[j] = rdbPipe.targets[--rdbPipe.ntargets];
        } else if (r == 0) {
            rdbPipe.pending++;
            connSetWriteHandler(c->conn, rdbPipeWriteHandler);
        }
    }
    if (rdbPipe.ntargets == 0) {
        killRDBChild();
        rdbPipeClose();
        return;
    }
    if (rdbPipe.pending) aeDeleteFileEvent(server.el, rdbPipe.fd, AE_READABLE);
}

static int socketSnapshotStart(void) {
    int fds[2];
    if (pipe(fds) == -1) {
        serverLog(LL_WARNING, "Can't setup the pipe for a diskless sync: %s", strerror(errno));
        return C_ERR;
    }
    char mark[CONFIG_RUN_ID_SIZE];
    getRandomHexChars(mark, sizeof(mark));
    repl.snapshot_offset = server.primary_repl_offset;
    serverLog(LL_NOTICE, "Starting BGSAVE for SYNC with target: replicas sockets");
    rdbSaveExclude = repl.snapshot_exclude; /* the child's copy filters its snapshot */
    int forked = rdbSaveToPipeBackground(fds[1], fds[0], mark);
    rdbSaveExclude = 0;
    if (forked != C_OK) {
        close(fds[0]);
        close(fds[1]);
        return C_ERR;
    }
    close(fds[1]);
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    rdbPipe.fd = fds[0];
    snapshotChildMustClose(rdbPipe.fd);
    rdbPipe.targets = zmalloc(sizeof(client *) * listLength(repl.replicas));
    rdbPipe.ntargets = replicasJoinSnapshot(&socketSnapshotMethod, repl.snapshot_offset,
                                            server.repl_diskless_sync_max_replicas, rdbPipe.targets);
    for (int j = 0; j < rdbPipe.ntargets; j++) rdbPipe.targets[j]->repl->dboff = 0;
    aeCreateFileEvent(server.el, rdbPipe.fd, AE_READABLE, rdbPipeReadHandler, NULL);
    return C_OK;
}

/* The child ended. The pipe normally ended before; if not (the child
 * failed), the replicas of the sync cannot get their snapshot. */
static void socketSnapshotDone(int ok) {
    if (rdbPipe.fd == -1) return;
    if (ok) return; /* the rest of the pipe is still to be relayed */
    serverLog(LL_WARNING, "Diskless rdb transfer failed: the child exited before the end of the snapshot");
    for (int j = rdbPipe.ntargets - 1; j >= 0; j--) freeClientAsync(rdbPipe.targets[j]);
    rdbPipeClose();
}

static void socketSnapshotReplicaGone(client *c) {
    if (c->repl->state == REPLICA_STATE_WAIT_BGSAVE_END) rdbPipeDropTarget(c);
}

/* ---------------------------------------------------------------------------
 * Choosing and running a snapshot method
 * ------------------------------------------------------------------------- */

/* The one place that decides how c's snapshot reaches it: streamed when
 * it asked for a filtered one (REPLCONF rdb-filter-only; syncCommand()
 * made sure it reads the EOF framing), READ from a region when the
 * replica can (repl_rdma.c), streamed when repl-diskless-sync is on and
 * the replica can read an EOF-framed payload, else through the file. */
replSnapshotMethod *replicationSnapshotMethodFor(client *c) {
    if (c->repl->rdb_exclude || c->repl->rdb_channel) return &socketSnapshotMethod;
    if (replRdmaServes(c)) return &replRdmaRegionMethod;
    if (server.repl_diskless_sync && (c->repl->capa & REPLICA_CAPA_EOF)) return &socketSnapshotMethod;
    return &diskSnapshotMethod;
}

/* The method of the next snapshot: that of the first replica waiting for
 * one, unless the method of another waiting replica serves the first too
 * (a region with readers and stream targets), so that one sync serves
 * them all. *exclude gets what that snapshot leaves out: the first
 * replica's filter, which the replicas it serves share (the others wait
 * for a later one). NULL if nobody waits. */
static replSnapshotMethod *replicationNextSnapshotMethod(int *exclude) {
    client *first = NULL;
    replSnapshotMethod *m = NULL;
    listIter li;
    listNode *ln;
    listRewind(repl.replicas, &li);
    while ((ln = listNext(&li))) {
        client *r = listNodeValue(ln);
        if (r->repl->state != REPLICA_STATE_WAIT_BGSAVE_START) continue;
        replSnapshotMethod *rm = replicationSnapshotMethodFor(r);
        if (first == NULL) {
            first = r;
            m = rm;
        } else if (rm != m && r->repl->rdb_exclude == first->repl->rdb_exclude && rm->also_serves &&
                   rm->also_serves(first)) {
            m = rm;
        }
    }
    *exclude = first ? first->repl->rdb_exclude : 0;
    return m;
}

/* Starts one snapshot for the replicas waiting for one: it serves every
 * waiting replica its method serves; others wait for the next. */
static void replicationStartFullSyncs(void) {
    if (hasActiveChildProcess()) return;
    int exclude;
    replSnapshotMethod *m = replicationNextSnapshotMethod(&exclude);
    if (m == NULL) return;
    if (m->busy && m->busy()) return; /* the cron tries again */
    if (m == &socketSnapshotMethod) repl.snapshot_exclude = exclude;
    if (m->start() != C_OK) {
        serverLog(LL_WARNING, "BGSAVE for replication failed");
        listIter li;
        listNode *ln;
        listRewind(repl.replicas, &li);
        while ((ln = listNext(&li))) {
            client *r = listNodeValue(ln);
            if (r->repl->state != REPLICA_STATE_WAIT_BGSAVE_START || !snapshotMethodServes(m, r)) continue;
            /* No longer a replica: it gets the error as a reply. */
            if (r->repl->method && r->repl->method->replica_gone) r->repl->method->replica_gone(r);
            r->repl->method = NULL;
            replicaReleaseBlock(r);
            listDelNode(repl.replicas, ln);
            r->flags &= ~CLIENT_REPLICA;
            addReplyError(r, "BGSAVE failed, replication can't continue");
            r->flags |= CLIENT_CLOSE_AFTER_REPLY;
        }
        if (listLength(repl.replicas) == 0) repl.no_replicas_since = server.unixtime;
        refreshGoodReplicasCount();
        return;
    }
    repl.snapshot_running = 1;
    repl.running_method = m;
}

/* See replication.h: called by snapshot.c when any background save ends. */
void replicationSnapshotDone(int ok) {
    if (!repl.snapshot_running) return;
    repl.snapshot_running = 0;
    replSnapshotMethod *m = repl.running_method;
    repl.running_method = NULL;
    m->done(ok);
}

/* Starts the snapshot replicas wait for once nothing else runs, after
 * repl-diskless-sync-delay for a diskless one (or at once when
 * repl-diskless-sync-max-replicas are waiting). Cron. */
static void replicationStartPendingSyncs(void) {
    if (hasActiveChildProcess()) return;
    int waiting = 0;
    time_t max_idle = 0;
    listIter li;
    listNode *ln;
    listRewind(repl.replicas, &li);
    while ((ln = listNext(&li))) {
        client *r = listNodeValue(ln);
        if (r->repl->state != REPLICA_STATE_WAIT_BGSAVE_START) continue;
        waiting++;
        time_t idle = server.unixtime - r->ctime;
        if (idle > max_idle) max_idle = idle;
    }
    if (!waiting) return;
    int exclude;
    replSnapshotMethod *m = replicationNextSnapshotMethod(&exclude);
    if (snapshotMethodDelayed(m) && max_idle < server.repl_diskless_sync_delay &&
        !(server.repl_diskless_sync_max_replicas && waiting >= server.repl_diskless_sync_max_replicas))
        return;
    replicationStartFullSyncs();
}

/* ---------------------------------------------------------------------------
 * Replica side: connecting and the handshake
 * ------------------------------------------------------------------------- */

/* The one function that knows which transport the link to the primary
 * uses: RDMA with rdma-replication yes, TLS with tls-replication yes, TCP
 * otherwise. NULL if the transport asked for is not built in. */
static ConnectionType *replicationConnectionType(void) {
    if (server.rdma_replication) return connTypeGetByName(CONN_NAME_RDMA);
    if (server.tls_replication) return connTypeGetByName(CONN_NAME_TLS);
    return connectionTypeTcp();
}

static void syncWithPrimary(connection *conn);

/* Starts connecting to the primary (state CONNECT -> CONNECTING). */
static int connectWithPrimary(void) {
    ConnectionType *ct = replicationConnectionType();
    if (ct == NULL) {
        serverLog(LL_WARNING, "Unable to connect to PRIMARY: %s is not built in (%s-replication yes)",
                  server.rdma_replication ? "RDMA" : "TLS", server.rdma_replication ? "rdma" : "tls");
        return C_ERR;
    }
    repl.transfer = connCreate(ct);
    /* bind-source-addr: the address the link leaves from (NULL: any). */
    if (connConnect(repl.transfer, server.primary_host, server.primary_port, server.bind_source_addr,
                    syncWithPrimary) == C_ERR) {
        serverLog(LL_WARNING, "Unable to connect to PRIMARY: %s", connGetLastError(repl.transfer));
        connClose(repl.transfer);
        repl.transfer = NULL;
        return C_ERR;
    }
    repl.transfer_lastio = server.unixtime;
    repl.handshake_start = server.unixtime;
    repl.state = REPL_STATE_CONNECTING;
    serverLog(LL_NOTICE, "PRIMARY <-> REPLICA sync started");
    return C_OK;
}

/* Drops a link that is still in the handshake or the transfer. */
static void cancelReplicationHandshake(void) {
    if (repl.state == REPL_STATE_TRANSFER) {
        replicationAbortSyncTransfer();
    } else if (repl.transfer) {
        connClose(repl.transfer);
        repl.transfer = NULL;
    }
    dualChannelReset();
    if (repl.state != REPL_STATE_NONE && repl.state != REPL_STATE_CONNECTED) repl.state = REPL_STATE_CONNECT;
}

/* Sends one command of the handshake (at most REPL_HANDSHAKE_MAX_ARGS
 * words: the longest is the rdb channel's REPLCONF, 9). Returns C_OK or
 * C_ERR (logged). */
#define REPL_HANDSHAKE_MAX_ARGS 12
static int sendHandshakeCommand(connection *conn, int argc, const char **argv) {
    serverAssert(argc <= REPL_HANDSHAKE_MAX_ARGS);
    robj *objs[REPL_HANDSHAKE_MAX_ARGS];
    for (int j = 0; j < argc; j++) objs[j] = createStringObject(argv[j], strlen(argv[j]));
    size_t cap = propagateCommandMaxLen(objs, argc);
    char *cmd = zmalloc(cap);
    size_t len = (size_t)(writeCommandProto(cmd, cmd + cap, -1, objs, argc) - cmd);
    for (int j = 0; j < argc; j++) decrRefCount(objs[j]);
    ssize_t n = connSyncWrite(conn, cmd, (ssize_t)len, REPL_SYNCIO_TIMEOUT_MS);
    zfree(cmd);
    if (n == -1) {
        serverLog(LL_WARNING, "Error writing to PRIMARY: %s", connGetLastError(conn));
        return C_ERR;
    }
    return C_OK;
}

/* Reads one reply line of the handshake (the event loop said readable).
 * Returns an sds, or NULL on error (logged). */
static sds readHandshakeReply(connection *conn) {
    char buf[256];
    if (connSyncReadLine(conn, buf, sizeof(buf), REPL_SYNCIO_TIMEOUT_MS) == -1) {
        serverLog(LL_WARNING, "Failed to read response from the server: %s",
                  connGetLastError(conn) ? connGetLastError(conn) : strerror(errno));
        return NULL;
    }
    repl.transfer_lastio = server.unixtime;
    return sdsnew(buf);
}

/* Sends AUTH (when primaryauth is set), REPLCONF listening-port,
 * REPLCONF ip-address (replica-announce-ip) and REPLCONF capa in one go;
 * their replies are read one per readable event. */
static int sendHandshakeBatch(connection *conn) {
    if (server.primary_auth) {
        const char *a[3] = {"AUTH", server.primary_user ? server.primary_user : server.primary_auth,
                            server.primary_auth};
        const char *args[3] = {"AUTH", a[1], a[2]};
        if (sendHandshakeCommand(conn, server.primary_user ? 3 : 2, server.primary_user ? args : a) != C_OK)
            return C_ERR;
    }
    /* The port this replica serves clients on: its TLS port when the
     * link itself is TLS (a replica listening on TLS only has port 0). */
    char port[16];
    int listening = server.tls_replication && server.tls_port ? server.tls_port : server.port;
    snprintf(port, sizeof(port), "%d", server.replica_announce_port ? server.replica_announce_port : listening);
    const char *lp[3] = {"REPLCONF", "listening-port", port};
    if (sendHandshakeCommand(conn, 3, lp) != C_OK) return C_ERR;
    if (server.replica_announce_ip) {
        const char *ip[3] = {"REPLCONF", "ip-address", server.replica_announce_ip};
        if (sendHandshakeCommand(conn, 3, ip) != C_OK) return C_ERR;
    }
    const char *capa[9] = {"REPLCONF", "capa", "eof", "capa", "psync2"};
    int argc = 5;
    if (replRdmaCanRead(conn)) {
        capa[argc++] = "capa";
        capa[argc++] = "rdma-read";
    }
    if (server.dual_channel_replication) {
        capa[argc++] = "capa";
        capa[argc++] = "dual-channel";
    }
    return sendHandshakeCommand(conn, argc, capa);
}

/* Sends PSYNC <replid> <offset+1> for the history this dataset holds (a
 * fresh replica asks "PSYNC ? -1"). */
static int sendPsync(connection *conn) {
    char offset[32];
    const char *args[4] = {"PSYNC", server.replid, offset, "FAILOVER"};
    if (repl.psync_possible) {
        snprintf(offset, sizeof(offset), "%lld", server.primary_repl_offset + 1);
        serverLog(LL_NOTICE, "Trying a partial resynchronization (request %s:%s).", server.replid, offset);
    } else {
        args[1] = "?";
        snprintf(offset, sizeof(offset), "-1");
        serverLog(LL_NOTICE, "Partial resynchronization not possible (no cached primary)");
    }
    return sendHandshakeCommand(conn, repl.failover_state == FAILOVER_IN_PROGRESS ? 4 : 3, args);
}

static void readSyncBulkPayload(connection *conn);
static void replicationContinueWith(connection *conn, const char *newid);

/* What the primary's reply to PSYNC means for the handshake. */
typedef enum {
    PSYNC_REPLY_GO_ON,            /* +FULLRESYNC or +CONTINUE: the link goes on */
    PSYNC_REPLY_TRY_LATER,        /* refused for now (loading, no link to its own primary, busy) */
    PSYNC_REPLY_NOT_SUPPORTED,    /* any other error: a primary without PSYNC; ask with SYNC */
    PSYNC_REPLY_FAILOVER_ABORTED, /* the failover target refused: the link is already closed */
    PSYNC_REPLY_DUAL_CHANNEL,     /* +DUALCHANNELSYNC: the snapshot comes on an rdb channel */
} psyncReply;

/* The snapshot comes next on the link (REPL_STATE_TRANSFER, read by
 * readSyncBulkPayload()); replid and offset name the point of history it
 * holds. After SYNC there is none (replid NULL, offset -1): the dataset
 * gets an empty replid and the offset starts at -1, as on Valkey's
 * replica of a primary without PSYNC. */
static void replicationExpectSnapshot(connection *conn, const char *replid, long long offset) {
    memset(repl.new_replid, 0, sizeof(repl.new_replid));
    if (replid) memcpy(repl.new_replid, replid, CONFIG_RUN_ID_SIZE);
    repl.new_offset = offset;
    repl.state = REPL_STATE_TRANSFER;
    repl.transfer_size = -2; /* the "$" line is next */
    repl.transfer_read = 0;
    repl.header_len = 0;
    repl.transfer_start = server.unixtime;
    connSetReadHandler(conn, readSyncBulkPayload);
}

/* The reply to PSYNC, as Valkey's replica reads it: -NOMASTERLINK,
 * -LOADING and -BUSY are transient (retried later with PSYNC: a SYNC now
 * would leave the link without offsets for good); any other error means
 * a primary that does not know PSYNC. During a failover anything but a
 * resync aborts it. */
static psyncReply handlePsyncReply(connection *conn, sds reply) {
    int transient = !strncmp(reply, "-NOMASTERLINK", 13) || !strncmp(reply, "-LOADING", 8) ||
                    !strncmp(reply, "-BUSY", 5);
    int resync = !strncmp(reply, "+FULLRESYNC", 11) || !strncmp(reply, "+CONTINUE", 9) ||
                 !strncmp(reply, "+DUALCHANNELSYNC", 16);
    if (repl.failover_state == FAILOVER_IN_PROGRESS) {
        if (!resync) {
            serverLog(LL_WARNING, "Unexpected reply to PSYNC from primary: %s", reply);
            failoverAbort("Failover target rejected psync request");
            return PSYNC_REPLY_FAILOVER_ABORTED;
        }
        failoverCompleted();
    }
    if (!strncmp(reply, "+FULLRESYNC", 11)) {
        char *id = strchr(reply, ' ');
        char *off = id ? strchr(id + 1, ' ') : NULL;
        if (!id || !off || off - id - 1 != CONFIG_RUN_ID_SIZE) {
            /* It knows PSYNC, so the snapshot follows; without an id the
             * next PSYNC cannot continue this history. */
            serverLog(LL_WARNING, "Primary replied with wrong +FULLRESYNC syntax.");
            replicationExpectSnapshot(conn, NULL, -1);
            return PSYNC_REPLY_GO_ON;
        }
        long long offset = strtoll(off + 1, NULL, 10);
        replicationExpectSnapshot(conn, id + 1, offset);
        serverLog(LL_NOTICE, "Full resync from primary: %s:%lld", repl.new_replid, repl.new_offset);
        return PSYNC_REPLY_GO_ON;
    }
    if (!strncmp(reply, "+DUALCHANNELSYNC", 16)) {
        serverLog(LL_NOTICE, "PSYNC is not possible, initialize RDB channel.");
        return PSYNC_REPLY_DUAL_CHANNEL;
    }
    if (!strncmp(reply, "+CONTINUE", 9)) {
        const char *newid = reply[9] == ' ' ? reply + 10 : NULL;
        serverLog(LL_NOTICE, "Successful partial resynchronization with primary.");
        replicationContinueWith(conn, newid);
        return PSYNC_REPLY_GO_ON;
    }
    if (transient) {
        serverLog(LL_NOTICE, "Primary is currently unable to PSYNC but should be in the future: %s", reply);
        return PSYNC_REPLY_TRY_LATER;
    }
    if (strncmp(reply, "-ERR", 4))
        serverLog(LL_WARNING, "Unexpected reply to PSYNC from primary: %s", reply);
    else
        serverLog(LL_NOTICE, "Primary does not support PSYNC or is in error state (reply: %s)", reply);
    return PSYNC_REPLY_NOT_SUPPORTED;
}

/* PSYNC was refused for good: the old protocol, "SYNC" on the same link,
 * answered by the snapshot alone ("$<len>" or "$EOF:<mark>", no
 * +FULLRESYNC line). Returns C_OK, or C_ERR if the write failed (logged). */
static int replicationFallBackToSync(connection *conn) {
    serverLog(LL_NOTICE, "Retrying with SYNC...");
    if (connSyncWrite(conn, "SYNC\r\n", 6, REPL_SYNCIO_TIMEOUT_MS) == -1) {
        serverLog(LL_WARNING, "I/O error writing to PRIMARY: %s", connGetLastError(conn));
        return C_ERR;
    }
    replicationExpectSnapshot(conn, NULL, -1);
    return C_OK;
}

/* The handshake, one step per event: connected -> PING, then the replies
 * of PING, AUTH, REPLCONF listening-port/ip-address/capa and PSYNC in
 * order. Any failure drops the link; the cron retries. */
static void syncWithPrimary(connection *conn) {
    sds reply = NULL;
    if (repl.state == REPL_STATE_NONE) { /* REPLICAOF NO ONE meanwhile */
        connClose(conn);
        repl.transfer = NULL;
        return;
    }
    if (connGetState(conn) != CONN_STATE_CONNECTED) {
        serverLog(LL_WARNING, "Error condition on socket for SYNC: %s", connGetLastError(conn));
        goto error;
    }
    switch (repl.state) {
    case REPL_STATE_CONNECTING: {
        serverLog(LL_NOTICE, "Non blocking connect for SYNC fired the event.");
        connSetReadHandler(conn, syncWithPrimary);
        connSetWriteHandler(conn, NULL);
        repl.state = REPL_STATE_RECEIVE_PING_REPLY;
        const char *ping[1] = {"PING"};
        if (sendHandshakeCommand(conn, 1, ping) != C_OK) goto error;
        return;
    }
    case REPL_STATE_RECEIVE_PING_REPLY:
        if ((reply = readHandshakeReply(conn)) == NULL) goto error;
        /* -NOAUTH and "operation not permitted" mean "authenticate first",
         * which AUTH does next. */
        if (reply[0] == '-' && strncmp(reply, "-NOAUTH", 7) && strncmp(reply, "-NOPERM", 7) &&
            strncmp(reply, "-ERR operation not permitted", 28)) {
            serverLog(LL_WARNING, "Error reply to PING from primary: '%s'", reply);
            goto error;
        }
        serverLog(LL_NOTICE, "Primary replied to PING, replication can continue...");
        if (sendHandshakeBatch(conn) != C_OK) goto error;
        repl.state = server.primary_auth ? REPL_STATE_RECEIVE_AUTH_REPLY : REPL_STATE_RECEIVE_PORT_REPLY;
        break;
    case REPL_STATE_RECEIVE_AUTH_REPLY:
        if ((reply = readHandshakeReply(conn)) == NULL) goto error;
        if (reply[0] == '-') {
            serverLog(LL_WARNING, "Unable to AUTH to PRIMARY: %s", reply);
            goto error;
        }
        repl.state = REPL_STATE_RECEIVE_PORT_REPLY;
        break;
    case REPL_STATE_RECEIVE_PORT_REPLY:
        if ((reply = readHandshakeReply(conn)) == NULL) goto error;
        if (reply[0] == '-')
            serverLog(LL_NOTICE, "(Non critical) Primary does not understand REPLCONF listening-port: %s", reply);
        repl.state = server.replica_announce_ip ? REPL_STATE_RECEIVE_IP_REPLY : REPL_STATE_RECEIVE_CAPA_REPLY;
        break;
    case REPL_STATE_RECEIVE_IP_REPLY:
        if ((reply = readHandshakeReply(conn)) == NULL) goto error;
        if (reply[0] == '-')
            serverLog(LL_NOTICE, "(Non critical) Primary does not understand REPLCONF ip-address: %s", reply);
        repl.state = REPL_STATE_RECEIVE_CAPA_REPLY;
        break;
    case REPL_STATE_RECEIVE_CAPA_REPLY:
        if ((reply = readHandshakeReply(conn)) == NULL) goto error;
        if (reply[0] == '-')
            serverLog(LL_NOTICE, "(Non critical) Primary does not understand REPLCONF capa: %s", reply);
        if (sendPsync(conn) != C_OK) goto error;
        repl.state = REPL_STATE_RECEIVE_PSYNC_REPLY;
        break;
    case REPL_STATE_RECEIVE_PSYNC_REPLY:
        if ((reply = readHandshakeReply(conn)) == NULL) goto error;
        if (reply[0] == '\0') break; /* a keepalive newline while the primary prepares */
        switch (handlePsyncReply(conn, reply)) {
        case PSYNC_REPLY_GO_ON: break;
        case PSYNC_REPLY_TRY_LATER: goto error;
        case PSYNC_REPLY_NOT_SUPPORTED:
            if (replicationFallBackToSync(conn) != C_OK) goto error;
            break;
        case PSYNC_REPLY_FAILOVER_ABORTED: sdsfree(reply); return; /* the link is closed */
        case PSYNC_REPLY_DUAL_CHANNEL:
            if (dualChannelStart(conn) != C_OK) goto error;
            break;
        }
        break;
    default:
        serverLog(LL_WARNING, "syncWithPrimary(): unexpected state %d", repl.state);
        goto error;
    }
    sdsfree(reply);
    return;
error:
    sdsfree(reply);
    connClose(conn);
    repl.transfer = NULL;
    repl.state = REPL_STATE_CONNECT;
}

/* ---------------------------------------------------------------------------
 * Dual-channel sync, replica side (dual-channel-replication-enabled)
 *
 * With the option on, the handshake says "capa dual-channel". A primary
 * that does it too answers a PSYNC that cannot continue with
 * "+DUALCHANNELSYNC" (one that does not answers +FULLRESYNC as ever, and
 * the sync goes on the one link). Then:
 *   1. the main link is left idle and a second one, the rdb channel, is
 *      opened (it becomes repl.transfer): AUTH, REPLCONF capa eof
 *      rdb-only 1 rdb-channel 1 listening-port, SYNC;
 *   2. "$ENDOFF:<offset> <replid> <db> <client id>" comes when the
 *      primary's snapshot starts; the snapshot follows on the rdb channel
 *      and is loaded as any other (readSyncBulkPayload());
 *   3. meanwhile the main link asks to continue right after the snapshot
 *      (REPLCONF set-rdb-client-id <client id>, PSYNC <replid> <offset+1>)
 *      and, after +CONTINUE, what comes is kept in memory, in pieces: the
 *      primary does not keep it for us. Past client-output-buffer-limit
 *      replica's hard limit (if any) we stop reading the main link, so the
 *      rest waits on the primary's side, as Valkey does;
 *   4. once the snapshot is loaded, the main link becomes the primary's
 *      client, the kept stream is applied, and the link reads on.
 * Any failure of either link before that drops both; the next attempt
 * PSYNCs, and after a loaded snapshot it continues from its offset.
 * ------------------------------------------------------------------------- */

/* The limit of the stream kept during the load (0: none). */
static size_t dualChannelBufferLimit(void) {
    return (size_t)server.client_obuf_limits[CLIENT_TYPE_REPLICA].hard_limit_bytes;
}

static void dualChannelFreeBuffer(void) {
    if (repl.dual_buf) {
        listIter li;
        listNode *ln;
        listRewind(repl.dual_buf, &li);
        while ((ln = listNext(&li))) sdsfree(listNodeValue(ln));
        listRelease(repl.dual_buf);
    }
    repl.dual_buf = NULL;
    repl.dual_buf_len = 0;
}

/* Forgets the dual-channel sync in progress: the main link is closed,
 * the kept stream freed. The rdb channel is repl.transfer: its owner
 * (cancelReplicationHandshake(), replicationAbortSyncTransfer()) closes
 * it. Idempotent. */
static void dualChannelReset(void) {
    if (repl.dual_main) connClose(repl.dual_main);
    repl.dual_main = NULL;
    dualChannelFreeBuffer();
    repl.dual_state = REPL_DUAL_NONE;
    repl.dual_main_state = REPL_DUAL_MAIN_IDLE;
    repl.dual_main_stopped = repl.dual_main_failed = repl.dual_loaded = 0;
    repl.dual_rdb_client_id = 0;
}

/* The sync failed on either link outside a load: both go, the cron
 * reconnects. */
static void dualChannelAbort(void) {
    if (repl.transfer) connClose(repl.transfer);
    repl.transfer = NULL;
    if (repl.transfer_fd != -1) {
        close(repl.transfer_fd);
        unlink(repl.transfer_tmpfile);
        repl.transfer_fd = -1;
    }
    dualChannelReset();
    repl.state = REPL_STATE_CONNECT;
}

static void dualChannelRdbHandshake(connection *conn);

/* "+DUALCHANNELSYNC" on main link conn: it waits, idle, while the rdb
 * channel is opened. C_ERR if that cannot start (logged; conn is left to
 * the caller). */
static int dualChannelStart(connection *conn) {
    ConnectionType *ct = replicationConnectionType();
    connection *rdb = ct ? connCreate(ct) : NULL;
    if (rdb == NULL ||
        connConnect(rdb, server.primary_host, server.primary_port, server.bind_source_addr,
                    dualChannelRdbHandshake) == C_ERR) {
        serverLog(LL_WARNING, "Unable to connect to Primary: %s", rdb ? connGetLastError(rdb) : "no transport");
        if (rdb) connClose(rdb);
        return C_ERR;
    }
    connSetReadHandler(conn, NULL);
    dualChannelFreeBuffer();
    repl.dual_main = conn;
    repl.transfer = rdb;
    repl.dual_state = REPL_DUAL_RDB_CONNECTING;
    repl.dual_main_state = REPL_DUAL_MAIN_IDLE;
    repl.dual_buf = listCreate();
    repl.dual_buf_peak = 0;
    repl.transfer_lastio = server.unixtime;
    serverLog(LL_NOTICE, "PRIMARY <-> REPLICA sync: the primary does dual channel synchronization: opening the RDB "
                         "channel");
    return C_OK;
}

/* Sends AUTH (primaryauth) and the rdb channel's REPLCONF in one go. */
static int dualChannelSendRdbHandshake(connection *conn) {
    if (server.primary_auth) {
        const char *a[3] = {"AUTH", server.primary_user ? server.primary_user : server.primary_auth,
                            server.primary_auth};
        if (sendHandshakeCommand(conn, server.primary_user ? 3 : 2, a) != C_OK) return C_ERR;
    }
    char port[16];
    int listening = server.tls_replication && server.tls_port ? server.tls_port : server.port;
    snprintf(port, sizeof(port), "%d", server.replica_announce_port ? server.replica_announce_port : listening);
    const char *conf[9] = {"REPLCONF", "capa", "eof", "rdb-only", "1", "rdb-channel", "1", "listening-port", port};
    return sendHandshakeCommand(conn, 9, conf);
}

/* Parses "$ENDOFF:<offset> <replid> <db> <client id>". C_ERR if malformed. */
static int dualChannelParseEndOffset(const char *line, long long *offset, char *replid, int *db, uint64_t *id) {
    char idbuf[CONFIG_RUN_ID_SIZE + 2];
    long long off, dbid;
    unsigned long long cid;
    if (strncmp(line, "$ENDOFF:", 8)) return C_ERR;
    if (sscanf(line + 8, "%lld %41s %lld %llu", &off, idbuf, &dbid, &cid) != 4) return C_ERR;
    if (strlen(idbuf) != CONFIG_RUN_ID_SIZE || off < 0 || dbid < 0 || dbid >= server.dbnum || cid == 0) return C_ERR;
    memcpy(replid, idbuf, CONFIG_RUN_ID_SIZE + 1);
    *offset = off;
    *db = (int)dbid;
    *id = cid;
    return C_OK;
}

static void dualChannelMainReadHandler(connection *conn);
static void readSyncBulkPayload(connection *conn);

/* "$ENDOFF" came: the snapshot follows on the rdb channel, and the main
 * link asks for the stream after it. C_ERR if the main link failed. */
static int dualChannelEndOffset(connection *rdb, long long offset, const char *replid, int db, uint64_t id) {
    repl.dual_rdb_client_id = id;
    repl.dual_endoff_db = db;
    repl.dual_state = REPL_DUAL_LOADING;
    replicationExpectSnapshot(rdb, replid, offset);
    serverLog(LL_NOTICE, "PRIMARY <-> REPLICA sync: the snapshot comes on the RDB channel (client id %llu), the "
                         "stream after it from offset %lld on the main channel",
              (unsigned long long)id, offset + 1);
    char idstr[32], off[32];
    snprintf(idstr, sizeof(idstr), "%llu", (unsigned long long)id);
    snprintf(off, sizeof(off), "%lld", offset + 1);
    const char *setid[3] = {"REPLCONF", "set-rdb-client-id", idstr};
    const char *psync[3] = {"PSYNC", replid, off};
    if (sendHandshakeCommand(repl.dual_main, 3, setid) != C_OK || sendHandshakeCommand(repl.dual_main, 3, psync) != C_OK)
        return C_ERR;
    repl.dual_main_state = REPL_DUAL_MAIN_RECEIVE_SETID_REPLY;
    connSetReadHandler(repl.dual_main, dualChannelMainReadHandler);
    return C_OK;
}

/* The rdb channel's handshake, one step per event, until "$ENDOFF". */
static void dualChannelRdbHandshake(connection *conn) {
    sds reply = NULL;
    if (repl.dual_state == REPL_DUAL_NONE || conn != repl.transfer) { /* the sync was cancelled meanwhile */
        connClose(conn);
        return;
    }
    if (connGetState(conn) != CONN_STATE_CONNECTED) {
        serverLog(LL_WARNING, "Error condition on socket for dual channel replication: %s", connGetLastError(conn));
        goto error;
    }
    switch (repl.dual_state) {
    case REPL_DUAL_RDB_CONNECTING:
        connSetReadHandler(conn, dualChannelRdbHandshake);
        connSetWriteHandler(conn, NULL);
        if (dualChannelSendRdbHandshake(conn) != C_OK) goto error;
        repl.dual_state = server.primary_auth ? REPL_DUAL_RDB_RECEIVE_AUTH_REPLY : REPL_DUAL_RDB_RECEIVE_REPLCONF_REPLY;
        return;
    case REPL_DUAL_RDB_RECEIVE_AUTH_REPLY:
        if ((reply = readHandshakeReply(conn)) == NULL) goto error;
        if (reply[0] == '-') {
            serverLog(LL_WARNING, "Unable to AUTH to PRIMARY: %s", reply);
            goto error;
        }
        repl.dual_state = REPL_DUAL_RDB_RECEIVE_REPLCONF_REPLY;
        break;
    case REPL_DUAL_RDB_RECEIVE_REPLCONF_REPLY: {
        if ((reply = readHandshakeReply(conn)) == NULL) goto error;
        if (reply[0] == '-') {
            serverLog(LL_WARNING, "Primary refused the RDB channel's REPLCONF: %s", reply);
            goto error;
        }
        const char *sync[1] = {"SYNC"};
        if (sendHandshakeCommand(conn, 1, sync) != C_OK) goto error;
        repl.dual_state = REPL_DUAL_RDB_RECEIVE_ENDOFF;
        break;
    }
    case REPL_DUAL_RDB_RECEIVE_ENDOFF: {
        if ((reply = readHandshakeReply(conn)) == NULL) goto error;
        if (reply[0] == '\0') break; /* a keepalive newline while the primary prepares */
        long long offset;
        char replid[CONFIG_RUN_ID_SIZE + 1];
        int db;
        uint64_t id;
        if (dualChannelParseEndOffset(reply, &offset, replid, &db, &id) != C_OK) {
            serverLog(LL_WARNING, "Bad reply to the RDB channel's SYNC, expected $ENDOFF: %s", reply);
            goto error;
        }
        if (dualChannelEndOffset(conn, offset, replid, db, id) != C_OK) goto error;
        break;
    }
    default:
        serverLog(LL_WARNING, "dualChannelRdbHandshake(): unexpected state %d", repl.dual_state);
        goto error;
    }
    sdsfree(reply);
    return;
error:
    sdsfree(reply);
    dualChannelAbort();
}

/* The main link failed during the sync: outside a load both links go at
 * once; inside one (events are served while the snapshot loads from the
 * rdb channel) the end of the load does it (dualChannelSnapshotLoaded()). */
static void dualChannelMainFailed(void) {
    if (server.loading) {
        connSetReadHandler(repl.dual_main, NULL);
        repl.dual_main_failed = 1;
        return;
    }
    dualChannelAbort();
}

static void dualChannelApplyBuffer(void);

/* Reads what the main link has into the kept stream, up to the limit. */
static void dualChannelBufferStream(connection *conn) {
    size_t limit = dualChannelBufferLimit();
    while (1) {
        if (limit && repl.dual_buf_len >= limit) {
            serverLog(LL_NOTICE, "Replication buffer limit reached, stopping buffering.");
            connSetReadHandler(conn, NULL);
            repl.dual_main_stopped = 1;
            return;
        }
        sds piece = sdsnewlen(NULL, REPL_TRANSFER_CHUNK);
        ssize_t n = connRead(conn, piece, REPL_TRANSFER_CHUNK);
        if (n <= 0) {
            sdsfree(piece);
            if (n == -1 && connGetState(conn) == CONN_STATE_CONNECTED) return; /* EAGAIN */
            serverLog(LL_WARNING, "Main channel connection lost during dual channel sync: %s",
                      n == 0 ? "connection lost" : connGetLastError(conn));
            dualChannelMainFailed();
            return;
        }
        sdssetlen(piece, (size_t)n);
        piece = sdsRemoveFreeSpace(piece, 0);
        listAddNodeTail(repl.dual_buf, piece);
        repl.dual_buf_len += (size_t)n;
        if (repl.dual_buf_len > repl.dual_buf_peak) repl.dual_buf_peak = repl.dual_buf_len;
        server.stat_net_repl_input_bytes += n;
        if ((size_t)n < REPL_TRANSFER_CHUNK) return;
    }
}

/* Read handler of the main link during a dual-channel sync: the replies
 * to REPLCONF set-rdb-client-id and PSYNC, then the stream. */
static void dualChannelMainReadHandler(connection *conn) {
    sds reply = NULL;
    switch (repl.dual_main_state) {
    case REPL_DUAL_MAIN_RECEIVE_SETID_REPLY:
        if ((reply = readHandshakeReply(conn)) == NULL) goto fail;
        if (reply[0] == '-') {
            serverLog(LL_WARNING, "Primary refused REPLCONF set-rdb-client-id: %s", reply);
            goto fail;
        }
        repl.dual_main_state = REPL_DUAL_MAIN_RECEIVE_PSYNC_REPLY;
        break;
    case REPL_DUAL_MAIN_RECEIVE_PSYNC_REPLY:
        if ((reply = readHandshakeReply(conn)) == NULL) goto fail;
        if (reply[0] == '\0') break;
        if (strncmp(reply, "+CONTINUE", 9)) {
            serverLog(LL_WARNING, "Unexpected reply to the main channel's PSYNC: %s", reply);
            goto fail;
        }
        serverLog(LL_NOTICE, "PRIMARY <-> REPLICA sync: the main channel continues after the snapshot; its stream "
                             "is kept in memory until the snapshot is loaded");
        repl.dual_main_state = REPL_DUAL_MAIN_BUFFERING;
        if (repl.dual_loaded) dualChannelApplyBuffer();
        break;
    case REPL_DUAL_MAIN_BUFFERING: dualChannelBufferStream(conn); break;
    default: connSetReadHandler(conn, NULL); break;
    }
    sdsfree(reply);
    return;
fail:
    sdsfree(reply);
    dualChannelMainFailed();
}

/* The snapshot loaded and +CONTINUE came: the main link becomes the
 * primary's client and what it kept is applied, piece by piece (a command
 * cut between two pieces waits in the query buffer for the rest). */
static void dualChannelApplyBuffer(void) {
    connection *conn = repl.dual_main;
    list *buf = repl.dual_buf;
    size_t len = repl.dual_buf_len;
    repl.dual_main = NULL;
    repl.dual_buf = NULL;
    dualChannelReset();
    connSetReadHandler(conn, NULL);
    client *p = replicationCreatePrimaryClient(conn, repl.stream_db >= 0 ? repl.stream_db : repl.dual_endoff_db);
    serverLog(LL_NOTICE, "PRIMARY <-> REPLICA sync: Finished with success, applying %zu bytes of the stream kept "
                         "during the load", len);
    replicationSendAck(); /* the primary counts us online from it */
    listIter li;
    listNode *ln;
    listRewind(buf, &li);
    while ((ln = listNext(&li))) {
        sds piece = listNodeValue(ln);
        if (!(p->flags & CLIENT_CLOSE_ASAP)) {
            p->querybuf = sdscatlen(p->querybuf, piece, sdslen(piece));
            replicationPrimaryRead(p, sdslen(piece));
            processInputBuffer(p);
        }
        sdsfree(piece);
    }
    listRelease(buf);
}

/* The snapshot from the rdb channel is loaded (replicationFinishFullSync()
 * hands over): this dataset is the primary's history up to the snapshot's
 * offset, whatever happens to the main link. */
static void dualChannelSnapshotLoaded(connection *rdb, size_t leftlen) {
    if (leftlen) serverLog(LL_WARNING, "Ignoring %zu bytes after the snapshot on the RDB channel", leftlen);
    connClose(rdb);
    repl.transfer = NULL;
    memcpy(server.replid, repl.new_replid, sizeof(server.replid));
    server.primary_repl_offset = repl.new_offset;
    replicationClearReplid2();
    replicationCreateBacklog();
    repl.psync_possible = 1;
    if (repl.stream_db < 0) repl.stream_db = repl.dual_endoff_db;
    aofRestartAfterFullSync();
    if (repl.dual_main_failed) {
        serverLog(LL_WARNING, "PRIMARY <-> REPLICA sync: the main channel was lost during the load; continuing "
                              "from offset %lld with the next PSYNC", server.primary_repl_offset + 1);
        dualChannelReset();
        repl.state = REPL_STATE_CONNECT;
        return;
    }
    if (repl.dual_main_state != REPL_DUAL_MAIN_BUFFERING) {
        repl.dual_loaded = 1; /* +CONTINUE applies the buffer when it comes */
        return;
    }
    dualChannelApplyBuffer();
}

/* ---------------------------------------------------------------------------
 * Replica side: receiving the snapshot
 * ------------------------------------------------------------------------- */

static void replicationAbortSyncTransfer(void) {
    if (repl.transfer) connClose(repl.transfer);
    repl.transfer = NULL;
    if (repl.transfer_fd != -1) {
        close(repl.transfer_fd);
        unlink(repl.transfer_tmpfile);
        repl.transfer_fd = -1;
    }
    dualChannelReset();
    repl.state = REPL_STATE_CONNECT;
}

/* Empties the dataset (and the libraries) for a full sync's snapshot.
 * This dataset no longer belongs to any history: new replid, our own
 * replicas must resync from scratch. */
static void replicationEmptyForSync(void) {
    replicationDisconnectReplicas();
    replicationDiscardBacklog();
    replicationNewReplid();
    server.primary_repl_offset = 0;
    repl.psync_possible = 0;
    serverLog(LL_NOTICE, "PRIMARY <-> REPLICA sync: Flushing old data");
    emptyData(-1, server.repl_replica_lazy_flush ? EMPTYDB_ASYNC : EMPTYDB_NO_FLAGS, NULL);
    functionsEmpty();
}

/* The snapshot loaded: the link becomes the primary's client and this
 * dataset is the primary's history at new_offset. */
static void replicationFinishFullSync(connection *conn, const char *leftover, size_t leftlen) {
    if (repl.dual_state == REPL_DUAL_LOADING) {
        dualChannelSnapshotLoaded(conn, leftlen);
        return;
    }
    memcpy(server.replid, repl.new_replid, sizeof(server.replid));
    server.primary_repl_offset = repl.new_offset;
    replicationClearReplid2();
    replicationCreateBacklog();
    client *p = replicationCreatePrimaryClient(conn, repl.stream_db >= 0 ? repl.stream_db : 0);
    /* Offset -1: we asked with SYNC, so the primary knows neither offsets
     * nor REPLCONF ACK (its error replies would land in our stream). */
    if (repl.new_offset == -1) p->flags |= CLIENT_PRE_PSYNC;
    repl.transfer = NULL;
    serverLog(LL_NOTICE, "PRIMARY <-> REPLICA sync: Finished with success");
    aofRestartAfterFullSync(); /* the AOF starts over from the new dataset (aof.c) */
    /* A primary that streamed the snapshot waits for this first ACK
     * before it sends the stream (one that streams knows ACKs). */
    if (!(p->flags & CLIENT_PRE_PSYNC) || repl.transfer_size == -1) replicationSendAck();
    if (leftlen) {
        p->querybuf = sdscatlen(p->querybuf, leftover, leftlen);
        replicationPrimaryRead(p, leftlen);
        processInputBuffer(p);
    }
}

/* rio read callback over the link (diskless load): waits for data up to
 * repl-timeout, never reads past the announced length. While it waits
 * (a primary producing its snapshot slowly), clients are served every
 * SNAPSHOT_LOADING_EVENTS_MS, as the load's progress would serve them: a
 * replica loading asynchronously keeps answering from its current data. */
static ssize_t replicationRioRead(void *ctx, void *buf, size_t len) {
    connection *conn = ctx;
    if (repl.transfer_size >= 0) {
        long long left = repl.transfer_size - repl.transfer_read;
        if (left <= 0) return 0;
        if ((long long)len > left) len = (size_t)left;
    }
    long long deadline = aeMonotonicUs() + (long long)server.repl_timeout * 1000000;
    while (1) {
        ssize_t n = connRead(conn, buf, len);
        if (n > 0) {
            repl.transfer_read += n;
            repl.transfer_lastio = time(NULL);
            server.stat_net_repl_input_bytes += n;
            return n;
        }
        if (n == 0) return 0;
        if (connGetState(conn) != CONN_STATE_CONNECTED) return -1;
        long long now = aeMonotonicUs(), turn = now + SNAPSHOT_LOADING_EVENTS_MS * 1000;
        if (now >= deadline) {
            errno = ETIMEDOUT;
            return -1;
        }
        if (connWait(conn, AE_READABLE, turn < deadline ? turn : deadline) == C_OK) continue;
        if (errno != ETIMEDOUT || connGetState(conn) != CONN_STATE_CONNECTED) return -1;
        snapshotLoadingWaitTurn();
    }
}

/* repl-diskless-load swapdb: the snapshot is loaded into databases and a
 * library set of its own while the current ones stay; swapped in once it
 * loaded, thrown away if it failed, as Valkey does. When the snapshot
 * continues the history this dataset already belongs to (the same
 * replication id: a full sync after the backlog lost our offset), the
 * current data is still served meanwhile: the load is asynchronous (INFO
 * async_loading:1), only no-async-loading commands get -LOADING. With
 * another id (a new primary, the first sync) the old data is of another
 * history: clients get -LOADING as in any load. */
typedef struct replSwapLoad {
    rdbLoadTarget target; /* where the snapshot goes */
    int async;            /* the current data is served meanwhile */
} replSwapLoad;

static void replicationSwapLoadBegin(replSwapLoad *sl) {
    sl->target.dbs = dbCreateTempArray();
    sl->target.functions = functionsRegistryCreate();
    sl->async = repl.new_replid[0] != '\0' && !memcmp(repl.new_replid, server.replid, CONFIG_RUN_ID_SIZE);
}

/* The load failed: the data and libraries of before stay. */
static void replicationSwapLoadDiscard(replSwapLoad *sl) {
    dbReleaseTempArray(sl->target.dbs);
    functionsRegistryDiscard(sl->target.functions);
    serverLog(LL_NOTICE, "PRIMARY <-> REPLICA sync: Discarding temporary DB in background");
}

/* The load succeeded: the loaded data and libraries become the server's,
 * the old ones are freed. This dataset no longer belongs to its former
 * history: our own replicas resync. */
static void replicationSwapLoadCommit(replSwapLoad *sl) {
    replicationDisconnectReplicas();
    replicationDiscardBacklog();
    serverLog(LL_NOTICE, "PRIMARY <-> REPLICA sync: Swapping active DB with loaded DB");
    dbSwapWithTempArray(sl->target.dbs);
    functionsRegistrySwapWithCurrent(sl->target.functions);
    dbReleaseTempArray(sl->target.dbs);
    functionsRegistryDiscard(sl->target.functions);
    serverLog(LL_NOTICE, "PRIMARY <-> REPLICA sync: Discarding old DB in background");
}

/* Diskless load: the snapshot is read straight from the link, aside with
 * swapdb (above), into the emptied dataset otherwise (on-empty-db: it was
 * empty anyway). */
static void replicationLoadFromLink(connection *conn) {
    connSetReadHandler(conn, NULL);
    int swap = server.repl_diskless_load == REPL_DISKLESS_LOAD_SWAPDB;
    replSwapLoad sl = {{0}};
    if (swap) replicationSwapLoadBegin(&sl);
    else replicationEmptyForSync();
    serverLog(LL_NOTICE, "PRIMARY <-> REPLICA sync: Loading DB in memory");
    int region = repl.transfer_size == REPL_TRANSFER_REGION;
    rio r;
    if (region) rioInitFuncReader(&r, replRdmaRead, conn);
    else rioInitFuncReader(&r, replicationRioRead, conn);
    repl.stream_db = -1;
    int ok = !region || replRdmaLoadBegin(conn) == C_OK;
    ok = ok && snapshotLoadRioTo(&r, repl.transfer_size > 0 ? repl.transfer_size : 0, RDBFLAGS_REPLICATION,
                                 swap ? &sl.target : NULL, sl.async) == C_OK;
    if (ok && repl.transfer_size == -1) {
        char mark[CONFIG_RUN_ID_SIZE];
        ok = rioRead(&r, mark, sizeof(mark)) && memcmp(mark, repl.eofmark, sizeof(mark)) == 0;
        if (!ok) serverLog(LL_WARNING, "Replication stream EOF marker is broken");
    }
    size_t leftlen = 0;
    const char *leftover = rioBuffered(&r, &leftlen);
    if (region) {
        /* The region ends with the RDB; the stream comes on the link. */
        ok = ok && leftlen == 0 && replRdmaLoadFinish() == C_OK;
        replRdmaLoadEnd();
        leftlen = 0;
    }
    sds left = sdsnewlen(leftover, leftlen);
    rioRelease(&r);
    if (!ok) {
        serverLog(LL_WARNING, "Failed trying to load the PRIMARY synchronization DB from socket");
        if (swap) replicationSwapLoadDiscard(&sl);
        else emptyData(-1, EMPTYDB_NO_FLAGS, NULL);
        sdsfree(left);
        replicationAbortSyncTransfer();
        return;
    }
    if (swap) replicationSwapLoadCommit(&sl);
    replicationFinishFullSync(conn, left, sdslen(left));
    sdsfree(left);
}

/* Disk load: the whole payload is in the temp file. */
static void replicationLoadFromFile(connection *conn) {
    if (fsync(repl.transfer_fd) == -1) {
        serverLog(LL_WARNING, "Failed trying to sync the temp DB to disk in PRIMARY <-> REPLICA synchronization: %s",
                  strerror(errno));
        replicationAbortSyncTransfer();
        return;
    }
    close(repl.transfer_fd);
    repl.transfer_fd = -1;
    if (rename(repl.transfer_tmpfile, server.rdb_filename) == -1) {
        serverLog(LL_WARNING,
                  "Failed trying to rename the temp DB into %s in PRIMARY <-> REPLICA synchronization: %s",
                  server.rdb_filename, strerror(errno));
        unlink(repl.transfer_tmpfile);
        replicationAbortSyncTransfer();
        return;
    }
    connSetReadHandler(conn, NULL);
    replicationEmptyForSync();
    serverLog(LL_NOTICE, "PRIMARY <-> REPLICA sync: Loading DB in memory");
    repl.stream_db = -1;
    if (snapshotLoadFileForSync(server.rdb_filename) != C_OK) {
        serverLog(LL_WARNING, "Failed trying to load the PRIMARY synchronization DB from disk, check server logs.");
        emptyData(-1, EMPTYDB_NO_FLAGS, NULL);
        replicationAbortSyncTransfer();
        return;
    }
    replicationFinishFullSync(conn, NULL, 0);
}

/* Reads the "$<len>" or "$EOF:<mark>" line that opens the payload.
 * Returns 1 when read, 0 to wait (a keepalive newline), -1 on error. */
static int readPayloadHeader(connection *conn) {
    /* Read without blocking, a byte at a time (nothing after the line may
     * be consumed): the child may take a while before its first bytes. */
    char *buf = repl.header, c;
    while (1) {
        ssize_t n = connRead(conn, &c, 1);
        if (n == 1) {
            repl.transfer_lastio = server.unixtime;
            if (c == '\n') break;
            if (repl.header_len < sizeof(repl.header) - 1) buf[repl.header_len++] = c;
            continue;
        }
        if (n == -1 && connGetState(conn) == CONN_STATE_CONNECTED) return 0; /* EAGAIN: more later */
        serverLog(LL_WARNING, "I/O error reading bulk count from PRIMARY: %s",
                  n == 0 ? "connection lost" : connGetLastError(conn));
        return -1;
    }
    if (repl.header_len && buf[repl.header_len - 1] == '\r') repl.header_len--;
    buf[repl.header_len] = '\0';
    repl.header_len = 0;
    if (buf[0] == '\0') return 0; /* a keepalive newline */
    if (buf[0] == '-') {
        serverLog(LL_WARNING, "PRIMARY aborted replication with an error: %s", buf + 1);
        return -1;
    }
    if (buf[0] != '$') {
        serverLog(LL_WARNING, "Bad protocol from PRIMARY, the first byte is not '$' (we received '%s'), are you sure "
                              "the host and port are right?", buf);
        return -1;
    }
    if (!strncmp(buf, REPL_RDMA_HEADER, strlen(REPL_RDMA_HEADER))) {
        long long version;
        const char *v = buf + strlen(REPL_RDMA_HEADER);
        if (!string2ll(v, strlen(v), &version) || version != REPL_RDMA_VERSION) {
            serverLog(LL_WARNING, "PRIMARY offers an RDMA snapshot of version %s; this replica reads version %d", v,
                      REPL_RDMA_VERSION);
            return -1;
        }
        repl.transfer_size = REPL_TRANSFER_REGION;
        serverLog(LL_NOTICE, "PRIMARY <-> REPLICA sync: reading the snapshot region by RDMA READ into the parser");
    } else if (!strncmp(buf + 1, "EOF:", 4) && strlen(buf + 5) >= CONFIG_RUN_ID_SIZE) {
        memcpy(repl.eofmark, buf + 5, CONFIG_RUN_ID_SIZE);
        memset(repl.lastbytes, 0, CONFIG_RUN_ID_SIZE);
        repl.transfer_size = -1;
        serverLog(LL_NOTICE, "PRIMARY <-> REPLICA sync: receiving streamed RDB from primary with EOF to %s",
                  server.repl_diskless_load != REPL_DISKLESS_LOAD_DISABLED ? "parser" : "disk");
    } else {
        long long size;
        if (!string2ll(buf + 1, strlen(buf + 1), &size) || size < 0) {
            serverLog(LL_WARNING, "Bad bulk length from PRIMARY: %s", buf);
            return -1;
        }
        repl.transfer_size = size;
        serverLog(LL_NOTICE, "PRIMARY <-> REPLICA sync: receiving %lld bytes from primary to %s", size,
                  server.repl_diskless_load != REPL_DISKLESS_LOAD_DISABLED ? "parser" : "disk");
    }
    return 1;
}

/* 1 if the snapshot is loaded straight from the link. */
static int useDisklessLoad(void) {
    return server.repl_diskless_load == REPL_DISKLESS_LOAD_SWAPDB ||
           (server.repl_diskless_load == REPL_DISKLESS_LOAD_WHEN_DB_EMPTY && dbTotalServerKeyCount() == 0);
}

/* Read handler of the link in REPL_STATE_TRANSFER. */
static void readSyncBulkPayload(connection *conn) {
    /* A script past busy-reply-threshold serves events (script_lua.c):
     * the load this may start must not run inside it (it replaces the
     * dataset and the libraries under the script). The bytes wait in the
     * socket until the script is over. */
    if (scriptIsTimedout()) return;
    if (repl.transfer_size == -2) {
        int r = readPayloadHeader(conn);
        if (r < 0) {
            replicationAbortSyncTransfer();
            return;
        }
        if (r == 0) return;
        /* A region is never written to a file. */
        if (repl.transfer_size == REPL_TRANSFER_REGION || useDisklessLoad()) {
            replicationLoadFromLink(conn);
            return;
        }
        snprintf(repl.transfer_tmpfile, sizeof(repl.transfer_tmpfile), "temp-%d.%ld.rdb", (int)time(NULL),
                 (long)getpid());
        repl.transfer_fd = open(repl.transfer_tmpfile, O_CREAT | O_WRONLY | O_EXCL | O_TRUNC, 0644);
        repl.transfer_synced = repl.transfer_prev_synced = 0;
        if (repl.transfer_fd == -1) {
            serverLog(LL_WARNING, "Opening the temp file needed for PRIMARY <-> REPLICA synchronization: %s",
                      strerror(errno));
            replicationAbortSyncTransfer();
            return;
        }
        return;
    }
    char buf[REPL_TRANSFER_CHUNK];
    size_t want = sizeof(buf);
    if (repl.transfer_size >= 0 && (long long)want > repl.transfer_size - repl.transfer_read)
        want = (size_t)(repl.transfer_size - repl.transfer_read);
    ssize_t n = want ? connRead(conn, buf, want) : 0;
    if (want && n <= 0) {
        if (n == -1 && connGetState(conn) == CONN_STATE_CONNECTED) return;
        serverLog(LL_WARNING, "I/O error trying to sync with PRIMARY: %s",
                  n == 0 ? "connection lost" : connGetLastError(conn));
        replicationAbortSyncTransfer();
        return;
    }
    server.stat_net_repl_input_bytes += n;
    repl.transfer_lastio = server.unixtime;
    int eof = 0;
    if (repl.transfer_size == -1) {
        /* Keep the last 40 bytes seen to spot the mark. */
        if (n >= CONFIG_RUN_ID_SIZE) {
            memcpy(repl.lastbytes, buf + n - CONFIG_RUN_ID_SIZE, CONFIG_RUN_ID_SIZE);
        } else {
            memmove(repl.lastbytes, repl.lastbytes + n, CONFIG_RUN_ID_SIZE - n);
            memcpy(repl.lastbytes + CONFIG_RUN_ID_SIZE - n, buf, n);
        }
        eof = memcmp(repl.lastbytes, repl.eofmark, CONFIG_RUN_ID_SIZE) == 0;
    }
    if (n > 0 && write(repl.transfer_fd, buf, (size_t)n) != n) {
        serverLog(LL_WARNING, "Write error or short write writing to the DB dumped on disk for PRIMARY <-> REPLICA "
                              "synchronization: %s", strerror(errno));
        replicationAbortSyncTransfer();
        return;
    }
    repl.transfer_read += n;
    /* Writeback of the file as it grows, so that the fsync before loading
     * does not find the whole snapshot dirty in the page cache. */
    if (repl.transfer_read - repl.transfer_synced >= RIO_FSYNC_INTERVAL) {
        if (rioWriteback(repl.transfer_fd, repl.transfer_prev_synced, repl.transfer_synced, repl.transfer_read) == -1)
            serverLog(LL_WARNING, "Writeback of the temp DB file failed (will fsync at the end): %s", strerror(errno));
        repl.transfer_prev_synced = repl.transfer_synced;
        repl.transfer_synced = repl.transfer_read;
    }
    if (repl.transfer_size == -1) {
        if (!eof) return;
        if (ftruncate(repl.transfer_fd, repl.transfer_read - CONFIG_RUN_ID_SIZE) == -1) {
            serverLog(LL_WARNING, "Error truncating the RDB file received from the primary for SYNC: %s",
                      strerror(errno));
            replicationAbortSyncTransfer();
            return;
        }
    } else if (repl.transfer_read < repl.transfer_size) {
        return;
    }
    replicationLoadFromFile(conn);
}

/* ---------------------------------------------------------------------------
 * Replica side: the primary's client
 * ------------------------------------------------------------------------- */

/* See replication.h. */
client *replicationCreatePrimaryClient(connection *conn, int dbid) {
    client *c = createClient(conn);
    c->flags |= CLIENT_PRIMARY;
    /* Its own query buffer, kept for life: the shared one of ordinary
     * clients (networking.c) would leave it NULL between reads. */
    c->querybuf = sdsempty();
    c->authenticated = 1;
    c->user = NULL; /* our primary's commands are never checked against ACL rules */
    c->repl = replClientDataCreate();
    c->repl->reploff = c->repl->read_reploff = server.primary_repl_offset;
    selectDb(c, dbid);
    repl.primary = c;
    repl.state = REPL_STATE_CONNECTED;
    repl.psync_possible = 1;
    repl.down_since = 0;
    c->lastinteraction = server.unixtime;
    return c;
}

/* +CONTINUE: the link goes on from our offset; with a new id the primary's
 * history continues under it and ours becomes replid2 (it was promoted). */
static void replicationContinueWith(connection *conn, const char *newid) {
    if (newid && strlen(newid) >= CONFIG_RUN_ID_SIZE && strncmp(newid, server.replid, CONFIG_RUN_ID_SIZE)) {
        memcpy(repl.replid2, server.replid, sizeof(repl.replid2));
        repl.second_replid_offset = server.primary_repl_offset + 1;
        memcpy(server.replid, newid, CONFIG_RUN_ID_SIZE);
        server.replid[CONFIG_RUN_ID_SIZE] = '\0';
        serverLog(LL_NOTICE, "Primary replication ID changed to %s", server.replid);
        /* Our replicas follow the same change: they reconnect. */
        replicationDisconnectReplicas();
    }
    if (repl.backlog == NULL) replicationCreateBacklog();
    connSetReadHandler(conn, NULL);
    replicationCreatePrimaryClient(conn, repl.stream_db >= 0 ? repl.stream_db : 0);
    repl.transfer = NULL;
    serverLog(LL_NOTICE, "PRIMARY <-> REPLICA sync: Primary accepted a Partial Resynchronization.");
}

/* The link to the primary dropped: this dataset still holds the history
 * up to our offset, so the next PSYNC asks for what follows. */
static void replicationCachePrimaryState(void) {
    repl.psync_possible = 1;
    repl.stream_db = repl.primary ? repl.primary->db->id : -1;
}

/* See replication.h. */
void replicationPrimaryRead(client *c, size_t len) {
    c->repl->read_reploff += (long long)len;
    server.stat_net_repl_input_bytes += (long long)len;
}

/* See replication.h. While a script runs past busy-reply-threshold the
 * replica serves events (script_lua.c), but its primary's commands must
 * neither get BUSY (a replica that drops them diverges) nor run inside the
 * script: the stream accumulates in the query buffer, and
 * replicationBeforeSleep() processes it once the script is over. */
int replicationPrimaryMustWait(void) {
    if (!scriptIsTimedout()) return 0;
    repl.primary_waits = 1;
    return 1;
}

/* The stream that arrived during a busy script, now that it ended. */
static void replicationResumePrimary(void) {
    repl.primary_waits = 0;
    client *p = repl.primary;
    if (p == NULL || (p->flags & CLIENT_CLOSE_ASAP) || sdslen(p->querybuf) == p->qb_pos) return;
    p->flags |= CLIENT_PROTECTED;
    processInputBuffer(p);
    p->flags &= ~CLIENT_PROTECTED;
}

/* Proxies the applied bytes still in the primary's query buffer to our
 * own backlog and replicas, byte for byte as the primary sent them, in
 * one piece however many commands they hold. */
static void replicationPrimaryFeedApplied(client *c) {
    replClientData *d = c->repl;
    if (d->unfed == 0) return;
    /* The query buffer ends at read_reploff; the applied bytes end where
     * the unapplied ones (read_reploff - reploff of them) start. */
    long long end = (long long)sdslen(c->querybuf) - (d->read_reploff - d->reploff);
    serverAssert(end >= d->unfed);
    if (repl.backlog) replicationFeedBytes(c->querybuf + end - d->unfed, (size_t)d->unfed);
    else server.primary_repl_offset += d->unfed;
    d->unfed = 0;
}

/* See replication.h. At the end of processInputBuffer() for the primary's
 * client: feeds what was applied, then drops it from the query buffer,
 * which keeps every byte not applied yet (a partial command, a transaction
 * until its EXEC) for the feed that will follow its execution. So the
 * stream is copied once on its way from the link to the backlog. */
void replicationPrimaryProcessed(client *c) {
    replicationPrimaryFeedApplied(c);
    size_t keep_from = sdslen(c->querybuf) - (size_t)(c->repl->read_reploff - c->repl->reploff);
    if (keep_from == 0) return;
    if (keep_from < sdslen(c->querybuf)) {
        sdsrange(c->querybuf, (ssize_t)keep_from, -1);
    } else if (sdsalloc(c->querybuf) > PROTO_MBULK_BIG_ARG * 4) {
        /* All used, after a big argument: give its room back now. */
        sdsfree(c->querybuf);
        c->querybuf = sdsempty();
    } else {
        sdsclear(c->querybuf);
    }
    c->qb_pos -= keep_from;
}

/* ---------------------------------------------------------------------------
 * Checking the primary's stream
 *
 * A primary sends nothing but complete RESP multibulk commands that exist
 * here, with a number of arguments their arity allows (and the odd empty
 * line as a keepalive), and never one that would change what the link is
 * (SUBSCRIBE, MONITOR, SYNC, REPLICAOF...). Anything else means the stream
 * is corrupt or the peer is not a primary we can follow: the bytes are
 * not applied, not counted into the offset and not passed on to our
 * replicas; the link is dropped and the next sync is a full one. A
 * command is checked before it runs, so no command proc ever sees an
 * argument vector shorter than its arity promises. Valkey keeps the link
 * for an unknown command and logs an error reply to the primary; the log
 * line is Valkey's, then ours says what happens instead. Blocking
 * commands are allowed: they run as their non-blocking form, as inside
 * MULTI (blockingDenied()). Protocol errors and inline commands are found
 * by the parser (networking.c), which calls
 * replicationPrimaryStreamBroken() too.
 * ------------------------------------------------------------------------- */

/* The error processCommand() would reply to the command in c->argv: an
 * unknown subcommand, an unknown command or a wrong arity, in Valkey's
 * words. cmd is what the table holds for it, NULL if nothing. */
static sds replicationBadCommandError(client *c, struct serverCommand *cmd) {
    const char *name = objectGetVal(c->argv[0]);
    if (cmd) return sdscatprintf(sdsempty(), "wrong number of arguments for '%s' command", cmd->fullname);
    struct serverCommand *parent = dictFetchValue(server.commands, name);
    if (parent && parent->subcommands_dict && c->argc >= 2) {
        sds upper = sdsnew(name);
        sdstoupper(upper);
        sds err = sdscatprintf(sdsempty(), "unknown subcommand '%.128s'. Try %s HELP.",
                               (char *)objectGetVal(c->argv[1]), upper);
        sdsfree(upper);
        return err;
    }
    sds args = sdsempty();
    for (int j = 1; j < c->argc && sdslen(args) < 128; j++)
        args = sdscatprintf(args, "'%.*s' ", 128 - (int)sdslen(args), (char *)objectGetVal(c->argv[j]));
    sds err = sdscatprintf(sdsempty(), "unknown command '%.128s', with args beginning with: %s", name, args);
    sdsfree(args);
    return err;
}

/* 1 if cmd would change what the primary's link is: subscribed (every
 * later write refused in RESP2, while the link looks up), a monitor, a
 * replica's link (SYNC, PSYNC), or closed and replaced by another
 * (REPLICAOF, whose own bytes would then be counted into the history of
 * the primary we no longer follow). No primary sends these in a stream.
 * Their names, not the ones rename-command gave them. */
static int replicationCommandChangesLink(struct serverCommand *cmd) {
    static const char *names[] = {"subscribe", "psubscribe", "ssubscribe", "monitor",
                                  "sync",      "psync",      "replicaof",  "slaveof"};
    if (!(cmd->flags & CMD_NOSCRIPT) || !(cmd->flags & (CMD_ADMIN | CMD_PUBSUB)) || cmd->parent) return 0;
    for (size_t j = 0; j < sizeof(names) / sizeof(names[0]); j++)
        if (!strcmp(cmd->name, names[j])) return 1;
    return 0;
}

/* See replication.h: the whole check, for a command that is not the
 * client's last one. */
int replicationCheckPrimaryCommandSlow(client *c) {
    struct serverCommand *cmd = lookupCommand(c->argv, c->argc);
    if (cmd && ((cmd->arity > 0 && cmd->arity == c->argc) || (cmd->arity < 0 && c->argc >= -cmd->arity))) {
        if (!replicationCommandChangesLink(cmd)) return C_OK;
        serverLog(LL_WARNING, "The primary sent %s, which would change what the replication link is: closing the "
                              "primary connection and discarding the cached primary (replication offset %lld, the "
                              "command not counted).",
                  cmd->fullname, c->repl->reploff);
        replicationPrimaryStreamBroken(c);
        return C_ERR;
    }
    sds err = replicationBadCommandError(c, cmd);
    for (size_t j = 0; j < sdslen(err); j++)
        if (err[j] == '\r' || err[j] == '\n') err[j] = ' '; /* one log line */
    serverLog(LL_WARNING,
              "== CRITICAL == This replica is sending an error to its primary: '%s' after processing the command "
              "'%s'",
              err, cmd ? cmd->fullname : "<unknown>");
    server.stat_unexpected_error_replies++;
    serverLog(LL_WARNING, "The primary sent a command this replica cannot run: closing the primary connection and "
                          "discarding the cached primary (replication offset %lld, the command not counted).",
              c->repl->reploff);
    sdsfree(err);
    replicationPrimaryStreamBroken(c);
    return C_ERR;
}

/* See replication.h. */
void replicationPrimaryStreamBroken(client *c) {
    c->repl->stream_broken = 1;
    freeClientAsync(c);
}

/* REPLCONF ACK <offset> [FACK <aof offset>] to our primary (every second,
 * on GETACK, and after the fsync a GETACK waits for). FACK, the offset our
 * AOF has fsynced, only with appendonly yes, as Valkey sends it. */
void replicationSendAck(void) {
    client *c = repl.primary;
    if (c == NULL) return;
    long long fack = aofFsyncedReplOffset();
    c->flags |= CLIENT_PRIMARY_FORCE_REPLY;
    addReplyArrayLen(c, fack == -1 ? 3 : 5);
    addReplyBulkCString(c, "REPLCONF");
    addReplyBulkCString(c, "ACK");
    addReplyBulkLongLong(c, c->repl->reploff);
    if (fack != -1) {
        addReplyBulkCString(c, "FACK");
        addReplyBulkLongLong(c, fack);
    }
    c->flags &= ~CLIENT_PRIMARY_FORCE_REPLY;
}

/* Closes every replica's link (they reconnect and resync). */
static void replicationDisconnectReplicas(void) {
    listIter li;
    listNode *ln;
    listRewind(repl.replicas, &li);
    while ((ln = listNext(&li))) freeClientAsync(listNodeValue(ln));
}

/* ---------------------------------------------------------------------------
 * Changing role
 * ------------------------------------------------------------------------- */

/* Becomes a replica of host:port (from a primary or another primary).
 * Clients blocked on this server's keys or in WAIT/WAITAOF get an error
 * and are closed, as Valkey does (served later by the new primary's
 * writes, they would pop on a replica what its primary keeps; a WAIT
 * would wait for replicas that are gone), unless keep_blocked: FAILOVER
 * releases them only once the target accepted us as its replica
 * (failoverCompleted()), and leaves them blocked if it is aborted. */
static void replicationSetPrimary(const char *host, int port, int keep_blocked) {
    int was_primary = server.primary_host == NULL;
    zfree(server.primary_host);
    server.primary_host = zstrdup(host);
    server.primary_port = port;
    if (repl.primary) freeClient(repl.primary);
    if (!keep_blocked) disconnectAllBlockedClients();
    cancelReplicationHandshake();
    if (was_primary) {
        /* Our own history continues under the new primary if it has it. */
        repl.psync_possible = 1;
        repl.stream_db = repl.last_seldb;
    }
    /* Our replicas must follow: they reconnect and resync with us. */
    replicationDisconnectReplicas();
    repl.state = REPL_STATE_CONNECT;
    repl.down_since = server.unixtime;
    serverLog(LL_NOTICE, "Connecting to PRIMARY %s:%d", host, port);
    connectWithPrimary();
    setOOMScoreAdj(-1); /* oom-score-adj-values: a replica's score now */
}

/* REPLICAOF NO ONE: keep the data, start a new history that partial
 * resyncs of the old one can still join (replid2). */
static void replicationUnsetPrimary(void) {
    if (server.primary_host == NULL) return;
    zfree(server.primary_host);
    server.primary_host = NULL;
    if (repl.primary) freeClient(repl.primary);
    cancelReplicationHandshake();
    repl.state = REPL_STATE_NONE;
    replicationShiftReplid();
    /* The next command our replicas get starts with a SELECT. */
    repl.last_seldb = -1;
    /* Replicas reconnect and PSYNC with the old id: replid2 serves them. */
    replicationDisconnectReplicas();
    repl.no_replicas_since = server.unixtime;
    setOOMScoreAdj(-1); /* oom-score-adj-values: a primary's score now */
}

/* REPLICAOF host port | NO ONE (and SLAVEOF). */
void replicaofCommand(client *c) {
    /* In cluster mode the bus decides who replicates whom (CLUSTER
     * REPLICATE). */
    if (server.cluster_enabled) {
        addReplyError(c, "REPLICAOF not allowed in cluster mode.");
        return;
    }
    if (repl.failover_state != FAILOVER_NONE) {
        addReplyError(c, "REPLICAOF not allowed while failing over.");
        return;
    }
    if (!strcasecmp(objectGetVal(c->argv[1]), "no") && !strcasecmp(objectGetVal(c->argv[2]), "one")) {
        if (server.primary_host) {
            replicationUnsetPrimary();
            sds client = catClientInfoString(sdsempty(), c);
            serverLog(LL_NOTICE, "PRIMARY MODE enabled (user request from '%s')", client);
            sdsfree(client);
        }
        addReply(c, shared.ok);
        return;
    }
    if (c->flags & CLIENT_REPLICA) {
        addReplyError(c, "Command is not valid when client is a replica.");
        return;
    }
    long port;
    if (getRangeLongFromObjectOrReply(c, c->argv[2], 0, 65535, &port, "Invalid master port") != C_OK) return;
    if (server.primary_host && !strcasecmp(server.primary_host, objectGetVal(c->argv[1])) && server.primary_port == port) {
        serverLog(LL_NOTICE, "REPLICAOF would result into synchronization with the primary we are already "
                             "connected with. No operation performed.");
        addReplyStatus(c, "OK Already connected to specified master");
        return;
    }
    replicationSetPrimary(objectGetVal(c->argv[1]), (int)port, 0);
    sds client = catClientInfoString(sdsempty(), c);
    serverLog(LL_NOTICE, "REPLICAOF %s:%d enabled (user request from '%s')", server.primary_host, server.primary_port,
              client);
    sdsfree(client);
    addReply(c, shared.ok);
}

/* ---------------------------------------------------------------------------
 * Cron
 * ------------------------------------------------------------------------- */

/* Replica side of the cron: timeouts, reconnecting, ACKs. */
static void replicationReplicaCron(void) {
    time_t now = server.unixtime;
    if (repl.state >= REPL_STATE_CONNECTING && repl.state < REPL_STATE_TRANSFER &&
        now - repl.transfer_lastio > server.repl_timeout) {
        serverLog(LL_WARNING, "Timeout connecting to the PRIMARY...");
        cancelReplicationHandshake();
    }
    if (repl.state == REPL_STATE_TRANSFER && now - repl.transfer_lastio > server.repl_timeout) {
        serverLog(LL_WARNING, "Timeout receiving bulk data from PRIMARY... If the problem persists try to set the "
                              "'repl-timeout' parameter in valkey.conf to a larger value.");
        cancelReplicationHandshake();
    }
    if (repl.primary && now - repl.primary->lastinteraction > server.repl_timeout) {
        serverLog(LL_WARNING, "PRIMARY timeout: no data nor PING received...");
        freeClient(repl.primary);
    }
    if (repl.state == REPL_STATE_CONNECT) {
        serverLog(LL_NOTICE, "Connecting to PRIMARY %s:%d", server.primary_host, server.primary_port);
        connectWithPrimary();
    }
    if (repl.primary && !(repl.primary->flags & CLIENT_PRE_PSYNC)) replicationSendAck();
}

/* Primary side of the cron: PINGs, keepalives, timeouts, the backlog's
 * time to live, pending syncs. */
static void replicationPrimaryCron(void) {
    time_t now = server.unixtime;
    static long long cronloops = 0;
    cronloops++;
    replRdmaCron();
    /* PING into the stream every repl-ping-replica-period seconds, so
     * that replicas can detect a dead link; not while paused, as the
     * PING would change the offset. */
    if (server.primary_host == NULL && listLength(repl.replicas) &&
        (cronloops % server.repl_ping_replica_period) == 0 && !isPausedActions()) {
        const char *ping[1] = {"PING"};
        replicationFeedCommandStrings(1, ping);
    }
    listIter li;
    listNode *ln;
    listRewind(repl.replicas, &li);
    while ((ln = listNext(&li))) {
        client *r = listNodeValue(ln);
        replClientData *d = r->repl;
        /* A replica waiting for a disk snapshot gets newlines so that it
         * does not time out while the file is written. */
        if (d->state == REPLICA_STATE_WAIT_BGSAVE_START ||
            (d->state == REPLICA_STATE_WAIT_BGSAVE_END && d->method == &diskSnapshotMethod)) {
            if (connWrite(r->conn, "\n", 1) == -1 && connGetState(r->conn) != CONN_STATE_CONNECTED) {
                freeClientAsync(r);
                continue;
            }
        }
        /* A replica that asked with SYNC never ACKs: no timeout for it. */
        if (d->state == REPLICA_STATE_ONLINE && !(r->flags & CLIENT_PRE_PSYNC) &&
            now - d->ack_time > server.repl_timeout) {
            serverLog(LL_WARNING, "Disconnecting timedout replica (streaming sync): %s", replicaName(r));
            freeClientAsync(r);
            continue;
        }
        /* A replica that stops reading a streamed snapshot holds up every
         * other one: drop it after repl-timeout. */
        if (d->state == REPLICA_STATE_WAIT_BGSAVE_END && d->method == &socketSnapshotMethod &&
            now - r->lastinteraction > server.repl_timeout) {
            serverLog(LL_WARNING, "Disconnecting timedout replica (full sync): %s", replicaName(r));
            freeClientAsync(r);
        }
    }
    /* No replica for repl-backlog-ttl seconds: drop the backlog (not on a
     * replica: it may be promoted and need its history). */
    if (server.primary_host == NULL && listLength(repl.replicas) == 0 && server.repl_backlog_time_limit &&
        repl.backlog && now - repl.no_replicas_since > server.repl_backlog_time_limit) {
        replicationNewReplid();
        replicationClearReplid2();
        replicationDiscardBacklog();
        serverLog(LL_NOTICE,
                  "Replication backlog freed after %lld seconds without connected replicas.",
                  server.repl_backlog_time_limit);
    }
    psyncHoldsCron();
    replicationStartPendingSyncs();
    refreshGoodReplicasCount();
}

/* See replication.h. */
void replicationCron(void) {
    if (server.primary_host) replicationReplicaCron();
    replicationPrimaryCron();
    failoverUpdate();
}

/* ---------------------------------------------------------------------------
 * WAIT
 * ------------------------------------------------------------------------- */

/* Online replicas that acknowledged at least offset: received it, or with
 * fsynced, wrote it to their AOF and fsynced it (REPLCONF ACK ... FACK). */
static long replicasAckedAt(long long offset, int fsynced) {
    long n = 0;
    listIter li;
    listNode *ln;
    listRewind(repl.replicas, &li);
    while ((ln = listNext(&li))) {
        client *r = listNodeValue(ln);
        long long acked = fsynced ? r->repl->aof_ack_off : r->repl->ack_off;
        if (r->repl->state == REPLICA_STATE_ONLINE && acked >= offset) n++;
    }
    return n;
}

/* See replication.h. */
long replicationCountAofAcks(long long offset) {
    return replicasAckedAt(offset, 1);
}

/* See replication.h. */
void replicationRequestAck(void) {
    repl.get_ack_needed = 1;
}

/* See blocked.h: the reply of WAIT / WAITAOF, now or at the timeout. */
void addReplyWaitAcks(client *c, int btype) {
    if (btype == BLOCKED_WAITAOF) {
        addReplyArrayLen(c, 2);
        addReplyLongLong(c, aofLocalFsyncAcked(c)); /* local AOF fsync (aof.c) */
        addReplyLongLong(c, replicationCountAofAcks(c->woff)); /* replicas whose FACK reached it */
        return;
    }
    addReplyLongLong(c, replicasAckedAt(c->woff, 0));
}

/* WAIT numreplicas timeout: blocks until numreplicas replicas acknowledged
 * every write made so far, or the timeout. */
void waitCommand(client *c) {
    long numreplicas;
    mstime_t timeout;
    if (server.primary_host) {
        addReplyError(c, "WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a "
                         "replica is configured to be writable (which is not the default) writes to replicas are "
                         "just local and are not propagated.");
        return;
    }
    if (getLongFromObjectOrReply(c, c->argv[1], &numreplicas, NULL) != C_OK) return;
    if (getTimeoutFromObjectOrReply(c, c->argv[2], &timeout, UNIT_MILLISECONDS) != C_OK) return;
    c->woff = server.primary_repl_offset;
    long acked = replicasAckedAt(c->woff, 0);
    if (acked >= numreplicas || blockingDenied(c)) {
        addReplyLongLong(c, acked);
        return;
    }
    blockForKeys(c, BLOCKED_WAIT, NULL, 0, timeout);
    listAddNodeTail(repl.waiting_clients, c);
    repl.get_ack_needed = 1;
}

/* Answers the WAIT clients whose replicas acknowledged enough. */
static void replicationServeWaitingClients(void) {
    listIter li;
    listNode *ln;
    listRewind(repl.waiting_clients, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        if (!(c->flags & CLIENT_BLOCKED) || c->bstate == NULL || c->bstate->btype != BLOCKED_WAIT) {
            listDelNode(repl.waiting_clients, ln); /* timed out or unblocked meanwhile */
            continue;
        }
        long long numreplicas = 0;
        getLongLongFromObject(c->argv[1], &numreplicas);
        if (replicasAckedAt(c->woff, 0) < numreplicas) continue;
        listDelNode(repl.waiting_clients, ln);
        unblockClient(c, 1); /* replies the count, as at a timeout */
    }
}

/* See replication.h: before the event loop sleeps, ask the replicas for
 * ACKs on behalf of new WAIT clients (once for all of them), and answer
 * those whose ACKs arrived. */
void replicationBeforeSleep(void) {
    if (repl.primary_waits && !scriptIsTimedout()) replicationResumePrimary();
    if (repl.get_ack_needed) {
        repl.get_ack_needed = 0;
        const char *getack[3] = {"REPLCONF", "GETACK", "*"};
        replicationFeedCommandStrings(3, getack);
    }
    if (repl.acks_arrived) {
        repl.acks_arrived = 0;
        if (listLength(repl.waiting_clients)) replicationServeWaitingClients();
        failoverUpdate();
    }
}

/* See replication.h. */
void replicationForgetWaitingClient(client *c) {
    listNode *ln;
    while ((ln = listSearchKey(repl.waiting_clients, c))) listDelNode(repl.waiting_clients, ln);
}

/* ---------------------------------------------------------------------------
 * ROLE and INFO
 * ------------------------------------------------------------------------- */

/* See replication.h. */
const char *replicaStateName(client *r) {
    switch (r->repl->state) {
    case REPLICA_STATE_WAIT_BGSAVE_START:
    case REPLICA_STATE_WAIT_BGSAVE_END: return "wait_bgsave";
    case REPLICA_STATE_SEND_BULK: return "send_bulk";
    case REPLICA_STATE_ONLINE: return "online";
    case REPLICA_STATE_RDB_TRANSMITTED: return "rdb_transmitted";
    case REPLICA_STATE_BG_RDB_LOAD: return "bg_transfer";
    }
    return "unknown";
}

static const char *replStateRoleName(void) {
    switch (repl.state) {
    case REPL_STATE_NONE: return "none";
    case REPL_STATE_CONNECT: return "connect";
    case REPL_STATE_CONNECTING: return "connecting";
    case REPL_STATE_TRANSFER: return "sync";
    case REPL_STATE_CONNECTED: return "connected";
    default: return "handshake";
    }
}

/* ROLE: ["master", offset, [[ip, port, ack offset]...]] or
 * ["slave", host, port, state, offset]. */
void roleCommand(client *c) {
    if (server.primary_host == NULL) {
        addReplyArrayLen(c, 3);
        addReplyBulkCString(c, "master");
        addReplyLongLong(c, server.primary_repl_offset);
        void *len = addReplyDeferredLen(c);
        long n = 0;
        listIter li;
        listNode *ln;
        listRewind(repl.replicas, &li);
        while ((ln = listNext(&li))) {
            client *r = listNodeValue(ln);
            char ip[NET_IP_STR_LEN];
            if (r->repl->state != REPLICA_STATE_ONLINE || replicaAddress(r, ip, sizeof(ip)) == C_ERR) continue;
            addReplyArrayLen(c, 3);
            addReplyBulkCString(c, ip);
            addReplyBulkLongLong(c, r->repl->listening_port);
            addReplyBulkLongLong(c, r->repl->ack_off);
            n++;
        }
        setDeferredArrayLen(c, len, n);
        return;
    }
    addReplyArrayLen(c, 5);
    addReplyBulkCString(c, "slave");
    addReplyBulkCString(c, server.primary_host);
    addReplyLongLong(c, server.primary_port);
    addReplyBulkCString(c, replStateRoleName());
    addReplyLongLong(c, repl.primary ? repl.primary->repl->reploff : -1);
}

/* See replication.h. */
void replicationResetStats(void) {
    repl.stat_sync_full = repl.stat_sync_partial_ok = repl.stat_sync_partial_err = 0;
}

/* See replication.h: the "# Replication" section of INFO. */
sds replicationCatInfo(sds info) {
    time_t now = server.unixtime;
    if (server.primary_host == NULL) {
        info = sdscat(info, "# Replication\r\nrole:master\r\n");
    } else {
        long long read_off = repl.primary ? repl.primary->repl->read_reploff : server.primary_repl_offset;
        long long off = repl.primary ? repl.primary->repl->reploff : server.primary_repl_offset;
        info = sdscatprintf(info,
                            "# Replication\r\n"
                            "role:slave\r\n"
                            "master_host:%s\r\n"
                            "master_port:%d\r\n"
                            "master_link_status:%s\r\n"
                            "master_last_io_seconds_ago:%d\r\n"
                            "master_sync_in_progress:%d\r\n"
                            "slave_read_repl_offset:%lld\r\n"
                            "slave_repl_offset:%lld\r\n",
                            server.primary_host, server.primary_port,
                            repl.state == REPL_STATE_CONNECTED ? "up" : "down",
                            repl.primary ? (int)(now - repl.primary->lastinteraction) : -1,
                            repl.state == REPL_STATE_TRANSFER, read_off, off);
        if (repl.state == REPL_STATE_TRANSFER) {
            double perc = repl.transfer_size > 0 ? (double)repl.transfer_read * 100 / repl.transfer_size : 0;
            info = sdscatprintf(info,
                                "master_sync_total_bytes:%lld\r\n"
                                "master_sync_read_bytes:%lld\r\n"
                                "master_sync_left_bytes:%lld\r\n"
                                "master_sync_perc:%.2f\r\n"
                                "master_sync_last_io_seconds_ago:%d\r\n",
                                repl.transfer_size < 0 ? -1 : repl.transfer_size, repl.transfer_read,
                                repl.transfer_size > 0 ? repl.transfer_size - repl.transfer_read : -1, perc,
                                (int)(now - repl.transfer_lastio));
        }
        if (repl.state != REPL_STATE_CONNECTED)
            info = sdscatprintf(info, "master_link_down_since_seconds:%jd\r\n",
                                repl.down_since ? (intmax_t)(now - repl.down_since) : (intmax_t)-1);
        info = sdscatprintf(info,
                            "replicas_repl_buffer_size:%zu\r\n"
                            "replicas_repl_buffer_peak:%zu\r\n",
                            repl.dual_buf_len, repl.dual_buf_peak);
        info = sdscatprintf(info,
                            "slave_priority:%d\r\n"
                            "slave_read_only:%d\r\n"
                            "replica_announced:%d\r\n",
                            server.replica_priority, server.repl_replica_ro, server.replica_announced);
    }
    info = sdscatprintf(info, "connected_slaves:%lu\r\n", listLength(repl.replicas));
    if (server.repl_min_replicas_to_write && server.repl_min_replicas_max_lag)
        info = sdscatprintf(info, "min_slaves_good_slaves:%d\r\n", repl.good_replicas);
    int n = 0;
    listIter li;
    listNode *ln;
    listRewind(repl.replicas, &li);
    while ((ln = listNext(&li))) {
        client *r = listNodeValue(ln);
        char ip[NET_IP_STR_LEN];
        if (replicaAddress(r, ip, sizeof(ip)) == C_ERR) continue;
        info = sdscatprintf(info, "slave%d:ip=%s,port=%d,state=%s,offset=%lld,lag=%ld,type=%s\r\n", n++, ip,
                            r->repl->listening_port, replicaStateName(r), r->repl->ack_off,
                            (long)(now - r->repl->ack_time),
                            r->repl->rdb_channel                                ? "rdb-channel"
                            : r->repl->state == REPLICA_STATE_BG_RDB_LOAD ? "main-channel"
                                                                          : "replica");
    }
    info = replRdmaCatInfo(info);
    replBacklog *b = repl.backlog;
    info = sdscatprintf(info,
                        "replicas_waiting_psync:%lu\r\n"
                        "master_failover_state:%s\r\n"
                        "master_replid:%s\r\n"
                        "master_replid2:%s\r\n"
                        "master_repl_offset:%lld\r\n"
                        "second_repl_offset:%lld\r\n"
                        "repl_backlog_active:%d\r\n"
                        "repl_backlog_size:%lld\r\n"
                        "repl_backlog_first_byte_offset:%lld\r\n"
                        "repl_backlog_histlen:%lld\r\n",
                        listLength(repl.psync_holds), failoverStateName(), server.replid, repl.replid2,
                        server.primary_repl_offset,
                        repl.second_replid_offset,
                        b != NULL, server.repl_backlog_size, b ? b->offset : 0, backlogHistlen());
    return info;
}

/* ---------------------------------------------------------------------------
 * RDB aux fields
 * ------------------------------------------------------------------------- */

/* See replication.h: what a snapshot records of the replication state,
 * so that a restarted replica (or a replica loading a full sync's file)
 * can continue the stream. Returns 1 if there is something to record. */
int replicationGetSaveInfo(rdbReplInfo *ri) {
    if (server.primary_host == NULL && repl.backlog == NULL) return 0;
    ri->stream_db = server.primary_host ? (repl.primary ? repl.primary->db->id : repl.stream_db)
                                        : repl.last_seldb;
    if (ri->stream_db < 0) ri->stream_db = 0;
    memcpy(ri->replid, server.replid, sizeof(ri->replid));
    ri->offset = server.primary_repl_offset;
    return 1;
}

/* See replication.h: an aux field of a loaded RDB. repl-stream-db is the
 * database the stream after a full sync's snapshot starts in; repl-id and
 * repl-offset count only in our own file at start-up, where they say which
 * history the data belongs to (replicationOwnFileLoadEnd()). */
void replicationLoadedInfo(const char *key, const char *val) {
    long long n;
    int number = string2ll(val, strlen(val), &n);
    if (!strcasecmp(key, "repl-stream-db")) {
        repl.stream_db = number && n >= 0 && n < server.dbnum ? (int)n : -1;
        if (repl.loading_own_file) repl.loaded_stream_db = repl.stream_db;
    } else if (!strcasecmp(key, "repl-id") && repl.loading_own_file && strlen(val) == CONFIG_RUN_ID_SIZE) {
        memcpy(repl.loaded_replid, val, CONFIG_RUN_ID_SIZE + 1);
    } else if (!strcasecmp(key, "repl-offset") && repl.loading_own_file && number && n >= 0) {
        repl.loaded_offset = n;
    }
}

/* See replication.h. */
void replicationOwnFileLoadBegin(void) {
    repl.loading_own_file = 1;
    repl.loaded_replid[0] = '\0';
    repl.loaded_offset = -1;
    repl.loaded_stream_db = -1;
    if (server.primary_host == NULL && repl.backlog == NULL) replicationCreateBacklog();
}

/* A restarted primary takes up the history its file recorded: it stays
 * reachable as replid2 up to the file's offset, and the stream (the DELs
 * fed during the load, already in the backlog) continues after it under
 * the new replid this run has. */
static void replicationResumeOwnHistory(void) {
    memcpy(repl.replid2, repl.loaded_replid, sizeof(repl.replid2));
    repl.second_replid_offset = repl.loaded_offset + 1;
    server.primary_repl_offset += repl.loaded_offset;
    repl.backlog->offset += repl.loaded_offset; /* no replica holds a block yet */
    for (replBufBlock *bl = repl.backlog->head; bl; bl = bl->next) bl->offset += repl.loaded_offset;
    repl.no_replicas_since = server.unixtime;
}

/* See replication.h. */
void replicationOwnFileLoadEnd(int ok) {
    repl.loading_own_file = 0;
    int valid = ok && repl.loaded_replid[0] && repl.loaded_offset >= 0 && repl.loaded_stream_db >= 0;
    if (server.primary_host) {
        if (!valid) return;
        memcpy(server.replid, repl.loaded_replid, sizeof(server.replid));
        server.primary_repl_offset = repl.loaded_offset;
        repl.stream_db = repl.loaded_stream_db;
        repl.psync_possible = 1;
    } else if (repl.backlog) {
        if (valid) replicationResumeOwnHistory();
        else replicationDiscardBacklog();
    }
}

/* ---------------------------------------------------------------------------
 * Command table (commands.c lists it)
 * ------------------------------------------------------------------------- */

struct serverCommand replicationCommands[] = {
    {.name = "sync", .proc = syncCommand, .arity = 1,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_NO_MULTI | CMD_NO_ASYNC_LOADING | CMD_STALE, .group = "server",
     .since = "1.0.0",
     .summary = "An internal command used in replication.", .complexity = ""},
    {.name = "psync", .proc = syncCommand, .arity = -3,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_NO_MULTI | CMD_NO_ASYNC_LOADING | CMD_STALE, .group = "server",
     .since = "2.8.0",
     .summary = "An internal command used in replication.", .complexity = "",
     .args = "replicationid offset:integer"},
    {.name = "replconf", .proc = replconfCommand, .arity = -1,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_ALLOW_BUSY, .group = "server",
     .since = "3.0.0", .summary = "An internal command for configuring the replication stream.",
     .complexity = "O(1)"},
    {.name = "replicaof", .proc = replicaofCommand, .arity = 3,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_STALE | CMD_NO_ASYNC_LOADING, .group = "server", .since = "5.0.0",
     .summary = "Configures a server as replica of another, or promotes it to a primary.", .complexity = "O(1)",
     .args = "host port"},
    {.name = "slaveof", .proc = replicaofCommand, .arity = 3,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_STALE | CMD_NO_ASYNC_LOADING, .group = "server", .since = "1.0.0",
     .summary = "Sets a server as a replica of another, or promotes it to being a primary.", .complexity = "O(1)",
     .args = "host port"},
    {.name = "wait", .proc = waitCommand, .arity = 3, .flags = CMD_BLOCKING,
     .acl_categories = ACL_CATEGORY_CONNECTION, .group = "generic", .since = "3.0.0",
     .summary = "Blocks until the asynchronous replication of all preceding write commands sent by the connection "
                "is completed.",
     .complexity = "O(1)", .args = "numreplicas:integer timeout:integer"},
    {.name = "failover", .proc = failoverCommand, .arity = -1,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_STALE, .group = "server", .since = "6.2.0",
     .summary = "Starts a coordinated failover from a server to one of its replicas.", .complexity = "O(1)",
     .args = "[TO host port:integer [FORCE]] [ABORT] [TIMEOUT milliseconds:integer]"},
    {.name = "role", .proc = roleCommand, .arity = 1,
     .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_SENTINEL,
     .acl_categories = ACL_CATEGORY_ADMIN | ACL_CATEGORY_DANGEROUS, .group = "server", .since = "2.8.12",
     .summary = "Returns the replication role.", .complexity = "O(1)"},
    {0},
};

/* ---------------------------------------------------------------------------
 * FAILOVER
 *
 * The primary pauses writes, waits until a replica (the TO target, or the
 * first one found) acknowledged every byte of the stream, then becomes a
 * replica of it, asking with "PSYNC <replid> <offset> FAILOVER": the
 * target, whose history is ours, promotes itself and serves us a partial
 * resync. At the timeout without FORCE, or if the target refuses, the
 * failover is aborted and we stay (or become again) the primary.
 * ------------------------------------------------------------------------- */

static const char *failoverStateName(void) {
    switch (repl.failover_state) {
    case FAILOVER_WAIT_FOR_SYNC: return "waiting-for-sync";
    case FAILOVER_IN_PROGRESS: return "failover-in-progress";
    default: return "no-failover";
    }
}

static void failoverReset(void) {
    repl.failover_state = FAILOVER_NONE;
    repl.failover_end_time = 0;
    repl.failover_force = 0;
    zfree(repl.failover_host);
    repl.failover_host = NULL;
    repl.failover_port = 0;
    unpauseActions(PAUSE_DURING_FAILOVER);
}

/* Ends a failover that did not happen; back to (or still) a primary. */
static void failoverAbort(const char *why) {
    if (repl.failover_state == FAILOVER_NONE) return;
    if (repl.failover_host)
        serverLog(LL_NOTICE, "FAILOVER to %s:%d aborted: %s", repl.failover_host, repl.failover_port, why);
    else
        serverLog(LL_NOTICE, "FAILOVER to any replica aborted: %s", why);
    if (repl.failover_state == FAILOVER_IN_PROGRESS) replicationUnsetPrimary();
    failoverReset();
}

/* The replica of ours at host:port, or NULL. */
static client *findReplica(const char *host, int port) {
    listIter li;
    listNode *ln;
    listRewind(repl.replicas, &li);
    while ((ln = listNext(&li))) {
        client *r = listNodeValue(ln);
        char ip[NET_IP_STR_LEN];
        if (replicaAddress(r, ip, sizeof(ip)) == C_ERR) continue;
        if (!strcasecmp(ip, host) && r->repl->listening_port == port) return r;
    }
    return NULL;
}

/* FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT ms] */
void failoverCommand(client *c) {
    if (server.cluster_enabled) {
        addReplyError(c, "FAILOVER not allowed in cluster mode. Use CLUSTER FAILOVER command instead.");
        return;
    }
    int abort = 0, force = 0;
    long long timeout = 0;
    long port = 0;
    const char *host = NULL;
    for (int j = 1; j < c->argc; j++) {
        const char *opt = objectGetVal(c->argv[j]);
        if (!strcasecmp(opt, "to") && j + 2 < c->argc && !host) {
            if (getRangeLongFromObjectOrReply(c, c->argv[j + 2], 0, 65535, &port, NULL) != C_OK) return;
            host = objectGetVal(c->argv[j + 1]);
            j += 2;
        } else if (!strcasecmp(opt, "force") && !force) {
            force = 1;
        } else if (!strcasecmp(opt, "timeout") && j + 1 < c->argc && !timeout) {
            if (getLongLongFromObjectOrReply(c, c->argv[j + 1], &timeout, NULL) != C_OK) return;
            if (timeout <= 0) {
                addReplyError(c, "FAILOVER timeout must be greater than 0");
                return;
            }
            j++;
        } else if (!strcasecmp(opt, "abort") && !abort) {
            abort = 1;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    if (abort) {
        if (c->argc != 2) {
            addReplyError(c, "FAILOVER with ABORT cannot be combined with other options");
            return;
        }
        if (repl.failover_state == FAILOVER_NONE) {
            addReplyError(c, "No failover in progress.");
            return;
        }
        failoverAbort("Failover manually aborted");
        addReply(c, shared.ok);
        return;
    }
    if (force && (!timeout || !host)) {
        addReplyError(c, "FAILOVER with force option requires both a timeout and target HOST and IP.");
        return;
    }
    if (server.primary_host) {
        addReplyError(c, "FAILOVER is not valid when server is a replica.");
        return;
    }
    if (listLength(repl.replicas) == 0) {
        addReplyError(c, "FAILOVER requires connected replicas.");
        return;
    }
    if (repl.failover_state != FAILOVER_NONE) {
        addReplyError(c, "FAILOVER already in progress.");
        return;
    }
    if (host) {
        client *r = findReplica(host, (int)port);
        if (r == NULL) {
            addReplyError(c, "FAILOVER target HOST and PORT is not a replica.");
            return;
        }
        if (r->repl->state != REPLICA_STATE_ONLINE) {
            addReplyError(c, "FAILOVER target replica is not online.");
            return;
        }
        repl.failover_host = zstrdup(host);
        repl.failover_port = (int)port;
    }
    repl.failover_force = force;
    repl.failover_end_time = timeout ? mstime() + timeout : 0;
    repl.failover_state = FAILOVER_WAIT_FOR_SYNC;
    if (host)
        serverLog(LL_NOTICE, "FAILOVER requested to %s:%ld.", host, port);
    else
        serverLog(LL_NOTICE, "FAILOVER requested to any replica.");
    /* Writes wait; the replicas are asked where they are. */
    pauseActions(PAUSE_DURING_FAILOVER, LLONG_MAX, 1);
    repl.get_ack_needed = 1;
    addReply(c, shared.ok);
}

/* Moves a failover on: cron and after ACKs (replicationBeforeSleep). */
static void failoverUpdate(void) {
    if (repl.failover_state != FAILOVER_WAIT_FOR_SYNC) return;
    if (repl.failover_end_time && mstime() >= repl.failover_end_time) {
        if (!repl.failover_force) {
            failoverAbort("Replica never caught up before timeout");
            return;
        }
        serverLog(LL_NOTICE, "FAILOVER to %s:%d time out exceeded, failing over.", repl.failover_host,
                  repl.failover_port);
    } else {
        client *target = NULL;
        listIter li;
        listNode *ln;
        listRewind(repl.replicas, &li);
        while ((ln = listNext(&li))) {
            client *r = listNodeValue(ln);
            if (r->repl->state != REPLICA_STATE_ONLINE || r->repl->ack_off != server.primary_repl_offset) continue;
            if (repl.failover_host && r != findReplica(repl.failover_host, repl.failover_port)) continue;
            target = r;
            break;
        }
        if (target == NULL) return;
        if (!repl.failover_host) {
            char ip[NET_IP_STR_LEN] = "";
            replicaAddress(target, ip, sizeof(ip));
            repl.failover_host = zstrdup(ip);
            repl.failover_port = target->repl->listening_port;
        }
        serverLog(LL_NOTICE, "Failover target %s:%d is synced, failing over.", repl.failover_host,
                  repl.failover_port);
    }
    repl.failover_state = FAILOVER_IN_PROGRESS;
    char *host = zstrdup(repl.failover_host);
    replicationSetPrimary(host, repl.failover_port, 1);
    zfree(host);
}

/* The failover target accepted our PSYNC (+CONTINUE, or +FULLRESYNC in
 * the odd case where it could not continue our history): it is the
 * primary now, and this server stays its replica. The clients still
 * blocked here get the error REPLICAOF gives them (replicationSetPrimary()
 * kept them while the failover could still be aborted), then the writes
 * held since FAILOVER run, as on any replica. */
static void failoverCompleted(void) {
    serverLog(LL_NOTICE, "Failover target %s:%d is now the primary.", repl.failover_host, repl.failover_port);
    disconnectAllBlockedClients();
    failoverReset();
}
