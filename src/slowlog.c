/* slowlog.c - the slow log and the SLOWLOG command.
 *
 * call() (server.c) times every command and hands the duration to
 * slowlogPushEntryIfNeeded(); commands at or above slowlog-log-slower-than
 * microseconds are copied into a new entry at the head of server.slowlog,
 * and the tail is trimmed to slowlog-max-len. A negative threshold disables
 * logging; 0 logs everything. Commands flagged CMD_SKIP_SLOWLOG (EXEC) are
 * filtered by call(), not here; the commands inside a transaction or a
 * script are logged one by one, and so is EVAL/FCALL itself. Secrets never
 * reach the log: commands that take them (AUTH, HELLO AUTH, ACL SETUSER,
 * CONFIG SET requirepass...) replace them in the original argv with
 * "(redacted)" (redactClientCommandArgument(), networking.c).
 *
 * Entries never reference the client's argv: each argument is copied, long
 * strings are cut at SLOWLOG_ENTRY_MAX_STRING bytes with a note of how much
 * was dropped, and argument lists longer than SLOWLOG_ENTRY_MAX_ARGC end
 * with a note of how many arguments were dropped. This bounds the memory a
 * single entry can hold.
 *
 * Everything here runs in the event-loop thread. */
#include "slowlog.h"

#include <strings.h>

static void slowlogFreeEntry(void *ptr) {
    slowlogEntry *se = ptr;
    for (int j = 0; j < se->argc; j++) decrRefCount(se->argv[j]);
    zfree(se->argv);
    sdsfree(se->peerid);
    sdsfree(se->cname);
    zfree(se);
}

/* Copies one argument, cutting long strings. */
static robj *slowlogCopyArg(robj *arg) {
    if (arg->type != OBJ_STRING) return createStringObject("?", 1);
    if (!sdsEncodedObject(arg)) return createStringObjectFromLongLong((long)objectGetVal(arg));
    size_t len = sdslen(objectGetVal(arg));
    if (len <= SLOWLOG_ENTRY_MAX_STRING) return createStringObject(objectGetVal(arg), len);
    sds s = sdsnewlen(objectGetVal(arg), SLOWLOG_ENTRY_MAX_STRING);
    s = sdscatprintf(s, "... (%lu more bytes)", (unsigned long)(len - SLOWLOG_ENTRY_MAX_STRING));
    return createObject(OBJ_STRING, s);
}

static slowlogEntry *slowlogCreateEntry(client *c, robj **argv, int argc, long long duration) {
    slowlogEntry *se = zmalloc(sizeof(*se));
    int kept = argc > SLOWLOG_ENTRY_MAX_ARGC ? SLOWLOG_ENTRY_MAX_ARGC : argc;
    se->argc = kept;
    se->argv = zmalloc(sizeof(robj *) * kept);
    for (int j = 0; j < kept; j++) {
        if (j == kept - 1 && kept != argc) {
            /* The last slot tells how much we left out. */
            se->argv[j] = createObject(
                OBJ_STRING, sdscatprintf(sdsempty(), "... (%d more arguments)", argc - SLOWLOG_ENTRY_MAX_ARGC + 1));
        } else {
            se->argv[j] = slowlogCopyArg(argv[j]);
        }
    }
    se->time = time(NULL);
    se->duration = duration;
    se->id = server.slowlog_entry_id++;
    se->peerid = sdsnew(getClientPeerId(c));
    se->cname = c->name ? sdsnew(objectGetVal(c->name)) : sdsempty();
    return se;
}

/* Creates the empty log. Called once at start-up, before any command. */
void slowlogInit(void) {
    server.slowlog = listCreate();
    server.slowlog_entry_id = 0;
    listSetFreeMethod(server.slowlog, slowlogFreeEntry);
}

/* Logs the command in argv if duration (microseconds) reaches the
 * threshold (off when it is negative), trimming the log to
 * slowlog-max-len. argv stays owned by the
 * caller (it is copied). A command a script ran is logged with the address
 * and name of the client that ran the script (server.current_client).
 * Called by call() after every command, nested ones included, and when a
 * blocked command completes. */
void slowlogPushEntryIfNeeded(client *c, robj **argv, int argc, long long duration) {
    if (server.slowlog_log_slower_than < 0 || server.slowlog == NULL) return;
    if (duration < server.slowlog_log_slower_than) return;
    if ((c->flags & CLIENT_SCRIPT) && server.current_client) c = server.current_client;
    listAddNodeHead(server.slowlog, slowlogCreateEntry(c, argv, argc, duration));
    slowlogTrim();
}

/* Drops the oldest entries past slowlog-max-len. Called when an entry is
 * added and when CONFIG SET changes the length. */
void slowlogTrim(void) {
    if (server.slowlog == NULL) return;
    while (listLength(server.slowlog) > server.slowlog_max_len) listDelNode(server.slowlog, listLast(server.slowlog));
}

/* Drops every entry; ids keep increasing afterwards. */
void slowlogReset(void) {
    while (listLength(server.slowlog) > 0) listDelNode(server.slowlog, listLast(server.slowlog));
}

static void slowlogReplyEntry(client *c, slowlogEntry *se) {
    addReplyArrayLen(c, 6);
    addReplyLongLong(c, se->id);
    addReplyLongLong(c, se->time);
    addReplyLongLong(c, se->duration);
    addReplyArrayLen(c, se->argc);
    for (int j = 0; j < se->argc; j++) addReplyBulk(c, se->argv[j]);
    addReplyBulkCBuffer(c, se->peerid, sdslen(se->peerid));
    addReplyBulkCBuffer(c, se->cname, sdslen(se->cname));
}

/* SLOWLOG GET [count]: newest first; default 10, -1 for all. */
void slowlogGetCommand(client *c) {
    long count = 10;
    if (c->argc > 3) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    if (c->argc == 3 && getRangeLongFromObjectOrReply(c, c->argv[2], -1, LONG_MAX, &count,
                                                      "count should be greater than or equal to -1") != C_OK)
        return;
    if (count == -1 || (unsigned long)count > listLength(server.slowlog)) count = listLength(server.slowlog);
    addReplyArrayLen(c, count);
    listIter li;
    listNode *ln;
    listRewind(server.slowlog, &li);
    while (count-- > 0 && (ln = listNext(&li)) != NULL) slowlogReplyEntry(c, listNodeValue(ln));
}

void slowlogLenCommand(client *c) {
    addReplyLongLong(c, listLength(server.slowlog));
}

void slowlogResetCommand(client *c) {
    slowlogReset();
    addReply(c, shared.ok);
}

void slowlogHelpCommand(client *c) {
    const char *help[] = {
        "GET [<count>]",
        "    Return the <count> newest entries of the slow log (default 10, -1 for all).",
        "    Each entry is made of:",
        "    1. A unique, increasing id.",
        "    2. The unix time at which the command was executed.",
        "    3. How long the command ran, in microseconds.",
        "    4. The command and its arguments.",
        "    5. The client's address and port.",
        "    6. The client's name, as set by CLIENT SETNAME.",
        "LEN",
        "    Return the number of entries in the slow log.",
        "RESET",
        "    Remove every entry from the slow log.",
        NULL,
    };
    addReplyHelp(c, help);
}

/* Container proc: reached only if the dispatcher did not pick a subcommand. */
void slowlogCommand(client *c) {
    addReplySubcommandSyntaxError(c);
}
