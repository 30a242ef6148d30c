/* notify.c - keyspace notifications: key events published over Pub/Sub.
 *
 * Every command that changes a key calls notifyKeyspaceEvent() with the
 * class of the event (NOTIFY_STRING, NOTIFY_GENERIC, ... in server.h), a
 * short event name ("set", "lpush", "expired") and the key. When the
 * class is enabled in notify-keyspace-events (config.c parses the letters
 * into server.notify_keyspace_events), the event is published as up to two
 * ordinary Pub/Sub messages:
 *     __keyspace@<db>__:<key>    with the event name as payload  (K)
 *     __keyevent@<db>__:<event>  with the key name as payload    (E)
 * Subscribers receive them like any other message (pubsub.c), so the
 * RESP2/RESP3 shapes and the delivery order are pubsub.c's.
 *
 * With the option empty (the default) the function returns on its first
 * test, so the hook costs one branch per modification. Events are not
 * propagated anywhere else: there are no modules to tell. */
#include "server.h"

#include "pubsub.h"

/* Publishes one event of class `type` about key in database dbid, if that
 * class and at least one of K/E are enabled. key and event stay owned by
 * the caller. Runs in the event loop, from inside commands, expiry and
 * eviction. */
void notifyKeyspaceEvent(int type, const char *event, robj *key, int dbid) {
    int flags = server.notify_keyspace_events;
    if (!(flags & type) || !(flags & (NOTIFY_KEYSPACE | NOTIFY_KEYEVENT))) return;

    robj *keyname = getDecodedObject(key);
    size_t eventlen = strlen(event);
    char dbbuf[LONG_STR_SIZE];
    int dblen = ll2string(dbbuf, sizeof(dbbuf), dbid);

    if (flags & NOTIFY_KEYSPACE) {
        sds name = sdsnewlen("__keyspace@", 11);
        name = sdscatlen(name, dbbuf, dblen);
        name = sdscatlen(name, "__:", 3);
        name = sdscatsds(name, objectGetVal(keyname));
        robj *channel = createObject(OBJ_STRING, name);
        robj *payload = createStringObject(event, eventlen);
        pubsubPublishMessage(channel, payload, 0);
        decrRefCount(channel);
        decrRefCount(payload);
    }
    if (flags & NOTIFY_KEYEVENT) {
        sds name = sdsnewlen("__keyevent@", 11);
        name = sdscatlen(name, dbbuf, dblen);
        name = sdscatlen(name, "__:", 3);
        name = sdscatlen(name, event, eventlen);
        robj *channel = createObject(OBJ_STRING, name);
        pubsubPublishMessage(channel, keyname, 0);
        decrRefCount(channel);
    }
    decrRefCount(keyname);
}
