/* util.h - number/string conversions, glob matching, clocks, randomness,
 * short copies.
 *
 * Small self-contained helpers shared by the server, the tools and the unit
 * tests. Conversions are strict in the way Valkey's replies and argument
 * parsing are: "12" is an integer, " 12", "+12" and "012" are not. */
#ifndef VK_UTIL_H
#define VK_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* memcpy() for the short strings of the hot path (arguments, keys and
 * values of keyspace entries): 4 to 32 bytes with two overlapping
 * fixed-size moves, inlined, no call; anything else by memcpy(). */
static inline void memcpyShort(char *dst, const char *src, size_t n) {
    if (n >= 8 && n <= 16) {
        memcpy(dst, src, 8);
        memcpy(dst + n - 8, src + n - 8, 8);
    } else if (n >= 4 && n < 8) {
        memcpy(dst, src, 4);
        memcpy(dst + n - 4, src + n - 4, 4);
    } else if (n > 16 && n <= 32) {
        memcpy(dst, src, 16);
        memcpy(dst + n - 16, src + n - 16, 16);
    } else {
        memcpy(dst, src, n);
    }
}

/* Bytes needed to print any long long, including sign and terminator. */
#define LONG_STR_SIZE 21
/* Buffer size that always holds ld2string()'s output in human mode. */
#define MAX_LONG_DOUBLE_CHARS (5 * 1024)
/* Buffer size that always holds d2string()'s output. */
#define MAX_D2STRING_CHARS 128

typedef enum {
    LD_STR_AUTO,  /* "%.17Lg": may use an exponent. */
    LD_STR_HUMAN, /* Fixed point, no exponent, trailing zeros removed. */
    LD_STR_HEX,   /* "%La": exact, for persistence. */
} ld2string_mode;

int string2ll(const char *s, size_t slen, long long *value);
int string2l(const char *s, size_t slen, long *value);
int string2ull(const char *s, size_t slen, unsigned long long *value);
int string2ld(const char *s, size_t slen, long double *dp);
int string2d(const char *s, size_t slen, double *dp);
int ll2string(char *dst, size_t dstlen, long long svalue);
int ull2string(char *dst, size_t dstlen, unsigned long long value);
int ld2string(char *buf, size_t len, long double value, ld2string_mode mode);
int d2string(char *buf, size_t len, double value);
uint32_t digits10(uint64_t v);
uint32_t sdigits10(int64_t v);

int stringmatchlen(const char *pattern, int patternLen, const char *string, int stringLen, int nocase);
int stringmatch(const char *pattern, const char *string, int nocase);
unsigned long long memtoull(const char *p, int *err);
long long memtoll(const char *p, int *err);

void getRandomBytes(unsigned char *p, size_t len);
void getRandomHexChars(char *p, size_t len);

long long ustime(void);
long long mstime(void);
uint64_t getMonotonicUs(void);

/* Appends printf-style text at buf + *len, never past bufsize (truncating,
 * buf stays NUL-terminated) and advances *len: for reports built piece by
 * piece into a fixed buffer (DEBUG HTSTATS). */
void bufAppendf(char *buf, size_t bufsize, size_t *len, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

int pathIsBaseName(const char *path);
int dirCreateIfMissing(const char *dname);

#endif
