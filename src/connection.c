/* connection.c - the registry of transports and the transport-neutral
 * helpers of the connection layer.
 *
 * At startup the server calls connTypeInitialize(el): it records the event
 * loop every transport registers its fds with, and registers the built-in
 * transports (TCP and Unix always; TLS, RDMA and shared memory when
 * linked in). The configuration then finds a transport by name with
 * connTypeGetByName() (NULL = not built in), and the before-sleep hook
 * lets transports with queued work run it through
 * connTypesHavePendingData() and connTypesProcessPendingData().
 *
 * Registration order defines connectionIndexByType(), which the server uses
 * to index its per-transport listeners. Everything here runs in the
 * event-loop thread. The per-connection operations live in the transports;
 * the inline wrappers in connection.h dispatch to them. The blocking
 * connSync*() calls are here, once for every transport: they loop on the
 * transport's read or write and wait on its wait() when it says EAGAIN. */
#include "connection.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "anet.h"
#include "log.h"

/* Optional transports are weak references: a transport is built in exactly
 * when its object is linked (the Makefile's BUILD_TLS / BUILD_RDMA), so this
 * file needs no build flags and links into tests without them. */
#pragma weak RegisterConnectionTypeTLS
#pragma weak RegisterConnectionTypeRdma
#pragma weak RegisterConnectionTypeShm

static ConnectionType *connTypes[CONN_TYPES_MAX];
static aeEventLoop *connEventLoop;

/* Adds ct to the registry and runs its init hook. Returns C_OK, or C_ERR
 * (logged) if the registry is full or a transport of that name exists.
 * ct must stay valid for the life of the process. */
int connTypeRegister(ConnectionType *ct) {
    const char *name = ct->get_type(NULL);
    int free_slot = -1;
    for (int j = 0; j < CONN_TYPES_MAX; j++) {
        if (connTypes[j] == NULL) {
            if (free_slot == -1) free_slot = j;
            continue;
        }
        if (!strcasecmp(name, connTypes[j]->get_type(NULL))) {
            serverLog(LL_WARNING, "Connection type %s already registered", name);
            return C_ERR;
        }
    }
    if (free_slot == -1) {
        serverLog(LL_WARNING, "Missing slot to register connection type %s", name);
        return C_ERR;
    }
    serverLog(LL_VERBOSE, "Connection type %s registered", name);
    connTypes[free_slot] = ct;
    if (ct->init) ct->init();
    return C_OK;
}

/* Records the event loop and registers the built-in transports. Call once,
 * after creating the loop and before any listener or connection. Returns
 * C_OK, or C_ERR if a registration failed. */
int connTypeInitialize(aeEventLoop *el) {
    connEventLoop = el;
    if (RegisterConnectionTypeSocket() != C_OK) return C_ERR;
    if (RegisterConnectionTypeUnix() != C_OK) return C_ERR;
    if (RegisterConnectionTypeTLS && RegisterConnectionTypeTLS() != C_OK) return C_ERR;
    if (RegisterConnectionTypeRdma && RegisterConnectionTypeRdma() != C_OK) return C_ERR;
    if (RegisterConnectionTypeShm && RegisterConnectionTypeShm() != C_OK) return C_ERR;
    return C_OK;
}

/* Runs every transport's cleanup hook and empties the registry (used at
 * exit and by tests). */
void connTypeCleanup(void) {
    for (int j = 0; j < CONN_TYPES_MAX; j++) {
        if (connTypes[j] && connTypes[j]->cleanup) connTypes[j]->cleanup();
        connTypes[j] = NULL;
    }
}

/* Returns the event loop transports register with (NULL before init). */
aeEventLoop *connGetEventLoop(void) {
    return connEventLoop;
}

/* Returns the transport called typename (case-insensitive), or NULL if it
 * is not built in. */
ConnectionType *connTypeGetByName(const char *typename) {
    int idx = connectionIndexByType(typename);
    return idx == -1 ? NULL : connTypes[idx];
}

/* Returns the registry index of typename (stable for the process), or -1. */
int connectionIndexByType(const char *typename) {
    for (int j = 0; j < CONN_TYPES_MAX; j++) {
        if (connTypes[j] && !strcasecmp(typename, connTypes[j]->get_type(NULL))) return j;
    }
    return -1;
}

/* Shortcut for the TCP transport (always built in once initialised). */
ConnectionType *connectionTypeTcp(void) {
    static ConnectionType *ct;
    if (ct == NULL) ct = connTypeGetByName(CONN_NAME_SOCKET);
    return ct;
}

/* Shortcut for the Unix-socket transport. */
ConnectionType *connectionTypeUnix(void) {
    static ConnectionType *ct;
    if (ct == NULL) ct = connTypeGetByName(CONN_NAME_UNIX);
    return ct;
}

/* Passes configuration to a transport. Returns C_OK when the transport has
 * nothing to configure, else what its configure hook returns. */
int connTypeConfigure(ConnectionType *ct, void *priv, int reconfigure) {
    return ct->configure ? ct->configure(priv, reconfigure) : C_OK;
}

/* Returns 1 if any transport holds queued work that no fd event will
 * announce; the before-sleep hook then keeps the loop from sleeping. */
int connTypesHavePendingData(void) {
    for (int j = 0; j < CONN_TYPES_MAX; j++) {
        ConnectionType *ct = connTypes[j];
        if (ct && ct->has_pending_data && ct->has_pending_data()) return 1;
    }
    return 0;
}

/* Lets every transport run its queued work. Returns the number of events
 * handled in total. Called from the before-sleep hook. */
int connTypesProcessPendingData(void) {
    int processed = 0;
    for (int j = 0; j < CONN_TYPES_MAX; j++) {
        ConnectionType *ct = connTypes[j];
        if (ct && ct->process_pending_data) processed += ct->process_pending_data();
    }
    return processed;
}

/* Formats conn's peer (remote=1) or local address as "ip:port" ("[ip]:port"
 * for IPv6; "path:0" for Unix sockets) into buf. Returns the formatted
 * length, or -1 (buf gets "?:0") if the address is unknown. */
int connFormatAddr(connection *conn, char *buf, size_t buf_len, int remote) {
    char ip[CONN_ADDR_STR_LEN];
    int port;
    if (conn->type->addr(conn, ip, sizeof(ip), &port, remote) != C_OK) {
        anetFormatAddr(buf, buf_len, "?", 0);
        return -1;
    }
    return anetFormatAddr(buf, buf_len, ip, port);
}

/* Writes the transport's CLIENT LIST details for conn ("fd=<n>" unless the
 * transport says otherwise; conn may be NULL) into buf and returns buf. */
const char *connGetInfo(connection *conn, char *buf, size_t buf_len) {
    if (conn && conn->type->get_info) return conn->type->get_info(conn, buf, buf_len);
    snprintf(buf, buf_len, "fd=%i", conn == NULL ? -1 : conn->fd);
    return buf;
}

/* ---------------------------------------------------------------------------
 * Blocking I/O on any transport
 * ------------------------------------------------------------------------- */

static long long connSyncDeadline(long long timeout) {
    return timeout < 0 ? -1 : aeMonotonicUs() + timeout * 1000;
}

/* Moves all size bytes through conn before the absolute deadline: reads
 * into buf, or writes from it when `writing`. The one loop behind
 * connSyncWrite/Read/ReadLine. Returns size, or -1 with errno set
 * (ECONNRESET if the peer closed before a read was complete). */
static ssize_t connSyncTransfer(connection *conn, char *buf, ssize_t size, long long deadline, int writing) {
    ssize_t done = 0;
    while (done < size) {
        ssize_t n = writing ? connWrite(conn, buf + done, (size_t)(size - done))
                            : connRead(conn, buf + done, (size_t)(size - done));
        if (n > 0) {
            done += n;
            continue;
        }
        if (n == 0 && !writing) {
            errno = ECONNRESET;
            return -1;
        }
        if (n == -1 && errno != EAGAIN) return -1;
        if (conn->type->wait(conn, writing ? AE_WRITABLE : AE_READABLE, deadline) != C_OK) return -1;
    }
    return size;
}

ssize_t connSyncWrite(connection *conn, const char *ptr, ssize_t size, long long timeout) {
    /* Only read from: the cast serves the shared loop's signature. */
    return connSyncTransfer(conn, (char *)ptr, size, connSyncDeadline(timeout), 1);
}

ssize_t connSyncRead(connection *conn, char *ptr, ssize_t size, long long timeout) {
    return connSyncTransfer(conn, ptr, size, connSyncDeadline(timeout), 0);
}

/* A byte at a time, so that nothing after the newline is consumed. */
ssize_t connSyncReadLine(connection *conn, char *ptr, ssize_t size, long long timeout) {
    long long deadline = connSyncDeadline(timeout);
    ssize_t len = 0;
    if (size <= 0) return -1;
    ptr[0] = '\0';
    while (len < size - 1) {
        char c;
        if (connSyncTransfer(conn, &c, 1, deadline, 0) != 1) return -1;
        if (c == '\n') break;
        ptr[len++] = c;
        ptr[len] = '\0';
    }
    if (len > 0 && ptr[len - 1] == '\r') ptr[--len] = '\0';
    return len;
}
