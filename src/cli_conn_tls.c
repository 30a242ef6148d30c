/* cli_conn_tls.c - the tools' TLS transport ("tls": --tls in valkey-cli
 * and valkey-benchmark), on OpenSSL.
 *
 * A TCP socket with an SSL session on top, as one cliConnType. The
 * handshake runs in connect_step() for event-driven connections (waiting
 * for whichever direction OpenSSL asks, through cliConn.connect_want) and
 * in a loop with aeWait() for blocking ones, which then switch the socket
 * to blocking I/O. OpenSSL reads ahead, so input can wait inside it where
 * no fd event announces it: pending() reports it and the glue's
 * before-sleep pass runs the read handler (CLI_CONN_TYPE_BUFFERS_INPUT).
 *
 * The SSL context is built once per process from the first connection's
 * cliTlsOptions (the tools have one set of options) under a mutex, since
 * valkey-benchmark connects from several threads. The server's certificate
 * is verified against --cacert/--cacertdir (or the system's CAs) unless
 * --insecure; --cert/--key present a client certificate.
 *
 * Leaf code: no server header. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "anet.h"
#include "cli_transport.h"
#include "zmalloc.h"

#define CLI_TLS_WRITEV_MAX (16 * 1024) /* one TLS record */

typedef struct tlsCliConn {
    cliConn c;
    SSL *ssl;
    int tcp_connected; /* the TCP connect finished; the handshake runs */
} tlsCliConn;

extern const cliConnType cliConnTypeTls;
static SSL_CTX *cliTlsCtx;
static pthread_mutex_t cliTlsCtxLock = PTHREAD_MUTEX_INITIALIZER;

/* OpenSSL's reason for the last failure, or fallback. */
static void sslReason(char *buf, size_t len, const char *fallback) {
    unsigned long e = ERR_get_error();
    if (e) ERR_error_string_n(e, buf, len);
    else snprintf(buf, len, "%s", fallback);
    ERR_clear_error();
}

/* The process's context, built from o on first use. NULL with err set. */
static SSL_CTX *cliTlsContext(const cliTlsOptions *o, char *err, size_t errlen) {
    pthread_mutex_lock(&cliTlsCtxLock);
    if (cliTlsCtx == NULL) {
        static const cliTlsOptions none = {0};
        if (o == NULL) o = &none;
        SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
        const char *what = NULL;
        if (ctx == NULL) {
            what = "cannot create a TLS context";
        } else {
            SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
            SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION);
            SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
            SSL_CTX_set_read_ahead(ctx, 1);
            SSL_CTX_set_verify(ctx, o->insecure ? SSL_VERIFY_NONE : SSL_VERIFY_PEER, NULL);
            if (o->cacert || o->cacertdir) {
                if (!SSL_CTX_load_verify_locations(ctx, o->cacert, o->cacertdir)) what = "invalid CA certificate(s)";
            } else if (!SSL_CTX_set_default_verify_paths(ctx)) {
                what = "cannot load the system's CA certificates";
            }
            if (!what && o->cert && SSL_CTX_use_certificate_chain_file(ctx, o->cert) != 1)
                what = "invalid client certificate";
            if (!what && o->key && SSL_CTX_use_PrivateKey_file(ctx, o->key, SSL_FILETYPE_PEM) != 1)
                what = "invalid private key";
            if (!what && o->ciphers && !SSL_CTX_set_cipher_list(ctx, o->ciphers)) what = "invalid --tls-ciphers";
            if (!what && o->ciphersuites && !SSL_CTX_set_ciphersuites(ctx, o->ciphersuites))
                what = "invalid --tls-ciphersuites";
        }
        if (what) {
            char reason[200];
            sslReason(reason, sizeof(reason), what);
            snprintf(err, errlen, "%s: %s", what, reason);
            SSL_CTX_free(ctx);
        } else {
            cliTlsCtx = ctx;
        }
    }
    SSL_CTX *ctx = cliTlsCtx;
    pthread_mutex_unlock(&cliTlsCtxLock);
    return ctx;
}

/* Records why the handshake or an I/O call failed on c. */
static void tlsCliFail(tlsCliConn *t, int ssl_err) {
    char reason[200];
    if (ssl_err == SSL_ERROR_SYSCALL && errno) snprintf(reason, sizeof(reason), "%s", strerror(errno));
    else sslReason(reason, sizeof(reason), "TLS error");
    long verify = t->ssl ? SSL_get_verify_result(t->ssl) : X509_V_OK;
    if (verify != X509_V_OK) snprintf(reason, sizeof(reason), "%s", X509_verify_cert_error_string(verify));
    cliConnSetError(&t->c, errno ? errno : EIO, "%s", reason);
}

/* One handshake step: CLI_OK done, CLI_AGAIN with c.connect_want set,
 * CLI_ERR failed. */
static int tlsCliHandshake(tlsCliConn *t) {
    ERR_clear_error();
    errno = 0;
    int ret = SSL_do_handshake(t->ssl);
    if (ret == 1) return CLI_OK;
    int e = SSL_get_error(t->ssl, ret);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
        t->c.connect_want = e == SSL_ERROR_WANT_READ ? AE_READABLE : AE_WRITABLE;
        return CLI_AGAIN;
    }
    tlsCliFail(t, e);
    return CLI_ERR;
}

static void tlsCliFree(tlsCliConn *t) {
    if (t->ssl) SSL_free(t->ssl);
    if (t->c.fd != -1) close(t->c.fd);
    zfree(t);
}

static int isIpAddress(const char *host) {
    unsigned char buf[sizeof(struct in6_addr)];
    return inet_pton(AF_INET, host, buf) == 1 || inet_pton(AF_INET6, host, buf) == 1;
}

static cliConn *tlsCliConnect(const cliConnAddr *addr, int blocking, long long timeout_ms, char *err, size_t errlen) {
    SSL_CTX *ctx = cliTlsContext(addr->tls, err, errlen);
    if (ctx == NULL) return NULL;
    const char *host = addr->host ? addr->host : "127.0.0.1";
    char aerr[ANET_ERR_LEN];
    int fd = anetTcpNonBlockConnect(aerr, host, addr->port);
    if (fd == ANET_ERR) {
        const char *sep = strstr(aerr, ": ");
        snprintf(err, errlen, "%s", sep ? sep + 2 : aerr);
        return NULL;
    }
    anetEnableTcpNoDelay(NULL, fd);

    tlsCliConn *t = zcalloc(sizeof(*t));
    t->c.type = &cliConnTypeTls;
    t->c.fd = fd;
    t->c.state = CLI_CONN_CONNECTING;
    if ((t->ssl = SSL_new(ctx)) == NULL || !SSL_set_fd(t->ssl, fd)) {
        sslReason(err, errlen, "cannot create the TLS session");
        tlsCliFree(t);
        return NULL;
    }
    SSL_set_connect_state(t->ssl);
    const char *sni = addr->tls && addr->tls->sni ? addr->tls->sni : (isIpAddress(host) ? NULL : host);
    if (sni) SSL_set_tlsext_host_name(t->ssl, sni);
    if (!blocking) return &t->c;

    /* Blocking: the TCP connect, then the handshake, within timeout_ms. */
    long long deadline = timeout_ms > 0 ? aeMonotonicUs() + timeout_ms * 1000 : -1;
    int want = AE_WRITABLE;
    for (int step = CLI_AGAIN; step == CLI_AGAIN;) {
        long long left = deadline == -1 ? -1 : (deadline - aeMonotonicUs() + 999) / 1000;
        if ((deadline != -1 && left <= 0) || aeWait(fd, want, left) <= 0) {
            snprintf(err, errlen, "%s", strerror(ETIMEDOUT));
            tlsCliFree(t);
            return NULL;
        }
        if (!t->tcp_connected) {
            int sockerr = anetGetError(fd);
            if (sockerr) {
                snprintf(err, errlen, "%s", strerror(sockerr));
                tlsCliFree(t);
                return NULL;
            }
            t->tcp_connected = 1;
        }
        step = tlsCliHandshake(t);
        if (step == CLI_ERR) {
            snprintf(err, errlen, "%s", t->c.err);
            tlsCliFree(t);
            return NULL;
        }
        want = t->c.connect_want;
    }
    anetBlock(NULL, fd);
    t->c.state = CLI_CONN_CONNECTED;
    t->c.connect_want = 0;
    return &t->c;
}

/* Event-driven connects: first the TCP connect's outcome, then handshake
 * steps until done. */
static int tlsCliConnectStep(cliConn *c) {
    tlsCliConn *t = (tlsCliConn *)c;
    if (!t->tcp_connected) {
        int sockerr = anetGetError(c->fd);
        if (sockerr == EINPROGRESS) return CLI_AGAIN;
        if (sockerr) {
            cliConnSetError(c, sockerr, "%s", strerror(sockerr));
            return CLI_ERR;
        }
        t->tcp_connected = 1;
    }
    int step = tlsCliHandshake(t);
    if (step != CLI_AGAIN) c->connect_want = 0;
    return step;
}

/* Maps a failed SSL_read/SSL_write onto the read(2)/write(2) contract. */
static ssize_t tlsCliIoFailed(tlsCliConn *t, int ret, int is_read) {
    int e = SSL_get_error(t->ssl, ret);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
        errno = EAGAIN;
        return -1;
    }
    if (e == SSL_ERROR_ZERO_RETURN || (e == SSL_ERROR_SYSCALL && errno == 0)) {
        if (is_read) {
            t->c.state = CLI_CONN_CLOSED;
            return 0;
        }
        cliConnSetError(&t->c, EPIPE, "%s", strerror(EPIPE));
        return -1;
    }
    tlsCliFail(t, e);
    return -1;
}

static ssize_t tlsCliRead(cliConn *c, void *buf, size_t len) {
    tlsCliConn *t = (tlsCliConn *)c;
    ERR_clear_error();
    errno = 0;
    int ret = SSL_read(t->ssl, buf, len > INT32_MAX ? INT32_MAX : (int)len);
    return ret > 0 ? ret : tlsCliIoFailed(t, ret, 1);
}

static ssize_t tlsCliWrite(cliConn *c, const void *buf, size_t len) {
    tlsCliConn *t = (tlsCliConn *)c;
    if (len == 0) return 0;
    ERR_clear_error();
    errno = 0;
    int ret = SSL_write(t->ssl, buf, len > INT32_MAX ? INT32_MAX : (int)len);
    return ret > 0 ? ret : tlsCliIoFailed(t, ret, 0);
}

/* No writev in TLS: the buffers are gathered into one record. A retried
 * write starts with the same bytes, as OpenSSL requires. */
static ssize_t tlsCliWritev(cliConn *c, const struct iovec *iov, int iovcnt) {
    if (iovcnt == 1 || iov[0].iov_len >= CLI_TLS_WRITEV_MAX) return tlsCliWrite(c, iov[0].iov_base, iov[0].iov_len);
    char buf[CLI_TLS_WRITEV_MAX];
    size_t used = 0;
    for (int j = 0; j < iovcnt && used < sizeof(buf); j++) {
        size_t n = iov[j].iov_len < sizeof(buf) - used ? iov[j].iov_len : sizeof(buf) - used;
        memcpy(buf + used, iov[j].iov_base, n);
        used += n;
    }
    return tlsCliWrite(c, buf, used);
}

/* Input already inside OpenSSL (read ahead, or decrypted and not taken). */
static int tlsCliPending(cliConn *c) {
    tlsCliConn *t = (tlsCliConn *)c;
    return c->state == CLI_CONN_CONNECTED && SSL_has_pending(t->ssl) ? CLI_PENDING_READ : 0;
}

/* close_notify when the session is up (best effort), then the socket. */
static void tlsCliClose(cliConn *c) {
    tlsCliConn *t = (tlsCliConn *)c;
    if (t->ssl && c->state == CLI_CONN_CONNECTED) {
        SSL_shutdown(t->ssl);
        ERR_clear_error();
    }
    tlsCliFree(t);
}

const cliConnType cliConnTypeTls = {
    .name = CLI_CONN_TLS,
    .flags = CLI_CONN_TYPE_BUFFERS_INPUT,
    .fds_per_conn = 1,
    .connect = tlsCliConnect,
    .connect_step = tlsCliConnectStep,
    .read = tlsCliRead,
    .write = tlsCliWrite,
    .writev = tlsCliWritev,
    .close = tlsCliClose,
    .pending = tlsCliPending,
};
