/* fuzz_clusterbus.c - libFuzzer target for the cluster bus as a node acts
 * on what a peer sends: the bytes go through clusterLinkFeed() on a link
 * of a real cluster node (cluster_bus.c: framing, decoding, then
 * everything a message reaches - the handshake, gossip and failure
 * reports, epochs and collisions, slot claims and UPDATE, FAIL, PUBLISH,
 * the ping extensions, forgotten nodes), as its read handler hands them
 * over.
 *
 * The node knows four primaries at the start of every input, named as the
 * nodes of the captured redis-server 7.0 traffic the seeds come from
 * (utils/cluster-capture), so the seeds' messages come from known senders;
 * each owns a quarter of the slots but the first 100, which are ours.
 * Nothing connects anywhere: links have no connection, so what the node
 * would send is built and encoded (the encoder checks it) but not sent.
 *
 * Input: one byte of options, then the bytes. Bit 0: the link is the
 * outbound link to peer (bits 1-2), else an inbound link; bit 7: the bytes
 * arrive at once, else in chunks of 1 + (bits 3-6) * 97 bytes. After the
 * input:
 *   - the slot map and the nodes' slot bitmaps agree, slot for slot, and
 *     the counts add up;
 *   - myself is in the table, the only node flagged myself, and every
 *     node is filed under its name;
 *   - a replica's primary lists it, and a primary's replicas name it;
 *   - nodes.conf can be saved (a node that cannot save its view exits).
 * Then the node is reset (CLUSTER RESET HARD) and the four peers set up
 * again. */
#include "fuzz_server.h"

#include "cluster.h"

static const char *peers[4] = {
    "39132bd6190e3d374d92462d2bcf684fa4758269", "6d9076468571188c48f5731f4df0bf971232f9ea",
    "66777e766799b2a8792e24ff29af478fe83f2bf8", "a53f57a2d21a75b6df7274d9d9183cf73ad1a32a"};

/* The table every input starts from: myself and the four peers. */
static void setUpPeers(void) {
    clusterReset(1);
    for (int j = 0; j < 100; j++) clusterAddSlot(server.cluster->myself, j);
    for (int i = 0; i < 4; i++) {
        clusterNode *n = clusterCreateNode(peers[i], CLUSTER_NODE_PRIMARY);
        snprintf(n->ip, sizeof(n->ip), "127.0.0.1");
        n->tcp_port = 52101 + i;
        n->cport = 62201 + i;
        n->configEpoch = (uint64_t)i + 1;
        if (clusterAddNode(n) != C_OK) abort();
        for (int j = 100 + i * 4071; j < 100 + (i + 1) * 4071 && j < CLUSTER_SLOTS; j++) clusterAddSlot(n, j);
    }
    server.cluster->currentEpoch = 4;
    server.cluster->todo_before_sleep = 0;
}

static void removeNodesConf(void) {
    unlink(server.cluster_configfile);
}

/* Called by libFuzzer once, before the first input: a cluster node with a
 * nodes.conf of its own in /dev/shm (saved after every input: on a disk,
 * replacing a file by rename() waits for the disk). Returns 0. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    sds config = sdscatprintf(sdsempty(),
                              "loglevel verbose\ncluster-enabled yes\ncluster-node-timeout 1000\n"
                              "cluster-config-file /dev/shm/fuzz-clusterbus-%d.conf\n",
                              (int)getpid());
    fuzzServerInit(config);
    sdsfree(config);
    atexit(removeNodesConf);
    clusterInit();
    setUpPeers();
    return 0;
}

/* The invariants of the header comment; abort() when one is broken. */
static void checkClusterState(void) {
    clusterState *cs = server.cluster;
    int myselves = 0, total = 0, assigned = 0;
    dictIterator *di = dictGetSafeIterator(cs->nodes);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        clusterNode *n = dictGetVal(de);
        if (memcmp(dictGetKey(de), n->name, CLUSTER_NAMELEN) || !clusterIsValidNodeName(n->name)) abort();
        if (n->flags & CLUSTER_NODE_MYSELF) myselves++;
        if (clusterSlotBitmapCount(n->slots) != n->numslots) abort();
        total += n->numslots;
        if (n->replicaof) {
            int listed = 0;
            for (int k = 0; k < n->replicaof->num_replicas; k++) listed |= n->replicaof->replicas[k] == n;
            if (!listed || clusterLookupNode(n->replicaof->name, CLUSTER_NAMELEN) != n->replicaof) abort();
        }
        for (int k = 0; k < n->num_replicas; k++)
            if (n->replicas[k]->replicaof != n) abort();
    }
    dictReleaseIterator(di);
    /* Every slot's owner has its bit, and the bits add up to the owned
     * slots: no node has a bit the map gives to another. */
    for (int j = 0; j < CLUSTER_SLOTS; j++) {
        if (!cs->slots[j]) continue;
        if (!clusterSlotBitmapTest(cs->slots[j]->slots, j)) abort();
        assigned++;
    }
    if (assigned != total) abort();
    if (myselves != 1 || !(cs->myself->flags & CLUSTER_NODE_MYSELF)) abort();
    if (clusterLookupNode(cs->myself->name, CLUSTER_NAMELEN) != cs->myself) abort();
    char err[CLUSTER_MSG_ERR_LEN];
    if (clusterSaveConfig(0, err) != C_OK) {
        fprintf(stderr, "fuzz_clusterbus: nodes.conf not saved: %s\n", err);
        abort();
    }
}

/* Called by libFuzzer for each input (data is only read, owned by
 * libFuzzer). Returns 0; a broken invariant aborts. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    uint8_t opts = data[0];
    const unsigned char *in = data + 1;
    size_t len = size - 1;
    size_t chunk = (opts & 0x80) ? len : 1 + (size_t)((opts >> 3) & 0x0f) * 97;

    clusterNode *peer = clusterLookupNode(peers[(opts >> 1) & 3], CLUSTER_NAMELEN);
    clusterLink *link = clusterCreateLink((opts & 1) ? peer : NULL);
    if (opts & 1) peer->link = link;
    int alive = 1;
    for (size_t pos = 0; pos < len && alive; pos += chunk)
        alive = clusterLinkFeed(link, in + pos, len - pos < chunk ? len - pos : chunk);
    if (alive) clusterFreeLink(link);
    clusterUpdateState();
    checkClusterState();
    setUpPeers();
    return 0;
}
