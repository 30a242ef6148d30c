/* cli_hints.c - command help, argument hints and completion for
 * valkey-cli, from the server's COMMAND DOCS.
 *
 * cliHelpCreate() turns the COMMAND DOCS reply into a table of help
 * entries: one per command and subcommand (each with its argument tree:
 * tokens, types, optional / multiple flags, one-of and block groups) and
 * one per command group ("@string"), sorted by name. Then:
 *
 *   - cliHelpHint(): the hint the REPL shows while a line is typed, as
 *     Valkey's cli computes it. The words after the command are matched
 *     against the argument tree (tokens case-insensitively, integer and
 *     double values must parse, consecutive optional arguments in any
 *     order, repeated arguments as often as typed); if every word matched,
 *     the hint is what is left to type ("[NX|XX] [GET] ..."), otherwise it
 *     is empty. The last word counts only once a space follows it.
 *   - cliHelpFormat(): the text of `help <command>` / `help @<group>`,
 *     with Valkey's colours.
 *   - cliHelpCompletions(): what TAB completes a line to.
 *
 * The hint rules, quirks included, are those of Valkey 8's cli (its
 * tests/assets/test_cli_hint_suite.txt cases hold here: see
 * unit/test_cli_hints.c and tests/integration/valkey-cli.tcl). Pure code:
 * no I/O; valkey-cli.c fetches the docs and prints. Leaf code: needs
 * cli_reply, sds and zmalloc only. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli_hints.h"
#include "zmalloc.h"

/* ---------------------------------------------------------------------------
 * Building the table from COMMAND DOCS
 * ------------------------------------------------------------------------- */

/* The text of a string-like reply node, or NULL. */
static const char *replyText(const cliReply *r) {
    if (!r) return NULL;
    if (r->type == CLI_REPLY_STRING || r->type == CLI_REPLY_STATUS || r->type == CLI_REPLY_VERB) return r->str;
    return NULL;
}

/* In a key/value list (RESP2 flat array or RESP3 map), the value of key
 * name, or NULL. */
static const cliReply *docsField(const cliReply *list, const char *name) {
    if (!list || !cliReplyIsAggregate(list)) return NULL;
    for (size_t j = 0; j + 1 < list->elements; j += 2) {
        const char *k = replyText(list->element[j]);
        if (k && !strcmp(k, name)) return list->element[j + 1];
    }
    return NULL;
}

/* A new sds copy of a text field, or NULL when it is absent. */
static sds docsText(const cliReply *list, const char *name) {
    const char *t = replyText(docsField(list, name));
    return t ? sdsnew(t) : NULL;
}

static cliArgType argTypeFromName(const char *t) {
    static const struct {
        const char *name;
        cliArgType type;
    } types[] = {
        {"string", CLI_ARG_STRING},   {"integer", CLI_ARG_INTEGER},       {"double", CLI_ARG_DOUBLE},
        {"key", CLI_ARG_KEY},         {"pattern", CLI_ARG_PATTERN},       {"unix-time", CLI_ARG_UNIX_TIME},
        {"pure-token", CLI_ARG_PURE_TOKEN}, {"oneof", CLI_ARG_ONEOF},      {"block", CLI_ARG_BLOCK},
    };
    for (size_t j = 0; t && j < sizeof(types) / sizeof(types[0]); j++)
        if (!strcmp(t, types[j].name)) return types[j].type;
    return CLI_ARG_STRING;
}

static void argsFill(cliCmdArg *args, const cliReply *list);

/* Fills one argument from its docs map. */
static void argFill(cliCmdArg *arg, const cliReply *map) {
    arg->name = docsText(map, "name");
    if (!arg->name) arg->name = sdsempty();
    arg->display = docsText(map, "display_text");
    arg->token = docsText(map, "token");
    arg->type = argTypeFromName(replyText(docsField(map, "type")));
    const cliReply *flags = docsField(map, "flags");
    for (size_t j = 0; flags && cliReplyIsAggregate(flags) && j < flags->elements; j++) {
        const char *f = replyText(flags->element[j]);
        if (!f) continue;
        if (!strcmp(f, "optional")) arg->flags |= CLI_ARG_OPTIONAL;
        if (!strcmp(f, "multiple")) arg->flags |= CLI_ARG_MULTIPLE;
        if (!strcmp(f, "multiple_token")) arg->flags |= CLI_ARG_MULTIPLE_TOKEN;
    }
    const cliReply *sub = docsField(map, "arguments");
    if (sub && cliReplyIsAggregate(sub) && sub->elements > 0) {
        arg->numsubargs = (int)sub->elements;
        arg->subargs = zcalloc(sizeof(cliCmdArg) * sub->elements);
        argsFill(arg->subargs, sub);
    }
}

/* Fills args[] from a docs "arguments" array. */
static void argsFill(cliCmdArg *args, const cliReply *list) {
    for (size_t j = 0; j < list->elements; j++) argFill(&args[j], list->element[j]);
}

static void argsFree(cliCmdArg *args, int numargs) {
    for (int j = 0; j < numargs; j++) {
        sdsfree(args[j].name);
        sdsfree(args[j].display);
        sdsfree(args[j].token);
        argsFree(args[j].subargs, args[j].numsubargs);
    }
    zfree(args);
}

static sds hintForArgs(sds hint, cliCmdArg *args, int numargs, const char *sep);

/* Appends a new entry for a command (sub NULL) or subcommand; returns it. */
static cliHelpEntry *entryAdd(cliHelp *h, size_t *cap, const char *cmd, const char *sub) {
    if (h->len == *cap) {
        *cap = *cap ? *cap * 2 : 256;
        h->entries = zrealloc(h->entries, sizeof(cliHelpEntry) * *cap);
    }
    cliHelpEntry *e = &h->entries[h->len++];
    memset(e, 0, sizeof(*e));
    e->argc = sub ? 2 : 1;
    e->argv[0] = sdsnew(cmd);
    sdstoupper(e->argv[0]);
    if (sub) {
        /* COMMAND DOCS names subcommands "config|get". */
        const char *bar = strchr(sub, '|');
        e->argv[1] = sdsnew(bar ? bar + 1 : sub);
        sdstoupper(e->argv[1]);
        e->full = sdscatfmt(sdsdup(e->argv[0]), " %S", e->argv[1]);
    } else {
        e->full = sdsdup(e->argv[0]);
    }
    return e;
}

/* Records group once in the table's group entries. */
static void groupAdd(cliHelp *h, size_t *cap, const char *group) {
    sds full = sdscatfmt(sdsnew("@"), "%s", group);
    for (size_t j = 0; j < h->len; j++) {
        if (h->entries[j].is_group && !strcmp(h->entries[j].full, full)) {
            sdsfree(full);
            return;
        }
    }
    cliHelpEntry *e = entryAdd(h, cap, full, NULL);
    e->is_group = 1;
    sdsfree(e->full);
    sdsfree(e->argv[0]);
    e->full = full;
    e->argv[0] = sdsdup(full);
}

/* Adds the entry of one command or subcommand and, recursively, of its
 * subcommands. */
static void commandAdd(cliHelp *h, size_t *cap, const char *cmd, const char *sub, const cliReply *spec) {
    if (!cliReplyIsAggregate(spec)) return;
    cliHelpEntry *e = entryAdd(h, cap, cmd, sub);
    e->summary = docsText(spec, "summary");
    e->since = docsText(spec, "since");
    e->group = docsText(spec, "group");
    const cliReply *args = docsField(spec, "arguments");
    if (args && cliReplyIsAggregate(args)) {
        e->numargs = (int)args->elements;
        e->args = zcalloc(sizeof(cliCmdArg) * (args->elements ? args->elements : 1));
        argsFill(e->args, args);
        e->params = hintForArgs(sdsempty(), e->args, e->numargs, " ");
    }
    /* The entry pointer moves when the table grows: copy what we need. */
    sds group = e->group ? sdsdup(e->group) : NULL;
    const cliReply *subs = docsField(spec, "subcommands");
    for (size_t j = 0; subs && cliReplyIsAggregate(subs) && j + 1 < subs->elements; j += 2) {
        const char *name = replyText(subs->element[j]);
        if (name) commandAdd(h, cap, cmd, name, subs->element[j + 1]);
    }
    if (group) groupAdd(h, cap, group);
    sdsfree(group);
}

static int entryCompare(const void *a, const void *b) {
    return strcmp(((const cliHelpEntry *)a)->full, ((const cliHelpEntry *)b)->full);
}

/* Builds the help table from a COMMAND DOCS reply (a map, or a flat array
 * in RESP2). Returns a new table (cliHelpFree()), empty when docs is not
 * a docs reply. Does not keep docs. */
cliHelp *cliHelpCreate(const cliReply *docs) {
    cliHelp *h = zcalloc(sizeof(*h));
    size_t cap = 0;
    for (size_t j = 0; docs && cliReplyIsAggregate(docs) && j + 1 < docs->elements; j += 2) {
        const char *name = replyText(docs->element[j]);
        if (name) commandAdd(h, &cap, name, NULL, docs->element[j + 1]);
    }
    if (h->len) qsort(h->entries, h->len, sizeof(cliHelpEntry), entryCompare);
    return h;
}

/* Frees the table and every entry. NULL is a no-op. */
void cliHelpFree(cliHelp *h) {
    if (!h) return;
    for (size_t j = 0; j < h->len; j++) {
        cliHelpEntry *e = &h->entries[j];
        sdsfree(e->argv[0]);
        sdsfree(e->argv[1]);
        sdsfree(e->full);
        sdsfree(e->summary);
        sdsfree(e->since);
        sdsfree(e->group);
        sdsfree(e->params);
        argsFree(e->args, e->numargs);
    }
    zfree(h->entries);
    zfree(h);
}

/* ---------------------------------------------------------------------------
 * Rendering what is left to type
 * ------------------------------------------------------------------------- */

static void clearMatches(cliCmdArg *args, int numargs) {
    for (int j = 0; j < numargs; j++) {
        args[j].matched = args[j].matched_token = args[j].matched_name = args[j].matched_all = 0;
        clearMatches(args[j].subargs, args[j].numsubargs);
    }
}

/* Appends s, or "" (two double quotes) for an empty string. */
static sds catOrEmpty(sds hint, const char *s) {
    return sdscat(hint, s[0] ? s : "\"\"");
}

/* After a part of a list was appended (hint grew past *mark), appends the
 * separator unless this was the list's last argument. */
static sds catSeparator(sds hint, size_t *mark, const char *sep, int is_last) {
    if (sdslen(hint) > *mark && !is_last) {
        hint = sdscat(hint, sep);
        *mark = sdslen(hint);
    }
    return hint;
}

static sds hintForArg(sds hint, cliCmdArg *arg);

/* The repeated part of a "multiple" argument: " [TOKEN value ...]". It is
 * always shown whole, so the argument's match state is cleared first. */
static sds hintForRepetition(sds hint, cliCmdArg *arg) {
    if (!(arg->flags & CLI_ARG_MULTIPLE)) return hint;
    clearMatches(arg, 1);
    if (hint[0] != '\0') hint = sdscat(hint, " ");
    hint = sdscat(hint, "[");
    if (arg->flags & CLI_ARG_MULTIPLE_TOKEN) {
        hint = catOrEmpty(hint, arg->token ? arg->token : "");
        if (arg->type != CLI_ARG_PURE_TOKEN) hint = sdscat(hint, " ");
    }
    switch (arg->type) {
    case CLI_ARG_ONEOF: hint = hintForArgs(hint, arg->subargs, arg->numsubargs, "|"); break;
    case CLI_ARG_BLOCK: hint = hintForArgs(hint, arg->subargs, arg->numsubargs, " "); break;
    case CLI_ARG_PURE_TOKEN: break;
    default: hint = catOrEmpty(hint, arg->display ? arg->display : arg->name); break;
    }
    return sdscat(hint, " ...]");
}

/* Appends what is left to type of one argument. */
static sds hintForArg(sds hint, cliCmdArg *arg) {
    if (arg->matched_all) return hint;
    int bracket = (arg->flags & CLI_ARG_OPTIONAL) && !arg->matched;
    if (bracket) hint = sdscat(hint, "[");
    if (arg->token && !arg->matched_token) {
        hint = catOrEmpty(hint, arg->token);
        if (arg->type != CLI_ARG_PURE_TOKEN) hint = sdscat(hint, " ");
    }
    switch (arg->type) {
    case CLI_ARG_ONEOF:
        if (!arg->matched) {
            hint = hintForArgs(hint, arg->subargs, arg->numsubargs, "|");
        } else {
            /* Only the alternative being typed. */
            for (int j = 0; j < arg->numsubargs; j++)
                if (arg->subargs[j].matched) hint = hintForArg(hint, &arg->subargs[j]);
        }
        break;
    case CLI_ARG_BLOCK: hint = hintForArgs(hint, arg->subargs, arg->numsubargs, " "); break;
    case CLI_ARG_PURE_TOKEN: break;
    default:
        if (!arg->matched_name) hint = catOrEmpty(hint, arg->display ? arg->display : arg->name);
        break;
    }
    hint = hintForRepetition(hint, arg);
    /* Looked up again: hintForRepetition() may have cleared the match. As
     * in Valkey, that can leave a closing bracket without its opening one
     * ("encoding offset [GET encoding offset ...]]"). */
    if ((arg->flags & CLI_ARG_OPTIONAL) && !arg->matched) hint = sdscat(hint, "]");
    return hint;
}

/* Appends what is left to type of a list of arguments, sep between them.
 * A run of optional arguments may be typed in any order: one the user has
 * started comes first, and the others of the run are shown only while the
 * required argument after the run is not typed yet. */
static sds hintForArgs(sds hint, cliCmdArg *args, int numargs, const char *sep) {
    size_t mark = sdslen(hint);
    for (int i = 0; i < numargs; i++) {
        if (!(args[i].flags & CLI_ARG_OPTIONAL)) {
            hint = hintForArg(hint, &args[i]);
            hint = catSeparator(hint, &mark, sep, i == numargs - 1);
            continue;
        }
        int j, started = -1;
        for (j = i; j < numargs && (args[j].flags & CLI_ARG_OPTIONAL); j++) {
            if (args[j].matched && !args[j].matched_all) {
                hint = hintForArg(hint, &args[j]);
                hint = catSeparator(hint, &mark, sep, i == numargs - 1);
                started = j;
            }
        }
        if (j == numargs || !args[j].matched) {
            for (; i < j; i++) {
                if (i == started) continue;
                hint = hintForArg(hint, &args[i]);
                hint = catSeparator(hint, &mark, sep, i == numargs - 1);
            }
        }
        i = j - 1;
    }
    return hint;
}

/* ---------------------------------------------------------------------------
 * Matching the typed words
 * ------------------------------------------------------------------------- */

static int matchArg(char **words, int numwords, cliCmdArg *arg);
static int matchArgs(char **words, int numwords, cliCmdArg *args, int numargs);

static int isLongLong(const char *w) {
    long long v;
    return sscanf(w, "%lld", &v) == 1;
}

static int isDouble(const char *w) {
    double v;
    return sscanf(w, "%lf", &v) == 1;
}

/* Marks a value word as typed (it parsed), or the argument as failed. */
static void matchValue(cliCmdArg *arg, int ok) {
    if (ok) {
        arg->matched += 1;
        arg->matched_name = 1;
        arg->matched_all = 1;
    } else {
        arg->matched = 0;
        arg->matched_name = 0;
    }
}

/* Matches the words against an argument past its token. Returns its
 * matched count (0 = no match). */
static int matchValueArg(char **words, int numwords, cliCmdArg *arg) {
    switch (arg->type) {
    case CLI_ARG_BLOCK:
        arg->matched += matchArgs(words, numwords, arg->subargs, arg->numsubargs);
        arg->matched_all = 1;
        for (int j = 0; j < arg->numsubargs; j++)
            if (!arg->subargs[j].matched_all) arg->matched_all = 0;
        break;
    case CLI_ARG_ONEOF:
        for (int j = 0; j < arg->numsubargs; j++) {
            if (matchArg(words, numwords, &arg->subargs[j])) {
                arg->matched += arg->subargs[j].matched;
                arg->matched_all = arg->subargs[j].matched_all;
                break;
            }
        }
        break;
    case CLI_ARG_INTEGER:
    case CLI_ARG_UNIX_TIME: matchValue(arg, isLongLong(words[0])); break;
    case CLI_ARG_DOUBLE: matchValue(arg, isDouble(words[0])); break;
    default: matchValue(arg, 1); break;
    }
    return arg->matched;
}

/* Matches one occurrence of an argument: its token (if any), then its
 * value. Returns the matched count, 0 = no match. */
static int matchArgOnce(char **words, int numwords, cliCmdArg *arg) {
    if (arg->token) {
        if (strcasecmp(arg->token, words[0]) != 0) return 0;
        arg->matched_token = 1;
        arg->matched = 1;
        if (arg->type == CLI_ARG_PURE_TOKEN) {
            arg->matched_all = 1;
            return 1;
        }
        if (numwords == 1) return 1; /* The value is still to come. */
        words++;
        numwords--;
    }
    if (!matchValueArg(words, numwords, arg)) return 0;
    return arg->matched;
}

/* Matches an argument, as many times as it repeats for a "multiple" one.
 * Returns the words it took. */
static int matchArg(char **words, int numwords, cliCmdArg *arg) {
    int taken = matchArgOnce(words, numwords, arg);
    if (!(arg->flags & CLI_ARG_MULTIPLE)) return taken;
    while (arg->matched_all && taken < numwords) {
        clearMatches(arg, 1);
        int once;
        if (arg->token && !(arg->flags & CLI_ARG_MULTIPLE_TOKEN)) {
            /* The token is typed only before the first value. */
            once = matchValueArg(words + taken, numwords - taken, arg);
            if (arg->matched) arg->matched_token = 1;
        } else {
            once = matchArgOnce(words + taken, numwords - taken, arg);
        }
        if (once == 0) break; /* An empty block "matches" nothing forever. */
        taken += once;
    }
    arg->matched_all = 0; /* More repetitions may follow. */
    return taken;
}

/* Matches the words at one of a run of optional arguments not matched yet.
 * Returns the words taken (0 = none fits), *which the argument. */
static int matchOneOptional(char **words, int numwords, cliCmdArg *args, int numargs, int *which) {
    for (int j = 0; j < numargs; j++) {
        if (args[j].matched) continue;
        int taken = matchArg(words, numwords, &args[j]);
        if (taken) {
            *which = j;
            return taken;
        }
    }
    return 0;
}

/* Matches as many words as possible against a run of optional arguments,
 * in any order. Starting a new one completes the previous one. */
static int matchOptionals(char **words, int numwords, cliCmdArg *args, int numargs) {
    int next = 0, which = -1, last = -1;
    while (next < numwords) {
        int taken = matchOneOptional(words + next, numwords - next, args, numargs, &which);
        if (!taken) break;
        if (last != -1) args[last].matched_all = 1;
        last = which;
        next += taken;
    }
    return next;
}

/* Matches words against an argument list. Returns the words matched, or 0
 * when a required argument does not match. */
static int matchArgs(char **words, int numwords, cliCmdArg *args, int numargs) {
    int next = 0;
    for (int a = 0; next < numwords && a < numargs; a++) {
        int taken;
        if (args[a].flags & CLI_ARG_OPTIONAL) {
            int end = a;
            while (end < numargs && (args[end].flags & CLI_ARG_OPTIONAL)) end++;
            taken = matchOptionals(words + next, numwords - next, args + a, end - a);
            a = end - 1;
        } else {
            taken = matchArg(words + next, numwords - next, &args[a]);
            if (!taken) return 0;
        }
        next += taken;
    }
    return next;
}

/* ---------------------------------------------------------------------------
 * Hints, help and completion
 * ------------------------------------------------------------------------- */

/* The command entry whose words are the longest prefix of words[0..n). */
static cliHelpEntry *findEntry(cliHelp *h, int n, char **words) {
    cliHelpEntry *best = NULL;
    for (size_t j = 0; j < h->len; j++) {
        cliHelpEntry *e = &h->entries[j];
        if (e->is_group || e->argc > n || (best && e->argc <= best->argc)) continue;
        int k;
        for (k = 0; k < e->argc && !strcasecmp(e->argv[k], words[k]); k++) {
        }
        if (k == e->argc) best = e;
    }
    return best;
}

/* The hint for a partly typed line: what is left to type of its command,
 * "" when the words typed do not fit the command's syntax, NULL when the
 * line names no known command. The last word counts once a space follows
 * it. Returns a new sds (caller frees) or NULL. */
sds cliHelpHint(cliHelp *h, const char *input) {
    int argc = 0;
    sds *argv = sdssplitargs(input, &argc);
    if (!argv) return NULL;
    size_t len = strlen(input);
    int typed = len && isspace((unsigned char)input[len - 1]) ? argc : argc - 1;
    sds hint = NULL;
    cliHelpEntry *e = typed > 0 ? findEntry(h, typed, argv) : NULL;
    if (e && e->args) {
        clearMatches(e->args, e->numargs);
        int words = typed - e->argc;
        int matched = words ? matchArgs(argv + e->argc, words, e->args, e->numargs) : 0;
        hint = matched == words ? hintForArgs(sdsempty(), e->args, e->numargs, " ") : sdsempty();
    } else if (e) {
        hint = sdsnew(typed <= e->argc && e->params ? e->params : "");
    }
    sdsfreesplitres(argv, argc);
    return hint;
}

/* Appends one entry as `help` shows it; group says whether to show the
 * command's group (not when listing a group). */
static sds formatEntry(sds out, const cliHelpEntry *e, int group) {
    out = sdscatprintf(out, "\r\n  \x1b[1m%s\x1b[0m \x1b[90m%s\x1b[0m\r\n", e->full, e->params ? e->params : "");
    out = sdscatprintf(out, "  \x1b[33msummary:\x1b[0m %s\r\n", e->summary ? e->summary : "");
    if (e->since) out = sdscatprintf(out, "  \x1b[33msince:\x1b[0m %s\r\n", e->since);
    if (group) out = sdscatprintf(out, "  \x1b[33mgroup:\x1b[0m %s\r\n", e->group ? e->group : "");
    return out;
}

/* The text of `help <words>` (argc >= 1): every command whose name starts
 * with those words, or with "@group" every command of the group. Returns
 * a new sds; only "\r\n" when nothing matches. */
sds cliHelpFormat(cliHelp *h, int argc, char **argv) {
    sds out = sdsempty();
    const char *group = argc > 0 && argv[0][0] == '@' ? argv[0] + 1 : NULL;
    for (size_t j = 0; j < h->len; j++) {
        const cliHelpEntry *e = &h->entries[j];
        if (e->is_group) continue;
        if (group) {
            if (e->group && !strcasecmp(group, e->group)) out = formatEntry(out, e, 0);
            continue;
        }
        if (argc > e->argc) continue;
        int k;
        for (k = 0; k < argc && !strcasecmp(argv[k], e->argv[k]); k++) {
        }
        if (k == argc) out = formatEntry(out, e, 1);
    }
    return sdscat(out, "\r\n");
}

/* The completions of a line for TAB: every command (and, after "help ",
 * every group too) whose name starts with the text, as the whole new line.
 * Returns a new array of *count new sds (free each, then the array with
 * zfree), NULL when there is none. */
sds *cliHelpCompletions(cliHelp *h, const char *buf, size_t *count) {
    size_t start = 0;
    int groups = 0;
    if (!strncasecmp(buf, "help ", 5)) {
        start = 5;
        while (isspace((unsigned char)buf[start])) start++;
        groups = 1;
    }
    size_t plen = strlen(buf + start);
    sds *out = NULL;
    *count = 0;
    for (size_t j = 0; j < h->len; j++) {
        const cliHelpEntry *e = &h->entries[j];
        if (e->is_group && !groups) continue;
        if (strncasecmp(buf + start, e->full, plen)) continue;
        out = zrealloc(out, sizeof(sds) * (*count + 1));
        out[(*count)++] = sdscat(sdsnewlen(buf, start), e->full);
    }
    return out;
}
