/* libvkshm.c - the client side of the shared-memory transport: connect and
 * upgrade over the Unix socket, byte I/O on the rings with spin-then-sleep
 * waiting, and blocking RESP commands and replies (libvkshm.h is the
 * interface; shm_ring.h the protocol; conn_shm.c the server's side).
 *
 * The upgrade (vkshmConnect): connect to the socket, send the preface,
 * read the answer. A RESP error line means refused: with the fallback
 * option the socket stays a plain connection, otherwise the connect fails
 * with the server's message. The hello must come with exactly three fds
 * (SCM_RIGHTS): the memfd, the server's doorbell, ours. The memfd's real
 * size must equal what the hello says before it is mapped; then it is
 * closed (the mapping stays).
 *
 * A connection's pollable fd (vkshmPollFd) is an epoll fd watching our
 * doorbell and the socket, so an event loop watches one fd per connection
 * and never misses the server's death. The doorbell is edge-triggered in
 * it, so a wake-up costs no read of the eventfd; vkshmProcess() (or a
 * blocking wait) takes the events and reads the socket's state only when
 * it fired: EOF means the server closed (bytes already in the reply ring
 * are still read first), a byte means it broke the protocol.
 *
 * Replies are parsed in two passes over the input buffer: the first checks
 * that a whole, well-formed reply is there without allocating (so a
 * claimed length cannot make us allocate before the bytes exist), the
 * second builds it. Nesting is limited to VKSHM_MAX_DEPTH.
 *
 * Plain libc (malloc, no zmalloc), so applications link it alone; the
 * tools link it too (cli_conn_shm.c), and the Tcl channel
 * (tests/shm/tclshm.c). A connection is used by one thread at a time. */
#include "libvkshm.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "shm_ring.h"

#define VKSHM_DEFAULT_TIMEOUT_MS 10000
#define VKSHM_MAX_DEPTH 64        /* Nesting of aggregate replies. */
#define VKSHM_REFUSAL_MAX 512     /* Longest refusal line we read. */
#define VKSHM_READ_CHUNK (16 * 1024)

struct vkshmConn {
    int sock;              /* The Unix socket: EOF = the server closed. */
    int shared;            /* 1: rings; 0: a plain socket (fallback). */
    void *region;          /* The mapping; NULL when plain. */
    size_t region_size;
    uint32_t ring_size;
    shmRing req, rep;      /* Our ends: we produce requests, consume replies. */
    int bell_fd;           /* Our doorbell: the server writes it. */
    int server_bell_fd;    /* The server's doorbell: we write it. */
    int epfd;              /* Polls bell_fd and sock. */
    int spin_us;
    int eof;               /* The socket said EOF. */
    int failed;            /* A protocol violation or I/O error: err says which. */
    char err[256];
    char *in;              /* Bytes read, not yet parsed into replies. */
    size_t in_len, in_cap, in_pos;
};

/* ---------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------- */

static long long nowUs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static void setErr(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void setErr(char *err, size_t errlen, const char *fmt, ...) {
    if (!err || !errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* Marks c failed (every later call fails too). Returns -1 with errno. */
static int connFail(vkshmConn *c, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int connFail(vkshmConn *c, int err, const char *fmt, ...) {
    if (!c->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->err, sizeof(c->err), fmt, ap);
        va_end(ap);
        c->failed = err ? err : EIO;
    }
    errno = c->failed;
    return -1;
}

/* Waits for fd to be ready for events (POLLIN/POLLOUT) until deadline_us
 * (-1 = none). Returns 1 ready, 0 timed out, -1 error. */
static int pollUntil(int fd, short events, long long deadline_us) {
    for (;;) {
        int ms = -1;
        if (deadline_us != -1) {
            long long left = deadline_us - nowUs();
            if (left <= 0) return 0;
            ms = (int)((left + 999) / 1000);
        }
        struct pollfd p = {.fd = fd, .events = events};
        int n = poll(&p, 1, ms);
        if (n > 0) return 1;
        if (n == 0) return 0;
        if (errno != EINTR) return -1;
    }
}

/* Rings the server's doorbell once. */
static void ringServer(vkshmConn *c) {
    uint64_t one = 1;
    ssize_t n;
    do {
        n = write(c->server_bell_fd, &one, sizeof(one));
    } while (n == -1 && errno == EINTR);
}

/* ---------------------------------------------------------------------------
 * Connect and upgrade
 * ------------------------------------------------------------------------- */

/* Receives the first bytes of the answer (up to SHM_HELLO_LEN) and any fds
 * sent with them. Returns bytes received (0 = EOF) or -1. */
static ssize_t recvAnswer(int sock, unsigned char *buf, int fds[SHM_HELLO_NFDS], int *nfds, int *truncated,
                          long long deadline) {
    union {
        char space[CMSG_SPACE(sizeof(int) * SHM_HELLO_NFDS)];
        struct cmsghdr align;
    } ctl;
    struct iovec iov = {.iov_base = buf, .iov_len = SHM_HELLO_LEN};
    struct msghdr msg = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.space, .msg_controllen = sizeof(ctl.space)};
    *nfds = 0;
    *truncated = 0;
    int ready = pollUntil(sock, POLLIN, deadline);
    if (ready <= 0) {
        if (ready == 0) errno = ETIMEDOUT;
        return -1;
    }
    ssize_t n;
    do {
        n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
    } while (n == -1 && errno == EINTR);
    if (n < 0) return -1;
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
        if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS) continue;
        int k = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        for (int j = 0; j < k; j++) {
            int fd;
            memcpy(&fd, CMSG_DATA(cm) + j * sizeof(int), sizeof(int));
            if (*nfds < SHM_HELLO_NFDS) fds[(*nfds)++] = fd;
            else close(fd);
        }
    }
    if (msg.msg_flags & MSG_CTRUNC) *truncated = 1;
    return n;
}

/* Reads exactly len more bytes into buf (blocking until deadline).
 * Returns 0, or -1 (EOF: errno ECONNRESET). */
static int recvExact(int sock, unsigned char *buf, size_t len, long long deadline) {
    while (len > 0) {
        int ready = pollUntil(sock, POLLIN, deadline);
        if (ready <= 0) {
            if (ready == 0) errno = ETIMEDOUT;
            return -1;
        }
        ssize_t n = recv(sock, buf, len, MSG_DONTWAIT);
        if (n == 0) {
            errno = ECONNRESET;
            return -1;
        }
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            return -1;
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* The server refused: reads the rest of its error line (after the got
 * bytes already in buf) into line, without "-" and CRLF. 0, or -1. */
static int readRefusal(int sock, const unsigned char *buf, size_t got, char *line, size_t linelen,
                       long long deadline) {
    char text[VKSHM_REFUSAL_MAX];
    size_t len = got < sizeof(text) ? got : sizeof(text);
    memcpy(text, buf, len);
    while (len < 2 || text[len - 2] != '\r' || text[len - 1] != '\n') {
        if (len == sizeof(text)) break;
        unsigned char ch;
        if (recvExact(sock, &ch, 1, deadline) != 0) return -1;
        text[len++] = (char)ch;
    }
    size_t n = len >= 2 && text[len - 1] == '\n' ? len - 2 : len;
    snprintf(line, linelen, "%.*s", (int)(n > 0 ? n - 1 : 0), text + 1);
    return 0;
}

static void closeFds(int *fds, int n) {
    for (int j = 0; j < n; j++) close(fds[j]);
}

/* Maps the region of a checked hello and sets up c's rings and doorbells
 * from the three fds (taken over: closed on failure, the memfd always).
 * Returns 0, or -1 with err. */
static int attachRegion(vkshmConn *c, const shmHello *h, int fds[SHM_HELLO_NFDS], char *err, size_t errlen) {
    struct stat st;
    if (fstat(fds[0], &st) == -1 || (uint64_t)st.st_size != h->region_size) {
        setErr(err, errlen, "the server's shared memory is not the size it announced");
        closeFds(fds, SHM_HELLO_NFDS);
        return -1;
    }
    void *region = mmap(NULL, (size_t)h->region_size, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
    close(fds[0]);
    if (region == MAP_FAILED) {
        setErr(err, errlen, "mmap of the shared memory failed: %s", strerror(errno));
        closeFds(fds + 1, SHM_HELLO_NFDS - 1);
        return -1;
    }
    c->region = region;
    c->region_size = (size_t)h->region_size;
    c->ring_size = h->ring_size;
    shmRegionRings(region, h->ring_size, &c->req, &c->rep, 0);
    c->server_bell_fd = fds[1];
    c->bell_fd = fds[2];
    fcntl(c->bell_fd, F_SETFL, fcntl(c->bell_fd, F_GETFL) | O_NONBLOCK);
    c->shared = 1;
    return 0;
}

/* Builds the epoll fd watching our doorbell and the socket. The doorbell
 * is edge-triggered: every ring is one event, and the eventfd's counter
 * never needs reading (it cannot overflow: one ring per sleep). 0 or -1. */
static int createPollFd(vkshmConn *c) {
    c->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (c->epfd == -1) return -1;
    struct epoll_event ev = {.events = EPOLLIN | EPOLLET};
    ev.data.fd = c->bell_fd;
    if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, c->bell_fd, &ev) == -1) return -1;
    ev.events = EPOLLIN;
    ev.data.fd = c->sock;
    if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, c->sock, &ev) == -1) return -1;
    return 0;
}

/* Asks for the upgrade on the connected socket and handles the answer.
 * Returns 0 (c->shared says whether it was granted, 0 only with
 * fallback), or -1 with err. */
static int upgrade(vkshmConn *c, const vkshmOptions *o, long long deadline, char *err, size_t errlen) {
    char preface[SHM_PREFACE_MAX];
    int plen = shmPrefaceFormat(preface, sizeof(preface), SHM_PROTO_VERSION);
    /* A server that refuses every new client (maxclients, protected mode)
     * may have said why and closed before our request gets there: read
     * its answer even if the send failed. */
    int send_err = send(c->sock, preface, (size_t)plen, MSG_NOSIGNAL) == plen ? 0 : errno;
    unsigned char buf[SHM_HELLO_LEN];
    int fds[SHM_HELLO_NFDS], nfds, truncated;
    ssize_t n = recvAnswer(c->sock, buf, fds, &nfds, &truncated, deadline);
    if (n <= 0) {
        if (send_err)
            setErr(err, errlen, "cannot send the upgrade request: %s", strerror(send_err));
        else
            setErr(err, errlen, "no answer to the upgrade request: %s", n == 0 ? "connection closed" : strerror(errno));
        closeFds(fds, nfds);
        return -1;
    }
    if (buf[0] == '-') {
        char line[VKSHM_REFUSAL_MAX];
        closeFds(fds, nfds);
        if (readRefusal(c->sock, buf, (size_t)n, line, sizeof(line), deadline) != 0) {
            setErr(err, errlen, "the upgrade was refused (the answer was cut: %s)", strerror(errno));
            return -1;
        }
        if (o->fallback) {
            snprintf(c->err, sizeof(c->err), "the server refused shared memory: %.200s", line);
            return 0;
        }
        setErr(err, errlen, "the server refused shared memory: %s", line);
        return -1;
    }
    if (buf[0] != SHM_UPGRADE_BYTE) {
        closeFds(fds, nfds);
        setErr(err, errlen, "unexpected answer to the upgrade request");
        return -1;
    }
    if ((size_t)n < sizeof(buf) && recvExact(c->sock, buf + n, sizeof(buf) - (size_t)n, deadline) != 0) {
        closeFds(fds, nfds);
        setErr(err, errlen, "the server's hello was cut short: %s", strerror(errno));
        return -1;
    }
    shmHello h;
    if (shmHelloDecode(buf, sizeof(buf), &h) != 0 || h.version > SHM_PROTO_VERSION || nfds != SHM_HELLO_NFDS ||
        truncated) {
        closeFds(fds, nfds);
        setErr(err, errlen, "invalid hello from the server");
        return -1;
    }
    if (attachRegion(c, &h, fds, err, errlen) != 0) return -1;
    c->spin_us = o->spin_us >= 0 ? o->spin_us : (int)h.spin_us;
    if (createPollFd(c) != 0) {
        setErr(err, errlen, "epoll: %s", strerror(errno));
        return -1;
    }
    return 0;
}

/* Connects to the server's Unix socket at path and upgrades to shared
 * memory (options: NULL = defaults). Blocks at most opts->timeout_ms.
 * Returns a connection, owned by the caller (vkshmClose()), or NULL with
 * a reason in err (errlen bytes). */
vkshmConn *vkshmConnect(const char *path, const vkshmOptions *opts, char *err, size_t errlen) {
    vkshmOptions o = {.spin_us = -1, .fallback = 0, .timeout_ms = 0};
    if (opts) o = *opts;
    long long deadline = nowUs() + (o.timeout_ms > 0 ? o.timeout_ms : VKSHM_DEFAULT_TIMEOUT_MS) * 1000LL;
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (!path || strlen(path) >= sizeof(sa.sun_path)) {
        setErr(err, errlen, "invalid socket path");
        return NULL;
    }
    strcpy(sa.sun_path, path);
    vkshmConn *c = calloc(1, sizeof(*c));
    if (!c) {
        setErr(err, errlen, "out of memory");
        return NULL;
    }
    c->sock = c->bell_fd = c->server_bell_fd = c->epfd = -1;
    c->spin_us = o.spin_us >= 0 ? o.spin_us : 0;
    c->sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c->sock == -1 || connect(c->sock, (struct sockaddr *)&sa, sizeof(sa)) == -1) {
        setErr(err, errlen, "%s", strerror(errno));
        vkshmClose(c);
        return NULL;
    }
    if (upgrade(c, &o, deadline, err, errlen) != 0) {
        vkshmClose(c);
        return NULL;
    }
    fcntl(c->sock, F_SETFL, fcntl(c->sock, F_GETFL) | O_NONBLOCK);
    return c;
}

/* Closes the connection and frees everything it holds (NULL is a no-op). */
void vkshmClose(vkshmConn *c) {
    if (!c) return;
    if (c->epfd != -1) close(c->epfd);
    if (c->bell_fd != -1) close(c->bell_fd);
    if (c->server_bell_fd != -1) close(c->server_bell_fd);
    if (c->region) munmap(c->region, c->region_size);
    if (c->sock != -1) close(c->sock);
    free(c->in);
    free(c);
}

/* Returns 1 if c talks through shared memory, 0 if it is a plain socket
 * (the server refused and vkshmOptions.fallback was set). */
int vkshmIsShared(const vkshmConn *c) {
    return c->shared;
}

/* Returns the bytes of each ring (0 for a plain connection). */
size_t vkshmRingSize(const vkshmConn *c) {
    return c->shared ? c->ring_size : 0;
}

/* Returns the last failure (or the refusal a fallback connection got),
 * "" if none. Valid while c lives. */
const char *vkshmError(const vkshmConn *c) {
    return c->err;
}

/* Returns the polling time before a sleep, in microseconds. */
int vkshmSpinUs(const vkshmConn *c) {
    return c->spin_us;
}

/* ---------------------------------------------------------------------------
 * Bytes
 * ------------------------------------------------------------------------- */

/* Reads up to len bytes without blocking. Returns bytes (>0), 0 once the
 * server closed and every byte it sent was read, or -1: errno EAGAIN
 * (nothing yet), or a failure (vkshmError()). */
ssize_t vkshmRead(vkshmConn *c, void *buf, size_t len) {
    if (c->failed) return connFail(c, c->failed, "%s", c->err);
    if (!c->shared) {
        ssize_t n;
        do {
            n = recv(c->sock, buf, len, MSG_DONTWAIT);
        } while (n == -1 && errno == EINTR);
        if (n == 0) c->eof = 1;
        if (n < 0 && errno != EAGAIN) return connFail(c, errno, "read: %s", strerror(errno));
        return n;
    }
    ssize_t n = shmRingRead(&c->rep, buf, len);
    if (n > 0) {
        if (shmRingWakeNeeded(&c->rep)) ringServer(c);
        return n;
    }
    if (n < 0) return connFail(c, EPROTO, "the server corrupted the reply ring");
    if (c->eof) return 0;
    errno = EAGAIN;
    return -1;
}

/* Writes what fits of iov without blocking. Returns bytes taken (>0), or
 * -1: errno EAGAIN (no room now), EPIPE (the server closed), or another
 * failure. */
ssize_t vkshmWritev(vkshmConn *c, const struct iovec *iov, int iovcnt) {
    if (c->failed) return connFail(c, c->failed, "%s", c->err);
    if (!c->shared) {
        struct msghdr msg = {.msg_iov = (struct iovec *)iov, .msg_iovlen = (size_t)iovcnt};
        ssize_t n;
        do {
            n = sendmsg(c->sock, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
        } while (n == -1 && errno == EINTR);
        if (n < 0 && errno != EAGAIN) return connFail(c, errno, "write: %s", strerror(errno));
        return n;
    }
    if (c->eof) {
        /* As a socket whose peer left: this write fails, reads still get
         * what the server sent before it closed, then EOF. */
        errno = EPIPE;
        return -1;
    }
    ssize_t n = shmRingWritev(&c->req, iov, iovcnt);
    if (n > 0) {
        if (shmRingWakeNeeded(&c->req)) ringServer(c);
        return n;
    }
    if (n < 0) return connFail(c, EPROTO, "the server corrupted the request ring");
    size_t total = 0;
    for (int j = 0; j < iovcnt; j++) total += iov[j].iov_len;
    if (total == 0) return 0;
    errno = EAGAIN;
    return -1;
}

/* As vkshmWritev() for one buffer. */
ssize_t vkshmWrite(vkshmConn *c, const void *buf, size_t len) {
    struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
    return vkshmWritev(c, &iov, 1);
}

/* Returns what a read or write could do now, with no system call:
 * VKSHM_READABLE (bytes, EOF or a failure to report) | VKSHM_WRITABLE
 * (room, or a failure). A plain connection says both (ask poll()). */
int vkshmReady(vkshmConn *c) {
    if (!c->shared || c->failed) return VKSHM_READABLE | VKSHM_WRITABLE;
    int mask = 0;
    ssize_t r = shmRingReadable(&c->rep), w = shmRingWritable(&c->req);
    if (r != 0 || c->eof) mask |= VKSHM_READABLE;
    if (w != 0 || c->eof) mask |= VKSHM_WRITABLE;
    return mask;
}

/* Returns the fd to poll for readability while waiting on c: our doorbell
 * and the socket (an epoll fd), or the socket of a plain connection. */
int vkshmPollFd(vkshmConn *c) {
    return c->shared ? c->epfd : c->sock;
}

/* Before sleeping on vkshmPollFd() for events: arms the waiter flags, so
 * the server rings when they may have come. Returns 1 if they are there
 * already (do not sleep), 0 if armed, -1 on failure. */
int vkshmArm(vkshmConn *c, int events) {
    if (!c->shared) return 0;
    if (c->failed || c->eof) return 1;
    int ready = 0;
    if (events & VKSHM_READABLE) {
        int r = shmRingArmRead(&c->rep);
        if (r < 0) return connFail(c, EPROTO, "the server corrupted the reply ring");
        ready |= r;
    }
    if (events & VKSHM_WRITABLE) {
        int r = shmRingArmWrite(&c->req);
        if (r < 0) return connFail(c, EPROTO, "the server corrupted the request ring");
        ready |= r;
    }
    return ready;
}

/* Learns the socket's state: EOF (the server closed) or a byte (it broke
 * the protocol). */
static void checkSocket(vkshmConn *c) {
    if (c->eof) return;
    char b;
    ssize_t n;
    do {
        n = recv(c->sock, &b, 1, MSG_DONTWAIT | MSG_PEEK);
    } while (n == -1 && errno == EINTR);
    if (n == 0 || (n == -1 && errno != EAGAIN)) c->eof = 1;
    if (n > 0) connFail(c, EPROTO, "the server sent bytes on the socket after the upgrade");
}

/* Takes the events of the poll fd, waiting at most ms (-1 = no limit):
 * a doorbell needs nothing more (edge-triggered), the socket is checked.
 * Returns the number of events, 0 on timeout, -1 on error. */
static int takeEvents(vkshmConn *c, int ms) {
    struct epoll_event ev[2];
    int n;
    do {
        n = epoll_wait(c->epfd, ev, 2, ms);
    } while (n == -1 && errno == EINTR && ms == 0);
    if (n == -1 && errno == EINTR) return 0;
    for (int j = 0; j < n; j++)
        if (ev[j].data.fd == c->sock) checkSocket(c);
    return n;
}

/* After vkshmPollFd() polled readable: takes the doorbell's event and
 * learns the socket's state (EOF: the server closed; a byte: the server
 * broke the protocol). Returns 0, or -1 once c failed. */
int vkshmProcess(vkshmConn *c) {
    if (!c->shared) return c->failed ? -1 : 0;
    takeEvents(c, 0);
    return c->failed ? -1 : 0;
}

/* Makes vkshmPollFd() readable once, as if the server had rung (for an
 * event loop that wants a callback now); vkshmProcess() takes it. */
void vkshmNotify(vkshmConn *c) {
    uint64_t one = 1;
    if (c->shared && write(c->bell_fd, &one, sizeof(one)) != sizeof(one)) return;
}

/* Waits until c is ready for events (VKSHM_READABLE/WRITABLE): polls the
 * ring for spin_us, then arms the doorbell and sleeps on it and on the
 * socket; timeout_us -1 = no limit. Returns the events ready (a failure
 * or EOF counts as ready), 0 on timeout, -1 on a poll error. */
int vkshmWait(vkshmConn *c, int events, long long timeout_us) {
    long long start = nowUs(), deadline = timeout_us < 0 ? -1 : start + timeout_us;
    if (!c->shared) {
        short pe = (short)(((events & VKSHM_READABLE) ? POLLIN : 0) | ((events & VKSHM_WRITABLE) ? POLLOUT : 0));
        int r = pollUntil(c->sock, pe, deadline);
        return r > 0 ? events : r;
    }
    long long spin_end = start + c->spin_us;
    for (;;) {
        int ready = vkshmReady(c) & events;
        if (ready) return ready;
        long long now = nowUs();
        if (deadline != -1 && now >= deadline) return 0;
        if (now < spin_end) {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
            continue;
        }
        int armed = vkshmArm(c, events);
        if (armed != 0) continue;
        int ms = -1;
        if (deadline != -1) ms = (int)((deadline - now + 999) / 1000);
        if (takeEvents(c, ms) < 0) return -1;
    }
}

/* Writes all len bytes, waiting for room (at most timeout_us; -1 = no
 * limit). Returns 0, or -1 with errno (ETIMEDOUT, or the failure). */
int vkshmSendAll(vkshmConn *c, const void *buf, size_t len, long long timeout_us) {
    const char *p = buf;
    long long deadline = timeout_us < 0 ? -1 : nowUs() + timeout_us;
    while (len > 0) {
        ssize_t n = vkshmWrite(c, p, len);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
            continue;
        }
        if (n == -1 && errno != EAGAIN) return -1;
        long long left = deadline == -1 ? -1 : deadline - nowUs();
        if (deadline != -1 && left <= 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        if (vkshmWait(c, VKSHM_WRITABLE, left) < 0) return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------------------
 * RESP
 * ------------------------------------------------------------------------- */

/* Sends one command as a RESP array of bulk strings (argvlen NULL: the
 * arguments are C strings), waiting for room as needed. Returns 0, or -1
 * with errno. Its reply comes from vkshmReadReply(). */
int vkshmAppendCommand(vkshmConn *c, int argc, const char **argv, const size_t *argvlen) {
    size_t total = 32;
    for (int j = 0; j < argc; j++) total += (argvlen ? argvlen[j] : strlen(argv[j])) + 32;
    char *buf = malloc(total);
    if (!buf) {
        errno = ENOMEM;
        return -1;
    }
    size_t pos = (size_t)snprintf(buf, total, "*%d\r\n", argc);
    for (int j = 0; j < argc; j++) {
        size_t len = argvlen ? argvlen[j] : strlen(argv[j]);
        pos += (size_t)snprintf(buf + pos, total - pos, "$%zu\r\n", len);
        memcpy(buf + pos, argv[j], len);
        pos += len;
        memcpy(buf + pos, "\r\n", 2);
        pos += 2;
    }
    int ret = vkshmSendAll(c, buf, pos, -1);
    free(buf);
    return ret;
}

/* Finds the CRLF ending the line at p[pos..len). Returns the index of its
 * '\r', or -1 if it is not all there yet. */
static long long lineEnd(const char *p, size_t len, size_t pos) {
    for (size_t j = pos; j + 1 < len; j++)
        if (p[j] == '\r' && p[j + 1] == '\n') return (long long)j;
    return -1;
}

/* Parses the decimal integer p[from..to). 0, or -1 if it is not one. */
static int parseLL(const char *p, size_t from, size_t to, long long *out) {
    if (from >= to || to - from > 20) return -1;
    char num[24];
    memcpy(num, p + from, to - from);
    num[to - from] = '\0';
    char *end;
    errno = 0;
    long long v = strtoll(num, &end, 10);
    if (errno || *end != '\0') return -1;
    *out = v;
    return 0;
}

/* Pass one: is a whole, well-formed reply at *pos? Returns 1 (and *pos is
 * past it), 0 if bytes are missing, -1 if it is malformed. Allocates
 * nothing. */
static int scanReply(const char *p, size_t len, size_t *pos, int depth) {
    if (depth > VKSHM_MAX_DEPTH) return -1;
    if (*pos >= len) return 0;
    char type = p[*pos];
    long long eol = lineEnd(p, len, *pos + 1);
    if (eol < 0) return len - *pos > 64 * 1024 ? -1 : 0;
    size_t body = *pos + 1, end = (size_t)eol + 2;
    long long n;
    switch (type) {
    case '+': case '-': case ':': case ',': case '#': case '(': case '_':
        *pos = end;
        return 1;
    case '$': case '!': case '=':
        if (parseLL(p, body, (size_t)eol, &n) != 0 || n < -1) return -1;
        if (n == -1) {
            *pos = end;
            return 1;
        }
        if ((unsigned long long)n > len - end || len - end - (size_t)n < 2) return 0;
        if (p[end + n] != '\r' || p[end + n + 1] != '\n') return -1;
        *pos = end + (size_t)n + 2;
        return 1;
    case '*': case '~': case '>': case '%': case '|':
        if (parseLL(p, body, (size_t)eol, &n) != 0 || n < -1) return -1;
        *pos = end;
        if (n == -1) return 1;
        if (type == '%' || type == '|') n *= 2;
        for (long long j = 0; j < n; j++) {
            int r = scanReply(p, len, pos, depth + 1);
            if (r != 1) return r;
        }
        if (type == '|') return scanReply(p, len, pos, depth + 1); /* The reply the attribute annotates. */
        return 1;
    default: return -1;
    }
}

static vkshmReply *newReply(int type) {
    vkshmReply *r = calloc(1, sizeof(*r));
    if (r) r->type = type;
    return r;
}

static int setStr(vkshmReply *r, const char *s, size_t len) {
    r->str = malloc(len + 1);
    if (!r->str) return -1;
    memcpy(r->str, s, len);
    r->str[len] = '\0';
    r->len = len;
    return 0;
}

/* Pass two: builds the reply at *pos, which scanReply() found whole and
 * well-formed. Returns it, or NULL when out of memory. */
static vkshmReply *buildReply(const char *p, size_t *pos) {
    char type = p[*pos];
    size_t body = *pos + 1, eol = (size_t)lineEnd(p, SIZE_MAX, body), end = eol + 2;
    long long n = 0;
    vkshmReply *r;
    switch (type) {
    case '+': case '-': case '(':
        *pos = end;
        r = newReply(type);
        if (r && setStr(r, p + body, eol - body) != 0) goto oom;
        return r;
    case ',':
        *pos = end;
        r = newReply(type);
        if (r && setStr(r, p + body, eol - body) != 0) goto oom;
        if (r) r->dval = strtod(r->str, NULL);
        return r;
    case ':':
        *pos = end;
        r = newReply(type);
        if (r && parseLL(p, body, eol, &r->integer) != 0) {
            r->type = VKSHM_REPLY_BIGNUM; /* Out of range: kept as text. */
            if (setStr(r, p + body, eol - body) != 0) goto oom;
        }
        return r;
    case '#':
        *pos = end;
        r = newReply(type);
        if (r) r->integer = p[body] == 't';
        return r;
    case '_':
        *pos = end;
        return newReply(VKSHM_REPLY_NIL);
    case '$': case '!': case '=':
        parseLL(p, body, eol, &n);
        if (n == -1) {
            *pos = end;
            return newReply(VKSHM_REPLY_NIL);
        }
        *pos = end + (size_t)n + 2;
        r = newReply(type);
        if (r && setStr(r, p + end, (size_t)n) != 0) goto oom;
        return r;
    case '|': {
        parseLL(p, body, eol, &n);
        *pos = end;
        for (long long j = 0; j < 2 * n; j++) vkshmFreeReply(buildReply(p, pos));
        return buildReply(p, pos);
    }
    default: /* '*', '~', '>', '%' */
        parseLL(p, body, eol, &n);
        *pos = end;
        if (n == -1) return newReply(VKSHM_REPLY_NIL);
        if (type == '%') n *= 2;
        r = newReply(type);
        if (!r) return NULL;
        r->elements = (size_t)n;
        r->element = calloc(n ? (size_t)n : 1, sizeof(*r->element));
        if (!r->element) goto oom;
        for (long long j = 0; j < n; j++)
            if ((r->element[j] = buildReply(p, pos)) == NULL) goto oom;
        return r;
    }
oom:
    vkshmFreeReply(r);
    return NULL;
}

/* Frees a reply and everything in it (NULL is a no-op). */
void vkshmFreeReply(vkshmReply *r) {
    if (!r) return;
    for (size_t j = 0; j < r->elements; j++) vkshmFreeReply(r->element[j]);
    free(r->element);
    free(r->str);
    free(r);
}

/* Reads more input into c->in, waiting as long as it takes. 0, or -1
 * (errno; EOF is ECONNRESET). */
static int fillInput(vkshmConn *c) {
    if (c->in_pos > 0 && c->in_pos == c->in_len) c->in_pos = c->in_len = 0;
    if (c->in_cap - c->in_len < VKSHM_READ_CHUNK) {
        if (c->in_pos > 0) {
            memmove(c->in, c->in + c->in_pos, c->in_len - c->in_pos);
            c->in_len -= c->in_pos;
            c->in_pos = 0;
        }
        size_t cap = c->in_cap ? c->in_cap : VKSHM_READ_CHUNK;
        while (cap - c->in_len < VKSHM_READ_CHUNK) cap *= 2;
        if (cap != c->in_cap) {
            char *in = realloc(c->in, cap);
            if (!in) {
                errno = ENOMEM;
                return -1;
            }
            c->in = in;
            c->in_cap = cap;
        }
    }
    for (;;) {
        ssize_t n = vkshmRead(c, c->in + c->in_len, c->in_cap - c->in_len);
        if (n > 0) {
            c->in_len += (size_t)n;
            return 0;
        }
        if (n == 0) {
            connFail(c, ECONNRESET, "the server closed the connection");
            return -1;
        }
        if (errno != EAGAIN) return -1;
        if (vkshmWait(c, VKSHM_READABLE, -1) < 0) return -1;
    }
}

/* Reads one whole reply, waiting as long as it takes. Returns it (owned by
 * the caller: vkshmFreeReply()), or NULL with errno and vkshmError(): the
 * server closed, broke the protocol, or memory ran out. */
vkshmReply *vkshmReadReply(vkshmConn *c) {
    for (;;) {
        size_t pos = c->in_pos;
        int r = c->in ? scanReply(c->in, c->in_len, &pos, 0) : 0;
        if (r == 1) {
            size_t at = c->in_pos;
            vkshmReply *reply = buildReply(c->in, &at);
            c->in_pos = pos;
            if (!reply) errno = ENOMEM;
            return reply;
        }
        if (r < 0) {
            connFail(c, EPROTO, "protocol error in a reply from the server");
            return NULL;
        }
        if (fillInput(c) != 0) return NULL;
    }
}

/* Sends one command and returns its reply (see vkshmAppendCommand() and
 * vkshmReadReply()); NULL on failure. */
vkshmReply *vkshmCommand(vkshmConn *c, int argc, const char **argv, const size_t *argvlen) {
    if (vkshmAppendCommand(c, argc, argv, argvlen) != 0) return NULL;
    return vkshmReadReply(c);
}
