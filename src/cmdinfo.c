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
 *   - key specs are synthesised from the (first, last, step) triple, since
 *     our table does not carry full key-spec descriptions; their flags
 *     (RO/RW/OW/RM, access/update/insert/delete, ...) come from a table of
 *     Valkey's per command (keySpecFlagsTable), which COMMAND
 *     GETKEYSANDFLAGS also reports per key;
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

static int commandHasMovableKeys(struct serverCommand *cmd) {
    return (cmd->flags & CMD_MOVABLE_KEYS) || cmd->getkeys_proc != NULL;
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

/* Valkey's key-spec flags of each command with keys: what the command does
 * with a key (RO read-only, RW read-write, OW overwrite, RM remove) and to
 * its data (access, update, insert, delete), plus not_key / incomplete /
 * variable_flags. A command whose keys play two roles (a source and a
 * destination) has a second spec for every key after the first, e.g.
 * LMOVE's source "RW access delete" and destination "RW insert". A command
 * missing here falls back to the flags its CMD_* bits imply. */
typedef struct {
    const char *cmd;   /* full name, e.g. "xgroup|create" */
    const char *first; /* flags of the first key, space-separated */
    const char *rest;  /* flags of the later keys; NULL: as the first */
} keySpecFlagsRow;

static const keySpecFlagsRow keySpecFlagsTable[] = {
    /* Strings and bitmaps */
    {"get", "RO access", NULL},
    {"set", "RW access update variable_flags", NULL},
    {"setnx", "OW insert", NULL},
    {"setex", "OW update", NULL},
    {"psetex", "OW update", NULL},
    {"getset", "RW access update", NULL},
    {"getdel", "RW access delete", NULL},
    {"getex", "RW access update", NULL},
    {"mget", "RO access", NULL},
    {"mset", "OW update", NULL},
    {"msetnx", "OW insert", NULL},
    {"append", "RW insert", NULL},
    {"strlen", "RO", NULL},
    {"incr", "RW access update", NULL},
    {"decr", "RW access update", NULL},
    {"incrby", "RW access update", NULL},
    {"decrby", "RW access update", NULL},
    {"incrbyfloat", "RW access update", NULL},
    {"getrange", "RO access", NULL},
    {"substr", "RO access", NULL},
    {"setrange", "RW update", NULL},
    {"lcs", "RO access", NULL},
    {"setbit", "RW access update", NULL},
    {"getbit", "RO access", NULL},
    {"bitcount", "RO access", NULL},
    {"bitpos", "RO access", NULL},
    {"bitop", "OW update", "RO access"},
    {"bitfield", "RW update access variable_flags", NULL},
    {"bitfield_ro", "RO access", NULL},
    /* Keyspace */
    {"del", "RM delete", NULL},
    {"unlink", "RM delete", NULL},
    {"exists", "RO", NULL},
    {"touch", "RO", NULL},
    {"type", "RO", NULL},
    {"expire", "RW update", NULL},
    {"pexpire", "RW update", NULL},
    {"expireat", "RW update", NULL},
    {"pexpireat", "RW update", NULL},
    {"persist", "RW update", NULL},
    {"ttl", "RO access", NULL},
    {"pttl", "RO access", NULL},
    {"expiretime", "RO access", NULL},
    {"pexpiretime", "RO access", NULL},
    {"rename", "RW access delete", "OW insert"},
    {"renamenx", "RW access delete", "OW insert"},
    {"move", "RW access delete", NULL},
    {"copy", "RO access", "OW update"},
    {"dump", "RO access", NULL},
    {"restore", "OW update", NULL},
    {"restore-asking", "OW update", NULL},
    {"object|encoding", "RO", NULL},
    {"object|freq", "RO", NULL},
    {"object|idletime", "RO", NULL},
    {"object|refcount", "RO", NULL},
    {"memory|usage", "RO", NULL},
    {"watch", "RO", NULL},
    {"sort", "RO access", "OW update"},
    {"sort_ro", "RO access", NULL},
    {"migrate", "RW access delete", "RW access delete incomplete"},
    /* Lists */
    {"lpush", "RW insert", NULL},
    {"rpush", "RW insert", NULL},
    {"lpushx", "RW insert", NULL},
    {"rpushx", "RW insert", NULL},
    {"linsert", "RW insert", NULL},
    {"lpop", "RW access delete", NULL},
    {"rpop", "RW access delete", NULL},
    {"blpop", "RW access delete", NULL},
    {"brpop", "RW access delete", NULL},
    {"llen", "RO", NULL},
    {"lindex", "RO access", NULL},
    {"lrange", "RO access", NULL},
    {"lpos", "RO access", NULL},
    {"lset", "RW update", NULL},
    {"lrem", "RW delete", NULL},
    {"ltrim", "RW delete", NULL},
    {"lmove", "RW access delete", "RW insert"},
    {"blmove", "RW access delete", "RW insert"},
    {"rpoplpush", "RW access delete", "RW insert"},
    {"brpoplpush", "RW access delete", "RW insert"},
    {"lmpop", "RW access delete", NULL},
    {"blmpop", "RW access delete", NULL},
    /* Hashes */
    {"hset", "RW update", NULL},
    {"hmset", "RW update", NULL},
    {"hsetnx", "RW insert", NULL},
    {"hget", "RO access", NULL},
    {"hmget", "RO access", NULL},
    {"hdel", "RW delete", NULL},
    {"hexists", "RO", NULL},
    {"hlen", "RO", NULL},
    {"hstrlen", "RO", NULL},
    {"hgetall", "RO access", NULL},
    {"hkeys", "RO access", NULL},
    {"hvals", "RO access", NULL},
    {"hincrby", "RW access update", NULL},
    {"hincrbyfloat", "RW access update", NULL},
    {"hrandfield", "RO access", NULL},
    {"hscan", "RO access", NULL},
    /* Sets */
    {"sadd", "RW insert", NULL},
    {"srem", "RW delete", NULL},
    {"spop", "RW access delete", NULL},
    {"srandmember", "RO access", NULL},
    {"sismember", "RO", NULL},
    {"smismember", "RO", NULL},
    {"smembers", "RO access", NULL},
    {"scard", "RO", NULL},
    {"smove", "RW access delete", "RW insert"},
    {"sinter", "RO access", NULL},
    {"sunion", "RO access", NULL},
    {"sdiff", "RO access", NULL},
    {"sinterstore", "OW update", "RO access"},
    {"sunionstore", "OW update", "RO access"},
    {"sdiffstore", "OW update", "RO access"},
    {"sintercard", "RO access", NULL},
    {"sscan", "RO access", NULL},
    /* Sorted sets */
    {"zadd", "RW update", NULL},
    {"zincrby", "RW update", NULL},
    {"zrem", "RW delete", NULL},
    {"zremrangebyscore", "RW delete", NULL},
    {"zremrangebyrank", "RW delete", NULL},
    {"zremrangebylex", "RW delete", NULL},
    {"zcard", "RO", NULL},
    {"zcount", "RO access", NULL},
    {"zlexcount", "RO access", NULL},
    {"zscore", "RO access", NULL},
    {"zmscore", "RO access", NULL},
    {"zrank", "RO access", NULL},
    {"zrevrank", "RO access", NULL},
    {"zrange", "RO access", NULL},
    {"zrevrange", "RO access", NULL},
    {"zrangebyscore", "RO access", NULL},
    {"zrevrangebyscore", "RO access", NULL},
    {"zrangebylex", "RO access", NULL},
    {"zrevrangebylex", "RO access", NULL},
    {"zrangestore", "OW update", "RO access"},
    {"zpopmin", "RW access delete", NULL},
    {"zpopmax", "RW access delete", NULL},
    {"bzpopmin", "RW access delete", NULL},
    {"bzpopmax", "RW access delete", NULL},
    {"zmpop", "RW access delete", NULL},
    {"bzmpop", "RW access delete", NULL},
    {"zrandmember", "RO access", NULL},
    {"zscan", "RO access", NULL},
    {"zunionstore", "OW update", "RO access"},
    {"zinterstore", "OW update", "RO access"},
    {"zdiffstore", "OW update", "RO access"},
    {"zunion", "RO access", NULL},
    {"zinter", "RO access", NULL},
    {"zdiff", "RO access", NULL},
    {"zintercard", "RO access", NULL},
    /* Geo (sorted sets) */
    {"geoadd", "RW update", NULL},
    {"geodist", "RO access", NULL},
    {"geohash", "RO access", NULL},
    {"geopos", "RO access", NULL},
    {"georadius", "RO access", "OW update"},
    {"georadiusbymember", "RO access", "OW update"},
    {"georadius_ro", "RO access", NULL},
    {"georadiusbymember_ro", "RO access", NULL},
    {"geosearch", "RO access", NULL},
    {"geosearchstore", "OW update", "RO access"},
    /* HyperLogLog */
    {"pfadd", "RW insert", NULL},
    {"pfcount", "RW access", NULL},
    {"pfmerge", "RW access insert", "RO access"},
    {"pfdebug", "RW access", NULL},
    /* Streams */
    {"xadd", "RW update", NULL},
    {"xtrim", "RW delete", NULL},
    {"xdel", "RW delete", NULL},
    {"xlen", "RO", NULL},
    {"xrange", "RO access", NULL},
    {"xrevrange", "RO access", NULL},
    {"xread", "RO access", NULL},
    {"xreadgroup", "RW access", NULL},
    {"xack", "RW update", NULL},
    {"xclaim", "RW update", NULL},
    {"xautoclaim", "RW update", NULL},
    {"xpending", "RO access", NULL},
    {"xsetid", "RW update", NULL},
    {"xinfo|stream", "RO access", NULL},
    {"xinfo|groups", "RO access", NULL},
    {"xinfo|consumers", "RO access", NULL},
    {"xgroup|create", "RW insert", NULL},
    {"xgroup|setid", "RW update", NULL},
    {"xgroup|destroy", "RW delete", NULL},
    {"xgroup|createconsumer", "RW insert", NULL},
    {"xgroup|delconsumer", "RW delete", NULL},
    /* Scripts and functions */
    {"eval", "RW access update", NULL},
    {"evalsha", "RW access update", NULL},
    {"eval_ro", "RO access", NULL},
    {"evalsha_ro", "RO access", NULL},
    {"fcall", "RW access update", NULL},
    {"fcall_ro", "RO access", NULL},
    /* Shard channels are not keys, but are routed like them. */
    {"spublish", "not_key", NULL},
    {"ssubscribe", "not_key", NULL},
    {"sunsubscribe", "not_key", NULL},
    {NULL, NULL, NULL},
};

/* The table row of cmd, or NULL. */
static const keySpecFlagsRow *commandKeySpecFlagsRow(struct serverCommand *cmd) {
    const char *name = cmdName(cmd);
    for (const keySpecFlagsRow *r = keySpecFlagsTable; r->cmd; r++)
        if (!strcmp(r->cmd, name)) return r;
    return NULL;
}

/* The flags of cmd's key specs: its first (which = 0) or later keys'
 * (which = 1), as a space-separated list. */
static const char *commandKeySpecFlags(struct serverCommand *cmd, int which) {
    const keySpecFlagsRow *r = commandKeySpecFlagsRow(cmd);
    if (r) return which && r->rest ? r->rest : r->first;
    return (cmd->flags & CMD_WRITE) ? "RW update" : "RO access";
}

/* The flags of the key at argv[pos], the idx-th key cmd has in this argv,
 * as COMMAND GETKEYSANDFLAGS reports them: the spec's, with variable flags
 * resolved from the arguments as the command will use them (SET with GET
 * reads the old value, BITFIELD with only GETs is read-only). */
static const char *commandKeyFlags(struct serverCommand *cmd, robj **argv, int argc, int idx) {
    const char *name = cmdName(cmd);
    if (!strcmp(name, "set")) {
        for (int j = 3; j < argc; j++)
            if (!strcasecmp(argv[j]->ptr, "get")) return "RW access update";
        return "OW update";
    }
    if (!strcmp(name, "bitfield")) {
        for (int j = 2; j < argc; j++) {
            const char *op = argv[j]->ptr;
            int left = argc - j - 1;
            if (!strcasecmp(op, "get") && left >= 2) j += 2;
            else if (!strcasecmp(op, "overflow") && left >= 1) j += 1;
            else return "RW access update"; /* SET, INCRBY, or a syntax error: assume a write */
        }
        return "RO access";
    }
    /* MIGRATE with an empty key argument moves only its KEYS. */
    if (!strcmp(name, "migrate") && argc > 3 && sdslen(argv[3]->ptr) == 0) idx = 1;
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
 * space-separated list (a static string), for ACL key checks (acl.c). */
const char *commandKeySpecFlagsOf(struct serverCommand *cmd, int which) {
    return commandKeySpecFlags(cmd, which);
}

/* The flags of cmd's idx-th key with these arguments, variable flags
 * resolved (SET ... GET, BITFIELD, MIGRATE), for ACL key checks. Always a
 * static string (acl.c remembers its parse by address). */
const char *commandKeyFlagsForArgv(struct serverCommand *cmd, robj **argv, int argc, int idx) {
    return commandKeyFlags(cmd, argv, argc, idx);
}

static void addReplyKeySpecFlags(client *c, struct serverCommand *cmd) {
    addReplyFlagWords(c, commandKeySpecFlags(cmd, 0));
}

static void addReplyCommandKeySpecs(client *c, struct serverCommand *cmd) {
    if (!commandHasKeys(cmd)) {
        addReplyArrayLen(c, 0);
        return;
    }
    addReplyArrayLen(c, 1);
    addReplyMapLen(c, 3);
    addReplyBulkCString(c, "flags");
    addReplyKeySpecFlags(c, cmd);
    if (cmd->key.first > 0) {
        int lastkey = cmd->key.last >= 0 ? cmd->key.last - cmd->key.first : cmd->key.last;
        addReplyBulkCString(c, "begin_search");
        addReplyMapLen(c, 2);
        addReplyBulkCString(c, "type");
        addReplyBulkCString(c, "index");
        addReplyBulkCString(c, "spec");
        addReplyMapLen(c, 1);
        addReplyBulkCString(c, "index");
        addReplyLongLong(c, cmd->key.first);
        addReplyBulkCString(c, "find_keys");
        addReplyMapLen(c, 2);
        addReplyBulkCString(c, "type");
        addReplyBulkCString(c, "range");
        addReplyBulkCString(c, "spec");
        addReplyMapLen(c, 3);
        addReplyBulkCString(c, "lastkey");
        addReplyLongLong(c, lastkey);
        addReplyBulkCString(c, "keystep");
        addReplyLongLong(c, cmd->key.step > 0 ? cmd->key.step : 1);
        addReplyBulkCString(c, "limit");
        addReplyLongLong(c, 0);
    } else {
        /* Keys found only by the command's own getkeys_proc. */
        addReplyBulkCString(c, "begin_search");
        addReplyMapLen(c, 2);
        addReplyBulkCString(c, "type");
        addReplyBulkCString(c, "unknown");
        addReplyBulkCString(c, "spec");
        addReplyMapLen(c, 0);
        addReplyBulkCString(c, "find_keys");
        addReplyMapLen(c, 2);
        addReplyBulkCString(c, "type");
        addReplyBulkCString(c, "unknown");
        addReplyBulkCString(c, "spec");
        addReplyMapLen(c, 0);
    }
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
    addReplyFlagSet(c, commandFlagNames, cmd->flags | (commandHasMovableKeys(cmd) ? CMD_MOVABLE_KEYS : 0));
    addReplyLongLong(c, cmd->key.first);
    addReplyLongLong(c, cmd->key.last);
    addReplyLongLong(c, cmd->key.step);
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
    addReplySetLen(c, 0); /* Tips: none recorded in our table. */
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
    for (int j = 2; j < c->argc; j++) addReplyCommandInfo(c, lookupCommandBySds(c->argv[j]->ptr));
}

/* ---------------------------------------------------------------------------
 * COMMAND DOCS
 * ------------------------------------------------------------------------- */

/* Parses cmd's .args (and its subcommands') into arglist. On an error
 * prints it and exits: a bad table is a build mistake, not a runtime
 * condition. */
static void commandParseArgs(struct serverCommand *cmd) {
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

/* Parses the .args of every row of every table. Called once from main()
 * after serverPopulateCommandTable() (so names are complete); exits on a
 * syntax error. */
void commandParseAllArgs(void) {
    for (int t = 0; serverCommandTables[t]; t++)
        for (struct serverCommand *cmd = serverCommandTables[t]; cmd->name; cmd++) commandParseArgs(cmd);
}

static void addReplyStatusFlag(client *c, int flags, int bit, const char *name, int *n) {
    if (!(flags & bit)) return;
    addReplyStatus(c, name);
    (*n)++;
}

/* Replies an array of argument maps: name, type, key_spec_index (keys:
 * our single synthesised key spec), token, flags, nested arguments. */
static void addReplyCommandArgs(client *c, cmdArg *args, int numargs) {
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
            addReplyLongLong(c, 0);
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
            addReplyCommandArgs(c, a->subargs, a->numsubargs);
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
        addReplyCommandArgs(c, cmd->arglist, cmd->numargs);
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
        struct serverCommand *cmd = lookupCommandBySds(c->argv[j]->ptr);
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
    if (c->argc == 5 && !strcasecmp(c->argv[2]->ptr, "filterby")) {
        const char *type = c->argv[3]->ptr;
        f.arg = c->argv[4]->ptr;
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
