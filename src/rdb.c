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

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <liblzf/lzf.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "server.h"
#include "replication.h"

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
    if (o->encoding == OBJ_ENCODING_INT) return rdbSaveLongLongAsString(r, (long)objectGetVal(o));
    return rdbSaveRawString(r, objectGetVal(o), sdslen(objectGetVal(o)));
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
 * for nan/+inf/-inf (the markers Redis wrote and Valkey reads), else that
 * many bytes of decimal text. */
int rdbLoadStringDouble(rio *r, double *val) {
    unsigned char len;
    char buf[256];
    if (!rioRead(r, &len, 1)) return C_ERR;
    switch (len) {
    case 253: *val = NAN; return C_OK;
    case 254: *val = INFINITY; return C_OK;
    case 255: *val = -INFINITY; return C_OK;
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

/* ===========================================================================
 * Values
 * ======================================================================== */

int rdbSaveObjectType(rio *r, robj *o) {
    if (o->type == OBJ_STRING) return rdbSaveType(r, RDB_TYPE_STRING);
    return rdbSaveType(r, rdbCollectionType(o));
}

int rdbSaveObject(rio *r, robj *o) {
    if (o->type == OBJ_STRING) return rdbSaveStringObject(r, o);
    return rdbSaveCollection(r, o);
}

robj *rdbLoadObject(rio *r, int rdbtype, int *empty) {
    *empty = 0;
    if (rdbtype == RDB_TYPE_STRING) {
        robj *o = rdbLoadString(r, RDB_LOAD_ENC, NULL);
        return o ? tryObjectEncoding(o) : NULL;
    }
    /* Module values need the module that wrote them; we have none. */
    if (!rdbIsObjectType(rdbtype) || rdbtype == RDB_TYPE_MODULE_PRE_GA || rdbtype == RDB_TYPE_MODULE_2)
        return NULL;
    return rdbLoadCollection(r, rdbtype, empty);
}

/* ===========================================================================
 * Datasets: saving
 * ======================================================================== */

static int rdbSaveAuxField(rio *r, const char *key, const void *val, size_t vlen) {
    if (rdbSaveType(r, RDB_OPCODE_AUX) != C_OK) return C_ERR;
    if (rdbSaveRawString(r, key, strlen(key)) != C_OK) return C_ERR;
    return rdbSaveRawString(r, val, vlen);
}

static int rdbSaveAuxFieldStr(rio *r, const char *key, const char *val) {
    return rdbSaveAuxField(r, key, val, strlen(val));
}

static int rdbSaveAuxFieldLongLong(rio *r, const char *key, long long val) {
    char buf[LONG_STR_SIZE];
    int len = ll2string(buf, sizeof(buf), val);
    return rdbSaveAuxField(r, key, buf, (size_t)len);
}

int rdbSaveAofBase;
int rdbSaveExclude;

/* The aux fields Valkey writes after the header. redis-ver carries the
 * Redis version we are compatible with, for tools that only know it. */
static int rdbSaveInfoAuxFields(rio *r) {
    if (rdbSaveAuxFieldStr(r, "valkey-ver", VALKEY_VERSION) != C_OK) return C_ERR;
    if (rdbSaveAuxFieldStr(r, "redis-ver", REDIS_COMPAT_VERSION) != C_OK) return C_ERR;
    if (rdbSaveAuxFieldLongLong(r, "redis-bits", sizeof(void *) == 8 ? 64 : 32) != C_OK) return C_ERR;
    if (rdbSaveAuxFieldLongLong(r, "ctime", (long long)time(NULL)) != C_OK) return C_ERR;
    if (rdbSaveAuxFieldLongLong(r, "used-mem", (long long)zmalloc_used_memory()) != C_OK) return C_ERR;
    /* Which point of which replication history this snapshot is: a
     * replica restarting from it, or loading it in a full sync, continues
     * the stream from there. */
    rdbReplInfo ri;
    if (rdbSaveAofBase) return rdbSaveAuxFieldLongLong(r, "aof-base", 1);
    if (replicationGetSaveInfo(&ri)) {
        if (rdbSaveAuxFieldLongLong(r, "repl-stream-db", ri.stream_db) != C_OK) return C_ERR;
        if (rdbSaveAuxFieldStr(r, "repl-id", ri.replid) != C_OK) return C_ERR;
        if (rdbSaveAuxFieldLongLong(r, "repl-offset", ri.offset) != C_OK) return C_ERR;
    }
    return rdbSaveAuxFieldLongLong(r, "aof-base", 0);
}

/* The records before a key: its expiry, then its idle time (LRU policies)
 * or access frequency (LFU policies), as Valkey writes them. */
static int rdbSaveKeyMetadata(rio *r, robj *val, long long expiretime) {
    if (expiretime != -1) {
        if (rdbSaveType(r, RDB_OPCODE_EXPIRETIME_MS) != C_OK) return C_ERR;
        if (rdbSaveMillisecondTime(r, expiretime) != C_OK) return C_ERR;
    }
    if (server.maxmemory_policy & MAXMEMORY_FLAG_LRU) {
        uint64_t idle = estimateObjectIdleTime(val) / 1000;
        if (rdbSaveType(r, RDB_OPCODE_IDLE) != C_OK || rdbSaveLen(r, idle) != C_OK) return C_ERR;
    }
    if (server.maxmemory_policy & MAXMEMORY_FLAG_LFU) {
        unsigned char freq = (unsigned char)LFUDecrAndReturn(val);
        if (rdbSaveType(r, RDB_OPCODE_FREQ) != C_OK || !rioWrite(r, &freq, 1)) return C_ERR;
    }
    return C_OK;
}

/* One key: metadata, type, name, value. rdb-key-save-delay (a debugging
 * aid the test suite uses to make saves slow) sleeps after each key. */
static int rdbSaveKeyValuePair(rio *r, sds key, robj *val, long long expiretime) {
    if (rdbSaveKeyMetadata(r, val, expiretime) != C_OK) return C_ERR;
    if (rdbSaveObjectType(r, val) != C_OK) return C_ERR;
    if (rdbSaveRawString(r, key, sdslen(key)) != C_OK) return C_ERR;
    if (rdbSaveObject(r, val) != C_OK) return C_ERR;
    if (server.rdb_key_save_delay > 0) usleep((useconds_t)server.rdb_key_save_delay);
    return C_OK;
}

/* SELECTDB, RESIZEDB and every key of one non-empty database. */
static int rdbSaveDb(rio *r, serverDb *db) {
    if (rdbSaveType(r, RDB_OPCODE_SELECTDB) != C_OK || rdbSaveLen(r, (uint64_t)db->id) != C_OK) return C_ERR;
    if (rdbSaveType(r, RDB_OPCODE_RESIZEDB) != C_OK || rdbSaveLen(r, kvstoreSize(db->keys)) != C_OK ||
        rdbSaveLen(r, hashtableSize(db->expires)) != C_OK)
        return C_ERR;
    kvstoreIterator iter;
    kvstoreIteratorInit(&iter, db->keys, -1, HASHTABLE_ITER_SAFE);
    void *entry;
    int ret = C_OK;
    while (ret == C_OK && kvstoreIteratorNext(&iter, &entry)) {
        robj *val = entry; /* carries its key and expire time */
        ret = rdbSaveKeyValuePair(r, objectGetKey(val), val, objectGetExpire(val));
        rdbSaveKeysProcessed++;
    }
    kvstoreIteratorReset(&iter);
    return ret;
}

/* Writes the whole dataset to r: header, aux fields, functions, databases,
 * EOF and the checksum (zero under rdbchecksum no). Returns C_OK, or C_ERR
 * after a write error (r->error and r->sys_errno say which). Runs in the
 * event loop (SAVE, DEBUG RELOAD) or in a forked child (BGSAVE). */
long long rdbSaveKeysProcessed = 0;

int rdbSaveRio(rio *r) {
    char magic[16];
    rdbSaveKeysProcessed = 0;
    snprintf(magic, sizeof(magic), "REDIS%04d", RDB_VERSION);
    if (server.rdb_checksum) rioEnableChecksum(r);
    if (!rioWrite(r, magic, 9)) return C_ERR;
    if (rdbSaveInfoAuxFields(r) != C_OK) return C_ERR;
    if (!(rdbSaveExclude & RDB_SAVE_EXCLUDE_FUNCTIONS) && functionsSaveRdb(r) != C_OK) return C_ERR;
    for (int j = 0; j < server.dbnum && !(rdbSaveExclude & RDB_SAVE_EXCLUDE_DATA); j++) {
        serverDb *db = server.db + j;
        if (kvstoreSize(db->keys) == 0) continue;
        if (rdbSaveDb(r, db) != C_OK) return C_ERR;
    }
    if (rdbSaveType(r, RDB_OPCODE_EOF) != C_OK) return C_ERR;
    uint64_t cksum = server.rdb_checksum ? r->cksum : 0;
    unsigned char trailer[8];
    for (int j = 0; j < 8; j++) trailer[j] = (unsigned char)(cksum >> (8 * j));
    return rioWrite(r, trailer, 8) ? C_OK : C_ERR;
}

/* ===========================================================================
 * Datasets: loading
 * ======================================================================== */

/* What the loader carries from one record to the next. */
typedef struct rdbLoadState {
    int rdbver;
    int rdbflags;
    serverDb *dbs;        /* where keys go: server.db, or a target's (rdbLoadRioTo()) */
    functionsRegistry *functions; /* where libraries go, NULL: the current ones */
    serverDb *db;
    long long expiretime; /* of the next key, -1 for none */
    long long lfu_freq;   /* of the next key, -1 when not given */
    long long lru_idle;   /* seconds, of the next key, -1 when not given */
    long long lru_clock;  /* the LRU clock when loading started */
    long long now;        /* ms, to drop keys that expired while on disk */
    long long keys_loaded, keys_expired, empty_keys_skipped;
    int seen_valkey_ver;  /* a valkey-ver aux field came before */
} rdbLoadState;

/* Logs why the file is unusable. Returns C_ERR for the caller to pass on. */
static int rdbLoadCorrupt(rio *r, const char *why) {
    serverLog(LL_WARNING, "Internal error in RDB reading offset %llu -> %s",
              (unsigned long long)r->processed_bytes, why);
    return C_ERR;
}

/* "REDIS" and four version digits, 1 to RDB_VERSION_MAX_LOADABLE. */
static int rdbLoadHeader(rio *r, int *rdbver) {
    char buf[10];
    if (!rioRead(r, buf, 9)) return C_ERR;
    buf[9] = '\0';
    if (memcmp(buf, "REDIS", 5) != 0) {
        serverLog(LL_WARNING, "Wrong signature trying to load DB from file");
        errno = EINVAL;
        return C_ERR;
    }
    int ver = 0;
    for (int j = 5; j < 9; j++) ver = isdigit((unsigned char)buf[j]) ? ver * 10 + (buf[j] - '0') : -1000000;
    if (ver < 1 || ver > RDB_VERSION_MAX_LOADABLE) {
        serverLog(LL_WARNING, "Can't handle RDB format version %s", buf + 5);
        errno = EINVAL;
        return C_ERR;
    }
    *rdbver = ver;
    return C_OK;
}

/* An aux field: the ones that tell something are logged as Valkey does,
 * the rest (replication ids, "lua", unknown ones) are skipped. */
static int rdbLoadAuxField(rio *r, rdbLoadState *st) {
    sds key = rdbLoadString(r, RDB_LOAD_SDS, NULL);
    sds val = key ? rdbLoadString(r, RDB_LOAD_SDS, NULL) : NULL;
    if (!val) {
        sdsfree(key);
        return C_ERR;
    }
    long long n;
    if (!strcasecmp(key, "valkey-ver")) {
        serverLog(LL_NOTICE, "Loading RDB produced by valkey version %s", val);
        st->seen_valkey_ver = 1;
    } else if (!strcasecmp(key, "redis-ver")) {
        /* Valkey writes both; the Redis one then only states compatibility. */
        if (!st->seen_valkey_ver) serverLog(LL_NOTICE, "Loading RDB produced by version %s", val);
    } else if (!strcasecmp(key, "ctime") && string2ll(val, sdslen(val), &n)) {
        long long age = (long long)time(NULL) - n;
        if (age < 0) age = 0;
        serverLog(LL_NOTICE, "RDB age %lld seconds", age);
    } else if (!strcasecmp(key, "used-mem") && string2ll(val, sdslen(val), &n)) {
        serverLog(LL_NOTICE, "RDB memory usage when created %.2f Mb", (double)n / (1024 * 1024));
    } else if (!strcasecmp(key, "aof-base") && string2ll(val, sdslen(val), &n)) {
        if (n) serverLog(LL_NOTICE, "RDB is base AOF");
    } else if (!strcasecmp(key, "repl-stream-db") || !strcasecmp(key, "repl-id") || !strcasecmp(key, "repl-offset")) {
        replicationLoadedInfo(key, val);
    } else {
        serverLog(LL_DEBUG, "Unrecognized RDB AUX field: '%s'", key);
    }
    sdsfree(key);
    sdsfree(val);
    return C_OK;
}

static int rdbLoadSelectDb(rio *r, rdbLoadState *st) {
    uint64_t id = rdbLoadLen(r, NULL);
    if (id == RDB_LENERR) return C_ERR;
    if (id >= (uint64_t)server.dbnum) {
        serverLog(LL_WARNING,
                  "FATAL: Data file was created with a Valkey server configured to handle more than %d "
                  "databases. Exiting\n",
                  server.dbnum);
        return C_ERR;
    }
    st->db = st->dbs + id;
    return C_OK;
}

/* RESIZEDB: sizes the tables ahead of the keys. Only a hint: sizes a file
 * of this length cannot hold are ignored rather than allocated. */
static int rdbLoadResizeDb(rio *r, rdbLoadState *st) {
    uint64_t keys = rdbLoadLen(r, NULL), expires = keys == RDB_LENERR ? RDB_LENERR : rdbLoadLen(r, NULL);
    if (expires == RDB_LENERR) return C_ERR;
    uint64_t left = rioRemaining(r);
    if (keys && keys <= left / 2 && keys <= UINT32_MAX) dbExpandKeyspace(st->db, (size_t)keys, 1);
    if (expires && expires <= left / 10 && expires <= UINT32_MAX) hashtableTryExpand(st->db->expires, (size_t)expires);
    return C_OK;
}

/* A library (RDB_OPCODE_FUNCTION2). A library that exists already is an
 * error unless duplicates are allowed. */
static int rdbLoadFunction(rio *r, rdbLoadState *st) {
    sds code = rdbLoadString(r, RDB_LOAD_SDS, NULL);
    if (!code) return C_ERR;
    sds err = NULL;
    int replace = st->rdbflags & RDBFLAGS_ALLOW_DUP;
    int ret = st->functions ? functionsRegistryLoadFromRdb(st->functions, code, replace, &err)
                            : functionsLoadLibraryFromRdb(code, replace, &err);
    if (ret != C_OK) {
        serverLog(LL_WARNING, "Failed loading library, %s", err ? err : "unknown error");
        sdsfree(err);
    }
    sdsfree(code);
    return ret;
}

/* A key of the current database dropped as expired is a deletion the
 * replicas of a restarted primary must apply (RDBFLAGS_FEED_REPL). */
static void rdbLoadFeedExpiredKey(rdbLoadState *st, sds key) {
    robj *argv[2] = {server.lazyfree_lazy_expire ? shared.unlink : shared.del,
                     createStringObject(key, sdslen(key))};
    replicationFeedReplicas(st->db->id, argv, 2);
    decrRefCount(argv[1]);
}

/* Adds a loaded key to the current database with its expiry and access
 * data, or drops it when it already expired (loading as a primary). */
static int rdbLoadAddKey(rdbLoadState *st, sds key, robj *val) {
    if (server.primary_host == NULL && st->expiretime != -1 && st->expiretime < st->now) {
        st->keys_expired++;
        if (st->rdbflags & RDBFLAGS_FEED_REPL) rdbLoadFeedExpiredKey(st, key);
        decrRefCount(val);
        return C_OK;
    }
    robj *stored = dbAddRDBLoad(st->db, key, val, st->expiretime);
    if (stored == NULL) {
        if (!(st->rdbflags & RDBFLAGS_ALLOW_DUP)) {
            serverLog(LL_WARNING, "RDB has duplicated key '%s' in DB %d", redactLogCstr(key), st->db->id);
            decrRefCount(val);
            return C_ERR;
        }
        robj keyobj = {.type = OBJ_STRING, .encoding = OBJ_ENCODING_RAW, .refcount = OBJ_STATIC_REFCOUNT, .val_ptr = key};
        dbSyncDelete(st->db, &keyobj);
        stored = dbAddRDBLoad(st->db, key, val, st->expiretime);
    }
    objectSetLRUOrLFU(stored, st->lfu_freq, st->lru_idle, st->lru_clock, 1000);
    st->keys_loaded++;
    return C_OK;
}

/* A key and its value of RDB type rdbtype. */
static int rdbLoadKeyValue(rio *r, rdbLoadState *st, int rdbtype) {
    if (!rdbIsObjectType(rdbtype)) {
        char why[64];
        snprintf(why, sizeof(why), "Unknown RDB encoding type %d", rdbtype);
        return rdbLoadCorrupt(r, why);
    }
    if (st->db == NULL) st->db = st->dbs; /* files before SELECTDB existed */
    sds key = rdbLoadString(r, RDB_LOAD_SDS, NULL);
    if (!key) return C_ERR;
    int empty;
    robj *val = rdbLoadObject(r, rdbtype, &empty);
    int ret = C_OK;
    if (val) {
        ret = rdbLoadAddKey(st, key, val);
    } else if (empty) {
        st->empty_keys_skipped++;
    } else {
        ret = r->error ? C_ERR : rdbLoadCorrupt(r, "Bad data format");
    }
    sdsfree(key);
    st->expiretime = st->lfu_freq = st->lru_idle = -1;
    if (server.key_load_delay > 0) usleep((useconds_t)server.key_load_delay);
    return ret;
}

/* Reads the trailer after EOF (files from version 5 on) and checks it
 * against the running checksum, unless it is zero (saved with rdbchecksum
 * no) or rdbchecksum is off here. A mismatch is logged as Valkey logs it:
 * "expected" the checksum of the bytes read, "got" the one the file
 * stores, then the "RDB CRC error"; "Aborting now." only when the caller
 * exits (RDBFLAGS_EXIT_ON_ERROR). Returns C_OK, or C_ERR (errno set) on a
 * short read (not logged here) or a mismatch. */
static int rdbLoadChecksum(rio *r, rdbLoadState *st) {
    if (st->rdbver < 5) return C_OK;
    uint64_t expected = r->cksum, stored = 0;
    unsigned char buf[8];
    if (!rioRead(r, buf, 8)) return C_ERR;
    for (int j = 7; j >= 0; j--) stored = (stored << 8) | buf[j];
    if (!server.rdb_checksum) return C_OK;
    if (stored == 0) {
        serverLog(LL_NOTICE, "RDB file was saved with checksum disabled: no check performed.");
        return C_OK;
    }
    if (stored != expected) {
        serverLog(LL_WARNING, "Wrong RDB checksum expected: (%llx) but got (%llx).%s", (unsigned long long)expected,
                  (unsigned long long)stored, (st->rdbflags & RDBFLAGS_EXIT_ON_ERROR) ? " Aborting now." : "");
        rdbLoadCorrupt(r, "RDB CRC error");
        errno = EINVAL;
        return C_ERR;
    }
    return C_OK;
}

/* One record: returns 1 to go on, 0 at EOF, -1 on error. */
static int rdbLoadRecord(rio *r, rdbLoadState *st) {
    int type = rdbLoadType(r);
    uint64_t v;
    unsigned char byte;
    unsigned char secs[4];
    switch (type) {
    case -1: return -1;
    case RDB_OPCODE_EOF: return 0;
    case RDB_OPCODE_EXPIRETIME:
        if (!rioRead(r, secs, 4)) return -1;
        st->expiretime = (long long)(int32_t)(secs[0] | (secs[1] << 8) | (secs[2] << 16) | ((uint32_t)secs[3] << 24)) * 1000;
        return 1;
    case RDB_OPCODE_EXPIRETIME_MS: return rdbLoadMillisecondTime(r, st->rdbver, &st->expiretime) == C_OK ? 1 : -1;
    case RDB_OPCODE_FREQ:
        if (!rioRead(r, &byte, 1)) return -1;
        st->lfu_freq = byte;
        return 1;
    case RDB_OPCODE_IDLE:
        if ((v = rdbLoadLen(r, NULL)) == RDB_LENERR) return -1;
        st->lru_idle = v > (uint64_t)LLONG_MAX / 1000 ? LLONG_MAX / 1000 : (long long)v;
        return 1;
    case RDB_OPCODE_SELECTDB: return rdbLoadSelectDb(r, st) == C_OK ? 1 : -1;
    case RDB_OPCODE_RESIZEDB:
        if (st->db == NULL) st->db = st->dbs;
        return rdbLoadResizeDb(r, st) == C_OK ? 1 : -1;
    case RDB_OPCODE_AUX: return rdbLoadAuxField(r, st) == C_OK ? 1 : -1;
    case RDB_OPCODE_FUNCTION2: return rdbLoadFunction(r, st) == C_OK ? 1 : -1;
    case RDB_OPCODE_FUNCTION_PRE_GA:
        serverLog(LL_WARNING, "Pre-release function format not supported.");
        return -1;
    case RDB_OPCODE_MODULE_AUX:
        serverLog(LL_WARNING, "The RDB file contains AUX module data I can't load: no modules are supported");
        return -1;
    default: return rdbLoadKeyValue(r, st, type) == C_OK ? 1 : -1;
    }
}

long long rdbLastLoadKeysLoaded = 0, rdbLastLoadKeysExpired = 0;

/* See rdb.h. */
int rdbLoadRioWithFlags(rio *r, int rdbflags) {
    return rdbLoadRioTo(r, rdbflags, NULL);
}

/* See rdb.h. Event loop (or valkey-check-aof's process). */
int rdbLoadRioTo(rio *r, int rdbflags, const rdbLoadTarget *target) {
    rdbLoadState st = {.rdbflags = rdbflags, .expiretime = -1, .lfu_freq = -1, .lru_idle = -1};
    st.dbs = target && target->dbs ? target->dbs : server.db;
    st.functions = target ? target->functions : NULL;
    st.lru_clock = LRU_CLOCK();
    st.now = mstime();
    rioEnableChecksum(r);
    if (rdbLoadHeader(r, &st.rdbver) != C_OK) {
        if (r->error) goto failed; /* not even a header */
        return C_ERR;
    }
    int more;
    while ((more = rdbLoadRecord(r, &st)) == 1);
    if (more == 0 && rdbLoadChecksum(r, &st) != C_OK) {
        if (r->error == RIO_OK) return C_ERR; /* a checksum mismatch, logged */
        more = -1;                            /* the checksum came short */
    }
    if (more == 0) {
        rdbLastLoadKeysLoaded = st.keys_loaded;
        rdbLastLoadKeysExpired = st.keys_expired;
        if (st.empty_keys_skipped)
            serverLog(LL_NOTICE, "Done loading RDB, keys loaded: %lld, keys expired: %lld, empty keys skipped: %lld.",
                      st.keys_loaded, st.keys_expired, st.empty_keys_skipped);
        else
            serverLog(LL_NOTICE, "Done loading RDB, keys loaded: %lld, keys expired: %lld.", st.keys_loaded,
                      st.keys_expired);
        return C_OK;
    }
failed:
    /* Valkey's line for a load that ends the process; a replica that
     * retries its sync, DEBUG RELOAD or valkey-check-aof go on and must
     * not say they abort. What went wrong was logged where it was found,
     * except a read that came short, logged here in both cases. */
    if (rdbflags & RDBFLAGS_EXIT_ON_ERROR)
        serverLog(LL_WARNING, "Short read or OOM loading DB. Unrecoverable error, aborting now.");
    if (r->error) rdbLoadCorrupt(r, "Unexpected EOF reading RDB file");
    if (r->error == RIO_ERR_IO) errno = r->sys_errno;
    else errno = EINVAL;
    return C_ERR;
}

int rdbLoadRio(rio *r) {
    return rdbLoadRioWithFlags(r, RDBFLAGS_NONE);
}

/* ===========================================================================
 * Files
 * ======================================================================== */

/* Makes the rename durable: fsync of the directory holding filename. */
static void rdbFsyncDirOf(const char *filename) {
    char dir[PATH_MAX];
    const char *slash = strrchr(filename, '/');
    if (slash == NULL) {
        snprintf(dir, sizeof(dir), ".");
    } else {
        size_t len = (size_t)(slash - filename);
        if (len == 0) len = 1;
        if (len >= sizeof(dir)) return;
        memcpy(dir, filename, len);
        dir[len] = '\0';
    }
    int fd = open(dir, O_RDONLY);
    if (fd == -1) return;
    fsync(fd);
    close(fd);
}

/* Writes the dataset through a buffered rio on fd (progress, if not NULL,
 * called after each write) and makes it durable. Returns C_OK, or C_ERR
 * with errno set. */
static int rdbSaveToFd(int fd, rioProgressFn *progress) {
    rio r;
    rioInitFdWriter(&r, fd, server.rdb_save_incremental_fsync ? RIO_FSYNC_INTERVAL : 0);
    r.progress = progress;
    int ok = rdbSaveRio(&r) == C_OK && rioFlush(&r);
    int err = r.sys_errno;
    rioRelease(&r);
    if (!ok) {
        errno = err ? err : EIO;
        return C_ERR;
    }
    return fsync(fd) == -1 ? C_ERR : C_OK;
}

/* Saves the dataset to filename: written to "temp-<pid>.rdb" in the
 * working directory, fsynced, then renamed over filename, so a crash never
 * leaves a half-written file under the real name. Returns C_OK or C_ERR
 * (logged as Valkey logs it). progress (may be NULL) is the rio's progress
 * callback. Runs in the event loop or a forked child. */
int rdbSave(const char *filename, rioProgressFn *progress) {
    char tmpfile[256], cwd[PATH_MAX];
    snprintf(tmpfile, sizeof(tmpfile), "temp-%d.rdb", (int)getpid());
    int fd = open(tmpfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd == -1) {
        int err = errno;
        const char *dir = getcwd(cwd, sizeof(cwd));
        serverLog(LL_WARNING, "Failed opening the temp RDB file %s (in server root dir %s) for saving: %s", tmpfile,
                  dir ? dir : "unknown", strerror(err));
        errno = err;
        return C_ERR;
    }
    if (rdbSaveToFd(fd, progress) != C_OK) {
        int err = errno;
        serverLog(LL_WARNING, "Write error saving DB on disk: %s", strerror(err));
        close(fd);
        unlink(tmpfile);
        errno = err;
        return C_ERR;
    }
    close(fd);
    if (rename(tmpfile, filename) == -1) {
        int err = errno;
        const char *dir = getcwd(cwd, sizeof(cwd));
        serverLog(LL_WARNING, "Error moving temp DB file %s on the final destination %s (in server root dir %s): %s",
                  tmpfile, filename, dir ? dir : "unknown", strerror(err));
        unlink(tmpfile);
        errno = err;
        return C_ERR;
    }
    rdbFsyncDirOf(filename);
    serverLog(LL_NOTICE, "DB saved on disk");
    server.dirty = 0;
    server.lastsave = time(NULL);
    server.lastbgsave_status = C_OK;
    return C_OK;
}

/* Loads filename into the current dataset. Returns C_OK, or C_ERR with
 * errno ENOENT when the file does not exist (not an error at start-up),
 * another errno when it cannot be read or is corrupt (already logged). */
int rdbLoad(const char *filename) {
    int fd = open(filename, O_RDONLY);
    if (fd == -1) return C_ERR;
    rio r;
    rioInitFdReader(&r, fd);
    int ret = rdbLoadRio(&r);
    int err = errno;
    rioRelease(&r);
    close(fd);
    errno = err;
    return ret;
}
