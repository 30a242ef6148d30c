/* tracking.h - client-side caching: CLIENT TRACKING and the invalidation
 * messages it asks for. See tracking.c for how it works. */
#ifndef VK_TRACKING_H
#define VK_TRACKING_H

#include "server.h"

/* Creates the tracking tables. Called once from initServer(). */
void trackingInit(void);

/* Turns tracking off for c (CLIENT TRACKING off, RESET, freeClient()). */
void disableTracking(client *c);

/* call() after a read-only command ran: remembers the keys `executing`
 * read (a script's or EXEC's inner command, or the command itself) for
 * `tracking`, the client whose request it serves, if that client tracks
 * in default mode (and, with OPTIN/OPTOUT, asked for it). */
void trackingRememberKeys(client *tracking, client *executing);

/* key was modified (signalModifiedKey): every client that read it since
 * its last invalidation is told, and, with bcast, the key is queued for
 * the BCAST clients whose prefixes match. c is the writer, or NULL. The
 * inline test keeps a write's cost at one comparison while nothing is
 * tracked. */
extern unsigned long long trackingItems; /* (key, client) pairs tracked in default mode */
extern unsigned long trackingPrefixes;   /* BCAST prefixes registered */
void trackingInvalidateKeySlow(client *c, robj *key, int bcast);
static inline void trackingInvalidateKey(client *c, robj *key, int bcast) {
    if (trackingItems | trackingPrefixes) trackingInvalidateKeySlow(c, key, bcast);
}

/* A database (or all of them, dbid -1) is being emptied: every tracking
 * client gets an invalidation with a null key list. */
void trackingInvalidateKeysOnFlush(int dbid);

/* beforeSleep(): sends the queued BCAST invalidations and keeps the table
 * of tracked keys within tracking-table-max-keys. */
void trackingBeforeSleep(void);

/* resetClient() of a client with CLIENT_TRACKING_CACHING: the flag of
 * CLIENT CACHING lasts for the next command (or a whole MULTI/EXEC) and
 * is dropped after it. */
void trackingResetCachingFlag(client *c, struct serverCommand *ended);

/* INFO: tracked keys, (key, client) pairs and BCAST prefixes. */
void trackingGetStats(unsigned long long *keys, unsigned long long *items, unsigned long long *prefixes);

#endif
