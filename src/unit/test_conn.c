/* test_conn.c - tests of the connection layer over its TCP and Unix
 * transports (connection.c, conn_socket.c, conn_unix.c, anet.c).
 *
 * Each transport: listen (TCP on 127.0.0.1, ephemeral port; Unix socket in
 * /tmp), connect, accept through listener->accept_cb, exchange bytes with
 * connWrite/connWritev/connRead, a read handler that closes its own
 * connection (deferred close; run under valgrind to prove no
 * use-after-free), and peer close giving read()==0 and CONN_STATE_CLOSED.
 * Also: optional ("-") bind addresses, connect errors, blocking connect
 * with the sync I/O calls, a failing accept handler, the registry and the
 * pending-data hooks.
 *
 * The Makefile links unit tests against the leaf objects only, and the
 * transports are server objects, so the three transport sources are
 * compiled into this test directly (they include no server header). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "anet.h"
#include "connection.h"
#include "log.h"
#include "unittest.h"

#include "conn_socket.c"
#include "conn_unix.c"
#include "connection.c"


static aeEventLoop *el;

/* Runs the loop until *flag becomes non-zero or 2 s pass. */
static void runUntil(int *flag) {
    long long end = aeMonotonicUs() + 2000000;
    while (!*flag && aeMonotonicUs() < end) aeProcessEvents(el, AE_ALL_EVENTS | AE_DONT_WAIT);
    ASSERT(*flag);
}

/* ---------------------------------------------------------------------------
 * Server side: accept callback and handlers
 * ------------------------------------------------------------------------- */

enum { ACCEPT_NORMAL, ACCEPT_CLOSE_IN_HANDLER };
static int acceptMode;
static connection *serverConn;
static int accepted, acceptedFlags, acceptHadIp, acceptCbErr;
static char acceptIp[64];
static char serverBuf[256];
static int serverBufLen, serverClosedSelf, serverSawEof, serverPonged;

static void serverAcceptedHandler(connection *conn) {
    ASSERT(connGetState(conn) == CONN_STATE_CONNECTED);
    if (acceptMode == ACCEPT_CLOSE_IN_HANDLER) connClose(conn);
}

/* Reads what arrives; "close" makes the handler close its own connection,
 * "ping" is answered with "+PONG\r\n". */
static void serverReadHandler(connection *conn) {
    char buf[128];
    ssize_t n = connRead(conn, buf, sizeof(buf));
    if (n == 0) {
        ASSERT(connGetState(conn) == CONN_STATE_CLOSED);
        serverSawEof = 1;
        connClose(conn);
        serverConn = NULL;
        return;
    }
    if (n < 0) {
        ASSERT(errno == EAGAIN);
        return;
    }
    memcpy(serverBuf + serverBufLen, buf, n);
    serverBufLen += n;
    serverBuf[serverBufLen] = '\0';
    if (strstr(serverBuf, "close")) {
        connClose(conn);
        /* Deferred: the struct is still ours until we return. */
        ASSERT(conn->flags & CONN_FLAG_CLOSE_SCHEDULED);
        ASSERT(conn->fd == -1);
        serverClosedSelf = 1;
        serverConn = NULL;
        return;
    }
    if (strstr(serverBuf, "PING\r\n")) {
        ASSERT(connWrite(conn, "+PONG\r\n", 7) == 7);
        serverBufLen = 0;
        serverPonged = 1;
    }
}

static void onAccept(connection *conn, int flags, const char *ip) {
    ASSERT(connGetState(conn) == CONN_STATE_ACCEPTING);
    acceptedFlags = flags;
    acceptHadIp = ip != NULL;
    if (ip) snprintf(acceptIp, sizeof(acceptIp), "%s", ip);
    if (connAccept(conn, serverAcceptedHandler) == C_ERR) {
        /* The handler closed it: still allocated, ours to finish. */
        acceptCbErr = 1;
        ASSERT(conn->flags & CONN_FLAG_CLOSE_SCHEDULED);
        connClose(conn);
        accepted = 1;
        return;
    }
    ASSERT(connSetReadHandler(conn, serverReadHandler) == C_OK);
    ASSERT(connHasReadHandler(conn));
    serverConn = conn;
    accepted = 1;
}

static void resetServer(void) {
    serverConn = NULL;
    accepted = acceptedFlags = acceptHadIp = acceptCbErr = 0;
    acceptIp[0] = '\0';
    serverBufLen = 0;
    serverBuf[0] = '\0';
    serverClosedSelf = serverSawEof = serverPonged = 0;
    acceptMode = ACCEPT_NORMAL;
}

/* ---------------------------------------------------------------------------
 * Client side
 * ------------------------------------------------------------------------- */

static int connected, connectState, clientGotEof, writableFired;
static char clientBuf[256];
static int clientBufLen;

static void onConnected(connection *conn) {
    connectState = connGetState(conn);
    connected = 1;
}

static void clientReadHandler(connection *conn) {
    ssize_t n = connRead(conn, clientBuf + clientBufLen, sizeof(clientBuf) - 1 - clientBufLen);
    if (n == 0) {
        ASSERT(connGetState(conn) == CONN_STATE_CLOSED);
        clientGotEof = 1;
        connSetReadHandler(conn, NULL);
        return;
    }
    if (n > 0) {
        clientBufLen += n;
        clientBuf[clientBufLen] = '\0';
    }
}

static void clientWriteHandler(connection *conn) {
    writableFired++;
    ASSERT(connSetWriteHandler(conn, NULL) == C_OK);
    ASSERT(!connHasWriteHandler(conn));
}

static void resetClient(void) {
    connected = connectState = clientGotEof = writableFired = 0;
    clientBufLen = 0;
    clientBuf[0] = '\0';
}

/* One full conversation over an established listener. addr/port as given
 * to connConnect(); ip_expected is what accept_cb must see (NULL = none). */
static void converse(const char *typename, const char *addr, int port, const char *ip_expected) {
    ConnectionType *ct = connTypeGetByName(typename);

    /* Connect, accept. */
    resetServer();
    resetClient();
    connection *c = connCreate(ct);
    ASSERT(connGetState(c) == CONN_STATE_NONE);
    ASSERT(connConnect(c, addr, port, NULL, onConnected) == C_OK);
    runUntil(&connected);
    runUntil(&accepted);
    ASSERT(connectState == CONN_STATE_CONNECTED);
    ASSERT(acceptedFlags == 7);
    ASSERT(acceptHadIp == (ip_expected != NULL));
    if (ip_expected) ASSERT(strcmp(acceptIp, ip_expected) == 0);
    ASSERT(serverConn != NULL);
    ASSERT(strcmp(connGetType(c), typename) == 0);
    ASSERT(connIsLocal(serverConn) == 1);
    ASSERT(connEnableTcpNoDelay(c) == C_OK);
    ASSERT(connKeepAlive(c, 60) == C_OK);

    char info[CONN_INFO_LEN], expect[CONN_INFO_LEN];
    snprintf(expect, sizeof(expect), "fd=%d", serverConn->fd);
    ASSERT(strcmp(connGetInfo(serverConn, info, sizeof(info)), expect) == 0);

    /* Addresses: the server's peer is the client's own side. */
    char a1[CONN_ADDR_STR_LEN], a2[CONN_ADDR_STR_LEN];
    ASSERT(connFormatAddr(serverConn, a1, sizeof(a1), 1) > 0);
    ASSERT(connFormatAddr(c, a2, sizeof(a2), 0) > 0);
    if (ip_expected) {
        ASSERT(strcmp(a1, a2) == 0);
    } else {
        ASSERT(strcmp(a1, "/unixsocket:0") == 0);
        char want[CONN_ADDR_STR_LEN];
        snprintf(want, sizeof(want), "%s:0", addr);
        ASSERT(connFormatAddr(serverConn, a2, sizeof(a2), 0) > 0 && strcmp(a2, want) == 0);
    }

    /* The write handler fires on a connected socket, then removes itself. */
    ASSERT(connSetWriteHandler(c, clientWriteHandler) == C_OK);
    ASSERT(connHasWriteHandler(c));
    runUntil(&writableFired);
    ASSERT(writableFired == 1);

    /* Bytes both ways, with writev on the way back. */
    ASSERT(connSetReadHandler(c, clientReadHandler) == C_OK);
    ASSERT(connWrite(c, "hello ", 6) == 6);
    struct iovec iov[2] = {{"wor", 3}, {"ld", 2}};
    ASSERT(connWrite(c, "there", 5) == 5);
    ASSERT(connWritev(serverConn, iov, 2) == 5);
    runUntil(&clientBufLen);
    while (clientBufLen < 5) aeProcessEvents(el, AE_ALL_EVENTS | AE_DONT_WAIT);
    ASSERT(strcmp(clientBuf, "world") == 0);
    while (serverBufLen < 11) aeProcessEvents(el, AE_ALL_EVENTS | AE_DONT_WAIT);
    ASSERT(strcmp(serverBuf, "hello there") == 0);

    /* Nothing to read: -1/EAGAIN, and the state stays CONNECTED. */
    char tmp[8];
    errno = 0;
    ASSERT(connRead(c, tmp, sizeof(tmp)) == -1 && errno == EAGAIN);
    ASSERT(connGetState(c) == CONN_STATE_CONNECTED);

    /* The server's read handler closes its own connection. */
    ASSERT(connWrite(c, "close", 5) == 5);
    runUntil(&serverClosedSelf);
    /* The client then sees EOF: read() == 0 and state CLOSED. */
    runUntil(&clientGotEof);
    ASSERT(connGetState(c) == CONN_STATE_CLOSED);
    connClose(c);

    /* Second round: the client closes; the server sees EOF. */
    resetServer();
    resetClient();
    c = connCreate(ct);
    ASSERT(connConnect(c, addr, port, NULL, onConnected) == C_OK);
    runUntil(&connected);
    runUntil(&accepted);
    connClose(c);
    runUntil(&serverSawEof);

    /* Third: the accept handler closes; connAccept() returns C_ERR. */
    resetServer();
    resetClient();
    acceptMode = ACCEPT_CLOSE_IN_HANDLER;
    c = connCreate(ct);
    ASSERT(connConnect(c, addr, port, NULL, onConnected) == C_OK);
    runUntil(&accepted);
    ASSERT(acceptCbErr == 1);
    ASSERT(connSetReadHandler(c, clientReadHandler) == C_OK);
    runUntil(&clientGotEof);
    connClose(c);
    acceptMode = ACCEPT_NORMAL;

    /* Fourth: blocking connect and the sync calls. */
    resetServer();
    resetClient();
    c = connCreate(ct);
    ASSERT(connBlockingConnect(c, addr, port, 1000) == C_OK);
    ASSERT(connGetState(c) == CONN_STATE_CONNECTED);
    ASSERT(connSyncWrite(c, "PING\r\n", 6, 1000) == 6);
    runUntil(&accepted);
    runUntil(&serverPonged);
    char line[64];
    ASSERT(connSyncReadLine(c, line, sizeof(line), 1000) == 5);
    ASSERT(strcmp(line, "+PONG") == 0);
    long long start = aeMonotonicUs();
    errno = 0;
    ASSERT(connSyncRead(c, line, 4, 50) == -1);
    ASSERT(errno == ETIMEDOUT);
    ASSERT(aeMonotonicUs() - start >= 45000);
    connShutdown(c);
    runUntil(&serverSawEof);
    connClose(c);
}

/* ---------------------------------------------------------------------------
 * Registry and pending-data hooks
 * ------------------------------------------------------------------------- */

static int fakePending;
static const char *fakeGetType(connection *conn) {
    return "fake";
}
static int fakeHasPending(void) {
    return fakePending > 0;
}
static int fakeProcessPending(void) {
    int n = fakePending;
    fakePending = 0;
    return n;
}
static ConnectionType CT_Fake = {
    .get_type = fakeGetType,
    .has_pending_data = fakeHasPending,
    .process_pending_data = fakeProcessPending,
};
static const char *tcpName(connection *conn) {
    return "TCP";
}
static ConnectionType CT_DupTcp = {.get_type = tcpName};

static void testRegistry(void) {
    ASSERT(connTypeGetByName("tcp") != NULL);
    ASSERT(connTypeGetByName("unix") != NULL);
    ASSERT(connTypeGetByName("tls") == NULL);
    ASSERT(connTypeGetByName("rdma") == NULL);
    ASSERT(connectionTypeTcp() == connTypeGetByName(CONN_NAME_SOCKET));
    ASSERT(connectionTypeUnix() == connTypeGetByName(CONN_NAME_UNIX));
    ASSERT(connectionIndexByType("tcp") == 0 && connectionIndexByType("unix") == 1);
    ASSERT(connTypeRegister(&CT_DupTcp) == C_ERR); /* Names are case-blind. */
    ASSERT(connTypesHavePendingData() == 0);
    ASSERT(connTypeRegister(&CT_Fake) == C_OK);
    ASSERT(connTypeConfigure(&CT_Fake, NULL, 0) == C_OK);
    fakePending = 3;
    ASSERT(connTypesHavePendingData() == 1);
    ASSERT(connTypesProcessPendingData() == 3);
    ASSERT(connTypesHavePendingData() == 0);
}

/* ---------------------------------------------------------------------------
 * Listeners
 * ------------------------------------------------------------------------- */

static void testTcp(void) {
    connListener l = {0};
    char *addrs[] = {"-192.0.2.1", "127.0.0.1"}; /* TEST-NET: not ours, optional. */
    l.ct = connectionTypeTcp();
    l.bindaddr = addrs;
    l.bindaddr_count = 2;
    l.port = 0;
    l.accept_cb = onAccept;
    l.accept_flags = 7;
    ASSERT(connListen(&l) == C_OK);
    ASSERT(l.count == 1);
    int port = 0;
    char ip[64];
    ASSERT(anetFdToString(l.fd[0], ip, sizeof(ip), &port, 0) == 0);
    ASSERT(strcmp(ip, "127.0.0.1") == 0 && port > 0);
    char fmt[64];
    anetFormatAddr(fmt, sizeof(fmt), "::1", 6379);
    ASSERT(strcmp(fmt, "[::1]:6379") == 0);

    /* The same address without '-' is fatal, and nothing stays open. */
    connListener bad = l;
    char *badaddrs[] = {"127.0.0.1", "192.0.2.1"};
    bad.bindaddr = badaddrs;
    ASSERT(connListen(&bad) == C_ERR);
    ASSERT(bad.count == 0);

    converse("tcp", "127.0.0.1", port, "127.0.0.1");

    connCloseListener(&l);
    ASSERT(l.count == 0);

    /* Refused connect: the handler reports ERROR with a reason. */
    resetClient();
    connection *c = connCreate(connectionTypeTcp());
    int rc = connConnect(c, "127.0.0.1", port, NULL, onConnected);
    if (rc == C_OK) runUntil(&connected);
    ASSERT(connGetState(c) == CONN_STATE_ERROR);
    ASSERT(connGetLastError(c) != NULL);
    connClose(c);
    c = connCreate(connectionTypeTcp());
    ASSERT(connBlockingConnect(c, "127.0.0.1", port, 500) == C_ERR);
    ASSERT(connGetState(c) == CONN_STATE_ERROR);
    connClose(c);
}

static void testUnix(void) {
    char path[64];
    snprintf(path, sizeof(path), "/tmp/test_conn_%d.sock", (int)getpid());
    connUnixListenerConfig cfg = {.path = path, .perm = 0700};
    connListener l = {0};
    l.ct = connectionTypeUnix();
    l.priv = &cfg;
    l.accept_cb = onAccept;
    l.accept_flags = 7;
    ASSERT(connListen(&l) == C_OK);
    ASSERT(l.count == 1);
    struct stat sb;
    ASSERT(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0700);

    /* Closing leaves the socket file; listening again replaces it. */
    connCloseListener(&l);
    ASSERT(access(path, F_OK) == 0);
    ASSERT(connListen(&l) == C_OK);

    converse("unix", path, 0, NULL);

    connCloseListener(&l);
    unlink(path);
}

int main(int argc, char **argv) {
    UT_BEGIN(argv[0]);
    serverLogConfig.verbosity = LL_NOTHING; /* Expected bind/registry warnings. */
    el = aeCreateEventLoop(1024);
    TEST("conn: initialise registry with the event loop") {
        ASSERT(connTypeInitialize(el) == C_OK);
        ASSERT(connGetEventLoop() == el);
    }
    TEST("conn: registry lookups and pending-data hooks") testRegistry();
    TEST("conn: tcp listen, connect, exchange, deferred close, EOF") testTcp();
    TEST("conn: unix listen, connect, exchange, deferred close, EOF") testUnix();
    connTypeCleanup();
    aeDeleteEventLoop(el);
    return UT_END();
}
