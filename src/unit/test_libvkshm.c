/* test_libvkshm.c - unit tests of the shared-memory client library
 * (libvkshm.c) against a fake server: a thread that listens on a Unix
 * socket and answers the upgrade as the test tells it (refuse, a hello
 * with the wrong fds or size, a good one), then serves the rings with the
 * primitives of shm_ring.c. Covers: refusal with and without fallback (the
 * fallback connection then speaks RESP on the socket), every hello check,
 * replies of every RESP2/RESP3 type parsed (nested, attributes skipped,
 * big integers, a bulk bigger than the ring), malformed replies, a server
 * that corrupts the reply ring, and EOF when the server closes. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "libvkshm.h"
#include "shm_ring.h"
#include "unittest.h"

/* What the fake server does after reading the preface. */
typedef enum {
    FAKE_REFUSE,      /* "-ERR nope", then serve RESP on the socket (+PONG per request). */
    FAKE_HELLO_2FDS,  /* A hello with two fds. */
    FAKE_HELLO_SIZE,  /* A hello whose region size is not the memfd's. */
    FAKE_SERVE,       /* Upgrade, then answer each request with the next scripted reply. */
    FAKE_CORRUPT,     /* Upgrade, then publish a reply tail beyond the ring. */
    FAKE_CLOSE        /* Upgrade, answer one request, close. */
} fakeMode;

typedef struct fakeServer {
    char path[108];
    int lsock;
    fakeMode mode;
    uint32_t ring_size;
    const char **replies; /* FAKE_SERVE / FAKE_CLOSE: one per request. */
    int nreplies;
    pthread_t thread;
} fakeServer;

static long long nowMs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sendWithFds(int sock, const void *buf, size_t len, const int *fds, int nfds) {
    union {
        char space[CMSG_SPACE(sizeof(int) * 4)];
        struct cmsghdr align;
    } ctl;
    memset(&ctl, 0, sizeof(ctl));
    struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
    if (nfds) {
        msg.msg_control = ctl.space;
        msg.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
        struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
        memcpy(CMSG_DATA(cm), fds, sizeof(int) * nfds);
    }
    if (sendmsg(sock, &msg, 0) != (ssize_t)len) abort();
}

static void bell(int fd) {
    uint64_t one = 1;
    if (write(fd, &one, sizeof(one)) != sizeof(one)) abort();
}

/* Sleeps on the doorbell (or the socket) for at most 100 ms. */
static void waitBell(int bellfd, int sock) {
    struct pollfd p[2] = {{.fd = bellfd, .events = POLLIN}, {.fd = sock, .events = POLLIN}};
    poll(p, 2, 100);
    uint64_t v;
    if (p[0].revents && read(bellfd, &v, sizeof(v)) < 0) return;
}

/* Writes all of buf into the reply ring, sleeping on the doorbell while
 * the client has not made room. */
static void serveWrite(shmRing *rep, int bellfd, int peer_bell, int sock, const char *buf, size_t len) {
    while (len > 0) {
        ssize_t n = shmRingWrite(rep, buf, len);
        if (n < 0) abort();
        if (n > 0) {
            buf += n;
            len -= (size_t)n;
            if (shmRingWakeNeeded(rep)) bell(peer_bell);
            continue;
        }
        if (shmRingArmWrite(rep) == 0) waitBell(bellfd, sock);
    }
}

/* Waits for any request bytes and consumes them. 0, or -1 if the client left. */
static int serveRead(shmRing *req, int bellfd, int peer_bell, int sock) {
    char buf[4096];
    long long deadline = nowMs() + 5000;
    while (nowMs() < deadline) {
        ssize_t n = shmRingRead(req, buf, sizeof(buf));
        if (n > 0) {
            if (shmRingWakeNeeded(req)) bell(peer_bell);
            return 0;
        }
        if (shmRingArmRead(req) == 0) waitBell(bellfd, sock);
        char b;
        if (recv(sock, &b, 1, MSG_DONTWAIT | MSG_PEEK) == 0) return -1;
    }
    return -1;
}

static void *fakeServerThread(void *arg) {
    fakeServer *fs = arg;
    int sock = accept(fs->lsock, NULL, NULL);
    if (sock == -1) return NULL;
    char preface[SHM_PREFACE_MAX];
    int len = 0, version = 0;
    while (len < SHM_PREFACE_MAX) {
        ssize_t n = recv(sock, preface + len, 1, 0);
        if (n <= 0) break;
        len++;
        if (shmPrefaceParse(preface, (size_t)len, &version) != 0) break;
    }
    if (fs->mode == FAKE_REFUSE) {
        const char *no = "-ERR nope\r\n";
        if (send(sock, no, strlen(no), 0) < 0) abort();
        char buf[256];
        ssize_t n;
        while ((n = recv(sock, buf, sizeof(buf), 0)) > 0)
            if (send(sock, "+PONG\r\n", 7, 0) < 0) break;
        close(sock);
        return NULL;
    }
    uint32_t ring = fs->ring_size;
    size_t size = shmRegionSize(ring);
    int memfd = memfd_create("test", MFD_CLOEXEC);
    if (ftruncate(memfd, (off_t)size) != 0) abort();
    void *region = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
    shmRegionInit(region, ring);
    shmRing req, rep;
    shmRegionRings(region, ring, &req, &rep, 1);
    int bellfd = eventfd(0, EFD_NONBLOCK), peer_bell = eventfd(0, EFD_NONBLOCK);
    shmHello h = {.version = 1, .nfds = SHM_HELLO_NFDS, .ring_size = ring, .spin_us = 5, .region_size = size};
    if (fs->mode == FAKE_HELLO_SIZE) {
        /* A hello consistent in itself, but the memfd is half the size. */
        h.ring_size = ring * 2;
        h.region_size = shmRegionSize(ring * 2);
    }
    unsigned char hello[SHM_HELLO_LEN];
    shmHelloEncode(hello, &h);
    int fds[3] = {memfd, bellfd, peer_bell};
    sendWithFds(sock, hello, sizeof(hello), fds, fs->mode == FAKE_HELLO_2FDS ? 2 : 3);
    if (fs->mode == FAKE_CORRUPT) {
        serveRead(&req, bellfd, peer_bell, sock);
        atomic_store(&rep.ctl->tail, (uint64_t)ring * 3);
        bell(peer_bell);
    } else if (fs->mode == FAKE_SERVE || fs->mode == FAKE_CLOSE) {
        for (int j = 0; j < fs->nreplies; j++) {
            if (serveRead(&req, bellfd, peer_bell, sock) != 0) break;
            serveWrite(&rep, bellfd, peer_bell, sock, fs->replies[j], strlen(fs->replies[j]));
        }
        if (fs->mode == FAKE_SERVE) serveRead(&req, bellfd, peer_bell, sock); /* Until the client leaves. */
    }
    /* Closing the socket is how the client learns we are gone. */
    usleep(fs->mode == FAKE_SERVE ? 0 : 20000);
    close(sock);
    close(memfd);
    close(bellfd);
    close(peer_bell);
    munmap(region, size);
    return NULL;
}

static void fakeStart(fakeServer *fs, fakeMode mode, uint32_t ring_size, const char **replies, int nreplies) {
    static int seq;
    memset(fs, 0, sizeof(*fs));
    snprintf(fs->path, sizeof(fs->path), "/tmp/test_libvkshm.%d.%d.sock", (int)getpid(), seq++);
    unlink(fs->path);
    fs->mode = mode;
    fs->ring_size = ring_size;
    fs->replies = replies;
    fs->nreplies = nreplies;
    fs->lsock = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    strcpy(sa.sun_path, fs->path);
    if (bind(fs->lsock, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fs->lsock, 4) != 0) abort();
    pthread_create(&fs->thread, NULL, fakeServerThread, fs);
}

static void fakeStop(fakeServer *fs) {
    pthread_join(fs->thread, NULL);
    close(fs->lsock);
    unlink(fs->path);
}

static vkshmReply *ping(vkshmConn *c) {
    const char *argv[] = {"PING"};
    return vkshmCommand(c, 1, argv, NULL);
}

int main(int argc, char **argv) {
    UT_BEGIN(argv[0]);
    char err[256];

    TEST("libvkshm: no server at the path") {
        vkshmConn *c = vkshmConnect("/tmp/test_libvkshm.nonexistent.sock", NULL, err, sizeof(err));
        ASSERT(c == NULL);
        ASSERT_STREQ(err, "No such file or directory");
    }

    TEST("libvkshm: a refusal fails the connect, with the server's reason") {
        fakeServer fs;
        fakeStart(&fs, FAKE_REFUSE, 4096, NULL, 0);
        vkshmConn *c = vkshmConnect(fs.path, NULL, err, sizeof(err));
        ASSERT(c == NULL);
        ASSERT_STREQ(err, "the server refused shared memory: ERR nope");
        fakeStop(&fs);
    }

    TEST("libvkshm: with fallback a refused connection speaks RESP on the socket") {
        fakeServer fs;
        fakeStart(&fs, FAKE_REFUSE, 4096, NULL, 0);
        vkshmOptions o = {.spin_us = -1, .fallback = 1};
        vkshmConn *c = vkshmConnect(fs.path, &o, err, sizeof(err));
        ASSERT(c != NULL);
        if (c) {
            ASSERT_EQ_LL(vkshmIsShared(c), 0);
            ASSERT_EQ_LL(vkshmRingSize(c), 0);
            ASSERT_STREQ(vkshmError(c), "the server refused shared memory: ERR nope");
            vkshmReply *r = ping(c);
            ASSERT(r && r->type == VKSHM_REPLY_STATUS && !strcmp(r->str, "PONG"));
            vkshmFreeReply(r);
            vkshmClose(c);
        }
        fakeStop(&fs);
    }

    TEST("libvkshm: a hello without its three fds is refused") {
        fakeServer fs;
        fakeStart(&fs, FAKE_HELLO_2FDS, 4096, NULL, 0);
        ASSERT(vkshmConnect(fs.path, NULL, err, sizeof(err)) == NULL);
        ASSERT_STREQ(err, "invalid hello from the server");
        fakeStop(&fs);
    }

    TEST("libvkshm: a hello announcing more memory than the memfd has is refused") {
        fakeServer fs;
        fakeStart(&fs, FAKE_HELLO_SIZE, 4096, NULL, 0);
        ASSERT(vkshmConnect(fs.path, NULL, err, sizeof(err)) == NULL);
        ASSERT_STREQ(err, "the server's shared memory is not the size it announced");
        fakeStop(&fs);
    }

    TEST("libvkshm: replies of every type, and a bulk bigger than the ring") {
        static char big[20000 + 32];
        memcpy(big, "$20000\r\n", 8);
        for (int j = 0; j < 20000; j++) big[8 + j] = (char)('a' + j % 26);
        memcpy(big + 8 + 20000, "\r\n", 3);
        const char *replies[] = {
            "+PONG\r\n",
            "*3\r\n:1\r\n$7\r\nhe\r\nllo\r\n*2\r\n+a\r\n_\r\n",
            "%1\r\n+k\r\n,3.5\r\n",
            "|1\r\n+ttl\r\n:3\r\n$1\r\nx\r\n",
            "$-1\r\n",
            "*-1\r\n",
            "#t\r\n",
            ":99999999999999999999999\r\n",
            "-ERR wrong\r\n",
            "~2\r\n:1\r\n:2\r\n",
            big,
        };
        fakeServer fs;
        fakeStart(&fs, FAKE_SERVE, 4096, replies, 11);
        vkshmConn *c = vkshmConnect(fs.path, NULL, err, sizeof(err));
        ASSERT(c != NULL);
        if (c) {
            ASSERT_EQ_LL(vkshmIsShared(c), 1);
            ASSERT_EQ_LL(vkshmRingSize(c), 4096);
            ASSERT_EQ_LL(vkshmSpinUs(c), 5);
            vkshmReply *r = ping(c);
            ASSERT(r && r->type == VKSHM_REPLY_STATUS && !strcmp(r->str, "PONG"));
            vkshmFreeReply(r);
            r = ping(c);
            ASSERT(r && r->type == VKSHM_REPLY_ARRAY && r->elements == 3);
            if (r && r->elements == 3) {
                ASSERT(r->element[0]->type == VKSHM_REPLY_INTEGER && r->element[0]->integer == 1);
                ASSERT(r->element[1]->type == VKSHM_REPLY_STRING && r->element[1]->len == 7);
                ASSERT(memcmp(r->element[1]->str, "he\r\nllo", 7) == 0);
                ASSERT(r->element[2]->elements == 2 && r->element[2]->element[1]->type == VKSHM_REPLY_NIL);
            }
            vkshmFreeReply(r);
            r = ping(c);
            ASSERT(r && r->type == VKSHM_REPLY_MAP && r->elements == 2 && r->element[1]->dval == 3.5);
            vkshmFreeReply(r);
            r = ping(c); /* The attribute is skipped. */
            ASSERT(r && r->type == VKSHM_REPLY_STRING && !strcmp(r->str, "x"));
            vkshmFreeReply(r);
            r = ping(c);
            ASSERT(r && r->type == VKSHM_REPLY_NIL);
            vkshmFreeReply(r);
            r = ping(c);
            ASSERT(r && r->type == VKSHM_REPLY_NIL);
            vkshmFreeReply(r);
            r = ping(c);
            ASSERT(r && r->type == VKSHM_REPLY_BOOL && r->integer == 1);
            vkshmFreeReply(r);
            r = ping(c);
            ASSERT(r && r->type == VKSHM_REPLY_BIGNUM && !strcmp(r->str, "99999999999999999999999"));
            vkshmFreeReply(r);
            r = ping(c);
            ASSERT(r && r->type == VKSHM_REPLY_ERROR && !strcmp(r->str, "ERR wrong"));
            vkshmFreeReply(r);
            r = ping(c);
            ASSERT(r && r->type == VKSHM_REPLY_SET && r->elements == 2);
            vkshmFreeReply(r);
            r = ping(c);
            ASSERT(r && r->type == VKSHM_REPLY_STRING && r->len == 20000 && r->str[19999] == 'a' + 19999 % 26);
            vkshmFreeReply(r);
            vkshmClose(c);
        }
        fakeStop(&fs);
    }

    TEST("libvkshm: malformed replies are protocol errors") {
        const char *bad[] = {"?what\r\n", "$5\r\nhelloXX", "*x\r\n"};
        for (int j = 0; j < 3; j++) {
            fakeServer fs;
            fakeStart(&fs, FAKE_CLOSE, 4096, &bad[j], 1);
            vkshmConn *c = vkshmConnect(fs.path, NULL, err, sizeof(err));
            ASSERT(c != NULL);
            if (c) {
                vkshmReply *r = ping(c);
                ASSERT(r == NULL);
                ASSERT_STREQ(vkshmError(c), "protocol error in a reply from the server");
                vkshmClose(c);
            }
            fakeStop(&fs);
        }
    }

    TEST("libvkshm: replies nested deeper than the limit are a protocol error") {
        static char deep[1024];
        size_t n = 0;
        for (int j = 0; j < 100; j++) n += (size_t)snprintf(deep + n, sizeof(deep) - n, "*1\r\n");
        snprintf(deep + n, sizeof(deep) - n, ":1\r\n");
        const char *replies[] = {deep};
        fakeServer fs;
        fakeStart(&fs, FAKE_CLOSE, 4096, replies, 1);
        vkshmConn *c = vkshmConnect(fs.path, NULL, err, sizeof(err));
        ASSERT(c != NULL);
        if (c) {
            ASSERT(ping(c) == NULL);
            ASSERT_STREQ(vkshmError(c), "protocol error in a reply from the server");
            vkshmClose(c);
        }
        fakeStop(&fs);
    }

    TEST("libvkshm: a server that corrupts the reply ring fails the connection") {
        fakeServer fs;
        fakeStart(&fs, FAKE_CORRUPT, 4096, NULL, 0);
        vkshmConn *c = vkshmConnect(fs.path, NULL, err, sizeof(err));
        ASSERT(c != NULL);
        if (c) {
            ASSERT(ping(c) == NULL);
            ASSERT_EQ_LL(errno, EPROTO);
            ASSERT_STREQ(vkshmError(c), "the server corrupted the reply ring");
            vkshmClose(c);
        }
        fakeStop(&fs);
    }

    TEST("libvkshm: the server closing is EOF after the reply it sent") {
        const char *replies[] = {"+BYE\r\n"};
        fakeServer fs;
        fakeStart(&fs, FAKE_CLOSE, 4096, replies, 1);
        vkshmConn *c = vkshmConnect(fs.path, NULL, err, sizeof(err));
        ASSERT(c != NULL);
        if (c) {
            vkshmReply *r = ping(c);
            ASSERT(r && r->type == VKSHM_REPLY_STATUS && !strcmp(r->str, "BYE"));
            vkshmFreeReply(r);
            /* The next command goes nowhere; reading it finds EOF. */
            const char *argv1[] = {"PING"};
            vkshmAppendCommand(c, 1, argv1, NULL);
            ASSERT(vkshmReadReply(c) == NULL);
            ASSERT_STREQ(vkshmError(c), "the server closed the connection");
            vkshmClose(c);
        }
        fakeStop(&fs);
    }

    return UT_END();
}
