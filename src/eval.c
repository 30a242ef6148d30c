/* eval.c - EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT.
 *
 * The script cache maps the SHA1 of a script body to its compiled Lua
 * function (kept in the registry of the EVAL VM under the SHA1) and the
 * flags of its "#!lua flags=..." shebang. A body without a shebang runs in
 * "compatibility" mode (EVAL_COMPAT): it may write, and OOM is checked at
 * its first write instead of before it starts. Bodies are compiled with
 * the shebang line blanked, so reported line numbers match the source.
 *
 * Admission: processCommand() judges EVAL* by the flags the script declares
 * (evalGetCommandFlags(): a script without no-writes is a write, refused
 * by NOREPLICAS, READONLY, OOM... before it starts); scriptRunAllowed()
 * checks them again when it starts, for what changed since a MULTI queued
 * it. A script without a shebang is judged as it writes (script_lua.c).
 *
 * Running a script: KEYS and ARGV are stored as globals of the VM (written
 * into the real globals table behind the read-only proxy), then
 * script_lua.c runs the function and writes the reply. SCRIPT FLUSH
 * discards the whole VM and cache and starts a fresh VM; with ASYNC (or,
 * given neither, lazyfree-lazy-user-flush) a cache of more than
 * LAZYFREE_THRESHOLD scripts is freed by the lazy free thread.
 *
 * Debugging: after SCRIPT DEBUG YES|SYNC an EVAL (or EVAL_RO) of that
 * client runs as a debugging session of script_debug.c, which needs the
 * source: EVALSHA is refused then.
 *
 * The VM is created by scriptingInit() from initServer()-time code paths on
 * first use; nothing here runs outside the event loop thread. */
#include <ctype.h>

#include "script_lua.h"
#include "script_debug.h"

typedef struct evalScript {
    sds body;  /* The script as sent. */
    int flags; /* SCRIPT_FLAG_* */
} evalScript;

static lua_State *evalLua = NULL;
static dict *evalScripts = NULL; /* sha (sds, lower case) -> evalScript* */

static void evalScriptDestructor(void *val) {
    evalScript *es = val;
    sdsfree(es->body);
    zfree(es);
}

static dictType evalScriptsDictType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .keyDestructor = dictSdsDestructor,
    .valDestructor = evalScriptDestructor,
};

static void evalCreateState(void) {
    evalLua = scriptLuaCreateVM();
    scriptLuaAddErrorHandlerGlobal(evalLua);
    evalScripts = dictCreate(&evalScriptsDictType);
}

/* Creates the EVAL VM and script cache if they do not exist yet. Safe to
 * call many times; done lazily so start-up stays cheap. */
void scriptingInit(void) {
    if (evalLua == NULL) evalCreateState();
}

static void evalFreeState(void *lua, void *scripts) {
    if (lua) lua_close(lua);
    if (scripts) dictRelease(scripts);
}

/* Drops the VM and the cache; async hands a big cache to lazyfree.c (the
 * VM is its own heap: nothing else in the server points into it). */
static void evalReleaseState(int async) {
    size_t scripts = evalScripts ? dictSize(evalScripts) : 0;
    if (async && scripts > LAZYFREE_THRESHOLD) lazyfreeSubmit(evalFreeState, evalLua, evalScripts, scripts);
    else evalFreeState(evalLua, evalScripts);
    evalLua = NULL;
    evalScripts = NULL;
}

/* The EVAL VM's heap, the script cache's bytes (bodies, SHA keys, table)
 * and its script count; see scriptingGetMemory(). */
static void evalGetMemory(size_t *vm, size_t *cache, unsigned long *scripts) {
    *vm = scriptLuaVMMemory(evalLua);
    *cache = 0;
    *scripts = 0;
    if (evalScripts == NULL) return;
    *scripts = dictSize(evalScripts);
    *cache = dictMemUsage(evalScripts);
    dictIterator *di = dictGetIterator(evalScripts);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        evalScript *es = dictGetVal(de);
        *cache += sdsAllocSize(dictGetKey(de)) + sdsAllocSize(es->body) + sizeof(*es);
    }
    dictReleaseIterator(di);
}

/* See server.h. */
void scriptingGetMemory(scriptingMemory *m) {
    evalGetMemory(&m->eval_vm, &m->eval_cache, &m->scripts);
    functionsGetMemory(&m->functions_vm, &m->functions_cache, &m->functions, &m->libraries);
}

/* ---------------------------------------------------------------------------
 * Shebang and compilation
 * ------------------------------------------------------------------------- */

/* Parses "#!lua flags=a,b" at the start of body. Sets *flags (EVAL_COMPAT
 * when there is no shebang) and *shebang_len. Returns NULL, or an error
 * message the caller frees. */
static sds evalParseShebang(const char *body, size_t len, int *flags, size_t *shebang_len) {
    *flags = 0;
    *shebang_len = 0;
    if (len < 2 || body[0] != '#' || body[1] != '!') {
        *flags = SCRIPT_FLAG_EVAL_COMPAT;
        return NULL;
    }
    const char *nl = memchr(body, '\n', len);
    size_t llen = nl ? (size_t)(nl - body) : len;
    *shebang_len = llen;
    int argc;
    sds *parts = sdssplitlen(body, llen, " ", 1, &argc);
    sds err = NULL;
    int nonempty = 0;
    for (int j = 0; j < argc && !err; j++) {
        if (sdslen(parts[j]) == 0) continue;
        if (nonempty++ == 0) {
            if (strcmp(parts[j], "#!lua")) err = sdscatprintf(sdsempty(), "Unexpected engine in script shebang: %s", parts[j]);
            continue;
        }
        if (strncmp(parts[j], "flags=", 6)) {
            err = sdscatprintf(sdsempty(), "Unknown lua shebang option: %s", parts[j]);
            continue;
        }
        int nflags;
        sds *names = sdssplitlen(parts[j] + 6, sdslen(parts[j]) - 6, ",", 1, &nflags);
        for (int k = 0; k < nflags && !err; k++) {
            int f;
            if (sdslen(names[k]) == 0) continue;
            if (scriptFlagFromName(names[k], sdslen(names[k]), &f) != C_OK)
                err = sdscatprintf(sdsempty(), "Unexpected flag in script shebang: %s", names[k]);
            else *flags |= f;
        }
        sdsfreesplitres(names, nflags);
    }
    sdsfreesplitres(parts, argc);
    return err;
}

/* Compiles body into the cache under sha (40 hex chars). Returns the
 * entry, or NULL with the error replied to c. */
static evalScript *evalCreateScript(client *c, const char *sha, robj *bodyobj) {
    sds body = objectGetVal(bodyobj);
    size_t len = sdslen(body);
    int flags;
    size_t shebang_len;
    sds err = evalParseShebang(body, len, &flags, &shebang_len);
    if (err) {
        addReplyErrorSds(c, err);
        return NULL;
    }
    /* Blank the shebang (as a comment) so line numbers stay true. */
    sds code = sdsnewlen(body, len);
    if (shebang_len) code[0] = code[1] = '-';
    if (scriptLuaLoadBuffer(evalLua, code, sdslen(code), "@user_script")) {
        addReplyErrorFormat(c, "Error compiling script (new function): %s", lua_tostring(evalLua, -1));
        lua_pop(evalLua, 1);
        sdsfree(code);
        return NULL;
    }
    sdsfree(code);
    lua_setfield(evalLua, LUA_REGISTRYINDEX, sha);
    evalScript *es = zmalloc(sizeof(*es));
    es->body = sdsnewlen(body, len);
    es->flags = flags;
    dictAdd(evalScripts, sdsnew(sha), es);
    return es;
}

/* ---------------------------------------------------------------------------
 * EVAL and friends
 * ------------------------------------------------------------------------- */

/* Sets global name = {argv[0..n)} in the real globals table. */
static void evalSetGlobalArray(const char *name, robj **argv, int n) {
    lua_State *L = evalLua;
    lua_getfield(L, LUA_REGISTRYINDEX, "vk_globals");
    lua_createtable(L, n, 0);
    for (int j = 0; j < n; j++) {
        robj *o = getDecodedObject(argv[j]);
        lua_pushlstring(L, objectGetVal(o), sdslen(objectGetVal(o)));
        decrRefCount(o);
        lua_rawseti(L, -2, j + 1);
    }
    lua_setfield(L, -2, name);
    lua_pop(L, 1);
}

/* Parses numkeys at argv[2]. Returns C_OK or replies the error. */
static int evalGetNumkeys(client *c, long long *numkeys) {
    if (getLongLongFromObjectOrReply(c, c->argv[2], numkeys, NULL) != C_OK) return C_ERR;
    if (*numkeys > c->argc - 3) {
        addReplyError(c, "Number of keys can't be greater than number of args");
        return C_ERR;
    }
    if (*numkeys < 0) {
        addReplyError(c, "Number of keys can't be negative");
        return C_ERR;
    }
    return C_OK;
}

void evalCommand(client *c);
void evalRoCommand(client *c);
void evalShaCommand(client *c);
void evalShaRoCommand(client *c);

/* See script_lua.h. */
int evalDeclaredScriptFlags(client *c, int *flags) {
    if (c->argc < 2) return 0;
    int evalsha = c->cmd->proc == evalShaCommand || c->cmd->proc == evalShaRoCommand;
    if (!evalsha && c->cmd->proc != evalCommand && c->cmd->proc != evalRoCommand) return 0;
    sds arg = objectGetVal(c->argv[1]);
    char sha[41];
    if (evalsha) {
        if (sdslen(arg) != 40) return 0;
        for (int j = 0; j < 40; j++) sha[j] = tolower((unsigned char)arg[j]);
        sha[40] = '\0';
    } else {
        scriptSha1Hex(sha, arg, sdslen(arg));
    }
    evalScript *es = NULL;
    if (evalScripts) {
        sds key = sdsnew(sha);
        es = dictFetchValue(evalScripts, key);
        sdsfree(key);
    }
    int f;
    if (es) {
        f = es->flags;
    } else {
        size_t shebang_len;
        if (evalsha) return 0;
        sds err = evalParseShebang(arg, sdslen(arg), &f, &shebang_len);
        if (err) {
            sdsfree(err);
            return 0;
        }
    }
    if (f & SCRIPT_FLAG_EVAL_COMPAT) return 0;
    *flags = f;
    return 1;
}

/* See server.h. The flags a script declares replace its command's write,
 * deny-oom, stale and may-replicate flags, as Valkey's getCommandFlags()
 * does. */
uint64_t scriptGetCommandFlags(client *c, uint64_t cmd_flags) {
    int f;
    if (!evalDeclaredScriptFlags(c, &f) && !fcallDeclaredScriptFlags(c, &f)) return cmd_flags;
    cmd_flags &= ~(CMD_WRITE | CMD_DENYOOM | CMD_STALE | CMD_MAY_REPLICATE);
    if (!(f & (SCRIPT_FLAG_ALLOW_OOM | SCRIPT_FLAG_NO_WRITES))) cmd_flags |= CMD_DENYOOM;
    if (!(f & SCRIPT_FLAG_NO_WRITES)) cmd_flags |= CMD_WRITE;
    if (f & SCRIPT_FLAG_ALLOW_STALE) cmd_flags |= CMD_STALE;
    return cmd_flags;
}

static void evalGenericCommand(client *c, int evalsha, int readonly) {
    long long numkeys;
    /* EVAL* are skip-monitor: shown here, before the commands they run. */
    replicationFeedMonitors(c, server.monitors, c->db->id, c->argv, c->argc);
    scriptingInit();
    if (evalGetNumkeys(c, &numkeys) != C_OK) return;

    char sha[41];
    sds arg = objectGetVal(c->argv[1]);
    if (evalsha) {
        if (sdslen(arg) != 40) {
            addReplyErrorObject(c, shared.noscripterr);
            return;
        }
        for (int j = 0; j < 40; j++) sha[j] = tolower((unsigned char)arg[j]);
        sha[40] = '\0';
    } else {
        scriptSha1Hex(sha, arg, sdslen(arg));
    }

    sds key = sdsnew(sha);
    evalScript *es = dictFetchValue(evalScripts, key);
    sdsfree(key);
    if (!es) {
        if (evalsha) {
            addReplyErrorObject(c, shared.noscripterr);
            return;
        }
        if ((es = evalCreateScript(c, sha, c->argv[1])) == NULL) return;
    }

    if (scriptRunAllowed(c, es->flags, readonly) != C_OK) return;

    evalSetGlobalArray("KEYS", c->argv + 3, (int)numkeys);
    evalSetGlobalArray("ARGV", c->argv + 3 + numkeys, c->argc - 3 - (int)numkeys);
    lua_getfield(evalLua, LUA_REGISTRYINDEX, sha);

    scriptRunCtx run;
    scriptRunStart(&run, c, sha, es->flags, 1, readonly);
    scriptLuaRun(evalLua, &run, 0);
    scriptRunEnd(&run);
}

/* The SCRIPT_FLAG_* of the script EVAL* of c would run: its shebang's
 * (EVAL parses the body's first line: the same flags the cache would give
 * it, without hashing the body), or the cached script's (EVALSHA).
 * Returns C_ERR when there is nothing to judge by: no such script, or a
 * bad shebang (the command itself then replies the error). */
static int evalScriptFlagsOf(client *c, int *flags) {
    sds arg = objectGetVal(c->argv[1]);
    if (c->cmd->proc == evalCommand || c->cmd->proc == evalRoCommand) {
        size_t shebang_len;
        sds err = evalParseShebang(arg, sdslen(arg), flags, &shebang_len);
        if (err == NULL) return C_OK;
        sdsfree(err);
        return C_ERR;
    }
    if (evalScripts == NULL || sdslen(arg) != 40) return C_ERR;
    char sha[41];
    for (int j = 0; j < 40; j++) sha[j] = tolower((unsigned char)arg[j]);
    sha[40] = '\0';
    sds key = sdsnewlen(sha, 40);
    evalScript *es = dictFetchValue(evalScripts, key);
    sdsfree(key);
    if (es == NULL) return C_ERR;
    *flags = es->flags;
    return C_OK;
}

/* See server.h. */
uint64_t evalGetCommandFlags(client *c, uint64_t cmd_flags) {
    int flags;
    if (c->argc < 2 || evalScriptFlagsOf(c, &flags) != C_OK) return cmd_flags;
    return scriptFlagsToCommandFlags(cmd_flags, flags);
}

static void evalPlain(client *c) {
    evalGenericCommand(c, 0, 0);
}

static void evalRoPlain(client *c) {
    evalGenericCommand(c, 0, 1);
}

/* EVAL script numkeys [key ...] [arg ...]; after SCRIPT DEBUG YES|SYNC
 * the run is a debugging session (script_debug.c). */
void evalCommand(client *c) {
    if (ldbWantsSession(c)) ldbRunEval(c, evalPlain);
    else evalPlain(c);
}

/* EVAL_RO: as EVAL, writes refused. */
void evalRoCommand(client *c) {
    if (ldbWantsSession(c)) ldbRunEval(c, evalRoPlain);
    else evalRoPlain(c);
}

/* EVALSHA and EVALSHA_RO: the debugger needs the source, so they refuse
 * to run in debug mode. */
static void evalShaGenericCommand(client *c, int readonly) {
    if (ldbWantsSession(c)) {
        replicationFeedMonitors(c, server.monitors, c->db->id, c->argv, c->argc);
        if (sdslen(objectGetVal(c->argv[1])) != 40) addReplyErrorObject(c, shared.noscripterr);
        else addReplyError(c, "Please use EVAL instead of EVALSHA for debugging");
        return;
    }
    evalGenericCommand(c, 1, readonly);
}

/* EVALSHA sha1 numkeys [key ...] [arg ...] */
void evalShaCommand(client *c) {
    evalShaGenericCommand(c, 0);
}

/* EVALSHA_RO: as EVALSHA, writes refused. */
void evalShaRoCommand(client *c) {
    evalShaGenericCommand(c, 1);
}

/* Keys of EVAL-style commands: argv[2] is numkeys, the keys follow it. */
int evalGetKeys(struct serverCommand *cmd, robj **argv, int argc, int *keys, int maxkeys) {
    (void)cmd;
    long long numkeys;
    if (argc < 3 || getLongLongFromObject(argv[2], &numkeys) != C_OK) return 0;
    if (numkeys < 0 || numkeys > argc - 3) return 0;
    int n = 0;
    for (long long j = 0; j < numkeys && n < maxkeys; j++) keys[n++] = 3 + (int)j;
    return n;
}

/* ---------------------------------------------------------------------------
 * SCRIPT
 * ------------------------------------------------------------------------- */

static void scriptLoadCommand(client *c) {
    scriptingInit();
    char sha[41];
    sds body = objectGetVal(c->argv[2]);
    scriptSha1Hex(sha, body, sdslen(body));
    sds key = sdsnew(sha);
    int exists = dictFind(evalScripts, key) != NULL;
    sdsfree(key);
    if (!exists && evalCreateScript(c, sha, c->argv[2]) == NULL) return;
    addReplyBulkCBuffer(c, sha, 40);
}

static void scriptExistsCommand(client *c) {
    scriptingInit();
    addReplyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) {
        sds sha = sdsdup(objectGetVal(c->argv[j]));
        sdstolower(sha);
        addReply(c, dictFind(evalScripts, sha) ? shared.cone : shared.czero);
        sdsfree(sha);
    }
}

static void scriptFlushCommand(client *c) {
    if (c->argc > 3 ||
        (c->argc == 3 && strcasecmp(objectGetVal(c->argv[2]), "sync") && strcasecmp(objectGetVal(c->argv[2]), "async"))) {
        addReplyError(c, "SCRIPT FLUSH only support SYNC|ASYNC option");
        return;
    }
    int async = c->argc == 3 ? !strcasecmp(objectGetVal(c->argv[2]), "async") : server.lazyfree_lazy_user_flush;
    evalReleaseState(async);
    evalCreateState();
    addReply(c, shared.ok);
}

static void scriptKillCommand(client *c) {
    scriptKill(c, 1);
}

static void scriptHelpCommand(client *c) {
    const char *help[] = {
        "DEBUG (YES|SYNC|NO)",
        "    Set the debug mode for subsequent scripts executed.",
        "EXISTS <sha1> [<sha1> ...]",
        "    Return information about the existence of the scripts in the script cache.",
        "FLUSH [ASYNC|SYNC]",
        "    Flush the Lua scripts cache. Very dangerous on replicas.",
        "    When called without the optional mode argument, the behavior is determined by the",
        "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
        "    * ASYNC: Asynchronously flush the scripts cache.",
        "    * SYNC: Synchronously flush the scripts cache.",
        "KILL",
        "    Kill the currently executing Lua script.",
        "LOAD <script>",
        "    Load a script into the scripts cache without executing it.",
        "SHOW <sha1>",
        "    Show a script from the scripts cache.",
        NULL,
    };
    addReplyHelp(c, help);
}

static void scriptDebugCommand(client *c) {
    ldbScriptDebugCommand(c, objectGetVal(c->argv[2]));
}

/* SCRIPT SHOW sha1: the body of a cached script, as it was sent. */
static void scriptShowCommand(client *c) {
    scriptingInit();
    sds sha = objectGetVal(c->argv[2]);
    evalScript *es = NULL;
    if (sdslen(sha) == 40) {
        sds key = sdsdup(sha);
        sdstolower(key);
        es = dictFetchValue(evalScripts, key);
        sdsfree(key);
    }
    if (es == NULL) {
        addReplyErrorObject(c, shared.noscripterr);
        return;
    }
    addReplyBulkCBuffer(c, es->body, sdslen(es->body));
}

/* ---------------------------------------------------------------------------
 * Command table
 * ------------------------------------------------------------------------- */

#define EVAL_FLAGS \
    (CMD_NOSCRIPT | CMD_SKIP_MONITOR | CMD_MAY_REPLICATE | CMD_NO_MANDATORY_KEYS | CMD_STALE | CMD_MOVABLE_KEYS)
#define EVAL_RO_FLAGS \
    (CMD_NOSCRIPT | CMD_SKIP_MONITOR | CMD_NO_MANDATORY_KEYS | CMD_STALE | CMD_READONLY | CMD_MOVABLE_KEYS)

static struct serverCommand scriptSubcommands[] = {
    {.name = "debug", .proc = scriptDebugCommand, .arity = 3, .flags = CMD_NOSCRIPT,
     .acl_categories = ACL_CATEGORY_SCRIPTING | ACL_CATEGORY_SLOW, .group = "scripting", .since = "3.2.0",
     .summary = "Sets the debug mode of server-side Lua scripts.", .complexity = "O(1)",
     .args = "mode=<YES | SYNC | NO>"},
    {.name = "exists", .proc = scriptExistsCommand, .arity = -3, .flags = CMD_NOSCRIPT | CMD_STALE,
     .acl_categories = ACL_CATEGORY_SCRIPTING | ACL_CATEGORY_SLOW, .group = "scripting", .since = "2.6.0",
     .summary = "Determines whether server-side Lua scripts exist in the script cache.",
     .complexity = "O(N) with N being the number of scripts to check (so checking a single script is an O(1) "
                   "operation).",
     .args = "sha1 [sha1 ...]"},
    {.name = "flush", .proc = scriptFlushCommand, .arity = -2, .flags = CMD_NOSCRIPT | CMD_MAY_REPLICATE | CMD_STALE,
     .acl_categories = ACL_CATEGORY_SCRIPTING | ACL_CATEGORY_SLOW, .group = "scripting", .since = "2.6.0",
     .summary = "Removes all server-side Lua scripts from the script cache.",
     .complexity = "O(N) with N being the number of scripts in cache",
     .args = "[flush-type=[ASYNC | SYNC]]"},
    {.name = "help", .proc = scriptHelpCommand, .arity = 2, .flags = CMD_LOADING | CMD_STALE,
     .acl_categories = ACL_CATEGORY_SCRIPTING | ACL_CATEGORY_SLOW, .group = "scripting", .since = "5.0.0",
     .summary = "Returns helpful text about the different subcommands.", .complexity = "O(1)"},
    {.name = "kill", .proc = scriptKillCommand, .arity = 2, .flags = CMD_NOSCRIPT | CMD_ALLOW_BUSY,
     .acl_categories = ACL_CATEGORY_SCRIPTING | ACL_CATEGORY_SLOW, .group = "scripting", .since = "2.6.0",
     .summary = "Terminates a server-side Lua script during execution.", .complexity = "O(1)"},
    {.name = "load", .proc = scriptLoadCommand, .arity = 3, .flags = CMD_NOSCRIPT | CMD_STALE | CMD_DENYOOM,
     .acl_categories = ACL_CATEGORY_SCRIPTING | ACL_CATEGORY_SLOW, .group = "scripting", .since = "2.6.0",
     .summary = "Loads a server-side Lua script to the script cache.",
     .complexity = "O(N) with N being the length in bytes of the script body.",
     .args = "script"},
    {.name = "show", .proc = scriptShowCommand, .arity = 3, .flags = CMD_NOSCRIPT | CMD_STALE,
     .acl_categories = ACL_CATEGORY_KEYSPACE | ACL_CATEGORY_READ | ACL_CATEGORY_SCRIPTING | ACL_CATEGORY_SLOW,
     .group = "scripting", .since = "8.0.0",
     .summary = "Show server-side Lua script in the script cache.", .complexity = "O(1).",
     .args = "sha1"},
    {0},
};

struct serverCommand scriptingCommands[] = {
    {.name = "eval", .proc = evalCommand, .arity = -3, .flags = EVAL_FLAGS,
     .acl_categories = ACL_CATEGORY_SCRIPTING | ACL_CATEGORY_SLOW, .getkeys_proc = evalGetKeys,
     .group = "scripting", .since = "2.6.0", .summary = "Executes a server-side Lua script.",
     .complexity = "Depends on the script that is executed.",
     .args = "script numkeys [key [key ...]] [arg [arg ...]]"},
    {.name = "evalsha", .proc = evalShaCommand, .arity = -3, .flags = EVAL_FLAGS,
     .acl_categories = ACL_CATEGORY_SCRIPTING | ACL_CATEGORY_SLOW, .getkeys_proc = evalGetKeys,
     .group = "scripting", .since = "2.6.0", .summary = "Executes a server-side Lua script by SHA1 digest.",
     .complexity = "Depends on the script that is executed.",
     .args = "sha1 numkeys [key [key ...]] [arg [arg ...]]"},
    {.name = "eval_ro", .proc = evalRoCommand, .arity = -3, .flags = EVAL_RO_FLAGS,
     .acl_categories = ACL_CATEGORY_SCRIPTING | ACL_CATEGORY_SLOW, .getkeys_proc = evalGetKeys,
     .group = "scripting", .since = "7.0.0", .summary = "Executes a read-only server-side Lua script.",
     .complexity = "Depends on the script that is executed.",
     .args = "script numkeys [key [key ...]] [arg [arg ...]]"},
    {.name = "evalsha_ro", .proc = evalShaRoCommand, .arity = -3, .flags = EVAL_RO_FLAGS,
     .acl_categories = ACL_CATEGORY_SCRIPTING | ACL_CATEGORY_SLOW, .getkeys_proc = evalGetKeys,
     .group = "scripting", .since = "7.0.0", .summary = "Executes a read-only server-side Lua script by SHA1 digest.",
     .complexity = "Depends on the script that is executed.",
     .args = "sha1 numkeys [key [key ...]] [arg [arg ...]]"},
    {.name = "script", .subcommands = scriptSubcommands, .arity = -2, .group = "scripting", .since = "2.6.0",
     .summary = "A container for Lua scripts management commands.", .complexity = "Depends on subcommand."},
    {0},
};
