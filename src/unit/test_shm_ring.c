/* test_shm_ring.c - unit tests of the shared-memory rings (shm_ring.c):
 * the byte stream across the wrap, a full ring, partial replies, values
 * bigger than the ring moved by two threads that sleep on real eventfd
 * doorbells (the wake-up protocol: a lost wake-up hangs the test, which a
 * watchdog alarm turns into a failure), indices corrupted by the peer, and
 * the upgrade messages (preface, hello). */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/mman.h>

#include "shm_ring.h"
#include "unittest.h"

#define SMALL 4096

/* A region in private memory (the tests need no second process). */
typedef struct testRegion {
    void *mem;
    shmRing sreq, srep; /* The server's ends. */
    shmRing creq, crep; /* The client's ends. */
} testRegion;

static void regionOpen(testRegion *t, uint32_t ring_size) {
    size_t len = shmRegionSize(ring_size);
    t->mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (t->mem == MAP_FAILED) abort();
    shmRegionInit(t->mem, ring_size);
    shmRegionRings(t->mem, ring_size, &t->sreq, &t->srep, 1);
    shmRegionRings(t->mem, ring_size, &t->creq, &t->crep, 0);
}

static void regionClose(testRegion *t, uint32_t ring_size) {
    munmap(t->mem, shmRegionSize(ring_size));
}

/* Byte i of the test stream. */
static unsigned char streamByte(uint64_t i) {
    return (unsigned char)((i * 2654435761u) >> 13);
}

/* ---------------------------------------------------------------------------
 * Two threads through a small ring, sleeping on eventfds
 * ------------------------------------------------------------------------- */

typedef struct pipeTest {
    shmRing *prod, *cons;
    int prod_bell, cons_bell; /* eventfds: the producer sleeps on prod_bell. */
    uint64_t total;           /* Bytes to move. */
    size_t chunk;             /* Largest write. */
    int bad;                  /* The consumer saw a wrong byte or an error. */
    uint64_t sleeps;          /* Times either side slept on its doorbell. */
} pipeTest;

static void ring(int fd) {
    uint64_t one = 1;
    if (write(fd, &one, sizeof(one)) != sizeof(one)) abort();
}

static void sleepOn(int fd) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    while (poll(&p, 1, -1) < 0 && errno == EINTR);
    uint64_t v;
    if (read(fd, &v, sizeof(v)) != sizeof(v)) abort();
}

static void *producerThread(void *arg) {
    pipeTest *p = arg;
    unsigned char *buf = malloc(p->chunk);
    uint64_t sent = 0;
    unsigned seed = 7;
    while (sent < p->total) {
        size_t want = 1 + (size_t)rand_r(&seed) % p->chunk;
        if (want > p->total - sent) want = (size_t)(p->total - sent);
        for (size_t j = 0; j < want; j++) buf[j] = streamByte(sent + j);
        size_t off = 0;
        while (off < want) {
            ssize_t n = shmRingWrite(p->prod, buf + off, want - off);
            if (n < 0) abort();
            if (n > 0) {
                off += (size_t)n;
                if (shmRingWakeNeeded(p->prod)) ring(p->cons_bell);
                continue;
            }
            int armed = shmRingArmWrite(p->prod);
            if (armed < 0) abort();
            if (armed == 0) {
                __atomic_add_fetch(&p->sleeps, 1, __ATOMIC_RELAXED);
                sleepOn(p->prod_bell);
            }
        }
        sent += want;
    }
    free(buf);
    return NULL;
}

static void *consumerThread(void *arg) {
    pipeTest *p = arg;
    unsigned char buf[1500];
    uint64_t got = 0;
    while (got < p->total) {
        ssize_t n = shmRingRead(p->cons, buf, sizeof(buf));
        if (n < 0) {
            p->bad = 1;
            return NULL;
        }
        if (n > 0) {
            for (ssize_t j = 0; j < n; j++)
                if (buf[j] != streamByte(got + (uint64_t)j)) p->bad = 1;
            got += (uint64_t)n;
            if (shmRingWakeNeeded(p->cons)) ring(p->prod_bell);
            continue;
        }
        int armed = shmRingArmRead(p->cons);
        if (armed < 0) abort();
        if (armed == 0) {
            __atomic_add_fetch(&p->sleeps, 1, __ATOMIC_RELAXED);
            sleepOn(p->cons_bell);
        }
    }
    return NULL;
}

static void onWatchdog(int sig) {
    static const char msg[] = "FAIL test_shm_ring: two-thread transfer hung (lost wake-up)\n";
    if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0) _exit(2);
    _exit(1);
}

/* Moves total bytes from shm producer to consumer in two threads. Returns
 * 1 if every byte arrived intact and in order. */
static int pipeRun(shmRing *prod, shmRing *cons, uint64_t total, size_t chunk, uint64_t *sleeps) {
    pipeTest p = {.prod = prod, .cons = cons, .total = total, .chunk = chunk};
    p.prod_bell = eventfd(0, 0);
    p.cons_bell = eventfd(0, 0);
    pthread_t a, b;
    signal(SIGALRM, onWatchdog);
    alarm(60);
    pthread_create(&a, NULL, producerThread, &p);
    pthread_create(&b, NULL, consumerThread, &p);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    alarm(0);
    close(p.prod_bell);
    close(p.cons_bell);
    if (sleeps) *sleeps = p.sleeps;
    return !p.bad;
}

int main(int argc, char **argv) {
    UT_BEGIN(argv[0]);

    TEST("shm_ring: ring sizes are powers of two within bounds") {
        ASSERT(shmRingSizeValid(4096));
        ASSERT(shmRingSizeValid(64 * 1024 * 1024));
        ASSERT(!shmRingSizeValid(2048));
        ASSERT(!shmRingSizeValid(12288));
        ASSERT(!shmRingSizeValid(128ULL * 1024 * 1024));
        ASSERT(!shmRingSizeValid(0));
        ASSERT_EQ_LL(shmRegionSize(4096), 4096 + 8192);
        shmRing r;
        ASSERT_EQ_LL(shmRingAttach(&r, NULL, NULL, 5000, SHM_RING_PRODUCER), -1);
    }

    TEST("shm_ring: bytes come out in order across many wrap-arounds") {
        testRegion t;
        regionOpen(&t, SMALL);
        unsigned char in[3000], out[3000];
        uint64_t w = 0, r = 0;
        unsigned seed = 1;
        int ok = 1;
        for (int round = 0; round < 2000 && ok; round++) {
            size_t n = 1 + (size_t)rand_r(&seed) % sizeof(in);
            for (size_t j = 0; j < n; j++) in[j] = streamByte(w + j);
            ssize_t put = shmRingWrite(&t.creq, in, n);
            if (put < 0) ok = 0;
            w += (uint64_t)put;
            size_t m = 1 + (size_t)rand_r(&seed) % sizeof(out);
            ssize_t got = shmRingRead(&t.sreq, out, m);
            if (got < 0) ok = 0;
            for (ssize_t j = 0; j < got; j++)
                if (out[j] != streamByte(r + (uint64_t)j)) ok = 0;
            r += (uint64_t)got;
        }
        ASSERT(ok);
        ASSERT(w > 10 * SMALL); /* Wrapped many times. */
        ASSERT(w - r <= SMALL);
        regionClose(&t, SMALL);
    }

    TEST("shm_ring: a full ring takes nothing until the consumer reads") {
        testRegion t;
        regionOpen(&t, SMALL);
        unsigned char buf[SMALL + 100];
        memset(buf, 'x', sizeof(buf));
        ASSERT_EQ_LL(shmRingWrite(&t.srep, buf, sizeof(buf)), SMALL);
        ASSERT_EQ_LL(shmRingWritable(&t.srep), 0);
        ASSERT_EQ_LL(shmRingWrite(&t.srep, buf, 1), 0);
        ASSERT_EQ_LL(shmRingReadable(&t.crep), SMALL);
        ASSERT_EQ_LL(shmRingRead(&t.crep, buf, 10), 10);
        ASSERT_EQ_LL(shmRingWritable(&t.srep), 10);
        ASSERT_EQ_LL(shmRingWrite(&t.srep, buf, 100), 10);
        ASSERT_EQ_LL(shmRingRead(&t.crep, buf, sizeof(buf)), SMALL);
        ASSERT_EQ_LL(shmRingRead(&t.crep, buf, sizeof(buf)), 0);
        ASSERT_EQ_LL(shmRingWritable(&t.srep), SMALL);
        regionClose(&t, SMALL);
    }

    TEST("shm_ring: a reply written in pieces is read as it arrives") {
        testRegion t;
        regionOpen(&t, SMALL);
        const char *reply = "$11\r\nhello world\r\n";
        char got[64] = {0};
        size_t have = 0;
        struct iovec iov[2] = {{.iov_base = (void *)reply, .iov_len = 3},
                               {.iov_base = (void *)(reply + 3), .iov_len = 4}};
        ASSERT_EQ_LL(shmRingWritev(&t.srep, iov, 2), 7);
        ssize_t n = shmRingRead(&t.crep, got + have, sizeof(got) - have);
        ASSERT_EQ_LL(n, 7);
        have += (size_t)n;
        ASSERT(memcmp(got, "$11\r\nhe", 7) == 0);
        ASSERT_EQ_LL(shmRingRead(&t.crep, got + have, sizeof(got) - have), 0);
        ASSERT_EQ_LL(shmRingWrite(&t.srep, reply + 7, strlen(reply) - 7), (long long)strlen(reply) - 7);
        n = shmRingRead(&t.crep, got + have, 5); /* A reader taking less than there is. */
        ASSERT_EQ_LL(n, 5);
        have += (size_t)n;
        n = shmRingRead(&t.crep, got + have, sizeof(got) - have);
        have += (size_t)n;
        ASSERT_EQ_LL(have, strlen(reply));
        ASSERT_STREQ(got, reply);
        regionClose(&t, SMALL);
    }

    TEST("shm_ring: 16 MB through a 4 KB ring, both sides sleeping on eventfds") {
        testRegion t;
        regionOpen(&t, SMALL);
        uint64_t sleeps = 0;
        ASSERT(pipeRun(&t.creq, &t.sreq, 16ULL * 1024 * 1024, 9000, &sleeps));
        ASSERT(sleeps > 0); /* The doorbells were really used. */
        ASSERT_EQ_LL(shmRingReadable(&t.sreq), 0);
        regionClose(&t, SMALL);
    }

    TEST("shm_ring: 100000 small messages, consumer sleeping between them") {
        testRegion t;
        regionOpen(&t, SMALL);
        ASSERT(pipeRun(&t.srep, &t.crep, 100000 * 7ULL, 7, NULL));
        regionClose(&t, SMALL);
    }

    TEST("shm_ring: arming for data, and the producer's wake-up") {
        testRegion t;
        regionOpen(&t, SMALL);
        ASSERT_EQ_LL(shmRingArmRead(&t.sreq), 0); /* Empty: may sleep. */
        ASSERT_EQ_LL(atomic_load(&t.sreq.ctl->data_waiter), 1);
        ASSERT_EQ_LL(shmRingWrite(&t.creq, "PING", 4), 4);
        ASSERT_EQ_LL(shmRingWakeNeeded(&t.creq), 1);
        ASSERT_EQ_LL(atomic_load(&t.sreq.ctl->data_waiter), 0);
        ASSERT_EQ_LL(shmRingWakeNeeded(&t.creq), 0); /* One ring per sleep. */
        ASSERT_EQ_LL(shmRingArmRead(&t.sreq), 1);    /* Data there: do not sleep. */
        ASSERT_EQ_LL(atomic_load(&t.sreq.ctl->data_waiter), 0);
        char buf[8];
        ASSERT_EQ_LL(shmRingRead(&t.sreq, buf, sizeof(buf)), 4);
        ASSERT_EQ_LL(shmRingWakeNeeded(&t.sreq), 0); /* Producer never slept. */
        ASSERT_EQ_LL(shmRingArmRead(&t.sreq), 0);
        shmRingDisarm(&t.sreq);
        ASSERT_EQ_LL(atomic_load(&t.sreq.ctl->data_waiter), 0);
        regionClose(&t, SMALL);
    }

    TEST("shm_ring: arming for room on a full ring") {
        testRegion t;
        regionOpen(&t, SMALL);
        static unsigned char buf[SMALL];
        ASSERT_EQ_LL(shmRingWrite(&t.srep, buf, SMALL), SMALL);
        ASSERT_EQ_LL(shmRingArmWrite(&t.srep), 0);
        ASSERT_EQ_LL(atomic_load(&t.srep.ctl->space_waiter), 1);
        ASSERT_EQ_LL(shmRingRead(&t.crep, buf, 1), 1);
        ASSERT_EQ_LL(shmRingWakeNeeded(&t.crep), 1);
        ASSERT_EQ_LL(shmRingArmWrite(&t.srep), 1);
        ASSERT_EQ_LL(shmRingArmRead(&t.srep), -1); /* Wrong end. */
        regionClose(&t, SMALL);
    }

    TEST("shm_ring: a tail beyond the ring or moving back is corruption") {
        testRegion t;
        regionOpen(&t, SMALL);
        ASSERT_EQ_LL(shmRingWrite(&t.creq, "abcdef", 6), 6);
        ASSERT_EQ_LL(shmRingReadable(&t.sreq), 6);
        atomic_store(&t.sreq.ctl->tail, 3); /* Backwards, below what we saw. */
        ASSERT_EQ_LL(shmRingReadable(&t.sreq), -1);
        atomic_store(&t.sreq.ctl->tail, 6);
        ASSERT_EQ_LL(shmRingReadable(&t.sreq), -1); /* Corrupt for good. */
        char buf[8];
        ASSERT_EQ_LL(shmRingRead(&t.sreq, buf, sizeof(buf)), -1);
        ASSERT_EQ_LL(shmRingArmRead(&t.sreq), -1);
        regionClose(&t, SMALL);

        regionOpen(&t, SMALL);
        atomic_store(&t.sreq.ctl->tail, SMALL + 1); /* More than the ring holds. */
        ASSERT_EQ_LL(shmRingRead(&t.sreq, buf, sizeof(buf)), -1);
        regionClose(&t, SMALL);

        regionOpen(&t, SMALL);
        atomic_store(&t.sreq.ctl->tail, UINT64_MAX); /* "Negative". */
        ASSERT_EQ_LL(shmRingReadable(&t.sreq), -1);
        regionClose(&t, SMALL);

        regionOpen(&t, SMALL);
        atomic_store(&t.sreq.ctl->tail, SMALL); /* Exactly full is fine. */
        ASSERT_EQ_LL(shmRingReadable(&t.sreq), SMALL);
        regionClose(&t, SMALL);
    }

    TEST("shm_ring: a head past the tail or moving back is corruption") {
        testRegion t;
        regionOpen(&t, SMALL);
        ASSERT_EQ_LL(shmRingWrite(&t.srep, "abcdef", 6), 6);
        atomic_store(&t.srep.ctl->head, 7); /* Consumed more than written. */
        ASSERT_EQ_LL(shmRingWritable(&t.srep), -1);
        ASSERT_EQ_LL(shmRingWrite(&t.srep, "x", 1), -1);
        regionClose(&t, SMALL);

        regionOpen(&t, SMALL);
        ASSERT_EQ_LL(shmRingWrite(&t.srep, "abcdef", 6), 6);
        atomic_store(&t.srep.ctl->head, 4);
        ASSERT_EQ_LL(shmRingWritable(&t.srep), SMALL - 2);
        atomic_store(&t.srep.ctl->head, 2); /* Backwards. */
        ASSERT_EQ_LL(shmRingWritable(&t.srep), -1);
        ASSERT_EQ_LL(shmRingArmWrite(&t.srep), -1);
        regionClose(&t, SMALL);
    }

    TEST("shm_ring: the header keeps no index the server reads back") {
        /* Scribbling over the informative header and the ring bytes changes
         * nothing a side relies on: sizes come from its private copy. */
        testRegion t;
        regionOpen(&t, SMALL);
        shmRegionHeader *h = t.mem;
        h->ring_size = 1 << 30;
        h->region_size = 1;
        ASSERT_EQ_LL(shmRingWrite(&t.creq, "hello", 5), 5);
        memset(t.sreq.data, 0xff, 5); /* The peer changes bytes after publishing. */
        char buf[8];
        ASSERT_EQ_LL(shmRingRead(&t.sreq, buf, sizeof(buf)), 5);
        ASSERT_EQ_LL((unsigned char)buf[0], 0xff);
        ASSERT_EQ_LL(t.sreq.size, SMALL);
        regionClose(&t, SMALL);
    }

    TEST("shm_ring: preface format and parse") {
        char buf[SHM_PREFACE_MAX];
        int v = -1;
        int n = shmPrefaceFormat(buf, sizeof(buf), 1);
        ASSERT_EQ_LL(n, 10);
        ASSERT(memcmp(buf, "\x16VKSHM 1\r\n", 10) == 0);
        ASSERT_EQ_LL(shmPrefaceParse(buf, (size_t)n, &v), n);
        ASSERT_EQ_LL(v, 1);
        for (int len = 0; len < n; len++) ASSERT_EQ_LL(shmPrefaceParse(buf, (size_t)len, &v), 0);
        ASSERT_EQ_LL(shmPrefaceParse("\x16VKSHM 123\r\n", 12, &v), 12);
        ASSERT_EQ_LL(v, 123);
        ASSERT_EQ_LL(shmPrefaceParse("\x16VKSHM 0\r\n", 10, &v), 10); /* Parsed; the server refuses it. */
        ASSERT_EQ_LL(v, 0);
        ASSERT_EQ_LL(shmPrefaceParse("\x16VKSHM 1234\r\n", 13, &v), -1);
        ASSERT_EQ_LL(shmPrefaceParse("\x16VKSHM \r\n", 9, &v), -1);
        ASSERT_EQ_LL(shmPrefaceParse("\x16VKSHM 1\n", 9, &v), -1);
        ASSERT_EQ_LL(shmPrefaceParse("\x16VKSHM 1\rx", 10, &v), -1);
        ASSERT_EQ_LL(shmPrefaceParse("\x16VKSHN", 6, &v), -1);
        ASSERT_EQ_LL(shmPrefaceParse("*1\r\n$4\r\nPING\r\n", 14, &v), -1);
        ASSERT_EQ_LL(shmPrefaceFormat(buf, sizeof(buf), 0), -1);
        ASSERT_EQ_LL(shmPrefaceFormat(buf, 5, 1), -1);
    }

    TEST("shm_ring: hello encode, decode and every check") {
        shmHello h = {.version = 1, .nfds = SHM_HELLO_NFDS, .ring_size = 65536, .spin_us = 20},
                 d;
        h.region_size = shmRegionSize(h.ring_size);
        unsigned char buf[SHM_HELLO_LEN];
        shmHelloEncode(buf, &h);
        ASSERT_EQ_LL(buf[0], SHM_UPGRADE_BYTE);
        ASSERT_EQ_LL(buf[8], 0x00); /* 65536 little-endian: 00 00 01 00 */
        ASSERT_EQ_LL(buf[10], 0x01);
        ASSERT_EQ_LL(shmHelloDecode(buf, sizeof(buf), &d), 0);
        ASSERT_EQ_LL(d.version, 1);
        ASSERT_EQ_LL(d.ring_size, 65536);
        ASSERT_EQ_LL(d.spin_us, 20);
        ASSERT_EQ_LL(d.region_size, h.region_size);
        ASSERT_EQ_LL(shmHelloDecode(buf, sizeof(buf) - 1, &d), -1);
        unsigned char bad[SHM_HELLO_LEN];
        memcpy(bad, buf, sizeof(bad));
        bad[1] = 'X';
        ASSERT_EQ_LL(shmHelloDecode(bad, sizeof(bad), &d), -1);
        memcpy(bad, buf, sizeof(bad));
        bad[7] = 2;
        ASSERT_EQ_LL(shmHelloDecode(bad, sizeof(bad), &d), -1);
        memcpy(bad, buf, sizeof(bad));
        bad[6] = 0;
        ASSERT_EQ_LL(shmHelloDecode(bad, sizeof(bad), &d), -1);
        shmHello odd = h;
        odd.ring_size = 65537;
        odd.region_size = shmRegionSize(odd.ring_size);
        shmHelloEncode(bad, &odd);
        ASSERT_EQ_LL(shmHelloDecode(bad, sizeof(bad), &d), -1);
        odd = h;
        odd.region_size += 4096;
        shmHelloEncode(bad, &odd);
        ASSERT_EQ_LL(shmHelloDecode(bad, sizeof(bad), &d), -1);
    }

    return UT_END();
}
