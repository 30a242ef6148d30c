/* pubsub.c - Pub/Sub: SUBSCRIBE, PSUBSCRIBE, SSUBSCRIBE and their UNs,
 * PUBLISH, SPUBLISH and PUBSUB, as a non-cluster Valkey 8 serves them.
 *
 * State. For each namespace (PUBSUB_CHANNEL, _PATTERN, _SHARD, pubsub.h)
 * the server keeps a dict name -> set of subscribed clients, and every
 * subscribed client keeps, in c->pubsub, one dict per namespace of the
 * names it holds. The two sides always change together (subscribeTo /
 * unsubscribeFrom), so a client can be dropped from every set it is in
 * without scanning the server's tables. Without shards (no cluster),
 * shard channels are just a third, independent namespace. In cluster
 * mode PUBLISH and SPUBLISH also go to the other nodes over the cluster
 * bus (cluster_bus.c), which delivers what they publish here; routing
 * shard channels by slot comes with the keyspace by slot.
 *
 * Replies. Confirmations and messages are push replies: ">3" in RESP3,
 * plain arrays in RESP2. They are written with CLIENT_PUSHING set, so that
 * CLIENT REPLY OFF/SKIP does not swallow them. A message is encoded once
 * per protocol version and the same bytes are copied to every receiver.
 * A message for the client whose own command is running (PUBLISH to
 * itself in RESP3, a keyspace event caused by its write, anything inside
 * its EXEC or its script) is held in `pending` and appended after the
 * command's reply, the way Valkey 8 orders them.
 *
 * Subscribed mode: a RESP2 connection with any subscription may only run
 * the commands pubsubAllowedInSubscribedMode() accepts; processCommand()
 * enforces it. The CLIENT_PUBSUB flag means "has at least one
 * subscription" and is kept here. */
#include "pubsub.h"

#include "cluster.h"

#include "propagate.h"

/* What a client holds: the names it is subscribed to, per namespace. */
typedef struct clientPubsubState {
    dict *names[PUBSUB_KINDS]; /* name (sds, owned) -> NULL */
} clientPubsubState;

/* The words used on the wire for each namespace. */
typedef struct pubsubKindInfo {
    const char *subscribe;   /* confirmation of a subscription */
    const char *unsubscribe; /* confirmation of an unsubscription */
} pubsubKindInfo;

static const pubsubKindInfo kindInfo[PUBSUB_KINDS] = {
    [PUBSUB_CHANNEL] = {"subscribe", "unsubscribe"},
    [PUBSUB_PATTERN] = {"psubscribe", "punsubscribe"},
    [PUBSUB_SHARD] = {"ssubscribe", "sunsubscribe"},
};

static dict *subscribers[PUBSUB_KINDS]; /* name (sds) -> dict used as a set of client * */

/* Messages held back until the running command's reply is complete (see
 * the top comment): at most the calling client and the executing one. */
typedef struct pendingPushes {
    client *c;
    sds bytes;
} pendingPushes;
static list *pending; /* pendingPushes * */

/* ---------------------------------------------------------------------------
 * Dictionary types
 * ------------------------------------------------------------------------- */

static void releaseClientSet(void *set) {
    dictRelease(set);
}

/* A set of clients: the pointer is the key, there is no value. */
static dictType clientSetDictType = {
    .hashFunction = dictPointerHash,
};

/* Server side: name -> set of clients (released with the entry). */
static dictType subscribersDictType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .keyDestructor = dictSdsDestructor,
    .valDestructor = releaseClientSet,
};

/* Client side: the names themselves. */
static dictType clientNamesDictType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .keyDestructor = dictSdsDestructor,
};

/* See pubsub.h. */
void pubsubInit(void) {
    for (int k = 0; k < PUBSUB_KINDS; k++) subscribers[k] = dictCreate(&subscribersDictType);
    pending = listCreate();
}

/* ---------------------------------------------------------------------------
 * Counting
 * ------------------------------------------------------------------------- */

/* See pubsub.h. */
int pubsubClientSubscriptionsAll(client *c, int (*allowed)(void *ctx, int kind, sds name), void *ctx) {
    if (!c->pubsub) return 1;
    for (int kind = 0; kind < PUBSUB_KINDS; kind++) {
        dict *d = c->pubsub->names[kind];
        if (!d || dictSize(d) == 0) continue;
        dictIterator *it = dictGetIterator(d);
        dictEntry *de;
        int ok = 1;
        while (ok && (de = dictNext(it))) ok = allowed(ctx, kind, dictGetKey(de));
        dictReleaseIterator(it);
        if (!ok) return 0;
    }
    return 1;
}

/* See pubsub.h. */
int pubsubClientCount(client *c, int kind) {
    return c->pubsub ? (int)dictSize(c->pubsub->names[kind]) : 0;
}

/* See pubsub.h. */
size_t pubsubClientMemory(client *c) {
    if (!c->pubsub) return 0;
    size_t mem = sizeof(*c->pubsub);
    for (int kind = 0; kind < PUBSUB_KINDS; kind++)
        if (c->pubsub->names[kind]) mem += dictMemUsage(c->pubsub->names[kind]);
    return mem;
}

/* See pubsub.h. */
unsigned long pubsubTotal(int kind) {
    return subscribers[kind] ? dictSize(subscribers[kind]) : 0;
}

/* The number a (un)subscribe confirmation carries: channels and patterns
 * are counted together, shard channels on their own. */
static long confirmationCount(client *c, int kind) {
    if (kind == PUBSUB_SHARD) return pubsubClientCount(c, PUBSUB_SHARD);
    return pubsubClientCount(c, PUBSUB_CHANNEL) + pubsubClientCount(c, PUBSUB_PATTERN);
}

static int totalSubscriptions(client *c) {
    int n = 0;
    for (int k = 0; k < PUBSUB_KINDS; k++) n += pubsubClientCount(c, k);
    return n;
}

/* ---------------------------------------------------------------------------
 * Pushing replies
 * ------------------------------------------------------------------------- */

/* Writes raw protocol that is a push: it bypasses CLIENT REPLY OFF/SKIP. */
static void addPushProto(client *c, const char *p, size_t len) {
    uint64_t was_pushing = c->flags & CLIENT_PUSHING;
    c->flags |= CLIENT_PUSHING;
    addReplyProto(c, p, len);
    if (!was_pushing) c->flags &= ~CLIENT_PUSHING;
}

/* Sends "[subscribe|unsubscribe...] <name or null> <count>". */
static void addSubscriptionConfirmation(client *c, const char *word, sds name, long count) {
    uint64_t was_pushing = c->flags & CLIENT_PUSHING;
    c->flags |= CLIENT_PUSHING;
    addReplyPushLen(c, 3);
    addReplyBulkCString(c, word);
    if (name) addReplyBulkCBuffer(c, name, sdslen(name));
    else addReplyNull(c);
    addReplyLongLong(c, count);
    if (!was_pushing) c->flags &= ~CLIENT_PUSHING;
}

static sds catBulk(sds s, const char *p, size_t len) {
    s = sdscatfmt(s, "$%U\r\n", (unsigned long long)len);
    s = sdscatlen(s, p, len);
    return sdscatlen(s, "\r\n", 2);
}

/* Encodes a message push for protocol resp: "message"/"smessage" carry
 * channel and payload, "pmessage" also the pattern that matched first. */
static sds encodeMessage(int resp, const char *word, sds pattern, sds channel, robj *payload) {
    sds s = sdsnew(resp == 2 ? "*" : ">");
    s = sdscatfmt(s, "%i\r\n", pattern ? 4 : 3);
    s = catBulk(s, word, strlen(word));
    if (pattern) s = catBulk(s, pattern, sdslen(pattern));
    s = catBulk(s, channel, sdslen(channel));
    if (sdsEncodedObject(payload)) {
        s = catBulk(s, objectGetVal(payload), sdslen(objectGetVal(payload)));
    } else {
        char buf[LONG_STR_SIZE];
        int len = ll2string(buf, sizeof(buf), (long)objectGetVal(payload));
        s = catBulk(s, buf, len);
    }
    return s;
}

/* One message, encoded on demand for each protocol version in use. */
typedef struct encodedMessage {
    const char *word;
    sds pattern, channel;
    robj *payload;
    sds bytes[2]; /* [0] RESP2, [1] RESP3 */
} encodedMessage;

static void holdBack(client *c, sds bytes) {
    listIter li;
    listNode *ln;
    listRewind(pending, &li);
    while ((ln = listNext(&li)) != NULL) {
        pendingPushes *p = listNodeValue(ln);
        if (p->c == c) {
            p->bytes = sdscatsds(p->bytes, bytes);
            return;
        }
    }
    pendingPushes *p = zmalloc(sizeof(*p));
    p->c = c;
    p->bytes = sdsdup(bytes);
    listAddNodeTail(pending, p);
}

/* Drops (flush = 0) or sends the messages held back for c, or for every
 * client when c is NULL. */
static void releaseHeldBack(client *c, int flush) {
    listIter li;
    listNode *ln;
    listRewind(pending, &li);
    while ((ln = listNext(&li)) != NULL) {
        pendingPushes *p = listNodeValue(ln);
        if (c && p->c != c) continue;
        if (flush) addPushProto(p->c, p->bytes, sdslen(p->bytes));
        sdsfree(p->bytes);
        zfree(p);
        listDelNode(pending, ln);
    }
}

/* See pubsub.h. */
void pubsubDeliverPush(client *c, sds bytes) {
    if (server.executing_client && (c == server.executing_client || c == server.current_client)) {
        /* Its own command is running: the message goes after the reply. */
        holdBack(c, bytes);
        return;
    }
    addPushProto(c, bytes, sdslen(bytes));
}

static void deliverMessage(client *c, encodedMessage *m) {
    int v = c->resp == 2 ? 0 : 1;
    if (m->bytes[v] == NULL) m->bytes[v] = encodeMessage(c->resp, m->word, m->pattern, m->channel, m->payload);
    pubsubDeliverPush(c, m->bytes[v]);
}

static void releaseEncodedMessage(encodedMessage *m) {
    sdsfree(m->bytes[0]);
    sdsfree(m->bytes[1]);
    m->bytes[0] = m->bytes[1] = NULL;
}

/* Sends m to every client of a subscriber set; returns how many. */
static long long deliverToSet(dict *set, encodedMessage *m) {
    long long n = 0;
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, set);
    while ((de = dictNext(&it)) != NULL) {
        deliverMessage(dictGetKey(de), m);
        n++;
    }
    dictResetIterator(&it);
    return n;
}

/* See pubsub.h. */
void pubsubFlushPendingPushes(void) {
    if (pending && listLength(pending)) releaseHeldBack(NULL, 1);
}

/* ---------------------------------------------------------------------------
 * Subscribing and unsubscribing
 * ------------------------------------------------------------------------- */

static clientPubsubState *clientState(client *c) {
    if (c->pubsub == NULL) {
        c->pubsub = zmalloc(sizeof(*c->pubsub));
        for (int k = 0; k < PUBSUB_KINDS; k++) c->pubsub->names[k] = dictCreate(&clientNamesDictType);
    }
    return c->pubsub;
}

/* Adds the subscription (a no-op if c already has it) and confirms it. */
static void subscribeTo(client *c, int kind, sds name) {
    clientPubsubState *st = clientState(c);
    if (dictFind(st->names[kind], name) == NULL) {
        dictAdd(st->names[kind], sdsdup(name), NULL);
        dictEntry *de = dictFind(subscribers[kind], name);
        if (de == NULL) {
            de = dictAddRaw(subscribers[kind], sdsdup(name), NULL);
            dictSetVal(subscribers[kind], de, dictCreate(&clientSetDictType));
        }
        dictAdd(dictGetVal(de), c, NULL);
    }
    c->flags |= CLIENT_PUBSUB;
    addSubscriptionConfirmation(c, kindInfo[kind].subscribe, name, confirmationCount(c, kind));
}

/* Removes the subscription if c has it; confirms when notify (even if c
 * did not have it, as Valkey does). */
static void unsubscribeFrom(client *c, int kind, sds name, int notify) {
    if (c->pubsub && dictDelete(c->pubsub->names[kind], name) == DICT_OK) {
        dictEntry *de = dictFind(subscribers[kind], name);
        serverAssert(de != NULL);
        dict *set = dictGetVal(de);
        dictDelete(set, c);
        if (dictSize(set) == 0) dictDelete(subscribers[kind], name);
    }
    if (totalSubscriptions(c) == 0) c->flags &= ~CLIENT_PUBSUB;
    if (notify) addSubscriptionConfirmation(c, kindInfo[kind].unsubscribe, name, confirmationCount(c, kind));
}

/* Drops every subscription of one namespace. With notify and nothing to
 * drop, a single confirmation with a null name is sent. */
static void unsubscribeAllOfKind(client *c, int kind, int notify) {
    if (pubsubClientCount(c, kind) == 0) {
        if (notify) addSubscriptionConfirmation(c, kindInfo[kind].unsubscribe, NULL, confirmationCount(c, kind));
        return;
    }
    dict *names = c->pubsub->names[kind];
    dictIterator *it = dictGetSafeIterator(names);
    dictEntry *de;
    while ((de = dictNext(it)) != NULL) {
        sds name = sdsdup(dictGetKey(de)); /* the entry goes away below */
        unsubscribeFrom(c, kind, name, notify);
        sdsfree(name);
    }
    dictReleaseIterator(it);
}

/* See pubsub.h. */
void pubsubUnsubscribeAll(client *c, int notify) {
    if (c->pubsub == NULL) return;
    for (int k = 0; k < PUBSUB_KINDS; k++) unsubscribeAllOfKind(c, k, notify);
    for (int k = 0; k < PUBSUB_KINDS; k++) dictRelease(c->pubsub->names[k]);
    zfree(c->pubsub);
    c->pubsub = NULL;
    c->flags &= ~CLIENT_PUBSUB;
    if (listLength(pending)) releaseHeldBack(c, 0);
}

/* ---------------------------------------------------------------------------
 * Publishing
 * ------------------------------------------------------------------------- */

/* See pubsub.h. */
long long pubsubPublishMessage(robj *channel, robj *message, int sharded) {
    long long receivers = 0;
    sds name = objectGetVal(channel);
    int kind = sharded ? PUBSUB_SHARD : PUBSUB_CHANNEL;

    dict *set = dictFetchValue(subscribers[kind], name);
    if (set) {
        encodedMessage m = {.word = sharded ? "smessage" : "message", .channel = name, .payload = message};
        receivers += deliverToSet(set, &m);
        releaseEncodedMessage(&m);
    }
    if (sharded || dictSize(subscribers[PUBSUB_PATTERN]) == 0) return receivers;

    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, subscribers[PUBSUB_PATTERN]);
    while ((de = dictNext(&it)) != NULL) {
        sds pattern = dictGetKey(de);
        if (!stringmatchlen(pattern, sdslen(pattern), name, sdslen(name), 0)) continue;
        encodedMessage m = {.word = "pmessage", .pattern = pattern, .channel = name, .payload = message};
        receivers += deliverToSet(dictGetVal(de), &m);
        releaseEncodedMessage(&m);
    }
    dictResetIterator(&it);
    return receivers;
}

/* ---------------------------------------------------------------------------
 * Subscribed mode
 * ------------------------------------------------------------------------- */

/* See pubsub.h. */
int pubsubAllowedInSubscribedMode(struct serverCommand *cmd) {
    static const char *allowed[] = {"subscribe",  "unsubscribe",  "psubscribe", "punsubscribe", "ssubscribe",
                                    "sunsubscribe", "ping", "quit",   "reset",      NULL};
    if (cmd->parent) return 0;
    for (int j = 0; allowed[j]; j++)
        if (!strcmp(cmd->name, allowed[j])) return 1;
    return 0;
}

/* ---------------------------------------------------------------------------
 * Commands
 * ------------------------------------------------------------------------- */

static void subscribeGeneric(client *c, int kind) {
    for (int j = 1; j < c->argc; j++) subscribeTo(c, kind, objectGetVal(c->argv[j]));
}

static void unsubscribeGeneric(client *c, int kind) {
    if (c->argc == 1) {
        unsubscribeAllOfKind(c, kind, 1);
        return;
    }
    for (int j = 1; j < c->argc; j++) unsubscribeFrom(c, kind, objectGetVal(c->argv[j]), 1);
}

/* The command handlers below run in the event loop for c's own command and
 * reply to c only (messages go to the subscribers). */

/* SUBSCRIBE channel [channel ...]: one confirmation per channel. */
void subscribeCommand(client *c) {
    subscribeGeneric(c, PUBSUB_CHANNEL);
}

/* UNSUBSCRIBE [channel ...]: one confirmation per channel (all if none). */
void unsubscribeCommand(client *c) {
    unsubscribeGeneric(c, PUBSUB_CHANNEL);
}

/* PSUBSCRIBE pattern [pattern ...]. */
void psubscribeCommand(client *c) {
    subscribeGeneric(c, PUBSUB_PATTERN);
}

/* PUNSUBSCRIBE [pattern ...]. */
void punsubscribeCommand(client *c) {
    unsubscribeGeneric(c, PUBSUB_PATTERN);
}

/* SSUBSCRIBE keeps a connection waiting for messages, which a transaction
 * (a client that expects one reply per command) cannot do. */
void ssubscribeCommand(client *c) {
    if (c->flags & CLIENT_MULTI) {
        addReplyError(c, "SSUBSCRIBE isn't allowed for a DENY BLOCKING client");
        return;
    }
    subscribeGeneric(c, PUBSUB_SHARD);
}

/* SUNSUBSCRIBE [shardchannel ...]. */
void sunsubscribeCommand(client *c) {
    unsubscribeGeneric(c, PUBSUB_SHARD);
}

/* PUBLISH channel message: replies the number of receivers (here). The
 * other subscribers get it through replication, or in cluster mode
 * through the cluster bus (every node, replicas included). */
void publishCommand(client *c) {
    addReplyLongLong(c, pubsubPublishMessage(c->argv[1], c->argv[2], 0));
    if (server.cluster_enabled)
        clusterPropagatePublish(c->argv[1], c->argv[2], 0);
    else
        forceCommandPropagation(c);
}

/* SPUBLISH shardchannel message: replies the number of receivers (here);
 * in cluster mode the nodes of our shard get it through the bus. */
void spublishCommand(client *c) {
    addReplyLongLong(c, pubsubPublishMessage(c->argv[1], c->argv[2], 1));
    if (server.cluster_enabled)
        clusterPropagatePublish(c->argv[1], c->argv[2], 1);
    else
        forceCommandPropagation(c);
}

/* PUBSUB CHANNELS / SHARDCHANNELS [pattern]: names with subscribers. */
static void listChannels(client *c, int kind) {
    if (c->argc > 3) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    sds pattern = c->argc == 3 ? objectGetVal(c->argv[2]) : NULL;
    void *len = addReplyDeferredLen(c);
    long n = 0;
    dictIterator it;
    dictEntry *de;
    dictInitIterator(&it, subscribers[kind]);
    while ((de = dictNext(&it)) != NULL) {
        sds name = dictGetKey(de);
        if (pattern && !stringmatchlen(pattern, sdslen(pattern), name, sdslen(name), 0)) continue;
        addReplyBulkCBuffer(c, name, sdslen(name));
        n++;
    }
    dictResetIterator(&it);
    setDeferredArrayLen(c, len, n);
}

/* PUBSUB NUMSUB / SHARDNUMSUB [name ...]: flat name, count pairs. */
static void countSubscribers(client *c, int kind) {
    addReplyArrayLen(c, (c->argc - 2) * 2);
    for (int j = 2; j < c->argc; j++) {
        dict *set = dictFetchValue(subscribers[kind], objectGetVal(c->argv[j]));
        addReplyBulk(c, c->argv[j]);
        addReplyLongLong(c, set ? (long long)dictSize(set) : 0);
    }
}

static void pubsubChannelsCommand(client *c) {
    listChannels(c, PUBSUB_CHANNEL);
}

static void pubsubShardchannelsCommand(client *c) {
    listChannels(c, PUBSUB_SHARD);
}

static void pubsubNumsubCommand(client *c) {
    countSubscribers(c, PUBSUB_CHANNEL);
}

static void pubsubShardnumsubCommand(client *c) {
    countSubscribers(c, PUBSUB_SHARD);
}

static void pubsubNumpatCommand(client *c) {
    addReplyLongLong(c, (long long)dictSize(subscribers[PUBSUB_PATTERN]));
}

static void pubsubHelpCommand(client *c) {
    const char *help[] = {
        "CHANNELS [<pattern>]",
        "    Return the currently active channels matching a <pattern> (default: '*').",
        "NUMPAT",
        "    Return number of subscriptions to patterns.",
        "NUMSUB [<channel> ...]",
        "    Return the number of subscribers for the specified channels, excluding",
        "    pattern subscriptions(default: no channels).",
        "SHARDCHANNELS [<pattern>]",
        "    Return the currently active shard level channels matching a <pattern> (default: '*').",
        "SHARDNUMSUB [<shardchannel> ...]",
        "    Return the number of subscribers for the specified shard level channel(s)",
        NULL};
    addReplyHelp(c, help);
}

/* ---------------------------------------------------------------------------
 * Command table
 * ------------------------------------------------------------------------- */

#define SUBSCRIBE_FLAGS (CMD_PUBSUB | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE)
/* Any further arguments are more fields of the row (its .args string). */
#define PUBSUB_SUB(n, p, a, s, cx, ...)                                                                            \
    {.name = n, .proc = p, .arity = a, .flags = CMD_PUBSUB | CMD_LOADING | CMD_STALE, .group = "pubsub",           \
     .since = "2.8.0", .summary = s, .complexity = cx, __VA_ARGS__}

static struct serverCommand pubsubSubcommands[] = {
    PUBSUB_SUB("channels", pubsubChannelsCommand, -2, "Returns the active channels.",
               "O(N) where N is the number of active channels, and assuming constant time pattern matching "
               "(relatively short channels and patterns)",
               .args = "[pattern]"),
    PUBSUB_SUB("numsub", pubsubNumsubCommand, -2, "Returns a count of subscribers to channels.",
               "O(N) for the NUMSUB subcommand, where N is the number of requested channels",
               .args = "[channel [channel ...]]"),
    PUBSUB_SUB("numpat", pubsubNumpatCommand, 2, "Returns a count of unique pattern subscriptions.", "O(1)"),
    {.name = "shardchannels", .proc = pubsubShardchannelsCommand, .arity = -2,
     .flags = CMD_PUBSUB | CMD_LOADING | CMD_STALE, .group = "pubsub", .since = "7.0.0",
     .summary = "Returns the active shard channels.",
     .complexity = "O(N) where N is the number of active shard channels, and assuming constant time pattern "
                   "matching (relatively short shard channels).",
     .args = "[pattern]"},
    {.name = "shardnumsub", .proc = pubsubShardnumsubCommand, .arity = -2,
     .flags = CMD_PUBSUB | CMD_LOADING | CMD_STALE, .group = "pubsub", .since = "7.0.0",
     .summary = "Returns the count of subscribers of shard channels.",
     .complexity = "O(N) for the SHARDNUMSUB subcommand, where N is the number of requested shard channels",
     .args = "[shardchannel [shardchannel ...]]"},
    {.name = "help", .proc = pubsubHelpCommand, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .group = "pubsub",
     .since = "6.2.0", .summary = "Returns helpful text about the different subcommands.", .complexity = "O(1)"},
    {0},
};

struct serverCommand pubsubCommands[] = {
    {.name = "subscribe", .proc = subscribeCommand, .arity = -2, .flags = SUBSCRIBE_FLAGS, .group = "pubsub",
     .since = "2.0.0", .summary = "Listens for messages published to channels.",
     .complexity = "O(N) where N is the number of channels to subscribe to.",
     .args = "channel [channel ...]"},
    {.name = "unsubscribe", .proc = unsubscribeCommand, .arity = -1, .flags = SUBSCRIBE_FLAGS, .group = "pubsub",
     .since = "2.0.0", .summary = "Stops listening to messages posted to channels.",
     .complexity = "O(N) where N is the number of channels to unsubscribe.",
     .args = "[channel [channel ...]]"},
    {.name = "psubscribe", .proc = psubscribeCommand, .arity = -2, .flags = SUBSCRIBE_FLAGS, .group = "pubsub",
     .since = "2.0.0", .summary = "Listens for messages published to channels that match one or more patterns.",
     .complexity = "O(N) where N is the number of patterns to subscribe to.",
     .args = "pattern [pattern ...]"},
    {.name = "punsubscribe", .proc = punsubscribeCommand, .arity = -1, .flags = SUBSCRIBE_FLAGS, .group = "pubsub",
     .since = "2.0.0", .summary = "Stops listening to messages published to channels that match one or more "
                                  "patterns.",
     .complexity = "O(N) where N is the number of patterns to unsubscribe.",
     .args = "[pattern [pattern ...]]"},
    {.name = "ssubscribe", .proc = ssubscribeCommand, .arity = -2, .flags = SUBSCRIBE_FLAGS, .key = {1, -1, 1},
     .group = "pubsub", .since = "7.0.0", .summary = "Listens for messages published to shard channels.",
     .complexity = "O(N) where N is the number of shard channels to subscribe to.",
     .args = "shardchannel [shardchannel ...]"},
    {.name = "sunsubscribe", .proc = sunsubscribeCommand, .arity = -1, .flags = SUBSCRIBE_FLAGS, .key = {1, -1, 1},
     .group = "pubsub", .since = "7.0.0", .summary = "Stops listening to messages posted to shard channels.",
     .complexity = "O(N) where N is the number of shard channels to unsubscribe.",
     .args = "[shardchannel [shardchannel ...]]"},
    {.name = "publish", .proc = publishCommand, .arity = 3,
     .flags = CMD_PUBSUB | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_MAY_REPLICATE, /* held by CLIENT PAUSE WRITE */
     .group = "pubsub", .since = "2.0.0", .summary = "Posts a message to a channel.",
     .complexity = "O(N+M) where N is the number of clients subscribed to the receiving channel and M is the total "
                   "number of subscribed patterns (by any client).",
     .args = "channel message"},
    {.name = "spublish", .proc = spublishCommand, .arity = 3,
     .flags = CMD_PUBSUB | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_MAY_REPLICATE, /* held by CLIENT PAUSE WRITE */
     .key = {1, 1, 1}, .group = "pubsub", .since = "7.0.0", .summary = "Post a message to a shard channel",
     .complexity = "O(N) where N is the number of clients subscribed to the receiving shard channel.",
     .args = "shardchannel message"},
    {.name = "pubsub", .subcommands = pubsubSubcommands, .arity = -2, .group = "pubsub", .since = "2.8.0",
     .summary = "A container for Pub/Sub commands.", .complexity = "Depends on subcommand."},
    {0},
};
