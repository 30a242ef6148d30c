/* server.c - start-up, the main loop's hooks, and command dispatch.
 *
 * main() loads the configuration (config.c), initialises the global state
 * and the listeners, and runs the event loop (initServerEmbedded() does the
 * same short of listening, loading and looping, for the fuzz targets in
 * fuzz/ that drive the server's code directly). Two hooks drive everything
 * that is not a reaction to a client's bytes:
 *   serverCron()   a timer running server.hz times per second: stats,
 *                  client housekeeping, active expiry and defragmentation,
 *                  shutdown requests,
 *                  snapshots (snapshot.c: save points, reaping a BGSAVE
 *                  child), the cluster's cron every 100 ms (cluster.c:
 *                  handshakes, pings, failure detection);
 *   beforeSleep()  runs before the loop waits for events: first the
 *                  transports' pending work (RDMA has no writable event,
 *                  TLS buffers input) and what I/O threads read and
 *                  wrote (io_threads.c), then blocked clients, a fast expiry
 *                  cycle, BCAST invalidations (tracking.c), the
 *                  cluster's state and nodes.conf save (cluster.c), the pending
 *                  replies (of everything above too), client eviction
 *                  (maxmemory-clients), frees clients scheduled for
 *                  closing; when a transport still has work, the loop is
 *                  told not to sleep. While requests come close together
 *                  the loop polls for up to event-loop-busy-poll
 *                  microseconds before sleeping (ae.c, "Busy polling").
 * processCommand() is the gate every parsed request goes through (lookup,
 * arity, auth, ACL permissions (acl.c), the replication state (read-only or
 * stale replica, min-replicas-to-write), client and key eviction, OOM, pause) before call() executes
 * it, accounts for it, remembers the keys it read for client-side caching
 * and hands what it changed to propagation (propagate.c).
 *
 * The connection-level commands (PING, ECHO, QUIT, RESET, HELLO, AUTH) live
 * here too, as they are about the session rather than the data.
 *
 * Shutdown (SHUTDOWN, SIGTERM, SIGINT; the signal handler only sets
 * shutdown_asap, the cron acts on it): with replicas that have not
 * acknowledged the whole stream, shutdown-timeout > 0 and no NOW flag, the
 * server first waits for them, up to shutdown-timeout seconds, with writes
 * paused (PAUSE_DURING_SHUTDOWN) and the SHUTDOWN clients blocked; the cron
 * finishes the shutdown when they caught up or time is up. SHUTDOWN ABORT
 * cancels a wait (or a signal's request not acted on yet): writes resume
 * and the waiting SHUTDOWN clients get an error. finishShutdown() saves
 * (snapshot.c) and closes; if the save fails without FORCE the shutdown is
 * cancelled the same way and the server goes on. As in Valkey. */
#include "server.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "acl.h"
#include "aof.h"
#include "blocked.h"
#include "cluster.h"
#include "defrag.h"
#include "latency.h"
#include "migrate.h"
#include "multi.h"
#include "propagate.h"
#include "pubsub.h"
#include "redirect.h"
#include "replication.h"
#include "slowlog.h"
#include "snapshot.h"
#include "tracking.h"

struct valkeyServer server;
struct sharedObjectsStruct shared;

/* The signal that asked for the pending shutdown (SIGTERM or SIGINT). */
static volatile sig_atomic_t last_shutdown_signal = SIGTERM;

/* A shutdown waiting for lagging replicas: its deadline (0 when none
 * waits) and its SHUTDOWN_* flags. */
static mstime_t shutdown_deadline = 0;
static int shutdown_pending_flags = 0;
static int replicasCaughtUp(void);

extern int debugCommandAllowed(client *c);
void pingCommand(client *c);
void execCommand(client *c); /* multi.c */

/* ---------------------------------------------------------------------------
 * Time
 * ------------------------------------------------------------------------- */

/* Sets the cached clocks used by commands and expiry to a reading of
 * ustime() the caller took. */
static void setCachedTime(ustime_t now) {
    server.ustime = now;
    server.mstime = now / 1000;
    server.unixtime = server.mstime / 1000;
}

/* Refreshes the cached clocks used by commands and expiry. */
void updateCachedTime(int update_daylight_info) {
    setCachedTime(ustime());
    if (update_daylight_info) {
        struct tm tm;
        time_t ut = server.unixtime;
        localtime_r(&ut, &tm);
        server.daylight_active = tm.tm_isdst;
    }
}

/* Records the memory in use as the peak if it is the highest yet: after
 * every command (so a burst freed by the next command still counts, as
 * Valkey does), from the cron, and before INFO/MEMORY report it. */
void updatePeakMemory(void) {
    size_t used = zmalloc_used_memory();
    if (used > server.stat_peak_memory) {
        server.stat_peak_memory = used;
        server.stat_peak_memory_time = server.unixtime;
    }
}

/* The time commands see: fixed for the whole execution of one command so
 * that, e.g., a key cannot expire half-way through MGET. */
mstime_t commandTimeSnapshot(void) {
    return server.mstime;
}

/* ---------------------------------------------------------------------------
 * Shared objects
 * ------------------------------------------------------------------------- */

static robj *makeSharedProto(const char *s) {
    return makeObjectShared(createObject(OBJ_STRING, sdsnew(s)));
}

static void createSharedObjects(void) {
    shared.crlf = makeSharedProto("\r\n");
    shared.ok = makeSharedProto("+OK\r\n");
    shared.emptybulk = makeSharedProto("$0\r\n\r\n");
    shared.czero = makeSharedProto(":0\r\n");
    shared.cone = makeSharedProto(":1\r\n");
    shared.emptyarray = makeSharedProto("*0\r\n");
    shared.pong = makeSharedProto("+PONG\r\n");
    shared.queued = makeSharedProto("+QUEUED\r\n");
    shared.wrongtypeerr = makeSharedProto("-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
    shared.err = makeSharedProto("-ERR\r\n");
    shared.nokeyerr = makeSharedProto("-ERR no such key\r\n");
    shared.syntaxerr = makeSharedProto("-ERR syntax error\r\n");
    shared.redacted = makeObjectShared(createStringObject("(redacted)", 10)); /* SLOWLOG's stand-in for a secret */
    shared.sameobjecterr = makeSharedProto("-ERR source and destination objects are the same\r\n");
    shared.outofrangeerr = makeSharedProto("-ERR index out of range\r\n");
    shared.noscripterr = makeSharedProto("-NOSCRIPT No matching script. Please use EVAL.\r\n");
    shared.loadingerr = makeSharedProto("-LOADING Valkey is loading the dataset in memory\r\n");
    shared.slowevalerr = makeSharedProto(
        "-BUSY Valkey is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n");
    shared.bgsaveerr = makeSharedProto("-" SNAPSHOT_MISCONF_ERR "\r\n");
    shared.oomerr = makeSharedProto("-OOM command not allowed when used memory > 'maxmemory'.\r\n");
    shared.execaborterr = makeSharedProto("-EXECABORT Transaction discarded because of previous errors.\r\n");
    shared.noreplicaserr = makeSharedProto("-NOREPLICAS Not enough good replicas to write.\r\n");
    shared.roreplicaerr = makeSharedProto("-READONLY You can't write against a read only replica.\r\n");
    shared.primarydownerr = makeSharedProto(
        "-MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.\r\n");
    shared.noautherr = makeSharedProto("-NOAUTH Authentication required.\r\n");
    shared.busykeyerr = makeSharedProto("-BUSYKEY Target key name already exists.\r\n");
    shared.space = makeSharedProto(" ");
    shared.colon = makeSharedProto(":");
    shared.null[2] = makeSharedProto("$-1\r\n");
    shared.null[3] = makeSharedProto("_\r\n");
    shared.nullarray[2] = makeSharedProto("*-1\r\n");
    shared.nullarray[3] = makeSharedProto("_\r\n");
    shared.emptymap[2] = makeSharedProto("*0\r\n");
    shared.emptymap[3] = makeSharedProto("%0\r\n");
    shared.emptyset[2] = makeSharedProto("*0\r\n");
    shared.emptyset[3] = makeSharedProto("~0\r\n");
    shared.del = makeSharedProto("DEL");
    shared.unlink = makeSharedProto("UNLINK");
    shared.set = makeSharedProto("SET");
    shared.pexpireat = makeSharedProto("PEXPIREAT");
    shared.persist = makeSharedProto("PERSIST");
    shared.keepttl = makeSharedProto("KEEPTTL");
    shared.px = makeSharedProto("PX");
    shared.ex = makeSharedProto("EX");
    shared.lpop = makeSharedProto("LPOP");
    shared.rpop = makeSharedProto("RPOP");
    shared.lpush = makeSharedProto("LPUSH");
    shared.absttl = makeSharedProto("ABSTTL");
    shared.minstring = makeSharedProto("minstring");
    shared.maxstring = makeSharedProto("maxstring");
    for (int j = 0; j < OBJ_SHARED_INTEGERS; j++) {
        shared.integers[j] = makeObjectShared(createObject(OBJ_STRING, (void *)(long)j));
        shared.integers[j]->encoding = OBJ_ENCODING_INT;
    }
    for (int j = 0; j < OBJ_SHARED_BULKHDR_LEN; j++) {
        shared.mbulkhdr[j] = makeObjectShared(createObject(OBJ_STRING, sdscatprintf(sdsempty(), "*%d\r\n", j)));
        shared.bulkhdr[j] = makeObjectShared(createObject(OBJ_STRING, sdscatprintf(sdsempty(), "$%d\r\n", j)));
        shared.maphdr[j] = makeObjectShared(createObject(OBJ_STRING, sdscatprintf(sdsempty(), "%%%d\r\n", j)));
        shared.sethdr[j] = makeObjectShared(createObject(OBJ_STRING, sdscatprintf(sdsempty(), "~%d\r\n", j)));
    }
}

/* ---------------------------------------------------------------------------
 * Dictionary types used by the core
 * ------------------------------------------------------------------------- */

/* Hash and compare functions for dicts keyed by sds, shared by every
 * subsystem (declared in server.h). */
uint64_t dictSdsHash(const void *key) {
    return dictGenHashFunction((const unsigned char *)key, sdslen((sds)key));
}

uint64_t dictSdsCaseHash(const void *key) {
    return dictGenCaseHashFunction((const unsigned char *)key, sdslen((sds)key));
}

int dictSdsKeyCompare(const void *k1, const void *k2) {
    size_t l1 = sdslen((sds)k1), l2 = sdslen((sds)k2);
    return l1 == l2 && memcmp(k1, k2, l1) == 0;
}

int dictSdsKeyCaseCompare(const void *k1, const void *k2) {
    return strcasecmp(k1, k2) == 0;
}

void dictSdsDestructor(void *val) {
    sdsfree(val);
}

static inline unsigned char asciiLower(unsigned char ch) {
    return ch >= 'A' && ch <= 'Z' ? ch + ('a' - 'A') : ch;
}

/* Command names are looked up once per request, so their table uses a
 * cheaper hash than SipHash: FNV-1a over the lower-cased bytes with a final
 * mix of the high bits into the low ones (the bucket index). Flooding is no
 * concern here: the table is filled at startup and a client's names are
 * only ever looked up, never inserted. */
static uint64_t commandNameHash(const void *key) {
    const unsigned char *s = key;
    size_t len = sdslen((sds)key);
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < len; i++) {
        h ^= asciiLower(s[i]);
        h *= 0x100000001b3ULL;
    }
    return h ^ (h >> 29) ^ (h >> 43);
}

/* ASCII case-insensitive equality of two sds, lengths first. */
static int commandNameCompare(const void *k1, const void *k2) {
    size_t len = sdslen((sds)k1);
    if (len != sdslen((sds)k2)) return 0;
    const unsigned char *a = k1, *b = k2;
    for (size_t i = 0; i < len; i++)
        if (a[i] != b[i] && asciiLower(a[i]) != asciiLower(b[i])) return 0;
    return 1;
}

/* Command names, case-insensitive. */
dictType commandTableDictType = {
    .hashFunction = commandNameHash,
    .keyCompare = commandNameCompare,
    .keyDestructor = dictSdsDestructor,
};

/* Connected clients by id (the id itself is the key): lookupClientByID(). */
static dictType clientIndexDictType = {
    .hashFunction = dictPointerHash,
};

/* Error prefixes for INFO errorstats. */
dictType errorStatsDictType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .keyDestructor = dictSdsDestructor,
};

/* ---------------------------------------------------------------------------
 * Command table
 * ------------------------------------------------------------------------- */

/* Subcommands get ids of their own after their parent's (ACL bitmaps are
 * indexed by id). */
static void populateSubcommands(struct serverCommand *parent, int *id) {
    parent->subcommands_dict = dictCreate(&commandTableDictType);
    for (struct serverCommand *sub = parent->subcommands; sub->name; sub++) {
        sub->parent = parent;
        sub->fullname = sdscatfmt(sdsempty(), "%s|%s", parent->name, sub->name);
        sub->id = (*id)++;
        serverAssert(dictAdd(parent->subcommands_dict, sdsnew(sub->name), sub) == DICT_OK);
    }
}

/* Builds server.commands from every table listed in commands.c. */
void serverPopulateCommandTable(void) {
    int id = 0;
    for (int t = 0; serverCommandTables[t]; t++) {
        for (struct serverCommand *cmd = serverCommandTables[t]; cmd->name; cmd++) {
            cmd->fullname = sdsnew(cmd->name);
            cmd->id = id++;
            if (cmd->subcommands) populateSubcommands(cmd, &id);
            if (dictAdd(server.commands, sdsnew(cmd->name), cmd) != DICT_OK)
                serverPanic("Command '%s' is declared twice", cmd->name);
        }
    }
}

/* Finds the command for argv (resolving "config get" style subcommands).
 * Returns NULL if unknown. */
struct serverCommand *lookupCommand(robj **argv, int argc) {
    struct serverCommand *cmd = dictFetchValue(server.commands, objectGetVal(argv[0]));
    if (cmd == NULL || cmd->subcommands_dict == NULL || argc < 2) return cmd;
    if (!sdsEncodedObject(argv[1])) return NULL;
    return dictFetchValue(cmd->subcommands_dict, objectGetVal(argv[1]));
}

/* Looks up the command argv names, and checks its number of arguments,
 * for a source whose commands do not go through processCommand(): an AOF
 * being loaded, the replication stream of a primary. A command procedure
 * trusts that check (setCommand reads argv[2] without looking at argc), so
 * a damaged or hostile source must be stopped here. Returns
 * CMD_LOOKUP_OK with *cmd the command; CMD_LOOKUP_UNKNOWN (*cmd NULL) when
 * there is no such command or subcommand; CMD_LOOKUP_WRONG_ARITY (*cmd the
 * command found) when argc does not fit its arity, or a container such as
 * CONFIG comes without a subcommand. argc must be at least 1. Touches
 * nothing but *cmd. */
int lookupCommandCheckArity(robj **argv, int argc, struct serverCommand **cmd) {
    *cmd = lookupCommand(argv, argc);
    if (*cmd == NULL) return CMD_LOOKUP_UNKNOWN;
    int arity = (*cmd)->arity;
    if ((*cmd)->proc == NULL || (arity > 0 && argc != arity) || argc < -arity) return CMD_LOOKUP_WRONG_ARITY;
    return CMD_LOOKUP_OK;
}

/* lookupCommand() for the request in c->argv. A connection usually sends
 * the same few commands over and over, so the one it ran last is tried
 * first: when argv[0] names it, and it is a top-level command without
 * subcommands (exactly what the table would return for that name), the
 * table is not consulted. */
/* Whether a name as a client sent it (any case) is the lower-case name
 * lname; only the client's last command is checked this way. A name that is
 * not all lower case (a rename-command target) never matches here, and is
 * then found by lookupCommand(). */
static inline int commandNameIs(sds name, sds lname) {
    size_t len = sdslen(lname);
    if (sdslen(name) != len) return 0;
    for (size_t i = 0; i < len; i++)
        if (asciiLower(name[i]) != (unsigned char)lname[i]) return 0;
    return 1;
}

static struct serverCommand *lookupClientCommand(client *c) {
    struct serverCommand *last = c->lastcmd;
    if (last && last->parent == NULL && last->subcommands_dict == NULL && commandNameIs(objectGetVal(c->argv[0]), last->fullname))
        return last;
    return lookupCommand(c->argv, c->argc);
}

struct serverCommand *lookupCommandBySds(sds s) {
    int argc;
    sds *parts = sdssplitlen(s, sdslen(s), "|", 1, &argc);
    struct serverCommand *cmd = NULL;
    if (parts && argc >= 1 && argc <= 2) {
        cmd = dictFetchValue(server.commands, parts[0]);
        if (cmd && argc == 2) cmd = cmd->subcommands_dict ? dictFetchValue(cmd->subcommands_dict, parts[1]) : NULL;
    }
    sdsfreesplitres(parts, argc);
    return cmd;
}

/* ---------------------------------------------------------------------------
 * Executing commands
 * ------------------------------------------------------------------------- */

/* server.stat_total_error_replies as of the end of the last command call()
 * ran (nested ones included): errors past it belong to the next to end. */
static long long call_errors_seen;

/* 1 while c's command is blocked waiting for data on keys (BLPOP,
 * BZPOPMIN, XREAD BLOCK...): it has not completed yet. WAIT and WAITAOF
 * are accounted for when they block. */
static int commandAwaitsKeys(client *c) {
    if (c->bstate == NULL) return 0;
    int t = c->bstate->btype;
    return t == BLOCKED_LIST || t == BLOCKED_ZSET || t == BLOCKED_STREAM;
}

/* Logs c's command in SLOWLOG as the client sent it (its original argv if
 * it rewrote itself or redacted a secret), with duration in usec. */
static void slowlogPushCurrentCommand(client *c, long long duration) {
    if (c->original_argv) slowlogPushEntryIfNeeded(c, c->original_argv, c->original_argc, duration);
    else slowlogPushEntryIfNeeded(c, c->argv, c->argc, duration);
}

/* Executes c->cmd with c->argv and accounts for it: stats, slowlog,
 * latency, MONITOR feed. */
void call(client *c, int flags) {
    struct serverCommand *real_cmd = c->cmd;
    client *prev_client = server.executing_client;
    /* An error reply makes a failed call of the innermost command that ends
     * after it: a command EXEC or a script ran, not EXEC or EVAL, unless
     * they reply with an error of their own. Errors from before a
     * top-level command (protocol, rejections) are nobody's. */
    if (prev_client == NULL) call_errors_seen = server.stat_total_error_replies;
    server.executing_client = c;
    c->flags |= CLIENT_EXECUTING_COMMAND;

    /* MONITOR is fed after execution (so that a monitor's own RESET is not
     * echoed back to it, and EXEC comes after its commands) but with the
     * arguments as the client sent them: commands may rewrite argv. Keep
     * references to the originals. A blocked command run again once its
     * keys are ready (CALL_REPROCESSING) was shown when it first ran. Skip-monitor
     * commands that run scripts (EVAL*, FCALL*) feed themselves first. */
    robj **monitor_argv = NULL;
    int monitor_argc = c->argc, monitor_dbid = c->db->id;
    if (listLength(server.monitors) && (flags & CALL_STATS) && !(flags & CALL_REPROCESSING) &&
        !(c->cmd->flags & (CMD_SKIP_MONITOR | CMD_ADMIN))) {
        monitor_argv = zmalloc(sizeof(robj *) * monitor_argc);
        for (int j = 0; j < monitor_argc; j++) {
            monitor_argv[j] = c->argv[j];
            incrRefCount(monitor_argv[j]);
        }
    }

    /* The cached time is frozen while a command runs, nested ones (EXEC,
     * scripts) included, so a key cannot expire half-way through it. Within
     * a pipeline (server.pipeline_clock > 0, see processInputBuffer()) the
     * clock read that ended the previous command is this one's start: only
     * parsing happened since, and a clock read costs as much as a GET. */
    long long start;
    if (prev_client == NULL) {
        if (server.pipeline_clock > 0) setCachedTime(server.pipeline_clock);
        else updateCachedTime(0);
        start = server.ustime;
    } else {
        start = ustime();
    }
    long long dirty_before = server.dirty;
    c->flags &= ~(CLIENT_PREVENT_PROP | CLIENT_FORCE_REPL);
    c->cmd->proc(c);
    long long end = ustime();
    long long duration = end - start;
    /* A command that blocked on keys is accounted for when it completes:
     * served by a later run (CALL_REPROCESSING), timed out or unblocked
     * (updateStatsOnUnblock()), with the time of all its runs: total, kept
     * in c->duration meanwhile. */
    int pending = c->bstate != NULL && commandAwaitsKeys(c);
    long long total = duration;
    if (c->duration) {
        total += c->duration;
        c->duration = 0;
    }
    if (pending) c->duration = total;
    if (prev_client == NULL) updatePeakMemory();
    if (prev_client == NULL && server.pipeline_clock != 0) server.pipeline_clock = end;

    /* Client-side caching: the keys a read-only command read are remembered
     * for the client whose request it serves (a script's caller for the
     * script's own commands). The script commands themselves are skipped:
     * their keys are only declared, the commands they run count. */
    if (server.tracking_clients && (c->cmd->flags & CMD_READONLY) && !(c->cmd->flags & CMD_NO_MANDATORY_KEYS)) {
        client *tracking = (c->flags & (CLIENT_SCRIPT | CLIENT_FAKE)) ? server.current_client : c;
        if (tracking) trackingRememberKeys(tracking, c);
    }

    /* Replication and AOF: what the command changed joins its execution
     * unit, fed to both when the outermost call() ends (propagate.c); a unit
     * that collected ops is ended even if the stream went away meanwhile
     * (REPLICAOF inside MULTI). */
    if (propagationIsActive() || propagate_pending) propagateCallEnd(c, dirty_before, prev_client == NULL);

    int failed = server.stat_total_error_replies > call_errors_seen;
    call_errors_seen = server.stat_total_error_replies;
    c->flags &= ~CLIENT_EXECUTING_COMMAND;
    server.executing_client = prev_client;
    if (prev_client == NULL) pubsubFlushPendingPushes(); /* messages to c itself go after its reply */

    if (monitor_argv) {
        if (listLength(server.monitors))
            replicationFeedMonitors(c, server.monitors, monitor_dbid, monitor_argv, monitor_argc);
        for (int j = 0; j < monitor_argc; j++) decrRefCount(monitor_argv[j]);
        zfree(monitor_argv);
    }

    if (flags & CALL_SLOWLOG && !(real_cmd->flags & CMD_SKIP_SLOWLOG)) {
        latencyAddSampleIfNeeded(real_cmd->flags & CMD_FAST ? "fast-command" : "command", duration / 1000);
        if (!pending && total >= server.slowlog_log_slower_than) slowlogPushCurrentCommand(c, total);
    }
    if (c->original_argv && !pending) discardOriginalCommandVector(c);
    if (prev_client == NULL) durationAddSample(EL_DURATION_TYPE_CMD, duration);
    if ((flags & CALL_STATS) && !pending) {
        real_cmd->microseconds += total;
        real_cmd->calls++;
        if (failed) real_cmd->failed_calls++;
        if (server.latency_tracking_enabled && !(c->flags & CLIENT_BLOCKED)) latencyRecordCommand(real_cmd, total);
    }
    c->lastcmd = real_cmd;
    if (pending) return;
    server.stat_numcommands++;
    /* CLIENT LIST tot-cmds: commands that ran, not rejected ones; a command
     * that blocked is counted when it completes. */
    if (!(c->flags & CLIENT_BLOCKED)) c->commands_processed++;
}

/* See server.h. Called by blocked.c when a command blocked on keys ends
 * without running again: its timeout passed or CLIENT UNBLOCK ended it
 * (the reply is queued already; an UNBLOCKED error counted the failure).
 * Counts it as call() counts a completed command: commandstats calls and
 * time, latencystats, SLOWLOG, total_commands_processed and tot-cmds, with
 * the time of all its runs. Event loop. */
void updateStatsOnUnblock(client *c) {
    struct serverCommand *cmd = c->lastcmd;
    if (cmd) {
        cmd->calls++;
        cmd->microseconds += c->duration;
        if (server.latency_tracking_enabled) latencyRecordCommand(cmd, c->duration);
        if (!(cmd->flags & CMD_SKIP_SLOWLOG)) slowlogPushCurrentCommand(c, c->duration);
    }
    discardOriginalCommandVector(c);
    c->duration = 0;
    server.stat_numcommands++;
    c->commands_processed++;
}

/* A refused command also spoils the transaction it was sent in; a refused
 * EXEC aborts it (multi.c replies EXECABORT then). */
static void rejectCommand(client *c, robj *reply) {
    if (c->cmd) c->cmd->rejected_calls++;
    if (multiCommandRejected(c, objectGetVal(reply))) return;
    addReplyErrorObject(c, reply);
}

static void rejectCommandSds(client *c, sds s) {
    if (c->cmd) c->cmd->rejected_calls++;
    if (multiCommandRejected(c, s)) {
        sdsfree(s);
        return;
    }
    addReplyErrorSds(c, s);
}

/* Returns "'a' 'b' " for the first arguments of an unknown command. */
static sds unknownCommandArgs(client *c) {
    sds args = sdsempty();
    for (int i = 1; i < c->argc && sdslen(args) < 128; i++)
        args = sdscatprintf(args, "'%.*s' ", 128 - (int)sdslen(args), (char *)objectGetVal(c->argv[i]));
    return args;
}

/* See server.h. */
uint64_t getCommandFlags(client *c) {
    uint64_t flags = c->cmd->flags;
    void (*proc)(client *) = c->cmd->proc;
    if (proc == evalCommand || proc == evalRoCommand || proc == evalShaCommand || proc == evalShaRoCommand)
        return evalGetCommandFlags(c, flags);
    if (proc == fcallCommand || proc == fcallroCommand) return fcallGetCommandFlags(c, flags);
    return flags;
}

/* See server.h. */
int serverIsStaleReplica(void) {
    return server.primary_host && repl.state != REPL_STATE_CONNECTED && !server.repl_serve_stale_data;
}

/* The gate for every request. Returns C_OK if the client may go on reading
 * (the command ran, was rejected, or is held by a pause); C_ERR if the
 * client is being closed. */
int processCommand(client *c) {
    c->cmd = c->lastcmd = c->realcmd = lookupClientCommand(c);
    if (!c->cmd) {
        struct serverCommand *parent = dictFetchValue(server.commands, objectGetVal(c->argv[0]));
        if (parent && parent->subcommands_dict && c->argc >= 2) {
            sds cmd = sdsnew((char *)objectGetVal(c->argv[0]));
            sdstoupper(cmd);
            rejectCommandSds(c, sdscatprintf(sdsempty(),
                                             "unknown subcommand '%.128s'. Try %s HELP.",
                                             (char *)objectGetVal(c->argv[1]), cmd));
            sdsfree(cmd);
        } else {
            sds args = unknownCommandArgs(c);
            rejectCommandSds(c, sdscatprintf(sdsempty(), "unknown command '%.128s', with args beginning with: %s",
                                             (char *)objectGetVal(c->argv[0]), args));
            sdsfree(args);
        }
        return C_OK;
    }
    if ((c->cmd->arity > 0 && c->cmd->arity != c->argc) || (c->argc < -c->cmd->arity)) {
        rejectCommandSds(c, sdscatprintf(sdsempty(), "wrong number of arguments for '%s' command",
                                         c->cmd->fullname));
        return C_OK;
    }

    if (authRequired(c) && !(c->cmd->flags & CMD_NO_AUTH)) {
        rejectCommand(c, shared.noautherr);
        return C_OK;
    }

    /* The user's ACL rules: the command, its keys and its channels. */
    sds aclerr;
    if (c->user && aclCheckClientOrError(c, (c->flags & CLIENT_MULTI) ? ACL_LOG_CTX_MULTI : ACL_LOG_CTX_TOPLEVEL,
                                         &aclerr) != C_OK) {
        rejectCommandSds(c, aclerr);
        return C_OK;
    }

    if ((c->flags & CLIENT_MULTI) && (c->cmd->flags & CMD_NO_MULTI)) {
        rejectCommandSds(c, sdsnew("Command not allowed inside a transaction"));
        return C_OK;
    }

    /* A replica sends clients with CLIENT CAPA redirect to its primary
     * (tested here first: the call would cost every request ~16 instructions). */
    if ((c->capa & CLIENT_CAPA_REDIRECT) && redirectCommandIfNeeded(c)) return C_OK;

    /* Cluster mode: a command with keys (or EXEC) runs on the node that
     * serves their slot; elsewhere it is redirected (cluster_route.c). */
    if (server.cluster_enabled && (c->cmd->key.first > 0 || c->cmd->getkeys_proc || c->cmd->proc == execCommand) &&
        clusterRedirectIfNeeded(c))
        return C_OK;

    /* RESP2 has no push type: a subscribed connection only talks Pub/Sub. */
    if ((c->flags & CLIENT_PUBSUB) && c->resp == 2 && !pubsubAllowedInSubscribedMode(c->cmd)) {
        rejectCommandSds(c, sdscatprintf(sdsempty(),
                                         "Can't execute '%s': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT "
                                         "/ RESET are allowed in this context",
                                         c->cmd->fullname));
        return C_OK;
    }

    if (c->cmd->flags & CMD_PROTECTED && c->cmd->proc == debugCommand && !debugCommandAllowed(c)) {
        rejectCommandSds(c, sdsnew("DEBUG command not allowed. If the enable-debug-command option is set to "
                                   "\"local\", you can run it from a local connection, otherwise you need to set "
                                   "this option in the configuration file, and then restart the server."));
        return C_OK;
    }

    if (c->cmd->flags & CMD_PROTECTED && !moduleCommandAllowed(c)) {
        rejectCommandSds(c, sdsnew("MODULE command not allowed. If the enable-module-command option is set to "
                                   "\"local\", you can run it from a local connection, otherwise you need to set "
                                   "this option in the configuration file, and then restart the server."));
        return C_OK;
    }

    /* The dataset is loading (snapshot.c serves clients meanwhile). A
     * replica loading its primary's snapshot aside (repl-diskless-load
     * swapdb, same history) serves its current data meanwhile: only what
     * cannot run then is refused (no-async-loading, in EXEC's queue too). */
    if (server.loading && !server.async_loading && !(c->cmd->flags & CMD_LOADING)) {
        rejectCommand(c, shared.loadingerr);
        return C_OK;
    }
    if (server.async_loading && (multiEffectiveCommandFlags(c) & CMD_NO_ASYNC_LOADING)) {
        rejectCommand(c, shared.loadingerr);
        return C_OK;
    }

    /* Replication: a read-only replica refuses writes from clients, a
     * replica without its primary may refuse everything (serve-stale-data
     * no), a primary without enough good replicas refuses writes
     * (min-replicas-to-write). Commands from our primary always run. The
     * flags judged are multiEffectiveCommandFlags(): a script's or a
     * function's declared flags for EVAL* and FCALL* (getCommandFlags()),
     * and for EXEC those of the whole queue, so that EXEC of a transaction
     * queued while the link was up is refused once it is down. A script
     * without a shebang declares nothing: its writes are checked one by
     * one as it makes them (script_lua.c). */
    if (server.primary_host && !(c->flags & CLIENT_PRIMARY)) {
        uint64_t flags = multiEffectiveCommandFlags(c);
        if (server.repl_replica_ro && (flags & CMD_WRITE)) {
            rejectCommand(c, shared.roreplicaerr);
            return C_OK;
        }
        if (serverIsStaleReplica() && !(flags & CMD_STALE)) {
            rejectCommand(c, shared.primarydownerr);
            return C_OK;
        }
    } else if (replicationDeniesWrites() && (multiEffectiveCommandFlags(c) & CMD_WRITE)) {
        rejectCommand(c, shared.noreplicaserr);
        return C_OK;
    }

    /* A script past busy-reply-threshold: only allow-busy commands. */
    if (scriptIsBusyAndDenied(c)) return C_OK;

    /* Clients over maxmemory-clients go before any key does
     * (evict_clients.c). If this one went, its command does not run. */
    if (server.maxmemory_clients && evictClients() && (c->flags & CLIENT_CLOSE_ASAP)) return C_OK;

    if (server.maxmemory) {
        int out_of_memory = performEvictions() == EVICT_FAIL;
        /* Evicting takes time: the command reads the clock afresh. */
        if (server.pipeline_clock > 0) server.pipeline_clock = -1;
        if (out_of_memory && (multiEffectiveCommandFlags(c) & CMD_DENYOOM)) {
            rejectCommand(c, shared.oomerr);
            return C_OK;
        }
    }

    /* The last background save failed and stop-writes-on-bgsave-error is
     * on: refuse what would change the data (and PING, so that a health
     * check notices), as Valkey does. */
    if (writeCommandsDeniedByDiskError() &&
        ((multiEffectiveCommandFlags(c) & CMD_WRITE) || c->cmd->proc == pingCommand)) {
        rejectCommand(c, shared.bgsaveerr);
        return C_OK;
    }
    int aof_errno; /* likewise when writing or fsyncing the AOF failed (aof.c) */
    if (!server.primary_host && aofWriteDenied(&aof_errno) &&
        ((multiEffectiveCommandFlags(c) & CMD_WRITE) || c->cmd->proc == pingCommand)) {
        rejectCommandSds(c, sdscatprintf(sdsempty(), "-MISCONF Errors writing to the AOF file: %s",
                                         strerror(aof_errno)));
        return C_OK;
    }

    if (isClientPaused(c)) {
        blockClientForPause(c);
        return C_OK;
    }

    if ((c->flags & CLIENT_MULTI) && !multiCommandSkipsQueue(c->cmd)) {
        queueMultiCommand(c);
        addReply(c, shared.queued);
        return C_OK;
    }

    call(c, CALL_FULL);
    if (blockedHasReadyKeys()) handleClientsBlockedOnKeys(); /* serve BLPOP & co woken by this command */
    return C_OK;
}

/* ---------------------------------------------------------------------------
 * Cron and event-loop hooks
 * ------------------------------------------------------------------------- */

#define run_with_period(_ms_) if (((_ms_) <= 1000 / server.hz) || !(server.cronloops % ((_ms_) / (1000 / server.hz))))

static int serverCron(struct aeEventLoop *eventLoop, long long id, void *clientData) {
    (void)eventLoop;
    (void)id;
    (void)clientData;
    if (server.pause_cron) return 1000 / server.hz; /* DEBUG PAUSE-CRON: skip the work, keep the timer */
    long long cron_start = aeMonotonicUs();
    watchdogCron(); /* the alarm fires only if we do not come back here in time */
    updateCachedTime(1);
    server.lru_clock = getLRUClock();
    updatePeakMemory();

    if (server.dynamic_hz) {
        /* More clients: run the cron more often so per-client work per
         * tick stays small. */
        server.hz = server.config_hz;
        while (listLength(server.clients) / server.hz > 200) {
            server.hz *= 2;
            if (server.hz > CONFIG_MAX_HZ) {
                server.hz = CONFIG_MAX_HZ;
                break;
            }
        }
    } else {
        server.hz = server.config_hz;
    }

    run_with_period(100) {
        trackInstantaneousMetric(STATS_METRIC_COMMAND, server.stat_numcommands, server.mstime, 1000);
        trackInstantaneousMetric(STATS_METRIC_NET_INPUT, server.stat_net_input_bytes, server.mstime, 1000);
        trackInstantaneousMetric(STATS_METRIC_NET_OUTPUT, server.stat_net_output_bytes, server.mstime, 1000);
        trackInstantaneousMetric(STATS_METRIC_NET_INPUT_REPLICATION, server.stat_net_repl_input_bytes,
                                 server.mstime, 1000);
        trackInstantaneousMetric(STATS_METRIC_NET_OUTPUT_REPLICATION, server.stat_net_repl_output_bytes,
                                 server.mstime, 1000);
        trackInstantaneousMetric(STATS_METRIC_EL_CYCLE, server.el_duration[EL_DURATION_TYPE_EL].cnt, server.mstime,
                                 1000);
        /* Per iteration, not per second: the base is the iteration count. */
        trackInstantaneousMetric(STATS_METRIC_EL_DURATION, server.el_duration[EL_DURATION_TYPE_EL].sum,
                                 server.el_duration[EL_DURATION_TYPE_EL].cnt, 1);
    }

    if (server.shutdown_asap && !isShutdownInitiated()) {
        /* shutdown-on-sigint / shutdown-on-sigterm choose the flags. */
        int flags = last_shutdown_signal == SIGINT ? server.shutdown_on_sigint : server.shutdown_on_sigterm;
        if (prepareForShutdown(flags) == C_OK) exit(0);
    } else if (isShutdownInitiated()) {
        /* Waiting for replicas: done when they all caught up, or at the
         * deadline whatever they acknowledged. */
        if (server.mstime >= shutdown_deadline || replicasCaughtUp()) {
            if (finishShutdown() == C_OK) exit(0);
        }
    }

    run_with_period(5000) {
        for (int j = 0; j < server.dbnum; j++) {
            long long size = kvstoreEntryCapacity(server.db[j].keys);
            long long used = kvstoreSize(server.db[j].keys);
            long long vkeys = hashtableSize(server.db[j].expires);
            if (used || vkeys)
                serverLog(LL_DEBUG, "DB %d: %lld keys (%lld volatile) in %lld slots HT.", j, used, vkeys, size);
        }
        serverLog(LL_DEBUG, "%lu clients connected, %zu bytes in use", listLength(server.clients),
                  zmalloc_used_memory());
    }

    clientsCron();
    run_with_period(1000) {
        migrateCloseTimedoutSockets(); /* idle cached MIGRATE connections */
    }
    if (isPausedActions()) updatePausedActions(); /* pauses whose time is up end */

    snapshotCron();
    aofCron();
    run_with_period(1000) replicationCron();
    run_with_period(100) {
        if (server.cluster_enabled) clusterCron(); /* handshakes, pings, failure detection */
    }

    /* Databases: expiry, and incremental rehashing in idle time (not while
     * a snapshot child runs: rehashing would copy every page it touches).
     * With activerehashing no, tables only rehash as commands touch them. */
    if (server.active_expire_enabled) activeExpireCycle(ACTIVE_EXPIRE_CYCLE_SLOW);
    activeDefragCycle(); /* activedefrag: moves blocks out of sparse slabs (defrag.c) */
    for (int j = 0; j < server.dbnum && !hasActiveChildProcess(); j++) {
        /* The keys: shrinks, rehashes, and in cluster mode frees the empty
         * slot tables, 1024 tables a run (kvstore.c). */
        int rehashed = kvstoreCronStep(server.db[j].keys, 1024, 1, server.active_rehashing ? 1000 : 0);
        hashtableShrinkIfNeeded(server.db[j].expires);
        if (rehashed) break;
        if (!server.active_rehashing) continue;
        if (hashtableIsRehashing(server.db[j].expires)) {
            hashtableRehashMicroseconds(server.db[j].expires, 1000);
            break;
        }
    }
    freeClientsInAsyncFreeQueue();
    server.cronloops++;
    durationAddSample(EL_DURATION_TYPE_CRON, aeMonotonicUs() - cron_start);
    return 1000 / server.hz;
}

/* Runs before the event loop sleeps; see the comment at the top. */
static void beforeSleep(struct aeEventLoop *eventLoop) {
    /* Transports whose readiness is not an fd event (RDMA) do their work
     * first: the commands they run, and the clients those wake, get their
     * replies written below, in this iteration, not after the next sleep. */
    connTypesProcessPendingData();
    ioThreadsProcessCompleted(); /* what I/O threads read and wrote: run its commands */
    blockedBeforeSleep(); /* blocked clients: timeouts, ready keys, input left after unblocking */
    processUnpausedClients(); /* clients held by CLIENT PAUSE & co that nothing holds any more */
    if (server.active_expire_enabled) activeExpireCycle(ACTIVE_EXPIRE_CYCLE_FAST);
    trackingBeforeSleep(); /* BCAST invalidations, tracking-table-max-keys */
    if (server.cluster_enabled) clusterBeforeSleep(); /* cluster state, nodes.conf saved before replies go out */
    replicationBeforeSleep(); /* GETACK for new WAIT clients, WAIT clients whose replicas acked */
    aofBeforeSleep(); /* the AOF is written (and fsynced with always) before any reply goes out */
    handleClientsWithPendingWrites();
    evictClients(); /* maxmemory-clients, once the writes have shrunk what they could */
    freeClientsInAsyncFreeQueue();
    /* Work a transport still has queued (more input than one read takes)
     * must not wait for an fd event, nor jobs I/O threads finished. Last:
     * from here a thread finishing a job wakes the loop. */
    int io_done = ioThreadsBeforeSleep();
    aeSetDontWait(eventLoop, connTypesHavePendingData() || io_done);

    /* The iteration that started in afterSleep() ends here (INFO stats
     * eventloop_*). The first call has no start. */
    if (server.el_start_us) {
        durationAddSample(EL_DURATION_TYPE_EL, aeMonotonicUs() - server.el_start_us);
        long long cmds = server.stat_numcommands - server.el_start_cmds;
        if (cmds > server.el_cmd_per_cycle_max) server.el_cmd_per_cycle_max = cmds;
    }
}

static void afterSleep(struct aeEventLoop *eventLoop) {
    (void)eventLoop;
    server.el_start_us = aeMonotonicUs();
    server.el_start_cmds = server.stat_numcommands;
    updateCachedTime(0);
}

/* ---------------------------------------------------------------------------
 * Listeners
 * ------------------------------------------------------------------------- */

static void acceptCallback(connection *conn, int flags, const char *ip) {
    acceptCommonHandler(conn, flags, ip);
}

/* (Re)opens the listener's sockets from its current configuration. Returns
 * C_OK, or C_ERR with the old sockets closed and an error logged. Called at
 * start-up and by CONFIG SET of port/bind/unixsocket/rdma-*. */
int changeListener(connListener *listener) {
    if (listener->ct == NULL) return C_ERR;
    connCloseListener(listener);
    int unix_listener = listener == &server.listeners[CONN_TYPE_UNIX];
    if (listener->port == 0 && !unix_listener) return C_OK;
    if (unix_listener && listener->priv == NULL) return C_OK;
    listener->accept_cb = acceptCallback;
    if (connListen(listener) != C_OK) return C_ERR;
    if (applySocketMark(listener) != C_OK) { /* socket-mark-id */
        connCloseListener(listener);
        return C_ERR;
    }
    return C_OK;
}

static connUnixListenerConfig unixListenerConfig;
static connRdmaListenerConfig rdmaListenerConfig;
static connShmConfig shmConfig;

/* The shm-* options as the shared-memory transport takes them. */
connShmConfig *shmConfigFromServer(void) {
    shmConfig.enabled = server.shm_enabled;
    shmConfig.ring_size = server.shm_ring_size;
    shmConfig.spin_us = server.shm_spin_us;
    return &shmConfig;
}
static connTlsConfig tlsListenerConfig;

/* The tls-* options as the TLS transport takes them. */
connTlsConfig *tlsConfigFromServer(void) {
    connTlsConfig *t = &tlsListenerConfig;
    t->cert_file = server.tls_cert_file;
    t->key_file = server.tls_key_file;
    t->ca_cert_file = server.tls_ca_cert_file;
    t->ca_cert_dir = server.tls_ca_cert_dir;
    t->auth_clients = server.tls_auth_clients;
    t->protocols = server.tls_protocols;
    t->ciphers = server.tls_ciphers;
    t->ciphersuites = server.tls_ciphersuites;
    t->prefer_server_ciphers = server.tls_prefer_server_ciphers;
    t->key_file_pass = server.tls_key_file_pass;
    t->dh_params_file = server.tls_dh_params_file;
    t->session_caching = server.tls_session_caching;
    t->session_cache_size = server.tls_session_cache_size;
    t->session_cache_timeout = server.tls_session_cache_timeout;
    return t;
}

/* Describes the listeners from server's configuration. */
static void configureListeners(void) {
    connListener *l = &server.listeners[CONN_TYPE_SOCKET];
    l->ct = connectionTypeTcp();
    l->bindaddr = server.bindaddr;
    l->bindaddr_count = server.bindaddr_count;
    l->port = server.port;
    l->backlog = server.tcp_backlog;
    l->accept_flags = 0;

    /* The shared-memory transport, when built in, serves the Unix socket:
     * its connections are Unix ones until a client asks to upgrade. */
    l = &server.listeners[CONN_TYPE_UNIX];
    l->ct = connTypeGetByName(CONN_NAME_SHM);
    if (l->ct) connTypeConfigure(l->ct, shmConfigFromServer(), 0);
    else l->ct = connectionTypeUnix();
    unixListenerConfig.path = server.unixsocket;
    unixListenerConfig.perm = server.unixsocketperm;
    l->priv = server.unixsocket ? &unixListenerConfig : NULL;
    l->backlog = server.tcp_backlog;
    l->accept_flags = CLIENT_UNIX_SOCKET;

    l = &server.listeners[CONN_TYPE_TLS];
    l->ct = connTypeGetByName(CONN_NAME_TLS);
    l->priv = tlsConfigFromServer();
    l->bindaddr = server.bindaddr;
    l->bindaddr_count = server.bindaddr_count;
    l->port = server.tls_port;
    l->backlog = server.tcp_backlog;
    l->accept_flags = 0;

    l = &server.listeners[CONN_TYPE_RDMA];
    l->ct = connTypeGetByName("rdma");
    rdmaListenerConfig.rx_size = server.rdma_rx_size;
    rdmaListenerConfig.comp_vector = server.rdma_comp_vector;
    l->priv = &rdmaListenerConfig;
    if (l->ct) connTypeConfigure(l->ct, l->priv, 0); /* Outgoing RDMA connections use it too. */
    l->bindaddr = server.rdma_bindaddr;
    l->bindaddr_count = server.rdma_bindaddr_count;
    l->port = server.rdma_port;
    l->accept_flags = 0;
}

/* Applies configuration changes of one listener (CONFIG SET). Returns C_OK
 * or C_ERR with the reason logged. */
int reconfigureListener(int type) {
    configureListeners();
    connListener *l = &server.listeners[type];
    if (l->ct == NULL) return C_ERR;
    return changeListener(l);
}

static void initListeners(void) {
    configureListeners();
    for (int j = 0; j < CONN_TYPE_MAX; j++) {
        connListener *l = &server.listeners[j];
        if (l->ct == NULL) continue;
        if (j == CONN_TYPE_UNIX ? l->priv == NULL : l->port == 0) continue;
        if (changeListener(l) == C_ERR) {
            serverLog(LL_WARNING, "Failed listening on port %u (%s), aborting.", l->port, l->ct->get_type(NULL));
            exit(1);
        }
    }
    if (server.listeners[CONN_TYPE_SOCKET].count == 0 && server.listeners[CONN_TYPE_UNIX].count == 0 &&
        server.listeners[CONN_TYPE_TLS].count == 0 && server.listeners[CONN_TYPE_RDMA].count == 0) {
        serverLog(LL_WARNING, "Configured to not listen anywhere, exiting.");
        exit(1);
    }
}

/* ---------------------------------------------------------------------------
 * Initialisation and shutdown
 * ------------------------------------------------------------------------- */

static void adjustOpenFilesLimit(void) {
    rlim_t maxfiles = server.maxclients + CONFIG_MIN_RESERVED_FDS;
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) == -1) {
        serverLog(LL_WARNING, "Unable to obtain the current NOFILE limit (%s), assuming 1024 and setting the max "
                              "clients configuration accordingly.", strerror(errno));
        server.maxclients = 1024 - CONFIG_MIN_RESERVED_FDS;
        return;
    }
    if (limit.rlim_cur >= maxfiles) return;
    rlim_t want = maxfiles;
    while (want > limit.rlim_cur) {
        struct rlimit nl = {.rlim_cur = want, .rlim_max = want > limit.rlim_max ? want : limit.rlim_max};
        if (setrlimit(RLIMIT_NOFILE, &nl) != -1) break;
        want -= want > 16 ? 16 : 1;
    }
    if (want < maxfiles) {
        unsigned int old = server.maxclients;
        server.maxclients = want > CONFIG_MIN_RESERVED_FDS ? want - CONFIG_MIN_RESERVED_FDS : 1;
        serverLog(LL_WARNING, "You requested maxclients of %u requiring at least %llu max file descriptors.", old,
                  (unsigned long long)maxfiles);
        serverLog(LL_WARNING, "Server can't set maximum open files to %llu because of OS error: %s.",
                  (unsigned long long)maxfiles, strerror(errno));
        serverLog(LL_WARNING, "Current maximum open files is %llu. maxclients has been reduced to %u to compensate "
                              "for low ulimit. If you need higher maxclients increase 'ulimit -n'.",
                  (unsigned long long)want, server.maxclients);
    } else {
        serverLog(LL_NOTICE, "Increased maximum number of open files to %llu (it was originally set to %llu).",
                  (unsigned long long)maxfiles, (unsigned long long)limit.rlim_cur);
    }
}

/* Removes temp-<pid>.rdb of this process: the file a SAVE running in the
 * event loop (rdb.c) is writing, which nobody would rename or remove once
 * we exit from a signal handler. No stdio, so it is async-signal-safe. */
static void removeOwnTempRdbFromHandler(void) {
    char name[32] = "temp-", digits[20];
    size_t len = 5;
    int n = 0;
    unsigned long pid = (unsigned long)getpid();
    do {
        digits[n++] = (char)('0' + pid % 10);
        pid /= 10;
    } while (pid && n < (int)sizeof(digits));
    while (n) name[len++] = digits[--n];
    memcpy(name + len, ".rdb", 5);
    unlink(name);
}

/* SIGTERM and SIGINT: schedule a shutdown (serverCron runs it). A second
 * SIGINT while one is pending exits at once, with status 1, removing the
 * temp file of a SAVE in progress. Signal handler. */
static void sigShutdownHandler(int sig) {
    const char *msg;
    switch (sig) {
    case SIGINT: msg = "Received SIGINT scheduling shutdown..."; break;
    case SIGTERM: msg = "Received SIGTERM scheduling shutdown..."; break;
    default: msg = "Received shutdown signal, scheduling shutdown...";
    }
    if (server.shutdown_asap && sig == SIGINT) {
        serverLogFromHandler(LL_WARNING, "You insist... exiting now.");
        removeOwnTempRdbFromHandler();
        exit(1);
    }
    if (server.loading) msg = "Received shutdown signal during loading, scheduling shutdown.";
    serverLogFromHandler(LL_WARNING, msg);
    last_shutdown_signal = sig;
    server.shutdown_asap = 1;
}

static void setupSignalHandlers(void) {
    struct sigaction act;
    sigemptyset(&act.sa_mask);
    act.sa_flags = 0;
    act.sa_handler = sigShutdownHandler;
    sigaction(SIGTERM, &act, NULL);
    sigaction(SIGINT, &act, NULL);
    signal(SIGHUP, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    setupSigSegvAction();
}

static void createPidFile(void) {
    if (!server.pidfile) return;
    FILE *fp = fopen(server.pidfile, "w");
    if (fp) {
        fprintf(fp, "%d\n", (int)getpid());
        fclose(fp);
    } else {
        serverLog(LL_WARNING, "Failed to write PID file: %s", strerror(errno));
    }
}

static void daemonize(void) {
    if (fork() != 0) exit(0); /* The parent exits. */
    setsid();
    int fd = open("/dev/null", O_RDWR, 0);
    if (fd != -1) {
        dup2(fd, STDIN_FILENO);
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
        if (fd > STDERR_FILENO) close(fd);
    }
}

/* 1 when no replica lags: each one acknowledged the whole replication
 * stream (with no replica, trivially). */
static int replicasCaughtUp(void) {
    listIter li;
    listNode *ln;
    listRewind(repl.replicas, &li);
    while ((ln = listNext(&li))) {
        client *r = listNodeValue(ln);
        if (r->repl->ack_off != server.primary_repl_offset) return 0;
    }
    return 1;
}

/* Logs each replica that did not acknowledge the whole stream and how many
 * are in sync, as Valkey does before the final save. */
static void logLaggingReplicas(void) {
    int replicas = 0, lagging = 0;
    listIter li;
    listNode *ln;
    listRewind(repl.replicas, &li);
    while ((ln = listNext(&li))) {
        client *r = listNodeValue(ln);
        replicas++;
        if (r->repl->ack_off == server.primary_repl_offset) continue;
        lagging++;
        long lag = r->repl->state == REPLICA_STATE_ONLINE ? (long)(time(NULL) - r->repl->ack_time) : 0;
        serverLog(LL_WARNING, "Lagging replica %s reported offset %lld behind primary, lag=%ld, state=%s.",
                  replicaName(r), server.primary_repl_offset - r->repl->ack_off, lag, replicaStateName(r));
    }
    if (replicas)
        serverLog(LL_NOTICE, "%d of %d replicas are in sync when shutting down.", replicas - lagging, replicas);
}

/* See server.h. */
int isShutdownInitiated(void) {
    return shutdown_deadline != 0;
}

/* See server.h. 0 once the deadline passed (the cron then finishes). */
mstime_t shutdownMillisecondsLeft(void) {
    mstime_t left = shutdown_deadline - commandTimeSnapshot();
    return left > 0 ? left : 0;
}

/* Gives every client whose SHUTDOWN waits the error of a failed shutdown
 * and lets it go on reading. */
static void replyToClientsBlockedOnShutdown(void) {
    listIter li;
    listNode *ln;
    listRewind(server.clients, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        if (!(c->flags & CLIENT_SHUTDOWN_WAIT)) continue;
        c->flags &= ~(CLIENT_SHUTDOWN_WAIT | CLIENT_BLOCKED);
        addReplyError(c, "Errors trying to SHUTDOWN. Check logs.");
        resetClient(c);
        blockedQueueResume(c);
    }
}

/* Back to serving after a shutdown that failed or was aborted: writes
 * resume, waiting SHUTDOWN clients get an error, a signal's request is
 * forgotten. */
static void cancelShutdown(void) {
    server.shutdown_asap = 0;
    shutdown_deadline = 0;
    shutdown_pending_flags = 0;
    replyToClientsBlockedOnShutdown();
    unpauseActions(PAUSE_DURING_SHUTDOWN);
}

/* See server.h. */
int abortShutdown(void) {
    if (isShutdownInitiated()) {
        cancelShutdown();
    } else if (server.shutdown_asap) {
        server.shutdown_asap = 0; /* a signal's request the cron has not acted on yet */
    } else {
        return C_ERR;
    }
    serverLog(LL_NOTICE, "Shutdown manually aborted.");
    return C_OK;
}

/* See server.h. */
void blockClientOnShutdown(client *c) {
    c->flags |= CLIENT_SHUTDOWN_WAIT | CLIENT_BLOCKED;
}

/* See server.h. Starts a shutdown with flags (SHUTDOWN_*). If replicas lag,
 * shutdown-timeout is not 0 and NOW is not given, only starts waiting for
 * them (writes paused, GETACK sent) and returns C_ERR: the cron finishes
 * the shutdown. C_ERR also when one is already under way. Otherwise it is
 * finishShutdown()'s answer. */
int prepareForShutdown(int flags) {
    if (isShutdownInitiated()) return C_ERR;
    /* Never save a half-loaded dataset over the file it comes from. */
    if (server.loading) flags = (flags & ~SHUTDOWN_SAVE) | SHUTDOWN_NOSAVE;
    shutdown_pending_flags = flags;
    serverLog(LL_NOTICE, "User requested shutdown...");
    if (!(flags & SHUTDOWN_NOW) && server.shutdown_timeout != 0 && !replicasCaughtUp()) {
        shutdown_deadline = mstime() + (mstime_t)server.shutdown_timeout * 1000;
        /* GETACK goes into the stream: not while writes are paused (a
         * failover or CLIENT PAUSE counts on a still offset). */
        if (!isPausedActions()) replicationRequestAck();
        pauseActions(PAUSE_DURING_SHUTDOWN, LLONG_MAX, 1);
        serverLog(LL_NOTICE, "Waiting for replicas before shutting down.");
        return C_ERR;
    }
    return finishShutdown();
}

/* See server.h. Stops a running snapshot child and saves the dataset when
 * the flags or the save points ask for it (snapshot.c), then closes
 * listeners, removes the pid file and Unix socket, and logs the goodbye.
 * Returns C_OK when the caller may exit; C_ERR if the final save failed
 * (without FORCE): the shutdown is then cancelled and the server goes on
 * serving as before. */
int finishShutdown(void) {
    int flags = shutdown_pending_flags;
    logLaggingReplicas();
    if (snapshotPrepareForShutdown(flags) != C_OK) {
        serverLog(LL_WARNING, "Errors trying to shut down the server. Check the logs for more information.");
        cancelShutdown();
        return C_ERR;
    }
    for (int j = 0; j < CONN_TYPE_MAX; j++)
        if (server.listeners[j].ct) connCloseListener(&server.listeners[j]);
    if (server.cluster_enabled) {
        serverLog(LL_NOTICE, "Saving the cluster configuration file before exiting.");
        clusterShutdown();
    }
    if (server.unixsocket) {
        serverLog(LL_NOTICE, "Removing the unix socket file.");
        if (unlink(server.unixsocket) != 0)
            serverLog(LL_WARNING, "Error removing the unix socket file: %s", strerror(errno));
    }
    if (server.pidfile) {
        serverLog(LL_NOTICE, "Removing the pid file.");
        unlink(server.pidfile);
    }
    /* Flush what clients are owed (e.g. replies before SHUTDOWN). */
    handleClientsWithPendingWrites();
    serverLog(LL_WARNING, "%s is now ready to exit, bye bye...", "Valkey");
    return C_OK;
}

static void initServer(void) {
    server.pid = getpid();
    server.clients = listCreate();
    server.clients_index = dictCreate(&clientIndexDictType);
    server.clients_to_close = listCreate();
    server.clients_pending_write = listCreate(); /* of nodes embedded in the clients: never free its nodes */
    server.monitors = listCreate();
    server.paused_clients = listCreate();
    server.next_client_id = 1;
    server.errors = dictCreate(&errorStatsDictType);
    server.reply_buffer_peak_reset_time = REPLY_BUFFER_DEFAULT_PEAK_RESET_TIME;
    server.reply_buffer_resizing_enabled = 1;
    createSharedObjects();
    adjustOpenFilesLimit();

    server.el = aeCreateEventLoop(server.maxclients + CONFIG_MIN_RESERVED_FDS + 96);
    if (server.el == NULL) {
        serverLog(LL_WARNING, "Failed creating the event loop. Error message: '%s'", strerror(errno));
        exit(1);
    }
    /* Clients answering at once (one request per round trip) would wake
     * the loop after almost every batch, and waking an idle CPU costs the
     * waker more than the request costs us (ae.c, "Busy polling"). */
    aeSetBusyPoll(server.el, server.busy_poll_us);
    server.db = zcalloc(sizeof(serverDb) * server.dbnum);
    for (int j = 0; j < server.dbnum; j++) {
        server.db[j].keys = dbCreateKeyspace(j);
        server.db[j].expires = hashtableCreate(&dbExpiresHashtableType);
        server.db[j].id = j;
    }
    evictionPoolAlloc();
    listTypeInit();
    setTypeInit();
    hashTypeInit();
    zsetTypeInit();
    streamTypeInit();
    blockedInit();
    multiInit();
    pubsubInit();
    trackingInit();
    slowlogInit();
    latencyMonitorInit();
    snapshotInit();
    replicationInit();
    server.lastsave = time(NULL);
    server.stat_starttime = time(NULL);
    server.lastbgsave_status = C_OK;
    updateCachedTime(1);
    server.lru_clock = getLRUClock();
    getRandomHexChars(server.runid, CONFIG_RUN_ID_SIZE);
    server.runid[CONFIG_RUN_ID_SIZE] = '\0';
    memcpy(server.replid, server.runid, sizeof(server.replid));

    if (aeCreateTimeEvent(server.el, 1, serverCron, NULL, NULL) == AE_ERR) {
        serverPanic("Can't create event loop timers.");
    }
    aeSetBeforeSleepProc(server.el, beforeSleep);
    aeSetAfterSleepProc(server.el, afterSleep);
}

/* Joins argv[optind..] into config text: "--port 7000 --bind a b" becomes
 * "port 7000\nbind a b\n". A lone "-" means read the config from stdin. */
static sds argvToConfigText(int argc, char **argv, int start, char *from_stdin) {
    sds options = sdsempty();
    for (int j = start; j < argc; j++) {
        if (argv[j][0] == '-' && argv[j][1] == '\0' && j == start) {
            *from_stdin = 1;
        } else if (argv[j][0] == '-' && argv[j][1] == '-' && argv[j][2] != '\0') {
            if (sdslen(options)) options = sdscat(options, "\n");
            options = sdscat(options, argv[j] + 2);
            options = sdscat(options, " ");
        } else {
            /* An argument of the previous option, quoted for the parser. */
            options = sdscatrepr(options, argv[j], strlen(argv[j]));
            options = sdscat(options, " ");
        }
    }
    return options;
}

static void usage(void) {
    fprintf(stderr, "Usage: ./valkey-server [/path/to/valkey.conf] [options] [-]\n");
    fprintf(stderr, "       ./valkey-server - (read config from stdin)\n");
    fprintf(stderr, "       ./valkey-server -v or --version\n");
    fprintf(stderr, "       ./valkey-server -h or --help\n\n");
    fprintf(stderr, "Examples:\n");
    fprintf(stderr, "       ./valkey-server (run the server with default conf)\n");
    fprintf(stderr, "       ./valkey-server /etc/valkey/6379.conf\n");
    fprintf(stderr, "       ./valkey-server --port 7777\n");
    fprintf(stderr, "       ./valkey-server --port 7777 --replicaof 127.0.0.1 8888\n");
    fprintf(stderr, "       ./valkey-server /etc/myvalkey.conf --loglevel verbose -\n");
    fprintf(stderr, "       ./valkey-server /etc/myvalkey.conf --loglevel verbose\n");
    exit(1);
}

static void version(void) {
    printf("Valkey server v=%s sha=00000000:0 malloc=jemalloc bits=%d build=0\n", VALKEY_VERSION,
           (int)(sizeof(long) * 8));
    exit(0);
}

/* What start-up does before reading the configuration: locale, seeds, the
 * command table and every config option at its default. */
static void initServerTables(void) {
    setlocale(LC_COLLATE, "");
    tzset();
    srand(time(NULL) ^ getpid());
    {
        uint8_t seed[16];
        getRandomBytes(seed, sizeof(seed));
        dictSetHashFunctionSeed(seed);
    }
    server.commands = dictCreate(&commandTableDictType);
    serverPopulateCommandTable();
    commandParseAllArgs();
    initConfigValues();
    aclInit();
    server.active_expire_enabled = 1;
}

/* Sets the server up as main() does with the default configuration, short
 * of listening, loading data and running the event loop: for programs that
 * link the server's objects to drive its code directly, the fuzz targets
 * (fuzz/). Call once, before anything else; exits on failure as start-up
 * does. */
void initServerEmbedded(void) {
    initServerTables();
    loadServerConfig(NULL, 0, "");
    aclLoadConfiguredUsers();
    initServer();
}

int main(int argc, char **argv) {
    initServerTables();
    server.executable = realpath(argv[0], NULL);
    server.exec_argv = argv;

    /* valkey-check-aof is this binary under another name (aof_check.c). */
    if (strstr(argv[0], "valkey-check-aof") != NULL) {
        initServer();
        return aofCheckMain(argc, argv);
    }

    char config_from_stdin = 0;
    if (argc >= 2) {
        int j = 1;
        if (!strcmp(argv[1], "-v") || !strcmp(argv[1], "--version")) version();
        if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) usage();
        if (argv[1][0] != '-') {
            server.configfile = realpath(argv[1], NULL);
            if (server.configfile == NULL) server.configfile = strdup(argv[1]);
            j = 2;
        }
        sds options = argvToConfigText(argc, argv, j, &config_from_stdin);
        loadServerConfig(server.configfile, config_from_stdin, options);
        sdsfree(options);
    } else {
        loadServerConfig(NULL, 0, "");
    }
    aclLoadConfiguredUsers();

    if (server.daemonize) daemonize();
    serverLogConfig.role = 'M';
    serverLog(LL_NOTICE, "oO0OoO0OoO0Oo Valkey is starting oO0OoO0OoO0Oo");
    serverLog(LL_NOTICE, "Valkey version=%s, bits=%d, commit=00000000, modified=0, pid=%d, just started",
              VALKEY_VERSION, (int)(sizeof(long) * 8), (int)getpid());
    if (argc == 1) {
        serverLog(LL_WARNING, "Warning: no config file specified, using the default config. In order to specify a "
                              "config file use %s /path/to/valkey.conf", argv[0]);
    } else {
        serverLog(LL_NOTICE, "Configuration loaded");
    }

    initServer();
    if (connTypeInitialize(server.el) != C_OK) {
        serverLog(LL_WARNING, "Failed to initialize the connection types.");
        exit(1);
    }
    setupSignalHandlers();
    ioThreadsInit(); /* io-threads: started when there is work for them */
    if (server.pidfile || server.daemonize) {
        if (!server.pidfile) server.pidfile = zstrdup("/var/run/valkey.pid");
        createPidFile();
    }
    if (server.cluster_enabled) clusterInit(); /* nodes.conf locked and loaded, or a new node */
    initListeners();
    if (server.cluster_enabled) clusterInitListener(); /* the cluster port */
    if (applyUnixSocketGroup() == C_ERR) exit(1);
    applyProcessSettings();
    serverSetProcTitle(NULL);
    logStartupBanner();
    serverLog(LL_NOTICE, "Server initialized");
    server.initial_memory_usage = zmalloc_used_memory();
    loadDataFromDisk();
    for (int j = 0; j < CONN_TYPE_MAX; j++) {
        connListener *l = &server.listeners[j];
        if (l->ct && l->count > 0)
            serverLog(LL_NOTICE, "Ready to accept connections %s",
                      j == CONN_TYPE_UNIX ? CONN_NAME_UNIX : l->ct->get_type(NULL));
    }
    aeMain(server.el);
    aeDeleteEventLoop(server.el);
    return 0;
}

/* ---------------------------------------------------------------------------
 * Connection commands: PING ECHO RESET HELLO AUTH
 * ------------------------------------------------------------------------- */

void pingCommand(client *c) {
    if (c->argc > 2) {
        addReplyErrorArity(c);
        return;
    }
    if (c->flags & CLIENT_PUBSUB && c->resp == 2) {
        addReplyProto(c, "*2\r\n$4\r\npong\r\n", 14);
        if (c->argc == 1) addReplyBulkCBuffer(c, "", 0);
        else addReplyBulk(c, c->argv[1]);
    } else if (c->argc == 1) {
        addReply(c, shared.pong);
    } else {
        addReplyBulk(c, c->argv[1]);
    }
}

void echoCommand(client *c) {
    addReplyBulk(c, c->argv[1]);
}

/* QUIT: reply OK, then close once the reply is written. */
void quitCommand(client *c) {
    addReply(c, shared.ok);
    c->flags |= CLIENT_CLOSE_AFTER_REPLY;
}

/* RESET: back to a fresh connection's state. */
void resetCommand(client *c) {
    discardTransaction(c);
    pubsubUnsubscribeAll(c, 0);
    disableTracking(c);
    c->flags &= ~(CLIENT_REPLY_OFF | CLIENT_REPLY_SKIP | CLIENT_REPLY_SKIP_NEXT | CLIENT_NO_EVICT | CLIENT_NO_TOUCH |
                  CLIENT_READONLY);
    if (c->flags & CLIENT_MONITOR) {
        listNode *ln = listSearchKey(server.monitors, c);
        if (ln) listDelNode(server.monitors, ln);
        c->flags &= ~(CLIENT_MONITOR | CLIENT_REPLICA);
    }
    selectDb(c, 0);
    c->resp = 2;
    if (c->name) {
        decrRefCount(c->name);
        c->name = NULL;
    }
    aclClientInit(c);
    addReplyStatus(c, "RESET");
}

void authCommand(client *c) {
    for (int j = 1; j < c->argc; j++) redactClientCommandArgument(c, j);
    if (c->argc > 3) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    robj *username = c->argc == 3 ? c->argv[1] : NULL;
    robj *password = c->argv[c->argc - 1];
    if (c->argc == 2 && aclDefaultUserIsOpen()) {
        addReplyError(c, "AUTH <password> called without any password configured for the default user. Are you "
                         "sure your configuration is correct?");
        return;
    }
    if (aclAuthenticate(c, username, password) == C_OK) {
        addReply(c, shared.ok);
    } else {
        addReplyError(c, "-WRONGPASS invalid username-password pair or user is disabled.");
    }
}

void helloCommand(client *c) {
    long long ver = 0;
    int next = 1;
    if (c->argc >= 2) {
        if (getLongLongFromObjectOrReply(c, c->argv[next++], &ver,
                                         "Protocol version is not an integer or out of range") != C_OK)
            return;
        if (ver < 2 || ver > 3) {
            addReplyError(c, "-NOPROTO unsupported protocol version");
            return;
        }
    }
    robj *username = NULL, *password = NULL, *clientname = NULL;
    for (int j = next; j < c->argc; j++) {
        int moreargs = (c->argc - 1) - j;
        const char *opt = objectGetVal(c->argv[j]);
        if (!strcasecmp(opt, "AUTH") && moreargs >= 2) {
            redactClientCommandArgument(c, j + 1);
            redactClientCommandArgument(c, j + 2);
            username = c->argv[j + 1];
            password = c->argv[j + 2];
            j += 2;
        } else if (!strcasecmp(opt, "SETNAME") && moreargs) {
            clientname = c->argv[j + 1];
            const char *p = objectGetVal(clientname);
            for (size_t i = 0; i < sdslen(objectGetVal(clientname)); i++) {
                if (p[i] < '!' || p[i] > '~') {
                    addReplyError(c, "Client names cannot contain spaces, newlines or special characters.");
                    return;
                }
            }
            j++;
        } else {
            addReplyErrorFormat(c, "Syntax error in HELLO option '%s'", opt);
            return;
        }
    }
    if (username && aclAuthenticate(c, username, password) == C_ERR) {
        addReplyError(c, "-WRONGPASS invalid username-password pair or user is disabled.");
        return;
    }
    if (authRequired(c)) {
        addReplyError(c, "-NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO "
                         "<proto> AUTH <user> <pass> option can be used to authenticate the client and select the "
                         "RESP protocol version at the same time");
        return;
    }
    if (clientname) {
        if (c->name) decrRefCount(c->name);
        c->name = sdslen(objectGetVal(clientname)) ? clientname : NULL;
        if (c->name) incrRefCount(c->name);
    }
    if (ver) c->resp = ver;

    int az = server.availability_zone && server.availability_zone[0] != '\0';
    addReplyMapLen(c, 7 + az);
    /* extended-redis-compatibility: answer as Redis 7.2.4, as Valkey does. */
    addReplyBulkCString(c, "server");
    addReplyBulkCString(c, server.extended_redis_compat ? "redis" : "valkey");
    addReplyBulkCString(c, "version");
    addReplyBulkCString(c, server.extended_redis_compat ? "7.2.4" : VALKEY_VERSION);
    addReplyBulkCString(c, "proto");
    addReplyLongLong(c, c->resp);
    addReplyBulkCString(c, "id");
    addReplyLongLong(c, c->id);
    addReplyBulkCString(c, "mode");
    addReplyBulkCString(c, "standalone");
    addReplyBulkCString(c, "role");
    addReplyBulkCString(c, "master");
    addReplyBulkCString(c, "modules");
    addReplyArrayLen(c, 0);
    if (az) { /* availability-zone, only when set (as Valkey) */
        addReplyBulkCString(c, "availability_zone");
        addReplyBulkCString(c, server.availability_zone);
    }
}

extern struct serverCommand clientSubcommands[];

struct serverCommand connectionCommands[] = {
    {.name = "ping", .proc = pingCommand, .arity = -1, .flags = CMD_FAST | CMD_SENTINEL,
     .acl_categories = ACL_CATEGORY_CONNECTION, .group = "connection", .since = "1.0.0",
     .summary = "Returns the server's liveliness response.", .complexity = "O(1)",
     .args = "[message]"},
    {.name = "echo", .proc = echoCommand, .arity = 2, .flags = CMD_LOADING | CMD_STALE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_CONNECTION, .group = "connection", .since = "1.0.0",
     .summary = "Returns the given string.", .complexity = "O(1)",
     .args = "message"},
    {.name = "quit", .proc = quitCommand, .arity = -1,
     .flags = CMD_ALLOW_BUSY | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_NO_AUTH,
     .acl_categories = ACL_CATEGORY_CONNECTION, .group = "connection", .since = "1.0.0",
     .summary = "Closes the connection.", .complexity = "O(1)"},
    {.name = "reset", .proc = resetCommand, .arity = 1,
     .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_NO_AUTH | CMD_ALLOW_BUSY,
     .acl_categories = ACL_CATEGORY_CONNECTION, .group = "connection", .since = "6.2.0",
     .summary = "Resets the connection.", .complexity = "O(1)"},
    {.name = "hello", .proc = helloCommand, .arity = -1,
     .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_NO_AUTH | CMD_SENTINEL | CMD_ALLOW_BUSY,
     .acl_categories = ACL_CATEGORY_CONNECTION, .group = "connection", .since = "6.0.0",
     .summary = "Handshakes with the server.", .complexity = "O(1)",
     .args = "[protover:integer [AUTH username password] [SETNAME clientname]]"},
    {.name = "auth", .proc = authCommand, .arity = -2,
     .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_NO_AUTH | CMD_SENTINEL | CMD_ALLOW_BUSY,
     .acl_categories = ACL_CATEGORY_CONNECTION, .group = "connection", .since = "1.0.0",
     .summary = "Authenticates the connection.", .complexity = "O(N) where N is the number of passwords defined for "
                                                              "the user",
     .args = "[username] password"},
    {.name = "client", .subcommands = clientSubcommands, .arity = -2,
     .flags = CMD_SENTINEL, .acl_categories = 0, /* @slow only, as Valkey */
     .group = "connection", .since = "2.4.0", .summary = "A container for client connection commands.",
     .complexity = "Depends on subcommand."},
    {0},
};
