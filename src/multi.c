/* multi.c - transactions (MULTI, EXEC, DISCARD) and WATCH/UNWATCH.
 *
 * Queueing. After MULTI, processCommand() (server.c) still looks up and
 * checks every command, but instead of calling it hands it to
 * queueMultiCommand(), which takes over the argument vector. A command
 * refused at that stage (unknown, wrong arity, NOAUTH, NOPERM, OOM,
 * NOREPLICAS, no-multi such as a nested MULTI or WATCH, BUSY while a script
 * runs...) flags the transaction with CLIENT_DIRTY_EXEC via
 * multiCommandRejected(), and EXEC then answers EXECABORT, as Valkey 8
 * does. The queue also remembers its commands' flags (a script's or
 * function's declared ones for EVAL* and FCALL*, getCommandFlags()), so
 * that processCommand() judges EXEC by what it would run: EXEC of queued
 * writes once too few replicas are left, or of commands that may not run
 * stale once the primary link is down, is refused with "EXECABORT
 * Transaction discarded because of: <the error>". EXEC runs the queue
 * through call(), one command after the other with nothing in between
 * (each checked against the user's ACL rules again: they may have changed
 * since it was queued), with server.in_exec set so that blocking commands
 * answer at once (t_list.c checks it). A replica's -REDIRECT (redirect.c)
 * marks the transaction too, and a redirected EXEC drops it without
 * running it (multiCommandRedirected()).
 *
 * Optimistic locking. WATCH records (db index, key) pairs. Each is in two
 * lists: the client's (c->mstate->watched) and the watchers of that key in
 * that db (watchers[dbid]: key -> list). signalModifiedKey() calls
 * touchWatchedKey(), which sets CLIENT_DIRTY_CAS on every watcher; EXEC of
 * a dirty client replies a null array. A key that had already expired when
 * it was watched (but was not yet deleted) counts as absent: its deletion
 * by expiry is no change, and EXEC fails only if it comes back. A watched
 * key that expires after WATCH is a change, even if nothing deleted it yet.
 * The index is by db number, so SWAPDB does not move watchers with the
 * data: touchAllWatchedKeysInDb() compares the old and new contents.
 *
 * Propagation: EXEC itself is never propagated; its commands are, as one
 * execution unit that propagate.c wraps in MULTI ... EXEC when it holds
 * more than one write.
 *
 * Nothing here replies for another client or frees one; all of it runs in
 * the event loop, from the client's own command or from the keyspace
 * hooks of someone else's. */
#include "multi.h"
#include "acl.h"

#include "propagate.h"

/* A command waiting in the queue; owns argv and its references. */
typedef struct queuedCommand {
    struct serverCommand *cmd;
    robj **argv;
    int argc;
    int argv_len; /* allocated slots in argv */
} queuedCommand;

/* One watched (db, key) pair, linked from both lists described above. */
typedef struct watchedKey {
    robj *key;        /* a reference is held */
    int dbid;
    int expired;      /* logically expired when watched and not changed since */
    client *c;
    listNode *db_node; /* this entry's node in watchers[dbid] */
} watchedKey;

/* c->mstate: allocated by MULTI or WATCH, freed once neither is left. */
struct clientMultiState {
    queuedCommand *queue;
    int count, alloc;
    uint64_t queued_flags; /* union of the queued commands' CMD_* flags (getCommandFlags()) */
    uint64_t queued_lacking_flags; /* union of their complements: a flag here is missing from one of them */
    size_t queued_bytes;   /* argument bytes held by the queue */
    list *watched;         /* watchedKey * */
};

static dict **watchers;               /* per db index: key (sds) -> list of watchedKey * */
static unsigned long watching_clients; /* clients with at least one watched key */

static void releaseWatchersList(void *l) {
    listRelease(l);
}

static dictType watchersDictType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .keyDestructor = dictSdsDestructor,
    .valDestructor = releaseWatchersList,
};

/* See multi.h. */
void multiInit(void) {
    watchers = zmalloc(sizeof(dict *) * server.dbnum);
    for (int j = 0; j < server.dbnum; j++) watchers[j] = dictCreate(&watchersDictType);
}

/* ---------------------------------------------------------------------------
 * Per-client state
 * ------------------------------------------------------------------------- */

static struct clientMultiState *multiState(client *c) {
    if (c->mstate == NULL) {
        c->mstate = zcalloc(sizeof(*c->mstate));
        c->mstate->watched = listCreate();
    }
    return c->mstate;
}

static void freeQueue(queuedCommand *queue, int count) {
    for (int j = 0; j < count; j++) {
        for (int i = 0; i < queue[j].argc; i++) decrRefCount(queue[j].argv[i]);
        zfree(queue[j].argv);
    }
    zfree(queue);
}

/* Frees c->mstate when it holds nothing any more. */
static void releaseIdleState(client *c) {
    struct clientMultiState *st = c->mstate;
    if (st == NULL || (c->flags & CLIENT_MULTI) || st->count || listLength(st->watched)) return;
    zfree(st->queue);
    listRelease(st->watched);
    zfree(st);
    c->mstate = NULL;
}

/* See multi.h. */
int multiQueuedCommand(client *c, int j, struct serverCommand **cmd, robj ***argv, int *argc) {
    if (!(c->flags & CLIENT_MULTI) || c->mstate == NULL || j < 0 || j >= c->mstate->count) return 0;
    queuedCommand *q = &c->mstate->queue[j];
    *cmd = q->cmd;
    *argv = q->argv;
    *argc = q->argc;
    return 1;
}

/* See multi.h. */
int multiQueuedCount(client *c) {
    if (!(c->flags & CLIENT_MULTI)) return -1;
    return c->mstate ? c->mstate->count : 0;
}

/* See multi.h. */
int multiWatchedKeysCount(client *c) {
    return c->mstate ? (int)listLength(c->mstate->watched) : 0;
}

/* See multi.h. */
size_t multiQueueMemory(client *c) {
    if (c->mstate == NULL) return 0;
    return c->mstate->queued_bytes + sizeof(queuedCommand) * c->mstate->alloc;
}

/* See multi.h. */
size_t multiClientMemory(client *c) {
    struct clientMultiState *st = c->mstate;
    if (st == NULL) return 0;
    return sizeof(*st) + multiQueueMemory(c) +
           listLength(st->watched) * (sizeof(watchedKey) + 2 * sizeof(listNode));
}

/* See multi.h. */
unsigned long multiWatchingClients(void) {
    return watching_clients;
}

/* See multi.h. */
unsigned long multiTotalWatchedKeys(void) {
    unsigned long n = 0;
    for (int j = 0; watchers && j < server.dbnum; j++) n += dictSize(watchers[j]);
    return n;
}

/* ---------------------------------------------------------------------------
 * Queueing
 * ------------------------------------------------------------------------- */

void execCommand(client *c);
void discardCommand(client *c);
void multiCommand(client *c);
void watchCommand(client *c);

/* See multi.h. */
int multiCommandSkipsQueue(struct serverCommand *cmd) {
    if (cmd->proc == execCommand || cmd->proc == discardCommand || cmd->proc == multiCommand ||
        cmd->proc == watchCommand)
        return 1;
    return cmd->parent == NULL && (!strcmp(cmd->name, "quit") || !strcmp(cmd->name, "reset"));
}

/* See multi.h. */
void queueMultiCommand(client *c) {
    struct clientMultiState *st = multiState(c);
    if (st->count == st->alloc) {
        st->alloc = st->alloc ? st->alloc * 2 : 4;
        st->queue = zrealloc(st->queue, sizeof(queuedCommand) * st->alloc);
    }
    queuedCommand *q = &st->queue[st->count++];
    q->cmd = c->cmd;
    q->argv = c->argv;
    q->argc = c->argc;
    q->argv_len = c->argv_len;
    uint64_t flags = getCommandFlags(c);
    st->queued_flags |= flags;
    st->queued_lacking_flags |= ~flags;
    st->queued_bytes += c->argv_len_sum + sizeof(robj *) * c->argv_len;
    /* The queue owns the arguments now; the client parses into a new vector. */
    c->argv = NULL;
    c->argc = 0;
    c->argv_len = 0;
    c->argv_len_sum = 0;
}

/* See multi.h. */
int multiCommandRejected(client *c, const char *err) {
    if (!(c->flags & CLIENT_MULTI)) return 0;
    if (c->cmd && c->cmd->proc == execCommand) {
        size_t len = strlen(err);
        if (len && err[0] == '-') {
            err++;
            len--;
        }
        while (len && (err[len - 1] == '\r' || err[len - 1] == '\n')) len--;
        discardTransaction(c);
        releaseIdleState(c);
        addReplyErrorFormat(c, "-EXECABORT Transaction discarded because of: %.*s", (int)len, err);
        return 1;
    }
    c->flags |= CLIENT_DIRTY_EXEC;
    return 0;
}

/* See multi.h. */
void multiCommandRedirected(client *c) {
    if (!(c->flags & CLIENT_MULTI)) return;
    if (c->cmd->proc == execCommand) {
        discardTransaction(c);
        releaseIdleState(c);
    } else {
        c->flags |= CLIENT_DIRTY_EXEC;
    }
}

/* See multi.h. */
uint64_t multiEffectiveCommandFlags(client *c) {
    uint64_t flags = getCommandFlags(c);
    if (c->cmd->proc == execCommand) {
        if (c->mstate) {
            /* CMD_STALE is a permission: EXEC has it only if every queued
             * command has it. The others are needs: any one counts. */
            flags |= c->mstate->queued_flags;
            flags &= ~(c->mstate->queued_lacking_flags & CMD_STALE);
        }
    } else if ((c->flags & CLIENT_MULTI) && c->cmd->proc != discardCommand &&
               !(c->cmd->parent == NULL && (!strcmp(c->cmd->name, "quit") || !strcmp(c->cmd->name, "reset")))) {
        /* Queueing takes memory too, whatever the command. */
        flags |= CMD_DENYOOM;
    }
    return flags;
}

/* See multi.h. */
void discardTransaction(client *c) {
    struct clientMultiState *st = c->mstate;
    if (st) {
        freeQueue(st->queue, st->count);
        st->queue = NULL;
        st->count = st->alloc = 0;
        st->queued_flags = 0;
        st->queued_lacking_flags = 0;
        st->queued_bytes = 0;
    }
    c->flags &= ~(CLIENT_MULTI | CLIENT_DIRTY_CAS | CLIENT_DIRTY_EXEC);
    unwatchAllKeys(c);
}

/* See multi.h. */
void multiFreeClient(client *c) {
    if (c->mstate == NULL) return;
    discardTransaction(c);
    releaseIdleState(c);
}

/* ---------------------------------------------------------------------------
 * WATCH bookkeeping
 * ------------------------------------------------------------------------- */

static void watchKey(client *c, robj *key) {
    struct clientMultiState *st = multiState(c);
    dictEntry *de = dictFind(watchers[c->db->id], objectGetVal(key));
    if (de == NULL) {
        de = dictAddRaw(watchers[c->db->id], sdsdup(objectGetVal(key)), NULL);
        dictSetVal(watchers[c->db->id], de, listCreate());
    } else {
        /* Already watched by c? Asked among the key's watchers (few),
         * not among c's keys (a WATCH of many keys would be quadratic). */
        listIter li;
        listNode *ln;
        listRewind((list *)dictGetVal(de), &li);
        while ((ln = listNext(&li)) != NULL)
            if (((watchedKey *)listNodeValue(ln))->c == c) return;
    }
    list *l = dictGetVal(de);
    watchedKey *wk = zmalloc(sizeof(*wk));
    wk->key = key;
    incrRefCount(key);
    wk->dbid = c->db->id;
    wk->expired = keyIsExpired(c->db, key);
    wk->c = c;
    listAddNodeTail(l, wk);
    wk->db_node = listLast(l);
    if (listLength(st->watched) == 0) watching_clients++;
    listAddNodeTail(st->watched, wk);
}

/* See multi.h. */
void unwatchAllKeys(client *c) {
    struct clientMultiState *st = c->mstate;
    if (st == NULL || listLength(st->watched) == 0) return;
    while (listLength(st->watched)) {
        listNode *ln = listFirst(st->watched);
        watchedKey *wk = listNodeValue(ln);
        dictEntry *de = dictFind(watchers[wk->dbid], objectGetVal(wk->key));
        serverAssert(de != NULL);
        list *l = dictGetVal(de);
        listDelNode(l, wk->db_node);
        if (listLength(l) == 0) dictDelete(watchers[wk->dbid], objectGetVal(wk->key));
        decrRefCount(wk->key);
        zfree(wk);
        listDelNode(st->watched, ln);
    }
    watching_clients--;
}

/* 1 if a key c watched while it was alive has expired since. */
static int watchedKeyExpiredSinceWatch(client *c) {
    if (c->mstate == NULL) return 0;
    listIter li;
    listNode *ln;
    listRewind(c->mstate->watched, &li);
    while ((ln = listNext(&li)) != NULL) {
        watchedKey *wk = listNodeValue(ln);
        if (!wk->expired && keyIsExpired(&server.db[wk->dbid], wk->key)) return 1;
    }
    return 0;
}

/* See multi.h. */
void touchWatchedKey(serverDb *db, robj *key) {
    if (watchers == NULL || dictSize(watchers[db->id]) == 0) return;
    robj *name = getDecodedObject(key);
    list *l = dictFetchValue(watchers[db->id], objectGetVal(name));
    if (l) {
        listIter li;
        listNode *ln;
        listRewind(l, &li);
        while ((ln = listNext(&li)) != NULL) {
            watchedKey *wk = listNodeValue(ln);
            if (wk->expired && !dbExists(db, name)) {
                /* The stale value was deleted: still absent, no change. */
                wk->expired = 0;
                continue;
            }
            wk->c->flags |= CLIENT_DIRTY_CAS;
        }
    }
    decrRefCount(name);
}

/* See multi.h. */
void touchAllWatchedKeysInDb(serverDb *emptied, serverDb *replaced_with) {
    if (watchers == NULL || dictSize(watchers[emptied->id]) == 0) return;
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, watchers[emptied->id]);
    while ((de = dictNext(&it)) != NULL) {
        sds name = dictGetKey(de);
        robj *key = createStringObject(name, sdslen(name));
        int before = dbExists(emptied, key);
        int after = replaced_with && dbExists(replaced_with, key);
        int after_stale = after && keyIsExpired(replaced_with, key);
        if (before || after) {
            listIter li;
            listNode *ln;
            listRewind(dictGetVal(de), &li);
            while ((ln = listNext(&li)) != NULL) {
                watchedKey *wk = listNodeValue(ln);
                int was_alive = before && !wk->expired;
                if (!was_alive && (!after || after_stale)) {
                    /* Absent (or stale) before and after: no change, but
                     * remember whether a stale value is there now. */
                    wk->expired = after_stale;
                    continue;
                }
                wk->c->flags |= CLIENT_DIRTY_CAS;
            }
        }
        decrRefCount(key);
    }
    dictResetIterator(&it);
}

/* ---------------------------------------------------------------------------
 * Commands
 * ------------------------------------------------------------------------- */

/* The command handlers below run in the event loop for c's own command. */

/* MULTI: from now on c's commands are queued. */
void multiCommand(client *c) {
    if (c->flags & CLIENT_MULTI) {
        addReplyError(c, "MULTI calls can not be nested");
        return;
    }
    multiState(c);
    c->flags |= CLIENT_MULTI;
    addReply(c, shared.ok);
}

/* DISCARD: drops the queue and the watched keys. */
void discardCommand(client *c) {
    if (!(c->flags & CLIENT_MULTI)) {
        addReplyError(c, "DISCARD without MULTI");
        return;
    }
    discardTransaction(c);
    releaseIdleState(c);
    addReply(c, shared.ok);
}

/* EXEC: runs the queue and replies an array of the replies; EXECABORT if
 * queueing failed; a null array if a watched key changed. */
/* Checks a queued command against the user's ACL rules again at EXEC.
 * Returns 1, having logged the denial and replied Valkey's NOPERM for
 * this case, if it may no longer run. */
static int execAclRefused(client *c) {
    int errpos = 0;
    int r = aclCheckClientCommand(c, &errpos);
    if (r == ACL_OK) return 0;
    aclLogDenial(c, r, ACL_LOG_CTX_MULTI, c->cmd, c->argv, errpos, NULL);
    const char *reason = r == ACL_DENIED_CMD   ? "no permission to execute the command or subcommand"
                         : r == ACL_DENIED_KEY ? "no permission to touch the specified keys"
                                               : "no permission to access one of the channels used as arguments";
    addReplyErrorFormat(c, "-NOPERM ACLs rules changed between the moment the transaction was accumulated and the "
                           "EXEC call. This command is no longer allowed for the following reason: %s",
                        reason);
    return 1;
}

void execCommand(client *c) {
    if (!(c->flags & CLIENT_MULTI)) {
        addReplyError(c, "EXEC without MULTI");
        return;
    }
    if (c->flags & CLIENT_DIRTY_EXEC) {
        addReplyErrorObject(c, shared.execaborterr);
        discardTransaction(c);
        releaseIdleState(c);
        return;
    }
    if ((c->flags & CLIENT_DIRTY_CAS) || watchedKeyExpiredSinceWatch(c)) {
        addReplyNullArray(c);
        discardTransaction(c);
        releaseIdleState(c);
        return;
    }

    /* Take the queue out of the state, and stop watching before running:
     * the transaction's own writes must not make it dirty. */
    struct clientMultiState *st = c->mstate;
    queuedCommand *queue = st->queue;
    int count = st->count;
    st->queue = NULL;
    st->count = st->alloc = 0;
    st->queued_flags = 0;
    st->queued_bytes = 0;
    unwatchAllKeys(c);

    robj **exec_argv = c->argv;
    int exec_argc = c->argc, exec_argv_len = c->argv_len;
    size_t exec_argv_len_sum = c->argv_len_sum;
    struct serverCommand *exec_cmd = c->cmd;

    server.in_exec = 1;
    addReplyArrayLen(c, count);
    for (int j = 0; j < count; j++) {
        c->argv = queue[j].argv;
        c->argc = queue[j].argc;
        c->argv_len = queue[j].argv_len;
        c->cmd = c->realcmd = queue[j].cmd;
        /* The user's rules may have changed since the command was queued. */
        if (c->user && execAclRefused(c)) continue;
        call(c, CALL_FULL);
        /* The command may have rewritten its arguments: keep what is there
         * now, it is what must be released. */
        queue[j].argv = c->argv;
        queue[j].argc = c->argc;
        queue[j].argv_len = c->argv_len;
    }
    server.in_exec = 0;

    c->argv = exec_argv;
    c->argc = exec_argc;
    c->argv_len = exec_argv_len;
    c->argv_len_sum = exec_argv_len_sum;
    c->cmd = c->realcmd = exec_cmd;
    c->flags &= ~(CLIENT_MULTI | CLIENT_DIRTY_CAS | CLIENT_DIRTY_EXEC);
    freeQueue(queue, count);
    releaseIdleState(c);
    /* EXEC is propagated through its commands, which the end of this
     * execution unit wraps in MULTI ... EXEC when there are several. */
    preventCommandPropagation(c);
}

/* WATCH key [key ...]: EXEC will fail if one of them changes first. */
void watchCommand(client *c) {
    if (c->flags & CLIENT_MULTI) {
        addReplyError(c, "WATCH inside MULTI is not allowed");
        return;
    }
    /* Already dirty: EXEC will fail whatever else is watched. */
    if (!(c->flags & CLIENT_DIRTY_CAS))
        for (int j = 1; j < c->argc; j++) watchKey(c, c->argv[j]);
    addReply(c, shared.ok);
}

/* UNWATCH: forgets every watched key, and that one changed. */
void unwatchCommand(client *c) {
    unwatchAllKeys(c);
    c->flags &= ~CLIENT_DIRTY_CAS;
    releaseIdleState(c);
    addReply(c, shared.ok);
}

/* ---------------------------------------------------------------------------
 * Command table
 * ------------------------------------------------------------------------- */

#define TX_FLAGS (CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_ALLOW_BUSY)

struct serverCommand transactionCommands[] = {
    {.name = "multi", .proc = multiCommand, .arity = 1, .flags = TX_FLAGS | CMD_NO_MULTI, .acl_categories = ACL_CATEGORY_TRANSACTION,
     .group = "transactions", .since = "1.2.0", .summary = "Starts a transaction.", .complexity = "O(1)"},
    {.name = "exec", .proc = execCommand, .arity = 1, .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_SKIP_SLOWLOG,
     .acl_categories = ACL_CATEGORY_TRANSACTION, .group = "transactions", .since = "1.2.0",
     .summary = "Executes all commands in a transaction.", .complexity = "Depends on commands in the transaction"},
    {.name = "discard", .proc = discardCommand, .arity = 1, .flags = TX_FLAGS,
     .acl_categories = ACL_CATEGORY_TRANSACTION, .group = "transactions", .since = "2.0.0",
     .summary = "Discards a transaction.", .complexity = "O(N), when N is the number of queued commands"},
    {.name = "watch", .proc = watchCommand, .arity = -2, .flags = TX_FLAGS | CMD_NO_MULTI, .acl_categories = ACL_CATEGORY_TRANSACTION,
     .key = {1, -1, 1}, .group = "transactions", .since = "2.2.0",
     .summary = "Monitors changes to keys to determine the execution of a transaction.",
     .complexity = "O(1) for every key.",
     .args = "key [key ...]"},
    {.name = "unwatch", .proc = unwatchCommand, .arity = 1, .flags = TX_FLAGS,
     .acl_categories = ACL_CATEGORY_TRANSACTION, .group = "transactions", .since = "2.2.0",
     .summary = "Forgets about watched keys of a transaction.", .complexity = "O(1)"},
    {0},
};
