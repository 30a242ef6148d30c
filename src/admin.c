/* admin.c - small server-wide commands (TIME, LASTSAVE, SHUTDOWN, MONITOR,
 * WAITAOF) and the command table rows of the introspection subsystem
 * (CLUSTER and ASKING are cluster_cmd.c's; READONLY and READWRITE, which
 * serve standalone replicas too, redirect.c's).
 *
 * WAITAOF counts AOF fsyncs, locally (aof.c tells when every write made
 * before the command is fsynced) and on replicas (those with appendonly
 * yes report the replication offset their AOF fsynced in REPLCONF ACK
 * ... FACK, replication.c). A wait that cannot be satisfied yet blocks
 * until it is, or its timeout (0 = forever, or CLIENT UNBLOCK); aof.c
 * answers the waits it satisfies.
 * WAIT and ROLE live in replication.c.
 *
 * MONITOR turns a client into a passive listener: it is added to
 * server.monitors with CLIENT_MONITOR|CLIENT_REPLICA set, and call()
 * (server.c) hands every executed command to replicationFeedMonitors(),
 * which formats one status line per command and queues it to each monitor.
 * Admin commands and those flagged CMD_SKIP_MONITOR are filtered by call();
 * the skip-monitor ones (EVAL*, FCALL*) feed themselves before they run, so
 * a script's line comes before the lines of the commands it calls.
 * Secrets are shown as "(redacted)": AUTH's arguments, HELLO's AUTH user
 * and password, MIGRATE's AUTH password and AUTH2 user and password.
 * freeClient() must remove a monitor from server.monitors.
 *
 * SHUTDOWN parses its options here and leaves the actual work (waiting
 * for lagging replicas, saving, closing listeners, removing files) to
 * prepareForShutdown() in server.c; SHUTDOWN ABORT cancels a wait.
 *
 * The table at the bottom, serverAdminCommands[], declares the commands of
 * info.c, cmdinfo.c, debug.c, slowlog.c, latency.c and this file; commands.c
 * lists it. */
#include "server.h"

#include <strings.h>
#include <sys/time.h>

#include "aof.h"
#include "blocked.h"
#include "latency.h"
#include "redirect.h"
#include "replication.h"
#include "slowlog.h"

/* TIME: [unix seconds, microseconds] as two bulk strings. */
void timeCommand(client *c) {
    /* The time the running command started at (call() caches it), as in
     * Valkey: a script sees one time from its first line to its last. */
    long long now = server.ustime;
    addReplyArrayLen(c, 2);
    addReplyBulkLongLong(c, now / 1000000);
    addReplyBulkLongLong(c, now % 1000000);
}

/* LASTSAVE: unix time of the last successful save. */
void lastsaveCommand(client *c) {
    addReplyLongLong(c, server.lastsave);
}

/* Parses the "numreplicas timeout" tail of WAIT/WAITAOF from argv[first]. */
static int parseWaitArgs(client *c, int first, long *numreplicas, mstime_t *timeout) {
    if (getLongFromObjectOrReply(c, c->argv[first], numreplicas, NULL) != C_OK) return C_ERR;
    return getTimeoutFromObjectOrReply(c, c->argv[first + 1], timeout, UNIT_MILLISECONDS);
}

/* WAITAOF numlocal numreplicas timeout: [local AOF fsyncs, replicas that
 * fsynced]; with appendonly off a local fsync cannot be waited for. */
static void waitaofCommand(client *c) {
    long numlocal, numreplicas;
    mstime_t timeout;
    if (server.primary_host) {
        addReplyError(c, "WAITAOF cannot be used with replica instances. Please also note that writes to replicas "
                         "are just local and are not propagated.");
        return;
    }
    if (getLongFromObjectOrReply(c, c->argv[1], &numlocal, NULL) != C_OK) return;
    if (parseWaitArgs(c, 2, &numreplicas, &timeout) != C_OK) return;
    if (numlocal > 0 && !server.aof_enabled) {
        addReplyError(c, "WAITAOF cannot be used when numlocal is set but appendonly is disabled.");
        return;
    }
    c->woff = server.primary_repl_offset;
    c->aof_woff = aofWrittenOffset();
    if (((numlocal <= 0 || aofLocalFsyncAcked(c)) && replicationCountAofAcks(c->woff) >= numreplicas) ||
        blockingDenied(c)) {
        addReplyWaitAcks(c, BLOCKED_WAITAOF);
        return;
    }
    blockForKeys(c, BLOCKED_WAITAOF, NULL, 0, timeout);
    aofWaitingClientAdd(c);
    if (numreplicas > 0) replicationRequestAck();
}

/* MONITOR: from now on, every command executed by anyone is streamed to c. */
void monitorCommand(client *c) {
    if (c->flags & CLIENT_MULTI) {
        addReplyError(c, "MONITOR isn't allowed for DENY BLOCKING client");
        return;
    }
    /* Already a monitor (or a replica): nothing to do, and no reply. */
    if (c->flags & CLIENT_REPLICA) return;
    c->flags |= CLIENT_REPLICA | CLIENT_MONITOR;
    listAddNodeTail(server.monitors, c);
    addReply(c, shared.ok);
}

static int monitorArgIs(robj *a, const char *word) {
    return sdsEncodedObject(a) && !strcasecmp(objectGetVal(a), word);
}

/* Marks in redact[] the arguments MONITOR must not show (see the file
 * comment). */
static void monitorFindSecrets(robj **argv, int argc, char *redact) {
    if (argc < 2) return;
    if (monitorArgIs(argv[0], "auth")) {
        for (int j = 1; j < argc; j++) redact[j] = 1;
    } else if (monitorArgIs(argv[0], "hello")) {
        /* HELLO protover [AUTH username password] [SETNAME name] */
        for (int j = 2; j < argc; j++) {
            if (monitorArgIs(argv[j], "auth") && j + 2 < argc) {
                redact[j + 1] = redact[j + 2] = 1;
                j += 2;
            } else if (monitorArgIs(argv[j], "setname")) {
                j++;
            }
        }
    } else if (monitorArgIs(argv[0], "migrate")) {
        /* MIGRATE host port key db timeout [COPY] [REPLACE]
         * [AUTH password | AUTH2 username password] [KEYS key ...] */
        for (int j = 6; j < argc && !monitorArgIs(argv[j], "keys"); j++) {
            if (monitorArgIs(argv[j], "auth") && j + 1 < argc) {
                redact[++j] = 1;
            } else if (monitorArgIs(argv[j], "auth2") && j + 2 < argc) {
                redact[j + 1] = redact[j + 2] = 1;
                j += 2;
            }
        }
    }
}

/* Sends every client in monitors the line describing a command run by c
 * in database dictid:
 *     +1700000000.123456 [0 127.0.0.1:5555] "set" "k" "v"
 * (unix:<path> for Unix socket clients, "lua" for scripts), secrets shown
 * as "(redacted)". argv stays owned by the caller. Called by call(), and by
 * the EVAL and FCALL families for themselves, in the event-loop thread. */
void replicationFeedMonitors(client *c, list *monitors, int dictid, robj **argv, int argc) {
    if (monitors == NULL || listLength(monitors) == 0) return;
    struct timeval tv;
    gettimeofday(&tv, NULL);
    sds line = sdscatprintf(sdsempty(), "+%ld.%06ld ", (long)tv.tv_sec, (long)tv.tv_usec);
    if (c->flags & CLIENT_SCRIPT) {
        line = sdscatprintf(line, "[%d lua] ", dictid);
    } else if (c->flags & CLIENT_UNIX_SOCKET) {
        line = sdscatprintf(line, "[%d unix:%s] ", dictid, server.unixsocket ? server.unixsocket : "");
    } else {
        line = sdscatprintf(line, "[%d %s] ", dictid, getClientPeerId(c));
    }
    char *redact = zcalloc(argc);
    monitorFindSecrets(argv, argc, redact);
    for (int j = 0; j < argc; j++) {
        if (j) line = sdscatlen(line, " ", 1);
        robj *a = argv[j];
        if (redact[j]) {
            line = sdscat(line, "\"(redacted)\"");
        } else if (a->type == OBJ_STRING && !sdsEncodedObject(a)) {
            line = sdscatprintf(line, "\"%ld\"", (long)objectGetVal(a));
        } else if (a->type == OBJ_STRING) {
            line = sdscatrepr(line, objectGetVal(a), sdslen(objectGetVal(a)));
        } else {
            line = sdscat(line, "\"?\"");
        }
    }
    zfree(redact);
    line = sdscatlen(line, "\r\n", 2);
    robj *obj = createObject(OBJ_STRING, line);
    listIter li;
    listNode *ln;
    listRewind(monitors, &li);
    while ((ln = listNext(&li)) != NULL) {
        client *monitor = listNodeValue(ln);
        addReply(monitor, obj);
    }
    decrRefCount(obj);
}

/* SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT]: on success the process
 * exits here and the client gets no reply; on failure the error below. */
void shutdownCommand(client *c) {
    int flags = SHUTDOWN_NOFLAGS, abort_requested = 0;
    for (int j = 1; j < c->argc; j++) {
        const char *opt = objectGetVal(c->argv[j]);
        if (!strcasecmp(opt, "nosave")) flags |= SHUTDOWN_NOSAVE;
        else if (!strcasecmp(opt, "save")) flags |= SHUTDOWN_SAVE;
        else if (!strcasecmp(opt, "now")) flags |= SHUTDOWN_NOW;
        else if (!strcasecmp(opt, "force")) flags |= SHUTDOWN_FORCE;
        else if (!strcasecmp(opt, "abort")) abort_requested = 1;
        else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    if ((abort_requested && flags != SHUTDOWN_NOFLAGS) ||
        ((flags & SHUTDOWN_NOSAVE) && (flags & SHUTDOWN_SAVE))) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    if (abort_requested) {
        if (abortShutdown() == C_OK) addReply(c, shared.ok);
        else addReplyError(c, "No shutdown in progress.");
        return;
    }
    /* A client that cannot wait (a script's, a transaction's) must not
     * start a shutdown that may wait. */
    if (!(flags & SHUTDOWN_NOW) && ((c->flags & (CLIENT_MULTI | CLIENT_SCRIPT | CLIENT_FAKE)) || server.in_exec)) {
        addReplyError(c, "SHUTDOWN without NOW or ABORT isn't allowed for DENY BLOCKING client");
        return;
    }
    /* Never save a half-loaded dataset over the file it comes from. */
    if (server.loading) flags = (flags & ~SHUTDOWN_SAVE) | SHUTDOWN_NOSAVE;
    if (!(flags & SHUTDOWN_NOSAVE) && isInsideYieldingLongCommand()) {
        addReplyErrorObject(c, shared.slowevalerr); /* a busy script: only SHUTDOWN NOSAVE */
        return;
    }
    if (prepareForShutdown(flags) == C_OK) exit(0);
    /* Waiting for lagging replicas (this shutdown or one already under
     * way): the client waits too, and gets no reply if the server exits. */
    if (isShutdownInitiated()) {
        blockClientOnShutdown(c);
        return;
    }
    addReplyError(c, "Errors trying to SHUTDOWN. Check logs.");
}

/* ---------------------------------------------------------------------------
 * Command table
 * ------------------------------------------------------------------------- */

void infoCommand(client *c);
void commandCommand(client *c);
void commandCountCommand(client *c);
void commandInfoCommand(client *c);
void commandListCommand(client *c);
void commandDocsCommand(client *c);
void commandGetKeysCommand(client *c);
void commandGetKeysAndFlagsCommand(client *c);
void commandHelpCommand(client *c);
void slowlogGetCommand(client *c);
void slowlogLenCommand(client *c);
void slowlogResetCommand(client *c);
void slowlogHelpCommand(client *c);

#define INTROSPECT (CMD_LOADING | CMD_STALE | CMD_SENTINEL)

static struct serverCommand commandSubcommands[] = {
    {.name = "count", .proc = commandCountCommand, .arity = 2, .flags = INTROSPECT,
     .acl_categories = ACL_CATEGORY_CONNECTION, .group = "server", .since = "2.8.13",
     .summary = "Returns a count of commands.", .complexity = "O(1)"},
    {.name = "docs", .proc = commandDocsCommand, .arity = -2, .flags = INTROSPECT,
     .acl_categories = ACL_CATEGORY_CONNECTION, .group = "server", .since = "7.0.0",
     .summary = "Returns documentary information about one, multiple or all commands.",
     .complexity = "O(N) where N is the number of commands to look up",
     .args = "[command-name [command-name ...]]"},
    {.name = "getkeys", .proc = commandGetKeysCommand, .arity = -3, .flags = INTROSPECT,
     .acl_categories = ACL_CATEGORY_CONNECTION, .group = "server", .since = "2.8.13",
     .summary = "Extracts the key names from an arbitrary command.",
     .complexity = "O(N) where N is the number of arguments to the command",
     .args = "command [arg [arg ...]]"},
    {.name = "getkeysandflags", .proc = commandGetKeysAndFlagsCommand, .arity = -3, .flags = INTROSPECT,
     .acl_categories = ACL_CATEGORY_CONNECTION, .group = "server", .since = "7.0.0",
     .summary = "Extracts the key names and access flags for an arbitrary command.",
     .complexity = "O(N) where N is the number of arguments to the command",
     .args = "command [arg [arg ...]]"},
    {.name = "help", .proc = commandHelpCommand, .arity = 2, .flags = INTROSPECT,
     .acl_categories = ACL_CATEGORY_CONNECTION, .group = "server", .since = "5.0.0",
     .summary = "Returns helpful text about the different subcommands.", .complexity = "O(1)"},
    {.name = "info", .proc = commandInfoCommand, .arity = -2, .flags = INTROSPECT,
     .acl_categories = ACL_CATEGORY_CONNECTION, .group = "server", .since = "2.8.13",
     .summary = "Returns information about one, multiple or all commands.",
     .complexity = "O(N) where N is the number of commands to look up",
     .args = "[command-name [command-name ...]]"},
    {.name = "list", .proc = commandListCommand, .arity = -2, .flags = INTROSPECT,
     .acl_categories = ACL_CATEGORY_CONNECTION, .group = "server", .since = "7.0.0",
     .summary = "Returns a list of command names.", .complexity = "O(N) where N is the total number of commands",
     .args = "[filterby=[FILTERBY <MODULE module-name | ACLCAT category | PATTERN pattern>]]"},
    {0},
};

static struct serverCommand slowlogSubcommands[] = {
    {.name = "get", .proc = slowlogGetCommand, .arity = -2, .flags = CMD_ADMIN | CMD_LOADING | CMD_STALE,
     .group = "server", .since = "2.2.12", .summary = "Returns the slow log's entries.",
     .complexity = "O(N) where N is the number of entries returned",
     .args = "[count]"},
    {.name = "help", .proc = slowlogHelpCommand, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .group = "server",
     .since = "6.2.0", .summary = "Show helpful text about the different subcommands", .complexity = "O(1)"},
    {.name = "len", .proc = slowlogLenCommand, .arity = 2, .flags = CMD_ADMIN | CMD_LOADING | CMD_STALE,
     .group = "server", .since = "2.2.12", .summary = "Returns the number of entries in the slow log.",
     .complexity = "O(1)"},
    {.name = "reset", .proc = slowlogResetCommand, .arity = 2, .flags = CMD_ADMIN | CMD_LOADING | CMD_STALE,
     .group = "server", .since = "2.2.12", .summary = "Clears all entries from the slow log.",
     .complexity = "O(N) where N is the number of entries in the slowlog"},
    {0},
};

#define LATENCY_FLAGS (CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE)

static struct serverCommand latencySubcommands[] = {
    {.name = "doctor", .proc = latencyCommand, .arity = 2, .flags = LATENCY_FLAGS, .group = "server",
     .since = "2.8.13", .summary = "Returns a human-readable latency analysis report.", .complexity = "O(1)"},
    {.name = "graph", .proc = latencyCommand, .arity = 3, .flags = LATENCY_FLAGS, .group = "server",
     .since = "2.8.13", .summary = "Returns a latency graph for an event.", .complexity = "O(1)",
     .args = "event"},
    {.name = "help", .proc = latencyCommand, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .group = "server",
     .since = "2.8.13", .summary = "Returns helpful text about the different subcommands.", .complexity = "O(1)"},
    {.name = "histogram", .proc = latencyCommand, .arity = -2, .flags = LATENCY_FLAGS, .group = "server",
     .since = "7.0.0", .summary = "Returns the cumulative distribution of latencies of a subset or all commands.",
     .complexity = "O(N) where N is the number of commands with latency information being retrieved.",
     .args = "[command [command ...]]"},
    {.name = "history", .proc = latencyCommand, .arity = 3, .flags = LATENCY_FLAGS, .group = "server",
     .since = "2.8.13", .summary = "Returns timestamp-latency samples for an event.", .complexity = "O(1)",
     .args = "event"},
    {.name = "latest", .proc = latencyCommand, .arity = 2, .flags = LATENCY_FLAGS, .group = "server",
     .since = "2.8.13", .summary = "Returns the latest latency samples for all events.", .complexity = "O(1)"},
    {.name = "reset", .proc = latencyCommand, .arity = -2, .flags = LATENCY_FLAGS, .group = "server",
     .since = "2.8.13", .summary = "Resets the latency data for one or more events.", .complexity = "O(1)",
     .args = "[event [event ...]]"},
    {0},
};

struct serverCommand serverAdminCommands[] = {
    {.name = "info", .proc = infoCommand, .arity = -1, .flags = CMD_LOADING | CMD_STALE | CMD_SENTINEL,
     .acl_categories = ACL_CATEGORY_DANGEROUS, .group = "server", .since = "1.0.0",
     .summary = "Returns information and statistics about the server.", .complexity = "O(1)",
     .args = "[section [section ...]]"},
    {.name = "command", .proc = commandCommand, .arity = -1, .flags = INTROSPECT,
     .acl_categories = ACL_CATEGORY_CONNECTION, .group = "server", .since = "2.8.13",
     .summary = "Returns detailed information about all commands.",
     .complexity = "O(N) where N is the total number of commands", .subcommands = commandSubcommands},
    {.name = "debug", .proc = debugCommand, .arity = -2,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_PROTECTED, .group = "server",
     .since = "1.0.0", .summary = "A container for debugging commands.",
     .complexity = "Depends on subcommand.",
     .args = "subcommand [argument [argument ...]]"},
    {.name = "slowlog", .proc = slowlogCommand, .arity = -2, .group = "server", .since = "2.2.12",
     .summary = "A container for slow log commands.", .complexity = "Depends on subcommand.",
     .subcommands = slowlogSubcommands},
    {.name = "latency", .proc = latencyCommand, .arity = -2, .group = "server", .since = "2.8.13",
     .summary = "A container for latency diagnostics commands.", .complexity = "Depends on subcommand.",
     .subcommands = latencySubcommands},
    {.name = "monitor", .proc = monitorCommand, .arity = 1, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,
     .group = "server", .since = "1.0.0", .summary = "Listens for all requests received by the server in real-time.",
     .complexity = "O(1)"},
    {.name = "time", .proc = timeCommand, .arity = 1, .flags = CMD_LOADING | CMD_STALE | CMD_FAST, .group = "server",
     .since = "2.6.0", .summary = "Returns the server time.", .complexity = "O(1)"},
    {.name = "waitaof", .proc = waitaofCommand, .arity = 4, .flags = CMD_BLOCKING,
     .acl_categories = ACL_CATEGORY_CONNECTION, .group = "generic", .since = "7.2.0",
     .summary = "Blocks until all of the preceding write commands sent by the connection are written to the "
                "append-only file of the primary and/or replicas.",
     .complexity = "O(1)", .args = "numlocal:integer numreplicas:integer timeout:integer"},
    {.name = "readonly", .proc = readonlyCommand, .arity = 1, .flags = CMD_FAST | CMD_LOADING | CMD_STALE,
     .acl_categories = ACL_CATEGORY_CONNECTION, .group = "cluster", .since = "3.0.0",
     .summary = "Enables read-only queries for a connection to a Valkey replica node.", .complexity = "O(1)"},
    {.name = "readwrite", .proc = readwriteCommand, .arity = 1, .flags = CMD_FAST | CMD_LOADING | CMD_STALE,
     .acl_categories = ACL_CATEGORY_CONNECTION, .group = "cluster", .since = "3.0.0",
     .summary = "Enables read-write queries for a connection to a Valkey replica node.", .complexity = "O(1)"},
    {.name = "lastsave", .proc = lastsaveCommand, .arity = 1, .flags = CMD_LOADING | CMD_STALE | CMD_FAST,
     .acl_categories = ACL_CATEGORY_ADMIN | ACL_CATEGORY_DANGEROUS, .group = "server", .since = "1.0.0",
     .summary = "Returns the Unix timestamp of the last successful save to disk.", .complexity = "O(1)"},
    {.name = "shutdown", .proc = shutdownCommand, .arity = -1,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_NO_MULTI | CMD_SENTINEL | CMD_ALLOW_BUSY,
     .group = "server", .since = "1.0.0", .summary = "Synchronously saves the database(s) to disk and shuts down the server.",
     .complexity = "O(N) when saving, where N is the total number of keys in all databases when saving data, otherwise O(1)",
     .args = "[save-selector=[NOSAVE | SAVE]] [NOW] [FORCE] [ABORT]"},
    {0},
};
