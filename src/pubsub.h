/* pubsub.h - Pub/Sub: channel, pattern and shard-channel subscriptions,
 * message delivery, and the commands of the pubsub group.
 *
 * Subscriptions are kept twice: the server maps each channel (or pattern,
 * or shard channel) to the set of its subscribers, and each client keeps
 * the names it is subscribed to (c->pubsub, NULL until the first
 * subscription). Both sides are private to pubsub.c; the rest of the
 * server only sees the functions below. Keyspace notifications (notify.c)
 * publish through pubsubPublishMessage(). */
#ifndef VK_PUBSUB_H
#define VK_PUBSUB_H

#include "server.h"

/* The three namespaces a client can subscribe in. */
#define PUBSUB_CHANNEL 0 /* SUBSCRIBE / PUBLISH */
#define PUBSUB_PATTERN 1 /* PSUBSCRIBE, matched against PUBLISH channels */
#define PUBSUB_SHARD 2   /* SSUBSCRIBE / SPUBLISH */
#define PUBSUB_KINDS 3

/* Creates the server-side subscription tables. Called once from
 * initServer(). */
void pubsubInit(void);

/* Sends message to every subscriber of channel (PUBSUB_CHANNEL subscribers
 * and matching patterns) or, with sharded, of the shard channel. Both
 * objects stay owned by the caller and must be string objects. Returns the
 * number of clients that received it. Runs in the event loop; a message to
 * the client whose command is executing (or that called the script or
 * EXEC running it) is held back until that command's reply is complete
 * (see pubsubFlushPendingPushes). */
long long pubsubPublishMessage(robj *channel, robj *message, int sharded);

/* Sends bytes, a whole push reply (or a RESP2 Pub/Sub message), to c;
 * CLIENT REPLY OFF/SKIP do not apply. If c's own command is running, they
 * are held back until its reply is complete. bytes stay the caller's.
 * Used for messages and for tracking invalidations (tracking.c). */
void pubsubDeliverPush(client *c, sds bytes);

/* Appends the messages held back for the clients whose command just
 * finished. Called by call() once the outermost command has returned. */
void pubsubFlushPendingPushes(void);

/* Drops every subscription of c. With notify, c gets the usual
 * unsubscribe confirmations (RESET does not want them: notify = 0). Also
 * releases c's subscription state; used by freeClient() and RESET. */
void pubsubUnsubscribeAll(client *c, int notify);

/* 1 if cmd may run on a RESP2 connection in subscribed mode: the
 * (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE family, PING, QUIT and RESET. */
int pubsubAllowedInSubscribedMode(struct serverCommand *cmd);

/* Number of names c is subscribed to in one namespace (PUBSUB_*), for
 * CLIENT LIST sub= / psub= / ssub=. */
int pubsubClientCount(client *c, int kind);

/* What c's subscriptions cost it, for maxmemory-clients and CLIENT LIST
 * tot-mem: its tables of names (buckets and entries; the names are not
 * counted, as Valkey does not). 0 without subscriptions. */
size_t pubsubClientMemory(client *c);

/* Returns 1 if allowed(ctx, kind, name) is true for every subscription of
 * c (channels, patterns, shard channels), 0 at the first that is not. For
 * ACL changes that revoke channels (acl.c). */
int pubsubClientSubscriptionsAll(client *c, int (*allowed)(void *ctx, int kind, sds name), void *ctx);

/* Server totals for INFO: channels with subscribers, distinct patterns,
 * shard channels with subscribers. */
unsigned long pubsubTotal(int kind);

#endif
