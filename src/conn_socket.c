/* conn_socket.c - the TCP transport ("tcp"), and the fd-based connection
 * primitives the Unix transport (conn_unix.c) reuses.
 *
 * A TCP connection is a bare `connection` whose fd is a non-blocking
 * socket. One aeFileProc, connSocketEventHandler(), serves both directions:
 * it finishes a pending connect (checking SO_ERROR on writability), then
 * runs the read and write handlers in the order the write barrier asks.
 * Every handler runs through connCallHandler(), so a handler may close its
 * own connection; closing unregisters the fd and closes it at once and
 * frees the struct when the last handler on the stack returns.
 *
 * An I/O thread may read and write a socket connection (io_threads.c):
 * recv/send on one socket from one thread at a time need nothing shared,
 * so the calls below work from any thread, and off-thread mode makes the
 * fd's events edge-triggered (AE_EDGE) so that the event loop is not told
 * again about bytes a thread is about to read. Everything else (handlers,
 * registration, close) stays in the event loop's thread.
 *
 * Listening: connSocketListen() binds every configured address (a leading
 * '-' makes an address optional: a host without it, or without IPv6, is
 * skipped) and registers connSocketAcceptHandler() on each fd, which
 * accepts up to MAX_ACCEPTS_PER_CALL connections per wake-up and hands
 * each to listener->accept_cb. Called from the event loop only; includes
 * no server header. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "anet.h"
#include "connection.h"
#include "log.h"
#include "zmalloc.h"

static ConnectionType CT_Socket;

/* ---------------------------------------------------------------------------
 * Connection lifetime
 * ------------------------------------------------------------------------- */

/* Allocates a connection of transport ct around fd (-1 for none) in the
 * given state. The caller owns it; connClose() frees it. */
connection *connSocketCreateOfType(ConnectionType *ct, int fd, ConnectionState state) {
    connection *conn = zcalloc(sizeof(*conn));
    conn->type = ct;
    conn->fd = fd;
    conn->state = state;
    return conn;
}

static connection *connCreateSocket(void) {
    return connSocketCreateOfType(&CT_Socket, -1, CONN_STATE_NONE);
}

/* Takes ownership of an accepted fd (non-blocking already: anet's accept). */
static connection *connCreateAcceptedSocket(int fd, void *priv) {
    return connSocketCreateOfType(&CT_Socket, fd, CONN_STATE_ACCEPTING);
}

/* Completes the accept of an ACCEPTING connection: plain sockets need no
 * handshake, so it becomes CONNECTED and accept_handler runs at once.
 * Returns C_OK, or C_ERR if it was not ACCEPTING or the handler closed it.
 * The extra reference keeps conn allocated in the C_ERR case, as the
 * connAccept() contract promises; the caller's connClose() frees it. */
int connSocketAccept(connection *conn, ConnectionCallbackFunc accept_handler) {
    if (conn->state != CONN_STATE_ACCEPTING) return C_ERR;
    conn->state = CONN_STATE_CONNECTED;
    connIncrRefs(conn);
    int alive = connCallHandler(conn, accept_handler);
    connDecrRefs(conn);
    return alive ? C_OK : C_ERR;
}

/* Adopts fd, a socket whose non-blocking connect is in progress, and arms
 * the connect callback on writability. Returns C_OK, or C_ERR (fd closed,
 * state ERROR) if the event cannot be registered. */
int connSocketConnectFd(connection *conn, int fd, ConnectionCallbackFunc connect_handler) {
    conn->fd = fd;
    conn->state = CONN_STATE_CONNECTING;
    conn->conn_handler = connect_handler;
    if (aeCreateFileEvent(connGetEventLoop(), fd, AE_WRITABLE, conn->type->ae_handler, conn) == AE_ERR) {
        conn->last_errno = errno;
        conn->state = CONN_STATE_ERROR;
        close(fd);
        conn->fd = -1;
        return C_ERR;
    }
    return C_OK;
}

static int connSocketConnect(connection *conn,
                             const char *addr,
                             int port,
                             const char *src_addr,
                             ConnectionCallbackFunc connect_handler) {
    int fd = anetTcpNonBlockBindConnect(NULL, addr, port, src_addr);
    if (fd == -1) {
        conn->state = CONN_STATE_ERROR;
        conn->last_errno = errno;
        return C_ERR;
    }
    return connSocketConnectFd(conn, fd, connect_handler);
}

/* Adopts fd, a socket whose non-blocking connect is in progress, and waits
 * up to timeout ms for it to finish. Returns C_OK (CONNECTED) or C_ERR
 * (ERROR, last_errno set, fd closed). Blocks the event loop. */
int connSocketBlockingConnectFd(connection *conn, int fd, long long timeout) {
    int err, ready = aeWait(fd, AE_WRITABLE, timeout);
    if (ready <= 0 || !(ready & AE_WRITABLE)) {
        err = ready == -1 ? errno : ETIMEDOUT;
    } else {
        err = anetGetError(fd);
    }
    if (err) {
        close(fd);
        conn->state = CONN_STATE_ERROR;
        conn->last_errno = err;
        return C_ERR;
    }
    conn->fd = fd;
    conn->state = CONN_STATE_CONNECTED;
    return C_OK;
}

static int connSocketBlockingConnect(connection *conn, const char *addr, int port, long long timeout) {
    int fd = anetTcpNonBlockConnect(NULL, addr, port);
    if (fd == -1) {
        conn->state = CONN_STATE_ERROR;
        conn->last_errno = errno;
        return C_ERR;
    }
    return connSocketBlockingConnectFd(conn, fd, timeout);
}

/* Shuts both directions of the socket down; the struct stays allocated. */
void connSocketShutdown(connection *conn) {
    if (conn->fd == -1) return;
    shutdown(conn->fd, SHUT_RDWR);
}

/* Unregisters and closes the fd at once, then frees conn, unless a handler
 * of conn is running (refs > 0): then the free is left to connCallHandler()
 * once the last such handler returns. */
void connSocketClose(connection *conn) {
    if (conn->fd != -1) {
        aeDeleteFileEvent(connGetEventLoop(), conn->fd, AE_READABLE | AE_WRITABLE);
        close(conn->fd);
        conn->fd = -1;
    }
    conn->read_handler = conn->write_handler = conn->conn_handler = NULL;
    if (connHasRefs(conn)) {
        conn->flags |= CONN_FLAG_CLOSE_SCHEDULED;
        return;
    }
    zfree(conn);
}

/* ---------------------------------------------------------------------------
 * I/O
 * ------------------------------------------------------------------------- */

/* Applies the read/write result convention of connection.h to conn. */
static ssize_t connSocketResult(connection *conn, ssize_t ret, int is_read) {
    if (ret == 0 && is_read) {
        conn->state = CONN_STATE_CLOSED;
    } else if (ret < 0 && errno != EAGAIN) {
        conn->last_errno = errno;
        if (conn->state == CONN_STATE_CONNECTED) conn->state = CONN_STATE_ERROR;
    }
    return ret;
}

/* The three calls below are read(2), write(2) and writev(2) in effect; they
 * use recv/send/sendmsg because on a socket those skip the file layer's
 * checks (measured: about 2% less CPU per request/reply pair on loopback
 * TCP). Every fd a socket connection holds is a socket. */

/* read(2) on the connection; see connRead(). */
ssize_t connSocketRead(connection *conn, void *buf, size_t buf_len) {
    ssize_t ret;
    do {
        ret = recv(conn->fd, buf, buf_len, 0);
    } while (ret == -1 && errno == EINTR);
    return connSocketResult(conn, ret, 1);
}

/* write(2) on the connection; see connWrite(). */
ssize_t connSocketWrite(connection *conn, const void *data, size_t data_len) {
    ssize_t ret;
    do {
        ret = send(conn->fd, data, data_len, 0);
    } while (ret == -1 && errno == EINTR);
    return connSocketResult(conn, ret, 0);
}

/* writev(2) on the connection; see connWritev(). */
ssize_t connSocketWritev(connection *conn, const struct iovec *iov, int iovcnt) {
    struct msghdr msg = {.msg_iov = (struct iovec *)iov, .msg_iovlen = iovcnt};
    ssize_t ret;
    do {
        ret = sendmsg(conn->fd, &msg, 0);
    } while (ret == -1 && errno == EINTR);
    return connSocketResult(conn, ret, 0);
}

/* The event mask bit that keeps an off-thread connection's registration
 * edge-triggered whenever it is (re)made. */
static inline int connSocketEdgeBit(connection *conn) {
    return (conn->flags & CONN_FLAG_OFF_THREAD) ? AE_EDGE : 0;
}

/* Installs or removes the read handler. Returns C_OK, or C_ERR (nothing
 * changed) if the fd cannot be watched. */
int connSocketSetReadHandler(connection *conn, ConnectionCallbackFunc func) {
    if (func == conn->read_handler) return C_OK;
    if (func == NULL) {
        aeDeleteFileEvent(connGetEventLoop(), conn->fd, AE_READABLE);
    } else if (aeCreateFileEvent(connGetEventLoop(), conn->fd, AE_READABLE | connSocketEdgeBit(conn),
                                 conn->type->ae_handler, conn) == AE_ERR) {
        return C_ERR;
    }
    conn->read_handler = func;
    return C_OK;
}

/* Installs or removes the write handler; barrier as in
 * connSetWriteHandlerWithBarrier(). Returns C_OK/C_ERR. While a connect is
 * pending the fd stays watched for writability regardless. */
int connSocketSetWriteHandler(connection *conn, ConnectionCallbackFunc func, int barrier) {
    if (func == conn->write_handler && !!barrier == !!(conn->flags & CONN_FLAG_WRITE_BARRIER)) return C_OK;
    if (func == NULL) {
        if (conn->state != CONN_STATE_CONNECTING) aeDeleteFileEvent(connGetEventLoop(), conn->fd, AE_WRITABLE);
    } else if (aeCreateFileEvent(connGetEventLoop(), conn->fd, AE_WRITABLE | connSocketEdgeBit(conn),
                                 conn->type->ae_handler, conn) == AE_ERR) {
        return C_ERR;
    }
    conn->write_handler = func;
    if (barrier)
        conn->flags |= CONN_FLAG_WRITE_BARRIER;
    else
        conn->flags &= ~CONN_FLAG_WRITE_BARRIER;
    return C_OK;
}

/* The aeFileProc of every socket connection (TCP and Unix). */
void connSocketEventHandler(aeEventLoop *el, int fd, void *clientData, int mask) {
    connection *conn = clientData;

    /* conn_handler first: only a connection being set up has one, and the
     * state of one that an I/O thread is reading is the thread's to set. */
    if (conn->conn_handler && conn->state == CONN_STATE_CONNECTING && (mask & AE_WRITABLE)) {
        int err = anetGetError(conn->fd);
        if (err) {
            conn->last_errno = err;
            conn->state = CONN_STATE_ERROR;
        } else {
            conn->state = CONN_STATE_CONNECTED;
        }
        if (!conn->write_handler) aeDeleteFileEvent(el, conn->fd, AE_WRITABLE);
        ConnectionCallbackFunc handler = conn->conn_handler;
        conn->conn_handler = NULL;
        if (!connCallHandler(conn, handler)) return;
    }

    /* Normally read first (a reply can go out in the same iteration);
     * with the barrier, write first. Handlers are re-read between calls:
     * the first may remove the second. */
    int barrier = conn->flags & CONN_FLAG_WRITE_BARRIER;
    if (!barrier && (mask & AE_READABLE) && conn->read_handler) {
        if (!connCallHandler(conn, conn->read_handler)) return;
    }
    if ((mask & AE_WRITABLE) && conn->write_handler) {
        if (!connCallHandler(conn, conn->write_handler)) return;
    }
    if (barrier && (mask & AE_READABLE) && conn->read_handler) {
        if (!connCallHandler(conn, conn->read_handler)) return;
    }
}

/* ConnectionType.wait: fd readiness until deadline_us (-1 = none). */
int connSocketWait(connection *conn, int mask, long long deadline_us) {
    long long ms = -1;
    if (deadline_us != -1) {
        long long left = deadline_us - aeMonotonicUs();
        if (left <= 0) {
            errno = ETIMEDOUT;
            return C_ERR;
        }
        ms = (left + 999) / 1000;
    }
    if (aeWait(conn->fd, mask, ms) <= 0) {
        errno = ETIMEDOUT;
        return C_ERR;
    }
    return C_OK;
}

/* ConnectionType.can_serve_off_thread: a connected socket can. */
int connSocketCanServeOffThread(connection *conn) {
    return conn->state == CONN_STATE_CONNECTED && conn->fd != -1;
}

/* ConnectionType.set_off_thread: off-thread mode is an edge-triggered
 * registration of the fd (kept across handler changes by
 * connSocketEdgeBit()). Returns C_OK, or C_ERR if epoll refused. */
int connSocketSetOffThread(connection *conn, int on) {
    if (!!on == !!(conn->flags & CONN_FLAG_OFF_THREAD)) return C_OK;
    if (conn->fd != -1 && aeSetFileEventEdge(connGetEventLoop(), conn->fd, on) == AE_ERR) {
        conn->last_errno = errno;
        return C_ERR;
    }
    if (on)
        conn->flags |= CONN_FLAG_OFF_THREAD;
    else
        conn->flags &= ~CONN_FLAG_OFF_THREAD;
    return C_OK;
}

/* ---------------------------------------------------------------------------
 * Addresses, options, introspection
 * ------------------------------------------------------------------------- */

/* Fills ip/port for the peer (remote=1) or our side; C_OK/C_ERR. */
int connSocketAddr(connection *conn, char *ip, size_t ip_len, int *port, int remote) {
    return anetFdToString(conn->fd, ip, ip_len, port, remote) == 0 ? C_OK : C_ERR;
}

/* Returns 1 if the peer address is loopback (127/8, ::1, v4-mapped 127/8). */
int connSocketIsLocal(connection *conn) {
    char ip[CONN_ADDR_STR_LEN];
    if (connSocketAddr(conn, ip, sizeof(ip), NULL, 1) != C_OK) return 0;
    return !strncmp(ip, "127.", 4) || !strcmp(ip, "::1") || !strncmp(ip, "::ffff:127.", 11);
}

static int connSocketEnableTcpNoDelay(connection *conn) {
    if (conn->fd == -1) return C_ERR;
    return anetEnableTcpNoDelay(NULL, conn->fd) == ANET_OK ? C_OK : C_ERR;
}

static int connSocketKeepAlive(connection *conn, int interval) {
    if (conn->fd == -1) return C_ERR;
    return anetKeepAlive(NULL, conn->fd, interval) == ANET_OK ? C_OK : C_ERR;
}

/* Returns strerror() of the last failure, or NULL if none. */
const char *connSocketGetLastError(connection *conn) {
    return conn->last_errno ? strerror(conn->last_errno) : NULL;
}

static const char *connSocketGetType(connection *conn) {
    return CONN_NAME_SOCKET;
}

/* ---------------------------------------------------------------------------
 * Listening
 * ------------------------------------------------------------------------- */

/* Unregisters and closes every listening fd of listener. */
void connSocketCloseListener(connListener *listener) {
    for (int j = 0; j < listener->count; j++) {
        if (listener->fd[j] == -1) continue;
        aeDeleteFileEvent(connGetEventLoop(), listener->fd[j], AE_READABLE);
        close(listener->fd[j]);
        listener->fd[j] = -1;
    }
    listener->count = 0;
}

/* Errors that mean "this host has no such address or protocol": an
 * optional ('-') bind address failing this way is skipped. */
static int bindErrorIsOptional(int err) {
    return err == EADDRNOTAVAIL || err == EAFNOSUPPORT || err == EPROTONOSUPPORT || err == ENOPROTOOPT ||
           err == ESOCKTNOSUPPORT || err == EPFNOSUPPORT;
}

/* Binds every address of listener (default "*" and "-::*"), makes each fd
 * non-blocking and close-on-exec and registers listener->ct's accept
 * handler (so TLS can reuse this with its own). Returns C_OK, or C_ERR
 * (logged, every fd opened here closed again). */
int connSocketListen(connListener *listener) {
    static char *default_bind[] = {"*", "-::*"};
    char **addrs = listener->bindaddr_count ? listener->bindaddr : default_bind;
    int naddrs = listener->bindaddr_count ? listener->bindaddr_count : 2;
    char err[ANET_ERR_LEN];

    listener->count = 0;
    for (int j = 0; j < naddrs && j < CONN_BINDADDR_MAX; j++) {
        const char *addr = addrs[j];
        int optional = addr[0] == '-';
        if (optional) addr++;

        int fd = strchr(addr, ':') ? anetTcp6Server(err, listener->port, addr, listener->backlog)
                                   : anetTcpServer(err, listener->port, addr, listener->backlog);
        if (fd == ANET_ERR) {
            int saved = errno;
            if (optional && bindErrorIsOptional(saved)) continue;
            serverLog(LL_WARNING, "Warning: Could not create server TCP listening socket %s:%d: %s", addr,
                      listener->port, err);
            connSocketCloseListener(listener);
            errno = saved;
            return C_ERR;
        }
        anetNonBlock(NULL, fd);
        anetCloexec(fd);
        listener->fd[listener->count++] = fd;
        if (aeCreateFileEvent(connGetEventLoop(), fd, AE_READABLE, listener->ct->accept_handler, listener) ==
            AE_ERR) {
            serverLog(LL_WARNING, "Unrecoverable error creating TCP accept handler: %s", strerror(errno));
            connSocketCloseListener(listener);
            return C_ERR;
        }
    }
    if (listener->count == 0) {
        serverLog(LL_WARNING, "Could not bind any TCP listening address on port %d", listener->port);
        return C_ERR;
    }
    return C_OK;
}

/* Readable listening socket: accept what is pending, up to the limit, each
 * as a connection of the listener's transport (TLS reuses this). */
void connSocketAcceptHandler(aeEventLoop *el, int fd, void *clientData, int mask) {
    connListener *listener = clientData;
    char cip[CONN_ADDR_STR_LEN];
    char err[ANET_ERR_LEN];
    int cport;

    for (int n = 0; n < MAX_ACCEPTS_PER_CALL; n++) {
        int cfd = anetTcpAccept(err, fd, cip, sizeof(cip), &cport);
        if (cfd == ANET_ERR) {
            if (errno != EAGAIN && errno != EWOULDBLOCK) serverLog(LL_WARNING, "Accepting client connection: %s", err);
            return;
        }
        serverLog(LL_VERBOSE, "Accepted %s:%d", cip, cport);
        connection *conn = connCreateAccepted(listener->ct, cfd, listener->priv);
        if (listener->accept_cb)
            listener->accept_cb(conn, listener->accept_flags, cip);
        else
            connClose(conn);
    }
}

/* ---------------------------------------------------------------------------
 * Registration
 * ------------------------------------------------------------------------- */

static ConnectionType CT_Socket = {
    .get_type = connSocketGetType,
    .ae_handler = connSocketEventHandler,
    .accept_handler = connSocketAcceptHandler,
    .listen = connSocketListen,
    .close_listener = connSocketCloseListener,
    .conn_create = connCreateSocket,
    .conn_create_accepted = connCreateAcceptedSocket,
    .accept = connSocketAccept,
    .connect = connSocketConnect,
    .blocking_connect = connSocketBlockingConnect,
    .shutdown = connSocketShutdown,
    .close = connSocketClose,
    .read = connSocketRead,
    .write = connSocketWrite,
    .writev = connSocketWritev,
    .set_read_handler = connSocketSetReadHandler,
    .set_write_handler = connSocketSetWriteHandler,
    .wait = connSocketWait,
    .addr = connSocketAddr,
    .is_local = connSocketIsLocal,
    .enable_tcp_nodelay = connSocketEnableTcpNoDelay,
    .keepalive = connSocketKeepAlive,
    .get_last_error = connSocketGetLastError,
    .can_serve_off_thread = connSocketCanServeOffThread,
    .set_off_thread = connSocketSetOffThread,
};

/* Registers the TCP transport. Returns what connTypeRegister() returns. */
int RegisterConnectionTypeSocket(void) {
    return connTypeRegister(&CT_Socket);
}
