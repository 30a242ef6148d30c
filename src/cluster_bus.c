/* cluster_bus.c - the cluster bus: links to the other nodes and every
 * message sent or received on them, in Valkey 8's binary protocol.
 *
 * Links. A node listens on its cluster port (cluster-port, default the
 * client port + 10000) and keeps, for every other node, one link it opened
 * (outbound: node->link, made by the cron when missing) and at most one the
 * node opened to it (inbound: node->inbound_link, tied to the node by the
 * first PING/MEET naming a known sender). Requests go out on outbound
 * links; a PONG answers on the link the PING came in. Links reach peers
 * only through the connection layer: TCP, or TLS with tls-cluster yes,
 * chosen in connTypeOfCluster() and nowhere else.
 *
 * Sending: a message is encoded once (cluster_msg.c) into a reference-
 * counted block queued on each link it goes to; a write handler drains
 * the queue. cluster-link-sendbuf-limit bounds a queue (the cron frees a
 * link over it).
 *
 * Receiving: bytes are read into the link's buffer and cut into frames
 * (clusterMsgFrameLength(): signature and length first, so a hostile
 * length cannot make us allocate ahead of the bytes that arrive); each
 * frame is decoded with every field checked (clusterMsgDecode()) before
 * anything acts on it. A frame that does not decode closes its link and is
 * logged with the reason; a frame of an unknown type or protocol version
 * is skipped, as Valkey skips it.
 *
 * Acting on a message (clusterProcessMessage()) is Valkey's protocol:
 * PING/MEET are answered with a PONG; every PING/PONG/MEET carries the
 * sender's epochs, slots, role and a gossip section about other nodes,
 * which drives the handshake of new nodes, failure reports and address
 * changes; FAIL spreads a failure verdict; UPDATE corrects a stale slot
 * claim; PUBLISH/PUBLISHSHARD carry pub/sub messages. Votes and manual
 * failover messages (FAILOVER_AUTH_*, MFSTART) and MODULE are counted and
 * ignored until cluster replicas exist. Only messages from a known sender
 * change anything, except a MEET, which starts a handshake with its sender.
 *
 * Lifetime: acting on a message can free links (the node deleted, a
 * mismatching name), the one being read included. A link freed inside its
 * own handler is closed at once and its memory released when the handler
 * returns (link->closing), so the handler never touches freed memory. */
#include "cluster.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

#include "pubsub.h"
#include "replication.h"

extern connTlsConfig *tlsConfigFromServer(void);

#define myself (server.cluster->myself)

#define RCVBUF_INIT_LEN 16384   /* First allocation of a link's receive buffer. */
#define RCVBUF_READ_LEN 16384   /* Free room kept for each read. */
#define RCVBUF_READS_PER_CALL 64 /* Reads per readable event, at most. */
#define WRITE_IOV_MAX 16        /* Queued blocks written by one writev. */

/* ---------------------------------------------------------------------------
 * Transport
 * ------------------------------------------------------------------------ */

/* The one place that chooses the bus' transport. */
static ConnectionType *connTypeOfCluster(void) {
    if (server.tls_cluster) return connTypeGetByName(CONN_NAME_TLS);
    return connectionTypeTcp();
}

/* The bus port we listen on. */
static int clusterBusPort(void) {
    if (server.cluster_port) return server.cluster_port;
    return (server.tls_cluster ? server.tls_port : server.port) + CLUSTER_PORT_INCR;
}

/* The largest frame a peer may send: a PUBLISH of two arguments at the
 * proto-max-bulk-len limit, or 16 MB (65535 gossip entries and extensions
 * fit well below). */
static uint64_t clusterMaxFrameLength(void) {
    uint64_t publish = CLUSTERMSG_HEADER_LEN + CLUSTERMSG_PUBLISH_FIXED_LEN + 2 * (uint64_t)server.proto_max_bulk_len;
    uint64_t floor = 16 * 1024 * 1024;
    uint64_t max = publish > floor ? publish : floor;
    return max > UINT32_MAX ? UINT32_MAX : max;
}

/* The peer's address of a link as "ip:port" for logs. */
static const char *linkPeer(const clusterLink *link, char *buf, size_t len) {
    char ip[NET_IP_STR_LEN];
    int port = 0;
    if (!link->conn || connAddrPeerName(link->conn, ip, sizeof(ip), &port) != C_OK) {
        snprintf(buf, len, "?");
    } else {
        snprintf(buf, len, "%s:%d", ip, port);
    }
    return buf;
}

/* ---------------------------------------------------------------------------
 * Links
 * ------------------------------------------------------------------------ */

/* See cluster.h. A new link to or from node (NULL for an inbound link not
 * yet tied to a node), without a connection yet. */
clusterLink *clusterCreateLink(clusterNode *node) {
    clusterLink *link = zcalloc(sizeof(*link));
    link->ctime = mstime();
    link->send_msg_queue = listCreate();
    link->node = node;
    link->inbound = node == NULL;
    return link;
}

static void releaseSendBlock(clusterMsgSendBlock *block) {
    if (--block->refcount > 0) return;
    zfree(block->buf);
    zfree(block);
}

/* Releases the memory of a link whose connection is closed and whose
 * handlers have returned. */
static void releaseLinkMemory(clusterLink *link) {
    listRelease(link->send_msg_queue);
    zfree(link->rcvbuf);
    zfree(link);
}

/* See cluster.h. Closes a link and detaches it from its node; the memory
 * goes now, or when its running handler returns. The node reconnects from
 * the cron. */
void clusterFreeLink(clusterLink *link) {
    if (link->closing) return;
    if (link->conn) {
        connSetPrivateData(link->conn, NULL);
        connClose(link->conn);
        link->conn = NULL;
    }
    listIter li;
    listNode *ln;
    listRewind(link->send_msg_queue, &li);
    while ((ln = listNext(&li)) != NULL) releaseSendBlock(listNodeValue(ln));
    listEmpty(link->send_msg_queue);
    link->send_msg_queue_mem = 0;
    if (link->node) {
        if (link->node->link == link) link->node->link = NULL;
        if (link->node->inbound_link == link) link->node->inbound_link = NULL;
        link->node = NULL;
    }
    link->closing = 1;
    if (!link->in_handler) releaseLinkMemory(link);
}

/* Ties an inbound link to the node it comes from, replacing an older one. */
static void setInboundLinkNode(clusterNode *node, clusterLink *link) {
    if (node->inbound_link == link) return;
    if (node->inbound_link) {
        serverLog(LL_DEBUG, "Replacing inbound link fd %d from node %.40s with fd %d",
                  node->inbound_link->conn ? node->inbound_link->conn->fd : -1, node->name,
                  link->conn ? link->conn->fd : -1);
        clusterFreeLink(node->inbound_link);
    }
    link->node = node;
    node->inbound_link = link;
}

/* See cluster.h. 1 when the link's queue is over cluster-link-sendbuf-limit
 * (0: no limit). */
int clusterLinkSendBufferOverLimit(const clusterLink *link) {
    return server.cluster_link_msg_queue_limit_bytes &&
           link->send_msg_queue_mem > server.cluster_link_msg_queue_limit_bytes;
}

/* See cluster.h. CLUSTER LINKS' events: "r", "w", "rw" or "" (buf has 3
 * bytes at least). */
const char *clusterLinkEvents(const clusterLink *link, char *buf) {
    char *p = buf;
    if (link->conn && connHasReadHandler(link->conn)) *p++ = 'r';
    if (link->conn && connHasWriteHandler(link->conn)) *p++ = 'w';
    *p = '\0';
    return buf;
}

/* Ends a handler run: a link freed meanwhile goes now. Returns 0 when it
 * did (the caller must not touch it). */
static int linkHandlerDone(clusterLink *link) {
    link->in_handler--;
    if (link->closing && link->in_handler == 0) {
        releaseLinkMemory(link);
        return 0;
    }
    return !link->closing;
}

/* ---------------------------------------------------------------------------
 * Sending
 * ------------------------------------------------------------------------ */

static void clusterWriteHandler(connection *conn);

/* Wraps an encoded message in a block with no reference yet. */
static clusterMsgSendBlock *createSendBlock(int type, unsigned char *buf, size_t len) {
    clusterMsgSendBlock *block = zmalloc(sizeof(*block));
    block->refcount = 0;
    block->type = type;
    block->len = len;
    block->buf = buf;
    return block;
}

/* Encodes m into a block; NULL (logged: what we build always encodes, so
 * this is a bug) when the encoder refuses it. */
static clusterMsgSendBlock *encodeMessage(const clusterMsg *m) {
    char err[CLUSTER_MSG_ERR_LEN];
    size_t len;
    unsigned char *buf = clusterMsgEncode(m, &len, err);
    if (!buf) {
        serverLog(LL_WARNING, "Cluster bus: not sending a %s message: %s", clusterMsgTypeName(m->type), err);
        return NULL;
    }
    return createSendBlock(m->type, buf, len);
}

/* Queues block on link (nothing for a missing or closed link). */
static void clusterSendMessage(clusterLink *link, clusterMsgSendBlock *block) {
    if (!link || link->closing || !link->conn) return;
    block->refcount++;
    listAddNodeTail(link->send_msg_queue, block);
    link->send_msg_queue_mem += block->len;
    if (block->type < CLUSTERMSG_TYPE_COUNT) server.cluster->stats_bus_messages_sent[block->type]++;
    if (connGetState(link->conn) == CONN_STATE_CONNECTED && !connHasWriteHandler(link->conn))
        connSetWriteHandlerWithBarrier(link->conn, clusterWriteHandler, 1);
}

/* Sends block to every node we have a link to, but ourselves and nodes in
 * the handshake; frees the block if nobody took it. */
static void clusterBroadcastMessage(clusterMsgSendBlock *block) {
    dictIterator *di = dictGetSafeIterator(server.cluster->nodes);
    dictEntry *de;
    block->refcount++; /* held while iterating */
    while ((de = dictNext(di)) != NULL) {
        clusterNode *n = dictGetVal(de);
        if (n->flags & (CLUSTER_NODE_MYSELF | CLUSTER_NODE_HANDSHAKE)) continue;
        clusterSendMessage(n->link, block);
    }
    dictReleaseIterator(di);
    releaseSendBlock(block);
}

/* Writes as much of the queue as the connection takes. */
static void clusterWriteHandler(connection *conn) {
    clusterLink *link = connGetPrivateData(conn);
    if (!link) return;
    link->in_handler++;
    while (listLength(link->send_msg_queue) && !link->closing) {
        struct iovec iov[WRITE_IOV_MAX];
        int cnt = 0;
        size_t offset = link->head_msg_send_offset;
        listIter li;
        listNode *ln;
        listRewind(link->send_msg_queue, &li);
        while ((ln = listNext(&li)) != NULL && cnt < WRITE_IOV_MAX) {
            clusterMsgSendBlock *b = listNodeValue(ln);
            iov[cnt].iov_base = b->buf + offset;
            iov[cnt].iov_len = b->len - offset;
            offset = 0;
            cnt++;
        }
        ssize_t n = connWritev(conn, iov, cnt);
        if (n <= 0) {
            if (n == -1 && errno == EAGAIN) break;
            if (n == 0) break;
            serverLog(LL_DEBUG, "I/O error writing to node link: %s", connGetLastError(conn));
            clusterFreeLink(link);
            break;
        }
        size_t left = (size_t)n;
        while (left) {
            ln = listFirst(link->send_msg_queue);
            clusterMsgSendBlock *b = listNodeValue(ln);
            size_t rest = b->len - link->head_msg_send_offset;
            if (left < rest) {
                link->head_msg_send_offset += left;
                break;
            }
            left -= rest;
            link->head_msg_send_offset = 0;
            link->send_msg_queue_mem -= b->len;
            listDelNode(link->send_msg_queue, ln);
            releaseSendBlock(b);
        }
    }
    if (!link->closing && listLength(link->send_msg_queue) == 0) connSetWriteHandler(conn, NULL);
    linkHandlerDone(link);
}

/* ---------------------------------------------------------------------------
 * Building messages
 * ------------------------------------------------------------------------ */

/* The header every full message starts with: who we are, our epochs, our
 * (or our primary's) slots, role, ports and the cluster state as we see
 * it. */
static void buildHeader(clusterMsg *m, int type) {
    clusterNode *primary = clusterNodeIsReplica(myself) && myself->replicaof ? myself->replicaof : myself;
    memset(m, 0, sizeof(*m));
    m->type = type;
    memcpy(m->sender, myself->name, CLUSTER_NAMELEN);
    snprintf(m->myip, sizeof(m->myip), "%s", clusterAnnouncedIp());
    memcpy(m->myslots, primary->slots, sizeof(m->myslots));
    if (myself->replicaof) memcpy(m->replicaof, myself->replicaof->name, CLUSTER_NAMELEN);
    if (server.tls_cluster) {
        m->port = myself->tls_port;
        m->pport = myself->tcp_port;
    } else {
        m->port = myself->tcp_port;
        m->pport = myself->tls_port;
    }
    m->cport = myself->cport;
    m->flags = myself->flags & 0xffff;
    m->state = server.cluster->state == CLUSTER_OK ? CLUSTER_STATE_OK : CLUSTER_STATE_FAIL;
    m->current_epoch = server.cluster->currentEpoch;
    m->config_epoch = primary->configEpoch;
    m->offset = server.primary_repl_offset;
}

/* One gossip entry about n. */
static void fillGossip(clusterMsgGossip *g, const clusterNode *n) {
    memcpy(g->nodename, n->name, CLUSTER_NAMELEN);
    g->nodename[CLUSTER_NAMELEN] = '\0';
    g->ping_sent = (uint32_t)(n->ping_sent / 1000);
    g->pong_received = (uint32_t)(n->pong_received / 1000);
    snprintf(g->ip, sizeof(g->ip), "%s", n->ip);
    g->port = (uint16_t)clusterNodeClientPort(n, server.tls_cluster);
    g->pport = (uint16_t)clusterNodeClientPort(n, !server.tls_cluster);
    g->cport = (uint16_t)n->cport;
    g->flags = (uint16_t)n->flags;
}

/* Chooses the gossip of one PING/PONG/MEET to link: about a tenth of the
 * nodes (3 at least) picked at random, never ourselves, the receiver,
 * nodes in the handshake or without an address, nor disconnected nodes
 * without slots; then every node we suspect (PFAIL), so that suspicions
 * spread fast. Returns the count written to gossip (room for max). */
static int selectGossip(clusterLink *link, clusterMsgGossip *gossip, int wanted, int max) {
    unsigned long long ping_id = server.cluster->pings_sent;
    int freshnodes = (int)dictSize(server.cluster->nodes) - 2;
    int maxiterations = wanted * 3, count = 0;
    while (freshnodes > 0 && count < wanted && maxiterations--) {
        clusterNode *n = dictGetVal(dictGetRandomKey(server.cluster->nodes));
        if (n == myself || n == link->node || (n->flags & CLUSTER_NODE_PFAIL)) continue;
        if ((n->flags & (CLUSTER_NODE_HANDSHAKE | CLUSTER_NODE_NOADDR)) || (n->link == NULL && n->numslots == 0)) {
            freshnodes--;
            continue;
        }
        if (n->last_in_ping_gossip == ping_id) continue;
        fillGossip(&gossip[count++], n);
        n->last_in_ping_gossip = ping_id;
        freshnodes--;
    }
    if (server.cluster->stats_pfail_nodes == 0) return count;
    dictIterator *di = dictGetSafeIterator(server.cluster->nodes);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL && count < max) {
        clusterNode *n = dictGetVal(de);
        if (n->flags & (CLUSTER_NODE_HANDSHAKE | CLUSTER_NODE_NOADDR)) continue;
        if (!(n->flags & CLUSTER_NODE_PFAIL) || n->last_in_ping_gossip == ping_id) continue;
        fillGossip(&gossip[count++], n);
        n->last_in_ping_gossip = ping_id;
    }
    dictReleaseIterator(di);
    return count;
}

/* The ping extensions Valkey 8 sends: hostname and human node name when
 * set, the nodes we were told to forget (with the time left), our shard
 * id. Returns the count written to ext (room for max). */
static int buildPingExtensions(clusterMsgExt *ext, int max) {
    int n = 0;
    if (sdslen(myself->hostname) && n < max) {
        ext[n].type = CLUSTERMSG_EXT_TYPE_HOSTNAME;
        ext[n++].str = myself->hostname;
    }
    if (sdslen(myself->human_nodename) && n < max) {
        ext[n].type = CLUSTERMSG_EXT_TYPE_HUMAN_NODENAME;
        ext[n++].str = myself->human_nodename;
    }
    dictIterator *di = dictGetSafeIterator(server.cluster->nodes_black_list);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL && n < max - 1) {
        uint64_t expire = dictGetUnsignedIntegerVal(de);
        if ((time_t)expire < server.unixtime) continue;
        ext[n].type = CLUSTERMSG_EXT_TYPE_FORGOTTEN_NODE;
        memcpy(ext[n].name, dictGetKey(de), CLUSTER_NAMELEN);
        ext[n].name[CLUSTER_NAMELEN] = '\0';
        ext[n++].ttl = expire - (uint64_t)server.unixtime;
    }
    dictReleaseIterator(di);
    ext[n].type = CLUSTERMSG_EXT_TYPE_SHARDID;
    memcpy(ext[n].name, myself->shard_id, CLUSTER_NAMELEN);
    ext[n++].name[CLUSTER_NAMELEN] = '\0';
    return n;
}

/* See cluster.h. Sends a PING, PONG or MEET with gossip and extensions on
 * link. A PING on an outbound link starts the wait for its PONG. */
void clusterSendPing(clusterLink *link, int type) {
    if (!link || link->closing) return;
    server.cluster->pings_sent++;
    int nodes = (int)dictSize(server.cluster->nodes);
    int wanted = nodes / 10;
    if (wanted < 3) wanted = 3;
    if (wanted > nodes - 2) wanted = nodes - 2 > 0 ? nodes - 2 : 0;
    int max = wanted + (int)server.cluster->stats_pfail_nodes;
    int maxext = 3 + (int)dictSize(server.cluster->nodes_black_list);
    if (max > 65535) max = 65535;
    if (maxext > 65535) maxext = 65535;

    if (!link->inbound && type == CLUSTERMSG_TYPE_PING) link->node->ping_sent = mstime();
    clusterMsg m;
    buildHeader(&m, type);
    clusterMsgGossip *gossip = max ? zcalloc(sizeof(*gossip) * max) : NULL;
    clusterMsgExt *ext = zcalloc(sizeof(*ext) * maxext);
    m.count = (uint16_t)selectGossip(link, gossip, wanted, max);
    m.extensions = (uint16_t)buildPingExtensions(ext, maxext);
    m.data.ping.gossip = gossip;
    m.data.ping.ext = ext;
    clusterMsgSendBlock *block = encodeMessage(&m);
    zfree(gossip);
    zfree(ext);
    if (!block) return;
    block->refcount++;
    clusterSendMessage(link, block);
    releaseSendBlock(block);
}

/* See cluster.h. Broadcasts that nodename is FAIL. */
void clusterSendFail(const char *nodename) {
    clusterMsg m;
    buildHeader(&m, CLUSTERMSG_TYPE_FAIL);
    memcpy(m.data.fail.nodename, nodename, CLUSTER_NAMELEN);
    clusterMsgSendBlock *block = encodeMessage(&m);
    if (block) clusterBroadcastMessage(block);
}

/* See cluster.h. Tells link's node that node owns its slots with node's
 * configEpoch (the receiver claimed some with an older one). */
void clusterSendUpdate(clusterLink *link, clusterNode *node) {
    if (!link) return;
    clusterMsg m;
    buildHeader(&m, CLUSTERMSG_TYPE_UPDATE);
    m.data.update.config_epoch = node->configEpoch;
    memcpy(m.data.update.nodename, node->name, CLUSTER_NAMELEN);
    memcpy(m.data.update.slots, node->slots, sizeof(m.data.update.slots));
    clusterMsgSendBlock *block = encodeMessage(&m);
    if (!block) return;
    block->refcount++;
    clusterSendMessage(link, block);
    releaseSendBlock(block);
}

/* See cluster.h. Sent with the full header: every version takes it, and
 * we never announce the light one (Valkey 8 then never sends it to us
 * either). */
void clusterPropagatePublish(robj *channel, robj *message, int sharded) {
    if (!server.cluster_enabled || !server.cluster) return;
    clusterMsg m;
    buildHeader(&m, sharded ? CLUSTERMSG_TYPE_PUBLISHSHARD : CLUSTERMSG_TYPE_PUBLISH);
    robj *ch = getDecodedObject(channel), *msg = getDecodedObject(message);
    m.data.publish.channel = objectGetVal(ch);
    m.data.publish.channel_len = (uint32_t)sdslen(objectGetVal(ch));
    m.data.publish.message = objectGetVal(msg);
    m.data.publish.message_len = (uint32_t)sdslen(objectGetVal(msg));
    clusterMsgSendBlock *block = encodeMessage(&m);
    decrRefCount(ch);
    decrRefCount(msg);
    if (!block) return;
    if (!sharded) {
        clusterBroadcastMessage(block);
        return;
    }
    block->refcount++;
    dictIterator *di = dictGetSafeIterator(server.cluster->nodes);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        clusterNode *n = dictGetVal(de);
        if (n == myself || clusterNodeInHandshake(n)) continue;
        if (memcmp(n->shard_id, myself->shard_id, CLUSTER_NAMELEN) == 0) clusterSendMessage(n->link, block);
    }
    dictReleaseIterator(di);
    releaseSendBlock(block);
}

/* ---------------------------------------------------------------------------
 * Receiving: the parts of PING/PONG/MEET
 * ------------------------------------------------------------------------ */

/* The address a message comes from: the one it announces, else the
 * link's peer address. C_ERR when neither is known. */
static int senderAddress(char *buf, const clusterLink *link, const char *announced) {
    if (announced[0]) {
        snprintf(buf, NET_IP_STR_LEN, "%s", announced);
        return C_OK;
    }
    int port;
    char ip[NET_IP_STR_LEN];
    if (!link->conn || connAddrPeerName(link->conn, ip, sizeof(ip), &port) != C_OK) return C_ERR;
    if (!clusterIsValidAddress(ip, strlen(ip))) return C_ERR;
    snprintf(buf, NET_IP_STR_LEN, "%s", ip);
    return C_OK;
}

/* Client ports of a header or gossip entry: port is TLS's when the bus is. */
static void clientPortsOf(int port, int pport, int *tcp_port, int *tls_port) {
    if (server.tls_cluster) {
        *tls_port = port;
        *tcp_port = pport;
    } else {
        *tcp_port = port;
        *tls_port = pport;
    }
}

/* A known node PINGs us from another address or ports than we have:
 * take the new ones (and reconnect). Returns 1 when changed. */
static int nodeUpdateAddressIfNeeded(clusterNode *node, clusterLink *link, const clusterMsg *m) {
    char ip[NET_IP_STR_LEN];
    int tcp_port, tls_port;
    if (node == myself || link == node->link) return 0;
    if (senderAddress(ip, link, m->myip) != C_OK) return 0;
    clientPortsOf(m->port, m->pport, &tcp_port, &tls_port);
    if (node->tcp_port == tcp_port && node->tls_port == tls_port && node->cport == m->cport && !strcmp(ip, node->ip))
        return 0;
    memcpy(node->ip, ip, sizeof(ip));
    node->tcp_port = tcp_port;
    node->tls_port = tls_port;
    node->cport = m->cport;
    if (node->link) clusterFreeLink(node->link);
    node->flags &= ~CLUSTER_NODE_NOADDR;
    serverLog(LL_NOTICE, "Address updated for node %.40s (%s), now %s:%d", node->name, node->human_nodename, node->ip,
              clusterNodeClientPort(node, server.tls_cluster));
    return 1;
}

/* A gossip entry about a node we know. */
static void processKnownGossip(clusterNode *node, clusterNode *sender, const clusterMsgGossip *g) {
    int flags = g->flags;
    if (sender && clusterNodeIsPrimary(sender) && node != myself) {
        if (flags & (CLUSTER_NODE_FAIL | CLUSTER_NODE_PFAIL)) {
            if (clusterNodeAddFailureReport(node, sender))
                serverLog(LL_VERBOSE, "Node %.40s (%s) reported node %.40s (%s) as not reachable.", sender->name,
                          sender->human_nodename, node->name, node->human_nodename);
            clusterMarkNodeAsFailingIfNeeded(node);
        } else if (clusterNodeDelFailureReport(node, sender)) {
            serverLog(LL_VERBOSE, "Node %.40s (%s) reported node %.40s (%s) is back online.", sender->name,
                      sender->human_nodename, node->name, node->human_nodename);
        }
    }
    /* The sender heard from the node more recently than we did: no need to
     * ping it early (only while we have nothing against it). */
    if (!(flags & (CLUSTER_NODE_FAIL | CLUSTER_NODE_PFAIL)) && node->ping_sent == 0 &&
        clusterNodeFailureReportsCount(node) == 0) {
        mstime_t pongtime = (mstime_t)g->pong_received * 1000;
        if (pongtime <= mstime() + 500 && pongtime > node->pong_received) node->pong_received = pongtime;
    }
    /* We cannot reach it, someone can, at another address: try that one. */
    int tcp_port, tls_port;
    clientPortsOf(g->port, g->pport, &tcp_port, &tls_port);
    if (node != myself && (node->flags & (CLUSTER_NODE_FAIL | CLUSTER_NODE_PFAIL)) &&
        !(flags & (CLUSTER_NODE_NOADDR | CLUSTER_NODE_FAIL | CLUSTER_NODE_PFAIL)) && g->ip[0] && g->cport &&
        (strcasecmp(node->ip, g->ip) || node->tcp_port != tcp_port || node->tls_port != tls_port ||
         node->cport != g->cport)) {
        if (node->link) clusterFreeLink(node->link);
        memcpy(node->ip, g->ip, sizeof(node->ip));
        node->tcp_port = tcp_port;
        node->tls_port = tls_port;
        node->cport = g->cport;
        node->flags &= ~CLUSTER_NODE_NOADDR;
    }
}

/* A gossip entry about a node we do not know: a trusted sender vouches for
 * it, so we add it under its real name and connect (with PING, not MEET).
 * Only its role is taken from the entry; whether it fails is ours to find. */
static void processUnknownGossip(const clusterMsgGossip *g) {
    if ((g->flags & CLUSTER_NODE_NOADDR) || !g->ip[0] || !g->cport || clusterBlacklistExists(g->nodename)) return;
    int flags = g->flags & (CLUSTER_NODE_PRIMARY | CLUSTER_NODE_REPLICA | CLUSTER_NODE_NOFAILOVER);
    if ((flags & CLUSTER_NODE_PRIMARY) && (flags & CLUSTER_NODE_REPLICA)) flags &= ~CLUSTER_NODE_REPLICA;
    clusterNode *node = clusterCreateNode(g->nodename, flags);
    memcpy(node->ip, g->ip, sizeof(node->ip));
    clientPortsOf(g->port, g->pport, &node->tcp_port, &node->tls_port);
    node->cport = g->cport;
    serverAssert(clusterAddNode(node) == C_OK);
}

static void processGossipSection(const clusterMsg *m, clusterNode *sender) {
    for (int i = 0; i < m->count; i++) {
        const clusterMsgGossip *g = &m->data.ping.gossip[i];
        if (server.verbosity == LL_DEBUG)
            serverLog(LL_DEBUG, "GOSSIP %.40s %s:%d@%d flags %d", g->nodename, g->ip, g->port, g->cport, g->flags);
        clusterNode *node = clusterLookupNode(g->nodename, CLUSTER_NAMELEN);
        if (node)
            processKnownGossip(node, sender, g);
        else if (sender)
            processUnknownGossip(g);
    }
}

/* Forgets the node a FORGOTTEN_NODE extension names (not ourselves, our
 * primary, nor the sender). */
static void processForgottenNodeExt(const clusterMsgExt *e, clusterNode *sender) {
    clusterNode *n = clusterLookupNode(e->name, CLUSTER_NAMELEN);
    if (!n || n == myself || n == sender || (clusterNodeIsReplica(myself) && myself->replicaof == n)) return;
    uint64_t ttl = e->ttl;
    if (ttl > 86400 * 365) ttl = 86400 * 365; /* a hostile ttl must not overflow the expiry */
    clusterBlacklistAddNode(e->name, ttl);
    clusterDelNode(n);
    clusterDoBeforeSleep(CLUSTER_TODO_UPDATE_STATE | CLUSTER_TODO_SAVE_CONFIG);
}

/* The ping extensions of a known sender. A hostname or human node name the
 * sender does not send is one it no longer has. */
static void processPingExtensions(const clusterMsg *m, clusterNode *sender) {
    const char *hostname = "", *nodename = "", *shard_id = NULL;
    for (int i = 0; i < m->extensions; i++) {
        const clusterMsgExt *e = &m->data.ping.ext[i];
        switch (e->type) {
        case CLUSTERMSG_EXT_TYPE_HOSTNAME: hostname = e->str; break;
        case CLUSTERMSG_EXT_TYPE_HUMAN_NODENAME: nodename = e->str; break;
        case CLUSTERMSG_EXT_TYPE_SHARDID: shard_id = e->name; break;
        case CLUSTERMSG_EXT_TYPE_FORGOTTEN_NODE: processForgottenNodeExt(e, sender); break;
        default: break; /* a later version's: skipped */
        }
    }
    if (strcmp(sender->hostname, hostname)) {
        sender->hostname = sdscpy(sender->hostname, hostname);
        clusterDoBeforeSleep(CLUSTER_TODO_SAVE_CONFIG);
    }
    /* One nodes.conf cannot hold (a space, ',' or '=') is not taken. */
    if (strcmp(sender->human_nodename, nodename) && clusterIsValidHumanNodename(nodename, strlen(nodename))) {
        sender->human_nodename = sdscpy(sender->human_nodename, nodename);
        clusterDoBeforeSleep(CLUSTER_TODO_SAVE_CONFIG);
    }
    /* Without the extension (redis 7.0), a node is in its primary's shard. */
    if (!shard_id) shard_id = clusterNodeIsReplica(sender) && sender->replicaof ? sender->replicaof->shard_id
                                                                                 : sender->shard_id;
    clusterUpdateShardId(sender, shard_id);
}

/* A sender says it is a primary, or names its primary. */
static void processRoleChange(const clusterMsg *m, clusterNode *sender) {
    if (!m->replicaof[0]) {
        clusterSetNodeAsPrimary(sender);
        return;
    }
    clusterNode *primary = clusterLookupNode(m->replicaof, CLUSTER_NAMELEN);
    if (primary == sender) return; /* nonsense: its own replica */
    clusterSetNodeReplicaOf(sender, primary);
}

/* The sender's slot claim: taken where its configEpoch wins; where ours
 * (or another node's) is newer, the sender is told with an UPDATE. */
static void processSlotClaim(const clusterMsg *m, clusterNode *sender) {
    clusterNode *sender_primary = clusterNodeIsPrimary(sender) ? sender : sender->replicaof;
    if (!sender_primary || !memcmp(sender_primary->slots, m->myslots, sizeof(m->myslots))) return;
    if (clusterNodeIsPrimary(sender)) clusterUpdateSlotsConfigWith(sender, m->config_epoch, m->myslots);
    for (int j = 0; j < CLUSTER_SLOTS; j++) {
        if (!clusterSlotBitmapTest(m->myslots, j)) continue;
        clusterNode *owner = server.cluster->slots[j];
        if (owner == sender || owner == NULL) continue;
        if (owner->configEpoch > m->config_epoch) {
            serverLog(LL_VERBOSE, "Node %.40s has old slots configuration, sending an UPDATE message about %.40s",
                      sender->name, owner->name);
            clusterSendUpdate(sender->link, owner);
            break;
        }
    }
}

/* ---------------------------------------------------------------------------
 * Receiving: one message
 * ------------------------------------------------------------------------ */

/* A PING or MEET: learn our own address from a MEET, start a handshake
 * with an unknown MEET sender, answer with a PONG. */
static void processPingOrMeet(clusterLink *link, const clusterMsg *m, clusterNode *sender) {
    if ((m->type == CLUSTERMSG_TYPE_MEET || myself->ip[0] == '\0') && !clusterAnnouncedIp()[0]) {
        char ip[NET_IP_STR_LEN];
        int port;
        if (link->conn && connAddrSockName(link->conn, ip, sizeof(ip), &port) == C_OK &&
            clusterIsValidAddress(ip, strlen(ip)) && strcmp(ip, myself->ip)) {
            memcpy(myself->ip, ip, sizeof(ip));
            serverLog(LL_NOTICE, "IP address for this node updated to %s", myself->ip);
            clusterDoBeforeSleep(CLUSTER_TODO_SAVE_CONFIG);
        }
    }
    if (!sender && m->type == CLUSTERMSG_TYPE_MEET) {
        char ip[NET_IP_STR_LEN];
        int tcp_port, tls_port;
        clientPortsOf(m->port, m->pport, &tcp_port, &tls_port);
        int port = server.tls_cluster ? tls_port : tcp_port;
        if (senderAddress(ip, link, m->myip) == C_OK && port && m->cport &&
            !clusterHandshakeInProgress(ip, port, m->cport)) {
            clusterNode *node = clusterCreateNode(NULL, CLUSTER_NODE_HANDSHAKE);
            memcpy(node->ip, ip, sizeof(ip));
            node->tcp_port = tcp_port;
            node->tls_port = tls_port;
            node->cport = m->cport;
            serverAssert(clusterAddNode(node) == C_OK);
            clusterDoBeforeSleep(CLUSTER_TODO_SAVE_CONFIG);
        }
    }
    clusterSendPing(link, CLUSTERMSG_TYPE_PONG);
}

/* The first PONG of a node in the handshake: the node is either one we
 * know under its real name (the handshake node goes, with this link), or
 * a new one, renamed. Returns 0 when the link was freed. */
static int processHandshakePong(clusterLink *link, const clusterMsg *m, clusterNode *sender) {
    clusterNode *same = clusterLookupNode(m->sender, CLUSTER_NAMELEN);
    if (!sender && same) {
        /* The name is another node's still in the handshake: keep that one. */
        clusterDelNode(link->node);
        return 0;
    }
    if (sender) {
        serverLog(LL_VERBOSE, "Handshake: we already know node %.40s (%s), updating the address if needed.",
                  sender->name, sender->human_nodename);
        if (nodeUpdateAddressIfNeeded(sender, link, m))
            clusterDoBeforeSleep(CLUSTER_TODO_SAVE_CONFIG | CLUSTER_TODO_UPDATE_STATE);
        clusterDelNode(link->node);
        return 0;
    }
    clusterRenameNode(link->node, m->sender);
    serverLog(LL_DEBUG, "Handshake with node %.40s completed.", link->node->name);
    link->node->flags &= ~CLUSTER_NODE_HANDSHAKE;
    link->node->flags |= m->flags & (CLUSTER_NODE_PRIMARY | CLUSTER_NODE_REPLICA);
    if ((link->node->flags & CLUSTER_NODE_PRIMARY) && (link->node->flags & CLUSTER_NODE_REPLICA))
        link->node->flags &= ~CLUSTER_NODE_REPLICA;
    clusterDoBeforeSleep(CLUSTER_TODO_SAVE_CONFIG);
    return 1;
}

/* PING, PONG and MEET. Returns 0 when the link was freed. */
static int processPingFamily(clusterLink *link, const clusterMsg *m, clusterNode *sender) {
    if (m->type == CLUSTERMSG_TYPE_PING || m->type == CLUSTERMSG_TYPE_MEET) {
        if (sender && link->inbound && link->node == NULL) setInboundLinkNode(sender, link);
        processPingOrMeet(link, m, sender);
    }
    serverLog(LL_DEBUG, "%s packet received: %.40s", clusterMsgTypeName(m->type),
              link->node ? link->node->name : "NULL");
    if (!link->inbound && clusterNodeInHandshake(link->node)) {
        if (!processHandshakePong(link, m, sender)) return 0;
        sender = NULL; /* Valkey acts on a renamed node from its next message on */
    }
    if (sender) {
        sender->flags &= ~CLUSTER_NODE_NOFAILOVER;
        sender->flags |= m->flags & CLUSTER_NODE_NOFAILOVER;
    }
    if (sender && m->type == CLUSTERMSG_TYPE_PING && nodeUpdateAddressIfNeeded(sender, link, m))
        clusterDoBeforeSleep(CLUSTER_TODO_SAVE_CONFIG | CLUSTER_TODO_UPDATE_STATE);
    if (!link->inbound && m->type == CLUSTERMSG_TYPE_PONG && link->node) {
        clusterNode *n = link->node;
        n->pong_received = mstime();
        n->ping_sent = 0;
        if (clusterNodeTimedOut(n)) {
            n->flags &= ~CLUSTER_NODE_PFAIL;
            clusterDoBeforeSleep(CLUSTER_TODO_UPDATE_STATE);
        } else if (clusterNodeFailed(n)) {
            clusterClearNodeFailureIfNeeded(n);
        }
    }
    if (!sender) return 1;
    processRoleChange(m, sender);
    processSlotClaim(m, sender);
    if (clusterNodeIsPrimary(sender) && clusterNodeIsPrimary(myself) && sender->configEpoch == myself->configEpoch)
        clusterHandleConfigEpochCollision(sender);
    processGossipSection(m, sender);
    if (!link->closing) processPingExtensions(m, sender);
    return !link->closing;
}

static void processFail(const clusterMsg *m, clusterNode *sender) {
    clusterNode *failing = clusterLookupNode(m->data.fail.nodename, CLUSTER_NAMELEN);
    if (!sender) {
        serverLog(LL_NOTICE, "Ignoring FAIL message from unknown node %.40s about %.40s", m->sender,
                  m->data.fail.nodename);
        return;
    }
    if (!failing || (failing->flags & (CLUSTER_NODE_FAIL | CLUSTER_NODE_MYSELF))) return;
    serverLog(LL_NOTICE, "FAIL message received from %.40s (%s) about %.40s (%s)", sender->name,
              sender->human_nodename, failing->name, failing->human_nodename);
    failing->flags |= CLUSTER_NODE_FAIL;
    failing->fail_time = mstime();
    failing->flags &= ~CLUSTER_NODE_PFAIL;
    clusterDoBeforeSleep(CLUSTER_TODO_SAVE_CONFIG | CLUSTER_TODO_UPDATE_STATE);
}

static void processPublish(const clusterMsg *m) {
    robj *channel = createStringObject((const char *)m->data.publish.channel, m->data.publish.channel_len);
    robj *message = createStringObject((const char *)m->data.publish.message, m->data.publish.message_len);
    pubsubPublishMessage(channel, message, m->type == CLUSTERMSG_TYPE_PUBLISHSHARD);
    decrRefCount(channel);
    decrRefCount(message);
}

static void processUpdate(const clusterMsg *m) {
    clusterNode *n = clusterLookupNode(m->data.update.nodename, CLUSTER_NAMELEN);
    if (!n || n->configEpoch >= m->data.update.config_epoch) return;
    if (clusterNodeIsReplica(n)) clusterSetNodeAsPrimary(n);
    n->configEpoch = m->data.update.config_epoch;
    clusterDoBeforeSleep(CLUSTER_TODO_SAVE_CONFIG | CLUSTER_TODO_FSYNC_CONFIG);
    clusterUpdateSlotsConfigWith(n, m->data.update.config_epoch, m->data.update.slots);
}

/* Closes a link that broke the protocol, saying why. Returns 0. */
static int closeBadLink(clusterLink *link, const char *why) {
    char peer[NET_ADDR_STR_LEN];
    serverLog(LL_WARNING, "%s", why);
    serverLog(LL_WARNING, "Closing the cluster bus link with %s (node %.40s): invalid message.",
              linkPeer(link, peer, sizeof(peer)), link->node ? link->node->name : "unknown");
    clusterFreeLink(link);
    return 0;
}

/* Who sent m on link: on an outbound link, the node we connected to (a
 * different name there means the node at that address changed: its entry
 * loses the address); on an inbound one, the node the header names. NULL
 * for an unknown or handshaking sender. *ok is 0 when the link was freed. */
static clusterNode *messageSender(clusterLink *link, const clusterMsg *m, int *ok) {
    *ok = 1;
    if (m->light) return link->inbound && link->node && !clusterNodeInHandshake(link->node) ? link->node : NULL;
    clusterNode *named = clusterLookupNode(m->sender, CLUSTER_NAMELEN);
    if (named && clusterNodeInHandshake(named)) named = NULL;
    if (!link->inbound) {
        if (clusterNodeInHandshake(link->node)) return named;
        if (memcmp(link->node->name, m->sender, CLUSTER_NAMELEN) != 0) {
            clusterNode *n = link->node;
            serverLog(LL_VERBOSE, "PONG contains mismatching sender ID. About node %.40s added %d ms ago, having flags %d",
                      n->name, (int)(mstime() - n->ctime), n->flags);
            n->flags |= CLUSTER_NODE_NOADDR;
            n->ip[0] = '\0';
            n->tcp_port = n->tls_port = n->cport = 0;
            clusterFreeLink(link);
            clusterDoBeforeSleep(CLUSTER_TODO_SAVE_CONFIG);
            *ok = 0;
            return NULL;
        }
        return link->node;
    }
    if (link->node && named != link->node) {
        char why[200];
        snprintf(why, sizeof(why), "Received %s packet from node %.40s on the link of node %.40s",
                 clusterMsgTypeName(m->type), m->sender, link->node->name);
        *ok = closeBadLink(link, why);
        return NULL;
    }
    return named;
}

/* Valkey's bookkeeping for any message of a known sender: it is alive,
 * and its epochs and replication offset are the newest we have seen. */
static void noteSender(clusterNode *sender, const clusterMsg *m) {
    sender->data_received = mstime();
    if (m->light) return;
    if (m->current_epoch > server.cluster->currentEpoch) {
        server.cluster->currentEpoch = m->current_epoch;
        clusterDoBeforeSleep(CLUSTER_TODO_SAVE_CONFIG);
    }
    if (m->config_epoch > sender->configEpoch) {
        sender->configEpoch = m->config_epoch;
        clusterDoBeforeSleep(CLUSTER_TODO_SAVE_CONFIG | CLUSTER_TODO_FSYNC_CONFIG);
    }
    sender->repl_offset = (long long)m->offset;
    sender->repl_offset_time = mstime();
}

/* Acts on one decoded message. Returns 0 when the link was freed. */
static int processMessage(clusterLink *link, const clusterMsg *m) {
    int ok;
    clusterNode *sender = messageSender(link, m, &ok);
    if (!ok) return 0;
    if (sender == myself) {
        /* Our own MEET looped back (CLUSTER MEET of our own address): the
         * handshake node goes; anything else claiming our name is dropped. */
        if (m->type == CLUSTERMSG_TYPE_PING || m->type == CLUSTERMSG_TYPE_MEET) clusterSendPing(link, CLUSTERMSG_TYPE_PONG);
        if (!link->inbound && clusterNodeInHandshake(link->node)) {
            clusterDelNode(link->node);
            return 0;
        }
        return 1;
    }
    if (sender) noteSender(sender, m);
    switch (m->type) {
    case CLUSTERMSG_TYPE_PING:
    case CLUSTERMSG_TYPE_PONG:
    case CLUSTERMSG_TYPE_MEET: return processPingFamily(link, m, sender);
    case CLUSTERMSG_TYPE_FAIL: processFail(m, sender); break;
    case CLUSTERMSG_TYPE_PUBLISH:
    case CLUSTERMSG_TYPE_PUBLISHSHARD:
        if (sender) processPublish(m);
        break;
    case CLUSTERMSG_TYPE_UPDATE:
        if (sender) processUpdate(m);
        break;
    default: break; /* AUTH_REQUEST/ACK, MFSTART, MODULE: no replicas, no modules yet */
    }
    return !link->closing;
}

/* Decodes and acts on one frame of len bytes. Returns 0 when the link was
 * freed (a bad frame frees it). */
static int clusterProcessFrame(clusterLink *link, const unsigned char *buf, size_t len) {
    clusterMsg m;
    char err[CLUSTER_MSG_ERR_LEN];
    int rc = clusterMsgDecode(buf, len, &m, err);
    if (rc == CLUSTER_MSG_INVALID) return closeBadLink(link, err);
    if (rc == CLUSTER_MSG_IGNORE) {
        if (m.ver == CLUSTER_PROTO_VER) serverLog(LL_WARNING, "Received unknown packet type: %d", m.type);
        return 1;
    }
    server.cluster->stats_bus_messages_received[m.type]++;
    int alive = processMessage(link, &m);
    clusterMsgRelease(&m);
    return alive;
}

/* Makes sure the receive buffer has room for need bytes in all. It grows
 * only as data fills it (a frame's claimed length is never allocated
 * ahead of its bytes), doubling to keep big frames cheap. */
static void rcvbufReserve(clusterLink *link, size_t need) {
    if (need <= link->rcvbuf_alloc) return;
    size_t alloc = link->rcvbuf_alloc * 2;
    if (alloc < need) alloc = need;
    if (alloc < RCVBUF_INIT_LEN) alloc = RCVBUF_INIT_LEN;
    link->rcvbuf = zrealloc(link->rcvbuf, alloc);
    link->rcvbuf_alloc = alloc;
}

/* Processes the complete frames at the start of the receive buffer and
 * keeps the rest. Returns 0 when the link was freed. */
static int processBufferedFrames(clusterLink *link) {
    size_t pos = 0;
    while (!link->closing) {
        size_t avail = link->rcvbuf_len - pos;
        uint32_t totlen;
        char err[CLUSTER_MSG_ERR_LEN];
        int rc = clusterMsgFrameLength(link->rcvbuf + pos, avail, clusterMaxFrameLength(), &totlen, err);
        if (rc == CLUSTER_MSG_NEED_MORE) break;
        if (rc == CLUSTER_MSG_INVALID) {
            char peer[NET_ADDR_STR_LEN];
            serverLog(LL_WARNING, "Bad message length or signature received on the Cluster bus from %s",
                      linkPeer(link, peer, sizeof(peer)));
            clusterFreeLink(link);
            return 0;
        }
        if (avail < totlen) break;
        if (!clusterProcessFrame(link, link->rcvbuf + pos, totlen)) return 0;
        pos += totlen;
    }
    if (link->closing) return 0;
    if (pos) {
        memmove(link->rcvbuf, link->rcvbuf + pos, link->rcvbuf_len - pos);
        link->rcvbuf_len -= pos;
    }
    /* A big frame is gone: give its memory back. */
    if (link->rcvbuf_len == 0 && link->rcvbuf_alloc > 4 * RCVBUF_INIT_LEN) {
        zfree(link->rcvbuf);
        link->rcvbuf = NULL;
        link->rcvbuf_alloc = 0;
    }
    return 1;
}

/* See cluster.h. len bytes as if read from link, for the fuzz target
 * (fuzz/fuzz_clusterbus.c): appended to its buffer and every complete
 * frame acted on. Returns 0 when the link was freed. */
int clusterLinkFeed(clusterLink *link, const unsigned char *buf, size_t len) {
    link->in_handler++;
    rcvbufReserve(link, link->rcvbuf_len + len);
    memcpy(link->rcvbuf + link->rcvbuf_len, buf, len);
    link->rcvbuf_len += len;
    processBufferedFrames(link);
    return linkHandlerDone(link);
}

/* Reads what the peer sent and acts on every complete frame; at most
 * RCVBUF_READS_PER_CALL reads, so one busy peer cannot hold the loop (the
 * fd stays readable and we come back). */
static void clusterReadHandler(connection *conn) {
    clusterLink *link = connGetPrivateData(conn);
    if (!link) return;
    link->in_handler++;
    for (int reads = 0; reads < RCVBUF_READS_PER_CALL && !link->closing; reads++) {
        rcvbufReserve(link, link->rcvbuf_len + RCVBUF_READ_LEN);
        ssize_t n = connRead(conn, link->rcvbuf + link->rcvbuf_len, link->rcvbuf_alloc - link->rcvbuf_len);
        if (n <= 0) {
            if (n == -1 && errno == EAGAIN) break;
            serverLog(LL_DEBUG, "I/O error reading from node link: %s",
                      n == 0 ? "connection closed" : connGetLastError(conn));
            clusterFreeLink(link);
            break;
        }
        link->rcvbuf_len += (size_t)n;
        if (!processBufferedFrames(link)) break;
    }
    linkHandlerDone(link);
}

/* ---------------------------------------------------------------------------
 * Connecting and accepting
 * ------------------------------------------------------------------------ */

/* An outbound connection is up (or failed): start reading and greet the
 * node, with MEET if CLUSTER MEET asked for one. */
static void clusterLinkConnectHandler(connection *conn) {
    clusterLink *link = connGetPrivateData(conn);
    if (!link) return;
    clusterNode *node = link->node;
    if (connGetState(conn) != CONN_STATE_CONNECTED) {
        serverLog(LL_VERBOSE, "Connection with Node %.40s at %s:%d failed: %s", node->name, node->ip, node->cport,
                  connGetLastError(conn));
        if (node->ping_sent == 0) node->ping_sent = mstime(); /* failure detection runs from here */
        clusterFreeLink(link);
        return;
    }
    connSetReadHandler(conn, clusterReadHandler);
    connEnableTcpNoDelay(conn);
    connKeepAlive(conn, server.tcpkeepalive);
    mstime_t old_ping_sent = node->ping_sent;
    clusterSendPing(link, (node->flags & CLUSTER_NODE_MEET) ? CLUSTERMSG_TYPE_MEET : CLUSTERMSG_TYPE_PING);
    if (old_ping_sent) node->ping_sent = old_ping_sent;
    node->flags &= ~CLUSTER_NODE_MEET;
    if (listLength(link->send_msg_queue) && !connHasWriteHandler(conn))
        connSetWriteHandlerWithBarrier(conn, clusterWriteHandler, 1);
    serverLog(LL_DEBUG, "Connecting with Node %.40s at %s:%d", node->name, node->ip, node->cport);
}

/* See cluster.h. Opens node's outbound link (from the cron). C_OK when
 * under way; C_ERR when it failed at once (the node counts as pinged, so
 * failure detection runs). */
int clusterLinkConnect(clusterNode *node) {
    ConnectionType *ct = connTypeOfCluster();
    if (!ct) return C_ERR;
    clusterLink *link = clusterCreateLink(node);
    link->conn = connCreate(ct);
    connSetPrivateData(link->conn, link);
    node->link = link;
    if (connConnect(link->conn, node->ip, node->cport, server.bind_source_addr, clusterLinkConnectHandler) ==
        C_ERR) {
        if (node->ping_sent == 0) node->ping_sent = mstime();
        serverLog(LL_DEBUG, "Unable to connect to Cluster Node [%s]:%d -> %s", node->ip, node->cport,
                  connGetLastError(link->conn));
        clusterFreeLink(link);
        return C_ERR;
    }
    return C_OK;
}

/* An accepted connection finished its accept (TLS: its handshake). */
static void clusterConnAcceptHandler(connection *conn) {
    clusterLink *link = connGetPrivateData(conn);
    if (!link) return;
    if (connGetState(conn) != CONN_STATE_CONNECTED) {
        serverLog(LL_VERBOSE, "Error accepting cluster node connection: %s", connGetLastError(conn));
        clusterFreeLink(link);
        return;
    }
    connSetReadHandler(conn, clusterReadHandler);
    connEnableTcpNoDelay(conn);
    connKeepAlive(conn, server.tcpkeepalive);
}

/* The listener's callback: a peer connected to the cluster port. While a
 * dataset loads, peers wait (messages could act on data not there yet). */
static void clusterAcceptCallback(connection *conn, int flags, const char *ip) {
    (void)flags;
    if (server.loading) {
        connClose(conn);
        return;
    }
    clusterLink *link = clusterCreateLink(NULL);
    link->conn = conn;
    connSetPrivateData(conn, link);
    serverLog(LL_VERBOSE, "Accepting cluster node connection from %s", ip ? ip : "?");
    if (connAccept(conn, clusterConnAcceptHandler) == C_ERR) {
        /* Failed at once; the connection is ours to close either way. */
        link = connGetPrivateData(conn);
        if (link) {
            link->conn = NULL;
            clusterFreeLink(link);
        }
        connClose(conn);
    }
}

/* See cluster.h. Opens the cluster port on every bind address. C_OK, or
 * C_ERR logged as Valkey logs it. */
int clusterBusListen(void) {
    connListener *l = &server.cluster->listener;
    l->ct = connTypeOfCluster();
    if (l->ct == NULL) {
        serverLog(LL_WARNING, "Missing connection type %s, but it is required for the Cluster bus.", CONN_NAME_TLS);
        return C_ERR;
    }
    l->bindaddr = server.bindaddr;
    l->bindaddr_count = server.bindaddr_count;
    l->port = clusterBusPort();
    l->backlog = server.tcp_backlog;
    l->priv = server.tls_cluster ? (void *)tlsConfigFromServer() : NULL;
    l->accept_cb = clusterAcceptCallback;
    l->accept_flags = 0;
    if (connListen(l) != C_OK || applySocketMark(l) != C_OK) {
        connCloseListener(l);
        serverLog(LL_WARNING, "Failed listening on port %u (cluster), aborting.", l->port);
        return C_ERR;
    }
    return C_OK;
}

/* See cluster.h. */
void clusterBusCloseListener(void) {
    if (server.cluster->listener.ct) connCloseListener(&server.cluster->listener);
}
