/* repl_rdma.c - full sync by one-sided RDMA READ of a snapshot region.
 *
 * The snapshot method "rdma-region" (see replSnapshotMethod in
 * replication.h). A full sync normally makes the primary push every byte
 * of the snapshot to every replica; here replicas pull it straight out of
 * the primary's memory and the primary's CPU does no per-byte work for
 * them, however many share the snapshot.
 *
 * Primary side. The region is a ring of repl-rdma-snapshot-buffer bytes in
 * a memfd, cut into equal segments (at most REGION_SEGMENT_MAX). The
 * forked child maps it writable and writes the RDB into it segment after
 * segment; it tells the parent about each completed segment through a
 * pipe (REGION_MSG_SEGMENT) and, at the end, the total length and the
 * CRC-64 of all of it (REGION_MSG_END). The parent maps the memfd too
 * (and only reads it); for each replica of the sync it registers every completed
 * segment for remote READ on that replica's connection (its own protection
 * domain: no other connection can use the key) and announces it on the
 * link. The child never touches verbs or registered memory: the parent
 * registers pages only after the child wrote them (fork and RDMA:
 * ARCHITECTURE.md). When every replica has finished a segment and the
 * child needs its slot, the parent deregisters it everywhere and hands the
 * slot back (a 64-bit count of released segments through a second pipe);
 * the child blocks on that pipe while the ring is full, without spinning.
 * A replica that holds a segment longer than repl-timeout is dropped and
 * the others go on. A region bigger than the snapshot holds it whole, and
 * then a replica arriving late can still join the running sync.
 *
 * The announcements (version 1), on the replication link after
 * +FULLRESYNC, as text lines:
 *
 *   $RDMA-SNAPSHOT:1                   a region sync begins
 *   SEG <seq> <offset> <len> <addr> <rkey>
 *                                      segment seq (0, 1, ...) holds the
 *                                      snapshot's bytes [offset, offset+len)
 *                                      at remote address addr, key rkey
 *   END <total> <crc64>                no more segments; the snapshot is
 *                                      total bytes, their CRC-64 (16 hex
 *                                      digits, seeded with all ones)
 *
 * and from the replica, as a command on the link:
 *
 *   REPLCONF rdma-read-done <seq>      segments up to seq are read
 *
 * (no reply). When a replica has finished the last segment it is online
 * and, as after a streamed snapshot, the stream starts at its first ACK.
 *
 * Replica side. After the header, replRdmaRead() is the loader's byte
 * source: it parses announcements, keeps up to REGION_LANDING_SLOTS READs
 * of REGION_LANDING_CHUNK bytes in flight into one registered landing
 * buffer, hands completed bytes to the RDB loader in order, reports every
 * finished segment, and in the end checks length and checksum. No file is
 * written, whatever repl-diskless-load says.
 *
 * Everything runs in the event loop, except regionChildWrite() and what it
 * calls (the child). Without USE_RDMA no replica can ask for a region. */
#include "repl_rdma.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/mman.h>
#include <unistd.h>

#include "crc64.h"
#include "rdb.h"
#include "snapshot.h"

#ifdef USE_RDMA
#include "conn_rdma.h"

#define REGION_SEGMENT_MAX (4 * 1024 * 1024)
#define REGION_MSG_SEGMENT 1
#define REGION_MSG_END 2
#define REGION_LANDING_CHUNK (512 * 1024)
#define REGION_LANDING_SLOTS 16
#define REGION_MAX_LINE 256
/* The END checksum is CRC-64/Jones seeded with all ones: from 0, a CRC over
 * an RDB that ends with its own CRC-64 would always be 0. */
#define REGION_CRC_SEED UINT64_MAX

/* Child -> parent: one completed segment, or the end. */
typedef struct regionMsg {
    uint64_t type;
    uint64_t a; /* SEGMENT: seq; END: total bytes */
    uint64_t b; /* SEGMENT: length; END: CRC-64 */
} regionMsg;

/* A replica served by the region (c->repl->rdma): a reader, or a stream
 * target that gets the bytes pushed ("$EOF:<mark>" framing). */
typedef struct replRdmaTarget {
    client *c;
    int stream;           /* pushed to, not READ by */
    long long done;       /* segments it finished: every seq < done */
    long long announced;  /* segments offered to it */
    void **mrs;           /* reader: per slot, its registration or NULL */
    unsigned long long sent; /* stream: snapshot bytes written */
    int marked;           /* stream: the final mark is queued */
    sds out;              /* header, announcements or mark not yet written */
    time_t progress_time; /* last progress (or when it got work again) */
} replRdmaTarget;

static struct {
    int active;            /* a region exists */
    int child_running;     /* its child has not been reaped */
    int memfd;
    char *map;             /* the parent's view (it never writes there) */
    size_t size, seg_size;
    int nslots;
    size_t *slot_len;      /* bytes of the segment in each slot */
    int from_child, to_child;
    long long completed;   /* segments the child finished */
    long long released;    /* segments handed back to the child */
    int ended;
    unsigned long long total;
    uint64_t crc;
    replRdmaTarget **targets;
    int ntargets;
    char mark[CONFIG_RUN_ID_SIZE]; /* the EOF mark of stream targets */
} region = {.memfd = -1, .from_child = -1, .to_child = -1};

static void regionMaybeFree(void);

/* ---------------------------------------------------------------------------
 * The child
 * ------------------------------------------------------------------------- */

static struct {
    char *map;
    long long seq;       /* the segment being written */
    size_t fill;         /* its bytes so far */
    long long released;  /* what the parent handed back */
    unsigned long long total;
    uint64_t crc;
} ringw;

/* Blocks until the slot of ringw.seq is free. 1, or 0 if the parent is
 * gone (errno). Child. */
static int regionChildWaitSlot(void) {
    while (ringw.seq - ringw.released >= region.nslots) {
        uint64_t v;
        ssize_t n = read(region.to_child, &v, sizeof(v));
        if (n == (ssize_t)sizeof(v)) {
            if ((long long)v > ringw.released) ringw.released = (long long)v;
        } else if (n == -1 && errno == EINTR) {
            continue;
        } else {
            if (n >= 0) errno = EPIPE;
            return 0;
        }
    }
    return 1;
}

static int regionChildSend(uint64_t type, uint64_t a, uint64_t b) {
    regionMsg m = {.type = type, .a = a, .b = b};
    ssize_t n;
    do {
        n = write(region.from_child, &m, sizeof(m));
    } while (n == -1 && errno == EINTR);
    if (n == (ssize_t)sizeof(m)) return 1;
    if (n >= 0) errno = EIO;
    return 0;
}

/* rio function writer: copies into the ring, segment by segment. Child. */
static int regionChildWriteBytes(void *ctx, const void *buf, size_t len) {
    (void)ctx;
    const char *p = buf;
    while (len) {
        if (ringw.fill == region.seg_size) {
            if (!regionChildSend(REGION_MSG_SEGMENT, (uint64_t)ringw.seq, ringw.fill)) return 0;
            ringw.seq++;
            ringw.fill = 0;
        }
        if (ringw.fill == 0 && !regionChildWaitSlot()) return 0;
        size_t n = region.seg_size - ringw.fill;
        if (n > len) n = len;
        memcpy(ringw.map + (size_t)(ringw.seq % region.nslots) * region.seg_size + ringw.fill, p, n);
        ringw.crc = crc64(ringw.crc, p, n);
        ringw.fill += n;
        ringw.total += n;
        p += n;
        len -= n;
    }
    return 1;
}

/* The child's writer (rdbSaveToFuncBackground): the RDB into the ring,
 * then the last segment and the end. C_OK / C_ERR. Child. */
static int regionChildWrite(void *ctx, rioProgressFn *progress) {
    (void)ctx;
    ringw.crc = REGION_CRC_SEED;
    ringw.map = mmap(NULL, region.size, PROT_READ | PROT_WRITE, MAP_SHARED, region.memfd, 0);
    if (ringw.map == MAP_FAILED) {
        serverLog(LL_WARNING, "Can't map the RDMA snapshot region: %s", strerror(errno));
        return C_ERR;
    }
    rio r;
    rioInitFuncWriter(&r, regionChildWriteBytes, NULL);
    r.progress = progress;
    int ok = rdbSaveRio(&r) == C_OK;
    rioRelease(&r);
    if (ok && ringw.fill) ok = regionChildSend(REGION_MSG_SEGMENT, (uint64_t)ringw.seq, ringw.fill);
    if (ok) ok = regionChildSend(REGION_MSG_END, ringw.total, ringw.crc);
    if (!ok) serverLog(LL_WARNING, "Writing the RDMA snapshot region failed: %s", strerror(errno));
    return ok ? C_OK : C_ERR;
}

/* ---------------------------------------------------------------------------
 * Targets (primary side)
 * ------------------------------------------------------------------------- */

static void regionService(replRdmaTarget *t);
static void regionTargetFinished(replRdmaTarget *t);
static void regionTryRelease(void);

static void regionWriteHandler(connection *conn) {
    client *c = connGetPrivateData(conn);
    if (c->repl && c->repl->rdma) regionService(c->repl->rdma);
    regionMaybeFree();
}

/* Writes len bytes of p to t's link. Returns bytes written (0: try again
 * when writable, the handler is set), -1 if the link failed (the replica
 * is dropped). */
static ssize_t regionWrite(replRdmaTarget *t, const char *p, size_t len) {
    client *c = t->c;
    ssize_t n = connWrite(c->conn, p, len);
    if (n >= 0) return n;
    if (connGetState(c->conn) == CONN_STATE_CONNECTED) {
        connSetWriteHandler(c->conn, regionWriteHandler);
        return 0;
    }
    serverLog(LL_WARNING, "RDMA snapshot: write error sending to replica %s: %s", replicaName(c),
              connGetLastError(c->conn));
    freeClientAsync(c);
    return -1;
}

/* Writes t->out. 1 when all of it is out, 0 if not yet (or failed). */
static int regionFlushOut(replRdmaTarget *t) {
    while (sdslen(t->out)) {
        ssize_t n = regionWrite(t, t->out, sdslen(t->out));
        if (n <= 0) return 0;
        sdsrange(t->out, n, -1);
    }
    return 1;
}

/* A stream target: the next bytes of the segments it was offered, and at
 * the end the mark; then it is finished. */
static void regionStreamPump(replRdmaTarget *t) {
    while (regionFlushOut(t)) {
        if (t->marked) {
            regionTargetFinished(t);
            return;
        }
        if (t->done == t->announced) {
            if (region.ended && t->done == region.completed) {
                t->out = sdscatlen(t->out, region.mark, CONFIG_RUN_ID_SIZE);
                t->marked = 1;
                continue;
            }
            connSetWriteHandler(t->c->conn, NULL); /* the child is behind */
            return;
        }
        int slot = (int)(t->done % region.nslots);
        size_t off = (size_t)(t->sent - (unsigned long long)t->done * region.seg_size);
        ssize_t n = regionWrite(t, region.map + (size_t)slot * region.seg_size + off, region.slot_len[slot] - off);
        if (n <= 0) return;
        t->sent += (unsigned long long)n;
        t->progress_time = server.unixtime;
        t->c->lastinteraction = server.unixtime;
        server.stat_net_repl_output_bytes += n;
        if (off + (size_t)n == region.slot_len[slot]) {
            t->done++;
            regionTryRelease();
        }
    }
}

/* Moves t on: a reader's announcements out, a stream target's bytes. */
static void regionService(replRdmaTarget *t) {
    if (t->stream) {
        regionStreamPump(t);
    } else if (regionFlushOut(t)) {
        connSetWriteHandler(t->c->conn, NULL);
    }
}

/* Offers segment seq to t: a reader gets it registered for its
 * connection and a SEG line. C_ERR if that failed (the replica is
 * dropped). */
static int regionAnnounce(replRdmaTarget *t, long long seq) {
    if (t->done == t->announced) t->progress_time = server.unixtime; /* it has work again */
    if (t->stream) {
        t->announced = seq + 1;
        return C_OK;
    }
    int slot = (int)(seq % region.nslots);
    char *addr = region.map + (size_t)slot * region.seg_size;
    uint32_t rkey;
    void *mr = connRdmaExpose(t->c->conn, addr, region.slot_len[slot], &rkey);
    if (mr == NULL) {
        serverLog(LL_WARNING, "RDMA snapshot: cannot register a segment for replica %s: %s", replicaName(t->c),
                  strerror(errno));
        freeClientAsync(t->c);
        return C_ERR;
    }
    t->mrs[slot] = mr;
    t->out = sdscatprintf(t->out, "SEG %lld %llu %zu %" PRIu64 " %u\r\n", seq,
                          (unsigned long long)seq * region.seg_size, region.slot_len[slot], (uint64_t)(uintptr_t)addr,
                          rkey);
    t->announced = seq + 1;
    return C_OK;
}

int replRdmaDebugBadChecksum;

static void regionAnnounceEnd(replRdmaTarget *t) {
    if (t->stream) return; /* its mark follows the last byte */
    uint64_t crc = region.crc ^ (replRdmaDebugBadChecksum ? 1 : 0);
    t->out = sdscatprintf(t->out, "END %llu %016" PRIx64 "\r\n", region.total, crc);
}

/* Deregisters t's segments [from, to). */
static void regionUnregister(replRdmaTarget *t, long long from, long long to) {
    for (long long s = from; s < to; s++) {
        int slot = (int)(s % region.nslots);
        connRdmaUnregister(t->c->conn, t->mrs[slot]);
        t->mrs[slot] = NULL;
    }
}

/* Makes c a target of the region: a reader if it can READ, else a stream
 * target. The header, and every segment already complete. */
static void regionAddTarget(client *c) {
    replRdmaTarget *t = zcalloc(sizeof(*t));
    t->c = c;
    t->stream = !replRdmaServes(c);
    if (t->stream) {
        t->out = sdscatlen(sdsnew("$EOF:"), region.mark, CONFIG_RUN_ID_SIZE);
        t->out = sdscatlen(t->out, "\r\n", 2);
    } else {
        t->mrs = zcalloc(sizeof(void *) * (size_t)region.nslots);
        t->out = sdscatprintf(sdsempty(), "%s%d\r\n", REPL_RDMA_HEADER, REPL_RDMA_VERSION);
    }
    t->progress_time = server.unixtime;
    c->repl->rdma = t;
    region.targets = zrealloc(region.targets, sizeof(*region.targets) * (size_t)(region.ntargets + 1));
    region.targets[region.ntargets++] = t;
    for (long long s = region.released; s < region.completed; s++)
        if (regionAnnounce(t, s) != C_OK) return;
    if (region.ended) regionAnnounceEnd(t);
    regionService(t);
}

/* Forgets t (its registrations go, c keeps its link). */
static void regionRemoveTarget(replRdmaTarget *t) {
    for (int j = 0; j < region.ntargets; j++) {
        if (region.targets[j] != t) continue;
        region.targets[j] = region.targets[--region.ntargets];
        break;
    }
    if (!t->stream) regionUnregister(t, t->done, t->announced);
    if (t->c->conn) connSetWriteHandler(t->c->conn, NULL);
    t->c->repl->rdma = NULL;
    zfree(t->mrs);
    sdsfree(t->out);
    zfree(t);
}

/* Hands slots back to the child: a segment every reader finished, once
 * the child needs its slot (so that, while the ring has room, a late
 * replica can still read everything). */
static void regionTryRelease(void) {
    if (region.to_child == -1) return;
    long long min_done = region.completed;
    for (int j = 0; j < region.ntargets; j++)
        if (region.targets[j]->done < min_done) min_done = region.targets[j]->done;
    long long r = region.released;
    while (r < min_done && r <= region.completed - region.nslots) r++;
    if (r == region.released) return;
    region.released = r;
    uint64_t v = (uint64_t)r;
    if (write(region.to_child, &v, sizeof(v)) != (ssize_t)sizeof(v) && errno != EPIPE)
        serverLog(LL_WARNING, "RDMA snapshot: cannot release segments to the child: %s", strerror(errno));
}

/* ---------------------------------------------------------------------------
 * The region's life (primary side)
 * ------------------------------------------------------------------------- */

static void regionFree(void) {
    while (region.ntargets) regionRemoveTarget(region.targets[0]);
    zfree(region.targets);
    region.targets = NULL;
    if (region.from_child != -1) {
        aeDeleteFileEvent(server.el, region.from_child, AE_READABLE);
        close(region.from_child);
    }
    if (region.to_child != -1) close(region.to_child);
    if (region.map) munmap(region.map, region.size);
    if (region.memfd != -1) close(region.memfd);
    zfree(region.slot_len);
    int was_active = region.active;
    memset(&region, 0, sizeof(region));
    region.memfd = region.from_child = region.to_child = -1;
    if (was_active) serverLog(LL_NOTICE, "RDMA snapshot region released");
}

/* Drops every reader (the snapshot failed) and the region. */
static void regionFailAll(const char *why) {
    serverLog(LL_WARNING, "RDMA snapshot failed: %s", why);
    while (region.ntargets) {
        client *c = region.targets[0]->c;
        regionRemoveTarget(region.targets[0]);
        c->repl->method = NULL;
        freeClientAsync(c);
    }
    regionFree();
}

/* A target has the whole snapshot: online, streaming from its first ACK
 * (which says it finished loading). */
static void regionTargetFinished(replRdmaTarget *t) {
    client *c = t->c;
    if (t->stream)
        serverLog(LL_NOTICE, "Streamed RDB transfer with replica %s succeeded (socket). Waiting for REPLCONF ACK from "
                             "replica to enable streaming", replicaName(c));
    else
        serverLog(LL_NOTICE, "RDMA snapshot read by replica %s (%llu bytes). Waiting for REPLCONF ACK from replica "
                             "to enable streaming", replicaName(c), region.total);
    /* Its last announcements (END) may still be queued: they go first. */
    size_t left = sdslen(t->out);
    if (left && connSyncWrite(c->conn, t->out, left, 1000) != (ssize_t)left) {
        serverLog(LL_WARNING, "RDMA snapshot: write error announcing to replica %s: %s", replicaName(c),
                  connGetLastError(c->conn));
        sdsclear(t->out);
        regionRemoveTarget(t);
        c->repl->method = NULL;
        freeClientAsync(c);
        return;
    }
    sdsclear(t->out);
    regionRemoveTarget(t);
    c->repl->method = NULL;
    replicaPutOnline(c, 1);
}

static void regionHandleMsg(const regionMsg *m) {
    if (m->type == REGION_MSG_SEGMENT) {
        if ((long long)m->a != region.completed || m->b == 0 || m->b > region.seg_size) {
            regionFailAll("the child reported a segment out of order");
            return;
        }
        region.slot_len[region.completed % region.nslots] = m->b;
        long long seq = region.completed++;
        /* (A target may finish and leave the array: it takes the last
         * one's place, which was served already.) */
        for (int j = region.ntargets - 1; j >= 0; j--) {
            if (j >= region.ntargets) continue;
            replRdmaTarget *t = region.targets[j];
            if (regionAnnounce(t, seq) == C_OK) regionService(t);
        }
        regionTryRelease();
    } else if (m->type == REGION_MSG_END) {
        region.ended = 1;
        region.total = m->a;
        region.crc = m->b;
        for (int j = region.ntargets - 1; j >= 0; j--) {
            if (j >= region.ntargets) continue;
            regionAnnounceEnd(region.targets[j]);
            regionService(region.targets[j]);
        }
    }
}

/* Reads the child's messages. */
static void regionPipeHandler(struct aeEventLoop *el, int fd, void *privdata, int mask) {
    (void)el;
    (void)privdata;
    (void)mask;
    regionMsg msgs[64];
    while (region.active) {
        ssize_t n = read(fd, msgs, sizeof(msgs));
        if (n <= 0) {
            if (n == -1 && (errno == EAGAIN || errno == EINTR)) return;
            /* The child closed its end: it exited; done() follows. */
            aeDeleteFileEvent(server.el, fd, AE_READABLE);
            return;
        }
        for (size_t j = 0; j < (size_t)n / sizeof(regionMsg) && region.active; j++) regionHandleMsg(&msgs[j]);
        regionMaybeFree();
    }
}

/* Page-aligned sizes: the ring, and segments that divide it. */
static void regionSize(void) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t size = (size_t)server.repl_rdma_snapshot_buffer / page * page;
    if (size < 2 * page) size = 2 * page;
    size_t seg = size / 2 < REGION_SEGMENT_MAX ? size / 2 : REGION_SEGMENT_MAX;
    seg = seg / page * page;
    region.seg_size = seg;
    region.nslots = (int)(size / seg);
    region.size = (size_t)region.nslots * seg;
}

static int regionStart(void) {
    int c2p[2] = {-1, -1}, p2c[2] = {-1, -1};
    regionSize();
    region.memfd = memfd_create("valkey-rdma-snapshot", MFD_CLOEXEC);
    if (region.memfd == -1 || ftruncate(region.memfd, (off_t)region.size) == -1) {
        serverLog(LL_WARNING, "Can't create the RDMA snapshot region (%zu bytes): %s", region.size, strerror(errno));
        goto err;
    }
    /* Mapped writable although the parent only reads it: pinning a
     * read-only shared mapping for RDMA fails (EFAULT) on some kernels. */
    region.map = mmap(NULL, region.size, PROT_READ | PROT_WRITE, MAP_SHARED, region.memfd, 0);
    if (region.map == MAP_FAILED) {
        region.map = NULL;
        serverLog(LL_WARNING, "Can't map the RDMA snapshot region: %s", strerror(errno));
        goto err;
    }
    if (pipe(c2p) == -1 || pipe(p2c) == -1) {
        serverLog(LL_WARNING, "Can't set up the pipes of an RDMA snapshot: %s", strerror(errno));
        goto err;
    }
    region.slot_len = zcalloc(sizeof(size_t) * (size_t)region.nslots);
    region.from_child = c2p[1]; /* the child's ends, for the child */
    region.to_child = p2c[0];
    repl.snapshot_offset = server.primary_repl_offset;
    serverLog(LL_NOTICE, "Starting BGSAVE for SYNC with target: replicas RDMA snapshot region (%zu bytes, %d segments)",
              region.size, region.nslots);
    if (rdbSaveToFuncBackground(regionChildWrite, NULL, c2p[0], p2c[1]) != C_OK) goto err;
    close(c2p[1]);
    close(p2c[0]);
    c2p[1] = p2c[0] = -1;
    region.from_child = c2p[0];
    region.to_child = p2c[1];
    fcntl(region.from_child, F_SETFL, O_NONBLOCK);
    fcntl(region.to_child, F_SETFL, O_NONBLOCK);
    fcntl(region.from_child, F_SETFD, FD_CLOEXEC);
    fcntl(region.to_child, F_SETFD, FD_CLOEXEC);
    region.active = region.child_running = 1;
    getRandomHexChars(region.mark, CONFIG_RUN_ID_SIZE);
    aeCreateFileEvent(server.el, region.from_child, AE_READABLE, regionPipeHandler, NULL);

    client **joined = zmalloc(sizeof(client *) * listLength(repl.replicas));
    int n = replicasJoinSnapshot(&replRdmaRegionMethod, repl.snapshot_offset, server.repl_diskless_sync_max_replicas,
                                 joined);
    for (int j = 0; j < n; j++) regionAddTarget(joined[j]);
    zfree(joined);
    return C_OK;

err:
    for (int j = 0; j < 2; j++) {
        if (c2p[j] != -1) close(c2p[j]);
        if (p2c[j] != -1) close(p2c[j]);
    }
    region.from_child = region.to_child = -1;
    regionFree();
    return C_ERR;
}

/* The child ended. Its last messages may still be in the pipe. */
static void regionDone(int ok) {
    if (!region.active) return;
    region.child_running = 0;
    if (region.from_child != -1) regionPipeHandler(server.el, region.from_child, NULL, 0);
    if (!region.active) return;
    if (!ok || !region.ended) {
        regionFailAll("the child exited before the end of the snapshot");
        return;
    }
    serverLog(LL_NOTICE, "RDMA snapshot complete: %llu bytes in %lld segments, %d replicas still reading",
              region.total, region.completed, region.ntargets);
    regionMaybeFree();
}

/* Frees the region when nobody reads it any more; kills a child that
 * would write for nobody. */
static void regionMaybeFree(void) {
    if (!region.active || region.ntargets) return;
    if (region.child_running) {
        if (region.ended) return; /* it finished: regionDone() frees */
        serverLog(LL_WARNING, "RDMA snapshot: last replica dropped, killing fork child.");
        killRDBChild(); /* reaps it: regionDone(0) frees the region */
        if (!region.active) return;
    }
    regionFree();
}

static void regionReplicaGone(client *c) {
    replRdmaTarget *t = c->repl->rdma;
    if (t == NULL) return;
    regionRemoveTarget(t);
    regionTryRelease();
    regionMaybeFree();
}

/* A replica arriving while the ring still holds the snapshot from its
 * first byte can read it all; the stream since the snapshot's offset must
 * still be in the backlog. */
static int regionCanAttach(void) {
    replBacklog *b = repl.backlog;
    return region.active && region.released == 0 && b && repl.snapshot_offset + 1 >= b->offset;
}

static void regionAttached(client *c) {
    regionAddTarget(c);
}

static int regionBusy(void) {
    return region.active;
}

/* Besides readers, the region streams to replicas that would get a
 * streamed snapshot anyway (repl-diskless-sync yes, capa eof), so that
 * they share the sync. */
static int regionAlsoServes(client *c) {
    return server.repl_diskless_sync && c->repl && (c->repl->capa & REPLICA_CAPA_EOF);
}

replSnapshotMethod replRdmaRegionMethod = {
    .name = "rdma-region",
    .delayed = 1,
    .start = regionStart,
    .done = regionDone,
    .replica_gone = regionReplicaGone,
    .can_attach = regionCanAttach,
    .attached = regionAttached,
    .busy = regionBusy,
    .also_serves = regionAlsoServes,
};

/* See repl_rdma.h. */
int replRdmaServes(client *c) {
    return server.repl_rdma_snapshot && c->repl && (c->repl->capa & REPLICA_CAPA_RDMA_READ) && connIsRdma(c->conn);
}

/* See repl_rdma.h. */
void replRdmaReadDone(client *c, robj *seqobj) {
    replRdmaTarget *t = c->repl ? c->repl->rdma : NULL;
    long long seq;
    if (t == NULL || t->stream || getLongLongFromObject(seqobj, &seq) != C_OK) return;
    if (seq < t->done) return; /* old news */
    if (seq >= t->announced) {
        serverLog(LL_WARNING, "RDMA snapshot: replica %s reports segment %lld read, but only %lld were announced",
                  replicaName(c), seq, t->announced);
        freeClientAsync(c);
        return;
    }
    regionUnregister(t, t->done, seq + 1);
    t->done = seq + 1;
    t->progress_time = server.unixtime;
    c->lastinteraction = server.unixtime;
    if (region.ended && t->done == region.completed) regionTargetFinished(t);
    regionTryRelease();
    regionMaybeFree();
}

/* See repl_rdma.h. */
void replRdmaCron(void) {
    regionMaybeFree(); /* a target that finished while attaching */
    for (int j = region.ntargets - 1; j >= 0; j--) {
        replRdmaTarget *t = region.targets[j];
        if (t->done == t->announced) continue; /* waits for the child, not late */
        if (server.unixtime - t->progress_time <= server.repl_timeout) continue;
        serverLog(LL_WARNING, "Disconnecting timedout replica (RDMA snapshot read): %s", replicaName(t->c));
        freeClientAsync(t->c);
    }
}

/* See repl_rdma.h. */
size_t replRdmaRegionBytes(void) {
    return region.active ? region.size : 0;
}

/* See repl_rdma.h. */
sds replRdmaCatInfo(sds info) {
    info = sdscatprintf(info,
                        "rdma_snapshot_active:%d\r\n"
                        "rdma_snapshot_region_bytes:%zu\r\n"
                        "rdma_snapshot_segment_bytes:%zu\r\n"
                        "rdma_snapshot_segments:%d\r\n"
                        "rdma_snapshot_segments_written:%lld\r\n"
                        "rdma_snapshot_segments_released:%lld\r\n",
                        region.active, replRdmaRegionBytes(), region.active ? region.seg_size : 0,
                        region.active ? region.nslots : 0, region.completed, region.released);
    for (int j = 0; j < region.ntargets; j++) {
        replRdmaTarget *t = region.targets[j];
        unsigned long long read = (unsigned long long)t->done * region.seg_size;
        if (region.ended && read > region.total) read = region.total;
        info = sdscatprintf(info, "rdma_snapshot_reader%d:replica=%s,read_offset=%llu,segments_done=%lld\r\n", j,
                            replicaName(t->c), read, t->done);
    }
    return info;
}

/* ---------------------------------------------------------------------------
 * Replica side: reading a region
 * ------------------------------------------------------------------------- */

typedef struct regionAnn {
    long long seq;
    unsigned long long offset;
    uint32_t len;
    uint64_t addr;
    uint32_t rkey;
} regionAnn;

typedef struct landingSlot {
    long long seq;  /* the segment its bytes belong to */
    uint32_t len;
    int last;       /* the segment's last piece */
    int ready;      /* the READ completed */
} landingSlot;

static struct {
    connection *conn;
    sds lines;                 /* link bytes not parsed yet */
    regionAnn *anns;           /* announced, not completely posted */
    int nanns, cap;
    uint32_t ann_posted;       /* bytes of anns[0] posted */
    long long next_seq;        /* the SEG expected next */
    unsigned long long announced_bytes;
    char *buf;                 /* REGION_LANDING_SLOTS chunks */
    void *mr;
    landingSlot slots[REGION_LANDING_SLOTS];
    int head, count;           /* posted slots, in order */
    uint32_t head_pos;         /* bytes of the head slot handed out */
    int ended;
    unsigned long long total;
    uint64_t expect_crc;
    unsigned long long delivered;
    uint64_t crc;
} rr;

/* See repl_rdma.h. */
int replRdmaCanRead(connection *conn) {
    return connIsRdma(conn);
}

/* See repl_rdma.h. */
int replRdmaLoadBegin(connection *conn) {
    replRdmaLoadEnd();
    size_t len = (size_t)REGION_LANDING_SLOTS * REGION_LANDING_CHUNK;
    rr.buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (rr.buf == MAP_FAILED) {
        rr.buf = NULL;
        serverLog(LL_WARNING, "RDMA snapshot: cannot allocate the landing buffer: %s", strerror(errno));
        return C_ERR;
    }
    rr.mr = connRdmaRegisterLocal(conn, rr.buf, len);
    if (rr.mr == NULL) {
        serverLog(LL_WARNING, "RDMA snapshot: cannot register the landing buffer: %s", strerror(errno));
        replRdmaLoadEnd();
        return C_ERR;
    }
    rr.conn = conn;
    rr.lines = sdsempty();
    rr.crc = REGION_CRC_SEED;
    return C_OK;
}

/* See repl_rdma.h. */
void replRdmaLoadEnd(void) {
    if (rr.mr) connRdmaUnregister(rr.conn, rr.mr);
    if (rr.buf) munmap(rr.buf, (size_t)REGION_LANDING_SLOTS * REGION_LANDING_CHUNK);
    sdsfree(rr.lines);
    zfree(rr.anns);
    memset(&rr, 0, sizeof(rr));
}

/* One announcement line. C_OK, or C_ERR (logged) for anything that is
 * not the next SEG or a consistent END. */
static int regionParseLine(const char *line) {
    regionAnn a;
    unsigned long long total;
    uint64_t crc;
    char extra;
    if (!rr.ended && sscanf(line, "SEG %lld %llu %" SCNu32 " %" SCNu64 " %" SCNu32 " %c", &a.seq, &a.offset, &a.len,
                            &a.addr, &a.rkey, &extra) == 5) {
        if (a.seq != rr.next_seq || a.offset != rr.announced_bytes || a.len == 0) goto bad;
        if (rr.nanns == rr.cap) {
            rr.cap = rr.cap ? rr.cap * 2 : 64;
            rr.anns = zrealloc(rr.anns, sizeof(*rr.anns) * (size_t)rr.cap);
        }
        rr.anns[rr.nanns++] = a;
        rr.next_seq++;
        rr.announced_bytes += a.len;
        return C_OK;
    }
    if (!rr.ended && sscanf(line, "END %llu %" SCNx64 " %c", &total, &crc, &extra) == 2) {
        if (total != rr.announced_bytes) goto bad;
        rr.ended = 1;
        rr.total = total;
        rr.expect_crc = crc;
        return C_OK;
    }
bad:
    serverLog(LL_WARNING, "RDMA snapshot: bad announcement from PRIMARY: '%s'", line);
    return C_ERR;
}

/* Reads and parses what arrived on the link. Returns 1 if anything did,
 * 0 if nothing, -1 on error or EOF. */
static int regionPumpLines(void) {
    char buf[4096];
    ssize_t n = connRead(rr.conn, buf, sizeof(buf));
    if (n == 0 || (n == -1 && connGetState(rr.conn) != CONN_STATE_CONNECTED)) {
        serverLog(LL_WARNING, "RDMA snapshot: I/O error reading announcements from PRIMARY: %s",
                  n == 0 ? "connection lost" : connGetLastError(rr.conn));
        return -1;
    }
    if (n == -1) return 0;
    rr.lines = sdscatlen(rr.lines, buf, (size_t)n);
    char *nl;
    while ((nl = memchr(rr.lines, '\n', sdslen(rr.lines))) != NULL) {
        size_t len = (size_t)(nl - rr.lines);
        if (len && rr.lines[len - 1] == '\r') rr.lines[len - 1] = '\0';
        *nl = '\0';
        int ok = rr.lines[0] == '\0' || regionParseLine(rr.lines) == C_OK; /* empty: a keepalive */
        sdsrange(rr.lines, (ssize_t)len + 1, -1);
        if (!ok) return -1;
    }
    if (sdslen(rr.lines) > REGION_MAX_LINE) {
        serverLog(LL_WARNING, "RDMA snapshot: announcement line too long from PRIMARY");
        return -1;
    }
    return 1;
}

/* Posts READs while landing slots are free. 1 if any, 0 if none, -1 on
 * error. */
static int regionPostReads(void) {
    int posted = 0;
    while (rr.count < REGION_LANDING_SLOTS && rr.nanns) {
        regionAnn *a = &rr.anns[0];
        int idx = (rr.head + rr.count) % REGION_LANDING_SLOTS;
        uint32_t len = a->len - rr.ann_posted;
        if (len > REGION_LANDING_CHUNK) len = REGION_LANDING_CHUNK;
        char *local = rr.buf + (size_t)idx * REGION_LANDING_CHUNK;
        int r = connRdmaPostRead(rr.conn, rr.mr, local, a->addr + rr.ann_posted, a->rkey, len, (uint64_t)idx);
        if (r < 0) {
            serverLog(LL_WARNING, "RDMA snapshot: READ failed: %s", connGetLastError(rr.conn));
            return -1;
        }
        if (r == 0) break;
        rr.slots[idx] = (landingSlot){.seq = a->seq, .len = len, .last = rr.ann_posted + len == a->len};
        rr.count++;
        posted = 1;
        rr.ann_posted += len;
        if (rr.ann_posted == a->len) {
            memmove(rr.anns, rr.anns + 1, sizeof(*rr.anns) * (size_t)(rr.nanns - 1));
            rr.nanns--;
            rr.ann_posted = 0;
        }
    }
    return posted;
}

/* Marks completed READs. 1 if any, 0 if none, -1 on error (a READ the
 * primary refused: its region is gone, or the key was not ours). */
static int regionCollectReads(void) {
    uint64_t tags[REGION_LANDING_SLOTS];
    int n = connRdmaReadsDone(rr.conn, tags, REGION_LANDING_SLOTS);
    if (n < 0) {
        serverLog(LL_WARNING, "RDMA snapshot: READ failed: %s", connGetLastError(rr.conn));
        return -1;
    }
    for (int j = 0; j < n; j++) {
        if (tags[j] >= REGION_LANDING_SLOTS) return -1;
        rr.slots[tags[j]].ready = 1;
    }
    return n > 0;
}

/* Tells the primary segment seq is read. */
static int regionReportDone(long long seq) {
    char num[32], cmd[96];
    int nl = snprintf(num, sizeof(num), "%lld", seq);
    int len = snprintf(cmd, sizeof(cmd), "*3\r\n$8\r\nREPLCONF\r\n$14\r\nrdma-read-done\r\n$%d\r\n%s\r\n", nl, num);
    if (connSyncWrite(rr.conn, cmd, len, (long long)server.repl_timeout * 1000) != len) {
        serverLog(LL_WARNING, "RDMA snapshot: cannot report progress to PRIMARY: %s", connGetLastError(rr.conn));
        return C_ERR;
    }
    return C_OK;
}

/* Hands up to len bytes of the head slot to the loader. */
static ssize_t regionDeliver(void *buf, size_t len) {
    landingSlot *s = &rr.slots[rr.head];
    size_t avail = s->len - rr.head_pos;
    if (len > avail) len = avail;
    const char *src = rr.buf + (size_t)rr.head * REGION_LANDING_CHUNK + rr.head_pos;
    memcpy(buf, src, len);
    rr.crc = crc64(rr.crc, src, len);
    rr.delivered += len;
    rr.head_pos += (uint32_t)len;
    server.stat_net_repl_input_bytes += (long long)len;
    repl.transfer_read += (long long)len;
    repl.transfer_lastio = time(NULL);
    if (rr.head_pos == s->len) {
        long long seq = s->seq;
        int last = s->last;
        rr.head = (rr.head + 1) % REGION_LANDING_SLOTS;
        rr.count--;
        rr.head_pos = 0;
        if (last && regionReportDone(seq) != C_OK) return -1;
    }
    return (ssize_t)len;
}

/* See repl_rdma.h. Waits up to repl-timeout for progress. */
ssize_t replRdmaRead(void *ctx, void *buf, size_t len) {
    (void)ctx;
    long long deadline = aeMonotonicUs() + (long long)server.repl_timeout * 1000000;
    while (1) {
        if (rr.count && rr.slots[rr.head].ready) return regionDeliver(buf, len);
        if (rr.ended && rr.delivered == rr.total) return 0;
        int lines = regionPumpLines();
        int posted = lines < 0 ? -1 : regionPostReads();
        int reads = posted < 0 ? -1 : regionCollectReads();
        if (lines < 0 || posted < 0 || reads < 0) return -1;
        if (lines || posted || reads) {
            deadline = aeMonotonicUs() + (long long)server.repl_timeout * 1000000;
            continue;
        }
        if (connWait(rr.conn, AE_READABLE, deadline) == C_ERR) {
            serverLog(LL_WARNING, "RDMA snapshot: no progress from PRIMARY: %s",
                      errno == ETIMEDOUT ? "timeout" : connGetLastError(rr.conn));
            return -1;
        }
    }
}

/* See repl_rdma.h. */
int replRdmaLoadFinish(void) {
    /* The loader may have had every byte before the END line came. */
    long long deadline = aeMonotonicUs() + (long long)server.repl_timeout * 1000000;
    while (!rr.ended) {
        int r = regionPumpLines();
        if (r < 0) return C_ERR;
        if (r == 0 && connWait(rr.conn, AE_READABLE, deadline) == C_ERR) {
            serverLog(LL_WARNING, "RDMA snapshot: no END from PRIMARY: %s",
                      errno == ETIMEDOUT ? "timeout" : connGetLastError(rr.conn));
            return C_ERR;
        }
    }
    if (rr.delivered != rr.total) {
        serverLog(LL_WARNING, "RDMA snapshot: the RDB ended after %llu of %llu bytes", rr.delivered,
                  rr.ended ? rr.total : rr.announced_bytes);
        return C_ERR;
    }
    if (rr.crc != rr.expect_crc) {
        serverLog(LL_WARNING, "RDMA snapshot: checksum mismatch (announced %016" PRIx64 ", read %016" PRIx64 ")",
                  rr.expect_crc, rr.crc);
        return C_ERR;
    }
    serverLog(LL_NOTICE, "PRIMARY <-> REPLICA sync: RDMA snapshot of %llu bytes read and verified", rr.total);
    return C_OK;
}

#else /* !USE_RDMA: no RDMA link, so no region is ever asked for. */

int replRdmaDebugBadChecksum;

static int regionNeverStarts(void) {
    return C_ERR;
}
static void regionNoop(int ok) {
    (void)ok;
}
replSnapshotMethod replRdmaRegionMethod = {.name = "rdma-region", .start = regionNeverStarts, .done = regionNoop};
int replRdmaServes(client *c) {
    (void)c;
    return 0;
}
void replRdmaReadDone(client *c, robj *seq) {
    (void)c;
    (void)seq;
}
void replRdmaCron(void) {}
size_t replRdmaRegionBytes(void) {
    return 0;
}
sds replRdmaCatInfo(sds info) {
    return info;
}
int replRdmaCanRead(connection *conn) {
    (void)conn;
    return 0;
}
int replRdmaLoadBegin(connection *conn) {
    (void)conn;
    serverLog(LL_WARNING, "RDMA snapshot offered, but RDMA support is not built into this server");
    return C_ERR;
}
ssize_t replRdmaRead(void *ctx, void *buf, size_t len) {
    (void)ctx;
    (void)buf;
    (void)len;
    return -1;
}
int replRdmaLoadFinish(void) {
    return C_ERR;
}
void replRdmaLoadEnd(void) {}

#endif
