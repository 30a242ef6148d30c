/* cli_conn_shm.c - the tools' shared-memory transport ("shm": --shm with
 * -s <socket> in valkey-cli and valkey-benchmark).
 *
 * A thin cliConnType over the client library (libvkshm.c): the connect
 * (Unix socket, upgrade, mapping) is done by vkshmConnect(), blocking
 * even for event-driven connections since it is one round trip on this
 * host; a server that refuses fails the connect with its reason. The
 * connection's pollable fd is the library's (an epoll fd over our
 * doorbell and the socket); process() resets the doorbell and notices
 * the server closing.
 *
 * Event-driven connections (valkey-benchmark) have no writable event
 * (CLI_CONN_TYPE_NO_WRITABLE_EVENT): pending() tells the glue's
 * before-sleep pass what a read or write can do now, reading only the
 * rings. After a write or a read that moved bytes a connection is hot for
 * the spin time (the server's shm-spin-us): the event loop's spin hook
 * (aeSetSpinProc) polls its reply ring instead of sleeping, so a reply
 * that comes within that time costs neither side a system call. A
 * connection that is not hot is armed before the loop sleeps: the server
 * rings our doorbell. Blocking connections (valkey-cli) wait in
 * vkshmWait(): spin, then sleep on the doorbell and the socket.
 *
 * Threads: a connection belongs to the thread of its event loop; the hot
 * list is per thread. Leaf code: no server header. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli_transport.h"
#include "libvkshm.h"
#include "zmalloc.h"

const cliConnType cliConnTypeShm;

typedef struct shmCliConn {
    cliConn c;                /* Must be first: the glue's view. c.fd = vkshmPollFd(). */
    vkshmConn *shm;           /* Owned. */
    int blocking;             /* Connected with blocking=1: I/O waits here. */
    long long hot_until_us;   /* The spin hook polls the ring until then. */
    int hot;
    struct shmCliConn *hot_prev, *hot_next;
} shmCliConn;

static __thread shmCliConn *hotHead; /* This thread's hot connections. */

static long long nowUs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static void hotRemove(shmCliConn *sc) {
    if (!sc->hot) return;
    if (sc->hot_prev)
        sc->hot_prev->hot_next = sc->hot_next;
    else
        hotHead = sc->hot_next;
    if (sc->hot_next) sc->hot_next->hot_prev = sc->hot_prev;
    sc->hot = 0;
    sc->hot_prev = sc->hot_next = NULL;
}

/* Bytes moved: poll this connection's ring for the spin time. */
static void makeHot(shmCliConn *sc) {
    int spin = vkshmSpinUs(sc->shm);
    if (sc->blocking || spin <= 0 || !sc->c.el) return;
    sc->hot_until_us = nowUs() + spin;
    if (sc->hot) return;
    sc->hot = 1;
    sc->hot_prev = NULL;
    sc->hot_next = hotHead;
    if (hotHead) hotHead->hot_prev = sc;
    hotHead = sc;
}

/* The CLI_PENDING_* bits of what the ring allows now. */
static int readyBits(shmCliConn *sc) {
    int r = vkshmReady(sc->shm), p = 0;
    if (r & VKSHM_READABLE) p |= CLI_PENDING_READ;
    if (r & VKSHM_WRITABLE) p |= CLI_PENDING_WRITE;
    return p;
}

/* What the handlers installed wait for, as VKSHM_* events. */
static int wantedEvents(shmCliConn *sc) {
    return (sc->c.read_handler ? VKSHM_READABLE : 0) | (sc->c.write_handler ? VKSHM_WRITABLE : 0);
}

/* The spin hook of every event loop that has shm connections (ae.h).
 * Peeking polls the reply rings of hot connections and arms those whose
 * spin time ran out; the glue's before-sleep pass (pending()) runs the
 * handlers, so dispatching has nothing left to do. */
static int shmCliSpin(aeEventLoop *el, int op) {
    if (op == AE_SPIN_DISPATCH) return 0;
    long long now = nowUs();
    int any = 0;
    shmCliConn *next;
    for (shmCliConn *sc = hotHead; sc; sc = next) {
        next = sc->hot_next;
        if (sc->c.el != el) continue;
        int want = wantedEvents(sc);
        if (vkshmReady(sc->shm) & want) return AE_SPIN_READY;
        if (now >= sc->hot_until_us) {
            hotRemove(sc);
            if (vkshmArm(sc->shm, want) != 0) return AE_SPIN_READY;
        } else {
            any = 1;
        }
    }
    return any ? AE_SPIN_AGAIN : AE_SPIN_DONE;
}

static int shmCliFail(shmCliConn *sc) {
    cliConnSetError(&sc->c, errno ? errno : EIO, "%s", vkshmError(sc->shm));
    return CLI_ERR;
}

/* ---------------------------------------------------------------------------
 * cliConnType callbacks
 * ------------------------------------------------------------------------- */

/* Connects to addr->path and upgrades (blocking, at most timeout_ms; 0 =
 * the library's limit). Returns the connection, or NULL with err set. */
static cliConn *shmCliConnect(const cliConnAddr *addr, int blocking, long long timeout_ms, char *err, size_t errlen) {
    if (!addr->path) {
        snprintf(err, errlen, "--shm needs the server's Unix socket (-s <socket>)");
        return NULL;
    }
    vkshmOptions opts = {.spin_us = -1, .fallback = 0, .timeout_ms = timeout_ms};
    vkshmConn *shm = vkshmConnect(addr->path, &opts, err, errlen);
    if (!shm) return NULL;
    shmCliConn *sc = zcalloc(sizeof(*sc));
    sc->c.type = &cliConnTypeShm;
    sc->c.fd = vkshmPollFd(shm);
    sc->c.state = CLI_CONN_CONNECTED;
    sc->shm = shm;
    sc->blocking = blocking;
    /* Connected already: cliConnConnect() waits for the fd to say so, so
     * make it readable once (connect_step() then reports success). */
    if (!blocking) vkshmNotify(shm);
    return &sc->c;
}

/* The fd turned readable while "connecting": the connect succeeded. */
static int shmCliConnectStep(cliConn *c) {
    shmCliConn *sc = (shmCliConn *)c;
    if (c->el) aeSetSpinProc(c->el, shmCliSpin);
    return vkshmProcess(sc->shm) == 0 ? CLI_OK : shmCliFail(sc);
}

/* The fd turned readable: the doorbell rang or the socket changed. */
static int shmCliProcess(cliConn *c) {
    shmCliConn *sc = (shmCliConn *)c;
    return vkshmProcess(sc->shm) == 0 ? CLI_OK : shmCliFail(sc);
}

static ssize_t shmCliRead(cliConn *c, void *buf, size_t len) {
    shmCliConn *sc = (shmCliConn *)c;
    if (len == 0) return 0;
    for (;;) {
        ssize_t n = vkshmRead(sc->shm, buf, len);
        if (n > 0) {
            makeHot(sc);
            return n;
        }
        if (n == 0) {
            c->state = CLI_CONN_CLOSED;
            return 0;
        }
        if (errno != EAGAIN) {
            shmCliFail(sc);
            return -1;
        }
        if (!sc->blocking) return -1;
        if (vkshmWait(sc->shm, VKSHM_READABLE, -1) < 0) {
            shmCliFail(sc);
            return -1;
        }
    }
}

static ssize_t shmCliWritev(cliConn *c, const struct iovec *iov, int iovcnt) {
    shmCliConn *sc = (shmCliConn *)c;
    for (;;) {
        ssize_t n = vkshmWritev(sc->shm, iov, iovcnt);
        if (n >= 0) {
            if (n > 0) makeHot(sc);
            return n;
        }
        if (errno != EAGAIN) {
            shmCliFail(sc);
            return -1;
        }
        if (!sc->blocking) return -1;
        if (vkshmWait(sc->shm, VKSHM_WRITABLE, -1) < 0) {
            shmCliFail(sc);
            return -1;
        }
    }
}

static ssize_t shmCliWrite(cliConn *c, const void *buf, size_t len) {
    struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
    return shmCliWritev(c, &iov, 1);
}

/* What the glue may do now without waiting. With nothing to do, a hot
 * connection is left to the spin hook; any other is armed, so that the
 * server rings our doorbell (and if arming finds work, it is reported). */
static int shmCliPending(cliConn *c) {
    shmCliConn *sc = (shmCliConn *)c;
    int want = wantedEvents(sc);
    int p = readyBits(sc);
    if ((p & CLI_PENDING_READ && want & VKSHM_READABLE) || (p & CLI_PENDING_WRITE && want & VKSHM_WRITABLE))
        return p;
    if (sc->hot && nowUs() < sc->hot_until_us) return 0;
    hotRemove(sc);
    if (vkshmArm(sc->shm, want) != 0) return readyBits(sc);
    return 0;
}

static void shmCliClose(cliConn *c) {
    shmCliConn *sc = (shmCliConn *)c;
    hotRemove(sc);
    vkshmClose(sc->shm);
    zfree(sc);
}

const cliConnType cliConnTypeShm = {
    .name = CLI_CONN_SHM,
    .flags = CLI_CONN_TYPE_NO_WRITABLE_EVENT,
    .fds_per_conn = 4, /* the socket, two doorbells, the epoll fd */
    .connect = shmCliConnect,
    .connect_step = shmCliConnectStep,
    .read = shmCliRead,
    .write = shmCliWrite,
    .writev = shmCliWritev,
    .close = shmCliClose,
    .process = shmCliProcess,
    .pending = shmCliPending,
};
