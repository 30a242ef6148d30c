/* conn_rdma.c - the RDMA transport ("rdma"): Valkey's RDMA protocol over
 * RDMA CM and reliable-connection queue pairs, as a ConnectionType.
 *
 * The protocol itself (control messages, windows, WRITE WITH IMM) lives in
 * rdma.c; this file fits it into the event loop and the connection
 * contract of connection.h:
 *
 * - Listening: one RDMA CM event channel per listener, with one listening
 *   CM id per bind address. The channel's fd is the listener's pollable fd.
 *   CONNECT_REQUEST creates the connection (all verbs objects, receives
 *   posted) and hands it to listener->accept_cb; connAccept() then calls
 *   rdma_accept(). ESTABLISHED and DISCONNECTED of accepted connections
 *   arrive on the same channel, so it lives (refcounted) as long as any
 *   connection accepted through it, even after the listener was closed.
 * - Per connection the event loop watches the completion-channel fd
 *   (readable only). Its handler drains the CQ (rdmaEndpointPoll) and then
 *   runs the owner's handlers.
 * - Writability is emulated: no fd says "the peer re-advertised its
 *   window". A connection whose handlers have something to do that no fd
 *   event will announce (a write handler and TX room; a read handler and
 *   unread bytes in the RX buffer, or a close/error to report) sits on the
 *   pending list, which connTypesProcessPendingData() works through from
 *   the server's before-sleep hook; while it is non-empty the loop polls.
 * - Keepalive: one timer sends a Keepalive to every accepted peer every
 *   3 s; a dead peer surfaces as an error completion of that send.
 * - Closing lingers: RDMA has no FIN that follows the data, and a
 *   disconnect moves the queue pair to the error state, which discards
 *   posted writes not yet executed (a reply followed by a close: QUIT, an
 *   error before closing). A connection closed with writes in flight stays,
 *   detached from its owner, until they complete or RDMA_LINGER_MS passed,
 *   and only then disconnects.
 * - Any error completion or protocol violation drops the connection: it is
 *   logged ("RDMA: ..."), disconnected, and its owner is woken so that
 *   connRead() reports the error and the owner closes it.
 * - Connecting (a replica to its primary): each outgoing connection has
 *   its own CM event channel (a connRdmaChannel without a listener),
 *   watched by the event loop with the same handler as listeners'. Its
 *   events move it on: ADDR_RESOLVED -> resolve the route; ROUTE_RESOLVED
 *   -> create the endpoint (same protocol, window and RX size as accepted
 *   connections, rdma-rx-size) and rdma_connect(); ESTABLISHED -> our
 *   window is advertised and the state becomes CONNECTED, and the connect
 *   handler runs (through the pending list, like the accept handler). Any
 *   failure on the way (unresolvable address, nobody listening: REJECTED,
 *   unreachable, timeout) is logged "RDMA: cannot connect to ..." and the
 *   handler sees CONN_STATE_ERROR with that text in connGetLastError().
 *   The connecting side is the protocol's client: it answers no feature
 *   requests and sends no keepalives. connBlockingConnect() handles only
 *   its own events while it waits.
 * - Blocking waits (connWait, the connSync*() calls: handshakes, MIGRATE,
 *   the Lua debugger's SYNC sessions, which block the whole server until
 *   the client's next command) poll the completion channel and the
 *   connection's own CM event channel together, so a disconnect ends the
 *   wait as EOF after the data, as on TCP. An outgoing connection has its
 *   own channel from the start; an accepted one is moved off the
 *   listener's (rdma_migrate_id) at its first blocking wait, since nothing
 *   reads the shared channel while the loop is blocked. A wait on an
 *   accepted connection also sends the keepalives the timer cannot, so a
 *   peer that vanished without a disconnect fails the wait too.
 *
 * Handlers run through connCallHandler(), so one may close its own
 * connection: the verbs objects are released at once, the struct when the
 * last handler on the stack returns. Runs in the event-loop thread only. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "connection.h"
#include "conn_rdma.h"
#include "log.h"
#include "rdma.h"
#include "zmalloc.h"

#define RDMA_KEEPALIVE_MS 3000
#define RDMA_LINGER_MS 5000 /* Longest wait of a close for its writes. */
/* A blocking wait gives up on a peer that acknowledged nothing for this
 * long (its keepalives unanswered): the queue pair's own retries would
 * fail first on most devices, but a retry count of 7, which clients
 * commonly ask for, means "retry forever" to Soft-RoCE. */
#define RDMA_WAIT_PEER_TIMEOUT_MS 30000
#define RDMA_LISTEN_BACKLOG 128
#define RDMA_MAX_CHANNELS 4
#define RDMA_RESOLVE_TIMEOUT_MS 5000 /* rdma_resolve_addr/route, each. */

static ConnectionType CT_RDMA;

/* An RDMA CM event channel and the listening ids bound through it. */
typedef struct connRdmaChannel {
    struct rdma_event_channel *ec;
    connListener *listener;      /* NULL once the listener was closed. */
    struct rdma_cm_id *ids[CONN_BINDADDR_MAX]; /* Listening ids. */
    int nids;
    int refs;                    /* 1 for the listener + 1 per connection. */
    const connRdmaListenerConfig *cfg; /* The listener's; read at each accept (NULL: defaults). */
    int comp_vector;
} connRdmaChannel;

typedef struct rdmaConnection {
    connection c;                 /* Must be first. */
    rdmaEndpoint ep;              /* Verbs objects and protocol state. */
    struct rdma_cm_id *cm_id;     /* Owned; NULL once released. */
    connRdmaChannel *chan;        /* Channel our CM events arrive on (ref held). */
    int accepted;                 /* rdma_accept() or rdma_connect() was called. */
    int outgoing;                 /* We connect (connConnect). */
    int own_channel;              /* rc->chan is ours alone: outgoing, or taken for a blocking wait. */
    long long wait_keepalive_us;  /* Next keepalive a blocking wait sends (monotonic). */
    long long wait_unacked_us;    /* Since when a blocking wait sees a keepalive unacknowledged (0: none). */
    long long wait_last_us;       /* When the last blocking wait returned (monotonic). */
    char target[CONN_ADDR_STR_LEN + 8]; /* Outgoing: "host:port" asked for, for logs. */
    int established;              /* ESTABLISHED arrived (was CONNECTED). */
    int error_reported;           /* A handler ran after the failure. */
    int peer_closed;              /* DISCONNECTED seen: EOF after the data. */
    int released;                 /* Verbs/CM objects gone (closed). */
    int lingering;                /* Closed, waiting for its writes (RDMA_LINGER_MS). */
    long long linger_until_us;    /* Monotonic deadline of the linger. */
    int on_pending;
    struct rdmaConnection *pend_prev, *pend_next; /* Pending list. */
    struct rdmaConnection *prev, *next;           /* All live connections. */
    char errstr[RDMA_ERR_LEN + CONN_ADDR_STR_LEN + 64];
} rdmaConnection;

static connRdmaChannel *rdmaChannels[RDMA_MAX_CHANNELS];
static connRdmaListenerConfig *rdmaConfig; /* Sizes for outgoing connections (configure). */

/* The RX window of a connection set up now: rdma-rx-size as it is at this
 * moment, which CONFIG SET may have changed since the listener opened
 * (config.c writes it into the listener's configuration). */
static size_t rdmaRxSize(const connRdmaListenerConfig *cfg) {
    return cfg && cfg->rx_size > 0 ? (size_t)cfg->rx_size : RDMA_DEFAULT_RX_SIZE;
}
static rdmaConnection *rdmaConns;   /* All live connections (keepalive). */
static rdmaConnection *rdmaPending; /* Connections with handler work queued. */
static long long rdmaKeepaliveTimer = -1;

static void connRdmaClose(connection *conn);
static void connRdmaUpdatePending(rdmaConnection *rc);
static void connRdmaEventHandler(aeEventLoop *el, int fd, void *clientData, int mask);
static void connRdmaAcceptHandler(aeEventLoop *el, int fd, void *clientData, int mask);

/* ---------------------------------------------------------------------------
 * Lists
 * ------------------------------------------------------------------------- */

static void pendingAdd(rdmaConnection *rc) {
    if (rc->on_pending) return;
    rc->on_pending = 1;
    rc->pend_prev = NULL;
    rc->pend_next = rdmaPending;
    if (rdmaPending) rdmaPending->pend_prev = rc;
    rdmaPending = rc;
}

static void pendingRemove(rdmaConnection *rc) {
    if (!rc->on_pending) return;
    if (rc->pend_prev)
        rc->pend_prev->pend_next = rc->pend_next;
    else
        rdmaPending = rc->pend_next;
    if (rc->pend_next) rc->pend_next->pend_prev = rc->pend_prev;
    rc->on_pending = 0;
    rc->pend_prev = rc->pend_next = NULL;
}

static void connsAdd(rdmaConnection *rc) {
    rc->prev = NULL;
    rc->next = rdmaConns;
    if (rdmaConns) rdmaConns->prev = rc;
    rdmaConns = rc;
}

static void connsRemove(rdmaConnection *rc) {
    if (rc->prev)
        rc->prev->next = rc->next;
    else if (rdmaConns == rc)
        rdmaConns = rc->next;
    if (rc->next) rc->next->prev = rc->prev;
    rc->prev = rc->next = NULL;
}

/* ---------------------------------------------------------------------------
 * Addresses
 * ------------------------------------------------------------------------- */

/* Formats a sockaddr as ip and port. C_OK / C_ERR. */
static int sockaddrToString(const struct sockaddr *sa, char *ip, size_t ip_len, int *port) {
    if (sa == NULL) return C_ERR;
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *s = (const struct sockaddr_in *)sa;
        if (ip && inet_ntop(AF_INET, &s->sin_addr, ip, ip_len) == NULL) return C_ERR;
        if (port) *port = ntohs(s->sin_port);
        return C_OK;
    }
    if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)sa;
        if (ip && inet_ntop(AF_INET6, &s->sin6_addr, ip, ip_len) == NULL) return C_ERR;
        if (port) *port = ntohs(s->sin6_port);
        return C_OK;
    }
    return C_ERR;
}

static int connRdmaAddr(connection *conn, char *ip, size_t ip_len, int *port, int remote) {
    rdmaConnection *rc = (rdmaConnection *)conn;
    if (rc->cm_id == NULL) return C_ERR;
    struct sockaddr *sa = remote ? rdma_get_peer_addr(rc->cm_id) : rdma_get_local_addr(rc->cm_id);
    return sockaddrToString(sa, ip, ip_len, port);
}

static int connRdmaIsLocal(connection *conn) {
    char ip[CONN_ADDR_STR_LEN];
    if (connRdmaAddr(conn, ip, sizeof(ip), NULL, 1) != C_OK) return 0;
    return !strncmp(ip, "127.", 4) || !strcmp(ip, "::1") || !strncmp(ip, "::ffff:127.", 11);
}

/* "ip:port" of the peer for log lines. */
static const char *connRdmaPeer(rdmaConnection *rc, char *buf, size_t len) {
    connFormatAddr(&rc->c, buf, len, 1);
    return buf;
}

/* ---------------------------------------------------------------------------
 * Failure and handler dispatch
 * ------------------------------------------------------------------------- */

/* Drops rc after an error: logs it, disconnects the peer, puts the
 * connection in ERROR and queues its owner's handler so that the next
 * connRead()/connWrite() reports it. A flush (the QP was torn down because
 * the peer went away) is expected and logged verbosely. */
static void connRdmaFail(rdmaConnection *rc, int err, const char *what) {
    char peer[CONN_ADDR_STR_LEN + 8];
    if (rc->c.state == CONN_STATE_ERROR || rc->released) return;
    int quiet = rc->ep.failed_flushed || rc->peer_closed;
    serverLog(quiet ? LL_VERBOSE : LL_WARNING, "RDMA: dropping connection %s: %s",
              connRdmaPeer(rc, peer, sizeof(peer)), what);
    snprintf(rc->errstr, sizeof(rc->errstr), "RDMA: %s", what);
    rc->c.last_errno = err;
    rc->c.state = CONN_STATE_ERROR;
    if (rc->accepted && rc->cm_id) rdma_disconnect(rc->cm_id);
    connRdmaUpdatePending(rc);
}

/* What the owner's read handler can act on: data, end of stream, error. */
static int connRdmaWantsRead(rdmaConnection *rc) {
    if (!rc->c.read_handler || rc->released) return 0;
    /* A failure before ESTABLISHED is reported to the accept handler only. */
    if (rc->c.state == CONN_STATE_ERROR) return rc->established && !rc->error_reported;
    if (rc->c.state == CONN_STATE_CLOSED) return 0; /* read() already returned 0. */
    if (rc->c.state != CONN_STATE_CONNECTED) return 0;
    return rdmaEndpointReadable(&rc->ep) > 0 || rc->peer_closed;
}

static int connRdmaWantsWrite(rdmaConnection *rc) {
    if (!rc->c.write_handler || rc->released) return 0;
    if (rc->c.state == CONN_STATE_ERROR) return rc->established && !rc->error_reported && !rc->c.read_handler;
    if (rc->c.state != CONN_STATE_CONNECTED) return 0;
    return rc->peer_closed || rdmaEndpointWritable(&rc->ep) > 0;
}

/* The accept handler waits for ESTABLISHED (or a failure). */
static int connRdmaWantsConnHandler(rdmaConnection *rc) {
    return rc->c.conn_handler && !rc->released && rc->c.state != CONN_STATE_ACCEPTING &&
           rc->c.state != CONN_STATE_CONNECTING;
}

static void connRdmaUpdatePending(rdmaConnection *rc) {
    if (connRdmaWantsConnHandler(rc) || connRdmaWantsRead(rc) || connRdmaWantsWrite(rc))
        pendingAdd(rc);
    else
        pendingRemove(rc);
}

/* Runs whichever of rc's handlers has work, in the order the write barrier
 * asks. A failure is reported to the owner once (to the accept handler if
 * the connection never got established, else to the read handler), so an
 * owner that is slow to close does not keep the loop spinning. Returns 1
 * if rc is still usable, 0 if a handler closed it. */
static int connRdmaRunHandlers(rdmaConnection *rc) {
    connection *conn = &rc->c;
    if (connRdmaWantsConnHandler(rc)) {
        ConnectionCallbackFunc h = conn->conn_handler;
        conn->conn_handler = NULL;
        if (conn->state == CONN_STATE_ERROR) rc->error_reported = 1;
        if (!connCallHandler(conn, h)) return 0;
    }
    if (conn->state == CONN_STATE_ERROR && (connRdmaWantsRead(rc) || connRdmaWantsWrite(rc))) {
        rc->error_reported = 1;
        ConnectionCallbackFunc h = conn->read_handler ? conn->read_handler : conn->write_handler;
        if (!connCallHandler(conn, h)) return 0;
        connRdmaUpdatePending(rc);
        return 1;
    }
    int barrier = conn->flags & CONN_FLAG_WRITE_BARRIER;
    if (!barrier && connRdmaWantsRead(rc)) {
        if (!connCallHandler(conn, conn->read_handler)) return 0;
    }
    if (connRdmaWantsWrite(rc)) {
        if (!connCallHandler(conn, conn->write_handler)) return 0;
    }
    if (barrier && connRdmaWantsRead(rc)) {
        if (!connCallHandler(conn, conn->read_handler)) return 0;
    }
    connRdmaUpdatePending(rc);
    return 1;
}

/* The aeFileProc of a connection's completion-channel fd. */
static void connRdmaEventHandler(aeEventLoop *el, int fd, void *clientData, int mask) {
    rdmaConnection *rc = clientData;
    if (rc->released) return;
    if (rc->lingering) {
        rdmaEndpointPoll(&rc->ep); /* Completions of its last writes (or a failure: done too). */
        connRdmaClose(&rc->c);
        return;
    }
    if (rdmaEndpointPoll(&rc->ep) == -1) {
        /* After DISCONNECTED the QP flushes its receives: expected, and the
         * data that landed before stays readable until EOF. */
        if (!(rc->peer_closed && rc->ep.failed_flushed))
            connRdmaFail(rc, rc->ep.failed_flushed ? ECONNRESET : EPROTO, rc->ep.err);
    }
    connRdmaRunHandlers(rc);
}

static int connRdmaHasPendingData(void) {
    return rdmaPending != NULL;
}

/* Runs the handlers of every pending connection once. A snapshot of the
 * list is taken with a reference on each entry, so handlers may close any
 * connection (their own or another) while we iterate. */
static int connRdmaProcessPendingData(void) {
    int n = 0;
    for (rdmaConnection *rc = rdmaPending; rc; rc = rc->pend_next) n++;
    if (n == 0) return 0;
    rdmaConnection **snap = zmalloc(sizeof(*snap) * n);
    int j = 0;
    for (rdmaConnection *rc = rdmaPending; rc; rc = rc->pend_next) {
        snap[j++] = rc;
        connIncrRefs(&rc->c);
    }
    int processed = 0;
    for (j = 0; j < n; j++) {
        rdmaConnection *rc = snap[j];
        if (rc->c.flags & CONN_FLAG_CLOSE_SCHEDULED || rc->released) continue;
        connRdmaRunHandlers(rc);
        processed++;
    }
    for (j = 0; j < n; j++) {
        rdmaConnection *rc = snap[j];
        connDecrRefs(&rc->c);
        if ((rc->c.flags & CONN_FLAG_CLOSE_SCHEDULED) && !connHasRefs(&rc->c)) connRdmaClose(&rc->c);
    }
    zfree(snap);
    return processed;
}

/* ---------------------------------------------------------------------------
 * Connection lifetime
 * ------------------------------------------------------------------------- */

static void channelUnref(connRdmaChannel *ch);

/* How many one-sided READs each side may have outstanding at the other
 * (a replica pulling a snapshot region): RDMA_READ_DEPTH, or less if the
 * device cannot. The CM settles on what both sides allow. */
static void connRdmaSetReadDepth(struct rdma_cm_id *cm_id, struct rdma_conn_param *param) {
    struct ibv_device_attr attr;
    int depth = RDMA_READ_DEPTH, init = RDMA_READ_DEPTH;
    if (cm_id->verbs && ibv_query_device(cm_id->verbs, &attr) == 0) {
        if (attr.max_qp_rd_atom < depth) depth = attr.max_qp_rd_atom;
        if (attr.max_qp_init_rd_atom < init) init = attr.max_qp_init_rd_atom;
    } else {
        depth = init = 1;
    }
    param->responder_resources = (uint8_t)(depth > 0 ? depth : 1);
    param->initiator_depth = (uint8_t)(init > 0 ? init : 1);
}

static connection *connCreateRdma(void) {
    rdmaConnection *rc = zcalloc(sizeof(*rc));
    rc->c.type = &CT_RDMA;
    rc->c.fd = -1;
    rc->c.state = CONN_STATE_NONE;
    return &rc->c;
}

/* Builds the connection for a CONNECT_REQUEST on ch: every verbs object,
 * receives posted, completion fd watched. Returns NULL (logged, nothing
 * left allocated, cm_id untouched) on failure. */
static rdmaConnection *connRdmaCreateAccepted(connRdmaChannel *ch, struct rdma_cm_id *cm_id) {
    rdmaConnection *rc = (rdmaConnection *)connCreateRdma();
    if (rdmaEndpointCreate(&rc->ep, cm_id, rdmaRxSize(ch->cfg), ch->comp_vector, 1) != C_OK) {
        serverLog(LL_WARNING, "RDMA: cannot set up an accepted connection: %s", rc->ep.err);
        zfree(rc);
        return NULL;
    }
    rc->c.fd = rc->ep.comp_channel->fd;
    if (aeCreateFileEvent(connGetEventLoop(), rc->c.fd, AE_READABLE, connRdmaEventHandler, rc) == AE_ERR) {
        serverLog(LL_WARNING, "RDMA: cannot watch completion channel fd %d: %s", rc->c.fd, strerror(errno));
        rdmaEndpointRelease(&rc->ep);
        zfree(rc);
        return NULL;
    }
    rc->cm_id = cm_id;
    cm_id->context = rc;
    rc->chan = ch;
    ch->refs++;
    rc->c.state = CONN_STATE_ACCEPTING;
    connsAdd(rc);
    return rc;
}

/* connection.h: conn_create_accepted. RDMA connections are created from
 * CM events, never from an fd, so this is not supported. */
static connection *connRdmaCreateAcceptedFd(int fd, void *priv) {
    return NULL;
}

/* Sends rdma_accept(); the handler runs once ESTABLISHED (or a failure)
 * arrives on the listener's channel. Returns C_OK, or C_ERR (state ERROR)
 * if the accept could not be sent. */
static int connRdmaAccept(connection *conn, ConnectionCallbackFunc accept_handler) {
    rdmaConnection *rc = (rdmaConnection *)conn;
    if (conn->state != CONN_STATE_ACCEPTING || rc->cm_id == NULL) return C_ERR;
    struct rdma_conn_param param = {
        .retry_count = 7,
        .rnr_retry_count = 7,
    };
    connRdmaSetReadDepth(rc->cm_id, &param);
    if (rdma_accept(rc->cm_id, &param) != 0) {
        conn->last_errno = errno;
        conn->state = CONN_STATE_ERROR;
        snprintf(rc->errstr, sizeof(rc->errstr), "RDMA: rdma_accept failed: %s", strerror(errno));
        return C_ERR;
    }
    rc->accepted = 1;
    conn->conn_handler = accept_handler;
    return C_OK;
}

/* Opens an RDMA CM event channel, non-blocking and close-on-exec.
 * Returns it, or NULL with errno set. */
static struct rdma_event_channel *openEventChannel(void) {
    struct rdma_event_channel *ec = rdma_create_event_channel();
    if (ec == NULL) return NULL;
    int flags = fcntl(ec->fd, F_GETFL);
    if (flags == -1 || fcntl(ec->fd, F_SETFL, flags | O_NONBLOCK) == -1) {
        int saved = errno;
        rdma_destroy_event_channel(ec);
        errno = saved;
        return NULL;
    }
    fcntl(ec->fd, F_SETFD, FD_CLOEXEC);
    return ec;
}

/* Ends an outgoing connect: logs why, keeps the text for
 * connGetLastError() and puts conn in ERROR, so the connect handler (if
 * any) runs and sees it. */
static void connRdmaConnectFailed(rdmaConnection *rc, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void connRdmaConnectFailed(rdmaConnection *rc, int err, const char *fmt, ...) {
    char what[RDMA_ERR_LEN];
    va_list ap;
    if (rc->c.state == CONN_STATE_ERROR) return;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    serverLog(LL_WARNING, "RDMA: cannot connect to %s: %s", rc->target, what);
    snprintf(rc->errstr, sizeof(rc->errstr), "RDMA: cannot connect to %s: %s", rc->target, what);
    rc->c.last_errno = err;
    rc->c.state = CONN_STATE_ERROR;
    connRdmaUpdatePending(rc);
}

/* A CM event status is a negative errno for most failures; map it to
 * something strerror() can say. */
static int cmStatusErrno(int status, int fallback) {
    return status < 0 ? -status : fallback;
}

/* ROUTE_RESOLVED: builds the endpoint (our window is rdma-rx-size, as for
 * accepted connections; receives posted before the request goes out, so
 * the peer's first RegisterXferMemory always finds one), watches its
 * completion channel and sends the connect request. */
static void connRdmaStartConnect(rdmaConnection *rc) {
    size_t rx_size = rdmaRxSize(rdmaConfig);
    int comp_vector = rdmaConfig ? rdmaConfig->comp_vector : -1;
    if (rdmaEndpointCreate(&rc->ep, rc->cm_id, rx_size, comp_vector, 0) != C_OK) {
        connRdmaConnectFailed(rc, EIO, "%s", rc->ep.err);
        return;
    }
    rc->c.fd = rc->ep.comp_channel->fd;
    if (aeCreateFileEvent(connGetEventLoop(), rc->c.fd, AE_READABLE, connRdmaEventHandler, rc) == AE_ERR) {
        int saved = errno;
        rc->c.fd = -1;
        rdmaEndpointRelease(&rc->ep);
        connRdmaConnectFailed(rc, saved, "cannot watch the completion channel: %s", strerror(saved));
        return;
    }
    struct rdma_conn_param param = {
        .retry_count = 7,
        .rnr_retry_count = 7, /* Retry forever while the peer has no receive posted. */
    };
    connRdmaSetReadDepth(rc->cm_id, &param);
    if (rdma_connect(rc->cm_id, &param) != 0) {
        connRdmaConnectFailed(rc, errno, "rdma_connect: %s", strerror(errno));
        return;
    }
    rc->accepted = 1; /* From now on a close disconnects. */
}

/* A CM event of an outgoing connection that is still connecting (until
 * ESTABLISHED, which connRdmaHandleConnEvent() handles for both kinds).
 * Returns 1 if handled here. */
static int connRdmaHandleConnectEvent(rdmaConnection *rc, enum rdma_cm_event_type type, int status) {
    switch (type) {
    case RDMA_CM_EVENT_ADDR_RESOLVED:
        if (rdma_resolve_route(rc->cm_id, RDMA_RESOLVE_TIMEOUT_MS) != 0)
            connRdmaConnectFailed(rc, errno, "rdma_resolve_route: %s", strerror(errno));
        return 1;
    case RDMA_CM_EVENT_ROUTE_RESOLVED: connRdmaStartConnect(rc); return 1;
    case RDMA_CM_EVENT_ADDR_ERROR:
        connRdmaConnectFailed(rc, cmStatusErrno(status, EHOSTUNREACH),
                              "cannot resolve the address to an RDMA device: %s",
                              strerror(cmStatusErrno(status, EHOSTUNREACH)));
        return 1;
    case RDMA_CM_EVENT_ROUTE_ERROR:
        connRdmaConnectFailed(rc, cmStatusErrno(status, EHOSTUNREACH), "cannot resolve a route: %s",
                              strerror(cmStatusErrno(status, EHOSTUNREACH)));
        return 1;
    case RDMA_CM_EVENT_REJECTED:
        /* IB CM reject reason 8 is "invalid service ID": nobody listens. */
        if (status == 8 || status == -ECONNREFUSED)
            connRdmaConnectFailed(rc, ECONNREFUSED, "connection refused (no RDMA listener on that address and port)");
        else
            connRdmaConnectFailed(rc, ECONNREFUSED, "connection refused by the peer (reject reason %d)", status);
        return 1;
    case RDMA_CM_EVENT_UNREACHABLE:
    case RDMA_CM_EVENT_CONNECT_ERROR:
        connRdmaConnectFailed(rc, cmStatusErrno(status, ETIMEDOUT), "%s (%s)",
                              strerror(cmStatusErrno(status, ETIMEDOUT)), rdma_event_str(type));
        return 1;
    case RDMA_CM_EVENT_DISCONNECTED:
    case RDMA_CM_EVENT_DEVICE_REMOVAL:
        connRdmaConnectFailed(rc, ECONNRESET, "%s", rdma_event_str(type));
        return 1;
    default: return 0;
    }
}

/* Starts connecting to addr:port (a name or a numeric address; src, if
 * given, is the local address to connect from): creates the connection's
 * own CM event channel and id and asks the CM to resolve the address; the
 * CM events do the rest (see the top comment). connect_handler runs once
 * the connection is CONNECTED or failed. Returns C_OK, or C_ERR (state
 * ERROR, reason in connGetLastError(); nothing to wait for) if the connect
 * could not even start. The caller closes conn either way when done. */
static int connRdmaConnect(connection *conn, const char *addr, int port, const char *src,
                           ConnectionCallbackFunc connect_handler) {
    rdmaConnection *rc = (rdmaConnection *)conn;
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *dst = NULL, *from = NULL;
    char portstr[16];
    if (conn->state != CONN_STATE_NONE) return C_ERR;
    rc->outgoing = 1;
    rc->own_channel = 1;
    snprintf(rc->target, sizeof(rc->target), strchr(addr, ':') ? "[%s]:%d" : "%s:%d", addr, port);
    conn->state = CONN_STATE_CONNECTING;
    snprintf(portstr, sizeof(portstr), "%d", port);
    int gai = getaddrinfo(addr, portstr, &hints, &dst);
    if (gai != 0) {
        connRdmaConnectFailed(rc, EHOSTUNREACH, "%s", gai_strerror(gai));
        return C_ERR;
    }
    if (src) {
        struct addrinfo shints = {.ai_family = dst->ai_family, .ai_flags = AI_PASSIVE};
        gai = getaddrinfo(src, NULL, &shints, &from);
        if (gai != 0) {
            freeaddrinfo(dst);
            connRdmaConnectFailed(rc, EADDRNOTAVAIL, "source address %s: %s", src, gai_strerror(gai));
            return C_ERR;
        }
    }

    connRdmaChannel *ch = zcalloc(sizeof(*ch));
    ch->ec = openEventChannel();
    if (ch->ec == NULL) {
        connRdmaConnectFailed(rc, errno, "cannot open the RDMA CM: %s (is rdma_ucm loaded?)", strerror(errno));
        zfree(ch);
        goto fail;
    }
    if (aeCreateFileEvent(connGetEventLoop(), ch->ec->fd, AE_READABLE, connRdmaAcceptHandler, ch) == AE_ERR) {
        connRdmaConnectFailed(rc, errno, "cannot watch the CM event channel: %s", strerror(errno));
        rdma_destroy_event_channel(ch->ec);
        zfree(ch);
        goto fail;
    }
    ch->refs = 1; /* Held by rc alone. */
    rc->chan = ch;
    connsAdd(rc);
    if (rdma_create_id(ch->ec, &rc->cm_id, rc, RDMA_PS_TCP) != 0) {
        rc->cm_id = NULL;
        connRdmaConnectFailed(rc, errno, "rdma_create_id: %s", strerror(errno));
        goto fail;
    }
    if (rdma_resolve_addr(rc->cm_id, from ? from->ai_addr : NULL, dst->ai_addr, RDMA_RESOLVE_TIMEOUT_MS) != 0) {
        connRdmaConnectFailed(rc, errno, "rdma_resolve_addr: %s", strerror(errno));
        goto fail;
    }
    freeaddrinfo(dst);
    if (from) freeaddrinfo(from);
    conn->conn_handler = connect_handler;
    return C_OK;

fail:
    freeaddrinfo(dst);
    if (from) freeaddrinfo(from);
    return C_ERR;
}

/* Connects and waits for the connection (at most timeout ms; <= 0 = no
 * limit), handling only this connection's CM events meanwhile. Returns
 * C_OK when CONNECTED (the peer's window may still be on its way: the
 * first write waits for it), C_ERR (state ERROR, logged) otherwise. */
static int connRdmaBlockingConnect(connection *conn, const char *addr, int port, long long timeout) {
    rdmaConnection *rc = (rdmaConnection *)conn;
    if (connRdmaConnect(conn, addr, port, NULL, NULL) != C_OK) return C_ERR;
    long long deadline = timeout > 0 ? aeMonotonicUs() + timeout * 1000 : -1;
    while (conn->state == CONN_STATE_CONNECTING) {
        long long ms = 100;
        if (deadline != -1) {
            long long left = deadline - aeMonotonicUs();
            if (left <= 0) {
                connRdmaConnectFailed(rc, ETIMEDOUT, "timed out");
                return C_ERR;
            }
            if (left / 1000 + 1 < ms) ms = left / 1000 + 1;
        }
        aeWait(rc->chan->ec->fd, AE_READABLE, ms);
        connRdmaAcceptHandler(connGetEventLoop(), rc->chan->ec->fd, rc->chan, AE_READABLE);
    }
    return conn->state == CONN_STATE_CONNECTED ? C_OK : C_ERR;
}

/* Disconnects (the peer sees DISCONNECTED); conn stays allocated. */
static void connRdmaShutdown(connection *conn) {
    rdmaConnection *rc = (rdmaConnection *)conn;
    if (rc->cm_id && rc->accepted) rdma_disconnect(rc->cm_id);
}

/* Releases every RDMA object of rc at once (idempotent). */
static void connRdmaRelease(rdmaConnection *rc) {
    if (rc->released) return;
    rc->released = 1;
    pendingRemove(rc);
    connsRemove(rc);
    if (rc->c.fd != -1) aeDeleteFileEvent(connGetEventLoop(), rc->c.fd, AE_READABLE | AE_WRITABLE);
    rc->c.fd = -1;
    if (rc->cm_id) {
        if (rc->accepted)
            rdma_disconnect(rc->cm_id);
        else if (!rc->outgoing)
            rdma_reject(rc->cm_id, NULL, 0); /* Refused before accept (maxclients...). */
    }
    rdmaEndpointRelease(&rc->ep);
    if (rc->cm_id) {
        rc->cm_id->context = NULL;
        rdma_destroy_id(rc->cm_id);
        rc->cm_id = NULL;
    }
    if (rc->chan) channelUnref(rc->chan);
    rc->chan = NULL;
}

/* 1 if rc has posted writes that a disconnect now could discard. */
static int connRdmaHasWritesInFlight(rdmaConnection *rc) {
    return rc->c.state == CONN_STATE_CONNECTED && rc->established && !rc->peer_closed && !rc->ep.failed &&
           rc->ep.send_inflight > 0;
}

/* A lingering connection may go once its writes completed, the peer left,
 * the endpoint failed, or the deadline passed. */
static int connRdmaLingerDone(rdmaConnection *rc) {
    return !connRdmaHasWritesInFlight(rc) || aeMonotonicUs() >= rc->linger_until_us;
}

/* Releases the RDMA objects (a connection with writes in flight lingers
 * first, see the top comment) and frees conn, unless one of its handlers
 * is running: then the free waits for connCallHandler(). Called again when
 * a linger ends. */
static void connRdmaClose(connection *conn) {
    rdmaConnection *rc = (rdmaConnection *)conn;
    conn->read_handler = conn->write_handler = conn->conn_handler = NULL;
    if (!rc->lingering && !rc->released && connRdmaHasWritesInFlight(rc)) {
        rc->lingering = 1;
        rc->linger_until_us = aeMonotonicUs() + RDMA_LINGER_MS * 1000LL;
        pendingRemove(rc);
    }
    if (rc->lingering) {
        if (!connRdmaLingerDone(rc)) return;
        rc->lingering = 0;
    }
    connRdmaRelease(rc);
    if (connHasRefs(conn)) {
        conn->flags |= CONN_FLAG_CLOSE_SCHEDULED;
        return;
    }
    zfree(rc);
}

/* ---------------------------------------------------------------------------
 * I/O
 * ------------------------------------------------------------------------- */

/* -1 with errno for a connection that cannot do I/O. */
static ssize_t connRdmaNotUsable(rdmaConnection *rc) {
    if (rc->c.state == CONN_STATE_ERROR) {
        errno = rc->c.last_errno ? rc->c.last_errno : ECONNRESET;
    } else {
        errno = ENOTCONN;
        if (!rc->c.last_errno) rc->c.last_errno = ENOTCONN;
        if (rc->c.state == CONN_STATE_CONNECTED || rc->c.state == CONN_STATE_ACCEPTING)
            rc->c.state = CONN_STATE_ERROR;
    }
    return -1;
}

static ssize_t connRdmaRead(connection *conn, void *buf, size_t buf_len) {
    rdmaConnection *rc = (rdmaConnection *)conn;
    if (rc->released || conn->state != CONN_STATE_CONNECTED) {
        if (conn->state == CONN_STATE_CLOSED) return 0;
        return connRdmaNotUsable(rc);
    }
    ssize_t n = rdmaEndpointRead(&rc->ep, buf, buf_len);
    if (n == -1) {
        connRdmaFail(rc, EIO, rc->ep.err);
        rc->error_reported = 1; /* The caller sees it now. */
        errno = EIO;
        return -1;
    }
    if (n == 0) {
        if (rc->peer_closed) {
            conn->state = CONN_STATE_CLOSED;
            return 0;
        }
        errno = EAGAIN;
        return -1;
    }
    connRdmaUpdatePending(rc);
    return n;
}

static ssize_t connRdmaWritev(connection *conn, const struct iovec *iov, int iovcnt) {
    rdmaConnection *rc = (rdmaConnection *)conn;
    if (rc->released || conn->state != CONN_STATE_CONNECTED) return connRdmaNotUsable(rc);
    if (rc->peer_closed) {
        conn->last_errno = EPIPE;
        conn->state = CONN_STATE_ERROR;
        rc->error_reported = 1;
        errno = EPIPE;
        return -1;
    }
    ssize_t n = rdmaEndpointWritev(&rc->ep, iov, iovcnt);
    if (n == -1) {
        connRdmaFail(rc, EIO, rc->ep.err);
        rc->error_reported = 1; /* The caller sees it now. */
        errno = EIO;
        return -1;
    }
    if (n == 0) {
        errno = EAGAIN;
        return -1;
    }
    connRdmaUpdatePending(rc);
    return n;
}

static ssize_t connRdmaWrite(connection *conn, const void *data, size_t data_len) {
    struct iovec iov = {.iov_base = (void *)data, .iov_len = data_len};
    return connRdmaWritev(conn, &iov, 1);
}

static int connRdmaSetReadHandler(connection *conn, ConnectionCallbackFunc func) {
    conn->read_handler = func;
    connRdmaUpdatePending((rdmaConnection *)conn);
    return C_OK;
}

static int connRdmaSetWriteHandler(connection *conn, ConnectionCallbackFunc func, int barrier) {
    conn->write_handler = func;
    if (barrier)
        conn->flags |= CONN_FLAG_WRITE_BARRIER;
    else
        conn->flags &= ~CONN_FLAG_WRITE_BARRIER;
    connRdmaUpdatePending((rdmaConnection *)conn);
    return C_OK;
}

/* Gives an accepted connection a CM event channel of its own, for a
 * blocking wait: its events (DISCONNECTED above all) otherwise arrive on
 * the listener's channel, shared with every other connection accepted
 * there and with new connection requests, which nothing reads while the
 * loop is blocked. rdma_migrate_id() moves the id, and the events already
 * queued for it, to the new channel; the event loop watches that channel
 * from now on, as it does an outgoing connection's. Once per connection.
 * Returns C_OK, or C_ERR (logged, nothing changed: the wait then cannot
 * see a disconnect, only a failed keepalive). */
static int connRdmaTakeOwnChannel(rdmaConnection *rc) {
    if (rc->own_channel) return C_OK;
    if (rc->chan == NULL || rc->cm_id == NULL) return C_ERR;
    connRdmaChannel *ch = zcalloc(sizeof(*ch));
    ch->ec = openEventChannel();
    if (ch->ec == NULL) {
        serverLog(LL_WARNING, "RDMA: cannot open a CM event channel for a blocking wait: %s", strerror(errno));
        zfree(ch);
        return C_ERR;
    }
    if (rdma_migrate_id(rc->cm_id, ch->ec) != 0) {
        serverLog(LL_WARNING, "RDMA: rdma_migrate_id failed: %s", strerror(errno));
        rdma_destroy_event_channel(ch->ec);
        zfree(ch);
        return C_ERR;
    }
    /* The id is on ch now, whatever follows: a failure to watch ch only
     * delays its events to the next blocking wait. */
    if (aeCreateFileEvent(connGetEventLoop(), ch->ec->fd, AE_READABLE, connRdmaAcceptHandler, ch) == AE_ERR)
        serverLog(LL_WARNING, "RDMA: cannot watch a connection's CM event channel: %s", strerror(errno));
    ch->refs = 1; /* Held by rc alone. */
    channelUnref(rc->chan);
    rc->chan = ch;
    rc->own_channel = 1;
    return C_OK;
}

/* During a blocking wait, takes the CM events of a connection whose
 * channel is its own, so that a disconnect ends the wait as EOF after the
 * data, as on TCP, instead of never (no deadline) or at the deadline. Runs
 * no handler: the caller is inside one. */
static void connRdmaWaitCmEvents(rdmaConnection *rc) {
    struct rdma_cm_event *ev;
    if (!rc->own_channel || rc->chan == NULL) return;
    while (rdma_get_cm_event(rc->chan->ec, &ev) == 0) {
        enum rdma_cm_event_type type = ev->event;
        int status = ev->status;
        rdma_ack_cm_event(ev);
        if (type == RDMA_CM_EVENT_DISCONNECTED) {
            rc->peer_closed = 1;
            /* Data that landed before the disconnect stays readable; the
             * flush errors of the torn-down QP are expected now. */
            if (rdmaEndpointPoll(&rc->ep) == -1 && !rc->ep.failed_flushed) connRdmaFail(rc, EPROTO, rc->ep.err);
            connRdmaUpdatePending(rc);
        } else if (type != RDMA_CM_EVENT_TIMEWAIT_EXIT && type != RDMA_CM_EVENT_ESTABLISHED) {
            char what[96];
            snprintf(what, sizeof(what), "CM event %s (status %d)", rdma_event_str(type), status);
            connRdmaFail(rc, ECONNRESET, what);
        }
    }
}

/* Sends a Keepalive to an accepted peer if one is due: the keepalive timer
 * does not run while the loop is blocked, and without traffic a peer that
 * vanished without a disconnect (its host died, the wire was cut) would
 * never be noticed. The send fails once the queue pair's retries are
 * exhausted; a peer that has not acknowledged the previous keepalive for
 * RDMA_WAIT_PEER_TIMEOUT_MS is dropped here (sends complete in order, so
 * anything still in flight means the last keepalive is unacknowledged). */
static void connRdmaWaitKeepalive(rdmaConnection *rc, long long now) {
    if (rc->outgoing || rc->peer_closed) return;
    if (rc->wait_keepalive_us == 0) rc->wait_keepalive_us = now + RDMA_KEEPALIVE_MS * 1000LL; /* First wait. */
    if (now < rc->wait_keepalive_us) return;
    rc->wait_keepalive_us = now + RDMA_KEEPALIVE_MS * 1000LL;
    if (rc->ep.send_inflight == 0) {
        rc->wait_unacked_us = 0;
    } else if (rc->wait_unacked_us == 0) {
        rc->wait_unacked_us = now;
    } else if (now - rc->wait_unacked_us >= RDMA_WAIT_PEER_TIMEOUT_MS * 1000LL) {
        char what[96];
        snprintf(what, sizeof(what), "peer unreachable: keepalives unacknowledged for %d s",
                 RDMA_WAIT_PEER_TIMEOUT_MS / 1000);
        connRdmaFail(rc, ETIMEDOUT, what);
        return;
    }
    if (rc->ep.send_inflight >= RDMA_MAX_SEND_WR - RDMA_SEND_RESERVE) return; /* Those probe it already. */
    rdmaCtrlMsg ka = {.opcode = RDMA_OP_KEEPALIVE};
    if (rdmaEndpointSendCtrl(&rc->ep, &ka) != C_OK) connRdmaFail(rc, EIO, rc->ep.err);
}

/* ConnectionType.wait, for blocking I/O (handshakes, MIGRATE, the Lua
 * debugger's SYNC sessions): waits until the completion channel or the
 * connection's own CM event channel has something, or the deadline
 * (monotonic us, -1 = none) passes, for either direction (mask is moot:
 * a completion may free a send slot or bring data). An accepted
 * connection is first given its own CM channel (connRdmaTakeOwnChannel)
 * and is sent keepalives meanwhile. Returns C_OK when something was
 * polled (a disconnect too: the next read sees EOF), C_ERR (errno
 * ETIMEDOUT or the connection's error) otherwise. */
static int connRdmaWait(connection *conn, int mask, long long deadline_us) {
    rdmaConnection *rc = (rdmaConnection *)conn;
    (void)mask;
    if (rc->released || rc->c.state != CONN_STATE_CONNECTED) {
        connRdmaNotUsable(rc);
        return C_ERR;
    }
    if (!rc->outgoing) connRdmaTakeOwnChannel(rc);
    if (aeMonotonicUs() - rc->wait_last_us > RDMA_KEEPALIVE_MS * 1000LL) {
        /* Not a continuation of the previous wait: start counting anew. */
        rc->wait_keepalive_us = rc->wait_unacked_us = 0;
    }
    for (;;) {
        long long now = aeMonotonicUs();
        if (deadline_us != -1 && now >= deadline_us) {
            errno = ETIMEDOUT;
            return C_ERR;
        }
        connRdmaWaitKeepalive(rc, now);
        if (rc->c.state == CONN_STATE_ERROR) break;
        long long ms = RDMA_KEEPALIVE_MS;
        if (!rc->own_channel) ms = 10; /* Its CM events are not ours to see: poll. */
        if (deadline_us != -1 && (deadline_us - now) / 1000 + 1 < ms) ms = (deadline_us - now) / 1000 + 1;
        struct pollfd pfd[2] = {{.fd = rc->c.fd, .events = POLLIN}, {.fd = -1, .events = POLLIN}};
        if (rc->own_channel && rc->chan) pfd[1].fd = rc->chan->ec->fd;
        int ready = poll(pfd, 2, (int)ms);
        if (ready == -1 && errno != EINTR) {
            connRdmaFail(rc, errno, "poll failed in a blocking wait");
            break;
        }
        if (ready <= 0 && rc->own_channel) continue; /* Time for a keepalive, or the deadline. */
        if (rdmaEndpointPoll(&rc->ep) == -1 && !(rc->peer_closed && rc->ep.failed_flushed))
            connRdmaFail(rc, rc->ep.failed_flushed ? ECONNRESET : EPROTO, rc->ep.err);
        connRdmaWaitCmEvents(rc);
        break;
    }
    rc->wait_last_us = aeMonotonicUs();
    if (rc->c.state == CONN_STATE_ERROR) {
        errno = rc->c.last_errno ? rc->c.last_errno : ECONNRESET;
        return C_ERR;
    }
    return C_OK;
}

static const char *connRdmaGetLastError(connection *conn) {
    rdmaConnection *rc = (rdmaConnection *)conn;
    if (rc->errstr[0]) return rc->errstr;
    return conn->last_errno ? strerror(conn->last_errno) : NULL;
}

static const char *connRdmaGetType(connection *conn) {
    return CONN_NAME_RDMA;
}

/* CLIENT LIST details: the pollable fd and the queue pair number. */
static const char *connRdmaGetInfo(connection *conn, char *buf, size_t buf_len) {
    rdmaConnection *rc = (rdmaConnection *)conn;
    unsigned qpn = rc->cm_id && rc->cm_id->qp ? rc->cm_id->qp->qp_num : 0;
    snprintf(buf, buf_len, "fd=%d qp=%u", conn->fd, qpn);
    return buf;
}

/* The RDMA transport checks integrity itself (ICRC / link CRC). */
static int connRdmaIntegrityChecked(void) {
    return 1;
}

/* A forked child cannot serve an RDMA connection: the buffers the queue
 * pair reads and writes are registered do-not-fork, so the child has no
 * copy of them (and must not touch the verbs objects either). */
static int connRdmaUsableAfterFork(void) {
    return 0;
}

/* ---------------------------------------------------------------------------
 * Keepalive
 * ------------------------------------------------------------------------- */

static int connRdmaKeepaliveCron(struct aeEventLoop *el, long long id, void *clientData) {
    rdmaCtrlMsg ka = {.opcode = RDMA_OP_KEEPALIVE};
    for (rdmaConnection *rc = rdmaConns, *next; rc; rc = next) {
        next = rc->next;
        if (rc->lingering) {
            connRdmaClose(&rc->c); /* Ends the linger if its deadline passed. */
            continue;
        }
        if (rc->c.state != CONN_STATE_CONNECTED || rc->peer_closed || rc->released || rc->outgoing) continue;
        /* A send queue full of unacknowledged writes already probes the peer. */
        if (rc->ep.send_inflight >= RDMA_MAX_SEND_WR - RDMA_SEND_RESERVE) continue;
        if (rdmaEndpointSendCtrl(&rc->ep, &ka) != C_OK) connRdmaFail(rc, EIO, rc->ep.err);
    }
    return RDMA_KEEPALIVE_MS;
}

/* ---------------------------------------------------------------------------
 * Listening and CM events
 * ------------------------------------------------------------------------- */

static void channelUnref(connRdmaChannel *ch) {
    if (--ch->refs > 0) return;
    aeDeleteFileEvent(connGetEventLoop(), ch->ec->fd, AE_READABLE);
    rdma_destroy_event_channel(ch->ec);
    for (int j = 0; j < RDMA_MAX_CHANNELS; j++) {
        if (rdmaChannels[j] == ch) rdmaChannels[j] = NULL;
    }
    zfree(ch);
}

static connRdmaChannel *channelOfListener(connListener *listener) {
    for (int j = 0; j < RDMA_MAX_CHANNELS; j++) {
        if (rdmaChannels[j] && rdmaChannels[j]->listener == listener) return rdmaChannels[j];
    }
    return NULL;
}

/* CONNECT_REQUEST on a listening id: build the connection and give it to
 * the server, or reject it. */
static void connRdmaHandleConnectRequest(connRdmaChannel *ch, struct rdma_cm_id *cm_id) {
    char ip[CONN_ADDR_STR_LEN] = "?";
    int port = 0;
    sockaddrToString(rdma_get_peer_addr(cm_id), ip, sizeof(ip), &port);
    if (ch->listener == NULL || ch->listener->accept_cb == NULL) {
        rdma_reject(cm_id, NULL, 0);
        rdma_destroy_id(cm_id);
        return;
    }
    rdmaConnection *rc = connRdmaCreateAccepted(ch, cm_id);
    if (rc == NULL) {
        rdma_reject(cm_id, NULL, 0);
        rdma_destroy_id(cm_id);
        return;
    }
    serverLog(LL_VERBOSE, "Accepted RDMA %s:%d", ip, port);
    ch->listener->accept_cb(&rc->c, ch->listener->accept_flags, ip);
}

/* An event about an accepted or an outgoing connection. */
static void connRdmaHandleConnEvent(rdmaConnection *rc, enum rdma_cm_event_type type, int status) {
    if (rc == NULL || rc->released) return;
    if (rc->outgoing && rc->c.state == CONN_STATE_CONNECTING && connRdmaHandleConnectEvent(rc, type, status)) {
        connRdmaRunHandlers(rc);
        return;
    }
    switch (type) {
    case RDMA_CM_EVENT_ESTABLISHED:
        if (rc->c.state != CONN_STATE_ACCEPTING && rc->c.state != CONN_STATE_CONNECTING) break;
        rc->c.state = CONN_STATE_CONNECTED;
        rc->established = 1;
        if (rdmaEndpointAdvertise(&rc->ep) != C_OK) {
            connRdmaFail(rc, EIO, rc->ep.err);
        } else if (rdmaEndpointPoll(&rc->ep) == -1) {
            /* Completions that arrived before ESTABLISHED (the peer's own
             * RegisterXferMemory) are handled now. */
            connRdmaFail(rc, EPROTO, rc->ep.err);
        }
        connRdmaRunHandlers(rc);
        break;
    case RDMA_CM_EVENT_DISCONNECTED:
        rc->peer_closed = 1;
        if (rc->c.state == CONN_STATE_ACCEPTING || rc->c.state == CONN_STATE_CONNECTING) {
            rc->c.state = CONN_STATE_ERROR;
            rc->c.last_errno = ECONNRESET;
        }
        /* Collect data that landed before the disconnect; the flush errors
         * of a torn-down QP are expected now. */
        if (rc->c.state == CONN_STATE_CONNECTED && rdmaEndpointPoll(&rc->ep) == -1 && !rc->ep.failed_flushed)
            connRdmaFail(rc, EPROTO, rc->ep.err);
        connRdmaRunHandlers(rc);
        break;
    case RDMA_CM_EVENT_TIMEWAIT_EXIT:
    case RDMA_CM_EVENT_ADDR_RESOLVED: /* Late duplicates of what was acted on. */
    case RDMA_CM_EVENT_ROUTE_RESOLVED: break;
    default: {
        char what[96];
        snprintf(what, sizeof(what), "CM event %s (status %d)", rdma_event_str(type), status);
        connRdmaFail(rc, ECONNRESET, what);
        connRdmaRunHandlers(rc);
        break;
    }
    }
}

/* The aeFileProc of a CM event channel: a listener's, or the one of an
 * outgoing connection (no listening ids there). */
static void connRdmaAcceptHandler(aeEventLoop *el, int fd, void *clientData, int mask) {
    connRdmaChannel *ch = clientData;
    ch->refs++; /* Keep the channel while its events are handled. */
    for (int n = 0; n < MAX_ACCEPTS_PER_CALL; n++) {
        struct rdma_cm_event *ev;
        if (rdma_get_cm_event(ch->ec, &ev) != 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                serverLog(LL_WARNING, "RDMA: rdma_get_cm_event failed: %s", strerror(errno));
            break;
        }
        /* Copy what we need and acknowledge at once: destroying an id waits
         * for its events to be acknowledged. */
        enum rdma_cm_event_type type = ev->event;
        int status = ev->status;
        struct rdma_cm_id *id = ev->id;
        int is_listen = ev->listen_id != NULL;
        rdma_ack_cm_event(ev);

        if (type == RDMA_CM_EVENT_CONNECT_REQUEST && is_listen) {
            connRdmaHandleConnectRequest(ch, id);
        } else if (id && id->context) {
            rdmaConnection *rc = id->context;
            connIncrRefs(&rc->c);
            connRdmaHandleConnEvent(rc, type, status);
            connDecrRefs(&rc->c);
            if (((rc->c.flags & CONN_FLAG_CLOSE_SCHEDULED) && !connHasRefs(&rc->c)) || rc->lingering)
                connRdmaClose(&rc->c);
        } else {
            serverLog(LL_VERBOSE, "RDMA: CM event %s (status %d) on a listening id", rdma_event_str(type),
                      status);
        }
    }
    channelUnref(ch);
}

/* Fills ss from a bind address ("*", "::*" or a numeric address).
 * Returns C_OK or C_ERR (errno set). */
static int resolveBindAddr(const char *addr, int port, struct sockaddr_storage *ss) {
    memset(ss, 0, sizeof(*ss));
    if (!strcmp(addr, "*")) {
        struct sockaddr_in *s = (struct sockaddr_in *)ss;
        s->sin_family = AF_INET;
        s->sin_addr.s_addr = htonl(INADDR_ANY);
        s->sin_port = htons(port);
        return C_OK;
    }
    if (!strcmp(addr, "::*")) {
        struct sockaddr_in6 *s = (struct sockaddr_in6 *)ss;
        s->sin6_family = AF_INET6;
        s->sin6_addr = in6addr_any;
        s->sin6_port = htons(port);
        return C_OK;
    }
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_flags = AI_NUMERICHOST | AI_PASSIVE}, *res;
    char portstr[16];
    snprintf(portstr, sizeof(portstr), "%d", port);
    if (getaddrinfo(addr, portstr, &hints, &res) != 0) {
        errno = EADDRNOTAVAIL;
        return C_ERR;
    }
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
    return C_OK;
}

static void connRdmaCloseListener(connListener *listener) {
    connRdmaChannel *ch = channelOfListener(listener);
    if (ch) {
        for (int j = 0; j < ch->nids; j++) rdma_destroy_id(ch->ids[j]);
        ch->nids = 0;
        ch->listener = NULL;
        channelUnref(ch); /* Stays alive while accepted connections use it. */
    }
    for (int j = 0; j < listener->count; j++) listener->fd[j] = -1;
    listener->count = 0;
}

/* Opens the listener: one CM event channel, one listening id per bind
 * address (default "*" and "-::*"; a '-' prefix makes an address optional).
 * Returns C_OK, or C_ERR (logged, nothing left open). */
static int connRdmaListen(connListener *listener) {
    static char *default_bind[] = {"*", "-::*"};
    char **addrs = listener->bindaddr_count ? listener->bindaddr : default_bind;
    int naddrs = listener->bindaddr_count ? listener->bindaddr_count : 2;
    connRdmaListenerConfig *cfg = listener->priv;

    int slot = -1;
    for (int j = 0; j < RDMA_MAX_CHANNELS; j++) {
        if (rdmaChannels[j] == NULL) {
            slot = j;
            break;
        }
    }
    if (slot == -1) {
        serverLog(LL_WARNING, "RDMA: too many RDMA event channels in use");
        return C_ERR;
    }
    connRdmaChannel *ch = zcalloc(sizeof(*ch));
    ch->cfg = cfg;
    ch->comp_vector = cfg ? cfg->comp_vector : -1;
    ch->ec = openEventChannel();
    if (ch->ec == NULL) {
        serverLog(LL_WARNING, "RDMA: cannot open an RDMA CM event channel: %s (is rdma_ucm loaded?)", strerror(errno));
        zfree(ch);
        return C_ERR;
    }

    for (int j = 0; j < naddrs && j < CONN_BINDADDR_MAX; j++) {
        const char *addr = addrs[j];
        int optional = addr[0] == '-';
        if (optional) addr++;
        struct sockaddr_storage ss;
        struct rdma_cm_id *id = NULL;
        int ok = resolveBindAddr(addr, listener->port, &ss) == C_OK &&
                 rdma_create_id(ch->ec, &id, NULL, RDMA_PS_TCP) == 0;
        if (ok && ss.ss_family == AF_INET6) {
            int one = 1; /* Let "*" and "::*" share the port. */
            rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY, &one, sizeof(one));
        }
        ok = ok && rdma_bind_addr(id, (struct sockaddr *)&ss) == 0 &&
             rdma_listen(id, listener->backlog > 0 ? listener->backlog : RDMA_LISTEN_BACKLOG) == 0;
        if (!ok) {
            int saved = errno;
            if (id) rdma_destroy_id(id);
            if (optional) continue;
            serverLog(LL_WARNING, "RDMA: could not listen on %s:%d: %s", addr, listener->port, strerror(saved));
            goto fail;
        }
        ch->ids[ch->nids++] = id;
    }
    if (ch->nids == 0) {
        serverLog(LL_WARNING, "RDMA: could not bind any address on port %d", listener->port);
        goto fail;
    }
    if (aeCreateFileEvent(connGetEventLoop(), ch->ec->fd, AE_READABLE, connRdmaAcceptHandler, ch) == AE_ERR)
        goto fail_errno;
    ch->listener = listener;
    ch->refs = 1;
    rdmaChannels[slot] = ch;
    listener->fd[0] = ch->ec->fd;
    listener->count = 1;
    serverLog(LL_NOTICE, "RDMA: listening on port %d (%d address%s, RX buffer %zu bytes)", listener->port,
              ch->nids, ch->nids == 1 ? "" : "es", rdmaRxSize(ch->cfg));
    return C_OK;

fail_errno:
    serverLog(LL_WARNING, "RDMA: setting up the listener's event channel failed: %s", strerror(errno));
fail:
    for (int j = 0; j < ch->nids; j++) rdma_destroy_id(ch->ids[j]);
    rdma_destroy_event_channel(ch->ec);
    zfree(ch);
    return C_ERR;
}

/* ---------------------------------------------------------------------------
 * Registration
 * ------------------------------------------------------------------------- */

/* Makes registered memory fork-safe before anything is registered, and
 * starts the keepalive timer. */
static void connRdmaInit(void) {
    int err = ibv_fork_init();
    if (err) serverLog(LL_WARNING, "RDMA: ibv_fork_init failed: %s; forked children must not touch RDMA memory",
                       strerror(err));
    if (connGetEventLoop() && rdmaKeepaliveTimer == -1)
        rdmaKeepaliveTimer =
            aeCreateTimeEvent(connGetEventLoop(), RDMA_KEEPALIVE_MS, connRdmaKeepaliveCron, NULL, NULL);
}

/* ConnectionType.configure: priv is the connRdmaListenerConfig that the
 * server keeps for its RDMA listener (not copied); outgoing connections
 * take their RX size and completion vector from it too. */
static int connRdmaConfigure(void *priv, int reconfigure) {
    (void)reconfigure;
    rdmaConfig = priv;
    return C_OK;
}

static ConnectionType CT_RDMA = {
    .get_type = connRdmaGetType,
    .init = connRdmaInit,
    .configure = connRdmaConfigure,
    .ae_handler = connRdmaEventHandler,
    .accept_handler = connRdmaAcceptHandler,
    .listen = connRdmaListen,
    .close_listener = connRdmaCloseListener,
    .conn_create = connCreateRdma,
    .conn_create_accepted = connRdmaCreateAcceptedFd,
    .accept = connRdmaAccept,
    .connect = connRdmaConnect,
    .blocking_connect = connRdmaBlockingConnect,
    .shutdown = connRdmaShutdown,
    .close = connRdmaClose,
    .read = connRdmaRead,
    .write = connRdmaWrite,
    .writev = connRdmaWritev,
    .set_read_handler = connRdmaSetReadHandler,
    .set_write_handler = connRdmaSetWriteHandler,
    .wait = connRdmaWait,
    .has_pending_data = connRdmaHasPendingData,
    .process_pending_data = connRdmaProcessPendingData,
    .addr = connRdmaAddr,
    .is_local = connRdmaIsLocal,
    .get_last_error = connRdmaGetLastError,
    .get_info = connRdmaGetInfo,
    .integrity_checked = connRdmaIntegrityChecked,
    .usable_after_fork = connRdmaUsableAfterFork,
};

/* Registers the RDMA transport (called by connTypeInitialize()). Returns
 * what connTypeRegister() returns. */
int RegisterConnectionTypeRdma(void) {
    return connTypeRegister(&CT_RDMA);
}

/* ---------------------------------------------------------------------------
 * One-sided access (conn_rdma.h): the replication snapshot region
 * ------------------------------------------------------------------------- */

/* The endpoint of conn if it is a live RDMA connection, else NULL. */
static rdmaEndpoint *connRdmaLiveEndpoint(connection *conn) {
    if (conn == NULL || conn->type != &CT_RDMA) return NULL;
    rdmaConnection *rc = (rdmaConnection *)conn;
    if (rc->released || conn->state != CONN_STATE_CONNECTED) return NULL;
    return &rc->ep;
}

/* See conn_rdma.h. */
int connIsRdma(connection *conn) {
    return conn && conn->type == &CT_RDMA;
}

/* See conn_rdma.h. */
void *connRdmaExpose(connection *conn, void *addr, size_t len, uint32_t *rkey) {
    rdmaEndpoint *ep = connRdmaLiveEndpoint(conn);
    if (ep == NULL) return NULL;
    struct ibv_mr *mr = rdmaEndpointRegister(ep, addr, len, IBV_ACCESS_REMOTE_READ);
    if (mr) *rkey = mr->rkey;
    return mr;
}

/* See conn_rdma.h. */
void *connRdmaRegisterLocal(connection *conn, void *addr, size_t len) {
    rdmaEndpoint *ep = connRdmaLiveEndpoint(conn);
    if (ep == NULL) return NULL;
    return rdmaEndpointRegister(ep, addr, len, IBV_ACCESS_LOCAL_WRITE);
}

/* See conn_rdma.h. */
void connRdmaUnregister(connection *conn, void *handle) {
    if (conn == NULL || conn->type != &CT_RDMA || handle == NULL) return;
    rdmaConnection *rc = (rdmaConnection *)conn;
    if (rc->released) return; /* the release deregistered it */
    rdmaEndpointDeregister(&rc->ep, handle);
}

/* See conn_rdma.h. */
int connRdmaPostRead(connection *conn, void *local_handle, void *local, uint64_t raddr, uint32_t rkey, uint32_t len,
                     uint64_t tag) {
    rdmaEndpoint *ep = connRdmaLiveEndpoint(conn);
    if (ep == NULL) return -1;
    int r = rdmaEndpointPostRead(ep, local_handle, local, raddr, rkey, len, tag);
    if (r < 0) connRdmaFail((rdmaConnection *)conn, EIO, ep->err);
    return r;
}

/* See conn_rdma.h. */
int connRdmaReadsDone(connection *conn, uint64_t *tags, int max) {
    rdmaEndpoint *ep = connRdmaLiveEndpoint(conn);
    if (ep == NULL) return -1;
    if (rdmaEndpointPoll(ep) == -1) {
        connRdmaFail((rdmaConnection *)conn, EIO, ep->err);
        return -1;
    }
    return rdmaEndpointReadsDone(ep, tags, max);
}
