/* evict_clients.c - maxmemory-clients: disconnecting the clients that use
 * the most memory when all clients together use too much.
 *
 * client-output-buffer-limit judges each client alone and only by its
 * output. maxmemory-clients bounds the sum over all normal and pub/sub
 * clients of everything a client holds (query buffer, parsed arguments,
 * output buffer and blocks, the client itself: CLIENT LIST's tot-mem). It
 * is a byte count, or a percentage of maxmemory (stored negated), or 0 for
 * no limit.
 *
 * While the option is set, each client's usage is counted into
 * server.clients_mem: after a read, after each command, after a write and
 * in the clients cron (updateClientMemUsage(), called from networking.c).
 * Replicas and the primary link are never counted or evicted; a client
 * being closed anyway counts 0, so it is not evicted twice.
 *
 * evictClients() runs before every command (processCommand()) and before
 * the event loop sleeps. While the sum is at or over the limit, it
 * disconnects the biggest clients first, skipping those with CLIENT
 * NO-EVICT on. The candidates are sorted once per round, which happens
 * only when the limit is crossed; the common path is one comparison. */
#include "server.h"

/* Returns the limit in bytes that maxmemory-clients stands for now, or 0
 * when there is none (a percentage of an unset maxmemory is none). */
size_t clientsMemoryLimit(void) {
    long long v = server.maxmemory_clients;
    if (v >= 0) return (size_t)v;
    return (size_t)((double)server.maxmemory * (double)-v / 100.0);
}

/* Whether c's memory counts towards maxmemory-clients (CLIENT_TYPE_NORMAL
 * or _PUBSUB, connected, not on its way out). */
static int clientMemCounted(client *c) {
    if (!c->conn || (c->flags & CLIENT_CLOSE_ASAP)) return 0;
    int type = getClientType(c);
    return type == CLIENT_TYPE_NORMAL || type == CLIENT_TYPE_PUBSUB;
}

static void clientMemSet(client *c, size_t mem) {
    server.clients_mem = server.clients_mem - c->mem_counted + mem;
    c->mem_counted = mem;
}

/* Brings c's share of server.clients_mem up to date (server.h's inline
 * updateClientMemUsage() calls it while the option is set). */
void updateClientMemUsageSlow(client *c) {
    clientMemSet(c, clientMemCounted(c) ? getClientMemoryUsage(c, NULL) : 0);
}

/* Takes c out of the count (it is being freed). */
void clientMemForget(client *c) {
    clientMemSet(c, 0);
}

/* Recounts every client: maxmemory-clients was just set, or changed from
 * 0, so the shares kept so far may be stale. */
void recountClientsMemUsage(void) {
    listIter li;
    listNode *ln;
    listRewind(server.clients, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        if (server.maxmemory_clients) updateClientMemUsage(c);
        else clientMemForget(c);
    }
}

static int clientEvictable(client *c) {
    return c->mem_counted && !(c->flags & CLIENT_NO_EVICT);
}

static int compareClientsByMemDesc(const void *a, const void *b) {
    size_t ma = (*(client *const *)a)->mem_counted, mb = (*(client *const *)b)->mem_counted;
    return ma < mb ? 1 : (ma > mb ? -1 : 0);
}

static void evictClient(client *c) {
    if (server.verbosity <= LL_VERBOSE) {
        sds ci = catClientInfoString(sdsempty(), c);
        serverLog(LL_VERBOSE, "Evicting client: %s", ci);
        sdsfree(ci);
    }
    server.stat_evictedclients++;
    clientMemForget(c);
    freeClient(c); /* deferred by the connection layer if c is being served */
}

/* Disconnects the biggest evictable clients while all clients together
 * use maxmemory-clients or more. Returns how many were disconnected. */
int evictClients(void) {
    size_t limit = clientsMemoryLimit();
    if (!limit || server.clients_mem < limit) return 0;

    client **cand = zmalloc(sizeof(client *) * (listLength(server.clients) + 1));
    size_t n = 0;
    listIter li;
    listNode *ln;
    listRewind(server.clients, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        updateClientMemUsage(c);
        if (clientEvictable(c)) cand[n++] = c;
    }
    qsort(cand, n, sizeof(*cand), compareClientsByMemDesc);
    int evicted = 0;
    for (size_t i = 0; i < n && server.clients_mem >= limit; i++) {
        evictClient(cand[i]);
        evicted++;
    }
    zfree(cand);
    return evicted;
}
