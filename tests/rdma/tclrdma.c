/* tclrdma.c - an RDMA client channel for Tcl 8.6, so that the Tcl
 * integration suite (./runtest --rdma) can reach servers over Valkey's RDMA
 * protocol with the very same RESP client it uses over TCP.
 *
 *   load tests/rdma/libtclrdma.so Tclrdma
 *   set fd [rdma::connect host port ?-timeout ms? ?-source addr? ?-rxsize bytes?]
 *   fconfigure $fd -translation binary ;# then puts/flush/read/gets/fileevent
 *
 * rdma::connect returns an ordinary Tcl channel: blocking and non-blocking
 * reads and writes, `fileevent readable/writable`, `close`, and the options
 * -peername, -sockname and -keepalives (Keepalives received so far).
 *
 * Underneath sits the protocol engine the server uses (src/rdma.c): one
 * RDMA CM event channel and CM id per Tcl channel, and one rdmaEndpoint
 * whose completion-channel fd is the thing to wait on. How Tcl's channel
 * model maps onto it:
 *
 * - Input is read straight out of the endpoint's RX window; once the
 *   generic layer has read the whole window, rdmaEndpointRead() hands it
 *   back to the server. The window (1 MiB by default) therefore plays the
 *   part of a socket's receive buffer: a script that stops reading stops
 *   the server's writes, as with TCP.
 * - Output is posted as RDMA WRITE WITH IMM into the server's window, at
 *   most as much as that window has room for. When it is full, a blocking
 *   channel waits for the server to re-advertise it; a non-blocking one
 *   says EAGAIN and Tcl's background flush retries on TCL_WRITABLE.
 * - Completions are edge-triggered and may be consumed by a read or write
 *   that polls the CQ itself, so readiness cannot come from the fd alone:
 *   whenever the generic layer (re)states its interest and bytes, room or
 *   EOF are already there, a zero-delay timer delivers the notification.
 *   Otherwise file handlers on the completion-channel fd and on the CM
 *   event-channel fd (DISCONNECTED) wake us up.
 * - The server going away (DISCONNECTED, or the QP flushed) is EOF after
 *   the bytes that did arrive; writes after that are dropped, as a TCP
 *   socket does with its first write after the peer's FIN. Any other
 *   failure (a bad completion, a protocol violation) is an I/O error
 *   carrying the endpoint's description.
 *
 * Everything runs in the interpreter's thread. Build: make -C src tclrdma
 * (needs BUILD_RDMA=yes and tcl-dev). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <tcl.h>

#include "rdma.h"

#define TCLRDMA_DEFAULT_TIMEOUT_MS 10000 /* rdma::connect without -timeout */
#define TCLRDMA_CLOSE_DRAIN_MS 5000      /* close: wait this long for posted writes */
#define TCLRDMA_WAIT_SLICE_MS 1000       /* blocking waits re-check state this often */
/* Tcl's channel buffer: each flushed buffer becomes one RDMA write (and
 * uses one of the server's receives), so 4 KiB would mean 256 writes per
 * MiB; a large value then costs a handful instead. */
#define TCLRDMA_BUFFER_SIZE (256 * 1024)

/* One Tcl channel: the CM objects, the protocol endpoint and what Tcl's
 * generic layer asked of us. Allocated by rdma::connect, freed by close. */
typedef struct tclRdmaChan {
    Tcl_Channel chan;               /* Our Tcl channel (NULL until created). */
    struct rdma_event_channel *ec;  /* Owned; carries this id's CM events only. */
    struct rdma_cm_id *id;          /* Owned; the connected CM id. */
    rdmaEndpoint ep;                /* Verbs objects and protocol state. */
    int established;                /* rdma_connect() completed. */
    int blocking;                   /* Tcl's -blocking. */
    int watch_mask;                 /* TCL_READABLE|TCL_WRITABLE Tcl waits for. */
    int handlers_on;                /* File handlers are installed on both fds. */
    Tcl_TimerToken timer;           /* A pending synthetic notification. */
    int peer_closed;                /* The server disconnected: EOF after the data. */
    int broken;                     /* A real failure: ep.err says what. */
} tclRdmaChan;

static int chanSeq; /* For channel names: rdma0, rdma1, ... */

static long long nowMs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---------------------------------------------------------------------------
 * Driving the endpoint
 * ------------------------------------------------------------------------- */

/* Takes every queued CM event without blocking; DISCONNECTED (or the
 * device going away) means the server is gone. */
static void chanPumpCm(tclRdmaChan *rc) {
    struct rdma_cm_event *ev;
    while (rdma_get_cm_event(rc->ec, &ev) == 0) {
        enum rdma_cm_event_type type = ev->event;
        rdma_ack_cm_event(ev);
        if (type == RDMA_CM_EVENT_DISCONNECTED || type == RDMA_CM_EVENT_DEVICE_REMOVAL ||
            type == RDMA_CM_EVENT_TIMEWAIT_EXIT)
            rc->peer_closed = 1;
    }
}

/* Handles whatever completed and whatever the CM reported, without
 * blocking. A failed endpoint is classified once: flushed work after a
 * disconnect is an orderly close, anything else is an error. */
static void chanPump(tclRdmaChan *rc) {
    chanPumpCm(rc);
    if (rc->broken || rc->ep.cq == NULL) return;
    if (rdmaEndpointPoll(&rc->ep) >= 0) return;
    if (rc->peer_closed || rc->ep.failed_flushed) {
        rc->peer_closed = 1;
    } else {
        rc->broken = 1;
    }
}

/* Sleeps until the completion channel or the CM channel has something, at
 * most ms milliseconds, then pumps. */
static void chanWait(tclRdmaChan *rc, int ms) {
    struct pollfd pfd[2] = {{.fd = rc->ec->fd, .events = POLLIN}, {.fd = rc->ep.comp_channel->fd, .events = POLLIN}};
    if (poll(pfd, 2, ms) < 0 && errno != EINTR) {
        rc->broken = 1;
        snprintf(rc->ep.err, sizeof(rc->ep.err), "poll failed: %s", strerror(errno));
    }
    chanPump(rc);
}

/* What Tcl could do right now without waiting: TCL_READABLE if bytes, EOF
 * or an error are there to be read; TCL_WRITABLE if a write would not
 * block. */
static int chanReadyMask(tclRdmaChan *rc) {
    int done = rc->peer_closed || rc->broken;
    int mask = 0;
    if (done || rdmaEndpointReadable(&rc->ep) > 0) mask |= TCL_READABLE;
    if (done || rdmaEndpointWritable(&rc->ep) > 0) mask |= TCL_WRITABLE;
    return mask;
}

/* Tells Tcl about readiness it is waiting for. Tcl may run a fileevent
 * script that closes the channel: rc must not be touched afterwards. */
static void chanNotify(tclRdmaChan *rc) {
    int mask = chanReadyMask(rc) & rc->watch_mask;
    if (mask) Tcl_NotifyChannel(rc->chan, mask);
}

static void chanTimerProc(ClientData cd) {
    tclRdmaChan *rc = cd;
    rc->timer = NULL;
    chanPump(rc);
    chanNotify(rc);
}

static void chanFdProc(ClientData cd, int mask) {
    tclRdmaChan *rc = cd;
    chanPump(rc);
    chanNotify(rc);
}

/* Arms a zero-delay notification if Tcl waits for something that is
 * already there (no fd event would announce it). */
static void chanScheduleNotify(tclRdmaChan *rc) {
    if (rc->timer == NULL && (chanReadyMask(rc) & rc->watch_mask)) {
        rc->timer = Tcl_CreateTimerHandler(0, chanTimerProc, rc);
    }
}

/* ---------------------------------------------------------------------------
 * The channel driver
 * ------------------------------------------------------------------------- */

static int chanBlockMode(ClientData cd, int mode) {
    tclRdmaChan *rc = cd;
    rc->blocking = (mode == TCL_MODE_BLOCKING);
    return 0;
}

/* Returns bytes read, 0 at EOF, or -1 with *errp (EAGAIN: nothing yet on a
 * non-blocking channel). */
static int chanInput(ClientData cd, char *buf, int toRead, int *errp) {
    tclRdmaChan *rc = cd;
    *errp = 0;
    if (toRead <= 0) return 0;
    for (;;) {
        chanPump(rc);
        size_t avail = rdmaEndpointReadable(&rc->ep);
        if (avail > 0) {
            size_t want = avail < (size_t)toRead ? avail : (size_t)toRead;
            ssize_t got = rdmaEndpointRead(&rc->ep, buf, want);
            if (got < 0) {
                /* The bytes were copied; only handing the window back
                 * failed. After a disconnect that is expected. */
                if (!rc->peer_closed && !rc->ep.failed_flushed) {
                    rc->broken = 1;
                    *errp = EIO;
                    return -1;
                }
                got = (ssize_t)want;
            }
            return (int)got;
        }
        if (rc->peer_closed) return 0;
        if (rc->broken) {
            *errp = ECONNRESET;
            return -1;
        }
        if (!rc->blocking) {
            *errp = EAGAIN;
            return -1;
        }
        chanWait(rc, TCLRDMA_WAIT_SLICE_MS);
    }
}

/* Returns bytes accepted (posted to the server's window), or -1 with
 * *errp (EAGAIN: the window is full on a non-blocking channel). */
static int chanOutput(ClientData cd, const char *buf, int toWrite, int *errp) {
    tclRdmaChan *rc = cd;
    *errp = 0;
    if (toWrite <= 0) return 0;
    for (;;) {
        if (rc->broken) {
            *errp = EPIPE;
            return -1;
        }
        if (rc->peer_closed) return toWrite; /* Nobody will read it. */
        if (rdmaEndpointWritable(&rc->ep) == 0) chanPump(rc);
        if (rdmaEndpointWritable(&rc->ep) > 0) {
            struct iovec iov = {.iov_base = (void *)buf, .iov_len = (size_t)toWrite};
            ssize_t n = rdmaEndpointWritev(&rc->ep, &iov, 1);
            if (n < 0) {
                rc->broken = 1;
                *errp = EIO;
                return -1;
            }
            if (n > 0) return (int)n;
        }
        if (!rc->blocking) {
            *errp = EAGAIN;
            return -1;
        }
        chanWait(rc, TCLRDMA_WAIT_SLICE_MS);
    }
}

static void chanHandlersOff(tclRdmaChan *rc) {
    if (!rc->handlers_on) return;
    Tcl_DeleteFileHandler(rc->ec->fd);
    Tcl_DeleteFileHandler(rc->ep.comp_channel->fd);
    rc->handlers_on = 0;
}

static void chanWatch(ClientData cd, int mask) {
    tclRdmaChan *rc = cd;
    rc->watch_mask = mask & (TCL_READABLE | TCL_WRITABLE);
    if (rc->watch_mask && !rc->handlers_on) {
        Tcl_CreateFileHandler(rc->ec->fd, TCL_READABLE, chanFdProc, rc);
        Tcl_CreateFileHandler(rc->ep.comp_channel->fd, TCL_READABLE, chanFdProc, rc);
        rc->handlers_on = 1;
    } else if (!rc->watch_mask) {
        chanHandlersOff(rc);
    }
    chanScheduleNotify(rc);
}

/* Releases everything rdma::connect created, in reverse order. Safe on a
 * partly connected rc. */
static void chanRelease(tclRdmaChan *rc) {
    if (rc->id) {
        if (rc->established) rdma_disconnect(rc->id);
        rdmaEndpointRelease(&rc->ep);
        rdma_destroy_id(rc->id);
        rc->id = NULL;
    }
    if (rc->ec) rdma_destroy_event_channel(rc->ec);
    rc->ec = NULL;
    ckfree((char *)rc);
}

static int chanClose(ClientData cd, Tcl_Interp *interp) {
    tclRdmaChan *rc = cd;
    if (rc->timer) Tcl_DeleteTimerHandler(rc->timer);
    rc->timer = NULL;
    chanHandlersOff(rc);
    /* Tcl has already handed us its buffered output; let the posted writes
     * land before the disconnect flushes them ("SET ...; close" must set). */
    long long deadline = nowMs() + TCLRDMA_CLOSE_DRAIN_MS;
    while (rc->ep.send_inflight > 0 && !rc->peer_closed && !rc->broken && nowMs() < deadline)
        chanWait(rc, 50);
    chanRelease(rc);
    return 0;
}

/* Formats one end of the connection as {address hostname port}, the way
 * TCP sockets report -peername and -sockname. */
static void chanAddrOption(struct sockaddr *sa, Tcl_DString *ds) {
    char host[NI_MAXHOST] = "", port[NI_MAXSERV] = "";
    if (sa && getnameinfo(sa, sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in),
                          host, sizeof(host), port, sizeof(port), NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
        host[0] = port[0] = '\0';
    }
    Tcl_DStringStartSublist(ds);
    Tcl_DStringAppendElement(ds, host);
    Tcl_DStringAppendElement(ds, host);
    Tcl_DStringAppendElement(ds, port);
    Tcl_DStringEndSublist(ds);
}

static int chanGetOption(ClientData cd, Tcl_Interp *interp, const char *name, Tcl_DString *ds) {
    tclRdmaChan *rc = cd;
    int all = (name == NULL);
    if (all || !strcmp(name, "-peername")) {
        if (all) Tcl_DStringAppendElement(ds, "-peername");
        chanAddrOption(rdma_get_peer_addr(rc->id), ds);
        if (!all) return TCL_OK;
    }
    if (all || !strcmp(name, "-sockname")) {
        if (all) Tcl_DStringAppendElement(ds, "-sockname");
        chanAddrOption(rdma_get_local_addr(rc->id), ds);
        if (!all) return TCL_OK;
    }
    if (all || !strcmp(name, "-keepalives")) {
        char num[32];
        snprintf(num, sizeof(num), "%llu", rc->ep.keepalives_received);
        if (all) Tcl_DStringAppendElement(ds, "-keepalives");
        Tcl_DStringAppendElement(ds, num);
        if (!all) return TCL_OK;
    }
    if (all || !strcmp(name, "-error")) {
        /* As for sockets: the pending error, if any, is returned once. */
        if (all) Tcl_DStringAppendElement(ds, "-error");
        Tcl_DStringAppendElement(ds, rc->broken ? rc->ep.err : "");
        if (!all) return TCL_OK;
    }
    if (all) return TCL_OK;
    return Tcl_BadChannelOption(interp, name, "error keepalives peername sockname");
}

static int chanGetHandle(ClientData cd, int direction, ClientData *handlep) {
    tclRdmaChan *rc = cd;
    if (direction != TCL_READABLE) return TCL_ERROR;
    *handlep = (ClientData)(intptr_t)rc->ep.comp_channel->fd;
    return TCL_OK;
}

static Tcl_ChannelType rdmaChannelType = {
    .typeName = "rdma",
    .version = TCL_CHANNEL_VERSION_5,
    .closeProc = chanClose,
    .inputProc = chanInput,
    .outputProc = chanOutput,
    .getOptionProc = chanGetOption,
    .watchProc = chanWatch,
    .getHandleProc = chanGetHandle,
    .blockModeProc = chanBlockMode,
};

/* ---------------------------------------------------------------------------
 * rdma::connect
 * ------------------------------------------------------------------------- */

/* Waits (until deadline) for the next CM event and checks it is `want`.
 * Returns TCL_OK, or TCL_ERROR with a reason in err. */
static int connectWaitEvent(tclRdmaChan *rc, enum rdma_cm_event_type want, long long deadline, char *err,
                            size_t errlen) {
    for (;;) {
        long long left = deadline - nowMs();
        if (left <= 0) {
            snprintf(err, errlen, "timed out waiting for %s", rdma_event_str(want));
            return TCL_ERROR;
        }
        struct pollfd pfd = {.fd = rc->ec->fd, .events = POLLIN};
        int n = poll(&pfd, 1, left > INT_MAX ? INT_MAX : (int)left);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            snprintf(err, errlen, "poll failed: %s", strerror(errno));
            return TCL_ERROR;
        }
        if (n == 0) continue;
        struct rdma_cm_event *ev;
        if (rdma_get_cm_event(rc->ec, &ev) != 0) {
            if (errno == EAGAIN) continue;
            snprintf(err, errlen, "rdma_get_cm_event failed: %s", strerror(errno));
            return TCL_ERROR;
        }
        enum rdma_cm_event_type got = ev->event;
        int status = ev->status;
        rdma_ack_cm_event(ev);
        if (got == want) return TCL_OK;
        if (got == RDMA_CM_EVENT_REJECTED) {
            snprintf(err, errlen, "connection refused (rejected, status %d)", status);
        } else {
            snprintf(err, errlen, "expected %s, got %s (status %d)", rdma_event_str(want), rdma_event_str(got),
                     status);
        }
        return TCL_ERROR;
    }
}

static int resolveAddr(const char *host, int port, struct sockaddr_storage *ss, char *err, size_t errlen) {
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res;
    char portstr[16];
    snprintf(portstr, sizeof(portstr), "%d", port);
    int rv = getaddrinfo(host, portstr, &hints, &res);
    if (rv != 0) {
        snprintf(err, errlen, "cannot resolve %s: %s", host, gai_strerror(rv));
        return TCL_ERROR;
    }
    memset(ss, 0, sizeof(*ss));
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
    return TCL_OK;
}

/* Resolves, connects and waits until the server's RX window is known.
 * Returns TCL_OK, or TCL_ERROR with the reason in err (the caller then
 * releases rc). */
static int connectEndpoint(tclRdmaChan *rc, const char *host, int port, const char *src, size_t rx_size,
                           int timeout_ms, char *err, size_t errlen) {
    long long deadline = nowMs() + timeout_ms;
    struct sockaddr_storage dst, srcaddr;
    if (resolveAddr(host, port, &dst, err, errlen) != TCL_OK) return TCL_ERROR;
    if (src && resolveAddr(src, 0, &srcaddr, err, errlen) != TCL_OK) return TCL_ERROR;

    rc->ec = rdma_create_event_channel();
    if (rc->ec == NULL) {
        snprintf(err, errlen, "rdma_create_event_channel failed: %s", strerror(errno));
        return TCL_ERROR;
    }
    fcntl(rc->ec->fd, F_SETFD, FD_CLOEXEC);
    if (rdma_create_id(rc->ec, &rc->id, NULL, RDMA_PS_TCP) != 0) {
        rc->id = NULL;
        snprintf(err, errlen, "rdma_create_id failed: %s", strerror(errno));
        return TCL_ERROR;
    }
    if (rdma_resolve_addr(rc->id, src ? (struct sockaddr *)&srcaddr : NULL, (struct sockaddr *)&dst, timeout_ms) !=
        0) {
        snprintf(err, errlen, "rdma_resolve_addr failed: %s", strerror(errno));
        return TCL_ERROR;
    }
    if (connectWaitEvent(rc, RDMA_CM_EVENT_ADDR_RESOLVED, deadline, err, errlen) != TCL_OK) return TCL_ERROR;
    if (rdma_resolve_route(rc->id, timeout_ms) != 0) {
        snprintf(err, errlen, "rdma_resolve_route failed: %s", strerror(errno));
        return TCL_ERROR;
    }
    if (connectWaitEvent(rc, RDMA_CM_EVENT_ROUTE_RESOLVED, deadline, err, errlen) != TCL_OK) return TCL_ERROR;

    if (rdmaEndpointCreate(&rc->ep, rc->id, rx_size, -1, 0) != C_OK) {
        snprintf(err, errlen, "%s", rc->ep.err);
        return TCL_ERROR;
    }
    /* Upstream clients' CM parameters (RDMA-PROTOCOL.md). */
    struct rdma_conn_param param = {
        .responder_resources = 1,
        .initiator_depth = 1,
        .retry_count = 7,
        .rnr_retry_count = 7,
    };
    if (rdma_connect(rc->id, &param) != 0) {
        snprintf(err, errlen, "rdma_connect failed: %s", strerror(errno));
        return TCL_ERROR;
    }
    if (connectWaitEvent(rc, RDMA_CM_EVENT_ESTABLISHED, deadline, err, errlen) != TCL_OK) return TCL_ERROR;
    rc->established = 1;
    int flags = fcntl(rc->ec->fd, F_GETFL);
    if (flags == -1 || fcntl(rc->ec->fd, F_SETFL, flags | O_NONBLOCK) == -1) {
        snprintf(err, errlen, "fcntl(O_NONBLOCK) on the CM channel failed: %s", strerror(errno));
        return TCL_ERROR;
    }
    if (rdmaEndpointAdvertise(&rc->ep) != C_OK) {
        snprintf(err, errlen, "%s", rc->ep.err);
        return TCL_ERROR;
    }
    /* Our first write needs the server's window: wait for it here, so a
     * server that accepts and then never advertises fails the connect. */
    while (!rc->ep.peer_known) {
        long long left = deadline - nowMs();
        if (rc->broken || rc->peer_closed) {
            snprintf(err, errlen, "%s", rc->broken ? rc->ep.err : "connection closed by the server");
            return TCL_ERROR;
        }
        if (left <= 0) {
            snprintf(err, errlen, "timed out waiting for the server's RX window");
            return TCL_ERROR;
        }
        chanWait(rc, left > 100 ? 100 : (int)left);
    }
    return TCL_OK;
}

/* rdma::connect host port ?-timeout ms? ?-source addr? ?-rxsize bytes?
 * Returns the name of a new channel, or raises "couldn't open RDMA
 * connection to host:port: reason". */
static int connectCmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[]) {
    static const char *usage = "host port ?-timeout ms? ?-source addr? ?-rxsize bytes?";
    if (objc < 3 || (objc - 3) % 2 != 0) {
        Tcl_WrongNumArgs(interp, 1, objv, usage);
        return TCL_ERROR;
    }
    const char *host = Tcl_GetString(objv[1]);
    int port, timeout_ms = TCLRDMA_DEFAULT_TIMEOUT_MS;
    Tcl_WideInt rx_size = RDMA_DEFAULT_RX_SIZE;
    const char *src = NULL;
    if (Tcl_GetIntFromObj(interp, objv[2], &port) != TCL_OK) return TCL_ERROR;
    if (port <= 0 || port > 65535) {
        Tcl_SetObjResult(interp, Tcl_ObjPrintf("invalid port %d", port));
        return TCL_ERROR;
    }
    for (int j = 3; j < objc; j += 2) {
        const char *opt = Tcl_GetString(objv[j]);
        if (!strcmp(opt, "-timeout")) {
            if (Tcl_GetIntFromObj(interp, objv[j + 1], &timeout_ms) != TCL_OK) return TCL_ERROR;
            if (timeout_ms <= 0) timeout_ms = TCLRDMA_DEFAULT_TIMEOUT_MS;
        } else if (!strcmp(opt, "-source")) {
            src = Tcl_GetString(objv[j + 1]);
            if (src[0] == '\0') src = NULL;
        } else if (!strcmp(opt, "-rxsize")) {
            if (Tcl_GetWideIntFromObj(interp, objv[j + 1], &rx_size) != TCL_OK) return TCL_ERROR;
            if (rx_size < 4096 || rx_size > RDMA_MAX_XFER_LEN) {
                Tcl_SetObjResult(interp, Tcl_ObjPrintf("-rxsize must be 4096..%u", RDMA_MAX_XFER_LEN));
                return TCL_ERROR;
            }
        } else {
            Tcl_SetObjResult(interp, Tcl_ObjPrintf("bad option \"%s\": should be %s", opt, usage));
            return TCL_ERROR;
        }
    }

    tclRdmaChan *rc = (tclRdmaChan *)ckalloc(sizeof(*rc));
    memset(rc, 0, sizeof(*rc));
    rc->blocking = 1;
    char err[RDMA_ERR_LEN + 64];
    if (connectEndpoint(rc, host, port, src, (size_t)rx_size, timeout_ms, err, sizeof(err)) != TCL_OK) {
        chanRelease(rc);
        Tcl_SetObjResult(interp, Tcl_ObjPrintf("couldn't open RDMA connection to %s:%d: %s", host, port, err));
        Tcl_SetErrorCode(interp, "RDMA", "CONNECT", err, NULL);
        return TCL_ERROR;
    }

    char name[32];
    snprintf(name, sizeof(name), "rdma%d", chanSeq++);
    rc->chan = Tcl_CreateChannel(&rdmaChannelType, name, rc, TCL_READABLE | TCL_WRITABLE);
    Tcl_SetChannelBufferSize(rc->chan, TCLRDMA_BUFFER_SIZE);
    Tcl_RegisterChannel(interp, rc->chan);
    Tcl_SetObjResult(interp, Tcl_NewStringObj(name, -1));
    return TCL_OK;
}

/* The extension's entry point (load ... Tclrdma). */
int Tclrdma_Init(Tcl_Interp *interp) {
    if (Tcl_InitStubs(interp, "8.6", 0) == NULL) return TCL_ERROR;
    /* Registered memory must survive the fork() of every `exec` the tests
     * do; on current kernels this is a no-op. */
    ibv_fork_init();
    if (Tcl_FindNamespace(interp, "::rdma", NULL, 0) == NULL &&
        Tcl_CreateNamespace(interp, "::rdma", NULL, NULL) == NULL)
        return TCL_ERROR;
    Tcl_CreateObjCommand(interp, "::rdma::connect", connectCmd, NULL, NULL);
    return Tcl_PkgProvide(interp, "tclrdma", "1.0");
}
