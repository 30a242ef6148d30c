/* dump.c - DUMP and RESTORE (and RESTORE-ASKING), and the payload format
 * they share with FUNCTION DUMP/RESTORE.
 *
 * A payload is the value's RDB type byte and body (rdbSaveObjectType() and
 * rdbSaveObject(), exactly as in an RDB file), then the RDB version as two
 * little-endian bytes and a CRC-64 of everything before it as eight
 * little-endian bytes, byte for byte what Valkey and Redis produce, so
 * payloads move between the servers in both directions (as far as the
 * version check of the receiving side allows).
 *
 * RESTORE trusts nothing in a payload: the trailer is verified first, then
 * the value is decoded by the same validating readers as an RDB file
 * (rdbLoadObject()), and any failure, or bytes left over, is "Bad data
 * format" with the keyspace untouched. Commands run in the event loop. */
#include "dump.h"

#include "crc64.h"
#include "rdb.h"
#include "server.h"

#define DUMP_TRAILER_LEN 10 /* 2-byte version + 8-byte CRC-64 */

sds dumpPayloadSeal(sds body) {
    unsigned char trailer[DUMP_TRAILER_LEN];
    trailer[0] = RDB_VERSION & 0xff;
    trailer[1] = (RDB_VERSION >> 8) & 0xff;
    body = sdscatlen(body, trailer, 2);
    uint64_t crc = crc64(0, body, sdslen(body));
    for (int j = 0; j < 8; j++) trailer[2 + j] = (unsigned char)(crc >> (8 * j));
    return sdscatlen(body, trailer + 2, 8);
}

int dumpPayloadVerify(const unsigned char *p, size_t len, size_t *bodylen) {
    if (len < DUMP_TRAILER_LEN) return C_ERR;
    const unsigned char *trailer = p + len - DUMP_TRAILER_LEN;
    unsigned int version = trailer[0] | (trailer[1] << 8);
    if (version > RDB_VERSION_MAX_LOADABLE) return C_ERR;
    uint64_t crc = 0;
    for (int j = 7; j >= 0; j--) crc = (crc << 8) | trailer[2 + j];
    if (crc != crc64(0, p, len - 8)) return C_ERR;
    *bodylen = len - DUMP_TRAILER_LEN;
    return C_OK;
}

/* ---------------------------------------------------------------------------
 * DUMP
 * ------------------------------------------------------------------------- */

sds dumpCreatePayload(robj *o) {
    rio r;
    rioInitSdsWriter(&r);
    rdbSaveObjectType(&r, o); /* an sds writer does not fail */
    rdbSaveObject(&r, o);
    sds payload = dumpPayloadSeal(rioSdsTake(&r));
    rioRelease(&r);
    return payload;
}

/* DUMP key */
static void dumpCommand(client *c) {
    robj *o = lookupKeyRead(c->db, c->argv[1]);
    if (o == NULL) {
        addReplyNull(c);
        return;
    }
    addReplyBulkSds(c, dumpCreatePayload(o));
}

/* ---------------------------------------------------------------------------
 * RESTORE
 * ------------------------------------------------------------------------- */

/* RESTORE's options after the payload. */
typedef struct restoreOptions {
    int replace;          /* REPLACE */
    int absttl;           /* ABSTTL: ttl is a unix time in milliseconds */
    long long lru_idle;   /* IDLETIME seconds, -1 when not given */
    long long lfu_freq;   /* FREQ frequency, -1 when not given */
} restoreOptions;

/* Parses argv[4..]. Returns C_OK, or C_ERR after replying with the error.
 * IDLETIME and FREQ exclude each other (either is a syntax error after the
 * other), as in Valkey. */
static int restoreParseOptions(client *c, restoreOptions *opt) {
    *opt = (restoreOptions){.lru_idle = -1, .lfu_freq = -1};
    for (int j = 4; j < c->argc; j++) {
        const char *arg = objectGetVal(c->argv[j]);
        int more = c->argc - j - 1;
        if (!strcasecmp(arg, "replace")) {
            opt->replace = 1;
        } else if (!strcasecmp(arg, "absttl")) {
            opt->absttl = 1;
        } else if (!strcasecmp(arg, "idletime") && more >= 1 && opt->lfu_freq == -1) {
            if (getLongLongFromObjectOrReply(c, c->argv[++j], &opt->lru_idle, NULL) != C_OK) return C_ERR;
            if (opt->lru_idle < 0) {
                addReplyError(c, "Invalid IDLETIME value, must be >= 0");
                return C_ERR;
            }
        } else if (!strcasecmp(arg, "freq") && more >= 1 && opt->lru_idle == -1) {
            if (getLongLongFromObjectOrReply(c, c->argv[++j], &opt->lfu_freq, NULL) != C_OK) return C_ERR;
            if (opt->lfu_freq < 0 || opt->lfu_freq > 255) {
                addReplyError(c, "Invalid FREQ value, must be >= 0 and <= 255");
                return C_ERR;
            }
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return C_ERR;
        }
    }
    return C_OK;
}

/* See dump.h. */
robj *restoreDecodeValue(const unsigned char *body, size_t len) {
    rio r;
    int empty;
    rioInitMemReader(&r, body, len);
    int type = rdbLoadType(&r);
    if (type == -1) return NULL;
    robj *o = rdbLoadObject(&r, type, &empty);
    if (o && rioRemaining(&r) != 0) {
        decrRefCount(o);
        return NULL;
    }
    return o;
}

/* A RESTORE whose TTL is already in the past: the key ends up deleted (if
 * REPLACE removed an old value, that is a deletion to signal). */
static void restoreExpiredValue(client *c, robj *key, int deleted) {
    addReply(c, shared.ok);
    if (deleted) {
        signalModifiedKey(c, c->db, key);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "del", key, c->db->id);
        server.dirty++;
        /* Propagated as what it did. */
        rewriteClientCommandVector(c, 2, server.lazyfree_lazy_server_del ? shared.unlink : shared.del, key);
    }
}

/* RESTORE key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds]
 * [FREQ frequency] */
static void restoreCommand(client *c) {
    robj *key = c->argv[1];
    restoreOptions opt;
    long long ttl;
    size_t bodylen;
    if (restoreParseOptions(c, &opt) != C_OK) return;
    if (!opt.replace && lookupKeyWrite(c->db, key) != NULL) {
        addReplyErrorObject(c, shared.busykeyerr);
        return;
    }
    if (getLongLongFromObjectOrReply(c, c->argv[2], &ttl, NULL) != C_OK) return;
    if (ttl < 0) {
        addReplyError(c, "Invalid TTL value, must be >= 0");
        return;
    }
    robj *payload = c->argv[3];
    if (!sdsEncodedObject(payload) || dumpPayloadVerify((unsigned char *)objectGetVal(payload), sdslen(objectGetVal(payload)), &bodylen) != C_OK) {
        addReplyError(c, "DUMP payload version or checksum are wrong");
        return;
    }
    robj *val = restoreDecodeValue((unsigned char *)objectGetVal(payload), bodylen);
    if (val == NULL) {
        addReplyError(c, "Bad data format");
        return;
    }
    int deleted = opt.replace ? dbDelete(c->db, key) : 0;
    if (ttl && !opt.absttl) ttl += commandTimeSnapshot();
    if (ttl && checkAlreadyExpired(ttl)) {
        decrRefCount(val);
        restoreExpiredValue(c, key, deleted);
        return;
    }
    dbAdd(c->db, key, &val);
    if (ttl) val = setExpire(c, c->db, key, ttl);
    objectSetLRUOrLFU(val, opt.lfu_freq, opt.lru_idle, LRU_CLOCK(), 1000);
    signalModifiedKey(c, c->db, key);
    notifyKeyspaceEvent(NOTIFY_GENERIC, "restore", key, c->db->id);
    addReply(c, shared.ok);
    server.dirty++;
    /* A relative TTL is propagated as the absolute one chosen here. */
    if (ttl && !opt.absttl) {
        robj *abs = createStringObjectFromLongLong(ttl);
        rewriteClientCommandArgument(c, 2, abs);
        decrRefCount(abs);
        rewriteClientCommandArgument(c, c->argc, shared.absttl);
    }
}

/* ---------------------------------------------------------------------------
 * Command table
 * ------------------------------------------------------------------------- */

#define RESTORE_COMPLEXITY                                                                                      \
    "O(1) to create the new key and additional O(N*M) to reconstruct the serialized value, where N is the number " \
    "of Valkey objects composing the value and M their average size. For small string values the time "          \
    "complexity is thus O(1)+O(1*M) where M is small, so simply O(1). However for sorted set values the "          \
    "complexity is O(N*M*log(N)) because inserting values into sorted sets is O(log(N))."
#define RESTORE_ARGS "key ttl:integer serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency:integer]"

struct serverCommand dumpCommands[] = {
    {.name = "dump", .proc = dumpCommand, .arity = 2, .flags = CMD_READONLY, .acl_categories = ACL_CATEGORY_KEYSPACE,
     .key = {1, 1, 1}, .group = "generic", .since = "2.6.0",
     .summary = "Returns a serialized representation of the value stored at a key.",
     .complexity = "O(1) to access the key and additional O(N*M) to serialize it, where N is the number of Valkey "
                   "objects composing the value and M their average size. For small string values the time "
                   "complexity is thus O(1)+O(1*M) where M is small, so simply O(1).",
     .args = "key"},
    {.name = "restore", .proc = restoreCommand, .arity = -4, .flags = CMD_WRITE | CMD_DENYOOM,
     .acl_categories = ACL_CATEGORY_KEYSPACE | ACL_CATEGORY_DANGEROUS, .key = {1, 1, 1}, .group = "generic",
     .since = "2.6.0", .summary = "Creates a key from the serialized representation of a value.",
     .complexity = RESTORE_COMPLEXITY,
     .args = RESTORE_ARGS},
    {.name = "restore-asking", .proc = restoreCommand, .arity = -4, .flags = CMD_WRITE | CMD_DENYOOM | CMD_ASKING,
     .acl_categories = ACL_CATEGORY_KEYSPACE | ACL_CATEGORY_DANGEROUS, .key = {1, 1, 1}, .group = "server",
     .since = "3.0.0", .summary = "An internal command for migrating keys in a cluster.",
     .complexity = RESTORE_COMPLEXITY,
     .args = RESTORE_ARGS},
    {.name = NULL},
};
