/* rdb.c - the RDB format: encoding primitives, string values, the
 * per-value dispatch, the dataset framing and the files.
 *
 * Layers, in the order this file presents them:
 *
 *   primitives  the type byte, lengths (6/14/32/64 bit, big-endian), strings
 *               (raw, integer-encoded when the string is a canonical 32-bit
 *               integer, LZF-compressed when rdbcompression is on, the string
 *               is longer than 20 bytes and compression saves at least four
 *               bytes), doubles (binary and the old text form) and
 *               millisecond times. Everything multi-byte that is not a
 *               length is little-endian.
 *   values      the type byte and body of one value; strings here,
 *               collections in rdb_object.c, streams in rdb_stream.c.
 *   datasets    rdbSaveRio()/rdbLoadRio(): "REDIS0011", aux fields,
 *               functions, per database SELECTDB + RESIZEDB and the keys
 *               with their expiry and LRU/LFU data, EOF, CRC-64.
 *   files       rdbSave()/rdbLoad(): temp file, fsync, rename.
 *
 * Every reader works through a rio and treats its input as hostile: each
 * length is checked against the bytes left before anything is allocated
 * for it, and every failure unwinds what was built and returns NULL/C_ERR.
 * Callers: dump.c (DUMP/RESTORE), snapshot.c (SAVE/BGSAVE, start-up load),
 * functions.c (FUNCTION DUMP/RESTORE), rdb_object.c and rdb_stream.c. */
#include "rdb.h"

#include <errno.h>
#include <liblzf/lzf.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "server.h"

/* ===========================================================================
 * Primitives
 * ======================================================================== */

int rdbSaveType(rio *r, unsigned char type) {
    return rioWrite(r, &type, 1) ? C_OK : C_ERR;
}

int rdbLoadType(rio *r) {
    unsigned char type;
    if (!rioRead(r, &type, 1)) return -1;
    return type;
}

/* Lengths: 00xxxxxx (6 bit), 01xxxxxx xxxxxxxx (14 bit), 0x80 + 4 bytes,
 * 0x81 + 8 bytes; the wider forms big-endian. */
int rdbSaveLen(rio *r, uint64_t len) {
    unsigned char buf[9];
    size_t n;
    if (len < (1 << 6)) {
        buf[0] = (unsigned char)((RDB_6BITLEN << 6) | len);
        n = 1;
    } else if (len < (1 << 14)) {
        buf[0] = (unsigned char)((RDB_14BITLEN << 6) | (len >> 8));
        buf[1] = (unsigned char)(len & 0xff);
        n = 2;
    } else if (len <= UINT32_MAX) {
        buf[0] = RDB_32BITLEN;
        for (int j = 0; j < 4; j++) buf[1 + j] = (unsigned char)(len >> (8 * (3 - j)));
        n = 5;
    } else {
        buf[0] = RDB_64BITLEN;
        for (int j = 0; j < 8; j++) buf[1 + j] = (unsigned char)(len >> (8 * (7 - j)));
        n = 9;
    }
    return rioWrite(r, buf, n) ? C_OK : C_ERR;
}

/* Reads n bytes as a big-endian unsigned number. */
static int rdbLoadBigEndian(rio *r, int n, uint64_t *v) {
    unsigned char buf[8];
    if (!rioRead(r, buf, (size_t)n)) return C_ERR;
    *v = 0;
    for (int j = 0; j < n; j++) *v = (*v << 8) | buf[j];
    return C_OK;
}

uint64_t rdbLoadLen(rio *r, int *isencoded) {
    unsigned char first;
    uint64_t len;
    if (isencoded) *isencoded = 0;
    if (!rioRead(r, &first, 1)) return RDB_LENERR;
    switch (first >> 6) {
    case RDB_6BITLEN: return first & 0x3f;
    case RDB_14BITLEN: {
        unsigned char second;
        if (!rioRead(r, &second, 1)) return RDB_LENERR;
        return ((uint64_t)(first & 0x3f) << 8) | second;
    }
    case RDB_ENCVAL:
        /* Only the string encodings exist; anything else is corrupt. A
         * caller that does not expect an encoded form gets an error too. */
        if (!isencoded || (first & 0x3f) > RDB_ENC_LZF) return RDB_LENERR;
        *isencoded = 1;
        return first & 0x3f;
    default:
        if (first == RDB_32BITLEN) return rdbLoadBigEndian(r, 4, &len) == C_OK ? len : RDB_LENERR;
        if (first == RDB_64BITLEN) return rdbLoadBigEndian(r, 8, &len) == C_OK ? len : RDB_LENERR;
        return RDB_LENERR;
    }
}

/* ---- strings -------------------------------------------------------------- */

/* Writes value in the smallest integer encoding, into buf. Returns the
 * length, or 0 when it needs more than 32 bits. */
static size_t rdbEncodeInteger(long long value, unsigned char *buf) {
    if (value >= INT8_MIN && value <= INT8_MAX) {
        buf[0] = (RDB_ENCVAL << 6) | RDB_ENC_INT8;
        buf[1] = (unsigned char)(value & 0xff);
        return 2;
    }
    if (value >= INT16_MIN && value <= INT16_MAX) {
        buf[0] = (RDB_ENCVAL << 6) | RDB_ENC_INT16;
        buf[1] = (unsigned char)(value & 0xff);
        buf[2] = (unsigned char)((value >> 8) & 0xff);
        return 3;
    }
    if (value >= INT32_MIN && value <= INT32_MAX) {
        buf[0] = (RDB_ENCVAL << 6) | RDB_ENC_INT32;
        for (int j = 0; j < 4; j++) buf[1 + j] = (unsigned char)((value >> (8 * j)) & 0xff);
        return 5;
    }
    return 0;
}

/* The integer encoding of s when s is the canonical text of a 32-bit
 * integer (so it reads back as the same bytes). Returns its length or 0. */
static size_t rdbTryIntegerEncoding(const char *s, size_t len, unsigned char *buf) {
    long long value;
    char canon[LONG_STR_SIZE];
    if (len == 0 || len > 11 || !string2ll(s, len, &value)) return 0;
    int clen = ll2string(canon, sizeof(canon), value);
    if ((size_t)clen != len || memcmp(canon, s, len) != 0) return 0;
    return rdbEncodeInteger(value, buf);
}

/* Writes s LZF-compressed when that saves at least 4 bytes. Returns 1 when
 * written, 0 when it does not pay (nothing written), -1 on a write error. */
static int rdbTrySaveLzfString(rio *r, const void *s, size_t len) {
    if (len <= 4) return 0;
    size_t outlen = len - 4;
    unsigned char *out = ztrymalloc(outlen + 1);
    if (!out) return 0;
    unsigned int clen = lzf_compress(s, (unsigned int)len, out, (unsigned int)outlen);
    if (clen == 0) {
        zfree(out);
        return 0;
    }
    unsigned char enc = (RDB_ENCVAL << 6) | RDB_ENC_LZF;
    int ok = rioWrite(r, &enc, 1) && rdbSaveLen(r, clen) == C_OK && rdbSaveLen(r, len) == C_OK &&
             rioWrite(r, out, clen);
    zfree(out);
    return ok ? 1 : -1;
}

int rdbSaveRawString(rio *r, const void *s, size_t len) {
    unsigned char buf[5];
    size_t enclen = rdbTryIntegerEncoding(s, len, buf);
    if (enclen) return rioWrite(r, buf, enclen) ? C_OK : C_ERR;
    if (server.rdb_compression && len > 20 && len <= UINT32_MAX) {
        int done = rdbTrySaveLzfString(r, s, len);
        if (done) return done == 1 ? C_OK : C_ERR;
    }
    if (rdbSaveLen(r, len) != C_OK) return C_ERR;
    if (len && !rioWrite(r, s, len)) return C_ERR;
    return C_OK;
}

int rdbSaveLongLongAsString(rio *r, long long value) {
    unsigned char buf[5];
    size_t enclen = rdbEncodeInteger(value, buf);
    if (enclen) return rioWrite(r, buf, enclen) ? C_OK : C_ERR;
    char text[LONG_STR_SIZE];
    int len = ll2string(text, sizeof(text), value);
    if (rdbSaveLen(r, (uint64_t)len) != C_OK) return C_ERR;
    return rioWrite(r, text, (size_t)len) ? C_OK : C_ERR;
}

int rdbSaveStringObject(rio *r, robj *o) {
    if (o->encoding == OBJ_ENCODING_INT) return rdbSaveLongLongAsString(r, (long)o->ptr);
    return rdbSaveRawString(r, o->ptr, sdslen(o->ptr));
}

/* Builds the result rdbLoadString() was asked for from len bytes at p
 * (copied). NULL when the allocation fails. */
static void *rdbMakeLoadedString(int flags, const char *p, size_t len) {
    if (flags & RDB_LOAD_PLAIN) {
        char *buf = ztrymalloc(len ? len : 1);
        if (buf && len) memcpy(buf, p, len);
        return buf;
    }
    if (flags & RDB_LOAD_SDS) return sdstrynewlen(p, len);
    if ((flags & RDB_LOAD_ENC) && len <= OBJ_ENCODING_EMBSTR_SIZE_LIMIT) return createStringObject(p, len);
    sds s = sdstrynewlen(p, len);
    return s ? createObject(OBJ_STRING, s) : NULL;
}

/* An integer-encoded string (INT8/16/32, little-endian, signed). */
static void *rdbLoadIntegerString(rio *r, int enc, int flags, size_t *lenptr) {
    unsigned char buf[4];
    size_t n = enc == RDB_ENC_INT8 ? 1 : enc == RDB_ENC_INT16 ? 2 : 4;
    long long value;
    if (!rioRead(r, buf, n)) return NULL;
    if (n == 1) value = (int8_t)buf[0];
    else if (n == 2) value = (int16_t)(buf[0] | (buf[1] << 8));
    else value = (int32_t)((uint32_t)buf[0] | ((uint32_t)buf[1] << 8) | ((uint32_t)buf[2] << 16) | ((uint32_t)buf[3] << 24));
    char text[LONG_STR_SIZE];
    int len = ll2string(text, sizeof(text), value);
    if (lenptr) *lenptr = (size_t)len;
    if ((flags & RDB_LOAD_ENC) && !(flags & (RDB_LOAD_PLAIN | RDB_LOAD_SDS)))
        return createStringObjectFromLongLongForValue(value);
    return rdbMakeLoadedString(flags, text, (size_t)len);
}

/* Longest expansion LZF can encode: a 3-byte back reference yields at most
 * 264 bytes. A declared length beyond it cannot be genuine. */
#define RDB_LZF_MAX_RATIO 88

/* An LZF-compressed string: compressed length, original length, data. */
static void *rdbLoadLzfString(rio *r, int flags, size_t *lenptr) {
    uint64_t clen = rdbLoadLen(r, NULL), len = rdbLoadLen(r, NULL);
    if (clen == RDB_LENERR || len == RDB_LENERR || clen == 0 || len == 0) return NULL;
    if (clen > rioRemaining(r) || clen > UINT32_MAX || len > UINT32_MAX || len / RDB_LZF_MAX_RATIO > clen)
        return NULL;
    unsigned char *c = ztrymalloc(clen);
    char *u = c ? ztrymalloc(len) : NULL;
    void *result = NULL;
    if (u && rioRead(r, c, clen) && lzf_decompress(c, (unsigned int)clen, u, (unsigned int)len) == len) {
        result = rdbMakeLoadedString(flags, u, len);
        if (result && lenptr) *lenptr = len;
    }
    zfree(c);
    zfree(u);
    return result;
}

/* A plain string: read straight into its final home where possible. */
static void *rdbLoadPlainString(rio *r, uint64_t len, int flags, size_t *lenptr) {
    if (len > rioRemaining(r) || len > SIZE_MAX / 2) return NULL;
    if (lenptr) *lenptr = len;
    if (flags & RDB_LOAD_PLAIN) {
        char *buf = ztrymalloc(len ? len : 1);
        if (buf && !rioRead(r, buf, len)) zfree(buf), buf = NULL;
        return buf;
    }
    sds s = sdstrynewlen(SDS_NOINIT, len);
    if (!s) return NULL;
    if (!rioRead(r, s, len)) {
        sdsfree(s);
        return NULL;
    }
    if (flags & RDB_LOAD_SDS) return s;
    if ((flags & RDB_LOAD_ENC) && len <= OBJ_ENCODING_EMBSTR_SIZE_LIMIT) {
        robj *o = createStringObject(s, len);
        sdsfree(s);
        return o;
    }
    return createObject(OBJ_STRING, s);
}

void *rdbLoadString(rio *r, int flags, size_t *lenptr) {
    int encoded;
    uint64_t len = rdbLoadLen(r, &encoded);
    if (len == RDB_LENERR) return NULL;
    if (!encoded) return rdbLoadPlainString(r, len, flags, lenptr);
    if (len == RDB_ENC_LZF) return rdbLoadLzfString(r, flags, lenptr);
    return rdbLoadIntegerString(r, (int)len, flags, lenptr);
}

/* ---- doubles and times ---------------------------------------------------- */

/* 8 bytes, IEEE 754, little-endian. */
int rdbSaveBinaryDouble(rio *r, double val) {
    uint64_t bits;
    unsigned char buf[8];
    memcpy(&bits, &val, sizeof(bits));
    for (int j = 0; j < 8; j++) buf[j] = (unsigned char)(bits >> (8 * j));
    return rioWrite(r, buf, 8) ? C_OK : C_ERR;
}

int rdbLoadBinaryDouble(rio *r, double *val) {
    unsigned char buf[8];
    uint64_t bits = 0;
    if (!rioRead(r, buf, 8)) return C_ERR;
    for (int j = 7; j >= 0; j--) bits = (bits << 8) | buf[j];
    memcpy(val, &bits, sizeof(bits));
    return C_OK;
}

/* The text form RDB_TYPE_ZSET used: a length byte, 253/254/255 standing
 * for -inf/+inf/nan, else that many bytes of decimal text. */
int rdbLoadStringDouble(rio *r, double *val) {
    unsigned char len;
    char buf[256];
    if (!rioRead(r, &len, 1)) return C_ERR;
    switch (len) {
    case 255: *val = NAN; return C_OK;
    case 254: *val = INFINITY; return C_OK;
    case 253: *val = -INFINITY; return C_OK;
    }
    if (!rioRead(r, buf, len)) return C_ERR;
    buf[len] = '\0';
    char *end;
    *val = strtod(buf, &end);
    /* A NaN only ever came as the 255 marker; as text it is corrupt. */
    return len && end == buf + len && !isnan(*val) ? C_OK : C_ERR;
}

/* Unix time in milliseconds: 8 bytes, little-endian. */
int rdbSaveMillisecondTime(rio *r, long long t) {
    unsigned char buf[8];
    for (int j = 0; j < 8; j++) buf[j] = (unsigned char)((uint64_t)t >> (8 * j));
    return rioWrite(r, buf, 8) ? C_OK : C_ERR;
}

/* Files before version 9 stored the time in the writer's byte order, which
 * was little-endian on every machine that wrote RDB files in practice; the
 * little-endian reading is therefore right for every version, and rdbver is
 * kept for the interface's sake. */
int rdbLoadMillisecondTime(rio *r, int rdbver, long long *t) {
    unsigned char buf[8];
    uint64_t v = 0;
    (void)rdbver;
    if (!rioRead(r, buf, 8)) return C_ERR;
    for (int j = 7; j >= 0; j--) v = (v << 8) | buf[j];
    *t = (long long)v;
    return C_OK;
}
