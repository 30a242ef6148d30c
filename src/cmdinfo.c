/* cmdinfo.c - the COMMAND command: introspection of the command table.
 *
 * COMMAND, COMMAND INFO/COUNT/LIST/DOCS/GETKEYS/GETKEYSANDFLAGS read the
 * rows that every subsystem declares (struct serverCommand, see server.h)
 * and report them in the Redis 7 / Valkey reply formats that clients use to
 * discover commands and route keys:
 *   - flags come from the CMD_* bits, with the names clients expect;
 *   - ACL categories are the row's acl_categories plus those implied by its
 *     flags (write -> @write, admin -> @admin @dangerous, not fast -> @slow,
 *     ...), the same derivation the ACL subsystem will use;
 *   - key specs are synthesised from the (first, last, step) triple, since
 *     our table does not carry full key-spec descriptions;
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
 * COMMAND GETKEYS uses it, and so will ACL key checks and cluster routing.
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

/* The key-spec flags we can infer from the command flags alone. */
static const char **commandKeySpecFlags(struct serverCommand *cmd, int *count) {
    static const char *rw[] = {"RW", "update"};
    static const char *ro[] = {"RO", "access"};
    *count = 2;
    return (cmd->flags & CMD_WRITE) ? rw : ro;
}

static void addReplyKeySpecFlags(client *c, struct serverCommand *cmd) {
    int n;
    const char **flags = commandKeySpecFlags(cmd, &n);
    addReplySetLen(c, n);
    for (int j = 0; j < n; j++) addReplyStatus(c, flags[j]);
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
                addReplyKeySpecFlags(c, cmd);
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
