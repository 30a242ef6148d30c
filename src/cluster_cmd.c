/* cluster_cmd.c - the CLUSTER command and the cluster's INFO text.
 *
 * Every subcommand answers "This instance has cluster support disabled"
 * without cluster-enabled yes, as Valkey's do; with it, each reads or
 * changes the state cluster.c keeps, with Valkey 8's replies and error
 * texts. A change that must persist asks for a nodes.conf save before the
 * next sleep (clusterDoBeforeSleep()), so the reply never waits for the
 * disk, but no other client sees the change before it is saved.
 *
 * Built here: INFO, NODES, MYID, MYSHARDID, SHARDS, SLOTS, KEYSLOT,
 * ADDSLOTS[RANGE], DELSLOTS[RANGE], FLUSHSLOTS, MEET, FORGET, RESET,
 * SAVECONFIG, SET-CONFIG-EPOCH, BUMPEPOCH, COUNT-FAILURE-REPORTS, LINKS,
 * HELP, COUNTKEYSINSLOT, GETKEYSINSLOT, SLOT-STATS (key-count: the
 * keyspace counts each slot's keys, db.c), and ASKING (it only flags the
 * client: routing comes later). Left for later steps, and absent from the
 * command table until then: SETSLOT, REPLICATE, FAILOVER, REPLICAS/SLAVES;
 * SLOT-STATS' cpu-usec and network-bytes-in/-out metrics.
 *
 * The CLUSTER NODES line format is nodes.conf's without the aux fields:
 *   <id> <ip>:<port>@<cport>[,<hostname>] <flags> <primary|-> <ping sent>
 *   <pong received> <config epoch> <connected|disconnected> <slots>...
 * with the ports a TLS client should use when the client is on TLS. */
#include "cluster.h"
#include "config.h"

#include <errno.h>
#include <strings.h>

#define myself (server.cluster->myself)

/* Replies the disabled error and returns 0 without cluster mode (or a
 * cluster state: programs that embed the server without start-up). */
static int clusterEnabledOrReply(client *c) {
    if (server.cluster_enabled && server.cluster) return 1;
    addReplyError(c, "This instance has cluster support disabled");
    return 0;
}

/* 1 when c talks to us over TLS: such a client is told TLS ports. */
static int clientUsesTls(client *c) {
    return c->conn && !strcmp(connGetType(c->conn), CONN_NAME_TLS);
}

/* ---------------------------------------------------------------------------
 * Node descriptions (CLUSTER NODES)
 * ------------------------------------------------------------------------ */

/* The flag names of a node, comma separated, "noflags" for none. */
static sds catNodeFlags(sds ci, const clusterNode *n) {
    static const struct {
        int flag;
        const char *name;
    } names[] = {
        {CLUSTER_NODE_MYSELF, "myself"}, {CLUSTER_NODE_PRIMARY, "master"},   {CLUSTER_NODE_REPLICA, "slave"},
        {CLUSTER_NODE_PFAIL, "fail?"},   {CLUSTER_NODE_FAIL, "fail"},        {CLUSTER_NODE_HANDSHAKE, "handshake"},
        {CLUSTER_NODE_NOADDR, "noaddr"}, {CLUSTER_NODE_NOFAILOVER, "nofailover"},
    };
    size_t before = sdslen(ci);
    for (size_t j = 0; j < sizeof(names) / sizeof(names[0]); j++) {
        if (!(n->flags & names[j].flag)) continue;
        if (sdslen(ci) != before) ci = sdscatlen(ci, ",", 1);
        ci = sdscat(ci, names[j].name);
    }
    if (sdslen(ci) == before) ci = sdscat(ci, "noflags");
    return ci;
}

/* One node's line, without the newline. */
static sds catNodeDescription(sds ci, const clusterNode *n, int use_tls) {
    ci = sdscatlen(ci, n->name, CLUSTER_NAMELEN);
    ci = sdscatprintf(ci, " %s:%d@%d", n->ip, clusterNodeClientPort(n, use_tls), n->cport);
    if (sdslen(n->hostname)) ci = sdscatprintf(ci, ",%s", n->hostname);
    ci = sdscatlen(ci, " ", 1);
    ci = catNodeFlags(ci, n);
    ci = sdscatprintf(ci, " %s %lld %lld %llu %s", n->replicaof ? n->replicaof->name : "-", (long long)n->ping_sent,
                      (long long)n->pong_received, (unsigned long long)clusterNodeEpoch(n),
                      (n->link || n == myself) ? "connected" : "disconnected");
    int slot = 0, first, last;
    while (n->numslots && clusterSlotBitmapNextRange(n->slots, &slot, &first, &last)) {
        if (first == last)
            ci = sdscatprintf(ci, " %d", first);
        else
            ci = sdscatprintf(ci, " %d-%d", first, last);
    }
    if (n != myself) return ci;
    for (int j = 0; j < CLUSTER_SLOTS; j++) {
        if (server.cluster->migrating_slots_to[j])
            ci = sdscatprintf(ci, " [%d->-%.40s]", j, server.cluster->migrating_slots_to[j]->name);
        else if (server.cluster->importing_slots_from[j])
            ci = sdscatprintf(ci, " [%d-<-%.40s]", j, server.cluster->importing_slots_from[j]->name);
    }
    return ci;
}

static void clusterNodesCommand(client *c) {
    if (!clusterEnabledOrReply(c)) return;
    int use_tls = clientUsesTls(c);
    sds ci = sdsempty();
    dictIterator *di = dictGetSafeIterator(server.cluster->nodes);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        ci = catNodeDescription(ci, dictGetVal(de), use_tls);
        ci = sdscatlen(ci, "\n", 1);
    }
    dictReleaseIterator(di);
    addReplyVerbatim(c, ci, sdslen(ci), "txt");
    sdsfree(ci);
}

/* ---------------------------------------------------------------------------
 * CLUSTER INFO
 * ------------------------------------------------------------------------ */

/* See cluster.h. */
sds clusterGenInfoString(void) {
    clusterState *cs = server.cluster;
    int assigned = 0, ok = 0, pfail = 0, fail = 0;
    for (int j = 0; j < CLUSTER_SLOTS; j++) {
        clusterNode *n = cs->slots[j];
        if (!n) continue;
        assigned++;
        if (clusterNodeFailed(n))
            fail++;
        else if (clusterNodeTimedOut(n))
            pfail++;
        else
            ok++;
    }
    uint64_t myepoch = clusterNodeEpoch(myself);
    sds info = sdscatprintf(sdsempty(),
                            "cluster_state:%s\r\n"
                            "cluster_slots_assigned:%d\r\n"
                            "cluster_slots_ok:%d\r\n"
                            "cluster_slots_pfail:%d\r\n"
                            "cluster_slots_fail:%d\r\n"
                            "cluster_known_nodes:%lu\r\n"
                            "cluster_size:%d\r\n"
                            "cluster_current_epoch:%llu\r\n"
                            "cluster_my_epoch:%llu\r\n",
                            cs->state == CLUSTER_OK ? "ok" : "fail", assigned, ok, pfail, fail,
                            dictSize(cs->nodes), cs->size, (unsigned long long)cs->currentEpoch,
                            (unsigned long long)myepoch);
    long long total = 0;
    for (int t = 0; t < CLUSTERMSG_TYPE_COUNT; t++) {
        if (!cs->stats_bus_messages_sent[t]) continue;
        total += cs->stats_bus_messages_sent[t];
        info = sdscatprintf(info, "cluster_stats_messages_%s_sent:%lld\r\n", clusterMsgTypeName(t),
                            cs->stats_bus_messages_sent[t]);
    }
    info = sdscatprintf(info, "cluster_stats_messages_sent:%lld\r\n", total);
    total = 0;
    for (int t = 0; t < CLUSTERMSG_TYPE_COUNT; t++) {
        if (!cs->stats_bus_messages_received[t]) continue;
        total += cs->stats_bus_messages_received[t];
        info = sdscatprintf(info, "cluster_stats_messages_%s_received:%lld\r\n", clusterMsgTypeName(t),
                            cs->stats_bus_messages_received[t]);
    }
    info = sdscatprintf(info, "cluster_stats_messages_received:%lld\r\n", total);
    info = sdscatprintf(info, "total_cluster_links_buffer_limit_exceeded:%llu\r\n",
                        cs->stat_cluster_links_buffer_limit_exceeded);
    return info;
}

static void clusterInfoCommand(client *c) {
    if (!clusterEnabledOrReply(c)) return;
    sds info = clusterGenInfoString();
    addReplyVerbatim(c, info, sdslen(info), "txt");
    sdsfree(info);
}

/* ---------------------------------------------------------------------------
 * CLUSTER SLOTS and CLUSTER SHARDS
 * ------------------------------------------------------------------------ */

/* See cluster.h. */
const char *clusterNodePreferredEndpoint(const clusterNode *n) {
    switch (server.cluster_preferred_endpoint_type) {
    case CLUSTER_ENDPOINT_TYPE_IP: return n->ip;
    case CLUSTER_ENDPOINT_TYPE_HOSTNAME: return sdslen(n->hostname) ? n->hostname : "?";
    default: return "";
    }
}

/* One node of a CLUSTER SLOTS range: endpoint, port, id, and the other
 * networking fields as a map. */
static void addSlotsNodeReply(client *c, const clusterNode *n, int use_tls) {
    int type = server.cluster_preferred_endpoint_type;
    addReplyArrayLen(c, 4);
    if (type == CLUSTER_ENDPOINT_TYPE_IP)
        addReplyBulkCString(c, n->ip);
    else if (type == CLUSTER_ENDPOINT_TYPE_HOSTNAME)
        addReplyBulkCString(c, sdslen(n->hostname) ? n->hostname : "?");
    else
        addReplyNull(c);
    addReplyLongLong(c, clusterNodeClientPort(n, use_tls));
    addReplyBulkCBuffer(c, n->name, CLUSTER_NAMELEN);
    int with_ip = type != CLUSTER_ENDPOINT_TYPE_IP;
    int with_host = type != CLUSTER_ENDPOINT_TYPE_HOSTNAME && sdslen(n->hostname);
    addReplyMapLen(c, with_ip + with_host);
    if (with_ip) {
        addReplyBulkCString(c, "ip");
        addReplyBulkCString(c, n->ip);
    }
    if (with_host) {
        addReplyBulkCString(c, "hostname");
        addReplyBulkCString(c, n->hostname);
    }
}

/* A replica CLUSTER SLOTS lists: not in FAIL, and done with its first
 * sync (it announced a replication offset). */
static int replicaIsAvailable(const clusterNode *r) {
    return !clusterNodeFailed(r) && r->repl_offset != 0;
}

/* One slot range of CLUSTER SLOTS: its owner, then its available
 * replicas. */
static void addSlotsRangeReply(client *c, const clusterNode *n, int start, int end, int use_tls) {
    int replicas = 0;
    for (int j = 0; j < n->num_replicas; j++)
        if (replicaIsAvailable(n->replicas[j])) replicas++;
    addReplyArrayLen(c, 3 + replicas);
    addReplyLongLong(c, start);
    addReplyLongLong(c, end);
    addSlotsNodeReply(c, n, use_tls);
    for (int j = 0; j < n->num_replicas; j++)
        if (replicaIsAvailable(n->replicas[j])) addSlotsNodeReply(c, n->replicas[j], use_tls);
}

static void clusterSlotsCommand(client *c) {
    if (!clusterEnabledOrReply(c)) return;
    int use_tls = clientUsesTls(c);
    void *len = addReplyDeferredLen(c);
    long ranges = 0;
    int start = -1;
    for (int j = 0; j <= CLUSTER_SLOTS; j++) {
        clusterNode *n = j < CLUSTER_SLOTS ? server.cluster->slots[j] : NULL;
        if (start != -1 && (j == CLUSTER_SLOTS || n != server.cluster->slots[start])) {
            addSlotsRangeReply(c, server.cluster->slots[start], start, j - 1, use_tls);
            ranges++;
            start = -1;
        }
        if (start == -1 && n) start = j;
    }
    setDeferredArrayLen(c, len, ranges);
}

/* One node of a CLUSTER SHARDS shard, as a map. */
static void addShardNodeReply(client *c, const clusterNode *n, int use_tls) {
    void *len = addReplyDeferredLen(c);
    long fields = 0;
    addReplyBulkCString(c, "id");
    addReplyBulkCBuffer(c, n->name, CLUSTER_NAMELEN);
    fields++;
    if (n->tcp_port) {
        addReplyBulkCString(c, "port");
        addReplyLongLong(c, n->tcp_port);
        fields++;
    }
    if (n->tls_port) {
        addReplyBulkCString(c, "tls-port");
        addReplyLongLong(c, n->tls_port);
        fields++;
    }
    addReplyBulkCString(c, "ip");
    addReplyBulkCString(c, n->ip);
    addReplyBulkCString(c, "endpoint");
    addReplyBulkCString(c, clusterNodePreferredEndpoint(n));
    fields += 2;
    if (sdslen(n->hostname)) {
        addReplyBulkCString(c, "hostname");
        addReplyBulkCString(c, n->hostname);
        fields++;
    }
    long long offset = n == myself ? server.primary_repl_offset : n->repl_offset;
    addReplyBulkCString(c, "role");
    addReplyBulkCString(c, clusterNodeIsPrimary(n) ? "master" : "replica");
    addReplyBulkCString(c, "replication-offset");
    addReplyLongLong(c, offset);
    addReplyBulkCString(c, "health");
    if (clusterNodeFailed(n))
        addReplyBulkCString(c, "fail");
    else if (clusterNodeIsReplica(n) && offset == 0)
        addReplyBulkCString(c, "loading");
    else
        addReplyBulkCString(c, "online");
    fields += 3;
    setDeferredMapLen(c, len, fields);
    (void)use_tls;
}

/* The nodes of one shard, its primary first; *count is set. The caller
 * frees the array. */
static clusterNode **shardMembers(const char *shard_id, int *count) {
    clusterNode **members = zmalloc(sizeof(clusterNode *) * dictSize(server.cluster->nodes));
    int n = 0;
    for (int pass = 0; pass < 2; pass++) {
        dictIterator *di = dictGetSafeIterator(server.cluster->nodes);
        dictEntry *de;
        while ((de = dictNext(di)) != NULL) {
            clusterNode *node = dictGetVal(de);
            if (clusterNodeInHandshake(node) || memcmp(node->shard_id, shard_id, CLUSTER_NAMELEN)) continue;
            if (clusterNodeIsPrimary(node) == (pass == 0)) members[n++] = node;
        }
        dictReleaseIterator(di);
    }
    *count = n;
    return members;
}

/* One shard: its slot ranges (from its primary) and its nodes. */
static void addShardReply(client *c, clusterNode **members, int count, int use_tls) {
    clusterNode *primary = members[0];
    if (clusterNodeIsReplica(primary) && primary->replicaof) primary = primary->replicaof;
    addReplyMapLen(c, 2);
    addReplyBulkCString(c, "slots");
    void *len = addReplyDeferredLen(c);
    long n = 0;
    int slot = 0, first, last;
    while (primary->numslots && clusterSlotBitmapNextRange(primary->slots, &slot, &first, &last)) {
        addReplyLongLong(c, first);
        addReplyLongLong(c, last);
        n += 2;
    }
    setDeferredArrayLen(c, len, n);
    addReplyBulkCString(c, "nodes");
    addReplyArrayLen(c, count);
    for (int j = 0; j < count; j++) addShardNodeReply(c, members[j], use_tls);
}

static void clusterShardsCommand(client *c) {
    if (!clusterEnabledOrReply(c)) return;
    int use_tls = clientUsesTls(c);
    dict *seen = dictCreate(&(dictType){.hashFunction = dictSdsHash, .keyCompare = dictSdsKeyCompare,
                                        .keyDestructor = dictSdsDestructor});
    void *len = addReplyDeferredLen(c);
    long shards = 0;
    dictIterator *di = dictGetSafeIterator(server.cluster->nodes);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        clusterNode *node = dictGetVal(de);
        if (clusterNodeInHandshake(node)) continue;
        sds id = sdsnewlen(node->shard_id, CLUSTER_NAMELEN);
        if (dictAdd(seen, id, NULL) != DICT_OK) {
            sdsfree(id);
            continue;
        }
        int count;
        clusterNode **members = shardMembers(node->shard_id, &count);
        addShardReply(c, members, count, use_tls);
        zfree(members);
        shards++;
    }
    dictReleaseIterator(di);
    dictRelease(seen);
    setDeferredArrayLen(c, len, shards);
}

/* ---------------------------------------------------------------------------
 * Small subcommands
 * ------------------------------------------------------------------------ */

static void clusterMyidCommand(client *c) {
    if (!clusterEnabledOrReply(c)) return;
    addReplyBulkCBuffer(c, myself->name, CLUSTER_NAMELEN);
}

static void clusterMyshardidCommand(client *c) {
    if (!clusterEnabledOrReply(c)) return;
    addReplyBulkCBuffer(c, myself->shard_id, CLUSTER_NAMELEN);
}

static void clusterKeyslotCommand(client *c) {
    if (!clusterEnabledOrReply(c)) return;
    sds key = objectGetVal(c->argv[2]);
    addReplyLongLong(c, keyHashSlot(key, sdslen(key)));
}

static void clusterBumpepochCommand(client *c) {
    if (!clusterEnabledOrReply(c)) return;
    int bumped = clusterBumpConfigEpochWithoutConsensus() == C_OK;
    addReplySds(c, sdscatprintf(sdsempty(), "+%s %llu\r\n", bumped ? "BUMPED" : "STILL",
                                (unsigned long long)myself->configEpoch));
}

static void clusterSaveconfigCommand(client *c) {
    if (!clusterEnabledOrReply(c)) return;
    char err[CLUSTER_MSG_ERR_LEN];
    if (clusterSaveConfig(1, err) == C_OK)
        addReply(c, shared.ok);
    else
        addReplyErrorFormat(c, "error saving the cluster node config: %s", err);
}

/* ---------------------------------------------------------------------------
 * Keys by slot: COUNTKEYSINSLOT, GETKEYSINSLOT, SLOT-STATS
 * ------------------------------------------------------------------------ */

static int slotArgOrReply(client *c, robj *arg);

static void clusterCountkeysinslotCommand(client *c) {
    if (!clusterEnabledOrReply(c)) return;
    long long slot;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &slot, NULL) != C_OK) return;
    if (slot < 0 || slot >= CLUSTER_SLOTS) {
        addReplyError(c, "Invalid slot");
        return;
    }
    addReplyLongLong(c, (long long)dbSlotKeyCount((int)slot));
}

/* Up to count key names of a slot, expired or not, as Valkey lists them
 * (resharding tools MIGRATE what they get). Visits that slot's table
 * only. */
static void clusterGetkeysinslotCommand(client *c) {
    if (!clusterEnabledOrReply(c)) return;
    long long slot, count;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &slot, NULL) != C_OK) return;
    if (getLongLongFromObjectOrReply(c, c->argv[3], &count, NULL) != C_OK) return;
    if (slot < 0 || slot >= CLUSTER_SLOTS || count < 0) {
        addReplyError(c, "Invalid slot or number of keys");
        return;
    }
    size_t in_slot = dbSlotKeyCount((int)slot);
    long long n = (unsigned long long)count < in_slot ? count : (long long)in_slot;
    addReplyArrayLen(c, n);
    if (n == 0) return;
    kvstoreIterator iter;
    kvstoreIteratorInit(&iter, server.db[0].keys, (int)slot, 0);
    void *entry;
    for (long long j = 0; j < n && kvstoreIteratorNext(&iter, &entry); j++) {
        sds key = objectGetKey(entry);
        addReplyBulkCBuffer(c, key, sdslen(key));
    }
    kvstoreIteratorReset(&iter);
}

/* 1 when slot is served by this node's shard: its own slots, or its
 * primary's when it is a replica. SLOT-STATS reports those only. */
static int slotIsInMyShard(int slot) {
    clusterNode *primary = clusterNodeIsPrimary(myself) ? myself : myself->replicaof;
    return primary != NULL && clusterSlotBitmapTest(primary->slots, slot);
}

/* One SLOT-STATS entry: [slot, {key-count: n}]. */
static void addReplySlotStat(client *c, int slot) {
    addReplyArrayLen(c, 2);
    addReplyLongLong(c, slot);
    addReplyMapLen(c, 1);
    addReplyBulkCString(c, "key-count");
    addReplyLongLong(c, (long long)dbSlotKeyCount(slot));
}

/* A slot and the statistic SLOT-STATS ORDERBY sorts it by. */
typedef struct {
    int slot;
    unsigned long long stat;
} slotStatSortEntry;

/* qsort comparators: by the statistic, ties by ascending slot. */
static int slotStatCompareAsc(const void *a, const void *b) {
    const slotStatSortEntry *x = a, *y = b;
    if (x->stat != y->stat) return x->stat < y->stat ? -1 : 1;
    return x->slot - y->slot;
}

static int slotStatCompareDesc(const void *a, const void *b) {
    const slotStatSortEntry *x = a, *y = b;
    if (x->stat != y->stat) return x->stat > y->stat ? -1 : 1;
    return x->slot - y->slot;
}

/* SLOT-STATS SLOTSRANGE start end: the slots of the range this shard
 * serves, in slot order. */
static void clusterSlotStatsRange(client *c) {
    int start = slotArgOrReply(c, c->argv[3]);
    if (start < 0) return;
    int end = slotArgOrReply(c, c->argv[4]);
    if (end < 0) return;
    if (start > end) {
        addReplyErrorFormat(c, "Start slot number %d is greater than end slot number %d", start, end);
        return;
    }
    long n = 0;
    for (int slot = start; slot <= end; slot++) n += slotIsInMyShard(slot);
    addReplyArrayLen(c, n);
    for (int slot = start; slot <= end; slot++)
        if (slotIsInMyShard(slot)) addReplySlotStat(c, slot);
}

/* SLOT-STATS ORDERBY metric [LIMIT n] [ASC|DESC]: this shard's slots
 * sorted by the metric (descending unless ASC), the first n (all). */
static void clusterSlotStatsOrderBy(client *c) {
    if (strcasecmp(objectGetVal(c->argv[3]), "key-count")) {
        addReplyError(c, "Unrecognized sort metric for ORDERBY.");
        return;
    }
    long limit = CLUSTER_SLOTS;
    int desc = 1, limits = 0, orders = 0;
    for (int j = 4; j < c->argc; j++) {
        const char *opt = objectGetVal(c->argv[j]);
        if (!strcasecmp(opt, "limit") && j + 1 < c->argc) {
            if (getRangeLongFromObjectOrReply(c, c->argv[++j], 1, CLUSTER_SLOTS, &limit,
                                              "Limit has to lie in between 1 and 16384 (maximum number of slots).") !=
                C_OK)
                return;
            limits++;
        } else if (!strcasecmp(opt, "asc") || !strcasecmp(opt, "desc")) {
            desc = !strcasecmp(opt, "desc");
            orders++;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
        if (limits > 1 || orders > 1) {
            addReplyError(c, "Multiple filters of the same type are disallowed.");
            return;
        }
    }
    slotStatSortEntry *entries = zmalloc(sizeof(*entries) * CLUSTER_SLOTS);
    int n = 0;
    for (int slot = 0; slot < CLUSTER_SLOTS; slot++) {
        if (!slotIsInMyShard(slot)) continue;
        entries[n].slot = slot;
        entries[n].stat = dbSlotKeyCount(slot);
        n++;
    }
    qsort(entries, (size_t)n, sizeof(*entries), desc ? slotStatCompareDesc : slotStatCompareAsc);
    if (n > limit) n = (int)limit;
    addReplyArrayLen(c, n);
    for (int j = 0; j < n; j++) addReplySlotStat(c, entries[j].slot);
    zfree(entries);
}

static void clusterSlotStatsCommand(client *c) {
    if (!clusterEnabledOrReply(c)) return;
    if (c->argc == 5 && !strcasecmp(objectGetVal(c->argv[2]), "slotsrange"))
        clusterSlotStatsRange(c);
    else if (c->argc >= 4 && !strcasecmp(objectGetVal(c->argv[2]), "orderby"))
        clusterSlotStatsOrderBy(c);
    else
        addReplySubcommandSyntaxError(c);
}

/* The node an argument names, or NULL with "Unknown node" replied. */
static clusterNode *nodeArgOrReply(client *c, robj *arg) {
    sds name = objectGetVal(arg);
    clusterNode *n = clusterLookupNode(name, sdslen(name));
    if (!n) addReplyErrorFormat(c, "Unknown node %s", name);
    return n;
}

static void clusterCountFailureReportsCommand(client *c) {
    if (!clusterEnabledOrReply(c)) return;
    clusterNode *n = nodeArgOrReply(c, c->argv[2]);
    if (n) addReplyLongLong(c, clusterNodeFailureReportsCount(n));
}

static void clusterForgetCommand(client *c) {
    if (!clusterEnabledOrReply(c)) return;
    sds name = objectGetVal(c->argv[2]);
    clusterNode *n = clusterLookupNode(name, sdslen(name));
    if (!n) {
        /* Already forgotten (maybe gossiped by another node): done. */
        if (sdslen(name) == CLUSTER_NAMELEN && clusterBlacklistExists(name))
            addReply(c, shared.ok);
        else
            addReplyErrorFormat(c, "Unknown node %s", name);
        return;
    }
    if (n == myself) {
        addReplyError(c, "I tried hard but I can't forget myself...");
        return;
    }
    if (clusterNodeIsReplica(myself) && myself->replicaof == n) {
        addReplyError(c, "Can't forget my master!");
        return;
    }
    clusterBlacklistAddNode(n->name, server.cluster_blacklist_ttl);
    clusterDelNode(n);
    clusterDoBeforeSleep(CLUSTER_TODO_UPDATE_STATE | CLUSTER_TODO_SAVE_CONFIG);
    addReply(c, shared.ok);
}

static void clusterSetConfigEpochCommand(client *c) {
    if (!clusterEnabledOrReply(c)) return;
    long long epoch;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &epoch, NULL) != C_OK) return;
    if (epoch < 0) {
        addReplyErrorFormat(c, "Invalid config epoch specified: %lld", epoch);
    } else if (dictSize(server.cluster->nodes) > 1) {
        addReplyError(c, "The user can assign a config epoch only when the node does not know any other node.");
    } else if (myself->configEpoch != 0) {
        addReplyError(c, "Node config epoch is already non-zero");
    } else {
        myself->configEpoch = (uint64_t)epoch;
        serverLog(LL_NOTICE, "configEpoch set to %llu via CLUSTER SET-CONFIG-EPOCH",
                  (unsigned long long)myself->configEpoch);
        if (server.cluster->currentEpoch < (uint64_t)epoch) server.cluster->currentEpoch = (uint64_t)epoch;
        clusterDoBeforeSleep(CLUSTER_TODO_UPDATE_STATE | CLUSTER_TODO_SAVE_CONFIG);
        addReply(c, shared.ok);
    }
}

/* Keys in any database: a primary with keys may not drop its slots. */
static int datasetIsEmpty(void) {
    for (int j = 0; j < server.dbnum; j++)
        if (kvstoreSize(server.db[j].keys)) return 0;
    return 1;
}

static void clusterResetCommand(client *c) {
    if (!clusterEnabledOrReply(c)) return;
    int hard = 0;
    if (c->argc > 3) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    if (c->argc == 3) {
        if (!strcasecmp(objectGetVal(c->argv[2]), "hard")) {
            hard = 1;
        } else if (strcasecmp(objectGetVal(c->argv[2]), "soft")) {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    if (clusterNodeIsPrimary(myself) && !datasetIsEmpty()) {
        addReplyError(c, "CLUSTER RESET can't be called with master nodes containing keys");
        return;
    }
    clusterReset(hard);
    addReply(c, shared.ok);
}

static void clusterFlushslotsCommand(client *c) {
    if (!clusterEnabledOrReply(c)) return;
    if (!datasetIsEmpty()) {
        addReplyError(c, "DB must be empty to perform CLUSTER FLUSHSLOTS.");
        return;
    }
    clusterDelNodeSlots(myself);
    clusterDoBeforeSleep(CLUSTER_TODO_UPDATE_STATE | CLUSTER_TODO_SAVE_CONFIG);
    addReply(c, shared.ok);
}

static void clusterMeetCommand(client *c) {
    if (!clusterEnabledOrReply(c)) return;
    if (c->argc > 5) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    long long port, cport;
    if (getLongLongFromObject(c->argv[3], &port) != C_OK) {
        addReplyErrorFormat(c, "Invalid base port specified: %s", (char *)objectGetVal(c->argv[3]));
        return;
    }
    if (c->argc == 5) {
        if (getLongLongFromObject(c->argv[4], &cport) != C_OK) {
            addReplyErrorFormat(c, "Invalid bus port specified: %s", (char *)objectGetVal(c->argv[4]));
            return;
        }
    } else {
        cport = port + CLUSTER_PORT_INCR;
    }
    int ok = port >= INT_MIN && port <= INT_MAX && cport >= INT_MIN && cport <= INT_MAX &&
             clusterStartHandshake(objectGetVal(c->argv[2]), (int)port, (int)cport);
    if (!ok && (errno == EINVAL || port < INT_MIN || port > INT_MAX || cport < INT_MIN || cport > INT_MAX)) {
        addReplyErrorFormat(c, "Invalid node address specified: %s:%s", (char *)objectGetVal(c->argv[2]),
                            (char *)objectGetVal(c->argv[3]));
        return;
    }
    addReply(c, shared.ok);
}

/* ---------------------------------------------------------------------------
 * ADDSLOTS, DELSLOTS and their ranges
 * ------------------------------------------------------------------------ */

/* The slot an argument names, or -1 with Valkey's error replied. */
static int slotArgOrReply(client *c, robj *arg) {
    long long slot;
    if (getLongLongFromObject(arg, &slot) != C_OK || slot < 0 || slot >= CLUSTER_SLOTS) {
        addReplyError(c, "Invalid or out of range slot");
        return -1;
    }
    return (int)slot;
}

/* Marks first..last in chosen (one count per slot), refusing a slot that
 * is busy (add) or unassigned (delete), or named twice. C_OK or C_ERR
 * (replied). */
static int checkSlotAssignments(client *c, unsigned char *chosen, int del, int first, int last) {
    for (int slot = first; slot <= last; slot++) {
        if (del && server.cluster->slots[slot] == NULL) {
            addReplyErrorFormat(c, "Slot %d is already unassigned", slot);
            return C_ERR;
        }
        if (!del && server.cluster->slots[slot]) {
            addReplyErrorFormat(c, "Slot %d is already busy", slot);
            return C_ERR;
        }
        if (chosen[slot]++ == 1) {
            addReplyErrorFormat(c, "Slot %d specified multiple times", slot);
            return C_ERR;
        }
    }
    return C_OK;
}

/* Assigns the chosen slots to myself (or unassigns them) once every
 * argument passed: nothing changes on an error. */
static void applySlotAssignments(client *c, const unsigned char *chosen, int del) {
    for (int j = 0; j < CLUSTER_SLOTS; j++) {
        if (!chosen[j]) continue;
        server.cluster->importing_slots_from[j] = NULL; /* we own it now */
        int rc = del ? clusterDelSlot(j) : clusterAddSlot(myself, j);
        serverAssert(rc == C_OK);
    }
    clusterDoBeforeSleep(CLUSTER_TODO_UPDATE_STATE | CLUSTER_TODO_SAVE_CONFIG);
    addReply(c, shared.ok);
}

/* ADDSLOTS/DELSLOTS slot..., or with ranged the RANGE forms' pairs. */
static void slotsGenericCommand(client *c, int del, int ranged) {
    if (!clusterEnabledOrReply(c)) return;
    if (ranged && c->argc % 2 == 1) {
        addReplyErrorArity(c);
        return;
    }
    /* Every argument parses before any is checked against the slot map. */
    for (int j = 2; j < c->argc; j++)
        if (slotArgOrReply(c, c->argv[j]) < 0) return;
    unsigned char *chosen = zcalloc(CLUSTER_SLOTS);
    for (int j = 2; j < c->argc; j += ranged ? 2 : 1) {
        int first = slotArgOrReply(c, c->argv[j]);
        int last = ranged ? slotArgOrReply(c, c->argv[j + 1]) : first;
        if (first > last) {
            addReplyErrorFormat(c, "start slot number %d is greater than end slot number %d", first, last);
            zfree(chosen);
            return;
        }
        if (checkSlotAssignments(c, chosen, del, first, last) != C_OK) {
            zfree(chosen);
            return;
        }
    }
    applySlotAssignments(c, chosen, del);
    zfree(chosen);
}

static void clusterAddslotsCommand(client *c) {
    slotsGenericCommand(c, 0, 0);
}

static void clusterDelslotsCommand(client *c) {
    slotsGenericCommand(c, 1, 0);
}

static void clusterAddslotsrangeCommand(client *c) {
    slotsGenericCommand(c, 0, 1);
}

static void clusterDelslotsrangeCommand(client *c) {
    slotsGenericCommand(c, 1, 1);
}

/* ---------------------------------------------------------------------------
 * CLUSTER LINKS and HELP
 * ------------------------------------------------------------------------ */

static void addLinkReply(client *c, const clusterLink *link) {
    char events[3];
    addReplyMapLen(c, 6);
    addReplyBulkCString(c, "direction");
    addReplyBulkCString(c, link->inbound ? "from" : "to");
    addReplyBulkCString(c, "node");
    addReplyBulkCBuffer(c, link->node->name, CLUSTER_NAMELEN);
    addReplyBulkCString(c, "create-time");
    addReplyLongLong(c, link->ctime);
    addReplyBulkCString(c, "events");
    addReplyBulkCString(c, clusterLinkEvents(link, events));
    addReplyBulkCString(c, "send-buffer-allocated");
    addReplyLongLong(c, (long long)link->send_msg_queue_mem);
    addReplyBulkCString(c, "send-buffer-used");
    addReplyLongLong(c, (long long)link->send_msg_queue_mem);
}

static void clusterLinksCommand(client *c) {
    if (!clusterEnabledOrReply(c)) return;
    void *len = addReplyDeferredLen(c);
    long n = 0;
    dictIterator *di = dictGetSafeIterator(server.cluster->nodes);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        clusterNode *node = dictGetVal(de);
        if (node->link) {
            addLinkReply(c, node->link);
            n++;
        }
        if (node->inbound_link) {
            addLinkReply(c, node->inbound_link);
            n++;
        }
    }
    dictReleaseIterator(di);
    setDeferredArrayLen(c, len, n);
}

static void clusterHelpCommand(client *c) {
    if (!clusterEnabledOrReply(c)) return;
    static const char *help[] = {
        "INFO",
        "    Return information about the cluster.",
        "KEYSLOT <key>",
        "    Return the hash slot for <key>.",
        "MYID",
        "    Return the node id.",
        "MYSHARDID",
        "    Return the node's shard id.",
        "NODES",
        "    Return cluster configuration seen by node. Output format:",
        "    <id> <ip:port@bus-port[,hostname]> <flags> <primary> <pings> <pongs> <epoch> <link> <slot> ...",
        "SLOTS",
        "    Return information about slots range mappings. Each range is made of:",
        "    start, end, primary and replicas IP addresses, ports and ids",
        "SHARDS",
        "    Return information about slot range mappings and the nodes associated with them.",
        "ADDSLOTS <slot> [<slot> ...]",
        "    Assign slots to current node.",
        "ADDSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
        "    Assign slots which are between <start-slot> and <end-slot> to current node.",
        "BUMPEPOCH",
        "    Advance the cluster config epoch.",
        "COUNTKEYSINSLOT <slot>",
        "    Return the number of keys in <slot>.",
        "COUNT-FAILURE-REPORTS <node-id>",
        "    Return number of failure reports for <node-id>.",
        "DELSLOTS <slot> [<slot> ...]",
        "    Delete slots information from current node.",
        "DELSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
        "    Delete slots information which are between <start-slot> and <end-slot> from current node.",
        "FORGET <node-id>",
        "    Remove a node from the cluster.",
        "FLUSHSLOTS",
        "    Delete current node own slots information.",
        "GETKEYSINSLOT <slot> <count>",
        "    Return key names stored by current node in a slot.",
        "MEET <ip> <port> [<bus-port>]",
        "    Connect nodes into a working cluster.",
        "RESET [HARD|SOFT]",
        "    Reset current node (default: soft).",
        "SET-CONFIG-EPOCH <epoch>",
        "    Set config epoch of current node.",
        "SAVECONFIG",
        "    Force saving cluster configuration on disk.",
        "SLOT-STATS SLOTSRANGE <start slot> <end slot> | ORDERBY <metric> [LIMIT <limit>] [ASC|DESC]",
        "    Return the key-count of the slots this node's shard serves, by range or sorted by <metric>.",
        "LINKS",
        "    Return information about all network links between this node and its peers.",
        "    Output format is an array where each array element is a map containing attributes of a link",
        NULL,
    };
    addReplyHelp(c, help);
}

/* ASKING: the next command may touch a slot this node is importing. */
void askingCommand(client *c) {
    if (!clusterEnabledOrReply(c)) return;
    c->flags |= CLIENT_ASKING;
    addReply(c, shared.ok);
}

/* ---------------------------------------------------------------------------
 * Command table rows
 * ------------------------------------------------------------------------ */

#define ADMIN_SUB (CMD_NO_ASYNC_LOADING | CMD_ADMIN | CMD_STALE)

static struct serverCommand clusterSubcommands[] = {
    {.name = "addslots", .proc = clusterAddslotsCommand, .arity = -3, .flags = ADMIN_SUB, .group = "cluster",
     .since = "3.0.0", .summary = "Assigns new hash slots to a node.",
     .complexity = "O(N) where N is the total number of hash slot arguments", .args = "slot:integer [slot:integer ...]"},
    {.name = "addslotsrange", .proc = clusterAddslotsrangeCommand, .arity = -4, .flags = ADMIN_SUB,
     .group = "cluster", .since = "7.0.0", .summary = "Assigns new hash slot ranges to a node.",
     .complexity = "O(N) where N is the total number of the slots between the start slot and end slot arguments.",
     .args = "start-slot:integer end-slot:integer [start-slot:integer end-slot:integer ...]"},
    {.name = "bumpepoch", .proc = clusterBumpepochCommand, .arity = 2, .flags = ADMIN_SUB, .group = "cluster",
     .since = "3.0.0", .summary = "Advances the cluster config epoch.", .complexity = "O(1)"},
    {.name = "count-failure-reports", .proc = clusterCountFailureReportsCommand, .arity = 3,
     .flags = CMD_ADMIN | CMD_STALE, .group = "cluster", .since = "3.0.0",
     .summary = "Returns the number of active failure reports active for a node.",
     .complexity = "O(N) where N is the number of failure reports", .args = "node-id"},
    {.name = "countkeysinslot", .proc = clusterCountkeysinslotCommand, .arity = 3, .flags = CMD_STALE,
     .group = "cluster", .since = "3.0.0", .summary = "Returns the number of keys in a hash slot.",
     .complexity = "O(1)", .args = "slot:integer"},
    {.name = "delslots", .proc = clusterDelslotsCommand, .arity = -3, .flags = ADMIN_SUB, .group = "cluster",
     .since = "3.0.0", .summary = "Sets hash slots as unbound for a node.",
     .complexity = "O(N) where N is the total number of hash slot arguments", .args = "slot:integer [slot:integer ...]"},
    {.name = "delslotsrange", .proc = clusterDelslotsrangeCommand, .arity = -4, .flags = ADMIN_SUB,
     .group = "cluster", .since = "7.0.0", .summary = "Sets hash slot ranges as unbound for a node.",
     .complexity = "O(N) where N is the total number of the slots between the start slot and end slot arguments.",
     .args = "start-slot:integer end-slot:integer [start-slot:integer end-slot:integer ...]"},
    {.name = "flushslots", .proc = clusterFlushslotsCommand, .arity = 2, .flags = ADMIN_SUB, .group = "cluster",
     .since = "3.0.0", .summary = "Deletes all slots information from a node.", .complexity = "O(1)"},
    {.name = "forget", .proc = clusterForgetCommand, .arity = 3, .flags = ADMIN_SUB, .group = "cluster",
     .since = "3.0.0", .summary = "Removes a node from the nodes table.", .complexity = "O(1)", .args = "node-id"},
    {.name = "getkeysinslot", .proc = clusterGetkeysinslotCommand, .arity = 4, .flags = CMD_STALE,
     .group = "cluster", .since = "3.0.0", .summary = "Returns the key names in a hash slot.",
     .complexity = "O(N) where N is the number of requested keys", .args = "slot:integer count:integer"},
    {.name = "help", .proc = clusterHelpCommand, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .group = "cluster",
     .since = "5.0.0", .summary = "Returns helpful text about the different subcommands.", .complexity = "O(1)"},
    {.name = "info", .proc = clusterInfoCommand, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .group = "cluster",
     .since = "3.0.0", .summary = "Returns information about the state of a node.", .complexity = "O(1)"},
    {.name = "keyslot", .proc = clusterKeyslotCommand, .arity = 3, .flags = CMD_STALE, .group = "cluster",
     .since = "3.0.0", .summary = "Returns the hash slot for a key.",
     .complexity = "O(N) where N is the number of bytes in the key", .args = "key:string"},
    {.name = "links", .proc = clusterLinksCommand, .arity = 2, .flags = CMD_STALE, .group = "cluster",
     .since = "7.0.0", .summary = "Returns a list of all TCP links to and from peer nodes.",
     .complexity = "O(N) where N is the total number of Cluster nodes"},
    {.name = "meet", .proc = clusterMeetCommand, .arity = -4, .flags = ADMIN_SUB, .group = "cluster",
     .since = "3.0.0", .summary = "Forces a node to handshake with another node.", .complexity = "O(1)",
     .args = "ip port:integer [cluster-bus-port:integer]"},
    {.name = "myid", .proc = clusterMyidCommand, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .group = "cluster",
     .since = "3.0.0", .summary = "Returns the ID of a node.", .complexity = "O(1)"},
    {.name = "myshardid", .proc = clusterMyshardidCommand, .arity = 2, .flags = CMD_STALE, .group = "cluster",
     .since = "7.2.0", .summary = "Returns the shard ID of a node.", .complexity = "O(1)"},
    {.name = "nodes", .proc = clusterNodesCommand, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .group = "cluster",
     .since = "3.0.0", .summary = "Returns the cluster configuration for a node.",
     .complexity = "O(N) where N is the total number of Cluster nodes"},
    {.name = "reset", .proc = clusterResetCommand, .arity = -2, .flags = CMD_ADMIN | CMD_STALE | CMD_NOSCRIPT,
     .group = "cluster", .since = "3.0.0", .summary = "Resets a node.",
     .complexity = "O(N) where N is the number of known nodes. The command may execute a FLUSHALL as a side "
                   "effect.",
     .args = "[HARD | SOFT]"},
    {.name = "saveconfig", .proc = clusterSaveconfigCommand, .arity = 2, .flags = ADMIN_SUB, .group = "cluster",
     .since = "3.0.0", .summary = "Forces a node to save the cluster configuration to disk.", .complexity = "O(1)"},
    {.name = "set-config-epoch", .proc = clusterSetConfigEpochCommand, .arity = 3, .flags = ADMIN_SUB,
     .group = "cluster", .since = "3.0.0", .summary = "Sets the configuration epoch for a new node.",
     .complexity = "O(1)", .args = "config-epoch:integer"},
    {.name = "shards", .proc = clusterShardsCommand, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .group = "cluster",
     .since = "7.0.0", .summary = "Returns the mapping of cluster slots to shards.",
     .complexity = "O(N) where N is the total number of cluster nodes"},
    {.name = "slot-stats", .proc = clusterSlotStatsCommand, .arity = -4, .flags = CMD_LOADING | CMD_STALE,
     .group = "cluster",
     .since = "8.0.0", .summary = "Return an array of slot usage statistics for slots assigned to the current node.",
     .complexity = "O(N) where N is the total number of slots based on arguments. O(N*log(N)) with ORDERBY "
                   "subcommand.",
     .args = "filter=<slotsrange=<SLOTSRANGE start-slot:integer end-slot:integer> | orderby=<ORDERBY metric [LIMIT limit:integer] [order=[ASC | DESC]]>>"},
    {.name = "slots", .proc = clusterSlotsCommand, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .group = "cluster",
     .since = "3.0.0", .summary = "Returns the mapping of cluster slots to nodes.",
     .complexity = "O(N) where N is the total number of Cluster nodes"},
    {.name = NULL},
};

/* The CLUSTER container and ASKING; commands.c lists this table. */
struct serverCommand clusterCommands[] = {
    {.name = "cluster", .arity = -2, .group = "cluster", .since = "3.0.0",
     .summary = "A container for Valkey Cluster commands.", .complexity = "Depends on subcommand.",
     .subcommands = clusterSubcommands},
    {.name = "asking", .proc = askingCommand, .arity = 1, .flags = CMD_FAST, .acl_categories = ACL_CATEGORY_CONNECTION,
     .group = "cluster", .since = "3.0.0", .summary = "Signals that a cluster client is following an -ASK redirect.",
     .complexity = "O(1)"},
    {.name = NULL},
};
