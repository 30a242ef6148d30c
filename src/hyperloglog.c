/* hyperloglog.c - the HyperLogLog commands PFADD, PFCOUNT, PFMERGE and the
 * introspection commands PFDEBUG and PFSELFTEST.
 *
 * An HLL is an ordinary string value (GET/SET/DUMP see plain bytes) in the
 * documented Redis/Valkey layout, so a value made by either server works
 * on the other. The layout (hllHeader below, then the registers):
 *   "HYLL" | encoding (0 dense, 1 sparse) | 3 zero bytes | 8-byte cached
 *   cardinality, little-endian; bit 7 of its last byte set = cache stale.
 *   DENSE   16384 registers of 6 bits, register i at bit i*6, bits taken
 *           from the least significant end of each byte (12288 bytes).
 *   SPARSE  run-length opcodes: ZERO 00xxxxxx (1..64 zero registers),
 *           XZERO 01xxxxxx yyyyyyyy (1..16384 zeros), VAL 1vvvvvxx (1..4
 *           registers holding value 1..32).
 * An element is hashed with MurmurHash64A (seed 0xadc83b19): the low 14
 * bits pick the register, the run of zero bits above them (plus one) is
 * the candidate register value (1..51). PFCOUNT uses Ertl's improved
 * estimator over the register histogram.
 *
 * Sparse values are handled by decoding them into a byte-per-register
 * array, updating it and encoding it again (in canonical form); a value
 * that no longer fits the sparse form (a register above 32, or more than
 * hll-sparse-max-bytes) becomes dense and never goes back. Dense values are
 * updated in place. Every value is validated before use: bad headers are
 * "WRONGTYPE Key is not a valid HyperLogLog string value.", sparse opcode
 * streams that do not describe exactly 16384 registers are "INVALIDOBJ
 * Corrupted HLL object detected". Nothing here trusts a stored length. */
#include "server.h"

#include <math.h>

/* ---------------------------------------------------------------------------
 * The wire format
 * ------------------------------------------------------------------------- */

#define HLL_P 14                                   /* Index bits. */
#define HLL_Q (64 - HLL_P)                         /* Bits left for the run. */
#define HLL_REGISTERS (1 << HLL_P)                 /* 16384 */
#define HLL_BITS 6                                 /* Bits per dense register. */
#define HLL_REGISTER_MAX ((1 << HLL_BITS) - 1)     /* 63 */
#define HLL_HDR_SIZE 16
#define HLL_DENSE_SIZE (HLL_HDR_SIZE + (HLL_REGISTERS * HLL_BITS + 7) / 8)
#define HLL_DENSE 0
#define HLL_SPARSE 1
#define HLL_MAX_ENCODING 1
#define HLL_CACHE_STALE 0x80 /* In card[7]. */
#define HLL_HASH_SEED 0xadc83b19ULL

#define HLL_SPARSE_ZERO_MAX 64
#define HLL_SPARSE_XZERO_MAX 16384
#define HLL_SPARSE_VAL_MAX_VALUE 32
#define HLL_SPARSE_VAL_MAX_LEN 4

typedef struct hllHeader {
    char magic[4];       /* "HYLL" */
    uint8_t encoding;    /* HLL_DENSE or HLL_SPARSE */
    uint8_t reserved[3]; /* Zero. */
    uint8_t card[8];     /* Cached cardinality, little-endian; see HLL_CACHE_STALE. */
} hllHeader;
_Static_assert(sizeof(hllHeader) == HLL_HDR_SIZE, "the HLL header is 16 bytes");
_Static_assert(HLL_DENSE_SIZE == 12304, "dense HLLs are 12304 bytes");

static const char *hllWrongTypeErr = "-WRONGTYPE Key is not a valid HyperLogLog string value.";
static const char *hllInvalidErr = "-INVALIDOBJ Corrupted HLL object detected";

/* The cached cardinality, or -1 when the stale bit is set. */
static long long hllCacheGet(const hllHeader *hdr) {
    if (hdr->card[7] & HLL_CACHE_STALE) return -1;
    uint64_t v = 0;
    for (int j = 7; j >= 0; j--) v = (v << 8) | hdr->card[j];
    return (long long)v;
}

static void hllCacheSet(hllHeader *hdr, uint64_t card) {
    for (int j = 0; j < 8; j++) hdr->card[j] = (card >> (8 * j)) & 0xff;
}

/* Marks the cache stale; the old count bytes stay, as in Redis. */
static void hllCacheInvalidate(hllHeader *hdr) {
    hdr->card[7] |= HLL_CACHE_STALE;
}

/* Dense register access. A register starts at bit i*6; when it does not
 * fit in its first byte (shift > 2) its high bits are the low bits of the
 * next byte. The last register (shift 2) never touches a byte past the end. */
static inline unsigned hllDenseGet(const uint8_t *regs, long i) {
    size_t byte = (size_t)i * HLL_BITS / 8;
    unsigned shift = (unsigned)(i * HLL_BITS) & 7;
    unsigned v = regs[byte] >> shift;
    if (shift > 8 - HLL_BITS) v |= (unsigned)regs[byte + 1] << (8 - shift);
    return v & HLL_REGISTER_MAX;
}

static inline void hllDenseSet(uint8_t *regs, long i, unsigned val) {
    size_t byte = (size_t)i * HLL_BITS / 8;
    unsigned shift = (unsigned)(i * HLL_BITS) & 7;
    regs[byte] = (uint8_t)((regs[byte] & ~(HLL_REGISTER_MAX << shift)) | (val << shift));
    if (shift > 8 - HLL_BITS) {
        unsigned hi = 8 - shift; /* bits already written */
        regs[byte + 1] = (uint8_t)((regs[byte + 1] & ~(HLL_REGISTER_MAX >> hi)) | (val >> hi));
    }
}

/* ---------------------------------------------------------------------------
 * Hashing: MurmurHash64A, written from Austin Appleby's public description
 * (64-bit multiply/xorshift mix over little-endian 8-byte words).
 * ------------------------------------------------------------------------- */

static uint64_t murmurHash64A(const void *key, size_t len, uint64_t seed) {
    const uint64_t mul = 0xc6a4a7935bd1e995ULL;
    const int shift = 47;
    const uint8_t *p = key;
    uint64_t h = seed ^ (len * mul);
    size_t words = len / 8;

    for (size_t w = 0; w < words; w++, p += 8) {
        uint64_t k = 0;
        for (int b = 7; b >= 0; b--) k = (k << 8) | p[b];
        k *= mul;
        k ^= k >> shift;
        k *= mul;
        h ^= k;
        h *= mul;
    }
    size_t tail = len & 7;
    if (tail) {
        uint64_t k = 0;
        for (int b = (int)tail - 1; b >= 0; b--) k = (k << 8) | p[b];
        h ^= k;
        h *= mul;
    }
    h ^= h >> shift;
    h *= mul;
    h ^= h >> shift;
    return h;
}

/* Register index and candidate value (1..HLL_Q+1) of an element. */
static void hllHashElement(const void *ele, size_t len, long *index, unsigned *value) {
    uint64_t h = murmurHash64A(ele, len, HLL_HASH_SEED);
    *index = (long)(h & (HLL_REGISTERS - 1));
    h >>= HLL_P;
    h |= 1ULL << HLL_Q; /* A sentinel so the run is at most HLL_Q. */
    *value = (unsigned)__builtin_ctzll(h) + 1;
}

/* ---------------------------------------------------------------------------
 * Decoding and encoding whole register arrays (one byte per register)
 * ------------------------------------------------------------------------- */

/* Raises each of regs[] to the register of the HLL bytes p[0..len) (a
 * value already checked by hllCheckHeader). Returns C_ERR if a sparse
 * opcode stream is truncated or does not cover exactly HLL_REGISTERS
 * registers; regs may then be partly updated. */
static int hllMergeRegisters(uint8_t *regs, const unsigned char *p, size_t len) {
    const hllHeader *hdr = (const hllHeader *)p;
    if (hdr->encoding == HLL_DENSE) {
        const uint8_t *d = p + HLL_HDR_SIZE;
        for (long i = 0; i < HLL_REGISTERS; i++) {
            unsigned v = hllDenseGet(d, i);
            if (v > regs[i]) regs[i] = (uint8_t)v;
        }
        return C_OK;
    }
    const unsigned char *op = p + HLL_HDR_SIZE, *end = p + len;
    long idx = 0;
    while (op < end) {
        unsigned c = *op;
        long run;
        if ((c & 0xc0) == 0x00) { /* ZERO */
            run = (c & 0x3f) + 1;
            op++;
            if (run > HLL_REGISTERS - idx) return C_ERR;
        } else if ((c & 0xc0) == 0x40) { /* XZERO */
            if (end - op < 2) return C_ERR;
            run = (((long)(c & 0x3f) << 8) | op[1]) + 1;
            op += 2;
            if (run > HLL_REGISTERS - idx) return C_ERR;
        } else { /* VAL */
            unsigned v = ((c >> 2) & 0x1f) + 1;
            run = (c & 0x3) + 1;
            op++;
            if (run > HLL_REGISTERS - idx) return C_ERR;
            for (long j = idx; j < idx + run; j++)
                if (v > regs[j]) regs[j] = (uint8_t)v;
        }
        idx += run;
    }
    return idx == HLL_REGISTERS ? C_OK : C_ERR;
}

/* Fills a new header (cache valid and zero). */
static void hllHeaderInit(hllHeader *hdr, int encoding) {
    memcpy(hdr->magic, "HYLL", 4);
    hdr->encoding = (uint8_t)encoding;
    memset(hdr->reserved, 0, sizeof(hdr->reserved));
    memset(hdr->card, 0, sizeof(hdr->card));
}

/* A new dense HLL string holding regs, with the header's cache bytes
 * copied from `card` (NULL: zero). Caller owns the sds. */
static sds hllEncodeDense(const uint8_t *regs, const uint8_t *card) {
    sds s = sdsnewlen(NULL, HLL_DENSE_SIZE); /* zeroed */
    hllHeader *hdr = (hllHeader *)s;
    hllHeaderInit(hdr, HLL_DENSE);
    if (card) memcpy(hdr->card, card, 8);
    uint8_t *d = (uint8_t *)s + HLL_HDR_SIZE;
    for (long i = 0; i < HLL_REGISTERS; i++)
        if (regs[i]) hllDenseSet(d, i, regs[i] > HLL_REGISTER_MAX ? HLL_REGISTER_MAX : regs[i]);
    return s;
}

/* A new sparse HLL string holding regs in canonical form (each zero run
 * one ZERO or XZERO opcode, equal values in VAL opcodes of up to 4), or
 * NULL if a register exceeds 32 or the result would be longer than
 * maxlen bytes. Caller owns the sds. */
static sds hllEncodeSparse(const uint8_t *regs, const uint8_t *card, size_t maxlen) {
    /* Worst case: one VAL byte per register. */
    unsigned char buf[HLL_HDR_SIZE + HLL_REGISTERS];
    size_t n = HLL_HDR_SIZE;
    long i = 0;
    while (i < HLL_REGISTERS) {
        unsigned v = regs[i];
        long run = 1;
        while (i + run < HLL_REGISTERS && regs[i + run] == v) run++;
        i += run;
        if (v == 0) {
            if (run <= HLL_SPARSE_ZERO_MAX) {
                buf[n++] = (unsigned char)(run - 1);
            } else {
                buf[n++] = (unsigned char)(0x40 | ((run - 1) >> 8));
                buf[n++] = (unsigned char)((run - 1) & 0xff);
            }
        } else {
            if (v > HLL_SPARSE_VAL_MAX_VALUE) return NULL;
            while (run > 0) {
                long chunk = run > HLL_SPARSE_VAL_MAX_LEN ? HLL_SPARSE_VAL_MAX_LEN : run;
                buf[n++] = (unsigned char)(0x80 | ((v - 1) << 2) | (chunk - 1));
                run -= chunk;
            }
        }
        if (n > maxlen) return NULL;
    }
    hllHeader *hdr = (hllHeader *)buf;
    hllHeaderInit(hdr, HLL_SPARSE);
    if (card) memcpy(hdr->card, card, 8);
    return sdsnewlen(buf, n);
}

/* ---------------------------------------------------------------------------
 * Estimation (Otmar Ertl, "New cardinality estimation algorithms for
 * HyperLogLog sketches", 2017: the improved raw estimator)
 * ------------------------------------------------------------------------- */

#define HLL_ALPHA_INF 0.721347520444481703680 /* 1 / (2 ln 2) */

/* sigma(x) = x + sum_{k>=1} x^(2^k) 2^(k-1), summed until it stops moving. */
static double hllSigma(double x) {
    if (x == 1.0) return INFINITY;
    double y = 1.0, z = x, prev;
    do {
        x *= x;
        prev = z;
        z += x * y;
        y += y;
    } while (prev != z);
    return z;
}

/* tau(x) = (1 - x - sum_{k>=1} (1 - x^(2^-k))^2 2^-k) / 3. */
static double hllTau(double x) {
    if (x == 0.0 || x == 1.0) return 0.0;
    double y = 1.0, z = 1.0 - x, prev;
    do {
        x = sqrt(x);
        prev = z;
        y *= 0.5;
        z -= (1.0 - x) * (1.0 - x) * y;
    } while (prev != z);
    return z / 3.0;
}

/* The cardinality estimate of a register array. */
static uint64_t hllEstimate(const uint8_t *regs) {
    int histo[HLL_Q + 2] = {0};
    for (long i = 0; i < HLL_REGISTERS; i++) histo[regs[i] > HLL_Q + 1 ? HLL_Q + 1 : regs[i]]++;
    double m = HLL_REGISTERS;
    double z = m * hllTau((m - histo[HLL_Q + 1]) / m);
    for (int k = HLL_Q; k >= 1; k--) {
        z += histo[k];
        z *= 0.5;
    }
    z += m * hllSigma(histo[0] / m);
    return (uint64_t)llroundl(HLL_ALPHA_INF * m * m / z);
}

/* ---------------------------------------------------------------------------
 * Value checks
 * ------------------------------------------------------------------------- */

/* C_OK if o is a string with a valid HLL header (for dense, also the exact
 * length). Otherwise replies WRONGTYPE (the generic one for non-strings,
 * the HLL one for other strings) and returns C_ERR. */
static int hllCheckObjectOrReply(client *c, robj *o) {
    if (checkType(c, o, OBJ_STRING)) return C_ERR;
    if (!sdsEncodedObject(o) || sdslen(objectGetVal(o)) < HLL_HDR_SIZE) goto invalid;
    const hllHeader *hdr = objectGetVal(o);
    if (memcmp(hdr->magic, "HYLL", 4) != 0 || hdr->encoding > HLL_MAX_ENCODING) goto invalid;
    if (hdr->encoding == HLL_DENSE && sdslen(objectGetVal(o)) != HLL_DENSE_SIZE) goto invalid;
    return C_OK;
invalid:
    addReplyError(c, hllWrongTypeErr);
    return C_ERR;
}

/* A new empty sparse HLL object: one XZERO covering every register. */
static robj *hllCreateObject(void) {
    uint8_t regs[HLL_REGISTERS];
    memset(regs, 0, sizeof(regs));
    return createObject(OBJ_STRING, hllEncodeSparse(regs, NULL, SIZE_MAX));
}

/* Replaces the bytes of the (unshared, RAW) HLL object o with regs,
 * dense if `dense` or if the sparse form does not fit. The cache bytes are
 * kept and marked stale. */
static void hllStoreRegisters(robj *o, const uint8_t *regs, int dense) {
    const hllHeader *old = objectGetVal(o);
    uint8_t card[8];
    memcpy(card, old->card, 8);
    card[7] |= HLL_CACHE_STALE;
    sds s = dense ? NULL : hllEncodeSparse(regs, card, server.hll_sparse_max_bytes);
    if (s == NULL) s = hllEncodeDense(regs, card);
    sdsfree(objectGetVal(o));
    objectSetVal(o, s);
}

/* ---------------------------------------------------------------------------
 * Commands
 * ------------------------------------------------------------------------- */

/* PFADD key [element ...]: 1 if the key was created or a register grew. */
void pfaddCommand(client *c) {
    robj *o = lookupKeyWrite(c->db, c->argv[1]);
    int created = 0;

    if (o == NULL) {
        o = hllCreateObject();
        dbAdd(c->db, c->argv[1], &o);
        created = 1;
    } else {
        if (hllCheckObjectOrReply(c, o) != C_OK) return;
        o = dbUnshareStringValue(c->db, c->argv[1], o);
    }

    hllHeader *hdr = objectGetVal(o);
    int changed = 0;
    if (hdr->encoding == HLL_DENSE) {
        uint8_t *d = (uint8_t *)objectGetVal(o) + HLL_HDR_SIZE;
        for (int j = 2; j < c->argc; j++) {
            robj *e = getDecodedObject(c->argv[j]);
            long idx;
            unsigned v;
            hllHashElement(objectGetVal(e), sdslen(objectGetVal(e)), &idx, &v);
            decrRefCount(e);
            if (v > hllDenseGet(d, idx)) {
                hllDenseSet(d, idx, v);
                changed = 1;
            }
        }
    } else if (c->argc > 2) {
        uint8_t regs[HLL_REGISTERS];
        memset(regs, 0, sizeof(regs));
        if (hllMergeRegisters(regs, objectGetVal(o), sdslen(objectGetVal(o))) != C_OK) {
            addReplyError(c, hllInvalidErr);
            return;
        }
        for (int j = 2; j < c->argc; j++) {
            robj *e = getDecodedObject(c->argv[j]);
            long idx;
            unsigned v;
            hllHashElement(objectGetVal(e), sdslen(objectGetVal(e)), &idx, &v);
            decrRefCount(e);
            if (v > regs[idx]) {
                regs[idx] = (uint8_t)v;
                changed = 1;
            }
        }
        if (changed) hllStoreRegisters(o, regs, 0);
    }

    if (changed || created) {
        hllCacheInvalidate(objectGetVal(o)); /* A new key's cache starts stale too. */
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(NOTIFY_STRING, "pfadd", c->argv[1], c->db->id);
        server.dirty++;
    }
    addReply(c, (changed || created) ? shared.cone : shared.czero);
}

/* PFCOUNT key [key ...]: with one key, the (cached) estimate of that HLL,
 * refreshing the cache in place when it is stale; with several, the
 * estimate of their union, computed without touching any key. Missing keys
 * count as empty HLLs. */
void pfcountCommand(client *c) {
    uint8_t regs[HLL_REGISTERS];

    if (c->argc > 2) {
        memset(regs, 0, sizeof(regs));
        for (int j = 1; j < c->argc; j++) {
            robj *o = lookupKeyRead(c->db, c->argv[j]);
            if (o == NULL) continue;
            if (hllCheckObjectOrReply(c, o) != C_OK) return;
            if (hllMergeRegisters(regs, objectGetVal(o), sdslen(objectGetVal(o))) != C_OK) {
                addReplyError(c, hllInvalidErr);
                return;
            }
        }
        addReplyLongLong(c, (long long)hllEstimate(regs));
        return;
    }

    robj *o = lookupKeyRead(c->db, c->argv[1]);
    if (o == NULL) {
        addReply(c, shared.czero);
        return;
    }
    if (hllCheckObjectOrReply(c, o) != C_OK) return;
    long long cached = hllCacheGet(objectGetVal(o));
    if (cached >= 0) {
        addReplyLongLong(c, cached);
        return;
    }
    memset(regs, 0, sizeof(regs));
    if (hllMergeRegisters(regs, objectGetVal(o), sdslen(objectGetVal(o))) != C_OK) {
        addReplyError(c, hllInvalidErr);
        return;
    }
    uint64_t card = hllEstimate(regs);
    o = dbUnshareStringValue(c->db, c->argv[1], o);
    hllCacheSet(objectGetVal(o), card);
    signalModifiedKey(c, c->db, c->argv[1]);
    server.dirty++;
    addReplyLongLong(c, (long long)card);
}

/* PFMERGE destkey [sourcekey ...]: destkey becomes the union of itself
 * and the sources (created empty if nothing exists). The result stays
 * sparse only if every input was sparse and it still fits. */
void pfmergeCommand(client *c) {
    uint8_t regs[HLL_REGISTERS];
    int dense = 0;

    memset(regs, 0, sizeof(regs));
    for (int j = 1; j < c->argc; j++) {
        robj *o = lookupKeyRead(c->db, c->argv[j]);
        if (o == NULL) continue;
        if (hllCheckObjectOrReply(c, o) != C_OK) return;
        if (((hllHeader *)objectGetVal(o))->encoding == HLL_DENSE) dense = 1;
        if (hllMergeRegisters(regs, objectGetVal(o), sdslen(objectGetVal(o))) != C_OK) {
            addReplyError(c, hllInvalidErr);
            return;
        }
    }

    robj *o = lookupKeyWrite(c->db, c->argv[1]);
    if (o == NULL) {
        o = hllCreateObject();
        dbAdd(c->db, c->argv[1], &o);
    } else {
        o = dbUnshareStringValue(c->db, c->argv[1], o);
    }
    hllStoreRegisters(o, regs, dense);

    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_STRING, "pfadd", c->argv[1], c->db->id);
    server.dirty++;
    addReply(c, shared.ok);
}

/* Converts the sparse HLL o (unshared, RAW) to dense. C_ERR if corrupt. */
static int hllToDense(robj *o) {
    uint8_t regs[HLL_REGISTERS];
    memset(regs, 0, sizeof(regs));
    if (hllMergeRegisters(regs, objectGetVal(o), sdslen(objectGetVal(o))) != C_OK) return C_ERR;
    sds s = hllEncodeDense(regs, ((hllHeader *)objectGetVal(o))->card);
    sdsfree(objectGetVal(o));
    objectSetVal(o, s);
    return C_OK;
}

/* PFDEBUG GETREG|DECODE|ENCODING|TODENSE key: internals, for tests.
 * GETREG and TODENSE convert a sparse value to dense. */
void pfdebugCommand(client *c) {
    const char *sub = objectGetVal(c->argv[1]);
    robj *o = lookupKeyWrite(c->db, c->argv[2]);
    if (o == NULL) {
        addReplyError(c, "The specified key does not exist");
        return;
    }
    if (hllCheckObjectOrReply(c, o) != C_OK) return;
    o = dbUnshareStringValue(c->db, c->argv[2], o);
    hllHeader *hdr = objectGetVal(o);

    if (!strcasecmp(sub, "getreg")) {
        if (hdr->encoding == HLL_SPARSE) {
            if (hllToDense(o) != C_OK) {
                addReplyError(c, hllInvalidErr);
                return;
            }
            server.dirty++;
        }
        const uint8_t *d = (uint8_t *)objectGetVal(o) + HLL_HDR_SIZE;
        addReplyArrayLen(c, HLL_REGISTERS);
        for (long i = 0; i < HLL_REGISTERS; i++) addReplyLongLong(c, hllDenseGet(d, i));
    } else if (!strcasecmp(sub, "decode")) {
        if (hdr->encoding != HLL_SPARSE) {
            addReplyError(c, "HLL encoding is not sparse");
            return;
        }
        uint8_t regs[HLL_REGISTERS];
        memset(regs, 0, sizeof(regs));
        if (hllMergeRegisters(regs, objectGetVal(o), sdslen(objectGetVal(o))) != C_OK) {
            addReplyError(c, hllInvalidErr);
            return;
        }
        /* Validated above: every opcode is complete. */
        sds out = sdsempty();
        const unsigned char *op = (unsigned char *)objectGetVal(o) + HLL_HDR_SIZE, *end = op + sdslen(objectGetVal(o)) - HLL_HDR_SIZE;
        while (op < end) {
            if ((*op & 0xc0) == 0x00) {
                out = sdscatprintf(out, "z:%d ", (*op & 0x3f) + 1);
                op++;
            } else if ((*op & 0xc0) == 0x40) {
                out = sdscatprintf(out, "Z:%d ", (((*op & 0x3f) << 8) | op[1]) + 1);
                op += 2;
            } else {
                out = sdscatprintf(out, "v:%d,%d ", ((*op >> 2) & 0x1f) + 1, (*op & 0x3) + 1);
                op++;
            }
        }
        sdsrange(out, 0, -2); /* Drop the trailing space. */
        addReplyBulkSds(c, out);
    } else if (!strcasecmp(sub, "encoding")) {
        addReplyStatus(c, hdr->encoding == HLL_DENSE ? "dense" : "sparse");
    } else if (!strcasecmp(sub, "todense")) {
        int converted = 0;
        if (hdr->encoding == HLL_SPARSE) {
            if (hllToDense(o) != C_OK) {
                addReplyError(c, hllInvalidErr);
                return;
            }
            converted = 1;
            server.dirty++;
        }
        addReply(c, converted ? shared.cone : shared.czero);
    } else {
        addReplyErrorFormat(c, "Unknown PFDEBUG subcommand '%s'", sub);
    }
}

/* PFSELFTEST: checks the register packing, the sparse round trip and the
 * estimator's error on this build. +OK, or a -TESTFAILED error. */
void pfselftestCommand(client *c) {
    static uint8_t regs[HLL_REGISTERS], back[HLL_REGISTERS];
    uint8_t dense[HLL_DENSE_SIZE - HLL_HDR_SIZE];

    /* 1. Dense packing: every register independent of its neighbours. */
    for (int round = 0; round < 64; round++) {
        memset(dense, 0, sizeof(dense));
        for (long i = 0; i < HLL_REGISTERS; i++) {
            regs[i] = (uint8_t)(random() & HLL_REGISTER_MAX);
            hllDenseSet(dense, i, regs[i]);
        }
        for (long i = 0; i < HLL_REGISTERS; i++) {
            if (hllDenseGet(dense, i) != regs[i]) {
                addReplyErrorFormat(c, "-TESTFAILED Register error at index %ld", i);
                return;
            }
        }
    }

    /* 2. Sparse round trip of sparse-representable arrays. */
    for (int round = 0; round < 16; round++) {
        memset(regs, 0, sizeof(regs));
        for (int k = 0; k < 1 + round * 50; k++) regs[random() % HLL_REGISTERS] = (uint8_t)(1 + random() % 32);
        sds s = hllEncodeSparse(regs, NULL, SIZE_MAX);
        memset(back, 0, sizeof(back));
        int ok = s && hllMergeRegisters(back, (unsigned char *)s, sdslen(s)) == C_OK &&
                 memcmp(regs, back, sizeof(regs)) == 0;
        sdsfree(s);
        if (!ok) {
            addReplyError(c, "-TESTFAILED Sparse encoding round trip failed");
            return;
        }
    }

    /* 3. Estimator error within five standard errors (1.04/sqrt(m)). */
    memset(regs, 0, sizeof(regs));
    double relerr = 1.04 / sqrt(HLL_REGISTERS) * 5;
    uint64_t seed = ((uint64_t)random() << 32) ^ (uint64_t)random();
    for (uint64_t n = 1; n <= 100000; n++) {
        uint64_t ele = seed + n;
        long idx;
        unsigned v;
        hllHashElement(&ele, sizeof(ele), &idx, &v);
        if (v > regs[idx]) regs[idx] = (uint8_t)v;
        if (n % 1000 == 0 || n < 100) {
            double est = (double)hllEstimate(regs);
            double err = fabs(est - (double)n);
            if (err > relerr * n && err > 1) {
                addReplyErrorFormat(c, "-TESTFAILED Too big error. card:%llu abserr:%f", (unsigned long long)n, err);
                return;
            }
        }
    }
    addReply(c, shared.ok);
}

/* ---------------------------------------------------------------------------
 * Command table
 * ------------------------------------------------------------------------- */

struct serverCommand hyperloglogCommands[] = {
    {.name = "pfadd", .proc = pfaddCommand, .arity = -2, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST,
     .acl_categories = ACL_CATEGORY_HYPERLOGLOG, .key = {1, 1, 1}, .group = "hyperloglog", .since = "2.8.9",
     .summary = "Adds elements to a HyperLogLog key. Creates the key if it doesn't exist.",
     .complexity = "O(1) to add every element.",
     .args = "key [element [element ...]]"},
    {.name = "pfcount", .proc = pfcountCommand, .arity = -2, .flags = CMD_READONLY | CMD_MAY_REPLICATE,
     .acl_categories = ACL_CATEGORY_HYPERLOGLOG, .key = {1, -1, 1}, .group = "hyperloglog", .since = "2.8.9",
     .summary = "Returns the approximated cardinality of the set(s) observed by the HyperLogLog key(s).",
     .complexity = "O(1) with a very small average constant time when called with a single key. O(N) with N "
                   "being the number of keys, and much bigger constant times, when called with multiple keys.",
     .args = "key [key ...]"},
    {.name = "pfmerge", .proc = pfmergeCommand, .arity = -2, .flags = CMD_WRITE | CMD_DENYOOM,
     .acl_categories = ACL_CATEGORY_HYPERLOGLOG, .key = {1, -1, 1}, .group = "hyperloglog", .since = "2.8.9",
     .summary = "Merges one or more HyperLogLog values into a single key.",
     .complexity = "O(N) to merge N HyperLogLogs, but with high constant times.",
     .args = "destkey [sourcekey [sourcekey ...]]"},
    {.name = "pfdebug", .proc = pfdebugCommand, .arity = 3, .flags = CMD_WRITE | CMD_DENYOOM | CMD_ADMIN,
     .acl_categories = ACL_CATEGORY_HYPERLOGLOG, .key = {2, 2, 1}, .group = "hyperloglog", .since = "2.8.9",
     .summary = "Internal commands for debugging HyperLogLog values.", .complexity = "N/A",
     .args = "subcommand key"},
    {.name = "pfselftest", .proc = pfselftestCommand, .arity = 1, .flags = CMD_ADMIN,
     .acl_categories = ACL_CATEGORY_HYPERLOGLOG, .group = "hyperloglog", .since = "2.8.9",
     .summary = "An internal command for testing HyperLogLog values.", .complexity = "N/A"},
    {0},
};
