/* cluster_route.c - which node serves a command: the one place command
 * dispatch consults the cluster's slot map.
 *
 * processCommand() (server.c) calls clusterRedirectIfNeeded() for every
 * command that has keys (or channels: SPUBLISH, SSUBSCRIBE), and for EXEC,
 * whose queue is judged as one. clusterRouteQuery() takes the command's
 * keys (getKeysFromCommand()), hashes them to their slot and decides, as
 * Valkey 8's getNodeByQuery() does:
 *   - all keys must hash to one slot (-CROSSSLOT), a slot must have an
 *     owner (-CLUSTERDOWN Hash slot not served);
 *   - with the cluster down, nothing runs (-CLUSTERDOWN The cluster is
 *     down) unless cluster-allow-reads-when-down lets reads through (writes
 *     then get "... and only accepts read commands"); sharded pub/sub has
 *     its own cluster-allow-pubsubshard-when-down;
 *   - a slot this node is migrating: keys it still has are served here;
 *     missing ones get -ASK to the target (or -TRYAGAIN when a multi-key
 *     command finds some and misses others); MIGRATE runs here;
 *   - a slot this node is importing is served to clients that sent
 *     ASKING (or RESTORE-ASKING), -TRYAGAIN for a multi-key command missing
 *     some keys;
 *   - a replica serves reads of its primary's slots to READONLY clients;
 *   - otherwise the slot's owner serves it: -MOVED <slot> <endpoint>:<port>
 *     when that is another node (the endpoint cluster-preferred-endpoint-
 *     type says, the TLS port to a TLS client).
 * Commands never talk to the bus: they only read the slot map cluster.c
 * keeps. Our primary's replication stream is never redirected.
 *
 * Transactions: a command refused while queueing marks the transaction
 * (EXEC then answers EXECABORT); a refused EXEC drops it (multi.c's
 * multiCommandRedirected()), as Valkey does. ASKING lasts for one command
 * (or one transaction), cleared by clusterAfterCommand().
 *
 * Scripts and functions: their declared keys are judged as any command's
 * keys before they run; each command they run is judged again
 * (clusterScriptCommandDenied(), from script_lua.c): it must be served
 * here, and touch the declared keys' slot (or the slot of the first keys
 * it touched), unless the script declares allow-cross-slot-keys.
 *
 * Blocked clients: clusterCron() offers every client blocked on keys to
 * clusterRedirectBlockedClient() (through blocked.c), so that a client
 * waiting on a slot that moved gets -MOVED (or -CLUSTERDOWN) within a
 * cron period instead of waiting for a write that will never come here.
 *
 * Left for later steps: per-command slot statistics. Main thread only. */
#include "cluster.h"
#include "multi.h"

#include <string.h>

void execCommand(client *c);    /* multi.c */
void askingCommand(client *c);  /* cluster_cmd.c */

/* What clusterRouteQuery() gathered about a command's keys. */
typedef struct routeKeys {
    int slot;            /* -1 until the first key */
    robj *firstkey;      /* borrowed from the command's argv */
    clusterNode *node;   /* the owner of slot */
    int migrating;       /* this node owns slot and is migrating it */
    int importing;       /* this node is importing slot */
    int multiple_keys;   /* distinct keys in an open (migrating/importing) slot */
    int missing_keys;    /* keys of an open slot this node lacks */
    int existing_keys;   /* keys of an open slot this node has */
    int pubsubshard;     /* a sharded pub/sub command is among them */
} routeKeys;

/* Adds the keys of one command (cmd, argv, argc) to rk. Returns
 * CLUSTER_ROUTE_OK, or the error that stops the query (CROSSSLOT, an
 * unserved slot). */
static int routeAddCommandKeys(routeKeys *rk, struct serverCommand *cmd, robj **argv, int argc) {
    int stack[32];
    int *keys = argc <= 32 ? stack : zmalloc(sizeof(int) * (size_t)argc);
    int n = getKeysFromCommand(cmd, argv, argc, keys, argc);
    int result = CLUSTER_ROUTE_OK;
    if (n > 0 && (cmd->flags & CMD_PUBSUB)) rk->pubsubshard = 1;
    for (int j = 0; j < n && result == CLUSTER_ROUTE_OK; j++) {
        robj *key = argv[keys[j]];
        sds name = objectGetVal(key);
        int slot = (int)keyHashSlot(name, sdslen(name));
        if (rk->slot < 0) {
            rk->slot = slot;
            rk->firstkey = key;
            rk->node = server.cluster->slots[slot];
            if (rk->node == NULL) {
                result = CLUSTER_ROUTE_DOWN_UNBOUND;
                break;
            }
            if (rk->node == server.cluster->myself && server.cluster->migrating_slots_to[slot])
                rk->migrating = 1;
            else if (server.cluster->importing_slots_from[slot])
                rk->importing = 1;
        } else if (slot != rk->slot) {
            result = CLUSTER_ROUTE_CROSS_SLOT;
            break;
        } else if ((rk->migrating || rk->importing) && sdscmp(name, objectGetVal(rk->firstkey)) != 0) {
            rk->multiple_keys = 1;
        }
        if (rk->migrating || rk->importing) {
            if (dbFind(&server.db[0], name) == NULL)
                rk->missing_keys++;
            else
                rk->existing_keys++;
        }
    }
    if (keys != stack) zfree(keys);
    return result;
}

/* The decision once rk holds every key: flags are the command's (EXEC's
 * queue's, a script's), c gives ASKING and READONLY. See clusterRouteQuery(). */
static clusterNode *routeDecide(client *c, const routeKeys *rk, uint64_t flags, int is_migrate, int *slot,
                                int *result) {
    clusterNode *myself = server.cluster->myself;
    if (rk->node == NULL) return myself; /* no keys: any node serves it */
    if (server.cluster->state != CLUSTER_OK) {
        if (rk->pubsubshard) {
            if (!server.cluster_allow_pubsubshard_when_down) *result = CLUSTER_ROUTE_DOWN_STATE;
        } else if (!server.cluster_allow_reads_when_down) {
            *result = CLUSTER_ROUTE_DOWN_STATE;
        } else if (flags & CMD_WRITE) {
            *result = CLUSTER_ROUTE_DOWN_RO_STATE;
        }
        if (*result != CLUSTER_ROUTE_OK) return NULL;
    }
    *slot = rk->slot;

    if ((rk->migrating || rk->importing) && is_migrate) return myself;
    if (rk->migrating && rk->missing_keys) {
        if (rk->existing_keys) {
            *result = CLUSTER_ROUTE_TRYAGAIN;
            return NULL;
        }
        *result = CLUSTER_ROUTE_ASK;
        return server.cluster->migrating_slots_to[rk->slot];
    }
    if (rk->importing && ((c->flags & CLIENT_ASKING) || (flags & CMD_ASKING))) {
        if (rk->multiple_keys && rk->missing_keys) {
            *result = CLUSTER_ROUTE_TRYAGAIN;
            return NULL;
        }
        return myself;
    }
    /* A replica serves its primary's slots to READONLY clients (and
     * sharded subscribers), reads only. */
    if (((c->flags & CLIENT_READONLY) || rk->pubsubshard) && !(flags & CMD_WRITE) && clusterNodeIsReplica(myself) &&
        myself->replicaof == rk->node)
        return myself;
    if (rk->node != myself) *result = CLUSTER_ROUTE_MOVED;
    return rk->node;
}

/* See cluster.h. */
clusterNode *clusterRouteQuery(client *c, int *slot, int *result) {
    routeKeys rk = {.slot = -1};
    *slot = -1;
    *result = CLUSTER_ROUTE_OK;
    int err = CLUSTER_ROUTE_OK;
    if (c->cmd->proc == execCommand) {
        struct serverCommand *cmd;
        robj **argv;
        int argc;
        for (int j = 0; err == CLUSTER_ROUTE_OK && multiQueuedCommand(c, j, &cmd, &argv, &argc); j++)
            err = routeAddCommandKeys(&rk, cmd, argv, argc);
    } else {
        err = routeAddCommandKeys(&rk, c->cmd, c->argv, c->argc);
    }
    if (err != CLUSTER_ROUTE_OK) {
        *result = err;
        return NULL;
    }
    return routeDecide(c, &rk, multiEffectiveCommandFlags(c), !strcmp(c->cmd->name, "migrate"), slot, result);
}

/* See cluster.h. Valkey 8's texts (script.c's checks of a command a script
 * runs). */
const char *clusterScriptCommandDenied(client *caller, struct serverCommand *cmd, robj **argv, int argc,
                                       int allow_cross_slot, int *script_slot) {
    routeKeys rk = {.slot = -1};
    int slot = -1, result = routeAddCommandKeys(&rk, cmd, argv, argc);
    clusterNode *n = NULL;
    if (result == CLUSTER_ROUTE_OK) n = routeDecide(caller, &rk, cmd->flags, !strcmp(cmd->name, "migrate"), &slot, &result);
    if (n != server.cluster->myself) {
        if (result == CLUSTER_ROUTE_DOWN_RO_STATE)
            return "ERR Script attempted to execute a write command while the cluster is down and readonly";
        if (result == CLUSTER_ROUTE_DOWN_STATE) return "ERR Script attempted to execute a command while the cluster is down";
        return "ERR Script attempted to access a non local key in a cluster node";
    }
    if (slot != -1 && !allow_cross_slot) {
        if (*script_slot == -1)
            *script_slot = slot;
        else if (*script_slot != slot)
            return "ERR Script attempted to access keys that do not hash to the same slot";
    }
    return NULL;
}

/* See cluster.h. */
int clusterCommandKeysSlot(struct serverCommand *cmd, robj **argv, int argc) {
    routeKeys rk = {.slot = -1};
    if (routeAddCommandKeys(&rk, cmd, argv, argc) != CLUSTER_ROUTE_OK) return -1;
    return rk.slot;
}

/* See cluster.h. Valkey 8's texts. */
void clusterRedirectClient(client *c, clusterNode *n, int slot, int result) {
    switch (result) {
    case CLUSTER_ROUTE_CROSS_SLOT:
        addReplyError(c, "-CROSSSLOT Keys in request don't hash to the same slot");
        break;
    case CLUSTER_ROUTE_TRYAGAIN:
        addReplyError(c, "-TRYAGAIN Multiple keys request during rehashing of slot");
        break;
    case CLUSTER_ROUTE_DOWN_STATE: addReplyError(c, "-CLUSTERDOWN The cluster is down"); break;
    case CLUSTER_ROUTE_DOWN_RO_STATE:
        addReplyError(c, "-CLUSTERDOWN The cluster is down and only accepts read commands");
        break;
    case CLUSTER_ROUTE_DOWN_UNBOUND: addReplyError(c, "-CLUSTERDOWN Hash slot not served"); break;
    case CLUSTER_ROUTE_MOVED:
    case CLUSTER_ROUTE_ASK: {
        int use_tls = c->conn && !strcmp(connGetType(c->conn), CONN_NAME_TLS);
        addReplyErrorSds(c, sdscatprintf(sdsempty(), "-%s %d %s:%d", result == CLUSTER_ROUTE_ASK ? "ASK" : "MOVED",
                                         slot, clusterNodePreferredEndpoint(n), clusterNodeClientPort(n, use_tls)));
        break;
    }
    default: serverPanic("clusterRedirectClient: unknown result %d", result);
    }
}

/* See cluster.h. */
int clusterRedirectIfNeeded(client *c) {
    if (c->flags & CLIENT_PRIMARY) return 0; /* our primary's stream runs as sent */
    int slot, result;
    clusterNode *n = clusterRouteQuery(c, &slot, &result);
    if (n == server.cluster->myself) return 0;
    c->cmd->rejected_calls++;
    multiCommandRedirected(c);
    clusterRedirectClient(c, n, slot, result);
    return 1;
}

/* See cluster.h. As Valkey, with the cluster down even a READONLY read is
 * refused: the write that would serve it may never come. */
int clusterRedirectBlockedClient(client *c, robj *firstkey) {
    clusterNode *myself = server.cluster->myself;
    if (server.cluster->state != CLUSTER_OK) {
        clusterRedirectClient(c, NULL, 0, CLUSTER_ROUTE_DOWN_STATE);
        return 1;
    }
    sds name = objectGetVal(firstkey);
    int slot = (int)keyHashSlot(name, sdslen(name));
    clusterNode *n = server.cluster->slots[slot];
    int is_write = c->lastcmd && (c->lastcmd->flags & CMD_WRITE);
    if ((c->flags & CLIENT_READONLY) && !is_write && clusterNodeIsReplica(myself) && myself->replicaof == n)
        return 0;
    if (n == myself || server.cluster->importing_slots_from[slot]) return 0;
    clusterRedirectClient(c, n, slot, n ? CLUSTER_ROUTE_MOVED : CLUSTER_ROUTE_DOWN_UNBOUND);
    return 1;
}

/* See cluster.h. */
void clusterAfterCommand(client *c, struct serverCommand *cmd) {
    if ((c->flags & CLIENT_ASKING) && !(c->flags & CLIENT_MULTI) && (cmd == NULL || cmd->proc != askingCommand))
        c->flags &= ~CLIENT_ASKING;
}
