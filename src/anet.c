/* anet.c - socket helpers: listeners, accept, non-blocking connect, options.
 *
 * Called by the socket transports (conn_socket.c for TCP, conn_unix.c for
 * Unix domain sockets) and by client tools. Nothing here knows about the
 * event loop or connections; each function does one system-level job and
 * reports failure the same way: ANET_ERR, errno from the failing call, and
 * "<call>: <strerror>" in the caller's err buffer (which may be NULL).
 *
 * Listening sockets get SO_REUSEADDR (restart without TIME_WAIT trouble)
 * and, for IPv6, IPV6_V6ONLY so that "*" and "::*" can be bound side by
 * side. Every socket is created close-on-exec; blocking mode is left to
 * the caller except for the *NonBlock* connect functions. */
#include "anet.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

/* Formats an error into err (if not NULL). errno is preserved. */
__attribute__((format(printf, 2, 3))) static void anetSetError(char *err, const char *fmt, ...) {
    if (!err) return;
    int saved = errno;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, ANET_ERR_LEN, fmt, ap);
    va_end(ap);
    errno = saved;
}

/* Closes fd without disturbing errno, for error paths. */
static void closeKeepErrno(int fd) {
    int saved = errno;
    close(fd);
    errno = saved;
}

/* Maps a getaddrinfo() failure onto errno so callers can branch on it the
 * same way as on a socket call failure (e.g. "optional" bind addresses). */
static void gaiSetErrno(int rv) {
    if (rv == EAI_SYSTEM) return;
#ifdef EAI_ADDRFAMILY
    if (rv == EAI_ADDRFAMILY) {
        errno = EAFNOSUPPORT;
        return;
    }
#endif
    if (rv == EAI_FAMILY) {
        errno = EAFNOSUPPORT;
        return;
    }
    if (rv == EAI_NONAME) {
        errno = EADDRNOTAVAIL;
        return;
    }
    errno = EINVAL;
}

/* ---------------------------------------------------------------------------
 * Descriptor options
 * ------------------------------------------------------------------------- */

static int anetSetBlock(char *err, int fd, int non_block) {
    int flags = fcntl(fd, F_GETFL);
    if (flags == -1) {
        anetSetError(err, "fcntl(F_GETFL): %s", strerror(errno));
        return ANET_ERR;
    }
    int wanted = non_block ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK);
    if (wanted != flags && fcntl(fd, F_SETFL, wanted) == -1) {
        anetSetError(err, "fcntl(F_SETFL,O_NONBLOCK): %s", strerror(errno));
        return ANET_ERR;
    }
    return ANET_OK;
}

/* Puts fd in non-blocking mode. Returns ANET_OK or ANET_ERR. */
int anetNonBlock(char *err, int fd) {
    return anetSetBlock(err, fd, 1);
}

/* Puts fd in blocking mode. Returns ANET_OK or ANET_ERR. */
int anetBlock(char *err, int fd) {
    return anetSetBlock(err, fd, 0);
}

/* Sets FD_CLOEXEC so forked children that exec do not inherit fd.
 * Returns ANET_OK or ANET_ERR (errno set). */
int anetCloexec(int fd) {
    int flags = fcntl(fd, F_GETFD);
    if (flags == -1) return ANET_ERR;
    if (flags & FD_CLOEXEC) return ANET_OK;
    return fcntl(fd, F_SETFD, flags | FD_CLOEXEC) == -1 ? ANET_ERR : ANET_OK;
}

static int anetSetTcpNoDelay(char *err, int fd, int val) {
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &val, sizeof(val)) == -1) {
        anetSetError(err, "setsockopt TCP_NODELAY: %s", strerror(errno));
        return ANET_ERR;
    }
    return ANET_OK;
}

/* Disables Nagle's algorithm on a TCP socket. Returns ANET_OK/ANET_ERR. */
int anetEnableTcpNoDelay(char *err, int fd) {
    return anetSetTcpNoDelay(err, fd, 1);
}

/* Re-enables Nagle's algorithm. Returns ANET_OK/ANET_ERR. */
int anetDisableTcpNoDelay(char *err, int fd) {
    return anetSetTcpNoDelay(err, fd, 0);
}

/* Turns on TCP keepalive so a dead peer is noticed after roughly
 * 'interval' seconds of silence plus about as long again of probes (first
 * probe after interval s, then every interval/3 s, 3 probes). Returns
 * ANET_OK/ANET_ERR. */
int anetKeepAlive(char *err, int fd, int interval) {
    int yes = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &yes, sizeof(yes)) == -1) {
        anetSetError(err, "setsockopt SO_KEEPALIVE: %s", strerror(errno));
        return ANET_ERR;
    }
    if (interval <= 0) return ANET_OK;
    int idle = interval;
    int intvl = interval / 3 > 0 ? interval / 3 : 1;
    int cnt = 3;
    if (setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle)) == -1) {
        anetSetError(err, "setsockopt TCP_KEEPIDLE: %s", strerror(errno));
        return ANET_ERR;
    }
    if (setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl)) == -1) {
        anetSetError(err, "setsockopt TCP_KEEPINTVL: %s", strerror(errno));
        return ANET_ERR;
    }
    if (setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt)) == -1) {
        anetSetError(err, "setsockopt TCP_KEEPCNT: %s", strerror(errno));
        return ANET_ERR;
    }
    return ANET_OK;
}

static int anetSetTimeout(char *err, int fd, int opt, const char *name, long long ms) {
    struct timeval tv = {.tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000};
    if (setsockopt(fd, SOL_SOCKET, opt, &tv, sizeof(tv)) == -1) {
        anetSetError(err, "setsockopt %s: %s", name, strerror(errno));
        return ANET_ERR;
    }
    return ANET_OK;
}

/* Bounds every blocking send on fd to ms milliseconds (0 = no bound). */
int anetSendTimeout(char *err, int fd, long long ms) {
    return anetSetTimeout(err, fd, SO_SNDTIMEO, "SO_SNDTIMEO", ms);
}

/* Bounds every blocking receive on fd to ms milliseconds (0 = no bound). */
int anetRecvTimeout(char *err, int fd, long long ms) {
    return anetSetTimeout(err, fd, SO_RCVTIMEO, "SO_RCVTIMEO", ms);
}

/* Returns the pending error of a socket (SO_ERROR, clearing it): 0 when a
 * non-blocking connect succeeded, its errno value when it failed. */
int anetGetError(int fd) {
    int sockerr = 0;
    socklen_t len = sizeof(sockerr);
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &sockerr, &len) == -1) sockerr = errno;
    return sockerr;
}

/* ---------------------------------------------------------------------------
 * Resolving and outgoing connections
 * ------------------------------------------------------------------------- */

/* Resolves host to a numeric address string in ipbuf. With ANET_IP_ONLY,
 * host must already be numeric. Returns ANET_OK/ANET_ERR. */
int anetResolve(char *err, const char *host, char *ipbuf, size_t ipbuf_len, int flags) {
    struct addrinfo hints = {0}, *info;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    if (flags & ANET_IP_ONLY) hints.ai_flags = AI_NUMERICHOST;
    int rv = getaddrinfo(host, NULL, &hints, &info);
    if (rv != 0) {
        gaiSetErrno(rv);
        anetSetError(err, "getaddrinfo: %s", gai_strerror(rv));
        return ANET_ERR;
    }
    if (info->ai_family == AF_INET) {
        struct sockaddr_in *sa = (struct sockaddr_in *)info->ai_addr;
        inet_ntop(AF_INET, &sa->sin_addr, ipbuf, ipbuf_len);
    } else {
        struct sockaddr_in6 *sa = (struct sockaddr_in6 *)info->ai_addr;
        inet_ntop(AF_INET6, &sa->sin6_addr, ipbuf, ipbuf_len);
    }
    freeaddrinfo(info);
    return ANET_OK;
}

/* Binds s to source_addr (any port) in the given family. */
static int anetBindSource(char *err, int s, int family, const char *source_addr) {
    struct addrinfo hints = {0}, *info, *p;
    hints.ai_family = family;
    hints.ai_socktype = SOCK_STREAM;
    int rv = getaddrinfo(source_addr, NULL, &hints, &info);
    if (rv != 0) {
        gaiSetErrno(rv);
        anetSetError(err, "getaddrinfo: %s", gai_strerror(rv));
        return ANET_ERR;
    }
    for (p = info; p; p = p->ai_next) {
        if (bind(s, p->ai_addr, p->ai_addrlen) == 0) break;
    }
    if (p == NULL) anetSetError(err, "bind: %s", strerror(errno));
    freeaddrinfo(info);
    return p ? ANET_OK : ANET_ERR;
}

/* Starts a non-blocking TCP connect to addr:port, optionally from
 * source_addr (NULL = any). Returns the socket (connect in progress or
 * done; wait for writability and check anetGetError()), or ANET_ERR. The
 * caller owns the fd. Name resolution itself may block. */
int anetTcpNonBlockBindConnect(char *err, const char *addr, int port, const char *source_addr) {
    char portstr[16];
    struct addrinfo hints = {0}, *servinfo, *p;
    snprintf(portstr, sizeof(portstr), "%d", port);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int rv = getaddrinfo(addr, portstr, &hints, &servinfo);
    if (rv != 0) {
        gaiSetErrno(rv);
        anetSetError(err, "getaddrinfo: %s", gai_strerror(rv));
        return ANET_ERR;
    }
    int s = ANET_ERR;
    for (p = servinfo; p; p = p->ai_next) {
        s = socket(p->ai_family, p->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, p->ai_protocol);
        if (s == -1) {
            anetSetError(err, "socket: %s", strerror(errno));
            continue;
        }
        if (source_addr && anetBindSource(err, s, p->ai_family, source_addr) == ANET_ERR) {
            closeKeepErrno(s);
            s = ANET_ERR;
            break; /* The source address is wrong for every candidate. */
        }
        if (connect(s, p->ai_addr, p->ai_addrlen) == 0 || errno == EINPROGRESS) break;
        anetSetError(err, "connect: %s", strerror(errno));
        closeKeepErrno(s);
        s = ANET_ERR;
    }
    freeaddrinfo(servinfo);
    return s;
}

/* As anetTcpNonBlockBindConnect() with no source address. */
int anetTcpNonBlockConnect(char *err, const char *addr, int port) {
    return anetTcpNonBlockBindConnect(err, addr, port, NULL);
}

/* Fills a sockaddr_un for path; fails with ENAMETOOLONG if it won't fit. */
static int anetUnixAddr(char *err, struct sockaddr_un *sa, const char *path) {
    memset(sa, 0, sizeof(*sa));
    sa->sun_family = AF_LOCAL;
    if (strlen(path) >= sizeof(sa->sun_path)) {
        errno = ENAMETOOLONG;
        anetSetError(err, "unix socket path too long (%zu), must be under %zu", strlen(path), sizeof(sa->sun_path));
        return ANET_ERR;
    }
    memcpy(sa->sun_path, path, strlen(path) + 1);
    return ANET_OK;
}

/* Starts a non-blocking connect to the Unix socket at path. Returns the fd
 * (owned by the caller) or ANET_ERR. A full backlog yields EAGAIN. */
int anetUnixNonBlockConnect(char *err, const char *path) {
    struct sockaddr_un sa;
    if (anetUnixAddr(err, &sa, path) == ANET_ERR) return ANET_ERR;
    int s = socket(AF_LOCAL, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (s == -1) {
        anetSetError(err, "socket: %s", strerror(errno));
        return ANET_ERR;
    }
    if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) == -1 && errno != EINPROGRESS) {
        anetSetError(err, "connect: %s", strerror(errno));
        closeKeepErrno(s);
        return ANET_ERR;
    }
    return s;
}

/* ---------------------------------------------------------------------------
 * Listeners and accept
 * ------------------------------------------------------------------------- */

static int anetListen(char *err, int s, struct sockaddr *sa, socklen_t len, int backlog) {
    if (bind(s, sa, len) == -1) {
        anetSetError(err, "bind: %s", strerror(errno));
        return ANET_ERR;
    }
    if (listen(s, backlog > 0 ? backlog : ANET_DEFAULT_BACKLOG) == -1) {
        anetSetError(err, "listen: %s", strerror(errno));
        return ANET_ERR;
    }
    return ANET_OK;
}

static int anetTcpGenericServer(char *err, int port, const char *bindaddr, int af, int backlog) {
    char portstr[8];
    struct addrinfo hints = {0}, *servinfo, *p;
    snprintf(portstr, sizeof(portstr), "%d", port);
    hints.ai_family = af;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    int rv = getaddrinfo(bindaddr, portstr, &hints, &servinfo);
    if (rv != 0) {
        gaiSetErrno(rv);
        anetSetError(err, "getaddrinfo: %s", gai_strerror(rv));
        return ANET_ERR;
    }
    int s = ANET_ERR;
    for (p = servinfo; p; p = p->ai_next) {
        s = socket(p->ai_family, p->ai_socktype | SOCK_CLOEXEC, p->ai_protocol);
        if (s == -1) {
            anetSetError(err, "socket: %s", strerror(errno));
            continue;
        }
        int yes = 1;
        if (af == AF_INET6 && setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &yes, sizeof(yes)) == -1) {
            anetSetError(err, "setsockopt IPV6_V6ONLY: %s", strerror(errno));
        } else if (setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes)) == -1) {
            anetSetError(err, "setsockopt SO_REUSEADDR: %s", strerror(errno));
        } else if (anetListen(err, s, p->ai_addr, p->ai_addrlen, backlog) == ANET_OK) {
            break;
        }
        closeKeepErrno(s);
        s = ANET_ERR;
        break; /* Report the first real failure rather than trying aliases. */
    }
    freeaddrinfo(servinfo);
    return s;
}

/* Strips the "any address" spellings the configuration uses. */
static const char *anetAnyToNull(const char *bindaddr) {
    if (bindaddr == NULL) return NULL;
    if (!strcmp(bindaddr, "*") || !strcmp(bindaddr, "::*")) return NULL;
    return bindaddr;
}

/* Opens an IPv4 listening socket on bindaddr:port (NULL or "*" = all
 * addresses; port 0 = ephemeral). Blocking; close-on-exec. Returns the fd
 * (owned by the caller) or ANET_ERR with errno from the failing call. */
int anetTcpServer(char *err, int port, const char *bindaddr, int backlog) {
    return anetTcpGenericServer(err, port, anetAnyToNull(bindaddr), AF_INET, backlog);
}

/* As anetTcpServer() for IPv6 (NULL, "*" or "::*" = all addresses), with
 * IPV6_V6ONLY set. */
int anetTcp6Server(char *err, int port, const char *bindaddr, int backlog) {
    return anetTcpGenericServer(err, port, anetAnyToNull(bindaddr), AF_INET6, backlog);
}

/* Opens a Unix listening socket at path and, if perm is not 0, chmods it.
 * The path must not exist (the caller unlinks stale sockets). Returns the
 * fd (owned by the caller) or ANET_ERR. */
int anetUnixServer(char *err, const char *path, mode_t perm, int backlog) {
    struct sockaddr_un sa;
    if (anetUnixAddr(err, &sa, path) == ANET_ERR) return ANET_ERR;
    int s = socket(AF_LOCAL, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s == -1) {
        anetSetError(err, "socket: %s", strerror(errno));
        return ANET_ERR;
    }
    if (anetListen(err, s, (struct sockaddr *)&sa, sizeof(sa), backlog) == ANET_ERR) {
        closeKeepErrno(s);
        return ANET_ERR;
    }
    if (perm && chmod(path, perm) == -1) {
        anetSetError(err, "chmod: %s", strerror(errno));
        closeKeepErrno(s);
        return ANET_ERR;
    }
    return s;
}

/* accept4() of a non-blocking, close-on-exec fd (no fcntl calls after),
 * retried on EINTR. */
static int anetGenericAccept(char *err, int s, struct sockaddr *sa, socklen_t *len) {
    int fd;
    do {
        fd = accept4(s, sa, len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    } while (fd == -1 && errno == EINTR);
    if (fd == -1) {
        anetSetError(err, "accept: %s", strerror(errno));
        return ANET_ERR;
    }
    return fd;
}

/* Accepts one TCP connection from serversock; fills ip (may be NULL) and
 * port (may be NULL) with the peer's address. Returns the new fd (owned by
 * the caller, non-blocking, close-on-exec) or ANET_ERR; errno EAGAIN means no
 * connection is pending on a non-blocking listener. */
int anetTcpAccept(char *err, int serversock, char *ip, size_t ip_len, int *port) {
    struct sockaddr_storage sa;
    socklen_t salen = sizeof(sa);
    int fd = anetGenericAccept(err, serversock, (struct sockaddr *)&sa, &salen);
    if (fd == ANET_ERR) return ANET_ERR;
    if (sa.ss_family == AF_INET) {
        struct sockaddr_in *s = (struct sockaddr_in *)&sa;
        if (ip) inet_ntop(AF_INET, &s->sin_addr, ip, ip_len);
        if (port) *port = ntohs(s->sin_port);
    } else {
        struct sockaddr_in6 *s = (struct sockaddr_in6 *)&sa;
        if (ip) inet_ntop(AF_INET6, &s->sin6_addr, ip, ip_len);
        if (port) *port = ntohs(s->sin6_port);
    }
    return fd;
}

/* Accepts one Unix-socket connection. Returns the fd (owned by the
 * caller) or ANET_ERR as anetTcpAccept(). */
int anetUnixAccept(char *err, int serversock) {
    struct sockaddr_un sa;
    socklen_t salen = sizeof(sa);
    return anetGenericAccept(err, serversock, (struct sockaddr *)&sa, &salen);
}

/* ---------------------------------------------------------------------------
 * Addresses
 * ------------------------------------------------------------------------- */

/* Writes the peer (remote=1) or local (remote=0) address of fd into ip and
 * port (either may be NULL). For Unix sockets ip is the socket path when
 * that side has one, else "/unixsocket", and port is 0. Returns 0, or -1
 * (ip becomes "?" and port 0) if fd is -1 or not a socket. */
int anetFdToString(int fd, char *ip, size_t ip_len, int *port, int remote) {
    struct sockaddr_storage sa;
    socklen_t salen = sizeof(sa);
    if (fd == -1) goto error;
    int rv = remote ? getpeername(fd, (struct sockaddr *)&sa, &salen) : getsockname(fd, (struct sockaddr *)&sa, &salen);
    if (rv == -1) goto error;

    if (sa.ss_family == AF_INET) {
        struct sockaddr_in *s = (struct sockaddr_in *)&sa;
        if (ip && inet_ntop(AF_INET, &s->sin_addr, ip, ip_len) == NULL) goto error;
        if (port) *port = ntohs(s->sin_port);
    } else if (sa.ss_family == AF_INET6) {
        struct sockaddr_in6 *s = (struct sockaddr_in6 *)&sa;
        if (ip && inet_ntop(AF_INET6, &s->sin6_addr, ip, ip_len) == NULL) goto error;
        if (port) *port = ntohs(s->sin6_port);
    } else if (sa.ss_family == AF_UNIX) {
        struct sockaddr_un *s = (struct sockaddr_un *)&sa;
        int named = salen > offsetof(struct sockaddr_un, sun_path) && s->sun_path[0] != '\0';
        if (ip) {
            size_t n = named ? strnlen(s->sun_path, salen - offsetof(struct sockaddr_un, sun_path)) : 0;
            int written = named ? snprintf(ip, ip_len, "%.*s", (int)n, s->sun_path) : snprintf(ip, ip_len, "/unixsocket");
            if (written < 0 || (size_t)written >= ip_len) goto error;
        }
        if (port) *port = 0;
    } else {
        goto error;
    }
    return 0;

error:
    if (ip && ip_len > 0) snprintf(ip, ip_len, "?");
    if (port) *port = 0;
    return -1;
}

/* Formats ip and port as "ip:port", or "[ip]:port" for IPv6 addresses.
 * Returns what snprintf() returns. */
int anetFormatAddr(char *buf, size_t buf_len, const char *ip, int port) {
    return snprintf(buf, buf_len, strchr(ip, ':') ? "[%s]:%d" : "%s:%d", ip, port);
}

/* Returns 1 if filepath names a FIFO, 0 otherwise (or if it can't stat). */
int anetIsFifo(const char *filepath) {
    struct stat sb;
    if (stat(filepath, &sb) == -1) return 0;
    return S_ISFIFO(sb.st_mode);
}
