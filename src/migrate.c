/* migrate.c - MIGRATE: moving keys to another server.
 *
 *     MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE]
 *             [AUTH password | AUTH2 username password] [KEYS key ...]
 *
 * For each key that exists here, the value is serialised as a DUMP payload
 * (dump.c) and sent to the target as RESTORE key ttl payload [REPLACE], all
 * in one request preceded by AUTH (if asked) and SELECT (when the target's
 * selected database is not known to be destination-db). The target's
 * replies are read one line each; keys it acknowledged are deleted here
 * unless COPY was given, and then the command's argv is rewritten as
 * DEL <acknowledged keys>: that rewrite is the call point propagation
 * (call(), propagate.c) feeds to replicas, exactly as Valkey propagates a
 * MIGRATE. The first error line of the target becomes "Target instance
 * replied with error: ..."; I/O failures and timeouts are IOERR.
 *
 * Connections are cached per "host:port" (at most
 * MIGRATE_SOCKET_CACHE_ITEMS, a random one dropped when full) so that
 * moving many keys one command at a time does not connect each time;
 * serverCron() closes those idle for more than MIGRATE_SOCKET_CACHE_TTL
 * seconds. A cached connection the target closed is only noticed when
 * used: if nothing was acknowledged and the failure was not a timeout, the
 * whole request is retried once on a new connection, as Valkey does.
 *
 * All I/O is blocking, bounded by the command's timeout, and goes through
 * the connection layer (TCP transport), never raw sockets. MIGRATE blocks
 * the event loop while it runs, like Valkey's. */
#include "migrate.h"

#include <errno.h>
#include <strings.h>

#include "dump.h"
#include "server.h"

#define MIGRATE_SOCKET_CACHE_ITEMS 64 /* Cached connections, at most. */
#define MIGRATE_SOCKET_CACHE_TTL 10   /* Seconds an idle one is kept. */
#define MIGRATE_WRITE_CHUNK (64 * 1024) /* Request bytes per blocking write. */
#define MIGRATE_REPLY_LINE 1024        /* Longest reply line kept. */

/* ---------------------------------------------------------------------------
 * Connection cache
 * ------------------------------------------------------------------------- */

/* One cached connection to a target. */
typedef struct migrateCachedSocket {
    sds name;             /* "host:port" exactly as given to MIGRATE. */
    connection *conn;     /* Connected, blocking use only; owned. */
    long last_dbid;       /* Database selected on the target, -1 unknown. */
    time_t last_use_time; /* server.unixtime of the last MIGRATE using it. */
} migrateCachedSocket;

static migrateCachedSocket *migrateSockets[MIGRATE_SOCKET_CACHE_ITEMS];
static int migrateSocketsUsed;

/* Closes and forgets the cached connection at index i. */
static void migrateFreeSocketAt(int i) {
    migrateCachedSocket *cs = migrateSockets[i];
    connClose(cs->conn);
    sdsfree(cs->name);
    zfree(cs);
    migrateSockets[i] = migrateSockets[--migrateSocketsUsed];
    migrateSockets[migrateSocketsUsed] = NULL;
}

/* Closes and forgets cs, a cached connection. */
static void migrateCloseSocket(migrateCachedSocket *cs) {
    for (int i = 0; i < migrateSocketsUsed; i++) {
        if (migrateSockets[i] == cs) {
            migrateFreeSocketAt(i);
            return;
        }
    }
}

/* Returns the cached connection to host:port, connecting (and caching) one
 * if there is none. NULL, after replying the IOERR to c, if the connection
 * cannot be made within timeout ms. The cache keeps ownership. */
static migrateCachedSocket *migrateGetSocket(client *c, robj *host, robj *port, long timeout) {
    sds name = sdscatfmt(sdsempty(), "%S:%S", (sds)objectGetVal(host), (sds)objectGetVal(port));
    for (int i = 0; i < migrateSocketsUsed; i++) {
        if (!strcmp(migrateSockets[i]->name, name)) {
            sdsfree(name);
            migrateSockets[i]->last_use_time = server.unixtime;
            return migrateSockets[i];
        }
    }
    if (migrateSocketsUsed == MIGRATE_SOCKET_CACHE_ITEMS) migrateFreeSocketAt(rand() % migrateSocketsUsed);

    /* Valkey's rule: TLS between servers when tls-cluster is on. */
    ConnectionType *ct = server.tls_cluster ? connTypeGetByName(CONN_NAME_TLS) : connectionTypeTcp();
    if (ct == NULL) {
        addReplyError(c, "-IOERR error or timeout connecting to the client");
        sdsfree(name);
        return NULL;
    }
    connection *conn = connCreate(ct);
    if (connBlockingConnect(conn, objectGetVal(host), atoi(objectGetVal(port)), timeout) != C_OK) {
        addReplyError(c, "-IOERR error or timeout connecting to the client");
        connClose(conn);
        sdsfree(name);
        return NULL;
    }
    connEnableTcpNoDelay(conn);

    migrateCachedSocket *cs = zmalloc(sizeof(*cs));
    cs->name = name;
    cs->conn = conn;
    cs->last_dbid = -1;
    cs->last_use_time = server.unixtime;
    migrateSockets[migrateSocketsUsed++] = cs;
    return cs;
}

void migrateCloseTimedoutSockets(void) {
    for (int i = 0; i < migrateSocketsUsed;) {
        if (server.unixtime - migrateSockets[i]->last_use_time > MIGRATE_SOCKET_CACHE_TTL) {
            migrateFreeSocketAt(i); /* moves the last entry to i: look at i again */
        } else {
            i++;
        }
    }
}

size_t migrateCachedSocketsCount(void) {
    return (size_t)migrateSocketsUsed;
}

/* ---------------------------------------------------------------------------
 * Arguments
 * ------------------------------------------------------------------------- */

/* What MIGRATE was asked to do, beyond host, port, db and timeout. */
typedef struct migrateOptions {
    int copy;      /* COPY: keep the keys here. */
    int replace;   /* REPLACE: RESTORE ... REPLACE on the target. */
    sds username;  /* AUTH2 user, or NULL; owned (the argument is redacted). */
    sds password;  /* AUTH/AUTH2 password, or NULL; owned. */
    int first_key; /* argv index of the first key. */
    int num_keys;  /* Keys from first_key on. */
} migrateOptions;

static void migrateFreeOptions(migrateOptions *opt) {
    sdsfree(opt->username);
    sdsfree(opt->password);
}

/* Replaces argument j, a secret, with "(redacted)" so that SLOWLOG never
 * shows it, and returns a copy of it the caller owns. */
static sds migrateTakeSecret(client *c, int j) {
    sds secret = sdsdup(objectGetVal(c->argv[j]));
    robj *old = c->argv[j];
    c->argv[j] = createStringObject("(redacted)", 10);
    decrRefCount(old);
    return secret;
}

/* Parses argv[6..]. Returns C_OK, or C_ERR after replying the error (opt
 * still has to be freed). AUTH/AUTH2 arguments are redacted as they are
 * met, even if a later argument is wrong. */
static int migrateParseOptions(client *c, migrateOptions *opt) {
    *opt = (migrateOptions){.first_key = 3, .num_keys = 1};
    for (int j = 6; j < c->argc; j++) {
        const char *arg = objectGetVal(c->argv[j]);
        int more = c->argc - j - 1;
        if (!strcasecmp(arg, "copy")) {
            opt->copy = 1;
        } else if (!strcasecmp(arg, "replace")) {
            opt->replace = 1;
        } else if (!strcasecmp(arg, "auth") && more >= 1) {
            sdsfree(opt->password);
            opt->password = migrateTakeSecret(c, ++j);
        } else if (!strcasecmp(arg, "auth2") && more >= 2) {
            sdsfree(opt->username);
            sdsfree(opt->password);
            opt->username = migrateTakeSecret(c, ++j);
            opt->password = migrateTakeSecret(c, ++j);
        } else if (!strcasecmp(arg, "keys")) {
            if (sdslen(objectGetVal(c->argv[3])) != 0) {
                addReplyError(c, "When using MIGRATE KEYS option, the key argument must be set to the empty string");
                return C_ERR;
            }
            opt->first_key = j + 1;
            opt->num_keys = more;
            return C_OK; /* every argument left is a key */
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return C_ERR;
        }
    }
    return C_OK;
}

/* The keys of MIGRATE's argv for COMMAND GETKEYS (and later ACL and
 * cluster routing): argv[3], or with KEYS and an empty argv[3] every
 * argument after KEYS. Options' arguments are skipped while looking for
 * KEYS, so a password spelled "keys" is not taken for it. */
static int migrateGetKeys(struct serverCommand *cmd, robj **argv, int argc, int *keys, int maxkeys) {
    (void)cmd;
    int first = 3, num = 1;
    for (int j = 6; j < argc; j++) {
        const char *arg = objectGetVal(argv[j]);
        if (!strcasecmp(arg, "keys")) {
            if (sdslen(objectGetVal(argv[3])) == 0) {
                first = j + 1;
                num = argc - first;
            }
            break;
        }
        if (!strcasecmp(arg, "auth")) j += 1;
        else if (!strcasecmp(arg, "auth2")) j += 2;
    }
    if (argc <= 3) return 0;
    int n = 0;
    for (int j = 0; j < num && n < maxkeys; j++) keys[n++] = first + j;
    return n;
}

/* ---------------------------------------------------------------------------
 * The request
 * ------------------------------------------------------------------------- */

static sds respAppendArrayLen(sds s, long len) {
    return sdscatfmt(s, "*%i\r\n", (int)len);
}

static sds respAppendBulk(sds s, const char *p, size_t len) {
    s = sdscatfmt(s, "$%U\r\n", (unsigned long long)len);
    s = sdscatlen(s, p, len);
    return sdscatlen(s, "\r\n", 2);
}

static sds respAppendBulkLongLong(sds s, long long v) {
    char buf[32];
    int len = snprintf(buf, sizeof(buf), "%lld", v);
    return respAppendBulk(s, buf, (size_t)len);
}

/* Builds the whole request: AUTH, SELECT (if select), then one RESTORE per
 * key of kv[0..num_keys) (values ov) still alive. The keys sent are stored
 * in sent[] (room for num_keys, references not taken), their count in
 * *nsent: a key that expired since it was looked up is not sent. The
 * caller owns the returned sds. */
static sds migrateBuildRequest(client *c, migrateOptions *opt, long dbid, int select, robj **kv, robj **ov,
                               int num_keys, robj **sent, int *nsent) {
    sds req = sdsempty();
    if (opt->password) {
        req = respAppendArrayLen(req, opt->username ? 3 : 2);
        req = respAppendBulk(req, "AUTH", 4);
        if (opt->username) req = respAppendBulk(req, opt->username, sdslen(opt->username));
        req = respAppendBulk(req, opt->password, sdslen(opt->password));
    }
    if (select) {
        req = respAppendArrayLen(req, 2);
        req = respAppendBulk(req, "SELECT", 6);
        req = respAppendBulkLongLong(req, dbid);
    }
    *nsent = 0;
    for (int j = 0; j < num_keys; j++) {
        long long ttl = 0, when = getExpire(c->db, kv[j]);
        if (when != -1) {
            ttl = when - commandTimeSnapshot();
            if (ttl < 0) continue; /* expired meanwhile: nothing to move */
            if (ttl < 1) ttl = 1;  /* 0 would mean "no TTL" to RESTORE */
        }
        sent[(*nsent)++] = kv[j];
        sds payload = dumpCreatePayload(ov[j]);
        req = respAppendArrayLen(req, opt->replace ? 5 : 4);
        req = respAppendBulk(req, "RESTORE", 7);
        req = respAppendBulk(req, objectGetVal(kv[j]), sdslen(objectGetVal(kv[j])));
        req = respAppendBulkLongLong(req, ttl);
        req = respAppendBulk(req, payload, sdslen(payload));
        if (opt->replace) req = respAppendBulk(req, "REPLACE", 7);
        sdsfree(payload);
    }
    return req;
}

/* Writes req in chunks of MIGRATE_WRITE_CHUNK. C_OK, or C_ERR with errno. */
static int migrateSendRequest(connection *conn, sds req, long timeout) {
    size_t pos = 0, len = sdslen(req);
    while (pos < len) {
        size_t chunk = len - pos > MIGRATE_WRITE_CHUNK ? MIGRATE_WRITE_CHUNK : len - pos;
        if (connSyncWrite(conn, req + pos, (ssize_t)chunk, timeout) != (ssize_t)chunk) return C_ERR;
        pos += chunk;
    }
    return C_OK;
}

/* ---------------------------------------------------------------------------
 * MIGRATE
 * ------------------------------------------------------------------------- */

/* How one attempt ended. */
typedef enum {
    MIGRATE_REPLIED,       /* The client got its reply (OK or an error). */
    MIGRATE_RETRY,         /* Stale connection, nothing done: try again. */
    MIGRATE_WRITE_FAILED,  /* Reply "IOERR ... writing ...". */
    MIGRATE_READ_FAILED,   /* Reply "IOERR ... reading ...". */
} migrateOutcome;

/* A socket failure before anything was acknowledged (err: its errno):
 * the cached connection is dropped; retry unless it was a timeout or the
 * retry was already used. */
static migrateOutcome migrateSocketFailed(migrateCachedSocket *cs, int err, int may_retry, migrateOutcome fail) {
    migrateCloseSocket(cs);
    return (err != ETIMEDOUT && may_retry) ? MIGRATE_RETRY : fail;
}

/* Rewrites c's argv as DEL of the keys the target acknowledged, which
 * this server has deleted: what replicas (and the AOF) must see of a
 * MIGRATE without COPY. Takes ownership of deleted (deleted[0] is free). */
static void migrateRewriteAsDel(client *c, robj **deleted, int count) {
    deleted[0] = shared.del;
    incrRefCount(shared.del);
    replaceClientCommandVector(c, count + 1, deleted);
}

/* Deletes key here once the target has it (no COPY), as DEL would. */
static void migrateDeleteLocalKey(client *c, robj *key) {
    dbDelete(c->db, key);
    signalModifiedKey(c, c->db, key);
    notifyKeyspaceEvent(NOTIFY_GENERIC, "del", key, c->db->id);
    server.dirty++;
}

/* Reads the replies to a request already sent on cs: AUTH's and SELECT's
 * if they were sent, then one per key of sent[0..nsent). Replies the
 * client unless the outcome is a retry or an IOERR for the caller. */
static migrateOutcome migrateReadReplies(client *c, migrateCachedSocket *cs, migrateOptions *opt, long dbid,
                                         int select, long timeout, robj **sent, int nsent, int may_retry) {
    char auth_reply[MIGRATE_REPLY_LINE], select_reply[MIGRATE_REPLY_LINE], reply[MIGRATE_REPLY_LINE];
    if (opt->password && connSyncReadLine(cs->conn, auth_reply, sizeof(auth_reply), timeout) <= 0)
        return migrateSocketFailed(cs, errno, may_retry, MIGRATE_READ_FAILED);
    if (select && connSyncReadLine(cs->conn, select_reply, sizeof(select_reply), timeout) <= 0)
        return migrateSocketFailed(cs, errno, may_retry, MIGRATE_READ_FAILED);
    /* A failed AUTH or SELECT makes every key fail: report that error. */
    const char *early_error = NULL;
    if (opt->password && auth_reply[0] == '-') early_error = auth_reply;
    else if (select && select_reply[0] == '-') early_error = select_reply;

    robj **deleted = opt->copy ? NULL : zmalloc(sizeof(robj *) * (nsent + 1));
    int ndeleted = 0, target_error = 0, read_errno = 0, j;
    for (j = 0; j < nsent; j++) {
        if (connSyncReadLine(cs->conn, reply, sizeof(reply), timeout) <= 0) {
            read_errno = errno;
            break;
        }
        const char *err = early_error ? early_error : (reply[0] == '-' ? reply : NULL);
        if (err) {
            if (!target_error) {
                target_error = 1;
                cs->last_dbid = -1; /* the SELECT may not have happened */
                addReplyErrorFormat(c, "Target instance replied with error: %s", err + 1);
            }
        } else if (!opt->copy) {
            migrateDeleteLocalKey(c, sent[j]);
            incrRefCount(sent[j]);
            deleted[++ndeleted] = sent[j];
        }
    }
    int socket_error = j < nsent;

    if (socket_error && j == 0) {
        zfree(deleted);
        return migrateSocketFailed(cs, read_errno, may_retry, MIGRATE_READ_FAILED);
    }
    if (socket_error) migrateCloseSocket(cs);
    else if (!target_error) cs->last_dbid = dbid;

    /* Propagation call point: the keys deleted here become one DEL. */
    if (ndeleted > 0) migrateRewriteAsDel(c, deleted, ndeleted);
    else zfree(deleted);

    if (target_error) return MIGRATE_REPLIED;
    if (socket_error) return MIGRATE_READ_FAILED; /* some keys moved: no retry */
    addReply(c, shared.ok);
    return MIGRATE_REPLIED;
}

/* One attempt at moving kv[0..num_keys) (values ov) over the cached
 * connection to argv[1]:argv[2]. kv and ov are left as they are. */
static migrateOutcome migrateAttempt(client *c, migrateOptions *opt, long dbid, long timeout, robj **kv, robj **ov,
                                     int num_keys, int may_retry) {
    migrateCachedSocket *cs = migrateGetSocket(c, c->argv[1], c->argv[2], timeout);
    if (cs == NULL) return MIGRATE_REPLIED;

    int select = cs->last_dbid != dbid, nsent;
    robj **sent = zmalloc(sizeof(robj *) * num_keys);
    sds req = migrateBuildRequest(c, opt, dbid, select, kv, ov, num_keys, sent, &nsent);
    migrateOutcome res;
    if (migrateSendRequest(cs->conn, req, timeout) != C_OK) {
        res = migrateSocketFailed(cs, errno, may_retry, MIGRATE_WRITE_FAILED);
    } else {
        res = migrateReadReplies(c, cs, opt, dbid, select, timeout, sent, nsent, may_retry);
    }
    sdsfree(req);
    zfree(sent);
    return res;
}

/* MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE]
 *         [AUTH password | AUTH2 username password] [KEYS key [key ...]] */
static void migrateCommand(client *c) {
    migrateOptions opt;
    long timeout, dbid;
    if (migrateParseOptions(c, &opt) != C_OK ||
        getLongFromObjectOrReply(c, c->argv[5], &timeout, NULL) != C_OK ||
        getLongFromObjectOrReply(c, c->argv[4], &dbid, NULL) != C_OK) {
        migrateFreeOptions(&opt);
        return;
    }
    if (timeout <= 0) timeout = 1000;

    /* Only keys that exist are moved; none at all is NOKEY, not an error
     * (they often just expired). */
    robj **kv = zmalloc(sizeof(robj *) * opt.num_keys);
    robj **ov = zmalloc(sizeof(robj *) * opt.num_keys);
    int found = 0;
    for (int j = 0; j < opt.num_keys; j++) {
        robj *key = c->argv[opt.first_key + j];
        robj *val = lookupKeyRead(c->db, key);
        if (val == NULL) continue;
        kv[found] = key;
        ov[found] = val;
        found++;
    }

    if (found == 0) {
        addReplyStatus(c, "NOKEY");
    } else {
        /* kv points into argv, which the attempt may replace: hold them. */
        for (int j = 0; j < found; j++) incrRefCount(kv[j]);
        migrateOutcome res = migrateAttempt(c, &opt, dbid, timeout, kv, ov, found, 1);
        if (res == MIGRATE_RETRY) res = migrateAttempt(c, &opt, dbid, timeout, kv, ov, found, 0);
        if (res == MIGRATE_WRITE_FAILED || res == MIGRATE_READ_FAILED)
            addReplyErrorFormat(c, "-IOERR error or timeout %s to target instance",
                                res == MIGRATE_WRITE_FAILED ? "writing" : "reading");
        for (int j = 0; j < found; j++) decrRefCount(kv[j]);
    }
    zfree(kv);
    zfree(ov);
    migrateFreeOptions(&opt);
}

/* ---------------------------------------------------------------------------
 * Command table
 * ------------------------------------------------------------------------- */

struct serverCommand migrateCommands[] = {
    {.name = "migrate", .proc = migrateCommand, .arity = -6, .flags = CMD_WRITE,
     .acl_categories = ACL_CATEGORY_KEYSPACE | ACL_CATEGORY_DANGEROUS, .key = {3, 3, 1},
     .getkeys_proc = migrateGetKeys, .group = "generic", .since = "2.6.0",
     .summary = "Atomically transfers a key from one instance to another.",
     .complexity = "This command actually executes a DUMP+DEL in the source instance, and a RESTORE in the target "
                   "instance. See the pages of these commands for time complexity. Also an O(N) data transfer "
                   "between the two instances is performed.",
     .args = "host port:integer key-selector=<key | empty-key=\"\"> destination-db:integer timeout:integer "
             "[copy=COPY] [replace=REPLACE] [authentication=<auth=<AUTH password> | auth2=<AUTH2 username password>>] "
             "[KEYS key [key ...]]"},
    {.name = NULL},
};
