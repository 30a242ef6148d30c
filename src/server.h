/* server.h - the server's core types: objects, clients, databases, the
 * command table and the global `server` state, plus the functions the
 * command implementations share.
 *
 * Leaf libraries (sds, dict, adlist, ae, anet, connection, zmalloc, util,
 * log) never include this header. Transport files see clients only as the
 * opaque private data of a `connection`. Subsystems with state of their own
 * (config, replication later) keep it in their own header where possible;
 * what lives here is what nearly every command needs. */
#ifndef VK_SERVER_H
#define VK_SERVER_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include "adlist.h"
#include "ae.h"
#include "cluster_slot.h"
#include "connection.h"
#include "dict.h"
#include "hashtable.h"
#include "io_threads.h"
#include "kvstore.h"
#include "log.h"
#include "resp.h"
#include "sds.h"
#include "util.h"
#include "zmalloc.h"

#define C_OK 0
#define C_ERR -1

typedef long long mstime_t; /* milliseconds */
typedef long long ustime_t; /* microseconds */

#define VALKEY_VERSION "8.1.1"
#define VALKEY_VERSION_NUM 0x00080101
#define REDIS_COMPAT_VERSION "7.2.4" /* What HELLO/INFO report as redis_version. */

/* ---------------------------------------------------------------------------
 * Static limits and defaults
 * ------------------------------------------------------------------------- */
#define CONFIG_DEFAULT_HZ 10
#define CONFIG_MIN_HZ 1
#define CONFIG_MAX_HZ 500
#define CONFIG_DEFAULT_SERVER_PORT 6379
#define CONFIG_BINDADDR_MAX 16
#define CONFIG_RUN_ID_SIZE 40
#define CONFIG_DEFAULT_DBNUM 16
#define CONFIG_MIN_RESERVED_FDS 32
#define PROTO_IOBUF_LEN (1024 * 16)         /* Generic read size. */
#define PROTO_REPLY_CHUNK_BYTES (16 * 1024) /* Reply block payload size. */
#define PROTO_REPLY_FIRST_BYTES 256        /* First block after a deferred length. */
#define PROTO_REPLY_MIN_BYTES 1024         /* Smallest static reply buffer the cron shrinks to. */
#define REPLY_BUFFER_DEFAULT_PEAK_RESET_TIME 5000 /* ms between resets of a client's reply buffer peak */
#define PROTO_RESIZE_THRESHOLD (1024 * 32) /* Query buffers this big shrink to their recent peak. */
#define PROTO_INLINE_MAX_SIZE (1024 * 64)   /* Max inline request size. */
#ifndef PROTO_MBULK_BIG_ARG /* fuzz/Makefile lowers it to reach big-argument paths with small inputs */
#define PROTO_MBULK_BIG_ARG (1024 * 32)     /* Args this big avoid copies. */
#endif
#define PROTO_SHARED_SELECT_CMDS 10
#define OBJ_SHARED_INTEGERS 10000
#define OBJ_SHARED_BULKHDR_LEN 32
#define NET_IP_STR_LEN 46
#define NET_ADDR_STR_LEN (NET_IP_STR_LEN + 32)
#define NET_HOST_STR_LEN 256
#define NET_HOST_PORT_STR_LEN (NET_HOST_STR_LEN + 32)
#define LONG_STR_SIZE 21
#define MAX_KEYS_BUFFER 256
#define ACTIVE_EXPIRE_CYCLE_KEYS_PER_LOOP 20
#define ACTIVE_EXPIRE_CYCLE_FAST_DURATION 1000 /* microseconds */
#define ACTIVE_EXPIRE_CYCLE_SLOW_TIME_PERC 25
#define ACTIVE_EXPIRE_CYCLE_ACCEPTABLE_STALE 10
#define STATS_METRIC_SAMPLES 16
#define STATS_METRIC_COMMAND 0
#define STATS_METRIC_NET_INPUT 1
#define STATS_METRIC_NET_OUTPUT 2
#define STATS_METRIC_EL_CYCLE 3    /* event loop iterations per second */
#define STATS_METRIC_EL_DURATION 4 /* mean duration of an iteration, usec */
#define STATS_METRIC_NET_INPUT_REPLICATION 5  /* bytes/s read from our primary */
#define STATS_METRIC_NET_OUTPUT_REPLICATION 6 /* bytes/s written to our replicas */
#define STATS_METRIC_COUNT 7
#define EL_DURATION_TYPE_EL 0   /* a whole event loop iteration */
#define EL_DURATION_TYPE_CMD 1  /* top-level commands run in it */
#define EL_DURATION_TYPE_AOF 2  /* flushing the AOF (none yet: stays 0) */
#define EL_DURATION_TYPE_CRON 3 /* serverCron */
#define EL_DURATION_TYPES 4

/* ---------------------------------------------------------------------------
 * Objects
 * ------------------------------------------------------------------------- */
#define OBJ_STRING 0
#define OBJ_LIST 1
#define OBJ_SET 2
#define OBJ_ZSET 3
#define OBJ_HASH 4
#define OBJ_MODULE 5
#define OBJ_STREAM 6
#define OBJ_TYPE_MAX 7

#define OBJ_ENCODING_RAW 0
#define OBJ_ENCODING_INT 1
#define OBJ_ENCODING_HT 2
#define OBJ_ENCODING_INTSET 6
#define OBJ_ENCODING_SKIPLIST 7
#define OBJ_ENCODING_EMBSTR 8
#define OBJ_ENCODING_QUICKLIST 9
#define OBJ_ENCODING_STREAM 10
#define OBJ_ENCODING_LISTPACK 11

#define LRU_BITS 24
#define LRU_CLOCK_MAX ((1 << LRU_BITS) - 1)
#define LRU_CLOCK_RESOLUTION 1000 /* ms */
#define OBJ_REFCOUNT_BITS 30
#define OBJ_SHARED_REFCOUNT ((1 << (OBJ_REFCOUNT_BITS - 1)) - 1) /* refcount is a signed 30-bit field */
#define OBJ_STATIC_REFCOUNT (OBJ_SHARED_REFCOUNT - 1)
#define OBJ_ENCODING_EMBSTR_SIZE_LIMIT 44

/* sanitize-dump-payload */
#define SANITIZE_DUMP_NO 0
#define SANITIZE_DUMP_YES 1
#define SANITIZE_DUMP_CLIENTS 2

/* A value: an 8-byte header, then what the header says follows, in this
 * order:
 *   value     EMBSTR: an sdshdr8, the bytes and a NUL (the value lives
 *             here, so an EMBSTR has no val_ptr); every other encoding:
 *             val_ptr, 8 bytes (an sds, a listpack, a long for INT...);
 *   expire    8 bytes, only when hasexpire (the slot stays once made, -1
 *             meaning no TTL);
 *   key       only when hasembkey (a keyspace entry): one byte giving the
 *             size of the key's sds header, the sds header, the key bytes
 *             and a NUL.
 * Objects outside the keyspace (arguments, replies, shared objects) have
 * neither expire nor key. Read the value with objectGetVal() and write it
 * with objectSetVal(), never the member itself: an EMBSTR's block ends
 * before where val_ptr would be (or holds value bytes there). See object.c
 * "Objects with an embedded key". */
typedef struct serverObject {
    unsigned type : 4;
    unsigned encoding : 4;
    unsigned lru : LRU_BITS; /* LRU clock, or LFU data (16-bit minutes, 8-bit counter). */
    unsigned hasexpire : 1;  /* an expire slot follows the value */
    unsigned hasembkey : 1;  /* a key is embedded (the object is a keyspace entry) */
    int refcount : OBJ_REFCOUNT_BITS;
    void *val_ptr; /* absent for EMBSTR: use objectGetVal()/objectSetVal() */
} robj;
_Static_assert(sizeof(robj) == 16, "robj header is two words");
#define OBJ_HEADER_SIZE offsetof(robj, val_ptr) /* what every object has: 8 bytes */
_Static_assert(OBJ_HEADER_SIZE == 8, "robj header is one word before val_ptr");

/* 1 if o is an EMBSTR string (its value embedded, no val_ptr). Only strings
 * are EMBSTR; testing the type too lets the compiler check both 4-bit
 * fields with one byte compare. */
#define objectIsEmbstr(o) ((o)->type == OBJ_STRING && (o)->encoding == OBJ_ENCODING_EMBSTR)
#define sdsEncodedObject(o) ((o)->encoding == OBJ_ENCODING_RAW || (o)->encoding == OBJ_ENCODING_EMBSTR)

/* ---------------------------------------------------------------------------
 * Databases
 * ------------------------------------------------------------------------- */
typedef struct serverDb {
    kvstore *keys;              /* values (robj *) with their key embedded, by key: one table, or
                                   one per slot in cluster mode (dbKeyIndex()) */
    hashtable *expires;         /* the same robj pointers, for keys with a TTL (time inside the object) */
    dict *blocking_keys;        /* Reserved for blocking commands. */
    int id;
    long long avg_ttl;          /* Average TTL, for INFO keyspace. */
    unsigned long expires_cursor; /* Active expire cycle position. */
} serverDb;

/* Flags to lookupKey*() */
#define LOOKUP_NONE 0
#define LOOKUP_NOTOUCH (1 << 0)  /* Don't update the LRU/LFU data. */
#define LOOKUP_NONOTIFY (1 << 1) /* Don't trigger a keyspace miss event. */
#define LOOKUP_NOSTATS (1 << 2)  /* Don't count hits/misses. */
#define LOOKUP_WRITE (1 << 3)    /* Delete expired keys even on replicas. */
#define LOOKUP_NOEXPIRE (1 << 4) /* Don't delete expired keys. */

/* Flags to setKey() */
#define SETKEY_KEEPTTL 1
#define SETKEY_NO_SIGNAL 2
#define SETKEY_ALREADY_EXIST 4
#define SETKEY_DOESNT_EXIST 8
#define SETKEY_MOVE_ARG 16 /* a RAW string val moves into the keyspace: see setKey() */

#define EMPTYDB_NO_FLAGS 0
#define EMPTYDB_ASYNC (1 << 0)

/* ---------------------------------------------------------------------------
 * Clients
 * ------------------------------------------------------------------------- */
#define CLIENT_REPLICA (1ULL << 0)
#define CLIENT_PRIMARY (1ULL << 1)
#define CLIENT_MONITOR (1ULL << 2)
#define CLIENT_MULTI (1ULL << 3)
#define CLIENT_BLOCKED (1ULL << 4)
#define CLIENT_DIRTY_CAS (1ULL << 5)
#define CLIENT_CLOSE_AFTER_REPLY (1ULL << 6)
#define CLIENT_UNBLOCKED (1ULL << 7)
#define CLIENT_SCRIPT (1ULL << 8)
#define CLIENT_ASKING (1ULL << 9)
#define CLIENT_CLOSE_ASAP (1ULL << 10)
#define CLIENT_UNIX_SOCKET (1ULL << 11)
#define CLIENT_DIRTY_EXEC (1ULL << 12)
#define CLIENT_READONLY (1ULL << 17) /* READONLY: a redirect-capable client reads on this replica (redirect.c) */
#define CLIENT_FORCE_REPL (1ULL << 15)   /* propagate the running command even if it changed nothing */
#define CLIENT_PREVENT_PROP (1ULL << 20) /* don't propagate the running command as itself */
#define CLIENT_PUBSUB (1ULL << 18)
#define CLIENT_PENDING_WRITE (1ULL << 21)
#define CLIENT_REPLY_OFF (1ULL << 22)
#define CLIENT_REPLY_SKIP_NEXT (1ULL << 23)
#define CLIENT_REPLY_SKIP (1ULL << 24)
#define CLIENT_LUA_DEBUG (1ULL << 25)      /* SCRIPT DEBUG YES/SYNC: the next EVAL is debugged (script_debug.c) */
#define CLIENT_LUA_DEBUG_SYNC (1ULL << 26) /* SCRIPT DEBUG SYNC: in this process, keeping its changes */
#define CLIENT_PROTECTED (1ULL << 28)
#define CLIENT_PENDING_COMMAND (1ULL << 30)
#define CLIENT_TRACKING (1ULL << 31)              /* CLIENT TRACKING on (tracking.c) */
#define CLIENT_TRACKING_BROKEN_REDIR (1ULL << 32) /* its redirect target is gone */
#define CLIENT_TRACKING_BCAST (1ULL << 33)
#define CLIENT_TRACKING_OPTIN (1ULL << 34)
#define CLIENT_TRACKING_OPTOUT (1ULL << 35)
#define CLIENT_TRACKING_CACHING (1ULL << 36) /* CLIENT CACHING given for the next command */
#define CLIENT_TRACKING_NOLOOP (1ULL << 37)
#define CLIENT_NO_EVICT (1ULL << 43)
#define CLIENT_NO_TOUCH (1ULL << 45)
#define CLIENT_EXECUTING_COMMAND (1ULL << 47)
#define CLIENT_AUTHENTICATED (1ULL << 48)
#define CLIENT_FAKE (1ULL << 49)
#define CLIENT_PUSHING (1ULL << 50) /* Writing a push reply: CLIENT REPLY OFF/SKIP don't apply. */
#define CLIENT_REJECT_MAXCLIENTS (1ULL << 51) /* Accepted over maxclients: refused with an error. */
#define CLIENT_PRIMARY_FORCE_REPLY (1ULL << 52) /* The primary's client: this reply goes out (REPLCONF ACK). */
#define CLIENT_PRE_PSYNC (1ULL << 53)           /* A replica that asked with SYNC: no +FULLRESYNC line. */
#define CLIENT_SHUTDOWN_WAIT (1ULL << 57)       /* Its SHUTDOWN waits for lagging replicas (with CLIENT_BLOCKED). */
/* An I/O thread has a job of this client (io_threads.c): its buffers and
 * connection are the thread's until the main thread collects the job.
 * Main thread only, like every flag here. */
#define CLIENT_IO_PENDING_FLAG (1ULL << 54)

/* Client capabilities (CLIENT CAPA, c->capa). */
#define CLIENT_CAPA_REDIRECT (1 << 0) /* follows -REDIRECT from a standalone replica */

#define PROTO_REQ_INLINE 1
#define PROTO_REQ_MULTIBULK 2

/* Output buffer limit classes (client-output-buffer-limit). */
#define CLIENT_TYPE_NORMAL 0
#define CLIENT_TYPE_REPLICA 1
#define CLIENT_TYPE_PUBSUB 2
#define CLIENT_TYPE_PRIMARY 3
#define CLIENT_TYPE_COUNT 4
#define CLIENT_TYPE_OBUF_COUNT 3

typedef struct clientBufferLimitsConfig {
    unsigned long long hard_limit_bytes;
    unsigned long long soft_limit_bytes;
    time_t soft_limit_seconds;
} clientBufferLimitsConfig;

/* One block of the reply list, used once the static buffer is full. */
typedef struct clientReplyBlock {
    size_t size, used;
    char buf[];
} clientReplyBlock;

/* Short argument objects a client keeps for reuse, so that the command
 * name and key of the next request need no allocation. */
#define CLIENT_SPARE_ARGS 4

typedef struct client {
    uint64_t id;
    connection *conn;
    int resp;                   /* RESP protocol version: 2 or 3. */
    serverDb *db;
    robj *name;                 /* CLIENT SETNAME, or NULL. */
    robj *lib_name, *lib_ver;   /* CLIENT SETINFO. */
    int capa;                   /* CLIENT CAPA: CLIENT_CAPA_* bits (redirect.c) */
    sds querybuf;               /* Bytes read and not yet parsed. */
    size_t qb_pos;              /* How far querybuf has been parsed. */
    size_t querybuf_peak;
    int argc;
    robj **argv;
    int argv_len;               /* Allocated slots in argv. */
    size_t argv_len_sum;        /* Bytes in argv, for memory accounting. */
    /* The arguments as sent, kept once the running command rewrites argv
     * for propagation (SLOWLOG shows these); NULL otherwise. */
    robj **original_argv;
    int original_argc;
    long long duration;          /* usec the current command ran so far: call() sums the runs of a
                                    command blocked on keys and accounts for it when it completes */
    /* Argument objects kept for the next request (networking.c): EMBSTR
     * strings nothing else referenced when their command ended. */
    robj *spare_args[CLIENT_SPARE_ARGS];
    int spare_argc;
    struct serverCommand *cmd, *lastcmd, *realcmd;
    int reqtype;
    respMultibulkParser mb;     /* Multibulk parsing state (resp.h): args_left, bulklen. */
    list *reply;                /* clientReplyBlock list after buf fills. */
    unsigned long long reply_bytes; /* Bytes in the reply list. */
    size_t sentlen;             /* Bytes of the current buf/block already sent. */
    time_t ctime;
    time_t lastinteraction;
    time_t obuf_soft_limit_reached_time;
    uint64_t flags;
    int authenticated;
    struct user *user;          /* acl.c: the user it runs as; NULL = the server's own client (no checks) */
    long long woff;
    long long aof_woff;         /* WAITAOF: AOF bytes (aofWrittenOffset) that must be fsynced */
    listNode *client_list_node;       /* Node in server.clients. */
    listNode *pending_write_node;     /* &pending_write_link while in server.clients_pending_write, else NULL. */
    listNode pending_write_link;      /* Embedded, so queueing for write allocates nothing. */
    size_t mem_counted;         /* This client's share of server.clients_mem (evict_clients.c). */
    uint64_t tracking_redirect; /* CLIENT TRACKING REDIRECT id, 0 for none (tracking.c) */
    dict *tracking_prefixes;    /* BCAST prefixes (sds), NULL if none */
    unsigned long long net_input_bytes, net_output_bytes, commands_processed;
    /* Blocking state (CLIENT PAUSE, blocking commands later). */
    mstime_t bstate_timeout;
    struct blockingState *bstate; /* blocked.c: keys of a blocking command, or NULL */
    struct clientPubsubState *pubsub; /* pubsub.c: subscriptions, NULL if none yet */
    struct clientMultiState *mstate;  /* multi.c: MULTI queue and WATCHed keys, or NULL */
    /* Reply buffer: replies go here first, then into `reply` blocks. */
    size_t bufpos;
    size_t buf_usable_size;
    char *buf;
    size_t buf_peak;                  /* Most of buf used since the last reset (rbp). */
    mstime_t buf_peak_last_reset_time; /* clientsCron resets buf_peak every 5 s. */
    struct replClientData *repl;      /* replication.h: replicas and the primary's client, else NULL */
    clientIO io;                      /* io_threads.h: hand-over to an I/O thread */
} client;

/* ---------------------------------------------------------------------------
 * Commands
 * ------------------------------------------------------------------------- */
#define CMD_WRITE (1ULL << 0)
#define CMD_READONLY (1ULL << 1)
#define CMD_DENYOOM (1ULL << 2)
#define CMD_MODULE (1ULL << 3)
#define CMD_ADMIN (1ULL << 4)
#define CMD_PUBSUB (1ULL << 5)
#define CMD_NOSCRIPT (1ULL << 6)
#define CMD_BLOCKING (1ULL << 8)
#define CMD_LOADING (1ULL << 9)
#define CMD_STALE (1ULL << 10)
#define CMD_SKIP_MONITOR (1ULL << 11)
#define CMD_SKIP_SLOWLOG (1ULL << 12)
#define CMD_ASKING (1ULL << 13)
#define CMD_FAST (1ULL << 14)
#define CMD_NO_AUTH (1ULL << 15)
#define CMD_MAY_REPLICATE (1ULL << 16)
#define CMD_SENTINEL (1ULL << 17)
#define CMD_ONLY_SENTINEL (1ULL << 18)
#define CMD_NO_MANDATORY_KEYS (1ULL << 19)
#define CMD_PROTECTED (1ULL << 20)
#define CMD_MODULE_GETKEYS (1ULL << 21)
#define CMD_MODULE_NO_CLUSTER (1ULL << 22)
#define CMD_NO_ASYNC_LOADING (1ULL << 23)
#define CMD_NO_MULTI (1ULL << 24)
#define CMD_MOVABLE_KEYS (1ULL << 25)
#define CMD_ALLOW_BUSY (1ULL << 26)
#define CMD_TOUCHES_ARBITRARY_KEYS (1ULL << 28)

/* ACL categories, reported by COMMAND INFO. */
#define ACL_CATEGORY_KEYSPACE (1ULL << 0)
#define ACL_CATEGORY_READ (1ULL << 1)
#define ACL_CATEGORY_WRITE (1ULL << 2)
#define ACL_CATEGORY_SET (1ULL << 3)
#define ACL_CATEGORY_SORTEDSET (1ULL << 4)
#define ACL_CATEGORY_LIST (1ULL << 5)
#define ACL_CATEGORY_HASH (1ULL << 6)
#define ACL_CATEGORY_STRING (1ULL << 7)
#define ACL_CATEGORY_BITMAP (1ULL << 8)
#define ACL_CATEGORY_HYPERLOGLOG (1ULL << 9)
#define ACL_CATEGORY_GEO (1ULL << 10)
#define ACL_CATEGORY_STREAM (1ULL << 11)
#define ACL_CATEGORY_PUBSUB (1ULL << 12)
#define ACL_CATEGORY_ADMIN (1ULL << 13)
#define ACL_CATEGORY_FAST (1ULL << 14)
#define ACL_CATEGORY_SLOW (1ULL << 15)
#define ACL_CATEGORY_BLOCKING (1ULL << 16)
#define ACL_CATEGORY_DANGEROUS (1ULL << 17)
#define ACL_CATEGORY_CONNECTION (1ULL << 18)
#define ACL_CATEGORY_TRANSACTION (1ULL << 19)
#define ACL_CATEGORY_SCRIPTING (1ULL << 20)

typedef void serverCommandProc(client *c);

/* Where a command's keys are: the classic (first, last, step) triple, with
 * last = -1 meaning "up to the last argument", -2 the one before, etc. A
 * command whose keys cannot be found this way sets CMD_MOVABLE_KEYS and a
 * getkeys_proc. */
typedef struct keyPositions {
    int first, last, step;
} keyPositions;

typedef int serverGetKeysProc(struct serverCommand *cmd, robj **argv, int argc, int *keys, int maxkeys);

/* One row of the command table. Each t_*.c / subsystem file declares an
 * array of these (terminated by a row with name NULL) and commands.c lists
 * the arrays; the dictionary server.commands is built from them at start. */
struct serverCommand {
    const char *name;           /* Lower-case command name ("get"). */
    serverCommandProc *proc;
    int arity;                  /* N = exactly N args; -N = at least N. */
    uint64_t flags;             /* CMD_* */
    uint64_t acl_categories;    /* ACL_CATEGORY_* beyond those implied by flags. */
    keyPositions key;
    serverGetKeysProc *getkeys_proc;
    const char *group;          /* "string", "generic", "server", ... */
    const char *summary;
    const char *since;
    const char *complexity;
    struct serverCommand *subcommands; /* Array terminated by name NULL. */
    const char *args;           /* Argument syntax, "key value [NX | XX]" (notation in cmdargs.h); NULL = none. */
    /* Filled at run time. */
    struct cmdArg *arglist;     /* args parsed at start-up (commandParseAllArgs), for COMMAND DOCS. */
    int numargs;
    struct keySpecDesc *key_spec_list; /* Valkey's key specs, parsed at start-up (cmdinfo.c), for COMMAND INFO. */
    int num_key_specs;
    const char *tips;           /* Space-separated COMMAND INFO tips, or NULL (cmdinfo.c). */
    sds fullname;               /* "config|get" for subcommands. */
    struct serverCommand *parent;
    dict *subcommands_dict;
    long long microseconds, calls, rejected_calls, failed_calls;
    void *latency_histogram;    /* latency.c's histogram of this command, or NULL. */
    int id;
};

/* ---------------------------------------------------------------------------
 * Shared objects: replies built once and referenced from every client.
 * ------------------------------------------------------------------------- */
/* Why clients are paused. Each purpose has its own end and mode; the
 * pause in effect is their union (networking.c). */
typedef enum {
    PAUSE_BY_CLIENT_COMMAND = 0, /* CLIENT PAUSE, until CLIENT UNPAUSE or its timeout */
    PAUSE_DURING_SHUTDOWN,       /* a shutdown waits for lagging replicas (writes) */
    PAUSE_DURING_FAILOVER,       /* FAILOVER waits for a replica to catch up (writes) */
    PAUSE_PURPOSES
} pausePurpose;

struct sharedObjectsStruct {
    robj *redacted; /* "(redacted)": SLOWLOG's stand-in for a secret */
    robj *crlf, *ok, *err, *emptybulk, *czero, *cone, *pong, *space, *queued, *null[4], *nullarray[4],
        *emptymap[4], *emptyset[4], *emptyarray, *wrongtypeerr, *nokeyerr, *syntaxerr, *sameobjecterr,
        *outofrangeerr, *noscripterr, *loadingerr, *slowevalerr, *slowscripterr, *bgsaveerr, *oomerr,
        *execaborterr, *noautherr, *noreplicaserr, *roreplicaerr, *primarydownerr, *busykeyerr, *colon, *minstring, *maxstring, *del, *unlink,
        *rpop, *lpop, *lpush, *persist, *set, *pexpireat, *keepttl, *absttl, *px, *ex, *select[PROTO_SHARED_SELECT_CMDS],
        *integers[OBJ_SHARED_INTEGERS], *mbulkhdr[OBJ_SHARED_BULKHDR_LEN], *bulkhdr[OBJ_SHARED_BULKHDR_LEN],
        *maphdr[OBJ_SHARED_BULKHDR_LEN], *sethdr[OBJ_SHARED_BULKHDR_LEN];
};
extern struct sharedObjectsStruct shared;

/* ---------------------------------------------------------------------------
 * Eviction policies (maxmemory-policy)
 * ------------------------------------------------------------------------- */
#define MAXMEMORY_FLAG_LRU (1 << 0)
#define MAXMEMORY_FLAG_LFU (1 << 1)
#define MAXMEMORY_FLAG_ALLKEYS (1 << 2)
#define MAXMEMORY_VOLATILE_LRU ((0 << 8) | MAXMEMORY_FLAG_LRU)
#define MAXMEMORY_VOLATILE_LFU ((1 << 8) | MAXMEMORY_FLAG_LFU)
#define MAXMEMORY_VOLATILE_TTL (2 << 8)
#define MAXMEMORY_VOLATILE_RANDOM (3 << 8)
#define MAXMEMORY_ALLKEYS_LRU ((4 << 8) | MAXMEMORY_FLAG_LRU | MAXMEMORY_FLAG_ALLKEYS)
#define MAXMEMORY_ALLKEYS_LFU ((5 << 8) | MAXMEMORY_FLAG_LFU | MAXMEMORY_FLAG_ALLKEYS)
#define MAXMEMORY_ALLKEYS_RANDOM ((6 << 8) | MAXMEMORY_FLAG_ALLKEYS)
#define MAXMEMORY_NO_EVICTION (7 << 8)

/* ---------------------------------------------------------------------------
 * Global server state
 * ------------------------------------------------------------------------- */
#define CONN_TYPE_SOCKET 0
#define CONN_TYPE_UNIX 1
#define CONN_TYPE_TLS 2
#define CONN_TYPE_RDMA 3
#define CONN_TYPE_MAX 4

struct valkeyServer {
    /* General */
    pid_t pid;
    char *executable;           /* Absolute path of the binary. */
    char *configfile;           /* Absolute config file path, or NULL. */
    char **exec_argv;
    int hz;
    int dynamic_hz;
    int config_hz;
    serverDb *db;
    dict *commands;             /* name -> struct serverCommand* */
    dict *orig_commands;
    aeEventLoop *el;
    _Atomic unsigned int lru_clock;
    volatile int shutdown_asap;
    int shutdown_flags;
    int cronloops;
    char runid[CONFIG_RUN_ID_SIZE + 1];
    int sentinel_mode;
    time_t timezone;
    int daylight_active;
    mstime_t mstime;            /* Cached time, updated per command / cron. */
    ustime_t ustime;
    ustime_t pipeline_clock;    /* processInputBuffer(): 0 off, -1 armed, >0 end of the last command. */
    time_t unixtime;
    long long monotonic_start;
    size_t initial_memory_usage;
    int in_exec, in_script;
    int busy_module_yield_flags;

    /* Networking */
    int port;
    int tcp_backlog;
    char *bindaddr[CONFIG_BINDADDR_MAX];
    int bindaddr_count;
    char *unixsocket;
    unsigned int unixsocketperm;
    connListener listeners[CONN_TYPE_MAX];
    int protected_mode;
    list *clients;
    dict *clients_index;        /* id -> client, for lookupClientByID() */
    unsigned long tracking_clients; /* clients with CLIENT TRACKING on */
    unsigned long long tracking_table_max_keys;
    list *clients_to_close;
    list *clients_pending_write;
    list *monitors;
    client *current_client;
    client *executing_client;
    uint64_t next_client_id;
    unsigned int maxclients;
    int maxidletime;            /* timeout, seconds */
    int tcpkeepalive;
    unsigned long long client_max_querybuf_len;
    long long proto_max_bulk_len;
    clientBufferLimitsConfig client_obuf_limits[CLIENT_TYPE_OBUF_COUNT];
    int io_threads_num;
    mstime_t pause_end[PAUSE_PURPOSES];    /* per purpose: when it ends, 0 = not paused (networking.c) */
    int pause_write_only[PAUSE_PURPOSES];  /* per purpose: writes only (WRITE) or everything (ALL) */
    mstime_t client_pause_end_time;        /* latest end of the pauses in effect, 0 = none */
    int client_pause_write_only;           /* every pause in effect holds writes only */
    list *paused_clients;

    /* Limits / memory */
    unsigned long long maxmemory;
    int maxmemory_policy;
    int maxmemory_samples;
    int maxmemory_eviction_tenacity;
    long long maxmemory_clients; /* bytes; negative: percent of maxmemory; 0: off */
    size_t clients_mem;          /* Memory of normal and pub/sub clients while maxmemory-clients is set. */
    int lfu_log_factor;
    int lfu_decay_time;
    int lazyfree_lazy_eviction, lazyfree_lazy_expire, lazyfree_lazy_server_del, lazyfree_lazy_user_del,
        lazyfree_lazy_user_flush;
    int active_expire_enabled;
    int active_expire_effort;
    long long busy_poll_us; /* event-loop-busy-poll: ae.c busy-poll budget, 0 = off */
    size_t stat_peak_memory;
    long long stat_peak_memory_time;
    /* Encoding thresholds of small sets and hashes (t_set.c, t_hash.c). */
    unsigned long set_max_intset_entries, set_max_listpack_entries, set_max_listpack_value;
    unsigned long hash_max_listpack_entries, hash_max_listpack_value;
    unsigned long zset_max_listpack_entries, zset_max_listpack_value; /* t_zset.c */
    unsigned long hll_sparse_max_bytes; /* hyperloglog.c: sparse HLLs longer than this become dense */

    /* Databases */
    int dbnum;
    long long dirty;
    long long dirty_before_bgsave;
    time_t lastsave;
    int lastbgsave_status;
    time_t rdb_save_time_start;

    /* Logging / process */
    char *logfile;
    int verbosity;
    int syslog_enabled;
    char *syslog_ident;
    int daemonize;
    int supervised;
    char *pidfile;
    char *dir_config;           /* Only for CONFIG GET; the cwd is the truth. */
    char *requirepass;          /* sds, or NULL */
    int crashlog_enabled;
    int set_proc_title;
    int enable_debug_cmd;
    int enable_protected_configs;
    int latency_tracking_enabled;
    char *latency_tracking_info_percentiles_str;
    long long slowlog_log_slower_than;
    unsigned long slowlog_max_len;
    long long latency_monitor_threshold;
    long long busy_reply_threshold; /* lua-time-limit / busy-reply-threshold, ms */

    /* Slowlog */
    list *slowlog;
    long long slowlog_entry_id;

    /* Stats */
    time_t stat_starttime;
    long long stat_numcommands;
    long long stat_numconnections;
    long long stat_auth_failures; /* INFO acl_access_denied_auth */
    long long stat_expiredkeys;
    double stat_expired_stale_perc;
    long long stat_expired_time_cap_reached_count;
    long long stat_evictedkeys;
    long long stat_evictedclients;
    long long stat_keyspace_hits;
    long long stat_keyspace_misses;
    long long stat_rejected_conn;
    long long stat_net_input_bytes;
    long long stat_net_output_bytes;
    long long stat_net_repl_input_bytes;  /* replication stream and snapshots received */
    long long stat_net_repl_output_bytes; /* snapshots sent (the stream counts as output) */
    long long stat_unexpected_error_replies;
    long long stat_total_error_replies;
    long long stat_dump_payload_sanitizations;
    long long stat_client_qbuf_limit_disconnections;
    long long stat_client_outbuf_limit_disconnections;
    long long stat_total_reads_processed, stat_total_writes_processed;
    long long stat_expire_cycle_time_used;
    long long stat_total_eviction_exceeded_time;
    dict *errors;               /* error prefix -> count, for INFO errorstats */
    long long stat_evictedscripts;
    long long stat_reply_buffer_shrinks, stat_reply_buffer_expands; /* clients cron resizing (networking.c) */
    mstime_t reply_buffer_peak_reset_time; /* DEBUG REPLYBUFFER PEAK-RESET-TIME; -1 never */
    int reply_buffer_resizing_enabled;     /* DEBUG REPLYBUFFER RESIZING */
    int pause_cron;                        /* DEBUG PAUSE-CRON: serverCron does nothing */
    int script_disable_deny_script;        /* DEBUG SET-DISABLE-DENY-SCRIPTS: scripts may run noscript commands */
    /* Instantaneous metrics (ops/sec etc.) */
    struct {
        long long last_sample_base, last_sample_value;
        long long samples[STATS_METRIC_SAMPLES];
        int idx;
    } inst_metric[STATS_METRIC_COUNT];
    /* Event loop timings (INFO stats eventloop_*, INFO debug): iterations,
     * and per kind the sum and maximum of durations in usec (server.c). */
    struct {
        unsigned long long cnt, sum, max;
    } el_duration[EL_DURATION_TYPES];
    long long el_cmd_per_cycle_max; /* most commands run in one iteration */
    long long el_start_us;          /* aeMonotonicUs() at the iteration's start (afterSleep) */
    long long el_start_cmds;        /* stat_numcommands then */

    /* Replication: where this server's history stands (replication.c
     * keeps the rest of its state in replication.h's `repl`). */
    char *primary_host;             /* replicaof host, NULL on a primary */
    int primary_port;
    char replid[CONFIG_RUN_ID_SIZE + 1];   /* the history this dataset belongs to */
    long long primary_repl_offset;         /* bytes of that history in this dataset */
    /* Replication options (config.c) */
    int repl_serve_stale_data;      /* replica-serve-stale-data */
    int repl_replica_ro;            /* replica-read-only */
    int repl_diskless_sync;         /* repl-diskless-sync */
    int repl_rdma_snapshot;         /* repl-rdma-snapshot: RDMA replicas READ a snapshot region */
    long long repl_rdma_snapshot_buffer; /* repl-rdma-snapshot-buffer: the region's size, bytes */
    int repl_diskless_sync_delay;   /* repl-diskless-sync-delay, seconds */
    int repl_diskless_sync_max_replicas; /* repl-diskless-sync-max-replicas */
    int repl_diskless_load;         /* repl-diskless-load: REPL_DISKLESS_LOAD_* */
    long long repl_backlog_size;    /* repl-backlog-size */
    long long repl_backlog_time_limit; /* repl-backlog-ttl, seconds */
    int repl_timeout;               /* repl-timeout, seconds */
    int repl_ping_replica_period;   /* repl-ping-replica-period, seconds */
    int repl_disable_tcp_nodelay;   /* repl-disable-tcp-nodelay */
    int repl_min_replicas_to_write; /* min-replicas-to-write */
    int repl_min_replicas_max_lag;  /* min-replicas-max-lag, seconds */
    char *primary_auth;             /* primaryauth / masterauth (sds or NULL) */
    char *primary_user;             /* primaryuser / masteruser */
    char *replica_announce_ip;      /* replica-announce-ip */
    int replica_announce_port;      /* replica-announce-port */
    int replica_priority;           /* replica-priority */
    int replica_announced;          /* replica-announced */
    int repl_replica_lazy_flush;    /* replica-lazy-flush */

    /* Transports */
    int tls_port;
    int rdma_port;
    char *rdma_bindaddr[CONFIG_BINDADDR_MAX];
    int rdma_bindaddr_count;
    int rdma_rx_size;
    int rdma_comp_vector;
    int shm_enabled;   /* shm-enabled: Unix-socket clients may upgrade to shared memory */
    int shm_ring_size; /* shm-ring-size: bytes of each ring (a power of two) */
    int shm_spin_us;   /* shm-spin-us: polling before sleeping on a doorbell */

    /* ---- Fields added for config.c (see src/config.h for their types) ---- */
    int notify_keyspace_events;     /* NOTIFY_* flags (notify-keyspace-events). */
    struct saveparam *saveparams;   /* save rules, zmalloc'ed array; NULL if none. */
    int saveparamslen;
    int aof_enabled;                /* appendonly */
    char *rdb_filename;             /* dbfilename */
    /* RDB persistence (rdb.c, rdb_object.c, and the snapshot machinery) */
    int rdb_compression;            /* rdbcompression: LZF for strings > 20 bytes */
    int rdb_checksum;               /* rdbchecksum: CRC-64 trailer written and checked */
    int rdb_del_sync_files;         /* rdb-del-sync-files */
    int rdb_save_incremental_fsync; /* rdb-save-incremental-fsync */
    int stop_writes_on_bgsave_err;  /* stop-writes-on-bgsave-error */
    int sanitize_dump_payload;      /* sanitize-dump-payload: SANITIZE_DUMP_* */
    int rdb_key_save_delay;         /* rdb-key-save-delay (debug): microseconds per key saved */
    int key_load_delay;             /* key-load-delay (debug): microseconds per key loaded */
    char *tls_cert_file, *tls_key_file, *tls_ca_cert_file, *tls_ca_cert_dir;
    int tls_auth_clients;           /* TLS_CLIENT_AUTH_* */
    char *tls_protocols, *tls_ciphers, *tls_ciphersuites;
    int tls_prefer_server_ciphers;
    int tls_replication;
    int rdma_replication; /* rdma-replication: the link to the primary is RDMA. */
    int loading;                    /* 1 while a dataset is loading (DENY_LOADING configs). */
    int async_loading;              /* ... into databases set aside while clients keep using the
                                       server's (snapshot.c): only no-async-loading commands get
                                       -LOADING. loading is 1 too. */
    int list_max_listpack_size;     /* list-max-listpack-size (t_list.c, quicklist fill) */
    int list_compress_depth;        /* list-compress-depth (stored, no effect yet) */
    long long stream_node_max_bytes;   /* stream-node-max-bytes (t_stream.c) */
    long long stream_node_max_entries; /* stream-node-max-entries (t_stream.c) */
    /* Issue 20: the rest of Valkey 8.0's valkey.conf. Fields keep the names
     * Valkey's server struct gives them. */
    int always_show_logo;           /* always-show-logo: ASCII logo even when not on a TTY */
    int hide_user_data_from_log;    /* hide-user-data-from-log */
    int enable_debug_assert;        /* enable-debug-assert (debug) */
    int enable_module_cmd;          /* enable-module-command: PROTECTED_ACTION_ALLOWED_* */
    int propagation_error_behavior; /* PROPAGATION_ERR_BEHAVIOR_* */
    int shutdown_on_sigterm;        /* SHUTDOWN_* flags; SHUTDOWN_NOFLAGS is "default" */
    int shutdown_on_sigint;
    int shutdown_timeout;           /* shutdown-timeout, seconds */
    int watchdog_period;            /* watchdog-period, ms; 0 = no software watchdog (debug.c) */
    char *proc_title_template;      /* proc-title-template */
    char *locale_collate;           /* locale-collate ("" : from the environment) */
    int extended_redis_compat;      /* extended-redis-compatibility */
    char *unixsocketgroup;          /* unixsocketgroup: group owning the Unix socket */
    char *bind_source_addr;         /* bind-source-addr (outgoing connections) */
    unsigned int socket_mark_id;    /* socket-mark-id */
    int oom_score_adj;              /* oom-score-adj: OOM_SCORE_* */
    int oom_score_adj_values[3];    /* CONFIG_OOM_COUNT: primary, replica, background child */
    int oom_score_adj_base;         /* /proc/self/oom_score_adj when we started */
    int disable_thp;                /* disable-thp */
    int jemalloc_bg_thread;         /* jemalloc-bg-thread */
    int active_rehashing;           /* activerehashing */
    int active_defrag_enabled;      /* activedefrag (defrag.c; refused when malloc is not jemalloc) */
    unsigned long long active_defrag_ignore_bytes;
    int active_defrag_threshold_lower, active_defrag_threshold_upper;
    int active_defrag_cycle_min, active_defrag_cycle_max;
    unsigned long active_defrag_max_scan_fields;
    int max_new_conns_per_cycle, max_new_tls_conns_per_cycle;
    long long loading_process_events_interval_bytes;
    int io_threads_do_reads;        /* io-threads-do-reads (deprecated, kept) */
    char *server_cpulist, *bio_cpulist, *aof_rewrite_cpulist, *bgsave_cpulist;
    char *ignore_warnings;
    char *availability_zone;
    int syslog_facility;            /* LOG_LOCAL0 ... */
    int crashlog_memcheck_enabled;  /* crash-memcheck-enabled */
    /* Security (ACLs come later: stored) */
    unsigned long acllog_max_len;
    char *acl_filename;
    int acl_pubsub_default;         /* ACL_PUBSUB_* */
    /* TLS extras (stored for the TLS context) */
    char *tls_key_file_pass, *tls_client_cert_file, *tls_client_key_file, *tls_client_key_file_pass;
    char *tls_dh_params_file;
    int tls_cluster, tls_session_caching, tls_session_cache_size, tls_session_cache_timeout;
    /* AOF (stored and reported; appendonly yes is refused until AOF exists) */
    char *aof_filename, *aof_dirname;
    int aof_fsync;                  /* AOF_FSYNC_* */
    int aof_no_fsync_on_rewrite;
    int aof_rewrite_perc;
    long long aof_rewrite_min_size;
    int aof_load_truncated, aof_use_rdb_preamble, aof_timestamp_enabled, aof_rewrite_incremental_fsync;
    int aof_disable_auto_gc;        /* aof-disable-auto-gc (debug) */
    /* Replication options replication.c does not use yet (stored) */
    int dual_channel_replication;   /* dual-channel-replication-enabled */
    int repl_ignore_disk_write_error; /* replica-ignore-disk-write-errors */
    int repl_replica_ignore_maxmemory; /* replica-ignore-maxmemory */
    /* Cluster (cluster.h; the state exists only with cluster-enabled yes) */
    struct clusterState *cluster;
    int cluster_enabled;
    char *cluster_configfile;
    long long cluster_node_timeout;
    int cluster_port, cluster_replica_validity_factor, cluster_migration_barrier;
    int cluster_allow_replica_migration, cluster_require_full_coverage, cluster_replica_no_failover;
    int cluster_allow_reads_when_down, cluster_allow_pubsubshard_when_down;
    unsigned long long cluster_link_msg_queue_limit_bytes;
    char *cluster_announce_hostname, *cluster_announce_human_nodename, *cluster_announce_ip;
    int cluster_preferred_endpoint_type;
    int cluster_announce_port, cluster_announce_bus_port, cluster_announce_tls_port;
    int cluster_slot_stats_enabled;
    unsigned long cluster_blacklist_ttl;
    long long cluster_ping_interval; /* cluster-ping-interval (hidden, stored) */
    char *cluster_announce_client_ipv4, *cluster_announce_client_ipv6;
    int prefetch_batch_max_size;    /* prefetch-batch-max-size (stored) */
    /* Hidden directives of Valkey's test suite */
    int use_exit_on_panic;          /* use-exit-on-panic: a crash report ends in _exit(1) */
    int events_per_io_thread;       /* events-per-io-thread (stored) */
    /* ---- end of config.c fields ---- */
};

extern struct valkeyServer server;

/* ---------------------------------------------------------------------------
 * Function prototypes, by the file that defines them
 * ------------------------------------------------------------------------- */

/* server.c */
void initServerEmbedded(void);
void call(client *c, int flags);
int processCommand(client *c);
/* The CMD_* flags c's command is admitted by: c->cmd->flags, except that
 * EVAL* and FCALL* take theirs from the flags the script or function
 * declares (a shebang, register_function's flags): one without no-writes
 * counts as CMD_WRITE (and CMD_DENYOOM unless allow-oom), one with
 * allow-stale as CMD_STALE. Event loop; c->cmd must be set. */
uint64_t getCommandFlags(client *c);
/* 1 when this server is a replica whose link to its primary is not up and
 * replica-serve-stale-data is no: clients get MASTERDOWN. */
int serverIsStaleReplica(void);
struct serverCommand *lookupCommand(robj **argv, int argc);
/* What lookupCommandCheckArity() found (see server.c). */
#define CMD_LOOKUP_OK 0
#define CMD_LOOKUP_UNKNOWN 1
#define CMD_LOOKUP_WRONG_ARITY 2
int lookupCommandCheckArity(robj **argv, int argc, struct serverCommand **cmd);
struct serverCommand *lookupCommandBySds(sds s);
mstime_t commandTimeSnapshot(void);
void updateCachedTime(int update_daylight_info);
void updatePeakMemory(void);
unsigned int getLRUClock(void);
unsigned int LRU_CLOCK(void);
int prepareForShutdown(int flags);
int finishShutdown(void);
int isShutdownInitiated(void);          /* a shutdown waits for lagging replicas */
mstime_t shutdownMillisecondsLeft(void); /* ... until this many ms from now at most */
int abortShutdown(void);                /* SHUTDOWN ABORT: C_ERR if none to abort */
void blockClientOnShutdown(client *c);  /* c's SHUTDOWN waits with the shutdown */
int setOOMScoreAdj(int process_class);
void serverSetProcTitle(const char *title);

/* startup.c */
void logStartupBanner(void);
void applyProcessSettings(void);
int applyUnixSocketGroup(void);
int applySocketMark(connListener *listener);
int cpuListIsValid(const char *cpulist);
void setCpuAffinity(const char *cpulist);

/* module.c */
int moduleCommandAllowed(client *c);
void serverPopulateCommandTable(void);
int isInsideYieldingLongCommand(void);
void bytesToHuman(char *s, size_t size, unsigned long long n);
sds genValkeyInfoString(dict *section_dict, int all_sections, int everything);
void durationAddSample(int type, unsigned long long duration);
#define ERR_REPLY_FLAG_NO_STATS_UPDATE (1 << 0) /* afterErrorReply: the error was counted already */
#define ERR_REPLY_FLAG_CUSTOM (1 << 1)          /* afterErrorReply: a code a script chose (ERRORSTATS_OVERFLOW) */
void afterErrorReply(client *c, const char *s, size_t len, int flags);
void resetCommandTableStats(dict *commands);
void resetServerStats(void);
void serverLogObjectDebugInfo(const robj *o);
long long getInstantaneousMetric(int metric);
void trackInstantaneousMetric(int metric, long long current_value, long long current_base, long long factor);
#define CALL_NONE 0
#define CALL_SLOWLOG (1 << 0)
#define CALL_STATS (1 << 1)
#define CALL_FULL (CALL_SLOWLOG | CALL_STATS)
#define CALL_REPROCESSING (1 << 2) /* a command blocked on keys runs again: MONITOR showed it already */
#define SHUTDOWN_NOFLAGS 0
#define SHUTDOWN_SAVE 1
#define SHUTDOWN_NOSAVE 2
#define SHUTDOWN_NOW 4
#define SHUTDOWN_FORCE 8

/* server.c: dict callbacks for sds keys, shared by every subsystem. */
uint64_t dictSdsHash(const void *key);
uint64_t dictSdsCaseHash(const void *key);
int dictSdsKeyCompare(const void *k1, const void *k2);
int dictSdsKeyCaseCompare(const void *k1, const void *k2);
void dictSdsDestructor(void *val);

/* commands.c */
extern struct serverCommand *serverCommandTables[];
int commandCheckArity(struct serverCommand *cmd, int argc, sds *err);
int getKeysFromCommand(struct serverCommand *cmd, robj **argv, int argc, int *keys, int maxkeys);
void commandParseAllArgs(void); /* cmdinfo.c: exits on a bad .args string */
uint64_t commandGetAclCategories(struct serverCommand *cmd);
uint64_t aclCategoryByName(const char *name);
int aclCategoryAt(int j, uint64_t *bit, const char **name);
const char *commandKeySpecFlagsOf(struct serverCommand *cmd, int which);
const char *commandKeyFlagsForArgv(struct serverCommand *cmd, robj **argv, int argc, int idx);

/* networking.c */
client *createClient(connection *conn);
void freeClient(client *c);
void freeClientAsync(client *c);
void freeClientsInAsyncFreeQueue(void);
void resetClient(client *c);
void freeClientArgv(client *c);
void clientAcceptHandler(connection *conn);
void acceptCommonHandler(connection *conn, int flags, const char *ip);
void readQueryFromClient(connection *conn);
void processInputBuffer(client *c);
int clientHasUnprocessedInput(client *c);
int parseClientRequest(client *c);
int handleClientsWithPendingWrites(void);
int writeToClient(client *c, int handler_installed);
int clientHasPendingReplies(client *c);
int prepareClientToWrite(client *c);
void prepareClientToWriteQueue(client *c);
void addReply(client *c, robj *obj);
void addReplySds(client *c, sds s);
void addReplyProto(client *c, const char *s, size_t len);
void addReplyBulk(client *c, robj *obj);
void addReplyBulkCString(client *c, const char *s);
void addReplyBulkCBuffer(client *c, const void *p, size_t len);
void addReplyBulkSds(client *c, sds s);
void addReplyBulkLongLong(client *c, long long ll);
void addReplyVerbatim(client *c, const char *s, size_t len, const char *ext);
void addReplyLongLong(client *c, long long ll);
void addReplyDouble(client *c, double d);
void addReplyLongDoubleAsHuman(client *c, long double d);
void addReplyBigNum(client *c, const char *num, size_t len);
void addReplyBool(client *c, int b);
void addReplyNull(client *c);
void addReplyNullArray(client *c);
void addReplyArrayLen(client *c, long length);
void addReplyMapLen(client *c, long length);
void addReplySetLen(client *c, long length);
void addReplyAttributeLen(client *c, long length);
void addReplyPushLen(client *c, long length);
void addReplyStatus(client *c, const char *status);
void addReplyStatusLength(client *c, const char *s, size_t len);
void addReplyError(client *c, const char *err);
void addReplyErrorSds(client *c, sds err);
void addReplyErrorObject(client *c, robj *err);
void addReplyErrorFormat(client *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void addReplyErrorArity(client *c);
void addReplyErrorExpireTime(client *c);
void addReplyHelp(client *c, const char **help);
void addReplySubcommandSyntaxError(client *c);
void *addReplyDeferredLen(client *c);
void setDeferredArrayLen(client *c, void *node, long length);
void setDeferredMapLen(client *c, void *node, long length);
void setDeferredSetLen(client *c, void *node, long length);
void setDeferredReplyBulk(client *c, void *node, robj *obj);
void addReplyErrorObjectNoStats(client *c, robj *err);
void addReplyErrorSdsEx(client *c, sds err, int flags);
void addReplyOrErrorObject(client *c, robj *obj);
void rewriteClientCommandVector(client *c, int argc, ...);
void replaceClientCommandVector(client *c, int argc, robj **argv);
void discardOriginalCommandVector(client *c);
void redactClientCommandArgument(client *c, int j);
void updateStatsOnUnblock(client *c);
void rewriteClientCommandArgument(client *c, int i, robj *newval);
sds catClientInfoString(sds s, client *c);
sds getAllClientsInfoString(int type);
int getClientType(client *c);
client *lookupClientByID(uint64_t id);
/* tracking.c: the CLIENT subcommands of client-side caching */
void clientTrackingCommand(client *c);
void clientCachingCommand(client *c);
void clientGetredirCommand(client *c);
void clientTrackinginfoCommand(client *c);
int getClientTypeByName(const char *name);
const char *getClientTypeName(int class);
unsigned long getClientOutputBufferMemoryUsage(client *c);
size_t getClientMemoryUsage(client *c, size_t *output_buffer_mem_usage);
/* evict_clients.c: maxmemory-clients */
size_t clientsMemoryLimit(void);
void updateClientMemUsageSlow(client *c);
/* Cheap enough for every command: nothing unless maxmemory-clients is set. */
static inline void updateClientMemUsage(client *c) {
    if (server.maxmemory_clients) updateClientMemUsageSlow(c);
}
void clientMemForget(client *c);
void recountClientsMemUsage(void);
int evictClients(void);
int checkClientOutputBufferLimits(client *c);
int closeClientOnOutputBufferLimitReached(client *c, int async);
int clientsCronHandleTimeout(client *c, mstime_t now_ms);
void clientCommand(client *c);
void helloCommand(client *c);
void resetCommand(client *c);
void securityWarningCommand(client *c);
void pauseActions(int purpose, mstime_t end, int write_only);
void unpauseActions(int purpose);
void updatePausedActions(void);
int areClientsPaused(void);
int isClientPaused(client *c);
/* eval.c: cmd_flags (c's command's) with those a script declares (EVAL*
 * shebang, FCALL* function flags) in place of write/deny-oom/stale/
 * may-replicate; cmd_flags as given for other commands and for scripts
 * without declared flags. */
uint64_t scriptGetCommandFlags(client *c, uint64_t cmd_flags);
void blockClientForPause(client *c);
void processUnpausedClients(void);
void clientsCron(void);
void getClientsMaxBuffers(size_t *output, size_t *input);
char *getClientPeerId(client *c);
char *getClientSockname(client *c);
int authRequired(client *c);

/* object.c */
robj *createObject(int type, void *ptr);
robj *createStringObject(const char *ptr, size_t len);
robj *createRawStringObject(const char *ptr, size_t len);
robj *createEmbeddedStringObject(const char *ptr, size_t len);
robj *createObjectUnstamped(int type, void *ptr);
robj *createStringObjectUnstamped(const char *ptr, size_t len);
robj *createStringObjectFromLongLong(long long value);
robj *createStringObjectFromLongLongForValue(long long value);
int sharedIntegersUsable(void);
robj *createStringObjectFromLongDouble(long double value, int humanfriendly);
robj *dupStringObject(const robj *o);
robj *tryObjectEncoding(robj *o);
robj *getDecodedObject(robj *o);
robj *makeObjectShared(robj *o);
void incrRefCount(robj *o);
void decrRefCount(robj *o);
void decrRefCountVoid(void *o);
robj *resetRefCount(robj *obj);
void freeStringObject(robj *o);
size_t stringObjectLen(robj *o);
int stringObjectAsLongLong(robj *o, long long *target); /* no reply */
int getLongLongFromObject(robj *o, long long *target);
int getLongLongFromObjectOrReply(client *c, robj *o, long long *target, const char *msg);
int getLongFromObjectOrReply(client *c, robj *o, long *target, const char *msg);
int getIntFromObjectOrReply(client *c, robj *o, int *target, const char *msg);
int getRangeLongFromObjectOrReply(client *c, robj *o, long min, long max, long *target, const char *msg);
int getPositiveLongFromObjectOrReply(client *c, robj *o, long *target, const char *msg);
int getDoubleFromObject(const robj *o, double *target);
int getDoubleFromObjectOrReply(client *c, robj *o, double *target, const char *msg);
int getLongDoubleFromObject(robj *o, long double *target);
int getLongDoubleFromObjectOrReply(client *c, robj *o, long double *target, const char *msg);
int checkType(client *c, robj *o, int type);
int compareStringObjects(const robj *a, const robj *b);
int collateStringObjects(const robj *a, const robj *b);
int equalStringObjects(robj *a, robj *b);
const char *strEncoding(int encoding);
char *getObjectTypeName(robj *o);
size_t objectComputeSize(robj *key, robj *o, size_t sample_size, int dbid);
size_t objectFreeEffort(robj *o);
void trimStringObjectIfNeeded(robj *o, int trim_small_values);
robj *objectSetKeyAndExpire(robj *val, const char *key, size_t keylen, int expire_slot, long long expire);
robj *objectCopyWithKey(robj *val, const char *key, size_t keylen, int expire_slot, long long expire);
int objectTakeRawValue(robj *o, robj *val);
sds objectGetKey(const robj *o);
const void *objectGetKeyVoid(const void *o);
long long objectGetExpire(const robj *o);
robj *objectSetExpire(robj *o, long long when);
int objectOverwriteEmbeddedValue(robj *o, robj *val);
/* Free-method table per type: the t_*.c files register how to free and
 * size their encodings, so object.c stays independent of every type. */
typedef struct objectTypeMethods {
    void (*free)(robj *o);
    size_t (*size)(robj *o, size_t sample_size); /* bytes, approximate */
    robj *(*dup)(robj *o);
    void (*digest)(robj *o, unsigned char *digest); /* DEBUG DIGEST-VALUE */
    size_t (*free_effort)(robj *o); /* about how many allocations free() releases */
} objectTypeMethods;
extern objectTypeMethods objectMethods[OBJ_TYPE_MAX];
/* LFU helpers used by lookups and OBJECT FREQ. */
unsigned long LFUGetTimeInMinutes(void);
uint8_t LFULogIncr(uint8_t value);
unsigned long LFUDecrAndReturn(robj *o);
unsigned long long estimateObjectIdleTime(robj *o);
int objectSetLRUOrLFU(robj *o, long long lfu_freq, long long lru_idle, long long lru_clock, int lru_multiplier);
#define LFU_INIT_VAL 5 /* LFU counter of a new key */
void initObjectAccess(robj *o);
void updateObjectAccess(robj *o);

/* db.c */
robj *lookupKey(serverDb *db, robj *key, int flags);
robj *lookupKeyRead(serverDb *db, robj *key);
robj *lookupKeyWrite(serverDb *db, robj *key);
/* Where a key is (entry) or would be inserted (insert), from
 * lookupKeyWriteWithPosition(); valid until the keyspace is next touched. */
typedef struct dbKeyPosition {
    void **entry;               /* the key's slot (key alive), or NULL */
    int can_insert;             /* insert is valid (key missing, keyspace untouched) */
    hashtablePosition insert;
} dbKeyPosition;
robj *lookupKeyWriteWithPosition(serverDb *db, robj *key, dbKeyPosition *pos);
robj *lookupKeyReadOrReply(client *c, robj *key, robj *reply);
robj *lookupKeyWriteOrReply(client *c, robj *key, robj *reply);
robj *lookupKeyReadWithFlags(serverDb *db, robj *key, int flags);
robj *lookupKeyWriteWithFlags(serverDb *db, robj *key, int flags);
void dbAdd(serverDb *db, robj *key, robj **valref);
robj *dbAddRDBLoad(serverDb *db, sds key, robj *val, long long expire);
void dbOverwrite(serverDb *db, robj *key, robj **valref);
robj *setKey(client *c, serverDb *db, robj *key, robj *val, int flags);
void dbAddAtPosition(serverDb *db, robj *key, robj **valref, hashtablePosition *position);
robj *setKeyAtPosition(client *c, serverDb *db, robj *key, robj *val, int flags, dbKeyPosition *pos);
robj *setKeyWithExpireAtPosition(client *c, serverDb *db, robj *key, robj *val, int flags, dbKeyPosition *pos,
                                 long long when);
void clientArgvReplaceObject(client *c, robj *old, robj *now);
/* Whether setKey() with SETKEY_MOVE_ARG takes val (a RAW string: its bytes
 * move into the keyspace rather than being copied). Ask before the call. */
static inline int setKeyTakesArg(robj *val) {
    return val->type == OBJ_STRING && val->encoding == OBJ_ENCODING_RAW;
}
robj *dbFind(serverDb *db, sds key);
extern hashtableType dbKeysHashtableType, dbExpiresHashtableType;
/* The keys table of a new database dbid (initServer, temp arrays,
 * lazy flushes): one table per slot for db 0 in cluster mode, else one. */
kvstore *dbCreateKeyspace(int dbid);
/* The table of db->keys that holds key: its hash slot when the keyspace
 * is split by slot (cluster mode), else 0 (no hashing: standalone lookups
 * pay one branch on the kvstore's `only` table, which they then use). */
int dbKeySlot(sds key);
static inline int dbKeyIndex(serverDb *db, sds key) {
    return __builtin_expect(db->keys->only != NULL, 1) ? 0 : dbKeySlot(key);
}
/* A table of db->keys chosen with a probability proportional to its size
 * (the one table in standalone mode), or NULL when db is empty: sampling
 * it samples the whole keyspace (eviction). */
hashtable *dbRandomKeysTable(serverDb *db);
/* Sizes db->keys for size keys in all; in cluster mode only the tables of
 * the slots this node serves (DEBUG POPULATE, RDB RESIZEDB). */
void dbExpandKeyspace(serverDb *db, size_t size, int try_expand);
/* The slot of db->keys holding key's value, or NULL. */
static inline void **dbFindRef(serverDb *db, sds key) {
    return kvstoreFindRef(db->keys, dbKeyIndex(db, key), key);
}
int dbExists(serverDb *db, robj *key);
int dbDelete(serverDb *db, robj *key);
int dbSyncDelete(serverDb *db, robj *key);
int dbAsyncDelete(serverDb *db, robj *key);
int dbGenericDelete(serverDb *db, robj *key, int async, int flags);
robj *dbUnshareStringValue(serverDb *db, robj *key, robj *o);
robj *dbRandomKey(serverDb *db);
long long emptyData(int dbnum, int flags, void(callback)(hashtable *));
long long dbTotalServerKeyCount(void);
/* Databases loaded aside (a replica's full sync with repl-diskless-load
 * swapdb; db.c): Create returns server.dbnum empty ones numbered as the
 * server's (the caller owns them), SwapWith makes their data the
 * server's and leaves the server's in them, Release frees them. Event
 * loop. */
serverDb *dbCreateTempArray(void);
void dbSwapWithTempArray(serverDb *temp);
void dbReleaseTempArray(serverDb *temp);
/* Keys of db 0 in hash slot slot: 0 in standalone mode. O(1). */
size_t dbSlotKeyCount(int slot);
/* Deletes every key of slot (cluster mode: a slot this node lost while it
 * still held keys, "dirty"), each propagated as a DEL and notified.
 * Returns how many. Main thread, outside a command. */
unsigned int dbDeleteKeysInSlot(int slot);
int selectDb(client *c, int id);
void signalModifiedKey(client *c, serverDb *db, robj *key);
void signalFlushedDb(int dbid, int async);
int keyIsExpired(serverDb *db, robj *key);
int expireIfNeeded(serverDb *db, robj *key, int flags);
long long getExpire(serverDb *db, robj *key);
robj *setExpire(client *c, serverDb *db, robj *key, long long when);
int removeExpire(serverDb *db, robj *key);
int parseScanCursorOrReply(client *c, robj *o, unsigned long *cursor);
void scanGenericCommand(client *c, robj *o, unsigned long cursor);
void deleteExpiredKeyAndPropagate(serverDb *db, robj *keyobj);
void flushAllDataAndResetRDB(int flags);
int getFlushCommandFlags(client *c, int *flags);

/* lazyfree.c */
/* Values cheaper to free than this many allocations are freed inline. */
#define LAZYFREE_THRESHOLD 64
typedef void lazyfreeFn(void *a, void *b);
void lazyfreeSubmit(lazyfreeFn *fn, void *a, void *b, size_t objects);
size_t lazyfreeGetPendingObjectsCount(void);
size_t lazyfreeGetFreedObjectsCount(void);
void lazyfreeResetStats(void);
void freeObjAsync(robj *key, robj *obj, int dbid);
void emptyDbAsync(serverDb *db);
/* Keyspace notification classes (notify-keyspace-events). */
#define NOTIFY_KEYSPACE (1 << 0)
#define NOTIFY_KEYEVENT (1 << 1)
#define NOTIFY_GENERIC (1 << 2)
#define NOTIFY_STRING (1 << 3)
#define NOTIFY_LIST (1 << 4)
#define NOTIFY_SET (1 << 5)
#define NOTIFY_HASH (1 << 6)
#define NOTIFY_ZSET (1 << 7)
#define NOTIFY_EXPIRED (1 << 8)
#define NOTIFY_EVICTED (1 << 9)
#define NOTIFY_STREAM (1 << 10)
#define NOTIFY_KEY_MISS (1 << 11)
#define NOTIFY_LOADED (1 << 12)
#define NOTIFY_MODULE (1 << 13)
#define NOTIFY_NEW (1 << 14)
#define NOTIFY_ALL \
    (NOTIFY_GENERIC | NOTIFY_STRING | NOTIFY_LIST | NOTIFY_SET | NOTIFY_HASH | NOTIFY_ZSET | NOTIFY_EXPIRED | \
     NOTIFY_EVICTED | NOTIFY_STREAM | NOTIFY_MODULE)

/* notify.c */
void notifyKeyspaceEvent(int type, const char *event, robj *key, int dbid);

/* expire.c */
void activeExpireCycle(int type);
void expireGenericCommand(client *c, long long basetime, int unit);
int checkAlreadyExpired(long long when);
/* Writable replicas (replica-read-only no): the keys their own clients
 * gave a TTL, expired by the cron since no DEL will come for them (see
 * expire.c). db.c calls the first when a key gets a TTL and the second
 * when every database is emptied. */
void expireRememberReplicaKey(serverDb *db, sds key);
void expireForgetReplicaKeys(void);
size_t expireReplicaKeysTracked(void); /* INFO slave_expires_tracked_keys */
#define ACTIVE_EXPIRE_CYCLE_SLOW 0
#define ACTIVE_EXPIRE_CYCLE_FAST 1
#define UNIT_SECONDS 0
#define UNIT_MILLISECONDS 1

/* evict.c */
int performEvictions(void);
int getMaxmemoryState(size_t *total, size_t *logical, size_t *tofree, float *level);
size_t freeMemoryGetNotCountedMemory(void);
void evictionPoolAlloc(void);
#define EVICT_OK 0
#define EVICT_RUNNING 1
#define EVICT_FAIL 2

/* t_list.c */
void listTypeInit(void);
robj *createListListpackObject(void);
unsigned long listTypeLength(const robj *o);

/* t_list.c */
int getMpopCountOrReply(client *c, int start, long *count);

/* t_string.c */
int getGenericCommand(client *c);
int checkStringLength(client *c, long long size, long long append);

/* t_set.c */
void setTypeInit(void);
void setTypeCollectAll(robj *set, list *out);
unsigned long setTypeSize(const robj *set);
void setTypeConvert(robj *set, int encoding, size_t size_hint);
robj *setTypeCreateFor(const char *first, size_t len, size_t size_hint);
int setTypeAddBuffer(robj *set, const char *s, size_t len);

/* t_hash.c */
void hashTypeInit(void);
void hashTypeCollectAll(robj *hash, list *out, int with_values);
robj *hashTypeCreateSized(size_t size_hint);
unsigned long hashTypeLength(const robj *o);
void hashTypeConvertToHashtable(robj *o, size_t size_hint);
sds hashTypeEntryField(const void *entry);
const char *hashTypeEntryValue(const void *entry, size_t *len);
unsigned long hashTypeScan(robj *hash, unsigned long cursor, list *out, int with_values);
robj *hashTypeGetValueObject(robj *o, const char *field, size_t flen);
int hashTypeSet(robj *o, const char *field, size_t flen, const char *value, size_t vlen);

/* t_zset.c */
void zsetTypeInit(void);
void zsetTypeCollectAll(robj *zobj, list *out, int with_scores);
dict *zsetTypeDict(robj *zobj);
robj *zsetTypeCreate(size_t size_hint, size_t maxelelen);
unsigned long zsetLength(const robj *zobj);
void zsetConvert(robj *zobj, int encoding);
void zsetConvertToListpackIfNeeded(robj *zobj, size_t maxelelen, size_t totelelen);
int zsetTypeAddNew(robj *zobj, const char *ele, size_t len, double score);
struct zskiplist *zsetTypeSkiplist(robj *zobj);
/* Active defragmentation (defrag.c): where zsetTypeDefragPart() goes on
 * from (zeroed to start). */
typedef struct zsetDefragCursor {
    unsigned long rank; /* skiplist: rank of the last node done */
    unsigned long scan; /* dict: scan cursor */
    int in_dict;        /* the skiplist is done, the dict's entries go on */
} zsetDefragCursor;
void zsetTypeDefragStructs(robj *zobj, void *(*defragfn)(void *));
int zsetTypeDefragPart(robj *zobj, zsetDefragCursor *cur, unsigned long budget, void *(*defragfn)(void *));
/* For the GEO commands (geo.c): a member's score (C_OK, or C_ERR if not a
 * member); the members with min <= score < max in score order, until
 * visit returns 0; storing a computed result the way the STORE commands
 * do (deleting dstkey if empty, replying the count, firing `event`). */
int zsetTypeScore(robj *zobj, const char *ele, size_t len, double *score);
typedef int zsetScoreVisitor(void *ctx, const char *ele, size_t len, double score);
void zsetTypeScanScores(robj *zobj, double min, double max, zsetScoreVisitor *visit, void *ctx);
void zsetTypeStoreResult(client *c, robj *dstkey, robj *result, const char *event);
void zaddCommand(client *c);

/* t_stream.c */
void streamTypeInit(void);

/* config.c */
void initConfigValues(void);
void loadServerConfig(char *filename, char config_from_stdin, char *options);
int loadServerConfigText(const char *config, sds *errmsg);
sds configRewriteAll(sds buf);
void appendServerSaveParams(time_t seconds, int changes);
int rewriteConfig(char *path, int force_write);
void configCommand(client *c);
const char *redactLogCstr(const char *s);
const char *evictPolicyToString(void);

/* script_lua.c, eval.c (scripting) */
int scriptIsBusyAndDenied(client *c);
int scriptIsTimedout(void);
void scriptingInit(void);
void evalCommand(client *c);
void evalRoCommand(client *c);
void evalShaCommand(client *c);
void evalShaRoCommand(client *c);
/* The CMD_* flags EVAL* of c runs under (see getCommandFlags()): from the
 * shebang of the script in argv[1] (EVAL) or of the cached script argv[1]
 * names (EVALSHA); cmd_flags for a script without a shebang, with a bad
 * one, or not in the cache. Event loop. */
uint64_t evalGetCommandFlags(client *c, uint64_t cmd_flags);
/* functions.c: FCALL and FCALL_RO, and their flags as above from the
 * function argv[1] names (cmd_flags if there is no such function). */
void fcallCommand(client *c);
void fcallroCommand(client *c);
uint64_t fcallGetCommandFlags(client *c, uint64_t cmd_flags);

/* What scripting holds, for INFO memory and MEMORY STATS: the Lua VMs'
 * own heaps (0 for a VM not created yet), the script and library caches
 * (bodies and table overhead), and their counts. */
typedef struct scriptingMemory {
    size_t eval_vm, functions_vm;
    size_t eval_cache, functions_cache;
    unsigned long scripts, functions, libraries;
} scriptingMemory;
void scriptingGetMemory(scriptingMemory *m);

/* Where the memory goes, for INFO memory and MEMORY STATS (info.c). The
 * overhead is what the server needs whatever the data is: its start-up
 * footprint, clients, the databases' hash tables and the script caches;
 * the dataset is the rest of used. */
typedef struct memoryOverhead {
    size_t used, peak, rss;
    size_t allocated, active, resident; /* the allocator's view */
    size_t startup, clients_normal, clients_replicas, db_tables, overhead, dataset;
    /* The replication buffer: repl_backlog is what counts as the backlog
     * (up to repl-backlog-size while replicas are attached, all of it
     * otherwise); the rest is in clients_replicas, as Valkey splits it. */
    size_t repl_buffer, repl_backlog;
    size_t net;                         /* used - startup */
    double dataset_perc, peak_perc;     /* dataset of net, used of peak, in % */
    /* Fragmentation ratios, each with its difference in bytes. */
    /* alloc_frag: 1 + free bytes inside small-class slabs / allocated (what
     * active defragmentation can recover); resident/active, rss/resident,
     * rss/used. */
    double alloc_frag, alloc_rss, rss_overhead, frag;
    long long alloc_frag_bytes, alloc_rss_bytes, rss_overhead_bytes, frag_bytes;
    scriptingMemory scripts;
    /* The databases' hash tables: bucket arrays of all of them (lut), the
     * old arrays of those being rehashed, and how many are. */
    size_t db_lut, db_rehashing;
    unsigned long db_rehashing_count;
} memoryOverhead;
void getMemoryOverhead(memoryOverhead *m);
/* functions.c's half of scriptingGetMemory() (eval.c). */
void functionsGetMemory(size_t *vm, size_t *cache, unsigned long *functions, unsigned long *libraries);

/* functions.c: the libraries as RDB_OPCODE_FUNCTION2 records (rdb.c) */
struct rio;
int functionsSaveRdb(struct rio *r);
/* The libraries, name -> functionLib * (functions.h); not to be modified
 * (an AOF rewrite lists them as FUNCTION LOAD commands). */
dict *functionsLibraries(void);
int functionsLoadLibraryFromRdb(sds code, int replace, sds *err);
/* functions.c: drops every library, before a load replaces the dataset
 * (DEBUG RELOAD); FLUSHALL keeps them. */
void functionsEmpty(void);
/* functions.c: a set of libraries with its own Lua VM, built aside while
 * FCALL keeps using the current one (a replica loading a full sync with
 * repl-diskless-load swapdb). Create returns an empty one (the caller
 * owns it); LoadFromRdb is functionsLoadLibraryFromRdb() into it;
 * Swap makes its libraries the current ones and leaves the previous ones
 * in it; Discard frees it (a big one in the lazy free thread). Event loop,
 * never while a function runs. */
typedef struct functionsRegistry functionsRegistry;
functionsRegistry *functionsRegistryCreate(void);
int functionsRegistryLoadFromRdb(functionsRegistry *r, sds code, int replace, sds *err);
void functionsRegistrySwapWithCurrent(functionsRegistry *r);
void functionsRegistryDiscard(functionsRegistry *r);

/* admin.c: queues c's command line (argv, in db dictid) to every client in
 * monitors; see monitorCommand(). */
void replicationFeedMonitors(client *c, list *monitors, int dictid, robj **argv, int argc);

/* debug.c */
void xorDigest(unsigned char *digest, const void *ptr, size_t len);
void mixDigest(unsigned char *digest, const void *ptr, size_t len);
void debugCommand(client *c);
void setupSigSegvAction(void);
void removeSigSegvHandlers(void);
void applyWatchdogPeriod(void); /* debug.c: CONFIG SET watchdog-period */
void watchdogCron(void);        /* debug.c: serverCron re-arms the watchdog */
void serverLogHexDump(int level, char *descr, void *value, size_t len);
void _serverAssert(const char *estr, const char *file, int line);
void _serverPanic(const char *file, int line, const char *msg, ...);
#define serverAssert(_e) (__builtin_expect(!!(_e), 1) ? (void)0 : (_serverAssert(#_e, __FILE__, __LINE__), __builtin_unreachable()))
#define serverPanic(...) (_serverPanic(__FILE__, __LINE__, __VA_ARGS__), __builtin_unreachable())

/* Returns o's value: for EMBSTR the sds embedded right after the header,
 * else the val_ptr member. Borrowed from o. Inline and branch-light: every
 * GET reply and argument parse goes through it. */
static inline void *objectGetVal(const robj *o) {
    if (objectIsEmbstr(o)) return (char *)o + OBJ_HEADER_SIZE + sizeof(struct sdshdr8);
    return o->val_ptr;
}

/* Stores v as o's value (o now owns it, whatever owned the old one).
 * Never for EMBSTR, which has no pointer: turn it into another encoding by
 * making a new object (dbUnshareStringValue(), createObject()). */
static inline void objectSetVal(robj *o, void *v) {
    serverAssert(!objectIsEmbstr(o));
    o->val_ptr = v;
}

/* Handy inline helpers. */
static inline int isPausedActions(void) {
    return server.client_pause_end_time != 0;
}

#endif
