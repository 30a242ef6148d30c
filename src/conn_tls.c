/* conn_tls.c - the TLS transport ("tls") on OpenSSL.
 *
 * A TLS connection is a TCP socket with an SSL object on top. Sockets,
 * listening, accepting and addresses are conn_socket.c's; what differs is
 * the handshake and the I/O:
 *
 *  - Handshake. An accepted connection stays ACCEPTING while OpenSSL asks
 *    for more bytes (WANT_READ) or for room to write (WANT_WRITE); the fd is
 *    watched for exactly that, and the accept handler runs once it is done
 *    (CONNECTED) or failed (ERROR). Outgoing connections do the same after
 *    the TCP connect (CONNECTING).
 *  - Reads and writes can need the other direction: a TLS read may have to
 *    write (a key update), a write may have to read. Such a call returns
 *    EAGAIN and flags the connection; the fd is then watched for what
 *    OpenSSL needs, and the handler that asked is called again when it is
 *    there.
 *  - Buffered input. OpenSSL reads ahead (whole socket buffers) and
 *    decrypts a whole record; what a read did not take stays inside it,
 *    where no fd event will announce it. Such connections are kept on a
 *    list that the server's before-sleep hook drains
 *    (has/process_pending_data), like RDMA's queued work.
 *  - writev has no TLS equivalent: buffers are gathered into one record
 *    of up to TLS_WRITEV_MAX bytes. A retried write always starts with the
 *    same bytes (replies only grow at the end), as OpenSSL requires.
 *
 * The context (certificates and the key's passphrase, CA, protocols,
 * ciphers, DH parameters, session cache, client verification) is built by the configure hook from a connTlsConfig; CONFIG SET builds a
 * new one, which new connections use (OpenSSL reference-counts the old one
 * for the connections still on it).
 *
 * I/O threads: TLS connections stay on the event loop's thread for now
 * (tlsCanServeOffThread()). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#include "anet.h"
#include "connection.h"
#include "log.h"
#include "zmalloc.h"

#define TLS_WRITEV_MAX (16 * 1024) /* one TLS record */

/* What a read or write is waiting for in the other direction. */
#define TLS_READ_WANTS_WRITE (1 << 0)
#define TLS_WRITE_WANTS_READ (1 << 1)
#define TLS_PENDING (1 << 2) /* on pendingConns: plaintext buffered in OpenSSL */

typedef struct tlsConnection {
    connection c;
    SSL *ssl;
    int flags;            /* TLS_* above */
    int handshake_want;   /* AE_READABLE or AE_WRITABLE while handshaking */
    char err[256];        /* OpenSSL's description of the last failure */
    struct tlsConnection *pending_next, *pending_prev;
} tlsConnection;

static ConnectionType CT_TLS;
static SSL_CTX *tlsCtx;
static tlsConnection *pendingConns; /* see TLS_PENDING */
static int pendingCount;

/* ---------------------------------------------------------------------------
 * Context
 * ------------------------------------------------------------------------- */

/* Records OpenSSL's error queue (or errno) as t's last error. */
static void tlsSetError(tlsConnection *t, int ssl_err) {
    unsigned long e = ERR_peek_last_error();
    if (e) {
        ERR_error_string_n(e, t->err, sizeof(t->err));
    } else if (ssl_err == SSL_ERROR_SYSCALL && errno) {
        snprintf(t->err, sizeof(t->err), "%s", strerror(errno));
    } else {
        snprintf(t->err, sizeof(t->err), "TLS error %d", ssl_err);
    }
    ERR_clear_error();
    t->c.last_errno = errno ? errno : EIO;
    t->c.state = CONN_STATE_ERROR;
}

static void logSslError(const char *what, const char *file) {
    char buf[256];
    ERR_error_string_n(ERR_get_error(), buf, sizeof(buf));
    serverLog(LL_WARNING, "%s%s%s: %s", what, file ? " " : "", file ? file : "", buf);
    ERR_clear_error();
}

/* "TLSv1.2 TLSv1.3" -> the lowest and highest versions allowed. */
static int parseProtocols(const char *spec, int *min, int *max) {
    static const struct {
        const char *name;
        int version;
    } names[] = {{"TLSv1", TLS1_VERSION}, {"TLSv1.1", TLS1_1_VERSION}, {"TLSv1.2", TLS1_2_VERSION},
                 {"TLSv1.3", TLS1_3_VERSION}};
    *min = *max = 0;
    if (spec == NULL || spec[0] == '\0') {
        *min = TLS1_2_VERSION;
        *max = TLS1_3_VERSION;
        return 1;
    }
    char *copy = zstrdup(spec), *save = NULL;
    int ok = 1;
    for (char *tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        size_t j;
        for (j = 0; j < sizeof(names) / sizeof(names[0]); j++) {
            if (!strcasecmp(tok, names[j].name)) break;
        }
        if (j == sizeof(names) / sizeof(names[0])) {
            serverLog(LL_WARNING, "Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', "
                                  "'TLSv1.2' and 'TLSv1.3'.");
            ok = 0;
            break;
        }
        if (*min == 0 || names[j].version < *min) *min = names[j].version;
        if (names[j].version > *max) *max = names[j].version;
    }
    zfree(copy);
    return ok && *min;
}

/* OpenSSL's passphrase callback: copies tls-key-file-pass (userdata). */
static int tlsPassphraseCallback(char *buf, int size, int rwflag, void *userdata) {
    (void)rwflag;
    const char *pass = userdata;
    int len = (int)strlen(pass);
    if (len > size) len = size;
    memcpy(buf, pass, (size_t)len);
    return len;
}

/* Loads tls-dh-params-file into ctx. Returns 1, or 0 (logged). */
static int tlsLoadDhParams(SSL_CTX *ctx, const char *path) {
    BIO *bio = BIO_new_file(path, "r");
    if (bio == NULL) {
        logSslError("Failed to load DH parameters file:", path);
        return 0;
    }
    EVP_PKEY *params = PEM_read_bio_Parameters(bio, NULL);
    BIO_free(bio);
    if (params == NULL || !SSL_CTX_set0_tmp_dh_pkey(ctx, params)) {
        EVP_PKEY_free(params);
        logSslError("Failed to load DH parameters file:", path);
        return 0;
    }
    return 1; /* ctx owns params now */
}

/* Builds a context from cfg (a connTlsConfig). On success it replaces the
 * current one; on failure (logged) the current one stays. */
static int tlsConfigure(void *priv, int reconfigure) {
    (void)reconfigure;
    const connTlsConfig *cfg = priv;
    if (cfg == NULL || !cfg->cert_file || !cfg->cert_file[0] || !cfg->key_file || !cfg->key_file[0]) {
        serverLog(LL_WARNING, "No tls-cert-file or tls-key-file configured!");
        return C_ERR;
    }
    int verify = cfg->auth_clients != CONN_TLS_AUTH_NO;
    int have_ca = (cfg->ca_cert_file && cfg->ca_cert_file[0]) || (cfg->ca_cert_dir && cfg->ca_cert_dir[0]);
    if (verify && !have_ca) {
        serverLog(LL_WARNING, "Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-cluster, "
                              "tls-replication or tls-auth-clients are enabled!");
        return C_ERR;
    }
    int min, max;
    if (!parseProtocols(cfg->protocols, &min, &max)) return C_ERR;

    SSL_CTX *ctx = SSL_CTX_new(TLS_method());
    if (ctx == NULL) {
        logSslError("Failed to create a TLS context", NULL);
        return C_ERR;
    }
    SSL_CTX_set_min_proto_version(ctx, min);
    SSL_CTX_set_max_proto_version(ctx, max);
    long options = SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION;
#ifdef SSL_OP_IGNORE_UNEXPECTED_EOF
    options |= SSL_OP_IGNORE_UNEXPECTED_EOF; /* a peer closing without close_notify is an EOF, not an error */
#endif
    if (cfg->prefer_server_ciphers) options |= SSL_OP_CIPHER_SERVER_PREFERENCE;
    SSL_CTX_set_options(ctx, options);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    /* Read whole socket buffers, not a record header and then its body:
     * one read(2) per request instead of two. What is read beyond the
     * record stays buffered (SSL_has_pending(), see tlsRead()). */
    SSL_CTX_set_read_ahead(ctx, 1);
    SSL_CTX_set_session_id_context(ctx, (const unsigned char *)"valkey", 6);

    if (SSL_CTX_use_certificate_chain_file(ctx, cfg->cert_file) <= 0) {
        logSslError("Failed to load certificate:", cfg->cert_file);
        goto error;
    }
    if (cfg->key_file_pass && cfg->key_file_pass[0]) {
        SSL_CTX_set_default_passwd_cb(ctx, tlsPassphraseCallback);
        SSL_CTX_set_default_passwd_cb_userdata(ctx, (void *)cfg->key_file_pass);
    }
    int key_ok = SSL_CTX_use_PrivateKey_file(ctx, cfg->key_file, SSL_FILETYPE_PEM) > 0;
    /* The passphrase is not kept past this point. */
    SSL_CTX_set_default_passwd_cb(ctx, NULL);
    SSL_CTX_set_default_passwd_cb_userdata(ctx, NULL);
    if (!key_ok) {
        logSslError("Failed to load private key:", cfg->key_file);
        goto error;
    }
    if (!SSL_CTX_check_private_key(ctx)) {
        logSslError("The private key does not match the certificate:", cfg->key_file);
        goto error;
    }
    if (have_ca && SSL_CTX_load_verify_locations(ctx, cfg->ca_cert_file && cfg->ca_cert_file[0] ? cfg->ca_cert_file : NULL,
                                                 cfg->ca_cert_dir && cfg->ca_cert_dir[0] ? cfg->ca_cert_dir : NULL) <= 0) {
        logSslError("Failed to configure CA certificate(s) file/directory", NULL);
        goto error;
    }
    if (cfg->ciphers && cfg->ciphers[0] && !SSL_CTX_set_cipher_list(ctx, cfg->ciphers)) {
        logSslError("Failed to configure ciphers:", cfg->ciphers);
        goto error;
    }
    if (cfg->ciphersuites && cfg->ciphersuites[0] && !SSL_CTX_set_ciphersuites(ctx, cfg->ciphersuites)) {
        logSslError("Failed to configure ciphersuites:", cfg->ciphersuites);
        goto error;
    }
    if (cfg->dh_params_file && cfg->dh_params_file[0] && !tlsLoadDhParams(ctx, cfg->dh_params_file)) goto error;
    if (cfg->session_caching) {
        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER);
        SSL_CTX_sess_set_cache_size(ctx, cfg->session_cache_size);
        SSL_CTX_set_timeout(ctx, cfg->session_cache_timeout);
    } else {
        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    }
    int mode = SSL_VERIFY_NONE;
    if (cfg->auth_clients == CONN_TLS_AUTH_YES) mode = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
    else if (cfg->auth_clients == CONN_TLS_AUTH_OPTIONAL) mode = SSL_VERIFY_PEER;
    SSL_CTX_set_verify(ctx, mode, NULL);

    SSL_CTX_free(tlsCtx);
    tlsCtx = ctx;
    return C_OK;

error:
    SSL_CTX_free(ctx);
    return C_ERR;
}

static void tlsCleanup(void) {
    SSL_CTX_free(tlsCtx);
    tlsCtx = NULL;
}

/* ---------------------------------------------------------------------------
 * Buffered plaintext
 * ------------------------------------------------------------------------- */

static void pendingAdd(tlsConnection *t) {
    if (t->flags & TLS_PENDING) return;
    t->flags |= TLS_PENDING;
    t->pending_prev = NULL;
    t->pending_next = pendingConns;
    if (pendingConns) pendingConns->pending_prev = t;
    pendingConns = t;
    pendingCount++;
}

static void pendingRemove(tlsConnection *t) {
    if (!(t->flags & TLS_PENDING)) return;
    t->flags &= ~TLS_PENDING;
    if (t->pending_prev) t->pending_prev->pending_next = t->pending_next;
    else pendingConns = t->pending_next;
    if (t->pending_next) t->pending_next->pending_prev = t->pending_prev;
    pendingCount--;
}

static int tlsHasPendingData(void) {
    return pendingCount > 0;
}

/* ---------------------------------------------------------------------------
 * Events
 * ------------------------------------------------------------------------- */

/* Watches the fd for what the connection needs now: during a handshake
 * what OpenSSL asked for; afterwards what the handlers and the flags want. */
static void tlsUpdateEvents(tlsConnection *t) {
    connection *conn = &t->c;
    if (conn->fd == -1) return;
    int want = 0;
    if (conn->state == CONN_STATE_ACCEPTING || conn->state == CONN_STATE_CONNECTING) {
        want = t->handshake_want;
    } else if (conn->state == CONN_STATE_CONNECTED) {
        if (conn->read_handler || (t->flags & TLS_WRITE_WANTS_READ)) want |= AE_READABLE;
        if (conn->write_handler || (t->flags & TLS_READ_WANTS_WRITE)) want |= AE_WRITABLE;
    }
    aeEventLoop *el = connGetEventLoop();
    int have = aeGetFileEvents(el, conn->fd) & (AE_READABLE | AE_WRITABLE);
    if ((want & ~have) && aeCreateFileEvent(el, conn->fd, want & ~have, CT_TLS.ae_handler, conn) == AE_ERR)
        serverLog(LL_WARNING, "TLS: cannot watch fd %d: %s", conn->fd, strerror(errno));
    if (have & ~want) aeDeleteFileEvent(el, conn->fd, have & ~want);
}

/* Advances the handshake. Returns 1 when done, 0 while it needs the
 * network (t->handshake_want set), -1 on failure (state ERROR). */
static int tlsHandshake(tlsConnection *t) {
    ERR_clear_error();
    int ret = SSL_do_handshake(t->ssl);
    if (ret == 1) return 1;
    int err = SSL_get_error(t->ssl, ret);
    if (err == SSL_ERROR_WANT_READ) {
        t->handshake_want = AE_READABLE;
        return 0;
    }
    if (err == SSL_ERROR_WANT_WRITE) {
        t->handshake_want = AE_WRITABLE;
        return 0;
    }
    tlsSetError(t, err);
    return -1;
}

/* Runs one step of the handshake from the event loop; when it ends, the
 * accept/connect handler learns the outcome. Returns 0 if conn is gone. */
static int tlsHandshakeStep(tlsConnection *t) {
    connection *conn = &t->c;
    int r = tlsHandshake(t);
    if (r == 0) {
        tlsUpdateEvents(t);
        return 1;
    }
    if (r > 0) conn->state = CONN_STATE_CONNECTED;
    ConnectionCallbackFunc handler = conn->conn_handler;
    conn->conn_handler = NULL;
    tlsUpdateEvents(t);
    if (!connCallHandler(conn, handler)) return 0;
    /* Bytes the client sent right behind its handshake may already sit
     * in OpenSSL: have them read without waiting for the fd. */
    if (conn->state == CONN_STATE_CONNECTED) pendingAdd(t);
    return 1;
}

static void tlsEventHandler(aeEventLoop *el, int fd, void *clientData, int mask) {
    (void)el;
    (void)fd;
    tlsConnection *t = clientData;
    connection *conn = &t->c;

    if (conn->state == CONN_STATE_CONNECTING && t->ssl == NULL) {
        /* The TCP connect finished (or failed): start the handshake. */
        int err = anetGetError(conn->fd);
        if (err || (t->ssl = SSL_new(tlsCtx)) == NULL || !SSL_set_fd(t->ssl, conn->fd)) {
            conn->last_errno = err ? err : EIO;
            snprintf(t->err, sizeof(t->err), "%s", err ? strerror(err) : "cannot create the TLS session");
            conn->state = CONN_STATE_ERROR;
            ConnectionCallbackFunc handler = conn->conn_handler;
            conn->conn_handler = NULL;
            tlsUpdateEvents(t);
            connCallHandler(conn, handler);
            return;
        }
        SSL_set_connect_state(t->ssl);
        tlsHandshakeStep(t);
        return;
    }
    if (conn->state == CONN_STATE_ACCEPTING || conn->state == CONN_STATE_CONNECTING) {
        tlsHandshakeStep(t);
        return;
    }
    if (conn->state != CONN_STATE_CONNECTED) return;

    /* A read that needed to write runs again once writable, and a write
     * that needed to read once readable. */
    int call_read = (mask & AE_READABLE) && conn->read_handler;
    int call_write = (mask & AE_WRITABLE) && conn->write_handler;
    if ((t->flags & TLS_READ_WANTS_WRITE) && (mask & AE_WRITABLE)) {
        t->flags &= ~TLS_READ_WANTS_WRITE;
        call_read = conn->read_handler != NULL;
    }
    if ((t->flags & TLS_WRITE_WANTS_READ) && (mask & AE_READABLE)) {
        t->flags &= ~TLS_WRITE_WANTS_READ;
        call_write = conn->write_handler != NULL;
    }
    int barrier = conn->flags & CONN_FLAG_WRITE_BARRIER;
    if (!barrier && call_read && !connCallHandler(conn, conn->read_handler)) return;
    if (call_write && conn->write_handler && !connCallHandler(conn, conn->write_handler)) return;
    if (barrier && call_read && conn->read_handler && !connCallHandler(conn, conn->read_handler)) return;
    tlsUpdateEvents(t);
}

/* The before-sleep hook: connections with plaintext left inside OpenSSL
 * get their read handler called. Returns how many were served. */
static int tlsProcessPendingData(void) {
    int served = 0;
    while (pendingConns) {
        tlsConnection *t = pendingConns;
        pendingRemove(t);
        connection *conn = &t->c;
        if (conn->state != CONN_STATE_CONNECTED || !conn->read_handler) continue;
        served++;
        if (!connCallHandler(conn, conn->read_handler)) continue;
    }
    return served;
}

/* ---------------------------------------------------------------------------
 * Connection lifetime
 * ------------------------------------------------------------------------- */

static tlsConnection *tlsCreate(int fd, ConnectionState state) {
    tlsConnection *t = zcalloc(sizeof(*t));
    t->c.type = &CT_TLS;
    t->c.fd = fd;
    t->c.state = state;
    return t;
}

static connection *tlsConnCreate(void) {
    return &tlsCreate(-1, CONN_STATE_NONE)->c;
}

static connection *tlsConnCreateAccepted(int fd, void *priv) {
    (void)priv;
    tlsConnection *t = tlsCreate(fd, CONN_STATE_ACCEPTING);
    if (tlsCtx == NULL || (t->ssl = SSL_new(tlsCtx)) == NULL || !SSL_set_fd(t->ssl, fd)) {
        tlsSetError(t, SSL_ERROR_SSL);
        return &t->c;
    }
    SSL_set_accept_state(t->ssl);
    return &t->c;
}

/* Starts the handshake of an accepted connection; see connAccept(). */
static int tlsAccept(connection *conn, ConnectionCallbackFunc accept_handler) {
    tlsConnection *t = (tlsConnection *)conn;
    if (conn->state != CONN_STATE_ACCEPTING) return C_ERR;
    conn->conn_handler = accept_handler;
    int r = tlsHandshake(t);
    if (r < 0) return C_ERR;
    if (r == 0) {
        tlsUpdateEvents(t);
        return C_OK;
    }
    conn->state = CONN_STATE_CONNECTED;
    conn->conn_handler = NULL;
    connIncrRefs(conn);
    int alive = connCallHandler(conn, accept_handler);
    connDecrRefs(conn);
    if (alive) {
        tlsUpdateEvents(t);
        pendingAdd(t);
    }
    return alive ? C_OK : C_ERR;
}

static int tlsConnect(connection *conn, const char *addr, int port, const char *src_addr,
                      ConnectionCallbackFunc connect_handler) {
    if (tlsCtx == NULL) {
        conn->state = CONN_STATE_ERROR;
        conn->last_errno = EINVAL;
        return C_ERR;
    }
    int fd = anetTcpNonBlockBindConnect(NULL, addr, port, src_addr);
    if (fd == -1) {
        conn->state = CONN_STATE_ERROR;
        conn->last_errno = errno;
        return C_ERR;
    }
    /* The TCP connect completes in the event handler, which then starts
     * the handshake; connect_handler runs when that ends. */
    ((tlsConnection *)conn)->handshake_want = AE_WRITABLE;
    return connSocketConnectFd(conn, fd, connect_handler);
}

/* Connects and completes the handshake within timeout ms. */
static int tlsBlockingConnect(connection *conn, const char *addr, int port, long long timeout) {
    tlsConnection *t = (tlsConnection *)conn;
    if (tlsCtx == NULL) {
        conn->state = CONN_STATE_ERROR;
        conn->last_errno = EINVAL;
        return C_ERR;
    }
    int fd = anetTcpNonBlockConnect(NULL, addr, port);
    if (fd == -1) {
        conn->state = CONN_STATE_ERROR;
        conn->last_errno = errno;
        return C_ERR;
    }
    long long deadline = aeMonotonicUs() + timeout * 1000;
    if (connSocketBlockingConnectFd(conn, fd, timeout) != C_OK) return C_ERR;
    if ((t->ssl = SSL_new(tlsCtx)) == NULL || !SSL_set_fd(t->ssl, conn->fd)) {
        tlsSetError(t, SSL_ERROR_SSL);
        return C_ERR;
    }
    SSL_set_connect_state(t->ssl);
    conn->state = CONN_STATE_CONNECTING;
    for (;;) {
        int r = tlsHandshake(t);
        if (r > 0) break;
        if (r < 0) return C_ERR;
        long long left = deadline - aeMonotonicUs();
        if (left <= 0 || aeWait(conn->fd, t->handshake_want, (left + 999) / 1000) <= 0) {
            conn->state = CONN_STATE_ERROR;
            conn->last_errno = ETIMEDOUT;
            snprintf(t->err, sizeof(t->err), "%s", strerror(ETIMEDOUT));
            return C_ERR;
        }
    }
    conn->state = CONN_STATE_CONNECTED;
    return C_OK;
}

static void tlsShutdown(connection *conn) {
    tlsConnection *t = (tlsConnection *)conn;
    if (t->ssl && conn->state == CONN_STATE_CONNECTED) SSL_shutdown(t->ssl);
    connSocketShutdown(conn);
}

/* Sends close_notify when the session is up (best effort: the socket is
 * non-blocking and is closed right after), then closes like a socket. */
static void tlsClose(connection *conn) {
    tlsConnection *t = (tlsConnection *)conn;
    pendingRemove(t);
    if (t->ssl) {
        if (conn->state == CONN_STATE_CONNECTED) {
            ERR_clear_error();
            SSL_shutdown(t->ssl);
            ERR_clear_error();
        }
        SSL_free(t->ssl);
        t->ssl = NULL;
    }
    connSocketClose(conn);
}

/* ---------------------------------------------------------------------------
 * I/O
 * ------------------------------------------------------------------------- */

/* Turns an SSL_read/SSL_write failure into the connection.h convention.
 * other_way is the TLS_*_WANTS_* flag for "needs the other direction". */
static ssize_t tlsIoFailed(tlsConnection *t, int ret, int other_way) {
    int err = SSL_get_error(t->ssl, ret);
    switch (err) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE: {
        int same_way = other_way == TLS_READ_WANTS_WRITE ? SSL_ERROR_WANT_READ : SSL_ERROR_WANT_WRITE;
        if (err != same_way) {
            t->flags |= other_way;
            tlsUpdateEvents(t);
        }
        errno = EAGAIN;
        return -1;
    }
    case SSL_ERROR_ZERO_RETURN:
        t->c.state = CONN_STATE_CLOSED;
        return 0;
    case SSL_ERROR_SYSCALL:
        if (errno == 0 || ret == 0) { /* EOF without close_notify */
            t->c.state = CONN_STATE_CLOSED;
            return 0;
        }
        if (errno == EAGAIN || errno == EINTR) {
            errno = EAGAIN;
            return -1;
        }
        /* fall through */
    default:
        tlsSetError(t, err);
        errno = t->c.last_errno;
        return -1;
    }
}

static ssize_t tlsRead(connection *conn, void *buf, size_t buf_len) {
    tlsConnection *t = (tlsConnection *)conn;
    if (conn->state != CONN_STATE_CONNECTED || buf_len == 0) return conn->state == CONN_STATE_CLOSED ? 0 : -1;
    ERR_clear_error();
    errno = 0;
    int ret = SSL_read(t->ssl, buf, buf_len > INT32_MAX ? INT32_MAX : (int)buf_len);
    if (ret > 0) {
        if (SSL_has_pending(t->ssl)) pendingAdd(t);
        return ret;
    }
    return tlsIoFailed(t, ret, TLS_READ_WANTS_WRITE);
}

static ssize_t tlsWrite(connection *conn, const void *data, size_t data_len) {
    tlsConnection *t = (tlsConnection *)conn;
    if (conn->state != CONN_STATE_CONNECTED) return -1;
    if (data_len == 0) return 0;
    ERR_clear_error();
    errno = 0;
    int ret = SSL_write(t->ssl, data, data_len > INT32_MAX ? INT32_MAX : (int)data_len);
    if (ret > 0) return ret;
    ssize_t r = tlsIoFailed(t, ret, TLS_WRITE_WANTS_READ);
    if (r == 0) {
        /* The peer closed while we wrote: an error for a writer. */
        conn->state = CONN_STATE_ERROR;
        conn->last_errno = EPIPE;
        errno = EPIPE;
        return -1;
    }
    return r;
}

static ssize_t tlsWritev(connection *conn, const struct iovec *iov, int iovcnt) {
    if (iovcnt == 1 || iov[0].iov_len >= TLS_WRITEV_MAX) return tlsWrite(conn, iov[0].iov_base, iov[0].iov_len);
    char buf[TLS_WRITEV_MAX];
    size_t used = 0;
    for (int j = 0; j < iovcnt && used < sizeof(buf); j++) {
        size_t n = iov[j].iov_len;
        if (n > sizeof(buf) - used) n = sizeof(buf) - used;
        memcpy(buf + used, iov[j].iov_base, n);
        used += n;
    }
    return tlsWrite(conn, buf, used);
}

static int tlsSetReadHandler(connection *conn, ConnectionCallbackFunc func) {
    conn->read_handler = func;
    tlsUpdateEvents((tlsConnection *)conn);
    return C_OK;
}

static int tlsSetWriteHandler(connection *conn, ConnectionCallbackFunc func, int barrier) {
    conn->write_handler = func;
    if (barrier) conn->flags |= CONN_FLAG_WRITE_BARRIER;
    else conn->flags &= ~CONN_FLAG_WRITE_BARRIER;
    tlsUpdateEvents((tlsConnection *)conn);
    return C_OK;
}

/* Waits for what the last EAGAIN needed, within deadline_us. */
/* ConnectionType.wait. OpenSSL may need the other direction first: a read
 * that must write part of a handshake, or a write that must read one. */
static int tlsWait(connection *conn, int mask, long long deadline_us) {
    tlsConnection *t = (tlsConnection *)conn;
    if (t->flags & TLS_READ_WANTS_WRITE) mask = AE_WRITABLE;
    if (t->flags & TLS_WRITE_WANTS_READ) mask = AE_READABLE;
    t->flags &= ~(TLS_READ_WANTS_WRITE | TLS_WRITE_WANTS_READ);
    return connSocketWait(conn, mask, deadline_us);
}

static const char *tlsGetLastError(connection *conn) {
    tlsConnection *t = (tlsConnection *)conn;
    return t->err[0] ? t->err : connSocketGetLastError(conn);
}

static const char *tlsGetType(connection *conn) {
    (void)conn;
    return CONN_NAME_TLS;
}

static int tlsEnableTcpNoDelay(connection *conn) {
    return conn->fd != -1 && anetEnableTcpNoDelay(NULL, conn->fd) == ANET_OK ? C_OK : C_ERR;
}

static int tlsKeepAlive(connection *conn, int interval) {
    return conn->fd != -1 && anetKeepAlive(NULL, conn->fd, interval) == ANET_OK ? C_OK : C_ERR;
}

/* ConnectionType.can_serve_off_thread: not yet. A read may need a write
 * and a write a read (the WANT flags above), decrypted input waits inside
 * the SSL object where the before-sleep hook looks for it, and the
 * pending list is the event loop's: until those are handed over with the
 * connection, TLS clients are served by the main thread (io_threads.c). */
static int tlsCanServeOffThread(connection *conn) {
    (void)conn;
    return 0;
}

/* Every (re)listen builds the context from the listener's configuration:
 * tls-* options changed while TLS was off (CONFIG SET applies them only
 * while it is on) take effect with the new listener, not an old context. */
static int tlsListen(connListener *listener) {
    if (tlsConfigure(listener->priv, 0) != C_OK) {
        serverLog(LL_WARNING, "Failed to configure TLS. Check logs for more info.");
        return C_ERR;
    }
    return connSocketListen(listener);
}

/* ---------------------------------------------------------------------------
 * Registration
 * ------------------------------------------------------------------------- */

static ConnectionType CT_TLS = {
    .get_type = tlsGetType,
    .cleanup = tlsCleanup,
    .configure = tlsConfigure,
    .ae_handler = tlsEventHandler,
    .accept_handler = connSocketAcceptHandler,
    .listen = tlsListen,
    .close_listener = connSocketCloseListener,
    .conn_create = tlsConnCreate,
    .conn_create_accepted = tlsConnCreateAccepted,
    .accept = tlsAccept,
    .connect = tlsConnect,
    .blocking_connect = tlsBlockingConnect,
    .shutdown = tlsShutdown,
    .close = tlsClose,
    .read = tlsRead,
    .write = tlsWrite,
    .writev = tlsWritev,
    .set_read_handler = tlsSetReadHandler,
    .set_write_handler = tlsSetWriteHandler,
    .wait = tlsWait,
    .has_pending_data = tlsHasPendingData,
    .process_pending_data = tlsProcessPendingData,
    .addr = connSocketAddr,
    .is_local = connSocketIsLocal,
    .enable_tcp_nodelay = tlsEnableTcpNoDelay,
    .keepalive = tlsKeepAlive,
    .get_last_error = tlsGetLastError,
    .can_serve_off_thread = tlsCanServeOffThread,
};

/* Registers the TLS transport (the weak reference of connection.c). */
int RegisterConnectionTypeTLS(void) {
    return connTypeRegister(&CT_TLS);
}
