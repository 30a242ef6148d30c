/* sha1.h - SHA-1 (FIPS 180-4), streaming interface.
 *
 * A leaf library: no server headers. Used by DEBUG DIGEST (debug.c) and,
 * later, by the scripting engine for script ids. SHA-1 is not used here for
 * security, only as a well-mixed 160-bit fingerprint. */
#ifndef VK_SHA1_H
#define VK_SHA1_H

#include <stddef.h>
#include <stdint.h>

#define SHA1_DIGEST_LEN 20

typedef struct SHA1_CTX {
    uint32_t state[5];      /* H0..H4 */
    uint64_t total_len;     /* Bytes hashed so far. */
    unsigned char block[64];/* Partial block not yet compressed. */
    size_t block_len;
} SHA1_CTX;

void SHA1Init(SHA1_CTX *ctx);
void SHA1Update(SHA1_CTX *ctx, const void *data, size_t len);
void SHA1Final(unsigned char digest[SHA1_DIGEST_LEN], SHA1_CTX *ctx);
/* One-shot helper: digest of len bytes at data. */
void sha1Buffer(unsigned char digest[SHA1_DIGEST_LEN], const void *data, size_t len);
/* Writes 40 lower-case hex chars plus a terminator into out[41]. */
void sha1ToHex(char out[41], const unsigned char digest[SHA1_DIGEST_LEN]);

#endif
