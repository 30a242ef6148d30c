/* cluster_conf.h - the cluster config file (cluster-config-file, Valkey 8's
 * nodes.conf): parsed into an in-memory description, written back from
 * one, saved atomically, and locked so that two servers never share it.
 *
 * A leaf library: no server state. The cluster subsystem (later) loads the
 * file at start-up with clusterConfLoad() and turns the description into
 * its nodes, locks the file with clusterConfLock(), and on every change
 * fills a description and calls clusterConfSave(). A corrupt or foreign
 * file is refused with its line number and reason (clusterConfLogError()
 * logs them as Valkey does, with our reason after), never half loaded.
 *
 * The format, one node per line, fields separated by spaces:
 *
 *   <id> <ip>:<port>[@<cport>][,<hostname>[,<aux>=<value>]...] <flags>
 *        <primary id or -> <ping sent ms> <pong received ms> <config epoch>
 *        <connected|disconnected> [<slot>|<first>-<last>|[<slot>->-<id>]|
 *        [<slot>-<-<id>]]...
 *   vars currentEpoch <n> lastVoteEpoch <n>
 *
 * flags: myself, master, slave, fail?, fail, handshake, noaddr, nofailover
 * (or noflags), comma separated. The aux fields are Valkey 8's: shard-id,
 * nodename (the human node name), tcp-port, tls-port; redis-server 7.0
 * writes none, Valkey 8 at least shard-id (",," when there is no
 * hostname). "[5461->-<id>]" is a slot migrating to <id>, "[5461-<-<id>]"
 * one importing from <id>.
 *
 * Round trip: a description keeps what the file said in the file's order
 * (nodes, aux fields, slot moves; slots as a bitmap, written as ranges),
 * so a file Valkey or redis-server wrote is written back to the same text. */
#ifndef VK_CLUSTER_CONF_H
#define VK_CLUSTER_CONF_H

#include <stddef.h>
#include <stdint.h>

#include "cluster_msg.h"
#include "cluster_slot.h"
#include "sds.h"

/* clusterConfLoad() results besides C_OK and C_ERR. */
#define CLUSTER_CONF_ABSENT 1 /* No file, or an empty one: a new node. */

/* Largest file clusterConfLoad() reads: a thousand nodes with every slot
 * listed one by one and migrating take about a megabyte. A file of 16 MB
 * of node lines parses in about a second; only nodes with slots get a
 * slot bitmap, and at most 16384 of them can (a slot belongs to one). */
#define CLUSTER_CONF_MAX_SIZE (16 * 1024 * 1024)

/* The node flags a nodes.conf line can carry (CLUSTER_NODE_*). */
#define CLUSTER_CONF_NODE_FLAGS                                                                                       \
    (CLUSTER_NODE_MYSELF | CLUSTER_NODE_PRIMARY | CLUSTER_NODE_REPLICA | CLUSTER_NODE_PFAIL | CLUSTER_NODE_FAIL |   \
     CLUSTER_NODE_HANDSHAKE | CLUSTER_NODE_NOADDR | CLUSTER_NODE_NOFAILOVER)

/* An open slot migration of the node the line describes. */
typedef struct clusterConfSlotMove {
    int slot;
    int importing;                   /* 1: "[slot-<-node]"; 0: "[slot->-node]" (migrating). */
    char node[CLUSTER_NAMELEN + 1];  /* Where it goes or comes from. */
} clusterConfSlotMove;

/* An aux field of the address: "<key>=<value>". */
typedef struct clusterConfAux {
    sds key;
    sds value;
} clusterConfAux;

typedef struct clusterConfNode {
    char name[CLUSTER_NAMELEN + 1];
    sds ip;                 /* "" when unknown (":0@0" lines). */
    int port;               /* 0..65535 */
    int cport;              /* 0..65535, or -1: no "@cport" (files of Redis before 4.0). */
    sds hostname;           /* NULL: no ',' after the address; else the hostname field, maybe "". */
    clusterConfAux *aux;    /* numaux fields in file order; only with a hostname field. */
    int numaux;
    int flags;              /* CLUSTER_NODE_* within CLUSTER_CONF_NODE_FLAGS. */
    char primary[CLUSTER_NAMELEN + 1]; /* "" for "-". */
    long long ping_sent;    /* Milliseconds, >= 0. */
    long long pong_received;
    uint64_t config_epoch;
    int connected;          /* Link state: 1 "connected", 0 "disconnected". */
    unsigned char *slots;   /* CLUSTER_SLOT_BITMAP_LEN bytes (owned), or NULL: no slots. */
    clusterConfSlotMove *moves; /* nummoves, in file order. */
    int nummoves;
} clusterConfNode;

typedef struct clusterConf {
    clusterConfNode **nodes; /* numnodes, in file order (owned). */
    int numnodes;
    uint64_t current_epoch;
    uint64_t last_vote_epoch;
    sds *skipped_vars;       /* Unknown "vars" names, skipped as Valkey skips them. */
    int numskipped;
} clusterConf;

/* Why a file or description was refused. */
typedef struct clusterConfError {
    int corrupt;       /* 1: the content is wrong; 0: the file could not be read. */
    int line;          /* 1-based line of the file; 0: the file or description as a whole. */
    char reason[160];  /* What is wrong, e.g. "invalid slot range '16384'". */
    char text[200];    /* The line (cut to fit), for Valkey's log line. */
} clusterConfError;

/* Returns a new empty description (no nodes, epochs 0); never NULL. */
clusterConf *clusterConfCreate(void);

/* Frees a description and everything in it; NULL is ignored. */
void clusterConfFree(clusterConf *conf);

/* Appends a node named name (40 lowercase hex digits) with an empty
 * address, no flags, no slots, and returns it (owned by conf); NULL when
 * the name is invalid or already there. */
clusterConfNode *clusterConfAddNode(clusterConf *conf, const char *name);

/* Returns the node named name, or NULL. */
clusterConfNode *clusterConfFindNode(const clusterConf *conf, const char *name);

/* Returns the node's slot bitmap, allocating an empty one if it had none
 * (for filling in a description). Owned by the node. */
unsigned char *clusterConfNodeSlots(clusterConfNode *node);

/* Sets aux field key (shard-id, nodename, tcp-port or tls-port) to value,
 * replacing it or appending it; gives the node an empty hostname field if
 * it had none. Returns C_OK, or C_ERR (nothing changed) for an unknown key
 * or a value that key does not take. */
int clusterConfSetAux(clusterConfNode *node, const char *key, const char *value);

/* Returns the value of aux field key, or NULL. Borrowed from node. */
const char *clusterConfGetAux(const clusterConfNode *node, const char *key);

/* Records that slot is migrating to (importing == 0) or importing from
 * (importing == 1) the node named other. C_ERR for an invalid slot or name,
 * or a slot that already has a move. */
int clusterConfAddSlotMove(clusterConfNode *node, int slot, int importing, const char *other);

/* Parses len bytes of nodes.conf text. On success returns C_OK with *out a
 * new description (the caller frees it); otherwise C_ERR, *out NULL and err
 * filled. Exactly one node must be flagged myself; node names are unique;
 * a slot belongs to one node at most (checked line by line, so at most
 * 16384 nodes get a slot bitmap). Pure (any thread). */
int clusterConfParse(const char *buf, size_t len, clusterConf **out, clusterConfError *err);

/* Reads and parses the file at path: C_OK with *out set; CLUSTER_CONF_ABSENT
 * when it does not exist or is empty (*out NULL); C_ERR with err filled
 * (err->line 0 and Valkey's message when the file can't be read). Start-up. */
int clusterConfLoad(const char *path, clusterConf **out, clusterConfError *err);

/* Checks a description against the rules clusterConfParse() applies, so
 * that what is written parses again. C_OK, or C_ERR with err filled (line
 * is the 1-based node index, or 0). */
int clusterConfValidate(const clusterConf *conf, clusterConfError *err);

/* Returns the file's text for a valid description (a new sds, the caller
 * frees it): the node lines in order, then the vars line. */
sds clusterConfFormat(const clusterConf *conf);

/* Writes conf to path atomically: a temporary file next to it
 * ("<path>.tmp-<pid>-<usec>"), fsync'ed when do_fsync, renamed over path,
 * and the directory fsync'ed when do_fsync. When lockfd is not NULL and
 * *lockfd holds our lock on path (clusterConfLock()), the new file is
 * locked before it replaces the old one and *lockfd becomes its descriptor
 * (the old one is closed): the name is never unlocked. Returns C_OK, or
 * C_ERR with err (CLUSTER_MSG_ERR_LEN bytes) set and path untouched; an
 * invalid description is refused before anything is written. Main thread. */
int clusterConfSave(const clusterConf *conf, const char *path, int do_fsync, int *lockfd, char *err);

/* Opens (creating it if needed) and locks path with flock(LOCK_EX|LOCK_NB)
 * as Valkey does: C_OK with *lockfd the descriptor to keep open for the
 * process' life; C_ERR with err (CLUSTER_MSG_ERR_LEN bytes) set to Valkey's
 * message when another process holds the lock or the file can't be opened.
 * Start-up. */
int clusterConfLock(const char *path, int *lockfd, char *err);

/* Logs a refused file at LL_WARNING as Valkey does ("Unrecoverable error:
 * corrupted cluster config file "<line>".") and then the line number and
 * reason; for a file that could not be read, Valkey's message alone. */
void clusterConfLogError(const char *path, const clusterConfError *err);

#endif
