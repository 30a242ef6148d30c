/* cli_transport.c - client transports of the tools and their event glue.
 *
 * Three parts, in the order a reader meets them:
 *
 *  1. The registry: cliConnTypeGetByName() maps "tcp", "unix", "tls",
 *     "rdma", "shm" to a cliConnType. TLS, RDMA and shm are weak
 *     references: a tool built without cli_conn_tls.c / cli_conn_rdma.c /
 *     cli_conn_shm.c simply does not find them and says "... support is
 *     not built in". (cli_conn_tls.c: the TLS client; cli_conn_rdma.c:
 *     RDMA; cli_conn_shm.c: shared memory, over libvkshm.c.)
 *  2. The socket transports ("tcp", "unix"): a bare cliConn around a
 *     socket; blocking or non-blocking depending on how it was connected.
 *  3. The event glue shared by every transport: one aeFileProc per
 *     connection that finishes connects and dispatches read/write handlers,
 *     deferred close while a handler runs, and the per-thread list of
 *     connections whose transport has no writable event, served from the
 *     tool's before-sleep hook by cliConnBeforeSleep().
 *
 * Called by valkey-benchmark and valkey-cli; calls anet.c and ae.c.
 * Invariant: c->mask always equals what is registered on c->fd in c->el,
 * so a close can unregister exactly that. */
#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "anet.h"
#include "cli_transport.h"
#include "zmalloc.h"

/* ---------------------------------------------------------------------------
 * Registry
 * ------------------------------------------------------------------------- */

static const cliConnType cliConnTypeTcp;
static const cliConnType cliConnTypeUnix;

/* Defined by cli_conn_tls.c / cli_conn_rdma.c / cli_conn_shm.c when those
 * are linked in (BUILD_TLS=yes / BUILD_RDMA=yes; shm always); NULL
 * otherwise. This is the whole
 * registration of a new transport. */
extern const cliConnType cliConnTypeTls __attribute__((weak));
extern const cliConnType cliConnTypeRdma __attribute__((weak));
extern const cliConnType cliConnTypeShm __attribute__((weak));

/* Returns the transport called name (case-insensitive), or NULL when it is
 * unknown or not built in. The result is static; never free it. */
const cliConnType *cliConnTypeGetByName(const char *name) {
    const cliConnType *types[] = {&cliConnTypeTcp, &cliConnTypeUnix, &cliConnTypeTls, &cliConnTypeRdma,
                                  &cliConnTypeShm};
    for (size_t j = 0; j < sizeof(types) / sizeof(types[0]); j++) {
        if (types[j] && !strcasecmp(types[j]->name, name)) return types[j];
    }
    return NULL;
}

int cliParseTlsOption(int argc, char **argv, int *i, cliTlsOptions *o, int *tls_on) {
    static const struct {
        const char *name;
        size_t offset; /* of the value's field in cliTlsOptions */
    } valued[] = {
        {"--cacert", offsetof(cliTlsOptions, cacert)},   {"--cacertdir", offsetof(cliTlsOptions, cacertdir)},
        {"--cert", offsetof(cliTlsOptions, cert)},       {"--key", offsetof(cliTlsOptions, key)},
        {"--sni", offsetof(cliTlsOptions, sni)},         {"--tls-ciphers", offsetof(cliTlsOptions, ciphers)},
        {"--tls-ciphersuites", offsetof(cliTlsOptions, ciphersuites)},
    };
    const char *a = argv[*i];
    if (!strcmp(a, "--tls")) {
        *tls_on = 1;
        return 1;
    }
    if (!strcmp(a, "--insecure")) {
        o->insecure = 1;
        return 1;
    }
    for (size_t j = 0; j < sizeof(valued) / sizeof(valued[0]); j++) {
        if (strcmp(a, valued[j].name)) continue;
        if (*i + 1 >= argc) return -1;
        *(const char **)((char *)o + valued[j].offset) = argv[++*i];
        return 1;
    }
    return 0;
}

/* Writes "host:port" (or the socket path) into buf, for messages. */
void cliConnFormatAddr(char *buf, size_t len, const cliConnAddr *addr) {
    if (addr->path)
        snprintf(buf, len, "%s", addr->path);
    else if (addr->host && strchr(addr->host, ':'))
        snprintf(buf, len, "[%s]:%d", addr->host, addr->port);
    else
        snprintf(buf, len, "%s:%d", addr->host ? addr->host : "127.0.0.1", addr->port);
}

/* Records a failure on c: the message, the errno, and state ERROR. Used by
 * transports and by the glue. */
void cliConnSetError(cliConn *c, int err_no, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, sizeof(c->err), fmt, ap);
    va_end(ap);
    c->last_errno = err_no;
    c->state = CLI_CONN_ERROR;
}

/* ---------------------------------------------------------------------------
 * Socket transports: "tcp" and "unix"
 * ------------------------------------------------------------------------- */

/* anet reports "<call>: <reason>"; users want the reason alone, as in
 * "Could not connect to Valkey at 127.0.0.1:6379: Connection refused". */
static void sockCopyReason(char *dst, size_t dstlen, const char *anet_err) {
    const char *sep = strstr(anet_err, ": ");
    snprintf(dst, dstlen, "%s", sep ? sep + 2 : anet_err);
}

/* Wraps a freshly connecting socket fd. Blocking mode waits for the
 * connect to finish and switches the fd to blocking I/O; otherwise the
 * connection is left CONNECTING for connect_step(). */
static cliConn *sockWrap(const cliConnType *ct, int fd, int blocking, long long timeout_ms, char *err, size_t errlen) {
    if (blocking) {
        int ready = aeWait(fd, AE_WRITABLE, timeout_ms > 0 ? timeout_ms : -1);
        int sockerr = ready == 0 ? ETIMEDOUT : (ready < 0 ? errno : anetGetError(fd));
        char aerr[ANET_ERR_LEN];
        if (sockerr == 0 && anetBlock(aerr, fd) == ANET_ERR) sockerr = errno;
        if (sockerr) {
            snprintf(err, errlen, "%s", strerror(sockerr));
            close(fd);
            errno = sockerr;
            return NULL;
        }
    }
    cliConn *c = zcalloc(sizeof(*c));
    c->type = ct;
    c->fd = fd;
    c->state = blocking ? CLI_CONN_CONNECTED : CLI_CONN_CONNECTING;
    return c;
}

/* With -4/-6, the first address of host in the preferred family, as a
 * numeric string in buf; host itself when it has none (or no preference). */
static const char *tcpPreferredAddress(const cliConnAddr *addr, char *buf, size_t len) {
    const char *host = addr->host ? addr->host : "127.0.0.1";
    if (addr->prefer_family != 4 && addr->prefer_family != 6) return host;
    struct addrinfo hints, *info;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = addr->prefer_family == 4 ? AF_INET : AF_INET6;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, NULL, &hints, &info) != 0) return host;
    const void *sa = info->ai_family == AF_INET ? (const void *)&((struct sockaddr_in *)info->ai_addr)->sin_addr
                                                : (const void *)&((struct sockaddr_in6 *)info->ai_addr)->sin6_addr;
    const char *ip = inet_ntop(info->ai_family, sa, buf, (socklen_t)len);
    freeaddrinfo(info);
    return ip ? ip : host;
}

static cliConn *tcpConnect(const cliConnAddr *addr, int blocking, long long timeout_ms, char *err, size_t errlen) {
    char aerr[ANET_ERR_LEN], ip[64];
    int fd = anetTcpNonBlockConnect(aerr, tcpPreferredAddress(addr, ip, sizeof(ip)), addr->port);
    if (fd == ANET_ERR) {
        sockCopyReason(err, errlen, aerr);
        return NULL;
    }
    anetEnableTcpNoDelay(NULL, fd);
    return sockWrap(&cliConnTypeTcp, fd, blocking, timeout_ms, err, errlen);
}

static cliConn *unixConnect(const cliConnAddr *addr, int blocking, long long timeout_ms, char *err, size_t errlen) {
    char aerr[ANET_ERR_LEN];
    if (!addr->path) {
        snprintf(err, errlen, "no socket path");
        return NULL;
    }
    int fd = anetUnixNonBlockConnect(aerr, addr->path);
    if (fd == ANET_ERR) {
        sockCopyReason(err, errlen, aerr);
        return NULL;
    }
    return sockWrap(&cliConnTypeUnix, fd, blocking, timeout_ms, err, errlen);
}

/* Async-signal-safe (valkey-cli's Ctrl-C handler calls it): makes a read
 * blocked on c return 0 by shutting the socket down. Transports whose fd
 * is not a socket (RDMA's event channel) are left as they are. The
 * connection must still be closed with cliConnClose(). */
void cliConnInterrupt(cliConn *c) {
    if (c && c->fd != -1) shutdown(c->fd, SHUT_RDWR);
}

/* Writability after a non-blocking connect: SO_ERROR tells the outcome. */
static int sockConnectStep(cliConn *c) {
    int sockerr = anetGetError(c->fd);
    if (sockerr == EINPROGRESS) return CLI_AGAIN;
    if (sockerr) {
        cliConnSetError(c, sockerr, "%s", strerror(sockerr));
        return CLI_ERR;
    }
    return CLI_OK;
}

/* Common tail of the socket I/O calls: classify a read/write result. */
static ssize_t sockResult(cliConn *c, ssize_t n, int is_read) {
    if (n > 0) return n;
    if (n == 0 && is_read) {
        c->state = CLI_CONN_CLOSED;
        return 0;
    }
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) cliConnSetError(c, errno, "%s", strerror(errno));
    return n;
}

static ssize_t sockRead(cliConn *c, void *buf, size_t len) {
    ssize_t n;
    do {
        n = read(c->fd, buf, len);
    } while (n == -1 && errno == EINTR);
    return sockResult(c, n, 1);
}

static ssize_t sockWrite(cliConn *c, const void *buf, size_t len) {
    ssize_t n;
    do {
        n = write(c->fd, buf, len);
    } while (n == -1 && errno == EINTR);
    return sockResult(c, n, 0);
}

static ssize_t sockWritev(cliConn *c, const struct iovec *iov, int iovcnt) {
    ssize_t n;
    do {
        n = writev(c->fd, iov, iovcnt);
    } while (n == -1 && errno == EINTR);
    return sockResult(c, n, 0);
}

static void sockClose(cliConn *c) {
    if (c->fd != -1) close(c->fd);
    zfree(c);
}

static const cliConnType cliConnTypeTcp = {
    .name = CLI_CONN_TCP,
    .fds_per_conn = 1,
    .connect = tcpConnect,
    .connect_step = sockConnectStep,
    .read = sockRead,
    .write = sockWrite,
    .writev = sockWritev,
    .close = sockClose,
};

static const cliConnType cliConnTypeUnix = {
    .name = CLI_CONN_UNIX,
    .fds_per_conn = 1,
    .connect = unixConnect,
    .connect_step = sockConnectStep,
    .read = sockRead,
    .write = sockWrite,
    .writev = sockWritev,
    .close = sockClose,
};

/* ---------------------------------------------------------------------------
 * Event glue
 * ------------------------------------------------------------------------- */

/* Connections of NO_WRITABLE_EVENT transports that have a handler set,
 * for this thread's event loop(s). Socket connections never get here. */
static __thread cliConn *pendingHead;
static __thread int pendingSetDontWait; /* We asked the loop not to sleep. */

static void cliConnEventProc(aeEventLoop *el, int fd, void *clientData, int mask);

static int noWritableEvent(const cliConn *c) {
    return (c->type->flags & CLI_CONN_TYPE_NO_WRITABLE_EVENT) != 0;
}

static void pendingAdd(cliConn *c) {
    if (c->in_pending_list) return;
    c->pending_prev = NULL;
    c->pending_next = pendingHead;
    if (pendingHead) pendingHead->pending_prev = c;
    pendingHead = c;
    c->in_pending_list = 1;
}

static void pendingRemove(cliConn *c) {
    if (!c->in_pending_list) return;
    if (c->pending_prev)
        c->pending_prev->pending_next = c->pending_next;
    else
        pendingHead = c->pending_next;
    if (c->pending_next) c->pending_next->pending_prev = c->pending_prev;
    c->pending_prev = c->pending_next = NULL;
    c->in_pending_list = 0;
}

/* Makes the fd registration (and pending-list membership) match the state
 * and the handlers set. CLI_ERR if the loop cannot take the fd. */
static int cliConnUpdateEvents(cliConn *c) {
    if (!c->el || c->fd == -1) return CLI_OK;
    int want = 0;
    int nowr = noWritableEvent(c);
    if (c->state == CLI_CONN_CONNECTING) {
        want = c->connect_want ? c->connect_want : (nowr ? AE_READABLE : AE_WRITABLE);
    } else if (!c->closing) {
        if (c->read_handler) want |= AE_READABLE;
        /* Without a writable event, writability comes back as transport
         * work on the readable fd (and is then seen by pending()). */
        if (c->write_handler) want |= nowr ? AE_READABLE : AE_WRITABLE;
    }
    int add = want & ~c->mask, del = c->mask & ~want;
    if (del) aeDeleteFileEvent(c->el, c->fd, del);
    c->mask &= ~del;
    if (add) {
        if (aeCreateFileEvent(c->el, c->fd, add, cliConnEventProc, c) == AE_ERR) return CLI_ERR;
        c->mask |= add;
    }
    int listed = nowr || (c->type->flags & CLI_CONN_TYPE_BUFFERS_INPUT);
    if (listed && c->state == CLI_CONN_CONNECTED && !c->closing && (c->read_handler || c->write_handler))
        pendingAdd(c);
    else
        pendingRemove(c);
    return CLI_OK;
}

/* Releases a reference taken around a handler call; performs a close that
 * a handler requested. Returns 0 if c is gone. */
static int cliConnRelease(cliConn *c) {
    if (--c->refs == 0 && c->closing) {
        c->type->close(c);
        return 0;
    }
    return 1;
}

/* Finishes (or fails) a non-blocking connect and calls the connect handler,
 * which checks cliConnGetState(). */
static void cliConnConnectProgress(cliConn *c) {
    int oldfd = c->fd;
    int ret = c->type->connect_step(c);
    if (ret == CLI_AGAIN) {
        /* The transport may now wait for the other direction (a TLS
         * handshake reading the server's answer). */
        if (cliConnUpdateEvents(c) == CLI_ERR) cliConnSetError(c, ERANGE, "fd %d too large for the event loop", c->fd);
        else return;
    }
    if (c->fd != oldfd && c->mask) {
        aeDeleteFileEvent(c->el, oldfd, c->mask);
        c->mask = 0;
    }
    if (ret == CLI_OK) c->state = CLI_CONN_CONNECTED;
    if (cliConnUpdateEvents(c) == CLI_ERR) cliConnSetError(c, ERANGE, "fd %d too large for the event loop", c->fd);
    cliConnHandler *h = c->connect_handler;
    c->connect_handler = NULL;
    if (h) h(c);
}

/* The aeFileProc of every connection. Handlers run with a reference held,
 * so they may close their own connection. */
static void cliConnEventProc(aeEventLoop *el, int fd, void *clientData, int mask) {
    cliConn *c = clientData;
    (void)el;
    (void)fd;
    c->refs++;
    if (c->state == CLI_CONN_CONNECTING) {
        cliConnConnectProgress(c);
    } else {
        if ((mask & AE_READABLE) && c->type->process && c->type->process(c) == CLI_ERR && c->state != CLI_CONN_ERROR)
            cliConnSetError(c, EIO, "transport error");
        if ((mask & AE_READABLE) && c->read_handler && !c->closing) c->read_handler(c);
        if ((mask & AE_WRITABLE) && c->write_handler && !c->closing) c->write_handler(c);
    }
    cliConnRelease(c);
}

/* Opens a blocking connection (no event loop): connect, read and write all
 * block; timeout_ms bounds the connect (0 = no limit). Returns the
 * connection, owned by the caller (cliConnClose()), or NULL with a reason
 * in err. Any thread. */
cliConn *cliConnConnectBlocking(const cliConnType *ct, const cliConnAddr *addr, long long timeout_ms, char *err, size_t errlen) {
    return ct->connect(addr, 1, timeout_ms, err, errlen);
}

/* Starts a non-blocking connect inside el. connect_handler runs from the
 * loop once the connect succeeded or failed (check cliConnGetState()).
 * Returns the connection, owned by the caller, or NULL with a reason in
 * err when it failed at once. Runs in el's thread. */
cliConn *cliConnConnect(const cliConnType *ct,
                        const cliConnAddr *addr,
                        aeEventLoop *el,
                        cliConnHandler *connect_handler,
                        void *privdata,
                        char *err,
                        size_t errlen) {
    cliConn *c = ct->connect(addr, 0, 0, err, errlen);
    if (!c) return NULL;
    c->el = el;
    c->privdata = privdata;
    c->connect_handler = connect_handler;
    if (c->state == CLI_CONN_CONNECTED) {
        /* A transport that connected at once: report it from the loop like
         * any other connect, through a writable/pending notification. */
        c->state = CLI_CONN_CONNECTING;
    }
    if (cliConnUpdateEvents(c) == CLI_ERR) {
        snprintf(err, errlen, "fd %d too large for the event loop", c->fd);
        c->type->close(c);
        return NULL;
    }
    return c;
}

/* Closes c and frees it, now or (inside one of its handlers) when the
 * handler returns; no handler of c runs after this call. NULL is a no-op. */
void cliConnClose(cliConn *c) {
    if (!c) return;
    if (c->el && c->mask && c->fd != -1) aeDeleteFileEvent(c->el, c->fd, c->mask);
    c->mask = 0;
    pendingRemove(c);
    c->connect_handler = c->read_handler = c->write_handler = NULL;
    if (c->refs > 0) {
        c->closing = 1;
        return;
    }
    c->type->close(c);
}

/* Like read(2); see the I/O contract in cli_transport.h. */
ssize_t cliConnRead(cliConn *c, void *buf, size_t len) {
    return c->type->read(c, buf, len);
}

/* Like write(2); see the I/O contract in cli_transport.h. */
ssize_t cliConnWrite(cliConn *c, const void *buf, size_t len) {
    return c->type->write(c, buf, len);
}

/* Like writev(2); see the I/O contract in cli_transport.h. */
ssize_t cliConnWritev(cliConn *c, const struct iovec *iov, int iovcnt) {
    return c->type->writev(c, iov, iovcnt);
}

/* Writes all of buf on a blocking connection. CLI_OK, or CLI_ERR with the
 * reason in cliConnGetLastError(). */
int cliConnWriteAll(cliConn *c, const void *buf, size_t len) {
    const char *p = buf;
    while (len > 0) {
        ssize_t n = c->type->write(c, p, len);
        if (n <= 0) {
            if (c->state != CLI_CONN_ERROR) cliConnSetError(c, EIO, "short write");
            return CLI_ERR;
        }
        p += n;
        len -= (size_t)n;
    }
    return CLI_OK;
}

/* Sets (or with NULL removes) the handler called when c has data to read.
 * CLI_OK, or CLI_ERR when the fd does not fit the event loop. */
int cliConnSetReadHandler(cliConn *c, cliConnHandler *handler) {
    c->read_handler = handler;
    return cliConnUpdateEvents(c);
}

/* Sets (or with NULL removes) the handler called when a write on c can make
 * progress: on the writable event for sockets, from cliConnBeforeSleep()
 * for transports without one. CLI_OK or CLI_ERR as above. */
int cliConnSetWriteHandler(cliConn *c, cliConnHandler *handler) {
    c->write_handler = handler;
    return cliConnUpdateEvents(c);
}

/* Call from el's before-sleep hook. Runs the handlers of connections
 * (of el, in this thread) whose transport has buffered input or regained
 * writability without an fd event, then tells the loop not to sleep while
 * any such work remains. Cheap when no such connection exists. */
void cliConnBeforeSleep(aeEventLoop *el) {
    static __thread cliConn **snap;
    static __thread size_t snap_cap;
    if (!pendingHead) {
        if (pendingSetDontWait) aeSetDontWait(el, 0);
        pendingSetDontWait = 0;
        return;
    }

    /* Snapshot first: handlers may close connections or open new ones. */
    size_t n = 0;
    for (cliConn *c = pendingHead; c; c = c->pending_next) {
        if (c->el != el) continue;
        if (n == snap_cap) {
            snap_cap = snap_cap ? snap_cap * 2 : 64;
            snap = zrealloc(snap, snap_cap * sizeof(*snap));
        }
        snap[n++] = c;
        c->refs++;
    }
    for (size_t j = 0; j < n; j++) {
        cliConn *c = snap[j];
        if (c->closing || c->state == CLI_CONN_CONNECTING) continue;
        int p = c->type->pending(c);
        if ((p & CLI_PENDING_READ) && c->read_handler) c->read_handler(c);
        if (!c->closing && (p & CLI_PENDING_WRITE) && c->write_handler) c->write_handler(c);
    }
    for (size_t j = 0; j < n; j++) cliConnRelease(snap[j]);

    int busy = 0;
    for (cliConn *c = pendingHead; c && !busy; c = c->pending_next) {
        if (c->el != el) continue;
        int p = c->type->pending(c);
        if (((p & CLI_PENDING_READ) && c->read_handler) || ((p & CLI_PENDING_WRITE) && c->write_handler)) busy = 1;
    }
    aeSetDontWait(el, busy);
    pendingSetDontWait = busy;
}

/* ---------------------------------------------------------------------------
 * Accessors
 * ------------------------------------------------------------------------- */

/* The reason of the last failure ("" if none). Valid while c lives. */
const char *cliConnGetLastError(const cliConn *c) {
    return c->err;
}

/* CLI_CONN_CONNECTED while usable; CLOSED/ERROR after a failure. */
cliConnState cliConnGetState(const cliConn *c) {
    return c->state;
}

/* The fd the transport polls, -1 if none (for diagnostics only). */
int cliConnGetFd(const cliConn *c) {
    return c->fd;
}

/* The owner's pointer given to cliConnConnect() or set below; not owned. */
void *cliConnGetPrivData(const cliConn *c) {
    return c->privdata;
}

/* Replaces the owner's pointer; the layer never dereferences it. */
void cliConnSetPrivData(cliConn *c, void *privdata) {
    c->privdata = privdata;
}
