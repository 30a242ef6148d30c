/* fuzz_rdb.c - libFuzzer target for RDB loading (rdb.c's
 * rdbLoadRioWithFlags: the header, aux fields, database selectors, resize
 * hints, expiry and LRU/LFU records, function libraries, every value type,
 * the EOF marker and checksum), as a replica or DEBUG RELOAD runs it, over
 * bytes in memory.
 *
 * Input: one byte choosing sanitize-dump-payload (no, yes, clients), then
 * an RDB file. Whatever loads goes into the server's databases; the
 * whole dataset is then saved again (rdbSaveRio, which walks every value)
 * and flushed with the function libraries, so that each input starts from
 * an empty server. Files with
 * a checksum of zero skip the check (as RDB files saved with rdbchecksum
 * no do), which lets the fuzzer reach the end of a file. */
#include "fuzz_server.h"

#include "rdb.h"
#include "rio.h"

/* Called by libFuzzer once, before the first input: sets the server up.
 * Returns 0. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    fuzzServerInit("loglevel warning");
    return 0;
}

/* Called by libFuzzer for each input (data is only read, owned by
 * libFuzzer). Returns 0; a broken invariant aborts. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const int modes[] = {SANITIZE_DUMP_NO, SANITIZE_DUMP_YES, SANITIZE_DUMP_CLIENTS};
    if (size < 1) return 0;
    server.sanitize_dump_payload = modes[data[0] % 3];
    rio r;
    rioInitMemReader(&r, data + 1, size - 1);
    rdbLoadRioWithFlags(&r, RDBFLAGS_NONE);
    rioRelease(&r);

    rio out;
    rioInitNullWriter(&out);
    if (rdbSaveRio(&out) != C_OK) abort();
    rioRelease(&out);
    emptyData(-1, EMPTYDB_NO_FLAGS, NULL);
    functionsEmpty();
    return 0;
}
