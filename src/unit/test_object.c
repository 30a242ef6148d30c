/* test_object.c - unit tests of the object layout in object.c: string
 * objects with their value embedded (EMBSTR, no value pointer) and keyspace
 * entries carrying their key and expire time. For keys of 0..70 bytes and
 * values of 0..44 bytes, with and without an expire slot, it checks that
 * key, value and expire read back, that the block is exactly the size the
 * layout promises (a 16-byte key with a 16-byte value fits 48 bytes), and
 * that overwriting a value in place or adding an expire keeps everything.
 *
 * object.c belongs to the server, so this test links a copy compiled with
 * one section per function (see src/Makefile) and lets the linker drop what
 * these functions do not reach; the few server functions they do reach are
 * provided below. */
#include <stdlib.h>
#include <string.h>

#include "server.h"
#include "unittest.h"

struct valkeyServer server;
struct sharedObjectsStruct shared;

void _serverAssert(const char *estr, const char *file, int line) {
    fprintf(stderr, "assertion failed: %s (%s:%d)\n", estr, file, line);
    abort();
}

void _serverPanic(const char *file, int line, const char *msg, ...) {
    fprintf(stderr, "panic at %s:%d: %s\n", file, line, msg);
    abort();
}

/* What object.c's OBJECT and MEMORY commands call. The layout code never
 * reaches them, but a sanitizer build keeps the command tables (it
 * registers every global), so the linker wants them defined. */
#define UNREACHED abort()
void addReply(client *c, robj *obj) { UNREACHED; }
void addReplyBulkCString(client *c, const char *s) { UNREACHED; }
void addReplyDouble(client *c, double d) { UNREACHED; }
void addReplyError(client *c, const char *err) { UNREACHED; }
void addReplyErrorObject(client *c, robj *err) { UNREACHED; }
void addReplyHelp(client *c, const char **help) { UNREACHED; }
void addReplyLongLong(client *c, long long ll) { UNREACHED; }
void addReplyMapLen(client *c, long length) { UNREACHED; }
void addReplyNull(client *c) { UNREACHED; }
void addReplyVerbatim(client *c, const char *s, size_t len, const char *ext) { UNREACHED; }
size_t aofBufferLength(void) { UNREACHED; }
long long dbTotalServerKeyCount(void) { UNREACHED; }
unsigned long getClientOutputBufferMemoryUsage(client *c) { UNREACHED; }
void getMemoryOverhead(memoryOverhead *m) { UNREACHED; }
robj *lookupKeyReadWithFlags(serverDb *db, robj *key, int flags) { UNREACHED; }

/* Fills buf with n bytes that differ by length and seed. */
static void fill(char *buf, size_t n, int seed) {
    for (size_t j = 0; j < n; j++) buf[j] = (char)('a' + (j * 7 + n + seed) % 26);
}

/* The request size object.c's layout comment gives for an entry. */
static size_t entrySize(size_t keylen, int embedded, size_t vlen, int expire) {
    size_t keypart = keylen < 32 ? 3 + keylen : 1 + sdsEmbeddedSize(keylen);
    return 8 + (embedded ? 3 + vlen + 1 : 8) + (expire ? 8 : 0) + keypart;
}

static int sameBytes(sds s, const char *want, size_t len) {
    return sdslen(s) == len && memcmp(s, want, len) == 0 && s[len] == '\0';
}

int main(int argc, char **argv) {
    (void)argc;
    UT_BEGIN(argv[0]);
    server.hz = 10; /* initObjectAccess() reads the LRU clock */
    char key[80], val[64], val2[64];

    TEST("object: an EMBSTR argument has no value pointer") {
        for (size_t vlen = 0; vlen <= OBJ_ENCODING_EMBSTR_SIZE_LIMIT; vlen++) {
            fill(val, vlen, 1);
            robj *o = createEmbeddedStringObject(val, vlen);
            ASSERT(o->encoding == OBJ_ENCODING_EMBSTR && !o->hasembkey && !o->hasexpire);
            ASSERT(sameBytes(objectGetVal(o), val, vlen));
            ASSERT((char *)objectGetVal(o) == (char *)o + 8 + 3);
            ASSERT_EQ_LL(zmalloc_size(o), zmalloc_good_size(8 + 3 + vlen + 1));
            decrRefCount(o);
        }
    }

    TEST("object: keyspace entries round-trip key, value and expire") {
        for (size_t keylen = 0; keylen <= 70; keylen++) {
            for (size_t vlen = 0; vlen <= OBJ_ENCODING_EMBSTR_SIZE_LIMIT; vlen++) {
                for (int expire = 0; expire <= 1; expire++) {
                    fill(key, keylen, 2);
                    fill(val, vlen, 3);
                    long long when = expire ? 1700000000000LL + (long long)(keylen * 100 + vlen) : -1;
                    robj *o = objectSetKeyAndExpire(createEmbeddedStringObject(val, vlen), key, keylen, expire, when);
                    ASSERT(o->encoding == OBJ_ENCODING_EMBSTR && o->hasembkey && o->hasexpire == expire);
                    ASSERT(sameBytes(objectGetKey(o), key, keylen));
                    ASSERT(objectGetKeyVoid(o) == (const void *)objectGetKey(o));
                    ASSERT(sameBytes(objectGetVal(o), val, vlen));
                    ASSERT_EQ_LL(objectGetExpire(o), when);
                    ASSERT_EQ_LL(zmalloc_size(o), zmalloc_good_size(entrySize(keylen, 1, vlen, expire)));
                    decrRefCount(o);
                }
            }
        }
    }

    TEST("object: a 16-byte key with a 16-byte value fits 48 bytes") {
        ASSERT_EQ_LL(entrySize(16, 1, 16, 0), 47);
        ASSERT_EQ_LL(entrySize(10, 1, 16, 0), 41);
        fill(key, 16, 4);
        fill(val, 16, 5);
        robj *o = objectSetKeyAndExpire(createEmbeddedStringObject(val, 16), key, 16, 0, -1);
        ASSERT(zmalloc_size(o) <= 48);
        decrRefCount(o);
    }

    TEST("object: RAW and INT entries keep their pointer") {
        fill(key, 20, 6);
        fill(val, 60, 7);
        robj *raw = createRawStringObject(val, 60);
        sds payload = objectGetVal(raw);
        robj *o = objectSetKeyAndExpire(raw, key, 20, 1, 42);
        ASSERT(o->encoding == OBJ_ENCODING_RAW && objectGetVal(o) == payload);
        ASSERT(sameBytes(objectGetKey(o), key, 20));
        ASSERT_EQ_LL(objectGetExpire(o), 42);
        ASSERT_EQ_LL(zmalloc_size(o), zmalloc_good_size(entrySize(20, 0, 0, 1)));
        decrRefCount(o);

        robj *n = createObject(OBJ_STRING, NULL);
        n->encoding = OBJ_ENCODING_INT;
        objectSetVal(n, (void *)-12345L);
        o = objectSetKeyAndExpire(n, key, 20, 0, -1);
        ASSERT((long)objectGetVal(o) == -12345L);
        ASSERT(sameBytes(objectGetKey(o), key, 20));
        decrRefCount(o);
    }

    TEST("object: overwriting an embedded value in place moves the key") {
        for (size_t keylen = 0; keylen <= 40; keylen += 8) {
            for (size_t vlen = 0; vlen <= OBJ_ENCODING_EMBSTR_SIZE_LIMIT; vlen += 3) {
                for (size_t nlen = 0; nlen <= OBJ_ENCODING_EMBSTR_SIZE_LIMIT; nlen++) {
                    for (int expire = 0; expire <= 1; expire++) {
                        fill(key, keylen, 8);
                        fill(val, vlen, 9);
                        fill(val2, nlen, 10);
                        robj *o = objectSetKeyAndExpire(createEmbeddedStringObject(val, vlen), key, keylen, expire, 77);
                        robj *nv = createEmbeddedStringObject(val2, nlen);
                        size_t before = zmalloc_size(o);
                        int done = objectOverwriteEmbeddedValue(o, nv);
                        size_t need = entrySize(keylen, 1, nlen, expire);
                        /* Done exactly when the new layout keeps the size class. */
                        ASSERT_EQ_LL(done, zmalloc_good_size(need) == before);
                        if (done) {
                            ASSERT(sameBytes(objectGetVal(o), val2, nlen));
                            ASSERT(sameBytes(objectGetKey(o), key, keylen));
                            ASSERT_EQ_LL(objectGetExpire(o), expire ? 77 : -1);
                        }
                        decrRefCount(nv);
                        decrRefCount(o);
                    }
                }
            }
        }
    }

    TEST("object: adding an expire slot keeps key and value") {
        fill(key, 16, 11);
        fill(val, 16, 12);
        robj *o = objectSetKeyAndExpire(createEmbeddedStringObject(val, 16), key, 16, 0, -1);
        ASSERT_EQ_LL(objectGetExpire(o), -1);
        o = objectSetExpire(o, 123456);
        ASSERT(o->hasexpire);
        ASSERT_EQ_LL(objectGetExpire(o), 123456);
        ASSERT(sameBytes(objectGetKey(o), key, 16));
        ASSERT(sameBytes(objectGetVal(o), val, 16));
        ASSERT(objectSetExpire(o, -1) == o);
        ASSERT_EQ_LL(objectGetExpire(o), -1);
        ASSERT(sameBytes(objectGetVal(o), val, 16));
        decrRefCount(o);
    }

    return UT_END();
}
