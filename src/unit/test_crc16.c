/* test_crc16.c - unit tests for crc16.c: the CRC-16/XMODEM check value of
 * the cluster spec, other published XMODEM values, and the table-driven
 * loop against a bit-at-a-time reference over random data. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "crc16.h"
#include "unittest.h"

/* The definition, one bit at a time, most significant bit first. */
static uint16_t crc16Reference(const unsigned char *p, size_t len) {
    uint16_t crc = 0;
    for (size_t j = 0; j < len; j++) {
        crc ^= (uint16_t)(p[j] << 8);
        for (int b = 0; b < 8; b++) crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
    }
    return crc;
}

int main(int argc, char **argv) {
    (void)argc;
    UT_BEGIN(argv[0]);
    srand(16384);

    TEST("crc16: the cluster spec's check value of 123456789") {
        ASSERT_EQ_LL(crc16("123456789", 9), 0x31c3);
    }

    TEST("crc16: empty input is 0") {
        ASSERT_EQ_LL(crc16("", 0), 0);
        ASSERT_EQ_LL(crc16(NULL, 0), 0);
    }

    TEST("crc16: single bytes are the table entries") {
        /* A byte b alone leaves the remainder of b * x^16. */
        ASSERT_EQ_LL(crc16("\x01", 1), 0x1021);
        ASSERT_EQ_LL(crc16("\x80", 1), 0x9188);
        ASSERT_EQ_LL(crc16("\xff", 1), 0x1ef0);
        ASSERT_EQ_LL(crc16("A", 1), 0x58e5);
    }

    TEST("crc16: the table agrees with the bitwise reference") {
        unsigned char buf[777];
        for (size_t j = 0; j < sizeof(buf); j++) buf[j] = (unsigned char)rand();
        for (size_t off = 0; off < 4; off++)
            for (size_t len = 0; len + off <= sizeof(buf); len += 1 + len / 5)
                ASSERT_EQ_LL(crc16((const char *)buf + off, len), crc16Reference(buf + off, len));
    }

    return UT_END();
}
