/* shm_ring.c - single-producer single-consumer byte rings in shared memory
 * whose peer is not trusted, and the upgrade messages of the shared-memory
 * transport. shm_ring.h describes the layout, the checks and the waiting
 * protocol; this file implements them.
 *
 * Callers: conn_shm.c (the server's transport), libvkshm.c (the client
 * library, and through it the tools and the Tcl channel), the unit tests
 * and the fuzz target. Calls nothing but libc. No function here blocks or
 * makes a system call: sleeping on a doorbell is the caller's business,
 * after shmRingArmRead()/shmRingArmWrite() said it may. */
#include "shm_ring.h"

#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------------------
 * Layout
 * ------------------------------------------------------------------------- */

/* Returns 1 if size is a power of two within [SHM_RING_MIN_SIZE,
 * SHM_RING_MAX_SIZE], else 0. */
int shmRingSizeValid(uint64_t size) {
    return size >= SHM_RING_MIN_SIZE && size <= SHM_RING_MAX_SIZE && (size & (size - 1)) == 0;
}

/* Returns the bytes of a region whose rings have ring_size bytes each
 * (the header page and both rings). */
uint64_t shmRegionSize(uint64_t ring_size) {
    return SHM_DATA_OFFSET + 2 * ring_size;
}

/* Writes a fresh header into region (at least shmRegionSize(ring_size)
 * bytes, zero-filled by the caller's memfd): both rings empty, no waiter.
 * Called by the server before the region is shared. */
void shmRegionInit(void *region, uint32_t ring_size) {
    shmRegionHeader *h = region;
    memset(h, 0, sizeof(*h));
    memcpy(h->magic, "VKSHMRG", 8);
    h->version = SHM_PROTO_VERSION;
    h->ring_size = ring_size;
    h->region_size = shmRegionSize(ring_size);
    atomic_store_explicit(&h->req.tail, 0, memory_order_relaxed);
    atomic_store_explicit(&h->req.head, 0, memory_order_relaxed);
    atomic_store_explicit(&h->rep.tail, 0, memory_order_relaxed);
    atomic_store_explicit(&h->rep.head, 0, memory_order_relaxed);
}

/* Attaches both rings of a mapped region: the server consumes requests and
 * produces replies, the client the other way round. ring_size must be the
 * private, already checked copy (never the header's). */
void shmRegionRings(void *region, uint64_t ring_size, shmRing *req, shmRing *rep, int server_side) {
    shmRegionHeader *h = region;
    unsigned char *data = (unsigned char *)region + SHM_DATA_OFFSET;
    shmRingAttach(req, &h->req, data, ring_size, server_side ? SHM_RING_CONSUMER : SHM_RING_PRODUCER);
    shmRingAttach(rep, &h->rep, data + ring_size, ring_size, server_side ? SHM_RING_PRODUCER : SHM_RING_CONSUMER);
}

/* ---------------------------------------------------------------------------
 * Rings
 * ------------------------------------------------------------------------- */

/* Sets r up as one end of the ring at ctl/data (size bytes). Both ends
 * start at index 0, as shmRegionInit() leaves them; nothing is read from
 * shared memory here. Returns 0, or -1 if size is no valid ring size. */
int shmRingAttach(shmRing *r, shmRingCtl *ctl, void *data, uint64_t size, shmRingRole role) {
    memset(r, 0, sizeof(*r));
    if (!shmRingSizeValid(size)) return -1;
    r->ctl = ctl;
    r->data = data;
    r->size = size;
    r->mask = size - 1;
    r->role = role;
    return 0;
}

/* Marks r corrupt (the peer broke the ring) and returns -1. */
static ssize_t ringCorrupt(shmRing *r) {
    r->corrupt = 1;
    return -1;
}

/* Consumer: loads the producer's tail once and checks it lies in [the last
 * tail seen, our head + size]. Returns the bytes ready to read (0 = empty),
 * or -1 if the ring is corrupt. */
ssize_t shmRingReadable(shmRing *r) {
    if (r->corrupt || r->role != SHM_RING_CONSUMER) return -1;
    uint64_t t = atomic_load_explicit(&r->ctl->tail, memory_order_acquire);
    if (t - r->peer > r->pos + r->size - r->peer) return ringCorrupt(r);
    r->peer = t;
    return (ssize_t)(t - r->pos);
}

/* Producer: loads the consumer's head once and checks it lies in [the last
 * head seen, our tail]. Returns the bytes of free room (0 = full), or -1
 * if the ring is corrupt. */
ssize_t shmRingWritable(shmRing *r) {
    if (r->corrupt || r->role != SHM_RING_PRODUCER) return -1;
    uint64_t h = atomic_load_explicit(&r->ctl->head, memory_order_acquire);
    if (h - r->peer > r->pos - r->peer) return ringCorrupt(r);
    r->peer = h;
    return (ssize_t)(r->size - (r->pos - h));
}

/* Copies len bytes from the ring at stream index at into buf (in up to two
 * pieces across the wrap). */
static void ringCopyOut(shmRing *r, uint64_t at, unsigned char *buf, size_t len) {
    size_t off = (size_t)(at & r->mask);
    size_t first = r->size - off < len ? (size_t)(r->size - off) : len;
    memcpy(buf, r->data + off, first);
    memcpy(buf + first, r->data, len - first);
}

static void ringCopyIn(shmRing *r, uint64_t at, const unsigned char *buf, size_t len) {
    size_t off = (size_t)(at & r->mask);
    size_t first = r->size - off < len ? (size_t)(r->size - off) : len;
    memcpy(r->data + off, buf, first);
    memcpy(r->data, buf + first, len - first);
}

/* Consumer: copies up to len bytes out of the ring into buf (private
 * memory: parse it there, never in the ring) and publishes the new head.
 * Returns bytes read, 0 if the ring is empty, -1 if it is corrupt. The
 * caller then asks shmRingWakeNeeded() whether the producer sleeps. */
ssize_t shmRingRead(shmRing *r, void *buf, size_t len) {
    ssize_t avail = shmRingReadable(r);
    if (avail <= 0 || len == 0) return avail < 0 ? -1 : 0;
    size_t n = (size_t)avail < len ? (size_t)avail : len;
    ringCopyOut(r, r->pos, buf, n);
    r->pos += n;
    atomic_store_explicit(&r->ctl->head, r->pos, memory_order_release);
    return (ssize_t)n;
}

/* Producer: copies as much of buf as fits and publishes the new tail.
 * Returns bytes written (possibly fewer than len), 0 if the ring is full,
 * -1 if it is corrupt. The caller then asks shmRingWakeNeeded() whether
 * the consumer sleeps. */
ssize_t shmRingWrite(shmRing *r, const void *buf, size_t len) {
    struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
    return shmRingWritev(r, &iov, 1);
}

/* As shmRingWrite() for iovcnt buffers, gathered in order into one
 * publication of the tail. */
ssize_t shmRingWritev(shmRing *r, const struct iovec *iov, int iovcnt) {
    ssize_t room = shmRingWritable(r);
    if (room <= 0) return room < 0 ? -1 : 0;
    size_t done = 0;
    for (int j = 0; j < iovcnt && done < (size_t)room; j++) {
        size_t n = iov[j].iov_len;
        if (n > (size_t)room - done) n = (size_t)room - done;
        ringCopyIn(r, r->pos + done, iov[j].iov_base, n);
        done += n;
    }
    if (done == 0) return 0;
    r->pos += done;
    atomic_store_explicit(&r->ctl->tail, r->pos, memory_order_release);
    return (ssize_t)done;
}

/* ---------------------------------------------------------------------------
 * Waiting (the Dekker pairs of shm_ring.h)
 * ------------------------------------------------------------------------- */

/* The flag this end sets before it sleeps. */
static _Atomic uint32_t *ownWaiter(shmRing *r) {
    return r->role == SHM_RING_CONSUMER ? &r->ctl->data_waiter : &r->ctl->space_waiter;
}

/* The flag the other end sets before it sleeps. */
static _Atomic uint32_t *peerWaiter(shmRing *r) {
    return r->role == SHM_RING_CONSUMER ? &r->ctl->space_waiter : &r->ctl->data_waiter;
}

/* Sets our waiter flag, then re-checks the ring after a full fence. Returns
 * 0 if the caller may sleep on its doorbell now (the flag stays set: the
 * peer will ring), 1 if what it waits for is already there (the flag is
 * cleared again), -1 if the ring is corrupt. */
static int ringArm(shmRing *r, ssize_t (*check)(shmRing *)) {
    if (r->corrupt) return -1;
    atomic_store_explicit(ownWaiter(r), 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
    ssize_t n = check(r);
    if (n == 0) return 0;
    atomic_store_explicit(ownWaiter(r), 0, memory_order_relaxed);
    return n < 0 ? -1 : 1;
}

/* Consumer about to sleep until bytes arrive: see ringArm(). */
int shmRingArmRead(shmRing *r) {
    if (r->role != SHM_RING_CONSUMER) return -1;
    return ringArm(r, shmRingReadable);
}

/* Producer about to sleep until room frees up: see ringArm(). */
int shmRingArmWrite(shmRing *r) {
    if (r->role != SHM_RING_PRODUCER) return -1;
    return ringArm(r, shmRingWritable);
}

/* Clears our waiter flag (we are awake and will poll again). */
void shmRingDisarm(shmRing *r) {
    atomic_store_explicit(ownWaiter(r), 0, memory_order_relaxed);
}

/* After publishing our index (a read or write that moved bytes): returns 1
 * if the peer had armed its waiter flag, which this clears, so the caller
 * must ring the peer's doorbell once; 0 if the peer is not asleep. */
int shmRingWakeNeeded(shmRing *r) {
    _Atomic uint32_t *w = peerWaiter(r);
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(w, memory_order_relaxed) == 0) return 0;
    return atomic_exchange_explicit(w, 0, memory_order_relaxed) != 0;
}

/* ---------------------------------------------------------------------------
 * Upgrade messages
 * ------------------------------------------------------------------------- */

/* Writes the preface asking for protocol `version` into buf. Returns its
 * length, or -1 if buf is too small or version is out of range (1-999). */
int shmPrefaceFormat(char *buf, size_t len, int version) {
    if (version < 1 || version > 999) return -1;
    int n = snprintf(buf, len, SHM_PREFACE_PREFIX "%d\r\n", version);
    return n < 0 || (size_t)n >= len ? -1 : n;
}

/* Parses the first len bytes a client sent as an upgrade preface.
 * Returns its length (and *version) once it is complete and valid, 0 if
 * the bytes so far are a valid beginning of one, -1 if they can be no
 * preface (wrong prefix, no digit, a non-digit, more than 3 digits, no
 * CRLF within SHM_PREFACE_MAX bytes). Reads only buf[0..len). */
int shmPrefaceParse(const char *buf, size_t len, int *version) {
    const size_t plen = sizeof(SHM_PREFACE_PREFIX) - 1;
    size_t i = 0;
    for (; i < len && i < plen; i++)
        if (buf[i] != SHM_PREFACE_PREFIX[i]) return -1;
    if (i < plen) return 0;
    int v = 0, digits = 0;
    for (; i < len && buf[i] >= '0' && buf[i] <= '9'; i++) {
        if (++digits > 3) return -1;
        v = v * 10 + (buf[i] - '0');
    }
    if (i == len) return 0;
    if (digits == 0 || buf[i] != '\r') return -1;
    if (++i == len) return 0;
    if (buf[i] != '\n') return -1;
    *version = v;
    return (int)(i + 1);
}

static void putLe32(unsigned char *p, uint32_t v) {
    for (int j = 0; j < 4; j++) p[j] = (unsigned char)(v >> (8 * j));
}

static void putLe64(unsigned char *p, uint64_t v) {
    for (int j = 0; j < 8; j++) p[j] = (unsigned char)(v >> (8 * j));
}

static uint32_t getLe32(const unsigned char *p) {
    uint32_t v = 0;
    for (int j = 3; j >= 0; j--) v = (v << 8) | p[j];
    return v;
}

static uint64_t getLe64(const unsigned char *p) {
    uint64_t v = 0;
    for (int j = 7; j >= 0; j--) v = (v << 8) | p[j];
    return v;
}

/* Writes h as SHM_HELLO_LEN bytes into buf (layout in shm_ring.h). */
void shmHelloEncode(unsigned char *buf, const shmHello *h) {
    memset(buf, 0, SHM_HELLO_LEN);
    memcpy(buf, SHM_PREFACE_PREFIX, 6);
    buf[6] = h->version;
    buf[7] = h->nfds;
    putLe32(buf + 8, h->ring_size);
    putLe32(buf + 12, h->spin_us);
    putLe64(buf + 16, h->region_size);
}

/* Decodes and checks a hello: the magic, at least one fd per role
 * (SHM_HELLO_NFDS), a version of 1 or more, a valid ring size and the
 * region size that ring size implies. Returns 0 with *h filled, or -1 if
 * the bytes are short or any check fails. */
int shmHelloDecode(const unsigned char *buf, size_t len, shmHello *h) {
    if (len < SHM_HELLO_LEN || memcmp(buf, SHM_PREFACE_PREFIX, 6) != 0) return -1;
    h->version = buf[6];
    h->nfds = buf[7];
    h->ring_size = getLe32(buf + 8);
    h->spin_us = getLe32(buf + 12);
    h->region_size = getLe64(buf + 16);
    if (h->version < 1 || h->nfds != SHM_HELLO_NFDS) return -1;
    if (!shmRingSizeValid(h->ring_size) || h->region_size != shmRegionSize(h->ring_size)) return -1;
    return 0;
}
