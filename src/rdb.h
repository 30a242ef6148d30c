/* rdb.h - the RDB snapshot format: constants, encoding primitives, values
 * and whole datasets.
 *
 * The format is the documented one Valkey and Redis use for dump.rdb,
 * DUMP/RESTORE payloads and full resynchronisation, so files move freely
 * between this server and theirs. Everything reads from or writes to a rio
 * (rio.h), an abstract byte source/sink: a file, a socket or a memory region
 * (RDMA replication serialises into registered memory through the same
 * encoder).
 *
 *   rdb.c         primitives (lengths, strings with int/LZF encodings,
 *                 doubles, times), string values, the per-value dispatch,
 *                 the dataset framing (header, aux fields, SELECTDB,
 *                 RESIZEDB, expiry, EOF and CRC-64), files.
 *   dump.c        DUMP/RESTORE payloads and commands (dump.h).
 *   rdb_object.c  the body of lists, sets, hashes and sorted sets, both
 *                 directions, with every encoding older versions wrote,
 *                 validated before use.
 *   rdb_stream.c  the body of streams (entries re-encoded between our node
 *                 layout and the RDB's listpack layout, consumer groups,
 *                 PELs), both directions, validated before use.
 *
 * Conventions: save functions return C_OK or C_ERR (a failed write); load
 * functions return NULL / C_ERR on truncated, corrupt or hostile input and
 * never crash or leak on it. */
#ifndef RDB_H
#define RDB_H

#include <stddef.h>
#include <stdint.h>

#include "rio.h"

struct serverObject;

/* Version written; files up to RDB_VERSION_MAX_LOADABLE are read. 11 is what
 * Valkey 7.2/8.x write (10 is Redis 7.0). */
#define RDB_VERSION 11
#define RDB_VERSION_MAX_LOADABLE 11

/* Length encoding: the two top bits of the first byte. */
#define RDB_6BITLEN 0
#define RDB_14BITLEN 1
#define RDB_32BITLEN 0x80
#define RDB_64BITLEN 0x81
#define RDB_ENCVAL 3
#define RDB_LENERR UINT64_MAX

/* String encodings after an RDB_ENCVAL length byte. */
#define RDB_ENC_INT8 0
#define RDB_ENC_INT16 1
#define RDB_ENC_INT32 2
#define RDB_ENC_LZF 3

/* Value types (the byte before each key). */
#define RDB_TYPE_STRING 0
#define RDB_TYPE_LIST 1
#define RDB_TYPE_SET 2
#define RDB_TYPE_ZSET 3
#define RDB_TYPE_HASH 4
#define RDB_TYPE_ZSET_2 5
#define RDB_TYPE_MODULE_PRE_GA 6
#define RDB_TYPE_MODULE_2 7
#define RDB_TYPE_HASH_ZIPMAP 9
#define RDB_TYPE_LIST_ZIPLIST 10
#define RDB_TYPE_SET_INTSET 11
#define RDB_TYPE_ZSET_ZIPLIST 12
#define RDB_TYPE_HASH_ZIPLIST 13
#define RDB_TYPE_LIST_QUICKLIST 14
#define RDB_TYPE_STREAM_LISTPACKS 15
#define RDB_TYPE_HASH_LISTPACK 16
#define RDB_TYPE_ZSET_LISTPACK 17
#define RDB_TYPE_LIST_QUICKLIST_2 18
#define RDB_TYPE_STREAM_LISTPACKS_2 19
#define RDB_TYPE_SET_LISTPACK 20
#define RDB_TYPE_STREAM_LISTPACKS_3 21
#define rdbIsObjectType(t) (((t) >= 0 && (t) <= 7) || ((t) >= 9 && (t) <= 21))

/* Opcodes, in the same byte position as value types. */
#define RDB_OPCODE_FUNCTION2 245
#define RDB_OPCODE_FUNCTION_PRE_GA 246
#define RDB_OPCODE_MODULE_AUX 247
#define RDB_OPCODE_IDLE 248
#define RDB_OPCODE_FREQ 249
#define RDB_OPCODE_AUX 250
#define RDB_OPCODE_RESIZEDB 251
#define RDB_OPCODE_EXPIRETIME_MS 252
#define RDB_OPCODE_EXPIRETIME 253
#define RDB_OPCODE_SELECTDB 254
#define RDB_OPCODE_EOF 255

/* Quicklist node containers in RDB_TYPE_LIST_QUICKLIST_2. */
#define RDB_QUICKLIST_NODE_PLAIN 1
#define RDB_QUICKLIST_NODE_PACKED 2

/* rdbLoadString() flags. */
#define RDB_LOAD_OBJ 0       /* a string object (robj *) */
#define RDB_LOAD_ENC (1 << 0) /* ... that may be int-encoded */
#define RDB_LOAD_PLAIN (1 << 1) /* a zmalloc'd buffer (free with zfree) */
#define RDB_LOAD_SDS (1 << 2)   /* an sds */

/* ---- primitives (rdb.c) ------------------------------------------------ */
int rdbSaveType(rio *r, unsigned char type);
int rdbLoadType(rio *r); /* -1 on a failed read */
int rdbSaveLen(rio *r, uint64_t len);
/* A length; *isencoded (may be NULL) is set for RDB_ENCVAL forms, which
 * then return the encoding. RDB_LENERR on a failed read or a bad prefix. */
uint64_t rdbLoadLen(rio *r, int *isencoded);
int rdbSaveRawString(rio *r, const void *s, size_t len); /* int/LZF encoded when it pays */
int rdbSaveLongLongAsString(rio *r, long long value);
int rdbSaveStringObject(rio *r, struct serverObject *o);
/* A string in any encoding; lenptr (may be NULL) gets its length.
 * NULL on bad input. */
void *rdbLoadString(rio *r, int flags, size_t *lenptr);
int rdbSaveBinaryDouble(rio *r, double val);
int rdbLoadBinaryDouble(rio *r, double *val);
int rdbLoadStringDouble(rio *r, double *val); /* the old text form (RDB_TYPE_ZSET) */
int rdbSaveMillisecondTime(rio *r, long long t);
int rdbLoadMillisecondTime(rio *r, int rdbver, long long *t);

/* ---- values ------------------------------------------------------------ */
/* rdb.c: the type byte and the body of any value. */
int rdbSaveObjectType(rio *r, struct serverObject *o);
int rdbSaveObject(rio *r, struct serverObject *o);
/* Loads the body of a value of RDB type rdbtype (any type above, any
 * version up to RDB_VERSION_MAX_LOADABLE). NULL on bad input; *empty is set
 * (and NULL returned) when the value decoded fine but holds no elements,
 * which a loader skips rather than fails on. */
struct serverObject *rdbLoadObject(rio *r, int rdbtype, int *empty);

/* rdb_object.c: collection types, called by the two above. */
unsigned char rdbCollectionType(struct serverObject *o);
int rdbSaveCollection(rio *r, struct serverObject *o);
struct serverObject *rdbLoadCollection(rio *r, int rdbtype, int *empty);

/* rdb_stream.c: streams (RDB_TYPE_STREAM_LISTPACKS, _2, _3), called by
 * rdb_object.c. Always written as RDB_TYPE_STREAM_LISTPACKS_3. */
int rdbSaveStream(rio *r, struct serverObject *o);
struct serverObject *rdbLoadStream(rio *r, int rdbtype, int *empty);

/* ---- datasets and files (rdb.c) ---------------------------------------- */
int rdbSaveRio(rio *r);                /* the whole dataset, header to checksum */
/* Set while rdbSaveRio() writes an AOF base: aux field aof-base 1 and no
 * replication info, as Valkey writes it. */
extern int rdbSaveAofBase;
/* What rdbSaveRio() leaves out while set (0: nothing), for a replica that
 * asked with REPLCONF rdb-filter-only: the header and aux fields are
 * always written. Set by the parent around the fork of the child that
 * writes such a snapshot (replication.c). */
#define RDB_SAVE_EXCLUDE_DATA (1 << 0)      /* no databases */
#define RDB_SAVE_EXCLUDE_FUNCTIONS (1 << 1) /* no function libraries */
extern int rdbSaveExclude;
int rdbLoadRio(rio *r);                /* replaces nothing: loads into the current dataset */
/* rdbLoadRio() with RDBFLAGS_*: with RDBFLAGS_ALLOW_DUP a key or library
 * already present is replaced instead of failing the load. */
#define RDBFLAGS_NONE 0
#define RDBFLAGS_ALLOW_DUP (1 << 0)
#define RDBFLAGS_REPLICATION ((1 << 1) | RDBFLAGS_ALLOW_DUP) /* a full sync's snapshot: libraries replaced */
/* The caller ends the process when the load fails (start-up, the AOF's
 * base): only then do the loader's log lines say it aborts, as Valkey's do. */
#define RDBFLAGS_EXIT_ON_ERROR (1 << 2)
/* A primary loading its own file at start-up: each key dropped because it
 * expired meanwhile is fed to the replication backlog as a DEL (UNLINK
 * with lazyfree-lazy-expire), so that replicas that kept it learn it is
 * gone (replicationOwnFileLoadBegin()). */
#define RDBFLAGS_FEED_REPL (1 << 3)
int rdbLoadRioWithFlags(rio *r, int rdbflags);
/* Where a load puts what it reads: dbs, an array of server.dbnum
 * databases numbered as the server's, and functions, a library set
 * (server.h: functionsRegistry). NULL members: the server's own. A
 * replica loading a full sync aside (repl-diskless-load swapdb) passes
 * its own; nothing else in the server sees them during the load. */
struct serverDb;
struct functionsRegistry;
typedef struct rdbLoadTarget {
    struct serverDb *dbs;
    struct functionsRegistry *functions;
} rdbLoadTarget;
/* rdbLoadRioWithFlags() into target (NULL: the server's own dataset). */
int rdbLoadRioTo(rio *r, int rdbflags, const rdbLoadTarget *target);
/* Keys the last successful load added and skipped as already expired
 * (INFO persistence: rdb_last_load_keys_loaded / _expired). */
extern long long rdbLastLoadKeysLoaded, rdbLastLoadKeysExpired;
extern long long rdbSaveKeysProcessed; /* Keys written so far by the save running here. */
int rdbSave(const char *filename, rioProgressFn *progress);     /* temp file, fsync, rename; logs as Valkey */
int rdbLoad(const char *filename);     /* C_OK, C_ERR; errno ENOENT when missing */

#endif
