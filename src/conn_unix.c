/* conn_unix.c - the Unix domain socket transport ("unix").
 *
 * A Unix connection is a socket connection in every respect but addressing,
 * so this file supplies only what differs from TCP: the listener (a socket
 * path from listener->priv, a connUnixListenerConfig: a stale socket file
 * is unlinked first and the new one chmod'ed), the accept handler (no peer
 * address: accept_cb gets ip NULL), connecting to a path (the "addr" of
 * connConnect(); port is ignored), and the answers to is_local (always)
 * and to the TCP socket options (no-ops). Everything else is the TCP
 * primitives of conn_socket.c, used directly in the vtable below, off-thread
 * service included: an I/O thread may read and write a Unix connection as
 * it may a TCP one (connection.h). The listener and its accept handler are
 * shared with the shared-memory transport (conn_shm.c), whose connections
 * start as Unix ones: accepted fds become connections of the listener's own
 * transport. Otherwise event-loop thread only; includes no server header. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "anet.h"
#include "connection.h"
#include "log.h"

static ConnectionType CT_Unix;

static const char *connUnixGetType(connection *conn) {
    return CONN_NAME_UNIX;
}

static connection *connCreateUnix(void) {
    return connSocketCreateOfType(&CT_Unix, -1, CONN_STATE_NONE);
}

/* Takes ownership of an accepted fd (non-blocking already: anet's accept). */
static connection *connCreateAcceptedUnix(int fd, void *priv) {
    return connSocketCreateOfType(&CT_Unix, fd, CONN_STATE_ACCEPTING);
}

/* ConnectionType.connect of a Unix-socket transport (this one, and the
 * shared-memory one, whose outgoing connections stay plain): addr is the
 * socket's path. */
int connUnixConnect(connection *conn,
                    const char *addr,
                    int port,
                    const char *src_addr,
                    ConnectionCallbackFunc connect_handler) {
    int fd = anetUnixNonBlockConnect(NULL, addr);
    if (fd == -1) {
        conn->state = CONN_STATE_ERROR;
        conn->last_errno = errno;
        return C_ERR;
    }
    return connSocketConnectFd(conn, fd, connect_handler);
}

/* ConnectionType.blocking_connect of a Unix-socket transport (as above). */
int connUnixBlockingConnect(connection *conn, const char *addr, int port, long long timeout) {
    int fd = anetUnixNonBlockConnect(NULL, addr);
    if (fd == -1) {
        conn->state = CONN_STATE_ERROR;
        conn->last_errno = errno;
        return C_ERR;
    }
    return connSocketBlockingConnectFd(conn, fd, timeout);
}

static int connUnixIsLocal(connection *conn) {
    return 1;
}

/* Opens the socket at the configured path (listener->priv, a
 * connUnixListenerConfig) and registers listener->ct's accept handler.
 * Returns C_OK or C_ERR (logged). */
int connUnixListen(connListener *listener) {
    connUnixListenerConfig *cfg = listener->priv;
    char err[ANET_ERR_LEN];

    listener->count = 0;
    if (cfg == NULL || cfg->path == NULL || cfg->path[0] == '\0') return C_OK;

    /* A socket left by a previous run would make bind() fail. Only remove
     * sockets, never a regular file someone configured by mistake. */
    struct stat sb;
    if (lstat(cfg->path, &sb) == 0 && S_ISSOCK(sb.st_mode)) unlink(cfg->path);

    int fd = anetUnixServer(err, cfg->path, (mode_t)cfg->perm, listener->backlog);
    if (fd == ANET_ERR) {
        serverLog(LL_WARNING, "Failed opening Unix socket: %s", err);
        return C_ERR;
    }
    anetNonBlock(NULL, fd);
    anetCloexec(fd);
    listener->fd[listener->count++] = fd;
    if (aeCreateFileEvent(connGetEventLoop(), fd, AE_READABLE, listener->ct->accept_handler, listener) == AE_ERR) {
        serverLog(LL_WARNING, "Unrecoverable error creating Unix socket accept handler: %s", strerror(errno));
        connSocketCloseListener(listener);
        return C_ERR;
    }
    return C_OK;
}

/* Readable listening socket: accept what is pending, up to the limit, each
 * as a connection of the listener's transport ("unix", or "shm"). */
void connUnixAcceptHandler(aeEventLoop *el, int fd, void *clientData, int mask) {
    connListener *listener = clientData;
    connUnixListenerConfig *cfg = listener->priv;
    char err[ANET_ERR_LEN];

    for (int n = 0; n < MAX_ACCEPTS_PER_CALL; n++) {
        int cfd = anetUnixAccept(err, fd);
        if (cfd == ANET_ERR) {
            if (errno != EAGAIN && errno != EWOULDBLOCK) serverLog(LL_WARNING, "Accepting client connection: %s", err);
            return;
        }
        serverLog(LL_VERBOSE, "Accepted connection to %s", cfg ? cfg->path : "?");
        connection *conn = connCreateAccepted(listener->ct, cfd, NULL);
        if (listener->accept_cb)
            listener->accept_cb(conn, listener->accept_flags, NULL);
        else
            connClose(conn);
    }
}

static ConnectionType CT_Unix = {
    .get_type = connUnixGetType,
    .ae_handler = connSocketEventHandler,
    .accept_handler = connUnixAcceptHandler,
    .listen = connUnixListen,
    .close_listener = connSocketCloseListener,
    .conn_create = connCreateUnix,
    .conn_create_accepted = connCreateAcceptedUnix,
    .accept = connSocketAccept,
    .connect = connUnixConnect,
    .blocking_connect = connUnixBlockingConnect,
    .shutdown = connSocketShutdown,
    .close = connSocketClose,
    .read = connSocketRead,
    .write = connSocketWrite,
    .writev = connSocketWritev,
    .set_read_handler = connSocketSetReadHandler,
    .set_write_handler = connSocketSetWriteHandler,
    .wait = connSocketWait,
    .addr = connSocketAddr,
    .is_local = connUnixIsLocal,
    .get_last_error = connSocketGetLastError,
    .can_serve_off_thread = connSocketCanServeOffThread,
    .set_off_thread = connSocketSetOffThread,
};

/* Registers the Unix-socket transport. Returns what connTypeRegister()
 * returns. */
int RegisterConnectionTypeUnix(void) {
    return connTypeRegister(&CT_Unix);
}
