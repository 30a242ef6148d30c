/* bitops.c - bitmap commands on string values: SETBIT, GETBIT, BITCOUNT,
 * BITPOS, BITOP, BITFIELD and BITFIELD_RO.
 *
 * A bitmap is an ordinary string (see t_string.c): bit N lives in byte N/8,
 * and within a byte bit 0 is the most significant one (0x80), so that
 * "SETBIT k 0 1" makes the first byte 0x80. Bits past the end of a string
 * read as 0; writing one grows the string with zero bytes, limited by
 * proto-max-bulk-len (512MB by default, so offsets up to 2^32-1).
 *
 * Readers accept any string encoding (an INT value is printed into a small
 * stack buffer); writers go through lookupStringForBitCommand(), which
 * creates or unshares the value as a RAW sds grown to the needed size.
 *
 * Counting uses the compiler's popcount on 64-bit words; BITPOS and BITOP
 * also work a word at a time over the aligned middle of a range. Changes
 * fire the "setbit" keyspace event (BITOP: "set" or "del" on the target)
 * and bump server.dirty; as in Valkey, a SETBIT or BITFIELD write that
 * leaves the string as it was (same length, same bits) is no change. */
#include "server.h"

#define BIT_OFFSET_ERR "bit offset is not an integer or out of range"

/* ---------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------- */

/* Number of set bits in the count bytes at s. */
static long long bitPopcount(const unsigned char *s, size_t count) {
    long long bits = 0;
    while (count >= 32) {
        uint64_t w[4];
        memcpy(w, s, sizeof(w));
        bits += __builtin_popcountll(w[0]) + __builtin_popcountll(w[1]) + __builtin_popcountll(w[2]) +
                __builtin_popcountll(w[3]);
        s += 32;
        count -= 32;
    }
    while (count >= 8) {
        uint64_t w;
        memcpy(&w, s, sizeof(w));
        bits += __builtin_popcountll(w);
        s += 8;
        count -= 8;
    }
    while (count--) bits += __builtin_popcount(*s++);
    return bits;
}

/* Read-only view of a string value's bytes; INT values are printed into
 * buf, which must hold LONG_STR_SIZE bytes. */
static const unsigned char *bitStringBytes(robj *o, char *buf, size_t *len) {
    if (o->encoding == OBJ_ENCODING_INT) {
        *len = ll2string(buf, LONG_STR_SIZE, (long)objectGetVal(o));
        return (unsigned char *)buf;
    }
    *len = sdslen(objectGetVal(o));
    return (unsigned char *)objectGetVal(o);
}

/* Parses a bit offset argument. With hash set, "#N" means N*bits (the
 * BITFIELD form). Offsets must be >= 0 and fall inside a string of
 * proto-max-bulk-len bytes. Replies and returns C_ERR on failure. */
static int getBitOffsetFromArgument(client *c, robj *arg, uint64_t *offset, int hash, int bits) {
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *p = (const char *)bitStringBytes(arg, buf, &len);
    int multiply = 0;
    long long v;

    if (hash && len > 0 && p[0] == '#') {
        multiply = 1;
        p++;
        len--;
    }
    if (!string2ll(p, len, &v) || v < 0) goto err;
    if (multiply) {
        if (v > LLONG_MAX / bits) goto err;
        v *= bits;
    }
    if (!(c->flags & CLIENT_PRIMARY) && (unsigned long long)(v >> 3) >= (unsigned long long)server.proto_max_bulk_len)
        goto err;
    *offset = (uint64_t)v;
    return C_OK;

err:
    addReplyError(c, BIT_OFFSET_ERR);
    return C_ERR;
}

/* Looks up argv[1] for writing bits up to and including bit `maxbit`:
 * creates the key if missing, otherwise unshares it and zero-extends it.
 * *grown is set when the string was created or got longer. Returns NULL
 * (after replying WRONGTYPE) if the key holds another type. */
static robj *lookupStringForBitCommand(client *c, uint64_t maxbit, int *grown) {
    size_t need = (maxbit >> 3) + 1;
    robj *o = lookupKeyWrite(c->db, c->argv[1]);
    if (checkType(c, o, OBJ_STRING)) return NULL;

    if (o == NULL) {
        o = createObject(OBJ_STRING, sdsnewlen(NULL, need));
        dbAdd(c->db, c->argv[1], &o);
        *grown = 1;
        return o;
    }
    o = dbUnshareStringValue(c->db, c->argv[1], o);
    size_t before = sdslen(objectGetVal(o));
    if (need > before) objectSetVal(o, sdsgrowzero(objectGetVal(o), need));
    *grown = sdslen(objectGetVal(o)) != before;
    return o;
}

/* Turns [start, end] (negative = from the end) into a clamped inclusive
 * range of a sequence of `total` units. Returns 0 if the range is empty.
 * BITCOUNT (not BITPOS) treats two negative ends with start > end as empty
 * before clamping: Valkey's two commands differ there. */
static int bitNormalizeRange(long long *start, long long *end, long long total, int neg_reversed_empty) {
    if (neg_reversed_empty && *start < 0 && *end < 0 && *start > *end) return 0;
    if (*start < 0) *start += total;
    if (*end < 0) *end += total;
    if (*start < 0) *start = 0;
    if (*end < 0) *end = 0;
    if (*end >= total) *end = total - 1;
    return *start <= *end;
}

/* Parses the optional trailing BYTE | BIT of BITCOUNT/BITPOS. */
static int parseBitUnitOrReply(client *c, robj *arg, int *isbit) {
    if (!strcasecmp(objectGetVal(arg), "byte")) {
        *isbit = 0;
    } else if (!strcasecmp(objectGetVal(arg), "bit")) {
        *isbit = 1;
    } else {
        addReplyErrorObject(c, shared.syntaxerr);
        return C_ERR;
    }
    return C_OK;
}

static inline int bitAt(const unsigned char *p, uint64_t pos) {
    return (p[pos >> 3] >> (7 - (pos & 7))) & 1;
}

/* ---------------------------------------------------------------------------
 * SETBIT / GETBIT
 * ------------------------------------------------------------------------- */

/* SETBIT key offset 0|1: replies the previous bit. */
void setbitCommand(client *c) {
    const char *valerr = "bit is not an integer or out of range";
    uint64_t offset;
    long on;
    int grown;

    if (getBitOffsetFromArgument(c, c->argv[2], &offset, 0, 0) != C_OK) return;
    if (getLongFromObjectOrReply(c, c->argv[3], &on, valerr) != C_OK) return;
    if (on != 0 && on != 1) {
        addReplyError(c, valerr);
        return;
    }
    robj *o = lookupStringForBitCommand(c, offset, &grown);
    if (o == NULL) return;

    unsigned char *byte = (unsigned char *)objectGetVal(o) + (offset >> 3);
    unsigned char mask = 0x80 >> (offset & 7);
    int old = (*byte & mask) != 0;
    if (old != on) *byte ^= mask;
    if (grown || old != on) {
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(NOTIFY_STRING, "setbit", c->argv[1], c->db->id);
        server.dirty++;
    }
    addReply(c, old ? shared.cone : shared.czero);
}

/* GETBIT key offset */
void getbitCommand(client *c) {
    uint64_t offset;
    if (getBitOffsetFromArgument(c, c->argv[2], &offset, 0, 0) != C_OK) return;
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (o == NULL || checkType(c, o, OBJ_STRING)) return;

    char buf[LONG_STR_SIZE];
    size_t len;
    const unsigned char *p = bitStringBytes(o, buf, &len);
    int bit = (offset >> 3) < len ? bitAt(p, offset) : 0;
    addReply(c, bit ? shared.cone : shared.czero);
}

/* ---------------------------------------------------------------------------
 * BITCOUNT / BITPOS
 * ------------------------------------------------------------------------- */

/* BITCOUNT key [start [end [BYTE | BIT]]]
 * Without end the range runs to the end of the string (Valkey 8). */
void bitcountCommand(client *c) {
    long long start = 0, end = -1;
    int isbit = 0, ranged = 0, end_given = 0;

    /* Arguments are validated before the key is looked at, in Valkey's
     * order: start, the unit, then end. */
    if (c->argc >= 3 && c->argc <= 5) {
        if (getLongLongFromObjectOrReply(c, c->argv[2], &start, NULL) != C_OK) return;
        if (c->argc == 5 && parseBitUnitOrReply(c, c->argv[4], &isbit) != C_OK) return;
        if (c->argc >= 4) {
            if (getLongLongFromObjectOrReply(c, c->argv[3], &end, NULL) != C_OK) return;
            end_given = 1;
        }
        ranged = 1;
    } else if (c->argc != 2) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (o == NULL || checkType(c, o, OBJ_STRING)) return;

    char buf[LONG_STR_SIZE];
    size_t len;
    const unsigned char *p = bitStringBytes(o, buf, &len);
    long long total = isbit ? (long long)len * 8 : (long long)len;
    if (!ranged) start = 0;
    if (!end_given) end = total - 1;
    if (!bitNormalizeRange(&start, &end, total, 1)) {
        addReply(c, shared.czero);
        return;
    }
    if (!isbit) {
        addReplyLongLong(c, bitPopcount(p + start, end - start + 1));
        return;
    }
    /* Count the whole bytes, then take out the bits of the first and last
     * byte that lie outside [start, end]. */
    long long first = start >> 3, last = end >> 3;
    long long count = bitPopcount(p + first, last - first + 1);
    unsigned char before = (unsigned char)(0xff00 >> (start & 7));
    unsigned char after = (unsigned char)(0xff >> ((end & 7) + 1));
    count -= __builtin_popcount(p[first] & before);
    count -= __builtin_popcount(p[last] & after);
    addReplyLongLong(c, count);
}

/* Position of the first bit equal to `bit` in [sbit, ebit], or -1. Works a
 * byte (and a word) at a time once aligned. */
static long long bitFindFirst(const unsigned char *p, long long sbit, long long ebit, int bit) {
    long long i = sbit;
    while (i <= ebit && (i & 7)) {
        if (bitAt(p, i) == bit) return i;
        i++;
    }
    if (i > ebit) return -1; /* The range ended inside the first byte. */
    long long byte = i >> 3;
    long long fullend = (ebit + 1) >> 3; /* Bytes [byte, fullend) lie wholly inside. */
    const unsigned char skipbyte = bit ? 0x00 : 0xff;
    const uint64_t skipword = bit ? 0 : UINT64_MAX;
    while (byte + 8 <= fullend) {
        uint64_t w;
        memcpy(&w, p + byte, sizeof(w));
        if (w != skipword) break;
        byte += 8;
    }
    while (byte < fullend && p[byte] == skipbyte) byte++;
    for (i = byte << 3; i <= ebit; i++) {
        if (bitAt(p, i) == bit) return i;
    }
    return -1;
}

/* BITPOS key 0|1 [start [end [BYTE | BIT]]]
 * Looking for a 0 without an explicit end treats the string as followed by
 * zeros, so the answer is then at most the bit just past the end. */
void bitposCommand(client *c) {
    long long start = 0, end = -1;
    long bit;
    int isbit = 0, end_given = 0;

    if (getLongFromObjectOrReply(c, c->argv[2], &bit, NULL) != C_OK) return;
    if (bit != 0 && bit != 1) {
        addReplyError(c, "The bit argument must be 1 or 0.");
        return;
    }
    if (c->argc > 6) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    /* Valkey's order: start, the unit, then end. */
    if (c->argc >= 4 && getLongLongFromObjectOrReply(c, c->argv[3], &start, NULL) != C_OK) return;
    if (c->argc == 6 && parseBitUnitOrReply(c, c->argv[5], &isbit) != C_OK) return;
    if (c->argc >= 5) {
        if (getLongLongFromObjectOrReply(c, c->argv[4], &end, NULL) != C_OK) return;
        end_given = 1;
    }

    robj *o = lookupKeyRead(c->db, c->argv[1]);
    if (o == NULL) {
        addReplyLongLong(c, bit ? -1 : 0);
        return;
    }
    if (checkType(c, o, OBJ_STRING)) return;

    char buf[LONG_STR_SIZE];
    size_t len;
    const unsigned char *p = bitStringBytes(o, buf, &len);
    long long total = isbit ? (long long)len * 8 : (long long)len;
    if (!end_given) end = total - 1;
    if (!bitNormalizeRange(&start, &end, total, 0)) {
        addReplyLongLong(c, -1);
        return;
    }
    long long sbit = isbit ? start : start * 8;
    long long ebit = isbit ? end : end * 8 + 7;
    long long pos = bitFindFirst(p, sbit, ebit, bit);
    if (pos == -1 && bit == 0 && !end_given) pos = ebit + 1;
    addReplyLongLong(c, pos);
}

/* ---------------------------------------------------------------------------
 * BITOP
 * ------------------------------------------------------------------------- */

#define BITOP_AND 0
#define BITOP_OR 1
#define BITOP_XOR 2
#define BITOP_NOT 3

/* BITOP AND|OR|XOR|NOT destkey key [key ...]
 * Missing sources are empty strings, shorter sources are zero-padded to the
 * longest. An empty result deletes destkey. Replies the result length. */
void bitopCommand(client *c) {
    const char *opname = objectGetVal(c->argv[1]);
    int op;
    if (!strcasecmp(opname, "and")) op = BITOP_AND;
    else if (!strcasecmp(opname, "or")) op = BITOP_OR;
    else if (!strcasecmp(opname, "xor")) op = BITOP_XOR;
    else if (!strcasecmp(opname, "not")) op = BITOP_NOT;
    else {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    int nsrc = c->argc - 3;
    if (op == BITOP_NOT && nsrc != 1) {
        addReplyError(c, "BITOP NOT must be called with a single source key.");
        return;
    }

    /* Collect every source first: a wrong type aborts before any write. */
    robj **objs = zmalloc(sizeof(robj *) * nsrc);
    const unsigned char **src = zmalloc(sizeof(unsigned char *) * nsrc);
    size_t *lens = zmalloc(sizeof(size_t) * nsrc);
    size_t maxlen = 0, minlen = SIZE_MAX;
    for (int j = 0; j < nsrc; j++) {
        robj *o = lookupKeyRead(c->db, c->argv[j + 3]);
        if (o && o->type != OBJ_STRING) {
            for (int k = 0; k < j; k++)
                if (objs[k]) decrRefCount(objs[k]);
            zfree(objs);
            zfree(src);
            zfree(lens);
            addReplyErrorObject(c, shared.wrongtypeerr);
            return;
        }
        objs[j] = o ? getDecodedObject(o) : NULL;
        src[j] = objs[j] ? (unsigned char *)objectGetVal(objs[j]) : NULL;
        lens[j] = objs[j] ? sdslen(objectGetVal(objs[j])) : 0;
        if (lens[j] > maxlen) maxlen = lens[j];
        if (lens[j] < minlen) minlen = lens[j];
    }

    sds res = NULL;
    if (maxlen) {
        res = sdsnewlen(SDS_NOINIT, maxlen);
        unsigned char *out = (unsigned char *)res;
        size_t i = 0;
        if (op == BITOP_NOT) {
            for (; i + 8 <= maxlen; i += 8) {
                uint64_t w;
                memcpy(&w, src[0] + i, 8);
                w = ~w;
                memcpy(out + i, &w, 8);
            }
            for (; i < maxlen; i++) out[i] = ~src[0][i];
        } else {
            /* Word at a time where every source has bytes. */
            for (; i + 8 <= minlen; i += 8) {
                uint64_t acc, w;
                memcpy(&acc, src[0] + i, 8);
                for (int j = 1; j < nsrc; j++) {
                    memcpy(&w, src[j] + i, 8);
                    if (op == BITOP_AND) acc &= w;
                    else if (op == BITOP_OR) acc |= w;
                    else acc ^= w;
                }
                memcpy(out + i, &acc, 8);
            }
            for (; i < maxlen; i++) {
                unsigned char acc = i < lens[0] ? src[0][i] : 0;
                for (int j = 1; j < nsrc; j++) {
                    unsigned char b = i < lens[j] ? src[j][i] : 0;
                    if (op == BITOP_AND) acc &= b;
                    else if (op == BITOP_OR) acc |= b;
                    else acc ^= b;
                }
                out[i] = acc;
            }
        }
    }
    for (int j = 0; j < nsrc; j++)
        if (objs[j]) decrRefCount(objs[j]);
    zfree(objs);
    zfree(src);
    zfree(lens);

    robj *target = c->argv[2];
    if (res) {
        robj *o = createObject(OBJ_STRING, res);
        setKey(c, c->db, target, o, 0);
        decrRefCount(o);
        notifyKeyspaceEvent(NOTIFY_STRING, "set", target, c->db->id);
        server.dirty++;
    } else if (dbDelete(c->db, target)) {
        signalModifiedKey(c, c->db, target);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "del", target, c->db->id);
        server.dirty++;
    }
    addReplyLongLong(c, (long long)maxlen);
}

/* ---------------------------------------------------------------------------
 * BITFIELD
 * ------------------------------------------------------------------------- */

#define BFOP_GET 0
#define BFOP_SET 1
#define BFOP_INCRBY 2

#define BFOVERFLOW_WRAP 0
#define BFOVERFLOW_SAT 1
#define BFOVERFLOW_FAIL 2

/* One GET/SET/INCRBY of a BITFIELD call, parsed before anything runs. */
typedef struct bitfieldOp {
    uint64_t offset; /* First bit. */
    int64_t value;   /* SET value or INCRBY increment. */
    int opcode;      /* BFOP_* */
    int overflow;    /* BFOVERFLOW_* in force when this op was parsed. */
    int bits;        /* 1..64 signed, 1..63 unsigned. */
    int is_signed;
} bitfieldOp;

/* Parses "i<bits>" / "u<bits>". */
static int getBitfieldTypeFromArgument(client *c, robj *arg, int *is_signed, int *bits) {
    const char *p = objectGetVal(arg);
    long long n;
    if (p[0] == 'i' || p[0] == 'I') *is_signed = 1;
    else if (p[0] == 'u' || p[0] == 'U') *is_signed = 0;
    else goto err;
    if (!string2ll(p + 1, strlen(p + 1), &n) || n < 1 || n > (*is_signed ? 64 : 63)) goto err;
    *bits = (int)n;
    return C_OK;

err:
    addReplyError(c, "Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.");
    return C_ERR;
}

/* Reads `bits` bits starting at `offset` as an unsigned number; bits past
 * len bytes read as 0. */
static uint64_t bitfieldGetUnsigned(const unsigned char *p, size_t len, uint64_t offset, int bits) {
    uint64_t v = 0;
    for (int k = 0; k < bits; k++) {
        uint64_t pos = offset + k;
        int b = (pos >> 3) < len ? bitAt(p, pos) : 0;
        v = (v << 1) | (uint64_t)b;
    }
    return v;
}

static int64_t bitfieldGetSigned(const unsigned char *p, size_t len, uint64_t offset, int bits) {
    uint64_t v = bitfieldGetUnsigned(p, len, offset, bits);
    if (bits < 64 && (v >> (bits - 1)) & 1) v |= UINT64_MAX << bits; /* Sign-extend. */
    return (int64_t)v;
}

/* Writes the low `bits` bits of v at offset; the string is long enough. */
static void bitfieldSet(unsigned char *p, uint64_t offset, int bits, uint64_t v) {
    for (int k = 0; k < bits; k++) {
        uint64_t pos = offset + k;
        unsigned char mask = 0x80 >> (pos & 7);
        if ((v >> (bits - 1 - k)) & 1) p[pos >> 3] |= mask;
        else p[pos >> 3] &= ~mask;
    }
}

/* Fits the exact result `sum` into the field. Returns 1 when it fits or
 * the overflow policy produced a value (in *out), 0 when FAIL refuses it. */
static int bitfieldFit(const bitfieldOp *op, __int128 sum, int64_t *out) {
    __int128 min, max;
    if (op->is_signed) {
        max = ((__int128)1 << (op->bits - 1)) - 1;
        min = -max - 1;
    } else {
        max = ((__int128)1 << op->bits) - 1;
        min = 0;
    }
    if (sum >= min && sum <= max) {
        *out = (int64_t)sum;
        return 1;
    }
    if (op->overflow == BFOVERFLOW_FAIL) return 0;
    if (op->overflow == BFOVERFLOW_SAT) {
        *out = (int64_t)(sum > max ? max : min);
        return 1;
    }
    /* WRAP: keep the low bits (two's complement), then reinterpret. */
    uint64_t low = (uint64_t)sum;
    if (op->bits < 64) low &= (UINT64_C(1) << op->bits) - 1;
    if (op->is_signed && op->bits < 64 && (low >> (op->bits - 1)) & 1) low |= UINT64_MAX << op->bits;
    *out = (int64_t)low;
    return 1;
}

/* BITFIELD key [GET type offset | SET type offset value |
 *               INCRBY type offset increment | OVERFLOW WRAP|SAT|FAIL] ...
 * All operations are parsed (and any error reported) before one runs; the
 * reply has one entry per GET/SET/INCRBY. readonly = BITFIELD_RO. */
static void bitfieldGeneric(client *c, int readonly) {
    bitfieldOp *ops = NULL;
    int nops = 0, overflow = BFOVERFLOW_WRAP, has_write = 0;
    uint64_t maxbit = 0;

    for (int j = 2; j < c->argc; j++) {
        int left = c->argc - j - 1;
        const char *sub = objectGetVal(c->argv[j]);
        int opcode;
        if (!strcasecmp(sub, "get") && left >= 2) {
            opcode = BFOP_GET;
        } else if (!strcasecmp(sub, "set") && left >= 3) {
            opcode = BFOP_SET;
        } else if (!strcasecmp(sub, "incrby") && left >= 3) {
            opcode = BFOP_INCRBY;
        } else if (!strcasecmp(sub, "overflow") && left >= 1) {
            const char *how = objectGetVal(c->argv[++j]);
            if (!strcasecmp(how, "wrap")) overflow = BFOVERFLOW_WRAP;
            else if (!strcasecmp(how, "sat")) overflow = BFOVERFLOW_SAT;
            else if (!strcasecmp(how, "fail")) overflow = BFOVERFLOW_FAIL;
            else {
                addReplyError(c, "Invalid OVERFLOW type specified");
                goto cleanup;
            }
            continue;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            goto cleanup;
        }

        bitfieldOp op = {.opcode = opcode, .overflow = overflow};
        if (getBitfieldTypeFromArgument(c, c->argv[j + 1], &op.is_signed, &op.bits) != C_OK) goto cleanup;
        if (getBitOffsetFromArgument(c, c->argv[j + 2], &op.offset, 1, op.bits) != C_OK) goto cleanup;
        if (opcode != BFOP_GET) {
            long long v;
            if (getLongLongFromObjectOrReply(c, c->argv[j + 3], &v, NULL) != C_OK) goto cleanup;
            op.value = v;
            has_write = 1;
            if (op.offset + op.bits - 1 > maxbit) maxbit = op.offset + op.bits - 1;
            j += 3;
        } else {
            j += 2;
        }
        ops = zrealloc(ops, sizeof(bitfieldOp) * (nops + 1));
        ops[nops++] = op;
    }

    robj *o;
    int grown = 0;
    if (!has_write) {
        /* A missing key reads as zeros; another type is still an error. */
        o = lookupKeyRead(c->db, c->argv[1]);
        if (checkType(c, o, OBJ_STRING)) goto cleanup;
    } else {
        if (readonly) {
            addReplyError(c, "BITFIELD_RO only supports the GET subcommand");
            goto cleanup;
        }
        o = lookupStringForBitCommand(c, maxbit, &grown);
        if (o == NULL) goto cleanup;
    }

    char buf[LONG_STR_SIZE];
    size_t len = 0;
    const unsigned char *p = o ? bitStringBytes(o, buf, &len) : NULL;
    long long changes = 0;

    addReplyArrayLen(c, nops);
    for (int k = 0; k < nops; k++) {
        bitfieldOp *op = &ops[k];
        int64_t old = op->is_signed ? bitfieldGetSigned(p, len, op->offset, op->bits)
                                    : (int64_t)bitfieldGetUnsigned(p, len, op->offset, op->bits);
        if (op->opcode == BFOP_GET) {
            addReplyLongLong(c, old);
            continue;
        }
        __int128 want;
        if (op->opcode == BFOP_SET) {
            /* An unsigned field takes the value as unsigned: -1 is 2^64-1. */
            want = op->is_signed ? (__int128)op->value : (__int128)(uint64_t)op->value;
        } else {
            want = (__int128)old + op->value;
        }
        int64_t newval;
        if (!bitfieldFit(op, want, &newval)) {
            addReplyNull(c);
            continue;
        }
        bitfieldSet((unsigned char *)objectGetVal(o), op->offset, op->bits, (uint64_t)newval);
        /* As in Valkey: a write is a change if the string was created or
         * grew, or the field's value differs. */
        if (grown || newval != old) changes++;
        addReplyLongLong(c, op->opcode == BFOP_SET ? old : newval);
    }
    if (changes) {
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(NOTIFY_STRING, "setbit", c->argv[1], c->db->id);
        server.dirty += changes;
    }

cleanup:
    zfree(ops);
}

void bitfieldCommand(client *c) {
    bitfieldGeneric(c, 0);
}

void bitfieldroCommand(client *c) {
    bitfieldGeneric(c, 1);
}

/* ---------------------------------------------------------------------------
 * Command table
 * ------------------------------------------------------------------------- */

struct serverCommand bitmapCommands[] = {
    {.name = "setbit", .proc = setbitCommand, .arity = 4, .flags = CMD_WRITE | CMD_DENYOOM,
     .acl_categories = ACL_CATEGORY_BITMAP, .key = {1, 1, 1}, .group = "bitmap", .since = "2.2.0",
     .summary = "Sets or clears the bit at offset of the string value. Creates the key if it doesn't exist.",
     .complexity = "O(1)",
     .args = "key offset value:integer"},
    {.name = "getbit", .proc = getbitCommand, .arity = 3, .flags = CMD_READONLY | CMD_FAST,
     .acl_categories = ACL_CATEGORY_BITMAP, .key = {1, 1, 1}, .group = "bitmap", .since = "2.2.0",
     .summary = "Returns a bit value by offset.", .complexity = "O(1)",
     .args = "key offset"},
    {.name = "bitcount", .proc = bitcountCommand, .arity = -2, .flags = CMD_READONLY,
     .acl_categories = ACL_CATEGORY_BITMAP, .key = {1, 1, 1}, .group = "bitmap", .since = "2.6.0",
     .summary = "Counts the number of set bits (population counting) in a string.", .complexity = "O(N)",
     .args = "key [range=[start end [unit=[BYTE | BIT]]]]"},
    {.name = "bitpos", .proc = bitposCommand, .arity = -3, .flags = CMD_READONLY,
     .acl_categories = ACL_CATEGORY_BITMAP, .key = {1, 1, 1}, .group = "bitmap", .since = "2.8.7",
     .summary = "Finds the first set (1) or clear (0) bit in a string.", .complexity = "O(N)",
     .args = "key bit:integer [range=[start [end-unit-block=[end [unit=[BYTE | BIT]]]]]]"},
    {.name = "bitop", .proc = bitopCommand, .arity = -4, .flags = CMD_WRITE | CMD_DENYOOM,
     .acl_categories = ACL_CATEGORY_BITMAP, .key = {2, -1, 1}, .group = "bitmap", .since = "2.6.0",
     .summary = "Performs bitwise operations on multiple strings, and stores the result.", .complexity = "O(N)",
     .args = "operation=<AND | OR | XOR | NOT> destkey key [key ...]"},
    {.name = "bitfield", .proc = bitfieldCommand, .arity = -2, .flags = CMD_WRITE | CMD_DENYOOM,
     .acl_categories = ACL_CATEGORY_BITMAP, .key = {1, 1, 1}, .group = "bitmap", .since = "3.2.0",
     .summary = "Performs arbitrary bitfield integer operations on strings.",
     .complexity = "O(1) for each subcommand specified",
     .args = "key [operation=<GET encoding offset | write=<[OVERFLOW overflow-block=<WRAP | SAT | FAIL>] "
             "write-operation=<SET encoding offset value:integer | INCRBY encoding offset increment>>> ...]"},
    {.name = "bitfield_ro", .proc = bitfieldroCommand, .arity = -2, .flags = CMD_READONLY | CMD_FAST,
     .acl_categories = ACL_CATEGORY_BITMAP, .key = {1, 1, 1}, .group = "bitmap", .since = "6.0.0",
     .summary = "Performs arbitrary read-only bitfield integer operations on strings.",
     .complexity = "O(1) for each subcommand specified",
     .args = "key [GET encoding offset [GET encoding offset ...]]"},
    {0},
};
