/* connection.h - the one connection abstraction every transport implements.
 *
 * The server talks to clients, replicas and primaries only through
 * `connection *` and the conn*() wrappers below; it never sees a socket,
 * an SSL object or a queue pair. A transport (TCP, Unix, TLS, RDMA) is one
 * ConnectionType filled in with designated initialisers and registered
 * with connTypeRegister(); it embeds `connection` as the first member of
 * its own per-connection struct, so `connection *` can be cast to it.
 *
 * Lifetime rule (the one to remember): a read/write/connect handler may
 * call connClose() on its own connection. Transports invoke handlers with
 * connCallHandler(), which holds a reference so the memory stays valid
 * until the handler returns, then performs the deferred close and reports
 * that the connection is gone.
 *
 * I/O contract: connRead()/connWrite()/connWritev() return like
 * read(2)/write(2). -1 with errno EAGAIN means "try later" and the state
 * stays CONN_STATE_CONNECTED; read() returning 0 means the peer closed
 * (state CONN_STATE_CLOSED); any other failure sets CONN_STATE_ERROR and
 * last_errno (see connGetLastError()).
 *
 * Threads: every call here belongs to the event loop's thread, except
 * that for a connection whose transport answers connCanServeOffThread(),
 * an I/O thread may call connRead(), connWrite() and connWritev() while
 * the event loop's thread leaves that connection alone (io_threads.c
 * says when). Such a connection is put in off-thread mode first
 * (connSetOffThread()): its handlers then fire once per arrival of data
 * or room, so the event loop is not told again about bytes a thread is
 * about to read.
 *
 * Transport files include this header and ae.h, never server.h: what a
 * listener needs from the server (what to do with an accepted connection)
 * is handed over in connListener.accept_cb. */
#ifndef VK_CONNECTION_H
#define VK_CONNECTION_H

#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "ae.h"

#ifndef C_OK
#define C_OK 0
#define C_ERR -1
#endif

#define CONN_INFO_LEN 32       /* Buffer size for connGetInfo(). */
#define CONN_ADDR_STR_LEN 128  /* Buffer size for an address (ip or path). */
#define CONN_TYPES_MAX 8        /* Registered transports, at most. */
#define CONN_BINDADDR_MAX 16   /* Listening fds per listener, at most. */
#define MAX_ACCEPTS_PER_CALL 1000 /* accept() calls per readable listener. */

/* Transport names, as used by connTypeGetByName() and the configuration.
 * (Valkey spells these CONN_TYPE_*; here server.h uses CONN_TYPE_* for its
 * listener indexes, so the names are CONN_NAME_*.) */
#define CONN_NAME_SOCKET "tcp"
#define CONN_NAME_UNIX "unix"
#define CONN_NAME_TLS "tls"
#define CONN_NAME_RDMA "rdma"
#define CONN_NAME_SHM "shm"

/* Where a connection is in its life. Only the transport changes it. */
typedef enum {
    CONN_STATE_NONE = 0,   /* Created by connCreate(), not yet connecting. */
    CONN_STATE_CONNECTING, /* Outgoing connect in progress. */
    CONN_STATE_ACCEPTING,  /* Accepted fd, connAccept() not yet done. */
    CONN_STATE_CONNECTED,  /* Usable for I/O. */
    CONN_STATE_CLOSED,     /* Peer closed (read returned 0). */
    CONN_STATE_ERROR       /* I/O or connect failed; see last_errno. */
} ConnectionState;

#define CONN_FLAG_CLOSE_SCHEDULED (1 << 0) /* connClose() ran inside a handler. */
#define CONN_FLAG_WRITE_BARRIER (1 << 1)   /* Run write handler before read. */
#define CONN_FLAG_OFF_THREAD (1 << 2)      /* Off-thread mode (connSetOffThread()). */

typedef struct connection connection;
typedef struct connListener connListener;
typedef struct ConnectionType ConnectionType;

typedef void (*ConnectionCallbackFunc)(struct connection *conn);

/* Called by a listener for every accepted connection (state ACCEPTING).
 * flags is listener->accept_flags; ip is the peer's address, NULL for Unix
 * sockets. The callee owns conn from then on (it calls connAccept() or
 * connClose()). */
typedef void (*connAcceptCallback)(connection *conn, int flags, const char *ip);

/* The transport vtable. Entries marked optional may be NULL; all others
 * must be provided. Unless noted, callbacks run in the event-loop thread. */
struct ConnectionType {
    /* Identity: returns CONN_NAME_* (conn may be NULL). */
    const char *(*get_type)(connection *conn);

    /* Whole-transport setup and teardown (optional). init runs from
     * connTypeRegister(); configure applies configuration (priv is
     * transport specific; reconfigure=1 on CONFIG SET), returns C_OK/C_ERR. */
    void (*init)(void);
    void (*cleanup)(void);
    int (*configure)(void *priv, int reconfigure);

    /* Event-loop glue: the aeFileProc serving connections and listeners. */
    aeFileProc *ae_handler;
    aeFileProc *accept_handler;

    /* Opens every listening endpoint of listener and registers
     * accept_handler on each (clientData = listener). C_OK/C_ERR; on error
     * nothing stays open. close_listener unregisters and closes them. */
    int (*listen)(connListener *listener);
    void (*close_listener)(connListener *listener);

    /* Connection lifetime. */
    connection *(*conn_create)(void);
    connection *(*conn_create_accepted)(int fd, void *priv);
    int (*accept)(connection *conn, ConnectionCallbackFunc accept_handler);
    int (*connect)(connection *conn,
                   const char *addr,
                   int port,
                   const char *source_addr,
                   ConnectionCallbackFunc connect_handler);
    int (*blocking_connect)(connection *conn, const char *addr, int port, long long timeout);
    void (*shutdown)(connection *conn);
    void (*close)(connection *conn);

    /* I/O. */
    ssize_t (*read)(connection *conn, void *buf, size_t buf_len);
    ssize_t (*write)(connection *conn, const void *data, size_t data_len);
    ssize_t (*writev)(connection *conn, const struct iovec *iov, int iovcnt);
    int (*set_read_handler)(connection *conn, ConnectionCallbackFunc handler);
    int (*set_write_handler)(connection *conn, ConnectionCallbackFunc handler, int barrier);
    /* Blocks until conn may have become readable or writable (mask:
     * AE_READABLE or AE_WRITABLE, after read or write said EAGAIN) or
     * deadline_us (aeMonotonicUs() time; -1 = none) passes. Returns C_OK
     * to try the I/O again, C_ERR with errno (ETIMEDOUT, or the transport's
     * error). The blocking connSync*() calls are built on it. */
    int (*wait)(connection *conn, int mask, long long deadline_us);

    /* Work queued inside the transport that no fd event will announce
     * (optional; RDMA emulates writability this way). Called from the
     * server's before-sleep hook via connTypesHavePendingData() and
     * connTypesProcessPendingData(); the latter returns events handled. */
    int (*has_pending_data)(void);
    int (*process_pending_data)(void);

    /* Addresses and options. addr returns C_OK/C_ERR. The two socket
     * options are optional (no-op where meaningless). */
    int (*addr)(connection *conn, char *ip, size_t ip_len, int *port, int remote);
    int (*is_local)(connection *conn);
    int (*enable_tcp_nodelay)(connection *conn);
    int (*keepalive)(connection *conn, int interval);
    const char *(*get_last_error)(connection *conn);

    /* Transport details for CLIENT LIST (optional; default "fd=<n>"). */
    const char *(*get_info)(connection *conn, char *buf, size_t buf_len);
    /* CLIENT LIST fields of the transport's own, appended to the line as
     * " key=value" each (optional; none). Only for connections that
     * differ from a plain socket, so the line keeps Valkey's fields and
     * order for every other client. */
    const char *(*list_fields)(connection *conn, char *buf, size_t buf_len);
    /* 1 if the transport guarantees payload integrity itself, so RDB
     * checksums may be skipped (optional; default 0). */
    int (*integrity_checked)(void);
    /* 0 if a forked child cannot go on serving a connection of this
     * transport (its state lives in memory the child does not inherit,
     * as RDMA's registered buffers); optional, default 1. */
    int (*usable_after_fork)(void);
    /* Bytes the transport holds for conn outside the allocator (the
     * shared-memory rings), counted as the client's memory (optional;
     * default 0). */
    size_t (*mem_usage)(connection *conn);

    /* Service off the event loop's thread (both optional; NULL = never).
     * can_serve_off_thread: 1 if an I/O thread may call read, write and
     * writev on conn while the event loop's thread leaves it alone: the
     * transport keeps no state those calls share with anything else, and
     * its handlers still run in the event loop's thread only. TLS (its
     * SSL object is not shared safely yet) and RDMA (completions are
     * polled by the event loop) answer no for now.
     * set_off_thread: turns off-thread mode on or off. While it is on, the
     * read and write handlers fire once each time data or room arrives,
     * not again while it stays unread or unused, so the event loop does
     * not report a connection again while a thread is reading it; whoever
     * reads must read until a short read or remember that more may wait.
     * Returns C_OK/C_ERR. */
    int (*can_serve_off_thread)(connection *conn);
    int (*set_off_thread)(connection *conn, int on);
};

/* The part of every connection the server may rely on. Transports embed it
 * first in their own struct. Fields are read by the wrappers below; the
 * server should use the wrappers, not the fields. */
struct connection {
    ConnectionType *type;
    ConnectionState state;
    int last_errno; /* errno of the failure that set CONN_STATE_ERROR. */
    int fd;         /* The fd the event loop watches, -1 if none. */
    short flags;    /* CONN_FLAG_* */
    short refs;     /* Handler calls in progress; close is deferred while >0. */
    void *private_data; /* Owner's data (the server's client); not owned. */
    ConnectionCallbackFunc conn_handler;  /* Connect/accept completion. */
    ConnectionCallbackFunc write_handler;
    ConnectionCallbackFunc read_handler;
};

/* A set of listening endpoints of one transport. The server fills in the
 * configuration part and calls connListen(); the transport fills fd/count. */
struct connListener {
    ConnectionType *ct;
    char **bindaddr;    /* Addresses to bind (not owned). A leading '-' marks
                         * an optional address; "*" = all IPv4, "::*" = all
                         * IPv6. No addresses means "*" and "-::*". */
    int bindaddr_count;
    int port;           /* 0 = ephemeral (read back with anetFdToString). */
    int backlog;        /* listen(2) backlog; 0 = default. */
    int fd[CONN_BINDADDR_MAX]; /* Open listening fds, filled by listen. */
    int count;
    void *priv;         /* Transport specific: connUnixListenerConfig* for
                         * "unix"; TLS/RDMA define their own. Not owned. */
    connAcceptCallback accept_cb; /* Set by the server; see above. */
    int accept_flags;   /* Passed to accept_cb as flags. */
    void *acceptArg;    /* Opaque to transports, for the server's own use. */
};

/* listener->priv of a "unix" listener. */
typedef struct connUnixListenerConfig {
    const char *path;  /* Socket path; a stale socket there is unlinked. */
    unsigned int perm; /* chmod() mode, 0 = leave the umask's choice. */
} connUnixListenerConfig;

/* listener->priv of a "tls" listener, and what connTypeConfigure() of the
 * "tls" transport takes: the server's tls-* options. */
#define CONN_TLS_AUTH_NO 0
#define CONN_TLS_AUTH_YES 1
#define CONN_TLS_AUTH_OPTIONAL 2
typedef struct connTlsConfig {
    const char *cert_file, *key_file;       /* PEM; the certificate file may hold a chain */
    const char *ca_cert_file, *ca_cert_dir; /* to verify clients (and servers we connect to) */
    int auth_clients;                       /* CONN_TLS_AUTH_* */
    const char *protocols;                  /* "TLSv1.2 TLSv1.3"; NULL/"" = those two */
    const char *ciphers, *ciphersuites;     /* TLS 1.2 / 1.3 cipher lists; NULL = OpenSSL's */
    int prefer_server_ciphers;
    const char *key_file_pass;              /* passphrase of an encrypted key_file; NULL/"" = none */
    const char *dh_params_file;             /* PEM DH parameters; NULL/"" = OpenSSL's automatic choice */
    int session_caching;                    /* server-side session resumption cache on/off */
    int session_cache_size;                 /* sessions kept (0 = no limit) */
    int session_cache_timeout;              /* seconds a cached session stays valid */
} connTlsConfig;

/* listener->priv of an "rdma" listener (NULL = the defaults). */
typedef struct connRdmaListenerConfig {
    int rx_size;     /* RX buffer per connection (rdma-rx-size); 0 = 1 MiB. */
    int comp_vector; /* Completion vector (rdma-completion-vector); -1 = random. */
} connRdmaListenerConfig;

/* What connTypeConfigure() of the "shm" transport takes: the shm-*
 * options. The transport copies them; CONFIG SET calls it again. */
typedef struct connShmConfig {
    int enabled;   /* shm-enabled: Unix-socket clients may upgrade. */
    int ring_size; /* shm-ring-size: bytes of each ring of new connections. */
    int spin_us;   /* shm-spin-us: polling before sleeping on a doorbell. */
} connShmConfig;

/* ---------------------------------------------------------------------------
 * Transport registry (connection.c)
 * ------------------------------------------------------------------------- */

int connTypeInitialize(aeEventLoop *el);
void connTypeCleanup(void);
int connTypeRegister(ConnectionType *ct);
ConnectionType *connTypeGetByName(const char *typename);
int connectionIndexByType(const char *typename);
ConnectionType *connectionTypeTcp(void);
ConnectionType *connectionTypeUnix(void);
int connTypeConfigure(ConnectionType *ct, void *priv, int reconfigure);
/* Before-sleep pattern for transports with queued work (RDMA):
 *     if (connTypesHavePendingData()) connTypesProcessPendingData();
 *     aeSetDontWait(el, connTypesHavePendingData());                  */
int connTypesHavePendingData(void);
int connTypesProcessPendingData(void);
aeEventLoop *connGetEventLoop(void);
int connFormatAddr(connection *conn, char *buf, size_t buf_len, int remote);
const char *connGetInfo(connection *conn, char *buf, size_t buf_len);

/* One register function per transport. Only connTypeInitialize() calls
 * them, TLS, RDMA and shared memory through weak references:
 * conn_tls.c / conn_rdma.c / conn_shm.c define those, and a transport
 * whose file is not linked (BUILD_TLS/BUILD_RDMA=no, or a unit test that
 * links only some transports) is simply absent. */
int RegisterConnectionTypeSocket(void);
int RegisterConnectionTypeUnix(void);
int RegisterConnectionTypeTLS(void);
int RegisterConnectionTypeRdma(void);
int RegisterConnectionTypeShm(void);

/* ---------------------------------------------------------------------------
 * Wrappers used by the rest of the server
 * ------------------------------------------------------------------------- */

/* Creates an unconnected connection of transport ct (state NONE). The
 * caller owns it and releases it with connClose(). */
static inline connection *connCreate(ConnectionType *ct) {
    return ct->conn_create();
}

/* Wraps an fd accepted outside the transport (state ACCEPTING). Takes
 * ownership of fd, which must be non-blocking (anet's accept makes it so). */
static inline connection *connCreateAccepted(ConnectionType *ct, int fd, void *priv) {
    return ct->conn_create_accepted(fd, priv);
}

/* Completes the accept of a connection in state ACCEPTING (for TLS this is
 * the handshake) and calls accept_handler once it is CONNECTED or failed;
 * the handler checks connGetState(). Returns C_OK, or C_ERR if the accept
 * failed at once or the handler called connClose() during this call. On
 * C_ERR conn is still allocated (state and private data readable, fd
 * already closed if the handler closed it) and the caller must finish it
 * with connClose(), which frees it, even if the handler closed it too. */
static inline int connAccept(connection *conn, ConnectionCallbackFunc accept_handler) {
    return conn->type->accept(conn, accept_handler);
}

/* Starts a non-blocking connect to addr:port (from source_addr if not
 * NULL; for "unix" addr is the socket path and port is ignored). connect_handler runs from the event loop when the connect
 * completes or fails (check connGetState()). Returns C_OK if under way,
 * C_ERR (state ERROR, see connGetLastError()) if it failed at once; in both
 * cases the caller still owns conn. */
static inline int connConnect(connection *conn,
                              const char *addr,
                              int port,
                              const char *source_addr,
                              ConnectionCallbackFunc connect_handler) {
    return conn->type->connect(conn, addr, port, source_addr, connect_handler);
}

/* Connects synchronously, waiting at most timeout ms. Returns C_OK
 * (CONNECTED) or C_ERR (ERROR; last error ETIMEDOUT on timeout). For
 * replication/cluster handshakes only: blocks the event loop. */
static inline int connBlockingConnect(connection *conn, const char *addr, int port, long long timeout) {
    return conn->type->blocking_connect(conn, addr, port, timeout);
}

/* Reads up to buf_len bytes. Returns bytes read (>0), 0 if the peer closed
 * (state CLOSED), or -1: errno EAGAIN = nothing to read now, otherwise the
 * connection is in ERROR. */
static inline ssize_t connRead(connection *conn, void *buf, size_t buf_len) {
    return conn->type->read(conn, buf, buf_len);
}

/* Writes up to data_len bytes. Returns bytes accepted (possibly fewer), or
 * -1: errno EAGAIN = try again when writable, otherwise state ERROR. */
static inline ssize_t connWrite(connection *conn, const void *data, size_t data_len) {
    return conn->type->write(conn, data, data_len);
}

/* Gathers and writes iovcnt buffers; returns as connWrite(). */
static inline ssize_t connWritev(connection *conn, const struct iovec *iov, int iovcnt) {
    return conn->type->writev(conn, iov, iovcnt);
}

/* Installs (or with NULL removes) the handler called when conn is
 * readable. Returns C_OK/C_ERR. */
static inline int connSetReadHandler(connection *conn, ConnectionCallbackFunc func) {
    return conn->type->set_read_handler(conn, func);
}

/* Installs (or with NULL removes) the handler called when conn can take
 * more data. Returns C_OK/C_ERR. */
static inline int connSetWriteHandler(connection *conn, ConnectionCallbackFunc func) {
    return conn->type->set_write_handler(conn, func, 0);
}

/* As connSetWriteHandler(); with barrier set, when conn is readable and
 * writable in the same iteration the write handler runs first (used to
 * reply before reading more when replies must be persisted first). */
static inline int connSetWriteHandlerWithBarrier(connection *conn, ConnectionCallbackFunc func, int barrier) {
    return conn->type->set_write_handler(conn, func, barrier);
}

/* Returns 1 if a read handler is installed. */
static inline int connHasReadHandler(connection *conn) {
    return conn->read_handler != NULL;
}

/* Returns 1 if a write handler is installed. */
static inline int connHasWriteHandler(connection *conn) {
    return conn->write_handler != NULL;
}

/* Closes conn and frees it. Its events stop at once; if called from inside
 * one of conn's own handlers, freeing waits until that handler returns.
 * Either way the caller must not use conn afterwards. */
static inline void connClose(connection *conn) {
    conn->type->close(conn);
}

/* Shuts both directions down without freeing (the peer sees EOF); conn
 * must still be closed with connClose(). */
static inline void connShutdown(connection *conn) {
    conn->type->shutdown(conn);
}

/* Returns the current ConnectionState. */
static inline int connGetState(connection *conn) {
    return conn->state;
}

/* Returns a static description of the last error (valid until the next
 * error), or NULL if there was none. */
static inline const char *connGetLastError(connection *conn) {
    return conn->type->get_last_error(conn);
}

/* Returns the owner's data attached with connSetPrivateData(). */
static inline void *connGetPrivateData(connection *conn) {
    return conn->private_data;
}

/* Attaches data (not owned by conn) for handlers to retrieve. */
static inline void connSetPrivateData(connection *conn, void *data) {
    conn->private_data = data;
}

/* Returns the transport name (CONN_NAME_*). */
static inline const char *connGetType(connection *conn) {
    return conn->type->get_type(conn);
}

/* Writes the peer's ip (or socket path) and port. Returns C_OK/C_ERR. */
static inline int connAddrPeerName(connection *conn, char *ip, size_t ip_len, int *port) {
    return conn->type->addr(conn, ip, ip_len, port, 1);
}

/* Writes our own side's ip (or socket path) and port. C_OK/C_ERR. */
static inline int connAddrSockName(connection *conn, char *ip, size_t ip_len, int *port) {
    return conn->type->addr(conn, ip, ip_len, port, 0);
}

/* Returns 1 if the peer is on this host (loopback or Unix socket). */
static inline int connIsLocal(connection *conn) {
    return conn->type->is_local(conn);
}

/* Disables Nagle where the transport has it. Returns C_OK/C_ERR. */
static inline int connEnableTcpNoDelay(connection *conn) {
    return conn->type->enable_tcp_nodelay ? conn->type->enable_tcp_nodelay(conn) : C_OK;
}

/* Enables keepalive probing (interval in seconds) where the transport has
 * it. Returns C_OK/C_ERR. */
static inline int connKeepAlive(connection *conn, int interval) {
    return conn->type->keepalive ? conn->type->keepalive(conn, interval) : C_OK;
}

/* Blocking I/O for handshakes (connection.c, on each transport's read,
 * write and wait); they block the event loop. timeout is in ms for the
 * whole call, -1 = no limit.
 * connSyncWrite: writes all size bytes. Returns size, or -1 (errno
 *   ETIMEDOUT on timeout).
 * connSyncRead: reads exactly size bytes. Returns size, or -1 on error,
 *   timeout (ETIMEDOUT) or EOF (ECONNRESET).
 * connSyncReadLine: reads one line (up to size-1 bytes) into ptr, without
 *   its "\n" or "\r\n", NUL-terminated, consuming nothing after it.
 *   Returns the line's length, or -1 on error, timeout or EOF. */
ssize_t connSyncWrite(connection *conn, const char *ptr, ssize_t size, long long timeout);
/* Blocks until conn may be readable/writable (mask AE_READABLE or
 * AE_WRITABLE, after connRead/connWrite said EAGAIN) or deadline_us
 * (aeMonotonicUs() time, -1 = none) passes: C_OK to try again, C_ERR
 * with errno (ETIMEDOUT, or the transport's error). Blocks the loop. */
static inline int connWait(connection *conn, int mask, long long deadline_us) {
    return conn->type->wait(conn, mask, deadline_us);
}
ssize_t connSyncRead(connection *conn, char *ptr, ssize_t size, long long timeout);
ssize_t connSyncReadLine(connection *conn, char *ptr, ssize_t size, long long timeout);

/* Opens the listener's endpoints (see ConnectionType.listen). */
static inline int connListen(connListener *listener) {
    return listener->ct->listen(listener);
}

/* Closes the listener's endpoints. A Unix socket file is left in place:
 * the server unlinks it at shutdown (a forked child closing its copy of
 * the listener must not remove the parent's socket). */
static inline void connCloseListener(connListener *listener) {
    if (listener->count) listener->ct->close_listener(listener);
}

/* Returns 1 if the connection's transport checks payload integrity. */
static inline int connIsIntegrityChecked(connection *conn) {
    return conn->type->integrity_checked ? conn->type->integrity_checked() : 0;
}

/* Writes the transport's own CLIENT LIST fields for conn (see
 * ConnectionType.list_fields; "" if none, or conn NULL) into buf, returns
 * buf. */
static inline const char *connGetListFields(connection *conn, char *buf, size_t buf_len) {
    if (conn && conn->type->list_fields) return conn->type->list_fields(conn, buf, buf_len);
    if (buf_len) buf[0] = '\0';
    return buf;
}

/* Returns the bytes the transport holds for conn outside the allocator
 * (see ConnectionType.mem_usage); conn may be NULL. */
static inline size_t connMemUsage(connection *conn) {
    return conn && conn->type->mem_usage ? conn->type->mem_usage(conn) : 0;
}

/* Returns 1 if a forked child may keep serving conn with the conn*()
 * calls (blocking I/O only: the child runs no event loop), 0 if the
 * transport's state does not survive fork(). */
static inline int connUsableAfterFork(connection *conn) {
    return conn->type->usable_after_fork ? conn->type->usable_after_fork() : 1;
}

/* The parent's side of a connection whose session a forked child took
 * over: the parent's later connClose() must release only its own copy
 * (fd, memory) and say no protocol goodbye (TLS close_notify) that would
 * end the child's session. Call before the parent closes conn. */
static inline void connHandedToChild(connection *conn) {
    conn->state = CONN_STATE_CLOSED;
}

/* Returns 1 if an I/O thread may read and write conn while the event
 * loop's thread leaves it alone (ConnectionType.can_serve_off_thread). */
static inline int connCanServeOffThread(connection *conn) {
    return conn->type->can_serve_off_thread ? conn->type->can_serve_off_thread(conn) : 0;
}

/* Turns off-thread mode on or off (see ConnectionType.set_off_thread).
 * Returns C_OK, or C_ERR if the transport has no such mode or failed
 * (the mode is then unchanged). Event loop thread. */
static inline int connSetOffThread(connection *conn, int on) {
    return conn->type->set_off_thread ? conn->type->set_off_thread(conn, on) : C_ERR;
}

/* Returns 1 while conn is in off-thread mode. */
static inline int connIsOffThread(connection *conn) {
    return (conn->flags & CONN_FLAG_OFF_THREAD) != 0;
}

/* ---------------------------------------------------------------------------
 * For transport implementations only
 * ------------------------------------------------------------------------- */

/* Reference counting of handler calls in progress: while refs > 0,
 * connClose() only schedules the free (CONN_FLAG_CLOSE_SCHEDULED). */
static inline void connIncrRefs(connection *conn) {
    conn->refs++;
}

static inline void connDecrRefs(connection *conn) {
    conn->refs--;
}

static inline int connHasRefs(connection *conn) {
    return conn->refs > 0;
}

/* Calls handler (if not NULL) with a reference held, then performs a
 * connClose() the handler deferred. Returns 1 if conn is still usable, 0 if
 * it is closed or closing: the caller must return without touching it. */
static inline int connCallHandler(connection *conn, ConnectionCallbackFunc handler) {
    connIncrRefs(conn);
    if (handler) handler(conn);
    connDecrRefs(conn);
    if (conn->flags & CONN_FLAG_CLOSE_SCHEDULED) {
        if (!connHasRefs(conn)) conn->type->close(conn);
        return 0;
    }
    return 1;
}

/* Socket primitives from conn_socket.c, shared by the fd-based transports
 * (conn_unix.c reuses them; TLS may reuse the listener parts). */
connection *connSocketCreateOfType(ConnectionType *ct, int fd, ConnectionState state);
void connSocketEventHandler(aeEventLoop *el, int fd, void *clientData, int mask);
int connSocketConnectFd(connection *conn, int fd, ConnectionCallbackFunc connect_handler);
int connSocketBlockingConnectFd(connection *conn, int fd, long long timeout);
int connSocketAccept(connection *conn, ConnectionCallbackFunc accept_handler);
void connSocketShutdown(connection *conn);
void connSocketClose(connection *conn);
ssize_t connSocketRead(connection *conn, void *buf, size_t buf_len);
ssize_t connSocketWrite(connection *conn, const void *data, size_t data_len);
ssize_t connSocketWritev(connection *conn, const struct iovec *iov, int iovcnt);
int connSocketSetReadHandler(connection *conn, ConnectionCallbackFunc func);
int connSocketSetWriteHandler(connection *conn, ConnectionCallbackFunc func, int barrier);
int connSocketWait(connection *conn, int mask, long long deadline_us);
int connSocketCanServeOffThread(connection *conn);
int connSocketSetOffThread(connection *conn, int on);
int connSocketAddr(connection *conn, char *ip, size_t ip_len, int *port, int remote);
int connSocketIsLocal(connection *conn);
int connSocketListen(connListener *listener);
const char *connSocketGetLastError(connection *conn);
void connSocketCloseListener(connListener *listener);
void connSocketAcceptHandler(aeEventLoop *el, int fd, void *clientData, int mask);
/* The Unix-socket listener and connects (conn_unix.c), shared with conn_shm.c. */
int connUnixListen(connListener *listener);
void connUnixAcceptHandler(aeEventLoop *el, int fd, void *clientData, int mask);
int connUnixConnect(connection *conn, const char *addr, int port, const char *src_addr,
                    ConnectionCallbackFunc connect_handler);
int connUnixBlockingConnect(connection *conn, const char *addr, int port, long long timeout);

#endif
