/* migrate.h - what the rest of the server needs from migrate.c (MIGRATE):
 * the cron's clean-up of idle cached connections and the count INFO shows. */
#ifndef VK_MIGRATE_H
#define VK_MIGRATE_H

#include <stddef.h>

/* Closes every cached MIGRATE connection unused for more than
 * MIGRATE_SOCKET_CACHE_TTL seconds. Called once a second by serverCron(). */
void migrateCloseTimedoutSockets(void);

/* Returns how many MIGRATE connections are cached (INFO stats
 * migrate_cached_sockets). */
size_t migrateCachedSocketsCount(void);

#endif
