/* shm_ring.h - byte rings in memory shared with an untrusted peer, and the
 * wire formats of the shared-memory transport ("shm", conn_shm.c; the
 * client side is libvkshm.c).
 *
 * A shared-memory connection is one memfd mapped by both processes. It
 * holds a header and two rings of SHM ring-size bytes each: the request
 * ring (client -> server) and the reply ring (server -> client). Layout of
 * protocol version 1 (offsets in bytes, SHM_DATA_OFFSET is 4096):
 *
 *     0                 shmRegionHeader: magic, version, sizes (informative)
 *     64                shmRingCtl of the request ring (4 cache lines)
 *     320               shmRingCtl of the reply ring (4 cache lines)
 *     4096              request ring data, ring_size bytes
 *     4096 + ring_size  reply ring data, ring_size bytes
 *
 * Each ring has one producer and one consumer. Its control block holds two
 * free-running 64-bit byte counters, tail (bytes ever written; only the
 * producer stores it) and head (bytes ever consumed; only the consumer
 * stores it), and two waiter flags (below). Byte n of the stream lives at
 * data[n & (ring_size - 1)]; ring_size is a power of two. The ring is empty
 * when head == tail and full when tail - head == ring_size.
 *
 * The peer is untrusted. Each side keeps its own index in private memory
 * (shmRing.pos) and only publishes it: it never reads its own index back.
 * The peer's index is loaded once per operation and checked before use:
 * a tail must lie in [last tail seen, our head + ring_size], a head in
 * [last head seen, our tail]. Anything else means the peer scribbled over
 * the ring; the ring turns corrupt for good and every call fails, so the
 * owner drops the connection. Sizes and offsets are never read from shared
 * memory after setup either: each side works from its private copy.
 * Bytes are copied out of the ring before anything parses them, so the
 * peer cannot change them between a check and a use. The memfd is sealed
 * against shrinking (F_SEAL_SHRINK), so no peer can make our accesses
 * fault (SIGBUS) by truncating it.
 *
 * Waiting without lost wake-ups. A consumer that finds its ring empty
 * polls it for a while (shm-spin-us); then it sets data_waiter, re-checks
 * the tail, and only if the ring is still empty sleeps on its doorbell (an
 * eventfd the producer can write). A producer, after publishing a new
 * tail, checks data_waiter; if it is set, it clears it (exchange) and
 * rings the doorbell. The same pair of steps, with space_waiter and head,
 * lets a producer facing a full ring sleep until the consumer frees room.
 * This is Dekker's pattern:
 *
 *     sleeper: store waiter = 1;  fence(seq_cst);  load index  -> sleep if unchanged
 *     waker:   store index;       fence(seq_cst);  load waiter -> ring if set
 *
 * With a sequentially consistent fence between each side's store and load,
 * at least one side sees the other's store: either the sleeper sees the
 * new index and does not sleep, or the waker sees the flag and rings. (A
 * release store followed by an acquire load would not do: x86 lets the
 * load pass the store.) Data itself is published with release stores of
 * tail/head and read after acquire loads, so the bytes are visible before
 * the index that covers them. While a side is spinning its flag is clear
 * and the other side makes no system call at all; a sleeping side costs
 * one eventfd write to wake. A peer that sets or clears the flags at will
 * only causes spurious or missed wake-ups of itself.
 *
 * The upgrade, on the Unix socket, before any RESP byte (conn_shm.c says
 * why these bytes):
 *
 *     client: "\x16VKSHM <version>\r\n"      (at most SHM_PREFACE_MAX bytes)
 *     server: shmHello (32 bytes) + SCM_RIGHTS {memfd, server doorbell, client doorbell}
 *        or : a RESP error line ("-ERR ...\r\n"): refused, the socket stays plain
 *
 * shmHello's integers are little-endian on the wire; shmHelloEncode() and
 * shmHelloDecode() are the only code that converts them.
 *
 * Leaf library: includes no server header and links into unit tests, the
 * fuzz target, the tools and the client library alone. Each shmRing is
 * used by one thread. */
#ifndef VK_SHM_RING_H
#define VK_SHM_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#define SHM_PROTO_VERSION 1 /* The newest protocol version we speak. */
#define SHM_CACHELINE 64
#define SHM_DATA_OFFSET 4096              /* Where the request ring's bytes start. */
#define SHM_RING_MIN_SIZE (4 * 1024)      /* shm-ring-size bounds: powers of two. */
#define SHM_RING_MAX_SIZE (64 * 1024 * 1024)

#define SHM_UPGRADE_BYTE 0x16 /* First byte of the preface and of shmHello (ASCII SYN). */
#define SHM_PREFACE_PREFIX "\x16VKSHM "
#define SHM_PREFACE_MAX 16  /* Longest valid preface, CRLF included. */
#define SHM_HELLO_LEN 32    /* Bytes of an encoded shmHello. */
#define SHM_HELLO_NFDS 3    /* memfd, server doorbell, client doorbell. */

_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2 && ATOMIC_INT_LOCK_FREE == 2,
               "shared-memory rings need lock-free 64- and 32-bit atomics");

/* One ring's control block, in shared memory. Each word sits alone on a
 * cache line, so that the producer's and the consumer's stores never
 * share one. Every value here is written by a peer we do not trust. */
typedef struct shmRingCtl {
    _Alignas(SHM_CACHELINE) _Atomic uint64_t tail;         /* Producer: bytes ever written. */
    _Alignas(SHM_CACHELINE) _Atomic uint64_t head;         /* Consumer: bytes ever consumed. */
    _Alignas(SHM_CACHELINE) _Atomic uint32_t data_waiter;  /* Consumer asleep for data (producer clears, rings). */
    _Alignas(SHM_CACHELINE) _Atomic uint32_t space_waiter; /* Producer asleep for room (consumer clears, rings). */
} shmRingCtl;
_Static_assert(sizeof(shmRingCtl) == 4 * SHM_CACHELINE, "shmRingCtl is four cache lines");

/* The start of the shared region. magic/version/sizes are written by the
 * server at setup for humans and debuggers: no side reads them back. */
typedef struct shmRegionHeader {
    char magic[8];        /* "VKSHMRG\0" */
    uint32_t version;     /* SHM_PROTO_VERSION of the layout. */
    uint32_t ring_size;   /* Bytes of each ring. */
    uint64_t region_size; /* Bytes of the whole memfd. */
    unsigned char reserved[SHM_CACHELINE - 24];
    shmRingCtl req; /* Client -> server. */
    shmRingCtl rep; /* Server -> client. */
} shmRegionHeader;
_Static_assert(sizeof(shmRegionHeader) == SHM_CACHELINE + 2 * sizeof(shmRingCtl), "header layout");
_Static_assert(sizeof(shmRegionHeader) <= SHM_DATA_OFFSET, "header fits before the data");

/* The server's answer to an accepted preface (SHM_HELLO_LEN bytes on the
 * wire, little-endian):
 *   0  magic "\x16VKSHM" (6)   6 version (1)   7 nfds (1)
 *   8  ring_size (4)          12 spin_us (4)  16 region_size (8)
 *   24 reserved, zero (8) */
typedef struct shmHello {
    uint8_t version;      /* Protocol version the server chose (<= the client's). */
    uint8_t nfds;         /* SHM_HELLO_NFDS. */
    uint32_t ring_size;   /* Bytes of each ring. */
    uint32_t spin_us;     /* The server's shm-spin-us: the client's default. */
    uint64_t region_size; /* Must equal shmRegionSize(ring_size) and the memfd's size. */
} shmHello;

/* Which end of a ring a shmRing is. */
typedef enum {
    SHM_RING_PRODUCER = 0, /* Writes bytes, publishes tail. */
    SHM_RING_CONSUMER      /* Reads bytes, publishes head. */
} shmRingRole;

/* One side's private view of a ring. Everything but ctl and data lives in
 * private memory and is the truth for this side. */
typedef struct shmRing {
    shmRingCtl *ctl;     /* Shared: indices and flags. */
    unsigned char *data; /* Shared: size bytes. */
    uint64_t size;       /* Power of two; never re-read from shared memory. */
    uint64_t mask;       /* size - 1. */
    uint64_t pos;        /* Our index: tail (producer) or head (consumer). */
    uint64_t peer;       /* The peer's index as last loaded and checked. */
    shmRingRole role;
    int corrupt;         /* The peer broke the ring: every call fails now. */
} shmRing;

/* ---- Layout ---------------------------------------------------------- */

int shmRingSizeValid(uint64_t size);
uint64_t shmRegionSize(uint64_t ring_size);
void shmRegionInit(void *region, uint32_t ring_size);
void shmRegionRings(void *region, uint64_t ring_size, shmRing *req, shmRing *rep, int server_side);

/* ---- Rings ----------------------------------------------------------- */

int shmRingAttach(shmRing *r, shmRingCtl *ctl, void *data, uint64_t size, shmRingRole role);
ssize_t shmRingReadable(shmRing *r);
ssize_t shmRingWritable(shmRing *r);
ssize_t shmRingRead(shmRing *r, void *buf, size_t len);
ssize_t shmRingWrite(shmRing *r, const void *buf, size_t len);
ssize_t shmRingWritev(shmRing *r, const struct iovec *iov, int iovcnt);

/* ---- Waiting --------------------------------------------------------- */

int shmRingArmRead(shmRing *r);
int shmRingArmWrite(shmRing *r);
void shmRingDisarm(shmRing *r);
int shmRingWakeNeeded(shmRing *r);

/* ---- Upgrade messages ------------------------------------------------ */

int shmPrefaceFormat(char *buf, size_t len, int version);
int shmPrefaceParse(const char *buf, size_t len, int *version);
void shmHelloEncode(unsigned char *buf, const shmHello *h);
int shmHelloDecode(const unsigned char *buf, size_t len, shmHello *h);

#endif
