/* fuzz_shmring.c - libFuzzer target for the shared-memory ring reader and
 * writer (src/shm_ring.c) facing a hostile peer, and for the two upgrade
 * messages a peer sends (the preface, parsed by the server; the hello,
 * decoded by the client).
 *
 * Input: one byte choosing the ring size (4, 8 or 16 KB), then a program
 * of one-byte operations with their operands. The fuzzer plays the peer:
 * it sets the peer's index (a small step or any 64-bit value), scribbles
 * over ring bytes and waiter flags; our side reads into a buffer exactly
 * as long as it asked for, and writes. The ring's bytes live in a heap
 * block of exactly the ring's size, so AddressSanitizer stops any access
 * outside it. After every operation the target checks: a read never
 * returns more than asked or than the peer published, returns exactly the
 * bytes at our position, our index moves forward only by what was read or
 * written, the peer's index we accepted is within the ring's bounds, and a
 * ring found corrupt fails every later call. Any violation aborts.
 * Then the whole input is tried as a preface (a complete one has no
 * complete shorter prefix) and as a hello (decoded twice the same way,
 * and encoding what was decoded gives the same fields back). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shm_ring.h"

typedef struct input {
    const uint8_t *p;
    size_t left;
} input;

static uint64_t take(input *in, int bytes) {
    uint64_t v = 0;
    for (int j = 0; j < bytes && in->left; j++, in->p++, in->left--) v |= (uint64_t)*in->p << (8 * j);
    return v;
}

/* The invariants of either end, whatever the peer did. */
static void checkRing(const shmRing *r) {
    if (r->corrupt) return;
    if (r->role == SHM_RING_CONSUMER) {
        if (r->peer - r->pos > r->size) abort(); /* pos <= peer <= pos + size */
    } else {
        if (r->pos - r->peer > r->size) abort(); /* peer <= pos <= peer + size */
    }
}

/* Our side's buffers: static, so that the operations cost no allocation;
 * the ring's own bytes are the heap blocks AddressSanitizer guards. */
static unsigned char outbuf[65536], expectbuf[65536], inbuf[65536];

static void consumerRead(shmRing *r, input *in) {
    size_t want = (size_t)take(in, 2);
    int was_corrupt = r->corrupt;
    uint64_t before = r->pos;
    size_t cap = want < r->size ? want : (size_t)r->size;
    size_t off = (size_t)(before & r->mask), first = cap < r->size - off ? cap : (size_t)(r->size - off);
    memcpy(expectbuf, r->data + off, first); /* What the reader must return: the bytes at its position. */
    memcpy(expectbuf + first, r->data, cap - first);
    ssize_t n = shmRingRead(r, outbuf, want);
    if (was_corrupt && n != -1) abort();
    if (n == -1) {
        if (!r->corrupt || r->pos != before) abort();
    } else {
        if ((size_t)n > want || (uint64_t)n > r->size || r->pos != before + (uint64_t)n) abort();
        if (memcmp(outbuf, expectbuf, (size_t)n) != 0) abort();
    }
}

static void producerWrite(shmRing *r, input *in) {
    size_t len = (size_t)take(in, 2);
    int was_corrupt = r->corrupt;
    uint64_t before = r->pos;
    ssize_t n = shmRingWrite(r, inbuf, len);
    if (was_corrupt && n != -1) abort();
    if (n >= 0 && ((size_t)n > len || r->pos != before + (uint64_t)n || r->pos - r->peer > r->size)) abort();
    if (n == -1 && (!r->corrupt || r->pos != before)) abort();
}

static void runRings(input *in) {
    uint64_t size = 4096ULL << (take(in, 1) % 3);
    shmRingCtl *cc = aligned_alloc(SHM_CACHELINE, sizeof(shmRingCtl));
    shmRingCtl *pc = aligned_alloc(SHM_CACHELINE, sizeof(shmRingCtl));
    unsigned char *cdata = malloc(size), *pdata = malloc(size);
    memset(cc, 0, sizeof(*cc));
    memset(pc, 0, sizeof(*pc));
    memset(cdata, 0, size);
    memset(pdata, 0, size);
    shmRing cons, prod;
    if (shmRingAttach(&cons, cc, cdata, size, SHM_RING_CONSUMER) != 0) abort();
    if (shmRingAttach(&prod, pc, pdata, size, SHM_RING_PRODUCER) != 0) abort();

    while (in->left) {
        switch (take(in, 1) % 9) {
        case 0: atomic_fetch_add(&cc->tail, take(in, 2)); break;   /* Peer produces (maybe too much). */
        case 1: atomic_store(&cc->tail, take(in, 8)); break;       /* Peer sets any tail. */
        case 2: consumerRead(&cons, in); break;
        case 3: {                                                  /* Peer scribbles bytes. */
            uint64_t off = take(in, 2) % size;
            size_t n = (size_t)take(in, 1);
            if (n > size - off) n = (size_t)(size - off);
            memset(cdata + off, (int)take(in, 1), n);
            break;
        }
        case 4: atomic_fetch_add(&pc->head, take(in, 2)); break;   /* Peer consumes (maybe too much). */
        case 5: atomic_store(&pc->head, take(in, 8)); break;
        case 6: producerWrite(&prod, in); break;
        case 7:                                                    /* Peer plays with the flags. */
            atomic_store(&cc->data_waiter, (uint32_t)take(in, 4));
            atomic_store(&pc->space_waiter, (uint32_t)take(in, 4));
            (void)shmRingWakeNeeded(&cons);
            (void)shmRingWakeNeeded(&prod);
            break;
        case 8: {
            int was = cons.corrupt, a = shmRingArmRead(&cons);
            if (a < -1 || a > 1 || (was && a != -1)) abort();
            was = prod.corrupt;
            a = shmRingArmWrite(&prod);
            if (a < -1 || a > 1 || (was && a != -1)) abort();
            break;
        }
        }
        checkRing(&cons);
        checkRing(&prod);
    }
    free(cdata);
    free(pdata);
    free(cc);
    free(pc);
}

static void runMessages(const uint8_t *data, size_t size) {
    int v1 = -1, v2 = -1;
    int n = shmPrefaceParse((const char *)data, size, &v1);
    if (n < -1 || n > SHM_PREFACE_MAX || n > (int)size) abort();
    if (n > 0) {
        for (int k = 0; k < n; k++)
            if (shmPrefaceParse((const char *)data, (size_t)k, &v2) != 0) abort();
        if (v1 < 0 || v1 > 999 || data[0] != SHM_UPGRADE_BYTE) abort();
    }
    shmHello h1, h2;
    if (shmHelloDecode(data, size, &h1) == 0) {
        unsigned char buf[SHM_HELLO_LEN];
        shmHelloEncode(buf, &h1);
        if (shmHelloDecode(buf, sizeof(buf), &h2) != 0) abort();
        if (h1.version != h2.version || h1.ring_size != h2.ring_size || h1.region_size != h2.region_size ||
            h1.spin_us != h2.spin_us || memcmp(buf, data, 24) != 0)
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    input in = {.p = data, .left = size};
    runRings(&in);
    runMessages(data, size);
    return 0;
}
