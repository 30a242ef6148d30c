/* test_rdb.c - unit tests for the RDB primitives in rdb.c: lengths at every
 * width boundary, strings in each encoding (integer, LZF, raw) and each
 * rdbLoadString() result form, binary and text doubles, millisecond times,
 * and truncated or hostile input (every prefix of every encoding, huge
 * declared lengths, bad prefixes, broken LZF data).
 *
 * rdb.c belongs to the server, so this test links a copy compiled with one
 * section per function (see src/Makefile) and lets the linker drop every
 * function the primitives do not reach; the few object constructors they do
 * reach are provided below, as plain heap objects. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rdb.h"
#include "server.h"
#include "unittest.h"

struct valkeyServer server;

/* objectSetVal() asserts the object is not EMBSTR. */
void _serverAssert(const char *estr, const char *file, int line) {
    fprintf(stderr, "assertion failed: %s (%s:%d)\n", estr, file, line);
    abort();
}

robj *createObject(int type, void *ptr) {
    robj *o = zmalloc(sizeof(*o));
    o->type = type;
    o->encoding = OBJ_ENCODING_RAW;
    o->refcount = 1;
    o->lru = 0;
    objectSetVal(o, ptr);
    return o;
}

/* RAW, not EMBSTR: a real EMBSTR has no value pointer (object.c). */
robj *createStringObject(const char *ptr, size_t len) {
    return createObject(OBJ_STRING, sdsnewlen(ptr, len));
}

robj *createStringObjectFromLongLongForValue(long long value) {
    robj *o = createObject(OBJ_STRING, (void *)(long)value);
    o->encoding = OBJ_ENCODING_INT;
    return o;
}

static void freeObject(robj *o) {
    if (o->encoding != OBJ_ENCODING_INT) sdsfree(objectGetVal(o));
    zfree(o);
}

/* The bytes rdbSaveRawString() writes for s. */
static sds encodeString(const char *s, size_t len) {
    rio r;
    rioInitSdsWriter(&r);
    if (rdbSaveRawString(&r, s, len) != C_OK) abort();
    sds out = rioSdsTake(&r);
    rioRelease(&r);
    return out;
}

static sds encodeLen(uint64_t len) {
    rio r;
    rioInitSdsWriter(&r);
    rdbSaveLen(&r, len);
    sds out = rioSdsTake(&r);
    rioRelease(&r);
    return out;
}

/* Decodes enc as a string in form flags and checks it equals want. */
static int decodesTo(const sds enc, int flags, const char *want, size_t wantlen) {
    rio r;
    size_t len = 12345;
    rioInitMemReader(&r, enc, sdslen(enc));
    void *v = rdbLoadString(&r, flags, &len);
    int ok = v != NULL && len == wantlen && rioRemaining(&r) == 0;
    if (!v) return 0;
    if (flags & RDB_LOAD_PLAIN) {
        ok = ok && memcmp(v, want, len) == 0;
        zfree(v);
    } else if (flags & RDB_LOAD_SDS) {
        ok = ok && sdslen(v) == wantlen && memcmp(v, want, len) == 0;
        sdsfree(v);
    } else {
        robj *o = v;
        if (o->encoding == OBJ_ENCODING_INT) {
            char buf[32];
            int n = ll2string(buf, sizeof(buf), (long)objectGetVal(o));
            ok = ok && (size_t)n == wantlen && memcmp(buf, want, n) == 0;
        } else {
            ok = ok && sdslen(objectGetVal(o)) == wantlen && memcmp(objectGetVal(o), want, wantlen) == 0;
        }
        freeObject(o);
    }
    return ok;
}

/* Every strict prefix of enc must fail to load as a string, cleanly. */
static int everyPrefixFails(const sds enc) {
    for (size_t cut = 0; cut < sdslen(enc); cut++) {
        static const int forms[] = {RDB_LOAD_OBJ, RDB_LOAD_ENC, RDB_LOAD_PLAIN, RDB_LOAD_SDS};
        for (int f = 0; f < 4; f++) {
            rio r;
            rioInitMemReader(&r, enc, cut);
            if (rdbLoadString(&r, forms[f], NULL) != NULL) return 0;
        }
    }
    return 1;
}

static int loadFails(const char *bytes, size_t len) {
    static const int forms[] = {RDB_LOAD_OBJ, RDB_LOAD_ENC, RDB_LOAD_PLAIN, RDB_LOAD_SDS};
    for (int f = 0; f < 4; f++) {
        rio r;
        rioInitMemReader(&r, bytes, len);
        if (rdbLoadString(&r, forms[f], NULL) != NULL) return 0;
    }
    return 1;
}

int main(int argc, char **argv) {
    (void)argc;
    UT_BEGIN(argv[0]);
    server.rdb_compression = 1;

    TEST("rdb: lengths at each width boundary") {
        static const struct {
            uint64_t len;
            size_t size;
            const char *first;
        } cases[] = {
            {0, 1, "\x00"}, {63, 1, "\x3f"}, {64, 2, "\x40\x40"}, {16383, 2, "\x7f\xff"},
            {16384, 5, "\x80\x00\x00\x40\x00"}, {UINT32_MAX, 5, "\x80\xff\xff\xff\xff"},
            {(uint64_t)UINT32_MAX + 1, 9, "\x81\x00\x00\x00\x01\x00\x00\x00\x00"},
            {UINT64_MAX - 1, 9, "\x81\xff\xff\xff\xff\xff\xff\xff\xfe"},
        };
        for (size_t j = 0; j < sizeof(cases) / sizeof(cases[0]); j++) {
            sds e = encodeLen(cases[j].len);
            ASSERT_EQ_LL(sdslen(e), cases[j].size);
            ASSERT(memcmp(e, cases[j].first, cases[j].size) == 0);
            rio r;
            int enc = -1;
            rioInitMemReader(&r, e, sdslen(e));
            ASSERT(rdbLoadLen(&r, &enc) == cases[j].len && enc == 0);
            for (size_t cut = 0; cut < sdslen(e); cut++) {
                rioInitMemReader(&r, e, cut);
                ASSERT(rdbLoadLen(&r, NULL) == RDB_LENERR);
            }
            sdsfree(e);
        }
    }

    TEST("rdb: encoded-length prefixes and bad prefixes") {
        rio r;
        int enc;
        rioInitMemReader(&r, "\xc3", 1);
        ASSERT(rdbLoadLen(&r, &enc) == RDB_ENC_LZF && enc == 1);
        rioInitMemReader(&r, "\xc3", 1);
        ASSERT(rdbLoadLen(&r, NULL) == RDB_LENERR); /* not expected here */
        rioInitMemReader(&r, "\xc4", 1);
        ASSERT(rdbLoadLen(&r, &enc) == RDB_LENERR); /* no such encoding */
        rioInitMemReader(&r, "\x82\0\0\0\0", 5);
        ASSERT(rdbLoadLen(&r, &enc) == RDB_LENERR);
        rioInitMemReader(&r, "\xbf\0\0\0\0", 5);
        ASSERT(rdbLoadLen(&r, &enc) == RDB_LENERR);
    }

    TEST("rdb: canonical integers take the integer encodings") {
        static const struct {
            const char *s;
            const char *enc;
            size_t enclen;
        } cases[] = {
            {"0", "\xc0\x00", 2}, {"12", "\xc0\x0c", 2}, {"-1", "\xc0\xff", 2}, {"127", "\xc0\x7f", 2},
            {"-128", "\xc0\x80", 2}, {"128", "\xc1\x80\x00", 3}, {"32767", "\xc1\xff\x7f", 3},
            {"-32768", "\xc1\x00\x80", 3}, {"32768", "\xc2\x00\x80\x00\x00", 5},
            {"2147483647", "\xc2\xff\xff\xff\x7f", 5}, {"-2147483648", "\xc2\x00\x00\x00\x80", 5},
        };
        for (size_t j = 0; j < sizeof(cases) / sizeof(cases[0]); j++) {
            sds e = encodeString(cases[j].s, strlen(cases[j].s));
            ASSERT(sdslen(e) == cases[j].enclen && memcmp(e, cases[j].enc, cases[j].enclen) == 0);
            ASSERT(decodesTo(e, RDB_LOAD_OBJ, cases[j].s, strlen(cases[j].s)));
            ASSERT(decodesTo(e, RDB_LOAD_ENC, cases[j].s, strlen(cases[j].s)));
            ASSERT(decodesTo(e, RDB_LOAD_PLAIN, cases[j].s, strlen(cases[j].s)));
            ASSERT(decodesTo(e, RDB_LOAD_SDS, cases[j].s, strlen(cases[j].s)));
            ASSERT(everyPrefixFails(e));
            sdsfree(e);
        }
    }

    TEST("rdb: non-canonical or wide integers stay raw strings") {
        static const char *raw[] = {"2147483648", "-2147483649", "012", "+1", "-0", " 1", "1 ", "", "abc"};
        for (size_t j = 0; j < sizeof(raw) / sizeof(raw[0]); j++) {
            size_t len = strlen(raw[j]);
            sds e = encodeString(raw[j], len);
            ASSERT_EQ_LL(sdslen(e), 1 + len);
            ASSERT_EQ_LL((unsigned char)e[0], len);
            ASSERT(decodesTo(e, RDB_LOAD_ENC, raw[j], len));
            ASSERT(everyPrefixFails(e));
            sdsfree(e);
        }
    }

    TEST("rdb: rdbSaveLongLongAsString") {
        rio r;
        rioInitSdsWriter(&r);
        rdbSaveLongLongAsString(&r, -5);
        rdbSaveLongLongAsString(&r, 4294967296LL);
        sds e = rioSdsTake(&r);
        ASSERT(sdslen(e) == 2 + 1 + 10 && memcmp(e, "\xc0\xfb\x0a" "4294967296", 13) == 0);
        sdsfree(e);
        rioRelease(&r);
    }

    TEST("rdb: long compressible strings are LZF-encoded when rdbcompression is on") {
        char s[300];
        memset(s, 'a', sizeof(s));
        sds e = encodeString(s, sizeof(s));
        ASSERT((unsigned char)e[0] == 0xc3 && sdslen(e) < 50);
        ASSERT(decodesTo(e, RDB_LOAD_OBJ, s, sizeof(s)));
        ASSERT(decodesTo(e, RDB_LOAD_ENC, s, sizeof(s)));
        ASSERT(decodesTo(e, RDB_LOAD_PLAIN, s, sizeof(s)));
        ASSERT(decodesTo(e, RDB_LOAD_SDS, s, sizeof(s)));
        ASSERT(everyPrefixFails(e));
        sdsfree(e);
        /* 20 bytes: never compressed; random bytes: compression does not pay. */
        e = encodeString(s, 20);
        ASSERT(e[0] == 20 && sdslen(e) == 21);
        sdsfree(e);
        char rnd[100];
        srand(7);
        for (size_t j = 0; j < sizeof(rnd); j++) rnd[j] = (char)rand();
        e = encodeString(rnd, sizeof(rnd));
        ASSERT(e[0] == 0x40 && e[1] == 100 && sdslen(e) == 102);
        ASSERT(decodesTo(e, RDB_LOAD_SDS, rnd, sizeof(rnd)));
        sdsfree(e);
        server.rdb_compression = 0;
        e = encodeString(s, sizeof(s));
        ASSERT((unsigned char)e[0] == 0x41 && sdslen(e) == 2 + sizeof(s));
        ASSERT(decodesTo(e, RDB_LOAD_ENC, s, sizeof(s)));
        sdsfree(e);
        server.rdb_compression = 1;
    }

    TEST("rdb: hostile string headers fail without allocating") {
        /* 2^60 bytes declared, 2 present. */
        ASSERT(loadFails("\x81\x10\0\0\0\0\0\0\0ab", 11));
        /* LZF: zero lengths, a compressed length past the end, an original
         * length LZF cannot reach, and data that decodes to another length. */
        ASSERT(loadFails("\xc3\x00\x05", 3));
        ASSERT(loadFails("\xc3\x02\x00\x01x", 5));
        ASSERT(loadFails("\xc3\x7f\xff\x05" "\x01xy", 7));
        ASSERT(loadFails("\xc3\x02\x80\x10\0\0\0" "\x00x", 9));
        ASSERT(loadFails("\xc3\x02\x05" "\x00x", 5));
        /* a back reference before the start of the output */
        ASSERT(loadFails("\xc3\x02\x05" "\x20\x05", 5));
        ASSERT(loadFails("\xc5", 1));
    }

    TEST("rdb: random bytes never crash the string decoder") {
        unsigned char buf[64];
        srand(99);
        for (int iter = 0; iter < 20000; iter++) {
            size_t len = (size_t)(rand() % (int)sizeof(buf));
            for (size_t j = 0; j < len; j++) buf[j] = (unsigned char)rand();
            if (len && iter % 2) buf[0] = (unsigned char)(0xc0 | (rand() % 4));
            static const int forms[] = {RDB_LOAD_OBJ, RDB_LOAD_ENC, RDB_LOAD_PLAIN, RDB_LOAD_SDS};
            rio r;
            rioInitMemReader(&r, buf, len);
            int flags = forms[iter % 4];
            void *v = rdbLoadString(&r, flags, NULL);
            if (!v) continue;
            if (flags & RDB_LOAD_PLAIN) zfree(v);
            else if (flags & RDB_LOAD_SDS) sdsfree(v);
            else freeObject(v);
        }
        ASSERT(1);
    }

    TEST("rdb: binary doubles round-trip bit for bit") {
        const double vals[] = {0.0, -0.0, 1.5, -3.25e300, 5e-324, INFINITY, -INFINITY, NAN};
        for (size_t j = 0; j < sizeof(vals) / sizeof(vals[0]); j++) {
            rio r;
            rioInitSdsWriter(&r);
            ASSERT(rdbSaveBinaryDouble(&r, vals[j]) == C_OK);
            sds e = rioSdsTake(&r);
            rioRelease(&r);
            ASSERT_EQ_LL(sdslen(e), 8);
            double back;
            rioInitMemReader(&r, e, 8);
            ASSERT(rdbLoadBinaryDouble(&r, &back) == C_OK);
            ASSERT(memcmp(&back, &vals[j], sizeof(double)) == 0);
            rioInitMemReader(&r, e, 7);
            ASSERT(rdbLoadBinaryDouble(&r, &back) == C_ERR);
            sdsfree(e);
        }
        rio r;
        double d;
        rioInitMemReader(&r, "\0\0\0\0\0\0\xf8\x3f", 8); /* 1.5 little-endian */
        ASSERT(rdbLoadBinaryDouble(&r, &d) == C_OK && d == 1.5);
    }

    TEST("rdb: the old text doubles") {
        rio r;
        double d;
        rioInitMemReader(&r, "\xfd\xfe\xff\x03" "3.5" "\x05" "-1e10", 14);
        ASSERT(rdbLoadStringDouble(&r, &d) == C_OK && isnan(d));           /* 253 */
        ASSERT(rdbLoadStringDouble(&r, &d) == C_OK && isinf(d) && d > 0); /* 254 */
        ASSERT(rdbLoadStringDouble(&r, &d) == C_OK && isinf(d) && d < 0); /* 255 */
        ASSERT(rdbLoadStringDouble(&r, &d) == C_OK && d == 3.5);
        ASSERT(rdbLoadStringDouble(&r, &d) == C_OK && d == -1e10);
        ASSERT(rdbLoadStringDouble(&r, &d) == C_ERR);
        rioInitMemReader(&r, "\x03" "abc", 4);
        ASSERT(rdbLoadStringDouble(&r, &d) == C_ERR);
        rioInitMemReader(&r, "\x03" "nan", 4);
        ASSERT(rdbLoadStringDouble(&r, &d) == C_ERR);
        rioInitMemReader(&r, "\x00", 1);
        ASSERT(rdbLoadStringDouble(&r, &d) == C_ERR);
        rioInitMemReader(&r, "\x05" "1.2", 4);
        ASSERT(rdbLoadStringDouble(&r, &d) == C_ERR);
    }

    TEST("rdb: millisecond times, little-endian") {
        rio r;
        rioInitSdsWriter(&r);
        rdbSaveMillisecondTime(&r, 1700000000123LL);
        rdbSaveMillisecondTime(&r, -1);
        sds e = rioSdsTake(&r);
        rioRelease(&r);
        ASSERT(sdslen(e) == 16 && (unsigned char)e[0] == (1700000000123LL & 0xff) && (unsigned char)e[15] == 0xff);
        long long t;
        rioInitMemReader(&r, e, sdslen(e));
        ASSERT(rdbLoadMillisecondTime(&r, RDB_VERSION, &t) == C_OK && t == 1700000000123LL);
        ASSERT(rdbLoadMillisecondTime(&r, 8, &t) == C_OK && t == -1);
        ASSERT(rdbLoadMillisecondTime(&r, RDB_VERSION, &t) == C_ERR);
        sdsfree(e);
    }

    TEST("rdb: type bytes") {
        rio r;
        rioInitSdsWriter(&r);
        rdbSaveType(&r, RDB_OPCODE_EOF);
        sds e = rioSdsTake(&r);
        rioRelease(&r);
        rioInitMemReader(&r, e, sdslen(e));
        ASSERT_EQ_LL(rdbLoadType(&r), 255);
        ASSERT_EQ_LL(rdbLoadType(&r), -1);
        sdsfree(e);
    }

    return UT_END();
}
