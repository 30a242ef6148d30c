/* siphash.h - SipHash keyed hash functions (see siphash.c).
 *
 * k is always a 16-byte key. The dict uses the case-sensitive and
 * case-insensitive SipHash-1-2 forms; SipHash-2-4, the original
 * parameterisation, is exposed for the random generator in util.c and so
 * the unit tests can check the core against the published test vectors. */
#ifndef VK_SIPHASH_H
#define VK_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

uint64_t siphash(const uint8_t *in, size_t inlen, const uint8_t *k);
uint64_t siphash_nocase(const uint8_t *in, size_t inlen, const uint8_t *k);
uint64_t siphash24(const uint8_t *in, size_t inlen, const uint8_t *k);

#endif
