/* propagate.c - command propagation: the one path every change of the
 * dataset takes to its two consumers, the replication stream and the AOF.
 *
 * What is propagated is what was executed, in a form that gives the same
 * result when replayed elsewhere and later: commands rewrite their own
 * argv for that (relative expiries become PEXPIREAT or SET ... PXAT, SPOP
 * becomes SREM, a served BLPOP becomes LPOP, ...; see the t_*.c files),
 * scripts and EXEC are propagated through the commands they ran, expiry
 * and eviction as DEL or UNLINK.
 *
 * An execution unit is a top-level call() with everything nested under it:
 * the commands of an EXEC, the server.call()s of a script, keys expired or
 * evicted while it ran. Its ops are collected here by alsoPropagate() and
 * fed when the outermost call() returns, through the single entry points of
 * replication.c, replicationFeedReplicas(), and of aof.c, aofFeed() (each
 * adds SELECT itself):
 * one op as it is, several wrapped in MULTI ... EXEC so that a replica
 * applies them atomically too (except the expiries of a SCAN or RANDOMKEY,
 * as in Valkey). MULTI and EXEC carry no database: when the first op needs
 * a SELECT it comes inside the transaction, after MULTI, as Valkey 8 sends
 * it (Redis 7.0 put it before MULTI). Each op has its consumers (its
 * target): both, except the commands of a script that called
 * redis.set_repl(), which go to the AOF, the replicas or neither. A blocked client served after a command is its own unit,
 * as is each deletion made outside any command (active expiry, eviction
 * before a command runs).
 *
 * A command that changed nothing (server.dirty did not move) is not
 * propagated unless it forced it (forceCommandPropagation: PUBLISH); one
 * may also prevent it (preventCommandPropagation: EXEC, EVAL, FCALL).
 *
 * Cost: nothing is collected while propagationIsActive() is 0 (no replica
 * ever attached, or this server is a replica, and appendonly no); call() then pays
 * two predictable branches per command (the stream, and ops left by a
 * unit during which the stream went away). While it is 1, a command run
 * directly that is its unit's only op (most writes) is fed at once from
 * its own argv, without being collected (propagateCallEnd()).
 *
 * Both consumers write a command in the same RESP form, encoded here in
 * one pass (propagateWriteCommand()). */
#include "propagate.h"

#include "replication.h"

/* One command waiting for the end of its execution unit. */
typedef struct propagateOp {
    int dbid;
    int target; /* PROPAGATE_AOF | PROPAGATE_REPL: the consumers it goes to */
    int argc;
    int argv_cap; /* elements argv has room for: kept between units */
    robj **argv;  /* owned: one reference per element, array zmalloc'ed */
} propagateOp;

/* An op's argv array bigger than this is freed after its unit rather than
 * kept for the next one. */
#define PROPAGATE_KEEP_ARGV 16

static propagateOp *pending_ops; /* the current unit's ops, in order */
int propagate_pending;                /* ops in use (see propagate.h) */
static int pending_cap;          /* ops allocated */
static robj *multi_obj, *exec_obj;
static int script_targets = PROPAGATE_ALL; /* redis.set_repl() of the running script */

/* Appends an op for target, which is not empty. */
static void propagateAppendOp(int dbid, robj **argv, int argc, int target) {
    if (propagate_pending == pending_cap) {
        int old_cap = pending_cap;
        pending_cap = pending_cap ? pending_cap * 2 : 16;
        pending_ops = zrealloc(pending_ops, sizeof(propagateOp) * pending_cap);
        memset(pending_ops + old_cap, 0, sizeof(propagateOp) * (pending_cap - old_cap));
    }
    propagateOp *op = &pending_ops[propagate_pending++];
    op->dbid = dbid;
    op->target = target;
    op->argc = argc;
    /* The array of an earlier unit's op is reused: no allocation per
     * propagated command. */
    if (op->argv_cap < argc) {
        zfree(op->argv);
        op->argv = zmalloc(sizeof(robj *) * argc);
        op->argv_cap = argc;
    }
    for (int j = 0; j < argc; j++) {
        /* A key built on the stack (db.c scans) dies with its frame: the op
         * needs a copy of it. */
        if (argv[j]->refcount == OBJ_STATIC_REFCOUNT) {
            op->argv[j] = dupStringObject(argv[j]);
        } else {
            op->argv[j] = argv[j];
            incrRefCount(argv[j]);
        }
    }
}

/* See propagate.h. */
void alsoPropagateTo(int dbid, robj **argv, int argc, int target) {
    target &= propagationActiveTargets();
    if (target == PROPAGATE_NONE) return;
    propagateAppendOp(dbid, argv, argc, target);
    if (server.executing_client == NULL) propagatePendingCommands();
}

/* See propagate.h. */
void alsoPropagate(int dbid, robj **argv, int argc) {
    alsoPropagateTo(dbid, argv, argc, PROPAGATE_ALL);
}

/* Feeds one command to the consumers in target. */
static void propagateFeed(int dbid, robj **argv, int argc, int target) {
    if (target & PROPAGATE_REPL) replicationFeedReplicas(dbid, argv, argc);
    if (target & PROPAGATE_AOF) aofFeed(dbid, argv, argc);
}

/* Feeds both consumers one command with no arguments and no database
 * (MULTI, EXEC): it never brings a SELECT. */
static void propagateBareCommand(robj **obj, const char *name) {
    if (*obj == NULL) *obj = makeObjectShared(createStringObject(name, strlen(name)));
    propagateFeed(-1, obj, 1, PROPAGATE_ALL);
}

/* 1 if the unit is a command run directly that may expire any key it
 * meets (SCAN, RANDOMKEY: CMD_TOUCHES_ARBITRARY_KEYS). Its deletions are
 * independent, like active expiry's, so Valkey does not wrap them in
 * MULTI ... EXEC; inside EXEC or a script they are wrapped as usual. */
static int propagateUnitTouchesArbitraryKeys(void) {
    client *c = server.current_client;
    return c && c->cmd && (c->cmd->flags & CMD_TOUCHES_ARBITRARY_KEYS);
}

/* See propagate.h. */
void propagatePendingCommands(void) {
    if (propagate_pending == 0) return;
    /* Whether to wrap counts the ops of both consumers together, as Valkey
     * does: a consumer that takes one op of the unit, or none, still gets
     * MULTI ... EXEC when the other takes several. */
    int wrap = propagate_pending > 1 && !propagateUnitTouchesArbitraryKeys();
    if (wrap) propagateBareCommand(&multi_obj, "MULTI");
    for (int j = 0; j < propagate_pending; j++)
        propagateFeed(pending_ops[j].dbid, pending_ops[j].argv, pending_ops[j].argc, pending_ops[j].target);
    if (wrap) propagateBareCommand(&exec_obj, "EXEC");
    for (int j = 0; j < propagate_pending; j++) {
        propagateOp *op = &pending_ops[j];
        for (int k = 0; k < op->argc; k++) decrRefCount(op->argv[k]);
        if (op->argv_cap > PROPAGATE_KEEP_ARGV) {
            zfree(op->argv);
            op->argv = NULL;
            op->argv_cap = 0;
        }
    }
    propagate_pending = 0;
    /* A burst (a huge transaction) must not pin its array for ever. */
    if (pending_cap > 1024) {
        for (int j = 0; j < pending_cap; j++) zfree(pending_ops[j].argv);
        zfree(pending_ops);
        pending_ops = NULL;
        pending_cap = 0;
    }
}

/* See propagate.h. The common case, a command run directly whose unit
 * is that command alone, is fed at once from its own argv: collecting it
 * as an op would only take references and drop them again. */
void propagateCallEnd(client *c, long long dirty_before, int outermost) {
    uint64_t flags = c->flags;
    c->flags &= ~(CLIENT_PREVENT_PROP | CLIENT_FORCE_REPL);
    if (!(flags & CLIENT_PREVENT_PROP) && (server.dirty > dirty_before || (flags & CLIENT_FORCE_REPL))) {
        int target = (flags & CLIENT_SCRIPT) ? script_targets : PROPAGATE_ALL;
        target &= propagationActiveTargets();
        if (outermost && propagate_pending == 0) {
            if (target != PROPAGATE_NONE) propagateFeed(c->db->id, c->argv, c->argc, target);
            return;
        }
        if (target != PROPAGATE_NONE) propagateAppendOp(c->db->id, c->argv, c->argc, target);
    }
    if (outermost) propagatePendingCommands();
}

/* See propagate.h. */
void preventCommandPropagation(client *c) {
    c->flags |= CLIENT_PREVENT_PROP;
}

/* See propagate.h. */
void forceCommandPropagation(client *c) {
    c->flags |= CLIENT_FORCE_REPL;
}

/* See propagate.h. */
void propagateSetScriptCommands(int enabled) {
    script_targets = enabled ? PROPAGATE_ALL : PROPAGATE_NONE;
}

/* See propagate.h. */
void propagateSetScriptTargets(int targets) {
    script_targets = targets & PROPAGATE_ALL;
}

/* See propagate.h. */
void propagateDeletion(serverDb *db, robj *key, int lazy) {
    if (!propagationIsActive()) return;
    robj *argv[2] = {lazy ? shared.unlink : shared.del, key};
    alsoPropagate(db->id, argv, 2);
}

/* ---------------------------------------------------------------------------
 * Encoding a command for the stream and the AOF
 * ------------------------------------------------------------------------- */

/* The longest RESP header: a type byte, 20 digits and CRLF. */
#define PROTO_HDR_MAX 23

/* The decimal digits of 0..99, two per number. */
static const char two_digits[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                 "4041424344454647484950515253545556575859606162636465666768697071727374757677787980"
                                 "81828384858687888990919293949596979899";

/* Writes "<type><n>\r\n" at p (room for PROTO_HDR_MAX bytes) and returns
 * the end. The lengths of a command's arguments are mostly one or two
 * digits: those skip the general conversion. */
static inline char *writeHeader(char *p, char type, unsigned long long n) {
    *p++ = type;
    if (n < 10) {
        *p++ = (char)('0' + n);
    } else if (n < 100) {
        memcpy(p, two_digits + 2 * n, 2);
        p += 2;
    } else {
        p += ull2string(p, 21, n);
    }
    memcpy(p, "\r\n", 2);
    return p + 2;
}

/* Copies len bytes from src to dst. The short strings of a command (its
 * name, keys, small values) are copied in one or two overlapping moves
 * rather than through a call into the C library. */
static inline void copyBytes(char *dst, const char *src, size_t len) {
    if (len > 16) {
        memcpy(dst, src, len);
    } else if (len >= 8) {
        uint64_t head, tail;
        memcpy(&head, src, 8);
        memcpy(&tail, src + len - 8, 8);
        memcpy(dst, &head, 8);
        memcpy(dst + len - 8, &tail, 8);
    } else if (len >= 4) {
        uint32_t head, tail;
        memcpy(&head, src, 4);
        memcpy(&tail, src + len - 4, 4);
        memcpy(dst, &head, 4);
        memcpy(dst + len - 4, &tail, 4);
    } else if (len) {
        dst[0] = src[0];
        dst[len / 2] = src[len / 2];
        dst[len - 1] = src[len - 1];
    }
}

/* Writes "$<len>\r\n<bytes>\r\n" at p and returns the end. */
static inline char *writeBulk(char *p, const char *bytes, size_t len) {
    p = writeHeader(p, '$', len);
    copyBytes(p, bytes, len);
    p += len;
    *p++ = '\r';
    *p++ = '\n';
    return p;
}

/* See propagate.h. */
size_t propagateCommandMaxLen(robj **argv, int argc) {
    size_t need = 16 + PROTO_HDR_MAX + LONG_STR_SIZE + 2; /* a SELECT */
    need += PROTO_HDR_MAX;                               /* "*<argc>" */
    for (int j = 0; j < argc; j++)
        need += PROTO_HDR_MAX + 2 + (sdsEncodedObject(argv[j]) ? sdslen(objectGetVal(argv[j])) : LONG_STR_SIZE);
    return need;
}

/* See propagate.h. */
char *propagateWriteCommand(char *p, const char *limit, int select_db, robj **argv, int argc) {
    /* Room for a SELECT and the "*<argc>" header. */
    if (limit - p < 16 + 2 * PROTO_HDR_MAX + LONG_STR_SIZE + 2) return NULL;
    if (select_db >= 0) {
        char idbuf[LONG_STR_SIZE];
        int idlen = ll2string(idbuf, sizeof(idbuf), select_db);
        memcpy(p, "*2\r\n$6\r\nSELECT\r\n", 16);
        p = writeBulk(p + 16, idbuf, (size_t)idlen);
    }
    p = writeHeader(p, '*', (unsigned long long)argc);
    for (int j = 0; j < argc; j++) {
        robj *o = argv[j];
        if (sdsEncodedObject(o)) {
            size_t len = sdslen(objectGetVal(o));
            if ((size_t)(limit - p) < PROTO_HDR_MAX + 2 + len) return NULL;
            p = writeBulk(p, objectGetVal(o), len);
        } else {
            if (limit - p < PROTO_HDR_MAX + 2 + LONG_STR_SIZE) return NULL;
            char num[LONG_STR_SIZE];
            int nl = ll2string(num, sizeof(num), (long)objectGetVal(o));
            p = writeBulk(p, num, (size_t)nl);
        }
    }
    return p;
}
