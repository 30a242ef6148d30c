/* rdma-cli.c - a small RDMA client for testing the server's RDMA transport.
 *
 * It speaks the client side of Valkey's RDMA protocol (RDMA CM connect,
 * RegisterXferMemory both ways, RDMA WRITE WITH IMM into the server's RX
 * window, Keepalives ignored), using the same protocol engine as the
 * server (src/rdma.c), and RESP on top. It is a blocking, single-threaded
 * program: one poll() over the CM event channel and the completion channel
 * drives everything, and every received byte is copied out of the RX
 * window at once so the server can always re-use it.
 *
 *   rdma-cli [options] [command args...]   one command (or -r N times)
 *   rdma-cli [options] < file              one command per line, pipelined
 *
 * Replies are printed one per line: strings raw, errors as "(error) ...",
 * nil as "(nil)", integers as digits, aggregates element by element.
 * Exit status: 0 success; 1 usage, connection or protocol failure; 2 a
 * --bigget/--feature/--steal-region check failed; 3 the server closed the connection
 * during --hold. Build: make -C src rdma-test-client. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "rdma.h"

typedef struct cli {
    struct rdma_event_channel *ec;
    struct rdma_cm_id *id;
    rdmaEndpoint ep;
    int closed;       /* The server disconnected. */
    char *in;         /* Bytes received, not yet parsed: [inpos, inlen). */
    size_t inlen, incap, inpos;
    int timeout_ms;   /* For every wait. */
} cli;

static int verbose;

static void die(const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "rdma-cli: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    exit(1);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---------------------------------------------------------------------------
 * RDMA plumbing
 * ------------------------------------------------------------------------- */

/* Waits for the next CM event and checks it is `want`. */
static void cliWaitCmEvent(cli *c, enum rdma_cm_event_type want) {
    struct pollfd pfd = {.fd = c->ec->fd, .events = POLLIN};
    if (poll(&pfd, 1, c->timeout_ms) <= 0) die("timed out waiting for %s", rdma_event_str(want));
    struct rdma_cm_event *ev;
    if (rdma_get_cm_event(c->ec, &ev) != 0) die("rdma_get_cm_event: %s", strerror(errno));
    enum rdma_cm_event_type got = ev->event;
    int status = ev->status;
    rdma_ack_cm_event(ev);
    if (got != want) die("expected %s, got %s (status %d)", rdma_event_str(want), rdma_event_str(got), status);
}

static void cliResolve(const char *host, int port, struct sockaddr_storage *ss) {
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res;
    char portstr[16];
    snprintf(portstr, sizeof(portstr), "%d", port);
    int err = getaddrinfo(host, portstr, &hints, &res);
    if (err) die("cannot resolve %s: %s", host, gai_strerror(err));
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
}

/* Connects and waits until the server's RX window is known. */
static void cliConnect(cli *c, const char *host, int port, const char *src, size_t rx_size) {
    struct sockaddr_storage dst, srcaddr;
    cliResolve(host, port, &dst);
    if (src) cliResolve(src, 0, &srcaddr);

    c->ec = rdma_create_event_channel();
    if (c->ec == NULL) die("rdma_create_event_channel: %s", strerror(errno));
    if (rdma_create_id(c->ec, &c->id, NULL, RDMA_PS_TCP) != 0) die("rdma_create_id: %s", strerror(errno));
    if (rdma_resolve_addr(c->id, src ? (struct sockaddr *)&srcaddr : NULL, (struct sockaddr *)&dst,
                          c->timeout_ms) != 0)
        die("rdma_resolve_addr: %s", strerror(errno));
    cliWaitCmEvent(c, RDMA_CM_EVENT_ADDR_RESOLVED);
    if (rdma_resolve_route(c->id, c->timeout_ms) != 0) die("rdma_resolve_route: %s", strerror(errno));
    cliWaitCmEvent(c, RDMA_CM_EVENT_ROUTE_RESOLVED);

    if (rdmaEndpointCreate(&c->ep, c->id, rx_size, -1, 0) != C_OK) die("%s", c->ep.err);
    struct rdma_conn_param param = {
        .responder_resources = 1,
        .initiator_depth = 1,
        .retry_count = 7,
        .rnr_retry_count = 7,
    };
    if (rdma_connect(c->id, &param) != 0) die("rdma_connect: %s", strerror(errno));
    cliWaitCmEvent(c, RDMA_CM_EVENT_ESTABLISHED);
    if (rdmaEndpointAdvertise(&c->ep) != C_OK) die("%s", c->ep.err);
    int flags = fcntl(c->ec->fd, F_GETFL);
    fcntl(c->ec->fd, F_SETFL, flags | O_NONBLOCK);
}

/* Moves received bytes out of the RX window into c->in. */
static void cliDrainRx(cli *c) {
    size_t avail;
    while ((avail = rdmaEndpointReadable(&c->ep)) > 0) {
        if (c->inpos > 0 && c->inpos == c->inlen) c->inpos = c->inlen = 0;
        if (c->incap - c->inlen < avail) {
            size_t cap = c->incap ? c->incap : 65536;
            while (cap - c->inlen < avail) cap *= 2;
            c->in = realloc(c->in, cap);
            if (c->in == NULL) die("out of memory");
            c->incap = cap;
        }
        if (rdmaEndpointRead(&c->ep, c->in + c->inlen, avail) == -1) die("%s", c->ep.err);
        c->inlen += avail;
    }
}

/* Waits up to ms for completions or CM events and handles them. Returns 1
 * if something happened, 0 on timeout. */
static int cliPump(cli *c, int ms) {
    struct pollfd pfd[2] = {{.fd = c->ec->fd, .events = POLLIN}, {.fd = c->ep.comp_channel->fd, .events = POLLIN}};
    int n = poll(pfd, 2, ms);
    if (n < 0 && errno != EINTR) die("poll: %s", strerror(errno));
    if (n <= 0) return 0;
    if (pfd[0].revents) {
        struct rdma_cm_event *ev;
        while (rdma_get_cm_event(c->ec, &ev) == 0) {
            enum rdma_cm_event_type type = ev->event;
            rdma_ack_cm_event(ev);
            if (verbose) fprintf(stderr, "rdma-cli: CM event %s\n", rdma_event_str(type));
            if (type == RDMA_CM_EVENT_DISCONNECTED) c->closed = 1;
        }
    }
    if (rdmaEndpointPoll(&c->ep) == -1 && !(c->closed && c->ep.failed_flushed)) {
        if (c->ep.failed_flushed) {
            c->closed = 1; /* Torn down under us: the server went away. */
        } else {
            die("%s", c->ep.err);
        }
    }
    cliDrainRx(c);
    return 1;
}

/* Sends len bytes, waiting for window re-advertisements as needed. */
static void cliSend(cli *c, const char *buf, size_t len) {
    double deadline = now() + c->timeout_ms / 1000.0;
    while (len > 0) {
        if (c->closed) {
            /* A server that refuses us (maxclients, protected mode) sends
             * its error and closes, maybe before granting a window: the
             * reader then prints what arrived. */
            if (c->inlen > c->inpos) return;
            die("connection closed by server while sending");
        }
        struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
        ssize_t n = rdmaEndpointWritev(&c->ep, &iov, 1);
        if (n < 0) die("%s", c->ep.err);
        if (n > 0) {
            buf += n;
            len -= n;
            deadline = now() + c->timeout_ms / 1000.0;
            continue;
        }
        if (!cliPump(c, 100) && now() > deadline) die("timed out waiting for the server's RX window");
    }
}

/* Lets queued sends complete (and answers nothing: we are the client). */
static void cliFlush(cli *c) {
    double deadline = now() + c->timeout_ms / 1000.0;
    while (c->ep.send_inflight > 0 && !c->closed && now() < deadline) cliPump(c, 10);
}

static void cliClose(cli *c) {
    rdma_disconnect(c->id);
    rdmaEndpointRelease(&c->ep);
    rdma_destroy_id(c->id);
    rdma_destroy_event_channel(c->ec);
    free(c->in);
}

/* ---------------------------------------------------------------------------
 * RESP
 * ------------------------------------------------------------------------- */

/* Appends the RESP encoding of argv to *buf (realloc'ed). */
static void respAppendCommand(char **buf, size_t *len, int argc, char **argv, size_t *argl) {
    size_t need = 32;
    for (int j = 0; j < argc; j++) need += argl[j] + 32;
    *buf = realloc(*buf, *len + need);
    if (*buf == NULL) die("out of memory");
    char *p = *buf + *len;
    p += sprintf(p, "*%d\r\n", argc);
    for (int j = 0; j < argc; j++) {
        p += sprintf(p, "$%zu\r\n", argl[j]);
        memcpy(p, argv[j], argl[j]);
        p += argl[j];
        *p++ = '\r';
        *p++ = '\n';
    }
    *len = p - *buf;
}

/* Returns the length of the complete reply at p (len bytes available), 0
 * if more bytes are needed, -1 if it is malformed. */
static long long respLen(const char *p, size_t len) {
    const char *nl = memchr(p, '\n', len);
    if (nl == NULL) return 0;
    if (nl == p || nl[-1] != '\r') return -1;
    long long hdr = nl - p + 1;
    long long num = strtoll(p + 1, NULL, 10);
    switch (p[0]) {
    case '+': case '-': case ':': case '_': case '#': case ',': case '(': return hdr;
    case '$': case '=': case '!':
        if (num < 0) return hdr;
        if ((size_t)(hdr + num + 2) > len) return 0;
        return hdr + num + 2;
    case '*': case '~': case '>': case '%': case '|': {
        if (num < 0) return hdr;
        if (p[0] == '%' || p[0] == '|') num *= 2;
        long long off = hdr;
        for (long long j = 0; j < num; j++) {
            long long n = respLen(p + off, len - off);
            if (n <= 0) return n;
            off += n;
        }
        if (p[0] == '|') { /* An attribute precedes the real reply. */
            long long n = respLen(p + off, len - off);
            if (n <= 0) return n;
            off += n;
        }
        return off;
    }
    default: return -1;
    }
}

/* Prints the complete reply at p; returns its length. */
static long long respPrint(const char *p, FILE *out) {
    const char *nl = strchr(p, '\n');
    long long hdr = nl - p + 1, num = strtoll(p + 1, NULL, 10);
    int linelen = (int)(hdr - 3);
    switch (p[0]) {
    case '+': case ':': case ',': case '(': fprintf(out, "%.*s\n", linelen, p + 1); return hdr;
    case '-': fprintf(out, "(error) %.*s\n", linelen, p + 1); return hdr;
    case '_': fprintf(out, "(nil)\n"); return hdr;
    case '#': fprintf(out, "%s\n", p[1] == 't' ? "(true)" : "(false)"); return hdr;
    case '$': case '=': case '!':
        if (num < 0) {
            fprintf(out, "(nil)\n");
            return hdr;
        }
        if (p[0] == '!') fprintf(out, "(error) ");
        fwrite(p + hdr, 1, num, out);
        fputc('\n', out);
        return hdr + num + 2;
    default: {
        if (num < 0) {
            fprintf(out, "(nil)\n");
            return hdr;
        }
        if (p[0] == '%' || p[0] == '|') num *= 2;
        if (num == 0) fprintf(out, "(empty array)\n");
        long long off = hdr;
        for (long long j = 0; j < num; j++) off += respPrint(p + off, out);
        if (p[0] == '|') off += respPrint(p + off, out);
        return off;
    }
    }
}

/* Waits for one complete reply; returns a pointer to it and its length. */
static const char *cliReadReply(cli *c, long long *replylen) {
    double deadline = now() + c->timeout_ms / 1000.0;
    for (;;) {
        long long n = respLen(c->in + c->inpos, c->inlen - c->inpos);
        if (n < 0) die("malformed reply from the server");
        if (n > 0) {
            const char *r = c->in + c->inpos;
            c->inpos += n;
            *replylen = n;
            return r;
        }
        if (c->closed) die("connection closed by server");
        if (cliPump(c, 100)) deadline = now() + c->timeout_ms / 1000.0;
        else if (now() > deadline) die("timed out waiting for a reply");
    }
}

/* ---------------------------------------------------------------------------
 * Modes
 * ------------------------------------------------------------------------- */

static char patternByte(size_t i) {
    return 'a' + (char)((i + i / 4099) % 26);
}

/* SET key <bytes of a pattern>; prints "OK <bytes> <seconds>". */
static void modeBigSet(cli *c, char *key, size_t bytes) {
    char *val = malloc(bytes ? bytes : 1);
    if (val == NULL) die("out of memory");
    for (size_t i = 0; i < bytes; i++) val[i] = patternByte(i);
    char *argv[3] = {"SET", key, val};
    size_t argl[3] = {3, strlen(key), bytes};
    char *cmd = NULL;
    size_t cmdlen = 0;
    respAppendCommand(&cmd, &cmdlen, 3, argv, argl);
    free(val);
    double t0 = now();
    cliSend(c, cmd, cmdlen);
    long long rl;
    const char *r = cliReadReply(c, &rl);
    double t = now() - t0;
    free(cmd);
    if (strncmp(r, "+OK\r\n", 5)) {
        respPrint(r, stdout);
        exit(2);
    }
    printf("OK %zu %.3f\n", bytes, t);
}

/* GET key and check it is <bytes> of the pattern; prints "OK <bytes> <s>". */
static void modeBigGet(cli *c, char *key, size_t bytes) {
    char *argv[2] = {"GET", key};
    size_t argl[2] = {3, strlen(key)};
    char *cmd = NULL;
    size_t cmdlen = 0;
    respAppendCommand(&cmd, &cmdlen, 2, argv, argl);
    double t0 = now();
    cliSend(c, cmd, cmdlen);
    long long rl;
    const char *r = cliReadReply(c, &rl);
    double t = now() - t0;
    free(cmd);
    if (r[0] != '$') {
        respPrint(r, stdout);
        exit(2);
    }
    long long n = strtoll(r + 1, NULL, 10);
    const char *val = strchr(r, '\n') + 1;
    if (n != (long long)bytes) {
        printf("length mismatch: got %lld, expected %zu\n", n, bytes);
        exit(2);
    }
    for (size_t i = 0; i < bytes; i++) {
        if (val[i] != patternByte(i)) {
            printf("content mismatch at byte %zu\n", i);
            exit(2);
        }
    }
    printf("OK %zu %.3f\n", bytes, t);
}

/* Asks GetServerFeature with selector sel and checks the answer. */
static void modeFeature(cli *c, int sel) {
    rdmaCtrlMsg m = {.opcode = RDMA_OP_GET_SERVER_FEATURE, .select = (uint16_t)sel};
    c->ep.feature_requested = 1;
    if (rdmaEndpointSendCtrl(&c->ep, &m) != C_OK) die("%s", c->ep.err);
    double deadline = now() + c->timeout_ms / 1000.0;
    while (c->ep.features_received == 0 && !c->closed && now() < deadline) cliPump(c, 100);
    if (c->ep.features_received == 0) {
        printf("no GetServerFeature answer\n");
        exit(2);
    }
    printf("feature select=%u\n", c->ep.last_feature_select);
    if (c->ep.last_feature_select != sel) exit(2);
    m.opcode = RDMA_OP_SET_CLIENT_FEATURE;
    if (rdmaEndpointSendCtrl(&c->ep, &m) != C_OK) die("%s", c->ep.err);
}

/* Waits for one line from the server (CRLF stripped; empty lines, the
 * keepalives of a primary preparing a snapshot, skipped). */
static char *cliReadLine(cli *c) {
    double deadline = now() + c->timeout_ms / 1000.0;
    for (;;) {
        char *p = c->in + c->inpos, *nl = memchr(p, '\n', c->inlen - c->inpos);
        if (nl) {
            size_t len = (size_t)(nl - p);
            c->inpos += len + 1;
            if (len && p[len - 1] == '\r') len--;
            if (len == 0) continue;
            char *line = strndup(p, len);
            if (line == NULL) die("out of memory");
            return line;
        }
        if (c->closed) die("connection closed by server");
        if (cliPump(c, 100)) deadline = now() + c->timeout_ms / 1000.0;
        else if (now() > deadline) die("timed out waiting for a line");
    }
}

/* One READ of len bytes at addr/rkey through c. Returns 1 if it completed,
 * 0 if it failed (why in err). c is unusable after a failure. */
static int cliReadRemote(cli *c, uint64_t addr, uint32_t rkey, uint32_t len, char *err, size_t errlen) {
    char *buf = malloc(len);
    struct ibv_mr *mr = buf ? rdmaEndpointRegister(&c->ep, buf, len, IBV_ACCESS_LOCAL_WRITE) : NULL;
    if (mr == NULL) die("cannot register a READ target");
    if (rdmaEndpointPostRead(&c->ep, mr, buf, addr, rkey, len, 7) != 1) die("cannot post a READ: %s", c->ep.err);
    double deadline = now() + c->timeout_ms / 1000.0;
    int done = 0;
    while (!done && now() < deadline) {
        struct pollfd pfd = {.fd = c->ep.comp_channel->fd, .events = POLLIN};
        poll(&pfd, 1, 100);
        if (rdmaEndpointPoll(&c->ep) == -1) {
            snprintf(err, errlen, "%s", c->ep.err);
            free(buf);
            return 0;
        }
        uint64_t tag;
        done = rdmaEndpointReadsDone(&c->ep, &tag, 1);
    }
    if (!done) snprintf(err, errlen, "timed out");
    free(buf);
    return done;
}

/* --steal-region: plays a replica asking for a full sync by RDMA READ
 * (REPLCONF capa eof psync2 rdma-read, PSYNC ? -1) up to the first SEG
 * announcement, then READs that segment through a second, unrelated
 * connection (a client that stole the key: must be refused) and through
 * its own link (must work). Prints "stolen READ refused: ..." and "replica
 * READ ok"; exit 2 if either is not so. */
static void modeStealRegion(cli *c, const char *host, int port, const char *src, size_t rx_size) {
    const char *capa = "*7\r\n$8\r\nREPLCONF\r\n$4\r\ncapa\r\n$3\r\neof\r\n$4\r\ncapa\r\n$6\r\npsync2\r\n"
                       "$4\r\ncapa\r\n$9\r\nrdma-read\r\n";
    const char *psync = "*3\r\n$5\r\nPSYNC\r\n$1\r\n?\r\n$2\r\n-1\r\n";
    cliSend(c, capa, strlen(capa));
    char *reply = cliReadLine(c); /* PSYNC must not follow before this reply */
    if (strcmp(reply, "+OK") != 0) die("REPLCONF answered %s", reply);
    free(reply);
    cliSend(c, psync, strlen(psync));
    char *line = NULL;
    unsigned long long seq, off;
    uint32_t len = 0, rkey = 0;
    uint64_t addr = 0;
    for (int j = 0; j < 16; j++) {
        free(line);
        line = cliReadLine(c);
        if (verbose) fprintf(stderr, "rdma-cli: <- %s\n", line);
        if (line[0] == '-') die("the primary refused: %s", line);
        if (sscanf(line, "SEG %llu %llu %u %lu %u", &seq, &off, &len, &addr, &rkey) == 5) break;
        len = 0;
    }
    if (len == 0) die("no SEG announcement (last line: %s)", line);
    free(line);
    if (len > 65536) len = 65536;
    cli thief = {.timeout_ms = c->timeout_ms};
    cliConnect(&thief, host, port, src, rx_size);
    char err[256];
    int stolen = cliReadRemote(&thief, addr, rkey, len, err, sizeof(err));
    if (stolen) printf("stolen READ succeeded\n");
    else printf("stolen READ refused: %s\n", err);
    int own = cliReadRemote(c, addr, rkey, len, err, sizeof(err));
    if (own) printf("replica READ ok\n");
    else printf("replica READ failed: %s\n", err);
    fflush(stdout);
    exit(!stolen && own ? 0 : 2);
}

/* Sends something a correct peer never sends, then waits for the server to
 * drop the connection. Exits 0 if it did, 2 if it did not. */
static void modeEvil(cli *c, const char *what) {
    rdmaEndpoint *ep = &c->ep;
    unsigned char *slot = (unsigned char *)ep->ctrl_send.base;
    struct ibv_sge sge = {.addr = (uintptr_t)slot, .length = RDMA_CTRL_MSG_LEN, .lkey = ep->ctrl_send.mr->lkey};
    struct ibv_send_wr wr = {.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED};
    rdmaCtrlMsg m = {0};

    if (!strcmp(what, "badlen")) {
        m.opcode = RDMA_OP_KEEPALIVE;
        sge.length = 16;
    } else if (!strcmp(what, "badop")) {
        m.opcode = 77;
    } else if (!strcmp(what, "zeroxfer")) {
        m.opcode = RDMA_OP_REGISTER_XFER_MEMORY;
        m.length = 0;
    } else if (!strcmp(what, "hugexfer")) {
        m.opcode = RDMA_OP_REGISTER_XFER_MEMORY;
        m.length = 0xfffffff0u;
    } else if (!strcmp(what, "overrun")) {
        /* One byte written, but an immediate claiming more than the window. */
        double deadline = now() + c->timeout_ms / 1000.0;
        while (!ep->peer_known && now() < deadline) cliPump(c, 100);
        if (!ep->peer_known) die("no RX window from the server");
        memset(ep->tx.base, 'x', 1);
        sge.addr = (uintptr_t)ep->tx.base;
        sge.length = 1;
        sge.lkey = ep->tx.mr->lkey;
        wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
        wr.imm_data = htonl(ep->peer_len + 1);
        wr.wr.rdma.remote_addr = ep->peer_addr;
        wr.wr.rdma.rkey = ep->peer_rkey;
    } else {
        die("unknown --evil mode %s (badlen, badop, zeroxfer, hugexfer, overrun)", what);
    }
    if (wr.opcode == IBV_WR_SEND) rdmaCtrlEncode(&m, slot);
    struct ibv_send_wr *bad;
    if (ibv_post_send(c->id->qp, &wr, &bad) != 0) die("ibv_post_send failed");
    ep->send_inflight++;
    double deadline = now() + c->timeout_ms / 1000.0;
    while (!c->closed && now() < deadline) {
        cliPump(c, 100);
        if (c->ep.failed) c->closed = 1; /* e.g. the write itself was refused. */
    }
    printf("%s\n", c->closed ? "dropped" : "not dropped");
    exit(c->closed ? 0 : 2);
}

/* Splits a line at whitespace ("double quotes" group words). Returns argc. */
static int splitLine(char *line, char **argv, size_t *argl, int max) {
    int argc = 0;
    char *p = line;
    while (*p && argc < max) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
        if (!*p) break;
        char *start, *end;
        if (*p == '"') {
            start = ++p;
            while (*p && *p != '"') p++;
            end = p;
            if (*p) p++;
        } else {
            start = p;
            while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') p++;
            end = p;
            if (*p) p++;
        }
        *end = '\0';
        argv[argc] = start;
        argl[argc] = end - start;
        argc++;
    }
    return argc;
}

static void usage(void) {
    fprintf(stderr,
            "usage: rdma-cli [-h host] [-p port] [-I source-addr] [-t timeout-s] [-r repeat] [-q] [-v]\n"
            "                [--rx-size bytes] [--idle secs] [--hold secs] [--partial] [--feature sel]\n"
            "                [--evil badlen|badop|zeroxfer|hugexfer|overrun]\n"
            "                [--bigset key bytes | --bigget key bytes | --steal-region | command args...]\n"
            "With no command, commands are read from stdin, one per line, and pipelined.\n");
    exit(1);
}

int main(int argc, char **argv) {
    const char *host = getenv("RDMA_SERVER_ADDR") ? getenv("RDMA_SERVER_ADDR") : "127.0.0.1";
    const char *src = NULL, *evil = NULL, *bigkey = NULL;
    int port = 6379, repeat = 1, quiet = 0, partial = 0, feature = -1, bigmode = 0, steal = 0;
    double idle = 0, hold = 0;
    size_t bigbytes = 0, rx_size = RDMA_DEFAULT_RX_SIZE;
    cli c = {.timeout_ms = 60000};

    static struct option longopts[] = {
        {"idle", required_argument, 0, 'i'},      {"hold", required_argument, 0, 'H'},
        {"partial", no_argument, 0, 'P'},         {"feature", required_argument, 0, 'F'},
        {"evil", required_argument, 0, 'E'},      {"bigset", required_argument, 0, 'S'},
        {"bigget", required_argument, 0, 'G'},    {"rx-size", required_argument, 0, 'R'},
        {"steal-region", no_argument, 0, 'X'},    {"help", no_argument, 0, '?'},
        {0, 0, 0, 0},
    };
    int opt;
    while ((opt = getopt_long(argc, argv, "+h:p:I:t:r:qv", longopts, NULL)) != -1) {
        switch (opt) {
        case 'h': host = optarg; break;
        case 'p': port = atoi(optarg); break;
        case 'I': src = optarg; break;
        case 't': c.timeout_ms = (int)(atof(optarg) * 1000); break;
        case 'r': repeat = atoi(optarg); break;
        case 'q': quiet = 1; break;
        case 'v': verbose = 1; break;
        case 'i': idle = atof(optarg); break;
        case 'H': hold = atof(optarg); break;
        case 'P': partial = 1; break;
        case 'F': feature = atoi(optarg); break;
        case 'E': evil = optarg; break;
        case 'R': rx_size = strtoull(optarg, NULL, 10); break;
        case 'X': steal = 1; break;
        case 'S':
        case 'G':
            if (optind >= argc) usage();
            bigmode = opt;
            bigkey = optarg;
            bigbytes = strtoull(argv[optind++], NULL, 10);
            break;
        default: usage();
        }
    }

    cliConnect(&c, host, port, src, rx_size);

    if (idle > 0) {
        double end = now() + idle;
        while (now() < end && !c.closed) cliPump(&c, 100);
        if (c.closed) die("connection closed by server while idle");
        printf("keepalives: %llu\n", c.ep.keepalives_received);
    }
    if (feature >= 0) modeFeature(&c, feature);
    if (evil) modeEvil(&c, evil);
    if (steal) modeStealRegion(&c, host, port, src, rx_size);

    if (bigmode == 'S') {
        modeBigSet(&c, (char *)bigkey, bigbytes);
    } else if (bigmode == 'G') {
        modeBigGet(&c, (char *)bigkey, bigbytes);
    } else if (optind < argc || partial || (idle == 0 && feature < 0)) {
        /* Build the whole pipeline first: the command line repeated, or
         * every line of stdin. */
        char *cmd = NULL;
        size_t cmdlen = 0;
        long long ncmds = 0;
        if (optind < argc) {
            int n = argc - optind;
            size_t *argl = malloc(sizeof(size_t) * n);
            for (int j = 0; j < n; j++) argl[j] = strlen(argv[optind + j]);
            for (int r = 0; r < repeat; r++) respAppendCommand(&cmd, &cmdlen, n, argv + optind, argl);
            ncmds = repeat;
            free(argl);
        } else if (!partial) {
            char *line = NULL;
            size_t cap = 0;
            char *av[256];
            size_t al[256];
            while (getline(&line, &cap, stdin) != -1) {
                int n = splitLine(line, av, al, 256);
                if (n == 0) continue;
                respAppendCommand(&cmd, &cmdlen, n, av, al);
                ncmds++;
            }
            free(line);
        }
        if (partial) {
            /* Half a command, then vanish without a disconnect. */
            const char *half = "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$10\r\nhal";
            cliSend(&c, half, strlen(half));
            cliFlush(&c);
            printf("sent partial command\n");
            fflush(stdout);
            _exit(0);
        }
        double t0 = now();
        if (cmdlen) cliSend(&c, cmd, cmdlen);
        free(cmd);
        for (long long j = 0; j < ncmds; j++) {
            long long rl;
            const char *r = cliReadReply(&c, &rl);
            if (!quiet || j == ncmds - 1) respPrint(r, stdout);
        }
        if (verbose) fprintf(stderr, "rdma-cli: %lld replies in %.3f s\n", ncmds, now() - t0);
    }
    fflush(stdout);

    if (hold > 0) {
        double end = now() + hold;
        while (now() < end && !c.closed) cliPump(&c, 100);
        if (c.closed) {
            printf("closed by server\n");
            fflush(stdout);
            exit(3);
        }
    }
    cliFlush(&c);
    cliClose(&c);
    return 0;
}
