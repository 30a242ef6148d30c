/* fuzz_restore.c - libFuzzer target for RESTORE payloads: the value
 * decoder behind RESTORE (rdbLoadType + rdbLoadObject over the payload
 * body: dump.c's restoreDecodeValue) for every value type and
 * encoding RDB has (strings, lists and quicklists, sets and intsets,
 * hashes, sorted sets, listpacks, ziplists, zipmaps, streams).
 *
 * Input: one byte choosing sanitize-dump-payload (no, yes, clients: the
 * loader validates deeply whatever it says, and must be safe under each),
 * then a payload body without its version and CRC-64 trailer (a fuzzer
 * cannot forge checksums; the trailer check, dumpPayloadVerify, is the
 * first thing RESTORE does and comes before any of this). A value that
 * loads must be whole and sound: it is DUMPed again (which walks all of
 * it), the new payload must verify and load, and the copy must hold the
 * same value (DEBUG DIGEST-VALUE's digest: hash tables may come back in
 * another order, so the bytes of a second DUMP may differ). A value that does not load must leave nothing
 * behind (the leak checker sees it). */
#include "fuzz_server.h"

#include "dump.h"
#include "rdb.h"

/* Called by libFuzzer once, before the first input: sets the server up.
 * Returns 0. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    fuzzServerInit("loglevel warning");
    return 0;
}

/* DEBUG DIGEST-VALUE of o. */
static void valueDigest(robj *o, unsigned char *digest) {
    memset(digest, 0, 20);
    if (o->type == OBJ_STRING) {
        robj *d = getDecodedObject(o);
        xorDigest(digest, objectGetVal(d), sdslen(objectGetVal(d)));
        decrRefCount(d);
    } else if (objectMethods[o->type].digest) {
        objectMethods[o->type].digest(o, digest);
    }
}

/* Called by libFuzzer for each input (data is only read, owned by
 * libFuzzer). Returns 0; a broken invariant aborts. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const int modes[] = {SANITIZE_DUMP_NO, SANITIZE_DUMP_YES, SANITIZE_DUMP_CLIENTS};
    if (size < 1) return 0;
    server.sanitize_dump_payload = modes[data[0] % 3];
    robj *o = restoreDecodeValue(data + 1, size - 1);
    if (o == NULL) return 0;

    sds payload = dumpCreatePayload(o);
    size_t bodylen;
    if (dumpPayloadVerify((unsigned char *)payload, sdslen(payload), &bodylen) != C_OK) abort();
    robj *copy = restoreDecodeValue((unsigned char *)payload, bodylen);
    if (copy == NULL || copy->type != o->type) abort();
    unsigned char d1[20], d2[20];
    valueDigest(o, d1);
    valueDigest(copy, d2);
    if (memcmp(d1, d2, sizeof(d1)) != 0) abort();

    sdsfree(payload);
    decrRefCount(copy);
    decrRefCount(o);
    return 0;
}
