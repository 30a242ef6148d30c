/* acl.c - users, their permissions (ACL rules) and authentication.
 *
 * Every client runs as a user. A user has passwords (kept only as SHA-256
 * digests, compared in constant time), flags (on/off, nopass,
 * sanitize-payload) and one or more selectors: the root selector, written
 * with the user's own rules, plus any "(...)" selectors. A selector grants
 *   - commands: a bitmap indexed by command id (subcommands have their own
 *     ids), plus first arguments allowed for a command otherwise refused
 *     ("+select|0"); the rules that built it are kept as text, compacted,
 *     for ACL LIST / GETUSER;
 *   - keys: glob patterns, each for reading (%R~), writing (%W~) or both
 *     (~), or every key (allkeys);
 *   - channels: glob patterns (&), or every channel (allchannels).
 * A command is allowed when one selector allows the command, every key it
 * touches in the way its key specs say (cmdinfo.c: "access" needs read,
 * insert/update/delete need write) and every channel it names.
 *
 * Callers: processCommand() checks each request (aclCheckClientOrError),
 * EXEC checks its queued commands again, server.call() checks the script
 * caller's user; AUTH/HELLO authenticate through aclAuthenticate(). The
 * `default` user is what requirepass configures (config.c calls
 * aclUpdateDefaultUserPassword) and what protected mode looks at. `user`
 * lines of the configuration file or an `aclfile` (never both) define the
 * others at start-up; ACL LOAD/SAVE re-read and write the file, in
 * Valkey's format (parseAclText): whatever ACL SAVE or CONFIG REWRITE
 * writes reads back as the same users (see DESCRIBE_BARE).
 *
 * Users are never freed while clients may point at them: a deleted user's
 * clients are disconnected and, until they are gone, run as a user with no
 * permissions. This file uses OpenSSL's SHA-256 (libcrypto); it does no I/O
 * on connections. Everything runs in the event-loop thread. */
#include "acl.h"

#include <ctype.h>
#include <errno.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <strings.h>
#include <unistd.h>

#include "config.h"
#include "pubsub.h"

/* ---------------------------------------------------------------------------
 * Data structures
 * ------------------------------------------------------------------------- */

#define ACL_CMD_BITS 2048                  /* command ids, subcommands included */
#define ACL_CMD_WORDS (ACL_CMD_BITS / 64)
#define ACL_FUTURE_COMMANDS_BIT (ACL_CMD_BITS - 1) /* set by +@all: commands added later */

#define ACL_PERM_READ 1
#define ACL_PERM_WRITE 2
#define ACL_PERM_NOTKEY 4 /* the "key" is a shard channel: not checked as a key */

#define SELECTOR_ROOT (1 << 0)
#define SELECTOR_ALLKEYS (1 << 1)
#define SELECTOR_ALLCHANNELS (1 << 2)

#define USER_ON (1 << 0)
#define USER_NOPASS (1 << 1)
#define USER_SANITIZE_PAYLOAD (1 << 2)
#define USER_SKIP_SANITIZE_PAYLOAD (1 << 3)

#define ACL_PASSWORD_HEX_LEN (SHA256_DIGEST_LENGTH * 2)
#define ACL_LOG_GROUP_MS 60000 /* repeated denials within this merge into one entry */

/* How a pattern can be matched: most are a literal prefix followed by a
 * '*' ("app:*"), which needs no glob matching at all. */
#define PATTERN_LITERAL 0     /* no wildcard: the key must equal it */
#define PATTERN_PREFIX_STAR 1 /* literal prefix, then only '*'s */
#define PATTERN_GLOB 2        /* anything else: stringmatchlen() after the prefix test */

typedef struct {
    int perm; /* ACL_PERM_READ | ACL_PERM_WRITE */
    int kind; /* PATTERN_* */
    size_t prefix_len; /* bytes before the first wildcard or escape */
    sds pattern;
} aclKeyPattern;

typedef struct {
    struct serverCommand *cmd;
    sds arg;
} aclFirstArg;

/* One key pattern laid out for the permission check. A selector keeps them
 * in one array grouped by the pattern's first byte (patterns that start
 * with a wildcard in a last group), so a key is only tried against the
 * patterns that can match its first byte. */
typedef struct {
    unsigned char perm, kind; /* ACL_PERM_*, PATTERN_* */
    uint32_t prefix_len;
    const char *pattern; /* the aclKeyPattern's sds */
    size_t len;
} aclPatternEntry;

typedef struct {
    int flags;                       /* SELECTOR_* */
    uint64_t allowed[ACL_CMD_WORDS]; /* by command id */
    list *firstargs;                 /* aclFirstArg *, for commands not allowed whole */
    list *patterns;                  /* aclKeyPattern * */
    aclPatternEntry *pvec;           /* patterns as an array; NULL: build at the next check */
    int pcount;
    int *pgroup; /* pvec[pgroup[b]..pgroup[b+1]): patterns starting with byte b; b = 256: with a wildcard */
    list *channels;                  /* sds */
    sds rules;                       /* command rules after +@all / -@all, e.g. "+get -@hash" */
} aclSelector;

struct user {
    sds name;
    int flags;       /* USER_* */
    list *passwords; /* sds: SHA-256 digests in lower-case hex */
    list *selectors; /* aclSelector *, the root one first */
};

typedef struct {
    long long count;
    int reason;  /* ACL_DENIED_* */
    int context; /* ACL_LOG_CTX_* */
    sds object;
    sds username;
    mstime_t updated, created;
    sds cinfo;
    long long id;
} aclLogEntry;

static list *users;          /* user *, sorted by name */
static user *default_user;   /* never deleted */
static user *nobody;         /* what clients of a deleted user run as until they are freed */
static list *config_users;   /* sds * argv arrays of the config file's `user` lines */
static list *acl_log;        /* aclLogEntry *, newest first */
static long long acl_log_next_id;
static long long denied_cmd, denied_key, denied_channel;
static uint8_t key_perm_cache[ACL_CMD_BITS]; /* per command id, see keyPermOf() */

/* Errors of rules, worded as Valkey words them. The aclfile loader tells
 * an unknown command from the rest by comparing with ACL_ERR_UNKNOWN. */
static const char ACL_ERR_SYNTAX[] = "Syntax error";
static const char ACL_ERR_UNKNOWN[] = "Unknown command or category name in ACL";
static const char ACL_ERR_ALLKEYS[] = "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and "
                                      "does not have any effect. Try 'resetkeys' to start with an empty list of patterns";
static const char ACL_ERR_ALLCHANNELS[] = "Adding a pattern after the * pattern (or the 'allchannels' flag) is not "
                                          "valid and does not have any effect. Try 'resetchannels' to start with an "
                                          "empty list of channels";

static sds applyRules(user *u, sds *argv, int argc, sds *bad);
void publishCommand(client *c);
void spublishCommand(client *c);
void subscribeCommand(client *c);
void ssubscribeCommand(client *c);
void psubscribeCommand(client *c);

/* ---------------------------------------------------------------------------
 * Helpers over the command table
 * ------------------------------------------------------------------------- */

/* Calls fn for every command and subcommand of the table. */
static void forEachCommand(void (*fn)(struct serverCommand *cmd, void *ctx), void *ctx) {
    dictIterator *it = dictGetIterator(server.commands);
    dictEntry *de;
    while ((de = dictNext(it))) {
        struct serverCommand *cmd = dictGetVal(de);
        fn(cmd, ctx);
        if (cmd->subcommands)
            for (struct serverCommand *sub = cmd->subcommands; sub->name; sub++) fn(sub, ctx);
    }
    dictReleaseIterator(it);
}

static int bitGet(const uint64_t *bits, int id) {
    return (bits[id / 64] >> (id % 64)) & 1;
}

static void bitSet(uint64_t *bits, int id, int on) {
    if (on) bits[id / 64] |= 1ULL << (id % 64);
    else bits[id / 64] &= ~(1ULL << (id % 64));
}

/* 1 if s holds whitespace (isspace: space, \t \n \v \f \r) or a NUL byte.
 * Such bytes are refused in usernames, key and channel patterns and first
 * arguments (Valkey refuses them in the first three): an ACL file is split
 * into lines and rules at them, so a rule holding one could not be written
 * back as itself, and "~x\nuser evil ..." would add a user. */
static int aclStringHasSpaces(const char *s, size_t len) {
    for (size_t j = 0; j < len; j++)
        if (isspace((unsigned char)s[j]) || s[j] == '\0') return 1;
    return 0;
}

static int wordIs(const char *w, size_t len, const char *name) {
    return strlen(name) == len && !strncasecmp(w, name, len);
}

/* Turns key-spec flag words ("RW access update") into ACL_PERM_* bits.
 * Allocates nothing: SET resolves its flags this way on every call. */
static int keyPermFromWords(const char *words) {
    int perm = 0;
    const char *p = words;
    while (*p) {
        while (*p == ' ') p++;
        const char *w = p;
        while (*p && *p != ' ') p++;
        size_t len = (size_t)(p - w);
        if (wordIs(w, len, "access")) perm |= ACL_PERM_READ;
        else if (wordIs(w, len, "insert") || wordIs(w, len, "update") || wordIs(w, len, "delete"))
            perm |= ACL_PERM_WRITE;
        else if (wordIs(w, len, "not_key")) perm |= ACL_PERM_NOTKEY;
    }
    return perm;
}

/* The permissions the idx-th key of cmd needs with these arguments. The
 * fixed specs of each command are computed once (bits 0-2 first key, 3-5
 * later keys, 6 variable, 7 computed); commands whose flags depend on the
 * arguments (SET ... GET, BITFIELD, MIGRATE) are resolved per call. */
static int keyPermOf(struct serverCommand *cmd, robj **argv, int argc, int idx) {
    uint8_t *c = &key_perm_cache[cmd->id];
    if (!(*c & 0x80)) {
        const char *first = commandKeySpecFlagsOf(cmd, 0);
        int variable = strstr(first, "variable_flags") != NULL || !strcmp(cmd->fullname, "migrate");
        *c = 0x80 | (variable ? 0x40 : 0) | keyPermFromWords(first) | (keyPermFromWords(commandKeySpecFlagsOf(cmd, 1)) << 3);
    }
    if (*c & 0x40) {
        /* The flag strings cmdinfo.c returns are static: remember the
         * parse of the few a variable command uses, by address. */
        static struct {
            const char *words;
            int perm;
        } seen[8];
        const char *words = commandKeyFlagsForArgv(cmd, argv, argc, idx);
        for (int j = 0; j < 8; j++) {
            if (seen[j].words == words) return seen[j].perm;
            if (seen[j].words == NULL) {
                seen[j].words = words;
                return seen[j].perm = keyPermFromWords(words);
            }
        }
        return keyPermFromWords(words);
    }
    return idx == 0 ? (*c & 7) : ((*c >> 3) & 7);
}

/* ---------------------------------------------------------------------------
 * Passwords
 * ------------------------------------------------------------------------- */

/* The SHA-256 of password as 64 lower-case hex digits (a new sds). */
static sds hashPassword(const char *password, size_t len) {
    unsigned char digest[SHA256_DIGEST_LENGTH];
    SHA256((const unsigned char *)password, len, digest);
    static const char hex[] = "0123456789abcdef";
    char out[ACL_PASSWORD_HEX_LEN];
    for (int j = 0; j < SHA256_DIGEST_LENGTH; j++) {
        out[j * 2] = hex[digest[j] >> 4];
        out[j * 2 + 1] = hex[digest[j] & 15];
    }
    return sdsnewlen(out, sizeof(out));
}

/* Compares two digests in time independent of where they differ. */
static int digestsEqual(const char *a, const char *b) {
    unsigned char diff = 0;
    for (int j = 0; j < ACL_PASSWORD_HEX_LEN; j++) diff |= (unsigned char)a[j] ^ (unsigned char)b[j];
    return diff == 0;
}

static int isValidDigest(const char *s, size_t len) {
    if (len != ACL_PASSWORD_HEX_LEN) return 0;
    for (size_t j = 0; j < len; j++)
        if (!((s[j] >= '0' && s[j] <= '9') || (s[j] >= 'a' && s[j] <= 'f'))) return 0;
    return 1;
}

static listNode *findPassword(user *u, const char *digest) {
    listIter li;
    listNode *ln;
    listRewind(u->passwords, &li);
    while ((ln = listNext(&li)))
        if (!strcmp(listNodeValue(ln), digest)) return ln;
    return NULL;
}

/* ---------------------------------------------------------------------------
 * Selectors
 * ------------------------------------------------------------------------- */

static void freeKeyPattern(void *p) {
    aclKeyPattern *kp = p;
    sdsfree(kp->pattern);
    zfree(kp);
}

static void freeFirstArg(void *p) {
    aclFirstArg *fa = p;
    sdsfree(fa->arg);
    zfree(fa);
}

static aclSelector *selectorCreate(int flags) {
    aclSelector *s = zcalloc(sizeof(*s));
    s->flags = flags;
    if (server.acl_pubsub_default == ACL_PUBSUB_ALLCHANNELS) s->flags |= SELECTOR_ALLCHANNELS;
    s->firstargs = listCreate();
    listSetFreeMethod(s->firstargs, freeFirstArg);
    s->patterns = listCreate();
    listSetFreeMethod(s->patterns, freeKeyPattern);
    s->channels = listCreate();
    listSetFreeMethod(s->channels, (void (*)(void *))sdsfree);
    s->rules = sdsempty();
    return s;
}

static void selectorFree(void *p) {
    aclSelector *s = p;
    listRelease(s->firstargs);
    listRelease(s->patterns);
    zfree(s->pvec);
    zfree(s->pgroup);
    listRelease(s->channels);
    sdsfree(s->rules);
    zfree(s);
}

static aclSelector *selectorDup(aclSelector *src) {
    aclSelector *s = selectorCreate(0);
    s->flags = src->flags;
    memcpy(s->allowed, src->allowed, sizeof(s->allowed));
    listIter li;
    listNode *ln;
    listRewind(src->firstargs, &li);
    while ((ln = listNext(&li))) {
        aclFirstArg *fa = listNodeValue(ln), *copy = zmalloc(sizeof(*copy));
        copy->cmd = fa->cmd;
        copy->arg = sdsdup(fa->arg);
        listAddNodeTail(s->firstargs, copy);
    }
    listRewind(src->patterns, &li);
    while ((ln = listNext(&li))) {
        aclKeyPattern *kp = listNodeValue(ln), *copy = zmalloc(sizeof(*copy));
        copy->perm = kp->perm;
        copy->pattern = sdsdup(kp->pattern);
        copy->kind = kp->kind;
        copy->prefix_len = kp->prefix_len;
        listAddNodeTail(s->patterns, copy);
    }
    listRewind(src->channels, &li);
    while ((ln = listNext(&li))) listAddNodeTail(s->channels, sdsdup(listNodeValue(ln)));
    sdsfree(s->rules);
    s->rules = sdsdup(src->rules);
    return s;
}

/* Drops the first arguments remembered for cmd. */
static void selectorClearFirstArgs(aclSelector *s, struct serverCommand *cmd) {
    listIter li;
    listNode *ln;
    listRewind(s->firstargs, &li);
    while ((ln = listNext(&li))) {
        aclFirstArg *fa = listNodeValue(ln);
        if (fa->cmd == cmd) listDelNode(s->firstargs, ln);
    }
}

/* Allows or refuses cmd and, for a container, all its subcommands. */
static void selectorSetCommand(aclSelector *s, struct serverCommand *cmd, int allow) {
    bitSet(s->allowed, cmd->id, allow);
    selectorClearFirstArgs(s, cmd);
    if (cmd->subcommands)
        for (struct serverCommand *sub = cmd->subcommands; sub->name; sub++) bitSet(s->allowed, sub->id, allow);
}

typedef struct {
    aclSelector *s;
    uint64_t category;
    int allow;
} categoryChange;

static void applyCategory(struct serverCommand *cmd, void *ctx) {
    categoryChange *ch = ctx;
    if (commandGetAclCategories(cmd) & ch->category) {
        bitSet(ch->s->allowed, cmd->id, ch->allow);
        selectorClearFirstArgs(ch->s, cmd);
    }
}

/* Removes earlier rules for the same command or category from the rule
 * text (a later rule overrides them), then appends rule. A rule for a whole
 * command also drops those of its subcommands and first arguments. */
static void selectorAppendRule(aclSelector *s, const char *rule) {
    const char *name = rule + 1;
    size_t namelen = strlen(name);
    int whole = strchr(name, '|') == NULL && name[0] != '@';
    int n;
    sds *w = sdssplitlen(s->rules, sdslen(s->rules), " ", 1, &n);
    sds out = sdsempty();
    for (int j = 0; j < n; j++) {
        if (sdslen(w[j]) < 2) continue;
        const char *wn = w[j] + 1;
        if (!strcasecmp(wn, name)) continue;
        if (whole && !strncasecmp(wn, name, namelen) && wn[namelen] == '|') continue;
        if (sdslen(out)) out = sdscatlen(out, " ", 1);
        out = sdscatsds(out, w[j]);
    }
    sdsfreesplitres(w, n);
    if (sdslen(out)) out = sdscatlen(out, " ", 1);
    sds lower = sdsnew(rule);
    sdstolower(lower);
    out = sdscatsds(out, lower);
    sdsfree(lower);
    sdsfree(s->rules);
    s->rules = out;
}

/* Applies a command rule (+cmd, -cmd, +@cat, -@cat, +cmd|sub, +cmd|arg).
 * Returns NULL or the error text. */
static const char *selectorCommandRule(aclSelector *s, const char *op, size_t len) {
    int allow = op[0] == '+';
    const char *name = op + 1;
    if (name[0] == '@') {
        if (!strcasecmp(name, "@all")) {
            memset(s->allowed, allow ? 0xff : 0, sizeof(s->allowed));
            listEmpty(s->firstargs);
            sdsclear(s->rules);
            return NULL;
        }
        uint64_t cat = aclCategoryByName(name + 1);
        if (!cat) return ACL_ERR_UNKNOWN;
        categoryChange ch = {s, cat, allow};
        forEachCommand(applyCategory, &ch);
        selectorAppendRule(s, op);
        return NULL;
    }
    sds copy = sdsnewlen(name, len - 1);
    int parts;
    sds *p = sdssplitlen(copy, sdslen(copy), "|", 1, &parts);
    sdsfree(copy);
    const char *err = NULL;
    struct serverCommand *cmd = parts >= 1 ? dictFetchValue(server.commands, p[0]) : NULL;
    if (!cmd || parts > 2 || (parts == 2 && sdslen(p[1]) == 0)) {
        err = (cmd && parts > 2 && cmd->subcommands) ? "Allowing first-arg of a subcommand is not supported"
                                                     : ACL_ERR_UNKNOWN;
    } else if (parts == 1) {
        selectorSetCommand(s, cmd, allow);
        selectorAppendRule(s, op);
    } else if (cmd->subcommands_dict) {
        struct serverCommand *sub = dictFetchValue(cmd->subcommands_dict, p[1]);
        if (!sub) {
            err = ACL_ERR_UNKNOWN;
        } else {
            bitSet(s->allowed, sub->id, allow);
            selectorAppendRule(s, op);
        }
    } else if (!allow) {
        /* First arguments can only be added (as in Valkey). */
        err = ACL_ERR_UNKNOWN;
    } else if (aclStringHasSpaces(p[1], sdslen(p[1]))) {
        /* Valkey takes these, but then cannot describe the rule (its ACL
         * LIST asserts) nor read it back from a file: refused here. */
        err = ACL_ERR_SYNTAX;
    } else {
        aclFirstArg *fa = zmalloc(sizeof(*fa));
        fa->cmd = cmd;
        fa->arg = sdsdup(p[1]);
        listAddNodeTail(s->firstargs, fa);
        selectorAppendRule(s, op);
    }
    sdsfreesplitres(p, parts);
    return err;
}

/* Drops the pattern array: the next check rebuilds it from the list. */
static void selectorPatternsChanged(aclSelector *s) {
    zfree(s->pvec);
    zfree(s->pgroup);
    s->pvec = NULL;
    s->pgroup = NULL;
    s->pcount = 0;
}

/* Sets kp->kind and kp->prefix_len from kp->pattern. */
static void classifyPattern(aclKeyPattern *kp) {
    size_t len = sdslen(kp->pattern), j = 0;
    while (j < len && !strchr("*?[\\", kp->pattern[j])) j++;
    kp->prefix_len = j;
    if (j == len) {
        kp->kind = PATTERN_LITERAL;
        return;
    }
    size_t k = j;
    while (k < len && kp->pattern[k] == '*') k++;
    kp->kind = k == len ? PATTERN_PREFIX_STAR : PATTERN_GLOB;
}

/* Reads the permissions of "%RW~...": R and W, each at most once, then
 * '~' (or the end of op). Returns ACL_PERM_* bits, 0 for a syntax error;
 * *pattern_at is where the pattern starts. */
static int parseKeyPermissions(const char *op, size_t len, size_t *pattern_at) {
    int perm = 0;
    size_t j = 1;
    for (; j < len && op[j] != '~'; j++) {
        int bit = (op[j] == 'R' || op[j] == 'r') ? ACL_PERM_READ : (op[j] == 'W' || op[j] == 'w') ? ACL_PERM_WRITE : 0;
        if (bit == 0 || (perm & bit)) return 0;
        perm |= bit;
    }
    *pattern_at = j < len ? j + 1 : len;
    return perm;
}

/* ~pattern, %R~pattern, %W~pattern, %RW~pattern; checked in Valkey's
 * order: "~*", then a pattern after allkeys, then the syntax. */
static const char *selectorKeyRule(aclSelector *s, const char *op, size_t len) {
    if (len == 2 && op[0] == '~' && op[1] == '*') {
        s->flags |= SELECTOR_ALLKEYS;
        listEmpty(s->patterns);
        selectorPatternsChanged(s);
        return NULL;
    }
    if (s->flags & SELECTOR_ALLKEYS) return ACL_ERR_ALLKEYS;
    int perm = ACL_PERM_READ | ACL_PERM_WRITE;
    size_t at = 1;
    if (op[0] == '%' && (perm = parseKeyPermissions(op, len, &at)) == 0) return ACL_ERR_SYNTAX;
    const char *pattern = op + at;
    size_t plen = len - at;
    if (aclStringHasSpaces(pattern, plen)) return ACL_ERR_SYNTAX;
    if (perm == (ACL_PERM_READ | ACL_PERM_WRITE) && plen == 1 && pattern[0] == '*') return selectorKeyRule(s, "~*", 2);
    /* The same pattern given again widens its permissions. */
    listIter li;
    listNode *ln;
    listRewind(s->patterns, &li);
    while ((ln = listNext(&li))) {
        aclKeyPattern *kp = listNodeValue(ln);
        if (sdslen(kp->pattern) == plen && !memcmp(kp->pattern, pattern, plen)) {
            kp->perm |= perm;
            selectorPatternsChanged(s);
            return NULL;
        }
    }
    aclKeyPattern *kp = zmalloc(sizeof(*kp));
    kp->perm = perm;
    kp->pattern = sdsnewlen(pattern, plen);
    classifyPattern(kp);
    listAddNodeTail(s->patterns, kp);
    selectorPatternsChanged(s);
    return NULL;
}

/* &pattern, &* for every channel. */
static const char *selectorChannelRule(aclSelector *s, const char *op, size_t len) {
    if (len == 2 && op[1] == '*') {
        s->flags |= SELECTOR_ALLCHANNELS;
        listEmpty(s->channels);
        return NULL;
    }
    if (s->flags & SELECTOR_ALLCHANNELS) return ACL_ERR_ALLCHANNELS;
    if (aclStringHasSpaces(op + 1, len - 1)) return ACL_ERR_SYNTAX;
    listIter li;
    listNode *ln;
    listRewind(s->channels, &li);
    while ((ln = listNext(&li))) {
        sds ch = listNodeValue(ln);
        if (sdslen(ch) == len - 1 && !memcmp(ch, op + 1, len - 1)) return NULL;
    }
    listAddNodeTail(s->channels, sdsnewlen(op + 1, len - 1));
    return NULL;
}

/* Applies one rule that a selector understands. Returns NULL or the error. */
static const char *selectorRule(aclSelector *s, const char *op, size_t len) {
    if (len == 0) return ACL_ERR_SYNTAX;
    if (!strcasecmp(op, "allkeys")) {
        s->flags &= ~SELECTOR_ALLKEYS;
        listEmpty(s->patterns);
        selectorPatternsChanged(s);
        return selectorKeyRule(s, "~*", 2);
    }
    if (!strcasecmp(op, "resetkeys")) {
        s->flags &= ~SELECTOR_ALLKEYS;
        listEmpty(s->patterns);
        selectorPatternsChanged(s);
        return NULL;
    }
    if (!strcasecmp(op, "allchannels")) {
        s->flags &= ~SELECTOR_ALLCHANNELS;
        listEmpty(s->channels);
        return selectorChannelRule(s, "&*", 2);
    }
    if (!strcasecmp(op, "resetchannels")) {
        s->flags &= ~SELECTOR_ALLCHANNELS;
        listEmpty(s->channels);
        return NULL;
    }
    if (!strcasecmp(op, "allcommands")) return selectorCommandRule(s, "+@all", 5);
    if (!strcasecmp(op, "nocommands")) return selectorCommandRule(s, "-@all", 5);
    if (op[0] == '~' || op[0] == '%') return selectorKeyRule(s, op, len);
    if (op[0] == '&') return selectorChannelRule(s, op, len);
    if ((op[0] == '+' || op[0] == '-') && len > 1) return selectorCommandRule(s, op, len);
    return ACL_ERR_SYNTAX;
}

/* ---------------------------------------------------------------------------
 * Users
 * ------------------------------------------------------------------------- */

static aclSelector *rootSelector(user *u) {
    return listNodeValue(listFirst(u->selectors));
}

static user *userCreateDetached(const char *name, size_t len) {
    user *u = zcalloc(sizeof(*u));
    u->name = sdsnewlen(name, len);
    u->flags = USER_SANITIZE_PAYLOAD;
    u->passwords = listCreate();
    listSetFreeMethod(u->passwords, (void (*)(void *))sdsfree);
    u->selectors = listCreate();
    listSetFreeMethod(u->selectors, selectorFree);
    listAddNodeTail(u->selectors, selectorCreate(SELECTOR_ROOT));
    return u;
}

static void userFree(user *u) {
    sdsfree(u->name);
    listRelease(u->passwords);
    listRelease(u->selectors);
    zfree(u);
}

static user *userDup(user *src) {
    user *u = zcalloc(sizeof(*u));
    u->name = sdsdup(src->name);
    u->flags = src->flags;
    u->passwords = listCreate();
    listSetFreeMethod(u->passwords, (void (*)(void *))sdsfree);
    u->selectors = listCreate();
    listSetFreeMethod(u->selectors, selectorFree);
    listIter li;
    listNode *ln;
    listRewind(src->passwords, &li);
    while ((ln = listNext(&li))) listAddNodeTail(u->passwords, sdsdup(listNodeValue(ln)));
    listRewind(src->selectors, &li);
    while ((ln = listNext(&li))) listAddNodeTail(u->selectors, selectorDup(listNodeValue(ln)));
    return u;
}

/* Moves the contents of src into dst (which keeps its address, so clients
 * pointing at it follow) and frees src. */
static void userReplaceContents(user *dst, user *src) {
    user tmp = *dst;
    *dst = *src;
    *src = tmp;
    userFree(src);
}

/* Returns the user named name, or NULL. */
static user *findUser(const char *name, size_t len) {
    listIter li;
    listNode *ln;
    listRewind(users, &li);
    while ((ln = listNext(&li))) {
        user *u = listNodeValue(ln);
        if (sdslen(u->name) == len && !memcmp(u->name, name, len)) return u;
    }
    return NULL;
}

/* Adds u to the user list, kept sorted by name. */
static void userInsert(user *u) {
    listAddNodeTail(users, u);
    for (listNode *ln = listLast(users); ln->prev; ln = ln->prev) {
        user *prev = ln->prev->value;
        if (strcmp(prev->name, u->name) <= 0) break;
        ln->value = prev;
        ln->prev->value = u;
    }
}

/* "(rule rule ...)" (body is what is between the parentheses): adds a
 * selector. As in Valkey the body is split as sdssplitargs() splits a
 * line, so quotes in it are read as quotes; that is how describeUser()
 * writes a selector's rule holding a quote or ending in ')'. Unbalanced
 * quotes and NUL bytes (sdssplitargs would stop at one) are refused,
 * where Valkey silently adds an empty selector or cuts the rule. */
static const char *userAddSelector(user *u, const char *body, size_t len) {
    if (memchr(body, '\0', len)) return ACL_ERR_SYNTAX;
    sds text = sdsnewlen(body, len);
    int n;
    sds *w = sdssplitargs(text, &n);
    sdsfree(text);
    if (!w) return ACL_ERR_SYNTAX;
    aclSelector *s = selectorCreate(0);
    const char *err = NULL;
    for (int j = 0; j < n && !err; j++) err = selectorRule(s, w[j], sdslen(w[j]));
    sdsfreesplitres(w, n);
    if (err) {
        selectorFree(s);
        return err;
    }
    listAddNodeTail(u->selectors, s);
    return NULL;
}

/* Applies one rule to user u: user-level rules here, the rest to its root
 * selector; "(...)" adds a selector. Returns NULL or the error text. */
static const char *userRule(user *u, const char *op, size_t len) {
    if (len == 0) return NULL; /* an empty rule does nothing, as in Valkey */
    if (!strcasecmp(op, "on")) u->flags |= USER_ON;
    else if (!strcasecmp(op, "off")) u->flags &= ~USER_ON;
    else if (!strcasecmp(op, "nopass")) {
        u->flags |= USER_NOPASS;
        listEmpty(u->passwords);
    } else if (!strcasecmp(op, "resetpass")) {
        u->flags &= ~USER_NOPASS;
        listEmpty(u->passwords);
    } else if (!strcasecmp(op, "sanitize-payload")) {
        u->flags = (u->flags & ~USER_SKIP_SANITIZE_PAYLOAD) | USER_SANITIZE_PAYLOAD;
    } else if (!strcasecmp(op, "skip-sanitize-payload")) {
        u->flags = (u->flags & ~USER_SANITIZE_PAYLOAD) | USER_SKIP_SANITIZE_PAYLOAD;
    } else if (!strcasecmp(op, "clearselectors")) {
        while (listLength(u->selectors) > 1) listDelNode(u->selectors, listLast(u->selectors));
    } else if (!strcasecmp(op, "reset")) {
        const char *steps[] = {"resetpass", "resetkeys", "resetchannels", "off", "clearselectors", "-@all"};
        for (size_t j = 0; j < sizeof(steps) / sizeof(steps[0]); j++) userRule(u, steps[j], strlen(steps[j]));
        if (server.acl_pubsub_default == ACL_PUBSUB_ALLCHANNELS) userRule(u, "allchannels", 11);
        u->flags = (u->flags & ~USER_SKIP_SANITIZE_PAYLOAD) | USER_SANITIZE_PAYLOAD;
    } else if (op[0] == '>' || op[0] == '<') {
        sds digest = hashPassword(op + 1, len - 1);
        listNode *ln = findPassword(u, digest);
        if (op[0] == '>') {
            if (!ln) listAddNodeTail(u->passwords, digest);
            else sdsfree(digest);
            u->flags &= ~USER_NOPASS;
        } else {
            sdsfree(digest);
            if (!ln) return "The password you are trying to remove from the user does not exist";
            listDelNode(u->passwords, ln);
        }
    } else if (op[0] == '#' || op[0] == '!') {
        if (!isValidDigest(op + 1, len - 1))
            return "The password hash must be exactly 64 characters and contain only lowercase hexadecimal "
                   "characters";
        listNode *ln = findPassword(u, op + 1);
        if (op[0] == '#') {
            if (!ln) listAddNodeTail(u->passwords, sdsnewlen(op + 1, len - 1));
            u->flags &= ~USER_NOPASS;
        } else {
            if (!ln) return "The password you are trying to remove from the user does not exist";
            listDelNode(u->passwords, ln);
        }
    } else if (op[0] == '(' && len >= 2 && op[len - 1] == ')') {
        return userAddSelector(u, op + 1, len - 2);
    } else {
        return selectorRule(rootSelector(u), op, len);
    }
    return NULL;
}

/* Joins arguments that belong to one "(...)" selector: "(~a*" "+get)"
 * become "(~a* +get)", as Valkey joins them for ACL SETUSER, `user` lines
 * and aclfile lines alike: an argument that starts with '(' and does not
 * end with ')' opens a selector, the next one that ends with ')' closes
 * it. Returns the merged list (caller frees with sdsfreesplitres) with
 * *outc set, or NULL for an unmatched parenthesis with *open_at set to the
 * index of the argument that opened it. */
static sds *mergeSelectorArgs(sds *argv, int argc, int *outc, int *open_at) {
    sds *out = zmalloc(sizeof(sds) * (argc ? argc : 1));
    int n = 0, opened = -1;
    sds open = NULL;
    for (int j = 0; j < argc; j++) {
        sds a = argv[j];
        size_t len = sdslen(a);
        if (open) {
            open = sdscatlen(open, " ", 1);
            open = sdscatsds(open, a);
            if (len && a[len - 1] == ')') {
                out[n++] = open;
                open = NULL;
            }
        } else if (len && a[0] == '(' && a[len - 1] != ')') {
            open = sdsdup(a);
            opened = j;
        } else {
            out[n++] = sdsdup(a);
        }
    }
    if (open) {
        *open_at = opened;
        sdsfree(open);
        sdsfreesplitres(out, n);
        return NULL;
    }
    *outc = n;
    return out;
}

/* ---------------------------------------------------------------------------
 * Describing users
 * ------------------------------------------------------------------------- */

/* How a selector's rules are written. In ACL LIST, ACL SAVE and CONFIG
 * REWRITE lines (as in Valkey's) the root selector's rules are written as
 * they are: nothing there needs quoting, since a rule cannot hold
 * whitespace (aclStringHasSpaces) and an ACL file line is split only at
 * spaces. A "(...)" selector is read back differently: found by the ')'
 * that ends one of the line's words, then split by sdssplitargs(). So a
 * rule inside one that holds a quote or ends in ')' is written as a
 * double-quoted string (sdscatrepr). ACL GETUSER shows every rule bare. */
#define DESCRIBE_BARE 0
#define DESCRIBE_IN_SELECTOR 1

/* 1 if rule (inside a selector) would not be read back as itself bare. */
static int selectorRuleNeedsQuotes(const char *rule, size_t len) {
    if (len && rule[len - 1] == ')') return 1;
    return memchr(rule, '"', len) || memchr(rule, '\'', len);
}

/* Appends one rule, quoted if how and the rule need it. */
static sds catRule(sds s, const char *rule, size_t len, int how) {
    if (how == DESCRIBE_IN_SELECTOR && selectorRuleNeedsQuotes(rule, len)) return sdscatrepr(s, rule, len);
    return sdscatlen(s, rule, len);
}

static sds describeKeys(sds s, aclSelector *sel, int how) {
    if (sel->flags & SELECTOR_ALLKEYS) return sdscat(s, "~*");
    listIter li;
    listNode *ln;
    listRewind(sel->patterns, &li);
    int first = 1;
    while ((ln = listNext(&li))) {
        aclKeyPattern *kp = listNodeValue(ln);
        if (!first) s = sdscatlen(s, " ", 1);
        first = 0;
        const char *prefix = kp->perm == ACL_PERM_READ ? "%R~" : kp->perm == ACL_PERM_WRITE ? "%W~" : "~";
        sds rule = sdscatsds(sdsnew(prefix), kp->pattern);
        s = catRule(s, rule, sdslen(rule), how);
        sdsfree(rule);
    }
    return s;
}

static sds describeChannels(sds s, aclSelector *sel, int how) {
    if (sel->flags & SELECTOR_ALLCHANNELS) return sdscat(s, "&*");
    listIter li;
    listNode *ln;
    listRewind(sel->channels, &li);
    int first = 1;
    while ((ln = listNext(&li))) {
        if (!first) s = sdscatlen(s, " ", 1);
        first = 0;
        sds rule = sdscatsds(sdsnew("&"), listNodeValue(ln));
        s = catRule(s, rule, sdslen(rule), how);
        sdsfree(rule);
    }
    return s;
}

/* The command rules: "+@all" or "-@all", then sel->rules word by word
 * (no rule holds a space: first arguments refuse them). */
static sds describeCommands(sds s, aclSelector *sel, int how) {
    s = sdscat(s, bitGet(sel->allowed, ACL_FUTURE_COMMANDS_BIT) ? "+@all" : "-@all");
    const char *p = sel->rules, *end = sel->rules + sdslen(sel->rules);
    while (p < end) {
        const char *sp = memchr(p, ' ', (size_t)(end - p));
        size_t len = sp ? (size_t)(sp - p) : (size_t)(end - p);
        s = sdscatlen(s, " ", 1);
        s = catRule(s, p, len, how);
        p += len + 1;
    }
    return s;
}

/* "~a* resetchannels &c -@all +get": a selector as ACL LIST shows it. */
static sds describeSelector(sds s, aclSelector *sel, int how) {
    size_t before = sdslen(s);
    s = describeKeys(s, sel, how);
    if (sdslen(s) > before) s = sdscatlen(s, " ", 1);
    if (!(sel->flags & SELECTOR_ALLCHANNELS)) s = sdscat(s, "resetchannels");
    if ((sel->flags & SELECTOR_ALLCHANNELS) || listLength(sel->channels)) {
        if (!(sel->flags & SELECTOR_ALLCHANNELS)) s = sdscatlen(s, " ", 1);
        s = describeChannels(s, sel, how);
    }
    s = sdscatlen(s, " ", 1);
    return describeCommands(s, sel, how);
}

/* u's rules as the arguments of ACL SETUSER that rebuild it: flags,
 * "#<digest>" passwords, the root selector's rules, then one argument
 * "(...)" per other selector. Returns an array of *argc new sds, freed
 * with sdsfreesplitres(). */
static sds *describeUserArgs(user *u, int *argc) {
    sds root = sdsnew((u->flags & USER_ON) ? "on" : "off");
    if (u->flags & USER_NOPASS) root = sdscat(root, " nopass");
    if (u->flags & USER_SANITIZE_PAYLOAD) root = sdscat(root, " sanitize-payload");
    if (u->flags & USER_SKIP_SANITIZE_PAYLOAD) root = sdscat(root, " skip-sanitize-payload");
    listIter li;
    listNode *ln;
    listRewind(u->passwords, &li);
    while ((ln = listNext(&li))) root = sdscatfmt(root, " #%S", (sds)listNodeValue(ln));
    root = sdscatlen(root, " ", 1);
    root = describeSelector(root, rootSelector(u), DESCRIBE_BARE);
    int n;
    sds *args = sdssplitlen(root, (ssize_t)sdslen(root), " ", 1, &n);
    sdsfree(root);
    args = zrealloc(args, sizeof(sds) * (n + listLength(u->selectors)));
    listRewind(u->selectors, &li);
    listNext(&li);
    while ((ln = listNext(&li))) {
        sds sel = sdsnew("(");
        sel = describeSelector(sel, listNodeValue(ln), DESCRIBE_IN_SELECTOR);
        args[n++] = sdscatlen(sel, ")", 1);
    }
    *argc = n;
    return args;
}

/* "user alice on #... ~a* resetchannels -@all +get": u as ACL LIST shows
 * it, which is also its line in an ACL file (see DESCRIBE_BARE for why it
 * reads back as the same user). Returns a new sds. */
static sds describeUser(user *u) {
    int n;
    sds *args = describeUserArgs(u, &n);
    sds s = sdscatfmt(sdsempty(), "user %S", u->name);
    for (int j = 0; j < n; j++) {
        s = sdscatlen(s, " ", 1);
        s = sdscatsds(s, args[j]);
    }
    sdsfreesplitres(args, n);
    return s;
}

/* ---------------------------------------------------------------------------
 * Permission checks
 * ------------------------------------------------------------------------- */

#define PATTERN_GROUPS 257 /* one per first byte, then the wildcard-first ones */

static int patternGroup(const aclKeyPattern *kp) {
    return kp->prefix_len ? (unsigned char)kp->pattern[0] : PATTERN_GROUPS - 1;
}

static void selectorBuildPatternArray(aclSelector *s) {
    s->pcount = (int)listLength(s->patterns);
    s->pvec = zmalloc(sizeof(aclPatternEntry) * (s->pcount ? s->pcount : 1));
    s->pgroup = zcalloc(sizeof(int) * (PATTERN_GROUPS + 1));
    listIter li;
    listNode *ln;
    /* A counting sort by group: sizes, then start offsets, then entries. */
    listRewind(s->patterns, &li);
    while ((ln = listNext(&li))) s->pgroup[patternGroup(listNodeValue(ln)) + 1]++;
    for (int g = 0; g < PATTERN_GROUPS; g++) s->pgroup[g + 1] += s->pgroup[g];
    int fill[PATTERN_GROUPS];
    memcpy(fill, s->pgroup, sizeof(fill));
    listRewind(s->patterns, &li);
    while ((ln = listNext(&li))) {
        aclKeyPattern *kp = listNodeValue(ln);
        aclPatternEntry *e = &s->pvec[fill[patternGroup(kp)]++];
        e->perm = kp->perm;
        e->kind = kp->kind;
        e->prefix_len = kp->prefix_len;
        e->pattern = kp->pattern;
        e->len = sdslen(kp->pattern);
    }
}

/* Whether one of the patterns pvec[from..to) grants perm on the key. */
static int patternsAllow(const aclPatternEntry *e, const aclPatternEntry *end, const char *key, size_t len,
                         int perm) {
    for (; e < end; e++) {
        if ((e->perm & perm) != perm) continue;
        if (len == 0 || e->kind == PATTERN_GLOB) {
            if (stringmatchlen(e->pattern, e->len, key, len, 0)) return 1;
            continue;
        }
        if (len < e->prefix_len) continue;
        if (e->prefix_len && memcmp(key, e->pattern, e->prefix_len)) continue;
        if (e->kind == PATTERN_PREFIX_STAR || len == e->prefix_len) return 1;
    }
    return 0;
}

/* The hot path of a restricted user: the patterns that start with the
 * key's first byte, then those that start with a wildcard. */
static int selectorKeyAllowed(aclSelector *s, const char *key, size_t len, int perm) {
    if (s->flags & SELECTOR_ALLKEYS) return 1;
    perm &= ACL_PERM_READ | ACL_PERM_WRITE;
    if (!s->pvec) selectorBuildPatternArray(s);
    const int *g = s->pgroup;
    if (len > 0) {
        unsigned char b = (unsigned char)key[0];
        if (patternsAllow(s->pvec + g[b], s->pvec + g[b + 1], key, len, perm)) return 1;
    }
    return patternsAllow(s->pvec + g[PATTERN_GROUPS - 1], s->pvec + g[PATTERN_GROUPS], key, len, perm);
}

/* A PSUBSCRIBE pattern must be granted literally; a channel may match a
 * granted pattern. */
static int selectorChannelAllowed(aclSelector *s, const char *ch, size_t len, int is_pattern) {
    if (s->flags & SELECTOR_ALLCHANNELS) return 1;
    listIter li;
    listNode *ln;
    listRewind(s->channels, &li);
    while ((ln = listNext(&li))) {
        sds p = listNodeValue(ln);
        if (is_pattern) {
            if (sdslen(p) == len && !memcmp(p, ch, len)) return 1;
        } else if (stringmatchlen(p, sdslen(p), ch, len, 0)) {
            return 1;
        }
    }
    return 0;
}

/* Commands a client may run before authenticating (AUTH, HELLO, QUIT,
 * RESET) are allowed to every user, as in Valkey. */
static int selectorCommandAllowed(aclSelector *s, struct serverCommand *cmd, robj **argv, int argc) {
    if (bitGet(s->allowed, cmd->id) || (cmd->flags & CMD_NO_AUTH)) return 1;
    if (argc < 2 || cmd->parent || !listLength(s->firstargs)) return 0;
    listIter li;
    listNode *ln;
    listRewind(s->firstargs, &li);
    while ((ln = listNext(&li))) {
        aclFirstArg *fa = listNodeValue(ln);
        if (fa->cmd == cmd && !strcasecmp(fa->arg, objectGetVal(argv[1]))) return 1;
    }
    return 0;
}

/* The channel arguments of cmd: returns the first argv index (0: none),
 * and whether they are patterns. */
static int commandChannels(struct serverCommand *cmd, int argc, int *last, int *is_pattern) {
    *is_pattern = 0;
    if (cmd->proc == publishCommand || cmd->proc == spublishCommand) {
        *last = 1;
        return 1;
    }
    if (cmd->proc == subscribeCommand || cmd->proc == ssubscribeCommand || cmd->proc == psubscribeCommand) {
        *is_pattern = cmd->proc == psubscribeCommand;
        *last = argc - 1;
        return 1;
    }
    return 0;
}

static int selectorCheck(aclSelector *s, struct serverCommand *cmd, robj **argv, int argc, int *errpos) {
    if (!selectorCommandAllowed(s, cmd, argv, argc)) return ACL_DENIED_CMD;
    if (!(s->flags & SELECTOR_ALLKEYS) && (cmd->key.first > 0 || cmd->getkeys_proc)) {
        int stackkeys[32];
        int *keys = argc <= 32 ? stackkeys : zmalloc(sizeof(int) * argc);
        int n = getKeysFromCommand(cmd, argv, argc, keys, argc <= 32 ? 32 : argc);
        int denied = 0;
        for (int j = 0; j < n && !denied; j++) {
            int perm = keyPermOf(cmd, argv, argc, j);
            if (perm & ACL_PERM_NOTKEY) continue;
            sds key = objectGetVal(argv[keys[j]]);
            if (!selectorKeyAllowed(s, key, sdslen(key), perm)) {
                *errpos = keys[j];
                denied = 1;
            }
        }
        if (keys != stackkeys) zfree(keys);
        if (denied) return ACL_DENIED_KEY;
    }
    if (!(s->flags & SELECTOR_ALLCHANNELS)) {
        int last, is_pattern;
        int first = commandChannels(cmd, argc, &last, &is_pattern);
        for (int j = first; first && j <= last && j < argc; j++) {
            sds ch = objectGetVal(argv[j]);
            if (!selectorChannelAllowed(s, ch, sdslen(ch), is_pattern)) {
                *errpos = j;
                return ACL_DENIED_CHANNEL;
            }
        }
    }
    return ACL_OK;
}

/* aclCheckCommand() past its fast path: every selector of u in turn. */
static int __attribute__((noinline)) aclCheckSelectors(user *u, struct serverCommand *cmd, robj **argv, int argc, int *errpos) {
    int relevant = ACL_OK, relevant_pos = 0;
    listIter li;
    listNode *ln;
    listRewind(u->selectors, &li);
    while ((ln = listNext(&li))) {
        int pos = 0;
        int r = selectorCheck(listNodeValue(ln), cmd, argv, argc, &pos);
        if (r == ACL_OK) return ACL_OK;
        if (r > relevant) {
            relevant = r;
            relevant_pos = pos;
        }
    }
    *errpos = relevant_pos;
    return relevant;
}

/* See acl.h. */
int aclCheckCommand(user *u, struct serverCommand *cmd, robj **argv, int argc, int *errpos) {
    if (u == NULL) return ACL_OK;
    /* The common case first (the default user: +@all ~* &*): a root
     * selector that allows the command and every key and channel. It runs
     * for every command, so it stays a leaf and the rest a tail call. */
    aclSelector *root = listNodeValue(listFirst(u->selectors));
    if ((root->flags & (SELECTOR_ALLKEYS | SELECTOR_ALLCHANNELS)) == (SELECTOR_ALLKEYS | SELECTOR_ALLCHANNELS) &&
        bitGet(root->allowed, cmd->id))
        return ACL_OK;
    return aclCheckSelectors(u, cmd, argv, argc, errpos);
}

/* See acl.h. */
int aclCheckClientCommand(client *c, int *errpos) {
    return aclCheckCommand(c->user, c->cmd, c->argv, c->argc, errpos);
}

user *aclClientUser(client *c) {
    return c->user;
}

/* See acl.h. */
int aclClientReadsAnyKey(client *c) {
    user *u = c->user;
    if ((c->flags & CLIENT_SCRIPT) && server.current_client) u = server.current_client->user;
    if (!u) return 1;
    listIter li;
    listNode *ln;
    listRewind(u->selectors, &li);
    while ((ln = listNext(&li))) {
        aclSelector *s = listNodeValue(ln);
        if (!selectorCommandAllowed(s, c->cmd, c->argv, c->argc)) continue;
        if (s->flags & SELECTOR_ALLKEYS) return 1;
        listIter pi;
        listNode *pn;
        listRewind(s->patterns, &pi);
        while ((pn = listNext(&pi))) {
            aclKeyPattern *kp = listNodeValue(pn);
            if ((kp->perm & ACL_PERM_READ) && !strcmp(kp->pattern, "*")) return 1;
        }
    }
    return 0;
}

/* See acl.h. */
int aclClientSkipsSanitizePayload(client *c) {
    return c->user && (c->user->flags & USER_SKIP_SANITIZE_PAYLOAD);
}

/* See acl.h. */
sds aclDenialMessage(int result, user *u, struct serverCommand *cmd, robj **argv, int errpos, int verbose) {
    const char *name = u ? u->name : "default";
    switch (result) {
    case ACL_DENIED_CMD:
        return sdscatfmt(sdsempty(), "User %s has no permissions to run the '%S' command", name, cmd->fullname);
    case ACL_DENIED_KEY:
        if (verbose)
            return sdscatfmt(sdsempty(), "User %s has no permissions to access the '%S' key", name,
                             (sds)objectGetVal(argv[errpos]));
        return sdsnew("No permissions to access a key");
    case ACL_DENIED_CHANNEL:
        if (verbose)
            return sdscatfmt(sdsempty(), "User %s has no permissions to access the '%S' channel", name,
                             (sds)objectGetVal(argv[errpos]));
        return sdsnew("No permissions to access a channel");
    default: return sdsnew("lacking the permissions for the command");
    }
}

/* aclCheckClientOrError() once the check failed: logs the denial and
 * builds the error. */
static int __attribute__((noinline)) aclDenyClient(client *c, int r, int context, int errpos, sds *err) {
    aclLogDenial(c, r, context, c->cmd, c->argv, errpos, NULL);
    sds msg = aclDenialMessage(r, c->user, c->cmd, c->argv, errpos, 0);
    *err = sdscatfmt(sdsempty(), "-NOPERM %S", msg);
    sdsfree(msg);
    return C_ERR;
}

/* See acl.h. */
int aclCheckClientOrError(client *c, int context, sds *err) {
    int errpos = 0;
    int r = aclCheckClientCommand(c, &errpos);
    if (__builtin_expect(r == ACL_OK, 1)) return C_OK;
    return aclDenyClient(c, r, context, errpos, err);
}

/* ---------------------------------------------------------------------------
 * ACL LOG
 * ------------------------------------------------------------------------- */

static void freeLogEntry(void *p) {
    aclLogEntry *e = p;
    sdsfree(e->object);
    sdsfree(e->username);
    sdsfree(e->cinfo);
    zfree(e);
}

/* See acl.h. */
void aclLogDenial(client *c, int result, int context, struct serverCommand *cmd, robj **argv, int errpos,
                  const char *username) {
    switch (result) {
    case ACL_DENIED_CMD: denied_cmd++; break;
    case ACL_DENIED_KEY: denied_key++; break;
    case ACL_DENIED_CHANNEL: denied_channel++; break;
    default: break;
    }
    sds object;
    if (result == ACL_DENIED_KEY || result == ACL_DENIED_CHANNEL) object = sdsdup(objectGetVal(argv[errpos]));
    else object = sdsnew(cmd ? cmd->fullname : "");
    sds uname = sdsnew(username ? username : aclClientUserName(c));
    mstime_t now = mstime();

    /* The same denial again within a minute only counts. */
    listIter li;
    listNode *ln;
    listRewind(acl_log, &li);
    while ((ln = listNext(&li))) {
        aclLogEntry *e = listNodeValue(ln);
        if (e->reason == result && e->context == context && !strcmp(e->object, object) &&
            !strcmp(e->username, uname) && now - e->updated < ACL_LOG_GROUP_MS) {
            e->count++;
            e->updated = now;
            sdsfree(e->cinfo);
            e->cinfo = catClientInfoString(sdsempty(), c);
            listUnlinkNode(acl_log, ln);
            zfree(ln);
            listAddNodeHead(acl_log, e);
            sdsfree(object);
            sdsfree(uname);
            return;
        }
    }
    aclLogEntry *e = zmalloc(sizeof(*e));
    e->count = 1;
    e->reason = result;
    e->context = context;
    e->object = object;
    e->username = uname;
    e->updated = e->created = now;
    e->cinfo = catClientInfoString(sdsempty(), c);
    e->id = acl_log_next_id++;
    listAddNodeHead(acl_log, e);
    while (listLength(acl_log) > server.acllog_max_len) listDelNode(acl_log, listLast(acl_log));
}

static const char *logReasonName(int r) {
    switch (r) {
    case ACL_DENIED_CMD: return "command";
    case ACL_DENIED_KEY: return "key";
    case ACL_DENIED_CHANNEL: return "channel";
    default: return "auth";
    }
}

static const char *logContextName(int ctx) {
    return ctx == ACL_LOG_CTX_MULTI ? "multi" : ctx == ACL_LOG_CTX_LUA ? "lua" : "toplevel";
}

/* ACL LOG [count | RESET] */
static void aclLogCommand(client *c) {
    long long count = 10;
    if (c->argc == 3) {
        if (!strcasecmp(objectGetVal(c->argv[2]), "reset")) {
            listEmpty(acl_log);
            addReply(c, shared.ok);
            return;
        }
        if (getLongLongFromObjectOrReply(c, c->argv[2], &count, NULL) != C_OK) return;
        if (count < 0) count = 0;
    } else if (c->argc > 3) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    if ((unsigned long long)count > listLength(acl_log)) count = listLength(acl_log);
    addReplyArrayLen(c, count);
    listIter li;
    listNode *ln;
    listRewind(acl_log, &li);
    mstime_t now = mstime();
    while (count-- > 0 && (ln = listNext(&li))) {
        aclLogEntry *e = listNodeValue(ln);
        addReplyMapLen(c, 10);
        addReplyBulkCString(c, "count");
        addReplyLongLong(c, e->count);
        addReplyBulkCString(c, "reason");
        addReplyBulkCString(c, logReasonName(e->reason));
        addReplyBulkCString(c, "context");
        addReplyBulkCString(c, logContextName(e->context));
        addReplyBulkCString(c, "object");
        addReplyBulkCBuffer(c, e->object, sdslen(e->object));
        addReplyBulkCString(c, "username");
        addReplyBulkCBuffer(c, e->username, sdslen(e->username));
        addReplyBulkCString(c, "age-seconds");
        addReplyDouble(c, (double)(now - e->updated) / 1000);
        addReplyBulkCString(c, "client-info");
        addReplyBulkCBuffer(c, e->cinfo, sdslen(e->cinfo));
        addReplyBulkCString(c, "entry-id");
        addReplyLongLong(c, e->id);
        addReplyBulkCString(c, "timestamp-created");
        addReplyLongLong(c, e->created);
        addReplyBulkCString(c, "timestamp-last-updated");
        addReplyLongLong(c, e->updated);
    }
}

/* See acl.h. */
long long aclDeniedCount(int result) {
    switch (result) {
    case ACL_DENIED_CMD: return denied_cmd;
    case ACL_DENIED_KEY: return denied_key;
    case ACL_DENIED_CHANNEL: return denied_channel;
    default: return server.stat_auth_failures;
    }
}

/* See acl.h. */
void aclResetStats(void) {
    denied_cmd = denied_key = denied_channel = 0;
}

/* ---------------------------------------------------------------------------
 * Clients and authentication
 * ------------------------------------------------------------------------- */

/* See acl.h. */
int aclDefaultUserIsOpen(void) {
    return (default_user->flags & (USER_NOPASS | USER_ON)) == (USER_NOPASS | USER_ON);
}

/* See acl.h. */
void aclClientInit(client *c) {
    c->user = default_user;
    c->authenticated = aclDefaultUserIsOpen();
}

const char *aclClientUserName(client *c) {
    return c->user ? c->user->name : "default";
}

/* See acl.h. */
int aclClientIsUser(client *c, const char *name) {
    user *u = findUser(name, strlen(name));
    if (!u) return -1;
    return (c->user ? c->user : default_user) == u;
}

/* See acl.h. */
int aclAuthenticate(client *c, robj *username, robj *password) {
    const char *name = username ? objectGetVal(username) : "default";
    size_t nlen = username ? sdslen(objectGetVal(username)) : 7;
    user *u = findUser(name, nlen);
    int ok = 0;
    if (u && (u->flags & USER_ON)) {
        if (u->flags & USER_NOPASS) {
            ok = 1;
        } else {
            sds digest = hashPassword(objectGetVal(password), sdslen(objectGetVal(password)));
            listIter li;
            listNode *ln;
            listRewind(u->passwords, &li);
            while ((ln = listNext(&li)))
                if (digestsEqual(listNodeValue(ln), digest)) ok = 1;
            sdsfree(digest);
        }
    }
    if (!ok) {
        server.stat_auth_failures++;
        sds uname = sdsnewlen(name, nlen);
        aclLogDenial(c, ACL_DENIED_AUTH, (c->flags & CLIENT_MULTI) ? ACL_LOG_CTX_MULTI : ACL_LOG_CTX_TOPLEVEL,
                     c->cmd, c->argv, 0, uname);
        sdsfree(uname);
        return C_ERR;
    }
    c->user = u;
    c->authenticated = 1;
    return C_OK;
}

/* See acl.h. */
void aclUpdateDefaultUserPassword(sds password) {
    if (!default_user) return;
    userRule(default_user, "resetpass", 9);
    if (password && sdslen(password)) {
        sds op = sdscatlen(sdsnew(">"), password, sdslen(password));
        userRule(default_user, op, sdslen(op));
        sdsfree(op);
    } else {
        userRule(default_user, "nopass", 6);
    }
}

/* Disconnects the clients of u (the caller's own after its reply), which
 * run as `nobody` until they are gone. */
static void disconnectUserClients(user *u, client *caller) {
    listIter li;
    listNode *ln;
    listRewind(server.clients, &li);
    while ((ln = listNext(&li))) {
        client *cl = listNodeValue(ln);
        if (cl->user != u) continue;
        cl->user = nobody;
        if (cl == caller) cl->flags |= CLIENT_CLOSE_AFTER_REPLY;
        else freeClientAsync(cl);
    }
}

static int subscriptionAllowed(void *ctx, int kind, sds name) {
    user *u = ctx;
    listIter li;
    listNode *ln;
    listRewind(u->selectors, &li);
    while ((ln = listNext(&li)))
        if (selectorChannelAllowed(listNodeValue(ln), name, sdslen(name), kind == PUBSUB_PATTERN)) return 1;
    return 0;
}

/* After u's channel permissions changed: disconnects its clients that are
 * subscribed to something it may no longer subscribe to. */
static void disconnectRevokedSubscribers(user *u, client *caller) {
    listIter li;
    listNode *ln;
    listRewind(server.clients, &li);
    while ((ln = listNext(&li))) {
        client *cl = listNodeValue(ln);
        if (cl->user != u || pubsubClientSubscriptionsAll(cl, subscriptionAllowed, u)) continue;
        if (cl == caller) cl->flags |= CLIENT_CLOSE_AFTER_REPLY;
        else freeClientAsync(cl);
    }
}

/* ---------------------------------------------------------------------------
 * Creating and changing users
 * ------------------------------------------------------------------------- */

/* Applies rules to the user named name (created if missing), all or
 * nothing. Returns NULL on success (the user is stored) or an error text
 * the caller frees, worded for ACL SETUSER or, from_file, for an ACL file
 * or user line. */
static sds setUserFromArgs(const char *name, size_t nlen, sds *argv, int argc, client *caller, int from_file) {
    if (aclStringHasSpaces(name, nlen)) return sdsnew("Usernames can't contain spaces or null characters");
    user *existing = findUser(name, nlen);
    user *u = existing ? userDup(existing) : userCreateDetached(name, nlen);
    sds bad = NULL;
    sds err = applyRules(u, argv, argc, &bad);
    if (err) {
        userFree(u);
        if (bad) {
            /* An unmatched parenthesis comes worded already. */
            if (strncmp(err, "Unmatched", 9)) {
                sds msg = sdscatprintf(sdsempty(), from_file ? "Error in applying operation '%s': %s"
                                                             : "Error in ACL SETUSER modifier '%s': %s",
                                       bad, err);
                sdsfree(err);
                err = msg;
            }
            sdsfree(bad);
        }
        return err;
    }
    if (existing) {
        userReplaceContents(existing, u);
        if (server.clients) disconnectRevokedSubscribers(existing, caller);
    } else {
        userInsert(u);
    }
    return NULL;
}

static void deleteUser(user *u, client *caller) {
    listNode *ln = listSearchKey(users, u);
    if (ln) listDelNode(users, ln);
    if (server.clients) disconnectUserClients(u, caller);
    userFree(u);
}

/* ---------------------------------------------------------------------------
 * Configuration: `user` lines, aclfile, ACL LOAD / SAVE
 * ------------------------------------------------------------------------- */

/* Applies the rules of argv to u, stopping at the first error: returns
 * NULL, or the error text with *bad set to a copy of the rule refused
 * (both for the caller to free; an unmatched parenthesis comes worded
 * whole, as Valkey words it). */
static sds applyRules(user *u, sds *argv, int argc, sds *bad) {
    sds err = NULL;
    int n, open_at;
    sds *ops = mergeSelectorArgs(argv, argc, &n, &open_at);
    if (!ops) {
        *bad = sdsdup(argv[open_at]);
        return sdscatprintf(sdsempty(), "Unmatched parenthesis in acl selector starting at '%s'.", argv[open_at]);
    }
    for (int j = 0; j < n && !err; j++) {
        const char *e = userRule(u, ops[j], sdslen(ops[j]));
        if (e) {
            err = sdsnew(e);
            *bad = sdsdup(ops[j]);
        }
    }
    sdsfreesplitres(ops, n);
    return err;
}

/* See acl.h. */
sds aclStoreConfigUser(sds *argv, int argc) {
    /* Checked now, on a scratch user, so that the error names the line. */
    user *scratch = userCreateDetached(argv[0], sdslen(argv[0]));
    sds bad = NULL;
    sds err = applyRules(scratch, argv + 1, argc - 1, &bad);
    userFree(scratch);
    if (err) {
        sds msg = sdscatprintf(sdsempty(), "Error in user declaration '%s': %s", bad, err);
        sdsfree(bad);
        sdsfree(err);
        return msg;
    }
    sds *copy = zmalloc(sizeof(sds) * (argc + 1));
    for (int j = 0; j < argc; j++) copy[j] = sdsdup(argv[j]);
    copy[argc] = NULL;
    listAddNodeTail(config_users, copy);
    return NULL;
}

/* Applies "name rule rule ..." words (one `user` line of the configuration
 * without the word "user") to the user, reset first. Returns NULL or an
 * error text the caller frees. */
static sds applyUserWords(sds *w, int n) {
    sds *argv = zmalloc(sizeof(sds) * n);
    argv[0] = sdsnew("reset");
    for (int j = 1; j < n; j++) argv[j] = w[j];
    sds err = setUserFromArgs(w[0], sdslen(w[0]), argv, n, NULL, 1);
    sdsfree(argv[0]);
    zfree(argv);
    return err;
}

/* A new user with the rules of the built-in `default` user. */
static user *defaultUserCreate(void) {
    user *u = userCreateDetached("default", 7);
    const char *rules[] = {"+@all", "~*", "&*", "on", "nopass"};
    for (int j = 0; j < 5; j++) userRule(u, rules[j], strlen(rules[j]));
    return u;
}

/* One line of an ACL file, already trimmed and split at single spaces:
 * "user <name> <rule> ...". Adds the user to the list being loaded (the
 * global users list while parseAclText runs) and appends to errors what
 * Valkey would say of the line: an unknown command for every rule naming
 * one, otherwise only the line's first error and not the rule itself (it
 * may be a password). Returns the possibly moved errors. */
static sds parseAclLine(sds errors, sds *w, int n, const char *name, int lineno) {
    if (n < 2 || strcmp(w[0], "user"))
        return sdscatprintf(errors, "%s:%d should start with user keyword followed by the username. ", name, lineno);
    if (aclStringHasSpaces(w[1], sdslen(w[1])))
        return sdscatprintf(errors, "'%s:%d: username '%s' contains invalid characters. ", name, lineno, w[1]);
    if (findUser(w[1], sdslen(w[1])))
        return sdscatprintf(errors, "WARNING: Duplicate user '%s' found on line %d. ", w[1], lineno);
    user *u = userCreateDetached(w[1], sdslen(w[1]));
    userInsert(u);
    int nops, open_at;
    sds *ops = mergeSelectorArgs(w + 2, n - 2, &nops, &open_at);
    if (!ops) return sdscatprintf(errors, "%s:%d: Unmatched parenthesis in selector definition.", name, lineno);
    int reported = 0;
    for (int j = 0; j < nops; j++) {
        ops[j] = sdstrim(ops[j], "\t\r\n");
        const char *e = userRule(u, ops[j], sdslen(ops[j]));
        if (e == ACL_ERR_UNKNOWN) {
            errors = sdscatprintf(errors, "%s:%d: Error in applying operation '%s': %s. ", name, lineno, ops[j], e);
        } else if (e && !reported) {
            errors = sdscatprintf(errors, "%s:%d: %s. ", name, lineno, e);
            reported = 1;
        }
    }
    sdsfreesplitres(ops, nops);
    return errors;
}

/* Parses the text of an ACL file into a fresh user list, as Valkey reads
 * one: lines of any length, each trimmed and split at single spaces (no
 * quoting: quotes and backslashes are bytes of the rules; inside a "(...)"
 * selector, userAddSelector() reads quotes), every line checked, users
 * not defined there dropped and the `default` user as built in unless the
 * file defines it. Returns NULL and sets *out, or the error ACL LOAD
 * replies (name names the file in it), a new sds. The live users are
 * untouched either way. */
static sds parseAclText(const char *text, size_t len, const char *name, list **out) {
    list *saved = users;
    users = listCreate();
    sds errors = sdsempty();
    int nlines;
    sds *lines = sdssplitlen(text, (ssize_t)len, "\n", 1, &nlines);
    for (int i = 0; i < nlines; i++) {
        lines[i] = sdstrim(lines[i], " \t\r\n");
        if (sdslen(lines[i]) == 0) continue;
        int n;
        sds *w = sdssplitlen(lines[i], (ssize_t)sdslen(lines[i]), " ", 1, &n);
        if (n > 0) errors = parseAclLine(errors, w, n, name, i + 1);
        sdsfreesplitres(w, n);
    }
    sdsfreesplitres(lines, nlines);
    if (!findUser("default", 7)) userInsert(defaultUserCreate());
    list *loaded = users;
    users = saved;
    if (sdslen(errors) == 0) {
        sdsfree(errors);
        *out = loaded;
        return NULL;
    }
    listIter li;
    listNode *ln;
    listRewind(loaded, &li);
    while ((ln = listNext(&li))) userFree(listNodeValue(ln));
    listRelease(loaded);
    return sdscat(errors, "WARNING: ACL errors detected, no change to the previously active ACL rules was performed");
}

/* Reads the whole file at path into a new sds. Returns NULL with errno
 * set if it cannot be opened or read. */
static sds readWholeFile(const char *path) {
    FILE *fp = fopen(path, "r");
    if (!fp) return NULL;
    sds text = sdsempty();
    char buf[16384];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), fp)) > 0) text = sdscatlen(text, buf, n);
    int failed = ferror(fp);
    fclose(fp);
    if (failed) {
        sdsfree(text);
        errno = EIO;
        return NULL;
    }
    return text;
}

/* Reads an ACL file into a fresh user list. Returns NULL and sets *out,
 * or an error text the caller frees. The live users are untouched. */
static sds readAclFile(const char *path, list **out) {
    sds text = readWholeFile(path);
    if (!text) return sdscatprintf(sdsempty(), "Error loading ACLs, opening file '%s': %s", path, strerror(errno));
    sds err = parseAclText(text, sdslen(text), path, out);
    sdsfree(text);
    return err;
}

/* Makes loaded the live user list: existing users keep their address with
 * new contents, users not in it are deleted (their clients disconnected). */
static void installUsers(list *loaded, client *caller) {
    listIter li;
    listNode *ln;
    list *old = users;
    users = listCreate();
    listRewind(loaded, &li);
    while ((ln = listNext(&li))) {
        user *nu = listNodeValue(ln);
        listNode *on = NULL;
        listIter oi;
        listRewind(old, &oi);
        while ((on = listNext(&oi)))
            if (!strcmp(((user *)listNodeValue(on))->name, nu->name)) break;
        if (on) {
            user *ou = listNodeValue(on);
            listDelNode(old, on);
            userReplaceContents(ou, nu);
            listAddNodeTail(users, ou);
            if (server.clients) disconnectRevokedSubscribers(ou, caller);
        } else {
            listAddNodeTail(users, nu);
        }
    }
    listRelease(loaded);
    listRewind(old, &li);
    while ((ln = listNext(&li))) {
        user *gone = listNodeValue(ln);
        if (server.clients) disconnectUserClients(gone, caller);
        userFree(gone);
    }
    listRelease(old);
    default_user = findUser("default", 7);
}

/* See acl.h. */
void aclLoadConfiguredUsers(void) {
    int has_file = server.acl_filename && server.acl_filename[0];
    if (has_file && listLength(config_users)) {
        serverLog(LL_WARNING, "Configuring Valkey with users defined in valkey.conf and at the same setting an ACL "
                              "file path is invalid. This setup is very likely to lead to configuration errors and "
                              "security holes, please define either an ACL file or declare users directly in your "
                              "valkey.conf, but not both.");
        exit(1);
    }
    listIter li;
    listNode *ln;
    listRewind(config_users, &li);
    while ((ln = listNext(&li))) {
        sds *w = listNodeValue(ln);
        int n = 0;
        while (w[n]) n++;
        if (aclStringHasSpaces(w[0], sdslen(w[0]))) {
            serverLog(LL_WARNING, "Spaces not allowed in ACL usernames");
            exit(1);
        }
        sds err = applyUserWords(w, n);
        if (err) {
            serverLog(LL_WARNING, "Error in user declaration '%s': %s", w[0], err);
            exit(1);
        }
    }
    if (has_file) {
        list *loaded;
        sds err = readAclFile(server.acl_filename, &loaded);
        if (err) {
            serverLog(LL_WARNING, "Aborting Valkey startup because of ACL errors: %s", err);
            exit(1);
        }
        installUsers(loaded, NULL);
    }
}

/* Appends w as one word of a configuration file line, which the config
 * parser splits with sdssplitargs(): bare (as Valkey writes it) unless it
 * holds a quote, then as a double-quoted string. A "(...)" selector is
 * bare when it can be: the parser splits it at its spaces and
 * mergeSelectorArgs() joins the pieces again. */
static sds catConfigWord(sds s, const char *w, size_t len) {
    if (memchr(w, '"', len) || memchr(w, '\'', len)) return sdscatrepr(s, w, len);
    return sdscatlen(s, w, len);
}

/* u's `user` line for the configuration file. Returns a new sds. */
static sds describeUserConfigLine(user *u) {
    int n;
    sds *args = describeUserArgs(u, &n);
    sds s = catConfigWord(sdsnew("user "), u->name, sdslen(u->name));
    for (int j = 0; j < n; j++) {
        s = sdscatlen(s, " ", 1);
        s = catConfigWord(s, args[j], sdslen(args[j]));
    }
    sdsfreesplitres(args, n);
    return s;
}

/* 1 if u is the default user exactly as requirepass alone makes it. */
static int isPlainDefaultUser(user *u) {
    user *plain = defaultUserCreate();
    user *saved = default_user;
    default_user = plain;
    aclUpdateDefaultUserPassword(server.requirepass);
    default_user = saved;
    sds expected = describeUser(plain), actual = describeUser(u);
    userFree(plain);
    int same = !strcmp(expected, actual);
    sdsfree(expected);
    sdsfree(actual);
    return same;
}

/* See acl.h. */
sds aclRewriteConfigUsers(sds buf) {
    if (server.acl_filename && server.acl_filename[0]) return buf;
    listIter li;
    listNode *ln;
    listRewind(users, &li);
    while ((ln = listNext(&li))) {
        user *u = listNodeValue(ln);
        /* A default user as requirepass alone makes it is not written:
         * the requirepass line already says it. */
        if (u == default_user && isPlainDefaultUser(u)) continue;
        buf = sdscatsds(buf, describeUserConfigLine(u));
        buf = sdscatlen(buf, "\n", 1);
    }
    return buf;
}

/* See acl.h. */
sds aclUsersFileText(void) {
    sds text = sdsempty();
    listIter li;
    listNode *ln;
    listRewind(users, &li);
    while ((ln = listNext(&li))) {
        sds line = describeUser(listNodeValue(ln));
        text = sdscatsds(text, line);
        text = sdscatlen(text, "\n", 1);
        sdsfree(line);
    }
    return text;
}

/* See acl.h. */
sds aclLoadUsersText(const char *text, size_t len, const char *name) {
    list *loaded;
    sds err = parseAclText(text, len, name, &loaded);
    if (err) return err;
    installUsers(loaded, NULL);
    return NULL;
}

/* Writes every user to the ACL file (a temporary file renamed over it).
 * Returns NULL or an error text the caller frees. */
static sds saveAclFile(const char *path) {
    sds tmp = sdscatfmt(sdsempty(), "%s.tmp-%i", path, (int)getpid());
    FILE *fp = fopen(tmp, "w");
    sds err = NULL;
    if (!fp) {
        err = sdscatprintf(sdsempty(), "Opening temp ACL file for ACL SAVE: %s", strerror(errno));
        sdsfree(tmp);
        return err;
    }
    sds text = aclUsersFileText();
    size_t written = fwrite(text, 1, sdslen(text), fp);
    if (written != sdslen(text) || fflush(fp) != 0 || fsync(fileno(fp)) != 0)
        err = sdscatprintf(sdsempty(), "Writing ACL file for ACL SAVE: %s", strerror(errno));
    sdsfree(text);
    fclose(fp);
    if (!err && rename(tmp, path) != 0)
        err = sdscatprintf(sdsempty(), "Renaming ACL file for ACL SAVE: %s", strerror(errno));
    if (err) unlink(tmp);
    sdsfree(tmp);
    return err;
}

/* ---------------------------------------------------------------------------
 * Start-up
 * ------------------------------------------------------------------------- */

/* See acl.h. */
void aclInit(void) {
    users = listCreate();
    acl_log = listCreate();
    listSetFreeMethod(acl_log, freeLogEntry);
    config_users = listCreate();
    default_user = defaultUserCreate();
    userInsert(default_user);
    nobody = userCreateDetached("", 0);
}

/* ---------------------------------------------------------------------------
 * The ACL command
 * ------------------------------------------------------------------------- */

/* ACL SETUSER, GETUSER and DELUSER show no user name or rule in SLOWLOG. */
static void aclRedactArguments(client *c) {
    for (int j = 2; j < c->argc; j++) redactClientCommandArgument(c, j);
}

static void aclSetuserCommand(client *c) {
    aclRedactArguments(c);
    int n = c->argc - 3;
    sds *rules = zmalloc(sizeof(sds) * (n ? n : 1));
    for (int j = 0; j < n; j++) rules[j] = objectGetVal(c->argv[j + 3]);
    sds name = objectGetVal(c->argv[2]);
    sds err = setUserFromArgs(name, sdslen(name), rules, n, c, 0);
    zfree(rules);
    if (err) {
        addReplyErrorSds(c, err);
        return;
    }
    addReply(c, shared.ok);
}

static void aclDeluserCommand(client *c) {
    aclRedactArguments(c);
    for (int j = 2; j < c->argc; j++) {
        if (!strcmp(objectGetVal(c->argv[j]), "default")) {
            addReplyError(c, "The 'default' user cannot be removed");
            return;
        }
    }
    int deleted = 0;
    for (int j = 2; j < c->argc; j++) {
        user *u = findUser(objectGetVal(c->argv[j]), sdslen(objectGetVal(c->argv[j])));
        if (!u) continue;
        deleteUser(u, c);
        deleted++;
    }
    addReplyLongLong(c, deleted);
}

static void addReplySelectorFields(client *c, aclSelector *s) {
    sds cmds = describeCommands(sdsempty(), s, DESCRIBE_BARE);
    addReplyBulkCString(c, "commands");
    addReplyBulkSds(c, cmds);
    addReplyBulkCString(c, "keys");
    addReplyBulkSds(c, describeKeys(sdsempty(), s, DESCRIBE_BARE));
    addReplyBulkCString(c, "channels");
    addReplyBulkSds(c, describeChannels(sdsempty(), s, DESCRIBE_BARE));
}

static void aclGetuserCommand(client *c) {
    aclRedactArguments(c);
    user *u = findUser(objectGetVal(c->argv[2]), sdslen(objectGetVal(c->argv[2])));
    if (!u) {
        addReplyNull(c);
        return;
    }
    addReplyMapLen(c, 6);
    addReplyBulkCString(c, "flags");
    void *len = addReplyDeferredLen(c);
    int nflags = 0;
    addReplyBulkCString(c, (u->flags & USER_ON) ? "on" : "off");
    nflags++;
    if (u->flags & USER_NOPASS) addReplyBulkCString(c, "nopass"), nflags++;
    if (u->flags & USER_SKIP_SANITIZE_PAYLOAD) addReplyBulkCString(c, "skip-sanitize-payload"), nflags++;
    if (u->flags & USER_SANITIZE_PAYLOAD) addReplyBulkCString(c, "sanitize-payload"), nflags++;
    setDeferredSetLen(c, len, nflags);
    addReplyBulkCString(c, "passwords");
    addReplyArrayLen(c, listLength(u->passwords));
    listIter li;
    listNode *ln;
    listRewind(u->passwords, &li);
    while ((ln = listNext(&li))) addReplyBulkCBuffer(c, listNodeValue(ln), ACL_PASSWORD_HEX_LEN);
    addReplySelectorFields(c, rootSelector(u));
    addReplyBulkCString(c, "selectors");
    addReplyArrayLen(c, listLength(u->selectors) - 1);
    listRewind(u->selectors, &li);
    listNext(&li);
    while ((ln = listNext(&li))) {
        addReplyMapLen(c, 3);
        addReplySelectorFields(c, listNodeValue(ln));
    }
}

static void aclListOrUsers(client *c, int describe) {
    addReplyArrayLen(c, listLength(users));
    listIter li;
    listNode *ln;
    listRewind(users, &li);
    while ((ln = listNext(&li))) {
        user *u = listNodeValue(ln);
        if (describe) addReplyBulkSds(c, describeUser(u));
        else addReplyBulkCBuffer(c, u->name, sdslen(u->name));
    }
}

static void aclListCommand(client *c) {
    aclListOrUsers(c, 1);
}

static void aclUsersCommand(client *c) {
    aclListOrUsers(c, 0);
}

static void aclWhoamiCommand(client *c) {
    addReplyBulkCString(c, aclClientUserName(c));
}

typedef struct {
    client *c;
    uint64_t category;
    long n;
} catListing;

static void addCommandOfCategory(struct serverCommand *cmd, void *ctx) {
    catListing *l = ctx;
    if (commandGetAclCategories(cmd) & l->category) {
        addReplyBulkCString(l->c, cmd->fullname);
        l->n++;
    }
}

/* ACL CAT [category] */
static void aclCatCommand(client *c) {
    if (c->argc > 3) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    if (c->argc == 2) {
        void *len = addReplyDeferredLen(c);
        long n = 0;
        uint64_t bit;
        const char *name;
        for (int j = 0; aclCategoryAt(j, &bit, &name); j++, n++) addReplyBulkCString(c, name);
        setDeferredArrayLen(c, len, n);
        return;
    }
    uint64_t cat = aclCategoryByName(objectGetVal(c->argv[2]));
    if (!cat) {
        addReplyErrorFormat(c, "Unknown category '%.128s'", (char *)objectGetVal(c->argv[2]));
        return;
    }
    catListing l = {c, cat, 0};
    void *len = addReplyDeferredLen(c);
    forEachCommand(addCommandOfCategory, &l);
    setDeferredArrayLen(c, len, l.n);
}

/* ACL GENPASS [bits] */
static void aclGenpassCommand(client *c) {
    long long bits = 256;
    if (c->argc > 3) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    if (c->argc == 3 && getLongLongFromObjectOrReply(c, c->argv[2], &bits, NULL) != C_OK) return;
    if (bits <= 0 || bits > 4096) {
        addReplyError(c, "ACL GENPASS argument must be the number of bits for the output password, a positive "
                         "number up to 4096");
        return;
    }
    size_t chars = (bits + 3) / 4;
    char buf[1024];
    getRandomHexChars(buf, chars);
    addReplyBulkCBuffer(c, buf, chars);
}

/* ACL DRYRUN username command [arg ...] */
static void aclDryrunCommand(client *c) {
    user *u = findUser(objectGetVal(c->argv[2]), sdslen(objectGetVal(c->argv[2])));
    if (!u) {
        addReplyErrorFormat(c, "User '%.128s' not found", (char *)objectGetVal(c->argv[2]));
        return;
    }
    robj **argv = c->argv + 3;
    int argc = c->argc - 3;
    struct serverCommand *cmd = lookupCommand(argv, argc);
    if (!cmd) {
        addReplyErrorFormat(c, "Command '%.128s' not found", (char *)objectGetVal(argv[0]));
        return;
    }
    if ((cmd->arity > 0 && cmd->arity != argc) || argc < -cmd->arity) {
        addReplyErrorFormat(c, "wrong number of arguments for '%s' command", cmd->fullname);
        return;
    }
    int errpos = 0;
    int r = aclCheckCommand(u, cmd, argv, argc, &errpos);
    if (r == ACL_OK) addReply(c, shared.ok);
    else addReplyBulkSds(c, aclDenialMessage(r, u, cmd, argv, errpos, 1));
}

static void aclNoFileError(client *c) {
    addReplyError(c, "This Valkey instance is not configured to use an ACL file. You may want to specify users via "
                     "the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Valkey "
                     "configuration file set) in order to store users in the Valkey configuration.");
}

static void aclLoadCommand(client *c) {
    if (!server.acl_filename || !server.acl_filename[0]) {
        aclNoFileError(c);
        return;
    }
    list *loaded;
    sds err = readAclFile(server.acl_filename, &loaded);
    if (err) {
        addReplyErrorSds(c, err);
        return;
    }
    installUsers(loaded, c);
    addReply(c, shared.ok);
}

static void aclSaveCommand(client *c) {
    if (!server.acl_filename || !server.acl_filename[0]) {
        aclNoFileError(c);
        return;
    }
    sds err = saveAclFile(server.acl_filename);
    if (err) {
        serverLog(LL_WARNING, "%s", err);
        sdsfree(err);
        addReplyError(c, "There was an error trying to save the ACLs. Please check the server logs for more "
                         "information");
        return;
    }
    addReply(c, shared.ok);
}

static void aclHelpCommand(client *c) {
    const char *help[] = {
        "CAT [<category>]",
        "    List all commands that belong to <category>, or all command categories",
        "    when no category is specified.",
        "DELUSER <username> [<username> ...]",
        "    Delete a list of users.",
        "DRYRUN <username> <command> [<arg> ...]",
        "    Returns whether the user can execute the given command without executing the command.",
        "GETUSER <username>",
        "    Get the user's details.",
        "GENPASS [<bits>]",
        "    Generate a secure 256-bit user password. The optional `bits` argument can",
        "    be used to specify a different size.",
        "LIST",
        "    Show users details in config file format.",
        "LOAD",
        "    Reload users from the ACL file.",
        "LOG [<count> | RESET]",
        "    Show the ACL log entries.",
        "SAVE",
        "    Save the current config to the ACL file.",
        "SETUSER <username> <attribute> [<attribute> ...]",
        "    Create or modify a user with the specified attributes.",
        "USERS",
        "    List all the registered usernames.",
        "WHOAMI",
        "    Return the current connection username.",
        NULL,
    };
    addReplyHelp(c, help);
}

#define ACL_SUB_FLAGS (CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_SENTINEL)
#define ACL_ADMIN_FLAGS (CMD_ADMIN | ACL_SUB_FLAGS)

static struct serverCommand aclSubcommands[] = {
    {.name = "cat", .proc = aclCatCommand, .arity = -2, .flags = ACL_SUB_FLAGS, .group = "server",
     .since = "6.0.0", .summary = "Lists the ACL categories, or the commands inside a category.",
     .complexity = "O(1) since the categories and commands are a fixed set.", .args = "[category]"},
    {.name = "deluser", .proc = aclDeluserCommand, .arity = -3, .flags = ACL_ADMIN_FLAGS, .group = "server",
     .since = "6.0.0", .summary = "Deletes ACL users, and terminates their connections.",
     .complexity = "O(1) amortized time considering the typical user.", .args = "username [username ...]"},
    {.name = "dryrun", .proc = aclDryrunCommand, .arity = -4, .flags = ACL_ADMIN_FLAGS, .group = "server",
     .since = "7.0.0", .summary = "Simulates the execution of a command by a user, without executing the command.",
     .complexity = "O(1).", .args = "username command [arg [arg ...]]"},
    {.name = "genpass", .proc = aclGenpassCommand, .arity = -2, .flags = ACL_SUB_FLAGS, .group = "server",
     .since = "6.0.0", .summary = "Generates a pseudorandom, secure password that can be used to identify ACL users.",
     .complexity = "O(1)", .args = "[bits:integer]"},
    {.name = "getuser", .proc = aclGetuserCommand, .arity = 3, .flags = ACL_ADMIN_FLAGS, .group = "server",
     .since = "6.0.0", .summary = "Lists the ACL rules of a user.",
     .complexity = "O(N). Where N is the number of password, command and pattern rules that the user has.",
     .args = "username"},
    {.name = "help", .proc = aclHelpCommand, .arity = 2, .flags = CMD_LOADING | CMD_STALE | CMD_SENTINEL,
     .group = "server", .since = "6.0.0", .summary = "Returns helpful text about the different subcommands.",
     .complexity = "O(1)"},
    {.name = "list", .proc = aclListCommand, .arity = 2, .flags = ACL_ADMIN_FLAGS, .group = "server",
     .since = "6.0.0", .summary = "Dumps the effective rules in ACL file format.",
     .complexity = "O(N). Where N is the number of configured users."},
    {.name = "load", .proc = aclLoadCommand, .arity = 2, .flags = ACL_ADMIN_FLAGS, .group = "server",
     .since = "6.0.0", .summary = "Reloads the rules from the configured ACL file.",
     .complexity = "O(N). Where N is the number of configured users."},
    {.name = "log", .proc = aclLogCommand, .arity = -2, .flags = ACL_ADMIN_FLAGS, .group = "server",
     .since = "6.0.0", .summary = "Lists recent security events generated due to ACL rules.",
     .complexity = "O(N) with N being the number of entries shown.", .args = "[operation=<count:integer | RESET>]"},
    {.name = "save", .proc = aclSaveCommand, .arity = 2, .flags = ACL_ADMIN_FLAGS, .group = "server",
     .since = "6.0.0", .summary = "Saves the effective ACL rules in the configured ACL file.",
     .complexity = "O(N). Where N is the number of configured users."},
    {.name = "setuser", .proc = aclSetuserCommand, .arity = -3, .flags = ACL_ADMIN_FLAGS, .group = "server",
     .since = "6.0.0", .summary = "Creates and modifies an ACL user and its rules.",
     .complexity = "O(N). Where N is the number of rules provided.", .args = "username [rule [rule ...]]"},
    {.name = "users", .proc = aclUsersCommand, .arity = 2, .flags = ACL_ADMIN_FLAGS, .group = "server",
     .since = "6.0.0", .summary = "Lists all ACL users.", .complexity = "O(N). Where N is the number of configured users."},
    {.name = "whoami", .proc = aclWhoamiCommand, .arity = 2, .flags = ACL_SUB_FLAGS, .group = "server",
     .since = "6.0.0", .summary = "Returns the authenticated username of the current connection.",
     .complexity = "O(1)"},
    {0},
};

struct serverCommand aclCommands[] = {
    {.name = "acl", .subcommands = aclSubcommands, .arity = -2, .flags = CMD_SENTINEL, .group = "server",
     .since = "6.0.0", .summary = "A container for Access List Control commands.",
     .complexity = "Depends on subcommand."},
    {0},
};
