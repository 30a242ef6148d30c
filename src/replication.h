/* replication.h - the primary/replica link: the replication stream, the
 * backlog, full and partial resynchronisation, and the replica's side of
 * the handshake.
 *
 * Propagation (propagate.c) decides WHAT goes into the stream: commands as
 * executed, rewritten where they are not deterministic, wrapped in
 * MULTI/EXEC when one execution unit produced several. Replication
 * (replication.c) decides WHERE it goes: the replication buffer, one list
 * of blocks that is at once the backlog and the output of every attached
 * replica. The one call between them is replicationFeedReplicas().
 *
 * A full sync has one question with several answers: how does the
 * snapshot reach the replica? replSnapshotMethod is that interface; the
 * handshake, PSYNC, the backlog and the command stream never branch on
 * which implementation serves a sync (disk file, stream through a pipe
 * from the child, a region replicas READ by RDMA: repl_rdma.c). */
#ifndef VK_REPLICATION_H
#define VK_REPLICATION_H

#include "server.h"

/* repl.transfer_size of a snapshot read from an RDMA region. */
#define REPL_TRANSFER_REGION -3

/* repl-diskless-load values. */
#define REPL_DISKLESS_LOAD_DISABLED 0
#define REPL_DISKLESS_LOAD_WHEN_DB_EMPTY 1
#define REPL_DISKLESS_LOAD_SWAPDB 2

/* What a replica told us it can do (REPLCONF capa). */
#define REPLICA_CAPA_NONE 0
#define REPLICA_CAPA_EOF (1 << 0)    /* reads a diskless "$EOF:<mark>" payload */
#define REPLICA_CAPA_PSYNC2 (1 << 1) /* understands +CONTINUE <new replid> */
#define REPLICA_CAPA_RDMA_READ (1 << 2) /* READs a snapshot region (repl_rdma.c) */

/* Where a replica stands, seen from its primary (INFO: state=...). */
typedef enum {
    REPLICA_STATE_WAIT_BGSAVE_START = 6, /* wants a full sync; its snapshot has not started */
    REPLICA_STATE_WAIT_BGSAVE_END,       /* its snapshot is being produced; the stream accumulates */
    REPLICA_STATE_SEND_BULK,             /* the snapshot file is being sent */
    REPLICA_STATE_ONLINE,                /* gets the stream (after a streamed snapshot: from its first ACK) */
    REPLICA_STATE_RDB_TRANSMITTED,       /* REPLCONF rdb-only 1: its snapshot is out, it is being closed */
} replicaState;

/* Where this server stands as a replica (INFO master_link_status...). */
typedef enum {
    REPL_STATE_NONE = 0,         /* not a replica */
    REPL_STATE_CONNECT,          /* must (re)connect to the primary */
    REPL_STATE_CONNECTING,       /* connecting */
    REPL_STATE_RECEIVE_PING_REPLY, /* PING sent */
    REPL_STATE_RECEIVE_AUTH_REPLY, /* AUTH, REPLCONF x2 sent together; replies read in order */
    REPL_STATE_RECEIVE_PORT_REPLY,
    REPL_STATE_RECEIVE_IP_REPLY,
    REPL_STATE_RECEIVE_CAPA_REPLY,
    REPL_STATE_RECEIVE_PSYNC_REPLY, /* PSYNC sent */
    REPL_STATE_TRANSFER,         /* receiving the snapshot */
    REPL_STATE_CONNECTED,        /* the stream is flowing */
} replState;

/* Replication data of a replica client (on a primary) or of the primary's
 * client (on a replica); c->repl, NULL for every other client. */
typedef struct replClientData {
    replicaState state;
    int capa;                   /* REPLICA_CAPA_* */
    int listening_port;         /* REPLCONF listening-port */
    sds announced_ip;           /* REPLCONF ip-address, or NULL */
    long long psync_initial_offset; /* offset its snapshot starts after */
    /* Its place in the replication buffer (past WAIT_BGSAVE_START): the
     * next byte to send is block->buf[block_pos]; it holds a reference on
     * block. block is NULL only while the buffer has no block yet. */
    struct replBufBlock *block;
    size_t block_pos;
    int stream_handler;         /* replicaStreamWriteHandler is installed on its link */
    long long ack_off;          /* last REPLCONF ACK offset */
    long long aof_ack_off;      /* last FACK offset: its AOF is fsynced up to here (WAITAOF) */
    time_t ack_time;            /* when it came (or when the replica attached) */
    int start_stream_on_ack;    /* after a streamed snapshot: no writes until the first ACK */
    int rdb_only;               /* REPLCONF rdb-only 1: the snapshot alone, never the stream */
    int rdb_exclude;            /* REPLCONF rdb-filter-only: RDB_SAVE_EXCLUDE_* left out of its snapshot */
    struct replSnapshotMethod *method; /* what delivers its snapshot */
    struct replRdmaTarget *rdma; /* region method: its reading state (repl_rdma.c) */
    int dbfd;                   /* disk method: the snapshot file */
    off_t dboff, dbsize;
    sds preamble;               /* disk method: "$<size>\r\n" not yet sent */
    /* The primary's client on a replica. */
    long long reploff;          /* stream bytes applied */
    long long read_reploff;     /* stream bytes read */
    long long unfed;            /* applied bytes not yet proxied to our backlog (they end where the
                                   query buffer's unapplied bytes start) */
    int stream_broken;          /* dropped for a corrupt stream: its state is not cached, the next
                                   sync is a full one (replicationPrimaryStreamBroken()) */
} replClientData;

/* How a snapshot reaches replicas. One implementation per way; a sync is
 * served by exactly one, chosen by replicationSnapshotMethodFor(). */
typedef struct replSnapshotMethod {
    const char *name;
    int delayed; /* waits repl-diskless-sync-delay for more replicas to share it */
    /* Forks the producer for the replicas in WAIT_BGSAVE_START that this
     * method serves. C_OK if it runs (those replicas are then in
     * WAIT_BGSAVE_END), C_ERR if it could not start. */
    int (*start)(void);
    /* The child ended: ok = the snapshot is complete. */
    void (*done)(int ok);
    /* A replica this method serves is being freed. */
    void (*replica_gone)(client *c);
    /* 1 if a replica arriving now can join the running snapshot. */
    int (*can_attach)(void);
    /* Optional: c joined the running snapshot (can_attach said yes). */
    void (*attached)(client *c);
    /* Optional: 1 while a previous snapshot of this method is still being
     * delivered, so that a new one must wait. */
    int (*busy)(void);
    /* Optional: 1 if this method also serves c, whose own method is
     * another (a region streams to replicas that cannot READ). */
    int (*also_serves)(client *c);
} replSnapshotMethod;

/* One block of the replication buffer: a piece of the stream, shared by
 * the backlog and every replica that has not sent it yet. */
typedef struct replBufBlock {
    struct replBufBlock *next; /* the following piece of the stream, NULL for the tail */
    long long refcount;        /* replicas whose next byte to send is in this block */
    long long offset;          /* stream offset of buf[0] */
    long long mem_before;      /* allocation of every block appended before this one (for lags) */
    size_t alloc;              /* this block's allocation, header included */
    size_t size, used;         /* room in buf, bytes of the stream in it */
    char buf[];
} replBufBlock;

/* Blocks are allocated this size, header included (a jemalloc size
 * class: no rounding up), or bigger for a piece of the stream that does
 * not fit in one. */
#define REPL_BUF_BLOCK_BYTES (16 * 1024)

/* The replication buffer (see replication.c): blocks from head (oldest)
 * to tail (being written). Every byte in it is history a partial resync
 * can continue from; it keeps at least repl-backlog-size bytes, and more
 * while a lagging replica still holds a reference on an older block. */
typedef struct replBacklog {
    replBufBlock *head, *tail;
    long long offset;     /* replication offset of the oldest byte held (head->offset) */
    size_t mem;           /* allocation of all the blocks (mem_total_replication_buffers) */
    replBufBlock *spare;  /* the last block trimmed, kept for the next one (not in mem) */
} replBacklog;

/* FAILOVER's progress (INFO master_failover_state). */
typedef enum {
    FAILOVER_NONE = 0,      /* no-failover */
    FAILOVER_WAIT_FOR_SYNC, /* writes paused, waiting for a replica to have every byte */
    FAILOVER_IN_PROGRESS,   /* connecting to the target as its replica (PSYNC ... FAILOVER) */
} failoverState;

/* The replication subsystem's state. */
struct replicationState {
    list *replicas;             /* replica clients (not monitors) */
    replBacklog *backlog;       /* NULL until a replica ever attached */
    int last_seldb;             /* db of the stream's last SELECT; -1 = emit one */
    time_t no_replicas_since;   /* for repl-backlog-ttl */
    char replid2[CONFIG_RUN_ID_SIZE + 1]; /* the history before a promotion */
    long long second_replid_offset; /* replid2 is valid up to here, -1 if none */
    int good_replicas;          /* replicas with lag <= min-replicas-max-lag */
    int snapshot_running;       /* a child produces a snapshot for replicas */
    replSnapshotMethod *running_method;
    long long snapshot_offset;  /* the offset the running snapshot is taken at */
    int snapshot_exclude;       /* RDB_SAVE_EXCLUDE_* of the socket method's snapshot (the only method
                                   that serves filtered replicas), starting or running */
    list *waiting_clients;      /* clients blocked in WAIT */
    int primary_waits;          /* the primary's stream waits for a busy script to end */
    int get_ack_needed;         /* send REPLCONF GETACK before sleeping */
    int acks_arrived;           /* an ACK came: serve WAIT clients before sleeping */
    long long stat_sync_full, stat_sync_partial_ok, stat_sync_partial_err;
    /* Replica side. */
    replState state;
    connection *transfer;       /* the link during the handshake and transfer */
    client *primary;            /* the primary's client once connected */
    time_t transfer_start, transfer_lastio;
    long long transfer_size;    /* -1: $EOF framing, -2: header next, REPL_TRANSFER_REGION */
    long long transfer_read;
    char header[256];           /* the "$<len>" / "$EOF:<mark>" line being read */
    size_t header_len;
    int transfer_fd;            /* disk load: temp file */
    off_t transfer_synced, transfer_prev_synced; /* its writeback pacing (rioWriteback) */
    char transfer_tmpfile[256];
    char eofmark[CONFIG_RUN_ID_SIZE];
    char lastbytes[CONFIG_RUN_ID_SIZE];
    char new_replid[CONFIG_RUN_ID_SIZE + 1]; /* from +FULLRESYNC */
    long long new_offset;
    time_t down_since;          /* master_link_down_since_seconds */
    time_t handshake_start;
    int stream_db;              /* repl-stream-db of a loaded RDB, -1 unknown */
    int psync_possible;         /* this dataset holds (replid, offset): PSYNC may continue it */
    int loading_own_file;       /* start-up load of our own RDB: its repl-* aux fields are collected */
    char loaded_replid[CONFIG_RUN_ID_SIZE + 1]; /* ... repl-id, "" if none */
    long long loaded_offset;    /* ... repl-offset, -1 if none */
    int loaded_stream_db;       /* ... repl-stream-db, -1 if none */
    /* FAILOVER */
    failoverState failover_state;
    mstime_t failover_end_time; /* 0 = no timeout */
    int failover_force;         /* FORCE: go on with the target at the timeout */
    char *failover_host;        /* TO host port, or the replica chosen; NULL = any */
    int failover_port;
};
extern struct replicationState repl;

/* Start-up and cron. */
void replicationInit(void);
void replicationCron(void);      /* serverCron, once a second */
void replicationBeforeSleep(void);
/* Writes to every replica the stream's bytes it has not been sent yet,
 * straight from the replication buffer, and frees the blocks nobody
 * needs any more: once per event loop iteration (handleClientsWithPending
 * Writes() calls it before writing clients), not once per command. */
void replicationFlushReplicas(void);

/* The stream (see the top). Event loop only. */
void replicationFeedReplicas(int dictid, robj **argv, int argc);
/* 1 when the stream goes somewhere: a backlog exists (a replica ever
 * attached) and this server is a primary (a replica passes its primary's
 * stream on as it came, so propagation would only be thrown away). While
 * 0, propagation collects nothing and call() pays one branch. */
static inline int replicationStreamIsActive(void) {
    return repl.backlog != NULL && server.primary_host == NULL;
}

/* Turns the link conn, whose handshake and snapshot are done, into the
 * client the primary's stream is executed from, selecting dbid; it
 * becomes repl.primary (owned by the client list, freed like any client)
 * and the link is up. The stream continues from our offset. Event loop;
 * fuzz/fuzz_primary.c calls it with conn NULL. */
client *replicationCreatePrimaryClient(connection *conn, int dbid);

/* Hooks of the client lifecycle (networking.c). */
void replicationFreeClient(client *c);        /* c is a replica or the primary */
/* prepareClientToWrite() for a client with c->repl: 1 if a reply may be
 * queued. 0 for our primary's client (its replies are dropped unless one
 * is forced) and for a replica: its link carries the stream only, so a
 * replica whose command produced a reply is disconnected, as Valkey
 * does ("Replica generated a reply to command ..."). */
int replicationClientMayWrite(client *c);
void replicationPrimaryRead(client *c, size_t len); /* len more bytes in its query buffer */
/* After each command from the primary (processInputBuffer()): counts the
 * bytes it consumed as applied, to be proxied when the pipeline is done
 * (replicationPrimaryProcessed()). Inside a transaction nothing is
 * applied until EXEC: a replica promoted in the middle of one must not
 * have half of it in its history. Inline: it runs for every command of
 * the stream. */
static inline void replicationPrimaryApplied(client *c) {
    if (c->flags & CLIENT_MULTI) return;
    replClientData *d = c->repl;
    long long applied = d->read_reploff - (long long)(sdslen(c->querybuf) - c->qb_pos) - d->reploff;
    if (applied <= 0) return;
    d->reploff += applied;
    d->unfed += applied;
}
void replicationPrimaryProcessed(client *c);  /* replaces the query buffer's trimming */
int replicationPrimaryMustWait(void);         /* 1: leave the primary's stream unprocessed for now */
/* Checks the command parsed into c->argv, c being our primary's client,
 * before it runs (processInputBuffer()): it must exist, have a number of
 * arguments its arity allows, and not be one that changes what the link
 * is (SUBSCRIBE, MONITOR, SYNC, PSYNC, REPLICAOF: replication.c says why).
 * Returns C_OK if so. Otherwise logs it, drops the link
 * (replicationPrimaryStreamBroken()) and returns C_ERR: the command
 * neither runs nor counts into the replication offset. Event loop.
 * Inline: a stream is mostly the same command over and over, so when
 * argv[0] names the command the client ran last (which passed this check,
 * or the link would be gone), compared as processCommand() compares it,
 * only the arity is left to check; a table lookup per command made a
 * replica's SET 15% dearer. */
int replicationCheckPrimaryCommandSlow(client *c);
static inline int replicationCheckPrimaryCommand(client *c) {
    struct serverCommand *last = c->lastcmd;
    if (__builtin_expect(last == NULL || last->parent != NULL || last->subcommands_dict != NULL, 0) ||
        (last->arity > 0 ? last->arity != c->argc : c->argc < -last->arity))
        return replicationCheckPrimaryCommandSlow(c);
    const unsigned char *name = objectGetVal(c->argv[0]), *lname = (const unsigned char *)last->fullname;
    size_t len = sdslen((sds)name), j;
    for (j = 0; j < len && lname[j]; j++) {
        unsigned char ch = name[j];
        if (ch >= 'A' && ch <= 'Z') ch |= 0x20;
        if (ch != lname[j]) break;
    }
    if (__builtin_expect(j != len || lname[j] != '\0', 0)) return replicationCheckPrimaryCommandSlow(c);
    return C_OK;
}
/* Our primary sent bytes that are no command of a replication stream (a
 * protocol error, an inline command, an unknown command or a wrong
 * arity; the caller logged what). Closes the link (asynchronously: c
 * stays valid until the event loop frees it) and forgets the position in
 * the primary's history, so that the next sync is a full one: a partial
 * one would resend the same bytes. The offset stays where the last
 * command applied ends. Event loop. */
void replicationPrimaryStreamBroken(client *c);

/* The backlog (config.c: repl-backlog-size). */
void resizeReplicationBacklog(void);
void refreshGoodReplicasCount(void);
/* Memory of the replication buffer, every block with its header
 * (INFO mem_total_replication_buffers); 0 without a backlog. */
size_t replicationBufferMemory(void);
/* A replica's output buffer as Valkey measures it, for
 * client-output-buffer-limit and CLIENT LIST omem: the blocks it still
 * needs, from the start of the one it is in to the end of the tail, with
 * their headers (it shares them with the backlog and other replicas). */
size_t replicationReplicaOutputMemory(client *c);
/* 1 if min-replicas-to-write refuses writes now. */
int replicationDeniesWrites(void);

/* The method that serves c's full sync (see replSnapshotMethod). */
replSnapshotMethod *replicationSnapshotMethodFor(client *c);
/* For snapshot methods (replication.c and repl_rdma.c). */
int replicasJoinSnapshot(replSnapshotMethod *m, long long offset, int max, client **joined);
void replicaPutOnline(client *c, int wait_first_ack);
char *replicaName(client *c);
const char *replicaStateName(client *r); /* INFO's state=: wait_bgsave, send_bulk, online */

/* REPLCONF ACK <offset> [FACK <aof offset>] to our primary. */
void replicationSendAck(void);
/* WAITAOF (admin.c, aof.c): online replicas whose FACK reached offset;
 * replicationRequestAck asks every replica for an ACK before sleeping. */
long replicationCountAofAcks(long long offset);
void replicationRequestAck(void);
/* c, blocked in WAIT, is being freed. */
void replicationForgetWaitingClient(client *c);


/* Snapshot hooks (snapshot.c, rdb.c). */
void replicationSnapshotDone(int ok);
typedef struct rdbReplInfo {
    int stream_db;
    char replid[CONFIG_RUN_ID_SIZE + 1];
    long long offset;
} rdbReplInfo;
int replicationGetSaveInfo(rdbReplInfo *ri);
void replicationLoadedInfo(const char *key, const char *val);
/* The start-up load of this server's own RDB (snapshot.c), around it.
 * Begin: a primary gets a backlog, into which the loader feeds a DEL for
 * each key that expired while the server was down (RDBFLAGS_FEED_REPL).
 * End (ok: the load succeeded): the point of history the file recorded
 * (repl-id, repl-offset) is taken up. A replica continues it with PSYNC;
 * a primary keeps it as replid2, valid up to that offset, with the DELs
 * after it in the backlog, so that its replicas continue with a partial
 * resync, unless those DELs overflowed repl-backlog-size (then they need
 * a full one), as Valkey does. Without those fields a primary drops the
 * backlog. Event loop, before the server serves anyone. */
void replicationOwnFileLoadBegin(void);
void replicationOwnFileLoadEnd(int ok);

/* INFO replication. */
sds replicationCatInfo(sds info);
/* CONFIG RESETSTAT: the sync counters of INFO stats. */
void replicationResetStats(void);

/* Commands. */
void syncCommand(client *c);
void replconfCommand(client *c);
void replicaofCommand(client *c);
void roleCommand(client *c);
void waitCommand(client *c);
void failoverCommand(client *c);

#endif
