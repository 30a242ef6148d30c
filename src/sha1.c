/* sha1.c - SHA-1 written from the FIPS 180-4 description.
 *
 * The message is consumed in 64-byte blocks; each block is expanded into an
 * 80-word schedule and folded into the five-word state with four rounds of
 * twenty steps, each round with its own boolean function and constant. The
 * final block carries a 0x80 marker, zero padding and the message length in
 * bits as a big-endian 64-bit integer. Byte order is converted only in
 * loadBe32()/storeBe32(), so the code is endian-neutral.
 *
 * Callers: debug.c (DEBUG DIGEST / DIGEST-VALUE), scripting later. */
#include "sha1.h"

#include <string.h>

#define ROTL32(x, n) (((x) << (n)) | ((x) >> (32 - (n))))

static uint32_t loadBe32(const unsigned char *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static void storeBe32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* Folds one 64-byte block into the state. */
static void sha1Compress(uint32_t state[5], const unsigned char *blk) {
    uint32_t w[80];
    for (int t = 0; t < 16; t++) w[t] = loadBe32(blk + 4 * t);
    for (int t = 16; t < 80; t++) w[t] = ROTL32(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);

    uint32_t a = state[0], b = state[1], c = state[2], d = state[3], e = state[4];
    for (int t = 0; t < 80; t++) {
        uint32_t f, k;
        if (t < 20) {
            f = (b & c) | (~b & d); /* Ch */
            k = 0x5a827999;
        } else if (t < 40) {
            f = b ^ c ^ d; /* Parity */
            k = 0x6ed9eba1;
        } else if (t < 60) {
            f = (b & c) | (b & d) | (c & d); /* Maj */
            k = 0x8f1bbcdc;
        } else {
            f = b ^ c ^ d;
            k = 0xca62c1d6;
        }
        uint32_t tmp = ROTL32(a, 5) + f + e + k + w[t];
        e = d;
        d = c;
        c = ROTL32(b, 30);
        b = a;
        a = tmp;
    }
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
    state[4] += e;
}

/* Resets ctx to the initial hash value H(0). */
void SHA1Init(SHA1_CTX *ctx) {
    ctx->state[0] = 0x67452301;
    ctx->state[1] = 0xefcdab89;
    ctx->state[2] = 0x98badcfe;
    ctx->state[3] = 0x10325476;
    ctx->state[4] = 0xc3d2e1f0;
    ctx->total_len = 0;
    ctx->block_len = 0;
}

/* Hashes len more bytes; may be called any number of times. */
void SHA1Update(SHA1_CTX *ctx, const void *data, size_t len) {
    const unsigned char *p = data;
    ctx->total_len += len;
    if (ctx->block_len) {
        size_t take = 64 - ctx->block_len;
        if (take > len) take = len;
        memcpy(ctx->block + ctx->block_len, p, take);
        ctx->block_len += take;
        p += take;
        len -= take;
        if (ctx->block_len < 64) return;
        sha1Compress(ctx->state, ctx->block);
        ctx->block_len = 0;
    }
    while (len >= 64) {
        sha1Compress(ctx->state, p);
        p += 64;
        len -= 64;
    }
    if (len) {
        memcpy(ctx->block, p, len);
        ctx->block_len = len;
    }
}

/* Pads, writes the 20-byte digest and wipes ctx (it must be re-initialised
 * before reuse). */
void SHA1Final(unsigned char digest[SHA1_DIGEST_LEN], SHA1_CTX *ctx) {
    uint64_t bits = ctx->total_len * 8;
    ctx->block[ctx->block_len++] = 0x80;
    if (ctx->block_len > 56) {
        memset(ctx->block + ctx->block_len, 0, 64 - ctx->block_len);
        sha1Compress(ctx->state, ctx->block);
        ctx->block_len = 0;
    }
    memset(ctx->block + ctx->block_len, 0, 56 - ctx->block_len);
    storeBe32(ctx->block + 56, (uint32_t)(bits >> 32));
    storeBe32(ctx->block + 60, (uint32_t)bits);
    sha1Compress(ctx->state, ctx->block);
    for (int i = 0; i < 5; i++) storeBe32(digest + 4 * i, ctx->state[i]);
    memset(ctx, 0, sizeof(*ctx));
}

void sha1Buffer(unsigned char digest[SHA1_DIGEST_LEN], const void *data, size_t len) {
    SHA1_CTX ctx;
    SHA1Init(&ctx);
    SHA1Update(&ctx, data, len);
    SHA1Final(digest, &ctx);
}

void sha1ToHex(char out[41], const unsigned char digest[SHA1_DIGEST_LEN]) {
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < SHA1_DIGEST_LEN; i++) {
        out[2 * i] = hex[digest[i] >> 4];
        out[2 * i + 1] = hex[digest[i] & 15];
    }
    out[40] = '\0';
}
