/* cmdinfo.c - the COMMAND command: introspection of the command table.
 *
 * COMMAND, COMMAND INFO/COUNT/LIST/DOCS/GETKEYS/GETKEYSANDFLAGS read the
 * rows that every subsystem declares (struct serverCommand, see server.h)
 * and report them in the Redis 7 / Valkey reply formats that clients use to
 * discover commands and route keys:
 *   - flags come from the CMD_* bits, with the names clients expect;
 *   - ACL categories are the row's acl_categories plus those implied by its
 *     flags (write -> @write, admin -> @admin @dangerous, not fast -> @slow,
 *     ...), the same derivation ACL rules use (acl.c);
 *   - key specs (where the keys are, and RO/RW/OW/RM, access/update/
 *     insert/delete, ... for each) and tips are Valkey's, from
 *     commandMetaTable; COMMAND GETKEYSANDFLAGS reports each key with its
 *     spec's flags, and the legacy (first, last, step) and movablekeys of
 *     COMMAND INFO are derived from the specs as Valkey derives them;
 *   - COMMAND DOCS "arguments" come from the row's `.args`, one string in
 *     the notation of the command reference, e.g. for ZADD
 *         key [condition=[NX | XX]] [comparison=[GT | LT]] [change=CH]
 *         [increment=INCR] score:double member [score:double member ...]
 *     [] optional, <> grouping, | alternatives, UPPER-CASE words tokens,
 *     lower-case words arguments typed by name (key, count, seconds, ...)
 *     or by a ":type" suffix, "x [x ...]" repetition, "label=" names a
 *     group. cmdargs.h has the full rules; commandParseAllArgs() parses
 *     every string at start-up and the server refuses to start on an error
 *     (src/unit/test_cmdargs.c parses them too). Each argument is replied
 *     as a map: name, type, key_spec_index (keys), token, flags (optional,
 *     multiple, multiple_token), arguments (oneof / block), the shape of
 *     Redis 7 and Valkey.
 *
 * getKeysFromCommand() is the one place that turns argv into key positions;
 * COMMAND GETKEYS and ACL key checks (acl.c, with the key-spec flags
 * exported below) use it.
 *
 * All of this runs in the event-loop thread and never modifies the table. */
#include "server.h"

#include <limits.h>
#include <strings.h>

#include "cmdargs.h"

/* ---------------------------------------------------------------------------
 * Names of flags and categories
 * ------------------------------------------------------------------------- */

typedef struct {
    uint64_t bit;
    const char *name;
} flagName;

/* In the order COMMAND INFO lists them. Flags that only matter internally
 * (sentinel, protected, may_replicate, ...) are not reported. */
static const flagName commandFlagNames[] = {
    {CMD_WRITE, "write"},
    {CMD_READONLY, "readonly"},
    {CMD_DENYOOM, "denyoom"},
    {CMD_MODULE, "module"},
    {CMD_ADMIN, "admin"},
    {CMD_PUBSUB, "pubsub"},
    {CMD_NOSCRIPT, "noscript"},
    {CMD_BLOCKING, "blocking"},
    {CMD_LOADING, "loading"},
    {CMD_STALE, "stale"},
    {CMD_SKIP_MONITOR, "skip_monitor"},
    {CMD_SKIP_SLOWLOG, "skip_slowlog"},
    {CMD_ASKING, "asking"},
    {CMD_FAST, "fast"},
    {CMD_NO_AUTH, "no_auth"},
    {CMD_NO_MANDATORY_KEYS, "no_mandatory_keys"},
    {CMD_NO_ASYNC_LOADING, "no_async_loading"},
    {CMD_NO_MULTI, "no_multi"},
    {CMD_MOVABLE_KEYS, "movablekeys"},
    {CMD_ALLOW_BUSY, "allow_busy"},
    {0, NULL},
};

/* In ACL_CATEGORY_* bit order. */
static const flagName aclCategoryNames[] = {
    {ACL_CATEGORY_KEYSPACE, "keyspace"},   {ACL_CATEGORY_READ, "read"},
    {ACL_CATEGORY_WRITE, "write"},         {ACL_CATEGORY_SET, "set"},
    {ACL_CATEGORY_SORTEDSET, "sortedset"}, {ACL_CATEGORY_LIST, "list"},
    {ACL_CATEGORY_HASH, "hash"},           {ACL_CATEGORY_STRING, "string"},
    {ACL_CATEGORY_BITMAP, "bitmap"},       {ACL_CATEGORY_HYPERLOGLOG, "hyperloglog"},
    {ACL_CATEGORY_GEO, "geo"},             {ACL_CATEGORY_STREAM, "stream"},
    {ACL_CATEGORY_PUBSUB, "pubsub"},       {ACL_CATEGORY_ADMIN, "admin"},
    {ACL_CATEGORY_FAST, "fast"},           {ACL_CATEGORY_SLOW, "slow"},
    {ACL_CATEGORY_BLOCKING, "blocking"},   {ACL_CATEGORY_DANGEROUS, "dangerous"},
    {ACL_CATEGORY_CONNECTION, "connection"}, {ACL_CATEGORY_TRANSACTION, "transaction"},
    {ACL_CATEGORY_SCRIPTING, "scripting"}, {0, NULL},
};

/* Returns the command's ACL categories: the row's own plus those its flags
 * imply. */
uint64_t commandGetAclCategories(struct serverCommand *cmd) {
    uint64_t cat = cmd->acl_categories;
    if (cmd->flags & CMD_WRITE) cat |= ACL_CATEGORY_WRITE;
    if ((cmd->flags & CMD_READONLY) && !(cat & ACL_CATEGORY_SCRIPTING)) cat |= ACL_CATEGORY_READ;
    if (cmd->flags & CMD_ADMIN) cat |= ACL_CATEGORY_ADMIN | ACL_CATEGORY_DANGEROUS;
    if (cmd->flags & CMD_PUBSUB) cat |= ACL_CATEGORY_PUBSUB;
    if (cmd->flags & CMD_FAST) cat |= ACL_CATEGORY_FAST;
    if (cmd->flags & CMD_BLOCKING) cat |= ACL_CATEGORY_BLOCKING;
    if (!(cat & ACL_CATEGORY_FAST)) cat |= ACL_CATEGORY_SLOW;
    return cat;
}

/* Returns the ACL_CATEGORY_* bit named name ("read", case-insensitive,
 * without '@'), or 0 if there is no such category. */
uint64_t aclCategoryByName(const char *name) {
    for (int j = 0; aclCategoryNames[j].name; j++)
        if (!strcasecmp(name, aclCategoryNames[j].name)) return aclCategoryNames[j].bit;
    return 0;
}

/* The j-th ACL category in ACL CAT order: returns 1 and sets *bit and
 * *name, or 0 past the last one. */
int aclCategoryAt(int j, uint64_t *bit, const char **name) {
    if (j < 0 || aclCategoryNames[j].name == NULL) return 0;
    *bit = aclCategoryNames[j].bit;
    *name = aclCategoryNames[j].name;
    return 1;
}

static int commandHasKeys(struct serverCommand *cmd) {
    return cmd->key.first > 0 || cmd->getkeys_proc != NULL;
}

static const char *cmdName(struct serverCommand *cmd) {
    return cmd->fullname ? cmd->fullname : cmd->name;
}

/* ---------------------------------------------------------------------------
 * Key positions
 * ------------------------------------------------------------------------- */

/* Fills keys[] with the argv indexes of cmd's keys (at most maxkeys) and
 * returns how many there are. Uses the command's getkeys_proc when it has
 * one, else its (first, last, step) positions. Returns 0 both when the
 * command has no keys and when argv is too short to hold them (the command
 * itself reports the arity/syntax error then). Pure: no allocation, no
 * replies; callable from any place that has a command and its argv. */
int getKeysFromCommand(struct serverCommand *cmd, robj **argv, int argc, int *keys, int maxkeys) {
    if (cmd == NULL) return 0;
    if (cmd->getkeys_proc) return cmd->getkeys_proc(cmd, argv, argc, keys, maxkeys);
    int first = cmd->key.first;
    if (first <= 0 || first >= argc) return 0;
    int last = cmd->key.last < 0 ? argc + cmd->key.last : cmd->key.last;
    int step = cmd->key.step > 0 ? cmd->key.step : 1;
    int n = 0;
    for (int i = first; i <= last; i += step) {
        if (i >= argc || i < first) return 0;
        if (n < maxkeys) keys[n] = i;
        n++;
    }
    return n < maxkeys ? n : maxkeys;
}

/* ---------------------------------------------------------------------------
 * COMMAND INFO
 * ------------------------------------------------------------------------- */

static void addReplyFlagSet(client *c, const flagName *names, uint64_t bits) {
    void *len = addReplyDeferredLen(c);
    int n = 0;
    for (int j = 0; names[j].name; j++) {
        if (bits & names[j].bit) {
            addReplyStatus(c, names[j].name);
            n++;
        }
    }
    setDeferredSetLen(c, len, n);
}

/* ---------------------------------------------------------------------------
 * Key specs and tips
 *
 * Valkey describes where each command's keys are and what it does with them
 * as "key specs", and gives clients routing "tips"; COMMAND INFO reports
 * both. commandMetaTable below holds them for every command, in a compact
 * notation: specs separated by ';', each "flags/begin_search/find_keys":
 *   flags   RO RW OW RM (what happens to the key), access update insert
 *           delete (to its data), not_key incomplete variable_flags,
 *           comma-separated;
 *   begin   index:POS | keyword:WORD:STARTFROM | unknown;
 *   find    range:LASTKEY:KEYSTEP:LIMIT | keynum:KEYNUMIDX:FIRSTKEY:KEYSTEP |
 *           unknown.
 * Tips are space-separated. commandParseAllArgs() parses the specs of every
 * command once at start-up (a bad string is a build mistake: the server
 * exits). A command with keys missing here gets one spec made from its
 * (first, last, step) triple. The key positions the server itself uses stay
 * the row's triple and getkeys_proc; tests/unit/command-table.tcl checks
 * both against Valkey's reference.
 * ------------------------------------------------------------------------- */

#define KSPEC_RO (1ULL << 0)
#define KSPEC_RW (1ULL << 1)
#define KSPEC_OW (1ULL << 2)
#define KSPEC_RM (1ULL << 3)
#define KSPEC_ACCESS (1ULL << 4)
#define KSPEC_UPDATE (1ULL << 5)
#define KSPEC_INSERT (1ULL << 6)
#define KSPEC_DELETE (1ULL << 7)
#define KSPEC_NOT_KEY (1ULL << 8)
#define KSPEC_INCOMPLETE (1ULL << 9)
#define KSPEC_VARIABLE_FLAGS (1ULL << 10)

/* In the order COMMAND INFO lists them. */
static const flagName keySpecFlagNames[] = {
    {KSPEC_RO, "RO"},
    {KSPEC_RW, "RW"},
    {KSPEC_OW, "OW"},
    {KSPEC_RM, "RM"},
    {KSPEC_ACCESS, "access"},
    {KSPEC_UPDATE, "update"},
    {KSPEC_INSERT, "insert"},
    {KSPEC_DELETE, "delete"},
    {KSPEC_NOT_KEY, "not_key"},
    {KSPEC_INCOMPLETE, "incomplete"},
    {KSPEC_VARIABLE_FLAGS, "variable_flags"},
    {0, NULL},
};

typedef enum { KSPEC_BS_INDEX, KSPEC_BS_KEYWORD, KSPEC_BS_UNKNOWN } keySpecBeginType;
typedef enum { KSPEC_FK_RANGE, KSPEC_FK_KEYNUM, KSPEC_FK_UNKNOWN } keySpecFindType;

/* One parsed key spec. Owned by its command for the life of the process. */
struct keySpecDesc {
    uint64_t flags;           /* KSPEC_* */
    sds words;                /* flags as space-separated words: a stable address for acl.c */
    keySpecBeginType bs_type;
    int bs_pos;               /* index: argv position; keyword: where the search starts */
    sds bs_keyword;           /* keyword only */
    keySpecFindType fk_type;
    int fk_args[3];           /* range: lastkey, keystep, limit; keynum: keynumidx, firstkey, keystep */
};

typedef struct {
    const char *cmd;       /* full name, e.g. "xgroup|create" */
    const char *key_specs; /* NULL: no keys */
    const char *tips;      /* NULL: none */
} commandMetaRow;

static const commandMetaRow commandMetaTable[] = {
    {"acl|deluser", NULL, "request_policy:all_nodes response_policy:all_succeeded"},
    {"acl|save", NULL, "request_policy:all_nodes response_policy:all_succeeded"},
    {"acl|setuser", NULL, "request_policy:all_nodes response_policy:all_succeeded"},
    {"append", "RW,insert/index:1/range:0:1:0", NULL},
    {"bitcount", "RO,access/index:1/range:0:1:0", NULL},
    {"bitfield", "RW,access,update,variable_flags/index:1/range:0:1:0", NULL},
    {"bitfield_ro", "RO,access/index:1/range:0:1:0", NULL},
    {"bitop", "OW,update/index:2/range:0:1:0;RO,access/index:3/range:-1:1:0", NULL},
    {"bitpos", "RO,access/index:1/range:0:1:0", NULL},
    {"blmove", "RW,access,delete/index:1/range:0:1:0;RW,insert/index:2/range:0:1:0", NULL},
    {"blmpop", "RW,access,delete/index:2/keynum:0:1:1", NULL},
    {"blpop", "RW,access,delete/index:1/range:-2:1:0", NULL},
    {"brpop", "RW,access,delete/index:1/range:-2:1:0", NULL},
    {"brpoplpush", "RW,access,delete/index:1/range:0:1:0;RW,insert/index:2/range:0:1:0", NULL},
    {"bzmpop", "RW,access,delete/index:2/keynum:0:1:1", NULL},
    {"bzpopmax", "RW,access,delete/index:1/range:-2:1:0", NULL},
    {"bzpopmin", "RW,access,delete/index:1/range:-2:1:0", NULL},
    {"client|info", NULL, "nondeterministic_output"},
    {"client|list", NULL, "nondeterministic_output"},
    {"client|setinfo", NULL, "request_policy:all_nodes response_policy:all_succeeded"},
    {"client|setname", NULL, "request_policy:all_nodes response_policy:all_succeeded"},
    {"cluster|bumpepoch", NULL, "nondeterministic_output"},
    {"cluster|count-failure-reports", NULL, "nondeterministic_output"},
    {"cluster|getkeysinslot", NULL, "nondeterministic_output"},
    {"cluster|info", NULL, "nondeterministic_output"},
    {"cluster|links", NULL, "nondeterministic_output"},
    {"cluster|myshardid", NULL, "nondeterministic_output"},
    {"cluster|nodes", NULL, "nondeterministic_output"},
    {"cluster|shards", NULL, "nondeterministic_output"},
    {"cluster|slot-stats", NULL, "nondeterministic_output request_policy:all_shards"},
    {"cluster|slots", NULL, "nondeterministic_output"},
    {"command", NULL, "nondeterministic_output_order"},
    {"command|docs", NULL, "nondeterministic_output_order"},
    {"command|info", NULL, "nondeterministic_output_order"},
    {"command|list", NULL, "nondeterministic_output_order"},
    {"config|resetstat", NULL, "request_policy:all_nodes response_policy:all_succeeded"},
    {"config|rewrite", NULL, "request_policy:all_nodes response_policy:all_succeeded"},
    {"config|set", NULL, "request_policy:all_nodes response_policy:all_succeeded"},
    {"copy", "RO,access/index:1/range:0:1:0;OW,update/index:2/range:0:1:0", NULL},
    {"dbsize", NULL, "request_policy:all_shards response_policy:agg_sum"},
    {"decr", "RW,access,update/index:1/range:0:1:0", NULL},
    {"decrby", "RW,access,update/index:1/range:0:1:0", NULL},
    {"del", "RM,delete/index:1/range:-1:1:0", "request_policy:multi_shard response_policy:agg_sum"},
    {"dump", "RO,access/index:1/range:0:1:0", "nondeterministic_output"},
    {"eval", "RW,access,update/index:2/keynum:0:1:1", NULL},
    {"eval_ro", "RO,access/index:2/keynum:0:1:1", NULL},
    {"evalsha", "RW,access,update/index:2/keynum:0:1:1", NULL},
    {"evalsha_ro", "RO,access/index:2/keynum:0:1:1", NULL},
    {"exists", "RO/index:1/range:-1:1:0", "request_policy:multi_shard response_policy:agg_sum"},
    {"expire", "RW,update/index:1/range:0:1:0", NULL},
    {"expireat", "RW,update/index:1/range:0:1:0", NULL},
    {"expiretime", "RO,access/index:1/range:0:1:0", NULL},
    {"fcall", "RW,access,update/index:2/keynum:0:1:1", NULL},
    {"fcall_ro", "RO,access/index:2/keynum:0:1:1", NULL},
    {"flushall", NULL, "request_policy:all_shards response_policy:all_succeeded"},
    {"flushdb", NULL, "request_policy:all_shards response_policy:all_succeeded"},
    {"function|delete", NULL, "request_policy:all_shards response_policy:all_succeeded"},
    {"function|flush", NULL, "request_policy:all_shards response_policy:all_succeeded"},
    {"function|kill", NULL, "request_policy:all_shards response_policy:one_succeeded"},
    {"function|list", NULL, "nondeterministic_output_order"},
    {"function|load", NULL, "request_policy:all_shards response_policy:all_succeeded"},
    {"function|restore", NULL, "request_policy:all_shards response_policy:all_succeeded"},
    {"function|stats", NULL, "nondeterministic_output request_policy:all_shards response_policy:special"},
    {"geoadd", "RW,update/index:1/range:0:1:0", NULL},
    {"geodist", "RO,access/index:1/range:0:1:0", NULL},
    {"geohash", "RO,access/index:1/range:0:1:0", NULL},
    {"geopos", "RO,access/index:1/range:0:1:0", NULL},
    {"georadius",
     "RO,access/index:1/range:0:1:0;OW,update,variable_flags/keyword:STORE:6/range:0:1:0;"
     "OW,update,variable_flags/keyword:STOREDIST:6/range:0:1:0",
     NULL},
    {"georadius_ro", "RO,access/index:1/range:0:1:0", NULL},
    {"georadiusbymember",
     "RO,access/index:1/range:0:1:0;OW,update,variable_flags/keyword:STORE:5/range:0:1:0;"
     "OW,update,variable_flags/keyword:STOREDIST:5/range:0:1:0",
     NULL},
    {"georadiusbymember_ro", "RO,access/index:1/range:0:1:0", NULL},
    {"geosearch", "RO,access/index:1/range:0:1:0", NULL},
    {"geosearchstore", "OW,update/index:1/range:0:1:0;RO,access/index:2/range:0:1:0", NULL},
    {"get", "RO,access/index:1/range:0:1:0", NULL},
    {"getbit", "RO,access/index:1/range:0:1:0", NULL},
    {"getdel", "RW,access,delete/index:1/range:0:1:0", NULL},
    {"getex", "RW,access,update/index:1/range:0:1:0", NULL},
    {"getrange", "RO,access/index:1/range:0:1:0", NULL},
    {"getset", "RW,access,update/index:1/range:0:1:0", NULL},
    {"hdel", "RW,delete/index:1/range:0:1:0", NULL},
    {"hexists", "RO/index:1/range:0:1:0", NULL},
    {"hget", "RO,access/index:1/range:0:1:0", NULL},
    {"hgetall", "RO,access/index:1/range:0:1:0", "nondeterministic_output_order"},
    {"hincrby", "RW,access,update/index:1/range:0:1:0", NULL},
    {"hincrbyfloat", "RW,access,update/index:1/range:0:1:0", NULL},
    {"hkeys", "RO,access/index:1/range:0:1:0", "nondeterministic_output_order"},
    {"hlen", "RO/index:1/range:0:1:0", NULL},
    {"hmget", "RO,access/index:1/range:0:1:0", NULL},
    {"hmset", "RW,update/index:1/range:0:1:0", NULL},
    {"hrandfield", "RO,access/index:1/range:0:1:0", "nondeterministic_output"},
    {"hscan", "RO,access/index:1/range:0:1:0", "nondeterministic_output"},
    {"hset", "RW,update/index:1/range:0:1:0", NULL},
    {"hsetnx", "RW,insert/index:1/range:0:1:0", NULL},
    {"hstrlen", "RO/index:1/range:0:1:0", NULL},
    {"hvals", "RO,access/index:1/range:0:1:0", "nondeterministic_output_order"},
    {"incr", "RW,access,update/index:1/range:0:1:0", NULL},
    {"incrby", "RW,access,update/index:1/range:0:1:0", NULL},
    {"incrbyfloat", "RW,access,update/index:1/range:0:1:0", NULL},
    {"info", NULL, "nondeterministic_output request_policy:all_shards response_policy:special"},
    {"keys", NULL, "request_policy:all_shards nondeterministic_output_order"},
    {"lastsave", NULL, "nondeterministic_output"},
    {"latency|doctor", NULL, "nondeterministic_output request_policy:all_nodes response_policy:special"},
    {"latency|graph", NULL, "nondeterministic_output request_policy:all_nodes response_policy:special"},
    {"latency|histogram", NULL, "nondeterministic_output request_policy:all_nodes response_policy:special"},
    {"latency|history", NULL, "nondeterministic_output request_policy:all_nodes response_policy:special"},
    {"latency|latest", NULL, "nondeterministic_output request_policy:all_nodes response_policy:special"},
    {"latency|reset", NULL, "request_policy:all_nodes response_policy:agg_sum"},
    {"lcs", "RO,access/index:1/range:1:1:0", NULL},
    {"lindex", "RO,access/index:1/range:0:1:0", NULL},
    {"linsert", "RW,insert/index:1/range:0:1:0", NULL},
    {"llen", "RO/index:1/range:0:1:0", NULL},
    {"lmove", "RW,access,delete/index:1/range:0:1:0;RW,insert/index:2/range:0:1:0", NULL},
    {"lmpop", "RW,access,delete/index:1/keynum:0:1:1", NULL},
    {"lpop", "RW,access,delete/index:1/range:0:1:0", NULL},
    {"lpos", "RO,access/index:1/range:0:1:0", NULL},
    {"lpush", "RW,insert/index:1/range:0:1:0", NULL},
    {"lpushx", "RW,insert/index:1/range:0:1:0", NULL},
    {"lrange", "RO,access/index:1/range:0:1:0", NULL},
    {"lrem", "RW,delete/index:1/range:0:1:0", NULL},
    {"lset", "RW,update/index:1/range:0:1:0", NULL},
    {"ltrim", "RW,delete/index:1/range:0:1:0", NULL},
    {"memory|doctor", NULL, "nondeterministic_output request_policy:all_shards response_policy:special"},
    {"memory|malloc-stats", NULL, "nondeterministic_output request_policy:all_shards response_policy:special"},
    {"memory|purge", NULL, "request_policy:all_shards response_policy:all_succeeded"},
    {"memory|stats", NULL, "nondeterministic_output request_policy:all_shards response_policy:special"},
    {"memory|usage", "RO/index:2/range:0:1:0", NULL},
    {"mget", "RO,access/index:1/range:-1:1:0", "request_policy:multi_shard"},
    {"migrate", "RW,access,delete/index:3/range:0:1:0;RW,access,delete,incomplete/keyword:KEYS:-2/range:-1:1:0",
     "nondeterministic_output"},
    {"module|list", NULL, "nondeterministic_output_order"},
    {"move", "RW,access,update/index:1/range:0:1:0", NULL},
    {"mset", "OW,update/index:1/range:-1:2:0", "request_policy:multi_shard response_policy:all_succeeded"},
    {"msetnx", "OW,insert/index:1/range:-1:2:0", NULL},
    {"object|encoding", "RO/index:2/range:0:1:0", "nondeterministic_output"},
    {"object|freq", "RO/index:2/range:0:1:0", "nondeterministic_output"},
    {"object|idletime", "RO/index:2/range:0:1:0", "nondeterministic_output"},
    {"object|refcount", "RO/index:2/range:0:1:0", "nondeterministic_output"},
    {"persist", "RW,update/index:1/range:0:1:0", NULL},
    {"pexpire", "RW,update/index:1/range:0:1:0", NULL},
    {"pexpireat", "RW,update/index:1/range:0:1:0", NULL},
    {"pexpiretime", "RO,access/index:1/range:0:1:0", NULL},
    {"pfadd", "RW,insert/index:1/range:0:1:0", NULL},
    {"pfcount", "RW,access/index:1/range:-1:1:0", NULL},
    {"pfdebug", "RW,access/index:2/range:0:1:0", NULL},
    {"pfmerge", "RW,access,insert/index:1/range:0:1:0;RO,access/index:2/range:-1:1:0", NULL},
    {"ping", NULL, "request_policy:all_shards response_policy:all_succeeded"},
    {"psetex", "OW,update/index:1/range:0:1:0", NULL},
    {"pttl", "RO,access/index:1/range:0:1:0", "nondeterministic_output"},
    {"randomkey", NULL, "request_policy:all_shards response_policy:special nondeterministic_output"},
    {"rename", "RW,access,delete/index:1/range:0:1:0;OW,update/index:2/range:0:1:0", NULL},
    {"renamenx", "RW,access,delete/index:1/range:0:1:0;OW,insert/index:2/range:0:1:0", NULL},
    {"restore", "OW,update/index:1/range:0:1:0", NULL},
    {"restore-asking", "OW,update/index:1/range:0:1:0", NULL},
    {"rpop", "RW,access,delete/index:1/range:0:1:0", NULL},
    {"rpoplpush", "RW,access,delete/index:1/range:0:1:0;RW,insert/index:2/range:0:1:0", NULL},
    {"rpush", "RW,insert/index:1/range:0:1:0", NULL},
    {"rpushx", "RW,insert/index:1/range:0:1:0", NULL},
    {"sadd", "RW,insert/index:1/range:0:1:0", NULL},
    {"scan", NULL, "nondeterministic_output request_policy:special response_policy:special"},
    {"scard", "RO/index:1/range:0:1:0", NULL},
    {"script|exists", NULL, "request_policy:all_shards response_policy:agg_logical_and"},
    {"script|flush", NULL, "request_policy:all_nodes response_policy:all_succeeded"},
    {"script|kill", NULL, "request_policy:all_shards response_policy:one_succeeded"},
    {"script|load", NULL, "request_policy:all_nodes response_policy:all_succeeded"},
    {"sdiff", "RO,access/index:1/range:-1:1:0", "nondeterministic_output_order"},
    {"sdiffstore", "OW,update/index:1/range:0:1:0;RO,access/index:2/range:-1:1:0", NULL},
    {"set", "RW,access,update,variable_flags/index:1/range:0:1:0", NULL},
    {"setbit", "RW,access,update/index:1/range:0:1:0", NULL},
    {"setex", "OW,update/index:1/range:0:1:0", NULL},
    {"setnx", "OW,insert/index:1/range:0:1:0", NULL},
    {"setrange", "RW,update/index:1/range:0:1:0", NULL},
    {"sinter", "RO,access/index:1/range:-1:1:0", "nondeterministic_output_order"},
    {"sintercard", "RO,access/index:1/keynum:0:1:1", NULL},
    {"sinterstore", "OW,update/index:1/range:0:1:0;RO,access/index:2/range:-1:1:0", NULL},
    {"sismember", "RO/index:1/range:0:1:0", NULL},
    {"slowlog|get", NULL, "request_policy:all_nodes nondeterministic_output"},
    {"slowlog|len", NULL, "request_policy:all_nodes response_policy:agg_sum nondeterministic_output"},
    {"slowlog|reset", NULL, "request_policy:all_nodes response_policy:all_succeeded"},
    {"smembers", "RO,access/index:1/range:0:1:0", "nondeterministic_output_order"},
    {"smismember", "RO,access/index:1/range:0:1:0", NULL},
    {"smove", "RW,access,delete/index:1/range:0:1:0;RW,insert/index:2/range:0:1:0", NULL},
    {"sort", "RO,access/index:1/range:0:1:0;RO,access/unknown/unknown;OW,update/unknown/unknown", NULL},
    {"sort_ro", "RO,access/index:1/range:0:1:0;RO,access/unknown/unknown", NULL},
    {"spop", "RW,access,delete/index:1/range:0:1:0", "nondeterministic_output"},
    {"spublish", "not_key/index:1/range:0:1:0", NULL},
    {"srandmember", "RO,access/index:1/range:0:1:0", "nondeterministic_output"},
    {"srem", "RW,delete/index:1/range:0:1:0", NULL},
    {"sscan", "RO,access/index:1/range:0:1:0", "nondeterministic_output"},
    {"ssubscribe", "not_key/index:1/range:-1:1:0", NULL},
    {"strlen", "RO/index:1/range:0:1:0", NULL},
    {"substr", "RO,access/index:1/range:0:1:0", NULL},
    {"sunion", "RO,access/index:1/range:-1:1:0", "nondeterministic_output_order"},
    {"sunionstore", "OW,update/index:1/range:0:1:0;RO,access/index:2/range:-1:1:0", NULL},
    {"sunsubscribe", "not_key/index:1/range:-1:1:0", NULL},
    {"time", NULL, "nondeterministic_output"},
    {"touch", "RO/index:1/range:-1:1:0", "request_policy:multi_shard response_policy:agg_sum"},
    {"ttl", "RO,access/index:1/range:0:1:0", "nondeterministic_output"},
    {"type", "RO/index:1/range:0:1:0", NULL},
    {"unlink", "RM,delete/index:1/range:-1:1:0", "request_policy:multi_shard response_policy:agg_sum"},
    {"wait", NULL, "request_policy:all_shards response_policy:agg_min"},
    {"waitaof", NULL, "request_policy:all_shards response_policy:agg_min"},
    {"watch", "RO/index:1/range:-1:1:0", NULL},
    {"xack", "RW,update/index:1/range:0:1:0", NULL},
    {"xadd", "RW,update/index:1/range:0:1:0", "nondeterministic_output"},
    {"xautoclaim", "RW,delete/index:1/range:0:1:0", "nondeterministic_output"},
    {"xclaim", "RW,update/index:1/range:0:1:0", "nondeterministic_output"},
    {"xdel", "RW,delete/index:1/range:0:1:0", NULL},
    {"xgroup|create", "RW,insert/index:2/range:0:1:0", NULL},
    {"xgroup|createconsumer", "RW,insert/index:2/range:0:1:0", NULL},
    {"xgroup|delconsumer", "RW,delete/index:2/range:0:1:0", NULL},
    {"xgroup|destroy", "RW,delete/index:2/range:0:1:0", NULL},
    {"xgroup|setid", "RW,update/index:2/range:0:1:0", NULL},
    {"xinfo|consumers", "RO,access/index:2/range:0:1:0", "nondeterministic_output"},
    {"xinfo|groups", "RO,access/index:2/range:0:1:0", NULL},
    {"xinfo|stream", "RO,access/index:2/range:0:1:0", NULL},
    {"xlen", "RO/index:1/range:0:1:0", NULL},
    {"xpending", "RO,access/index:1/range:0:1:0", "nondeterministic_output"},
    {"xrange", "RO,access/index:1/range:0:1:0", NULL},
    {"xread", "RO,access/keyword:STREAMS:1/range:-1:1:2", NULL},
    {"xreadgroup", "RO,access/keyword:STREAMS:4/range:-1:1:2", NULL},
    {"xrevrange", "RO,access/index:1/range:0:1:0", NULL},
    {"xsetid", "RW,update/index:1/range:0:1:0", NULL},
    {"xtrim", "RW,delete/index:1/range:0:1:0", "nondeterministic_output"},
    {"zadd", "RW,update/index:1/range:0:1:0", NULL},
    {"zcard", "RO/index:1/range:0:1:0", NULL},
    {"zcount", "RO,access/index:1/range:0:1:0", NULL},
    {"zdiff", "RO,access/index:1/keynum:0:1:1", NULL},
    {"zdiffstore", "OW,update/index:1/range:0:1:0;RO,access/index:2/keynum:0:1:1", NULL},
    {"zincrby", "RW,access,update/index:1/range:0:1:0", NULL},
    {"zinter", "RO,access/index:1/keynum:0:1:1", NULL},
    {"zintercard", "RO,access/index:1/keynum:0:1:1", NULL},
    {"zinterstore", "OW,update/index:1/range:0:1:0;RO,access/index:2/keynum:0:1:1", NULL},
    {"zlexcount", "RO,access/index:1/range:0:1:0", NULL},
    {"zmpop", "RW,access,delete/index:1/keynum:0:1:1", NULL},
    {"zmscore", "RO,access/index:1/range:0:1:0", NULL},
    {"zpopmax", "RW,access,delete/index:1/range:0:1:0", NULL},
    {"zpopmin", "RW,access,delete/index:1/range:0:1:0", NULL},
    {"zrandmember", "RO,access/index:1/range:0:1:0", "nondeterministic_output"},
    {"zrange", "RO,access/index:1/range:0:1:0", NULL},
    {"zrangebylex", "RO,access/index:1/range:0:1:0", NULL},
    {"zrangebyscore", "RO,access/index:1/range:0:1:0", NULL},
    {"zrangestore", "OW,update/index:1/range:0:1:0;RO,access/index:2/range:0:1:0", NULL},
    {"zrank", "RO,access/index:1/range:0:1:0", NULL},
    {"zrem", "RW,delete/index:1/range:0:1:0", NULL},
    {"zremrangebylex", "RW,delete/index:1/range:0:1:0", NULL},
    {"zremrangebyrank", "RW,delete/index:1/range:0:1:0", NULL},
    {"zremrangebyscore", "RW,delete/index:1/range:0:1:0", NULL},
    {"zrevrange", "RO,access/index:1/range:0:1:0", NULL},
    {"zrevrangebylex", "RO,access/index:1/range:0:1:0", NULL},
    {"zrevrangebyscore", "RO,access/index:1/range:0:1:0", NULL},
    {"zrevrank", "RO,access/index:1/range:0:1:0", NULL},
    {"zscan", "RO,access/index:1/range:0:1:0", "nondeterministic_output"},
    {"zscore", "RO,access/index:1/range:0:1:0", NULL},
    {"zunion", "RO,access/index:1/keynum:0:1:1", NULL},
    {"zunionstore", "OW,update/index:1/range:0:1:0;RO,access/index:2/keynum:0:1:1", NULL},
    {NULL, NULL, NULL},
};

static const commandMetaRow *commandMetaRowOf(const char *name) {
    for (const commandMetaRow *r = commandMetaTable; r->cmd; r++)
        if (!strcmp(r->cmd, name)) return r;
    return NULL;
}

/* Parses "N" into *v; returns 0 on success. */
static int keySpecInt(const char *s, int *v) {
    char *end;
    long l = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || l < -1000 || l > 1000) return -1;
    *v = (int)l;
    return 0;
}

/* Parses one "flags/begin/find" spec into ks; returns 0, or -1 with err. */
static int keySpecParseOne(const char *text, struct keySpecDesc *ks, const char **err) {
    int nparts = 0, nf = 0, nb = 0, nk = 0, ret = -1;
    sds *parts = sdssplitlen(text, strlen(text), "/", 1, &nparts);
    sds *fw = NULL, *bw = NULL, *kw = NULL;
    memset(ks, 0, sizeof(*ks));
    *err = "expected flags/begin_search/find_keys";
    if (nparts != 3) goto done;
    fw = sdssplitlen(parts[0], sdslen(parts[0]), ",", 1, &nf);
    for (int j = 0; j < nf; j++) {
        int found = 0;
        for (int k = 0; keySpecFlagNames[k].name; k++) {
            if (!strcmp(fw[j], keySpecFlagNames[k].name)) {
                ks->flags |= keySpecFlagNames[k].bit;
                found = 1;
            }
        }
        *err = "unknown key-spec flag";
        if (!found) goto done;
    }
    *err = "bad begin_search";
    bw = sdssplitlen(parts[1], sdslen(parts[1]), ":", 1, &nb);
    if (nb == 2 && !strcmp(bw[0], "index")) {
        ks->bs_type = KSPEC_BS_INDEX;
        if (keySpecInt(bw[1], &ks->bs_pos)) goto done;
    } else if (nb == 3 && !strcmp(bw[0], "keyword")) {
        ks->bs_type = KSPEC_BS_KEYWORD;
        ks->bs_keyword = sdsdup(bw[1]);
        if (keySpecInt(bw[2], &ks->bs_pos)) goto done;
    } else if (nb == 1 && !strcmp(bw[0], "unknown")) {
        ks->bs_type = KSPEC_BS_UNKNOWN;
    } else {
        goto done;
    }
    *err = "bad find_keys";
    kw = sdssplitlen(parts[2], sdslen(parts[2]), ":", 1, &nk);
    if (nk == 4 && (!strcmp(kw[0], "range") || !strcmp(kw[0], "keynum"))) {
        ks->fk_type = !strcmp(kw[0], "range") ? KSPEC_FK_RANGE : KSPEC_FK_KEYNUM;
        for (int j = 0; j < 3; j++)
            if (keySpecInt(kw[j + 1], &ks->fk_args[j])) goto done;
    } else if (nk == 1 && !strcmp(kw[0], "unknown")) {
        ks->fk_type = KSPEC_FK_UNKNOWN;
    } else {
        goto done;
    }
    ks->words = sdsempty();
    for (int k = 0; keySpecFlagNames[k].name; k++) {
        if (!(ks->flags & keySpecFlagNames[k].bit)) continue;
        if (sdslen(ks->words)) ks->words = sdscat(ks->words, " ");
        ks->words = sdscat(ks->words, keySpecFlagNames[k].name);
    }
    ret = 0;
done:
    if (ret == -1) sdsfree(ks->bs_keyword);
    sdsfreesplitres(parts, nparts);
    if (fw) sdsfreesplitres(fw, nf);
    if (bw) sdsfreesplitres(bw, nb);
    if (kw) sdsfreesplitres(kw, nk);
    return ret;
}

/* Gives cmd its key specs and tips from commandMetaTable (or, for a command
 * with keys that the table misses, one spec from its key triple). Exits on
 * a spec string that does not parse. */
static void commandAttachMeta(struct serverCommand *cmd) {
    const commandMetaRow *row = commandMetaRowOf(cmdName(cmd));
    sds synthesized = NULL;
    const char *specs = row ? row->key_specs : NULL;
    cmd->tips = row ? row->tips : NULL;
    if (specs == NULL && cmd->key.first > 0) {
        int last = cmd->key.last >= 0 ? cmd->key.last - cmd->key.first : cmd->key.last;
        synthesized = sdscatprintf(sdsempty(), "%s/index:%d/range:%d:%d:0",
                                   (cmd->flags & CMD_WRITE) ? "RW,update" : "RO,access", cmd->key.first, last,
                                   cmd->key.step > 0 ? cmd->key.step : 1);
        specs = synthesized;
    } else if (specs == NULL && cmd->getkeys_proc) {
        specs = (cmd->flags & CMD_WRITE) ? "RW,update/unknown/unknown" : "RO,access/unknown/unknown";
    }
    if (specs) {
        int n = 0;
        sds *texts = sdssplitlen(specs, strlen(specs), ";", 1, &n);
        cmd->key_spec_list = zcalloc(sizeof(struct keySpecDesc) * n);
        cmd->num_key_specs = n;
        for (int j = 0; j < n; j++) {
            const char *err;
            if (keySpecParseOne(texts[j], &cmd->key_spec_list[j], &err) == -1) {
                fprintf(stderr, "Command '%s': bad key spec '%s': %s\n", cmdName(cmd), texts[j], err);
                exit(1);
            }
        }
        sdsfreesplitres(texts, n);
    }
    sdsfree(synthesized);
}

/* The key spec that the idx-th key of cmd (in getKeysFromCommand order)
 * comes from: the first spec for the first key, the last spec for the
 * others (a destination or a list of sources). NULL if cmd has none. */
static struct keySpecDesc *commandKeySpecOfKey(struct serverCommand *cmd, int idx) {
    if (cmd->num_key_specs == 0) return NULL;
    return &cmd->key_spec_list[idx == 0 ? 0 : cmd->num_key_specs - 1];
}

/* The flags of cmd's key specs: its first (which = 0) or later keys'
 * (which = 1), as a space-separated list. */
static const char *commandKeySpecFlags(struct serverCommand *cmd, int which) {
    struct keySpecDesc *ks = commandKeySpecOfKey(cmd, which);
    return ks ? ks->words : "";
}

/* The legacy (first, last, step) of COMMAND INFO, derived from the key
 * specs the way Valkey does: one index/range spec is reported as is;
 * otherwise consecutive index/range specs with a step of 1 are merged and
 * the others left out. Returns 1 when the triple does not cover every key
 * (a spec left out, or an incomplete one): COMMAND INFO's movablekeys,
 * telling clients to ask COMMAND GETKEYS. A command without specs is
 * movable only by its CMD_MOVABLE_KEYS flag. */
static int commandLegacyKeyRange(struct serverCommand *cmd, int *first, int *last, int *step) {
    *first = *last = *step = 0;
    if (cmd->num_key_specs == 0) return (cmd->flags & CMD_MOVABLE_KEYS) != 0;
    if (cmd->num_key_specs == 1 && cmd->key_spec_list[0].bs_type == KSPEC_BS_INDEX &&
        cmd->key_spec_list[0].fk_type == KSPEC_FK_RANGE) {
        struct keySpecDesc *ks = &cmd->key_spec_list[0];
        *first = ks->bs_pos;
        *last = ks->fk_args[0] >= 0 ? ks->bs_pos + ks->fk_args[0] : ks->fk_args[0];
        *step = ks->fk_args[1];
        return (ks->flags & KSPEC_INCOMPLETE) != 0;
    }
    int lo = INT_MAX, hi = 0, prev = 0, movable = 0;
    for (int j = 0; j < cmd->num_key_specs; j++) {
        struct keySpecDesc *ks = &cmd->key_spec_list[j];
        if (ks->bs_type != KSPEC_BS_INDEX || ks->fk_type != KSPEC_FK_RANGE || ks->fk_args[1] != 1 ||
            (prev && prev != ks->bs_pos - 1)) {
            movable = 1;
            continue;
        }
        if (ks->flags & KSPEC_INCOMPLETE) movable = 1;
        if (ks->bs_pos < lo) lo = ks->bs_pos;
        int abs_last = ks->fk_args[0] >= 0 ? ks->bs_pos + ks->fk_args[0] : ks->fk_args[0];
        /* Unsigned: a negative (counted from the end) last key wins. */
        if ((unsigned)abs_last > (unsigned)hi) hi = abs_last;
        prev = hi;
    }
    if (lo == INT_MAX) return 1;
    *first = lo;
    *last = hi;
    *step = 1;
    return movable;
}

/* The flags of the key at argv[pos], the idx-th key cmd has in this argv,
 * as COMMAND GETKEYSANDFLAGS reports them: the spec's, with variable flags
 * resolved from the arguments as the command will use them (SET with GET
 * reads the old value, BITFIELD with only GETs is read-only). */
static const char *commandKeyFlags(struct serverCommand *cmd, robj **argv, int argc, int idx) {
    const char *name = cmdName(cmd);
    if (!strcmp(name, "set")) {
        for (int j = 3; j < argc; j++)
            if (!strcasecmp(objectGetVal(argv[j]), "get")) return "RW access update";
        return "OW update";
    }
    if (!strcmp(name, "bitfield")) {
        for (int j = 2; j < argc; j++) {
            const char *op = objectGetVal(argv[j]);
            int left = argc - j - 1;
            if (!strcasecmp(op, "get") && left >= 2) j += 2;
            else if (!strcasecmp(op, "overflow") && left >= 1) j += 1;
            else return "RW access update"; /* SET, INCRBY, or a syntax error: assume a write */
        }
        return "RO access";
    }
    /* GEORADIUS ... STORE: the destination is overwritten. */
    if (idx > 0 && (!strcmp(name, "georadius") || !strcmp(name, "georadiusbymember"))) return "OW update";
    /* MIGRATE with an empty key argument moves only its KEYS. */
    if (!strcmp(name, "migrate") && argc > 3 && sdslen(objectGetVal(argv[3])) == 0) idx = 1;
    return commandKeySpecFlags(cmd, idx > 0);
}

/* Replies a space-separated flag list as a set of status strings. */
static void addReplyFlagWords(client *c, const char *words) {
    int n;
    sds *w = sdssplitlen(words, strlen(words), " ", 1, &n);
    addReplySetLen(c, n);
    for (int j = 0; j < n; j++) addReplyStatusLength(c, w[j], sdslen(w[j]));
    sdsfreesplitres(w, n);
}

/* The key-spec flags of cmd's first (which = 0) or later keys, as a
 * space-separated list (stable for the life of the process), for ACL key
 * checks (acl.c). */
const char *commandKeySpecFlagsOf(struct serverCommand *cmd, int which) {
    return commandKeySpecFlags(cmd, which);
}

/* The flags of cmd's idx-th key with these arguments, variable flags
 * resolved (SET ... GET, BITFIELD, MIGRATE), for ACL key checks. Always a
 * string of static lifetime (acl.c remembers its parse by address). */
const char *commandKeyFlagsForArgv(struct serverCommand *cmd, robj **argv, int argc, int idx) {
    return commandKeyFlags(cmd, argv, argc, idx);
}

static void addReplyKeySpec(client *c, struct keySpecDesc *ks) {
    addReplyMapLen(c, 3);
    addReplyBulkCString(c, "flags");
    addReplyFlagSet(c, keySpecFlagNames, ks->flags);
    addReplyBulkCString(c, "begin_search");
    addReplyMapLen(c, 2);
    addReplyBulkCString(c, "type");
    switch (ks->bs_type) {
    case KSPEC_BS_INDEX:
        addReplyBulkCString(c, "index");
        addReplyBulkCString(c, "spec");
        addReplyMapLen(c, 1);
        addReplyBulkCString(c, "index");
        addReplyLongLong(c, ks->bs_pos);
        break;
    case KSPEC_BS_KEYWORD:
        addReplyBulkCString(c, "keyword");
        addReplyBulkCString(c, "spec");
        addReplyMapLen(c, 2);
        addReplyBulkCString(c, "keyword");
        addReplyBulkCBuffer(c, ks->bs_keyword, sdslen(ks->bs_keyword));
        addReplyBulkCString(c, "startfrom");
        addReplyLongLong(c, ks->bs_pos);
        break;
    case KSPEC_BS_UNKNOWN:
        addReplyBulkCString(c, "unknown");
        addReplyBulkCString(c, "spec");
        addReplyMapLen(c, 0);
        break;
    }
    static const char *range_fields[] = {"lastkey", "keystep", "limit"};
    static const char *keynum_fields[] = {"keynumidx", "firstkey", "keystep"};
    addReplyBulkCString(c, "find_keys");
    addReplyMapLen(c, 2);
    addReplyBulkCString(c, "type");
    if (ks->fk_type == KSPEC_FK_UNKNOWN) {
        addReplyBulkCString(c, "unknown");
        addReplyBulkCString(c, "spec");
        addReplyMapLen(c, 0);
        return;
    }
    const char **fields = ks->fk_type == KSPEC_FK_RANGE ? range_fields : keynum_fields;
    addReplyBulkCString(c, ks->fk_type == KSPEC_FK_RANGE ? "range" : "keynum");
    addReplyBulkCString(c, "spec");
    addReplyMapLen(c, 3);
    for (int j = 0; j < 3; j++) {
        addReplyBulkCString(c, fields[j]);
        addReplyLongLong(c, ks->fk_args[j]);
    }
}

static void addReplyCommandKeySpecs(client *c, struct serverCommand *cmd) {
    addReplyArrayLen(c, cmd->num_key_specs);
    for (int j = 0; j < cmd->num_key_specs; j++) addReplyKeySpec(c, &cmd->key_spec_list[j]);
}

/* Tips, as a set of status strings. */
static void addReplyCommandTips(client *c, struct serverCommand *cmd) {
    if (cmd->tips == NULL) {
        addReplySetLen(c, 0);
        return;
    }
    addReplyFlagWords(c, cmd->tips);
}

static int countSubcommands(struct serverCommand *cmd) {
    int n = 0;
    if (cmd->subcommands)
        for (struct serverCommand *sub = cmd->subcommands; sub->name; sub++) n++;
    return n;
}

/* One COMMAND INFO entry: name, arity, flags, first, last, step, ACL
 * categories, tips, key specs, subcommands. NULL cmd: a null reply. */
static void addReplyCommandInfo(client *c, struct serverCommand *cmd) {
    if (cmd == NULL) {
        addReplyNull(c);
        return;
    }
    addReplyArrayLen(c, 10);
    addReplyBulkCString(c, cmdName(cmd));
    addReplyLongLong(c, cmd->arity);
    int first, last, step;
    int movable = commandLegacyKeyRange(cmd, &first, &last, &step);
    addReplyFlagSet(c, commandFlagNames, (cmd->flags & ~CMD_MOVABLE_KEYS) | (movable ? CMD_MOVABLE_KEYS : 0));
    addReplyLongLong(c, first);
    addReplyLongLong(c, last);
    addReplyLongLong(c, step);
    /* Categories are reported with their '@'. */
    uint64_t cat = commandGetAclCategories(cmd);
    void *len = addReplyDeferredLen(c);
    int n = 0;
    for (int j = 0; aclCategoryNames[j].name; j++) {
        if (cat & aclCategoryNames[j].bit) {
            sds s = sdscatfmt(sdsempty(), "@%s", aclCategoryNames[j].name);
            addReplyStatusLength(c, s, sdslen(s));
            sdsfree(s);
            n++;
        }
    }
    setDeferredSetLen(c, len, n);
    addReplyCommandTips(c, cmd);
    addReplyCommandKeySpecs(c, cmd);
    addReplyArrayLen(c, countSubcommands(cmd));
    if (cmd->subcommands)
        for (struct serverCommand *sub = cmd->subcommands; sub->name; sub++) addReplyCommandInfo(c, sub);
}

static void addReplyAllCommandsInfo(client *c) {
    addReplyArrayLen(c, dictSize(server.commands));
    dictIterator *di = dictGetIterator(server.commands);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) addReplyCommandInfo(c, dictGetVal(de));
    dictReleaseIterator(di);
}

/* COMMAND: information on every command. */
void commandCommand(client *c) {
    if (c->argc != 1) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    addReplyAllCommandsInfo(c);
}

/* COMMAND COUNT */
void commandCountCommand(client *c) {
    addReplyLongLong(c, dictSize(server.commands));
}

/* COMMAND INFO [name ...]: with no name, every command. */
void commandInfoCommand(client *c) {
    if (c->argc == 2) {
        addReplyAllCommandsInfo(c);
        return;
    }
    addReplyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) addReplyCommandInfo(c, lookupCommandBySds(objectGetVal(c->argv[j])));
}

/* ---------------------------------------------------------------------------
 * COMMAND DOCS
 * ------------------------------------------------------------------------- */

/* Parses cmd's .args (and its subcommands') into arglist and attaches its
 * key specs and tips. On an error prints it and exits: a bad table is a
 * build mistake, not a runtime condition. */
static void commandParseArgs(struct serverCommand *cmd) {
    commandAttachMeta(cmd);
    if (cmd->args) {
        char err[512];
        if (cmdArgsParse(cmd->args, &cmd->arglist, &cmd->numargs, err, sizeof(err)) == -1) {
            fprintf(stderr, "Command '%s': bad argument syntax: %s\n", cmdName(cmd), err);
            exit(1);
        }
        for (int j = 0; j < cmd->numargs; j++) {
            if (cmd->arglist[j].type == CMDARG_KEY && !commandHasKeys(cmd)) {
                fprintf(stderr, "Command '%s': argument '%s' is a key but the command has no key positions\n",
                        cmdName(cmd), cmd->arglist[j].name);
                exit(1);
            }
        }
    }
    if (cmd->subcommands)
        for (struct serverCommand *sub = cmd->subcommands; sub->name; sub++) commandParseArgs(sub);
}

/* Parses the .args, key specs and tips of every row of every table. Called
 * once from main() after serverPopulateCommandTable() (so names are
 * complete); exits on a syntax error. */
void commandParseAllArgs(void) {
    for (int t = 0; serverCommandTables[t]; t++)
        for (struct serverCommand *cmd = serverCommandTables[t]; cmd->name; cmd++) commandParseArgs(cmd);
}

static void addReplyStatusFlag(client *c, int flags, int bit, const char *name, int *n) {
    if (!(flags & bit)) return;
    addReplyStatus(c, name);
    (*n)++;
}

/* Replies an array of argument maps: name, type, key_spec_index (keys: the
 * first key argument is the first spec's, later ones the last spec's, as
 * COMMAND GETKEYSANDFLAGS reports them), token, flags, nested arguments.
 * *nkeys counts the key arguments met so far. */
static void addReplyCommandArgs(client *c, struct serverCommand *cmd, cmdArg *args, int numargs, int *nkeys) {
    addReplyArrayLen(c, numargs);
    for (int j = 0; j < numargs; j++) {
        cmdArg *a = &args[j];
        int fields = 2 + (a->type == CMDARG_KEY) + (a->token != NULL) + (a->flags != 0) + (a->subargs != NULL);
        addReplyMapLen(c, fields);
        addReplyBulkCString(c, "name");
        addReplyBulkCString(c, a->name);
        addReplyBulkCString(c, "type");
        addReplyBulkCString(c, cmdArgTypeName(a->type));
        if (a->type == CMDARG_KEY) {
            addReplyBulkCString(c, "key_spec_index");
            addReplyLongLong(c, (*nkeys)++ == 0 || cmd->num_key_specs == 0 ? 0 : cmd->num_key_specs - 1);
        }
        if (a->token) {
            addReplyBulkCString(c, "token");
            addReplyBulkCString(c, a->token);
        }
        if (a->flags) {
            addReplyBulkCString(c, "flags");
            void *len = addReplyDeferredLen(c);
            int n = 0;
            addReplyStatusFlag(c, a->flags, CMDARG_OPTIONAL, "optional", &n);
            addReplyStatusFlag(c, a->flags, CMDARG_MULTIPLE, "multiple", &n);
            addReplyStatusFlag(c, a->flags, CMDARG_MULTIPLE_TOKEN, "multiple_token", &n);
            setDeferredSetLen(c, len, n);
        }
        if (a->subargs) {
            addReplyBulkCString(c, "arguments");
            addReplyCommandArgs(c, cmd, a->subargs, a->numsubargs, nkeys);
        }
    }
}

/* The group as COMMAND DOCS names it: "sorted-set" for our "sorted_set". */
static void addReplyCommandGroup(client *c, const char *group) {
    sds g = sdsnew(group);
    for (size_t j = 0; j < sdslen(g); j++)
        if (g[j] == '_') g[j] = '-';
    addReplyBulkSds(c, g);
}

/* Replies the docs map of cmd (without its name). */
static void addReplyCommandDocs(client *c, struct serverCommand *cmd) {
    int fields = (cmd->summary != NULL) + (cmd->since != NULL) + (cmd->group != NULL) + (cmd->complexity != NULL) +
                 (cmd->numargs > 0) + (cmd->subcommands != NULL);
    addReplyMapLen(c, fields);
    if (cmd->summary) {
        addReplyBulkCString(c, "summary");
        addReplyBulkCString(c, cmd->summary);
    }
    if (cmd->since) {
        addReplyBulkCString(c, "since");
        addReplyBulkCString(c, cmd->since);
    }
    if (cmd->group) {
        addReplyBulkCString(c, "group");
        addReplyCommandGroup(c, cmd->group);
    }
    if (cmd->complexity) {
        addReplyBulkCString(c, "complexity");
        addReplyBulkCString(c, cmd->complexity);
    }
    if (cmd->numargs > 0) {
        addReplyBulkCString(c, "arguments");
        int nkeys = 0;
        addReplyCommandArgs(c, cmd, cmd->arglist, cmd->numargs, &nkeys);
    }
    if (cmd->subcommands) {
        addReplyBulkCString(c, "subcommands");
        addReplyMapLen(c, countSubcommands(cmd));
        for (struct serverCommand *sub = cmd->subcommands; sub->name; sub++) {
            addReplyBulkCString(c, cmdName(sub));
            addReplyCommandDocs(c, sub);
        }
    }
}

/* COMMAND DOCS [name ...]: a map of name -> docs; unknown names are left
 * out. */
void commandDocsCommand(client *c) {
    if (c->argc == 2) {
        addReplyMapLen(c, dictSize(server.commands));
        dictIterator *di = dictGetIterator(server.commands);
        dictEntry *de;
        while ((de = dictNext(di)) != NULL) {
            struct serverCommand *cmd = dictGetVal(de);
            addReplyBulkCString(c, cmdName(cmd));
            addReplyCommandDocs(c, cmd);
        }
        dictReleaseIterator(di);
        return;
    }
    void *len = addReplyDeferredLen(c);
    int n = 0;
    for (int j = 2; j < c->argc; j++) {
        struct serverCommand *cmd = lookupCommandBySds(objectGetVal(c->argv[j]));
        if (cmd == NULL) continue;
        addReplyBulkCString(c, cmdName(cmd));
        addReplyCommandDocs(c, cmd);
        n++;
    }
    setDeferredMapLen(c, len, n);
}

/* ---------------------------------------------------------------------------
 * COMMAND LIST
 * ------------------------------------------------------------------------- */

typedef enum { LIST_FILTER_NONE, LIST_FILTER_MODULE, LIST_FILTER_ACLCAT, LIST_FILTER_PATTERN } listFilterType;

typedef struct {
    listFilterType type;
    const char *arg;
    uint64_t category; /* For LIST_FILTER_ACLCAT; 0 = no such category. */
} listFilter;

static int commandMatchesFilter(struct serverCommand *cmd, listFilter *f) {
    switch (f->type) {
    case LIST_FILTER_NONE: return 1;
    case LIST_FILTER_MODULE: return 0; /* No modules yet. */
    case LIST_FILTER_ACLCAT: return f->category && (commandGetAclCategories(cmd) & f->category);
    case LIST_FILTER_PATTERN: {
        const char *name = cmdName(cmd);
        return stringmatchlen(f->arg, strlen(f->arg), name, strlen(name), 1);
    }
    }
    return 0;
}

/* Replies the matching names of cmd and its subcommands; returns how many. */
static int commandListOne(client *c, struct serverCommand *cmd, listFilter *f) {
    int n = 0;
    if (commandMatchesFilter(cmd, f)) {
        addReplyBulkCString(c, cmdName(cmd));
        n++;
    }
    if (cmd->subcommands)
        for (struct serverCommand *sub = cmd->subcommands; sub->name; sub++) n += commandListOne(c, sub, f);
    return n;
}

/* COMMAND LIST [FILTERBY MODULE name | ACLCAT category | PATTERN glob] */
void commandListCommand(client *c) {
    listFilter f = {LIST_FILTER_NONE, NULL, 0};
    if (c->argc == 5 && !strcasecmp(objectGetVal(c->argv[2]), "filterby")) {
        const char *type = objectGetVal(c->argv[3]);
        f.arg = objectGetVal(c->argv[4]);
        if (!strcasecmp(type, "module")) {
            f.type = LIST_FILTER_MODULE;
        } else if (!strcasecmp(type, "aclcat")) {
            f.type = LIST_FILTER_ACLCAT;
            f.category = aclCategoryByName(f.arg);
        } else if (!strcasecmp(type, "pattern")) {
            f.type = LIST_FILTER_PATTERN;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    } else if (c->argc != 2) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    void *len = addReplyDeferredLen(c);
    int n = 0;
    dictIterator *di = dictGetIterator(server.commands);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) n += commandListOne(c, dictGetVal(de), &f);
    dictReleaseIterator(di);
    setDeferredArrayLen(c, len, n);
}

/* ---------------------------------------------------------------------------
 * COMMAND GETKEYS / GETKEYSANDFLAGS
 * ------------------------------------------------------------------------- */

static void commandGetKeysGeneric(client *c, int with_flags) {
    robj **argv = c->argv + 2;
    int argc = c->argc - 2;
    struct serverCommand *cmd = lookupCommand(argv, argc);
    if (cmd == NULL) {
        addReplyError(c, "Invalid command specified");
        return;
    }
    if (!commandHasKeys(cmd)) {
        addReplyError(c, "The command has no key arguments");
        return;
    }
    if ((cmd->arity > 0 && cmd->arity != argc) || argc < -cmd->arity) {
        addReplyError(c, "Invalid number of arguments specified for command");
        return;
    }
    int stack_keys[MAX_KEYS_BUFFER];
    int *keys = stack_keys;
    int numkeys = getKeysFromCommand(cmd, argv, argc, keys, MAX_KEYS_BUFFER);
    if (numkeys == MAX_KEYS_BUFFER) {
        /* Possibly more: ask again with room for every argument. */
        keys = zmalloc(sizeof(int) * argc);
        numkeys = getKeysFromCommand(cmd, argv, argc, keys, argc);
    }
    if (numkeys == 0) {
        if (cmd->flags & CMD_NO_MANDATORY_KEYS) addReplyArrayLen(c, 0);
        else addReplyError(c, "Invalid arguments specified for command");
    } else {
        addReplyArrayLen(c, numkeys);
        for (int j = 0; j < numkeys; j++) {
            if (with_flags) {
                addReplyArrayLen(c, 2);
                addReplyBulk(c, argv[keys[j]]);
                addReplyFlagWords(c, commandKeyFlags(cmd, argv, argc, j));
            } else {
                addReplyBulk(c, argv[keys[j]]);
            }
        }
    }
    if (keys != stack_keys) zfree(keys);
}

/* COMMAND GETKEYS command [arg ...] */
void commandGetKeysCommand(client *c) {
    commandGetKeysGeneric(c, 0);
}

/* COMMAND GETKEYSANDFLAGS command [arg ...] */
void commandGetKeysAndFlagsCommand(client *c) {
    commandGetKeysGeneric(c, 1);
}

/* COMMAND HELP */
void commandHelpCommand(client *c) {
    const char *help[] = {
        "(no subcommand)",
        "    Return details about every command of the server.",
        "COUNT",
        "    Return the number of commands of the server.",
        "DOCS [<command-name> ...]",
        "    Return the documentation of the given commands, or of every command.",
        "GETKEYS <full-command>",
        "    Return the keys found in a complete command line.",
        "GETKEYSANDFLAGS <full-command>",
        "    Return the keys found in a complete command line, with their flags.",
        "INFO [<command-name> ...]",
        "    Return details about the given commands, or about every command.",
        "LIST [FILTERBY (MODULE <module-name>|ACLCAT <category>|PATTERN <pattern>)]",
        "    Return the names of the commands, optionally only those matching the filter.",
        NULL,
    };
    addReplyHelp(c, help);
}
