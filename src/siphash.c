/* siphash.c - SipHash, written from the algorithm's published description
 * (Aumasson and Bernstein, "SipHash: a fast short-input PRF", 2012).
 *
 * The hash table hashes every key with a secret random seed, so clients
 * cannot choose keys that collide (hash flooding). SipHash-c-d runs c
 * compression rounds per 8-byte message word and d finalisation rounds;
 * the dict uses c=1, d=2, which is fast on the short strings that keys
 * usually are and still keyed. siphash_nocase() hashes as if every ASCII
 * letter were lower case, for tables whose keys compare case-insensitively
 * (the command table, config names).
 *
 * The state is four 64-bit words; the 16-byte key and the message are read
 * as little-endian words regardless of the host's byte order, so results are
 * identical on every platform. */
#include "siphash.h"
#include "byteorder.h"

#include <string.h>

static inline uint8_t asciiLower(uint8_t c) { return (c >= 'A' && c <= 'Z') ? (uint8_t)(c + 32) : c; }

static inline uint64_t rotl64(uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

/* The same with ASCII letters folded to lower case, eight bytes at once:
 * a byte gets 0x20 added exactly when it lies in 'A'..'Z'. */
static inline uint64_t loadLE64Lower(const uint8_t *p) {
    uint64_t v = loadLE64(p);
    const uint64_t ones = 0x0101010101010101ULL;
    uint64_t ge_a = (v | (ones * 0x80)) - ones * 'A';   /* high bit set where byte >= 'A' (for bytes < 0x80) */
    uint64_t gt_z = (v | (ones * 0x80)) - ones * ('Z' + 1); /* high bit set where byte > 'Z' */
    uint64_t upper = ge_a & ~gt_z & ~v & (ones * 0x80); /* in range and ASCII */
    return v | (upper >> 2);
}

#define SIP_ROUND(v0, v1, v2, v3) \
    do {                          \
        v0 += v1;                 \
        v1 = rotl64(v1, 13);      \
        v1 ^= v0;                 \
        v0 = rotl64(v0, 32);      \
        v2 += v3;                 \
        v3 = rotl64(v3, 16);      \
        v3 ^= v2;                 \
        v0 += v3;                 \
        v3 = rotl64(v3, 21);      \
        v3 ^= v0;                 \
        v2 += v1;                 \
        v1 = rotl64(v1, 17);      \
        v1 ^= v2;                 \
        v2 = rotl64(v2, 32);      \
    } while (0)

/* The generic construction; inlined with constant c/d/nocase so each public
 * function compiles to a specialised loop. */
static inline __attribute__((always_inline)) uint64_t sipHashGeneric(const uint8_t *in, size_t inlen,
                                                                      const uint8_t *k, int c, int d, int nocase) {
    uint64_t k0 = loadLE64(k), k1 = loadLE64(k + 8);
    /* Initialisation constants: "somepseudorandomlygeneratedbytes". */
    uint64_t v0 = k0 ^ 0x736f6d6570736575ULL;
    uint64_t v1 = k1 ^ 0x646f72616e646f6dULL;
    uint64_t v2 = k0 ^ 0x6c7967656e657261ULL;
    uint64_t v3 = k1 ^ 0x7465646279746573ULL;

    const uint8_t *end = in + (inlen & ~(size_t)7);
    for (; in != end; in += 8) {
        uint64_t m = nocase ? loadLE64Lower(in) : loadLE64(in);
        v3 ^= m;
        for (int i = 0; i < c; i++) SIP_ROUND(v0, v1, v2, v3);
        v0 ^= m;
    }

    /* Last word: the 0..7 remaining bytes, with the length's low byte on top. */
    uint64_t b = (uint64_t)inlen << 56;
    for (int i = (int)(inlen & 7) - 1; i >= 0; i--) {
        uint8_t byte = nocase ? asciiLower(in[i]) : in[i];
        b |= (uint64_t)byte << (8 * i);
    }
    v3 ^= b;
    for (int i = 0; i < c; i++) SIP_ROUND(v0, v1, v2, v3);
    v0 ^= b;

    v2 ^= 0xff;
    for (int i = 0; i < d; i++) SIP_ROUND(v0, v1, v2, v3);
    return v0 ^ v1 ^ v2 ^ v3;
}

/* SipHash-1-2 of inlen bytes at in under the 16-byte key k. Pure. */
uint64_t siphash(const uint8_t *in, size_t inlen, const uint8_t *k) { return sipHashGeneric(in, inlen, k, 1, 2, 0); }

/* SipHash-1-2 of in with ASCII letters folded to lower case, so strings
 * equal under strcasecmp() hash alike. Pure. */
uint64_t siphash_nocase(const uint8_t *in, size_t inlen, const uint8_t *k) {
    return sipHashGeneric(in, inlen, k, 1, 2, 1);
}

/* SipHash-2-4 (the reference parameters) of in under k. Pure. */
uint64_t siphash24(const uint8_t *in, size_t inlen, const uint8_t *k) { return sipHashGeneric(in, inlen, k, 2, 4, 0); }
