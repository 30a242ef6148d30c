/* blocked.h - clients blocked on keys (BLPOP and friends; later BZPOP*,
 * XREAD BLOCK) and the machinery that wakes them.
 *
 * A blocking command that finds nothing to serve calls blockForKeys(): the
 * client keeps its argv, gets CLIENT_BLOCKED and is queued FIFO on every
 * key (db->blocking_keys: key -> list of clients). When a key is created
 * (dbAdd calls signalKeyAsReady), the key is queued as "ready";
 * handleClientsBlockedOnKeys(), run after every command and before the
 * event loop sleeps, then re-executes the blocked command of each waiting
 * client in FIFO order for as long as the key still holds a value of the
 * type the client waits for. The re-executed command finds data and
 * replies normally, so the reply code lives only in the command.
 * XREADGROUP also asks to be woken when a key goes away or changes type
 * (db.c calls signalDeletedKeyAsReady()): the re-run then replies the
 * NOGROUP or WRONGTYPE error, as Valkey does.
 * Timeouts and CLIENT UNBLOCK reply with the type's null reply.
 * WAIT and WAITAOF block without keys (numkeys 0) until their timeout;
 * their timeout reply is the acknowledgement count, which stays 0 while
 * there is neither replication nor AOF. */
#ifndef VK_BLOCKED_H
#define VK_BLOCKED_H

#include "server.h"

/* What a client is blocked for: decides the expected key type and the
 * reply sent on timeout. */
#define BLOCKED_NONE 0
#define BLOCKED_LIST 1
#define BLOCKED_ZSET 2
#define BLOCKED_STREAM 3
#define BLOCKED_WAIT 4    /* WAIT: no keys; the timeout replies the replicas that acked */
#define BLOCKED_WAITAOF 5 /* WAITAOF: likewise, [local fsyncs, replica fsyncs] */

typedef struct blockingState {
    int btype;            /* BLOCKED_* */
    mstime_t timeout;     /* absolute unix ms; 0 = block forever */
    serverDb *db;         /* db the keys belong to */
    robj **keys;          /* distinct keys, each with a reference held */
    int numkeys;
    int wake_on_delete;   /* also re-run when a key is deleted or replaced */
    listNode *node;       /* this client's node in the blocked-clients list */
} blockingState;

/* Creates the per-db blocking_keys dicts and the ready/unblocked queues.
 * Called once from initServer() after the dbs exist. */
void blockedInit(void);

/* The acknowledgement count a WAIT (btype BLOCKED_WAIT) or WAITAOF
 * (BLOCKED_WAITAOF) client is answered with, now or at its timeout
 * (admin.c). */
void addReplyWaitAcks(client *c, int btype);

/* 1 if c may not block now: blocking commands answer at once inside
 * MULTI/EXEC, scripts, fake clients and from our primary (its stream must
 * never wait: BLPOP from it runs as LPOP would). */
int blockingDenied(client *c);

/* This server turns into a replica (or follows another primary): every
 * client blocked on keys or in WAIT/WAITAOF gets Valkey's "-UNBLOCKED force
 * unblock from blocking operation, instance state changed (master ->
 * replica?)" and is closed once it is written. A client left waiting would
 * later be served by the new primary's writes, popping on a replica what
 * the primary keeps. Clients paused by CLIENT PAUSE stay paused. Event
 * loop. */
void disconnectAllBlockedClients(void);

/* Cluster mode: every client blocked on keys (lists, sorted sets,
 * streams) is offered to clusterRedirectBlockedClient(), which replies
 * -MOVED or -CLUSTERDOWN when its keys' slot is served elsewhere now or
 * the cluster is down; such a client is unblocked with that reply.
 * clusterCron(), event loop. */
void blockedRedirectClusterClients(void);

/* Blocks c (whose command stays in argv) on keys[0..numkeys) of c->db
 * until one of them is served, timeout (absolute ms, 0 = never) passes,
 * or CLIENT UNBLOCK. Duplicate keys are ignored. Must only be called from
 * the command's proc; the command sends no reply. */
void blockForKeys(client *c, int btype, robj **keys, int numkeys, mstime_t timeout);

/* Like blockForKeys(), but c's command is also re-run when one of the keys
 * is deleted, emptied by a flush, swapped away or overwritten: XREADGROUP,
 * whose consumer group lives inside the key, so the re-run replies NOGROUP
 * or WRONGTYPE instead of waiting for an entry that cannot come. */
void blockForKeysWakeOnDelete(client *c, int btype, robj **keys, int numkeys, mstime_t timeout);

/* Removes c from every key it is blocked on and clears CLIENT_BLOCKED.
 * If reply_timeout, first sends the btype's timeout (null) reply. A
 * command waiting for data (not WAIT/WAITAOF) ends here and is accounted
 * for (updateStatsOnUnblock()). Queues c so its pending input is processed
 * before the loop sleeps. No-op if c is not blocked on keys. */
void unblockClient(client *c, int reply_timeout);

/* Called when key is created in db (dbAdd): if clients wait on it, queue
 * it for handleClientsBlockedOnKeys(). type is the new value's type. */
void signalKeyAsReady(serverDb *db, robj *key, int type);

/* After SWAPDB: queues every key with waiting clients that now exists. */
void scanDatabaseForReadyKeys(serverDb *db);

/* Called when key's value (of the given type) leaves db: deleted, expired,
 * evicted, renamed or moved away, or overwritten by a new value (dbGenericDelete
 * and dbOverwrite). Queues the key only if a client blocked with
 * blockForKeysWakeOnDelete() waits on it, so it costs one branch otherwise. */
void signalDeletedKeyAsReady(serverDb *db, robj *key, int type);

/* Before emptied's keys go away (FLUSHDB/FLUSHALL: replaced_with NULL) or
 * are swapped with replaced_with's (SWAPDB, called for each side before the
 * swap): signals as deleted every waited-on key that exists in emptied and
 * after the change is missing or holds another type. */
void scanDatabaseForDeletedKeys(serverDb *emptied, serverDb *replaced_with);

/* Serves clients blocked on ready keys; loops until no key is ready (a
 * served BLMOVE can make another key ready). Not re-entrant: a nested call
 * returns at once. Runs in the event loop after a command or in
 * beforeSleep. */
void handleClientsBlockedOnKeys(void);

/* 1 if some key is waiting to be served (cheap check for processCommand). */
int blockedHasReadyKeys(void);

/* beforeSleep hook: replies to expired blocked clients, serves ready keys,
 * and runs the pending input of clients unblocked since the last call. */
void blockedBeforeSleep(void);

/* Queues c, whose blocking wait of another kind just ended (a SHUTDOWN
 * that waited for replicas, server.c), to have its pending input processed
 * before the loop sleeps, as an unblocked client's. */
void blockedQueueResume(client *c);

/* freeClient hook: forgets c (unblocks without a reply, drops it from the
 * unblocked queue). */
void blockedClientFreed(client *c);

/* Parses a blocking timeout in seconds (UNIT_SECONDS, float allowed) or
 * milliseconds (UNIT_MILLISECONDS, an integer) into an absolute unix ms
 * time, 0 for "forever". Replies the error and returns C_ERR on bad
 * input. */
int getTimeoutFromObjectOrReply(client *c, robj *object, mstime_t *timeout, int unit);


/* CLIENT UNBLOCK <id> [TIMEOUT|ERROR] (registered in networking.c). */
void clientUnblockCommand(client *c);

/* INFO clients: clients blocked on keys (and those of them with a
 * timeout), keys with blocked clients, and keys with clients that are
 * woken by the key's deletion. */
unsigned long blockedClientsCount(void);
unsigned long blockedClientsWithTimeoutCount(void);
unsigned long blockedKeysCount(void);
unsigned long blockedKeysOnNokeyCount(void);

#endif
