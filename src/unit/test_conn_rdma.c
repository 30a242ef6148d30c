/* test_conn_rdma.c - tests of the server's RDMA transport (conn_rdma.c)
 * as a connection.h ConnectionType, above all its outgoing side (connect,
 * blocking_connect), which replication over RDMA uses.
 *
 * Anywhere (no RDMA device needed): a connect to a name that does not
 * resolve, and to 127.0.0.1 (no RDMA device there, or none at all: no
 * rdma_ucm on this host), fails with state ERROR and an "RDMA: cannot
 * connect to host:port: ..." reason, through the handler or at once; a
 * blocking connect likewise; nothing leaks or crashes.
 *
 * With RDMA devices (inside utils/rdma-vm, which sets RDMA_SERVER_ADDR and
 * RDMA_CLIENT_ADDR; tests/rdma/replication.sh runs this binary there): a
 * listener on RDMA_SERVER_ADDR, connects to it from RDMA_CLIENT_ADDR, bytes
 * both ways across a small (64 KiB) RX window, a server handler closing its
 * own connection (the client sees EOF), the client closing (the server sees
 * EOF), a connect to a port nobody listens on (refused, the handler sees
 * why), a connection closed while it is still connecting, and a blocking
 * connect with the sync I/O calls against a server in a child process;
 * and one-sided READs of memory exposed on one connection (conn_rdma.h),
 * refused to any other connection and once unregistered.
 *
 * The transports are server objects and unit tests link leaf objects only,
 * so the transport sources are compiled in here (they include no server
 * header); the event loop is driven as the server does, with the
 * transports' pending-data pass after each round. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "anet.h"
#include "connection.h"
#include "conn_rdma.h"
#include "log.h"
#include "unittest.h"

#include "conn_rdma.c"
#include "conn_socket.c"
#include "conn_unix.c"
/* Linked in, the weak transport hooks compare as always true: expected. */
#pragma GCC diagnostic ignored "-Waddress"
#include "connection.c"

static aeEventLoop *el;

/* One round of the server's loop: events, then the transports' queued
 * handler work (the before-sleep pass). */
static void loopOnce(void) {
    aeProcessEvents(el, AE_ALL_EVENTS | AE_DONT_WAIT);
    connTypesProcessPendingData();
}

/* Runs the loop until *flag becomes non-zero or ms pass; returns *flag. */
static int runUntilMs(int *flag, long long ms) {
    long long end = aeMonotonicUs() + ms * 1000;
    while (!*flag && aeMonotonicUs() < end) loopOnce();
    return *flag;
}

#define RUN_UNTIL(flag) ASSERT(runUntilMs(&(flag), 10000))

/* ---------------------------------------------------------------------------
 * Server side
 * ------------------------------------------------------------------------- */

static connection *serverConn;
static int accepted, serverSawEof, serverClosedSelf;
static char serverBuf[1 << 20];
static size_t serverBufLen;

static void serverAcceptedHandler(connection *conn) {
    (void)conn;
}

/* Collects bytes; "close" makes the handler close its own connection,
 * "PING\r\n" is answered with "+PONG\r\n". */
static void serverReadHandler(connection *conn) {
    for (;;) {
        ssize_t n = connRead(conn, serverBuf + serverBufLen, sizeof(serverBuf) - 1 - serverBufLen);
        if (n == 0) {
            serverSawEof = 1;
            connClose(conn);
            serverConn = NULL;
            return;
        }
        if (n < 0) return;
        serverBufLen += n;
        serverBuf[serverBufLen] = '\0';
    }
}

static void serverCheckCommands(void) {
    if (serverConn && strstr(serverBuf, "close")) {
        connClose(serverConn);
        serverConn = NULL;
        serverClosedSelf = 1;
    } else if (serverConn && strstr(serverBuf, "PING\r\n")) {
        serverBufLen = 0;
        serverBuf[0] = '\0';
        ASSERT(connWrite(serverConn, "+PONG\r\n", 7) == 7);
    }
}

static void onAccept(connection *conn, int flags, const char *ip) {
    ASSERT(connGetState(conn) == CONN_STATE_ACCEPTING);
    ASSERT(flags == 7);
    ASSERT(ip != NULL);
    ASSERT(connAccept(conn, serverAcceptedHandler) == C_OK);
    ASSERT(connSetReadHandler(conn, serverReadHandler) == C_OK);
    serverConn = conn;
    accepted = 1;
}

static void resetServer(void) {
    serverConn = NULL;
    accepted = serverSawEof = serverClosedSelf = 0;
    serverBufLen = 0;
    serverBuf[0] = '\0';
}

/* ---------------------------------------------------------------------------
 * Client side
 * ------------------------------------------------------------------------- */

static int connected, connectState, clientGotEof;
static char connectError[512];
static char clientBuf[1 << 20];
static size_t clientBufLen;

static void onConnected(connection *conn) {
    connectState = connGetState(conn);
    const char *err = connGetLastError(conn);
    snprintf(connectError, sizeof(connectError), "%s", err ? err : "");
    connected = 1;
}

static void clientReadHandler(connection *conn) {
    for (;;) {
        ssize_t n = connRead(conn, clientBuf + clientBufLen, sizeof(clientBuf) - 1 - clientBufLen);
        if (n == 0) {
            clientGotEof = 1;
            connSetReadHandler(conn, NULL);
            return;
        }
        if (n < 0) return;
        clientBufLen += n;
        clientBuf[clientBufLen] = '\0';
    }
}

static void resetClient(void) {
    connected = connectState = clientGotEof = 0;
    connectError[0] = '\0';
    clientBufLen = 0;
    clientBuf[0] = '\0';
}

static int startsWith(const char *s, const char *prefix) {
    return s && !strncmp(s, prefix, strlen(prefix));
}

/* ---------------------------------------------------------------------------
 * Anywhere
 * ------------------------------------------------------------------------- */

/* A connect that cannot work: C_ERR at once, or C_OK and then the handler
 * with ERROR. Either way the reason starts with "RDMA: cannot connect to
 * <want>". */
static void expectConnectFailure(const char *host, int port, const char *want) {
    ConnectionType *ct = connTypeGetByName(CONN_NAME_RDMA);
    char prefix[256];
    snprintf(prefix, sizeof(prefix), "RDMA: cannot connect to %s: ", want);
    resetClient();
    connection *c = connCreate(ct);
    ASSERT(connGetState(c) == CONN_STATE_NONE);
    if (connConnect(c, host, port, NULL, onConnected) == C_OK) {
        ASSERT(connGetState(c) == CONN_STATE_CONNECTING);
        RUN_UNTIL(connected);
        ASSERT(connectState == CONN_STATE_ERROR);
        ASSERT(startsWith(connectError, prefix));
    }
    ASSERT(connGetState(c) == CONN_STATE_ERROR);
    ASSERT(startsWith(connGetLastError(c), prefix));
    connClose(c);

    c = connCreate(ct);
    ASSERT(connBlockingConnect(c, host, port, 5000) == C_ERR);
    ASSERT(connGetState(c) == CONN_STATE_ERROR);
    ASSERT(startsWith(connGetLastError(c), prefix));
    connClose(c);
}

static void testFailuresAnywhere(void) {
    expectConnectFailure("no-such-host.invalid", 6379, "no-such-host.invalid:6379");
    /* No RDMA device has 127.0.0.1 (or this host has no RDMA at all). */
    expectConnectFailure("127.0.0.1", 6379, "127.0.0.1:6379");
    expectConnectFailure("::1", 6379, "[::1]:6379");
}

/* ---------------------------------------------------------------------------
 * With RDMA devices
 * ------------------------------------------------------------------------- */

/* An outgoing connection to addr:port from src, established and accepted.
 * Returns it (CONNECTED). */
static connection *connectRdma(const char *addr, int port, const char *src) {
    resetServer();
    resetClient();
    connection *c = connCreate(connTypeGetByName(CONN_NAME_RDMA));
    ASSERT(connConnect(c, addr, port, src, onConnected) == C_OK);
    ASSERT(connGetState(c) == CONN_STATE_CONNECTING);
    RUN_UNTIL(connected);
    ASSERT(connectState == CONN_STATE_CONNECTED);
    RUN_UNTIL(accepted);
    ASSERT(connGetState(c) == CONN_STATE_CONNECTED);
    return c;
}

/* Writes all of buf through c from the event loop (the window may be
 * full: EAGAIN until the peer re-advertises it). */
static void writeAll(connection *c, const char *buf, size_t len) {
    size_t done = 0;
    long long end = aeMonotonicUs() + 20000000LL;
    while (done < len && aeMonotonicUs() < end) {
        ssize_t n = connWrite(c, buf + done, len - done);
        if (n > 0)
            done += n;
        else
            ASSERT(n == -1 && errno == EAGAIN);
        loopOnce();
    }
    ASSERT(done == len);
}

/* The peer of testBlocking(): a server in a process of its own (a
 * blocking connect handles only its own connection's events, so its peer
 * cannot be served by the same loop), forked before the parent touches
 * any RDMA object (a child cannot use its parent's verbs contexts). Answers
 * PING, closes on "close", exits 0 when done or 1 after 60 s. */
static pid_t startPongServer(const char *saddr, int port) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid != 0) return pid;
    el = aeCreateEventLoop(1024);
    if (connTypeInitialize(el) != C_OK) _exit(2);
    connRdmaListenerConfig cfg = {.rx_size = 65536, .comp_vector = -1};
    char *addrs[] = {(char *)saddr};
    connListener l = {.ct = connTypeGetByName(CONN_NAME_RDMA), .bindaddr = addrs, .bindaddr_count = 1,
                      .port = port, .priv = &cfg, .accept_cb = onAccept, .accept_flags = 7};
    if (connListen(&l) != C_OK) _exit(2);
    resetServer();
    long long end = aeMonotonicUs() + 60000000LL;
    while (!serverClosedSelf && aeMonotonicUs() < end) {
        loopOnce();
        serverCheckCommands();
    }
    /* Let the close's disconnect go out before the process does. */
    int never = 0;
    runUntilMs(&never, 200);
    _exit(serverClosedSelf ? 0 : 1);
}

/* Blocking connect and the sync calls (the replication handshake's)
 * against startPongServer()'s child. When it closes, a blocking read ends
 * with EOF at once rather than at its deadline. */
static void testBlocking(const char *saddr, int port, pid_t pid) {
    ASSERT(pid > 0);
    ConnectionType *ct = connTypeGetByName(CONN_NAME_RDMA);
    connection *c = NULL;
    for (int tries = 0; tries < 100; tries++) { /* Until the child listens. */
        c = connCreate(ct);
        if (connBlockingConnect(c, saddr, port, 10000) == C_OK) break;
        connClose(c);
        c = NULL;
        usleep(100000);
    }
    ASSERT(c != NULL);
    if (c) {
        ASSERT(connGetState(c) == CONN_STATE_CONNECTED);
        ssize_t w = connSyncWrite(c, "PING\r\n", 6, 10000);
        if (w != 6) printf("connSyncWrite: %s\n", connGetLastError(c) ? connGetLastError(c) : strerror(errno));
        ASSERT(w == 6);
        char line[64];
        ASSERT(connSyncReadLine(c, line, sizeof(line), 10000) == 5);
        ASSERT(!strcmp(line, "+PONG"));
        errno = 0;
        ASSERT(connSyncRead(c, line, 4, 50) == -1 && errno == ETIMEDOUT);
        ASSERT(connSyncWrite(c, "close", 5, 10000) == 5);
        long long start = aeMonotonicUs();
        ASSERT(connSyncRead(c, line, 4, 20000) == -1);
        ASSERT(aeMonotonicUs() - start < 15000000LL);
        connClose(c);
    }
    int status = -1;
    ASSERT(waitpid(pid, &status, 0) == pid);
    ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* One-sided access (conn_rdma.h): memory the server side exposes on one
 * connection is READ by that connection's peer; a second connection with
 * the same address and key is refused (another protection domain), and
 * after the server unregisters it the first is refused too. */
static void testReadExposed(const char *saddr, int port, const char *caddr) {
    enum { LEN = 200000 };
    char *mem = malloc(LEN), *dst = malloc(LEN);
    for (int j = 0; j < LEN; j++) mem[j] = (char)('A' + j % 51);
    connection *c = connectRdma(saddr, port, caddr);
    connection *exposing = serverConn;
    ASSERT(connIsRdma(c) && connIsRdma(exposing));
    long long end = aeMonotonicUs() + 10000000LL; /* ESTABLISHED on the server side too */
    while (connGetState(exposing) != CONN_STATE_CONNECTED && aeMonotonicUs() < end) loopOnce();
    uint32_t rkey = 0;
    void *exposed = connRdmaExpose(exposing, mem, LEN, &rkey);
    ASSERT(exposed != NULL);
    void *local = connRdmaRegisterLocal(c, dst, LEN);
    ASSERT(local != NULL);
    ASSERT(connRdmaPostRead(c, local, dst, (uintptr_t)mem, rkey, LEN / 2, 5) == 1);
    ASSERT(connRdmaPostRead(c, local, dst + LEN / 2, (uintptr_t)mem + LEN / 2, rkey, LEN - LEN / 2, 6) == 1);
    uint64_t tags[4];
    int got = 0;
    end = aeMonotonicUs() + 10000000LL;
    while (got < 2 && aeMonotonicUs() < end) {
        int n = connRdmaReadsDone(c, tags + got, 4 - got);
        ASSERT(n >= 0);
        got += n;
        loopOnce();
    }
    ASSERT(got == 2 && tags[0] == 5 && tags[1] == 6);
    ASSERT(!memcmp(dst, mem, LEN));

    /* A thief: its own connection, the same address and key. */
    connection *thief = connectRdma(saddr, port, caddr);
    void *tlocal = connRdmaRegisterLocal(thief, dst, LEN);
    ASSERT(tlocal != NULL);
    ASSERT(connRdmaPostRead(thief, tlocal, dst, (uintptr_t)mem, rkey, 4096, 7) == 1);
    int r = 0;
    end = aeMonotonicUs() + 10000000LL;
    while (r == 0 && aeMonotonicUs() < end) {
        r = connRdmaReadsDone(thief, tags, 4);
        loopOnce();
    }
    ASSERT(r == -1);
    ASSERT(connGetState(thief) == CONN_STATE_ERROR);
    ASSERT(strstr(connGetLastError(thief), "remote access error") != NULL);
    connClose(thief);

    /* Unregistered: the replica's own READ is refused now too. */
    connRdmaUnregister(exposing, exposed);
    ASSERT(connRdmaPostRead(c, local, dst, (uintptr_t)mem, rkey, 4096, 8) == 1);
    r = 0;
    end = aeMonotonicUs() + 10000000LL;
    while (r == 0 && aeMonotonicUs() < end) {
        r = connRdmaReadsDone(c, tags, 4);
        loopOnce();
    }
    ASSERT(r == -1);
    connClose(c);
    connClose(exposing);
    free(mem);
    free(dst);
}

static void testWithDevices(const char *saddr, const char *caddr, pid_t pong_pid) {
    connRdmaListenerConfig cfg = {.rx_size = 65536, .comp_vector = -1};
    ConnectionType *ct = connTypeGetByName(CONN_NAME_RDMA);
    ASSERT(connTypeConfigure(ct, &cfg, 0) == C_OK); /* Our side's window, too. */
    char *addrs[] = {(char *)saddr};
    int port = 6000 + (getpid() % 2000) * 4; /* startPongServer() has port + 2. */
    connListener l = {0};
    l.ct = ct;
    l.bindaddr = addrs;
    l.bindaddr_count = 1;
    l.port = port;
    l.priv = &cfg;
    l.accept_cb = onAccept;
    l.accept_flags = 7;
    ASSERT(connListen(&l) == C_OK);

    /* Connect, bytes both ways, larger than the window each way. */
    connection *c = connectRdma(saddr, port, caddr);
    char peer[CONN_ADDR_STR_LEN];
    int peer_port = 0;
    ASSERT(connAddrPeerName(c, peer, sizeof(peer), &peer_port) == 0);
    ASSERT(!strcmp(peer, saddr) && peer_port == port);
    ASSERT(!strcmp(connGetType(c), CONN_NAME_RDMA));
    ASSERT(connSetReadHandler(c, clientReadHandler) == C_OK);
    size_t big = 300000;
    char *payload = malloc(big);
    for (size_t j = 0; j < big; j++) payload[j] = 'a' + j % 23;
    writeAll(c, payload, big);
    long long end = aeMonotonicUs() + 20000000LL;
    while (serverBufLen < big && aeMonotonicUs() < end) loopOnce();
    ASSERT(serverBufLen == big && !memcmp(serverBuf, payload, big));
    writeAll(serverConn, payload, big);
    end = aeMonotonicUs() + 20000000LL;
    while (clientBufLen < big && aeMonotonicUs() < end) loopOnce();
    ASSERT(clientBufLen == big && !memcmp(clientBuf, payload, big));
    free(payload);

    /* The server closes from its handler: the client sees EOF. */
    serverBufLen = 0;
    ASSERT(connWrite(c, "close", 5) == 5);
    end = aeMonotonicUs() + 10000000LL;
    while (!serverClosedSelf && aeMonotonicUs() < end) {
        loopOnce();
        serverCheckCommands();
    }
    ASSERT(serverClosedSelf);
    RUN_UNTIL(clientGotEof);
    ASSERT(connGetState(c) == CONN_STATE_CLOSED);
    connClose(c);

    /* The client closes: the server sees EOF. */
    c = connectRdma(saddr, port, caddr);
    connClose(c);
    RUN_UNTIL(serverSawEof);

    /* Nobody listens on port + 1: refused, the handler says why. */
    resetClient();
    c = connCreate(ct);
    ASSERT(connConnect(c, saddr, port + 1, caddr, onConnected) == C_OK);
    RUN_UNTIL(connected);
    ASSERT(connectState == CONN_STATE_ERROR);
    ASSERT(strstr(connectError, "RDMA: cannot connect to ") && strstr(connectError, "no RDMA listener"));
    connClose(c);

    /* Closed while connecting: nothing fires later, nothing leaks. */
    resetClient();
    c = connCreate(ct);
    ASSERT(connConnect(c, saddr, port, caddr, onConnected) == C_OK);
    connClose(c);
    int never = 0;
    runUntilMs(&never, 300);
    ASSERT(!connected);
    if (serverConn) { /* It may have been accepted before the close. */
        runUntilMs(&serverSawEof, 5000);
    }

    testReadExposed(saddr, port, caddr);
    connCloseListener(&l);
    testBlocking(saddr, port + 2, pong_pid);
    ASSERT(connTypeConfigure(ct, NULL, 0) == C_OK);
}

int main(int argc, char **argv) {
    UT_BEGIN(argv[0]);
    serverLogConfig.verbosity = getenv("TEST_CONN_RDMA_VERBOSE") ? LL_DEBUG : LL_NOTHING;
    const char *saddr = getenv("RDMA_SERVER_ADDR");
    const char *caddr = getenv("RDMA_CLIENT_ADDR");
    pid_t pong_pid = saddr ? startPongServer(saddr, 6000 + (getpid() % 2000) * 4 + 2) : -1;
    el = aeCreateEventLoop(1024);
    TEST("conn_rdma: registered with the event loop") {
        ASSERT(connTypeInitialize(el) == C_OK);
        ASSERT(connTypeGetByName(CONN_NAME_RDMA) != NULL);
    }
    TEST("conn_rdma: failed connects report ERROR with an RDMA: reason") testFailuresAnywhere();
    if (saddr) {
        TEST("conn_rdma: listen, connect, bytes both ways, EOF, refused, early close, READ, blocking")
        testWithDevices(saddr, caddr, pong_pid);
    }
    connTypeCleanup();
    aeDeleteEventLoop(el);
    return UT_END();
}
