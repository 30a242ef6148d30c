/* propagate.h - what goes into the replication stream and the AOF: the commands an execution unit changed the dataset with, collected
 * while it runs and fed when it ends. See propagate.c. */
#ifndef VK_PROPAGATE_H
#define VK_PROPAGATE_H

#include "server.h"

#include "aof.h"
#include "replication.h"

/* The consumers of propagated commands, as bits of a target (the values
 * of Lua's redis.REPL_AOF and redis.REPL_REPLICA). */
#define PROPAGATE_NONE 0
#define PROPAGATE_AOF (1 << 0)
#define PROPAGATE_REPL (1 << 1)
#define PROPAGATE_ALL (PROPAGATE_AOF | PROPAGATE_REPL)

/* 1 when propagated commands go somewhere: the replication stream is
 * active or the AOF is on. While 0, nothing is collected. */
static inline int propagationIsActive(void) {
    return replicationStreamIsActive() || aofIsFed();
}

/* The consumers that would take a command now: PROPAGATE_AOF while the AOF
 * is fed, PROPAGATE_REPL while the replication stream is active. */
static inline int propagationActiveTargets(void) {
    return (aofIsFed() ? PROPAGATE_AOF : 0) | (replicationStreamIsActive() ? PROPAGATE_REPL : 0);
}

/* How many ops the current execution unit has collected. call() also ends
 * a unit that collected some while the stream was active and is not any
 * more (REPLICAOF inside MULTI): they are fed, and dropped by replication,
 * rather than left for a later unit. */
extern int propagate_pending;

/* Appends one command to the current execution unit's pending ops: argv
 * (argc objects) for database dbid, for both consumers. The caller keeps
 * its references (new ones are taken) and its array (it is copied).
 * Outside any unit (active expiry, eviction before a command) the op is
 * fed at once. Event loop. */
void alsoPropagate(int dbid, robj **argv, int argc);

/* alsoPropagate() for the consumers in target (PROPAGATE_* bits) only; a
 * consumer that is not active is left out, and an op no active consumer
 * takes is not collected at all (so it cannot make a unit a transaction).
 * Event loop. */
void alsoPropagateTo(int dbid, robj **argv, int argc, int target);

/* Feeds the pending ops of the unit that just ended to the replication
 * stream and the AOF, each op to its own consumers: nothing if there are
 * none, one as it is, several wrapped in MULTI ... EXEC (but not the
 * expiries of a direct SCAN or RANDOMKEY). MULTI and EXEC go to both
 * consumers and carry no database: a SELECT the first op needs comes after
 * MULTI, inside the transaction, as Valkey 8 sends it. Releases the ops.
 * Called when the outermost call() returns and after a deletion made
 * outside any unit. Event loop. */
void propagatePendingCommands(void);

/* What call() does after a command ran: queues c->argv (as the command
 * left it) when the command changed the dataset (server.dirty moved since
 * dirty_before) or forced its propagation, unless it prevented it; feeds
 * the unit when outermost is 1. Called while the stream is active or ops
 * are pending. */
void propagateCallEnd(client *c, long long dirty_before, int outermost);

/* The command running on c must not be propagated as itself (EXEC and
 * scripts, whose effects are propagated one by one instead). */
void preventCommandPropagation(client *c);

/* The command running on c must be propagated even though it changed no
 * key (PUBLISH). */
void forceCommandPropagation(client *c);

/* Scripts start and end with enabled 1: the commands the script client
 * runs go to both consumers. With 0 they go to neither (as
 * propagateSetScriptTargets(PROPAGATE_NONE)). */
void propagateSetScriptCommands(int enabled);

/* A script's redis.set_repl(flags): the commands the script client runs
 * from now on go only to the consumers in targets (PROPAGATE_* bits:
 * REPL_AOF, REPL_REPLICA, REPL_ALL, REPL_NONE). Deletions by expiry go to
 * both whatever the flags. */
void propagateSetScriptTargets(int targets);

/* Propagates the deletion of key in db by expiry or eviction as "DEL key",
 * or "UNLINK key" when lazy is 1. No-op while propagation is inactive. */
void propagateDeletion(serverDb *db, robj *key, int lazy);

/* The most bytes propagateWriteCommand() writes for argv, a SELECT
 * included. */
size_t propagateCommandMaxLen(robj **argv, int argc);

/* Writes the command in RESP ("*<argc>\r\n$<len>\r\n<arg>\r\n..."),
 * after "SELECT <select_db>" when select_db >= 0, at p in one pass, never
 * past limit: the encoding the replication stream and the AOF share.
 * Returns the end, or NULL if it does not fit (part of it may then have
 * been written). */
char *propagateWriteCommand(char *p, const char *limit, int select_db, robj **argv, int argc);

#endif
