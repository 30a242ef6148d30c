/* cli_conn_rdma.c - the tools' RDMA transport ("rdma": --rdma in
 * valkey-cli and valkey-benchmark).
 *
 * The client side of Valkey's RDMA protocol (RDMA-PROTOCOL.md) as one
 * cliConnType. The protocol engine is rdma.c, shared with the server; this
 * file adds what only a client does (RDMA CM address and route resolution,
 * rdma_connect, disconnect) and maps the engine's windows onto the
 * read/write contract of cli_transport.h.
 *
 * What a connection owns: its own CM event channel and CM id, an
 * rdmaEndpoint (PD, completion channel, CQ, QP, RX and TX buffers) and an
 * epoll fd watching both the CM channel and the completion channel. That
 * epoll fd is the connection's single pollable fd (cliConn.fd): it reads
 * as readable whenever a CM event (resolved, established, rejected,
 * disconnected) or a completion notification is queued. So the tool's
 * loop watches one fd per connection, a disconnect is never missed, and
 * blocking mode waits with one poll().
 *
 * The life of a connection is the rdmaCliPhase state machine below; CM
 * events move it through rdmaCliCmEvent(). Non-blocking connects advance
 * from the tool's loop (connect_step); blocking ones loop here until the
 * server's RX window is known.
 *
 * Data: read() copies out of the RX window (the engine re-advertises the
 * window once all of it was read); write() stages bytes into the TX copy
 * and posts one WRITE WITH IMM, never past the end of the server's window.
 * With no room, a non-blocking write returns EAGAIN: room comes back when
 * the server's RegisterXferMemory arrives, which is a completion on our
 * channel, after which pending() reports CLI_PENDING_WRITE and the glue's
 * before-sleep pass runs the write handler. Keepalives from the server
 * are counted and ignored by the engine.
 *
 * Wake-ups: rdmaEndpointPoll() acknowledges the channel's event, re-arms
 * the CQ and only then drains it, so a completion that lands during the
 * drain raises a new event and the fd turns readable again.
 *
 * Threads: a connection belongs to the thread that uses it; nothing here
 * is shared between connections. Leaf code: no server header. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>

#include "cli_transport.h"
#include "rdma.h"
#include "zmalloc.h"

/* rdma_resolve_addr() / rdma_resolve_route() time limit when the caller
 * gives none (the CM retries inside it). */
#define RDMA_CLI_RESOLVE_TIMEOUT_MS 5000
/* How long a close waits for posted writes to complete before it tears
 * the queue pair down (which would discard them). */
#define RDMA_CLI_CLOSE_DRAIN_MS 200

/* Where a connection is in its life. Only rdmaCliCmEvent() and
 * rdmaCliWork() move it; rdmaCliFail() ends it. */
typedef enum {
    RDMA_CLI_RESOLVING_ADDR = 0, /* rdma_resolve_addr() issued. */
    RDMA_CLI_RESOLVING_ROUTE,    /* ADDR_RESOLVED; rdma_resolve_route() issued. */
    RDMA_CLI_CONNECTING,         /* Endpoint created, receives posted, rdma_connect() issued. */
    RDMA_CLI_AWAIT_WINDOW,       /* ESTABLISHED, our RX advertised; the server's not seen yet. */
    RDMA_CLI_READY,              /* Both windows known: connected, usable. */
    RDMA_CLI_DISCONNECTED,       /* The server went away: bytes already received can still be read. */
    RDMA_CLI_FAILED              /* Connect or I/O failed; c.err says why. */
} rdmaCliPhase;

typedef struct rdmaCliConn {
    cliConn c;                          /* Must be first: the glue's view. */
    rdmaCliPhase phase;
    int blocking;                       /* Connected with blocking=1: I/O waits here. */
    int epfd;                           /* c.fd: watches cm_channel and the completion channel. */
    struct rdma_event_channel *cm_channel; /* Owned; CM events of cm_id only. */
    struct rdma_cm_id *cm_id;           /* Owned. */
    int connect_issued;                 /* rdma_connect() was called: disconnect on close. */
    rdmaEndpoint ep;                    /* Verbs objects and protocol state (rdma.c). */
} rdmaCliConn;

const cliConnType cliConnTypeRdma;

/* ---------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------- */

static long long rdmaCliNowMs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Ends the connection with a reason; the first failure is kept. Returns
 * CLI_ERR so callers can `return rdmaCliFail(...)`. */
static int rdmaCliFail(rdmaCliConn *rc, int err_no, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int rdmaCliFail(rdmaCliConn *rc, int err_no, const char *fmt, ...) {
    if (rc->phase == RDMA_CLI_FAILED) return CLI_ERR;
    char msg[CLI_ERR_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    rc->phase = RDMA_CLI_FAILED;
    cliConnSetError(&rc->c, err_no, "%s", msg);
    return CLI_ERR;
}

/* The engine failed: ep.err has the detail. */
static int rdmaCliFailEndpoint(rdmaCliConn *rc) {
    return rdmaCliFail(rc, EIO, "RDMA: %s", rc->ep.err);
}

/* Adds fd to the connection's epoll set (readable, level-triggered). */
static int rdmaCliWatch(rdmaCliConn *rc, int fd, const char *what) {
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};
    if (epoll_ctl(rc->epfd, EPOLL_CTL_ADD, fd, &ev) == -1)
        return rdmaCliFail(rc, errno, "RDMA: epoll_ctl(%s): %s", what, strerror(errno));
    return CLI_OK;
}

/* A CM event status is a negative errno for most failures, an IB CM
 * reject reason for REJECTED; map it to something strerror() can say. */
static int rdmaCliStatusErrno(int status, int fallback) {
    return status < 0 ? -status : fallback;
}

/* ---------------------------------------------------------------------------
 * Connection state machine
 * ------------------------------------------------------------------------- */

/* Creates the endpoint on the resolved id and sends the connect request.
 * Receives are posted by rdmaEndpointCreate(), before rdma_connect(), so
 * the server's first RegisterXferMemory always finds one. */
static int rdmaCliStartConnect(rdmaCliConn *rc) {
    if (rdmaEndpointCreate(&rc->ep, rc->cm_id, RDMA_DEFAULT_RX_SIZE, -1, 0) != C_OK) return rdmaCliFailEndpoint(rc);
    if (rdmaCliWatch(rc, rc->ep.comp_channel->fd, "completion channel") != CLI_OK) return CLI_ERR;
    struct rdma_conn_param param = {
        .responder_resources = 1,
        .initiator_depth = 1,
        .retry_count = 7,     /* Transport retries, as upstream clients. */
        .rnr_retry_count = 7, /* 7 = retry forever when the server has no receive posted. */
    };
    if (rdma_connect(rc->cm_id, &param) != 0) return rdmaCliFail(rc, errno, "RDMA: rdma_connect: %s", strerror(errno));
    rc->connect_issued = 1;
    rc->phase = RDMA_CLI_CONNECTING;
    return CLI_OK;
}

/* The one transition function for CM events. CLI_OK or CLI_ERR (failed). */
static int rdmaCliCmEvent(rdmaCliConn *rc, enum rdma_cm_event_type type, int status) {
    switch (type) {
    case RDMA_CM_EVENT_ADDR_RESOLVED:
        if (rc->phase != RDMA_CLI_RESOLVING_ADDR) break;
        if (rdma_resolve_route(rc->cm_id, RDMA_CLI_RESOLVE_TIMEOUT_MS) != 0)
            return rdmaCliFail(rc, errno, "RDMA: rdma_resolve_route: %s", strerror(errno));
        rc->phase = RDMA_CLI_RESOLVING_ROUTE;
        return CLI_OK;
    case RDMA_CM_EVENT_ROUTE_RESOLVED:
        if (rc->phase != RDMA_CLI_RESOLVING_ROUTE) break;
        return rdmaCliStartConnect(rc);
    case RDMA_CM_EVENT_ESTABLISHED:
        if (rc->phase != RDMA_CLI_CONNECTING) break;
        /* Both sides advertise their RX buffer as soon as established. */
        if (rdmaEndpointAdvertise(&rc->ep) != C_OK) return rdmaCliFailEndpoint(rc);
        rc->phase = rc->ep.peer_known ? RDMA_CLI_READY : RDMA_CLI_AWAIT_WINDOW;
        return CLI_OK;
    case RDMA_CM_EVENT_ADDR_ERROR:
        return rdmaCliFail(rc, rdmaCliStatusErrno(status, EHOSTUNREACH), "RDMA: cannot resolve the address: %s",
                           strerror(rdmaCliStatusErrno(status, EHOSTUNREACH)));
    case RDMA_CM_EVENT_ROUTE_ERROR:
        return rdmaCliFail(rc, rdmaCliStatusErrno(status, EHOSTUNREACH), "RDMA: cannot resolve a route: %s",
                           strerror(rdmaCliStatusErrno(status, EHOSTUNREACH)));
    case RDMA_CM_EVENT_REJECTED:
        /* Nobody listens on that RDMA port (or the server refused us). */
        return rdmaCliFail(rc, ECONNREFUSED, "Connection refused");
    case RDMA_CM_EVENT_UNREACHABLE:
    case RDMA_CM_EVENT_CONNECT_ERROR:
        return rdmaCliFail(rc, rdmaCliStatusErrno(status, EHOSTUNREACH), "%s",
                           strerror(rdmaCliStatusErrno(status, EHOSTUNREACH)));
    case RDMA_CM_EVENT_DEVICE_REMOVAL:
        return rdmaCliFail(rc, ENODEV, "RDMA: the RDMA device was removed");
    case RDMA_CM_EVENT_DISCONNECTED:
        if (rc->phase == RDMA_CLI_READY || rc->phase == RDMA_CLI_AWAIT_WINDOW) {
            rc->phase = RDMA_CLI_DISCONNECTED;
            return CLI_OK;
        }
        if (rc->phase == RDMA_CLI_FAILED || rc->phase == RDMA_CLI_DISCONNECTED) return CLI_OK;
        return rdmaCliFail(rc, ECONNRESET, "%s", strerror(ECONNRESET));
    default: return CLI_OK; /* TIMEWAIT_EXIT, ADDR_CHANGE, ...: nothing to do. */
    }
    return CLI_OK; /* A late duplicate of an event already acted on. */
}

/* Handles every queued CM event (the channel is non-blocking). */
static int rdmaCliDrainCm(rdmaCliConn *rc) {
    struct rdma_cm_event *ev;
    while (rdma_get_cm_event(rc->cm_channel, &ev) == 0) {
        enum rdma_cm_event_type type = ev->event;
        int status = ev->status;
        rdma_ack_cm_event(ev); /* At once: rdma_destroy_id() waits for acks. */
        if (rdmaCliCmEvent(rc, type, status) != CLI_OK) return CLI_ERR;
    }
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
        return rdmaCliFail(rc, errno, "RDMA: rdma_get_cm_event: %s", strerror(errno));
    return CLI_OK;
}

/* Does the work that is ready, without blocking: drains the completion
 * queue (handling control messages: the server's window, keepalives) and
 * the CM channel. CM events are looked at only when no completion was
 * pending, or while connecting: the channel stays readable until read, so
 * a disconnect is seen on the next quiet wake-up, and a busy connection
 * saves that system call. CLI_OK, or CLI_ERR once the connection failed. */
static int rdmaCliWork(rdmaCliConn *rc) {
    int handled = 0;
    if (rc->phase == RDMA_CLI_FAILED) return CLI_ERR;
    if (rc->ep.cq) {
        handled = rdmaEndpointPoll(&rc->ep);
        if (handled < 0) {
            /* A flush means the queue pair was moved to the error state by
             * the CM, not by us: the server disconnected. */
            if (!rc->ep.failed_flushed) return rdmaCliFailEndpoint(rc);
            if (rc->phase == RDMA_CLI_READY || rc->phase == RDMA_CLI_AWAIT_WINDOW) rc->phase = RDMA_CLI_DISCONNECTED;
            handled = 0;
        }
    }
    if ((handled == 0 || rc->phase < RDMA_CLI_READY) && rdmaCliDrainCm(rc) != CLI_OK) return CLI_ERR;
    if (rc->phase == RDMA_CLI_AWAIT_WINDOW && rc->ep.peer_known) rc->phase = RDMA_CLI_READY;
    return rc->phase == RDMA_CLI_FAILED ? CLI_ERR : CLI_OK;
}

/* Blocking mode: waits up to timeout_ms (-1 = forever) for the epoll fd,
 * then does the work. CLI_OK (something may have changed), CLI_AGAIN on
 * timeout, CLI_ERR once failed. */
static int rdmaCliWait(rdmaCliConn *rc, long long timeout_ms) {
    struct pollfd pfd = {.fd = rc->epfd, .events = POLLIN};
    int n = poll(&pfd, 1, timeout_ms < 0 ? -1 : (int)timeout_ms);
    if (n == -1 && errno != EINTR) return rdmaCliFail(rc, errno, "RDMA: poll: %s", strerror(errno));
    if (n == 0) return CLI_AGAIN;
    return rdmaCliWork(rc);
}

/* ---------------------------------------------------------------------------
 * cliConnType callbacks
 * ------------------------------------------------------------------------- */

/* Releases every RDMA object of rc, in reverse order of creation. */
static void rdmaCliRelease(rdmaCliConn *rc) {
    if (rc->cm_id) {
        if (rc->connect_issued) rdma_disconnect(rc->cm_id);
        rdmaEndpointRelease(&rc->ep); /* Destroys the QP first. */
        rdma_destroy_id(rc->cm_id);
        rc->cm_id = NULL;
    }
    if (rc->cm_channel) rdma_destroy_event_channel(rc->cm_channel);
    rc->cm_channel = NULL;
    if (rc->epfd != -1) close(rc->epfd);
    rc->epfd = rc->c.fd = -1;
}

/* Starts connecting to addr: resolves the host name, creates the CM
 * channel and id and asks the CM to resolve the address; the rest happens
 * as CM events arrive. With blocking=1 it waits (at most timeout_ms, 0 =
 * no limit) until the connection is READY. Returns the connection, or NULL
 * with err set and everything released. */
static cliConn *rdmaCliConnect(const cliConnAddr *addr, int blocking, long long timeout_ms, char *err, size_t errlen) {
    const char *host = addr->host ? addr->host : "127.0.0.1";
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res = NULL;
    char portstr[16];
    snprintf(portstr, sizeof(portstr), "%d", addr->port);
    int gai = getaddrinfo(host, portstr, &hints, &res);
    if (gai != 0) {
        snprintf(err, errlen, "%s", gai_strerror(gai));
        return NULL;
    }

    rdmaCliConn *rc = zcalloc(sizeof(*rc));
    rc->c.type = &cliConnTypeRdma;
    rc->c.state = CLI_CONN_CONNECTING;
    rc->blocking = blocking;
    rc->phase = RDMA_CLI_RESOLVING_ADDR;
    rc->epfd = rc->c.fd = epoll_create1(EPOLL_CLOEXEC);
    if (rc->epfd == -1) {
        rdmaCliFail(rc, errno, "RDMA: epoll_create1: %s", strerror(errno));
        goto fail;
    }
    rc->cm_channel = rdma_create_event_channel();
    if (rc->cm_channel == NULL) {
        rdmaCliFail(rc, errno, "RDMA: cannot open the RDMA CM (rdma_create_event_channel: %s)", strerror(errno));
        goto fail;
    }
    int fl = fcntl(rc->cm_channel->fd, F_GETFL);
    if (fl == -1 || fcntl(rc->cm_channel->fd, F_SETFL, fl | O_NONBLOCK) == -1) {
        rdmaCliFail(rc, errno, "RDMA: fcntl(O_NONBLOCK) on the CM channel: %s", strerror(errno));
        goto fail;
    }
    fcntl(rc->cm_channel->fd, F_SETFD, FD_CLOEXEC);
    if (rdmaCliWatch(rc, rc->cm_channel->fd, "CM channel") != CLI_OK) goto fail;
    if (rdma_create_id(rc->cm_channel, &rc->cm_id, rc, RDMA_PS_TCP) != 0) {
        rdmaCliFail(rc, errno, "RDMA: rdma_create_id: %s", strerror(errno));
        goto fail;
    }
    long long resolve_ms = RDMA_CLI_RESOLVE_TIMEOUT_MS;
    if (timeout_ms > 0 && timeout_ms < resolve_ms) resolve_ms = timeout_ms;
    if (rdma_resolve_addr(rc->cm_id, NULL, res->ai_addr, (int)resolve_ms) != 0) {
        rdmaCliFail(rc, errno, "RDMA: rdma_resolve_addr: %s", strerror(errno));
        goto fail;
    }
    freeaddrinfo(res);
    res = NULL;
    if (!blocking) return &rc->c;

    long long deadline = timeout_ms > 0 ? rdmaCliNowMs() + timeout_ms : -1;
    while (rc->phase != RDMA_CLI_READY) {
        long long left = -1;
        if (deadline >= 0) {
            left = deadline - rdmaCliNowMs();
            if (left < 0) left = 0;
        }
        int ret = rdmaCliWait(rc, left);
        if (ret == CLI_ERR) goto fail;
        if (ret == CLI_AGAIN) {
            rdmaCliFail(rc, ETIMEDOUT, "%s", strerror(ETIMEDOUT));
            goto fail;
        }
        if (rc->phase == RDMA_CLI_DISCONNECTED) {
            rdmaCliFail(rc, ECONNRESET, "%s", strerror(ECONNRESET));
            goto fail;
        }
    }
    rc->c.state = CLI_CONN_CONNECTED;
    return &rc->c;

fail:
    if (res) freeaddrinfo(res);
    snprintf(err, errlen, "%s", rc->c.err);
    errno = rc->c.last_errno;
    rdmaCliRelease(rc);
    zfree(rc);
    return NULL;
}

/* The epoll fd turned readable while connecting. */
static int rdmaCliConnectStep(cliConn *c) {
    rdmaCliConn *rc = (rdmaCliConn *)c;
    if (rdmaCliWork(rc) != CLI_OK) return CLI_ERR;
    if (rc->phase == RDMA_CLI_DISCONNECTED) return rdmaCliFail(rc, ECONNRESET, "%s", strerror(ECONNRESET));
    return rc->phase == RDMA_CLI_READY ? CLI_OK : CLI_AGAIN;
}

/* The epoll fd turned readable on a connected connection. */
static int rdmaCliProcess(cliConn *c) {
    return rdmaCliWork((rdmaCliConn *)c);
}

static ssize_t rdmaCliRead(cliConn *c, void *buf, size_t len) {
    rdmaCliConn *rc = (rdmaCliConn *)c;
    if (len == 0) return 0;
    for (;;) {
        if (rc->phase == RDMA_CLI_FAILED) {
            errno = c->last_errno ? c->last_errno : EIO;
            return -1;
        }
        ssize_t n = rdmaEndpointRead(&rc->ep, buf, len);
        if (n > 0) return n;
        if (n < 0) {
            rdmaCliFailEndpoint(rc);
            errno = EIO;
            return -1;
        }
        if (rc->phase == RDMA_CLI_DISCONNECTED) {
            c->state = CLI_CONN_CLOSED;
            return 0;
        }
        if (!rc->blocking) {
            errno = EAGAIN;
            return -1;
        }
        rdmaCliWait(rc, -1);
    }
}

static ssize_t rdmaCliWritev(cliConn *c, const struct iovec *iov, int iovcnt) {
    rdmaCliConn *rc = (rdmaCliConn *)c;
    for (;;) {
        if (rc->phase == RDMA_CLI_FAILED) {
            errno = c->last_errno ? c->last_errno : EIO;
            return -1;
        }
        if (rc->phase == RDMA_CLI_DISCONNECTED) {
            rdmaCliFail(rc, EPIPE, "Server closed the connection");
            errno = EPIPE;
            return -1;
        }
        ssize_t n = rdmaEndpointWritev(&rc->ep, iov, iovcnt);
        if (n > 0) return n;
        if (n < 0) {
            rdmaCliFailEndpoint(rc);
            errno = EIO;
            return -1;
        }
        int empty = 1;
        for (int j = 0; j < iovcnt && empty; j++) empty = iov[j].iov_len == 0;
        if (empty) return 0;
        if (!rc->blocking) {
            errno = EAGAIN;
            return -1;
        }
        rdmaCliWait(rc, -1); /* Until the server re-advertises its window. */
    }
}

static ssize_t rdmaCliWrite(cliConn *c, const void *buf, size_t len) {
    struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
    return rdmaCliWritev(c, &iov, 1);
}

/* What the glue may do now without waiting on the fd. A failed or closed
 * connection reports both, so its handlers run and see the error/EOF. */
static int rdmaCliPending(cliConn *c) {
    rdmaCliConn *rc = (rdmaCliConn *)c;
    if (rc->phase == RDMA_CLI_FAILED || rc->phase == RDMA_CLI_DISCONNECTED)
        return CLI_PENDING_READ | CLI_PENDING_WRITE;
    int p = 0;
    if (rdmaEndpointReadable(&rc->ep) > 0) p |= CLI_PENDING_READ;
    if (rc->phase == RDMA_CLI_READY && rdmaEndpointWritable(&rc->ep) > 0) p |= CLI_PENDING_WRITE;
    return p;
}

/* Lets posted writes complete (briefly), disconnects and frees. Tearing
 * the queue pair down at once could discard a request still on its way,
 * e.g. the last one a tool sends before exiting. */
static void rdmaCliClose(cliConn *c) {
    rdmaCliConn *rc = (rdmaCliConn *)c;
    if (rc->phase == RDMA_CLI_READY && rc->ep.send_inflight > 0) {
        long long deadline = rdmaCliNowMs() + RDMA_CLI_CLOSE_DRAIN_MS;
        while (rc->phase == RDMA_CLI_READY && rc->ep.send_inflight > 0) {
            long long left = deadline - rdmaCliNowMs();
            if (left <= 0 || rdmaCliWait(rc, left) != CLI_OK) break;
        }
    }
    rdmaCliRelease(rc);
    zfree(rc);
}

const cliConnType cliConnTypeRdma = {
    .name = CLI_CONN_RDMA,
    .flags = CLI_CONN_TYPE_NO_WRITABLE_EVENT,
    .fds_per_conn = 3, /* the epoll fd, the CM event channel, the completion channel */
    .connect = rdmaCliConnect,
    .connect_step = rdmaCliConnectStep,
    .read = rdmaCliRead,
    .write = rdmaCliWrite,
    .writev = rdmaCliWritev,
    .close = rdmaCliClose,
    .process = rdmaCliProcess,
    .pending = rdmaCliPending,
};
