/* cluster_conf.c - nodes.conf: parse, check, write, save, lock.
 *
 * Parsing splits the text into lines and each line into fields the way
 * Valkey does (sdssplitargs(): spaces, and quotes if anyone wrote them),
 * then checks every field before anything is kept: node names of 40
 * lowercase hex digits, addresses, hostnames and aux values by the same
 * rules the bus applies to what peers send (cluster_msg.c), ports in
 * range, integers in strict canonical form, known flag names, slots in
 * range and owned by one node at most, exactly one node flagged myself. A
 * file that breaks any of them is refused as a whole with the line number
 * and the reason: the caller stops start-up (Valkey exits there too, but
 * Valkey also crashes on an unknown flag and reads some garbage as zero;
 * we refuse both). Empty lines are skipped; "vars" may appear on any line,
 * its unknown variables are skipped as Valkey skips them.
 *
 * Writing is the reverse, field for field, and runs the same checks first
 * (clusterConfValidate()), so a description the cluster code filled in
 * badly is refused instead of being written as a file we could not read
 * back. Saving goes through a temporary file, fsync and rename, then an
 * fsync of the directory: a crash leaves the old file or the new one, never
 * a mix. The lock is Valkey's (flock on the file, held for the process'
 * life); since saving replaces the file, the new file is locked before the
 * rename and the lock descriptor handed over, so the name stays locked.
 *
 * Everything here is synchronous and keeps no state: the cluster subsystem
 * calls it at start-up and from the main thread when the config changes. */
#include "cluster_conf.h"
#include "log.h"
#include "util.h"
#include "zmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The flags of a node line, in the order Valkey writes them. */
static const struct {
    int flag;
    const char *name;
} confFlagNames[] = {
    {CLUSTER_NODE_MYSELF, "myself"},       {CLUSTER_NODE_PRIMARY, "master"}, {CLUSTER_NODE_REPLICA, "slave"},
    {CLUSTER_NODE_PFAIL, "fail?"},         {CLUSTER_NODE_FAIL, "fail"},      {CLUSTER_NODE_HANDSHAKE, "handshake"},
    {CLUSTER_NODE_NOADDR, "noaddr"},       {CLUSTER_NODE_NOFAILOVER, "nofailover"},
};
#define CONF_NUM_FLAGS (int)(sizeof(confFlagNames) / sizeof(confFlagNames[0]))

/* Valkey 8's aux fields, in the order Valkey writes them. */
static const char *confAuxKeys[] = {"tls-port", "tcp-port", "nodename", "shard-id"};
#define CONF_NUM_AUX (int)(sizeof(confAuxKeys) / sizeof(confAuxKeys[0]))

static void confError(clusterConfError *err, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void confError(clusterConfError *err, int line, const char *fmt, ...) {
    va_list ap;
    err->line = line;
    err->corrupt = 1;
    va_start(ap, fmt);
    vsnprintf(err->reason, sizeof(err->reason), fmt, ap);
    va_end(ap);
}

/* ---------------------------------------------------------------------------
 * Descriptions
 * ------------------------------------------------------------------------ */

clusterConf *clusterConfCreate(void) {
    return zcalloc(sizeof(clusterConf));
}

static void freeNode(clusterConfNode *n) {
    sdsfree(n->ip);
    sdsfree(n->hostname);
    for (int j = 0; j < n->numaux; j++) {
        sdsfree(n->aux[j].key);
        sdsfree(n->aux[j].value);
    }
    zfree(n->aux);
    zfree(n->moves);
    zfree(n->slots);
    zfree(n);
}

void clusterConfFree(clusterConf *conf) {
    if (!conf) return;
    for (int j = 0; j < conf->numnodes; j++) freeNode(conf->nodes[j]);
    for (int j = 0; j < conf->numskipped; j++) sdsfree(conf->skipped_vars[j]);
    zfree(conf->skipped_vars);
    zfree(conf->nodes);
    zfree(conf);
}

clusterConfNode *clusterConfFindNode(const clusterConf *conf, const char *name) {
    for (int j = 0; j < conf->numnodes; j++)
        if (!strcmp(conf->nodes[j]->name, name)) return conf->nodes[j];
    return NULL;
}

/* Appends a node named name (already checked) and returns it. */
static clusterConfNode *appendNode(clusterConf *conf, const char *name) {
    clusterConfNode *n = zcalloc(sizeof(*n));
    memcpy(n->name, name, CLUSTER_NAMELEN + 1);
    n->ip = sdsempty();
    n->connected = 1;
    conf->nodes = zrealloc(conf->nodes, sizeof(clusterConfNode *) * (conf->numnodes + 1));
    conf->nodes[conf->numnodes++] = n;
    return n;
}

clusterConfNode *clusterConfAddNode(clusterConf *conf, const char *name) {
    if (strlen(name) != CLUSTER_NAMELEN || !clusterIsValidNodeName(name) || clusterConfFindNode(conf, name))
        return NULL;
    return appendNode(conf, name);
}

unsigned char *clusterConfNodeSlots(clusterConfNode *node) {
    if (!node->slots) node->slots = zcalloc(CLUSTER_SLOT_BITMAP_LEN);
    return node->slots;
}

/* A port: a canonical integer 0..65535. */
static int parsePort(const char *s, size_t len, int *port) {
    long long v;
    if (!string2ll(s, len, &v) || v < 0 || v > 65535) return 0;
    *port = (int)v;
    return 1;
}

/* Whether value is one key takes. */
static int isValidAuxValue(const char *key, const char *value, size_t len) {
    int port;
    if (!strcmp(key, "shard-id")) return len == CLUSTER_NAMELEN && clusterIsValidNodeName(value);
    if (!strcmp(key, "nodename")) return clusterIsValidHumanNodename(value, len);
    if (!strcmp(key, "tcp-port") || !strcmp(key, "tls-port")) return parsePort(value, len, &port);
    return 0;
}

static int isKnownAuxKey(const char *key, size_t len) {
    for (int j = 0; j < CONF_NUM_AUX; j++)
        if (strlen(confAuxKeys[j]) == len && !memcmp(confAuxKeys[j], key, len)) return 1;
    return 0;
}

const char *clusterConfGetAux(const clusterConfNode *node, const char *key) {
    for (int j = 0; j < node->numaux; j++)
        if (!strcmp(node->aux[j].key, key)) return node->aux[j].value;
    return NULL;
}

int clusterConfSetAux(clusterConfNode *node, const char *key, const char *value) {
    if (!isKnownAuxKey(key, strlen(key)) || !isValidAuxValue(key, value, strlen(value))) return C_ERR;
    for (int j = 0; j < node->numaux; j++) {
        if (!strcmp(node->aux[j].key, key)) {
            node->aux[j].value = sdscpy(node->aux[j].value, value);
            return C_OK;
        }
    }
    node->aux = zrealloc(node->aux, sizeof(clusterConfAux) * (node->numaux + 1));
    node->aux[node->numaux].key = sdsnew(key);
    node->aux[node->numaux].value = sdsnew(value);
    node->numaux++;
    if (!node->hostname) node->hostname = sdsempty();
    return C_OK;
}

int clusterConfAddSlotMove(clusterConfNode *node, int slot, int importing, const char *other) {
    if (slot < 0 || slot >= CLUSTER_SLOTS || strlen(other) != CLUSTER_NAMELEN || !clusterIsValidNodeName(other))
        return C_ERR;
    for (int j = 0; j < node->nummoves; j++)
        if (node->moves[j].slot == slot) return C_ERR;
    node->moves = zrealloc(node->moves, sizeof(clusterConfSlotMove) * (node->nummoves + 1));
    clusterConfSlotMove *m = &node->moves[node->nummoves++];
    m->slot = slot;
    m->importing = importing ? 1 : 0;
    memcpy(m->node, other, CLUSTER_NAMELEN + 1);
    return C_OK;
}

/* ---------------------------------------------------------------------------
 * Parsing one node line
 * ------------------------------------------------------------------------ */

/* A node name field: 40 lowercase hex digits. */
static int isNameField(const sds s) {
    return sdslen(s) == CLUSTER_NAMELEN && clusterIsValidNodeName(s);
}

/* "ip:port[@cport]": the ip is what comes before the last ':' (IPv6
 * addresses have colons of their own). */
static int parseEndpoint(clusterConfNode *n, const sds s, clusterConfError *err, int line) {
    const char *colon = NULL;
    for (size_t j = sdslen(s); j > 0; j--) {
        if (s[j - 1] == ':') {
            colon = s + j - 1;
            break;
        }
    }
    if (!colon || !clusterIsValidAddress(s, (size_t)(colon - s))) {
        confError(err, line, "invalid address '%.60s'", s);
        return C_ERR;
    }
    const char *port = colon + 1;
    const char *end = s + sdslen(s);
    const char *at = memchr(port, '@', (size_t)(end - port));
    if (!parsePort(port, (size_t)((at ? at : end) - port), &n->port) ||
        (at && !parsePort(at + 1, (size_t)(end - at - 1), &n->cport))) {
        confError(err, line, "invalid port in address '%.60s'", s);
        return C_ERR;
    }
    if (!at) n->cport = -1;
    n->ip = sdscpylen(n->ip, s, (size_t)(colon - s));
    return C_OK;
}

/* "key=value" after the hostname field. */
static int parseAuxField(clusterConfNode *n, const sds s, clusterConfError *err, int line) {
    const char *eq = memchr(s, '=', sdslen(s));
    if (!eq) {
        confError(err, line, "aux field '%.60s' is not key=value", s);
        return C_ERR;
    }
    size_t klen = (size_t)(eq - s), vlen = sdslen(s) - klen - 1;
    if (!isKnownAuxKey(s, klen)) {
        confError(err, line, "unknown aux field '%.*s'", (int)(klen > 60 ? 60 : klen), s);
        return C_ERR;
    }
    sds key = sdsnewlen(s, klen);
    int ok = isValidAuxValue(key, eq + 1, vlen) && !clusterConfGetAux(n, key);
    if (!ok) {
        confError(err, line, "invalid or repeated aux field '%.60s'", s);
        sdsfree(key);
        return C_ERR;
    }
    n->aux = zrealloc(n->aux, sizeof(clusterConfAux) * (n->numaux + 1));
    n->aux[n->numaux].key = key;
    n->aux[n->numaux].value = sdsnewlen(eq + 1, vlen);
    n->numaux++;
    return C_OK;
}

/* The address field: "ip:port[@cport][,hostname[,key=value]...]". */
static int parseAddressField(clusterConfNode *n, const sds field, clusterConfError *err, int line) {
    int count = 0;
    sds *parts = sdssplitlen(field, (ssize_t)sdslen(field), ",", 1, &count);
    if (count < 1) {
        confError(err, line, "empty address");
        sdsfreesplitres(parts, count);
        return C_ERR;
    }
    int ok = parseEndpoint(n, parts[0], err, line) == C_OK;
    if (ok && count >= 2) {
        if (!clusterIsValidHostname(parts[1], sdslen(parts[1]))) {
            confError(err, line, "invalid hostname '%.60s'", parts[1]);
            ok = 0;
        } else {
            n->hostname = sdsdup(parts[1]);
        }
    }
    for (int j = 2; ok && j < count; j++) ok = parseAuxField(n, parts[j], err, line) == C_OK;
    sdsfreesplitres(parts, count);
    return ok ? C_OK : C_ERR;
}

static int parseFlagsField(clusterConfNode *n, const sds field, clusterConfError *err, int line) {
    int count = 0;
    sds *names = sdssplitlen(field, (ssize_t)sdslen(field), ",", 1, &count);
    int ok = count > 0;
    if (!ok) confError(err, line, "empty flags");
    for (int j = 0; ok && j < count; j++) {
        if (!strcmp(names[j], "noflags")) continue;
        int k;
        for (k = 0; k < CONF_NUM_FLAGS; k++)
            if (!strcmp(names[j], confFlagNames[k].name)) break;
        if (k == CONF_NUM_FLAGS) {
            confError(err, line, "unknown flag '%.40s'", names[j]);
            ok = 0;
        } else {
            n->flags |= confFlagNames[k].flag;
        }
    }
    sdsfreesplitres(names, count);
    return ok ? C_OK : C_ERR;
}

/* "[slot->-name]" or "[slot-<-name]". */
static int parseSlotMove(clusterConfNode *n, const sds s, clusterConfError *err, int line) {
    size_t len = sdslen(s);
    const char *arrow = NULL;
    int importing = 0;
    if (len > 2 && s[len - 1] == ']') {
        if ((arrow = strstr(s, "->-")) == NULL) {
            arrow = strstr(s, "-<-");
            importing = 1;
        }
    }
    long long slot;
    const char *name = arrow ? arrow + 3 : NULL;
    if (!arrow || !string2ll(s + 1, (size_t)(arrow - s - 1), &slot) || slot < 0 || slot >= CLUSTER_SLOTS ||
        (size_t)(s + len - 1 - name) != CLUSTER_NAMELEN || !clusterIsValidNodeName(name)) {
        confError(err, line, "invalid slot migration '%.60s'", s);
        return C_ERR;
    }
    char other[CLUSTER_NAMELEN + 1];
    memcpy(other, name, CLUSTER_NAMELEN);
    other[CLUSTER_NAMELEN] = '\0';
    if (clusterConfAddSlotMove(n, (int)slot, importing, other) != C_OK) {
        confError(err, line, "slot %lld is migrating twice", slot);
        return C_ERR;
    }
    return C_OK;
}

/* "slot" or "first-last". Whether another node has the slots too is
 * checked when the line is read (claimSlots()). */
static int parseSlotRange(clusterConfNode *n, const sds s, clusterConfError *err, int line) {
    const char *dash = memchr(s, '-', sdslen(s));
    long long first, last;
    int ok = dash ? string2ll(s, (size_t)(dash - s), &first) &&
                        string2ll(dash + 1, sdslen(s) - (size_t)(dash - s) - 1, &last)
                  : string2ll(s, sdslen(s), &first);
    if (!dash) last = first;
    if (!ok || first < 0 || last >= CLUSTER_SLOTS || first > last) {
        confError(err, line, "invalid slot range '%.60s'", s);
        return C_ERR;
    }
    clusterSlotBitmapSetRange(clusterConfNodeSlots(n), (int)first, (int)last);
    return C_OK;
}

/* The fields after the address and flags: primary, ping, pong, epoch,
 * link. */
static int parseStateFields(clusterConfNode *n, sds *argv, clusterConfError *err, int line) {
    if (!strcmp(argv[3], "-")) {
        n->primary[0] = '\0';
    } else if (isNameField(argv[3]) && strcmp(argv[3], n->name) != 0) {
        memcpy(n->primary, argv[3], CLUSTER_NAMELEN + 1);
    } else {
        confError(err, line, "invalid primary '%.60s'", argv[3]);
        return C_ERR;
    }
    unsigned long long epoch;
    if (!string2ll(argv[4], sdslen(argv[4]), &n->ping_sent) || n->ping_sent < 0 ||
        !string2ll(argv[5], sdslen(argv[5]), &n->pong_received) || n->pong_received < 0) {
        confError(err, line, "invalid ping sent or pong received time");
        return C_ERR;
    }
    if (!string2ull(argv[6], sdslen(argv[6]), &epoch)) {
        confError(err, line, "invalid config epoch '%.40s'", argv[6]);
        return C_ERR;
    }
    n->config_epoch = epoch;
    if (!strcmp(argv[7], "connected")) {
        n->connected = 1;
    } else if (!strcmp(argv[7], "disconnected")) {
        n->connected = 0;
    } else {
        confError(err, line, "invalid link state '%.40s'", argv[7]);
        return C_ERR;
    }
    return C_OK;
}

static int parseNodeLine(clusterConf *conf, sds *argv, int argc, clusterConfError *err, int line) {
    if (argc < 8) {
        confError(err, line, "a node line has at least 8 fields, this one %d", argc);
        return C_ERR;
    }
    if (!isNameField(argv[0])) {
        confError(err, line, "invalid node name '%.60s'", argv[0]);
        return C_ERR;
    }
    /* Names listed twice are found once every line is read (checkNames()). */
    clusterConfNode *n = appendNode(conf, argv[0]);
    if (parseAddressField(n, argv[1], err, line) != C_OK || parseFlagsField(n, argv[2], err, line) != C_OK ||
        parseStateFields(n, argv, err, line) != C_OK)
        return C_ERR;
    for (int j = 8; j < argc; j++) {
        int ok = argv[j][0] == '[' ? parseSlotMove(n, argv[j], err, line) : parseSlotRange(n, argv[j], err, line);
        if (ok != C_OK) return C_ERR;
    }
    return C_OK;
}

/* "vars name value [name value]...": currentEpoch and lastVoteEpoch; other
 * names are skipped (and remembered for the log). */
static int parseVarsLine(clusterConf *conf, sds *argv, int argc, clusterConfError *err, int line) {
    if (argc % 2 != 1) {
        confError(err, line, "vars line without a value for '%.40s'", argv[argc - 1]);
        return C_ERR;
    }
    for (int j = 1; j < argc; j += 2) {
        unsigned long long v;
        int known = !strcmp(argv[j], "currentEpoch") || !strcmp(argv[j], "lastVoteEpoch");
        if (!known) {
            conf->skipped_vars = zrealloc(conf->skipped_vars, sizeof(sds) * (conf->numskipped + 1));
            conf->skipped_vars[conf->numskipped++] = sdsdup(argv[j]);
            continue;
        }
        if (!string2ull(argv[j + 1], sdslen(argv[j + 1]), &v)) {
            confError(err, line, "invalid value '%.40s' for %s", argv[j + 1], argv[j]);
            return C_ERR;
        }
        if (argv[j][0] == 'c')
            conf->current_epoch = v;
        else
            conf->last_vote_epoch = v;
    }
    return C_OK;
}

/* Copies the line into err->text for the log, cut to fit. */
static void keepLineText(clusterConfError *err, const char *p, size_t len) {
    size_t n = len < sizeof(err->text) - 1 ? len : sizeof(err->text) - 1;
    memcpy(err->text, p, n);
    err->text[n] = '\0';
}

static int parseLine(clusterConf *conf, const char *p, size_t len, clusterConfError *err, int line) {
    if (memchr(p, '\0', len)) {
        confError(err, line, "NUL byte: this is not a nodes.conf file");
        return C_ERR;
    }
    sds text = sdsnewlen(p, len);
    int argc = 0, rc = C_OK;
    sds *argv = sdssplitargs(text, &argc);
    if (!argv) {
        confError(err, line, "unbalanced quotes");
        rc = C_ERR;
    } else if (argc > 0 && !strcmp(argv[0], "vars")) {
        rc = parseVarsLine(conf, argv, argc, err, line);
    } else if (argc > 0) {
        rc = parseNodeLine(conf, argv, argc, err, line);
    }
    sdsfreesplitres(argv, argc);
    sdsfree(text);
    return rc;
}

/* ---------------------------------------------------------------------------
 * Whole-file rules, for parsed files and built descriptions alike. nodeline
 * gives each node's line in the file; NULL for a description, whose errors
 * name the node's 1-based index instead.
 * ------------------------------------------------------------------------ */

static int lineOf(const int *nodeline, int index) {
    return nodeline ? nodeline[index] : index + 1;
}

/* Exactly one node is flagged myself. */
static int checkMyself(const clusterConf *conf, clusterConfError *err) {
    int myself = 0;
    for (int j = 0; j < conf->numnodes; j++)
        if (conf->nodes[j]->flags & CLUSTER_NODE_MYSELF) myself++;
    if (myself == 1) return C_OK;
    confError(err, 0, myself ? "more than one node is flagged myself" : "no node is flagged myself");
    return C_ERR;
}

static int compareNodeIndexByName(const void *a, const void *b, void *arg) {
    const clusterConf *conf = arg;
    int x = *(const int *)a, y = *(const int *)b;
    int c = strcmp(conf->nodes[x]->name, conf->nodes[y]->name);
    return c ? c : (x > y) - (x < y);
}

/* No name is listed twice: sorted by name, duplicates are neighbours (a
 * sort rather than a search per node: a file may list very many). */
static int checkNames(const clusterConf *conf, const int *nodeline, clusterConfError *err) {
    if (conf->numnodes < 2) return C_OK;
    int *order = zmalloc(sizeof(int) * conf->numnodes), dup = -1;
    for (int j = 0; j < conf->numnodes; j++) order[j] = j;
    qsort_r(order, (size_t)conf->numnodes, sizeof(int), compareNodeIndexByName, (void *)conf);
    for (int j = 1; j < conf->numnodes; j++)
        if (!strcmp(conf->nodes[order[j]]->name, conf->nodes[order[j - 1]]->name) && (dup < 0 || order[j] < dup))
            dup = order[j];
    zfree(order);
    if (dup < 0) return C_OK;
    confError(err, lineOf(nodeline, dup), "node %s is listed twice", conf->nodes[dup]->name);
    return C_ERR;
}

/* Adds node index's slots to claimed; C_ERR if one was claimed already. */
static int claimSlots(const clusterConf *conf, int index, unsigned char *claimed, const int *nodeline,
                      clusterConfError *err) {
    const unsigned char *slots = conf->nodes[index]->slots;
    if (!slots) return C_OK;
    for (int b = 0; b < CLUSTER_SLOT_BITMAP_LEN; b++) {
        if (claimed[b] & slots[b]) {
            int slot = b * 8 + __builtin_ctz(claimed[b] & slots[b]);
            confError(err, lineOf(nodeline, index), "slot %d is already assigned to another node", slot);
            return C_ERR;
        }
        claimed[b] |= slots[b];
    }
    return C_OK;
}

/* No slot belongs to two nodes. */
static int checkSlotOwners(const clusterConf *conf, clusterConfError *err) {
    unsigned char claimed[CLUSTER_SLOT_BITMAP_LEN];
    memset(claimed, 0, sizeof(claimed));
    for (int j = 0; j < conf->numnodes; j++)
        if (claimSlots(conf, j, claimed, NULL, err) != C_OK) return C_ERR;
    return C_OK;
}

int clusterConfParse(const char *buf, size_t len, clusterConf **out, clusterConfError *err) {
    clusterConf *conf = clusterConfCreate();
    int *nodeline = NULL, line = 0, rc = C_OK;
    unsigned char claimed[CLUSTER_SLOT_BITMAP_LEN];
    memset(claimed, 0, sizeof(claimed));
    memset(err, 0, sizeof(*err));
    for (size_t pos = 0; pos < len && rc == C_OK;) {
        const char *nl = memchr(buf + pos, '\n', len - pos);
        size_t linelen = nl ? (size_t)(nl - (buf + pos)) : len - pos;
        int before = conf->numnodes;
        line++;
        rc = parseLine(conf, buf + pos, linelen, err, line);
        if (conf->numnodes != before) {
            nodeline = zrealloc(nodeline, sizeof(int) * conf->numnodes);
            nodeline[conf->numnodes - 1] = line;
            if (rc == C_OK) rc = claimSlots(conf, conf->numnodes - 1, claimed, nodeline, err);
        }
        if (rc != C_OK) keepLineText(err, buf + pos, linelen);
        pos += linelen + 1;
    }
    if (rc == C_OK) {
        rc = checkNames(conf, nodeline, err);
        if (rc == C_OK) rc = checkMyself(conf, err);
        /* The line at fault, for Valkey's log line. */
        if (rc != C_OK && err->line > 0) {
            const char *p = buf;
            for (int l = 1; l < err->line; l++) p = memchr(p, '\n', len - (size_t)(p - buf)) + 1;
            const char *nl = memchr(p, '\n', len - (size_t)(p - buf));
            keepLineText(err, p, nl ? (size_t)(nl - p) : len - (size_t)(p - buf));
        }
    }
    zfree(nodeline);
    if (rc != C_OK) {
        clusterConfFree(conf);
        conf = NULL;
    }
    *out = conf;
    return rc;
}

/* ---------------------------------------------------------------------------
 * Checking and writing descriptions
 * ------------------------------------------------------------------------ */

/* One node of a description built in memory: the rules parsing applies. */
static int validateNode(const clusterConfNode *n, int index, clusterConfError *err) {
    int line = index + 1;
    if (!clusterIsValidNodeName(n->name) || n->name[CLUSTER_NAMELEN] != '\0') {
        confError(err, line, "invalid node name");
    } else if (!n->ip || !clusterIsValidAddress(n->ip, sdslen(n->ip)) || n->port < 0 || n->port > 65535 ||
               n->cport < -1 || n->cport > 65535) {
        confError(err, line, "invalid address of node %s", n->name);
    } else if (n->hostname && !clusterIsValidHostname(n->hostname, sdslen(n->hostname))) {
        confError(err, line, "invalid hostname of node %s", n->name);
    } else if (n->numaux && !n->hostname) {
        confError(err, line, "aux fields without a hostname field in node %s", n->name);
    } else if ((n->flags & ~CLUSTER_CONF_NODE_FLAGS) != 0) {
        confError(err, line, "flags 0x%x of node %s have no name in nodes.conf", n->flags, n->name);
    } else if (n->primary[0] && (!clusterIsValidNodeName(n->primary) || n->primary[CLUSTER_NAMELEN] != '\0' ||
                                 !strcmp(n->primary, n->name))) {
        confError(err, line, "invalid primary of node %s", n->name);
    } else if (n->ping_sent < 0 || n->pong_received < 0) {
        confError(err, line, "negative ping or pong time of node %s", n->name);
    } else {
        for (int j = 0; j < n->numaux; j++) {
            const clusterConfAux *a = &n->aux[j];
            if (!isKnownAuxKey(a->key, sdslen(a->key)) || !isValidAuxValue(a->key, a->value, sdslen(a->value)) ||
                clusterConfGetAux(n, a->key) != a->value) {
                confError(err, line, "invalid aux field '%.40s' of node %s", a->key, n->name);
                return C_ERR;
            }
        }
        for (int j = 0; j < n->nummoves; j++) {
            const clusterConfSlotMove *m = &n->moves[j];
            if (m->slot < 0 || m->slot >= CLUSTER_SLOTS || !clusterIsValidNodeName(m->node) ||
                m->node[CLUSTER_NAMELEN] != '\0' || (m->importing != 0 && m->importing != 1)) {
                confError(err, line, "invalid slot migration of node %s", n->name);
                return C_ERR;
            }
            for (int k = 0; k < j; k++)
                if (n->moves[k].slot == m->slot) {
                    confError(err, line, "slot %d of node %s is migrating twice", m->slot, n->name);
                    return C_ERR;
                }
        }
        return C_OK;
    }
    return C_ERR;
}

int clusterConfValidate(const clusterConf *conf, clusterConfError *err) {
    memset(err, 0, sizeof(*err));
    for (int j = 0; j < conf->numnodes; j++)
        if (validateNode(conf->nodes[j], j, err) != C_OK) return C_ERR;
    if (checkNames(conf, NULL, err) != C_OK || checkSlotOwners(conf, err) != C_OK) return C_ERR;
    return checkMyself(conf, err);
}

static sds formatFlags(sds s, int flags) {
    int any = 0;
    for (int k = 0; k < CONF_NUM_FLAGS; k++) {
        if (!(flags & confFlagNames[k].flag)) continue;
        if (any) s = sdscatlen(s, ",", 1);
        s = sdscat(s, confFlagNames[k].name);
        any = 1;
    }
    return any ? s : sdscat(s, "noflags");
}

static sds formatNode(sds s, const clusterConfNode *n) {
    s = sdscatprintf(s, "%s %s:%d", n->name, n->ip, n->port);
    if (n->cport >= 0) s = sdscatprintf(s, "@%d", n->cport);
    if (n->hostname) s = sdscatprintf(s, ",%s", n->hostname);
    for (int j = 0; j < n->numaux; j++) s = sdscatprintf(s, ",%s=%s", n->aux[j].key, n->aux[j].value);
    s = sdscatlen(s, " ", 1);
    s = formatFlags(s, n->flags);
    s = sdscatprintf(s, " %s %lld %lld %llu %s", n->primary[0] ? n->primary : "-", n->ping_sent, n->pong_received,
                     (unsigned long long)n->config_epoch, n->connected ? "connected" : "disconnected");
    int slot = 0, first, last;
    while (n->slots && clusterSlotBitmapNextRange(n->slots, &slot, &first, &last)) {
        if (first == last)
            s = sdscatprintf(s, " %d", first);
        else
            s = sdscatprintf(s, " %d-%d", first, last);
    }
    for (int j = 0; j < n->nummoves; j++)
        s = sdscatprintf(s, " [%d%s%s]", n->moves[j].slot, n->moves[j].importing ? "-<-" : "->-", n->moves[j].node);
    return sdscatlen(s, "\n", 1);
}

sds clusterConfFormat(const clusterConf *conf) {
    sds s = sdsempty();
    for (int j = 0; j < conf->numnodes; j++) s = formatNode(s, conf->nodes[j]);
    return sdscatprintf(s, "vars currentEpoch %llu lastVoteEpoch %llu\n", (unsigned long long)conf->current_epoch,
                        (unsigned long long)conf->last_vote_epoch);
}

/* ---------------------------------------------------------------------------
 * Files
 * ------------------------------------------------------------------------ */

static void ioError(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ioError(char *err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, CLUSTER_MSG_ERR_LEN, fmt, ap);
    va_end(ap);
}

/* Reads a whole file of at most CLUSTER_CONF_MAX_SIZE bytes; returns a new
 * sds, or NULL with errno set (EFBIG for a larger file). */
static sds readWholeFile(int fd) {
    sds buf = sdsempty();
    char chunk[16384];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n == 0) return buf;
        if (n < 0) {
            if (errno == EINTR) continue;
            sdsfree(buf);
            return NULL;
        }
        if (sdslen(buf) + (size_t)n > CLUSTER_CONF_MAX_SIZE) {
            sdsfree(buf);
            errno = EFBIG;
            return NULL;
        }
        buf = sdscatlen(buf, chunk, (size_t)n);
    }
}

int clusterConfLoad(const char *path, clusterConf **out, clusterConfError *err) {
    memset(err, 0, sizeof(*err));
    *out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd == -1) {
        if (errno == ENOENT) return CLUSTER_CONF_ABSENT;
        confError(err, 0, "Loading the cluster node config from %s: %s", path, strerror(errno));
        err->corrupt = 0;
        return C_ERR;
    }
    struct stat st;
    if (fstat(fd, &st) == -1) {
        confError(err, 0, "Unable to obtain the cluster node config file stat %s: %s", path, strerror(errno));
        err->corrupt = 0;
        close(fd);
        return C_ERR;
    }
    sds buf = S_ISREG(st.st_mode) ? readWholeFile(fd) : NULL;
    if (!S_ISREG(st.st_mode)) errno = EINVAL;
    int saved = errno;
    close(fd);
    if (!buf) {
        confError(err, 0, "Loading the cluster node config from %s: %s", path, strerror(saved));
        err->corrupt = 0;
        return C_ERR;
    }
    if (sdslen(buf) == 0) {
        sdsfree(buf);
        return CLUSTER_CONF_ABSENT;
    }
    int rc = clusterConfParse(buf, sdslen(buf), out, err);
    sdsfree(buf);
    return rc;
}

/* write() of every byte, through partial writes and EINTR. */
static int writeAll(int fd, const char *p, size_t len) {
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* fsync() of the directory holding path, so that a rename survives a
 * crash. */
static int fsyncParentDir(const char *path) {
    const char *slash = strrchr(path, '/');
    sds dir = slash ? sdsnewlen(path, slash == path ? 1 : (size_t)(slash - path)) : sdsnew(".");
    int fd = open(dir, O_RDONLY | O_CLOEXEC);
    sdsfree(dir);
    if (fd == -1) return -1;
    int rc = fsync(fd);
    int saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

/* Writes text to a new temporary file beside path and makes it durable.
 * Returns its descriptor (open, locked when lock) with *tmpname set, or -1
 * with err set and nothing left behind. */
static int writeTempFile(const char *path, const sds text, int do_fsync, int lock, sds *tmpname, char *err) {
    sds tmp = sdscatprintf(sdsempty(), "%s.tmp-%d-%lld", path, (int)getpid(), ustime());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd == -1) {
        ioError(err, "Could not open temp cluster config file %s: %s", tmp, strerror(errno));
        sdsfree(tmp);
        return -1;
    }
    const char *what = NULL;
    if (lock && flock(fd, LOCK_EX | LOCK_NB) == -1)
        what = "lock";
    else if (writeAll(fd, text, sdslen(text)) == -1)
        what = "write";
    else if (do_fsync && fsync(fd) == -1)
        what = "fsync";
    if (what) {
        ioError(err, "Could not %s temp cluster config file %s: %s", what, tmp, strerror(errno));
        close(fd);
        unlink(tmp);
        sdsfree(tmp);
        return -1;
    }
    *tmpname = tmp;
    return fd;
}

int clusterConfSave(const clusterConf *conf, const char *path, int do_fsync, int *lockfd, char *err) {
    clusterConfError verr;
    if (clusterConfValidate(conf, &verr) != C_OK) {
        ioError(err, "Refusing to save an invalid cluster config (node %d): %s", verr.line, verr.reason);
        return C_ERR;
    }
    sds text = clusterConfFormat(conf);
    sds tmp = NULL;
    int fd = writeTempFile(path, text, do_fsync, lockfd != NULL, &tmp, err);
    sdsfree(text);
    if (fd == -1) return C_ERR;
    if (rename(tmp, path) == -1) {
        ioError(err, "Could not rename tmp cluster config file %s to %s: %s", tmp, path, strerror(errno));
        close(fd);
        unlink(tmp);
        sdsfree(tmp);
        return C_ERR;
    }
    sdsfree(tmp);
    if (lockfd) {
        if (*lockfd >= 0) close(*lockfd);
        *lockfd = fd;
    } else {
        close(fd);
    }
    if (do_fsync && fsyncParentDir(path) == -1) {
        ioError(err, "Could not sync cluster config file dir of %s: %s", path, strerror(errno));
        return C_ERR;
    }
    return C_OK;
}

int clusterConfLock(const char *path, int *lockfd, char *err) {
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd == -1) {
        ioError(err, "Can't open %s in order to acquire a lock: %s", path, strerror(errno));
        return C_ERR;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
        if (errno == EWOULDBLOCK) {
            ioError(err,
                    "Sorry, the cluster configuration file %s is already used by a different Cluster node. Please "
                    "make sure that different nodes use different cluster configuration files.",
                    path);
        } else {
            ioError(err, "Impossible to lock %s: %s", path, strerror(errno));
        }
        close(fd);
        return C_ERR;
    }
    *lockfd = fd;
    return C_OK;
}

void clusterConfLogError(const char *path, const clusterConfError *err) {
    if (!err->corrupt) {
        serverLog(LL_WARNING, "%s", err->reason);
        return;
    }
    serverLog(LL_WARNING, "Unrecoverable error: corrupted cluster config file \"%s\".", err->text);
    if (err->line)
        serverLog(LL_WARNING, "%s line %d: %s", path, err->line, err->reason);
    else
        serverLog(LL_WARNING, "%s: %s", path, err->reason);
}
