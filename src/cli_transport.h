/* cli_transport.h - the client-side transport layer of the tools.
 *
 * valkey-benchmark and valkey-cli reach a server only through a
 * `cliConn *` and the cliConn*() functions below; they never see a socket,
 * an SSL object or a queue pair. A transport is one cliConnType filled in
 * with designated initialisers (cli_transport.c holds "tcp" and "unix"),
 * registered by one line in the table of cli_transport.c. It embeds
 * `cliConn` as the first member of its own per-connection struct.
 *
 * Two ways to use a connection:
 *   - Blocking: cliConnConnectBlocking() returns a connected cliConn whose
 *     read/write block (used for one-off requests such as CONFIG GET).
 *   - Event driven: cliConnConnect() starts a non-blocking connect inside
 *     an aeEventLoop; cliConnSetReadHandler()/cliConnSetWriteHandler()
 *     then work like the server's conn*() handlers.
 *
 * Transports without a kernel "writable" event (RDMA: writability returns
 * when the peer re-advertises its receive window) set
 * CLI_CONN_TYPE_NO_WRITABLE_EVENT and implement pending(); so do those that
 * may hold input no fd event announces (TLS: a decrypted record read
 * ahead), with CLI_CONN_TYPE_BUFFERS_INPUT. Their connections are kept on
 * a per-thread list, and the tool calls
 * cliConnBeforeSleep(el) from its before-sleep hook: it runs the handlers
 * of connections whose transport says a read or write can progress and
 * sets aeSetDontWait() while any can, so the loop polls instead of
 * sleeping. Socket transports never touch that list.
 *
 * I/O contract: read/write/writev return like read(2)/write(2): -1 with
 * errno EAGAIN means "try later", 0 from read means the peer closed; any
 * other failure moves the connection to CLI_CONN_ERROR with an error
 * string (cliConnGetLastError()). A handler may close its own connection;
 * the memory stays valid until the handler returns.
 *
 * Threads: a connection belongs to the thread that runs its event loop.
 * Leaf code: includes ae.h, never a server header. */
#ifndef VK_CLI_TRANSPORT_H
#define VK_CLI_TRANSPORT_H

#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "ae.h"

#define CLI_OK 0
#define CLI_ERR -1
#define CLI_AGAIN 1 /* connect_step(): not connected yet, keep waiting. */

#define CLI_ERR_LEN 256

/* Transport names, for cliConnTypeGetByName() and the tools' options. */
#define CLI_CONN_TCP "tcp"
#define CLI_CONN_UNIX "unix"
#define CLI_CONN_TLS "tls"
#define CLI_CONN_RDMA "rdma"
#define CLI_CONN_SHM "shm"

/* cliConnType.flags */
#define CLI_CONN_TYPE_NO_WRITABLE_EVENT (1 << 0) /* fd is readable-only. */
#define CLI_CONN_TYPE_BUFFERS_INPUT (1 << 1)     /* input may wait inside the transport (TLS): see pending() */

/* cliConnType.pending() result bits. */
#define CLI_PENDING_READ (1 << 0)  /* Bytes are buffered in the transport. */
#define CLI_PENDING_WRITE (1 << 1) /* A write would now make progress. */

typedef enum {
    CLI_CONN_NONE = 0,   /* Allocated, connect not started. */
    CLI_CONN_CONNECTING, /* Non-blocking connect in progress. */
    CLI_CONN_CONNECTED,  /* Usable for I/O. */
    CLI_CONN_CLOSED,     /* The peer closed (read returned 0). */
    CLI_CONN_ERROR       /* Connect or I/O failed: see err/last_errno. */
} cliConnState;

typedef struct cliConn cliConn;
typedef struct cliConnType cliConnType;

/* Event handler: runs in the event-loop thread of the connection. */
typedef void cliConnHandler(cliConn *c);

/* Where to connect. A transport uses host/port or path as it needs. */
/* TLS settings (--tls and its options); NULL = OpenSSL's defaults. */
typedef struct cliTlsOptions {
    const char *cacert, *cacertdir; /* CAs the server's certificate is checked against */
    const char *cert, *key;         /* our client certificate and key, PEM */
    const char *sni;                /* server name to send (default: host, if a name) */
    const char *ciphers, *ciphersuites;
    int insecure;                   /* do not verify the server's certificate */
} cliTlsOptions;

typedef struct cliConnAddr {
    const char *host; /* Host name or address (tcp, tls, rdma). */
    int port;
    const char *path; /* Socket path (unix). */
    const cliTlsOptions *tls; /* "tls" only */
    int prefer_family;        /* 4 or 6: resolve host to IPv4 / IPv6 first (-4/-6); 0 = as the resolver orders */
} cliConnAddr;

/* The transport vtable. Unless marked optional every entry is required. */
struct cliConnType {
    const char *name; /* CLI_CONN_* */
    int flags;        /* CLI_CONN_TYPE_* */
    /* File descriptors one open connection holds (0 means 1). Tools size
     * their event loops and RLIMIT_NOFILE from it: fd numbers are shared
     * by the whole process, so every fd counts, not just cliConn.fd. */
    int fds_per_conn;

    /* Creates a connection to addr and starts connecting. With blocking=1
     * it returns only once connected (state CONNECTED) or failed, waiting
     * at most timeout_ms (0 = no limit), and later I/O blocks; otherwise
     * the state is CONNECTING or CONNECTED and I/O never blocks. Returns
     * NULL with err (errlen bytes, strerror-style text) on failure. */
    cliConn *(*connect)(const cliConnAddr *addr, int blocking, long long timeout_ms, char *err, size_t errlen);

    /* Advances a non-blocking connect once c->fd polled writable (readable
     * for NO_WRITABLE_EVENT transports). CLI_OK = connected, CLI_AGAIN =
     * keep waiting, CLI_ERR = failed (c->err set). The transport may
     * change c->fd here; the caller re-registers it. */
    int (*connect_step)(cliConn *c);

    ssize_t (*read)(cliConn *c, void *buf, size_t len);
    ssize_t (*write)(cliConn *c, const void *buf, size_t len);
    ssize_t (*writev)(cliConn *c, const struct iovec *iov, int iovcnt);

    /* Releases everything, closes the fd and frees c. */
    void (*close)(cliConn *c);

    /* Optional: c->fd polled readable; do transport work (drain
     * completions, re-post receives). CLI_ERR marks the connection bad. */
    int (*process)(cliConn *c);

    /* Optional, required with NO_WRITABLE_EVENT: CLI_PENDING_* bits that
     * hold now without waiting on the fd. */
    int (*pending)(cliConn *c);
};

/* The part of every client connection the layer relies on. Transports
 * embed it first; tools use the functions below, not the fields. */
struct cliConn {
    const cliConnType *type;
    cliConnState state;
    int fd;           /* Pollable fd, -1 if none. */
    int last_errno;   /* errno of the failure that set CLI_CONN_ERROR. */
    char err[CLI_ERR_LEN];
    void *privdata;   /* Owner's data, not owned. */

    /* Event-loop glue, owned by cli_transport.c. */
    aeEventLoop *el;
    int mask;         /* AE_* registered on fd. */
    int refs;         /* Handler calls in progress. */
    int closing;      /* cliConnClose() ran inside a handler. */
    cliConnHandler *connect_handler, *read_handler, *write_handler;
    cliConn *pending_prev, *pending_next; /* NO_WRITABLE_EVENT list. */
    int in_pending_list;
    int connect_want; /* Set by connect_step(): AE_* to wait for, 0 = the default. */
};

/* The tools' --help lines for those options, each line starting with
 * `indent` (a string literal). */
#define CLI_TLS_OPTIONS_HELP(indent)                                                                  \
    indent "--tls              Connect over TLS.\n" indent                                            \
           "--sni <host>       Server name to send in the TLS handshake.\n" indent                    \
           "--cacert <file>    Check the server's certificate against these CAs (PEM).\n" indent       \
           "--cacertdir <dir>  Check it against the CAs of this directory.\n" indent                  \
           "--insecure         Do not check the server's certificate at all.\n" indent                \
           "--cert <file>      Our client certificate (PEM).\n" indent                                \
           "--key <file>       The private key of --cert (PEM).\n" indent                             \
           "--tls-ciphers <list>       TLS 1.2 cipher list, in OpenSSL's syntax.\n" indent             \
           "--tls-ciphersuites <list>  TLS 1.3 cipher suites, in OpenSSL's syntax.\n"

/* Parses one TLS option of the tools at argv[*i] (--tls, --cacert,
 * --cacertdir, --cert, --key, --sni, --insecure, --tls-ciphers,
 * --tls-ciphersuites; *i advances past a value). Returns 1 if it was one,
 * 0 if not, -1 if its value is missing. --tls sets *tls_on. */
int cliParseTlsOption(int argc, char **argv, int *i, cliTlsOptions *o, int *tls_on);

/* Registry. */
const cliConnType *cliConnTypeGetByName(const char *name);
void cliConnFormatAddr(char *buf, size_t len, const cliConnAddr *addr);

/* Lifetime. */
cliConn *cliConnConnectBlocking(const cliConnType *ct, const cliConnAddr *addr, long long timeout_ms, char *err, size_t errlen);
cliConn *cliConnConnect(const cliConnType *ct,
                        const cliConnAddr *addr,
                        aeEventLoop *el,
                        cliConnHandler *connect_handler,
                        void *privdata,
                        char *err,
                        size_t errlen);
void cliConnClose(cliConn *c);
void cliConnInterrupt(cliConn *c);

/* I/O. */
ssize_t cliConnRead(cliConn *c, void *buf, size_t len);
ssize_t cliConnWrite(cliConn *c, const void *buf, size_t len);
ssize_t cliConnWritev(cliConn *c, const struct iovec *iov, int iovcnt);
int cliConnWriteAll(cliConn *c, const void *buf, size_t len);

/* Event handlers (event-driven connections only). */
int cliConnSetReadHandler(cliConn *c, cliConnHandler *handler);
int cliConnSetWriteHandler(cliConn *c, cliConnHandler *handler);
void cliConnBeforeSleep(aeEventLoop *el);

/* Accessors. */
const char *cliConnGetLastError(const cliConn *c);
cliConnState cliConnGetState(const cliConn *c);
int cliConnGetFd(const cliConn *c);
void *cliConnGetPrivData(const cliConn *c);
void cliConnSetPrivData(cliConn *c, void *privdata);

/* For transports: fills c->err/last_errno and sets CLI_CONN_ERROR. */
void cliConnSetError(cliConn *c, int err_no, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
