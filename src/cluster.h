/* cluster.h - the cluster node: its view of the cluster (the node table
 * and the slot map), the cluster bus that keeps that view in step with the
 * other nodes, and the CLUSTER command.
 *
 * Three files share this state:
 *
 *   cluster.c       the node table and the slot map, failure reports and
 *                   epochs, the cluster's state (ok/fail), nodes.conf
 *                   (loaded and locked at start-up, saved on change),
 *                   start-up and the 100 ms cron that drives handshakes,
 *                   pings and failure detection;
 *   cluster_bus.c   the bus: the cluster port's listener, one link per
 *                   peer and direction through the connection layer, and
 *                   every message sent or received (cluster_msg.c checks
 *                   the bytes; this file acts on them);
 *   cluster_cmd.c   CLUSTER's subcommands, INFO's cluster section and the
 *                   command table rows.
 *
 * The rest of the server sees the section "For the rest of the server":
 * start-up, the cron and before-sleep hooks, PUBLISH propagation, INFO
 * fields, and the slot map (clusterNodeBySlot()) that command routing will
 * consult. Nothing outside the three files touches a link or a node's
 * fields.
 *
 * Everything runs in the main thread. A node's name is 40 lowercase hex
 * digits and never changes once out of the handshake (CLUSTER RESET HARD
 * renames myself); nodes are found by name in server.cluster->nodes. */
#ifndef VK_CLUSTER_H
#define VK_CLUSTER_H

#include <stdint.h>

#include "cluster_msg.h"
#include "cluster_slot.h"
#include "server.h"

#define CLUSTER_PORT_INCR 10000 /* Default bus port: the client port + 10000. */
#define CLUSTER_OK 0            /* The cluster serves queries. */
#define CLUSTER_FAIL 1          /* It does not: slots uncovered or failed, or we are in a minority. */

/* Timing rules, multiples of cluster-node-timeout where they say so. */
#define CLUSTER_FAIL_REPORT_VALIDITY_MULT 2 /* A failure report expires after 2 node timeouts. */
#define CLUSTER_FAIL_UNDO_TIME_MULT 2       /* A primary with slots leaves FAIL after 2 timeouts unserved. */
#define CLUSTER_WRITABLE_DELAY 2000         /* ms a restarted primary waits before its state turns ok. */
#define CLUSTER_MAX_REJOIN_DELAY 5000       /* A primary back from a minority waits node timeout, */
#define CLUSTER_MIN_REJOIN_DELAY 500        /* clamped to these, before turning ok. */

/* What clusterBeforeSleep() does next (todo_before_sleep bits). */
#define CLUSTER_TODO_UPDATE_STATE (1 << 0)
#define CLUSTER_TODO_SAVE_CONFIG (1 << 1)
#define CLUSTER_TODO_FSYNC_CONFIG (1 << 2)

struct clusterNode;

/* A queued message: one encoded buffer shared by every link it is sent on
 * (a broadcast encodes once). Freed when the last link has written it. */
typedef struct clusterMsgSendBlock {
    int refcount;
    int type; /* CLUSTERMSG_TYPE_*, for the sent counters. */
    size_t len;
    unsigned char *buf; /* zmalloc'ed by clusterMsgEncode(). */
} clusterMsgSendBlock;

/* One connection to a peer's bus port (outbound: we connected, node set at
 * once) or from one (inbound: node set by the first message naming a known
 * sender). A node has at most one of each. */
typedef struct clusterLink {
    mstime_t ctime;                      /* Created (ms). */
    connection *conn;                    /* NULL once closed. */
    list *send_msg_queue;                /* clusterMsgSendBlock *, oldest first. */
    size_t head_msg_send_offset;         /* Bytes of the first block already written. */
    unsigned long long send_msg_queue_mem; /* Bytes queued (blocks counted whole). */
    unsigned char *rcvbuf;               /* Bytes read and not yet processed. */
    size_t rcvbuf_len, rcvbuf_alloc;
    struct clusterNode *node;            /* The peer, or NULL (inbound, not yet known). */
    int inbound;                         /* 1: the peer connected to us. */
    int in_handler;                      /* A read/write handler of this link is running. */
    int closing;                         /* Freed inside its handler: memory goes when it returns. */
} clusterLink;

/* A failure report: node `node` said, at `time`, that it cannot reach the
 * node whose list holds the report. */
typedef struct clusterNodeFailReport {
    struct clusterNode *node;
    mstime_t time;
} clusterNodeFailReport;

typedef struct clusterNode {
    mstime_t ctime;                       /* Created (ms): handshake timeouts count from here. */
    char name[CLUSTER_NAMELEN + 1];       /* NUL-terminated. */
    char shard_id[CLUSTER_NAMELEN + 1];
    int flags;                            /* CLUSTER_NODE_* */
    uint64_t configEpoch;                 /* Last config epoch seen (a primary's own; a replica shows its primary's). */
    unsigned char slots[CLUSTER_SLOT_BITMAP_LEN]; /* The slot map's slots of this node (kept in step). */
    int numslots;
    int num_replicas;
    struct clusterNode **replicas;        /* Known replicas of this primary. */
    struct clusterNode *replicaof;        /* Its primary, or NULL. */
    unsigned long long last_in_ping_gossip; /* The ping that last gossiped it (no duplicates in one). */
    mstime_t ping_sent;                   /* Unanswered PING sent at (ms), 0: none pending. */
    mstime_t pong_received;               /* Last PONG (ms). */
    mstime_t data_received;               /* Last message of any kind (ms). */
    mstime_t fail_time;                   /* When FAIL was set (ms). */
    long long repl_offset;                /* Replication offset it last announced. */
    mstime_t repl_offset_time;
    char ip[NET_IP_STR_LEN];              /* Announced or learned address; "" unknown. */
    sds hostname;                         /* Announced hostname, "" none. */
    sds human_nodename;                   /* Announced human node name, "" none. */
    int tcp_port, tls_port, cport;        /* Client ports (0: none) and bus port. */
    clusterLink *link;                    /* Ours to it, or NULL. */
    clusterLink *inbound_link;            /* Its to us, or NULL. */
    list *fail_reports;                   /* clusterNodeFailReport *. */
} clusterNode;

typedef struct clusterState {
    clusterNode *myself;
    uint64_t currentEpoch;
    uint64_t lastVoteEpoch;
    int state;                            /* CLUSTER_OK or CLUSTER_FAIL. */
    int size;                             /* Primaries serving at least one slot. */
    dict *nodes;                          /* name (sds) -> clusterNode *. */
    dict *nodes_black_list;               /* name (sds) -> expire (unix s): forgotten nodes. */
    clusterNode *slots[CLUSTER_SLOTS];    /* The slot map: owner of each slot, or NULL. */
    clusterNode *migrating_slots_to[CLUSTER_SLOTS];
    clusterNode *importing_slots_from[CLUSTER_SLOTS];
    int todo_before_sleep;                /* CLUSTER_TODO_* */
    long long stats_bus_messages_sent[CLUSTERMSG_TYPE_COUNT];
    long long stats_bus_messages_received[CLUSTERMSG_TYPE_COUNT];
    long long stats_pfail_nodes;          /* Nodes in PFAIL at the last cron. */
    unsigned long long stat_cluster_links_buffer_limit_exceeded;
    unsigned long long pings_sent;        /* PING/PONG/MEET built, for last_in_ping_gossip. */
    mstime_t among_minority_time;         /* Last time we counted too few reachable primaries. */
    mstime_t first_state_update;          /* First clusterUpdateState() (start of the writable delay). */
    connListener listener;                /* The cluster port. */
    int lockfd;                           /* nodes.conf's lock, held for life. */
} clusterState;

/* ---------------------------------------------------------------------------
 * For the rest of the server
 * ------------------------------------------------------------------------ */

/* Start-up, cluster-enabled yes, after initServer(): locks and loads
 * cluster-config-file (or creates a new node and saves it). Exits with a
 * logged reason on a locked, unreadable or corrupt file. */
void clusterInit(void);

/* Start-up, after the client listeners: opens the cluster port (cluster-port,
 * default port + 10000) on every bind address. Exits when it cannot. */
void clusterInitListener(void);

/* serverCron, every 100 ms: handshakes, reconnects, pings, failure
 * detection, the cluster state. */
void clusterCron(void);

/* beforeSleep: the state update and nodes.conf save that changes since the
 * last call asked for. */
void clusterBeforeSleep(void);

/* Shutdown: saves nodes.conf (fsync'ed) and closes the cluster port. */
void clusterShutdown(void);

/* PUBLISH in cluster mode: sends the message to every node, whose
 * subscribers get it from there. SPUBLISH: to the nodes of our shard. */
void clusterPropagatePublish(robj *channel, robj *message, int sharded);

/* CONFIG SET of a cluster-announce-* option, cluster-port excepted: myself's
 * address, ports, hostname and human node name are read again and the
 * change saved (and sent with the next pings). No-op without cluster mode. */
void clusterUpdateMyselfAnnouncedInfo(void);

/* INFO clients/memory: bus connections ((nodes - 1) * 2, as Valkey counts
 * them) and the memory the links use. */
unsigned long clusterConnectionsCount(void);
size_t clusterLinksMemory(void);

/* The slot map, for command routing: the node serving slot (0..16383), or
 * NULL when no node does. */
clusterNode *clusterNodeBySlot(int slot);

/* 1 when n is this node. */
int clusterNodeIsMyself(const clusterNode *n);

/* INFO cluster's and CLUSTER INFO's text (cluster_cmd.c); a new sds. */
sds clusterGenInfoString(void);

/* ---------------------------------------------------------------------------
 * Between cluster.c, cluster_bus.c and cluster_cmd.c
 *
 * All run in the main thread; each is described where it is defined.
 * Nodes and links belong to the node table: a caller borrows them, and
 * must not keep a pointer across a call that may delete a node
 * (clusterDelNode(), clusterReset(), acting on a message) or free a link
 * (clusterFreeLink(), which any I/O error may call).
 * ------------------------------------------------------------------------ */

/* cluster.c: the node table. */
clusterNode *clusterCreateNode(const char *name, int flags);
int clusterAddNode(clusterNode *node);
void clusterDelNode(clusterNode *node);
clusterNode *clusterLookupNode(const char *name, size_t len);
void clusterRenameNode(clusterNode *node, const char *newname);
int clusterStartHandshake(const char *ip, int port, int cport);
int clusterHandshakeInProgress(const char *ip, int port, int cport);
void clusterSetNodeAsPrimary(clusterNode *n);
void clusterSetNodeReplicaOf(clusterNode *n, clusterNode *primary);
void clusterUpdateShardId(clusterNode *node, const char *shard_id);
int clusterNodeAddFailureReport(clusterNode *failing, clusterNode *sender);
int clusterNodeDelFailureReport(clusterNode *node, clusterNode *sender);
int clusterNodeFailureReportsCount(clusterNode *node);
void clusterMarkNodeAsFailingIfNeeded(clusterNode *node);
void clusterClearNodeFailureIfNeeded(clusterNode *node);
void clusterBlacklistAddNode(const char *name, uint64_t ttl);
int clusterBlacklistExists(const char *name);
void clusterBlacklistCleanup(void);
/* cluster.c: slots and epochs. */
int clusterAddSlot(clusterNode *n, int slot);
int clusterDelSlot(int slot);
int clusterDelNodeSlots(clusterNode *node);
void clusterUpdateSlotsConfigWith(clusterNode *sender, uint64_t senderConfigEpoch, const unsigned char *slots);
void clusterHandleConfigEpochCollision(clusterNode *sender);
uint64_t clusterGetMaxEpoch(void);
int clusterBumpConfigEpochWithoutConsensus(void);
void clusterUpdateState(void);
void clusterDoBeforeSleep(int flags);
int clusterSaveConfig(int do_fsync, char *err);
void clusterReset(int hard);
int clusterNodeIsVotingPrimary(const clusterNode *n);
uint64_t clusterNodeEpoch(const clusterNode *n);
int clusterNodeClientPort(const clusterNode *n, int use_tls);
/* The endpoint cluster-preferred-endpoint-type names n by: its IP, its
 * hostname ("?" when it announced none) or "" (unknown-endpoint), as
 * CLUSTER SLOTS and -MOVED/-ASK show it. Borrowed from n. */
const char *clusterNodePreferredEndpoint(const clusterNode *n);

/* cluster_route.c: which node serves a command (see its opening comment). */
#define CLUSTER_ROUTE_OK 0
#define CLUSTER_ROUTE_CROSS_SLOT 1   /* -CROSSSLOT */
#define CLUSTER_ROUTE_TRYAGAIN 2     /* -TRYAGAIN: multi-key, some keys missing in an open slot */
#define CLUSTER_ROUTE_ASK 3          /* -ASK: the key went to the slot's migration target */
#define CLUSTER_ROUTE_MOVED 4        /* -MOVED: another node owns the slot */
#define CLUSTER_ROUTE_DOWN_STATE 5   /* -CLUSTERDOWN The cluster is down */
#define CLUSTER_ROUTE_DOWN_RO_STATE 6 /* -CLUSTERDOWN ... only accepts read commands */
#define CLUSTER_ROUTE_DOWN_UNBOUND 7 /* -CLUSTERDOWN Hash slot not served */

/* The node that should serve c's command (c->cmd, c->argv; for EXEC its
 * queue): myself (*result CLUSTER_ROUTE_OK) when this node serves it,
 * another node with *result MOVED or ASK, or NULL with the error in
 * *result. *slot is the keys' slot, -1 when it has none. Reads the slot
 * map and the keyspace (migrating slots); changes nothing. Main thread;
 * cluster mode only. */
clusterNode *clusterRouteQuery(client *c, int *slot, int *result);

/* Replies result (not CLUSTER_ROUTE_OK) to c in Valkey 8's words: n and
 * slot name the node and slot of MOVED and ASK. */
void clusterRedirectClient(client *c, clusterNode *n, int slot, int result);

/* processCommand()'s check in cluster mode, for a command with keys or
 * EXEC: returns 1 when c's command was redirected or refused (the reply is
 * sent, a transaction marked or dropped), 0 when this node runs it. */
int clusterRedirectIfNeeded(client *c);

/* A command a script run by caller is about to run (server.call): NULL
 * when this node may run it, else the error text (static, "ERR ...", as
 * Valkey's). *script_slot is the slot the script's keys so far hash to
 * (-1: none yet), updated; allow_cross_slot (allow-cross-slot-keys) lifts
 * the one-slot rule. Cluster mode only. */
const char *clusterScriptCommandDenied(client *caller, struct serverCommand *cmd, robj **argv, int argc,
                                       int allow_cross_slot, int *script_slot);

/* The slot of the first key of a command (all its keys, as processCommand()
 * checked them), or -1 when it has none or they span slots. */
int clusterCommandKeysSlot(struct serverCommand *cmd, robj **argv, int argc);

/* For a client blocked on keys whose first is firstkey: replies -MOVED
 * (the slot is served by another node and not imported here), -CLUSTERDOWN
 * Hash slot not served (by nobody) or -CLUSTERDOWN The cluster is down,
 * and returns 1 (the caller unblocks it); 0 while this node still serves
 * it. A READONLY client's read waits on the primary's replica. */
int clusterRedirectBlockedClient(client *c, robj *firstkey);

/* Called after each command c ran (resetClient()): ASKING covers one
 * command, or a whole transaction. */
void clusterAfterCommand(client *c, struct serverCommand *cmd);
const char *clusterAnnouncedIp(void);

/* cluster_bus.c: links and messages. */
clusterLink *clusterCreateLink(clusterNode *node);
void clusterFreeLink(clusterLink *link);
int clusterLinkConnect(clusterNode *node);
void clusterSendPing(clusterLink *link, int type);
void clusterSendFail(const char *nodename);
void clusterSendUpdate(clusterLink *link, clusterNode *node);
int clusterLinkSendBufferOverLimit(const clusterLink *link);
const char *clusterLinkEvents(const clusterLink *link, char *buf);
int clusterBusListen(void);
int clusterLinkFeed(clusterLink *link, const unsigned char *buf, size_t len);
void clusterBusCloseListener(void);

static inline int clusterNodeIsPrimary(const clusterNode *n) {
    return (n->flags & CLUSTER_NODE_PRIMARY) != 0;
}
static inline int clusterNodeIsReplica(const clusterNode *n) {
    return (n->flags & CLUSTER_NODE_REPLICA) != 0;
}
static inline int clusterNodeInHandshake(const clusterNode *n) {
    return (n->flags & CLUSTER_NODE_HANDSHAKE) != 0;
}
static inline int clusterNodeTimedOut(const clusterNode *n) {
    return (n->flags & CLUSTER_NODE_PFAIL) != 0;
}
static inline int clusterNodeFailed(const clusterNode *n) {
    return (n->flags & CLUSTER_NODE_FAIL) != 0;
}

#endif
