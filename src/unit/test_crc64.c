/* test_crc64.c - unit tests for crc64.c: the CRC-64/Jones check value,
 * chaining across blocks of every split, and the slice-by-8 path against a
 * bit-at-a-time reference over random data of every alignment. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "crc64.h"
#include "unittest.h"

/* The definition, one bit at a time (reflected polynomial). */
static uint64_t crc64Reference(uint64_t crc, const unsigned char *p, size_t len) {
    for (size_t j = 0; j < len; j++) {
        crc ^= p[j];
        for (int b = 0; b < 8; b++) crc = (crc & 1) ? (crc >> 1) ^ 0x95ac9329ac4bc9b5ULL : crc >> 1;
    }
    return crc;
}

int main(int argc, char **argv) {
    (void)argc;
    UT_BEGIN(argv[0]);
    srand(42);

    TEST("crc64: check value of 123456789") {
        ASSERT(crc64(0, "123456789", 9) == 0xe9c6d914c4b8d9caULL);
    }

    TEST("crc64: empty input leaves the crc unchanged") {
        ASSERT(crc64(0, "", 0) == 0);
        ASSERT(crc64(0x1234, "x", 0) == 0x1234);
    }

    TEST("crc64: chaining over every split point equals one pass") {
        const char *s = "The quick brown fox jumps over the lazy dog, twice over.";
        size_t len = strlen(s);
        uint64_t whole = crc64(0, s, len);
        for (size_t cut = 0; cut <= len; cut++) ASSERT(crc64(crc64(0, s, cut), s + cut, len - cut) == whole);
    }

    TEST("crc64: slice-by-8 agrees with the bitwise reference") {
        unsigned char buf[1030];
        for (size_t j = 0; j < sizeof(buf); j++) buf[j] = (unsigned char)rand();
        for (size_t off = 0; off < 8; off++)
            for (size_t len = 0; len + off <= sizeof(buf); len += 1 + len / 3)
                ASSERT(crc64(0, buf + off, len) == crc64Reference(0, buf + off, len));
    }

    return UT_END();
}
