/* networking.c - client I/O: accepting, reading and parsing requests,
 * building replies and writing them back.
 *
 * Flow of one request: the transport calls readQueryFromClient() when the
 * connection is readable; bytes land in c->querybuf; processInputBuffer()
 * parses as many complete requests (RESP multibulk or inline) as the buffer
 * holds and runs each through processCommand() (server.c). Replies are
 * appended to the client's static buffer and, when that is full, to a list
 * of blocks of up to 16 KiB. A client with output is queued on
 * server.clients_pending_write; beforeSleep() writes all queued output with
 * as few writev() calls as possible and only installs a write handler for
 * clients whose socket could not take everything. So a pipeline of N
 * commands read in one go is answered with one write. Before a pipeline
 * runs, the keys of its requests are looked up ahead as a cache prefetch
 * (prefetchPipelineKeys()), so that over a big keyspace the cache misses of
 * its lookups overlap instead of coming one after the other.
 *
 * A client reads into one query buffer shared by all (readQueryFromClient)
 * and keeps a buffer of its own only for the bytes of a request that is not
 * complete yet; its static reply buffer comes with its first reply. The
 * clients cron fits both to recent use, so idle connections cost little
 * memory and cannot push the dataset out under maxmemory.
 *
 * Large bulk arguments (>= PROTO_MBULK_BIG_ARG) are read into a buffer of
 * the client's own that grows as the bytes arrive (never reserved ahead on
 * the word of the announced length) and then becomes the argument object:
 * no copy however big the value. Likewise a multibulk count reserves at
 * most PROTO_ARGV_PREALLOC argument slots; more come as the arguments do.
 *
 * While maxmemory-clients is set, each read, command and write updates the
 * client's share of the clients' memory (evict_clients.c).
 *
 * Everything here talks to the peer through connection.h; nothing knows the
 * transport. Clients are freed synchronously unless they are in the middle
 * of being served, in which case freeClientAsync() defers it to the cron.
 *
 * With io-threads N (io_threads.c), an I/O thread may do a client's reads,
 * parsing and writes: clientRunIoJob() below is what it runs, with the
 * same read, parse and write code as the main thread (the parse functions
 * take an `offthread` argument: a thread records a protocol error instead
 * of replying, and never reads server state that commands change). What a
 * thread parsed waits in c->io.q, and processInputBuffer() runs it first.
 * clientApplyIoJob() applies a job's results on the main thread. The main
 * thread never touches a client's buffers while a thread has its job
 * (CLIENT_IO_PENDING_FLAG): the few paths that must (replies from other
 * clients, CLIENT LIST, freeing) wait for the job first. */
#include "server.h"

#include "acl.h"
#include "aof.h"
#include "blocked.h"
#include "cluster.h"
#include "multi.h"
#include "pubsub.h"
#include "redirect.h"
#include "replication.h"
#include "tracking.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <sys/uio.h>

#define NET_MAX_WRITES_PER_EVENT (1024 * 64)
#define CLIENT_IOV_MAX 64

/* The query buffer every client reads into while it has no partial request
 * left over (readQueryFromClient): most clients then hold no query buffer
 * between requests. Taken by one read at a time. One per thread: each I/O
 * thread reads into its own and gives it back before its job ends. */
static __thread sds shared_qb;
static __thread int shared_qb_taken;

static void setProtocolError(const char *errstr, client *c);
static void sendReplyToClient(connection *conn);
static void allocReplyBuffer(client *c);

/* ---------------------------------------------------------------------------
 * Client creation and destruction
 * ------------------------------------------------------------------------- */

/* Allocates a client bound to conn (NULL for fake clients, e.g. the one Lua
 * will use) and links it into server.clients. The client owns conn. */
client *createClient(connection *conn) {
    client *c = zcalloc(sizeof(*c));
    if (conn) {
        connEnableTcpNoDelay(conn);
        if (server.tcpkeepalive) connKeepAlive(conn, server.tcpkeepalive);
        connSetReadHandler(conn, readQueryFromClient);
        connSetPrivateData(conn, c);
    }
    /* The static reply buffer comes with the first reply (see
     * allocReplyBuffer), except for fake clients: script_lua.c reads theirs
     * directly. */
    if (!conn) allocReplyBuffer(c);
    c->conn = conn;
    c->id = server.next_client_id++;
    c->resp = 2;
    selectDb(c, 0);
    c->querybuf = NULL; /* reads go to the shared query buffer (see readQueryFromClient) */
    respParserInit(&c->mb, server.proto_max_bulk_len, PROTO_INLINE_MAX_SIZE);
    c->mb.quiet_len_below = PROTO_MBULK_BIG_ARG; /* only big arguments need their length early */
    c->reply = listCreate();
    listSetFreeMethod(c->reply, zfree);
    c->io.thread = -1;
    c->ctime = c->lastinteraction = server.unixtime;
    aclClientInit(c);
    if (conn) {
        listAddNodeTail(server.clients, c);
        c->client_list_node = listLast(server.clients);
        dictAdd(server.clients_index, (void *)(uintptr_t)c->id, c);
    } else {
        c->flags |= CLIENT_FAKE;
        c->user = NULL; /* the server's own client: no ACL checks */
        c->authenticated = 1;
    }
    return c;
}

/* Drops the parsed argument vector of the current command. Short string
 * arguments that nothing else holds (the command name, a key the keyspace
 * copied) are kept in c->spare_args for the parser to fill again, last
 * argument first so that the next request's first argument gets this
 * one's first object. */
void freeClientArgv(client *c) {
    for (int j = c->argc - 1; j >= 0; j--) {
        robj *o = c->argv[j];
        if (o->refcount == 1 && o->encoding == OBJ_ENCODING_EMBSTR && !o->hasembkey &&
            c->spare_argc < CLIENT_SPARE_ARGS)
            c->spare_args[c->spare_argc++] = o;
        else
            decrRefCount(o);
    }
    c->argc = 0;
    c->cmd = NULL;
    c->argv_len_sum = 0;
    if (c->argv_len > 64) { /* Don't keep huge vectors around. */
        zfree(c->argv);
        c->argv = NULL;
        c->argv_len = 0;
    }
}

/* Prepares the client for the next command of a pipeline. */
void resetClient(client *c) {
    if (__builtin_expect(c->flags & (CLIENT_TRACKING_CACHING | CLIENT_ASKING), 0)) {
        if (c->flags & CLIENT_TRACKING_CACHING) trackingResetCachingFlag(c, c->cmd);
        if (c->flags & CLIENT_ASKING) clusterAfterCommand(c, c->cmd); /* ASKING lasts one command */
    }
    freeClientArgv(c);
    c->reqtype = 0;
    respParserReset(&c->mb);
    /* CLIENT REPLY SKIP applies to exactly the next command. */
    if (c->flags & CLIENT_REPLY_SKIP) {
        c->flags &= ~CLIENT_REPLY_SKIP;
    }
    if (c->flags & CLIENT_REPLY_SKIP_NEXT) {
        c->flags |= CLIENT_REPLY_SKIP;
        c->flags &= ~CLIENT_REPLY_SKIP_NEXT;
    }
}

static void unlinkClient(client *c) {
    if (server.current_client == c) server.current_client = NULL;
    if (c->conn) {
        if (c->client_list_node) {
            listDelNode(server.clients, c->client_list_node);
            c->client_list_node = NULL;
            dictDelete(server.clients_index, (void *)(uintptr_t)c->id);
        }
        connClose(c->conn);
        c->conn = NULL;
    }
    if (c->pending_write_node) {
        listUnlinkNode(server.clients_pending_write, c->pending_write_node);
        c->pending_write_node = NULL;
        c->flags &= ~CLIENT_PENDING_WRITE;
    }
    if (c->flags & CLIENT_CLOSE_ASAP) {
        listNode *ln = listSearchKey(server.clients_to_close, c);
        if (ln) listDelNode(server.clients_to_close, ln);
    }
    if (c->flags & CLIENT_MONITOR) {
        listNode *ln = listSearchKey(server.monitors, c);
        if (ln) listDelNode(server.monitors, ln);
    }
    listNode *ln = server.paused_clients ? listSearchKey(server.paused_clients, c) : NULL;
    if (ln) listDelNode(server.paused_clients, ln);
}

/* Frees the client and closes its connection. Safe to call from the
 * client's own read handler: the connection layer defers the close. */
void freeClient(client *c) {
    if (c->flags & CLIENT_IO_PENDING_FLAG) ioThreadsWaitClient(c);
    if (c->flags & CLIENT_PROTECTED) {
        freeClientAsync(c);
        return;
    }
    ioThreadsClientFreed(c);
    if (c->repl) replicationFreeClient(c); /* a replica, or our primary */
    if (c->flags & CLIENT_BLOCKED) replicationForgetWaitingClient(c);
    if (c->flags & CLIENT_BLOCKED) aofForgetWaitingClient(c); /* WAITAOF */
    clientMemForget(c);    /* maxmemory-clients count */
    disableTracking(c);
    blockedClientFreed(c); /* leave the wait lists of blocked keys */
    multiFreeClient(c);       /* drop the MULTI queue and WATCHed keys */
    pubsubUnsubscribeAll(c, 0);
    unlinkClient(c);
    freeClientArgv(c);
    zfree(c->argv);
    discardOriginalCommandVector(c);
    parsedQueueRelease(c);
    while (c->spare_argc) decrRefCount(c->spare_args[--c->spare_argc]);
    if (c->querybuf == shared_qb) shared_qb_taken = 0; /* never free the shared buffer */
    else sdsfree(c->querybuf);
    listRelease(c->reply);
    zfree(c->buf);
    if (c->name) decrRefCount(c->name);
    if (c->lib_name) decrRefCount(c->lib_name);
    if (c->lib_ver) decrRefCount(c->lib_ver);
    zfree(c);
}

/* Schedules the client to be freed by the next beforeSleep/cron: used when
 * it is unsafe to free it now (it is executing, or output limits tripped
 * while building a reply). */
void freeClientAsync(client *c) {
    if (c->flags & CLIENT_CLOSE_ASAP || c->flags & CLIENT_FAKE) return;
    c->flags |= CLIENT_CLOSE_ASAP;
    listAddNodeTail(server.clients_to_close, c);
}

void freeClientsInAsyncFreeQueue(void) {
    listIter li;
    listNode *ln;
    listRewind(server.clients_to_close, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        if (c->flags & CLIENT_PROTECTED) continue;
        c->flags &= ~CLIENT_CLOSE_ASAP;
        listDelNode(server.clients_to_close, ln);
        freeClient(c);
    }
}

/* ---------------------------------------------------------------------------
 * Accepting connections
 * ------------------------------------------------------------------------- */

/* Refuses a client whose connection was just accepted: err (a whole
 * protocol line) goes out through the normal output path, which also works
 * for transports that can write only once the connection is fully set up
 * (RDMA), and the connection is closed once it is written. */
static void rejectAcceptedClient(client *c, const char *err) {
    server.stat_rejected_conn++;
    addReplyProto(c, err, strlen(err));
    c->flags |= CLIENT_CLOSE_AFTER_REPLY;
}

/* Called when the transport finished its accept handshake (for TCP that is
 * at once; TLS and RDMA need round trips). */
void clientAcceptHandler(connection *conn) {
    client *c = connGetPrivateData(conn);
    if (connGetState(conn) != CONN_STATE_CONNECTED) {
        serverLog(LL_WARNING, "Error accepting a client connection: %s", connGetLastError(conn));
        freeClientAsync(c);
        return;
    }
    /* Idle time (timeout) counts from the end of the handshake, which over
     * RDMA takes a round trip or two after the client was created. */
    c->lastinteraction = server.unixtime;

    if (c->flags & CLIENT_REJECT_MAXCLIENTS) {
        rejectAcceptedClient(c, "-ERR max number of clients reached\r\n");
        return;
    }

    /* Protected mode: while the default user needs no password, only
     * loopback and Unix-socket clients may talk to us, whatever the
     * transport (TCP, TLS, RDMA: each answers connIsLocal()). */
    if (server.protected_mode && aclDefaultUserIsOpen() && !(c->flags & CLIENT_UNIX_SOCKET) &&
        !connIsLocal(conn)) {
        rejectAcceptedClient(
            c, "-DENIED Running in protected mode because protected mode is enabled and no password is set "
               "for the default user. In this mode connections are only accepted from the loopback interface. "
               "To accept remote clients either set a password (requirepass), bind to the addresses you want "
               "to serve explicitly, or turn protected mode off with 'CONFIG SET protected-mode no' from a "
               "local connection (and make sure the server is not reachable from the internet).\r\n");
        return;
    }
    server.stat_numconnections++;
}

/* The listener's accept callback: enforce maxclients, create the client and
 * let the transport finish accepting. flags carries CLIENT_UNIX_SOCKET. */
void acceptCommonHandler(connection *conn, int flags, const char *ip) {
    if (connGetState(conn) != CONN_STATE_ACCEPTING) {
        char addr[NET_ADDR_STR_LEN] = {0};
        connFormatAddr(conn, addr, sizeof(addr), 1);
        serverLog(LL_VERBOSE, "Accepted client connection in error state: %s (addr=%s)", connGetLastError(conn),
                  addr);
        connClose(conn);
        return;
    }

    client *c = createClient(conn);
    c->flags |= flags;
    /* Over maxclients the connection is still accepted, so that the client
     * can be told why before it is closed (clientAcceptHandler). */
    if (listLength(server.clients) > server.maxclients) c->flags |= CLIENT_REJECT_MAXCLIENTS;
    if (connAccept(conn, clientAcceptHandler) == C_ERR) {
        if (connGetState(conn) == CONN_STATE_ERROR)
            serverLog(LL_WARNING, "Error accepting a client connection: %s (addr=%s)", connGetLastError(conn),
                      ip ? ip : "?");
        freeClient(connGetPrivateData(conn));
        return;
    }
}

/* ---------------------------------------------------------------------------
 * Building replies
 *
 * The static buffer c->buf is used while the reply list is empty; once the
 * list has a node every byte goes to the list, which keeps the order.
 * ------------------------------------------------------------------------- */

static inline int clientIsWritable(client *c) {
    if (c->flags & (CLIENT_FAKE | CLIENT_CLOSE_ASAP)) return 0;
    /* Push messages (Pub/Sub) are delivered even with CLIENT REPLY OFF. */
    if ((c->flags & (CLIENT_REPLY_OFF | CLIENT_REPLY_SKIP)) && !(c->flags & CLIENT_PUSHING)) return 0;
    if (c->conn == NULL) return 0;
    return 1;
}

int clientHasPendingReplies(client *c) {
    return c->bufpos || listLength(c->reply);
}

/* Queues the client for writing in beforeSleep(). Returns C_OK if replies
 * should be accumulated, C_ERR if they must be dropped (fake client, CLIENT
 * REPLY OFF, closing). */
int prepareClientToWrite(client *c) {
    /* The Lua script client: replies accumulate in buf/reply for
     * script_lua.c to read back; it has no connection to write to. Our
     * primary's client: its replies are dropped unless one is forced
     * (REPLCONF ACK, replication.c), decided here before anything else
     * since it comes for every command of the stream. */
    if (c->flags & (CLIENT_SCRIPT | CLIENT_PRIMARY | CLIENT_IO_PENDING_FLAG)) {
        /* An I/O thread is writing or reading c: its buffers are the
         * thread's until the job is done (a PUBLISH to a client whose last
         * reply is being written, say). */
        if (c->flags & CLIENT_IO_PENDING_FLAG) ioThreadsWaitClient(c);
        if (c->flags & CLIENT_SCRIPT) return C_OK;
        if ((c->flags & CLIENT_PRIMARY) && !(c->flags & CLIENT_PRIMARY_FORCE_REPLY)) return C_ERR;
    }
    if (!clientIsWritable(c)) return C_ERR;
    /* Replication links (replication.c): the primary's client gets no
     * replies; a replica's link carries the stream alone, which never
     * goes through its output buffer. */
    if (__builtin_expect(c->repl != NULL, 0) && !replicationClientMayWrite(c)) return C_ERR;
    if (!(c->flags & CLIENT_PENDING_WRITE) && !clientHasPendingReplies(c)) prepareClientToWriteQueue(c);
    return C_OK;
}

/* Queues c on server.clients_pending_write (beforeSleep() writes it). */
void prepareClientToWriteQueue(client *c) {
    if (c->flags & CLIENT_PENDING_WRITE) return;
    c->flags |= CLIENT_PENDING_WRITE;
    c->pending_write_link.value = c;
    listLinkNodeTail(server.clients_pending_write, &c->pending_write_link);
    c->pending_write_node = &c->pending_write_link;
}

/* Gives the client its static reply buffer, PROTO_REPLY_CHUNK_BYTES, on
 * first use: a connection that never gets a reply costs no buffer. The
 * clients cron later resizes it to what the client really uses
 * (clientsCronResizeReplyBuffer). */
static void allocReplyBuffer(client *c) {
    c->buf = zmalloc_usable(PROTO_REPLY_CHUNK_BYTES, &c->buf_usable_size);
    /* A new buffer counts as fully used until the first peak reset. */
    c->buf_peak = c->buf_usable_size;
    c->buf_peak_last_reset_time = server.mstime;
}

static size_t addReplyToBuffer(client *c, const char *s, size_t len) {
    if (listLength(c->reply) > 0) return 0;
    if (c->buf == NULL) allocReplyBuffer(c);
    size_t avail = c->buf_usable_size - c->bufpos;
    if (len > avail) len = avail;
    memcpy(c->buf + c->bufpos, s, len);
    c->bufpos += len;
    if (c->bufpos > c->buf_peak) c->buf_peak = c->bufpos;
    return len;
}

/* Allocates a reply block with room for at least size bytes; the
 * allocator's whole usable size becomes the block's capacity. */
static clientReplyBlock *newReplyBlock(client *c, size_t size) {
    size_t usable;
    clientReplyBlock *b = zmalloc_usable(size + sizeof(clientReplyBlock), &usable);
    b->size = usable - sizeof(clientReplyBlock);
    b->used = 0;
    c->reply_bytes += b->size;
    return b;
}

/* Grows the block of node ln so that it holds at least size bytes. */
static clientReplyBlock *growReplyBlock(client *c, listNode *ln, size_t size) {
    clientReplyBlock *b = listNodeValue(ln);
    size_t usable;
    c->reply_bytes -= b->size;
    b = zrealloc_usable(b, size + sizeof(clientReplyBlock), &usable);
    b->size = usable - sizeof(clientReplyBlock);
    c->reply_bytes += b->size;
    listNodeValue(ln) = b;
    return b;
}

/* Appends to the reply list. Blocks are PROTO_REPLY_CHUNK_BYTES, except
 * the one that follows a deferred-length placeholder: it starts small and
 * doubles up to a chunk. A reply of many short nested aggregates (COMMAND
 * DOCS, XINFO, script results) opens a new block after each placeholder,
 * and full-size blocks would strand most of 16 KiB behind every one. */
static __attribute__((noinline)) void addReplyProtoToList(client *c, const char *s, size_t len) {
    listNode *ln = listLast(c->reply);
    clientReplyBlock *tail = ln ? listNodeValue(ln) : NULL;
    if (tail && tail->size - tail->used < len && tail->size < PROTO_REPLY_CHUNK_BYTES) {
        size_t size = tail->size * 2;
        if (size < tail->used + len) size = tail->used + len;
        if (size > PROTO_REPLY_CHUNK_BYTES) size = PROTO_REPLY_CHUNK_BYTES;
        tail = growReplyBlock(c, ln, size);
        closeClientOnOutputBufferLimitReached(c, 1);
    }
    if (tail) {
        size_t avail = tail->size - tail->used;
        size_t copy = avail >= len ? len : avail;
        memcpy(tail->buf + tail->used, s, copy);
        tail->used += copy;
        s += copy;
        len -= copy;
    }
    if (len) {
        size_t size = PROTO_REPLY_CHUNK_BYTES;
        if (ln && !tail) size = PROTO_REPLY_FIRST_BYTES; /* after a placeholder */
        if (size < len) size = len;
        tail = newReplyBlock(c, size);
        tail->used = len;
        memcpy(tail->buf, s, len);
        listAddNodeTail(c->reply, tail);
        closeClientOnOutputBufferLimitReached(c, 1);
    }
}

/* The free bytes at the end of the reply: in the static buffer while the
 * list is empty, else in the list's last block (none after a deferred-
 * length placeholder). A writer that fits there writes in place and then
 * calls commitReplyTail() with what it wrote. */
static inline char *replyTail(client *c, size_t *room) {
    if (listLength(c->reply) == 0) {
        if (c->buf == NULL) { /* appendReply() allocates it */
            *room = 0;
            return NULL;
        }
        *room = c->buf_usable_size - c->bufpos;
        return c->buf + c->bufpos;
    }
    clientReplyBlock *tail = listNodeValue(listLast(c->reply));
    if (tail == NULL) {
        *room = 0;
        return NULL;
    }
    *room = tail->size - tail->used;
    return tail->buf + tail->used;
}

static inline void commitReplyTail(client *c, size_t n) {
    if (listLength(c->reply) == 0) {
        c->bufpos += n;
        if (c->bufpos > c->buf_peak) c->buf_peak = c->bufpos;
    } else {
        clientReplyBlock *tail = listNodeValue(listLast(c->reply));
        tail->used += n;
    }
}

static void appendReply(client *c, const char *s, size_t len) {
    if (prepareClientToWrite(c) != C_OK) return;
    size_t done = addReplyToBuffer(c, s, len);
    if (done < len) addReplyProtoToList(c, s + done, len - done);
}

/* Adds raw protocol bytes to the reply. */
void addReplyProto(client *c, const char *s, size_t len) {
    appendReply(c, s, len);
}

/* Adds the object as raw protocol (shared replies) or, for an integer
 * encoded string, its decimal text. */
void addReply(client *c, robj *obj) {
    if (sdsEncodedObject(obj)) {
        appendReply(c, objectGetVal(obj), sdslen(objectGetVal(obj)));
    } else if (obj->encoding == OBJ_ENCODING_INT) {
        char buf[32];
        size_t len = ll2string(buf, sizeof(buf), (long)objectGetVal(obj));
        appendReply(c, buf, len);
    } else {
        serverPanic("Wrong obj->encoding in addReply()");
    }
}

/* Adds s as raw protocol and frees it. */
void addReplySds(client *c, sds s) {
    appendReply(c, s, sdslen(s));
    sdsfree(s);
}

#define ERRORSTATS_LIMIT 128                         /* kinds of error a script may add to INFO errorstats */
#define ERRORSTATS_OVERFLOW_ERR "ERRORSTATS_OVERFLOW" /* where further new kinds from scripts are counted */

/* Counts one more error of code `name` in INFO errorstats. The server's
 * own codes are a short fixed list and are always counted under their
 * name. A custom code (one a script chose: `custom` is set) is counted under
 * its name while it is already known or the table holds fewer than
 * ERRORSTATS_LIMIT codes, and under ERRORSTATS_OVERFLOW otherwise, so a
 * script that makes up a code per call cannot grow the table (and INFO)
 * without bound. As in Valkey 8. */
static void incrementErrorCount(const char *name, size_t len, int custom) {
    if (!server.errors) return;
    sds code = sdsnewlen(name, len);
    dictEntry *de = dictFind(server.errors, code);
    if (!de && custom && dictSize(server.errors) >= ERRORSTATS_LIMIT) {
        sdsfree(code);
        code = sdsnew(ERRORSTATS_OVERFLOW_ERR);
        de = dictFind(server.errors, code);
    }
    if (!de) {
        de = dictAddRaw(server.errors, code, NULL);
        dictSetSignedIntegerVal(de, 0);
        code = NULL;
    }
    dictSetSignedIntegerVal(de, dictGetSignedIntegerVal(de) + 1);
    if (code) sdsfree(code);
}

/* Counts an error reply for INFO errorstats and total_error_replies. s is
 * the error text as it was given: with its own "-CODE ..." prefix, or
 * without one (then it is an "ERR"; so is a code with no space in its first
 * 32 bytes). With ERR_REPLY_FLAG_NO_STATS_UPDATE (an error already counted
 * where it arose, e.g. by the command a script ran) only the failed call of
 * the command replying is counted. ERR_REPLY_FLAG_CUSTOM marks a code a
 * script chose (see incrementErrorCount()). Failed calls are otherwise
 * counted by call(), rejected ones at rejection. */
void afterErrorReply(client *c, const char *s, size_t len, int flags) {
    if (flags & ERR_REPLY_FLAG_NO_STATS_UPDATE) {
        if (c->realcmd) c->realcmd->failed_calls++;
        return;
    }
    server.stat_total_error_replies++;
    int custom = (flags & ERR_REPLY_FLAG_CUSTOM) != 0;
    if (len && s[0] == '-') {
        const char *spc = memchr(s, ' ', len < 32 ? len : 32);
        if (spc) {
            incrementErrorCount(s + 1, spc - s - 1, custom);
            return;
        }
    }
    incrementErrorCount("ERR", 3, custom);
}

static void addReplyErrorLength(client *c, const char *s, size_t len) {
    if (!len || s[0] != '-') addReplyProto(c, "-ERR ", 5);
    addReplyProto(c, s, len);
    addReplyProto(c, "\r\n", 2);
}

static void addReplyErrorFlags(client *c, const char *err, int flags) {
    size_t len = strlen(err);
    if (memchr(err, '\r', len) || memchr(err, '\n', len)) {
        sds safe = sdsnewlen(err, len);
        for (size_t j = 0; j < len; j++)
            if (safe[j] == '\r' || safe[j] == '\n') safe[j] = ' ';
        addReplyErrorLength(c, safe, len);
        afterErrorReply(c, safe, len, flags);
        sdsfree(safe);
        return;
    }
    addReplyErrorLength(c, err, len);
    afterErrorReply(c, err, len, flags);
}

/* Sends "-ERR <err>" (or err itself if it carries its own "-CODE") and counts
 * it. Newlines in err would break the protocol: they are replaced. */
void addReplyError(client *c, const char *err) {
    addReplyErrorFlags(c, err, 0);
}

/* Like addReplyError with afterErrorReply() flags (ERR_REPLY_FLAG_*), and
 * frees err. */
void addReplyErrorSdsEx(client *c, sds err, int flags) {
    addReplyErrorFlags(c, err, flags);
    sdsfree(err);
}

/* Like addReplyError, and frees err. */
void addReplyErrorSds(client *c, sds err) {
    addReplyError(c, err);
    sdsfree(err);
}

/* Error replies kept as ready protocol ("-WRONGTYPE ...\r\n"). */
void addReplyErrorObject(client *c, robj *err) {
    addReply(c, err);
    afterErrorReply(c, objectGetVal(err), sdslen(objectGetVal(err)) - 2, 0);
}

/* Replies obj, counting it as an error if it is one ("-..."). */
void addReplyOrErrorObject(client *c, robj *obj) {
    if (sdsEncodedObject(obj) && sdslen(objectGetVal(obj)) && ((char *)objectGetVal(obj))[0] == '-') addReplyErrorObject(c, obj);
    else addReply(c, obj);
}

void addReplyErrorObjectNoStats(client *c, robj *err) {
    addReply(c, err);
}

void addReplyErrorFormat(client *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    sds s = sdscatvprintf(sdsempty(), fmt, ap);
    va_end(ap);
    addReplyError(c, s);
    sdsfree(s);
}

void addReplyErrorArity(client *c) {
    addReplyErrorFormat(c, "wrong number of arguments for '%s' command", c->cmd ? c->cmd->fullname : "unknown");
}

void addReplyErrorExpireTime(client *c) {
    addReplyErrorFormat(c, "invalid expire time in '%s' command", c->cmd->fullname);
}

void addReplyStatusLength(client *c, const char *s, size_t len) {
    addReplyProto(c, "+", 1);
    addReplyProto(c, s, len);
    addReplyProto(c, "\r\n", 2);
}

void addReplyStatus(client *c, const char *status) {
    addReplyStatusLength(c, status, strlen(status));
}

/* Writes "<prefix><ll>\r\n" using the shared headers for small counts. */
static void addReplyLongLongWithPrefix(client *c, long long ll, char prefix) {
    if (ll >= 0 && ll < OBJ_SHARED_BULKHDR_LEN) {
        if (prefix == '*') {
            addReply(c, shared.mbulkhdr[ll]);
            return;
        } else if (prefix == '$') {
            addReply(c, shared.bulkhdr[ll]);
            return;
        } else if (prefix == '%') {
            addReply(c, shared.maphdr[ll]);
            return;
        } else if (prefix == '~') {
            addReply(c, shared.sethdr[ll]);
            return;
        }
    }
    char buf[32];
    addReplyProto(c, buf, respEncodeHeader(buf, prefix, ll));
}

void addReplyLongLong(client *c, long long ll) {
    if (ll == 0) addReply(c, shared.czero);
    else if (ll == 1) addReply(c, shared.cone);
    else addReplyLongLongWithPrefix(c, ll, ':');
}

static void addReplyAggregateLen(client *c, long length, char prefix) {
    serverAssert(length >= 0);
    addReplyLongLongWithPrefix(c, length, prefix);
}

void addReplyArrayLen(client *c, long length) {
    addReplyAggregateLen(c, length, '*');
}

void addReplyMapLen(client *c, long length) {
    if (c->resp == 2) addReplyAggregateLen(c, length * 2, '*');
    else addReplyAggregateLen(c, length, '%');
}

void addReplySetLen(client *c, long length) {
    addReplyAggregateLen(c, length, c->resp == 2 ? '*' : '~');
}

void addReplyAttributeLen(client *c, long length) {
    serverAssert(c->resp >= 3);
    addReplyAggregateLen(c, length, '|');
}

void addReplyPushLen(client *c, long length) {
    addReplyAggregateLen(c, length, c->resp == 2 ? '*' : '>');
}

void addReplyNull(client *c) {
    if (c->resp == 2) addReplyProto(c, "$-1\r\n", 5);
    else addReplyProto(c, "_\r\n", 3);
}

void addReplyNullArray(client *c) {
    if (c->resp == 2) addReplyProto(c, "*-1\r\n", 5);
    else addReplyProto(c, "_\r\n", 3);
}

void addReplyBool(client *c, int b) {
    if (c->resp == 2) addReply(c, b ? shared.cone : shared.czero);
    else addReplyProto(c, b ? "#t\r\n" : "#f\r\n", 4);
}

static void addReplyBulkLen(client *c, size_t len) {
    addReplyLongLongWithPrefix(c, (long long)len, '$');
}

void addReplyBulk(client *c, robj *obj) {
    if (sdsEncodedObject(obj)) addReplyBulkCBuffer(c, objectGetVal(obj), sdslen(objectGetVal(obj)));
    else addReplyBulkLongLong(c, (long)objectGetVal(obj));
}

/* The hot path of every multi-element reply (LRANGE, HGETALL, MGET ...):
 * when the tail of the reply has room for the whole bulk string, it is
 * encoded there in one step; otherwise it goes in pieces. */
void addReplyBulkCBuffer(client *c, const void *p, size_t len) {
    if (prepareClientToWrite(c) != C_OK) return;
    size_t room;
    char *dst = replyTail(c, &room);
    if (room >= len + RESP_BULK_MAX_FRAMING) {
        commitReplyTail(c, respEncodeBulk(dst, p, len));
        return;
    }
    addReplyBulkLen(c, len);
    addReplyProto(c, p, len);
    addReplyProto(c, "\r\n", 2);
}

/* Adds s as a bulk string and frees it. */
void addReplyBulkSds(client *c, sds s) {
    addReplyBulkCBuffer(c, s, sdslen(s));
    sdsfree(s);
}

void addReplyBulkCString(client *c, const char *s) {
    if (s == NULL) addReplyNull(c);
    else addReplyBulkCBuffer(c, s, strlen(s));
}

void addReplyBulkLongLong(client *c, long long ll) {
    char buf[64];
    int len = ll2string(buf, sizeof(buf), ll);
    addReplyBulkCBuffer(c, buf, len);
}

/* Doubles: a bulk string in RESP2, a ',' double in RESP3. */
void addReplyDouble(client *c, double d) {
    char dbuf[MAX_D2STRING_CHARS];
    int dlen = d2string(dbuf, sizeof(dbuf), d);
    if (c->resp == 2) {
        addReplyBulkCBuffer(c, dbuf, dlen);
    } else {
        addReplyProto(c, ",", 1);
        addReplyProto(c, dbuf, dlen);
        addReplyProto(c, "\r\n", 2);
    }
}

/* INCRBYFLOAT-style numbers: always a bulk string, human formatted. */
void addReplyLongDoubleAsHuman(client *c, long double d) {
    char buf[MAX_LONG_DOUBLE_CHARS];
    int len = ld2string(buf, sizeof(buf), d, LD_STR_HUMAN);
    addReplyBulkCBuffer(c, buf, len);
}

void addReplyBigNum(client *c, const char *num, size_t len) {
    if (c->resp == 2) {
        addReplyBulkCBuffer(c, num, len);
    } else {
        addReplyProto(c, "(", 1);
        addReplyProto(c, num, len);
        addReplyProto(c, "\r\n", 2);
    }
}

/* Verbatim string: "=<len>\r\n<ext>:<text>\r\n" in RESP3, bulk in RESP2. */
void addReplyVerbatim(client *c, const char *s, size_t len, const char *ext) {
    if (c->resp == 2) {
        addReplyBulkCBuffer(c, s, len);
        return;
    }
    char buf[32];
    size_t preflen = snprintf(buf, sizeof(buf), "=%zu\r\nxxx:", len + 4);
    memcpy(buf + preflen - 4, ext, 3);
    addReplyProto(c, buf, preflen);
    addReplyProto(c, s, len);
    addReplyProto(c, "\r\n", 2);
}

/* Replies with the subcommand help: a header line naming the command, the
 * given lines, and the HELP entry every container command has. */
void addReplyHelp(client *c, const char **help) {
    sds cmd = sdsnew((char *)objectGetVal(c->argv[0]));
    sdstoupper(cmd);
    int lines = 0;
    while (help[lines]) lines++;
    addReplyArrayLen(c, lines + 3);
    sds head = sdscatprintf(sdsempty(), "%s <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", cmd);
    addReplyStatusLength(c, head, sdslen(head));
    sdsfree(head);
    for (int i = 0; i < lines; i++) addReplyStatus(c, help[i]);
    addReplyStatus(c, "HELP");
    addReplyStatus(c, "    Prints this help.");
    sdsfree(cmd);
}

void addReplySubcommandSyntaxError(client *c) {
    sds cmd = sdsnew((char *)objectGetVal(c->argv[0]));
    sdstoupper(cmd);
    addReplyErrorFormat(c, "unknown subcommand or wrong number of arguments for '%.128s'. Try %s HELP.",
                        (char *)objectGetVal(c->argv[1]), cmd);
    sdsfree(cmd);
}

/* Deferred lengths: a NULL placeholder node in the reply list that
 * setDeferred*Len() turns into the header once the count is known. Every
 * byte after the placeholder goes to the list, which keeps order. */
void *addReplyDeferredLen(client *c) {
    if (prepareClientToWrite(c) != C_OK) return NULL;
    listAddNodeTail(c->reply, NULL);
    return listLast(c->reply);
}

static void setDeferredReply(client *c, void *node, const char *s, size_t len) {
    listNode *ln = node;
    if (ln == NULL) return;
    /* The header goes at the end of the block before the placeholder when
     * it fits there, or fits once that (small) block grows. */
    listNode *prev = ln->prev;
    clientReplyBlock *pb = prev ? listNodeValue(prev) : NULL;
    if (pb && pb->size - pb->used < len && pb->used + len <= PROTO_REPLY_CHUNK_BYTES)
        pb = growReplyBlock(c, prev, pb->used + len);
    if (pb && pb->size - pb->used >= len) {
        memcpy(pb->buf + pb->used, s, len);
        pb->used += len;
        listDelNode(c->reply, ln);
        return;
    }
    clientReplyBlock *b = newReplyBlock(c, len);
    b->used = len;
    memcpy(b->buf, s, len);
    listNodeValue(ln) = b;
}

static void setDeferredAggregateLen(client *c, void *node, long length, char prefix) {
    char lenstr[32];
    setDeferredReply(c, node, lenstr, respEncodeHeader(lenstr, prefix, length));
}

void setDeferredArrayLen(client *c, void *node, long length) {
    setDeferredAggregateLen(c, node, length, '*');
}

void setDeferredMapLen(client *c, void *node, long length) {
    if (c->resp == 2) setDeferredAggregateLen(c, node, length * 2, '*');
    else setDeferredAggregateLen(c, node, length, '%');
}

void setDeferredSetLen(client *c, void *node, long length) {
    setDeferredAggregateLen(c, node, length, c->resp == 2 ? '*' : '~');
}

/* ---------------------------------------------------------------------------
 * Writing replies
 * ------------------------------------------------------------------------- */

static void removeFromPendingWrites(client *c) {
    if (c->pending_write_node) {
        listUnlinkNode(server.clients_pending_write, c->pending_write_node);
        c->pending_write_node = NULL;
    }
    c->flags &= ~CLIENT_PENDING_WRITE;
}

/* Writes as much pending output as the connection takes, using writev over
 * the static buffer and the reply blocks, and releases what went out.
 * fair: stop after NET_MAX_WRITES_PER_EVENT bytes when over maxmemory (so
 * one big reply does not keep others waiting while memory is short).
 * Returns the bytes written; *failed is set when the connection failed
 * (the caller closes the client). Touches only c's reply buffers and
 * connection: the main thread's writeToClient() and an I/O thread's job
 * (clientRunIoJob(), fair 0) both use it. */
static inline ssize_t writeClientReplies(client *c, int fair, int *failed) {
    ssize_t totwritten = 0;
    *failed = 0;
    while (clientHasPendingReplies(c)) {
        struct iovec iov[CLIENT_IOV_MAX];
        int iovcnt = 0;
        size_t iov_bytes = 0;
        size_t offset = c->sentlen;

        if (c->bufpos > 0) {
            iov[iovcnt].iov_base = c->buf + offset;
            iov[iovcnt].iov_len = c->bufpos - offset;
            iov_bytes += iov[iovcnt].iov_len;
            iovcnt++;
            offset = 0;
        }
        listIter li;
        listNode *ln;
        listRewind(c->reply, &li);
        while (iovcnt < CLIENT_IOV_MAX && (ln = listNext(&li))) {
            clientReplyBlock *b = listNodeValue(ln);
            if (b == NULL) break; /* Unfilled deferred length: stop here. */
            if (b->used == 0) continue;
            iov[iovcnt].iov_base = b->buf + offset;
            iov[iovcnt].iov_len = b->used - offset;
            iov_bytes += iov[iovcnt].iov_len;
            iovcnt++;
            offset = 0;
        }
        if (iovcnt == 0) break;

        ssize_t nwritten = iovcnt == 1 ? connWrite(c->conn, iov[0].iov_base, iov[0].iov_len)
                                       : connWritev(c->conn, iov, iovcnt);
        if (nwritten <= 0) {
            if (nwritten == -1 && connGetState(c->conn) != CONN_STATE_CONNECTED) *failed = 1;
            break; /* EAGAIN, or the failure the caller handles */
        }
        totwritten += nwritten;

        /* Consume what was written from the buffer and the blocks. */
        size_t left = nwritten;
        if (c->bufpos > 0) {
            size_t inbuf = c->bufpos - c->sentlen;
            if (left >= inbuf) {
                left -= inbuf;
                c->bufpos = 0;
                c->sentlen = 0;
            } else {
                c->sentlen += left;
                left = 0;
            }
        }
        while (left > 0) {
            ln = listFirst(c->reply);
            clientReplyBlock *b = listNodeValue(ln);
            size_t inblock = b->used - c->sentlen;
            if (left >= inblock) {
                left -= inblock;
                c->reply_bytes -= b->size;
                listDelNode(c->reply, ln);
                c->sentlen = 0;
            } else {
                c->sentlen += left;
                left = 0;
            }
        }
        /* Drop fully sent empty blocks at the head. */
        while (listLength(c->reply) && c->bufpos == 0) {
            ln = listFirst(c->reply);
            clientReplyBlock *b = listNodeValue(ln);
            if (b == NULL || b->used != 0) break;
            c->reply_bytes -= b->size;
            listDelNode(c->reply, ln);
        }
        if ((size_t)nwritten < iov_bytes) break; /* Socket buffer full. */
        /* Be fair to other clients when memory is tight. */
        if (fair && totwritten > NET_MAX_WRITES_PER_EVENT && server.maxmemory != 0 &&
            zmalloc_used_memory() > server.maxmemory && !(c->flags & CLIENT_REPLICA))
            break;
    }
    return totwritten;
}

/* Accounts for totwritten bytes just written to c (stats, idle time,
 * maxmemory-clients). Main thread. */
static inline void clientWroteBytes(client *c, ssize_t totwritten) {
    /* The replication stream counts apart (total_net_repl_output_bytes). */
    if ((c->flags & CLIENT_REPLICA) && !(c->flags & CLIENT_MONITOR)) server.stat_net_repl_output_bytes += totwritten;
    else server.stat_net_output_bytes += totwritten;
    c->net_output_bytes += totwritten;
    if (totwritten > 0) {
        /* Our ACKs to the primary are no sign that the primary is alive:
         * only what it sends counts (replication.c's timeout). */
        if (!(c->flags & CLIENT_PRIMARY)) c->lastinteraction = server.unixtime;
        updateClientMemUsage(c);
    }
}

/* Writes as much pending output as the connection takes (see
 * writeClientReplies()). Returns C_ERR if the client was freed (the caller
 * must not touch it), C_OK otherwise. Main thread. */
int writeToClient(client *c, int handler_installed) {
    int failed;
    server.stat_total_writes_processed++;
    ssize_t totwritten = writeClientReplies(c, 1, &failed);
    if (failed) {
        serverLog(LL_VERBOSE, "Error writing to client: %s", connGetLastError(c->conn));
        freeClientAsync(c);
        return C_ERR;
    }
    clientWroteBytes(c, totwritten);

    if (!clientHasPendingReplies(c)) {
        c->sentlen = 0;
        if (handler_installed) connSetWriteHandler(c->conn, NULL);
        if (c->flags & CLIENT_CLOSE_AFTER_REPLY) {
            freeClientAsync(c);
            return C_ERR;
        }
    }
    return C_OK;
}

static void sendReplyToClient(connection *conn) {
    client *c = connGetPrivateData(conn);
    if (server.io_threads_num > 1 && ioThreadsHandleWritable(c)) return;
    writeToClient(c, 1);
}

/* Called from beforeSleep(): writes the output of every client that got
 * replies in this event-loop iteration. Returns how many were processed. */
int handleClientsWithPendingWrites(void) {
    int processed = 0;
    /* Inside a busy script or a load: what I/O threads finished meanwhile
     * is served too (beforeSleep() does that otherwise). */
    if (server.io_threads_num > 1) ioThreadsServeWhileBusy();
    /* The replication stream of this iteration goes to the replicas'
     * output buffers in one piece each, so that they are written too. */
    replicationFlushReplicas();
    listIter li;
    listNode *ln;
    listRewind(server.clients_pending_write, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        removeFromPendingWrites(c);
        if (c->flags & CLIENT_CLOSE_ASAP) continue;
        processed++;
        if (server.io_threads_num > 1 && ioThreadsHandleWritable(c)) continue;
        if (writeToClient(c, 0) == C_ERR) continue;
        if (clientHasPendingReplies(c)) {
            /* The socket is full: let the event loop tell us when to go on.
             * With a barrier the write goes before reading more requests. */
            connSetWriteHandlerWithBarrier(c->conn, sendReplyToClient, 1);
        }
    }
    return processed;
}

/* ---------------------------------------------------------------------------
 * Output buffer limits
 * ------------------------------------------------------------------------- */

/* The memory of c's output buffer, as client-output-buffer-limit and
 * CLIENT LIST's omem count it: the reply list, or for a replica its share
 * of the replication buffer (replication.c). */
unsigned long getClientOutputBufferMemoryUsage(client *c) {
    if (c->flags & CLIENT_IO_PENDING_FLAG) ioThreadsWaitClient(c);
    if (__builtin_expect(c->repl != NULL, 0) && getClientType(c) == CLIENT_TYPE_REPLICA)
        return replicationReplicaOutputMemory(c);
    return c->reply_bytes + sizeof(listNode) * listLength(c->reply);
}

int getClientType(client *c) {
    if (c->flags & CLIENT_PRIMARY) return CLIENT_TYPE_PRIMARY;
    if ((c->flags & CLIENT_REPLICA) && !(c->flags & CLIENT_MONITOR)) return CLIENT_TYPE_REPLICA;
    if (c->flags & CLIENT_PUBSUB) return CLIENT_TYPE_PUBSUB;
    return CLIENT_TYPE_NORMAL;
}

/* The connected client with this id, or NULL. */
client *lookupClientByID(uint64_t id) {
    dictEntry *de = dictFind(server.clients_index, (void *)(uintptr_t)id);
    return de ? dictGetVal(de) : NULL;
}

int getClientTypeByName(const char *name) {
    if (!strcasecmp(name, "normal")) return CLIENT_TYPE_NORMAL;
    if (!strcasecmp(name, "slave") || !strcasecmp(name, "replica")) return CLIENT_TYPE_REPLICA;
    if (!strcasecmp(name, "pubsub")) return CLIENT_TYPE_PUBSUB;
    if (!strcasecmp(name, "master") || !strcasecmp(name, "primary")) return CLIENT_TYPE_PRIMARY;
    return -1;
}

const char *getClientTypeName(int class) {
    switch (class) {
    case CLIENT_TYPE_NORMAL: return "normal";
    case CLIENT_TYPE_REPLICA: return "slave";
    case CLIENT_TYPE_PUBSUB: return "pubsub";
    case CLIENT_TYPE_PRIMARY: return "master";
    default: return NULL;
    }
}

/* Returns 1 if the client passed its hard limit, or its soft limit for
 * longer than allowed. Updates the soft-limit timer. */
int checkClientOutputBufferLimits(client *c) {
    int class = getClientType(c);
    if (class == CLIENT_TYPE_PRIMARY) class = CLIENT_TYPE_NORMAL;
    unsigned long used = getClientOutputBufferMemoryUsage(c);
    clientBufferLimitsConfig *lim = &server.client_obuf_limits[class];
    int hard = lim->hard_limit_bytes && used >= lim->hard_limit_bytes;
    int soft = lim->soft_limit_bytes && used >= lim->soft_limit_bytes;
    if (soft) {
        if (c->obuf_soft_limit_reached_time == 0) {
            c->obuf_soft_limit_reached_time = server.unixtime;
            soft = 0;
        } else if (server.unixtime - c->obuf_soft_limit_reached_time <= lim->soft_limit_seconds) {
            soft = 0;
        }
    } else {
        c->obuf_soft_limit_reached_time = 0;
    }
    return hard || soft;
}

/* Closes a client over its output limits: with async, schedules it (safe
 * while building a reply); without, frees it at once (cron only). Returns 1
 * if the client was closed or scheduled for closing. */
int closeClientOnOutputBufferLimitReached(client *c, int async) {
    /* A replica's output is its share of the replication buffer, not
     * its reply list (which stays empty). */
    if (!c->conn || c->flags & CLIENT_CLOSE_ASAP) return 0;
    if (c->reply_bytes == 0 && getClientType(c) != CLIENT_TYPE_REPLICA) return 0;
    if (checkClientOutputBufferLimits(c)) {
        sds info = catClientInfoString(sdsempty(), c);
        if (async) {
            serverLog(LL_WARNING, "Client %s scheduled to be closed ASAP for overcoming of output buffer limits.",
                      info);
        } else {
            serverLog(LL_WARNING, "Client %s closed for overcoming of output buffer limits.", info);
        }
        sdsfree(info);
        server.stat_client_outbuf_limit_disconnections++;
        if (async) freeClientAsync(c);
        else freeClient(c);
        return 1;
    }
    return 0;
}

/* ---------------------------------------------------------------------------
 * Reading and parsing requests
 *
 * The parse functions take `offthread`, always a constant: 0 on the main
 * thread, 1 in an I/O thread's job (clientRunIoJob()). With 1 they read no
 * server state a command may change (the limits come in c->io, the access
 * time of argument objects is stamped by the main thread when the command
 * runs) and record a protocol error in c->io.q instead of replying. They
 * are inlined into both kinds of caller, so the main thread's path is the
 * same code as without I/O threads.
 * ------------------------------------------------------------------------- */

/* The client sent what the protocol does not allow: logged (at WARNING
 * for our primary, whose link then drops at once and whose bytes are not
 * applied, as replication.c explains; else only at verbose level) and the
 * client is closed once its error reply is written. */
static void setProtocolError(const char *errstr, client *c) {
    int primary = (c->flags & CLIENT_PRIMARY) != 0;
    if (server.verbosity <= LL_VERBOSE || primary) {
        sds info = catClientInfoString(sdsempty(), c);
        char buf[256];
        size_t avail = c->querybuf ? sdslen(c->querybuf) - c->qb_pos : 0;
        size_t n = avail < 64 ? avail : 64;
        sds q = sdscatrepr(sdsempty(), n ? c->querybuf + c->qb_pos : "", n);
        snprintf(buf, sizeof(buf), "Query buffer during protocol error: '%s'", q);
        /* The parser's errors are reply texts: the log has the reason alone. */
        if (!strncmp(errstr, "Protocol error: ", 16)) errstr += 16;
        serverLog(primary ? LL_WARNING : LL_VERBOSE, "Protocol error (%s) from client: %s. %s", errstr, info, buf);
        sdsfree(q);
        sdsfree(info);
    }
    c->flags |= CLIENT_CLOSE_AFTER_REPLY;
    if (primary) replicationPrimaryStreamBroken(c); /* it gets no replies to wait for */
}

/* Most argument slots a multibulk count reserves before its arguments
 * arrive: a count is only a claim ("*2147483647" is 13 bytes), so bigger
 * requests get their slots as their arguments come (argvRoomForArg). */
#define PROTO_ARGV_PREALLOC 1024

static void ensureArgvCapacity(client *c, int n) {
    if (n <= c->argv_len) return;
    c->argv_len = n;
    c->argv = zrealloc(c->argv, sizeof(robj *) * c->argv_len);
}

/* Makes room in argv for one more argument of a multibulk request, whose
 * parser still expects mb.args_left after it: doubles argv, up to what the
 * request can still fill. */
static inline void argvRoomForArg(client *c) {
    if (c->argc < c->argv_len) return;
    long long want = c->argv_len ? (long long)c->argv_len * 2 : 1;
    long long total = c->argc + 1 + c->mb.args_left;
    ensureArgvCapacity(c, (int)(want < total ? want : total));
}

/* ---------------------------------------------------------------------------
 * The queue of commands an I/O thread parsed (c->io.q, io_threads.h)
 * ------------------------------------------------------------------------- */

/* Most commands one job parses ahead: the rest of a long pipeline waits in
 * the query buffer for the main thread, so the queue stays small. */
#define PARSED_QUEUE_MAX_CMDS 1024

/* Returns room for argc argument objects of one more command, whose entry
 * is added with len_sum. I/O thread (or main thread while it owns c). */
static robj **parsedQueuePush(client *c, int argc, size_t len_sum) {
    parsedCommandQueue *q = &c->io.q;
    if (q->count == q->cmds_cap) {
        q->cmds_cap = q->cmds_cap ? q->cmds_cap * 2 : 16;
        q->cmds = zrealloc(q->cmds, sizeof(parsedCommand) * q->cmds_cap);
    }
    if (q->nargs + argc > q->args_cap) {
        int cap = q->args_cap ? q->args_cap * 2 : 64;
        while (cap < q->nargs + argc) cap *= 2;
        q->args = zrealloc(q->args, sizeof(robj *) * cap);
        q->args_cap = cap;
    }
    parsedCommand *pc = &q->cmds[q->count++];
    pc->argc = argc;
    pc->first = q->nargs;
    pc->len_sum = len_sum;
    q->nargs += argc;
    return q->args + pc->first;
}

/* Ends the parse of a job with a protocol error: an entry the main thread
 * turns into the reply and the close, after the commands before it ran.
 * reply is the error text, log the reason setProtocolError() logs; both
 * NULL take the parser's own message. I/O thread. */
static void parsedQueuePushError(client *c, const char *reply, const char *log) {
    parsedCommandQueue *q = &c->io.q;
    if (reply == NULL) {
        memcpy(q->err_buf, c->mb.error, sizeof(q->err_buf));
        q->err_buf[sizeof(q->err_buf) - 1] = '\0';
        reply = log = q->err_buf;
    }
    q->err_reply = reply;
    q->err_log = log;
    parsedQueuePush(c, 0, 0);
}

/* The number of commands waiting in c's queue. */
int parsedQueueLength(client *c) {
    return c->io.q.count - c->io.q.next;
}

/* A key hint for prefetching (io_threads.c): argv[1] of the j-th waiting
 * command, or NULL. Main thread. */
robj *parsedQueueKeyHint(client *c, int j) {
    parsedCommandQueue *q = &c->io.q;
    if (j < 0 || q->next + j >= q->count) return NULL;
    parsedCommand *pc = &q->cmds[q->next + j];
    return pc->argc >= 2 ? q->args[pc->first + 1] : NULL;
}

/* Empties the queue once every command in it has run, giving back big
 * arrays (a long pipeline) so that an idle client keeps little. */
static void parsedQueueReset(parsedCommandQueue *q) {
    q->count = q->next = q->nargs = 0;
    q->err_reply = q->err_log = NULL;
    if (q->args_cap > 1024) {
        zfree(q->args);
        zfree(q->cmds);
        q->args = NULL;
        q->cmds = NULL;
        q->args_cap = q->cmds_cap = 0;
    }
}

/* Frees the commands still waiting and the queue's arrays (the client is
 * being freed). Main thread. */
void parsedQueueRelease(client *c) {
    parsedCommandQueue *q = &c->io.q;
    for (int j = q->next; j < q->count; j++) {
        parsedCommand *pc = &q->cmds[j];
        for (int k = 0; k < pc->argc; k++) decrRefCount(q->args[pc->first + k]);
    }
    zfree(q->cmds);
    zfree(q->args);
    memset(q, 0, sizeof(*q));
}

/* Moves the next waiting command into argv (empty: its last command ended)
 * and stamps its arguments' access time, as a fresh parse would have.
 * Returns 1, or 0 for the protocol error entry, which it replies and turns
 * into a close after the reply, as processInputBuffer() would have done at
 * that point of the pipeline. Main thread. */
static int parsedQueueTake(client *c) {
    parsedCommandQueue *q = &c->io.q;
    parsedCommand *pc = &q->cmds[q->next++];
    if (pc->argc == 0) {
        addReplyError(c, q->err_reply);
        setProtocolError(q->err_log, c);
        return 0;
    }
    ensureArgvCapacity(c, pc->argc);
    for (int j = 0; j < pc->argc; j++) {
        robj *o = q->args[pc->first + j];
        initObjectAccess(o);
        c->argv[j] = o;
    }
    c->argc = pc->argc;
    c->argv_len_sum = pc->len_sum;
    return 1;
}

/* ---------------------------------------------------------------------------
 * Parsing
 * ------------------------------------------------------------------------- */

/* Inline protocol: one line of space-separated words, quotes allowed.
 * Returns C_OK when a command is ready in argv, C_ERR if more bytes are
 * needed or a protocol error was set (offthread: recorded in c->io.q). */
static inline __attribute__((always_inline)) int processInlineBuffer(client *c, int offthread) {
    char *start = c->querybuf + c->qb_pos;
    size_t avail = sdslen(c->querybuf) - c->qb_pos;
    char *newline = memchr(start, '\n', avail);
    if (newline == NULL) {
        if (avail > PROTO_INLINE_MAX_SIZE) {
            if (offthread) {
                parsedQueuePushError(c, "Protocol error: too big inline request", "too big inline request");
            } else {
                addReplyError(c, "Protocol error: too big inline request");
                setProtocolError("too big inline request", c);
            }
        }
        return C_ERR;
    }
    size_t linelen = newline - start;
    if (linelen && start[linelen - 1] == '\r') linelen--;
    /* A primary only sends multibulk commands, and empty lines to keep
     * the link alive: a command line means the stream is out of step.
     * (Our primary's link is never served off the main thread.) */
    if (!offthread && linelen && (c->flags & CLIENT_PRIMARY)) {
        serverLog(LL_WARNING, "WARNING: Receiving inline protocol from primary, primary stream corruption? Closing the "
                              "primary connection and discarding the cached primary.");
        setProtocolError("Master using the inline protocol. Desync?", c);
        return C_ERR;
    }

    int argc;
    sds line = sdsnewlen(start, linelen);
    sds *argv = sdssplitargs(line, &argc);
    sdsfree(line);
    if (argv == NULL) {
        if (offthread) {
            parsedQueuePushError(c, "Protocol error: unbalanced quotes in request",
                                 "unbalanced quotes in inline request");
        } else {
            addReplyError(c, "Protocol error: unbalanced quotes in request");
            setProtocolError("unbalanced quotes in inline request", c);
        }
        return C_ERR;
    }
    c->qb_pos += (newline - start) + 1;
    ensureArgvCapacity(c, argc);
    c->argc = 0;
    c->argv_len_sum = 0;
    for (int j = 0; j < argc; j++) {
        c->argv[c->argc++] = offthread ? createObjectUnstamped(OBJ_STRING, argv[j]) : createObject(OBJ_STRING, argv[j]);
        c->argv_len_sum += sdslen(argv[j]);
    }
    zfree(argv);
    return C_OK;
}

/* A string object for a parsed argument: the last spare argument object
 * refilled when the bytes fit in it (see freeClientArgv), else a new one.
 * Off the main thread its access time is left for parsedQueueTake(). */
static inline __attribute__((always_inline)) robj *createArgObject(client *c, const char *arg, size_t len,
                                                                    int offthread) {
    if (c->spare_argc) {
        robj *o = c->spare_args[c->spare_argc - 1];
        sds s = objectGetVal(o);
        if (len <= sdsalloc(s)) {
            c->spare_argc--;
            memcpyShort(s, arg, len);
            s[len] = '\0';
            sdssetlen(s, len);
            if (!offthread) initObjectAccess(o); /* off-thread: stamped when the command runs */
            return o;
        }
    }
    return offthread ? createStringObjectUnstamped(arg, len) : createStringObject(arg, len);
}

/* Most arguments of a request that processWholeRequest() takes. */
#define PROTO_WHOLE_REQUEST_MAX_ARGS 16

/* The usual pipelined request, complete in the query buffer with a few
 * arguments, none big: parsed in one pass (respParseRequest()) into argv,
 * or off the main thread straight into the queue. Returns 1 when it is
 * there, 0 when processMultibulkBuffer() must take it event by event
 * (nothing consumed). */
static inline __attribute__((always_inline)) int processWholeRequest(client *c, int offthread) {
    const char *args[PROTO_WHOLE_REQUEST_MAX_ARGS];
    size_t lens[PROTO_WHOLE_REQUEST_MAX_ARGS];
    int n = respParseRequest(&c->mb, c->querybuf, sdslen(c->querybuf), &c->qb_pos, args, lens,
                             PROTO_WHOLE_REQUEST_MAX_ARGS);
    if (n == 0) return 0;
    size_t sum = 0;
    for (int j = 0; j < n; j++) sum += lens[j];
    robj **argv;
    if (offthread) {
        argv = parsedQueuePush(c, n, sum);
    } else {
        if (c->argc) freeClientArgv(c);
        ensureArgvCapacity(c, n);
        argv = c->argv;
        c->argc = n;
        c->argv_len_sum = sum;
    }
    for (int j = 0; j < n; j++) argv[j] = createArgObject(c, args[j], lens[j], offthread);
    return 1;
}

/* RESP multibulk: "*<argc>\r\n" then argc times "$<len>\r\n<bytes>\r\n",
 * parsed by resp.c; this turns its events into argument objects. Returns
 * C_OK when argv is complete (or the request was empty), C_ERR if more bytes
 * are needed or a protocol error was set. Progress is kept across calls.
 * Off the main thread the limits come from c->mb as the job set them, and
 * a whole request may go straight to the queue (then argv stays empty). */
static inline __attribute__((always_inline)) int processMultibulkBuffer(client *c, int offthread) {
    if (!offthread) {
        c->mb.max_bulk_len = server.proto_max_bulk_len;
        c->mb.unauthenticated = authRequired(c);
    }
    if (processWholeRequest(c, offthread)) return C_OK;
    while (1) {
        long long n;
        const char *arg;
        switch (respParseMultibulk(&c->mb, c->querybuf, sdslen(c->querybuf), &c->qb_pos, &n, &arg)) {
        case RESP_PARSE_NEED_MORE: return C_ERR;
        case RESP_PARSE_ERROR:
            if (offthread) {
                parsedQueuePushError(c, NULL, NULL);
            } else {
                addReplyError(c, c->mb.error);
                setProtocolError(c->mb.error, c);
            }
            return C_ERR;
        case RESP_PARSE_COUNT:
            if (n <= 0) return C_OK; /* Empty request: nothing to run. */
            freeClientArgv(c);
            ensureArgvCapacity(c, n < PROTO_ARGV_PREALLOC ? (int)n : PROTO_ARGV_PREALLOC);
            c->argv_len_sum = 0;
            break;
        case RESP_PARSE_BULK_LEN:
            if (n >= PROTO_MBULK_BIG_ARG && (size_t)n + 2 >= sdslen(c->querybuf) - c->qb_pos &&
                (offthread || !(c->flags & CLIENT_PRIMARY))) {
                /* Big argument: move it to the start of a query buffer of
                 * the client's own, so that once complete the buffer itself
                 * becomes the argument. The buffer grows as the bytes
                 * arrive (readQueryFromClient), never to the announced
                 * length ahead of them. Not for our primary: its query
                 * buffer keeps the command's bytes before the argument
                 * until they are proxied (replicationPrimaryProcessed()),
                 * so the buffer never becomes the argument alone and the
                 * argument is copied, as the proxying copies it anyway. */
                if (c->querybuf == shared_qb) {
                    c->querybuf = sdsnewlen(c->querybuf + c->qb_pos, sdslen(c->querybuf) - c->qb_pos);
                } else {
                    sdsrange(c->querybuf, c->qb_pos, -1);
                }
                c->qb_pos = 0;
            }
            break;
        case RESP_PARSE_ARG:
            argvRoomForArg(c);
            if (arg == c->querybuf && c->querybuf != shared_qb && n >= PROTO_MBULK_BIG_ARG &&
                sdslen(c->querybuf) == (size_t)n + 2) {
                /* Steal the buffer: it holds exactly this argument. */
                sdssetlen(c->querybuf, n);
                c->querybuf[n] = '\0';
                c->argv[c->argc++] = offthread ? createObjectUnstamped(OBJ_STRING, c->querybuf)
                                               : createObject(OBJ_STRING, c->querybuf);
                c->querybuf = sdsempty();
                c->qb_pos = 0;
            } else {
                c->argv[c->argc++] = createArgObject(c, arg, n, offthread);
            }
            c->argv_len_sum += n;
            if (c->mb.args_left == 0) return C_OK;
            break;
        }
    }
}

/* Parses the next request in the client's query buffer (from c->qb_pos):
 * inline or multibulk, as its first byte says. Returns C_OK when argv holds
 * a complete request (argc 0 for an empty one), C_ERR when more bytes are
 * needed or a protocol error was replied and CLIENT_CLOSE_AFTER_REPLY set.
 * Parses only: processInputBuffer() runs what it returns; the fuzz target
 * fuzz/fuzz_request.c drives it alone. Event loop thread. */
int parseClientRequest(client *c) {
    if (!c->reqtype) c->reqtype = c->querybuf[c->qb_pos] == '*' ? PROTO_REQ_MULTIBULK : PROTO_REQ_INLINE;
    return c->reqtype == PROTO_REQ_INLINE ? processInlineBuffer(c, 0) : processMultibulkBuffer(c, 0);
}

/* Whether the multibulk request at c->qb_pos is all in the buffer (or ends
 * in a protocol error), found by running the parser over a copy of its
 * state: nothing is consumed or allocated. */
static int multibulkRequestIsWhole(client *c) {
    respMultibulkParser p = c->mb;
    size_t pos = c->qb_pos;
    while (1) {
        long long n;
        const char *arg;
        switch (respParseMultibulk(&p, c->querybuf, sdslen(c->querybuf), &pos, &n, &arg)) {
        case RESP_PARSE_NEED_MORE: return 0;
        case RESP_PARSE_ERROR: return 1;
        case RESP_PARSE_COUNT:
            if (n <= 0) return 1;
            break;
        case RESP_PARSE_BULK_LEN: break;
        case RESP_PARSE_ARG:
            if (p.args_left == 0) return 1;
            break;
        }
    }
}

/* Moves the request just parsed into argv to the queue and readies the
 * parser for the next one. */
static void parsedQueueTakeArgv(client *c) {
    if (c->argc) {
        robj **dst = parsedQueuePush(c, c->argc, c->argv_len_sum);
        memcpy(dst, c->argv, sizeof(robj *) * c->argc);
        c->argc = 0;
        c->argv_len_sum = 0;
    }
    c->reqtype = 0;
    respParserReset(&c->mb);
}

/* I/O thread: parses every whole request in c's query buffer into c->io.q
 * (the queue is empty when a job starts: see ioThreadsHandleReadable()).
 * While requests are queued, a following one is parsed only if it is
 * whole, so that a request begun but not finished never sits in argv
 * (the main thread's, once it runs the queue) next to queued ones; what
 * is left then is marked rest_incomplete, for processInputBuffer() to
 * leave to the next read. An unauthenticated client gets one request per
 * job: AUTH changes the limits of the next. */
static void parseQueryBufferOffThread(client *c) {
    parsedCommandQueue *q = &c->io.q;
    c->io.rest_incomplete = 0;
    c->mb.max_bulk_len = c->io.max_bulk_len;
    c->mb.unauthenticated = c->io.unauthenticated;
    while (c->qb_pos < sdslen(c->querybuf)) {
        int queued = q->count - q->next;
        if (queued && (c->io.unauthenticated || queued >= PARSED_QUEUE_MAX_CMDS)) break;
        if (!c->reqtype) c->reqtype = c->querybuf[c->qb_pos] == '*' ? PROTO_REQ_MULTIBULK : PROTO_REQ_INLINE;
        if (queued && c->reqtype == PROTO_REQ_MULTIBULK) {
            if (processWholeRequest(c, 1)) {
                c->reqtype = 0;
                continue;
            }
            if (!multibulkRequestIsWhole(c)) {
                c->io.rest_incomplete = 1;
                break;
            }
        } else if (queued && !memchr(c->querybuf + c->qb_pos, '\n', sdslen(c->querybuf) - c->qb_pos) &&
                   sdslen(c->querybuf) - c->qb_pos <= PROTO_INLINE_MAX_SIZE) {
            c->io.rest_incomplete = 1; /* an inline line not ended yet */
            break;
        }
        int r = c->reqtype == PROTO_REQ_INLINE ? processInlineBuffer(c, 1) : processMultibulkBuffer(c, 1);
        if (r != C_OK) {
            /* A protocol error ends the parse (its entry is queued); else
             * the request waits for more bytes. */
            if (q->count == q->next || q->cmds[q->count - 1].argc != 0) c->io.rest_incomplete = 1;
            break;
        }
        parsedQueueTakeArgv(c);
    }
}

/* Runs the command in argv and prepares for the next one. Returns C_ERR if
 * the client was freed or must stop processing input. */
static int processCommandAndResetClient(client *c) {
    client *old = server.current_client;
    server.current_client = c;
    int deadclient = 0;
    processCommand(c);
    if (server.current_client == NULL) deadclient = 1;
    server.current_client = old;
    if (deadclient) return C_ERR;
    if (!(c->flags & CLIENT_BLOCKED)) resetClient(c);
    return C_OK;
}

/* Keys looked up ahead at most, per batch: lines fetched for many more
 * would be evicted again before their command runs. */
#define PIPELINE_PREFETCH_MAX 64
/* A keyspace smaller than this (in keys) stays in the caches by itself. */
#define PIPELINE_PREFETCH_MIN_KEYS 65536
/* Longer arguments are hardly keys (and costly to hash twice). */
#define PIPELINE_PREFETCH_MAX_KEYLEN 256

/* Reads "<prefix><digits>\r\n" at buf[*pos] for prefetchPipelineKeys().
 * Returns the number with *pos past the line, or -1 (anything unusual or
 * incomplete; the real parser will have its say on it). */
static long long peekRespLength(const char *buf, size_t len, size_t *pos, char prefix) {
    size_t i = *pos + 1;
    if (*pos >= len || buf[*pos] != prefix) return -1;
    long long v = 0;
    while (i < len && buf[i] >= '0' && buf[i] <= '9' && i - *pos <= 10) v = v * 10 + (buf[i++] - '0');
    if (i == *pos + 1 || i + 1 >= len || buf[i] != '\r' || buf[i + 1] != '\n') return -1;
    *pos = i + 2;
    return v;
}

/* The command prefetchPipelineKeys() can take key positions from: the one
 * the client ran last (pipelines repeat a command), if it is a plain
 * top-level command whose keys sit at fixed positions. */
static struct serverCommand *prefetchKnownCommand(client *c) {
    struct serverCommand *cmd = c->lastcmd;
    if (cmd == NULL || cmd->parent || cmd->subcommands_dict || (cmd->flags & CMD_MOVABLE_KEYS)) return NULL;
    return cmd;
}

/* With several keys to look up in the complete requests of the query buffer
 * and a keyspace too big for the caches, each lookup costs a few dependent
 * cache misses (bucket, entry, value), paid one after the other. This looks
 * ahead, without consuming anything, at the keys of every complete
 * multibulk request (the positions of the client's last command when the
 * request names it, else the first argument, the key of most commands) and
 * has dictPrefetch() start fetching all of them at once, so that the misses
 * overlap. Returns the query buffer offset of the first request left out
 * because the batch was full (to be prefetched when the pipeline gets
 * there), or SIZE_MAX. A hint only: an argument that is not a key, or a
 * command that selects another db, just makes a prefetch useless. (The
 * commands an I/O thread parsed are prefetched by io_threads.c, across
 * the clients of a batch.) */
static size_t prefetchPipelineKeys(client *c) {
    hashtable *keyspace = kvstoreOnlyTable(c->db->keys); /* NULL when split by slot (cluster mode) */
    if (keyspace == NULL || hashtableSize(keyspace) < PIPELINE_PREFETCH_MIN_KEYS) return SIZE_MAX;
    struct serverCommand *known = prefetchKnownCommand(c);
    size_t known_len = known ? strlen(known->name) : 0;
    const char *buf = c->querybuf, *keys[PIPELINE_PREFETCH_MAX];
    size_t len = sdslen(c->querybuf), pos = c->qb_pos, keylens[PIPELINE_PREFETCH_MAX];
    size_t resume = SIZE_MAX; /* where the next batch starts, if the cap cut this one */
    int n = 0;
    while (pos < len) {
        if (n == PIPELINE_PREFETCH_MAX) {
            resume = pos;
            break;
        }
        long long argc = peekRespLength(buf, len, &pos, '*');
        if (argc < 2) break;
        long long first = 1, last = 1, step = 1;
        for (long long j = 0; j < argc; j++) {
            long long bulklen = peekRespLength(buf, len, &pos, '$');
            if (bulklen < 0 || (size_t)bulklen + 2 > len - pos) goto scanned;
            if (j == 0 && known && (size_t)bulklen == known_len && !strncasecmp(buf + pos, known->name, known_len)) {
                first = known->key.first;
                last = known->key.last < 0 ? argc + known->key.last : known->key.last;
                step = known->key.step > 0 ? known->key.step : 1;
                if (first <= 0) last = -1; /* a command without keys */
            }
            if (j >= first && j <= last && (j - first) % step == 0 && n < PIPELINE_PREFETCH_MAX &&
                bulklen <= PIPELINE_PREFETCH_MAX_KEYLEN) {
                keys[n] = buf + pos;
                keylens[n++] = bulklen;
            }
            pos += bulklen + 2;
        }
    }
scanned:
    if (n < 2) return resume; /* a single lookup has nothing to overlap with */
    uint64_t hashes[PIPELINE_PREFETCH_MAX];
    for (int j = 0; j < n; j++) hashes[j] = dictGenHashFunction(keys[j], keylens[j]);
    hashtablePrefetch(keyspace, hashes, n);
    return resume;
}

/* Runs the commands an I/O thread parsed for c, in order, as
 * processInputBuffer() runs what it parses. Returns C_ERR if c was freed
 * (or must stop), C_OK otherwise, with commands left in the queue if c
 * blocked or is closing. */
static int processParsedQueue(client *c) {
    parsedCommandQueue *q = &c->io.q;
    while (q->next < q->count) {
        if (c->flags & (CLIENT_BLOCKED | CLIENT_CLOSE_AFTER_REPLY | CLIENT_CLOSE_ASAP)) return C_OK;
        if (!parsedQueueTake(c)) break; /* the protocol error: replied, closing after the reply */
        if (processCommandAndResetClient(c) == C_ERR) return C_ERR;
        updateClientMemUsage(c);
    }
    parsedQueueReset(q);
    return C_OK;
}

/* 1 if c has input not run yet: commands an I/O thread parsed, or bytes
 * in its query buffer (blocked.c resumes such a client when it unblocks). */
int clientHasUnprocessedInput(client *c) {
    return c->io.q.next < c->io.q.count || (c->querybuf && sdslen(c->querybuf) > c->qb_pos);
}

/* Parses and executes every complete request in the query buffer, after
 * the commands an I/O thread parsed ahead (c->io.q). While it runs,
 * server.pipeline_clock is armed (see call()): each command starts at the
 * clock reading that ended the one before it. It is disarmed on every way
 * out, so that no command run from elsewhere (after a sleep) starts at a
 * stale reading; a nested call disarms it for the rest of the outer one. */
void processInputBuffer(client *c) {
    if (__builtin_expect(c->io.q.next < c->io.q.count || c->io.rest_incomplete, 0)) {
        if (c->io.q.next < c->io.q.count) {
            server.pipeline_clock = -1;
            int r = processParsedQueue(c);
            server.pipeline_clock = 0;
            if (r == C_ERR || c->io.q.next < c->io.q.count) return;
        }
        /* The thread saw that the rest is not a whole request yet: the
         * next read (a thread's too) takes it from there. */
        if (c->io.rest_incomplete) return;
    }
    if (c->querybuf == NULL) return; /* nothing left over from an earlier read */
    /* Our primary's stream waits while a script is busy (replication.c). */
    if ((c->flags & CLIENT_PRIMARY) && replicationPrimaryMustWait()) return;
    server.pipeline_clock = -1;
    size_t next_prefetch = c->reqtype ? SIZE_MAX : c->qb_pos;
    while (c->qb_pos < sdslen(c->querybuf)) {
        if (c->flags & (CLIENT_BLOCKED | CLIENT_CLOSE_AFTER_REPLY | CLIENT_CLOSE_ASAP)) break;
        if (c->qb_pos >= next_prefetch && !c->reqtype) next_prefetch = prefetchPipelineKeys(c);

        if (parseClientRequest(c) != C_OK) break;

        if (c->argc == 0) {
            resetClient(c);
        } else {
            /* Our primary's commands are checked before they run: a bad
             * one drops the link and is not counted as applied. */
            if ((c->flags & CLIENT_PRIMARY) && replicationCheckPrimaryCommand(c) != C_OK) break;
            if (processCommandAndResetClient(c) == C_ERR) {
                server.pipeline_clock = 0;
                return;
            }
            updateClientMemUsage(c);
        }
        if (c->flags & CLIENT_PRIMARY) replicationPrimaryApplied(c);
    }
    server.pipeline_clock = 0;
    if (c->flags & CLIENT_PRIMARY) {
        replicationPrimaryProcessed(c); /* it keeps what it has not proxied yet */
        /* Our primary gets no replies (but ACKs, which a pre-PSYNC one
         * never gets): closing it "after the reply" (QUIT) is now, not at
         * the next ACK, or never, while its stream waits unread. */
        if (c->flags & CLIENT_CLOSE_AFTER_REPLY) freeClientAsync(c);
    } else if (c->qb_pos) {
        /* Usually every byte was consumed: then there is nothing to move. */
        if (c->qb_pos == sdslen(c->querybuf)) sdsclear(c->querybuf);
        else sdsrange(c->querybuf, c->qb_pos, -1);
        c->qb_pos = 0;
    }
}

/* How many bytes to read next of a big argument that still misses
 * `remaining` bytes, after making room for them. The buffer at most doubles
 * per read, so a client announcing a huge bulk string makes the server
 * reserve memory only in proportion to what it really sent. */
static size_t bigArgReadLen(client *c, size_t remaining) {
    size_t want = sdslen(c->querybuf);
    if (want < PROTO_MBULK_BIG_ARG) want = PROTO_MBULK_BIG_ARG;
    if (want > remaining) want = remaining;
    if (sdsavail(c->querybuf) < want) c->querybuf = sdsMakeRoomForNonGreedy(c->querybuf, want);
    return want;
}

/* Gives the client a query buffer to read into: its own if it has bytes
 * left over from an earlier read (or is the primary link), else the shared
 * one of this thread. Returns 1 if that is the shared buffer, which the
 * caller must give back with releaseSharedQueryBuffer() before returning
 * to the event loop (or ending its job). A read nested in another (events
 * processed during a busy script) finds the shared buffer taken and gets
 * an empty private one. */
static inline __attribute__((always_inline)) int takeQueryBuffer(client *c, int offthread) {
    if (c->querybuf) return 0;
    if (shared_qb_taken || (!offthread && (c->flags & CLIENT_PRIMARY))) {
        c->querybuf = sdsempty();
        return 0;
    }
    if (shared_qb == NULL) {
        shared_qb = sdsnewlen(SDS_NOINIT, PROTO_IOBUF_LEN);
        sdsclear(shared_qb);
    }
    shared_qb_taken = 1;
    c->querybuf = shared_qb;
    c->qb_pos = 0;
    return 1;
}

/* Ends the client's use of the shared query buffer: bytes of a request not
 * complete yet move to a buffer of the client's own, and with none left the
 * client holds no query buffer at all, so idle clients cost none. */
static void releaseSharedQueryBuffer(client *c) {
    if (c->querybuf == shared_qb) {
        size_t left = sdslen(shared_qb) - c->qb_pos;
        c->querybuf = left ? sdsnewlen(shared_qb + c->qb_pos, left) : NULL;
        c->qb_pos = 0;
    }
    /* else the client moved to its own buffer for a big argument. */
    if (sdsalloc(shared_qb) > PROTO_IOBUF_LEN * 2) shared_qb = sdsResize(shared_qb, PROTO_IOBUF_LEN, 1);
    sdsclear(shared_qb);
    shared_qb_taken = 0;
}

/* Reads what the connection has into c's query buffer (taken with
 * takeQueryBuffer(): *shared says if it is the shared one). While a big
 * argument is being read, it reads no more than the argument, so that the
 * buffer is then exactly the argument and can be used without a copy.
 * Returns read()'s result; *full is set when the read filled the room it
 * had (more may be waiting). */
static inline __attribute__((always_inline)) ssize_t readIntoQueryBuffer(client *c, int offthread, int *shared,
                                                                         int *full) {
    *shared = takeQueryBuffer(c, offthread);
    size_t readlen = PROTO_IOBUF_LEN;
    int big_arg = 0;

    if (c->reqtype == PROTO_REQ_MULTIBULK && c->mb.args_left && c->mb.bulklen != -1 &&
        c->mb.bulklen >= PROTO_MBULK_BIG_ARG) {
        ssize_t remaining = (size_t)(c->mb.bulklen + 2) - (sdslen(c->querybuf) - c->qb_pos);
        if (remaining > 0) {
            readlen = bigArgReadLen(c, remaining);
            if (*shared) shared_qb = c->querybuf; /* it may have moved */
            big_arg = 1;
        }
    }

    size_t qblen = sdslen(c->querybuf);
    if (qblen > c->querybuf_peak) c->querybuf_peak = qblen;
    if (!big_arg) {
        c->querybuf = sdsMakeRoomFor(c->querybuf, readlen);
        if (*shared) shared_qb = c->querybuf;
        /* Take all the room the buffer has: a pipeline a little over
         * PROTO_IOBUF_LEN is then read (and answered) in one go instead of
         * two. */
        readlen = sdsavail(c->querybuf);
    }
    ssize_t nread = connRead(c->conn, c->querybuf + qblen, readlen);
    if (nread > 0) {
        sdsIncrLen(c->querybuf, nread);
        *full = (size_t)nread == readlen;
    }
    return nread;
}

/* Closes c, whose unparsed input passed client-query-buffer-limit, as
 * Valkey does: logged with its CLIENT LIST line and counted. shared: the
 * query buffer is the shared one, to give back first. */
static void closeClientOverQueryBufferLimit(client *c, int shared) {
    sds ci = catClientInfoString(sdsempty(), c);
    serverLog(LL_WARNING, "Closing client that reached max query buffer length: %s", ci);
    sdsfree(ci);
    server.stat_client_qbuf_limit_disconnections++;
    if (shared) releaseSharedQueryBuffer(c);
    freeClientAsync(c);
}

/* Read handler of every client connection. Reads into the shared query
 * buffer unless the client has a partial request left over, runs every
 * complete request, and keeps only what is left. With I/O threads the
 * threads may take the read (ioThreadsHandleReadable()). */
void readQueryFromClient(connection *conn) {
    client *c = connGetPrivateData(conn);
    /* A client on its way out reads nothing more (a transport may still
     * hold buffered input for it: TLS, RDMA). */
    if (c->flags & CLIENT_CLOSE_ASAP) return;
    if (server.io_threads_num > 1 && ioThreadsHandleReadable(c)) return;
    int shared, full;
    ssize_t nread = readIntoQueryBuffer(c, 0, &shared, &full);
    if (nread <= 0) {
        if (shared) releaseSharedQueryBuffer(c);
        if (nread == -1) {
            if (connGetState(conn) == CONN_STATE_CONNECTED) return;
            serverLog(LL_VERBOSE, "Reading from client: %s", connGetLastError(conn));
        } else if (server.verbosity <= LL_VERBOSE) {
            sds info = catClientInfoString(sdsempty(), c);
            serverLog(LL_VERBOSE, "Client closed connection %s", info);
            sdsfree(info);
        }
        freeClientAsync(c);
        return;
    }
    if (c->flags & CLIENT_PRIMARY) replicationPrimaryRead(c, (size_t)nread);
    c->lastinteraction = server.unixtime;
    c->net_input_bytes += nread;
    server.stat_net_input_bytes += nread;
    server.stat_total_reads_processed++;

    if (!(c->flags & CLIENT_PRIMARY) && server.client_max_querybuf_len &&
        sdslen(c->querybuf) - c->qb_pos > server.client_max_querybuf_len) {
        closeClientOverQueryBufferLimit(c, shared);
        return;
    }
    updateClientMemUsage(c);
    c->flags |= CLIENT_PROTECTED;
    processInputBuffer(c);
    c->flags &= ~CLIENT_PROTECTED;
    if (shared) {
        releaseSharedQueryBuffer(c);
    } else if (c->querybuf && sdslen(c->querybuf) == 0 && !(c->flags & CLIENT_PRIMARY)) {
        /* Its own buffer (a big argument, a partial request) was consumed
         * whole: the next read goes to the shared buffer again. */
        sdsfree(c->querybuf);
        c->querybuf = NULL;
    }
}

/* ---------------------------------------------------------------------------
 * A job of an I/O thread (io_threads.c): the work, and its results
 * ------------------------------------------------------------------------- */

/* I/O thread: reads what c's connection has, parses every whole request
 * into c->io.q and gives the shared query buffer back. */
static void readClientOffThread(client *c) {
    clientIO *io = &c->io;
    int shared, full = 0;
    io->read_full = io->read_failed = io->querybuf_over_limit = 0;
    io->nread = readIntoQueryBuffer(c, 1, &shared, &full);
    if (io->nread <= 0) {
        if (io->nread == -1 && connGetState(c->conn) != CONN_STATE_CONNECTED) io->read_failed = 1;
        if (shared) releaseSharedQueryBuffer(c);
        return;
    }
    io->read_full = full;
    if (io->max_querybuf && sdslen(c->querybuf) - c->qb_pos > io->max_querybuf) {
        io->querybuf_over_limit = 1; /* the main thread closes it, and logs why with the buffer */
    } else {
        parseQueryBufferOffThread(c);
    }
    if (shared) {
        releaseSharedQueryBuffer(c);
    } else if (c->querybuf) {
        /* Its own buffer: drop what was parsed, or the buffer itself when
         * all was (or when it is the empty one left by a big argument that
         * became an object), so that the job always ends at qb_pos 0 and
         * the next read goes to the shared buffer, as on the main thread. */
        if (c->qb_pos == sdslen(c->querybuf)) {
            sdsfree(c->querybuf);
            c->querybuf = NULL;
        } else if (c->qb_pos) {
            sdsrange(c->querybuf, c->qb_pos, -1);
        }
        c->qb_pos = 0;
    }
}

/* See io_threads.h. I/O thread: does c->io.job, writing first, and leaves
 * the results in c->io. Returns 1 when the main thread has something to
 * do soon: run what was read, close the client (EOF, an error, or as
 * asked once written), or wait for room in a full socket. */
int clientRunIoJob(client *c) {
    clientIO *io = &c->io;
    io->nwritten = 0;
    io->write_failed = 0;
    io->nread = -1;
    io->read_failed = 0;
    if (io->job & CLIENT_IO_JOB_WRITE) {
        io->nwritten = writeClientReplies(c, 0, &io->write_failed);
        if (io->write_failed) return 1;
    }
    if (io->job & CLIENT_IO_JOB_READ) {
        readClientOffThread(c);
        if (io->nread != -1 || io->read_failed) return 1;
    }
    return io->notify || ((io->job & CLIENT_IO_JOB_WRITE) && clientHasPendingReplies(c));
}

/* See io_threads.h. Main thread, once the job is collected: what
 * writeToClient() and readQueryFromClient() do after their I/O, with the
 * same log lines, stats and closing rules. c may be freed (asynchronously,
 * so it is still valid on return). */
void clientApplyIoJob(client *c) {
    clientIO *io = &c->io;
    if (io->job & CLIENT_IO_JOB_WRITE) {
        server.stat_total_writes_processed++;
        if (io->write_failed) {
            serverLog(LL_VERBOSE, "Error writing to client: %s", connGetLastError(c->conn));
            freeClientAsync(c);
            return;
        }
        clientWroteBytes(c, io->nwritten);
        if (!clientHasPendingReplies(c)) {
            c->sentlen = 0;
            if (connHasWriteHandler(c->conn)) connSetWriteHandler(c->conn, NULL);
            if (c->flags & CLIENT_CLOSE_AFTER_REPLY) {
                freeClientAsync(c);
                return;
            }
        } else if (!connHasWriteHandler(c->conn)) {
            /* The socket is full: go on when it can take more. */
            connSetWriteHandlerWithBarrier(c->conn, sendReplyToClient, 1);
        }
    }
    if (!(io->job & CLIENT_IO_JOB_READ)) return;
    if (io->nread <= 0) {
        if (io->nread == 0) {
            if (server.verbosity <= LL_VERBOSE) {
                sds info = catClientInfoString(sdsempty(), c);
                serverLog(LL_VERBOSE, "Client closed connection %s", info);
                sdsfree(info);
            }
            freeClientAsync(c);
        } else if (io->read_failed) {
            serverLog(LL_VERBOSE, "Reading from client: %s", connGetLastError(c->conn));
            freeClientAsync(c);
        }
        return;
    }
    c->lastinteraction = server.unixtime;
    c->net_input_bytes += io->nread;
    server.stat_net_input_bytes += io->nread;
    server.stat_total_reads_processed++;
    if (io->read_full) io->want |= CLIENT_IO_WANT_READ;
    if (io->querybuf_over_limit) {
        closeClientOverQueryBufferLimit(c, 0);
        return;
    }
    updateClientMemUsage(c);
    c->flags |= CLIENT_PROTECTED;
    processInputBuffer(c);
    c->flags &= ~CLIENT_PROTECTED;
    /* A buffer the thread left (a request not whole yet, a big argument
     * begun, which may have no byte of it yet) stays for the next read. */
}

/* ---------------------------------------------------------------------------
 * Client introspection (CLIENT LIST / INFO) and misc helpers
 * ------------------------------------------------------------------------- */

char *getClientPeerId(client *c) {
    static char buf[NET_ADDR_STR_LEN];
    if (c->conn == NULL) return "";
    connFormatAddr(c->conn, buf, sizeof(buf), 1);
    return buf;
}

char *getClientSockname(client *c) {
    static char buf[NET_ADDR_STR_LEN];
    if (c->conn == NULL) return "";
    connFormatAddr(c->conn, buf, sizeof(buf), 0);
    return buf;
}

/* The bytes of the client's own query buffer: 0 while it has none or is
 * reading into the shared one. */
static size_t clientQueryBufferAlloc(client *c) {
    return c->querybuf && c->querybuf != shared_qb ? sdsAllocSize(c->querybuf) : 0;
}

/* Returns everything the client holds (CLIENT LIST's tot-mem, what
 * maxmemory-clients counts): the client, its own query buffer, parsed
 * arguments, the static reply buffer and the reply list (a replica: its
 * share of the replication buffer), its MULTI queue and watched keys, its
 * subscriptions, and what its transport holds for it outside the
 * allocator (shared-memory rings). *output_buffer_mem_usage (if not NULL)
 * gets the output alone, as CLIENT LIST's omem and the output buffer
 * limits count it. */
size_t getClientMemoryUsage(client *c, size_t *output_buffer_mem_usage) {
    if (c->flags & CLIENT_IO_PENDING_FLAG) ioThreadsWaitClient(c);
    size_t obuf = getClientOutputBufferMemoryUsage(c);
    if (output_buffer_mem_usage) *output_buffer_mem_usage = obuf;
    size_t mem = obuf + c->buf_usable_size + clientQueryBufferAlloc(c) + c->argv_len * sizeof(robj *) +
                 c->argv_len_sum + sizeof(client) + connMemUsage(c->conn);
    if (c->mstate) mem += multiClientMemory(c);
    if (c->pubsub) mem += pubsubClientMemory(c);
    return mem;
}

static char *clientFlagsString(client *c, char *buf) {
    char *p = buf;
    if (c->flags & CLIENT_REPLICA) *p++ = c->flags & CLIENT_MONITOR ? 'O' : 'S';
    if (c->flags & CLIENT_PRIMARY) *p++ = 'M';
    if (c->flags & CLIENT_PUBSUB) *p++ = 'P';
    if (c->flags & CLIENT_MULTI) *p++ = 'x';
    if (c->flags & CLIENT_BLOCKED) *p++ = 'b';
    if (c->flags & CLIENT_TRACKING) *p++ = 't';
    if (c->flags & CLIENT_TRACKING_BROKEN_REDIR) *p++ = 'R';
    if (c->flags & CLIENT_TRACKING_BCAST) *p++ = 'B';
    if (c->flags & CLIENT_DIRTY_CAS) *p++ = 'd';
    if (c->flags & CLIENT_CLOSE_AFTER_REPLY) *p++ = 'c';
    if (c->flags & CLIENT_UNBLOCKED) *p++ = 'u';
    if (c->flags & CLIENT_CLOSE_ASAP) *p++ = 'A';
    /* A client that came in on the Unix socket and upgraded to shared
     * memory talks through neither: no U (its line ends with shm=). */
    if ((c->flags & CLIENT_UNIX_SOCKET) && (!c->conn || !strcmp(connGetType(c->conn), CONN_NAME_UNIX)))
        *p++ = 'U';
    if (c->flags & CLIENT_READONLY) *p++ = 'r';
    if (c->flags & CLIENT_NO_EVICT) *p++ = 'e';
    if (c->flags & CLIENT_NO_TOUCH) *p++ = 'T';
    if (p == buf) *p++ = 'N';
    *p = '\0';
    return buf;
}

/* Appends the CLIENT LIST line of c (without newline) to s. */
sds catClientInfoString(sds s, client *c) {
    if (c->flags & CLIENT_IO_PENDING_FLAG) ioThreadsWaitClient(c); /* its buffers' sizes */
    char flags[32], conninfo[CONN_INFO_LEN]; /* The transport's own fields, at the end (shm=) */
    char events[3], *p = events;
    if (c->conn) {
        if (connHasReadHandler(c->conn)) *p++ = 'r';
        if (connHasWriteHandler(c->conn)) *p++ = 'w';
    }
    *p = '\0';
    size_t obufmem;
    size_t total_mem = getClientMemoryUsage(c, &obufmem);
    const char *cmdname = c->lastcmd ? c->lastcmd->fullname : "NULL";
    return sdscatfmt(
        s,
        "id=%U addr=%s laddr=%s fd=%i name=%s age=%I idle=%I flags=%s db=%i sub=%i psub=%i ssub=%i multi=%i "
        "watch=%i qbuf=%U qbuf-free=%U argv-mem=%U multi-mem=%U rbs=%U rbp=%U obl=%U oll=%U omem=%U "
        "tot-mem=%U events=%s cmd=%s user=%s redir=%I resp=%i lib-name=%s lib-ver=%s tot-net-in=%U "
        "tot-net-out=%U tot-cmds=%U%s",
        (unsigned long long)c->id, getClientPeerId(c), getClientSockname(c), c->conn ? c->conn->fd : -1,
        c->name ? (char *)objectGetVal(c->name) : "", (long long)(server.unixtime - c->ctime),
        (long long)(server.unixtime - c->lastinteraction), clientFlagsString(c, flags), c->db->id,
        pubsubClientCount(c, PUBSUB_CHANNEL), pubsubClientCount(c, PUBSUB_PATTERN), pubsubClientCount(c, PUBSUB_SHARD),
        multiQueuedCount(c), multiWatchedKeysCount(c), (unsigned long long)(c->querybuf ? sdslen(c->querybuf) : 0),
        (unsigned long long)(c->querybuf ? sdsavail(c->querybuf) : 0), (unsigned long long)c->argv_len_sum,
        (unsigned long long)multiQueueMemory(c),
        (unsigned long long)c->buf_usable_size, (unsigned long long)c->buf_peak,
        (unsigned long long)c->bufpos, (unsigned long long)listLength(c->reply), (unsigned long long)obufmem,
        (unsigned long long)total_mem, events, cmdname, aclClientUserName(c),
        (c->flags & CLIENT_TRACKING) ? (long long)c->tracking_redirect : -1LL, c->resp, c->lib_name ? (char *)objectGetVal(c->lib_name) : "",
        c->lib_ver ? (char *)objectGetVal(c->lib_ver) : "", c->net_input_bytes, c->net_output_bytes,
        c->commands_processed, connGetListFields(c->conn, conninfo, sizeof(conninfo)));
}

sds getAllClientsInfoString(int type) {
    sds o = sdsempty();
    listIter li;
    listNode *ln;
    listRewind(server.clients, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        if (type != -1 && getClientType(c) != type) continue;
        o = catClientInfoString(o, c);
        o = sdscatlen(o, "\n", 1);
    }
    return o;
}

/* client_recent_max_input_buffer / _output_buffer (INFO clients): the
 * biggest query buffer allocation and output list memory the clients cron
 * saw in each of the last CLIENTS_PEAK_SLOTS seconds. */
#define CLIENTS_PEAK_SLOTS 8
static struct {
    time_t second; /* the second this slot holds */
    size_t in, out;
} clients_peak[CLIENTS_PEAK_SLOTS];

static void clientsPeakTrack(client *c, time_t now) {
    int slot = now % CLIENTS_PEAK_SLOTS;
    if (clients_peak[slot].second != now) {
        clients_peak[slot].second = now;
        clients_peak[slot].in = clients_peak[slot].out = 0;
    }
    size_t in = clientQueryBufferAlloc(c), out = getClientOutputBufferMemoryUsage(c);
    if (in > clients_peak[slot].in) clients_peak[slot].in = in;
    if (out > clients_peak[slot].out) clients_peak[slot].out = out;
}

void getClientsMaxBuffers(size_t *output, size_t *input) {
    *output = *input = 0;
    for (int j = 0; j < CLIENTS_PEAK_SLOTS; j++) {
        if (server.unixtime - clients_peak[j].second >= CLIENTS_PEAK_SLOTS) continue;
        if (clients_peak[j].out > *output) *output = clients_peak[j].out;
        if (clients_peak[j].in > *input) *input = clients_peak[j].in;
    }
}

/* Returns 1 if the client must authenticate before running commands. */
int authRequired(client *c) {
    return !c->authenticated && !aclDefaultUserIsOpen();
}

/* Keeps the arguments as sent before the first rewrite of the running
 * command, for SLOWLOG. */
static void retainOriginalCommandVector(client *c) {
    if (c->original_argv) return;
    c->original_argc = c->argc;
    c->original_argv = zmalloc(sizeof(robj *) * c->argc);
    for (int j = 0; j < c->argc; j++) {
        c->original_argv[j] = c->argv[j];
        incrRefCount(c->argv[j]);
    }
}

/* Shows argument j of the running command as "(redacted)" wherever the
 * command is reported as it was sent (SLOWLOG), while argv keeps the
 * secret for the command itself. j indexes the command as sent. Called by
 * commands that take secrets: AUTH, HELLO AUTH, ACL SETUSER/GETUSER/
 * DELUSER, CONFIG SET of a sensitive option; before they validate
 * anything, so that a refused command is redacted too. */
void redactClientCommandArgument(client *c, int j) {
    retainOriginalCommandVector(c);
    if (j < 0 || j >= c->original_argc || c->original_argv[j] == shared.redacted) return;
    decrRefCount(c->original_argv[j]);
    c->original_argv[j] = shared.redacted; /* shared: no reference to take */
}

/* Releases what retainOriginalCommandVector() kept, if anything. Called by
 * call() once the command is accounted for. */
void discardOriginalCommandVector(client *c) {
    if (!c->original_argv) return;
    for (int j = 0; j < c->original_argc; j++) decrRefCount(c->original_argv[j]);
    zfree(c->original_argv);
    c->original_argv = NULL;
    c->original_argc = 0;
}

/* Replaces argv with a new vector built from the given objects (their
 * references are taken). Used by commands that propagate differently. */
void replaceClientCommandVector(client *c, int argc, robj **argv) {
    retainOriginalCommandVector(c);
    struct serverCommand *cmd = c->cmd; /* the command is still running */
    freeClientArgv(c);
    c->cmd = cmd;
    zfree(c->argv);
    c->argv = argv;
    c->argc = argc;
    c->argv_len = argc;
    c->argv_len_sum = 0;
    for (int j = 0; j < argc; j++) c->argv_len_sum += sdsEncodedObject(argv[j]) ? sdslen(objectGetVal(argv[j])) : 0;
}

void rewriteClientCommandVector(client *c, int argc, ...) {
    va_list ap;
    robj **argv = zmalloc(sizeof(robj *) * argc);
    va_start(ap, argc);
    for (int j = 0; j < argc; j++) {
        argv[j] = va_arg(ap, robj *);
        incrRefCount(argv[j]);
    }
    va_end(ap);
    replaceClientCommandVector(c, argc, argv);
}

void rewriteClientCommandArgument(client *c, int i, robj *newval) {
    retainOriginalCommandVector(c);
    if (i >= c->argv_len) {
        c->argv = zrealloc(c->argv, sizeof(robj *) * (i + 1));
        for (int j = c->argv_len; j <= i; j++) c->argv[j] = NULL;
        c->argv_len = i + 1;
    }
    robj *old = i < c->argc ? c->argv[i] : NULL;
    c->argv[i] = newval;
    incrRefCount(newval);
    if (old) decrRefCount(old);
    if (i >= c->argc) c->argc = i + 1;
}

/* Closes idle clients (timeout). Returns 1 if c was freed. */
int clientsCronHandleTimeout(client *c, mstime_t now_ms) {
    time_t now = now_ms / 1000;
    if (server.maxidletime && !(c->flags & (CLIENT_REPLICA | CLIENT_PRIMARY | CLIENT_BLOCKED | CLIENT_PUBSUB)) &&
        (now - c->lastinteraction > server.maxidletime)) {
        serverLog(LL_VERBOSE, "Closing idle client");
        freeClient(c);
        return 1;
    }
    return 0;
}

/* Gives back the query buffer memory a client does not use. Clients read
 * into the shared buffer (readQueryFromClient), so only one with a partial
 * request left over, or one that read a big argument, has its own. After
 * more than 2 idle seconds an empty one is freed (the next read uses the
 * shared buffer again) and a partly used one loses its free space; a busy
 * client's buffer over PROTO_RESIZE_THRESHOLD is cut to its recent peak
 * when that is under half of it. The peak restarts from here each visit. */
static void clientsCronResizeQueryBuffer(client *c) {
    if (c->querybuf == NULL || c->querybuf == shared_qb) return;
    size_t alloc = sdsalloc(c->querybuf);
    size_t pending = c->mb.bulklen != -1 && c->mb.args_left ? (size_t)c->mb.bulklen + 2 : 0;
    if (sdsavail(c->querybuf) > 1024 * 4) {
        if (server.unixtime - c->lastinteraction > 2) {
            if (sdslen(c->querybuf) == c->qb_pos && !(c->flags & CLIENT_PRIMARY)) {
                sdsfree(c->querybuf);
                c->querybuf = NULL;
                c->qb_pos = 0;
            } else {
                c->querybuf = sdsRemoveFreeSpace(c->querybuf, 1);
            }
        } else if (alloc > PROTO_RESIZE_THRESHOLD && alloc / 2 > c->querybuf_peak) {
            size_t target = sdslen(c->querybuf);
            if (target < c->querybuf_peak) target = c->querybuf_peak;
            if (target < pending) target = pending;
            if (target < alloc) c->querybuf = sdsResize(c->querybuf, target, 1);
        }
    }
    c->querybuf_peak = c->querybuf ? sdslen(c->querybuf) : 0;
    if (pending > c->querybuf_peak) c->querybuf_peak = pending;
}

/* Fits the static reply buffer to the client's use: halved or more, down
 * to PROTO_REPLY_MIN_BYTES, when its peak since the last reset used less
 * than half of it; doubled, up to PROTO_REPLY_CHUNK_BYTES, when the peak
 * filled it. The peak restarts every server.reply_buffer_peak_reset_time
 * ms (DEBUG REPLYBUFFER), so an idle client's buffer shrinks within a few
 * seconds. Counted in INFO's reply_buffer_shrinks/_expands. */
static void clientsCronResizeReplyBuffer(client *c, mstime_t now) {
    if (c->buf == NULL || !server.reply_buffer_resizing_enabled) return;
    size_t size = 0;
    if (c->buf_usable_size / 2 >= PROTO_REPLY_MIN_BYTES && c->buf_peak < c->buf_usable_size / 2) {
        size = c->buf_peak + 1 > PROTO_REPLY_MIN_BYTES ? c->buf_peak + 1 : PROTO_REPLY_MIN_BYTES;
        server.stat_reply_buffer_shrinks++;
    } else if (c->buf_usable_size * 2 < PROTO_REPLY_CHUNK_BYTES * 2 && c->buf_peak == c->buf_usable_size) {
        size = c->buf_usable_size * 2 < PROTO_REPLY_CHUNK_BYTES ? c->buf_usable_size * 2 : PROTO_REPLY_CHUNK_BYTES;
        server.stat_reply_buffer_expands++;
    }
    if (server.reply_buffer_peak_reset_time >= 0 &&
        now - c->buf_peak_last_reset_time >= server.reply_buffer_peak_reset_time) {
        c->buf_peak = c->bufpos;
        c->buf_peak_last_reset_time = now;
    }
    if (size) {
        char *old = c->buf;
        c->buf = zmalloc_usable(size, &c->buf_usable_size);
        memcpy(c->buf, old, c->bufpos); /* sentlen stays valid: same offsets */
        zfree(old);
    }
}

/* Runs a slice of per-client housekeeping every cron tick: idle timeouts,
 * output limits, and fitting query and reply buffers to their use. Each
 * call visits numclients/hz clients (at least 5), so that every client is
 * seen about once a second and a call's work stays bounded however many
 * clients are connected (dynamic-hz raises hz with the client count). */
void clientsCron(void) {
    int numclients = listLength(server.clients);
    int iterations = numclients / server.hz;
    if (iterations < 5) iterations = numclients < 5 ? numclients : 5;
    mstime_t now = mstime();
    while (listLength(server.clients) && iterations--) {
        listRotateTailToHead(server.clients);
        client *c = listNodeValue(listFirst(server.clients));
        c->client_list_node = listFirst(server.clients);
        /* An I/O thread is serving it: neither idle nor the cron's to
         * resize now; the next visit sees it. */
        if (c->flags & CLIENT_IO_PENDING_FLAG) continue;
        if (clientsCronHandleTimeout(c, now)) continue;
        /* A client that reads nothing gets no more replies either, so the
         * soft limit's time must also be checked here. */
        if (closeClientOnOutputBufferLimitReached(c, 0)) continue;
        clientsPeakTrack(c, now / 1000); /* before the buffers are given back below */
        clientsCronResizeQueryBuffer(c);
        clientsCronResizeReplyBuffer(c, now);
        updateClientMemUsage(c);
    }
}

/* ---------------------------------------------------------------------------
 * CLIENT PAUSE
 * ------------------------------------------------------------------------- */

/* Recomputes the pause in effect (server.client_pause_*,
 * which isPausedActions() reads) from the pause of every purpose,
 * forgetting those whose end passed. Called by the cron and whenever a
 * pause starts or ends. */
void updatePausedActions(void) {
    mstime_t now = mstime(), end = 0;
    int write_only = 1;
    for (int p = 0; p < PAUSE_PURPOSES; p++) {
        if (server.pause_end[p] && server.pause_end[p] <= now) {
            server.pause_end[p] = 0;
            server.pause_write_only[p] = 0;
        }
        if (!server.pause_end[p]) continue;
        if (server.pause_end[p] > end) end = server.pause_end[p];
        if (!server.pause_write_only[p]) write_only = 0;
    }
    server.client_pause_end_time = end;
    server.client_pause_write_only = end ? write_only : 0;
}

/* Pauses writes (write_only) or every command until end
 * (unix ms) for purpose. A pause of the same purpose in effect keeps the
 * later end; CLIENT PAUSE also keeps ALL over a new WRITE, as Valkey does.
 * Held clients are resumed from beforeSleep once nothing holds them. */
void pauseActions(int purpose, mstime_t end, int write_only) {
    updatePausedActions();
    if (purpose == PAUSE_BY_CLIENT_COMMAND && server.pause_end[purpose] && !server.pause_write_only[purpose])
        write_only = 0;
    server.pause_write_only[purpose] = write_only;
    if (end > server.pause_end[purpose]) server.pause_end[purpose] = end;
    updatePausedActions();
}

/* Ends the pause of purpose (others stay); held clients are resumed from
 * beforeSleep. */
void unpauseActions(int purpose) {
    server.pause_end[purpose] = 0;
    server.pause_write_only[purpose] = 0;
    updatePausedActions();
}

int areClientsPaused(void) {
    return isPausedActions();
}

/* Returns 1 if the command in c's argv must wait for CLIENT UNPAUSE (or
 * the pause to end): every command for PAUSE ALL; for PAUSE WRITE what
 * may write or be propagated, as in Valkey: write commands, EXEC of a
 * transaction holding one, PUBLISH, PFCOUNT, EVAL/EVALSHA/FCALL unless the
 * script or function declares no-writes (EVAL_RO and FCALL_RO of one that
 * does not are held too). Replicas and the primary are never held. */
int isClientPaused(client *c) {
    if (!isPausedActions() || c->flags & (CLIENT_REPLICA | CLIENT_PRIMARY)) return 0;
    mstime_t now = mstime();
    int all = 0, writes = 0;
    for (int p = 0; p < PAUSE_PURPOSES; p++) {
        if (server.pause_end[p] <= now) continue;
        if (server.pause_write_only[p]) writes = 1;
        else all = 1;
    }
    if (all) return 1;
    if (!writes || !c->cmd) return 0;
    uint64_t flags = scriptGetCommandFlags(c, multiEffectiveCommandFlags(c));
    return (flags & (CMD_WRITE | CMD_MAY_REPLICATE)) != 0;
}

/* Holds c, whose parsed command stays in argv, until the pause ends. */
void blockClientForPause(client *c) {
    c->flags |= CLIENT_BLOCKED | CLIENT_PENDING_COMMAND;
    listAddNodeTail(server.paused_clients, c);
}

/* Resumes, in arrival order, the held clients that no pause holds any
 * more (a pause ended, or became WRITE only). Those still held go back to
 * the end of the list in the same order; a resumed client whose next
 * command is held joins them, and a client freed meanwhile has left the
 * list, so the loop looks at each client once. Called before the event
 * loop sleeps. */
void processUnpausedClients(void) {
    unsigned long todo = listLength(server.paused_clients);
    if (todo == 0) return;
    updatePausedActions();
    while (todo-- && listLength(server.paused_clients)) {
        listNode *ln = listFirst(server.paused_clients);
        client *c = listNodeValue(ln);
        listDelNode(server.paused_clients, ln);
        if (isClientPaused(c)) {
            listAddNodeTail(server.paused_clients, c);
            continue;
        }
        c->flags &= ~(CLIENT_BLOCKED | CLIENT_PENDING_COMMAND);
        c->lastinteraction = server.unixtime; /* Not idle: see queueUnblockedClient(). */
        c->flags |= CLIENT_PROTECTED;
        if (processCommandAndResetClient(c) == C_OK) processInputBuffer(c);
        c->flags &= ~CLIENT_PROTECTED;
    }
}

/* ---------------------------------------------------------------------------
 * The CLIENT command
 * ------------------------------------------------------------------------- */

static int validateClientName(client *c, robj *name) {
    const char *p = objectGetVal(name);
    for (size_t j = 0; j < sdslen(objectGetVal(name)); j++) {
        if (p[j] < '!' || p[j] > '~') {
            addReplyError(c, "Client names cannot contain spaces, newlines or special characters.");
            return C_ERR;
        }
    }
    return C_OK;
}

void clientListCommand(client *c) {
    int type = -1;
    sds o = NULL;
    if (c->argc == 4 && !strcasecmp(objectGetVal(c->argv[2]), "type")) {
        type = getClientTypeByName(objectGetVal(c->argv[3]));
        if (type == -1) {
            addReplyErrorFormat(c, "Unknown client type '%s'", (char *)objectGetVal(c->argv[3]));
            return;
        }
        o = getAllClientsInfoString(type);
    } else if (c->argc > 3 && !strcasecmp(objectGetVal(c->argv[2]), "id")) {
        o = sdsempty();
        for (int j = 3; j < c->argc; j++) {
            long long id;
            if (getLongLongFromObjectOrReply(c, c->argv[j], &id, "Invalid client ID") != C_OK) {
                sdsfree(o);
                return;
            }
            listIter li;
            listNode *ln;
            listRewind(server.clients, &li);
            while ((ln = listNext(&li))) {
                client *cl = listNodeValue(ln);
                if (cl->id == (uint64_t)id) {
                    o = catClientInfoString(o, cl);
                    o = sdscatlen(o, "\n", 1);
                    break;
                }
            }
        }
    } else if (c->argc != 2) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    } else {
        o = getAllClientsInfoString(-1);
    }
    addReplyVerbatim(c, o, sdslen(o), "txt");
    sdsfree(o);
}

void clientInfoCommand(client *c) {
    sds o = catClientInfoString(sdsempty(), c);
    o = sdscatlen(o, "\n", 1);
    addReplyVerbatim(c, o, sdslen(o), "txt");
    sdsfree(o);
}

void clientIdCommand(client *c) {
    addReplyLongLong(c, c->id);
}

void clientSetnameCommand(client *c) {
    robj *name = c->argv[2];
    if (validateClientName(c, name) != C_OK) return;
    if (c->name) decrRefCount(c->name);
    c->name = NULL;
    if (sdslen(objectGetVal(name))) {
        c->name = name;
        incrRefCount(name);
    }
    addReply(c, shared.ok);
}

void clientGetnameCommand(client *c) {
    if (c->name) addReplyBulk(c, c->name);
    else addReplyNull(c);
}

void clientSetinfoCommand(client *c) {
    const char *attr = objectGetVal(c->argv[2]);
    robj *val = c->argv[3];
    robj **dest;
    if (!strcasecmp(attr, "lib-name")) dest = &c->lib_name;
    else if (!strcasecmp(attr, "lib-ver")) dest = &c->lib_ver;
    else {
        addReplyErrorFormat(c, "Unrecognized option '%s'", attr);
        return;
    }
    const char *p = objectGetVal(val);
    for (size_t j = 0; j < sdslen(objectGetVal(val)); j++) {
        if (p[j] < '!' || p[j] > '~') {
            addReplyErrorFormat(c, "%s cannot contain spaces, newlines or special characters.", attr);
            return;
        }
    }
    if (*dest) decrRefCount(*dest);
    *dest = sdslen(objectGetVal(val)) ? val : NULL;
    if (*dest) incrRefCount(*dest);
    addReply(c, shared.ok);
}

/* CLIENT KILL addr:port (old form, replies OK or an error) or CLIENT KILL
 * <filter> <value> ... (new form, replies the number killed). */
void clientKillCommand(client *c) {
    const char *addr = NULL, *laddr = NULL;
    int type = -1;
    uint64_t id = 0;
    const char *username = NULL;
    int skipme = 1, newform = c->argc > 3;
    long long maxage = 0;

    if (!newform) {
        addr = objectGetVal(c->argv[2]);
        skipme = 0;
    } else {
        /* Filters are checked in order, as Valkey does: an error in one
         * is reported before a missing value at the end. */
        for (int i = 2; i < c->argc; i += 2) {
            if (i + 1 >= c->argc) {
                addReplyErrorObject(c, shared.syntaxerr);
                return;
            }
            const char *opt = objectGetVal(c->argv[i]);
            robj *val = c->argv[i + 1];
            if (!strcasecmp(opt, "id")) {
                long long tmp;
                if (getLongLongFromObjectOrReply(c, val, &tmp, "client-id should be greater than 0") != C_OK)
                    return;
                if (tmp <= 0) {
                    addReplyError(c, "client-id should be greater than 0");
                    return;
                }
                id = tmp;
            } else if (!strcasecmp(opt, "type")) {
                type = getClientTypeByName(objectGetVal(val));
                if (type == -1) {
                    addReplyErrorFormat(c, "Unknown client type '%s'", (char *)objectGetVal(val));
                    return;
                }
            } else if (!strcasecmp(opt, "addr")) {
                addr = objectGetVal(val);
            } else if (!strcasecmp(opt, "laddr")) {
                laddr = objectGetVal(val);
            } else if (!strcasecmp(opt, "user")) {
                if (aclClientIsUser(c, objectGetVal(val)) < 0) {
                    addReplyErrorFormat(c, "No such user '%s'", (char *)objectGetVal(val));
                    return;
                }
                username = objectGetVal(val);
            } else if (!strcasecmp(opt, "skipme")) {
                if (!strcasecmp(objectGetVal(val), "yes")) skipme = 1;
                else if (!strcasecmp(objectGetVal(val), "no")) skipme = 0;
                else {
                    addReplyErrorObject(c, shared.syntaxerr);
                    return;
                }
            } else if (!strcasecmp(opt, "maxage")) {
                if (getLongLongFromObjectOrReply(c, val, &maxage, "maxage is not an integer or out of range") != C_OK)
                    return;
                if (maxage <= 0) {
                    addReplyError(c, "maxage should be greater than 0");
                    return;
                }
            } else {
                addReplyErrorObject(c, shared.syntaxerr);
                return;
            }
        }
    }

    int killed = 0;
    listIter li;
    listNode *ln;
    listRewind(server.clients, &li);
    while ((ln = listNext(&li))) {
        client *cl = listNodeValue(ln);
        if (addr && strcmp(getClientPeerId(cl), addr) != 0) continue;
        if (laddr && strcmp(getClientSockname(cl), laddr) != 0) continue;
        if (type != -1 && getClientType(cl) != type) continue;
        if (id != 0 && cl->id != id) continue;
        if (username && aclClientIsUser(cl, username) != 1) continue;
        if (cl == c && skipme) continue;
        if (maxage && server.unixtime - cl->ctime < maxage) continue;
        if (cl == c) c->flags |= CLIENT_CLOSE_AFTER_REPLY;
        else freeClientAsync(cl);
        killed++;
    }
    if (!newform) {
        if (killed == 0) addReplyError(c, "No such client");
        else addReply(c, shared.ok);
    } else {
        addReplyLongLong(c, killed);
    }
}

void clientPauseCommand(client *c) {
    long long duration;
    int write_only = 0;
    if (c->argc == 4) {
        if (!strcasecmp(objectGetVal(c->argv[3]), "write")) write_only = 1;
        else if (strcasecmp(objectGetVal(c->argv[3]), "all")) {
            addReplyError(c, "CLIENT PAUSE mode must be WRITE or ALL");
            return;
        }
    }
    if (getLongLongFromObjectOrReply(c, c->argv[2], &duration, "timeout is not an integer or out of range") != C_OK)
        return;
    if (duration < 0) {
        addReplyError(c, "timeout is negative");
        return;
    }
    pauseActions(PAUSE_BY_CLIENT_COMMAND, mstime() + duration, write_only);
    addReply(c, shared.ok);
}

void clientUnpauseCommand(client *c) {
    unpauseActions(PAUSE_BY_CLIENT_COMMAND);
    addReply(c, shared.ok);
}

void clientReplyCommand(client *c) {
    const char *mode = objectGetVal(c->argv[2]);
    if (!strcasecmp(mode, "on")) {
        c->flags &= ~(CLIENT_REPLY_SKIP | CLIENT_REPLY_OFF);
        addReply(c, shared.ok);
    } else if (!strcasecmp(mode, "off")) {
        c->flags |= CLIENT_REPLY_OFF;
    } else if (!strcasecmp(mode, "skip")) {
        if (!(c->flags & CLIENT_REPLY_OFF)) c->flags |= CLIENT_REPLY_SKIP_NEXT;
    } else {
        addReplyErrorObject(c, shared.syntaxerr);
    }
}

static void clientOnOffFlag(client *c, uint64_t flag) {
    const char *v = objectGetVal(c->argv[2]);
    if (!strcasecmp(v, "on")) {
        c->flags |= flag;
        addReply(c, shared.ok);
    } else if (!strcasecmp(v, "off")) {
        c->flags &= ~flag;
        addReply(c, shared.ok);
    } else {
        addReplyErrorObject(c, shared.syntaxerr);
    }
}

void clientNoEvictCommand(client *c) {
    clientOnOffFlag(c, CLIENT_NO_EVICT);
}

void clientNoTouchCommand(client *c) {
    clientOnOffFlag(c, CLIENT_NO_TOUCH);
}

void clientHelpCommand(client *c) {
    const char *help[] = {
        "GETNAME",
        "    Return the name of the current connection.",
        "ID",
        "    Return the ID of the current connection.",
        "INFO",
        "    Return information about the current client connection.",
        "KILL <ip:port>",
        "    Kill connection made from <ip:port>.",
        "KILL <option> <value> [<option> <value> [...]]",
        "    Kill connections. Options are:",
        "    * ADDR (<ip:port>|<unixsocket>:0)",
        "      Kill connections made from the specified address",
        "    * LADDR (<ip:port>|<unixsocket>:0)",
        "      Kill connections made to specified local address",
        "    * TYPE (NORMAL|PRIMARY|REPLICA|PUBSUB)",
        "      Kill connections by type.",
        "    * USER <username>",
        "      Kill connections authenticated by <username>.",
        "    * SKIPME (YES|NO)",
        "      Skip killing current connection (default: yes).",
        "    * ID <client-id>",
        "      Kill connections by client id.",
        "    * MAXAGE <maxage>",
        "      Kill connections older than the specified age.",
        "LIST [options ...]",
        "    Return information about client connections. Options:",
        "    * TYPE (NORMAL|PRIMARY|REPLICA|PUBSUB)",
        "      Return clients of specified type.",
        "    * ID <client-id> [<client-id> ...]",
        "      Return clients with the given IDs.",
        "UNPAUSE",
        "    Stop the current client pause, resuming traffic.",
        "UNBLOCK <clientid> [TIMEOUT|ERROR]",
        "    Unblock the specified blocked client.",
        "PAUSE <timeout> [WRITE|ALL]",
        "    Suspend all, or just write, clients for <timeout> milliseconds.",
        "REPLY (ON|OFF|SKIP)",
        "    Control the replies sent to the current connection.",
        "SETNAME <name>",
        "    Assign the name <name> to the current connection.",
        "SETINFO <option> <value>",
        "    Set client meta attr. Options are:",
        "    * LIB-NAME: the client lib name.",
        "    * LIB-VER: the client lib version.",
        "NO-EVICT (ON|OFF)",
        "    Protect current client connection from eviction.",
        "NO-TOUCH (ON|OFF)",
        "    Will not touch LRU/LFU stats when this mode is on.",
        "CAPA <capability> [<capability> ...]",
        "    Declare what this connection can handle (unknown ones are ignored):",
        "    * REDIRECT: a replica answers data commands with -REDIRECT <primary host:port>.",
        "CACHING (YES|NO)",
        "    With tracking in OPTIN (YES) or OPTOUT (NO) mode: track the keys of the next command, or not.",
        "GETREDIR",
        "    The id of the client that gets this connection's invalidations (0: itself, -1: no tracking).",
        "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
        "         [OPTIN] [OPTOUT] [NOLOOP]",
        "    Turn client-side caching invalidations on or off for this connection.",
        "TRACKINGINFO",
        "    The tracking mode, redirect and prefixes of this connection.",
        NULL};
    addReplyHelp(c, help);
}

/* Any further arguments are more fields of the row (its .args string). */
#define CLIENT_SUB_FLAGS(n, p, a, f, s, ...)                                                                      \
    {.name = n, .proc = p, .arity = a, .flags = f, .acl_categories = ACL_CATEGORY_CONNECTION,                    \
     .group = "connection", .summary = s, .complexity = "O(1)", __VA_ARGS__}
#define CLIENT_SUB(n, p, a, s, ...)                                                                               \
    CLIENT_SUB_FLAGS(n, p, a, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_SENTINEL, s, __VA_ARGS__)
/* Subcommands that act on other connections are admin: MONITOR does not
 * show them. */
#define CLIENT_SUB_ADMIN(n, p, a, s, ...)                                                                         \
    CLIENT_SUB_FLAGS(n, p, a, CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_SENTINEL, s, __VA_ARGS__)
/* Subcommands about this connection only, allowed while a script is busy. */
#define CLIENT_SUB_BUSY(n, p, a, s, ...)                                                                          \
    CLIENT_SUB_FLAGS(n, p, a, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_SENTINEL | CMD_ALLOW_BUSY, s, __VA_ARGS__)

struct serverCommand clientSubcommands[] = {
    CLIENT_SUB_ADMIN("list", clientListCommand, -2, "Lists open connections.",
                     .args = "[TYPE client-type=<NORMAL | MASTER | REPLICA | PUBSUB>] [ID client-id:integer "
                             "[client-id:integer ...]]"),
    CLIENT_SUB("info", clientInfoCommand, 2, "Returns information about the connection."),
    CLIENT_SUB_BUSY("id", clientIdCommand, 2, "Returns the unique client ID of the connection."),
    CLIENT_SUB_BUSY("setname", clientSetnameCommand, 3, "Sets the connection name.",
                    .args = "connection-name"),
    CLIENT_SUB_BUSY("getname", clientGetnameCommand, 2, "Returns the name of the connection."),
    CLIENT_SUB_BUSY("setinfo", clientSetinfoCommand, 4, "Sets information specific to the client or connection.",
                    .args = "attr=<LIB-NAME libname | LIB-VER libver>"),
    CLIENT_SUB_ADMIN("kill", clientKillCommand, -3, "Terminates open connections.",
                     .args = "filter=<ip:port | new-format=<[ID client-id:integer] | [TYPE "
                             "client-type=<NORMAL | MASTER | SLAVE | REPLICA | PUBSUB>] | [USER username] | [ADDR "
                             "ip:port] | [LADDR ip:port] | [SKIPME skipme=<YES | NO>] | [MAXAGE "
                             "maxage:integer]> ...>"),
    CLIENT_SUB_ADMIN("pause", clientPauseCommand, -3, "Suspends commands processing.",
                     .args = "timeout [mode=[WRITE | ALL]]"),
    CLIENT_SUB_ADMIN("unpause", clientUnpauseCommand, 2, "Resumes processing commands from paused clients."),
    CLIENT_SUB_ADMIN("unblock", clientUnblockCommand, -3,
               "Unblocks a client blocked by a blocking command from a different connection.",
               .args = "client-id:integer [unblock-type=[TIMEOUT | ERROR]]"),
    CLIENT_SUB_FLAGS("reply", clientReplyCommand, 3,
                     CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_SENTINEL | CMD_ALLOW_BUSY | CMD_NO_MULTI,
                     "Instructs the server whether to reply to commands.", .args = "action=<ON | OFF | SKIP>"),
    CLIENT_SUB_FLAGS("no-evict", clientNoEvictCommand, 3,
                     CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_SENTINEL | CMD_ALLOW_BUSY,
                     "Sets the client eviction mode of the connection.", .args = "enabled=<ON | OFF>"),
    CLIENT_SUB_BUSY("no-touch", clientNoTouchCommand, 3,
               "Controls whether commands sent by the client affect the LRU/LFU of accessed keys.",
               .args = "enabled=<ON | OFF>"),
    CLIENT_SUB("tracking", clientTrackingCommand, -3,
               "Controls server-assisted client-side caching for the connection.",
               .args = "status=<ON | OFF> [REDIRECT client-id:integer] [PREFIX prefix [prefix ...]] [BCAST] "
                       "[OPTIN] [OPTOUT] [NOLOOP]"),
    CLIENT_SUB("capa", clientCapaCommand, -3, "A client claims its capability.",
               .since = "8.0.0", .args = "capability [capability ...]"),
    CLIENT_SUB_BUSY("caching", clientCachingCommand, 3,
               "Instructs the server whether to track the keys in the next request.",
               .args = "mode=<YES | NO>"),
    CLIENT_SUB_BUSY("getredir", clientGetredirCommand, 2,
               "Returns the client ID to which the connection's tracking notifications are redirected."),
    CLIENT_SUB("trackinginfo", clientTrackinginfoCommand, 2,
               "Returns information about server-assisted client-side caching for the connection."),
    CLIENT_SUB_FLAGS("help", clientHelpCommand, 2, CMD_LOADING | CMD_STALE | CMD_SENTINEL,
                     "Returns helpful text about the different subcommands."),
    {0},
};
