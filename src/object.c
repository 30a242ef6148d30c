/* object.c - the server object (robj): creation, reference counting,
 * string encodings, number parsing from arguments, and the OBJECT and
 * MEMORY commands.
 *
 * Every value in the keyspace and every command argument is an robj. A
 * string is stored in one of three encodings:
 *   INT     the value pointer holds a long directly (no allocation);
 *   EMBSTR  header and sds share one allocation, with no value pointer
 *           (short, read-only);
 *   RAW     the value pointer points to a separately allocated sds (can
 *           grow in place).
 * Everything reads a value with objectGetVal() and writes one with
 * objectSetVal() (server.h), which know where each encoding keeps it.
 * tryObjectEncoding() picks the smallest one. Small integers (0..9999) are
 * shared objects unless an LRU/LFU maxmemory policy needs per-key metadata.
 *
 * A value stored in the keyspace carries its key, and its expire time when
 * it has one, in the same allocation (objectSetKeyAndExpire(), layout in
 * server.h): the keyspace table's entries are these objects themselves.
 * Such an object is never shared: a shared or multiply referenced value
 * put in the db is copied.
 *
 * Types other than strings register how they are freed, sized, duplicated
 * and digested in objectMethods[]; this file never needs to know their
 * internals. */
#include "server.h"

#include "aof.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>

objectTypeMethods objectMethods[OBJ_TYPE_MAX];

/* ---------------------------------------------------------------------------
 * Creation
 * ------------------------------------------------------------------------- */

/* A new object of the given type owning ptr, refcount 1, its access field
 * (lru) not set yet. */
static inline robj *objectNew(int type, void *ptr) {
    robj *o = zmalloc(sizeof(*o));
    o->type = type;
    o->encoding = OBJ_ENCODING_RAW;
    objectSetVal(o, ptr);
    o->hasexpire = 0;
    o->hasembkey = 0;
    o->refcount = 1;
    return o;
}

/* Returns a new object of the given type owning ptr, refcount 1. */
robj *createObject(int type, void *ptr) {
    robj *o = objectNew(type, ptr);
    initObjectAccess(o);
    return o;
}

robj *createRawStringObject(const char *ptr, size_t len) {
    return createObject(OBJ_STRING, sdsnewlen(ptr, len));
}

/* One allocation for the 8-byte header + sdshdr8 + bytes + NUL (no value
 * pointer: objectGetVal() finds the sds after the header). ptr NULL leaves
 * the bytes zeroed; SDS_NOINIT leaves them uninitialised. The access field
 * is the caller's to set. */
static inline robj *embstrNew(const char *ptr, size_t len) {
    size_t total = OBJ_HEADER_SIZE + sizeof(struct sdshdr8) + len + 1;
    size_t usable;
    robj *o = zmalloc_usable(total, &usable);
    struct sdshdr8 *sh = (void *)((char *)o + OBJ_HEADER_SIZE);
    o->type = OBJ_STRING;
    o->encoding = OBJ_ENCODING_EMBSTR;
    o->hasexpire = 0;
    o->hasembkey = 0;
    o->refcount = 1;
    size_t spare = usable - total;
    if (len + spare > 255) spare = 255 - len;
    sh->len = len;
    sh->alloc = len + spare;
    sh->flags = SDS_TYPE_8;
    if (ptr == SDS_NOINIT) {
        sh->buf[len] = '\0';
    } else if (ptr) {
        memcpy(sh->buf, ptr, len);
        sh->buf[len] = '\0';
    } else {
        memset(sh->buf, 0, len + 1);
    }
    return o;
}

/* See embstrNew(): an EMBSTR string object, accessed now. */
robj *createEmbeddedStringObject(const char *ptr, size_t len) {
    robj *o = embstrNew(ptr, len);
    initObjectAccess(o);
    return o;
}

/* The usual way to make a string value: EMBSTR when short, else RAW. */
robj *createStringObject(const char *ptr, size_t len) {
    if (len <= OBJ_ENCODING_EMBSTR_SIZE_LIMIT) return createEmbeddedStringObject(ptr, len);
    return createRawStringObject(ptr, len);
}

/* Like createObject() and createStringObject(), but the access field (lru)
 * is left 0 and no server state is read: for I/O threads, which parse
 * arguments off the main thread (networking.c). The main thread stamps it
 * with initObjectAccess() before the object is used. */
robj *createObjectUnstamped(int type, void *ptr) {
    robj *o = objectNew(type, ptr);
    o->lru = 0;
    return o;
}

robj *createStringObjectUnstamped(const char *ptr, size_t len) {
    if (len <= OBJ_ENCODING_EMBSTR_SIZE_LIMIT) {
        robj *o = embstrNew(ptr, len);
        o->lru = 0;
        return o;
    }
    return createObjectUnstamped(OBJ_STRING, sdsnewlen(ptr, len));
}

/* 1 if values may be the shared integer objects: not under maxmemory with
 * an LRU or LFU policy, where each value needs its own access clock (as
 * Valkey decides it). Called by db.c too, which unshares such values. */
int sharedIntegersUsable(void) {
    return server.maxmemory == 0 || !(server.maxmemory_policy & (MAXMEMORY_FLAG_LRU | MAXMEMORY_FLAG_LFU));
}

static robj *createStringObjectFromLongLongWithOptions(long long value, int allow_shared) {
    if (allow_shared && value >= 0 && value < OBJ_SHARED_INTEGERS && sharedIntegersUsable()) {
        incrRefCount(shared.integers[value]);
        return shared.integers[value];
    }
    robj *o;
    if (value >= LONG_MIN && value <= LONG_MAX) {
        o = createObject(OBJ_STRING, NULL);
        o->encoding = OBJ_ENCODING_INT;
        objectSetVal(o, (void *)((long)value));
    } else {
        o = createObject(OBJ_STRING, sdsfromlonglong(value));
    }
    return o;
}

robj *createStringObjectFromLongLong(long long value) {
    return createStringObjectFromLongLongWithOptions(value, 1);
}

/* For values stored in the keyspace: never shared when a maxmemory policy
 * needs per-object LRU/LFU data. */
robj *createStringObjectFromLongLongForValue(long long value) {
    return createStringObjectFromLongLongWithOptions(value, sharedIntegersUsable());
}

robj *createStringObjectFromLongDouble(long double value, int humanfriendly) {
    char buf[MAX_LONG_DOUBLE_CHARS];
    int len = ld2string(buf, sizeof(buf), value, humanfriendly ? LD_STR_HUMAN : LD_STR_AUTO);
    return createStringObject(buf, len);
}

/* Returns an unshared copy of a string object, same encoding. */
robj *dupStringObject(const robj *o) {
    switch (o->encoding) {
    case OBJ_ENCODING_RAW: return createRawStringObject(objectGetVal(o), sdslen(objectGetVal(o)));
    case OBJ_ENCODING_EMBSTR: return createEmbeddedStringObject(objectGetVal(o), sdslen(objectGetVal(o)));
    case OBJ_ENCODING_INT: {
        robj *d = createObject(OBJ_STRING, NULL);
        d->encoding = OBJ_ENCODING_INT;
        objectSetVal(d, objectGetVal(o));
        return d;
    }
    default: serverPanic("Wrong encoding.");
    }
}

/* Marks o as shared: refcount changes become no-ops. */
robj *makeObjectShared(robj *o) {
    serverAssert(o->refcount == 1);
    o->refcount = OBJ_SHARED_REFCOUNT;
    return o;
}

/* ---------------------------------------------------------------------------
 * Objects with an embedded key (keyspace entries)
 *
 * Layout of every object, in order (server.h): the 8-byte header; the
 * value: for EMBSTR the sds itself (sdshdr8, bytes, NUL), for every other
 * encoding val_ptr (8 bytes); the expire time (8 bytes) if hasexpire; for
 * a keyspace entry the key (one byte: size of the key's sds header; the
 * key's sds header, bytes, NUL). Keys shorter than 32 bytes use the
 * one-byte sds header.
 *
 * Why no value pointer for any EMBSTR, in the keyspace or not: one rule
 * ("EMBSTR => no val_ptr") that objectGetVal() decides from the encoding
 * alone, with no offset stored anywhere, and arguments and replies are 8
 * bytes smaller too. Why the value first, always with an sdshdr8: its sds
 * then starts at a fixed offset (11 bytes), so every argument parse and
 * GET reply reads it with one compare and one add; the expire time and
 * the key, read on lookups, cost one more byte load (the value's length).
 *
 * A 16-byte key with a 16-byte value takes 8 + 20 + 19 = 47 bytes (the
 * 48-byte jemalloc class), a 10-byte key 41 (48); with an expire 55 and
 * 49 (64). A value longer than OBJ_ENCODING_EMBSTR_SIZE_LIMIT is RAW and
 * keeps its pointer. Nothing changes an object's encoding from or to
 * EMBSTR in place (the layout depends on it): such changes make a new
 * object (tryObjectEncoding(), dbUnshareStringValue()).
 * ------------------------------------------------------------------------- */

/* Where o's expire slot is (when hasexpire): right after the value, the
 * embedded sds of an EMBSTR or val_ptr. */
static inline char *objectExpireArea(const robj *o) {
    if (objectIsEmbstr(o)) {
        const struct sdshdr8 *sh = (const void *)((const char *)o + OBJ_HEADER_SIZE);
        return (char *)sh->buf + sh->len + 1;
    }
    return (char *)o + sizeof(robj);
}

/* Where o's embedded key starts (its header-size byte): after the value
 * and the expire slot. */
static inline unsigned char *objectKeyArea(const robj *o) {
    return (unsigned char *)objectExpireArea(o) + (o->hasexpire ? sizeof(long long) : 0);
}

/* Returns o's embedded key (an sds owned by o: never free or grow it), or
 * NULL for an object outside the keyspace. */
sds objectGetKey(const robj *o) {
    if (!o->hasembkey) return NULL;
    unsigned char *p = objectKeyArea(o);
    return (sds)(p + 1 + p[0]);
}

/* objectGetKey() as the keyspace hashtables' entryGetKey callback. */
const void *objectGetKeyVoid(const void *o) {
    unsigned char *p = objectKeyArea(o);
    return p + 1 + p[0];
}

/* Returns o's expire time (unix ms), or -1 when it has none. */
long long objectGetExpire(const robj *o) {
    if (!o->hasexpire) return -1;
    long long when;
    memcpy(&when, objectExpireArea(o), sizeof(when));
    return when;
}

/* Writes the key at p (see the layout above); returns the bytes used. */
static size_t objectWriteKey(char *p, const char *key, size_t keylen) {
    if (keylen < 32) {
        p[0] = 1;
        p[1] = (char)(SDS_TYPE_5 | (keylen << SDS_TYPE_BITS));
        memcpyShort(p + 2, key, keylen);
        p[2 + keylen] = '\0';
        return 3 + keylen;
    }
    size_t hdr = sdsEmbeddedSize(keylen) - keylen - 1;
    p[0] = (char)hdr;
    sdsnewInBuffer(p + 1, key, keylen);
    return 1 + hdr + keylen + 1;
}

/* The bytes objectWriteKey() needs. */
static size_t objectKeySize(size_t keylen) {
    return keylen < 32 ? 3 + keylen : 1 + sdsEmbeddedSize(keylen);
}

/* The bytes an embedded EMBSTR value of vlen bytes takes: sdshdr8, bytes,
 * NUL. */
static size_t objectValueSize(size_t vlen) {
    return sizeof(struct sdshdr8) + vlen + 1;
}

/* Writes an EMBSTR value at p (objectValueSize(vlen) bytes, no spare
 * room: the value is read-only). */
static void objectWriteValue(char *p, const char *v, size_t vlen) {
    struct sdshdr8 *sh = (struct sdshdr8 *)p;
    sh->len = (uint8_t)vlen;
    sh->alloc = (uint8_t)vlen;
    sh->flags = SDS_TYPE_8;
    memcpyShort((char *)sh->buf, v, vlen);
    sh->buf[vlen] = '\0';
}

/* The request size of keyspace entry o's block, from its layout. */
static size_t objectEmbeddedRequestSize(const robj *o) {
    size_t keylen = sdslen(objectGetKey(o));
    size_t size = OBJ_HEADER_SIZE + (o->hasexpire ? sizeof(long long) : 0) + objectKeySize(keylen);
    if (o->encoding == OBJ_ENCODING_EMBSTR) size += objectValueSize(sdslen(objectGetVal(o)));
    else size += sizeof(void *);
    return size;
}

/* Frees the block of an object whose payload is gone or moved. Outside
 * the keyspace only an EMBSTR string has a block of its own size; every
 * other object is createObject()'s bare header. */
static void objectFreeBlock(robj *o) {
    if (o->hasembkey) zfree_requested(o, objectEmbeddedRequestSize(o));
    else if (o->encoding != OBJ_ENCODING_EMBSTR) zfree_requested(o, sizeof(*o));
    else zfree(o);
}

/* Writes the EMBSTR string val over the embedded EMBSTR value of keyspace
 * entry o, when the new layout needs the
 * same allocator size class, so a SET that overwrites a short string with
 * another allocates nothing. Returns 1 if done (val is untouched, o keeps
 * its key, expire and identity), 0 if o must be replaced instead. */
int objectOverwriteEmbeddedValue(robj *o, robj *val) {
    if (o->refcount != 1 || !o->hasembkey || o->encoding != OBJ_ENCODING_EMBSTR) return 0;
    /* Only an EMBSTR val: a RAW one is what dbUnshareStringValue() stores
     * to modify it in place, it must stay a separate sds. */
    if (val->type != OBJ_STRING || val->encoding != OBJ_ENCODING_EMBSTR) return 0;
    size_t vlen = sdslen(objectGetVal(val)), oldlen = sdslen(objectGetVal(o));
    if (vlen == oldlen) { /* the common case: same layout */
        memcpyShort(objectGetVal(o), objectGetVal(val), vlen);
        return 1;
    }
    size_t oldsize = objectEmbeddedRequestSize(o);
    size_t newsize = oldsize - objectValueSize(oldlen) + objectValueSize(vlen);
    if (zmalloc_good_size(newsize) != zmalloc_good_size(oldsize)) return 0;
    /* The expire slot and the key follow the value: move them to where the
     * new value ends. */
    char *tail = objectExpireArea(o);
    size_t tailsize = (o->hasexpire ? sizeof(long long) : 0) + objectKeySize(sdslen(objectGetKey(o)));
    char *area = (char *)objectGetVal(o) - sizeof(struct sdshdr8);
    memmove(area + objectValueSize(vlen), tail, tailsize);
    objectWriteValue(area, objectGetVal(val), vlen);
    return 1;
}

/* Moves the bytes of the RAW string val into keyspace entry o, a string
 * without an embedded value (RAW or INT), so that a SET of a long string
 * over another allocates nothing: o's old bytes are freed and so is val's
 * header. Only when o and val have no other owner (refcount 1: clients'
 * arguments, MULTI queues and replies hold references). Returns 1 if done
 * (val's reference is consumed; o keeps its key, expire and identity), 0
 * if o must be replaced instead (val untouched). */
int objectTakeRawValue(robj *o, robj *val) {
    if (o->refcount != 1 || !o->hasembkey || o->type != OBJ_STRING ||
        (o->encoding != OBJ_ENCODING_RAW && o->encoding != OBJ_ENCODING_INT))
        return 0;
    if (val->refcount != 1 || val->hasembkey || val->type != OBJ_STRING || val->encoding != OBJ_ENCODING_RAW) return 0;
    if (o->encoding == OBJ_ENCODING_RAW) sdsfree(objectGetVal(o));
    o->encoding = OBJ_ENCODING_RAW;
    objectSetVal(o, objectGetVal(val));
    objectFreeBlock(val);
    return 1;
}

/* Makes the keyspace entry for val under key: a new allocation holding the
 * header, the value (embedded for an EMBSTR string, else its pointer), the
 * expire slot (when expire_slot; expire -1 means no TTL yet) and the key.
 * Takes the caller's reference to val: when it was the only one, the value's payload moves to
 * the new object and val's block is freed (val may itself be a keyspace
 * entry, whose key may be the one passed); when val is shared or has other
 * owners, the value is copied and val's reference dropped, so other owners
 * keep the old object. Returns the new object, refcount 1, with val's
 * type, encoding and LRU/LFU data. */
static robj *objectNewEntry(robj *val, const char *key, size_t keylen, int expire_slot, long long expire, int take) {
    int embed_value = val->type == OBJ_STRING && val->encoding == OBJ_ENCODING_EMBSTR;
    size_t vlen = embed_value ? sdslen(objectGetVal(val)) : 0;
    size_t total = OBJ_HEADER_SIZE + (expire_slot ? sizeof(long long) : 0) + objectKeySize(keylen) +
                   (embed_value ? objectValueSize(vlen) : sizeof(void *));
    robj *o = zmalloc(total);
    o->type = val->type;
    o->encoding = val->encoding;
    o->lru = val->lru;
    o->hasexpire = expire_slot ? 1 : 0;
    o->hasembkey = 1;
    o->refcount = 1;
    char *p = (char *)o + OBJ_HEADER_SIZE;
    int sole_owner = take && val->refcount == 1;
    if (embed_value) {
        objectWriteValue(p, objectGetVal(val), vlen);
        p += objectValueSize(vlen);
    } else {
        if (sole_owner || (val->type == OBJ_STRING && val->encoding == OBJ_ENCODING_INT)) {
            objectSetVal(o, objectGetVal(val)); /* moved (or an integer: nothing to own) */
        } else if (val->type == OBJ_STRING) {
            objectSetVal(o, sdsdup(objectGetVal(val)));
        } else {
            robj *copy = objectMethods[val->type].dup(val);
            o->encoding = copy->encoding;
            objectSetVal(o, objectGetVal(copy));
            zfree(copy);
        }
        p += sizeof(void *);
    }
    if (expire_slot) {
        memcpy(p, &expire, sizeof(expire));
        p += sizeof(expire);
    }
    objectWriteKey(p, key, keylen);
    if (sole_owner) objectFreeBlock(val); /* the payload moved or was copied */
    else if (take) decrRefCount(val);
    return o;
}

robj *objectSetKeyAndExpire(robj *val, const char *key, size_t keylen, int expire_slot, long long expire) {
    return objectNewEntry(val, key, keylen, expire_slot, expire, 1);
}

/* objectSetKeyAndExpire() that leaves val and its reference to the caller:
 * the new entry gets a copy of the value (SET of a client's argument). */
robj *objectCopyWithKey(robj *val, const char *key, size_t keylen, int expire_slot, long long expire) {
    return objectNewEntry(val, key, keylen, expire_slot, expire, 0);
}

/* Sets the expire time (unix ms, or -1 for none) of the keyspace entry o.
 * Returns o when it has the slot already; otherwise a reallocated object
 * (objectSetKeyAndExpire(): o's reference is consumed), which the caller
 * must put in the keyspace tables in o's place. */
robj *objectSetExpire(robj *o, long long when) {
    serverAssert(o->hasembkey);
    if (o->hasexpire) {
        memcpy(objectExpireArea(o), &when, sizeof(when));
        return o;
    }
    sds key = objectGetKey(o);
    return objectSetKeyAndExpire(o, key, sdslen(key), 1, when);
}

/* ---------------------------------------------------------------------------
 * Reference counting
 * ------------------------------------------------------------------------- */

void incrRefCount(robj *o) {
    if (o->refcount < OBJ_STATIC_REFCOUNT) o->refcount++;
}

void freeStringObject(robj *o) {
    if (o->encoding == OBJ_ENCODING_RAW) sdsfree(objectGetVal(o));
}

/* Drops one reference; frees the object (and its value) at zero. */
void decrRefCount(robj *o) {
    if (o->refcount == 1) {
        if (o->encoding == OBJ_ENCODING_EMBSTR && !o->hasembkey) {
            /* createEmbeddedStringObject() gave the sds all the block's
             * spare bytes, so its alloc tells the block's usable size
             * unless it was capped at 255. */
            struct sdshdr8 *sh = (struct sdshdr8 *)((char *)objectGetVal(o) - sizeof(struct sdshdr8));
            if (sh->alloc < 255) {
                zfree_with_size(o, OBJ_HEADER_SIZE + sizeof(struct sdshdr8) + sh->alloc + 1);
                return;
            }
        }
        if (o->type == OBJ_STRING) {
            freeStringObject(o);
        } else if (o->type < OBJ_TYPE_MAX && objectMethods[o->type].free) {
            objectMethods[o->type].free(o);
        } else {
            serverPanic("Unknown object type %d", o->type);
        }
        objectFreeBlock(o);
    } else if (o->refcount <= 0) {
        serverPanic("decrRefCount against refcount <= 0");
    } else if (o->refcount < OBJ_STATIC_REFCOUNT) {
        o->refcount--;
    }
}

void decrRefCountVoid(void *o) {
    decrRefCount(o);
}

robj *resetRefCount(robj *obj) {
    obj->refcount = 0;
    return obj;
}

/* ---------------------------------------------------------------------------
 * String encodings
 * ------------------------------------------------------------------------- */

/* Shrinks a RAW string with much spare room (e.g. an argument read in a
 * 16 KiB query buffer) so that storing it does not waste memory; spare
 * room that is only the allocator's rounding stays (sdsCanShrink()). */
void trimStringObjectIfNeeded(robj *o, int trim_small_values) {
    if (o->encoding != OBJ_ENCODING_RAW) return;
    size_t len = sdslen(objectGetVal(o));
    if ((sdsavail(objectGetVal(o)) > len / 10 ||
         (trim_small_values && len < PROTO_MBULK_BIG_ARG && sdsavail(objectGetVal(o)))) &&
        sdsCanShrink(objectGetVal(o)))
        objectSetVal(o, sdsRemoveFreeSpace(objectGetVal(o), 0));
}

/* Re-encodes a string object in the most compact form. May return a
 * different object (the old one's reference is then released). */
robj *tryObjectEncoding(robj *o) {
    if (o->type != OBJ_STRING || !sdsEncodedObject(o)) return o;
    if (o->refcount > 1) return o; /* Shared: others see it, don't touch. */

    sds s = objectGetVal(o);
    size_t len = sdslen(s);
    long value;
    if (len <= 20 && string2l(s, len, &value)) {
        if (value >= 0 && value < OBJ_SHARED_INTEGERS && sharedIntegersUsable()) {
            decrRefCount(o);
            incrRefCount(shared.integers[value]);
            return shared.integers[value];
        }
        if (o->encoding == OBJ_ENCODING_RAW) {
            sdsfree(objectGetVal(o));
            o->encoding = OBJ_ENCODING_INT;
            objectSetVal(o, (void *)value);
            return o;
        }
        decrRefCount(o);
        return createStringObjectFromLongLongForValue(value);
    }
    if (len <= OBJ_ENCODING_EMBSTR_SIZE_LIMIT) {
        if (o->encoding == OBJ_ENCODING_EMBSTR) return o;
        robj *emb = createEmbeddedStringObject(s, len);
        decrRefCount(o);
        return emb;
    }
    trimStringObjectIfNeeded(o, 0);
    return o;
}

/* Returns a new reference to a string object whose value (objectGetVal()) is an sds. */
robj *getDecodedObject(robj *o) {
    if (sdsEncodedObject(o)) {
        incrRefCount(o);
        return o;
    }
    if (o->type == OBJ_STRING && o->encoding == OBJ_ENCODING_INT) {
        char buf[32];
        ll2string(buf, sizeof(buf), (long)objectGetVal(o));
        return createStringObject(buf, strlen(buf));
    }
    serverPanic("Unknown encoding type");
}

size_t stringObjectLen(robj *o) {
    if (sdsEncodedObject(o)) return sdslen(objectGetVal(o));
    return sdigits10((long)objectGetVal(o));
}

/* Binary comparison of two string objects (memcmp order, or strcoll with
 * collate). */
static int compareStringObjectsWithFlags(const robj *a, const robj *b, int collate) {
    char bufa[128], bufb[128];
    const char *astr, *bstr;
    size_t alen, blen;
    if (a == b) return 0;
    if (sdsEncodedObject(a)) {
        astr = objectGetVal(a);
        alen = sdslen((sds)astr);
    } else {
        alen = ll2string(bufa, sizeof(bufa), (long)objectGetVal(a));
        astr = bufa;
    }
    if (sdsEncodedObject(b)) {
        bstr = objectGetVal(b);
        blen = sdslen((sds)bstr);
    } else {
        blen = ll2string(bufb, sizeof(bufb), (long)objectGetVal(b));
        bstr = bufb;
    }
    if (collate) return strcoll(astr, bstr);
    size_t minlen = alen < blen ? alen : blen;
    int cmp = memcmp(astr, bstr, minlen);
    if (cmp == 0) return alen < blen ? -1 : (alen > blen ? 1 : 0);
    return cmp;
}

int compareStringObjects(const robj *a, const robj *b) {
    return compareStringObjectsWithFlags(a, b, 0);
}

int collateStringObjects(const robj *a, const robj *b) {
    return compareStringObjectsWithFlags(a, b, 1);
}

int equalStringObjects(robj *a, robj *b) {
    if (a->encoding == OBJ_ENCODING_INT && b->encoding == OBJ_ENCODING_INT) return objectGetVal(a) == objectGetVal(b);
    return compareStringObjects(a, b) == 0;
}

/* ---------------------------------------------------------------------------
 * Numbers from arguments
 * ------------------------------------------------------------------------- */

/* Returns 1 if the type matches, else replies WRONGTYPE and returns 1... no:
 * returns 1 on mismatch (after replying), 0 when o has the given type. */
int checkType(client *c, robj *o, int type) {
    if (o && o->type != type) {
        addReplyErrorObject(c, shared.wrongtypeerr);
        return 1;
    }
    return 0;
}

int getLongLongFromObject(robj *o, long long *target) {
    long long value;
    if (o == NULL) {
        value = 0;
    } else {
        serverAssert(o->type == OBJ_STRING);
        if (sdsEncodedObject(o)) {
            if (string2ll(objectGetVal(o), sdslen(objectGetVal(o)), &value) == 0) return C_ERR;
        } else if (o->encoding == OBJ_ENCODING_INT) {
            value = (long)objectGetVal(o);
        } else {
            serverPanic("Unknown string encoding");
        }
    }
    if (target) *target = value;
    return C_OK;
}

int stringObjectAsLongLong(robj *o, long long *target) {
    return getLongLongFromObject(o, target);
}

int getLongLongFromObjectOrReply(client *c, robj *o, long long *target, const char *msg) {
    long long value;
    if (getLongLongFromObject(o, &value) != C_OK) {
        if (msg) addReplyError(c, msg);
        else addReplyError(c, "value is not an integer or out of range");
        return C_ERR;
    }
    *target = value;
    return C_OK;
}

int getRangeLongFromObjectOrReply(client *c, robj *o, long min, long max, long *target, const char *msg) {
    long long value;
    if (getLongLongFromObjectOrReply(c, o, &value, msg) != C_OK) return C_ERR;
    if (value < min || value > max) {
        if (msg) addReplyError(c, msg);
        else addReplyErrorFormat(c, "value is out of range, must be between %ld and %ld", min, max);
        return C_ERR;
    }
    *target = value;
    return C_OK;
}

int getLongFromObjectOrReply(client *c, robj *o, long *target, const char *msg) {
    return getRangeLongFromObjectOrReply(c, o, LONG_MIN, LONG_MAX, target, msg);
}

int getPositiveLongFromObjectOrReply(client *c, robj *o, long *target, const char *msg) {
    if (msg) return getRangeLongFromObjectOrReply(c, o, 0, LONG_MAX, target, msg);
    return getRangeLongFromObjectOrReply(c, o, 0, LONG_MAX, target, "value is out of range, must be positive");
}

int getIntFromObjectOrReply(client *c, robj *o, int *target, const char *msg) {
    long value;
    if (getRangeLongFromObjectOrReply(c, o, INT_MIN, INT_MAX, &value, msg) != C_OK) return C_ERR;
    *target = value;
    return C_OK;
}

/* Reads an optionally signed run of 1 to 15 decimal digits (leading zeros
 * allowed), the usual form of a score: such a number is exact as a double,
 * so the result is what strtod() would give, sign of zero included,
 * without its cost. Returns 0 for anything else. */
static int parseShortDecimal(const char *s, size_t len, double *dp) {
    int negative = 0;
    if (len && (s[0] == '-' || s[0] == '+')) {
        negative = s[0] == '-';
        s++;
        len--;
    }
    if (len == 0 || len > 15) return 0;
    long long v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        v = v * 10 + (s[i] - '0');
    }
    *dp = negative ? -(double)v : (double)v;
    return 1;
}

int getDoubleFromObject(const robj *o, double *target) {
    double value;
    if (o == NULL) {
        value = 0;
    } else if (sdsEncodedObject(o)) {
        if (!parseShortDecimal(objectGetVal(o), sdslen(objectGetVal(o)), &value) && !string2d(objectGetVal(o), sdslen(objectGetVal(o)), &value))
            return C_ERR;
    } else if (o->encoding == OBJ_ENCODING_INT) {
        value = (long)objectGetVal(o);
    } else {
        serverPanic("Unknown string encoding");
    }
    *target = value;
    return C_OK;
}

int getDoubleFromObjectOrReply(client *c, robj *o, double *target, const char *msg) {
    double value;
    if (getDoubleFromObject(o, &value) != C_OK) {
        addReplyError(c, msg ? msg : "value is not a valid float");
        return C_ERR;
    }
    *target = value;
    return C_OK;
}

int getLongDoubleFromObject(robj *o, long double *target) {
    long double value;
    if (o == NULL) {
        value = 0;
    } else if (sdsEncodedObject(o)) {
        if (!string2ld(objectGetVal(o), sdslen(objectGetVal(o)), &value)) return C_ERR;
    } else if (o->encoding == OBJ_ENCODING_INT) {
        value = (long)objectGetVal(o);
    } else {
        serverPanic("Unknown string encoding");
    }
    *target = value;
    return C_OK;
}

int getLongDoubleFromObjectOrReply(client *c, robj *o, long double *target, const char *msg) {
    long double value;
    if (getLongDoubleFromObject(o, &value) != C_OK) {
        addReplyError(c, msg ? msg : "value is not a valid float");
        return C_ERR;
    }
    *target = value;
    return C_OK;
}

/* ---------------------------------------------------------------------------
 * Names, sizes, LRU/LFU
 * ------------------------------------------------------------------------- */

const char *strEncoding(int encoding) {
    switch (encoding) {
    case OBJ_ENCODING_RAW: return "raw";
    case OBJ_ENCODING_INT: return "int";
    case OBJ_ENCODING_HT: return "hashtable";
    case OBJ_ENCODING_QUICKLIST: return "quicklist";
    case OBJ_ENCODING_LISTPACK: return "listpack";
    case OBJ_ENCODING_INTSET: return "intset";
    case OBJ_ENCODING_SKIPLIST: return "skiplist";
    case OBJ_ENCODING_EMBSTR: return "embstr";
    case OBJ_ENCODING_STREAM: return "stream";
    default: return "unknown";
    }
}

char *getObjectTypeName(robj *o) {
    if (o == NULL) return "none";
    switch (o->type) {
    case OBJ_STRING: return "string";
    case OBJ_LIST: return "list";
    case OBJ_SET: return "set";
    case OBJ_ZSET: return "zset";
    case OBJ_HASH: return "hash";
    case OBJ_STREAM: return "stream";
    default: return "unknown";
    }
}

/* Approximate bytes used by key and value (MEMORY USAGE). */
size_t objectComputeSize(robj *key, robj *o, size_t sample_size, int dbid) {
    size_t size = 0;
    if (o->type == OBJ_STRING) {
        if (o->encoding == OBJ_ENCODING_INT) size = zmalloc_size(o);
        else if (o->encoding == OBJ_ENCODING_EMBSTR) size = zmalloc_size(o);
        else size = zmalloc_size(o) + sdsAllocSize(objectGetVal(o));
    } else if (o->type < OBJ_TYPE_MAX && objectMethods[o->type].size) {
        size = zmalloc_size(o) + objectMethods[o->type].size(o, sample_size);
    } else {
        size = zmalloc_size(o);
    }
    if (key) {
        /* A keyspace entry holds its key (counted above); its share of
         * the table is a slot of a bucket, about 10 bytes. */
        (void)dbid;
        size += o->hasembkey ? sizeof(void *) + sizeof(void *) / 4 : sdsAllocSize(objectGetVal(key)) + sizeof(void *);
    }
    return size;
}

/* About how many allocations freeing o releases: what lazyfree.c weighs
 * to decide whether the lazy free thread should do it. */
size_t objectFreeEffort(robj *o) {
    if (o->type < OBJ_TYPE_MAX && objectMethods[o->type].free_effort) return objectMethods[o->type].free_effort(o);
    return 1;
}

/* The LRU clock in LRU_CLOCK_RESOLUTION units, cached by the cron when its
 * resolution allows. */
unsigned int getLRUClock(void) {
    return (mstime() / LRU_CLOCK_RESOLUTION) & LRU_CLOCK_MAX;
}

unsigned int LRU_CLOCK(void) {
    if (1000 / server.hz <= LRU_CLOCK_RESOLUTION) return server.lru_clock;
    return getLRUClock();
}

unsigned long LFUGetTimeInMinutes(void) {
    return (server.unixtime / 60) & 65535;
}

static unsigned long LFUTimeElapsed(unsigned long ldt) {
    unsigned long now = LFUGetTimeInMinutes();
    if (now >= ldt) return now - ldt;
    return 65535 - ldt + now;
}

/* Logarithmic counter increment: the higher the counter, the less likely
 * another hit raises it (lfu-log-factor). */
uint8_t LFULogIncr(uint8_t counter) {
    if (counter == 255) return 255;
    double r = (double)rand() / RAND_MAX;
    double baseval = counter - LFU_INIT_VAL;
    if (baseval < 0) baseval = 0;
    double p = 1.0 / (baseval * server.lfu_log_factor + 1);
    if (r < p) counter++;
    return counter;
}

/* Returns the counter decayed by the minutes since last access
 * (lfu-decay-time), without storing it. */
unsigned long LFUDecrAndReturn(robj *o) {
    unsigned long ldt = o->lru >> 8;
    unsigned long counter = o->lru & 255;
    unsigned long num_periods = server.lfu_decay_time ? LFUTimeElapsed(ldt) / server.lfu_decay_time : 0;
    if (num_periods) counter = (num_periods > counter) ? 0 : counter - num_periods;
    return counter;
}

/* Sets a new object's LRU or LFU field: accessed now, and under LFU with the
 * starting counter, so a new key is not the first to be evicted. */
void initObjectAccess(robj *o) {
    if (server.maxmemory_policy & MAXMEMORY_FLAG_LFU)
        o->lru = (LFUGetTimeInMinutes() << 8) | LFU_INIT_VAL;
    else
        o->lru = LRU_CLOCK();
}

/* Records an access in the object's LRU or LFU field. */
void updateObjectAccess(robj *o) {
    if (server.maxmemory_policy & MAXMEMORY_FLAG_LFU) {
        unsigned long counter = LFUDecrAndReturn(o);
        counter = LFULogIncr(counter);
        o->lru = (LFUGetTimeInMinutes() << 8) | counter;
    } else {
        o->lru = LRU_CLOCK();
    }
}

/* Sets o's access data from a loaded RDB file or RESTORE: under an LFU
 * policy from lfu_freq (0..255) when it is >= 0; otherwise from lru_idle
 * (in units of lru_multiplier milliseconds) when it is >= 0, measured back
 * from lru_clock. Returns 1 if something was set, 0 if not. */
int objectSetLRUOrLFU(robj *o, long long lfu_freq, long long lru_idle, long long lru_clock, int lru_multiplier) {
    if (server.maxmemory_policy & MAXMEMORY_FLAG_LFU) {
        if (lfu_freq < 0) return 0;
        o->lru = (LFUGetTimeInMinutes() << 8) | (unsigned long)(lfu_freq > 255 ? 255 : lfu_freq);
        return 1;
    }
    if (lru_idle < 0) return 0;
    /* Idle time in clock ticks; an idle time beyond the clock's range
     * saturates at the oldest representable access. */
    long long ticks = lru_idle * lru_multiplier / LRU_CLOCK_RESOLUTION;
    if (ticks > LRU_CLOCK_MAX) ticks = LRU_CLOCK_MAX;
    long long lru_abs = lru_clock - ticks;
    if (lru_abs < 0) lru_abs += LRU_CLOCK_MAX;
    o->lru = (unsigned)lru_abs;
    return 1;
}

/* Milliseconds since the object was last accessed (LRU clock based). */
unsigned long long estimateObjectIdleTime(robj *o) {
    unsigned long long lruclock = LRU_CLOCK();
    if (lruclock >= o->lru) return (lruclock - o->lru) * LRU_CLOCK_RESOLUTION;
    return (lruclock + (LRU_CLOCK_MAX - o->lru)) * LRU_CLOCK_RESOLUTION;
}

/* ---------------------------------------------------------------------------
 * OBJECT and MEMORY commands
 * ------------------------------------------------------------------------- */

/* OBJECT and MEMORY are containers: processCommand() resolves the
 * subcommand (arity, unknown-subcommand errors) through the tables at the
 * end of this section, so each handler below sees a well-formed argv. */

void objectHelpCommand(client *c) {
    const char *help[] = {
        "ENCODING <key>",
        "    Return the kind of internal representation used in order to store the value",
        "    associated with a <key>.",
        "FREQ <key>",
        "    Return the access frequency index of the <key>. The returned integer is",
        "    proportional to the logarithm of the recent access frequency of the key.",
        "IDLETIME <key>",
        "    Return the idle time of the <key>, that is the approximated number of",
        "    seconds elapsed since the last access to the key.",
        "REFCOUNT <key>",
        "    Return the number of references of the value associated with the specified",
        "    <key>.",
        NULL};
    addReplyHelp(c, help);
}

/* The value of OBJECT's key without touching it, or NULL after replying a
 * null for a missing key. */
static robj *objectLookupOrReply(client *c) {
    robj *o = lookupKeyReadWithFlags(c->db, c->argv[2], LOOKUP_NOTOUCH | LOOKUP_NONOTIFY);
    if (o == NULL) addReplyNull(c);
    return o;
}

void objectEncodingCommand(client *c) {
    robj *o = objectLookupOrReply(c);
    if (o) addReplyBulkCString(c, strEncoding(o->encoding));
}

void objectRefcountCommand(client *c) {
    robj *o = objectLookupOrReply(c);
    if (o) addReplyLongLong(c, o->refcount == OBJ_SHARED_REFCOUNT ? INT_MAX : o->refcount);
}

void objectIdletimeCommand(client *c) {
    robj *o = objectLookupOrReply(c);
    if (o == NULL) return;
    if (server.maxmemory_policy & MAXMEMORY_FLAG_LFU) {
        addReplyError(c, "An LFU maxmemory policy is selected, idle time not tracked. Please note that when "
                         "switching between policies at runtime LRU and LFU data will take some time to adjust.");
        return;
    }
    addReplyLongLong(c, estimateObjectIdleTime(o) / 1000);
}

void objectFreqCommand(client *c) {
    robj *o = objectLookupOrReply(c);
    if (o == NULL) return;
    if (!(server.maxmemory_policy & MAXMEMORY_FLAG_LFU)) {
        addReplyError(c, "An LFU maxmemory policy is not selected, access frequency not tracked. Please note "
                         "that when switching between policies at runtime LRU and LFU data will take some "
                         "time to adjust.");
        return;
    }
    addReplyLongLong(c, LFUDecrAndReturn(o));
}

/* Adds "name" and an integer value to the MEMORY STATS map. */
static void addReplyStatLongLong(client *c, const char *name, long long v) {
    addReplyBulkCString(c, name);
    addReplyLongLong(c, v);
}

static void addReplyStatDouble(client *c, const char *name, double v) {
    addReplyBulkCString(c, name);
    addReplyDouble(c, v);
}

/* MEMORY STATS: the figures of INFO memory (getMemoryOverhead), as a map
 * with Valkey's names. */
static void addReplyMemoryStats(client *c) {
    memoryOverhead m;
    getMemoryOverhead(&m);
    long long keys = dbTotalServerKeyCount();
    int dbs_with_keys = 0;
    for (int j = 0; j < server.dbnum; j++)
        if (kvstoreSize(server.db[j].keys)) dbs_with_keys++;

    addReplyMapLen(c, 31 + dbs_with_keys);
    addReplyStatLongLong(c, "peak.allocated", (long long)m.peak);
    addReplyStatLongLong(c, "total.allocated", (long long)m.used);
    addReplyStatLongLong(c, "startup.allocated", (long long)m.startup);
    addReplyStatLongLong(c, "replication.backlog", (long long)m.repl_backlog);
    addReplyStatLongLong(c, "clients.slaves", (long long)m.clients_replicas);
    addReplyStatLongLong(c, "clients.normal", (long long)m.clients_normal);
    addReplyStatLongLong(c, "cluster.links", 0);
    addReplyStatLongLong(c, "aof.buffer", (long long)aofBufferLength());
    addReplyStatLongLong(c, "lua.caches", (long long)m.scripts.eval_cache);
    addReplyStatLongLong(c, "functions.caches", (long long)m.scripts.functions_cache);
    for (int j = 0; j < server.dbnum; j++) {
        serverDb *db = server.db + j;
        if (!kvstoreSize(db->keys)) continue;
        char dbname[32];
        snprintf(dbname, sizeof(dbname), "db.%d", j);
        addReplyBulkCString(c, dbname);
        addReplyMapLen(c, 2);
        addReplyStatLongLong(c, "overhead.hashtable.main", (long long)kvstoreMemUsage(db->keys));
        addReplyStatLongLong(c, "overhead.hashtable.expires", (long long)hashtableMemUsage(db->expires));
    }
    addReplyStatLongLong(c, "overhead.db.hashtable.lut", (long long)m.db_lut);
    addReplyStatLongLong(c, "overhead.db.hashtable.rehashing", (long long)m.db_rehashing);
    addReplyStatLongLong(c, "overhead.total", (long long)m.overhead);
    addReplyStatLongLong(c, "db.dict.rehashing.count", (long long)m.db_rehashing_count);
    addReplyStatLongLong(c, "keys.count", keys);
    addReplyStatLongLong(c, "keys.bytes-per-key", keys ? (long long)(m.net / keys) : 0);
    addReplyStatLongLong(c, "dataset.bytes", (long long)m.dataset);
    addReplyStatDouble(c, "dataset.percentage", m.dataset_perc);
    addReplyStatDouble(c, "peak.percentage", m.peak_perc);
    addReplyStatLongLong(c, "allocator.allocated", (long long)m.allocated);
    addReplyStatLongLong(c, "allocator.active", (long long)m.active);
    addReplyStatLongLong(c, "allocator.resident", (long long)m.resident);
    /* jemalloc's muzzy pages (INFO allocator_muzzy): none with its default
     * muzzy_decay_ms of 0, the setting we run with. */
    addReplyStatLongLong(c, "allocator.muzzy", 0);
    addReplyStatDouble(c, "allocator-fragmentation.ratio", m.alloc_frag);
    addReplyStatLongLong(c, "allocator-fragmentation.bytes", m.alloc_frag_bytes);
    addReplyStatDouble(c, "allocator-rss.ratio", m.alloc_rss);
    addReplyStatLongLong(c, "allocator-rss.bytes", m.alloc_rss_bytes);
    addReplyStatDouble(c, "rss-overhead.ratio", m.rss_overhead);
    addReplyStatLongLong(c, "rss-overhead.bytes", m.rss_overhead_bytes);
    addReplyStatDouble(c, "fragmentation", m.frag);
    addReplyStatLongLong(c, "fragmentation.bytes", m.frag_bytes);
}

void memoryHelpCommand(client *c) {
    const char *help[] = {"DOCTOR",
                          "    Return memory problems reports.",
                          "MALLOC-STATS",
                          "    Return internal statistics report from the memory allocator.",
                          "PURGE",
                          "    Attempt to purge dirty pages for reclamation by the allocator.",
                          "STATS",
                          "    Return information about the memory usage of the server.",
                          "USAGE <key> [SAMPLES <count>]",
                          "    Return memory in bytes used by <key> and its value. Nested values are",
                          "    sampled up to <count> times (default: 5, 0 means sample all).",
                          NULL};
    addReplyHelp(c, help);
}

/* MEMORY USAGE <key> [SAMPLES <count>] */
void memoryUsageCommand(client *c) {
    long long samples = 5;
    for (int j = 3; j < c->argc; j++) {
        if (!strcasecmp(objectGetVal(c->argv[j]), "samples") && j + 1 < c->argc) {
            if (getLongLongFromObjectOrReply(c, c->argv[j + 1], &samples, NULL) == C_ERR) return;
            if (samples < 0) {
                addReplyErrorObject(c, shared.syntaxerr);
                return;
            }
            if (samples == 0) samples = LLONG_MAX;
            j++;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    robj *o = lookupKeyReadWithFlags(c->db, c->argv[2], LOOKUP_NOTOUCH);
    if (o == NULL) {
        addReplyNull(c);
        return;
    }
    addReplyLongLong(c, objectComputeSize(c->argv[2], o, samples, c->db->id));
}

void memoryStatsCommand(client *c) {
    addReplyMemoryStats(c);
}

static void appendStats(void *ctx, const char *text) {
    sds *out = ctx;
    *out = sdscat(*out, text);
}

/* MEMORY MALLOC-STATS: jemalloc's own report. */
void memoryMallocStatsCommand(client *c) {
    sds report = sdsempty();
    zmallocStatsCallback cb = {.write = appendStats, .ctx = &report};
    zmalloc_stats_print(&cb);
    addReplyVerbatim(c, report, sdslen(report), "txt");
    sdsfree(report);
}

/* MEMORY DOCTOR: looks at the figures INFO memory reports and explains the
 * ones that are out of the ordinary. */
void memoryDoctorCommand(client *c) {
    size_t used = zmalloc_used_memory(), rss = zmalloc_get_rss();
    size_t peak = server.stat_peak_memory > used ? server.stat_peak_memory : used;
    size_t clients_out = 0, biggest_out = 0;
    listIter li;
    listNode *ln;
    listRewind(server.clients, &li);
    while ((ln = listNext(&li))) {
        size_t out = getClientOutputBufferMemoryUsage(listNodeValue(ln));
        clients_out += out;
        if (out > biggest_out) biggest_out = out;
    }
    sds report = sdsempty();
    if (used < 5 * 1024 * 1024) {
        report = sdscat(report, "This instance uses less than 5 MB of memory: nothing to report.\n");
    } else {
        if (rss > used && (double)rss / used > 1.4)
            report = sdscatprintf(report, "High fragmentation: the process holds %.2f times the memory in use "
                                          "(%zu bytes resident for %zu in use). MEMORY PURGE may give some back.\n",
                                  (double)rss / used, rss, used);
        if (peak > used * 2)
            report = sdscatprintf(report, "The peak (%zu bytes) is more than twice the memory in use now: the "
                                          "allocator may keep pages from the peak.\n", peak);
        if (clients_out > used / 4)
            report = sdscatprintf(report, "Client output buffers hold %zu bytes (the biggest %zu): some clients "
                                          "read their replies slowly; see client-output-buffer-limit.\n",
                                  clients_out, biggest_out);
        if (sdslen(report) == 0)
            report = sdscat(report, "No memory problems detected: fragmentation, peak use and client buffers "
                                    "look normal.\n");
    }
    addReplyVerbatim(c, report, sdslen(report), "txt");
    sdsfree(report);
}

/* MEMORY PURGE: asks jemalloc to give dirty pages back to the system. */
void memoryPurgeCommand(client *c) {
    if (zmalloc_purge() == 0) addReply(c, shared.ok);
    else addReplyError(c, "Error purging dirty pages");
}

#define OBJECT_KEY {2, 2, 1}

struct serverCommand objectSubcommands[] = {
    {.name = "encoding", .proc = objectEncodingCommand, .arity = 3, .flags = CMD_READONLY,
     .acl_categories = ACL_CATEGORY_KEYSPACE, .key = OBJECT_KEY, .group = "generic", .since = "2.2.3",
     .summary = "Returns the internal encoding of an object.", .complexity = "O(1)",
     .args = "key"},
    {.name = "freq", .proc = objectFreqCommand, .arity = 3, .flags = CMD_READONLY,
     .acl_categories = ACL_CATEGORY_KEYSPACE, .key = OBJECT_KEY, .group = "generic", .since = "4.0.0",
     .summary = "Returns the logarithmic access frequency counter of an object.", .complexity = "O(1)",
     .args = "key"},
    {.name = "idletime", .proc = objectIdletimeCommand, .arity = 3, .flags = CMD_READONLY,
     .acl_categories = ACL_CATEGORY_KEYSPACE, .key = OBJECT_KEY, .group = "generic", .since = "2.2.3",
     .summary = "Returns the time since the last access to an object.", .complexity = "O(1)",
     .args = "key"},
    {.name = "refcount", .proc = objectRefcountCommand, .arity = 3, .flags = CMD_READONLY,
     .acl_categories = ACL_CATEGORY_KEYSPACE, .key = OBJECT_KEY, .group = "generic", .since = "2.2.3",
     .summary = "Returns the reference count of a value of a key.", .complexity = "O(1)",
     .args = "key"},
    {.name = "help", .proc = objectHelpCommand, .arity = 2, .flags = CMD_LOADING | CMD_STALE,
     .acl_categories = ACL_CATEGORY_KEYSPACE, .group = "generic", .since = "6.2.0",
     .summary = "Returns helpful text about the different subcommands.", .complexity = "O(1)"},
    {0},
};

#define MEMORY_SUB(n, p, a, f, s, cx)                                                                           \
    {.name = n, .proc = p, .arity = a, .flags = f, .group = "server", .since = "4.0.0", .summary = s, .complexity = cx}

struct serverCommand memorySubcommands[] = {
    MEMORY_SUB("doctor", memoryDoctorCommand, 2, 0, "Outputs a memory problems report.", "O(1)"),
    MEMORY_SUB("malloc-stats", memoryMallocStatsCommand, 2, CMD_LOADING, "Returns the allocator statistics.",
               "Depends on how much memory is allocated, could be slow"),
    MEMORY_SUB("purge", memoryPurgeCommand, 2, CMD_LOADING, "Asks the allocator to release memory.",
               "Depends on how much memory is allocated, could be slow"),
    MEMORY_SUB("stats", memoryStatsCommand, 2, 0, "Returns details about memory usage.", "O(1)"),
    {.name = "usage", .proc = memoryUsageCommand, .arity = -3, .flags = CMD_READONLY, .key = OBJECT_KEY,
     .group = "server", .since = "4.0.0", .summary = "Estimates the memory usage of a key.",
     .complexity = "O(N) where N is the number of samples.",
     .args = "key [SAMPLES count]"},
    {.name = "help", .proc = memoryHelpCommand, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .group = "server",
     .since = "4.0.0", .summary = "Returns helpful text about the different subcommands.", .complexity = "O(1)"},
    {0},
};
