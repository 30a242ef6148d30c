/* t_string.c - the string type: SET and its variants, GET and friends,
 * counters (INCR/DECR/INCRBYFLOAT), ranges (GETRANGE/SETRANGE/APPEND) and
 * the longest-common-subsequence command LCS.
 *
 * A string value is an robj of type OBJ_STRING in one of three encodings
 * (see object.c): INT (the number lives in the pointer), EMBSTR (one
 * read-only allocation) or RAW (a growable sds). Commands that only read
 * accept all three; commands that modify a value in place (APPEND,
 * SETRANGE, and SETBIT in bitops.c) first call dbUnshareStringValue(), which
 * guarantees an unshared RAW object they may grow.
 *
 * The hot paths (GET, SET, INCR) are kept allocation-free where possible:
 * the keyspace stores a copy of SET's argument inside the key's own block
 * (db.c, object.c), and a SET of a short string over a short string
 * writes the bytes in place; INCR rewrites an INT-encoded value in place
 * (a keyspace value is never shared).
 *
 * Every successful modification bumps server.dirty, calls
 * signalModifiedKey() (through setKey() or directly) and fires the keyspace
 * event Valkey fires ("set", "expire", "incrby", "append", ...). Argument
 * errors are always reported before the keyspace is looked at, except where
 * Valkey itself checks the key first (noted at the spot).
 *
 * For propagation (propagate.c) commands whose replay would not give the
 * same result rewrite their argv: relative or second-precision expiries
 * become "SET key value PXAT ms" and "PEXPIREAT key ms", GETEX PERSIST
 * becomes PERSIST, GETSET becomes SET, GETDEL DEL, a GETEX deadline past DEL
 * (UNLINK with lazyfree-lazy-expire), INCRBYFLOAT becomes "SET key value
 * KEEPTTL" (float formatting must not differ between primary and
 * replica). */
#include "server.h"

#include <math.h>

/* ---------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------- */

/* Checks that a string of `size` bytes may grow by `append` bytes without
 * exceeding proto-max-bulk-len. Returns C_OK, or replies with an error and
 * returns C_ERR. The primary's stream is trusted: it already checked. Called
 * by APPEND, SETRANGE and the bit commands before they grow a value. */
int checkStringLength(client *c, long long size, long long append) {
    if (c->flags & CLIENT_PRIMARY) return C_OK;
    long long total = (long long)((unsigned long long)size + (unsigned long long)append);
    if (total > server.proto_max_bulk_len || total < size || total < append) {
        addReplyError(c, "string exceeds maximum allowed size (proto-max-bulk-len)");
        return C_ERR;
    }
    return C_OK;
}

/* Gives a read-only view of any string object's bytes; INT values are
 * printed into buf (at least LONG_STR_SIZE bytes). */
static const char *stringObjectBytes(robj *o, char *buf, size_t *len) {
    if (o->encoding == OBJ_ENCODING_INT) {
        *len = ll2string(buf, LONG_STR_SIZE, (long)objectGetVal(o));
        return buf;
    }
    *len = sdslen(objectGetVal(o));
    return objectGetVal(o);
}

/* ---------------------------------------------------------------------------
 * SET family
 * ------------------------------------------------------------------------- */

/* Option bits shared by SET and GETEX parsing. */
#define STR_SET_NX (1 << 0)      /* Set only if the key does not exist. */
#define STR_SET_XX (1 << 1)      /* Set only if the key exists. */
#define STR_SET_GET (1 << 2)     /* Reply with the old value. */
#define STR_SET_IFEQ (1 << 3)    /* Set only if the current value equals an argument. */
#define STR_KEEPTTL (1 << 4)     /* Keep the existing TTL. */
#define STR_PERSIST (1 << 5)     /* GETEX: remove the TTL. */
#define STR_EX (1 << 6)          /* Relative seconds. */
#define STR_PX (1 << 7)          /* Relative milliseconds. */
#define STR_EXAT (1 << 8)        /* Absolute unix seconds. */
#define STR_PXAT (1 << 9)        /* Absolute unix milliseconds. */
#define STR_ANY_EXPIRE (STR_EX | STR_PX | STR_EXAT | STR_PXAT)

#define STR_CMD_SET 0
#define STR_CMD_GETEX 1

/* Parses the trailing options of SET (from argv[3]) or GETEX (from
 * argv[2]). An option is rejected when it conflicts with a *different*
 * option already seen; repeating the same one is accepted (the last value
 * wins), as Valkey does. On success fills the out parameters and returns
 * C_OK; otherwise replies "syntax error" and returns C_ERR. */
static int parseStringOptionsOrReply(client *c, int first, int cmdtype, int *flags, robj **expire, int *unit,
                                     robj **ifeq) {
    for (int j = first; j < c->argc; j++) {
        const char *opt = objectGetVal(c->argv[j]);
        int has_next = j + 1 < c->argc;
        int f = *flags;

        if (cmdtype == STR_CMD_SET && !strcasecmp(opt, "nx") && !(f & (STR_SET_XX | STR_SET_IFEQ))) {
            *flags |= STR_SET_NX;
        } else if (cmdtype == STR_CMD_SET && !strcasecmp(opt, "xx") && !(f & (STR_SET_NX | STR_SET_IFEQ))) {
            *flags |= STR_SET_XX;
        } else if (cmdtype == STR_CMD_SET && !strcasecmp(opt, "ifeq") && has_next &&
                   !(f & (STR_SET_NX | STR_SET_XX))) {
            *flags |= STR_SET_IFEQ;
            *ifeq = c->argv[++j];
        } else if (cmdtype == STR_CMD_SET && !strcasecmp(opt, "get")) {
            *flags |= STR_SET_GET;
        } else if (cmdtype == STR_CMD_SET && !strcasecmp(opt, "keepttl") && !(f & STR_ANY_EXPIRE)) {
            *flags |= STR_KEEPTTL;
        } else if (cmdtype == STR_CMD_GETEX && !strcasecmp(opt, "persist") && !(f & STR_ANY_EXPIRE)) {
            *flags |= STR_PERSIST;
        } else {
            /* The four expire options: each excludes the other three and
             * KEEPTTL/PERSIST. */
            int bit = 0, u = UNIT_SECONDS;
            if (!strcasecmp(opt, "ex")) bit = STR_EX;
            else if (!strcasecmp(opt, "px")) bit = STR_PX, u = UNIT_MILLISECONDS;
            else if (!strcasecmp(opt, "exat")) bit = STR_EXAT;
            else if (!strcasecmp(opt, "pxat")) bit = STR_PXAT, u = UNIT_MILLISECONDS;
            if (bit == 0 || !has_next || (f & (STR_KEEPTTL | STR_PERSIST | (STR_ANY_EXPIRE & ~bit)))) {
                addReplyErrorObject(c, shared.syntaxerr);
                return C_ERR;
            }
            *flags |= bit;
            *unit = u;
            *expire = c->argv[++j];
        }
    }
    return C_OK;
}

/* Turns an EX/PX/EXAT/PXAT argument into an absolute unix time in ms.
 * Replies and returns C_ERR for a non-integer, a non-positive value or one
 * that overflows once converted. */
static int getExpireMillisecondsOrReply(client *c, robj *expire, int flags, int unit, long long *when) {
    long long v;
    if (getLongLongFromObjectOrReply(c, expire, &v, NULL) != C_OK) return C_ERR;
    if (v <= 0 || (unit == UNIT_SECONDS && v > LLONG_MAX / 1000)) goto invalid;
    if (unit == UNIT_SECONDS) v *= 1000;
    if (flags & (STR_EX | STR_PX)) {
        long long now = commandTimeSnapshot();
        if (v > LLONG_MAX - now) goto invalid;
        v += now;
    }
    *when = v;
    return C_OK;

invalid:
    addReplyErrorExpireTime(c);
    return C_ERR;
}

/* Replies with the string value of argv[1], or null if it does not exist.
 * Returns C_ERR (after replying WRONGTYPE) if the key holds another type,
 * else C_OK. Shared by GET, GETSET and SET ... GET. */
int getGenericCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.null[c->resp]);
    if (o == NULL) return C_OK;
    if (o->type != OBJ_STRING) {
        addReplyErrorObject(c, shared.wrongtypeerr);
        return C_ERR;
    }
    addReplyBulk(c, o);
    return C_OK;
}

/* The body of SET, SETNX, SETEX and PSETEX. `val` must already be
 * re-encoded; the keyspace takes its own reference. ok_reply/abort_reply
 * default to +OK and null. */
static void setGenericCommand(client *c, int flags, robj *key, robj *val, robj *expire, int unit, robj *ifeq,
                              robj *ok_reply, robj *abort_reply) {
    long long when = 0;

    if (expire && getExpireMillisecondsOrReply(c, expire, flags, unit, &when) != C_OK) return;
    if ((flags & STR_SET_GET) && getGenericCommand(c) == C_ERR) return;

    /* The position lets setKeyAtPosition() skip hashing the key again;
     * nothing below touches the keyspace before it. */
    dbKeyPosition pos;
    robj *cur = lookupKeyWriteWithPosition(c->db, key, &pos);
    int abort = 0;
    if (flags & STR_SET_NX) {
        abort = cur != NULL;
    } else if (flags & STR_SET_XX) {
        abort = cur == NULL;
    } else if (flags & STR_SET_IFEQ) {
        if (checkType(c, cur, OBJ_STRING)) return; /* (GET already checked it.) */
        abort = cur == NULL || !equalStringObjects(cur, ifeq);
    }
    if (abort) {
        /* With GET the old value has been sent already. */
        if (!(flags & STR_SET_GET)) addReply(c, abort_reply ? abort_reply : shared.null[c->resp]);
        return;
    }

    /* val is one of c->argv: a RAW one is taken by the keyspace (its bytes
     * move rather than being copied), and the argument becomes the stored
     * object once the TTL is set too (a new key gets its expire slot at
     * once; an existing one may move, cheaply while it is the keyspace's
     * alone). */
    int taken = setKeyTakesArg(val);
    int setkey_flags = SETKEY_MOVE_ARG | ((flags & STR_KEEPTTL) ? SETKEY_KEEPTTL : 0);
    robj *stored = expire ? setKeyWithExpireAtPosition(c, c->db, key, val, setkey_flags, &pos, when)
                          : setKeyAtPosition(c, c->db, key, val, setkey_flags, &pos);
    server.dirty++;
    notifyKeyspaceEvent(NOTIFY_STRING, "set", key, c->db->id);
    if (expire) notifyKeyspaceEvent(NOTIFY_GENERIC, "expire", key, c->db->id);
    if (taken) {
        clientArgvReplaceObject(c, val, stored);
        val = stored;
    }
    if (!(flags & STR_SET_GET)) addReply(c, ok_reply ? ok_reply : shared.ok);
    /* Propagated with the absolute deadline chosen here (SETEX, PSETEX
     * and SET EX/PX/EXAT alike): "SET key value PXAT ms". Last, as the
     * reply above may still use the old vector's objects. */
    if (expire && !(flags & STR_PXAT)) {
        robj *pxat = createStringObject("PXAT", 4);
        robj *ms = createStringObjectFromLongLong(when);
        rewriteClientCommandVector(c, 5, shared.set, key, val, pxat, ms);
        decrRefCount(pxat);
        decrRefCount(ms);
    }
}

/* SET key value [NX | XX | IFEQ cmp] [GET] [EX s | PX ms | EXAT ts | PXAT ms-ts | KEEPTTL] */
void setCommand(client *c) {
    int flags = 0, unit = UNIT_SECONDS;
    robj *expire = NULL, *ifeq = NULL;

    if (c->argc > 3 && parseStringOptionsOrReply(c, 3, STR_CMD_SET, &flags, &expire, &unit, &ifeq) != C_OK) return;
    c->argv[2] = tryObjectEncoding(c->argv[2]);
    setGenericCommand(c, flags, c->argv[1], c->argv[2], expire, unit, ifeq, NULL, NULL);
}

/* SETNX key value: 1 if set, 0 if the key existed. */
void setnxCommand(client *c) {
    c->argv[2] = tryObjectEncoding(c->argv[2]);
    setGenericCommand(c, STR_SET_NX, c->argv[1], c->argv[2], NULL, 0, NULL, shared.cone, shared.czero);
}

/* SETEX key seconds value */
void setexCommand(client *c) {
    c->argv[3] = tryObjectEncoding(c->argv[3]);
    setGenericCommand(c, STR_EX, c->argv[1], c->argv[3], c->argv[2], UNIT_SECONDS, NULL, NULL, NULL);
}

/* PSETEX key milliseconds value */
void psetexCommand(client *c) {
    c->argv[3] = tryObjectEncoding(c->argv[3]);
    setGenericCommand(c, STR_PX, c->argv[1], c->argv[3], c->argv[2], UNIT_MILLISECONDS, NULL, NULL, NULL);
}

/* GET key */
void getCommand(client *c) {
    getGenericCommand(c);
}

/* GETSET key value: replies with the old value and sets the new one,
 * dropping any TTL. */
void getsetCommand(client *c) {
    if (getGenericCommand(c) == C_ERR) return;
    c->argv[2] = tryObjectEncoding(c->argv[2]);
    robj *val = c->argv[2];
    int taken = setKeyTakesArg(val);
    robj *stored = setKey(c, c->db, c->argv[1], val, SETKEY_MOVE_ARG);
    if (taken) clientArgvReplaceObject(c, val, stored);
    notifyKeyspaceEvent(NOTIFY_STRING, "set", c->argv[1], c->db->id);
    server.dirty++;
    rewriteClientCommandArgument(c, 0, shared.set); /* propagated as SET, as Valkey does */
}

/* GETDEL key: replies with the value and deletes the key. */
void getdelCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.null[c->resp]);
    if (o == NULL || checkType(c, o, OBJ_STRING)) return;
    addReplyBulk(c, o); /* Before the delete: it may free o. */
    dbSyncDelete(c->db, c->argv[1]);
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_GENERIC, "del", c->argv[1], c->db->id);
    server.dirty++;
    rewriteClientCommandVector(c, 2, shared.del, c->argv[1]);
}

/* GETEX key [EX s | PX ms | EXAT ts | PXAT ms-ts | PERSIST]
 * Replies with the value and changes its TTL. An absolute time already in
 * the past deletes the key (after replying with the value). */
void getexCommand(client *c) {
    int flags = 0, unit = UNIT_SECONDS;
    robj *expire = NULL, *unused = NULL;
    long long when = 0;

    if (parseStringOptionsOrReply(c, 2, STR_CMD_GETEX, &flags, &expire, &unit, &unused) != C_OK) return;
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.null[c->resp]);
    if (o == NULL || checkType(c, o, OBJ_STRING)) return;
    /* Valkey validates the time only once it knows the key is a string. */
    if (expire && getExpireMillisecondsOrReply(c, expire, flags, unit, &when) != C_OK) return;

    addReplyBulk(c, o);
    if (expire && checkAlreadyExpired(when)) {
        /* Deleted as an expiry is, lazily with lazyfree-lazy-expire. */
        int lazy = server.lazyfree_lazy_expire;
        dbGenericDelete(c->db, c->argv[1], lazy, 0);
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "del", c->argv[1], c->db->id);
        server.dirty++;
        rewriteClientCommandVector(c, 2, lazy ? shared.unlink : shared.del, c->argv[1]);
    } else if (expire) {
        setExpire(c, c->db, c->argv[1], when);
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "expire", c->argv[1], c->db->id);
        server.dirty++;
        robj *ms = createStringObjectFromLongLong(when);
        rewriteClientCommandVector(c, 3, shared.pexpireat, c->argv[1], ms);
        decrRefCount(ms);
    } else if ((flags & STR_PERSIST) && removeExpire(c->db, c->argv[1])) {
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "persist", c->argv[1], c->db->id);
        server.dirty++;
        rewriteClientCommandVector(c, 2, shared.persist, c->argv[1]);
    }
}

/* MGET key [key ...]: null for missing keys and for non-strings. */
void mgetCommand(client *c) {
    addReplyArrayLen(c, c->argc - 1);
    for (int j = 1; j < c->argc; j++) {
        robj *o = lookupKeyRead(c->db, c->argv[j]);
        if (o == NULL || o->type != OBJ_STRING) addReplyNull(c);
        else addReplyBulk(c, o);
    }
}

/* MSET / MSETNX: with nx, nothing is written if any key exists. */
static void msetGenericCommand(client *c, int nx) {
    if ((c->argc % 2) == 0) {
        addReplyErrorArity(c);
        return;
    }
    if (nx) {
        for (int j = 1; j < c->argc; j += 2) {
            if (lookupKeyWrite(c->db, c->argv[j]) != NULL) {
                addReply(c, shared.czero);
                return;
            }
        }
    }
    int setkey_flags = nx ? SETKEY_DOESNT_EXIST : 0;
    for (int j = 1; j < c->argc; j += 2) {
        c->argv[j + 1] = tryObjectEncoding(c->argv[j + 1]);
        robj *val = c->argv[j + 1];
        int taken = setKeyTakesArg(val);
        robj *stored = setKey(c, c->db, c->argv[j], val, setkey_flags | SETKEY_MOVE_ARG);
        if (taken) clientArgvReplaceObject(c, val, stored);
        notifyKeyspaceEvent(NOTIFY_STRING, "set", c->argv[j], c->db->id);
        /* MSETNX with a repeated key: the second write must overwrite. */
        setkey_flags = 0;
    }
    server.dirty += (c->argc - 1) / 2;
    addReply(c, nx ? shared.cone : shared.ok);
}

void msetCommand(client *c) {
    msetGenericCommand(c, 0);
}

void msetnxCommand(client *c) {
    msetGenericCommand(c, 1);
}

/* ---------------------------------------------------------------------------
 * Counters
 * ------------------------------------------------------------------------- */

/* Adds incr to the integer stored at argv[1] (missing = 0) and replies with
 * the result. An unshared INT-encoded value outside the shared-integer
 * range is updated in place, so INCR on a counter allocates nothing. */
static void incrDecrCommand(client *c, long long incr) {
    long long value;
    dbKeyPosition pos; /* nothing touches the keyspace before the add */
    robj *o = lookupKeyWriteWithPosition(c->db, c->argv[1], &pos);
    if (checkType(c, o, OBJ_STRING)) return;
    if (getLongLongFromObjectOrReply(c, o, &value, NULL) != C_OK) return;

    if ((incr < 0 && value < LLONG_MIN - incr) || (incr > 0 && value > LLONG_MAX - incr)) {
        addReplyError(c, "increment or decrement would overflow");
        return;
    }
    value += incr;

    /* A keyspace value is never shared (it carries its key): an integer
     * one is updated in place, whatever the value. */
    if (o && o->refcount == 1 && o->encoding == OBJ_ENCODING_INT && value >= LONG_MIN && value <= LONG_MAX) {
        objectSetVal(o, (void *)((long)value));
    } else {
        robj *n = createStringObjectFromLongLongForValue(value);
        if (o) dbOverwrite(c->db, c->argv[1], &n);
        else if (pos.can_insert) dbAddAtPosition(c->db, c->argv[1], &n, &pos.insert);
        else dbAdd(c->db, c->argv[1], &n);
    }
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_STRING, "incrby", c->argv[1], c->db->id);
    server.dirty++;
    addReplyLongLong(c, value);
}

void incrCommand(client *c) {
    incrDecrCommand(c, 1);
}

void decrCommand(client *c) {
    incrDecrCommand(c, -1);
}

void incrbyCommand(client *c) {
    long long incr;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &incr, NULL) != C_OK) return;
    incrDecrCommand(c, incr);
}

void decrbyCommand(client *c) {
    long long incr;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &incr, NULL) != C_OK) return;
    /* -LLONG_MIN does not exist. */
    if (incr == LLONG_MIN) {
        addReplyError(c, "decrement would overflow");
        return;
    }
    incrDecrCommand(c, -incr);
}

/* INCRBYFLOAT key increment: long double arithmetic, the result stored
 * (and replied) in the human-friendly form, e.g. "10.5", never "1.05e1". */
void incrbyfloatCommand(client *c) {
    long double value, incr;
    robj *o = lookupKeyWrite(c->db, c->argv[1]);
    if (checkType(c, o, OBJ_STRING)) return;
    if (getLongDoubleFromObjectOrReply(c, o, &value, NULL) != C_OK ||
        getLongDoubleFromObjectOrReply(c, c->argv[2], &incr, NULL) != C_OK)
        return;

    value += incr;
    if (isnan(value) || isinf(value)) {
        addReplyError(c, "increment would produce NaN or Infinity");
        return;
    }
    robj *n = createStringObjectFromLongDouble(value, 1);
    if (o) dbOverwrite(c->db, c->argv[1], &n);
    else dbAdd(c->db, c->argv[1], &n);
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_STRING, "incrbyfloat", c->argv[1], c->db->id);
    server.dirty++;
    addReplyBulk(c, n);
    /* Replayed as the value itself, keeping the TTL. */
    rewriteClientCommandVector(c, 4, shared.set, c->argv[1], n, shared.keepttl);
}

/* ---------------------------------------------------------------------------
 * Lengths and ranges
 * ------------------------------------------------------------------------- */

/* APPEND key value: creates the key if missing; replies the new length. */
void appendCommand(client *c) {
    size_t totlen;
    robj *o = lookupKeyWrite(c->db, c->argv[1]);

    if (o == NULL) {
        c->argv[2] = tryObjectEncoding(c->argv[2]);
        robj *v = c->argv[2];
        incrRefCount(v); /* argv keeps its own: the keyspace stores a copy */
        dbAdd(c->db, c->argv[1], &v);
        totlen = stringObjectLen(v);
    } else {
        if (checkType(c, o, OBJ_STRING)) return;
        robj *append = c->argv[2];
        char buf[LONG_STR_SIZE];
        size_t alen;
        const char *aptr = stringObjectBytes(append, buf, &alen);
        if (checkStringLength(c, stringObjectLen(o), alen) != C_OK) return;
        o = dbUnshareStringValue(c->db, c->argv[1], o);
        objectSetVal(o, sdscatlen(objectGetVal(o), aptr, alen));
        totlen = sdslen(objectGetVal(o));
    }
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_STRING, "append", c->argv[1], c->db->id);
    server.dirty++;
    addReplyLongLong(c, totlen);
}

/* STRLEN key: 0 for a missing key. */
void strlenCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (o == NULL || checkType(c, o, OBJ_STRING)) return;
    addReplyLongLong(c, stringObjectLen(o));
}

/* GETRANGE key start end (and its old name SUBSTR). Both ends inclusive,
 * negative offsets count from the end, out-of-range ends are clamped.
 * Missing keys give an empty string. */
void getrangeCommand(client *c) {
    long long start, end;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &start, NULL) != C_OK ||
        getLongLongFromObjectOrReply(c, c->argv[3], &end, NULL) != C_OK)
        return;
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.emptybulk);
    if (o == NULL || checkType(c, o, OBJ_STRING)) return;

    char buf[LONG_STR_SIZE];
    size_t len;
    const char *s = stringObjectBytes(o, buf, &len);
    long long slen = (long long)len;

    /* Both negative with start after end: empty even though clamping
     * would turn them into the first byte. */
    if (start < 0 && end < 0 && start > end) {
        addReply(c, shared.emptybulk);
        return;
    }
    if (start < 0) start += slen;
    if (end < 0) end += slen;
    if (start < 0) start = 0;
    if (end < 0) end = 0;
    if (end >= slen) end = slen - 1;
    if (slen == 0 || start > end) {
        addReply(c, shared.emptybulk);
        return;
    }
    addReplyBulkCBuffer(c, s + start, end - start + 1);
}

/* SETRANGE key offset value: overwrites from offset, zero-padding the gap.
 * An empty value changes nothing (and creates no key); the reply is the
 * resulting length. */
void setrangeCommand(client *c) {
    long offset;
    size_t vlen;
    char buf[LONG_STR_SIZE];
    const char *vptr = stringObjectBytes(c->argv[3], buf, &vlen);

    if (getLongFromObjectOrReply(c, c->argv[2], &offset, NULL) != C_OK) return;
    if (offset < 0) {
        addReplyError(c, "offset is out of range");
        return;
    }

    robj *o = lookupKeyWrite(c->db, c->argv[1]);
    if (o == NULL) {
        if (vlen == 0) {
            addReply(c, shared.czero);
            return;
        }
        if (checkStringLength(c, offset, vlen) != C_OK) return;
        o = createObject(OBJ_STRING, sdsnewlen(NULL, offset + vlen));
        dbAdd(c->db, c->argv[1], &o);
    } else {
        if (checkType(c, o, OBJ_STRING)) return;
        size_t olen = stringObjectLen(o);
        if (vlen == 0) {
            addReplyLongLong(c, olen);
            return;
        }
        if (checkStringLength(c, offset, vlen) != C_OK) return;
        o = dbUnshareStringValue(c->db, c->argv[1], o);
        objectSetVal(o, sdsgrowzero(objectGetVal(o), offset + vlen));
    }
    memcpy((char *)objectGetVal(o) + offset, vptr, vlen);
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_STRING, "setrange", c->argv[1], c->db->id);
    server.dirty++;
    addReplyLongLong(c, sdslen(objectGetVal(o)));
}

/* ---------------------------------------------------------------------------
 * LCS
 * ------------------------------------------------------------------------- */

/* One matching run found while walking the LCS table backwards. */
typedef struct lcsRange {
    uint32_t a_start, a_end, b_start, b_end;
} lcsRange;

static void lcsReplyRange(client *c, lcsRange *r, int withmatchlen) {
    addReplyArrayLen(c, withmatchlen ? 3 : 2);
    addReplyArrayLen(c, 2);
    addReplyLongLong(c, r->a_start);
    addReplyLongLong(c, r->a_end);
    addReplyArrayLen(c, 2);
    addReplyLongLong(c, r->b_start);
    addReplyLongLong(c, r->b_end);
    if (withmatchlen) addReplyLongLong(c, r->a_end - r->a_start + 1);
}

/* LCS key1 key2 [LEN] [IDX] [MINMATCHLEN n] [WITHMATCHLEN]
 * Classic O(N*M) dynamic programming. Missing keys count as empty strings.
 * IDX reports the matching runs from the end of the strings backwards. */
void lcsCommand(client *c) {
    int getlen = 0, getidx = 0, withmatchlen = 0;
    long long minmatchlen = 0;
    robj *oa, *ob;

    /* Valkey checks the key types before the options. */
    oa = lookupKeyRead(c->db, c->argv[1]);
    ob = lookupKeyRead(c->db, c->argv[2]);
    if ((oa && oa->type != OBJ_STRING) || (ob && ob->type != OBJ_STRING)) {
        addReplyError(c, "The specified keys must contain string values");
        return;
    }
    for (int j = 3; j < c->argc; j++) {
        const char *opt = objectGetVal(c->argv[j]);
        if (!strcasecmp(opt, "idx")) {
            getidx = 1;
        } else if (!strcasecmp(opt, "len")) {
            getlen = 1;
        } else if (!strcasecmp(opt, "withmatchlen")) {
            withmatchlen = 1;
        } else if (!strcasecmp(opt, "minmatchlen") && j + 1 < c->argc) {
            if (getLongLongFromObjectOrReply(c, c->argv[++j], &minmatchlen, NULL) != C_OK) return;
            if (minmatchlen < 0) minmatchlen = 0;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    if (getidx && getlen) {
        addReplyError(c, "If you want both the length and indexes, please just use IDX.");
        return;
    }

    char bufa[LONG_STR_SIZE], bufb[LONG_STR_SIZE];
    size_t alen = 0, blen = 0;
    const char *a = oa ? stringObjectBytes(oa, bufa, &alen) : "";
    const char *b = ob ? stringObjectBytes(ob, bufb, &blen) : "";

    if (alen >= UINT32_MAX - 1 || blen >= UINT32_MAX - 1) {
        addReplyError(c, "String too long for LCS");
        return;
    }
    unsigned long long cells = (unsigned long long)(alen + 1) * (blen + 1);
    if (cells > (unsigned long long)server.proto_max_bulk_len / sizeof(uint32_t) || cells > SIZE_MAX / sizeof(uint32_t)) {
        addReplyError(c, "Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len");
        return;
    }

    /* T[i][j] = LCS length of a[0..i) and b[0..j); row-major, width blen+1. */
    uint32_t *T = zmalloc(cells * sizeof(uint32_t));
    size_t w = blen + 1;
#define LCS_AT(i, j) T[(size_t)(i) * w + (j)]
    for (size_t j = 0; j <= blen; j++) LCS_AT(0, j) = 0;
    for (size_t i = 1; i <= alen; i++) {
        LCS_AT(i, 0) = 0;
        for (size_t j = 1; j <= blen; j++) {
            if (a[i - 1] == b[j - 1]) {
                LCS_AT(i, j) = LCS_AT(i - 1, j - 1) + 1;
            } else {
                uint32_t up = LCS_AT(i - 1, j), left = LCS_AT(i, j - 1);
                LCS_AT(i, j) = up > left ? up : left;
            }
        }
    }
    uint32_t lcslen = LCS_AT(alen, blen);

    if (getlen) {
        zfree(T);
        addReplyLongLong(c, lcslen);
        return;
    }

    /* Walk back from the bottom-right corner, collecting the common
     * characters (filled right to left) and, for IDX, the runs. */
    sds result = getidx ? NULL : sdsnewlen(SDS_NOINIT, lcslen);
    void *matches_len = NULL;
    long nmatches = 0;
    if (getidx) {
        addReplyMapLen(c, 2);
        addReplyBulkCString(c, "matches");
        matches_len = addReplyDeferredLen(c);
    }
    size_t i = alen, j = blen, idx = lcslen;
    int open = 0;
    lcsRange r = {0, 0, 0, 0};
    while (i > 0 && j > 0) {
        if (a[i - 1] == b[j - 1]) {
            if (result) result[idx - 1] = a[i - 1];
            idx--;
            if (open && r.a_start == i && r.b_start == j) {
                r.a_start = i - 1;
                r.b_start = j - 1;
            } else {
                if (open && getidx && r.a_end - r.a_start + 1 >= minmatchlen) {
                    lcsReplyRange(c, &r, withmatchlen);
                    nmatches++;
                }
                r.a_start = r.a_end = i - 1;
                r.b_start = r.b_end = j - 1;
                open = 1;
            }
            i--;
            j--;
        } else {
            if (open && getidx && r.a_end - r.a_start + 1 >= minmatchlen) {
                lcsReplyRange(c, &r, withmatchlen);
                nmatches++;
            }
            open = 0;
            if (LCS_AT(i - 1, j) > LCS_AT(i, j - 1)) i--;
            else j--;
        }
    }
    if (open && getidx && r.a_end - r.a_start + 1 >= minmatchlen) {
        lcsReplyRange(c, &r, withmatchlen);
        nmatches++;
    }
#undef LCS_AT
    zfree(T);

    if (getidx) {
        setDeferredArrayLen(c, matches_len, nmatches);
        addReplyBulkCString(c, "len");
        addReplyLongLong(c, lcslen);
    } else {
        addReplyBulkSds(c, result);
    }
}

/* ---------------------------------------------------------------------------
 * Command table
 * ------------------------------------------------------------------------- */

#define STR_WRITE (CMD_WRITE | CMD_DENYOOM)

struct serverCommand stringCommands[] = {
    {.name = "get", .proc = getCommand, .arity = 2, .flags = CMD_READONLY | CMD_FAST,
     .acl_categories = ACL_CATEGORY_STRING, .key = {1, 1, 1}, .group = "string", .since = "1.0.0",
     .summary = "Returns the string value of a key.", .complexity = "O(1)",
     .args = "key"},
    {.name = "set", .proc = setCommand, .arity = -3, .flags = STR_WRITE, .acl_categories = ACL_CATEGORY_STRING,
     .key = {1, 1, 1}, .group = "string", .since = "1.0.0",
     .summary = "Sets the string value of a key, ignoring its type. The key is created if it doesn't exist.",
     .complexity = "O(1)",
     .args = "key value [condition=[NX | XX]] [GET] [expiration=[EX seconds | PX milliseconds | EXAT "
             "unix-time-seconds | PXAT unix-time-milliseconds | KEEPTTL]]"},
    {.name = "setnx", .proc = setnxCommand, .arity = 3, .flags = STR_WRITE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_STRING, .key = {1, 1, 1}, .group = "string", .since = "1.0.0",
     .summary = "Set the string value of a key only when the key doesn't exist.", .complexity = "O(1)",
     .args = "key value"},
    {.name = "setex", .proc = setexCommand, .arity = 4, .flags = STR_WRITE, .acl_categories = ACL_CATEGORY_STRING,
     .key = {1, 1, 1}, .group = "string", .since = "2.0.0",
     .summary = "Sets the string value and expiration time of a key. Creates the key if it doesn't exist.",
     .complexity = "O(1)",
     .args = "key seconds value"},
    {.name = "psetex", .proc = psetexCommand, .arity = 4, .flags = STR_WRITE, .acl_categories = ACL_CATEGORY_STRING,
     .key = {1, 1, 1}, .group = "string", .since = "2.6.0",
     .summary = "Sets both string value and expiration time in milliseconds of a key. The key is created if it "
                "doesn't exist.",
     .complexity = "O(1)",
     .args = "key milliseconds value"},
    {.name = "getset", .proc = getsetCommand, .arity = 3, .flags = STR_WRITE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_STRING, .key = {1, 1, 1}, .group = "string", .since = "1.0.0",
     .summary = "Returns the previous string value of a key after setting it to a new value.",
     .complexity = "O(1)",
     .args = "key value"},
    {.name = "getdel", .proc = getdelCommand, .arity = 2, .flags = CMD_WRITE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_STRING, .key = {1, 1, 1}, .group = "string", .since = "6.2.0",
     .summary = "Returns the string value of a key after deleting the key.", .complexity = "O(1)",
     .args = "key"},
    {.name = "getex", .proc = getexCommand, .arity = -2, .flags = CMD_WRITE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_STRING, .key = {1, 1, 1}, .group = "string", .since = "6.2.0",
     .summary = "Returns the string value of a key after setting its expiration time.", .complexity = "O(1)",
     .args = "key [expiration=[EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | "
             "PERSIST]]"},
    {.name = "mget", .proc = mgetCommand, .arity = -2, .flags = CMD_READONLY | CMD_FAST,
     .acl_categories = ACL_CATEGORY_STRING, .key = {1, -1, 1}, .group = "string", .since = "1.0.0",
     .summary = "Atomically returns the string values of one or more keys.",
     .complexity = "O(N) where N is the number of keys to retrieve.",
     .args = "key [key ...]"},
    {.name = "mset", .proc = msetCommand, .arity = -3, .flags = STR_WRITE, .acl_categories = ACL_CATEGORY_STRING,
     .key = {1, -1, 2}, .group = "string", .since = "1.0.1",
     .summary = "Atomically creates or modifies the string values of one or more keys.",
     .complexity = "O(N) where N is the number of keys to set.",
     .args = "key value [key value ...]"},
    {.name = "msetnx", .proc = msetnxCommand, .arity = -3, .flags = STR_WRITE,
     .acl_categories = ACL_CATEGORY_STRING, .key = {1, -1, 2}, .group = "string", .since = "1.0.1",
     .summary = "Atomically modifies the string values of one or more keys only when all keys don't exist.",
     .complexity = "O(N) where N is the number of keys to set.",
     .args = "key value [key value ...]"},
    {.name = "incr", .proc = incrCommand, .arity = 2, .flags = STR_WRITE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_STRING, .key = {1, 1, 1}, .group = "string", .since = "1.0.0",
     .summary = "Increments the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.",
     .complexity = "O(1)",
     .args = "key"},
    {.name = "decr", .proc = decrCommand, .arity = 2, .flags = STR_WRITE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_STRING, .key = {1, 1, 1}, .group = "string", .since = "1.0.0",
     .summary = "Decrements the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.",
     .complexity = "O(1)",
     .args = "key"},
    {.name = "incrby", .proc = incrbyCommand, .arity = 3, .flags = STR_WRITE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_STRING, .key = {1, 1, 1}, .group = "string", .since = "1.0.0",
     .summary = "Increments the integer value of a key by a number. Uses 0 as initial value if the key doesn't "
                "exist.",
     .complexity = "O(1)",
     .args = "key increment"},
    {.name = "decrby", .proc = decrbyCommand, .arity = 3, .flags = STR_WRITE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_STRING, .key = {1, 1, 1}, .group = "string", .since = "1.0.0",
     .summary = "Decrements a number from the integer value of a key. Uses 0 as initial value if the key doesn't "
                "exist.",
     .complexity = "O(1)",
     .args = "key decrement"},
    {.name = "incrbyfloat", .proc = incrbyfloatCommand, .arity = 3, .flags = STR_WRITE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_STRING, .key = {1, 1, 1}, .group = "string", .since = "2.6.0",
     .summary = "Increment the floating point value of a key by a number. Uses 0 as initial value if the key "
                "doesn't exist.",
     .complexity = "O(1)",
     .args = "key increment:double"},
    {.name = "append", .proc = appendCommand, .arity = 3, .flags = STR_WRITE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_STRING, .key = {1, 1, 1}, .group = "string", .since = "2.0.0",
     .summary = "Appends a string to the value of a key. Creates the key if it doesn't exist.",
     .complexity = "O(1). The amortized time complexity is O(1) assuming the appended value is small and the "
                   "already present value is of any size, since the dynamic string library used by the server "
                   "will double the free space available on every reallocation.",
     .args = "key value"},
    {.name = "strlen", .proc = strlenCommand, .arity = 2, .flags = CMD_READONLY | CMD_FAST,
     .acl_categories = ACL_CATEGORY_STRING, .key = {1, 1, 1}, .group = "string", .since = "2.2.0",
     .summary = "Returns the length of a string value.", .complexity = "O(1)",
     .args = "key"},
    {.name = "getrange", .proc = getrangeCommand, .arity = 4, .flags = CMD_READONLY,
     .acl_categories = ACL_CATEGORY_STRING, .key = {1, 1, 1}, .group = "string", .since = "2.4.0",
     .summary = "Returns a substring of the string stored at a key.",
     .complexity = "O(N) where N is the length of the returned string.",
     .args = "key start end"},
    {.name = "substr", .proc = getrangeCommand, .arity = 4, .flags = CMD_READONLY,
     .acl_categories = ACL_CATEGORY_STRING, .key = {1, 1, 1}, .group = "string", .since = "1.0.0",
     .summary = "Returns a substring from a string value.",
     .complexity = "O(N) where N is the length of the returned string.",
     .args = "key start end"},
    {.name = "setrange", .proc = setrangeCommand, .arity = 4, .flags = STR_WRITE,
     .acl_categories = ACL_CATEGORY_STRING, .key = {1, 1, 1}, .group = "string", .since = "2.2.0",
     .summary = "Overwrites a part of a string value with another by an offset. Creates the key if it doesn't "
                "exist.",
     .complexity = "O(1), not counting the time taken to copy the new string in place.",
     .args = "key offset value"},
    {.name = "lcs", .proc = lcsCommand, .arity = -3, .flags = CMD_READONLY, .acl_categories = ACL_CATEGORY_STRING,
     .key = {1, 2, 1}, .group = "string", .since = "7.0.0", .summary = "Finds the longest common substring.",
     .complexity = "O(N*M) where N and M are the lengths of s1 and s2, respectively",
     .args = "key1:key key2:key [LEN] [IDX] [MINMATCHLEN min-match-len:integer] [WITHMATCHLEN]"},
    {0},
};
