/* multi.h - transactions: MULTI/EXEC/DISCARD and optimistic locking with
 * WATCH/UNWATCH.
 *
 * A client in MULTI has CLIENT_MULTI set and its commands are queued by
 * processCommand() instead of run; EXEC runs the queue in one go. A client
 * that WATCHes keys gets CLIENT_DIRTY_CAS as soon as one of them is
 * modified (the keyspace calls touchWatchedKey / touchAllWatchedKeysInDb
 * through signalModifiedKey / signalFlushedDb), and its EXEC then fails
 * with a null reply. The per-client part lives in c->mstate (NULL while
 * the client neither is in MULTI nor watches anything); the key -> watchers
 * index is private to multi.c. */
#ifndef VK_MULTI_H
#define VK_MULTI_H

#include "server.h"

/* Creates the per-database index of watched keys. Called once from
 * initServer() after the databases exist. */
void multiInit(void);

/* 1 if cmd runs at once even inside MULTI (EXEC, DISCARD, MULTI, WATCH,
 * QUIT, RESET) instead of being queued. */
int multiCommandSkipsQueue(struct serverCommand *cmd);

/* Moves c's parsed command (c->cmd, c->argv) to the transaction queue; c is
 * left with an empty argv. The caller replies +QUEUED. */
void queueMultiCommand(client *c);

/* Called by processCommand() when it refuses c's command with error err
 * (a protocol string "-ERR ...\r\n" or a bare message). Inside MULTI the
 * transaction is marked so that EXEC will fail with EXECABORT. If the
 * refused command is EXEC itself, the transaction is discarded and the
 * client gets "-EXECABORT Transaction discarded because of: <err>";
 * returns 1 in that case (the reply is sent), 0 otherwise. */
int multiCommandRejected(client *c, const char *err);

/* processCommand() answered c's command with -REDIRECT (redirect.c)
 * instead of running or queueing it. Inside MULTI, a redirected EXEC drops
 * the transaction (the client runs it again at the primary); any other
 * redirected command marks it, so that EXEC answers EXECABORT. Outside
 * MULTI nothing changes. */
void multiCommandRedirected(client *c);

/* The flags processCommand() should judge c's command by: getCommandFlags()
 * (c->cmd->flags, or a script's declared ones for EVAL* and FCALL*),
 * plus, for EXEC, those of every queued command (so that EXEC of writes is
 * refused on OOM, NOREPLICAS or READONLY and held by CLIENT PAUSE WRITE like
 * the writes would) and CMD_STALE only if every queued command has it (so
 * that a stale replica refuses EXEC of what it would refuse alone),
 * and CMD_DENYOOM for any command that would be queued (a queue can grow
 * without bound; DISCARD, QUIT and RESET are never refused). */
uint64_t multiEffectiveCommandFlags(client *c);

/* The j-th command of c's transaction queue (0 first): 1 with *cmd,
 * *argv (borrowed) and *argc, 0 past the end or outside MULTI. */
int multiQueuedCommand(client *c, int j, struct serverCommand **cmd, robj ***argv, int *argc);

/* Leaves MULTI (dropping the queue and the DIRTY flags) and unwatches
 * every key. Used by DISCARD, RESET and failed EXECs. */
void discardTransaction(client *c);

/* Forgets every key c watches and clears CLIENT_DIRTY_CAS's cause. */
void unwatchAllKeys(client *c);

/* freeClient() hook: releases everything c->mstate holds. */
void multiFreeClient(client *c);

/* Marks every client watching key in db as dirty. Called from
 * signalModifiedKey() for each modification, including expiry and
 * eviction deletions. */
void touchWatchedKey(serverDb *db, robj *key);

/* The content of db is about to be replaced: emptied (FLUSHDB/FLUSHALL,
 * replaced_with = NULL) or swapped with replaced_with (SWAPDB, called
 * before the swap). Marks dirty the watchers of every key whose logical
 * value changes: present before, or present after. */
void touchAllWatchedKeysInDb(serverDb *emptied, serverDb *replaced_with);

/* CLIENT LIST: queued commands (-1 outside MULTI), watched keys, and the
 * memory the queue holds. */
int multiQueuedCount(client *c);
int multiWatchedKeysCount(client *c);
size_t multiQueueMemory(client *c);

/* What c's transaction state costs, for maxmemory-clients and CLIENT LIST
 * tot-mem (networking.c's getClientMemoryUsage()): the queue (as
 * multiQueueMemory()) and, per watched key, its entry and the two list
 * nodes that link it; the key names themselves are not counted, as
 * Valkey does not (they are shared with the server-side index). */
size_t multiClientMemory(client *c);

/* INFO clients: clients watching at least one key, and watched keys
 * (distinct per database). */
unsigned long multiWatchingClients(void);
unsigned long multiTotalWatchedKeys(void);

#endif
