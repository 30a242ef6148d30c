/* cluster.c - the cluster node's view of the cluster: the node table, the
 * slot map, failure detection, epochs, the cluster state and nodes.conf.
 *
 * server.cluster holds one clusterNode per known node (myself included),
 * found by name. A node learned from CLUSTER MEET starts in HANDSHAKE
 * under a random name until its first PONG tells the real one
 * (cluster_bus.c renames it); a node learned from a trusted peer's gossip
 * starts under its real name. The slot map (slots[]) and each node's slot
 * bitmap are changed together, by clusterAddSlot()/clusterDelSlot() only,
 * so that they always agree.
 *
 * Failure detection is Valkey's: a node we sent a PING to and that has
 * not answered, nor sent anything, within cluster-node-timeout is PFAIL
 * (our opinion); primaries gossip their PFAIL nodes, each such gossip
 * entry is a failure report, and once the reports of a majority of the
 * primaries serving slots (ours counted if we are one) are fresh (two node
 * timeouts), the node is FAIL: we broadcast it and everyone agrees. FAIL
 * is cleared when the node answers again, at once for replicas and
 * primaries without slots, after two node timeouts for a primary whose
 * slots nobody took over.
 *
 * Epochs: currentEpoch is the highest epoch seen anywhere; each primary
 * has a configEpoch that versions its claim on its slots. A slot moves to a
 * node claiming it with a greater configEpoch (clusterUpdateSlotsConfigWith());
 * two primaries with the same configEpoch are separated by the one with
 * the smaller name taking a new epoch (clusterHandleConfigEpochCollision()).
 *
 * nodes.conf: loaded at start-up through cluster_conf.c (which checks it
 * and refuses a corrupt or foreign file with the line and reason), locked
 * for the process' life, and saved whenever the view changes: changes set
 * CLUSTER_TODO_SAVE_CONFIG and clusterBeforeSleep() writes the file once
 * before the event loop sleeps (atomically, fsync'ed when the change was an
 * epoch). A save that fails is fatal, as in Valkey: a node must not go on
 * with a view it cannot persist.
 *
 * A slot this node loses to a node with a greater configEpoch while it
 * still holds keys in it is "dirty": those keys are deleted (db.c), as
 * Valkey does.
 *
 * Left to later steps: replicas in cluster mode (CLUSTER REPLICATE,
 * elections and failover, replica migration), slot migration and command
 * routing (nodes.conf checked against the data). Everything here runs in
 * the main thread. */
#include "cluster.h"
#include "blocked.h"
#include "cluster_conf.h"
#include "replication.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <string.h>
#include <strings.h>

/* ---------------------------------------------------------------------------
 * Dictionary types
 * ------------------------------------------------------------------------ */

/* Node names are case-sensitive lowercase hex; the dict owns its keys. */
static dictType clusterNodesDictType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .keyDestructor = dictSdsDestructor,
};

/* name -> expire time (unix seconds) as an unsigned value. */
static dictType clusterBlacklistDictType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .keyDestructor = dictSdsDestructor,
};

#define myself (server.cluster->myself)

/* ---------------------------------------------------------------------------
 * Small helpers
 * ------------------------------------------------------------------------ */

/* See cluster.h. */
int clusterNodeIsMyself(const clusterNode *n) {
    return n == myself;
}

/* See cluster.h: the slot map's owner of slot (borrowed), or NULL. */
clusterNode *clusterNodeBySlot(int slot) {
    return server.cluster->slots[slot];
}

/* A primary that counts for quorums: one serving at least one slot. */
int clusterNodeIsVotingPrimary(const clusterNode *n) {
    return clusterNodeIsPrimary(n) && n->numslots > 0;
}

/* The epoch CLUSTER NODES shows: a replica shows its primary's. */
uint64_t clusterNodeEpoch(const clusterNode *n) {
    if (clusterNodeIsReplica(n) && n->replicaof) return n->replicaof->configEpoch;
    return n->configEpoch;
}

/* The client port of n for a client over TLS (use_tls) or not. */
int clusterNodeClientPort(const clusterNode *n, int use_tls) {
    return use_tls ? n->tls_port : n->tcp_port;
}

/* See cluster.h. Asks clusterBeforeSleep() for CLUSTER_TODO_* work before
 * the event loop next sleeps (and so before any reply goes out). */
void clusterDoBeforeSleep(int flags) {
    server.cluster->todo_before_sleep |= flags;
}

/* The client port other nodes should use by default: TLS's when the bus is
 * TLS, as Valkey derives the default bus port from it. */
static int defaultClientPort(void) {
    return server.tls_cluster ? server.tls_port : server.port;
}

/* ---------------------------------------------------------------------------
 * Nodes
 * ------------------------------------------------------------------------ */

/* See cluster.h. A new node named name (40 characters), or under a random
 * name when name is NULL, with a random shard id; not yet in the table. The
 * caller owns it until clusterAddNode(). */
clusterNode *clusterCreateNode(const char *name, int flags) {
    clusterNode *n = zcalloc(sizeof(*n));
    if (name)
        memcpy(n->name, name, CLUSTER_NAMELEN);
    else
        getRandomHexChars(n->name, CLUSTER_NAMELEN);
    getRandomHexChars(n->shard_id, CLUSTER_NAMELEN);
    n->ctime = mstime();
    n->flags = flags;
    n->hostname = sdsempty();
    n->human_nodename = sdsempty();
    n->fail_reports = listCreate();
    n->repl_offset_time = 0;
    return n;
}

/* See cluster.h. Adds node to the table: C_OK, or C_ERR if its name is
 * taken (the caller still owns it then). */
int clusterAddNode(clusterNode *node) {
    return dictAdd(server.cluster->nodes, sdsnewlen(node->name, CLUSTER_NAMELEN), node) == DICT_OK ? C_OK : C_ERR;
}

/* See cluster.h. Returns the node named by the len bytes at name, or NULL
 * (always NULL for a length other than 40). */
clusterNode *clusterLookupNode(const char *name, size_t len) {
    if (len != CLUSTER_NAMELEN) return NULL;
    sds s = sdsnewlen(name, len);
    clusterNode *n = dictFetchValue(server.cluster->nodes, s);
    sdsfree(s);
    return n;
}

static int clusterNodeAddReplica(clusterNode *primary, clusterNode *replica) {
    for (int j = 0; j < primary->num_replicas; j++)
        if (primary->replicas[j] == replica) return C_ERR;
    primary->replicas = zrealloc(primary->replicas, sizeof(clusterNode *) * (primary->num_replicas + 1));
    primary->replicas[primary->num_replicas++] = replica;
    primary->flags |= CLUSTER_NODE_MIGRATE_TO;
    return C_OK;
}

static int clusterNodeRemoveReplica(clusterNode *primary, clusterNode *replica) {
    for (int j = 0; j < primary->num_replicas; j++) {
        if (primary->replicas[j] != replica) continue;
        memmove(primary->replicas + j, primary->replicas + j + 1,
                sizeof(clusterNode *) * (primary->num_replicas - j - 1));
        primary->num_replicas--;
        if (primary->num_replicas == 0) primary->flags &= ~CLUSTER_NODE_MIGRATE_TO;
        return C_OK;
    }
    return C_ERR;
}

/* Unlinks n from the table and everything that points at it, and frees it
 * with its links. */
static void freeClusterNode(clusterNode *n) {
    for (int j = 0; j < n->num_replicas; j++) n->replicas[j]->replicaof = NULL;
    if (n->replicaof) clusterNodeRemoveReplica(n->replicaof, n);
    sds name = sdsnewlen(n->name, CLUSTER_NAMELEN);
    serverAssert(dictDelete(server.cluster->nodes, name) == DICT_OK);
    sdsfree(name);
    if (n->link) clusterFreeLink(n->link);
    if (n->inbound_link) clusterFreeLink(n->inbound_link);
    listIter li;
    listNode *ln;
    listRewind(n->fail_reports, &li);
    while ((ln = listNext(&li)) != NULL) zfree(listNodeValue(ln));
    listRelease(n->fail_reports);
    zfree(n->replicas);
    sdsfree(n->hostname);
    sdsfree(n->human_nodename);
    zfree(n);
}

/* See cluster.h. Removes a node from the cluster: its slots become
 * unassigned, its failure reports about others go, and it is freed. Never
 * called on myself. */
void clusterDelNode(clusterNode *delnode) {
    serverAssert(delnode != myself);
    for (int j = 0; j < CLUSTER_SLOTS; j++) {
        if (server.cluster->importing_slots_from[j] == delnode) server.cluster->importing_slots_from[j] = NULL;
        if (server.cluster->migrating_slots_to[j] == delnode) server.cluster->migrating_slots_to[j] = NULL;
    }
    clusterDelNodeSlots(delnode);
    dictIterator *di = dictGetSafeIterator(server.cluster->nodes);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        clusterNode *node = dictGetVal(de);
        if (node != delnode) clusterNodeDelFailureReport(node, delnode);
    }
    dictReleaseIterator(di);
    freeClusterNode(delnode);
}

/* See cluster.h. Gives a node out of the handshake its real name. */
void clusterRenameNode(clusterNode *node, const char *newname) {
    serverLog(LL_DEBUG, "Renaming node %.40s into %.40s", node->name, newname);
    sds old = sdsnewlen(node->name, CLUSTER_NAMELEN);
    dictEntry *de = dictUnlink(server.cluster->nodes, old);
    serverAssert(de != NULL);
    dictFreeUnlinkedEntry(server.cluster->nodes, de);
    sdsfree(old);
    memcpy(node->name, newname, CLUSTER_NAMELEN);
    serverAssert(clusterAddNode(node) == C_OK);
}

/* See cluster.h. Whether a handshake with ip:port@cport is already under
 * way. */
int clusterHandshakeInProgress(const char *ip, int port, int cport) {
    dictIterator *di = dictGetSafeIterator(server.cluster->nodes);
    dictEntry *de;
    int found = 0;
    while ((de = dictNext(di)) != NULL && !found) {
        clusterNode *n = dictGetVal(de);
        if (!clusterNodeInHandshake(n)) continue;
        found = !strcasecmp(n->ip, ip) && clusterNodeClientPort(n, server.tls_cluster) == port && n->cport == cport;
    }
    dictReleaseIterator(di);
    return found;
}

/* See cluster.h. CLUSTER MEET: starts a handshake with the node at
 * ip:port (bus cport). Returns 1 when started; 0 with errno EINVAL for an
 * address that is not an IPv4/IPv6 address or ports out of range, EAGAIN
 * when a handshake to it is already in progress. */
int clusterStartHandshake(const char *ip, int port, int cport) {
    struct sockaddr_storage sa;
    char norm[NET_IP_STR_LEN];
    if (inet_pton(AF_INET, ip, &((struct sockaddr_in *)&sa)->sin_addr)) {
        inet_ntop(AF_INET, &((struct sockaddr_in *)&sa)->sin_addr, norm, sizeof(norm));
    } else if (inet_pton(AF_INET6, ip, &((struct sockaddr_in6 *)&sa)->sin6_addr)) {
        inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&sa)->sin6_addr, norm, sizeof(norm));
    } else {
        errno = EINVAL;
        return 0;
    }
    if (port <= 0 || port > 65535 || cport <= 0 || cport > 65535) {
        errno = EINVAL;
        return 0;
    }
    if (clusterHandshakeInProgress(norm, port, cport)) {
        errno = EAGAIN;
        return 0;
    }
    clusterNode *n = clusterCreateNode(NULL, CLUSTER_NODE_HANDSHAKE | CLUSTER_NODE_MEET);
    memcpy(n->ip, norm, sizeof(norm));
    if (server.tls_cluster)
        n->tls_port = port;
    else
        n->tcp_port = port;
    n->cport = cport;
    serverAssert(clusterAddNode(n) == C_OK);
    return 1;
}

/* See cluster.h. n (a replica as far as we knew) now says it is a primary. */
void clusterSetNodeAsPrimary(clusterNode *n) {
    if (clusterNodeIsPrimary(n)) return;
    if (n->replicaof) {
        clusterNodeRemoveReplica(n->replicaof, n);
        if (n != myself) n->flags |= CLUSTER_NODE_MIGRATE_TO;
    }
    n->flags &= ~CLUSTER_NODE_REPLICA;
    n->flags |= CLUSTER_NODE_PRIMARY;
    n->replicaof = NULL;
    clusterDoBeforeSleep(CLUSTER_TODO_SAVE_CONFIG | CLUSTER_TODO_UPDATE_STATE);
}

/* See cluster.h. n says it replicates primary: it loses any slots it had
 * and moves to primary's replica list. */
void clusterSetNodeReplicaOf(clusterNode *n, clusterNode *primary) {
    if (clusterNodeIsPrimary(n)) {
        clusterDelNodeSlots(n);
        n->flags &= ~(CLUSTER_NODE_PRIMARY | CLUSTER_NODE_MIGRATE_TO);
        n->flags |= CLUSTER_NODE_REPLICA;
        clusterDoBeforeSleep(CLUSTER_TODO_SAVE_CONFIG | CLUSTER_TODO_UPDATE_STATE);
    }
    if (primary && n->replicaof != primary && primary != n) {
        if (n->replicaof) clusterNodeRemoveReplica(n->replicaof, n);
        clusterNodeAddReplica(primary, n);
        n->replicaof = primary;
        clusterDoBeforeSleep(CLUSTER_TODO_SAVE_CONFIG);
    }
}

/* See cluster.h. A node's shard id as it announces it (or its primary's);
 * myself follows our primary's. */
void clusterUpdateShardId(clusterNode *node, const char *shard_id) {
    if (shard_id && memcmp(node->shard_id, shard_id, CLUSTER_NAMELEN) != 0) {
        memcpy(node->shard_id, shard_id, CLUSTER_NAMELEN);
        clusterDoBeforeSleep(CLUSTER_TODO_SAVE_CONFIG);
    }
    if (shard_id && node != myself && myself->replicaof == node &&
        memcmp(myself->shard_id, shard_id, CLUSTER_NAMELEN) != 0) {
        memcpy(myself->shard_id, shard_id, CLUSTER_NAMELEN);
        clusterDoBeforeSleep(CLUSTER_TODO_SAVE_CONFIG | CLUSTER_TODO_FSYNC_CONFIG);
    }
}

/* ---------------------------------------------------------------------------
 * Failure reports and FAIL
 * ------------------------------------------------------------------------ */

/* Drops reports older than two node timeouts. */
static void clusterNodeCleanupFailureReports(clusterNode *node) {
    mstime_t maxtime = server.cluster_node_timeout * CLUSTER_FAIL_REPORT_VALIDITY_MULT;
    mstime_t now = mstime();
    listIter li;
    listNode *ln;
    listRewind(node->fail_reports, &li);
    while ((ln = listNext(&li)) != NULL) {
        clusterNodeFailReport *fr = listNodeValue(ln);
        if (now - fr->time > maxtime) {
            zfree(fr);
            listDelNode(node->fail_reports, ln);
        }
    }
}

/* See cluster.h. Records that sender (a primary) cannot reach failing.
 * Returns 1 for a new report, 0 when one from sender was refreshed. */
int clusterNodeAddFailureReport(clusterNode *failing, clusterNode *sender) {
    listIter li;
    listNode *ln;
    listRewind(failing->fail_reports, &li);
    while ((ln = listNext(&li)) != NULL) {
        clusterNodeFailReport *fr = listNodeValue(ln);
        if (fr->node == sender) {
            fr->time = mstime();
            return 0;
        }
    }
    clusterNodeFailReport *fr = zmalloc(sizeof(*fr));
    fr->node = sender;
    fr->time = mstime();
    listAddNodeTail(failing->fail_reports, fr);
    return 1;
}

/* See cluster.h. Removes sender's report about node: 1 if there was one. */
int clusterNodeDelFailureReport(clusterNode *node, clusterNode *sender) {
    listIter li;
    listNode *ln;
    listRewind(node->fail_reports, &li);
    while ((ln = listNext(&li)) != NULL) {
        clusterNodeFailReport *fr = listNodeValue(ln);
        if (fr->node != sender) continue;
        zfree(fr);
        listDelNode(node->fail_reports, ln);
        clusterNodeCleanupFailureReports(node);
        return 1;
    }
    return 0;
}

/* See cluster.h. The fresh reports about node. */
int clusterNodeFailureReportsCount(clusterNode *node) {
    clusterNodeCleanupFailureReports(node);
    return (int)listLength(node->fail_reports);
}

/* See cluster.h. Turns our PFAIL about node into FAIL once a majority of
 * the voting primaries reports it too, and tells everyone. */
void clusterMarkNodeAsFailingIfNeeded(clusterNode *node) {
    int needed_quorum = server.cluster->size / 2 + 1;
    if (!clusterNodeTimedOut(node) || clusterNodeFailed(node)) return;
    int failures = clusterNodeFailureReportsCount(node);
    if (clusterNodeIsPrimary(myself)) failures++;
    if (failures < needed_quorum) return;
    serverLog(LL_NOTICE, "Marking node %.40s (%s) as failing (quorum reached).", node->name, node->human_nodename);
    node->flags &= ~CLUSTER_NODE_PFAIL;
    node->flags |= CLUSTER_NODE_FAIL;
    node->fail_time = mstime();
    clusterSendFail(node->name);
    clusterDoBeforeSleep(CLUSTER_TODO_UPDATE_STATE | CLUSTER_TODO_SAVE_CONFIG);
}

/* See cluster.h. node answered again while flagged FAIL. */
void clusterClearNodeFailureIfNeeded(clusterNode *node) {
    mstime_t now = mstime();
    if (!clusterNodeIsVotingPrimary(node)) {
        serverLog(LL_NOTICE, "Clear FAIL state for node %.40s (%s):%s is reachable again.", node->name,
                  node->human_nodename, clusterNodeIsReplica(node) ? "replica" : "master without slots");
        node->flags &= ~CLUSTER_NODE_FAIL;
        clusterDoBeforeSleep(CLUSTER_TODO_UPDATE_STATE | CLUSTER_TODO_SAVE_CONFIG);
    }
    if (clusterNodeIsVotingPrimary(node) &&
        now - node->fail_time > server.cluster_node_timeout * CLUSTER_FAIL_UNDO_TIME_MULT) {
        serverLog(LL_NOTICE,
                  "Clear FAIL state for node %.40s (%s): is reachable again and nobody is serving its slots after "
                  "some time.",
                  node->name, node->human_nodename);
        node->flags &= ~CLUSTER_NODE_FAIL;
        clusterDoBeforeSleep(CLUSTER_TODO_UPDATE_STATE | CLUSTER_TODO_SAVE_CONFIG);
    }
}

/* ---------------------------------------------------------------------------
 * Forgotten nodes (CLUSTER FORGET): kept out of gossip for a while
 * ------------------------------------------------------------------------ */

/* See cluster.h. Drops entries whose time is up. */
void clusterBlacklistCleanup(void) {
    dictIterator *di = dictGetSafeIterator(server.cluster->nodes_black_list);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        if ((time_t)dictGetUnsignedIntegerVal(de) < server.unixtime)
            dictDelete(server.cluster->nodes_black_list, dictGetKey(de));
    }
    dictReleaseIterator(di);
}

/* See cluster.h. Forgets name for ttl seconds (from now). */
void clusterBlacklistAddNode(const char *name, uint64_t ttl) {
    clusterBlacklistCleanup();
    sds id = sdsnewlen(name, CLUSTER_NAMELEN);
    dictEntry *de = dictAddOrFind(server.cluster->nodes_black_list, id);
    if (dictGetKey(de) != id) sdsfree(id);
    dictSetUnsignedIntegerVal(de, (uint64_t)server.unixtime + ttl);
}

/* See cluster.h. 1 while name is forgotten. */
int clusterBlacklistExists(const char *name) {
    clusterBlacklistCleanup();
    sds id = sdsnewlen(name, CLUSTER_NAMELEN);
    int exists = dictFind(server.cluster->nodes_black_list, id) != NULL;
    sdsfree(id);
    return exists;
}

/* ---------------------------------------------------------------------------
 * Slots and epochs
 * ------------------------------------------------------------------------ */

/* See cluster.h. Gives an unassigned slot to n: C_OK, or C_ERR if the
 * slot has an owner. */
int clusterAddSlot(clusterNode *n, int slot) {
    if (server.cluster->slots[slot]) return C_ERR;
    clusterSlotBitmapSet(n->slots, slot);
    n->numslots++;
    server.cluster->slots[slot] = n;
    return C_OK;
}

/* See cluster.h. Makes slot unassigned: C_OK, or C_ERR if it was. */
int clusterDelSlot(int slot) {
    clusterNode *n = server.cluster->slots[slot];
    if (!n) return C_ERR;
    serverAssert(clusterSlotBitmapTest(n->slots, slot));
    clusterSlotBitmapClear(n->slots, slot);
    n->numslots--;
    server.cluster->slots[slot] = NULL;
    return C_OK;
}

/* See cluster.h. Unassigns every slot of node; returns how many. Walks
 * the bitmap a word at a time: a node with few slots costs 256 reads. */
int clusterDelNodeSlots(clusterNode *node) {
    int deleted = 0;
    for (int w = 0; w < CLUSTER_SLOT_BITMAP_LEN / 8 && node->numslots; w++) {
        uint64_t word;
        memcpy(&word, node->slots + w * 8, 8);
        word = le64toh(word); /* bit b of byte k is slot 8k + b: the word's bits in slot order */
        while (word) {
            int bit = __builtin_ctzll(word);
            word &= word - 1;
            clusterDelSlot(w * 64 + bit);
            deleted++;
        }
    }
    return deleted;
}

/* See cluster.h. The greatest configEpoch of any node, or currentEpoch if
 * greater. */
uint64_t clusterGetMaxEpoch(void) {
    uint64_t max = 0;
    dictIterator *di = dictGetSafeIterator(server.cluster->nodes);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        clusterNode *n = dictGetVal(de);
        if (n->configEpoch > max) max = n->configEpoch;
    }
    dictReleaseIterator(di);
    return max > server.cluster->currentEpoch ? max : server.cluster->currentEpoch;
}

/* See cluster.h. CLUSTER BUMPEPOCH: takes a new configEpoch unless ours is
 * already the greatest. C_OK when bumped, C_ERR when not. */
int clusterBumpConfigEpochWithoutConsensus(void) {
    uint64_t maxEpoch = clusterGetMaxEpoch();
    if (myself->configEpoch == 0 || myself->configEpoch != maxEpoch) {
        server.cluster->currentEpoch++;
        myself->configEpoch = server.cluster->currentEpoch;
        clusterDoBeforeSleep(CLUSTER_TODO_SAVE_CONFIG | CLUSTER_TODO_FSYNC_CONFIG);
        serverLog(LL_NOTICE, "New configEpoch set to %llu", (unsigned long long)myself->configEpoch);
        return C_OK;
    }
    return C_ERR;
}

/* See cluster.h. sender, a primary like us, has our configEpoch: if its
 * name is greater than ours, we move to a new epoch (the other side of the
 * collision keeps its). */
void clusterHandleConfigEpochCollision(clusterNode *sender) {
    if (sender->configEpoch != myself->configEpoch || !clusterNodeIsPrimary(sender) ||
        !clusterNodeIsPrimary(myself))
        return;
    if (memcmp(sender->name, myself->name, CLUSTER_NAMELEN) <= 0) return;
    server.cluster->currentEpoch++;
    myself->configEpoch = server.cluster->currentEpoch;
    clusterDoBeforeSleep(CLUSTER_TODO_SAVE_CONFIG | CLUSTER_TODO_FSYNC_CONFIG);
    serverLog(LL_VERBOSE, "WARNING: configEpoch collision with node %.40s (%s). configEpoch set to %llu",
              sender->name, sender->human_nodename, (unsigned long long)myself->configEpoch);
}

/* See cluster.h. sender (a primary) claims slots with senderConfigEpoch:
 * every slot it claims that is unassigned, or whose owner has a smaller
 * configEpoch, becomes its own. Slots we are importing are left alone. */
void clusterUpdateSlotsConfigWith(clusterNode *sender, uint64_t senderConfigEpoch, const unsigned char *slots) {
    if (sender == myself) {
        serverLog(LL_NOTICE, "Discarding UPDATE message about myself.");
        return;
    }
    int lost = 0, dirty_count = 0;
    int *dirty = NULL; /* slots we lose while still holding keys in them */
    for (int j = 0; j < CLUSTER_SLOTS; j++) {
        if (!clusterSlotBitmapTest(slots, j)) continue;
        clusterNode *owner = server.cluster->slots[j];
        if (owner == sender || server.cluster->importing_slots_from[j]) continue;
        if (owner && owner->configEpoch >= senderConfigEpoch) continue;
        if (owner == myself) {
            lost++;
            if (dbSlotKeyCount(j)) {
                if (dirty == NULL) dirty = zmalloc(sizeof(int) * CLUSTER_SLOTS);
                dirty[dirty_count++] = j;
            }
        }
        clusterDelSlot(j);
        clusterAddSlot(sender, j);
        if (server.cluster->migrating_slots_to[j] == sender) server.cluster->migrating_slots_to[j] = NULL;
        clusterDoBeforeSleep(CLUSTER_TODO_SAVE_CONFIG | CLUSTER_TODO_UPDATE_STATE | CLUSTER_TODO_FSYNC_CONFIG);
    }
    /* Valkey turns a primary that lost all its slots into a replica of
     * the node that took them; without cluster replicas yet, it stays an
     * empty primary. */
    if (lost && myself->numslots == 0)
        serverLog(LL_NOTICE, "Node %.40s (%s) took all the slots of this node: it stays a primary without slots.",
                  sender->name, sender->human_nodename);
    /* The keys of a slot another node now serves would never be reached
     * again (clients are sent there) and would come back to life if the
     * slot did: like Valkey, drop them. */
    for (int j = 0; j < dirty_count; j++) {
        serverLog(LL_NOTICE, "Deleting keys in dirty slot %d on node %.40s (%s) in shard %.40s", dirty[j],
                  myself->name, myself->human_nodename, myself->shard_id);
        dbDeleteKeysInSlot(dirty[j]);
    }
    zfree(dirty);
}

/* ---------------------------------------------------------------------------
 * Cluster state
 * ------------------------------------------------------------------------ */

/* See cluster.h. ok when every slot is served by a node not in FAIL (with
 * cluster-require-full-coverage) and we reach a majority of the voting
 * primaries; a primary waits a little before turning ok after a restart or
 * a partition, so that it can learn it was replaced first. */
void clusterUpdateState(void) {
    clusterState *cs = server.cluster;
    mstime_t now = mstime();
    cs->todo_before_sleep &= ~CLUSTER_TODO_UPDATE_STATE;
    if (cs->first_state_update == 0) cs->first_state_update = now;
    if (clusterNodeIsPrimary(myself) && cs->state == CLUSTER_FAIL &&
        now - cs->first_state_update < CLUSTER_WRITABLE_DELAY)
        return;

    int new_state = CLUSTER_OK;
    if (server.cluster_require_full_coverage) {
        for (int j = 0; j < CLUSTER_SLOTS; j++) {
            if (cs->slots[j] == NULL || clusterNodeFailed(cs->slots[j])) {
                new_state = CLUSTER_FAIL;
                break;
            }
        }
    }

    int reachable = 0;
    cs->size = 0;
    dictIterator *di = dictGetSafeIterator(cs->nodes);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        clusterNode *n = dictGetVal(de);
        if (!clusterNodeIsVotingPrimary(n)) continue;
        cs->size++;
        if (!(n->flags & (CLUSTER_NODE_FAIL | CLUSTER_NODE_PFAIL))) reachable++;
    }
    dictReleaseIterator(di);
    if (reachable < cs->size / 2 + 1) {
        new_state = CLUSTER_FAIL;
        cs->among_minority_time = now;
    }

    if (new_state == cs->state) return;
    mstime_t rejoin_delay = server.cluster_node_timeout;
    if (rejoin_delay > CLUSTER_MAX_REJOIN_DELAY) rejoin_delay = CLUSTER_MAX_REJOIN_DELAY;
    if (rejoin_delay < CLUSTER_MIN_REJOIN_DELAY) rejoin_delay = CLUSTER_MIN_REJOIN_DELAY;
    if (new_state == CLUSTER_OK && clusterNodeIsPrimary(myself) && now - cs->among_minority_time < rejoin_delay)
        return;
    serverLog(new_state == CLUSTER_OK ? LL_NOTICE : LL_WARNING, "Cluster state changed: %s",
              new_state == CLUSTER_OK ? "ok" : "fail");
    cs->state = new_state;
}

/* ---------------------------------------------------------------------------
 * Myself's announced address
 * ------------------------------------------------------------------------ */

/* The client ports and bus port we announce: the cluster-announce-*
 * options where set. */
static void updateMyselfAnnouncedPorts(void) {
    myself->tcp_port = server.cluster_announce_port ? server.cluster_announce_port : server.port;
    myself->tls_port = server.cluster_announce_tls_port ? server.cluster_announce_tls_port : server.tls_port;
    if (server.cluster_announce_bus_port)
        myself->cport = server.cluster_announce_bus_port;
    else if (server.cluster_port)
        myself->cport = server.cluster_port;
    else
        myself->cport = defaultClientPort() + CLUSTER_PORT_INCR;
}

/* Copies a configured string into one of myself's sds fields; 1 if it
 * changed. */
static int updateSdsField(sds *field, const char *value) {
    const char *v = value ? value : "";
    if (!strcmp(*field, v)) return 0;
    *field = sdscpy(*field, v);
    return 1;
}

/* The cluster-announce-ip myself->ip was last set from ("" none). */
static char announced_ip[NET_IP_STR_LEN];

/* A configured announce value the bus and nodes.conf can carry, or "".
 * CONFIG SET takes what Valkey 8 takes (an IP with a space, a human node
 * name with a space or '='), but such a value would break the header, the
 * ping extension or the nodes.conf line: it is not announced, and said so
 * once per value. */
static const char *announceable(const char *option, const char *value, int (*valid)(const char *, size_t),
                                char *last_refused, size_t last_len) {
    if (!value || !value[0]) return "";
    if (valid(value, strlen(value))) return value;
    if (strcmp(last_refused, value)) {
        serverLog(LL_WARNING, "%s '%s' has characters the cluster bus cannot carry: it is not announced.", option,
                  value);
        snprintf(last_refused, last_len, "%s", value);
    }
    return "";
}

/* See cluster.h. cluster-announce-ip when it is an address, else "". */
const char *clusterAnnouncedIp(void) {
    static char refused[256];
    return announceable("cluster-announce-ip", server.cluster_announce_ip, clusterIsValidAddress, refused,
                        sizeof(refused));
}

/* cluster-announce-human-nodename when the bus can carry it, else "". */
static const char *announcedHumanNodename(void) {
    static char refused[512];
    return announceable("cluster-announce-human-nodename", server.cluster_announce_human_nodename,
                        clusterIsValidHumanNodename, refused, sizeof(refused));
}

/* See cluster.h. */
void clusterUpdateMyselfAnnouncedInfo(void) {
    if (!server.cluster_enabled || !server.cluster) return;
    updateMyselfAnnouncedPorts();
    int changed = updateSdsField(&myself->hostname, server.cluster_announce_hostname);
    changed |= updateSdsField(&myself->human_nodename, announcedHumanNodename());
    const char *ip = clusterAnnouncedIp();
    if (ip[0] && strcmp(myself->ip, ip)) {
        snprintf(myself->ip, sizeof(myself->ip), "%s", ip);
        changed = 1;
    } else if (!ip[0] && announced_ip[0]) {
        myself->ip[0] = '\0'; /* no longer announced: learned again from the next MEET */
        changed = 1;
    }
    snprintf(announced_ip, sizeof(announced_ip), "%s", ip);
    clusterDoBeforeSleep(CLUSTER_TODO_SAVE_CONFIG | (changed ? CLUSTER_TODO_FSYNC_CONFIG : 0));
}

/* ---------------------------------------------------------------------------
 * nodes.conf: the description cluster_conf.c reads and writes
 * ------------------------------------------------------------------------ */

/* lookup-or-create, for nodes named before their own line (a replica's
 * primary, a migration's other end). */
static clusterNode *nodeForConf(const char *name) {
    clusterNode *n = clusterLookupNode(name, CLUSTER_NAMELEN);
    if (n) return n;
    n = clusterCreateNode(name, 0);
    serverAssert(clusterAddNode(n) == C_OK);
    return n;
}

/* One line of a loaded file into the table. */
static void loadConfNode(const clusterConfNode *cn) {
    clusterNode *n = nodeForConf(cn->name);
    if (cn->flags & CLUSTER_NODE_MYSELF) myself = n;
    n->flags = cn->flags | (n->flags & CLUSTER_NODE_MIGRATE_TO); /* kept if a replica's line came first */
    snprintf(n->ip, sizeof(n->ip), "%s", cn->ip);
    int cport = cn->cport >= 0 ? cn->cport : cn->port + CLUSTER_PORT_INCR;
    n->cport = cport > 65535 ? 0 : cport;
    if (server.tls_cluster)
        n->tls_port = cn->port;
    else
        n->tcp_port = cn->port;
    const char *v;
    if ((v = clusterConfGetAux(cn, "tcp-port"))) n->tcp_port = atoi(v);
    if ((v = clusterConfGetAux(cn, "tls-port"))) n->tls_port = atoi(v);
    if ((v = clusterConfGetAux(cn, "nodename"))) n->human_nodename = sdscpy(n->human_nodename, v);
    if ((v = clusterConfGetAux(cn, "shard-id"))) memcpy(n->shard_id, v, CLUSTER_NAMELEN);
    if (cn->hostname) n->hostname = sdscpy(n->hostname, cn->hostname);
    if (cn->primary[0]) clusterSetNodeReplicaOf(n, nodeForConf(cn->primary));
    /* Valkey does not trust the file's times: "some time ago" is now. */
    if (cn->ping_sent) n->ping_sent = mstime();
    if (cn->pong_received) n->pong_received = mstime();
    n->configEpoch = cn->config_epoch;
    if (cn->slots)
        for (int j = 0; j < CLUSTER_SLOTS; j++)
            if (clusterSlotBitmapTest(cn->slots, j)) clusterAddSlot(n, j);
    for (int j = 0; j < cn->nummoves; j++) {
        const clusterConfSlotMove *m = &cn->moves[j];
        clusterNode *other = nodeForConf(m->node);
        if (m->importing)
            server.cluster->importing_slots_from[m->slot] = other;
        else
            server.cluster->migrating_slots_to[m->slot] = other;
    }
}

/* Loads cluster-config-file. Returns C_OK (myself set), or
 * CLUSTER_CONF_ABSENT for no file; exits on a file that cannot be used. */
static int clusterLoadConfig(const char *path) {
    clusterConf *conf;
    clusterConfError err;
    int rc = clusterConfLoad(path, &conf, &err);
    if (rc == CLUSTER_CONF_ABSENT) return rc;
    if (rc != C_OK) {
        clusterConfLogError(path, &err);
        exit(1);
    }
    for (int j = 0; j < conf->numnodes; j++) loadConfNode(conf->nodes[j]);
    for (int j = 0; j < conf->numskipped; j++)
        serverLog(LL_NOTICE, "Skipping unknown cluster config variable '%s'", conf->skipped_vars[j]);
    server.cluster->currentEpoch = conf->current_epoch;
    server.cluster->lastVoteEpoch = conf->last_vote_epoch;
    clusterConfFree(conf);
    /* A hand-edited file may have a currentEpoch behind a node's epoch. */
    uint64_t max = clusterGetMaxEpoch();
    if (max > server.cluster->currentEpoch) server.cluster->currentEpoch = max;
    serverLog(LL_NOTICE, "Node configuration loaded, I'm %.40s", myself->name);
    return C_OK;
}

/* Fills one node's line of the description. */
static void describeNodeForConf(clusterConf *conf, clusterNode *n) {
    clusterConfNode *cn = clusterConfAddNode(conf, n->name);
    serverAssert(cn != NULL);
    cn->ip = sdscpy(cn->ip, n->ip);
    cn->port = clusterNodeClientPort(n, server.tls_cluster);
    cn->cport = n->cport;
    cn->hostname = sdsnew(n->hostname);
    char port[16];
    snprintf(port, sizeof(port), "%d", server.tls_cluster ? n->tcp_port : n->tls_port);
    clusterConfSetAux(cn, server.tls_cluster ? "tcp-port" : "tls-port", port);
    if (sdslen(n->human_nodename)) clusterConfSetAux(cn, "nodename", n->human_nodename);
    clusterConfSetAux(cn, "shard-id", n->shard_id);
    cn->flags = n->flags & CLUSTER_CONF_NODE_FLAGS;
    if (n->replicaof) memcpy(cn->primary, n->replicaof->name, CLUSTER_NAMELEN + 1);
    cn->ping_sent = n->ping_sent;
    cn->pong_received = n->pong_received;
    cn->config_epoch = n->configEpoch;
    cn->connected = n->link != NULL || n == myself;
    if (n->numslots) memcpy(clusterConfNodeSlots(cn), n->slots, CLUSTER_SLOT_BITMAP_LEN);
    if (n != myself) return;
    for (int j = 0; j < CLUSTER_SLOTS; j++) {
        if (server.cluster->migrating_slots_to[j])
            clusterConfAddSlotMove(cn, j, 0, server.cluster->migrating_slots_to[j]->name);
        else if (server.cluster->importing_slots_from[j])
            clusterConfAddSlotMove(cn, j, 1, server.cluster->importing_slots_from[j]->name);
    }
}

/* See cluster.h. Writes nodes.conf from the table (nodes in the handshake
 * left out, as Valkey does). C_OK, or C_ERR with err (CLUSTER_MSG_ERR_LEN
 * bytes, may be NULL) set. */
int clusterSaveConfig(int do_fsync, char *err) {
    char buf[CLUSTER_MSG_ERR_LEN];
    clusterConf *conf = clusterConfCreate();
    dictIterator *di = dictGetSafeIterator(server.cluster->nodes);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        clusterNode *n = dictGetVal(de);
        if (!clusterNodeInHandshake(n)) describeNodeForConf(conf, n);
    }
    dictReleaseIterator(di);
    conf->current_epoch = server.cluster->currentEpoch;
    conf->last_vote_epoch = server.cluster->lastVoteEpoch;
    server.cluster->todo_before_sleep &= ~(CLUSTER_TODO_SAVE_CONFIG | (do_fsync ? CLUSTER_TODO_FSYNC_CONFIG : 0));
    int rc = clusterConfSave(conf, server.cluster_configfile, do_fsync, &server.cluster->lockfd, err ? err : buf);
    clusterConfFree(conf);
    return rc;
}

/* Saves, or exits: a node must not run on a view it could not persist. */
static void clusterSaveConfigOrDie(int do_fsync) {
    char err[CLUSTER_MSG_ERR_LEN];
    if (clusterSaveConfig(do_fsync, err) == C_OK) return;
    serverLog(LL_WARNING, "%s", err);
    serverLog(LL_WARNING, "Fatal: can't update cluster config file.");
    exit(1);
}

/* ---------------------------------------------------------------------------
 * Start-up, reset and shutdown
 * ------------------------------------------------------------------------ */

/* See cluster.h. */
void clusterInit(void) {
    clusterState *cs = zcalloc(sizeof(*cs));
    server.cluster = cs;
    cs->state = CLUSTER_FAIL;
    cs->nodes = dictCreate(&clusterNodesDictType);
    cs->nodes_black_list = dictCreate(&clusterBlacklistDictType);
    cs->lockfd = -1;

    char err[CLUSTER_MSG_ERR_LEN];
    if (clusterConfLock(server.cluster_configfile, &cs->lockfd, err) != C_OK) {
        serverLog(LL_WARNING, "%s", err);
        exit(1);
    }
    if (clusterLoadConfig(server.cluster_configfile) == CLUSTER_CONF_ABSENT) {
        myself = clusterCreateNode(NULL, CLUSTER_NODE_MYSELF | CLUSTER_NODE_PRIMARY);
        serverAssert(clusterAddNode(myself) == C_OK);
        serverLog(LL_NOTICE, "No cluster configuration found, I'm %.40s", myself->name);
    }
    if (server.cluster_port == 0 && defaultClientPort() > 65535 - CLUSTER_PORT_INCR) {
        serverLog(LL_WARNING, "Valkey port number too high. Cluster communication port is 10,000 port numbers "
                              "higher than your Valkey port. Your Valkey port number must be 55535 or less.");
        exit(1);
    }
    /* What the file said of myself gives way to what the config says now. */
    updateMyselfAnnouncedPorts();
    updateSdsField(&myself->hostname, server.cluster_announce_hostname);
    updateSdsField(&myself->human_nodename, announcedHumanNodename());
    if (clusterAnnouncedIp()[0]) {
        snprintf(myself->ip, sizeof(myself->ip), "%s", clusterAnnouncedIp());
        snprintf(announced_ip, sizeof(announced_ip), "%s", clusterAnnouncedIp());
    }
    if (clusterNodeIsReplica(myself))
        serverLog(LL_WARNING, "This node is a replica in %s: replicas in cluster mode are not supported yet, it "
                              "stays out of replication.",
                  server.cluster_configfile);
    clusterSaveConfigOrDie(1);
    clusterUpdateState();
}

/* See cluster.h. */
void clusterInitListener(void) {
    if (clusterBusListen() != C_OK) exit(1);
}

/* See cluster.h. CLUSTER RESET: forgets every other node and our slots;
 * hard also zeroes the epochs and gives us a new name and shard id. */
void clusterReset(int hard) {
    if (clusterNodeIsReplica(myself)) clusterSetNodeAsPrimary(myself);
    memset(server.cluster->migrating_slots_to, 0, sizeof(server.cluster->migrating_slots_to));
    memset(server.cluster->importing_slots_from, 0, sizeof(server.cluster->importing_slots_from));
    for (int j = 0; j < CLUSTER_SLOTS; j++) clusterDelSlot(j);
    dictIterator *di = dictGetSafeIterator(server.cluster->nodes);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        clusterNode *n = dictGetVal(de);
        if (n != myself) clusterDelNode(n);
    }
    dictReleaseIterator(di);
    dictEmpty(server.cluster->nodes_black_list, NULL);
    if (hard) {
        server.cluster->currentEpoch = 0;
        server.cluster->lastVoteEpoch = 0;
        myself->configEpoch = 0;
        serverLog(LL_NOTICE, "configEpoch set to 0 via CLUSTER RESET HARD");
        char name[CLUSTER_NAMELEN];
        getRandomHexChars(name, CLUSTER_NAMELEN);
        clusterRenameNode(myself, name);
        getRandomHexChars(myself->shard_id, CLUSTER_NAMELEN);
        serverLog(LL_NOTICE, "Node hard reset, now I'm %.40s", myself->name);
    }
    clusterDoBeforeSleep(CLUSTER_TODO_SAVE_CONFIG | CLUSTER_TODO_UPDATE_STATE | CLUSTER_TODO_FSYNC_CONFIG);
}

/* See cluster.h. */
void clusterShutdown(void) {
    if (!server.cluster_enabled || !server.cluster) return;
    char err[CLUSTER_MSG_ERR_LEN];
    if (clusterSaveConfig(1, err) != C_OK) serverLog(LL_WARNING, "%s", err);
    clusterBusCloseListener();
}

/* ---------------------------------------------------------------------------
 * Cron and before-sleep
 * ------------------------------------------------------------------------ */

/* A node without an outbound link gets one; returns 0 when the node was
 * deleted (a handshake that timed out). */
static int cronHandleNodeLink(clusterNode *node, mstime_t handshake_timeout, mstime_t now) {
    if (clusterNodeInHandshake(node) && now - node->ctime > handshake_timeout) {
        clusterDelNode(node);
        return 0;
    }
    if (node->link == NULL) clusterLinkConnect(node);
    return 1;
}

/* Pings the node whose PONG is the oldest among a few random ones, so
 * every node hears from us about once a second in a large cluster. */
static void cronPingRandomNode(void) {
    clusterNode *min_pong_node = NULL;
    mstime_t min_pong = 0;
    for (int j = 0; j < 5; j++) {
        dictEntry *de = dictGetRandomKey(server.cluster->nodes);
        clusterNode *n = dictGetVal(de);
        if (n->link == NULL || n->ping_sent != 0) continue;
        if (n->flags & (CLUSTER_NODE_MYSELF | CLUSTER_NODE_HANDSHAKE)) continue;
        if (min_pong_node == NULL || min_pong > n->pong_received) {
            min_pong_node = n;
            min_pong = n->pong_received;
        }
    }
    if (min_pong_node) {
        serverLog(LL_DEBUG, "Pinging node %.40s", min_pong_node->name);
        clusterSendPing(min_pong_node->link, CLUSTERMSG_TYPE_PING);
    }
}

/* The per-node part of the cron once links exist: a link silent for too
 * long is dropped (it will reconnect), a node whose PONG is older than the
 * ping interval gets a PING, and one silent past the node timeout turns
 * PFAIL. Returns 1 when the cluster state needs an update. */
static int cronCheckNode(clusterNode *node, mstime_t now) {
    mstime_t timeout = server.cluster_node_timeout;
    if (node->link && clusterLinkSendBufferOverLimit(node->link)) {
        serverLog(LL_WARNING,
                  "Freeing cluster link(%s node %.40s, used memory: %llu) due to exceeding send buffer memory limit.",
                  node->link->inbound ? "from" : "to", node->name, node->link->send_msg_queue_mem);
        server.cluster->stat_cluster_links_buffer_limit_exceeded++;
        clusterFreeLink(node->link);
    }
    if (node->inbound_link && clusterLinkSendBufferOverLimit(node->inbound_link)) {
        server.cluster->stat_cluster_links_buffer_limit_exceeded++;
        clusterFreeLink(node->inbound_link);
    }
    /* A connect that neither succeeds nor fails (a peer that drops our
     * packets) is given up after the node timeout and counts as a ping. */
    if (node->link && node->link->conn && connGetState(node->link->conn) == CONN_STATE_CONNECTING &&
        now - node->link->ctime > timeout) {
        if (node->ping_sent == 0) node->ping_sent = node->link->ctime;
        clusterFreeLink(node->link);
    }
    mstime_t ping_delay = now - node->ping_sent;
    mstime_t data_delay = now - node->data_received;
    if (node->link && now - node->link->ctime > timeout && node->ping_sent && ping_delay > timeout / 2 &&
        data_delay > timeout / 2) {
        clusterFreeLink(node->link);
    }
    mstime_t ping_interval = server.cluster_ping_interval ? server.cluster_ping_interval : timeout / 2;
    if (node->link && node->ping_sent == 0 && now - node->pong_received > ping_interval) {
        clusterSendPing(node->link, CLUSTERMSG_TYPE_PING);
        return 0;
    }
    if (node->ping_sent == 0) return 0;
    mstime_t delay = ping_delay < data_delay ? ping_delay : data_delay;
    if (delay <= timeout || (node->flags & (CLUSTER_NODE_PFAIL | CLUSTER_NODE_FAIL))) return 0;
    node->flags |= CLUSTER_NODE_PFAIL;
    if (clusterNodeIsPrimary(myself) && server.cluster->size == 1)
        clusterMarkNodeAsFailingIfNeeded(node);
    else
        serverLog(LL_DEBUG, "*** NODE %.40s possibly failing", node->name);
    return 1;
}

/* See cluster.h. */
void clusterCron(void) {
    static unsigned long long iteration = 0;
    mstime_t now = mstime();
    mstime_t handshake_timeout = server.cluster_node_timeout > 1000 ? server.cluster_node_timeout : 1000;
    int update_state = 0;
    iteration++;
    clusterBlacklistCleanup();

    server.cluster->stats_pfail_nodes = 0;
    dictIterator *di = dictGetSafeIterator(server.cluster->nodes);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        clusterNode *node = dictGetVal(de);
        if (node->flags & (CLUSTER_NODE_MYSELF | CLUSTER_NODE_NOADDR)) continue;
        if (node->flags & CLUSTER_NODE_PFAIL) server.cluster->stats_pfail_nodes++;
        cronHandleNodeLink(node, handshake_timeout, now);
    }
    dictReleaseIterator(di);

    if (iteration % 10 == 0) cronPingRandomNode();

    di = dictGetSafeIterator(server.cluster->nodes);
    while ((de = dictNext(di)) != NULL) {
        clusterNode *node = dictGetVal(de);
        if (node->flags & (CLUSTER_NODE_MYSELF | CLUSTER_NODE_NOADDR | CLUSTER_NODE_HANDSHAKE)) continue;
        update_state |= cronCheckNode(node, now);
    }
    dictReleaseIterator(di);

    if (update_state || server.cluster->state == CLUSTER_FAIL) clusterUpdateState();
    /* Clients blocked on keys of a slot served elsewhere now, or with the
     * cluster down, are told so (cluster_route.c). */
    blockedRedirectClusterClients();
}

/* See cluster.h. */
void clusterBeforeSleep(void) {
    int flags = server.cluster->todo_before_sleep;
    server.cluster->todo_before_sleep = 0;
    if (flags & CLUSTER_TODO_UPDATE_STATE) clusterUpdateState();
    if (flags & CLUSTER_TODO_SAVE_CONFIG) clusterSaveConfigOrDie(flags & CLUSTER_TODO_FSYNC_CONFIG);
}

/* ---------------------------------------------------------------------------
 * INFO
 * ------------------------------------------------------------------------ */

/* See cluster.h. */
unsigned long clusterConnectionsCount(void) {
    if (!server.cluster_enabled || !server.cluster) return 0;
    return (dictSize(server.cluster->nodes) - 1) * 2;
}

/* The memory of one link: the struct, its receive buffer, its queue. */
static size_t linkMemory(const clusterLink *link) {
    if (!link) return 0;
    return sizeof(*link) + link->rcvbuf_alloc + link->send_msg_queue_mem;
}

/* See cluster.h. */
size_t clusterLinksMemory(void) {
    if (!server.cluster_enabled || !server.cluster) return 0;
    size_t mem = 0;
    dictIterator *di = dictGetSafeIterator(server.cluster->nodes);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        clusterNode *n = dictGetVal(de);
        mem += linkMemory(n->link) + linkMemory(n->inbound_link);
    }
    dictReleaseIterator(di);
    return mem;
}
