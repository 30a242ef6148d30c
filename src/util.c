/* util.c - conversions, glob matching, clocks and random bytes.
 *
 * Used by command implementations (string2ll for every integer argument,
 * ld2string for INCRBYFLOAT, d2string for double replies, stringmatchlen for
 * KEYS/SCAN MATCH/PSUBSCRIBE), config parsing (memtoull) and server setup
 * (getRandomHexChars for the run id and the hash seed).
 *
 * Contracts worth knowing:
 *   - string2ll() accepts exactly the canonical decimal form of a long long,
 *     so a value that parses also prints back identically; that is what lets
 *     the server store "123" as an integer and reply with the same bytes.
 *   - stringmatchlen() runs in O(pattern * string) time at worst: on a
 *     mismatch it only backtracks to the most recent '*', never recursing,
 *     so no pattern can make it exponential. It still answers as Valkey's
 *     recursive matcher does where that one gives up: a pattern with more
 *     than 1000 runs of '*' (not counting a final one) matches nothing, and
 *     an empty string matches only the empty pattern.
 *   - getRandomBytes() is thread-safe and unpredictable (SipHash-2-4 in
 *     counter mode under a key read once from /dev/urandom), and a forked
 *     child never repeats its parent's stream.
 * Nothing here allocates except dirCreateIfMissing's libc calls. */
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "siphash.h"

/* ------------------------------ integers --------------------------------- */

/* Number of decimal digits of v (1 for 0). */
uint32_t digits10(uint64_t v) {
    uint32_t n = 1;
    while (v >= 10000) {
        v /= 10000;
        n += 4;
    }
    if (v >= 1000) return n + 3;
    if (v >= 100) return n + 2;
    if (v >= 10) return n + 1;
    return n;
}

/* Characters needed to print v in decimal, including a '-' sign. */
uint32_t sdigits10(int64_t v) {
    if (v >= 0) return digits10((uint64_t)v);
    return digits10(-(uint64_t)v) + 1;
}

/* Writes value in decimal plus a terminator into dst. Returns the length
 * (without terminator), or 0 if dstlen is too small (dst then unspecified). */
int ull2string(char *dst, size_t dstlen, unsigned long long value) {
    uint32_t n = digits10(value);
    if (n + 1 > dstlen) return 0;
    dst[n] = '\0';
    char *p = dst + n;
    do {
        *--p = (char)('0' + value % 10);
        value /= 10;
    } while (value);
    return (int)n;
}

/* Signed version of ull2string(), same contract. */
int ll2string(char *dst, size_t dstlen, long long svalue) {
    if (svalue >= 0) return ull2string(dst, dstlen, (unsigned long long)svalue);
    if (dstlen < 2) return 0;
    dst[0] = '-';
    int n = ull2string(dst + 1, dstlen - 1, -(unsigned long long)svalue);
    return n ? n + 1 : 0;
}

/* Parses the canonical decimal digits (no sign) of s into *v. Returns 1
 * unless s is empty, has a non-digit, a leading zero (other than "0"
 * itself) or overflows. */
static int parseCanonicalDigits(const char *s, size_t slen, unsigned long long *v) {
    if (slen == 0) return 0;
    if (s[0] == '0') {
        if (slen != 1) return 0;
        *v = 0;
        return 1;
    }
    unsigned long long acc = 0;
    for (size_t i = 0; i < slen; i++) {
        unsigned d = (unsigned char)s[i] - '0';
        if (d > 9) return 0;
        if (acc > (ULLONG_MAX - d) / 10) return 0;
        acc = acc * 10 + d;
    }
    *v = acc;
    return 1;
}

/* Parses s (slen bytes, need not be terminated) as a long long in strict
 * canonical form: optional '-', then digits with no leading zero ("0" is
 * fine, "-0", "+1", " 1", "01" and "" are not). Returns 1 and sets *value
 * (if not NULL) on success, 0 on any error including overflow. */
int string2ll(const char *s, size_t slen, long long *value) {
    if (slen == 0 || slen >= LONG_STR_SIZE) return 0;
    int neg = s[0] == '-';
    unsigned long long v;
    if (!parseCanonicalDigits(s + neg, slen - neg, &v)) return 0;
    long long r;
    if (neg) {
        if (v == 0 || v > (unsigned long long)LLONG_MAX + 1) return 0;
        r = (v == (unsigned long long)LLONG_MAX + 1) ? LLONG_MIN : -(long long)v;
    } else {
        if (v > (unsigned long long)LLONG_MAX) return 0;
        r = (long long)v;
    }
    if (value) *value = r;
    return 1;
}

/* string2ll() narrowed to long; 0 if out of range. */
int string2l(const char *s, size_t slen, long *lval) {
    long long ll;
    if (!string2ll(s, slen, &ll) || ll < LONG_MIN || ll > LONG_MAX) return 0;
    if (lval) *lval = (long)ll;
    return 1;
}

/* Parses s as an unsigned long long in the same strict form (no sign at
 * all). Returns 1 and sets *value (if not NULL), else 0. */
int string2ull(const char *s, size_t slen, unsigned long long *value) {
    unsigned long long v;
    if (slen >= LONG_STR_SIZE || !parseCanonicalDigits(s, slen, &v)) return 0;
    if (value) *value = v;
    return 1;
}

/* ---------------------------- floating point ----------------------------- */

/* Parses s as a long double, for INCRBYFLOAT and friends. Rejects the empty
 * string, leading whitespace, anything after the number (including a NUL
 * byte inside slen), NaN, overflow and underflow to zero. Infinity is
 * accepted; callers that must refuse it check isinf(). Returns 1 and sets
 * *dp on success, else 0. */
int string2ld(const char *s, size_t slen, long double *dp) {
    char buf[MAX_LONG_DOUBLE_CHARS];
    if (slen == 0 || slen >= sizeof(buf)) return 0;
    memcpy(buf, s, slen);
    buf[slen] = '\0';
    if (isspace((unsigned char)buf[0])) return 0;
    char *eptr;
    errno = 0;
    long double v = strtold(buf, &eptr);
    if (eptr != buf + slen || isnan(v)) return 0;
    if (errno == ERANGE && (isinf(v) || v == 0)) return 0;
    if (dp) *dp = v;
    return 1;
}

/* Parses s as a double with the same rules as string2ld() (ZADD scores,
 * INCRBYFLOAT on hashes). Returns 1 and sets *dp on success, else 0. */
int string2d(const char *s, size_t slen, double *dp) {
    char buf[MAX_LONG_DOUBLE_CHARS];
    if (slen == 0 || slen >= sizeof(buf)) return 0;
    memcpy(buf, s, slen);
    buf[slen] = '\0';
    if (isspace((unsigned char)buf[0])) return 0;
    char *eptr;
    errno = 0;
    double v = strtod(buf, &eptr);
    if (eptr != buf + slen || isnan(v)) return 0;
    if (errno == ERANGE && (isinf(v) || v == 0)) return 0;
    if (dp) *dp = v;
    return 1;
}

/* Formats value into buf (len bytes). Modes:
 *   LD_STR_HUMAN  fixed point with 17 digits after the point, then trailing
 *                 zeros (and a bare '.') removed, "-0" folded to "0": the
 *                 INCRBYFLOAT reply ("10.5", 5.0e3 -> "5000"). Needs up to
 *                 MAX_LONG_DOUBLE_CHARS for huge values.
 *   LD_STR_AUTO   "%.17Lg".
 *   LD_STR_HEX    "%La", exact.
 * Infinities print as "inf"/"-inf" in every mode. Returns the length, or 0
 * if buf is too small. */
int ld2string(char *buf, size_t len, long double value, ld2string_mode mode) {
    int l;
    if (isinf(value)) {
        const char *txt = value > 0 ? "inf" : "-inf";
        l = (int)strlen(txt);
        if ((size_t)l + 1 > len) return 0;
        memcpy(buf, txt, l + 1);
        return l;
    }
    switch (mode) {
    case LD_STR_AUTO: l = snprintf(buf, len, "%.17Lg", value); break;
    case LD_STR_HEX: l = snprintf(buf, len, "%La", value); break;
    case LD_STR_HUMAN:
        l = snprintf(buf, len, "%.17Lf", value);
        if (l < 0 || (size_t)l + 1 > len) return 0;
        if (memchr(buf, '.', l)) {
            while (buf[l - 1] == '0') l--;
            if (buf[l - 1] == '.') l--;
        }
        if (l == 2 && buf[0] == '-' && buf[1] == '0') {
            buf[0] = '0';
            l = 1;
        }
        buf[l] = '\0';
        break;
    default: return 0;
    }
    if (l < 0 || (size_t)l + 1 > len) return 0;
    return l;
}

/* Formats a double the way replies show it: "nan", "inf", "-inf", "0" or
 * "-0"; integral values within +/-2^53 as plain integers; anything else in
 * the shortest "%.Ng" form (N = 15, 16 or 17) that reads back as the same
 * double. Returns the length, or 0 if buf (len bytes) is too small;
 * MAX_D2STRING_CHARS always suffices. */
int d2string(char *buf, size_t len, double value) {
    const char *txt = NULL;
    if (isnan(value))
        txt = "nan";
    else if (isinf(value))
        txt = value > 0 ? "inf" : "-inf";
    else if (value == 0)
        txt = signbit(value) ? "-0" : "0";
    if (txt) {
        size_t l = strlen(txt);
        if (l + 1 > len) return 0;
        memcpy(buf, txt, l + 1);
        return (int)l;
    }

    const double limit = 9007199254740992.0; /* 2^53: every integer below is exact */
    if (value > -limit && value < limit && value == (double)(long long)value)
        return ll2string(buf, len, (long long)value);

    int l = 0;
    for (int prec = 15; prec <= 17; prec++) {
        l = snprintf(buf, len, "%.*g", prec, value);
        if (l < 0 || (size_t)l + 1 > len) return 0;
        if (prec == 17 || strtod(buf, NULL) == value) break;
    }
    return l;
}

/* ------------------------------ glob matching ---------------------------- */

static inline int charEq(unsigned char a, unsigned char b, int nocase) {
    return a == b || (nocase && tolower(a) == tolower(b));
}

/* Tries the single-character pattern token at p (everything except '*')
 * against c. Stores the token's length in *adv and returns 1 on a match. */
static int matchToken(const char *p, int plen, unsigned char c, int nocase, int *adv) {
    if (p[0] == '?') {
        *adv = 1;
        return 1;
    }
    if (p[0] == '\\') {
        if (plen >= 2) {
            *adv = 2;
            return charEq((unsigned char)p[1], c, nocase);
        }
        *adv = 1; /* a trailing backslash is literal */
        return c == '\\';
    }
    if (p[0] != '[') {
        *adv = 1;
        return charEq((unsigned char)p[0], c, nocase);
    }

    /* Character class "[...]": '^' negates, "a-z" ranges (either order), '\'
     * escapes, and a class left open runs to the end of the pattern. */
    int j = 1, negate = 0, match = 0;
    if (j < plen && p[j] == '^') {
        negate = 1;
        j++;
    }
    unsigned char lc = nocase ? (unsigned char)tolower(c) : c;
    for (;;) {
        if (j >= plen) break;
        if (p[j] == '\\' && j + 1 < plen) {
            if (charEq((unsigned char)p[j + 1], c, nocase)) match = 1;
            j += 2;
        } else if (p[j] == ']') {
            j++;
            break;
        } else if (j + 2 < plen && p[j + 1] == '-') {
            unsigned char lo = (unsigned char)p[j], hi = (unsigned char)p[j + 2];
            if (nocase) {
                lo = (unsigned char)tolower(lo);
                hi = (unsigned char)tolower(hi);
            }
            if (lo > hi) {
                unsigned char t = lo;
                lo = hi;
                hi = t;
            }
            if (lc >= lo && lc <= hi) match = 1;
            j += 3;
        } else {
            if (charEq((unsigned char)p[j], c, nocase)) match = 1;
            j++;
        }
    }
    *adv = j;
    return negate ? !match : match;
}

/* Valkey's matcher recurses once per run of '*' followed by more pattern
 * and gives up (no match) past 1000 levels: a pattern with more than 1000
 * such runs matches nothing there. 1 for such a pattern, so that ours
 * answers the same (it would not be slow on it: see stringmatchlen). */
#define GLOB_MAX_STAR_RUNS 1000
static int globTooManyStars(const char *p, int plen) {
    int runs = 0, pi = 0;
    while (pi < plen) {
        if (p[pi] == '*') {
            while (pi < plen && p[pi] == '*') pi++;
            if (pi < plen && ++runs > GLOB_MAX_STAR_RUNS) return 1;
            continue;
        }
        int adv;
        matchToken(p + pi, plen - pi, 0, 0, &adv);
        pi += adv;
    }
    return 0;
}

/* Glob-style match of string against pattern: '*' any run, '?' any byte,
 * "[abc]" "[^a-z]" classes, '\' escapes the next byte. Both are binary
 * (explicit lengths). nocase folds ASCII case. Returns 1 on a match.
 *
 * Every token but '*' consumes exactly one byte, so after a mismatch it is
 * enough to retry from the most recent '*' with one more byte swallowed by
 * it: an earlier '*' could only re-create a position the later one already
 * covers. That bounds the work at patternLen * stringLen steps. */
int stringmatchlen(const char *pattern, int patternLen, const char *string, int stringLen, int nocase) {
    /* Valkey's matcher only enters its loop with bytes left, so an empty
     * string matches only the empty pattern ("*" included). */
    if (stringLen == 0) return patternLen == 0;
    if (globTooManyStars(pattern, patternLen)) return 0;
    int pi = 0, si = 0;
    int star_pi = -1, star_si = 0; /* pattern after the last '*', and where it began swallowing */

    while (si < stringLen) {
        if (pi < patternLen) {
            if (pattern[pi] == '*') {
                while (pi < patternLen && pattern[pi] == '*') pi++;
                if (pi == patternLen) return 1; /* trailing '*' eats the rest */
                star_pi = pi;
                star_si = si;
                continue;
            }
            int adv;
            if (matchToken(pattern + pi, patternLen - pi, (unsigned char)string[si], nocase, &adv)) {
                pi += adv;
                si++;
                continue;
            }
        }
        if (star_pi < 0) return 0;
        si = ++star_si; /* let the last '*' swallow one more byte */
        pi = star_pi;
    }
    while (pi < patternLen && pattern[pi] == '*') pi++;
    return pi == patternLen;
}

/* stringmatchlen() for C strings. */
int stringmatch(const char *pattern, const char *string, int nocase) {
    return stringmatchlen(pattern, (int)strlen(pattern), string, (int)strlen(string), nocase);
}

/* ------------------------------ memory units ----------------------------- */

/* Parses a memory amount as written in the config file: digits followed by
 * an optional unit, case-insensitive: b, k (1000), kb (1024), m, mb, g, gb.
 * Sets *err (if not NULL) to 1 and returns 0 on a bad number, a bad unit or
 * overflow; sets *err to 0 on success. */
unsigned long long memtoull(const char *p, int *err) {
    if (err) *err = 1;
    const char *u = p;
    while (*u >= '0' && *u <= '9') u++;
    size_t digits = (size_t)(u - p);
    if (digits == 0) return 0;

    unsigned long long mul;
    if (*u == '\0' || !strcasecmp(u, "b"))
        mul = 1;
    else if (!strcasecmp(u, "k"))
        mul = 1000;
    else if (!strcasecmp(u, "kb"))
        mul = 1024;
    else if (!strcasecmp(u, "m"))
        mul = 1000ULL * 1000;
    else if (!strcasecmp(u, "mb"))
        mul = 1024ULL * 1024;
    else if (!strcasecmp(u, "g"))
        mul = 1000ULL * 1000 * 1000;
    else if (!strcasecmp(u, "gb"))
        mul = 1024ULL * 1024 * 1024;
    else
        return 0;

    unsigned long long v = 0;
    for (size_t i = 0; i < digits; i++) {
        unsigned d = (unsigned)(p[i] - '0');
        if (v > (ULLONG_MAX - d) / 10) return 0;
        v = v * 10 + d;
    }
    if (v > ULLONG_MAX / mul) return 0;
    if (err) *err = 0;
    return v * mul;
}

/* memtoull() that also accepts a leading '-'. Same *err contract; values
 * outside the long long range are errors. */
long long memtoll(const char *p, int *err) {
    int neg = p[0] == '-', e;
    unsigned long long v = memtoull(p + neg, &e);
    if (err) *err = 1;
    if (e) return 0;
    if (neg) {
        if (v > (unsigned long long)LLONG_MAX + 1) return 0;
        if (err) *err = 0;
        return v == (unsigned long long)LLONG_MAX + 1 ? LLONG_MIN : -(long long)v;
    }
    if (v > (unsigned long long)LLONG_MAX) return 0;
    if (err) *err = 0;
    return (long long)v;
}

/* ------------------------------ randomness ------------------------------- */

static uint8_t random_key[16];
static uint64_t random_counter;
static pthread_once_t random_once = PTHREAD_ONCE_INIT;

/* Reads the generator key from /dev/urandom; if that fails (chroot without
 * /dev), falls back to a mix of clock, pid and addresses, which is weaker
 * but still differs per process and per run. */
static void randomInit(void) {
    int ok = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd != -1) {
        size_t got = 0;
        while (got < sizeof(random_key)) {
            ssize_t n = read(fd, random_key + got, sizeof(random_key) - got);
            if (n <= 0) {
                if (n < 0 && errno == EINTR) continue;
                break;
            }
            got += (size_t)n;
        }
        ok = got == sizeof(random_key);
        close(fd);
    }
    if (!ok) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t seed[4] = {(uint64_t)ts.tv_sec, (uint64_t)ts.tv_nsec, (uint64_t)getpid(),
                            (uint64_t)(uintptr_t)&ts};
        static const uint8_t zero_key[16];
        uint64_t a = siphash24((const uint8_t *)seed, sizeof(seed), zero_key);
        seed[0] ^= a;
        uint64_t b = siphash24((const uint8_t *)seed, sizeof(seed), zero_key);
        memcpy(random_key, &a, 8);
        memcpy(random_key + 8, &b, 8);
    }
}

/* Fills p with len unpredictable bytes. Thread-safe; never fails. Each
 * 8-byte block is SipHash-2-4(counter, pid) under the secret key. */
void getRandomBytes(unsigned char *p, size_t len) {
    pthread_once(&random_once, randomInit);
    uint64_t in[2];
    in[1] = (uint64_t)getpid();
    while (len) {
        in[0] = __atomic_fetch_add(&random_counter, 1, __ATOMIC_RELAXED);
        uint64_t out = siphash24((const uint8_t *)in, sizeof(in), random_key);
        size_t n = len < 8 ? len : 8;
        memcpy(p, &out, n);
        p += n;
        len -= n;
    }
}

/* Fills p with len random lowercase hex characters (not terminated). */
void getRandomHexChars(char *p, size_t len) {
    static const char hex[] = "0123456789abcdef";
    getRandomBytes((unsigned char *)p, len);
    for (size_t j = 0; j < len; j++) p[j] = hex[(unsigned char)p[j] & 0x0f];
}

/* -------------------------------- clocks --------------------------------- */

/* Wall-clock time in microseconds since the Unix epoch. */
long long ustime(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (long long)tv.tv_sec * 1000000 + tv.tv_usec;
}

/* Wall-clock time in milliseconds since the Unix epoch. */
long long mstime(void) { return ustime() / 1000; }

/* Microseconds from an arbitrary fixed origin, never going backwards: for
 * measuring durations and timeouts immune to clock changes. */
uint64_t getMonotonicUs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* See util.h. */
void bufAppendf(char *buf, size_t bufsize, size_t *len, const char *fmt, ...) {
    if (*len >= bufsize) return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + *len, bufsize - *len, fmt, ap);
    va_end(ap);
    if (w > 0) *len = (size_t)w < bufsize - *len ? *len + w : bufsize - 1;
}

/* ------------------------------ filesystem ------------------------------- */

/* Returns 1 if path is a bare file name (no directory separators). */
int pathIsBaseName(const char *path) { return strchr(path, '/') == NULL && strchr(path, '\\') == NULL; }

/* Creates directory dname (mode 0755) unless it exists. Returns 0 on
 * success or if it already exists, -1 with errno set otherwise. */
int dirCreateIfMissing(const char *dname) {
    if (mkdir(dname, 0755) != 0 && errno != EEXIST) return -1;
    return 0;
}
