/* functions.c - FUNCTION LOAD/LIST/DELETE/FLUSH/DUMP/RESTORE/STATS/KILL and
 * FCALL/FCALL_RO.
 *
 * The registry: `libraries` maps a library name to its functionLib, and
 * `functionsByName` maps every function name (one namespace across all
 * libraries) to its functionInfo, owned by the library's own dict. A load
 * builds the new library aside, checks for name clashes, and only then
 * swaps it in, so a failed FUNCTION LOAD [REPLACE] leaves everything as it
 * was. function_lua.c does the Lua side (load environment, callbacks).
 *
 * FUNCTION DUMP/RESTORE payloads follow the reference server's layout so
 * payloads travel between servers: for each library an RDB_OPCODE_FUNCTION2
 * record (functionsSaveRdb(), the same records an RDB file holds), sealed
 * like a DUMP payload (dump.c: RDB version and CRC-64).
 *
 * Everything runs in the event loop thread, except that FUNCTION FLUSH
 * ASYNC hands a big dropped registry (libraries and VM) to the lazy free
 * thread (functionsRegistryRelease()). */
#include <ctype.h>

#include "functions.h"
#include "dump.h"
#include "rdb.h"

static lua_State *functionsLua = NULL;
static dict *libraries = NULL;       /* name -> functionLib* */
static dict *functionsByName = NULL; /* name -> functionInfo* (not owned) */
static functionInfo *runningFunction = NULL;

/* Frees fi's C side; its callback's registry reference goes with the VM,
 * or with functionLibFree(lib, L) when the VM lives on. */
static void functionInfoFree(void *val) {
    functionInfo *fi = val;
    sdsfree(fi->name);
    if (fi->desc) sdsfree(fi->desc);
    zfree(fi);
}

/* Function names are case-insensitive, as in Valkey: FCALL MyFunc runs
 * myfunc, and a library cannot register both. */
static dictType libFunctionsDictType = {
    .hashFunction = dictSdsCaseHash,
    .keyCompare = dictSdsKeyCaseCompare,
    .keyDestructor = dictSdsDestructor,
    .valDestructor = functionInfoFree,
};

static dictType functionsByNameDictType = {
    .hashFunction = dictSdsCaseHash,
    .keyCompare = dictSdsKeyCaseCompare,
};

static dictType librariesDictType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
};

static functionLib *functionLibCreate(const char *name, size_t namelen, sds code) {
    functionLib *lib = zcalloc(sizeof(*lib));
    lib->name = sdsnewlen(name, namelen);
    lib->code = sdsdup(code);
    lib->functions = dictCreate(&libFunctionsDictType);
    return lib;
}

/* Frees lib. L is the VM its callbacks live in, whose references are
 * dropped; NULL when that VM is being closed anyway. */
static void functionLibFree(functionLib *lib, lua_State *L) {
    if (L) {
        dictIterator *di = dictGetIterator(lib->functions);
        dictEntry *de;
        while ((de = dictNext(di))) functionLuaReleaseFunction(L, dictGetVal(de));
        dictReleaseIterator(di);
    }
    dictRelease(lib->functions);
    sdsfree(lib->name);
    sdsfree(lib->code);
    zfree(lib);
}

static void functionsInit(void) {
    if (functionsLua) return;
    functionsLua = functionLuaCreateVM();
    libraries = dictCreate(&librariesDictType);
    functionsByName = dictCreate(&functionsByNameDictType);
}

/* Frees a whole registry: its libraries and the VM they live in. Runs in
 * the lazy free thread for FUNCTION FLUSH ASYNC: nothing else points into
 * a dropped registry. */
static void functionsRegistryFree(void *lua, void *libs) {
    dictIterator *di = dictGetIterator(libs);
    dictEntry *de;
    while ((de = dictNext(di))) functionLibFree(dictGetVal(de), NULL);
    dictReleaseIterator(di);
    dictRelease(libs);
    lua_close(lua);
}

/* Drops a registry (the by-name index owns nothing), with async in the
 * lazy free thread when it holds more than LAZYFREE_THRESHOLD functions. */
static void functionsRegistryRelease(lua_State *lua, dict *libs, dict *funcs, int async) {
    size_t count = dictSize(funcs);
    dictRelease(funcs);
    if (async && count > LAZYFREE_THRESHOLD) lazyfreeSubmit(functionsRegistryFree, lua, libs, count);
    else functionsRegistryFree(lua, libs);
}

/* Drops every library and starts a fresh VM. */
static void functionsReset(int async) {
    functionsInit();
    functionsRegistryRelease(functionsLua, libraries, functionsByName, async);
    functionsLua = NULL;
    functionsInit();
}

/* See server.h. Event loop. */
void functionsEmpty(void) {
    functionsReset(0);
}

static void functionLibUnlink(functionLib *lib) {
    dictIterator *di = dictGetIterator(lib->functions);
    dictEntry *de;
    while ((de = dictNext(di))) dictDelete(functionsByName, dictGetKey(de));
    dictReleaseIterator(di);
    dictDelete(libraries, lib->name);
}

static void functionLibLink(functionLib *lib) {
    dictIterator *di = dictGetIterator(lib->functions);
    dictEntry *de;
    while ((de = dictNext(di))) dictAdd(functionsByName, dictGetKey(de), dictGetVal(de));
    dictReleaseIterator(di);
    dictAdd(libraries, lib->name, lib);
}

/* 1 if name is a valid library or function name: letters, digits and
 * underscores, at least one. */
static int functionsNameIsValid(const char *name, size_t len) {
    if (len == 0) return 0;
    for (size_t j = 0; j < len; j++)
        if (!isalnum((unsigned char)name[j]) && name[j] != '_') return 0;
    return 1;
}

/* Parses the shebang "#!<engine> name=<lib>" on the first line of code
 * (split as the shell would, so quotes group), checking what Valkey
 * checks in the order it does: the line itself, its options, the name,
 * then the engine. Returns the library name (caller frees) or NULL with
 * *err set (caller frees). */
static sds functionParseMetadata(sds code, sds *err) {
    *err = NULL;
    if (sdslen(code) < 2 || code[0] != '#' || code[1] != '!') {
        *err = sdsnew("Missing library metadata");
        return NULL;
    }
    const char *nl = memchr(code, '\n', sdslen(code));
    if (!nl) {
        *err = sdsnew("Invalid library metadata");
        return NULL;
    }
    sds line = sdsnewlen(code, nl - code);
    int argc = 0;
    sds *parts = sdssplitargs(line, &argc);
    sdsfree(line);
    if (parts == NULL || argc == 0) {
        if (parts) sdsfreesplitres(parts, argc);
        *err = sdsnew("Invalid library metadata");
        return NULL;
    }
    sds name = NULL;
    for (int j = 1; j < argc && !*err; j++) {
        if (strncasecmp(parts[j], "name=", 5)) {
            *err = sdscatprintf(sdsempty(), "Invalid metadata value given: %s", parts[j]);
        } else if (name) {
            *err = sdsnew("Invalid metadata value, name argument was given multiple times");
        } else {
            name = sdsnewlen(parts[j] + 5, sdslen(parts[j]) - 5);
        }
    }
    if (!*err && !name) *err = sdsnew("Library name was not given");
    if (!*err && !functionsNameIsValid(name, sdslen(name)))
        *err = sdsnew("Library names can only contain letters, numbers, or underscores(_) and must be at least one "
                      "character long");
    if (!*err && strcasecmp(parts[0] + 2, "lua"))
        *err = sdscatprintf(sdsempty(), "Engine '%s' not found", parts[0] + 2);
    sdsfreesplitres(parts, argc);
    if (*err) {
        sdsfree(name);
        return NULL;
    }
    return name;
}

/* Loads code as a library. With replace, an existing library of the same
 * name is replaced. Returns the library name (owned by the registry) or
 * NULL with *err set (caller frees). */
static const char *functionsCreateLibrary(sds code, int replace, sds *err) {
    functionsInit();
    sds name = functionParseMetadata(code, err);
    if (!name) return NULL;
    functionLib *old = dictFetchValue(libraries, name);
    if (old && !replace) {
        *err = sdscatprintf(sdsempty(), "Library '%s' already exists", name);
        sdsfree(name);
        return NULL;
    }
    functionLib *lib = functionLibCreate(name, sdslen(name), code);
    sdsfree(name);
    if (functionLuaLoadLibrary(functionsLua, lib, err) != C_OK) goto fail;
    if (dictSize(lib->functions) == 0) {
        *err = sdsnew("No functions registered");
        goto fail;
    }
    dictIterator *di = dictGetIterator(lib->functions);
    dictEntry *de;
    while ((de = dictNext(di))) {
        functionInfo *other = dictFetchValue(functionsByName, dictGetKey(de));
        if (other && other->lib != old) {
            *err = sdscatprintf(sdsempty(), "Function %s already exists", (char *)dictGetKey(de));
            break;
        }
    }
    dictReleaseIterator(di);
    if (*err) goto fail;
    if (old) {
        functionLibUnlink(old);
        functionLibFree(old, functionsLua);
    }
    functionLibLink(lib);
    return lib->name;

fail:
    functionLibFree(lib, functionsLua);
    return NULL;
}

/* ---------------------------------------------------------------------------
 * FCALL
 * ------------------------------------------------------------------------- */

void fcallCommand(client *c);
void fcallroCommand(client *c);

/* See script_lua.h. */
int fcallDeclaredScriptFlags(client *c, int *flags) {
    if (c->argc < 2 || (c->cmd->proc != fcallCommand && c->cmd->proc != fcallroCommand) || !functionsByName) return 0;
    functionInfo *fi = dictFetchValue(functionsByName, objectGetVal(c->argv[1]));
    if (!fi) return 0;
    *flags = fi->flags;
    return 1;
}

static void fcallGenericCommand(client *c, int readonly) {
    /* FCALL* are skip-monitor: shown here, before the commands they run. */
    replicationFeedMonitors(c, server.monitors, c->db->id, c->argv, c->argc);
    functionsInit();
    functionInfo *fi = dictFetchValue(functionsByName, objectGetVal(c->argv[1]));
    if (!fi) {
        addReplyError(c, "Function not found");
        return;
    }
    long long numkeys;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &numkeys, "Bad number of keys provided") != C_OK) return;
    if (numkeys > c->argc - 3) {
        addReplyError(c, "Number of keys can't be greater than number of args");
        return;
    }
    if (numkeys < 0) {
        addReplyError(c, "Number of keys can't be negative");
        return;
    }
    if (scriptRunAllowed(c, fi->flags, readonly) != C_OK) return;
    scriptRunCtx run;
    scriptRunStart(&run, c, fi->name, fi->flags, 0, readonly);
    runningFunction = fi;
    functionLuaCall(functionsLua, &run, fi, c->argv + 3, (int)numkeys, c->argv + 3 + numkeys,
                    c->argc - 3 - (int)numkeys);
    runningFunction = NULL;
    scriptRunEnd(&run);
}

/* See server.h. processCommand() judges FCALL by the function's flags: one
 * without no-writes is a write (NOREPLICAS, READONLY, OOM...), one without
 * allow-stale is refused by a stale replica. */
uint64_t fcallGetCommandFlags(client *c, uint64_t cmd_flags) {
    if (functionsByName == NULL || c->argc < 2) return cmd_flags;
    functionInfo *fi = dictFetchValue(functionsByName, objectGetVal(c->argv[1]));
    if (fi == NULL) return cmd_flags;
    return scriptFlagsToCommandFlags(cmd_flags, fi->flags);
}

/* FCALL function numkeys [key ...] [arg ...] */
void fcallCommand(client *c) {
    fcallGenericCommand(c, 0);
}

/* FCALL_RO: only functions flagged no-writes. */
void fcallroCommand(client *c) {
    fcallGenericCommand(c, 1);
}

/* Keys of FCALL: argv[2] is numkeys, the keys follow it. */
static int fcallGetKeys(struct serverCommand *cmd, robj **argv, int argc, int *keys, int maxkeys) {
    (void)cmd;
    long long numkeys;
    if (argc < 3 || getLongLongFromObject(argv[2], &numkeys) != C_OK) return 0;
    if (numkeys < 0 || numkeys > argc - 3) return 0;
    int n = 0;
    for (long long j = 0; j < numkeys && n < maxkeys; j++) keys[n++] = 3 + (int)j;
    return n;
}

/* ---------------------------------------------------------------------------
 * FUNCTION subcommands
 * ------------------------------------------------------------------------- */

/* FUNCTION LOAD [REPLACE] code: options come before the code, which is
 * always the last argument (REPLACE may be repeated). */
static void functionLoadCommand(client *c) {
    int replace = 0, argpos = 2;
    for (; argpos < c->argc - 1; argpos++) {
        if (strcasecmp(objectGetVal(c->argv[argpos]), "replace")) {
            addReplyErrorFormat(c, "Unknown option given: %s", (char *)objectGetVal(c->argv[argpos]));
            return;
        }
        replace = 1;
    }
    sds err = NULL;
    robj *code = getDecodedObject(c->argv[argpos]);
    const char *name = functionsCreateLibrary(objectGetVal(code), replace, &err);
    decrRefCount(code);
    if (!name) {
        addReplyErrorSds(c, err);
        return;
    }
    addReplyBulkCString(c, name);
    server.dirty++; /* a data change: replicated, counts for save points */
}

static void functionListCommand(client *c) {
    functionsInit();
    int withcode = 0;
    const char *pattern = NULL;
    for (int j = 2; j < c->argc; j++) {
        const char *opt = objectGetVal(c->argv[j]);
        if (!strcasecmp(opt, "withcode") && !withcode) {
            withcode = 1;
        } else if (!strcasecmp(opt, "libraryname") && !pattern) {
            if (j + 1 >= c->argc) {
                addReplyError(c, "library name argument was not given");
                return;
            }
            pattern = objectGetVal(c->argv[++j]);
        } else {
            addReplyErrorFormat(c, "Unknown argument %s", opt);
            return;
        }
    }
    void *len = addReplyDeferredLen(c);
    long n = 0;
    dictIterator *di = dictGetIterator(libraries);
    dictEntry *de;
    while ((de = dictNext(di))) {
        functionLib *lib = dictGetVal(de);
        if (pattern && !stringmatchlen(pattern, strlen(pattern), lib->name, sdslen(lib->name), 0)) continue;
        n++;
        addReplyMapLen(c, withcode ? 4 : 3);
        addReplyBulkCString(c, "library_name");
        addReplyBulkCBuffer(c, lib->name, sdslen(lib->name));
        addReplyBulkCString(c, "engine");
        addReplyBulkCString(c, "LUA");
        addReplyBulkCString(c, "functions");
        addReplyArrayLen(c, dictSize(lib->functions));
        dictIterator *fdi = dictGetIterator(lib->functions);
        dictEntry *fde;
        while ((fde = dictNext(fdi))) {
            functionInfo *fi = dictGetVal(fde);
            addReplyMapLen(c, 3);
            addReplyBulkCString(c, "name");
            addReplyBulkCBuffer(c, fi->name, sdslen(fi->name));
            addReplyBulkCString(c, "description");
            if (fi->desc) addReplyBulkCBuffer(c, fi->desc, sdslen(fi->desc));
            else addReplyNull(c);
            addReplyBulkCString(c, "flags");
            static const char *flagnames[] = {"no-writes", "allow-oom", "allow-stale", "no-cluster",
                                              "allow-cross-slot-keys"};
            int nflags = 0;
            for (int b = 0; b < 5; b++)
                if (fi->flags & (1 << b)) nflags++;
            addReplySetLen(c, nflags);
            for (int b = 0; b < 5; b++)
                if (fi->flags & (1 << b)) addReplyStatus(c, flagnames[b]);
        }
        dictReleaseIterator(fdi);
        if (withcode) {
            addReplyBulkCString(c, "library_code");
            addReplyBulkCBuffer(c, lib->code, sdslen(lib->code));
        }
    }
    dictReleaseIterator(di);
    setDeferredArrayLen(c, len, n);
}

static void functionDeleteCommand(client *c) {
    functionsInit();
    functionLib *lib = dictFetchValue(libraries, objectGetVal(c->argv[2]));
    if (!lib) {
        addReplyError(c, "Library not found");
        return;
    }
    functionLibUnlink(lib);
    functionLibFree(lib, functionsLua);
    addReply(c, shared.ok);
    server.dirty++;
}

static void functionFlushCommand(client *c) {
    if (c->argc > 3 ||
        (c->argc == 3 && strcasecmp(objectGetVal(c->argv[2]), "sync") && strcasecmp(objectGetVal(c->argv[2]), "async"))) {
        addReplyError(c, "FUNCTION FLUSH only supports SYNC|ASYNC option");
        return;
    }
    functionsReset(c->argc == 3 ? !strcasecmp(objectGetVal(c->argv[2]), "async") : server.lazyfree_lazy_user_flush);
    addReply(c, shared.ok);
    server.dirty++;
}

static void functionKillCommand(client *c) {
    scriptKill(c, 0);
}

static void functionStatsCommand(client *c) {
    functionsInit();
    addReplyMapLen(c, 2);
    addReplyBulkCString(c, "running_script");
    scriptRunCtx *run = scriptCurrentRun();
    if (!run || !runningFunction) {
        addReplyNull(c);
    } else {
        addReplyMapLen(c, 3);
        addReplyBulkCString(c, "name");
        addReplyBulkCString(c, run->funcname);
        addReplyBulkCString(c, "command");
        addReplyArrayLen(c, run->caller->argc);
        for (int j = 0; j < run->caller->argc; j++) addReplyBulk(c, run->caller->argv[j]);
        addReplyBulkCString(c, "duration_ms");
        addReplyLongLong(c, mstime() - run->start);
    }
    addReplyBulkCString(c, "engines");
    addReplyMapLen(c, 1);
    addReplyBulkCString(c, "LUA");
    addReplyMapLen(c, 2);
    addReplyBulkCString(c, "libraries_count");
    addReplyLongLong(c, dictSize(libraries));
    addReplyBulkCString(c, "functions_count");
    addReplyLongLong(c, dictSize(functionsByName));
}

/* The functions VM's heap, the libraries' bytes (code, names, tables) and
 * the counts; see scriptingGetMemory(). */
void functionsGetMemory(size_t *vm, size_t *cache, unsigned long *functions, unsigned long *nlibs) {
    *vm = scriptLuaVMMemory(functionsLua);
    *cache = 0;
    *functions = *nlibs = 0;
    if (libraries == NULL) return;
    *nlibs = dictSize(libraries);
    *functions = dictSize(functionsByName);
    *cache = dictMemUsage(libraries) + dictMemUsage(functionsByName);
    dictIterator *di = dictGetIterator(libraries);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        functionLib *lib = dictGetVal(de);
        *cache += sizeof(*lib) + sdsAllocSize(lib->name) + sdsAllocSize(lib->code) + dictMemUsage(lib->functions);
        dictIterator *fi = dictGetIterator(lib->functions);
        dictEntry *fe;
        while ((fe = dictNext(fi)) != NULL) {
            functionInfo *f = dictGetVal(fe);
            *cache += sizeof(*f) + sdsAllocSize(f->name) + (f->desc ? sdsAllocSize(f->desc) : 0);
        }
        dictReleaseIterator(fi);
    }
    dictReleaseIterator(di);
}

/* ---------------------------------------------------------------------------
 * DUMP / RESTORE
 * ------------------------------------------------------------------------- */

/* Writes every library as an RDB_OPCODE_FUNCTION2 record: the opcode and
 * the code as an RDB string. Used by FUNCTION DUMP and by rdbSaveRio().
 * Returns C_OK or C_ERR on a write error. */
/* See server.h. */
dict *functionsLibraries(void) {
    functionsInit();
    return libraries;
}

int functionsSaveRdb(struct rio *r) {
    functionsInit();
    dictIterator *di = dictGetIterator(libraries);
    dictEntry *de;
    int ret = C_OK;
    while (ret == C_OK && (de = dictNext(di))) {
        functionLib *lib = dictGetVal(de);
        if (rdbSaveType(r, RDB_OPCODE_FUNCTION2) != C_OK || rdbSaveRawString(r, lib->code, sdslen(lib->code)) != C_OK)
            ret = C_ERR;
    }
    dictReleaseIterator(di);
    return ret;
}

/* Loads one library read from an RDB file (rdbLoadRio()). With replace an
 * existing library of the same name is replaced. Returns C_OK, or C_ERR
 * with *err set (the caller frees it). The caller keeps code. */
int functionsLoadLibraryFromRdb(sds code, int replace, sds *err) {
    return functionsCreateLibrary(code, replace, err) ? C_OK : C_ERR;
}

/* See server.h: the three statics of a registry, kept aside. */
struct functionsRegistry {
    lua_State *lua;
    dict *libraries;
    dict *functionsByName;
};

/* See server.h. */
functionsRegistry *functionsRegistryCreate(void) {
    functionsRegistry *r = zmalloc(sizeof(*r));
    r->lua = functionLuaCreateVM();
    r->libraries = dictCreate(&librariesDictType);
    r->functionsByName = dictCreate(&functionsByNameDictType);
    return r;
}

/* See server.h. */
void functionsRegistrySwapWithCurrent(functionsRegistry *r) {
    serverAssert(runningFunction == NULL);
    functionsInit();
    lua_State *lua = functionsLua;
    dict *libs = libraries, *funcs = functionsByName;
    functionsLua = r->lua, libraries = r->libraries, functionsByName = r->functionsByName;
    r->lua = lua, r->libraries = libs, r->functionsByName = funcs;
}

/* See server.h. The library is made in r's VM by making r current for
 * the time of the load, which runs no client command. */
int functionsRegistryLoadFromRdb(functionsRegistry *r, sds code, int replace, sds *err) {
    functionsRegistrySwapWithCurrent(r);
    int ret = functionsCreateLibrary(code, replace, err) ? C_OK : C_ERR;
    functionsRegistrySwapWithCurrent(r);
    return ret;
}

/* See server.h. */
void functionsRegistryDiscard(functionsRegistry *r) {
    functionsRegistryRelease(r->lua, r->libraries, r->functionsByName, 1);
    zfree(r);
}

/* Reads the libraries of a FUNCTION DUMP payload body (the records
 * functionsSaveRdb() writes) into codes. Returns NULL or an error. */
static sds functionsReadPayload(const unsigned char *body, size_t len, list *codes) {
    rio r;
    rioInitMemReader(&r, body, len);
    while (rioRemaining(&r) > 0) {
        if (rdbLoadType(&r) != RDB_OPCODE_FUNCTION2) return sdsnew("given type is not a function");
        sds code = rdbLoadString(&r, RDB_LOAD_SDS, NULL);
        if (!code) return sdsnew("payload is invalid");
        listAddNodeTail(codes, code);
    }
    return NULL;
}

static void functionDumpCommand(client *c) {
    rio r;
    rioInitSdsWriter(&r);
    functionsSaveRdb(&r); /* an sds writer does not fail */
    addReplyBulkSds(c, dumpPayloadSeal(rioSdsTake(&r)));
    rioRelease(&r);
}

static void functionRestoreCommand(client *c) {
    functionsInit();
    int policy = 1; /* 0 flush, 1 append, 2 replace */
    if (c->argc == 4) {
        const char *p = objectGetVal(c->argv[3]);
        if (!strcasecmp(p, "flush")) policy = 0;
        else if (!strcasecmp(p, "append")) policy = 1;
        else if (!strcasecmp(p, "replace")) policy = 2;
        else {
            addReplyError(c, "Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.");
            return;
        }
    } else if (c->argc > 4) {
        addReplyErrorArity(c);
        return;
    }
    robj *o = getDecodedObject(c->argv[2]);
    size_t bodylen;
    if (dumpPayloadVerify(objectGetVal(o), sdslen(objectGetVal(o)), &bodylen) != C_OK) {
        decrRefCount(o);
        addReplyError(c, "DUMP payload version or checksum are wrong");
        return;
    }
    /* Parse every library first, so a bad payload changes nothing. */
    list *codes = listCreate();
    listSetFreeMethod(codes, (void (*)(void *))sdsfree);
    sds err = functionsReadPayload(objectGetVal(o), bodylen, codes);
    decrRefCount(o);
    if (err) {
        listRelease(codes);
        addReplyErrorSds(c, err);
        return;
    }

    /* Load into a fresh registry; on success keep it (merged by policy). */
    lua_State *old_lua = functionsLua;
    dict *old_libs = libraries, *old_funcs = functionsByName;
    functionsLua = NULL;
    functionsInit();
    if (policy != 0) {
        /* Re-load the existing libraries first (APPEND/REPLACE keep them). */
        dictIterator *di = dictGetIterator(old_libs);
        dictEntry *de;
        while ((de = dictNext(di)) && !err) {
            functionLib *lib = dictGetVal(de);
            if (!functionsCreateLibrary(lib->code, 0, &err)) break;
        }
        dictReleaseIterator(di);
    }
    listIter li;
    listNode *ln;
    listRewind(codes, &li);
    while (!err && (ln = listNext(&li))) {
        sds e2 = NULL;
        if (!functionsCreateLibrary(listNodeValue(ln), policy == 2, &e2)) err = e2;
    }
    listRelease(codes);

    /* Keep whichever registry survives; free the other with its own VM. */
    lua_State *drop_lua;
    dict *drop_libs, *drop_funcs;
    if (err) {
        drop_lua = functionsLua, drop_libs = libraries, drop_funcs = functionsByName;
        functionsLua = old_lua, libraries = old_libs, functionsByName = old_funcs;
    } else {
        drop_lua = old_lua, drop_libs = old_libs, drop_funcs = old_funcs;
    }
    functionsRegistryRelease(drop_lua, drop_libs, drop_funcs, 0);
    if (err) {
        addReplyErrorSds(c, err);
    } else {
        addReply(c, shared.ok);
        server.dirty++;
    }
}

static void functionHelpCommand(client *c) {
    const char *help[] = {
        "LOAD [REPLACE] <FUNCTION CODE>",
        "    Create a new library with the given library name and code.",
        "DELETE <LIBRARY NAME>",
        "    Delete the given library.",
        "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
        "    Return general information on all the libraries:",
        "    * Library name",
        "    * The engine used to run the Library",
        "    * Library description",
        "    * Functions list",
        "    * Library code (if WITHCODE is given)",
        "    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
        "STATS",
        "    Return information about the current function running:",
        "    * Function name",
        "    * Command used to run the function",
        "    * Duration in MS that the function is running",
        "    If no function is running, return nil",
        "    In addition, returns a list of available engines.",
        "KILL",
        "    Kill the current running function.",
        "FLUSH [ASYNC|SYNC]",
        "    Delete all the libraries.",
        "    When called without the optional mode argument, the behavior is determined by the",
        "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
        "    * ASYNC: Asynchronously flush the libraries.",
        "    * SYNC: Synchronously flush the libraries.",
        "DUMP",
        "    Return a serialized payload representing the current libraries, can be restored using FUNCTION "
        "RESTORE command",
        "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
        "    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
        "    control how to handle existing libraries (default APPEND):",
        "    * FLUSH: delete all existing libraries.",
        "    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
        "    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
        "      libraries with the new libraries (notice that even on this option there is a chance of failure",
        "      in case of functions name collision with another library).",
        NULL,
    };
    addReplyHelp(c, help);
}

/* ---------------------------------------------------------------------------
 * Command table
 * ------------------------------------------------------------------------- */

#define FN_ACL (ACL_CATEGORY_SCRIPTING | ACL_CATEGORY_SLOW)

static struct serverCommand functionSubcommands[] = {
    {.name = "delete", .proc = functionDeleteCommand, .arity = 3, .flags = CMD_NOSCRIPT | CMD_WRITE,
     .acl_categories = FN_ACL, .group = "scripting", .since = "7.0.0", .summary = "Deletes a library and its functions.",
     .complexity = "O(1)",
     .args = "library-name"},
    {.name = "dump", .proc = functionDumpCommand, .arity = 2, .flags = CMD_NOSCRIPT, .acl_categories = FN_ACL,
     .group = "scripting", .since = "7.0.0", .summary = "Dumps all libraries into a serialized binary payload.",
     .complexity = "O(N) where N is the number of functions"},
    {.name = "flush", .proc = functionFlushCommand, .arity = -2, .flags = CMD_NOSCRIPT | CMD_WRITE,
     .acl_categories = FN_ACL, .group = "scripting", .since = "7.0.0", .summary = "Deletes all libraries and functions.",
     .complexity = "O(N) where N is the number of functions deleted",
     .args = "[flush-type=[ASYNC | SYNC]]"},
    {.name = "help", .proc = functionHelpCommand, .arity = 2, .flags = CMD_LOADING | CMD_STALE,
     .acl_categories = FN_ACL, .group = "scripting", .since = "7.0.0",
     .summary = "Returns helpful text about the different subcommands.", .complexity = "O(1)"},
    {.name = "kill", .proc = functionKillCommand, .arity = 2, .flags = CMD_NOSCRIPT | CMD_ALLOW_BUSY,
     .acl_categories = FN_ACL, .group = "scripting", .since = "7.0.0",
     .summary = "Terminates a function during execution.", .complexity = "O(1)"},
    {.name = "list", .proc = functionListCommand, .arity = -2, .flags = CMD_NOSCRIPT, .acl_categories = FN_ACL,
     .group = "scripting", .since = "7.0.0", .summary = "Returns information about all libraries.",
     .complexity = "O(N) where N is the number of functions",
     .args = "[LIBRARYNAME library-name-pattern] [WITHCODE]"},
    {.name = "load", .proc = functionLoadCommand, .arity = -3, .flags = CMD_NOSCRIPT | CMD_WRITE | CMD_DENYOOM,
     .acl_categories = FN_ACL, .group = "scripting", .since = "7.0.0", .summary = "Creates a library.",
     .complexity = "O(1) (considering compilation time is redundant)",
     .args = "[REPLACE] function-code"},
    {.name = "restore", .proc = functionRestoreCommand, .arity = -3,
     .flags = CMD_NOSCRIPT | CMD_WRITE | CMD_DENYOOM, .acl_categories = FN_ACL, .group = "scripting",
     .since = "7.0.0", .summary = "Restores all libraries from a payload.",
     .complexity = "O(N) where N is the number of functions on the payload",
     .args = "serialized-value [policy=[FLUSH | APPEND | REPLACE]]"},
    {.name = "stats", .proc = functionStatsCommand, .arity = 2, .flags = CMD_NOSCRIPT | CMD_ALLOW_BUSY,
     .acl_categories = FN_ACL, .group = "scripting", .since = "7.0.0",
     .summary = "Returns information about a function during execution.", .complexity = "O(1)"},
    {0},
};

struct serverCommand functionCommands[] = {
    {.name = "fcall", .proc = fcallCommand, .arity = -3,
     .flags =
         CMD_NOSCRIPT | CMD_SKIP_MONITOR | CMD_MAY_REPLICATE | CMD_NO_MANDATORY_KEYS | CMD_STALE | CMD_MOVABLE_KEYS,
     .acl_categories = FN_ACL, .getkeys_proc = fcallGetKeys, .group = "scripting", .since = "7.0.0",
     .summary = "Invokes a function.", .complexity = "Depends on the function that is executed.",
     .args = "function numkeys [key [key ...]] [arg [arg ...]]"},
    {.name = "fcall_ro", .proc = fcallroCommand, .arity = -3,
     .flags = CMD_NOSCRIPT | CMD_SKIP_MONITOR | CMD_READONLY | CMD_NO_MANDATORY_KEYS | CMD_STALE | CMD_MOVABLE_KEYS,
     .acl_categories = FN_ACL, .getkeys_proc = fcallGetKeys, .group = "scripting", .since = "7.0.0",
     .summary = "Invokes a read-only function.", .complexity = "Depends on the function that is executed.",
     .args = "function numkeys [key [key ...]] [arg [arg ...]]"},
    {.name = "function", .subcommands = functionSubcommands, .arity = -2, .group = "scripting", .since = "7.0.0",
     .summary = "A container for function commands.", .complexity = "Depends on subcommand."},
    {0},
};
