/* conn_shm.c - the shared-memory transport ("shm"): clients on this host
 * talk to the server through two rings in a memfd, set up over the Unix
 * socket, with eventfd doorbells for the times either side sleeps.
 *
 * Setup (version 1). With shm built in, the Unix-socket listener accepts
 * every connection as an "shm" connection that behaves exactly like a
 * "unix" one until its first byte arrives:
 *
 * - A RESP client's first byte is '*' or the first letter of an inline
 *   command, never SHM_UPGRADE_BYTE (0x16, ASCII SYN). So that byte first
 *   means "upgrade": the client sends the preface "\x16VKSHM <version>\r\n"
 *   (<version>: the newest it speaks) and waits for the answer without
 *   sending anything else. Any other first byte makes the connection a
 *   plain Unix one for good (SHM_PHASE_PLAIN): not one more byte is looked
 *   at, and the bytes read are the RESP stream's.
 * - A server without the transport (Valkey, Redis, or this one before
 *   shm) reads the preface as an inline command and answers "-ERR unknown
 *   command ...". This server answers a RESP error too when it refuses:
 *   shm-enabled no, version 0, or no resources (memfd, eventfd, mmap, fd
 *   limits). Either way the socket stays a working plain connection: the
 *   client may go on speaking RESP over it (downgrade) or close it. A
 *   preface that is malformed, or followed by more bytes before our
 *   answer, is a protocol error: we answer an error and close.
 * - Accepted: we create a memfd (sealed against shrinking and growing, so
 *   the client cannot make our accesses fault), map it, lay out the header
 *   and both rings (shm_ring.h), create two eventfds (ours, which the
 *   client writes when it wants us awake, and the client's, which we
 *   write), and send shmHello with the three fds as SCM_RIGHTS ancillary
 *   data on the socket, then close our memfd (the mapping stays). No name
 *   is ever created (nothing in /dev/shm), so only a peer that could
 *   connect to the Unix socket (its file permissions, unixsocketperm)
 *   ever gets a ring. Authentication and ACLs are untouched: AUTH and
 *   every command go through the rings and are checked as on any socket.
 * - From then on (SHM_PHASE_RINGS) no byte goes through the socket. It
 *   stays open to learn the peer's death: readable means EOF (the client
 *   closed or died; requests already in the ring are served first) or a
 *   protocol violation (bytes after the upgrade). Closing the connection
 *   shuts the socket down, so the client learns it even while a forked
 *   child still holds a copy of the fd.
 *
 * Who checks what. Every index and flag read from shared memory is input
 * from an untrusted peer: shm_ring.c loads each index once per operation
 * and checks it against our private copy before use, and never reads our
 * own index or any size back. Bytes are copied out of the request ring
 * into the query buffer before the RESP parser sees them. A ring found
 * corrupt, bytes on the socket after the upgrade, or a socket error make
 * the connection fail with a WARNING log line; the owner's read handler
 * then gets the error and frees the client. Nothing of the server's state
 * is shared: a client that scribbles over its rings, stops reading (its
 * reply ring fills, the output buffer grows and the usual limits apply)
 * or dies mid-request harms only itself.
 *
 * Waiting (the protocol in shm_ring.h). After input arrived, a connection
 * is "hot" for shm-spin-us: when the event loop would sleep, the spin hook
 * (aeSetSpinProc) polls the request rings of hot connections without a
 * system call, so a busy client's requests cost no doorbell; the loop then
 * runs their handlers after the fd events of that iteration, so requests
 * are served in the order sockets would give (ae.c, "Spinning"). A connection
 * whose spin time ran out is armed: data_waiter set, the ring re-checked,
 * and from then on the client rings our eventfd, which the loop watches
 * like a socket. With shm-spin-us 0 connections are armed at once. A full
 * reply ring is armed the same way (space_waiter) while a write handler
 * waits. The invariant: a connection with a read handler is always
 * pending, hot or armed, so no request waits unseen.
 *
 * Readiness no fd reports (unread input left in a ring after a read, room
 * in the reply ring for a write handler, an error or EOF to report) puts
 * the connection on the pending list, served from the before-sleep hook
 * through connTypesProcessPendingData(), as RDMA does.
 *
 * Cost: a connection holds the socket and two eventfds (three fds) and
 * 4 KB + 2 x shm-ring-size of shared memory, which counts as the
 * client's memory (mem_usage: CLIENT LIST tot-mem, maxmemory-clients,
 * INFO mem_clients_normal; not used_memory, which stays the allocator's,
 * as kernel socket buffers are not in it). CLIENT LIST ends an upgraded
 * client's line with shm=<ring size>. Handlers run through
 * connCallHandler(), so one may close its own connection. Event-loop
 * thread only, except that a forked child may serve a connection handed
 * to it with blocking I/O (wait). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "anet.h"
#include "connection.h"
#include "log.h"
#include "shm_ring.h"
#include "zmalloc.h"

/* Where a connection is in its life; shmReadPreface() and shmUpgrade()
 * move it forward, nothing moves it back. */
typedef enum {
    SHM_PHASE_SNIFF = 0, /* Accepted, no byte read yet: I/O is the socket's. */
    SHM_PHASE_PREFACE,   /* The upgrade byte came first: collecting the preface. */
    SHM_PHASE_PLAIN,     /* A Unix-socket connection for good (RESP came first, or refused). */
    SHM_PHASE_RINGS      /* Upgraded: bytes through the rings, the socket tells EOF. */
} shmPhase;

typedef struct shmConnection {
    connection c;                       /* Must be first. c.fd is the Unix socket. */
    shmPhase phase;
    char preface[SHM_PREFACE_MAX];      /* SNIFF/PREFACE: the bytes so far. */
    int preface_len;
    /* SHM_PHASE_RINGS: */
    void *region;                       /* The mapping (shmRegionHeader first). */
    size_t region_size;
    uint32_t ring_size;
    shmRing req, rep;                   /* Our ends: requests in, replies out. */
    int bell_fd;                        /* Our doorbell: the client writes it. -1 if none. */
    int peer_bell_fd;                   /* The client's doorbell: we write it. -1 if none. */
    int peer_closed;                    /* EOF on the socket: end of stream after the ring. */
    int error_reported;                 /* A handler ran after the failure. */
    long long hot_until_us;             /* Spin on the request ring until then. */
    int on_pending, on_hot;
    struct shmConnection *pend_prev, *pend_next; /* Pending list. */
    struct shmConnection *hot_prev, *hot_next;   /* Hot list. */
    char errstr[128];                   /* connGetLastError() after a ring failure. */
} shmConnection;

static ConnectionType CT_Shm;
static connShmConfig shmConfig = {.enabled = 0, .ring_size = 64 * 1024, .spin_us = 20};
static shmConnection *shmPending; /* Connections whose handlers have work. */
static shmConnection *shmHot;     /* Connections the spin hook polls. */
static int shmSpinInstalled;

static void shmUpdate(shmConnection *sc);
static void shmClose(connection *conn);

/* ---------------------------------------------------------------------------
 * Lists
 * ------------------------------------------------------------------------- */

static void pendingAdd(shmConnection *sc) {
    if (sc->on_pending) return;
    sc->on_pending = 1;
    sc->pend_prev = NULL;
    sc->pend_next = shmPending;
    if (shmPending) shmPending->pend_prev = sc;
    shmPending = sc;
}

static void pendingRemove(shmConnection *sc) {
    if (!sc->on_pending) return;
    if (sc->pend_prev)
        sc->pend_prev->pend_next = sc->pend_next;
    else
        shmPending = sc->pend_next;
    if (sc->pend_next) sc->pend_next->pend_prev = sc->pend_prev;
    sc->on_pending = 0;
    sc->pend_prev = sc->pend_next = NULL;
}

static void hotAdd(shmConnection *sc) {
    if (sc->on_hot) return;
    sc->on_hot = 1;
    sc->hot_prev = NULL;
    sc->hot_next = shmHot;
    if (shmHot) shmHot->hot_prev = sc;
    shmHot = sc;
}

static void hotRemove(shmConnection *sc) {
    if (!sc->on_hot) return;
    if (sc->hot_prev)
        sc->hot_prev->hot_next = sc->hot_next;
    else
        shmHot = sc->hot_next;
    if (sc->hot_next) sc->hot_next->hot_prev = sc->hot_prev;
    sc->on_hot = 0;
    sc->hot_prev = sc->hot_next = NULL;
}

/* ---------------------------------------------------------------------------
 * Failures and doorbells
 * ------------------------------------------------------------------------- */

/* The socket path the client came in on, for log lines. */
static const char *shmPeerName(shmConnection *sc, char *buf, size_t len) {
    if (connSocketAddr(&sc->c, buf, len, NULL, 0) != C_OK) snprintf(buf, len, "?");
    return buf;
}

/* The connection is broken: state ERROR with err, and why (if not NULL)
 * logged as a WARNING (the peer broke the protocol). The owner's read
 * handler is woken to find out through connRead(). */
static void shmFail(shmConnection *sc, int err, const char *why) {
    if (sc->c.state == CONN_STATE_ERROR) return;
    char path[CONN_ADDR_STR_LEN];
    if (why) {
        serverLog(LL_WARNING, "Shared memory: the client on %s (fd %d) %s; closing the connection",
                  shmPeerName(sc, path, sizeof(path)), sc->c.fd, why);
        snprintf(sc->errstr, sizeof(sc->errstr), "shared memory client %s", why);
    }
    sc->c.state = CONN_STATE_ERROR;
    sc->c.last_errno = err;
    hotRemove(sc);
    shmUpdate(sc);
}

/* Wakes the client (it armed a waiter flag and sleeps on its eventfd). A
 * full counter (EAGAIN) means it has wake-ups queued already. */
static void shmRingPeer(shmConnection *sc) {
    uint64_t one = 1;
    ssize_t n;
    do {
        n = write(sc->peer_bell_fd, &one, sizeof(one));
    } while (n == -1 && errno == EINTR);
}

/* Resets our doorbell (eventfd) after it fired. */
static void shmDrainBell(shmConnection *sc) {
    uint64_t v;
    ssize_t n;
    do {
        n = read(sc->bell_fd, &v, sizeof(v));
    } while (n == -1 && errno == EINTR);
}

/* The socket turned readable after the upgrade: either EOF (the client
 * closed or died) or bytes, which the protocol forbids. Stops watching
 * the socket once it has said either, so the loop does not spin on it. */
static void shmCheckSocket(shmConnection *sc) {
    char b;
    ssize_t n = recv(sc->c.fd, &b, 1, MSG_DONTWAIT | MSG_PEEK);
    if (n == -1 && (errno == EAGAIN || errno == EINTR)) return;
    aeDeleteFileEvent(connGetEventLoop(), sc->c.fd, AE_READABLE);
    if (n > 0) {
        shmFail(sc, EPROTO, "sent bytes on its socket after the upgrade");
    } else {
        sc->peer_closed = 1;
    }
}

/* ---------------------------------------------------------------------------
 * Readiness: pending, hot, armed
 * ------------------------------------------------------------------------- */

/* What the owner's read handler can act on now: requests, EOF, an error. */
static int shmWantsRead(shmConnection *sc) {
    if (!sc->c.read_handler || sc->c.state == CONN_STATE_CLOSED) return 0;
    if (sc->c.state == CONN_STATE_ERROR) return !sc->error_reported;
    ssize_t n = shmRingReadable(&sc->req);
    if (n < 0) {
        shmFail(sc, EPROTO, "corrupted its request ring");
        return !sc->error_reported;
    }
    return n > 0 || sc->peer_closed;
}

/* What the owner's write handler can act on now: room, or a failure. */
static int shmWantsWrite(shmConnection *sc) {
    if (!sc->c.write_handler || sc->c.state == CONN_STATE_CLOSED) return 0;
    if (sc->c.state == CONN_STATE_ERROR) return !sc->error_reported && !sc->c.read_handler;
    if (sc->peer_closed) return 1;
    ssize_t n = shmRingWritable(&sc->rep);
    if (n < 0) {
        shmFail(sc, EPROTO, "corrupted its reply ring");
        return !sc->error_reported && !sc->c.read_handler;
    }
    return n > 0;
}

/* Arms the waiter flags of whatever the handlers wait for, so the client
 * rings our doorbell. Returns 1 if, on re-checking, there is work after
 * all (the connection must be pending), 0 if it may sleep. */
static int shmArm(shmConnection *sc) {
    int work = 0;
    if (sc->c.read_handler) {
        int r = shmRingArmRead(&sc->req);
        if (r < 0) shmFail(sc, EPROTO, "corrupted its request ring");
        if (r != 0) work = 1;
    }
    if (sc->c.write_handler && sc->c.state == CONN_STATE_CONNECTED) {
        int r = shmRingArmWrite(&sc->rep);
        if (r < 0) shmFail(sc, EPROTO, "corrupted its reply ring");
        if (r != 0) work = 1;
    }
    return work;
}

/* Puts an upgraded connection where it belongs: pending if a handler can
 * act now, else hot while its spin time lasts (the spin hook polls it),
 * else armed. Called after every handler run and handler change. */
static void shmUpdate(shmConnection *sc) {
    if (sc->phase != SHM_PHASE_RINGS) return;
    if (shmWantsRead(sc) || shmWantsWrite(sc)) {
        pendingAdd(sc);
        return;
    }
    pendingRemove(sc);
    if (sc->c.read_handler && sc->c.state == CONN_STATE_CONNECTED && !sc->peer_closed &&
        sc->hot_until_us > aeMonotonicUs()) {
        hotAdd(sc);
        return;
    }
    hotRemove(sc);
    if (sc->c.state == CONN_STATE_CONNECTED && !sc->peer_closed && shmArm(sc)) pendingAdd(sc);
}

/* Runs whichever handler has work, in the order the write barrier asks;
 * a failure is reported once (to the read handler if there is one).
 * Returns 1 if sc is still usable, 0 if a handler closed it. */
static int shmRunHandlers(shmConnection *sc) {
    connection *conn = &sc->c;
    if (conn->state == CONN_STATE_ERROR && (shmWantsRead(sc) || shmWantsWrite(sc))) {
        sc->error_reported = 1;
        ConnectionCallbackFunc h = conn->read_handler ? conn->read_handler : conn->write_handler;
        if (!connCallHandler(conn, h)) return 0;
        shmUpdate(sc);
        return 1;
    }
    int barrier = conn->flags & CONN_FLAG_WRITE_BARRIER;
    if (!barrier && shmWantsRead(sc)) {
        if (!connCallHandler(conn, conn->read_handler)) return 0;
    }
    if (shmWantsWrite(sc)) {
        if (!connCallHandler(conn, conn->write_handler)) return 0;
    }
    if (barrier && shmWantsRead(sc)) {
        if (!connCallHandler(conn, conn->read_handler)) return 0;
    }
    shmUpdate(sc);
    return 1;
}

/* The aeFileProc of the socket and of our doorbell. Before the upgrade the
 * socket is served as any Unix socket. */
static void shmEventHandler(aeEventLoop *el, int fd, void *clientData, int mask) {
    shmConnection *sc = clientData;
    if (sc->phase != SHM_PHASE_RINGS) {
        connSocketEventHandler(el, fd, clientData, mask);
        return;
    }
    if (fd == sc->bell_fd)
        shmDrainBell(sc);
    else
        shmCheckSocket(sc);
    shmRunHandlers(sc);
}

/* ConnectionType.has_pending_data. */
static int shmHasPendingData(void) {
    return shmPending != NULL;
}

/* ConnectionType.process_pending_data: runs the handlers of every pending
 * connection once. A snapshot of the list is taken with a reference on
 * each entry, so handlers may close any connection while we iterate. */
static int shmProcessPendingData(void) {
    shmConnection *local[64], **snap = local;
    int n = 0;
    for (shmConnection *sc = shmPending; sc; sc = sc->pend_next) n++;
    if (n == 0) return 0;
    if (n > (int)(sizeof(local) / sizeof(local[0]))) snap = zmalloc(sizeof(*snap) * n);
    int j = 0;
    for (shmConnection *sc = shmPending; sc; sc = sc->pend_next) {
        snap[j++] = sc;
        connIncrRefs(&sc->c);
    }
    for (j = 0; j < n; j++) {
        shmConnection *sc = snap[j];
        if (sc->c.flags & CONN_FLAG_CLOSE_SCHEDULED || sc->phase != SHM_PHASE_RINGS) continue;
        shmRunHandlers(sc);
    }
    for (j = 0; j < n; j++) {
        shmConnection *sc = snap[j];
        connDecrRefs(&sc->c);
        if ((sc->c.flags & CONN_FLAG_CLOSE_SCHEDULED) && !connHasRefs(&sc->c)) shmClose(&sc->c);
    }
    if (snap != local) zfree(snap);
    return n;
}

/* The event loop's spin hook (ae.h). Peeking looks at the request rings
 * of hot connections: AE_SPIN_READY if one has input (or a connection is
 * pending), AE_SPIN_DONE once nothing is hot, so the loop sleeps; a
 * connection whose spin time ran out is armed on the way. Dispatching
 * moves the hot connections with input to the pending list and runs the
 * handlers of every pending one, as the loop runs those of fired fds. */
static int shmSpin(aeEventLoop *el, int op) {
    if (op == AE_SPIN_DISPATCH) {
        shmConnection *next;
        for (shmConnection *sc = shmHot; sc; sc = next) {
            next = sc->hot_next;
            ssize_t n = shmRingReadable(&sc->req);
            if (n == 0) continue;
            hotRemove(sc);
            if (n < 0) shmFail(sc, EPROTO, "corrupted its request ring");
            pendingAdd(sc);
        }
        return shmProcessPendingData();
    }
    if (shmPending) return AE_SPIN_READY;
    if (shmHot == NULL) return AE_SPIN_DONE;
    long long now = aeMonotonicUs();
    shmConnection *next;
    for (shmConnection *sc = shmHot; sc; sc = next) {
        next = sc->hot_next;
        ssize_t n = shmRingReadable(&sc->req);
        if (n != 0) return AE_SPIN_READY;
        if (now >= sc->hot_until_us) {
            hotRemove(sc);
            if (shmArm(sc)) pendingAdd(sc);
        }
    }
    if (shmPending) return AE_SPIN_READY;
    return shmHot ? AE_SPIN_AGAIN : AE_SPIN_DONE;
}

/* ---------------------------------------------------------------------------
 * The upgrade
 * ------------------------------------------------------------------------- */

/* Answers the preface with a RESP error line written straight to the
 * socket (nothing else was ever written to it: the client sent only the
 * preface). Returns C_OK, or C_ERR (state ERROR) if it could not be sent. */
static int shmRefuse(shmConnection *sc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int shmRefuse(shmConnection *sc, const char *fmt, ...) {
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(line, sizeof(line) - 2, fmt, ap);
    va_end(ap);
    if (len < 0 || len > (int)sizeof(line) - 3) len = (int)sizeof(line) - 3;
    memcpy(line + len, "\r\n", 2);
    len += 2;
    ssize_t n = send(sc->c.fd, line, (size_t)len, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n != len) {
        sc->c.state = CONN_STATE_ERROR;
        sc->c.last_errno = n == -1 ? errno : EAGAIN;
        return C_ERR;
    }
    return C_OK;
}

/* Sends the hello with the three fds. Returns C_OK, or C_ERR with errno. */
static int shmSendHello(int sock, const shmHello *h, const int fds[SHM_HELLO_NFDS]) {
    unsigned char buf[SHM_HELLO_LEN];
    shmHelloEncode(buf, h);
    union {
        char space[CMSG_SPACE(sizeof(int) * SHM_HELLO_NFDS)];
        struct cmsghdr align;
    } ctl;
    memset(&ctl, 0, sizeof(ctl));
    struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
    struct msghdr msg = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.space, .msg_controllen = sizeof(ctl.space)};
    struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int) * SHM_HELLO_NFDS);
    memcpy(CMSG_DATA(cm), fds, sizeof(int) * SHM_HELLO_NFDS);
    ssize_t n;
    do {
        n = sendmsg(sock, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
    } while (n == -1 && errno == EINTR);
    if (n == (ssize_t)sizeof(buf)) return C_OK;
    if (n >= 0) errno = EAGAIN; /* A partial hello cannot be taken back. */
    return C_ERR;
}

/* Creates the sealed memfd of ring_size rings and maps it. Returns the
 * memfd (the mapping in *region), or -1 with errno. */
static int shmCreateRegion(uint32_t ring_size, void **region) {
    size_t size = shmRegionSize(ring_size);
    int fd = memfd_create("vkshm", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd == -1) return -1;
    if (ftruncate(fd, (off_t)size) == -1 || fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) == -1)
        goto close_fd;
    *region = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (*region == MAP_FAILED) goto close_fd;
    shmRegionInit(*region, ring_size);
    return fd;

close_fd: {
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
}
}

/* Releases everything an upgraded connection holds besides the socket,
 * in reverse order of shmUpgrade(). Idempotent. */
static void shmReleaseRings(shmConnection *sc) {
    pendingRemove(sc);
    hotRemove(sc);
    if (sc->bell_fd != -1) {
        aeDeleteFileEvent(connGetEventLoop(), sc->bell_fd, AE_READABLE);
        close(sc->bell_fd);
        sc->bell_fd = -1;
    }
    if (sc->peer_bell_fd != -1) {
        close(sc->peer_bell_fd);
        sc->peer_bell_fd = -1;
    }
    if (sc->region) {
        munmap(sc->region, sc->region_size);
        sc->region = NULL;
    }
}

/* Grants the upgrade: region, doorbells, hello. Returns C_OK (phase
 * RINGS), or C_ERR with errno and nothing left behind (the connection is
 * still a plain one: the caller answers with an error line). */
static int shmUpgrade(shmConnection *sc, int version) {
    aeEventLoop *el = connGetEventLoop();
    uint32_t ring_size = (uint32_t)shmConfig.ring_size;
    int memfd = shmCreateRegion(ring_size, &sc->region);
    if (memfd == -1) return C_ERR;
    sc->region_size = shmRegionSize(ring_size);
    sc->ring_size = ring_size;
    sc->bell_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    sc->peer_bell_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (sc->bell_fd == -1 || sc->peer_bell_fd == -1) goto fail;
    if (aeCreateFileEvent(el, sc->bell_fd, AE_READABLE, CT_Shm.ae_handler, sc) == AE_ERR) goto fail;

    shmHello hello = {.version = (uint8_t)(version < SHM_PROTO_VERSION ? version : SHM_PROTO_VERSION),
                      .nfds = SHM_HELLO_NFDS,
                      .ring_size = ring_size,
                      .spin_us = (uint32_t)shmConfig.spin_us,
                      .region_size = sc->region_size};
    int fds[SHM_HELLO_NFDS] = {memfd, sc->bell_fd, sc->peer_bell_fd};
    if (shmSendHello(sc->c.fd, &hello, fds) != C_OK) goto fail;
    close(memfd);

    /* The socket now only reports EOF: readable always, writable never. */
    sc->phase = SHM_PHASE_RINGS;
    aeDeleteFileEvent(el, sc->c.fd, AE_WRITABLE);
    if (aeCreateFileEvent(el, sc->c.fd, AE_READABLE, CT_Shm.ae_handler, sc) == AE_ERR) {
        shmFail(sc, errno, "could not be watched");
        return C_OK;
    }
    shmRegionRings(sc->region, ring_size, &sc->req, &sc->rep, 1);
    sc->hot_until_us = aeMonotonicUs() + shmConfig.spin_us;
    if (!shmSpinInstalled) {
        aeSetSpinProc(el, shmSpin);
        shmSpinInstalled = 1;
    }
    char path[CONN_ADDR_STR_LEN];
    serverLog(LL_VERBOSE, "Shared memory: client on %s (fd %d) upgraded, rings of %u bytes",
              shmPeerName(sc, path, sizeof(path)), sc->c.fd, ring_size);
    shmUpdate(sc); /* Hot, or armed at once with shm-spin-us 0. */
    return C_OK;

fail: {
    int saved = errno;
    close(memfd);
    shmReleaseRings(sc);
    errno = saved;
    return C_ERR;
}
}

/* A complete preface asking for version: upgrade, or refuse with an
 * error line. Returns C_OK (either way the connection goes on), C_ERR if
 * even the refusal could not be sent. */
static int shmAnswerPreface(shmConnection *sc, int version) {
    char path[CONN_ADDR_STR_LEN];
    if (!shmConfig.enabled) {
        sc->phase = SHM_PHASE_PLAIN;
        return shmRefuse(sc, "-ERR shared memory connections are disabled (shm-enabled no)");
    }
    if (version < 1) {
        sc->phase = SHM_PHASE_PLAIN;
        return shmRefuse(sc, "-ERR unsupported shared memory protocol version %d", version);
    }
    if (shmUpgrade(sc, version) == C_OK) return C_OK;
    int err = errno;
    if (sc->c.state == CONN_STATE_ERROR) return C_ERR;
    serverLog(LL_WARNING, "Shared memory: cannot upgrade the client on %s (fd %d): %s",
              shmPeerName(sc, path, sizeof(path)), sc->c.fd, strerror(err));
    sc->phase = SHM_PHASE_PLAIN;
    return shmRefuse(sc, "-ERR cannot set up shared memory: %s", strerror(err));
}

/* connRead() before the connection is known to be plain: the first byte
 * decides (see the top of the file). Returns what a read returns: bytes
 * of the RESP stream (the connection turned plain), 0 at EOF, or -1
 * (EAGAIN while the preface is incomplete or once it was answered). */
static ssize_t shmReadPreface(shmConnection *sc, void *buf, size_t buf_len) {
    connection *conn = &sc->c;
    ssize_t n;
    if (sc->phase == SHM_PHASE_SNIFF) {
        n = connSocketRead(conn, buf, buf_len);
        if (n <= 0) return n;
        if (((unsigned char *)buf)[0] != SHM_UPGRADE_BYTE) {
            sc->phase = SHM_PHASE_PLAIN;
            return n;
        }
        sc->phase = SHM_PHASE_PREFACE;
        if (n > SHM_PREFACE_MAX) {
            n = SHM_PREFACE_MAX + 1; /* Too long to be a preface, whatever it says. */
        } else {
            memcpy(sc->preface, buf, (size_t)n);
        }
        sc->preface_len = (int)n;
    } else {
        n = connSocketRead(conn, sc->preface + sc->preface_len, (size_t)(SHM_PREFACE_MAX - sc->preface_len));
        if (n <= 0) return n;
        sc->preface_len += (int)n;
    }
    int version = 0, done = -1;
    if (sc->preface_len <= SHM_PREFACE_MAX) done = shmPrefaceParse(sc->preface, (size_t)sc->preface_len, &version);
    if (done == 0 && sc->preface_len < SHM_PREFACE_MAX) {
        errno = EAGAIN;
        return -1;
    }
    if (done != sc->preface_len) {
        /* Malformed, or more bytes than the preface: the stream cannot be
         * trusted to be in step. Answer, then fail the connection. */
        char path[CONN_ADDR_STR_LEN];
        serverLog(LL_VERBOSE, "Shared memory: invalid upgrade request from the client on %s (fd %d)",
                  shmPeerName(sc, path, sizeof(path)), sc->c.fd);
        sc->phase = SHM_PHASE_PLAIN;
        shmRefuse(sc, "-ERR Protocol error: invalid shared memory upgrade request");
        conn->state = CONN_STATE_ERROR;
        conn->last_errno = EPROTO;
        errno = EPROTO;
        return -1;
    }
    if (shmAnswerPreface(sc, version) != C_OK) return -1;
    errno = EAGAIN;
    return -1;
}

/* ---------------------------------------------------------------------------
 * I/O
 * ------------------------------------------------------------------------- */

/* connRead(): ring bytes once upgraded (EOF only after the ring is empty),
 * the socket's before. */
static ssize_t shmRead(connection *conn, void *buf, size_t buf_len) {
    shmConnection *sc = (shmConnection *)conn;
    if (sc->phase == SHM_PHASE_PLAIN) return connSocketRead(conn, buf, buf_len);
    if (sc->phase != SHM_PHASE_RINGS) return shmReadPreface(sc, buf, buf_len);
    if (conn->state != CONN_STATE_CONNECTED) {
        if (conn->state == CONN_STATE_CLOSED) return 0;
        errno = conn->last_errno;
        return -1;
    }
    ssize_t n = shmRingRead(&sc->req, buf, buf_len);
    if (n > 0) {
        if (shmRingWakeNeeded(&sc->req)) shmRingPeer(sc); /* It waits for room. */
        if (shmConfig.spin_us) sc->hot_until_us = aeMonotonicUs() + shmConfig.spin_us;
        return n;
    }
    if (n < 0) {
        shmFail(sc, EPROTO, "corrupted its request ring");
        errno = EPROTO;
        return -1;
    }
    if (buf_len > 0 && sc->peer_closed) {
        conn->state = CONN_STATE_CLOSED;
        shmUpdate(sc);
        return 0;
    }
    errno = EAGAIN;
    return -1;
}

/* connWritev(): into the reply ring once upgraded, as much as fits. */
static ssize_t shmWritev(connection *conn, const struct iovec *iov, int iovcnt) {
    shmConnection *sc = (shmConnection *)conn;
    if (sc->phase != SHM_PHASE_RINGS) return connSocketWritev(conn, iov, iovcnt);
    if (conn->state != CONN_STATE_CONNECTED) {
        errno = conn->state == CONN_STATE_CLOSED ? EPIPE : conn->last_errno;
        return -1;
    }
    if (sc->peer_closed) {
        /* Nobody will read: as a socket whose peer is gone. */
        shmFail(sc, EPIPE, NULL);
        errno = EPIPE;
        return -1;
    }
    ssize_t n = shmRingWritev(&sc->rep, iov, iovcnt);
    if (n > 0) {
        if (shmRingWakeNeeded(&sc->rep)) shmRingPeer(sc);
        return n;
    }
    if (n < 0) {
        shmFail(sc, EPROTO, "corrupted its reply ring");
        errno = EPROTO;
        return -1;
    }
    size_t total = 0;
    for (int j = 0; j < iovcnt; j++) total += iov[j].iov_len;
    if (total == 0) return 0;
    errno = EAGAIN;
    return -1;
}

static ssize_t shmWrite(connection *conn, const void *data, size_t data_len) {
    shmConnection *sc = (shmConnection *)conn;
    if (sc->phase != SHM_PHASE_RINGS) return connSocketWrite(conn, data, data_len);
    struct iovec iov = {.iov_base = (void *)data, .iov_len = data_len};
    return shmWritev(conn, &iov, 1);
}

static int shmSetReadHandler(connection *conn, ConnectionCallbackFunc func) {
    shmConnection *sc = (shmConnection *)conn;
    if (sc->phase != SHM_PHASE_RINGS) return connSocketSetReadHandler(conn, func);
    conn->read_handler = func;
    shmUpdate(sc);
    return C_OK;
}

static int shmSetWriteHandler(connection *conn, ConnectionCallbackFunc func, int barrier) {
    shmConnection *sc = (shmConnection *)conn;
    if (sc->phase != SHM_PHASE_RINGS) return connSocketSetWriteHandler(conn, func, barrier);
    conn->write_handler = func;
    if (barrier)
        conn->flags |= CONN_FLAG_WRITE_BARRIER;
    else
        conn->flags &= ~CONN_FLAG_WRITE_BARRIER;
    shmUpdate(sc);
    return C_OK;
}

/* ConnectionType.wait, for blocking I/O (connSync*(), and a forked child
 * serving the connection): arms the ring and sleeps on our doorbell and
 * the socket until it may be ready or deadline_us passes. */
static int shmWait(connection *conn, int mask, long long deadline_us) {
    shmConnection *sc = (shmConnection *)conn;
    if (sc->phase != SHM_PHASE_RINGS) return connSocketWait(conn, mask, deadline_us);
    for (;;) {
        if (conn->state != CONN_STATE_CONNECTED || sc->peer_closed) return C_OK;
        int r = (mask & AE_READABLE) ? shmRingArmRead(&sc->req) : shmRingArmWrite(&sc->rep);
        if (r != 0) return C_OK; /* Ready, or corrupt: the I/O call says which. */
        int ms = -1;
        if (deadline_us != -1) {
            long long left = deadline_us - aeMonotonicUs();
            if (left <= 0) {
                errno = ETIMEDOUT;
                return C_ERR;
            }
            ms = (int)((left + 999) / 1000);
        }
        struct pollfd pfd[2] = {{.fd = sc->bell_fd, .events = POLLIN}, {.fd = conn->fd, .events = POLLIN}};
        int n = poll(pfd, 2, ms);
        if (n == -1 && errno != EINTR) return C_ERR;
        if (n > 0 && pfd[0].revents) shmDrainBell(sc);
        if (n > 0 && pfd[1].revents) {
            char b;
            ssize_t k = recv(conn->fd, &b, 1, MSG_DONTWAIT | MSG_PEEK);
            if (k == 0 || (k == -1 && errno != EAGAIN && errno != EINTR)) sc->peer_closed = 1;
            if (k > 0) {
                conn->state = CONN_STATE_ERROR;
                conn->last_errno = EPROTO;
            }
        }
    }
}

/* ---------------------------------------------------------------------------
 * Connection lifetime
 * ------------------------------------------------------------------------- */

static shmConnection *shmAllocate(int fd, ConnectionState state, shmPhase phase) {
    shmConnection *sc = zcalloc(sizeof(*sc));
    sc->c.type = &CT_Shm;
    sc->c.fd = fd;
    sc->c.state = state;
    sc->phase = phase;
    sc->bell_fd = sc->peer_bell_fd = -1;
    return sc;
}

/* Outgoing connections are plain Unix ones (the server never asks for an
 * upgrade itself). */
static connection *shmCreate(void) {
    return &shmAllocate(-1, CONN_STATE_NONE, SHM_PHASE_PLAIN)->c;
}

/* Takes ownership of an fd the Unix listener accepted (non-blocking). */
static connection *shmCreateAccepted(int fd, void *priv) {
    return &shmAllocate(fd, CONN_STATE_ACCEPTING, SHM_PHASE_SNIFF)->c;
}

/* Shuts the socket down (the client sees EOF); conn stays allocated. */
static void shmShutdown(connection *conn) {
    connSocketShutdown(conn);
}

/* Releases the rings and the socket at once; frees conn unless a handler
 * of it is running (then connCallHandler() frees it afterwards). An
 * upgraded socket is shut down first, so the client learns of the close
 * even if a forked child holds a copy of the fd; not after
 * connHandedToChild() (state CLOSED): the child's session goes on. */
static void shmClose(connection *conn) {
    shmConnection *sc = (shmConnection *)conn;
    int goodbye = sc->phase == SHM_PHASE_RINGS && conn->state != CONN_STATE_CLOSED;
    shmReleaseRings(sc);
    if (conn->fd != -1) {
        aeDeleteFileEvent(connGetEventLoop(), conn->fd, AE_READABLE | AE_WRITABLE);
        if (goodbye) shutdown(conn->fd, SHUT_RDWR);
        close(conn->fd);
        conn->fd = -1;
    }
    conn->read_handler = conn->write_handler = conn->conn_handler = NULL;
    if (connHasRefs(conn)) {
        conn->flags |= CONN_FLAG_CLOSE_SCHEDULED;
        return;
    }
    zfree(sc);
}

/* ---------------------------------------------------------------------------
 * Introspection and registration
 * ------------------------------------------------------------------------- */

/* "shm" for the transport and upgraded connections, "unix" for the others:
 * until it upgrades, a connection is a Unix one in every respect. */
static const char *shmGetType(connection *conn) {
    if (conn && ((shmConnection *)conn)->phase != SHM_PHASE_RINGS) return CONN_NAME_UNIX;
    return CONN_NAME_SHM;
}

static int shmIsLocal(connection *conn) {
    return 1;
}

static const char *shmGetLastError(connection *conn) {
    shmConnection *sc = (shmConnection *)conn;
    if (conn->state == CONN_STATE_ERROR && sc->errstr[0]) return sc->errstr;
    return connSocketGetLastError(conn);
}

/* CLIENT LIST: an upgraded connection ends its line with " shm=<bytes of
 * each ring>"; a plain one adds nothing. */
static const char *shmListFields(connection *conn, char *buf, size_t buf_len) {
    shmConnection *sc = (shmConnection *)conn;
    if (sc->phase == SHM_PHASE_RINGS)
        snprintf(buf, buf_len, " shm=%u", sc->ring_size);
    else if (buf_len)
        buf[0] = '\0';
    return buf;
}

/* The shared region counts as the client's memory. */
static size_t shmMemUsage(connection *conn) {
    shmConnection *sc = (shmConnection *)conn;
    return sc->region ? sc->region_size : 0;
}

/* ConnectionType.configure: priv is a connShmConfig (the shm-* options),
 * copied. The ring size applies to upgrades from now on, the spin time at
 * once. Returns C_OK, or C_ERR for a ring size that is no power of two in
 * [SHM_RING_MIN_SIZE, SHM_RING_MAX_SIZE] or a negative spin time. */
static int shmConfigure(void *priv, int reconfigure) {
    connShmConfig *cfg = priv;
    if (cfg == NULL) return C_OK;
    if (!shmRingSizeValid((uint64_t)cfg->ring_size) || cfg->spin_us < 0) return C_ERR;
    shmConfig = *cfg;
    return C_OK;
}

/* ConnectionType.can_serve_off_thread: a connection that stayed a plain
 * Unix one may be read and written by an I/O thread as a Unix connection
 * is (its phase never changes again); one still deciding, or on rings,
 * may not. */
static int shmCanServeOffThread(connection *conn) {
    return ((shmConnection *)conn)->phase == SHM_PHASE_PLAIN && connSocketCanServeOffThread(conn);
}

static ConnectionType CT_Shm = {
    .get_type = shmGetType,
    .configure = shmConfigure,
    .ae_handler = shmEventHandler,
    .accept_handler = connUnixAcceptHandler,
    .listen = connUnixListen,
    .close_listener = connSocketCloseListener,
    .conn_create = shmCreate,
    .conn_create_accepted = shmCreateAccepted,
    .accept = connSocketAccept,
    .connect = connUnixConnect, /* outgoing connections stay plain Unix ones */
    .blocking_connect = connUnixBlockingConnect,
    .shutdown = shmShutdown,
    .close = shmClose,
    .read = shmRead,
    .write = shmWrite,
    .writev = shmWritev,
    .set_read_handler = shmSetReadHandler,
    .set_write_handler = shmSetWriteHandler,
    .wait = shmWait,
    .has_pending_data = shmHasPendingData,
    .process_pending_data = shmProcessPendingData,
    .addr = connSocketAddr,
    .is_local = shmIsLocal,
    .get_last_error = shmGetLastError,
    .list_fields = shmListFields,
    .mem_usage = shmMemUsage,
    .can_serve_off_thread = shmCanServeOffThread,
    .set_off_thread = connSocketSetOffThread,
};

/* Registers the shared-memory transport (called by connTypeInitialize()).
 * Returns what connTypeRegister() returns. */
int RegisterConnectionTypeShm(void) {
    return connTypeRegister(&CT_Shm);
}
