/* debug.c - the DEBUG command, dataset digests, and the crash report.
 *
 * DEBUG is a grab bag of tools for tests and for people chasing bugs: it
 * can block the server (SLEEP), describe an object (OBJECT, SDSLEN),
 * fingerprint the dataset (DIGEST, DIGEST-VALUE) so that a primary and its
 * replica can be compared, save and load the dataset back (RELOAD, whose
 * work is in snapshot.c), emit every RESP type (PROTOCOL), fill a database
 * (POPULATE), read and tune jemalloc (MALLCTL, MALLCTL-STR), drive the
 * active defragmenter (DEFRAG-MOVE-ALL) and crash on purpose (SEGFAULT,
 * PANIC, ASSERT) so that the crash report itself can be tested. It is a protected command: whether a
 * client may run it is decided by debugCommandAllowed(), which
 * processCommand() (server.c) consults for enable-debug-command.
 *
 * Digests: a key's digest mixes its name, its value and its expire time;
 * the dataset digest XORs all key digests, so it does not depend on the
 * order in which keys are stored, and is all zeros for an empty dataset.
 * String values are digested here; other types through
 * objectMethods[type].digest, which each t_*.c file provides.
 *
 * Crash report: setupSigSegvAction() installs handlers for the fatal
 * signals. On a crash, an assertion (serverAssert) or a panic (serverPanic)
 * the log receives a report between the START/END banners: what happened,
 * a backtrace, the INFO output, the client list and the client being
 * served. The process then dies of the original signal (or SIGABRT for
 * asserts and panics), so the exit status still tells what happened.
 *
 * Software watchdog (watchdog-period, a hidden option, 0 = off): every
 * serverCron() re-arms a one-shot SIGALRM timer one period ahead, so the
 * signal only fires when the event loop has not come back to the cron for
 * that long (a slow command, a stuck system call). Its handler logs
 * "--- WATCHDOG TIMER EXPIRED ---" and where the main thread is (the same
 * stack trace as a crash report), and returns: the server goes on. A
 * SIGALRM sent by hand (kill -ALRM) logs "Received SIGALRM" and the trace.
 * As in Valkey. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* REG_RIP and friends in <ucontext.h>. */
#endif
#include "server.h"

#include "aof.h"
#include "defrag.h"

#include <errno.h>
#include <jemalloc/jemalloc.h>
#include <execinfo.h>
#include <signal.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <ucontext.h>
#include <unistd.h>

#include "repl_rdma.h"
#include "quicklist.h"
#include "rdb.h"
#include "sha1.h"
#include "snapshot.h"

sds genValkeyInfoString(dict *section_dict, int all_sections, int everything);

/* ---------------------------------------------------------------------------
 * Digests
 * ------------------------------------------------------------------------- */

/* XORs SHA1(ptr, len) into digest (20 bytes). Order independent: used to
 * combine things whose order does not matter (members of a set...). */
void xorDigest(unsigned char *digest, const void *ptr, size_t len) {
    unsigned char hash[SHA1_DIGEST_LEN];
    sha1Buffer(hash, ptr, len);
    for (int j = 0; j < SHA1_DIGEST_LEN; j++) digest[j] ^= hash[j];
}

/* Folds ptr into digest so that the result depends on the order of calls:
 * digest = SHA1(digest XOR SHA1(ptr)). Used for sequences (list elements,
 * field then value...). */
void mixDigest(unsigned char *digest, const void *ptr, size_t len) {
    xorDigest(digest, ptr, len);
    sha1Buffer(digest, digest, SHA1_DIGEST_LEN);
}

/* Mixes a string object, whatever its encoding. */
static void mixStringObjectDigest(unsigned char *digest, robj *o) {
    if (sdsEncodedObject(o)) {
        mixDigest(digest, objectGetVal(o), sdslen(objectGetVal(o)));
    } else {
        char buf[LONG_STR_SIZE];
        int len = ll2string(buf, sizeof(buf), (long)objectGetVal(o));
        mixDigest(digest, buf, len);
    }
}

/* Digest of a value alone, written to digest (20 bytes, overwritten). */
static void digestValue(unsigned char *digest, robj *o) {
    memset(digest, 0, SHA1_DIGEST_LEN);
    if (o->type == OBJ_STRING) {
        mixStringObjectDigest(digest, o);
    } else if (o->type < OBJ_TYPE_MAX && objectMethods[o->type].digest) {
        objectMethods[o->type].digest(o, digest);
    } else {
        /* A type without a digest method: only its type is known. */
        char *name = getObjectTypeName(o);
        mixDigest(digest, name, strlen(name));
    }
}

/* Digest of one key: name, type, value and expire time. */
static void digestKey(unsigned char *digest, serverDb *db, sds key, robj *val) {
    unsigned char valdigest[SHA1_DIGEST_LEN];
    memset(digest, 0, SHA1_DIGEST_LEN);
    mixDigest(digest, key, sdslen(key));
    unsigned char type = (unsigned char)val->type;
    mixDigest(digest, &type, 1);
    digestValue(valdigest, val);
    mixDigest(digest, valdigest, SHA1_DIGEST_LEN);
    (void)db;
    long long expire = objectGetExpire(val);
    if (expire != -1) {
        char buf[LONG_STR_SIZE + 8];
        int len = snprintf(buf, sizeof(buf), "!ttl%lld", expire);
        mixDigest(digest, buf, len);
    }
}

/* Fingerprint of every database; all zeros when there are no keys. */
static void computeDatasetDigest(unsigned char *final) {
    memset(final, 0, SHA1_DIGEST_LEN);
    for (int j = 0; j < server.dbnum; j++) {
        serverDb *db = &server.db[j];
        if (kvstoreSize(db->keys) == 0) continue;
        /* The database number is part of every key's identity. */
        unsigned char dbdigest[SHA1_DIGEST_LEN];
        memset(dbdigest, 0, sizeof(dbdigest));
        kvstoreIterator iter;
        kvstoreIteratorInit(&iter, db->keys, -1, 0);
        void *entry;
        while (kvstoreIteratorNext(&iter, &entry)) {
            unsigned char keydigest[SHA1_DIGEST_LEN];
            digestKey(keydigest, db, objectGetKey(entry), entry);
            for (int k = 0; k < SHA1_DIGEST_LEN; k++) dbdigest[k] ^= keydigest[k];
        }
        kvstoreIteratorReset(&iter);
        uint32_t dbid = (uint32_t)j;
        mixDigest(dbdigest, &dbid, sizeof(dbid));
        for (int k = 0; k < SHA1_DIGEST_LEN; k++) final[k] ^= dbdigest[k];
    }
}

/* ---------------------------------------------------------------------------
 * DEBUG subcommands
 * ------------------------------------------------------------------------- */

/* Returns 1 if c may run DEBUG under enable-debug-command: "yes" (1)
 * always, "local" (2) only from a local connection, "no" (0) never.
 * Called by processCommand() before DEBUG runs. */
int debugCommandAllowed(client *c) {
    if (server.enable_debug_cmd == 1) return 1;
    if (server.enable_debug_cmd == 2) return c->conn == NULL || connIsLocal(c->conn);
    return 0;
}

/* The bytes o's body takes in an RDB file or DUMP payload (without the
 * type byte, as Valkey counts): the real encoder into a writer that only
 * counts. */
static size_t serializedLength(robj *o) {
    rio r;
    rioInitNullWriter(&r);
    rdbSaveObject(&r, o);
    size_t len = r.processed_bytes;
    rioRelease(&r);
    return len;
}

/* DEBUG OBJECT's extra fields for a quicklist, as Valkey prints them:
 * nodes, average elements per node, the fill, whether compression is on
 * and the total size of the node listpacks before compression. */
static sds debugQuicklistFields(sds s, const quicklist *ql) {
    unsigned long raw = 0;
    for (const quicklistNode *n = ql->head; n; n = n->next) raw += n->sz;
    return sdscatprintf(s, " ql_nodes:%lu ql_avg_node:%.2f ql_listpack_max:%d ql_compressed:%d ql_uncompressed_size:%lu",
                        ql->len, ql->len ? (double)ql->count / ql->len : 0.0, ql->fill, ql->compress != 0, raw);
}

static void debugObject(client *c) {
    robj *o = lookupKeyReadWithFlags(c->db, c->argv[2], LOOKUP_NOTOUCH | LOOKUP_NONOTIFY | LOOKUP_NOSTATS);
    if (o == NULL) {
        addReplyErrorObject(c, shared.nokeyerr);
        return;
    }
    sds s = sdscatprintf(sdsempty(),
                         "Value at:%p refcount:%d encoding:%s serializedlength:%zu lru:%d lru_seconds_idle:%llu",
                         (void *)o, o->refcount, strEncoding(o->encoding), serializedLength(o), o->lru,
                         estimateObjectIdleTime(o) / 1000);
    if (o->encoding == OBJ_ENCODING_QUICKLIST) s = debugQuicklistFields(s, objectGetVal(o));
    addReplyStatusLength(c, s, sdslen(s));
    sdsfree(s);
}

static void debugSdslen(client *c) {
    robj *val = dbFind(c->db, objectGetVal(c->argv[2]));
    if (val == NULL) {
        addReplyErrorObject(c, shared.nokeyerr);
        return;
    }
    sds key = objectGetKey(val); /* embedded in val: no allocation of its own */
    if (val->type != OBJ_STRING || !sdsEncodedObject(val)) {
        addReplyError(c, "Not an sds encoded string.");
        return;
    }
    sds s = sdscatprintf(sdsempty(),
                         "key_sds_len:%lld, key_sds_avail:%lld, key_zmalloc: %lld, val_sds_len:%lld, "
                         "val_sds_avail:%lld, val_zmalloc: %lld",
                         (long long)sdslen(key), 0LL, (long long)zmalloc_size(val),
                         (long long)sdslen(objectGetVal(val)), (long long)sdsavail(objectGetVal(val)),
                         (long long)(val->encoding == OBJ_ENCODING_EMBSTR ? zmalloc_size(val)
                                                                           : sdsAllocSize(objectGetVal(val))));
    addReplyStatusLength(c, s, sdslen(s));
    sdsfree(s);
}

/* DEBUG SLEEP <seconds>: blocks the whole server; fractions allowed. */
static void debugSleep(client *c) {
    double secs = strtod(objectGetVal(c->argv[2]), NULL);
    long long us = (long long)(secs * 1000000);
    if (us > 0) {
        struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000};
        while (nanosleep(&ts, &ts) == -1) {
        }
    }
    addReply(c, shared.ok);
}

/* DEBUG POPULATE <count> [<prefix>] [<size>]: adds keys "<prefix>:<n>"
 * holding "value:<n>" (cut or zero-padded to size if given); existing keys
 * are left alone. */
static void debugPopulate(client *c) {
    long count, size = 0;
    if (getPositiveLongFromObjectOrReply(c, c->argv[2], &count, NULL) != C_OK) return;
    if (c->argc == 5 && getPositiveLongFromObjectOrReply(c, c->argv[4], &size, NULL) != C_OK) return;
    const char *prefix = c->argc >= 4 ? objectGetVal(c->argv[3]) : "key";
    dbExpandKeyspace(c->db, kvstoreSize(c->db->keys) + (size_t)count, 0);
    for (long j = 0; j < count; j++) {
        sds key = sdscatprintf(sdsempty(), "%s:%ld", prefix, j);
        if (dbFind(c->db, key) != NULL) {
            sdsfree(key);
            continue;
        }
        char buf[64];
        int len = snprintf(buf, sizeof(buf), "value:%ld", j);
        robj *val;
        if (size == 0) {
            val = createStringObject(buf, len);
        } else {
            sds v = sdsnewlen(NULL, (size_t)size); /* exact: no greedy growth */
            memcpy(v, buf, (size_t)len < (size_t)size ? (size_t)len : (size_t)size);
            val = createObject(OBJ_STRING, v);
            if ((size_t)size <= OBJ_ENCODING_EMBSTR_SIZE_LIMIT) {
                robj *emb = createStringObject(v, size);
                decrRefCount(val);
                val = emb;
            }
        }
        robj *keyobj = createObject(OBJ_STRING, key);
        dbAdd(c->db, keyobj, &val);
        decrRefCount(keyobj);
    }
    addReply(c, shared.ok);
}

/* DEBUG HTSTATS-KEY <key> [FULL]: dictGetStats() of the hash table that
 * holds the value at <key> (a set, hash or sorted set in its hashtable or
 * skiplist encoding), as Valkey reports it. */
static void debugHtstatsKey(client *c) {
    robj *o = lookupKeyReadWithFlags(c->db, c->argv[2], LOOKUP_NOTOUCH | LOOKUP_NONOTIFY);
    if (o == NULL) {
        addReplyErrorObject(c, shared.nokeyerr);
        return;
    }
    int full = c->argc == 4 && !strcasecmp(objectGetVal(c->argv[3]), "full");
    char buf[4096];
    if ((o->type == OBJ_SET || o->type == OBJ_HASH) && o->encoding == OBJ_ENCODING_HT) {
        hashtableGetStats(buf, sizeof(buf), objectGetVal(o), full); /* sets and hashes are on hashtable.c */
        addReplyVerbatim(c, buf, strlen(buf), "txt");
        return;
    }
    dict *ht = NULL;
    if (o->encoding == OBJ_ENCODING_SKIPLIST) ht = zsetTypeDict(o);
    else if (o->encoding == OBJ_ENCODING_HT) ht = objectGetVal(o);
    if (ht == NULL) {
        addReplyError(c, "The value stored at the specified key is not represented using an hash table");
        return;
    }
    dictGetStats(buf, sizeof(buf), ht, full);
    addReplyVerbatim(c, buf, strlen(buf), "txt");
}

/* DEBUG PROTOCOL <type>: one reply of each RESP type, for client tests. */
static void debugProtocol(client *c) {
    const char *name = objectGetVal(c->argv[2]);
    if (!strcasecmp(name, "string")) {
        addReplyBulkCString(c, "Hello World");
    } else if (!strcasecmp(name, "integer")) {
        addReplyLongLong(c, 12345);
    } else if (!strcasecmp(name, "double")) {
        addReplyDouble(c, 3.141);
    } else if (!strcasecmp(name, "bignum")) {
        addReplyBigNum(c, "1234567999999999999999999999999999999", 37);
    } else if (!strcasecmp(name, "null")) {
        addReplyNull(c);
    } else if (!strcasecmp(name, "array")) {
        addReplyArrayLen(c, 3);
        for (int j = 0; j < 3; j++) addReplyLongLong(c, j);
    } else if (!strcasecmp(name, "set")) {
        addReplySetLen(c, 3);
        for (int j = 0; j < 3; j++) addReplyLongLong(c, j);
    } else if (!strcasecmp(name, "map")) {
        addReplyMapLen(c, 3);
        for (int j = 0; j < 3; j++) {
            addReplyLongLong(c, j);
            addReplyBool(c, j == 1);
        }
    } else if (!strcasecmp(name, "attrib")) {
        if (c->resp >= 3) {
            addReplyAttributeLen(c, 1);
            addReplyBulkCString(c, "key-popularity");
            addReplyArrayLen(c, 2);
            addReplyBulkCString(c, "key:123");
            addReplyLongLong(c, 90);
        }
        addReplyBulkCString(c, "Some real reply following the attribute");
    } else if (!strcasecmp(name, "push")) {
        if (c->resp < 3) {
            addReplyError(c, "RESP2 is not supported by this command");
            return;
        }
        addReplyPushLen(c, 2);
        addReplyBulkCString(c, "server-cpu-usage");
        addReplyLongLong(c, 42);
        addReplyBulkCString(c, "Some real reply following the push reply");
    } else if (!strcasecmp(name, "true")) {
        addReplyBool(c, 1);
    } else if (!strcasecmp(name, "false")) {
        addReplyBool(c, 0);
    } else if (!strcasecmp(name, "verbatim")) {
        const char *text = "This is a verbatim\nstring";
        addReplyVerbatim(c, text, strlen(text), "txt");
    } else {
        addReplyError(c, "Wrong protocol type name. Please use one of the following: "
                         "string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false");
    }
}

static void debugHtstats(client *c) {
    long dbid;
    if (getLongFromObjectOrReply(c, c->argv[2], &dbid, NULL) != C_OK) return;
    if (dbid < 0 || dbid >= server.dbnum) {
        addReplyError(c, "Out of range database");
        return;
    }
    int full = c->argc == 4 && !strcasecmp(objectGetVal(c->argv[3]), "full");
    char buf[4096];
    sds s = sdsnew("[Dictionary HT]\n");
    kvstoreGetStats(server.db[dbid].keys, buf, sizeof(buf), full);
    s = sdscat(s, buf);
    s = sdscat(s, "[Expires HT]\n");
    hashtableGetStats(buf, sizeof(buf), server.db[dbid].expires, full);
    s = sdscat(s, buf);
    addReplyVerbatim(c, s, sdslen(s), "txt");
    sdsfree(s);
}

/* DEBUG REPLYBUFFER PEAK-RESET-TIME <NEVER|RESET|ms> | RESIZING <0|1>:
 * tunes the clients cron's fitting of reply buffers (networking.c). */
static void debugReplyBuffer(client *c) {
    const char *what = objectGetVal(c->argv[2]), *arg = objectGetVal(c->argv[3]);
    if (!strcasecmp(what, "peak-reset-time")) {
        if (!strcasecmp(arg, "never")) {
            server.reply_buffer_peak_reset_time = -1;
        } else if (!strcasecmp(arg, "reset")) {
            server.reply_buffer_peak_reset_time = REPLY_BUFFER_DEFAULT_PEAK_RESET_TIME;
        } else {
            long long ms;
            if (getLongLongFromObjectOrReply(c, c->argv[3], &ms, NULL) != C_OK) return;
            server.reply_buffer_peak_reset_time = ms;
        }
    } else if (!strcasecmp(what, "resizing")) {
        server.reply_buffer_resizing_enabled = atoi(arg);
    } else {
        addReplySubcommandSyntaxError(c);
        return;
    }
    addReply(c, shared.ok);
}

/* ---------------------------------------------------------------------------
 * DEBUG MALLCTL / MALLCTL-STR: jemalloc's mallctl() namespace, as in Valkey
 * ------------------------------------------------------------------------- */

/* Names whose values are code or structure pointers: writing a number
 * there would crash the server later, so they are refused. */
static int mallctlNameRefused(const char *name) {
    return strstr(name, "hooks") != NULL;
}

/* DEBUG MALLCTL <key> [<val>]: a numeric option of any width (bool,
 * unsigned, size_t, ...; tried from 8 bytes down until jemalloc accepts
 * the size). Replies the value before any write, +OK for an option that
 * can only be written, or the error's text. */
static void debugMallctlInt(client *c) {
    const char *name = objectGetVal(c->argv[2]);
    int write = c->argc > 3;
    int64_t val = 0;
    if (write) {
        long long ll;
        if (getLongLongFromObjectOrReply(c, c->argv[3], &ll, NULL) != C_OK) return;
        if (mallctlNameRefused(name)) {
            addReplyErrorFormat(c, "%s", strerror(EPERM));
            return;
        }
        val = ll;
    }
    for (size_t width = sizeof(int64_t); width >= 1; width /= 2) {
        int64_t old = 0; /* little-endian: a narrower value fills the low bytes */
        size_t oldlen = width;
        int ret = mallctl(name, &old, &oldlen, write ? &val : NULL, write ? width : 0);
        if (ret == EPERM && write) {
            /* Write-only (or void) options: just write. */
            ret = mallctl(name, NULL, NULL, &val, width);
            if (ret == 0) {
                addReply(c, shared.ok);
                return;
            }
        }
        if (ret == 0) {
            addReplyLongLong(c, old);
            return;
        }
        if (ret != EINVAL) {
            addReplyErrorFormat(c, "%s", strerror(ret));
            return;
        }
    }
    addReplyErrorFormat(c, "%s", strerror(EINVAL));
}

/* Copies the NUL-terminated string at p into buf (cap bytes) without
 * trusting p: the bytes go through a pipe, whose write() fails with EFAULT
 * instead of faulting, one page-bounded piece at a time. Returns 0, or -1
 * if p is not a readable string shorter than cap. */
static int copyStringSafely(const char *p, char *buf, size_t cap) {
    int fds[2];
    if (p == NULL || pipe(fds) == -1) return -1;
    size_t len = 0;
    int ok = 0;
    while (len < cap) {
        size_t page = 4096, chunk = page - ((uintptr_t)(p + len) % page);
        if (chunk > cap - len) chunk = cap - len;
        if (write(fds[1], p + len, chunk) != (ssize_t)chunk || read(fds[0], buf + len, chunk) != (ssize_t)chunk) break;
        char *nul = memchr(buf + len, '\0', chunk);
        len += chunk;
        if (nul) {
            ok = 1;
            break;
        }
    }
    close(fds[0]);
    close(fds[1]);
    return ok ? 0 : -1;
}

/* DEBUG MALLCTL-STR <key> [<val>]: a string option. <val> VOID writes
 * nothing but triggers the option (thread.tcache.flush, arena.<i>.purge).
 * Replies the value read before any write, or +OK when the option cannot
 * be read, or the error's text. */
static void debugMallctlStr(client *c) {
    const char *name = objectGetVal(c->argv[2]);
    int write = c->argc > 3;
    if (write && mallctlNameRefused(name)) {
        addReplyErrorFormat(c, "%s", strerror(EPERM));
        return;
    }
    char *old = NULL;
    size_t oldlen = sizeof(old);
    int rret = mallctl(name, &old, &oldlen, NULL, 0);
    if (rret != 0 && !(rret == EPERM && write)) {
        addReplyErrorFormat(c, "%s", strerror(rret));
        return;
    }
    /* A read option that is not a string (a size_t is as wide as a
     * pointer) must not be followed as one. */
    char value[1024];
    if (rret == 0 && copyStringSafely(old, value, sizeof(value)) != 0) {
        addReplyErrorFormat(c, "%s is not a string option", name);
        return;
    }
    int wret = 0;
    if (write) {
        char *val = objectGetVal(c->argv[3]);
        if (!strcmp(val, "VOID")) wret = mallctl(name, NULL, NULL, NULL, 0);
        else wret = mallctl(name, NULL, NULL, &val, sizeof(val));
    }
    if (rret == 0) addReplyBulkCString(c, value);
    else if (wret != 0) addReplyErrorFormat(c, "%s", strerror(wret));
    else addReply(c, shared.ok);
}

static void debugHelp(client *c) {
    const char *help[] = {
        "ASSERT",
        "    Crash the server through a failed assertion.",
        "CHANGE-REPL-ID",
        "    Give the server a new random replication id.",
        "CONFIG-REWRITE-FORCE-ALL",
        "    Like CONFIG REWRITE but writes every option, those at their default too.",
        "DIGEST",
        "    Return a 40 hex digit fingerprint of the whole dataset (zeros when empty).",
        "DEFRAG-MOVE-ALL <0|1>",
        "    Make active defrag (activedefrag yes) run a pass that moves every block it visits,",
        "    whatever the fragmentation and even where malloc is not jemalloc (for tests); the",
        "    pass in progress or the next one. 0 disarms it.",
        "DIGEST-VALUE <key> [<key> ...]",
        "    Return a fingerprint of the value of each key, ignoring its name and TTL.",
        "HTSTATS <dbid> [FULL]",
        "    Return statistics about the hash tables of database <dbid>.",
        "HTSTATS-KEY <key> [FULL]",
        "    Like HTSTATS but for the hash table stored at <key>'s value.",
        "LOG <message>",
        "    Write <message> to the server log.",
        "MALLCTL <key> [<val>]",
        "    Get or set a malloc tuning integer.",
        "MALLCTL-STR <key> [<val>]",
        "    Get or set a malloc tuning string.",
        "OBJECT <key>",
        "    Show low level information about the value stored at <key>.",
        "PANIC",
        "    Crash the server through serverPanic().",
        "PAUSE-CRON <0|1>",
        "    Stop the server's cron jobs (expiry, client housekeeping, stats) or let them run again.",
        "POPULATE <count> [<prefix>] [<size>]",
        "    Create <count> string keys named <prefix>:<n> (default prefix \"key\").",
        "    With <size>, values are cut or zero-padded to <size> bytes.",
        "PROTOCOL <type>",
        "    Reply with a value of the given RESP type: string, integer, double,",
        "    bignum, null, array, set, map, attrib, push, verbatim, true, false.",
        "QUICKLIST-PACKED-THRESHOLD <size>",
        "    List elements of at least <size> bytes (units like 1k, 1mb) get a quicklist",
        "    node of their own (a PLAIN node). 1gb by default, 0 restores that; below 4gb.",
        "REPLYBUFFER PEAK-RESET-TIME <NEVER||RESET|time>",
        "    Sets the time (in milliseconds) to wait between client reply buffer peak resets.",
        "    In case NEVER is provided the last observed peak will never be reset",
        "    In case RESET is provided the peak reset time will be restored to the default value",
        "REPLYBUFFER RESIZING <0|1>",
        "    Enable or disable the reply buffer resize cron job",
        "LOADAOF",
        "    Write out the AOF buffer, empty the dataset and load the append-only file back.",
        "REPL-RDMA-BAD-CHECKSUM <0|1>",
        "    Announce a wrong checksum at the end of RDMA snapshot regions (1), or the right one (0).",
        "RELOAD [MERGE] [NOFLUSH] [NOSAVE]",
        "    Write the dataset to the RDB file, empty it and load the file back.",
        "    NOSAVE loads the file as it is; NOFLUSH keeps the current keys (a key",
        "    also in the file is then an error, or with MERGE the file's version wins).",
        "SDSLEN <key>",
        "    Show the string allocation details of the key and of its value.",
        "SEGFAULT",
        "    Crash the server with a segmentation fault.",
        "SET-ACTIVE-EXPIRE <0|1>",
        "    Switch the active expiry of keys off or on.",
        "SET-DISABLE-DENY-SCRIPTS <0|1>",
        "    Let scripts call commands flagged noscript (1), or refuse them as usual (0).",
        "SLEEP <seconds>",
        "    Block the server for <seconds>; decimals are allowed.",
        NULL,
    };
    addReplyHelp(c, help);
}

/* DEBUG <subcommand> [args]: see debugHelp() for the list. Runs in the
 * event-loop thread; SLEEP blocks it on purpose. */
void debugCommand(client *c) {
    if (!debugCommandAllowed(c)) {
        addReplyError(c, "DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you "
                         "can run it from a local connection, otherwise you need to set this option in the "
                         "configuration file, and then restart the server.");
        return;
    }
    const char *sub = objectGetVal(c->argv[1]);
    if (!strcasecmp(sub, "help") && c->argc == 2) {
        debugHelp(c);
    } else if (!strcasecmp(sub, "segfault") && c->argc == 2) {
        /* A write to a read-only page: a real fault the compiler cannot
         * optimise away. */
        char *page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        *(volatile char *)page = 'x';
        addReply(c, shared.ok); /* Not reached. */
    } else if (!strcasecmp(sub, "panic") && c->argc == 2) {
        serverPanic("DEBUG PANIC called at Unix time %lld", (long long)time(NULL));
    } else if (!strcasecmp(sub, "assert") && c->argc == 2) {
        serverAssert(1 == 2);
    } else if (!strcasecmp(sub, "log") && c->argc == 3) {
        serverLog(LL_WARNING, "DEBUG LOG: %s", (char *)objectGetVal(c->argv[2]));
        addReply(c, shared.ok);
    } else if (!strcasecmp(sub, "sleep") && c->argc == 3) {
        debugSleep(c);
    } else if (!strcasecmp(sub, "repl-rdma-bad-checksum") && c->argc == 3) {
        replRdmaDebugBadChecksum = atoi(objectGetVal(c->argv[2])) != 0;
        addReply(c, shared.ok);
    } else if (!strcasecmp(sub, "set-active-expire") && c->argc == 3) {
        server.active_expire_enabled = atoi(objectGetVal(c->argv[2]));
        addReply(c, shared.ok);
    } else if (!strcasecmp(sub, "object") && c->argc == 3) {
        debugObject(c);
    } else if (!strcasecmp(sub, "htstats-key") && (c->argc == 3 || c->argc == 4)) {
        debugHtstatsKey(c);
    } else if (!strcasecmp(sub, "sdslen") && c->argc == 3) {
        debugSdslen(c);
    } else if (!strcasecmp(sub, "populate") && c->argc >= 3 && c->argc <= 5) {
        debugPopulate(c);
    } else if (!strcasecmp(sub, "digest") && c->argc == 2) {
        unsigned char digest[SHA1_DIGEST_LEN];
        char hex[41];
        computeDatasetDigest(digest);
        sha1ToHex(hex, digest);
        addReplyStatus(c, hex);
    } else if (!strcasecmp(sub, "digest-value") && c->argc >= 2) {
        addReplyArrayLen(c, c->argc - 2);
        for (int j = 2; j < c->argc; j++) {
            unsigned char digest[SHA1_DIGEST_LEN];
            char hex[41];
            robj *val = dbFind(c->db, objectGetVal(c->argv[j]));
            if (val) digestValue(digest, val);
            else memset(digest, 0, sizeof(digest));
            sha1ToHex(hex, digest);
            addReplyStatus(c, hex);
        }
    } else if (!strcasecmp(sub, "protocol") && c->argc == 3) {
        debugProtocol(c);
    } else if (!strcasecmp(sub, "change-repl-id") && c->argc == 2) {
        serverLog(LL_NOTICE, "Changing replication IDs after receiving DEBUG change-repl-id");
        getRandomHexChars(server.replid, CONFIG_RUN_ID_SIZE);
        server.replid[CONFIG_RUN_ID_SIZE] = '\0';
        addReply(c, shared.ok);
    } else if (!strcasecmp(sub, "reload")) {
        debugReloadCommand(c);
    } else if (!strcasecmp(sub, "loadaof") && c->argc == 2) {
        debugLoadAofCommand(c);
    } else if (!strcasecmp(sub, "htstats") && (c->argc == 3 || c->argc == 4)) {
        debugHtstats(c);
    } else if (!strcasecmp(sub, "replybuffer") && c->argc == 4) {
        debugReplyBuffer(c);
    } else if (!strcasecmp(sub, "set-disable-deny-scripts") && c->argc == 3) {
        server.script_disable_deny_script = atoi(objectGetVal(c->argv[2]));
        addReply(c, shared.ok);
    } else if (!strcasecmp(sub, "config-rewrite-force-all") && c->argc == 2) {
        if (server.configfile == NULL) addReplyError(c, "The server is running without a config file");
        else if (rewriteConfig(server.configfile, 1) == -1)
            addReplyErrorFormat(c, "CONFIG-REWRITE-FORCE-ALL failed: %s", strerror(errno));
        else addReply(c, shared.ok);
    } else if (!strcasecmp(sub, "quicklist-packed-threshold") && c->argc == 3) {
        int err;
        unsigned long long sz = memtoull(objectGetVal(c->argv[2]), &err);
        if (err || !quicklistSetPackedThreshold((size_t)sz))
            addReplyError(c, "argument must be a memory value bigger than 1 and smaller than 4gb");
        else
            addReply(c, shared.ok);
    } else if (!strcasecmp(sub, "mallctl") && (c->argc == 3 || c->argc == 4)) {
        debugMallctlInt(c);
    } else if (!strcasecmp(sub, "mallctl-str") && (c->argc == 3 || c->argc == 4)) {
        debugMallctlStr(c);
    } else if (!strcasecmp(sub, "defrag-move-all") && c->argc == 3) {
        defrag.move_all = atoi(objectGetVal(c->argv[2])) != 0;
        defragConfigChanged(); /* decide at the next cron tick */
        addReply(c, shared.ok);
    } else if (!strcasecmp(sub, "pause-cron") && c->argc == 3) {
        server.pause_cron = atoi(objectGetVal(c->argv[2]));
        addReply(c, shared.ok);
    } else {
        addReplySubcommandSyntaxError(c);
    }
}

/* ---------------------------------------------------------------------------
 * Crash report
 * ------------------------------------------------------------------------- */

static volatile sig_atomic_t bugReportStarted = 0;
static volatile sig_atomic_t crashing = 0;
static void *crashAltStack = NULL;
static const int crashSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
static void setupSigalrmAction(void);

/* Writes len bytes straight to the log destination: the report's big
 * blocks (INFO, client list) exceed a log line's size limit. */
static void crashLogWrite(const char *s, size_t len) {
    int fd;
    if (logOpenForWrite(&fd) == -1) return;
    while (len > 0) {
        ssize_t n = write(fd, s, len);
        if (n <= 0) break;
        s += n;
        len -= (size_t)n;
    }
    if (fd != STDOUT_FILENO) close(fd);
}

static void crashLogString(const char *s) {
    crashLogWrite(s, strlen(s));
}

static void bugReportStart(void) {
    if (bugReportStarted) return;
    bugReportStarted = 1;
    crashLogString("\n\n=== VALKEY BUG REPORT START: Cut & paste starting from here ===\n");
}

/* The program counter at the time of the signal, or NULL if unknown. */
static void *getFaultPc(void *uc) {
    if (uc == NULL) return NULL;
    ucontext_t *ctx = uc;
#if defined(__x86_64__)
    return (void *)ctx->uc_mcontext.gregs[REG_RIP];
#elif defined(__i386__)
    return (void *)ctx->uc_mcontext.gregs[REG_EIP];
#elif defined(__aarch64__)
    return (void *)ctx->uc_mcontext.pc;
#else
    (void)ctx;
    return NULL;
#endif
}

/* Logs the faulting instruction (if uc is a signal context) and the
 * backtrace of the current thread. */
static void logStackTrace(void *uc) {
    int fd;
    void *trace[128];
    crashLogString("\n------ STACK TRACE ------\n");
    void *pc = getFaultPc(uc);
    if (logOpenForWrite(&fd) == -1) return;
    if (pc) {
        crashLogString("EIP:\n");
        backtrace_symbols_fd(&pc, 1, fd);
    }
    crashLogString("\nBacktrace:\n");
    int n = backtrace(trace, 128);
    backtrace_symbols_fd(trace, n, fd);
    if (fd != STDOUT_FILENO) close(fd);
}

/* INFO, client list and current client: everything that helps to
 * understand the server's state. Not async-signal-safe: a crash inside the
 * allocator may hang here, a risk the report is worth. */
static void logServerState(void) {
    crashLogString("\n------ INFO OUTPUT ------\n");
    if (server.commands) {
        sds info = genValkeyInfoString(NULL, 1, 0);
        crashLogWrite(info, sdslen(info));
        sdsfree(info);
    }
    if (server.clients) {
        crashLogString("\n------ CLIENT LIST OUTPUT ------\n");
        sds clients = getAllClientsInfoString(-1);
        crashLogWrite(clients, sdslen(clients));
        sdsfree(clients);
    }
    client *cc = server.executing_client ? server.executing_client : server.current_client;
    if (cc) {
        crashLogString("\n------ CURRENT CLIENT INFO ------\n");
        sds s = catClientInfoString(sdsempty(), cc);
        s = sdscat(s, "\n");
        for (int j = 0; j < cc->argc && j < 32; j++) {
            robj *a = cc->argv[j];
            if (a && a->type == OBJ_STRING && server.hide_user_data_from_log) {
                s = sdscatprintf(s, "argv[%d]: '%s'\n", j, redactLogCstr(""));
            } else if (a && a->type == OBJ_STRING && sdsEncodedObject(a)) {
                size_t len = sdslen(objectGetVal(a));
                s = sdscatprintf(s, "argv[%d]: '%.*s'%s\n", j, (int)(len > 128 ? 128 : len), (char *)objectGetVal(a),
                                 len > 128 ? "..." : "");
            } else if (a && a->type == OBJ_STRING) {
                s = sdscatprintf(s, "argv[%d]: %ld\n", j, (long)objectGetVal(a));
            }
        }
        crashLogWrite(s, sdslen(s));
        sdsfree(s);
    }
}

/* Closes the report and kills the process: with signal sig and its default
 * action if sig != 0 (so the exit status shows the original signal), else
 * with abort(). Never returns. */
static void bugReportEnd(int sig) {
    crashLogString("\n=== VALKEY BUG REPORT END. Make sure to include from START to END. ===\n\n"
                   "       Please report the crash by opening an issue on github:\n\n"
                   "           https://github.com/valkey-io/valkey/issues\n\n");
    if (server.use_exit_on_panic) _exit(1); /* use-exit-on-panic: exit, no abort or signal (tests) */
    removeSigSegvHandlers();
    if (sig == 0) abort();
    struct sigaction act;
    memset(&act, 0, sizeof(act));
    sigemptyset(&act.sa_mask);
    act.sa_handler = SIG_DFL;
    sigaction(sig, &act, NULL);
    kill(getpid(), sig);
    _exit(128 + sig); /* Only if the signal could not kill us. */
}

static void sigsegvHandler(int sig, siginfo_t *info, void *secret) {
    if (crashing++) {
        /* Crashed again while reporting: give up on the report. */
        crashLogString("\nCrashed again while producing the crash report.\n");
        bugReportEnd(sig);
    }
    if (!server.crashlog_enabled) bugReportEnd(sig);
    bugReportStart();
    serverLog(LL_WARNING, "Valkey %s crashed by signal: %d, si_code: %d", VALKEY_VERSION, sig, info->si_code);
    if (sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL)
        serverLog(LL_WARNING, "Accessing address: %p", info->si_addr);
    if (info->si_code == SI_USER || info->si_code == SI_TKILL)
        serverLog(LL_WARNING, "Killed by PID: %ld, UID: %d", (long)info->si_pid, (int)info->si_uid);
    logStackTrace(secret);
    logServerState();
    bugReportEnd(sig);
}

/* Installs the crash-report handler for SIGSEGV, SIGBUS, SIGFPE, SIGILL
 * and SIGABRT, on an alternate stack so that stack overflows are reported
 * too, and the watchdog's SIGALRM handler. Called once from main() after
 * logging is configured. */
void setupSigSegvAction(void) {
    /* The first backtrace() call may load libgcc, which allocates: do it
     * now rather than inside a crash. */
    void *warmup[1];
    backtrace(warmup, 1);

    size_t stack_size = 256 * 1024;
    if (crashAltStack == NULL) crashAltStack = malloc(stack_size);
    int flags = SA_SIGINFO | SA_NODEFER;
    if (crashAltStack) {
        stack_t ss = {.ss_sp = crashAltStack, .ss_size = stack_size, .ss_flags = 0};
        if (sigaltstack(&ss, NULL) == 0) flags |= SA_ONSTACK;
    }
    struct sigaction act;
    memset(&act, 0, sizeof(act));
    sigemptyset(&act.sa_mask);
    act.sa_flags = flags;
    act.sa_sigaction = sigsegvHandler;
    for (size_t j = 0; j < sizeof(crashSignals) / sizeof(crashSignals[0]); j++) sigaction(crashSignals[j], &act, NULL);
    setupSigalrmAction();
}

/* ---------------------------------------------------------------------------
 * Software watchdog
 * ------------------------------------------------------------------------- */

/* SIGALRM: the watchdog timer expired (si_pid 0), or someone sent it. Logs
 * the main thread's stack and returns. Signal handler. */
static void sigalrmSignalHandler(int sig, siginfo_t *info, void *secret) {
    (void)sig;
    int saved = errno;
    if (info->si_pid == 0) crashLogString("\n--- WATCHDOG TIMER EXPIRED ---\n");
    else crashLogString("\nReceived SIGALRM\n");
    logStackTrace(secret);
    crashLogString("--------\n\n");
    errno = saved;
}

/* Installs the SIGALRM handler (for the watchdog and kill -ALRM). Called
 * once from setupSigSegvAction(). */
static void setupSigalrmAction(void) {
    struct sigaction act;
    memset(&act, 0, sizeof(act));
    sigemptyset(&act.sa_mask);
    act.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER;
    act.sa_sigaction = sigalrmSignalHandler;
    sigaction(SIGALRM, &act, NULL);
}

/* Arms the one-shot SIGALRM timer period ms from now (replacing one that
 * is armed), or disarms it if period is 0. */
static void watchdogScheduleSignal(int period) {
    struct itimerval it = {.it_value = {.tv_sec = period / 1000, .tv_usec = (period % 1000) * 1000}};
    setitimer(ITIMER_REAL, &it, NULL);
}

/* See server.h. Applies watchdog-period after CONFIG SET: 0 disarms the
 * watchdog; a period shorter than two cron ticks (which would fire while
 * the server is merely idle between ticks) is raised to that. Event loop. */
void applyWatchdogPeriod(void) {
    if (server.watchdog_period == 0) {
        watchdogScheduleSignal(0);
        return;
    }
    int min_period = (1000 / (server.hz > 0 ? server.hz : 1)) * 2;
    if (server.watchdog_period < min_period) server.watchdog_period = min_period;
    watchdogScheduleSignal(server.watchdog_period);
}

/* See server.h. Called at the start of every serverCron(): pushes the
 * watchdog's alarm one period further. */
void watchdogCron(void) {
    if (server.watchdog_period) watchdogScheduleSignal(server.watchdog_period);
}

/* Restores the default action of the crash signals (before a deliberate
 * abort(), or in a fork child that must not report its parent's crash). */
void removeSigSegvHandlers(void) {
    struct sigaction act;
    memset(&act, 0, sizeof(act));
    sigemptyset(&act.sa_mask);
    act.sa_handler = SIG_DFL;
    for (size_t j = 0; j < sizeof(crashSignals) / sizeof(crashSignals[0]); j++) sigaction(crashSignals[j], &act, NULL);
}

/* Called through serverAssert(): logs the failed expression with a report
 * and aborts. Never returns. */
void _serverAssert(const char *estr, const char *file, int line) {
    bugReportStart();
    serverLog(LL_WARNING, "=== ASSERTION FAILED ===");
    serverLog(LL_WARNING, "==> %s:%d '%s' is not true", file, line, estr);
    if (server.crashlog_enabled && !crashing++) {
        logStackTrace(NULL);
        logServerState();
    }
    bugReportEnd(0);
}

/* Called through serverPanic(): logs the message with a report and aborts.
 * Never returns. */
void _serverPanic(const char *file, int line, const char *msg, ...) {
    char fmtmsg[256];
    va_list ap;
    va_start(ap, msg);
    vsnprintf(fmtmsg, sizeof(fmtmsg), msg, ap);
    va_end(ap);
    bugReportStart();
    serverLog(LL_WARNING, "------------------------------------------------");
    serverLog(LL_WARNING, "!!! Software Failure. Press left mouse button to continue");
    serverLog(LL_WARNING, "Guru Meditation: %s #%s:%d", fmtmsg, file, line);
    if (server.crashlog_enabled && !crashing++) {
        logStackTrace(NULL);
        logServerState();
    }
    serverLog(LL_WARNING, "------------------------------------------------");
    bugReportEnd(0);
}

/* Logs len bytes at value as hex, 32 bytes per line, after a line naming
 * them descr. For corrupt-payload diagnostics. */
void serverLogHexDump(int level, char *descr, void *value, size_t len) {
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = value;
    serverLog(level, "%s (hexdump of %zu bytes):", descr, len);
    while (len) {
        char line[65];
        size_t n = len > 32 ? 32 : len;
        for (size_t j = 0; j < n; j++) {
            line[j * 2] = hex[p[j] >> 4];
            line[j * 2 + 1] = hex[p[j] & 15];
        }
        line[n * 2] = '\0';
        serverLog(level | LL_RAW, "%s", line);
        p += n;
        len -= n;
    }
}
