/* tclshm.c - a shared-memory client channel for Tcl 8.6, so that the Tcl
 * integration suite (./runtest --shm) reaches servers through the rings
 * of the "shm" transport with the very same RESP client it uses over TCP.
 *
 *   load tests/shm/libtclshm.so Tclshm
 *   set fd [shm::connect /path/to/server.sock ?-timeout ms? ?-fallback?]
 *   fconfigure $fd -translation binary ;# then puts/flush/read/gets/fileevent
 *
 * shm::connect connects to the server's Unix socket and upgrades it
 * (libvkshm.c); a refusal is an error carrying the server's reason, unless
 * -fallback asks to keep the socket as a plain connection. It returns an
 * ordinary Tcl channel: blocking and non-blocking reads and writes,
 * `fileevent readable/writable`, `close`, and the options -shared (1 when
 * the rings are in use), -ringsize and -error.
 *
 * How Tcl's channel model maps onto the library:
 * - Reads copy out of the reply ring; a blocking read that finds it empty
 *   waits in vkshmWait() (spin for the server's shm-spin-us, then sleep on
 *   the doorbell and the socket). Writes copy into the request ring; when
 *   it is full a blocking channel waits for room, a non-blocking one says
 *   EAGAIN and Tcl's background flush retries on TCL_WRITABLE.
 * - Readiness: a file handler watches the library's poll fd (our doorbell
 *   and the socket). Before Tcl may sleep, watch() arms the ring for what
 *   Tcl waits for, so the server rings; what is there already is reported
 *   by a zero-delay timer, since no fd event will announce it.
 * - The server closing (EOF on the socket) is EOF after the bytes it sent;
 *   writes after that are dropped, as a TCP socket does with its first
 *   write after the peer's FIN.
 *
 * Everything runs in the interpreter's thread. Build: make -C src tclshm
 * (needs tcl-dev). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tcl.h>

#include "libvkshm.h"

#define TCLSHM_DEFAULT_TIMEOUT_MS 10000

/* One Tcl channel. Allocated by shm::connect, freed by close. */
typedef struct tclShmChan {
    Tcl_Channel chan;      /* Our Tcl channel (NULL until created). */
    vkshmConn *conn;       /* Owned. */
    int blocking;          /* Tcl's -blocking. */
    int watch_mask;        /* TCL_READABLE|TCL_WRITABLE Tcl waits for. */
    int handler_on;        /* The file handler is installed on the poll fd. */
    Tcl_TimerToken timer;  /* A pending synthetic notification. */
} tclShmChan;

static int chanSeq; /* For channel names: shm0, shm1, ... */

/* ---------------------------------------------------------------------------
 * Readiness
 * ------------------------------------------------------------------------- */

/* What Tcl could do now without waiting, as TCL_* bits. */
static int chanReadyMask(tclShmChan *sc) {
    if (!vkshmIsShared(sc->conn)) return 0; /* A plain socket: the fd says. */
    int r = vkshmReady(sc->conn), mask = 0;
    if (r & VKSHM_READABLE) mask |= TCL_READABLE;
    if (r & VKSHM_WRITABLE) mask |= TCL_WRITABLE;
    return mask;
}

/* Tells Tcl about readiness it waits for. Tcl may run a fileevent script
 * that closes the channel: sc must not be touched afterwards. */
static void chanNotify(tclShmChan *sc, int mask) {
    mask &= sc->watch_mask;
    if (mask) Tcl_NotifyChannel(sc->chan, mask);
}

/* Arms the ring for what Tcl waits for (so the server rings) or, if it is
 * there already, schedules a zero-delay notification. */
static void chanTimerProc(ClientData cd);
static void chanArm(tclShmChan *sc) {
    if (!sc->watch_mask || !vkshmIsShared(sc->conn)) return;
    int events = ((sc->watch_mask & TCL_READABLE) ? VKSHM_READABLE : 0) |
                 ((sc->watch_mask & TCL_WRITABLE) ? VKSHM_WRITABLE : 0);
    if (vkshmArm(sc->conn, events) != 0 && sc->timer == NULL)
        sc->timer = Tcl_CreateTimerHandler(0, chanTimerProc, sc);
}

static void chanTimerProc(ClientData cd) {
    tclShmChan *sc = cd;
    sc->timer = NULL;
    int mask = chanReadyMask(sc);
    if (mask & sc->watch_mask) {
        chanNotify(sc, mask);
        return; /* Tcl re-states its interest through watch(). */
    }
    chanArm(sc);
}

/* The poll fd turned readable: the doorbell rang, or the socket changed
 * (or, for a plain connection, the socket has data). */
static void chanFdProc(ClientData cd, int fdmask) {
    tclShmChan *sc = cd;
    if (!vkshmIsShared(sc->conn)) {
        chanNotify(sc, fdmask);
        return;
    }
    vkshmProcess(sc->conn);
    int mask = chanReadyMask(sc);
    if (mask & sc->watch_mask) {
        chanNotify(sc, mask);
        return;
    }
    chanArm(sc);
}

/* ---------------------------------------------------------------------------
 * The channel driver
 * ------------------------------------------------------------------------- */

static int chanBlockMode(ClientData cd, int mode) {
    tclShmChan *sc = cd;
    sc->blocking = (mode == TCL_MODE_BLOCKING);
    return 0;
}

/* Returns bytes read, 0 at EOF, or -1 with *errp (EAGAIN: nothing yet on a
 * non-blocking channel). */
static int chanInput(ClientData cd, char *buf, int toRead, int *errp) {
    tclShmChan *sc = cd;
    *errp = 0;
    if (toRead <= 0) return 0;
    int checked = 0;
    for (;;) {
        ssize_t n = vkshmRead(sc->conn, buf, (size_t)toRead);
        if (n >= 0) return (int)n;
        if (errno != EAGAIN) {
            *errp = errno;
            return -1;
        }
        if (!sc->blocking) {
            /* A non-blocking socket read learns a close from the kernel:
             * learn it here from the socket beside the rings, then read
             * once more (the server's last bytes come before its EOF). */
            if (!checked) {
                checked = 1;
                vkshmProcess(sc->conn);
                continue;
            }
            *errp = EAGAIN;
            return -1;
        }
        if (vkshmWait(sc->conn, VKSHM_READABLE, -1) < 0) {
            *errp = errno;
            return -1;
        }
    }
}

/* Returns bytes taken, or -1 with *errp (EAGAIN: no room on a non-blocking
 * channel). */
static int chanOutput(ClientData cd, const char *buf, int toWrite, int *errp) {
    tclShmChan *sc = cd;
    *errp = 0;
    if (toWrite <= 0) return 0;
    for (;;) {
        ssize_t n = vkshmWrite(sc->conn, buf, (size_t)toWrite);
        if (n >= 0) return (int)n;
        /* The server closed: nobody will read this, and as with a TCP
         * socket's first write after the peer's FIN the write is not the
         * one to fail; the next read reports EOF after what was sent. */
        if (errno == EPIPE) return toWrite;
        if (errno != EAGAIN) {
            *errp = errno;
            return -1;
        }
        if (!sc->blocking) {
            *errp = EAGAIN;
            return -1;
        }
        if (vkshmWait(sc->conn, VKSHM_WRITABLE, -1) < 0) {
            *errp = errno;
            return -1;
        }
    }
}

static void chanWatch(ClientData cd, int mask) {
    tclShmChan *sc = cd;
    sc->watch_mask = mask & (TCL_READABLE | TCL_WRITABLE);
    int fd = vkshmPollFd(sc->conn);
    if (sc->watch_mask) {
        /* The shared poll fd only ever turns readable; a plain socket is
         * watched for what Tcl asks. */
        int fdmask = vkshmIsShared(sc->conn) ? TCL_READABLE : sc->watch_mask;
        Tcl_CreateFileHandler(fd, fdmask, chanFdProc, sc);
        sc->handler_on = 1;
        chanArm(sc);
    } else if (sc->handler_on) {
        Tcl_DeleteFileHandler(fd);
        sc->handler_on = 0;
    }
}

static int chanClose(ClientData cd, Tcl_Interp *interp) {
    tclShmChan *sc = cd;
    if (sc->timer) Tcl_DeleteTimerHandler(sc->timer);
    if (sc->handler_on) Tcl_DeleteFileHandler(vkshmPollFd(sc->conn));
    vkshmClose(sc->conn);
    ckfree((char *)sc);
    return 0;
}

static int chanGetOption(ClientData cd, Tcl_Interp *interp, const char *name, Tcl_DString *ds) {
    tclShmChan *sc = cd;
    int all = (name == NULL);
    char num[32];
    if (all || !strcmp(name, "-shared")) {
        if (all) Tcl_DStringAppendElement(ds, "-shared");
        Tcl_DStringAppendElement(ds, vkshmIsShared(sc->conn) ? "1" : "0");
        if (!all) return TCL_OK;
    }
    if (all || !strcmp(name, "-ringsize")) {
        snprintf(num, sizeof(num), "%zu", vkshmRingSize(sc->conn));
        if (all) Tcl_DStringAppendElement(ds, "-ringsize");
        Tcl_DStringAppendElement(ds, num);
        if (!all) return TCL_OK;
    }
    if (all || !strcmp(name, "-error")) {
        if (all) Tcl_DStringAppendElement(ds, "-error");
        Tcl_DStringAppendElement(ds, vkshmError(sc->conn));
        if (!all) return TCL_OK;
    }
    if (all) return TCL_OK;
    return Tcl_BadChannelOption(interp, name, "error ringsize shared");
}

static int chanGetHandle(ClientData cd, int direction, ClientData *handlep) {
    tclShmChan *sc = cd;
    if (direction != TCL_READABLE) return TCL_ERROR;
    *handlep = (ClientData)(intptr_t)vkshmPollFd(sc->conn);
    return TCL_OK;
}

static Tcl_ChannelType shmChannelType = {
    .typeName = "shm",
    .version = TCL_CHANNEL_VERSION_5,
    .closeProc = chanClose,
    .inputProc = chanInput,
    .outputProc = chanOutput,
    .getOptionProc = chanGetOption,
    .watchProc = chanWatch,
    .getHandleProc = chanGetHandle,
    .blockModeProc = chanBlockMode,
};

/* ---------------------------------------------------------------------------
 * shm::connect
 * ------------------------------------------------------------------------- */

static int shmConnectCmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[]) {
    if (objc < 2) {
        Tcl_WrongNumArgs(interp, 1, objv, "path ?-timeout ms? ?-fallback?");
        return TCL_ERROR;
    }
    vkshmOptions opts = {.spin_us = -1, .fallback = 0, .timeout_ms = TCLSHM_DEFAULT_TIMEOUT_MS};
    for (int j = 2; j < objc; j++) {
        const char *opt = Tcl_GetString(objv[j]);
        if (!strcmp(opt, "-fallback")) {
            opts.fallback = 1;
        } else if (!strcmp(opt, "-timeout") && j + 1 < objc) {
            Tcl_WideInt ms;
            if (Tcl_GetWideIntFromObj(interp, objv[++j], &ms) != TCL_OK) return TCL_ERROR;
            opts.timeout_ms = ms;
        } else {
            Tcl_SetObjResult(interp, Tcl_ObjPrintf("bad option \"%s\": must be -timeout or -fallback", opt));
            return TCL_ERROR;
        }
    }
    char err[256];
    vkshmConn *conn = vkshmConnect(Tcl_GetString(objv[1]), &opts, err, sizeof(err));
    if (!conn) {
        Tcl_SetObjResult(interp, Tcl_ObjPrintf("couldn't open shared memory connection to \"%s\": %s",
                                               Tcl_GetString(objv[1]), err));
        return TCL_ERROR;
    }
    tclShmChan *sc = (tclShmChan *)ckalloc(sizeof(*sc));
    memset(sc, 0, sizeof(*sc));
    sc->conn = conn;
    sc->blocking = 1;
    char name[32];
    snprintf(name, sizeof(name), "shm%d", chanSeq++);
    sc->chan = Tcl_CreateChannel(&shmChannelType, name, sc, TCL_READABLE | TCL_WRITABLE);
    Tcl_RegisterChannel(interp, sc->chan);
    Tcl_SetObjResult(interp, Tcl_NewStringObj(name, -1));
    return TCL_OK;
}

/* Package entry point: `load libtclshm.so Tclshm`. */
int Tclshm_Init(Tcl_Interp *interp) {
    if (Tcl_InitStubs(interp, "8.6", 0) == NULL) return TCL_ERROR;
    if (Tcl_FindNamespace(interp, "::shm", NULL, 0) == NULL && Tcl_CreateNamespace(interp, "::shm", NULL, NULL) == NULL)
        return TCL_ERROR;
    Tcl_CreateObjCommand(interp, "::shm::connect", shmConnectCmd, NULL, NULL);
    return Tcl_PkgProvide(interp, "tclshm", "1.0");
}
