/* script_debug.c - the Lua debugger (LDB): SCRIPT DEBUG YES|SYNC|NO and
 * the debugging sessions that `valkey-cli --ldb` drives.
 *
 * The protocol, as Valkey speaks it. A client sends SCRIPT DEBUG YES (or
 * SYNC), then EVAL. The EVAL starts a session stopped before the script's
 * first line; instead of a reply the client gets the debugger's log so far
 * as an array of status lines ("* Stopped at 1, stop reason = step over",
 * "-> 1   local a = 1"). From then on the client sends debugger commands as
 * RESP arrays of bulk strings on the same connection ("s", "print a",
 * "b 3", "eval return 1", "redis set k v", ...) and every command that
 * does not resume the script is answered with one such array. Lines are
 * tagged: "<debug>" (server.debug), "<redis>" (a command the script ran
 * while stepping), "<reply>" (its reply), "<value>"/"<retval>" (print and
 * eval), "<error>", "<hint>". When the script ends the last array holds
 * "<endsession>" and the EVAL's own reply follows; then the connection is
 * closed.
 *
 * YES forks: the child serves the debugging client alone, with blocking
 * I/O and no event loop, and its changes to the dataset die with it. The
 * parent forgets the client at once (its copy of the connection is closed
 * without a goodbye) and reaps the child from a timer; a server that
 * exits kills the children still running. The child closes every other
 * fd it inherited and never calls into the event loop (its epoll instance
 * is the parent's) or writes to any other client; a transport whose state
 * does not survive fork() (RDMA: its buffers are registered do-not-fork)
 * is refused at SCRIPT DEBUG YES. SYNC runs the session in the server
 * itself, which serves nobody else meanwhile, and keeps the changes.
 *
 * While a session runs, script_lua.c installs ldbLineHook() instead of
 * its own hook: it stops on a step, a breakpoint, server.breakpoint() or
 * after busy-reply-threshold ms without a stop ("timeout reached, infinite
 * loop?"), and reads commands (ldbRepl()) until one resumes the script. A
 * client that goes away lets the script run to its end without stops,
 * except past the timeout, where the script is ended with an error. */
#include "script_debug.h"
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define LDB_BREAKPOINTS_MAX 64  /* Breakpoints a session may hold. */
#define LDB_MAX_LEN_DEFAULT 256 /* Default "maxlen" of logged values. */
#define LDB_MAX_VALUE_DEPTH 16  /* Nesting shown by value dumps. */
#define LDB_MAX_CMD_ARGS 1024   /* Arguments of one debugger command, at most. */
#define LDB_MAX_ARG_LEN 1024    /* Bytes of one argument, at most. */
#define LDB_MAX_INPUT (1 << 20) /* Unparsed input kept, at most. */
#define LDB_WRITE_TIMEOUT_MS 5000
#define LDB_HOOK_INSTRUCTIONS 100000
#define LDB_REAP_INTERVAL_MS 100

/* The session of this process. Everything is reset when one starts. */
static struct ldbState {
    client *c;              /* The debugging client. */
    connection *conn;       /* Its connection: all the debugger's I/O. */
    int active;             /* A session is running. */
    int forked;             /* This process is the session's child. */
    list *logs;             /* sds lines not sent yet. */
    sds *src;               /* The script, one line per entry. */
    int lines;
    int bp[LDB_BREAKPOINTS_MAX];
    int bpcount;
    int step;               /* Stop at the next line. */
    int luabp;              /* server.breakpoint() asked to stop. */
    int currentline;        /* The line the script stopped at or runs. */
    size_t maxlen;          /* Trim logged values to this (0 = no limit). */
    int maxlen_hint_sent;
    sds cbuf;               /* Debugger command bytes read, not parsed. */
    mstime_t resumed;       /* When the script last ran on after a stop. */
} ldb;

/* The forked sessions' children, reaped by ldbReapChildren(). */
static list *ldbChildren = NULL;
static long long ldbReapTimer = -1;

/* ---------------------------------------------------------------------------
 * The log: lines collected while the script runs, sent as one array
 * ------------------------------------------------------------------------- */

/* Appends line (taken over) to the log. */
static void ldbLog(sds line) {
    listAddNodeTail(ldb.logs, line);
}

/* As ldbLog(), trimmed to maxlen bytes; the first trim adds a hint. */
static void ldbLogWithMaxLen(sds line) {
    int trimmed = 0;
    if (ldb.maxlen && sdslen(line) > ldb.maxlen) {
        sdsrange(line, 0, (ssize_t)ldb.maxlen - 1);
        line = sdscatlen(line, " ...", 4);
        trimmed = 1;
    }
    ldbLog(line);
    if (trimmed && !ldb.maxlen_hint_sent) {
        ldb.maxlen_hint_sent = 1;
        ldbLog(sdsnew("<hint> The above reply was trimmed. Use 'maxlen 0' to disable trimming."));
    }
}

/* Writes all of buf to the debugging client, blocking (never through the
 * event loop: in the child it is the parent's). Failures are left for the
 * next read to notice. */
static void ldbWrite(const char *buf, size_t len) {
    if (len == 0 || ldb.conn == NULL) return;
    if (connSyncWrite(ldb.conn, buf, (ssize_t)len, LDB_WRITE_TIMEOUT_MS) != (ssize_t)len)
        serverLog(LL_VERBOSE, "Lua debugger: writing to the client failed");
}

/* Sends the log as an array of status lines (CR and LF become spaces) and
 * empties it. */
static void ldbSendLogs(void) {
    sds proto = sdscatprintf(sdsempty(), "*%lu\r\n", (unsigned long)listLength(ldb.logs));
    while (listLength(ldb.logs)) {
        listNode *ln = listFirst(ldb.logs);
        sds line = listNodeValue(ln);
        sdsmapchars(line, "\r\n", "  ", 2);
        proto = sdscatlen(proto, "+", 1);
        proto = sdscatsds(proto, line);
        proto = sdscatlen(proto, "\r\n", 2);
        sdsfree(line);
        listDelNode(ldb.logs, ln);
    }
    ldbWrite(proto, sdslen(proto));
    sdsfree(proto);
}

/* Writes out what c has queued (replies before the EVAL, or the EVAL's
 * own at the end), blocking, and empties c's reply buffers. */
static void ldbFlushClientReplies(client *c) {
    if (c->bufpos > c->sentlen) ldbWrite(c->buf + c->sentlen, c->bufpos - c->sentlen);
    c->bufpos = c->sentlen = 0;
    while (listLength(c->reply)) {
        listNode *ln = listFirst(c->reply);
        clientReplyBlock *b = listNodeValue(ln);
        if (b && b->used) ldbWrite(b->buf, b->used);
        listDelNode(c->reply, ln);
    }
    c->reply_bytes = 0;
}

/* ---------------------------------------------------------------------------
 * Source lines and breakpoints
 * ------------------------------------------------------------------------- */

static const char *ldbSourceLine(int line) {
    if (line < 1 || line > ldb.lines) return "<out of range source code line>";
    return ldb.src[line - 1];
}

static int ldbIsBreakpoint(int line) {
    for (int j = 0; j < ldb.bpcount; j++)
        if (ldb.bp[j] == line) return 1;
    return 0;
}

/* Adds a breakpoint: 1, or 0 for a line out of the script or set already. */
static int ldbAddBreakpoint(int line) {
    if (line <= 0 || line > ldb.lines || ldbIsBreakpoint(line) || ldb.bpcount == LDB_BREAKPOINTS_MAX) return 0;
    ldb.bp[ldb.bpcount++] = line;
    return 1;
}

/* Removes the breakpoint at line: 1, or 0 if there was none. */
static int ldbDelBreakpoint(int line) {
    for (int j = 0; j < ldb.bpcount; j++) {
        if (ldb.bp[j] != line) continue;
        ldb.bp[j] = ldb.bp[--ldb.bpcount];
        return 1;
    }
    return 0;
}

/* Logs one source line, marked "->" when current and "#" when a
 * breakpoint is set on it. */
static void ldbLogSourceLine(int line) {
    int current = ldb.currentline == line, bp = ldbIsBreakpoint(line);
    const char *prefix = current && bp ? "->#" : current ? "-> " : bp ? "  #" : "   ";
    ldbLog(sdscatprintf(sdsempty(), "%s%-3d %s", prefix, line, ldbSourceLine(line)));
}

/* Logs the lines within context of around (around 0: every line). */
static void ldbList(int around, int context) {
    for (int j = 1; j <= ldb.lines; j++) {
        if (around != 0 && abs(around - j) > context) continue;
        ldbLogSourceLine(j);
    }
}

/* ---------------------------------------------------------------------------
 * Showing values
 * ------------------------------------------------------------------------- */

static sds ldbCatValue(sds s, lua_State *L, int idx, int level);

/* A table as "{1; 2; 3}" when it is an array 1..n, else "{[k]=v; ...}". */
static sds ldbCatTable(sds s, lua_State *L, int idx, int level) {
    if (idx < 0) idx = lua_gettop(L) + idx + 1;
    sds as_array = sdsempty(), as_map = sdsempty();
    int is_array = 1, expected = 1;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        if (lua_type(L, -2) != LUA_TNUMBER || lua_tonumber(L, -2) != expected) is_array = 0;
        if (sdslen(as_array)) as_array = sdscatlen(as_array, "; ", 2);
        as_array = ldbCatValue(as_array, L, -1, level);
        if (sdslen(as_map)) as_map = sdscatlen(as_map, "; ", 2);
        as_map = sdscatlen(as_map, "[", 1);
        as_map = ldbCatValue(as_map, L, -2, level);
        as_map = sdscatlen(as_map, "]=", 2);
        as_map = ldbCatValue(as_map, L, -1, level);
        lua_pop(L, 1);
        expected++;
    }
    s = sdscatlen(s, "{", 1);
    s = sdscatsds(s, is_array ? as_array : as_map);
    s = sdscatlen(s, "}", 1);
    sdsfree(as_array);
    sdsfree(as_map);
    return s;
}

/* Appends the Lua value at idx the way the debugger shows values:
 * strings quoted and escaped, numbers as %g, tables recursively (to
 * LDB_MAX_VALUE_DEPTH), other objects as "type@address". */
static sds ldbCatValue(sds s, lua_State *L, int idx, int level) {
    if (level++ == LDB_MAX_VALUE_DEPTH) return sdscat(s, "<max recursion level reached! Nested table?>");
    if (!lua_checkstack(L, 4)) return sdscat(s, "<max lua stack reached>");
    switch (lua_type(L, idx)) {
    case LUA_TSTRING: {
        size_t len;
        const char *p = lua_tolstring(L, idx, &len);
        return sdscatrepr(s, p, len);
    }
    case LUA_TBOOLEAN: return sdscat(s, lua_toboolean(L, idx) ? "true" : "false");
    case LUA_TNUMBER: return sdscatprintf(s, "%g", (double)lua_tonumber(L, idx));
    case LUA_TNIL: return sdscat(s, "nil");
    case LUA_TTABLE: return ldbCatTable(s, L, idx, level);
    case LUA_TFUNCTION: return sdscatprintf(s, "\"function@%p\"", lua_topointer(L, idx));
    case LUA_TUSERDATA: return sdscatprintf(s, "\"userdata@%p\"", lua_topointer(L, idx));
    case LUA_TTHREAD: return sdscatprintf(s, "\"thread@%p\"", lua_topointer(L, idx));
    case LUA_TLIGHTUSERDATA: return sdscatprintf(s, "\"light-userdata@%p\"", lua_topointer(L, idx));
    default: return sdscat(s, "\"<unknown-lua-type>\"");
    }
}

/* Logs prefix + the value at the top of the stack, trimmed to maxlen. */
static void ldbLogValue(lua_State *L, const char *prefix) {
    ldbLogWithMaxLen(ldbCatValue(sdsnew(prefix), L, -1, 0));
}

/* RESP -> the debugger's text for a reply: status and error lines and
 * bulk strings quoted, integers bare, arrays "[a,b]", maps "{k => v}",
 * sets "~(a,b)", nulls "NULL" (RESP2) or "(null)" (RESP3). Returns the
 * position after the value. */
static const char *ldbCatReply(sds *o, const char *p, const char *end, int depth) {
    if (p >= end || depth > 64) return end;
    const char *eol = memchr(p, '\r', end - p);
    if (eol == NULL) return end;
    const char *line = p + 1;
    size_t llen = eol - line;
    const char *next = eol + 2 <= end ? eol + 2 : end;
    long long n = 0;
    switch (*p) {
    case '+':
    case '-': *o = sdscatrepr(*o, p, eol - p); return next;
    case ':': *o = sdscatlen(*o, line, llen); return next;
    case '_': *o = sdscat(*o, "(null)"); return next;
    case '#': *o = sdscat(*o, llen && line[0] == 't' ? "#true" : "#false"); return next;
    case ',': *o = sdscatlen(sdscat(*o, "(double) "), line, llen); return next;
    case '(': *o = sdscatlen(sdscat(*o, "(big number) "), line, llen); return next;
    case '$':
    case '=':
        string2ll(line, llen, &n);
        if (n < 0) {
            *o = sdscat(*o, "NULL");
            return next;
        }
        if (n > end - next) n = end - next;
        if (*p == '=' && n >= 4) {
            *o = sdscatlen(sdscat(*o, "(verbatim string) "), next, 4);
            *o = sdscatrepr(*o, next + 4, n - 4);
        } else {
            *o = sdscatrepr(*o, next, n);
        }
        return next + n + 2 <= end ? next + n + 2 : end;
    case '*':
    case '~':
    case '%':
    case '>':
    case '|': {
        string2ll(line, llen, &n);
        if (n < 0) {
            *o = sdscat(*o, "NULL");
            return next;
        }
        const char *open = *p == '~' ? "~(" : *p == '%' ? "{" : *p == '|' ? "|" : "[";
        const char *close = *p == '~' ? ")" : *p == '%' ? "}" : *p == '|' ? "|" : "]";
        *o = sdscat(*o, open);
        for (long long j = 0; j < n && next < end; j++) {
            if (j) *o = sdscatlen(*o, ",", 1);
            next = ldbCatReply(o, next, end, depth + 1);
            if (*p == '%' || *p == '|') {
                *o = sdscat(*o, " => ");
                next = ldbCatReply(o, next, end, depth + 1);
            }
        }
        *o = sdscat(*o, close);
        return next;
    }
    default: *o = sdscatrepr(*o, p, eol - p); return next;
    }
}

/* ---------------------------------------------------------------------------
 * Hooks for script_lua.c
 * ------------------------------------------------------------------------- */

/* See script_debug.h. */
int ldbIsActive(void) {
    return ldb.active;
}

/* See script_debug.h. Logs "<redis> cmd arg ...": ten arguments at most,
 * then " ... (N more)" with N counted as Valkey counts it (one short). */
void ldbLogCommand(robj **argv, int argc) {
    if (!ldb.active || !ldb.step) return;
    sds line = sdsnew("<redis>");
    for (int j = 0; j < argc; j++) {
        if (j == 10) {
            line = sdscatprintf(line, " ... (%d more)", argc - j - 1);
            break;
        }
        robj *o = getDecodedObject(argv[j]);
        line = sdscatlen(line, " ", 1);
        line = sdscatsds(line, objectGetVal(o));
        decrRefCount(o);
    }
    ldbLog(line);
}

/* See script_debug.h. */
void ldbLogReply(const char *proto, size_t len) {
    if (!ldb.active || !ldb.step) return;
    sds line = sdsnew("<reply> ");
    ldbCatReply(&line, proto, proto + len, 0);
    ldbLogWithMaxLen(line);
}

/* See script_debug.h. */
void ldbLogError(const char *msg) {
    if (!ldb.active || !ldb.step) return;
    ldbLog(sdscatprintf(sdsempty(), "<error> %s", msg));
}

/* server.debug(v, ...): "<debug> line N: v1, v2" in the session's log. */
int ldbLuaDebug(lua_State *L) {
    if (!ldb.active) return 0;
    int argc = lua_gettop(L);
    sds line = sdscatprintf(sdsempty(), "<debug> line %d: ", ldb.currentline);
    for (int j = 1; j <= argc; j++) {
        line = ldbCatValue(line, L, j, 0);
        if (j != argc) line = sdscatlen(line, ", ", 2);
    }
    ldbLog(line);
    return 0;
}

/* server.breakpoint(): stop at the next line; true inside a session. */
int ldbLuaBreakpoint(lua_State *L) {
    if (ldb.active) ldb.luabp = 1;
    lua_pushboolean(L, ldb.active);
    return 1;
}

/* ---------------------------------------------------------------------------
 * Debugger commands
 * ------------------------------------------------------------------------- */

/* Raises msg as the script's error (from inside the hook; the run's
 * lua_pcall catches it and the EVAL replies "ERR msg script: ..."). */
static int ldbRaise(lua_State *L, const char *msg) {
    lua_pushstring(L, msg);
    return lua_error(L);
}

static void ldbHelp(void) {
    static const char *help[] = {
        "Valkey Lua debugger help:",
        "[h]elp               Show this help.",
        "[s]tep               Run current line and stop again.",
        "[n]ext               Alias for step.",
        "[c]ontinue           Run till next breakpoint.",
        "[l]ist               List source code around current line.",
        "[l]ist [line]        List source code around [line].",
        "                     line = 0 means: current position.",
        "[l]ist [line] [ctx]  In this form [ctx] specifies how many lines",
        "                     to show before/after [line].",
        "[w]hole              List all source code. Alias for 'list 1 1000000'.",
        "[p]rint              Show all the local variables.",
        "[p]rint <var>        Show the value of the specified variable.",
        "                     Can also show global vars KEYS and ARGV.",
        "[b]reak              Show all breakpoints.",
        "[b]reak <line>       Add a breakpoint to the specified line.",
        "[b]reak -<line>      Remove breakpoint from the specified line.",
        "[b]reak 0            Remove all breakpoints.",
        "[t]race              Show a backtrace.",
        "[e]val <code>        Execute some Lua code (in a different callframe).",
        "[r]edis <cmd>        Execute a Valkey command.",
        "[m]axlen [len]       Trim logged Valkey replies and Lua var dumps to len.",
        "                     Specifying zero as <len> means unlimited.",
        "[a]bort              Stop the execution of the script. In sync",
        "                     mode dataset changes will be retained.",
        "",
        "Debugger functions you can call from Lua scripts:",
        "server.debug()        Produce logs in the debugger console.",
        "server.breakpoint()   Stop execution as if there was a breakpoint in the",
        "                     next line of code.",
        NULL,
    };
    for (int j = 0; help[j]; j++) ldbLog(sdsnew(help[j]));
}

/* "break": list, add (N), remove (-N) or clear (0) breakpoints. */
static void ldbBreak(sds *argv, int argc) {
    if (argc == 1) {
        if (ldb.bpcount == 0) {
            ldbLog(sdsnew("No breakpoints set. Use 'b <line>' to add one."));
            return;
        }
        ldbLog(sdscatprintf(sdsempty(), "%d breakpoints set:", ldb.bpcount));
        for (int j = 0; j < ldb.bpcount; j++) ldbLogSourceLine(ldb.bp[j]);
        return;
    }
    for (int j = 1; j < argc; j++) {
        long line;
        if (!string2l(argv[j], sdslen(argv[j]), &line)) {
            ldbLog(sdscatprintf(sdsempty(), "Invalid argument:'%s'", argv[j]));
        } else if (line == 0) {
            ldb.bpcount = 0;
            ldbLog(sdsnew("All breakpoints removed."));
        } else if (line > 0) {
            if (ldb.bpcount == LDB_BREAKPOINTS_MAX) ldbLog(sdsnew("Too many breakpoints set."));
            else if (line <= INT_MAX && ldbAddBreakpoint((int)line)) ldbList((int)line, 1);
            else ldbLog(sdsnew("Wrong line number."));
        } else if (line >= -INT_MAX && ldbDelBreakpoint((int)-line)) {
            ldbLog(sdsnew("Breakpoint removed."));
        } else {
            ldbLog(sdsnew("No breakpoint in the specified line."));
        }
    }
}

/* "maxlen [len]": shows or sets the trim length (0 = none, else >= 60). */
static void ldbMaxlen(sds *argv, int argc) {
    if (argc == 2) {
        long long len = strtoll(argv[1], NULL, 10);
        ldb.maxlen_hint_sent = 1; /* they know about the command now */
        if (len < 0) len = 0;
        if (len != 0 && len <= 60) len = 60;
        ldb.maxlen = (size_t)len;
    }
    if (ldb.maxlen) ldbLog(sdscatprintf(sdsempty(), "<value> replies are truncated at %d bytes.", (int)ldb.maxlen));
    else ldbLog(sdsnew("<value> replies are unlimited."));
}

/* "print <var>": the innermost local of that name in any frame, or the
 * globals KEYS and ARGV. */
static void ldbPrint(lua_State *L, const char *name) {
    lua_Debug ar;
    for (int level = 0; lua_getstack(L, level, &ar); level++) {
        const char *local;
        for (int j = 1; (local = lua_getlocal(L, &ar, j)) != NULL; j++) {
            if (!strcmp(local, name)) {
                ldbLogValue(L, "<value> ");
                lua_pop(L, 1);
                return;
            }
            lua_pop(L, 1);
        }
    }
    if (!strcmp(name, "KEYS") || !strcmp(name, "ARGV")) {
        lua_getfield(L, LUA_GLOBALSINDEX, name);
        ldbLogValue(L, "<value> ");
        lua_pop(L, 1);
    } else {
        ldbLog(sdsnew("No such variable."));
    }
}

/* "print": every local of the current frame. */
static void ldbPrintAll(lua_State *L) {
    lua_Debug ar;
    int vars = 0;
    if (lua_getstack(L, 0, &ar)) {
        const char *local;
        for (int j = 1; (local = lua_getlocal(L, &ar, j)) != NULL; j++) {
            if (!strstr(local, "(*temporary)")) {
                sds prefix = sdscatprintf(sdsempty(), "<value> %s = ", local);
                ldbLogValue(L, prefix);
                sdsfree(prefix);
                vars++;
            }
            lua_pop(L, 1);
        }
    }
    if (vars == 0) ldbLog(sdsnew("No local variables in the current context."));
}

/* "trace": the script's frames, innermost first. */
static void ldbTrace(lua_State *L) {
    lua_Debug ar;
    int shown = 0;
    for (int level = 0; lua_getstack(L, level, &ar); level++) {
        lua_getinfo(L, "Snl", &ar);
        if (strstr(ar.short_src, "user_script") == NULL) continue;
        ldbLog(sdscatprintf(sdsempty(), "%s %s:", level == 0 ? "In" : "From", ar.name ? ar.name : "top level"));
        ldbLogSourceLine(ar.currentline);
        shown++;
    }
    if (shown == 0) ldbLog(sdsnew("<error> Can't retrieve Lua stack."));
}

/* "eval <code>": runs code (as an expression if it compiles as one) in a
 * new chunk, outside the script's frames. */
static void ldbEval(lua_State *L, sds *argv, int argc) {
    sds code = sdsjoinsds(argv + 1, argc - 1, " ", 1);
    sds expr = sdscatsds(sdsnew("return "), code);
    if (scriptLuaLoadBuffer(L, expr, sdslen(expr), "@ldb_eval")) {
        lua_pop(L, 1);
        if (scriptLuaLoadBuffer(L, code, sdslen(code), "@ldb_eval")) {
            ldbLog(sdscatprintf(sdsempty(), "<error> %s", lua_tostring(L, -1)));
            lua_pop(L, 1);
            sdsfree(code);
            sdsfree(expr);
            return;
        }
    }
    sdsfree(code);
    sdsfree(expr);
    if (lua_pcall(L, 0, 1, 0)) {
        const char *err = NULL;
        if (lua_istable(L, -1)) {
            lua_getfield(L, -1, "err");
            err = lua_tostring(L, -1);
            lua_pop(L, 1);
        } else {
            err = lua_tostring(L, -1);
        }
        ldbLog(sdscatprintf(sdsempty(), "<error> %s", err ? err : "unknown error"));
        lua_pop(L, 1);
        return;
    }
    ldbLogValue(L, "<retval> ");
    lua_pop(L, 1);
}

/* "redis <cmd> ...": runs a command through server.call, logged as the
 * script's own commands are when stepping. */
static void ldbServerCommand(lua_State *L, sds *argv, int argc) {
    if (!lua_checkstack(L, argc + 1)) {
        ldbLog(sdsnew("<error> max lua stack reached"));
        return;
    }
    scriptLuaPushCall(L);
    for (int j = 1; j < argc; j++) lua_pushlstring(L, argv[j], sdslen(argv[j]));
    ldb.step = 1; /* so that server.call logs */
    lua_pcall(L, argc - 1, 1, 0);
    ldb.step = 0;
    lua_pop(L, 1);
}

/* ---------------------------------------------------------------------------
 * Reading debugger commands
 * ------------------------------------------------------------------------- */

/* Parses "$<len>\r\n" at p; returns len, or -1 if malformed or out of
 * 1..max, or -2 if more bytes are needed. */
static long long ldbParseLength(const char *p, const char *end, char type, long long max, const char **after) {
    if (p >= end) return -2;
    if (*p != type) return -1;
    const char *crlf = memchr(p, '\r', end - p);
    if (crlf == NULL) return (end - p) > 32 ? -1 : -2;
    if (crlf + 1 >= end) return -2;
    long long n;
    if (crlf[1] != '\n' || !string2ll(p + 1, crlf - p - 1, &n) || n < 1 || n > max) return -1;
    *after = crlf + 2;
    return n;
}

/* Parses one RESP array of bulk strings from the front of ldb.cbuf.
 * Returns 1 with *argv (caller frees with sdsfreesplitres) and *argc set
 * and the bytes consumed from cbuf, 0 if more input is needed, -1 on a
 * protocol error. */
static int ldbParseCommand(sds **argv, int *argc) {
    const char *p = ldb.cbuf, *end = ldb.cbuf + sdslen(ldb.cbuf);
    long long count = ldbParseLength(p, end, '*', LDB_MAX_CMD_ARGS, &p);
    if (count < 0) return count == -2 ? 0 : -1;
    sds *args = zmalloc(sizeof(sds) * count);
    int n = 0, ret = 1;
    while (n < count) {
        long long len = ldbParseLength(p, end, '$', LDB_MAX_ARG_LEN, &p);
        if (len < 0) {
            ret = len == -2 ? 0 : -1;
            break;
        }
        if (end - p < len + 2) {
            ret = 0;
            break;
        }
        if (p[len] != '\r' || p[len + 1] != '\n') {
            ret = -1;
            break;
        }
        args[n++] = sdsnewlen(p, len);
        p += len + 2;
    }
    if (ret != 1) {
        sdsfreesplitres(args, n);
        return ret;
    }
    sdsrange(ldb.cbuf, p - ldb.cbuf, -1);
    *argv = args;
    *argc = n;
    return 1;
}

/* Reads more command bytes, blocking. Returns bytes read, or 0/-1 when
 * the client is gone. */
static ssize_t ldbReadMore(void) {
    char buf[1024];
    while (1) {
        ssize_t n = connRead(ldb.conn, buf, sizeof(buf));
        if (n > 0) {
            ldb.cbuf = sdscatlen(ldb.cbuf, buf, n);
            return n;
        }
        if (n == 0 || errno != EAGAIN || connGetState(ldb.conn) != CONN_STATE_CONNECTED) return n;
        if (connWait(ldb.conn, AE_READABLE, -1) != C_OK && errno != ETIMEDOUT) return -1;
    }
}

/* 1 if arg (binary safe) is one of the names, case-insensitive. */
static int ldbIs(sds arg, const char *short_name, const char *long_name) {
    size_t len = sdslen(arg);
    if (strlen(short_name) == len && !strncasecmp(arg, short_name, len)) return 1;
    return long_name && strlen(long_name) == len && !strncasecmp(arg, long_name, len);
}

/* Runs one command that does not resume the script and sends its log. */
static void ldbRunCommand(lua_State *L, sds *argv, int argc) {
    if (ldbIs(argv[0], "h", "help")) {
        ldbHelp();
    } else if (ldbIs(argv[0], "t", "trace")) {
        ldbTrace(L);
    } else if (ldbIs(argv[0], "m", "maxlen")) {
        ldbMaxlen(argv, argc);
    } else if (ldbIs(argv[0], "b", "break")) {
        ldbBreak(argv, argc);
    } else if (ldbIs(argv[0], "e", "eval")) {
        ldbEval(L, argv, argc);
    } else if (argc > 1 && (ldbIs(argv[0], "r", "redis") || ldbIs(argv[0], "server", NULL))) {
        ldbServerCommand(L, argv, argc);
    } else if (ldbIs(argv[0], "p", "print")) {
        if (argc == 2) ldbPrint(L, argv[1]);
        else ldbPrintAll(L);
    } else if (ldbIs(argv[0], "l", "list")) {
        int around = ldb.currentline, context = 5;
        if (argc > 1 && atoi(argv[1]) > 0) around = atoi(argv[1]);
        if (argc > 2) context = atoi(argv[2]);
        ldbList(around, context);
    } else if (ldbIs(argv[0], "w", "whole")) {
        ldbList(1, 1000000);
    } else {
        ldbLog(sdsnew("<error> Unknown Valkey Lua debugger command or wrong number of arguments."));
    }
    ldbSendLogs();
}

/* The read-eval loop of a stop: serves commands until one resumes the
 * script. Returns C_OK, or C_ERR when the client went away (the script
 * then runs on without stops). Raises the script's error for "abort", a
 * protocol error or an oversized command. */
static int ldbRepl(lua_State *L) {
    while (1) {
        sds *argv = NULL;
        int argc = 0, parsed;
        while ((parsed = ldbParseCommand(&argv, &argc)) == 0) {
            if (sdslen(ldb.cbuf) > LDB_MAX_INPUT) {
                sdsclear(ldb.cbuf);
                return ldbRaise(L, "max client buffer reached");
            }
            if (ldbReadMore() <= 0) {
                ldb.step = 0;
                ldb.bpcount = 0;
                return C_ERR;
            }
        }
        if (parsed < 0) {
            sdsclear(ldb.cbuf);
            return ldbRaise(L, "protocol error");
        }
        int resume = 0, abort = 0;
        if (ldbIs(argv[0], "s", "step") || ldbIs(argv[0], "n", "next")) {
            ldb.step = 1;
            resume = 1;
        } else if (ldbIs(argv[0], "c", "continue")) {
            resume = 1;
        } else if (ldbIs(argv[0], "a", "abort")) {
            abort = 1;
        } else {
            ldbRunCommand(L, argv, argc);
        }
        sdsfreesplitres(argv, argc);
        if (abort) return ldbRaise(L, "script aborted for user request");
        if (resume) return C_OK;
    }
}

/* The hook of a debugged run: stops on a step, a breakpoint, a
 * server.breakpoint() or a timeout, and serves the client meanwhile. */
static void ldbLineHook(lua_State *L, lua_Debug *ar) {
    lua_getstack(L, 0, ar);
    lua_getinfo(L, "Sl", ar);
    if (strstr(ar->short_src, "user_script") == NULL) return;
    int timeout = 0, bp = 0;
    if (ar->event == LUA_HOOKLINE) {
        ldb.currentline = ar->currentline;
        bp = ldbIsBreakpoint(ldb.currentline) || ldb.luabp;
    } else {
        /* A count event: only a script that ran too long stops here. */
        mstime_t limit = server.busy_reply_threshold ? server.busy_reply_threshold : 5000;
        if (ldb.step || mstime() - ldb.resumed < limit) return;
        timeout = 1;
    }
    if (!ldb.step && !bp && !timeout) return;
    const char *reason = bp ? (ldb.luabp ? "redis.breakpoint() called" : "break point")
                            : timeout ? "timeout reached, infinite loop?" : "step over";
    ldb.step = 0;
    ldb.luabp = 0;
    ldbLog(sdscatprintf(sdsempty(), "* Stopped at %d, stop reason = %s", ldb.currentline, reason));
    ldbLogSourceLine(ldb.currentline);
    ldbSendLogs();
    if (ldbRepl(L) == C_ERR && timeout) ldbRaise(L, "timeout during Lua debugging with client closing connection");
    ldb.resumed = mstime();
}

/* See script_debug.h. */
void ldbInstallHook(lua_State *L) {
    ldb.resumed = mstime();
    lua_sethook(L, ldbLineHook, LUA_MASKLINE | LUA_MASKCOUNT, LDB_HOOK_INSTRUCTIONS);
}

/* ---------------------------------------------------------------------------
 * Sessions
 * ------------------------------------------------------------------------- */

/* See script_debug.h. */
void ldbScriptDebugCommand(client *c, const char *mode) {
    if (clientHasPendingReplies(c)) {
        addReplyError(c, "SCRIPT DEBUG must be called outside a pipeline");
        return;
    }
    if (!strcasecmp(mode, "no")) {
        c->flags &= ~(CLIENT_LUA_DEBUG | CLIENT_LUA_DEBUG_SYNC);
    } else if (!strcasecmp(mode, "yes")) {
        if (c->conn && !connUsableAfterFork(c->conn)) {
            addReplyErrorFormat(c, "SCRIPT DEBUG YES forks a session, and a forked child cannot serve a %s "
                                   "connection. Use SCRIPT DEBUG SYNC instead.",
                                connGetType(c->conn));
            return;
        }
        c->flags = (c->flags | CLIENT_LUA_DEBUG) & ~CLIENT_LUA_DEBUG_SYNC;
    } else if (!strcasecmp(mode, "sync")) {
        c->flags |= CLIENT_LUA_DEBUG | CLIENT_LUA_DEBUG_SYNC;
    } else {
        addReplyError(c, "Use SCRIPT DEBUG YES/SYNC/NO");
        return;
    }
    addReply(c, shared.ok);
}

/* See script_debug.h. */
int ldbWantsSession(client *c) {
    return (c->flags & CLIENT_LUA_DEBUG) && c->conn && !ldb.active && !server.in_exec &&
           !(c->flags & (CLIENT_PRIMARY | CLIENT_SCRIPT | CLIENT_FAKE));
}

/* Resets the session state for c and splits the script (argv[1], without
 * trailing newlines) into lines. */
static void ldbSessionInit(client *c) {
    if (ldb.logs == NULL) ldb.logs = listCreate();
    while (listLength(ldb.logs)) {
        sdsfree(listNodeValue(listFirst(ldb.logs)));
        listDelNode(ldb.logs, listFirst(ldb.logs));
    }
    ldb.c = c;
    ldb.conn = c->conn;
    ldb.active = 1;
    ldb.step = 1;
    ldb.luabp = 0;
    ldb.bpcount = 0;
    ldb.currentline = -1;
    ldb.maxlen = LDB_MAX_LEN_DEFAULT;
    ldb.maxlen_hint_sent = 0;
    robj *body = getDecodedObject(c->argv[1]);
    sds src = sdsdup(objectGetVal(body));
    decrRefCount(body);
    size_t len = sdslen(src);
    while (len && (src[len - 1] == '\n' || src[len - 1] == '\r')) len--;
    sdssubstr(src, 0, len); /* without the trailing newlines */
    ldb.src = sdssplitlen(src, (ssize_t)sdslen(src), "\n", 1, &ldb.lines);
    sdsfree(src);
    /* Commands the client pipelined after its EVAL are the debugger's. */
    ldb.cbuf = sdsempty();
    if (c->querybuf && sdslen(c->querybuf) > c->qb_pos) {
        ldb.cbuf = sdscatlen(ldb.cbuf, c->querybuf + c->qb_pos, sdslen(c->querybuf) - c->qb_pos);
        c->qb_pos = sdslen(c->querybuf);
    }
}

static void ldbSessionFree(void) {
    sdsfreesplitres(ldb.src, ldb.lines);
    ldb.src = NULL;
    ldb.lines = 0;
    sdsfree(ldb.cbuf);
    ldb.cbuf = NULL;
    ldb.active = 0;
    ldb.c = NULL;
    ldb.conn = NULL;
}

/* Kills the forked sessions still running: at exit of the server. */
static void ldbKillChildren(void) {
    if (ldb.forked || ldbChildren == NULL) return;
    listIter li;
    listNode *ln;
    listRewind(ldbChildren, &li);
    while ((ln = listNext(&li)) != NULL) {
        pid_t pid = (pid_t)(long)listNodeValue(ln);
        serverLog(LL_NOTICE, "Killing debugging session %ld", (long)pid);
        kill(pid, SIGKILL);
    }
}

/* Timer: reaps the children of finished sessions; stops once none is
 * left. Event loop. */
static int ldbReapChildren(struct aeEventLoop *el, long long id, void *data) {
    (void)el;
    (void)id;
    (void)data;
    listIter li;
    listNode *ln;
    listRewind(ldbChildren, &li);
    while ((ln = listNext(&li)) != NULL) {
        pid_t pid = (pid_t)(long)listNodeValue(ln);
        int status;
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid || (r == -1 && errno == ECHILD)) listDelNode(ldbChildren, ln);
    }
    if (listLength(ldbChildren)) return LDB_REAP_INTERVAL_MS;
    ldbReapTimer = -1;
    return AE_NOMORE;
}

/* The parent's side of a fork: the child owns the client's session now. */
static void ldbParentForget(client *c, pid_t pid) {
    if (ldbChildren == NULL) {
        ldbChildren = listCreate();
        atexit(ldbKillChildren);
    }
    listAddNodeTail(ldbChildren, (void *)(long)pid);
    if (ldbReapTimer == -1) ldbReapTimer = aeCreateTimeEvent(server.el, LDB_REAP_INTERVAL_MS, ldbReapChildren, NULL, NULL);
    /* Not a byte more from or to this connection here: no read handler,
     * nothing queued, no goodbye when it is closed. */
    connSetReadHandler(c->conn, NULL);
    connHandedToChild(c->conn);
    c->bufpos = c->sentlen = 0;
    while (listLength(c->reply)) listDelNode(c->reply, listFirst(c->reply));
    c->reply_bytes = 0;
    freeClientAsync(c);
}

/* Closes, with plain close(2), every fd the child inherited except the
 * debugging client's: listeners (so a restarted server can bind its
 * ports) and other clients' connections (so that they end when the
 * parent closes them). No transport code runs. Child. */
static void ldbChildCloseInheritedFds(client *keep) {
    for (int j = 0; j < CONN_TYPE_MAX; j++) {
        connListener *l = &server.listeners[j];
        for (int i = 0; i < l->count && i < CONN_BINDADDR_MAX; i++)
            if (l->fd[i] >= 0) close(l->fd[i]);
    }
    listIter li;
    listNode *ln;
    listRewind(server.clients, &li);
    while ((ln = listNext(&li)) != NULL) {
        client *c = listNodeValue(ln);
        if (c != keep && c->conn && c->conn->fd >= 0) close(c->conn->fd);
    }
}

/* The child's set-up: dies with the parent, ignores the shutdown signals
 * the parent handles (the parent kills it), keeps only its client. */
static void ldbChildSetup(client *c, pid_t parent) {
    ldb.forked = 1;
    serverLogConfig.role = 'C';
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (getppid() != parent) _exit(1);
    struct sigaction act;
    memset(&act, 0, sizeof(act));
    sigemptyset(&act.sa_mask);
    act.sa_handler = SIG_IGN;
    sigaction(SIGTERM, &act, NULL);
    sigaction(SIGINT, &act, NULL);
    removeSigSegvHandlers();
    ldbChildCloseInheritedFds(c);
    if (server.oom_score_adj) setOOMScoreAdj(CONFIG_OOM_BGCHILD);
    serverLog(LL_NOTICE, "Valkey forked for debugging eval");
}

/* See script_debug.h. */
void ldbRunEval(client *c, void (*run)(client *c)) {
    if (!(c->flags & CLIENT_LUA_DEBUG_SYNC)) {
        pid_t parent = getpid();
        pid_t pid = fork();
        if (pid == -1) {
            addReplyErrorFormat(c, "Fork() failed: can't run EVAL in debugging mode: %s", strerror(errno));
            return;
        }
        if (pid > 0) {
            ldbParentForget(c, pid);
            return;
        }
        ldbChildSetup(c, parent);
    } else {
        serverLog(LL_NOTICE, "Valkey synchronous debugging eval session started");
    }
    ldbSessionInit(c);
    ldbFlushClientReplies(c); /* what was queued before the EVAL goes first */
    run(c);
    ldbLog(sdsnew("<endsession>"));
    ldbSendLogs();
    if (ldb.forked) {
        ldbFlushClientReplies(c);
        serverLog(LL_NOTICE, "Lua debugging session child exiting");
        _exit(0);
    }
    serverLog(LL_NOTICE, "Valkey synchronous debugging eval session ended");
    /* The reply ends the session: the connection closes after it. */
    c->flags |= CLIENT_CLOSE_AFTER_REPLY;
    ldbSessionFree();
}
