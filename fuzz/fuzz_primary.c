/* fuzz_primary.c - libFuzzer target for the replication stream as a
 * replica reads it from its primary: the bytes go into the query buffer of
 * the primary's client (replicationCreatePrimaryClient()) and through
 * processInputBuffer() as readQueryFromClient() hands them over, so that
 * everything a primary's bytes reach runs for real: the parser, its
 * protocol errors and the refusal of inline commands on the primary link,
 * the check of each command before it runs (existence, arity, commands
 * that would change what the link is: replicationCheckPrimaryCommand()),
 * the execution of those that pass (blocking ones included, which must
 * not block), the applied-offset accounting, and the link being dropped
 * on bad bytes (replicationPrimaryStreamBroken()).
 *
 * Input: one byte of options (chunk size: the bytes arrive in chunks of
 * 1-64 bytes, or at once), then the stream. After each chunk:
 *   - the primary's client is never blocked (a primary's command never
 *     waits: it runs as its non-blocking form);
 *   - the applied offset never passes the bytes read, our own offset is
 *     the applied one (what was applied is passed on at once), and the
 *     query buffer holds exactly the input bytes not applied yet: nothing
 *     past a bad command was applied or counted;
 *   - once the link is dropped (bad bytes, or QUIT) no later byte is
 *     applied; the input ends there, as the connection would.
 * At the end the client is freed: a dropped link must leave the replica
 * asking for a full sync (no partial resync of the same bytes). The
 * dataset is emptied between inputs.
 *
 * The commands are the server's, renamed away where running them from a
 * fuzzer makes no sense: those that end the process, write files, open
 * connections, run scripts (a loop never ends), or loop a count taken
 * from the input (SRANDMEMBER k -1000000000). DEBUG and MODULE are
 * refused by the default configuration. */
#include "fuzz_server.h"

#include "replication.h"

/* Called by libFuzzer once, before the first input: sets the server up as
 * a replica (of a primary it never connects to: no event loop runs).
 * Returns 0. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    static const char *renamed[] = {
        "shutdown", "save",    "bgsave",     "bgrewriteaof", "config",      "acl",         "migrate",
        "eval",     "eval_ro", "evalsha",    "evalsha_ro",   "fcall",       "fcall_ro",    "function",
        "script",   "failover", "srandmember", "hrandfield", "zrandmember", "client",
    };
    sds config = sdsnew("loglevel verbose\nproto-max-bulk-len 1mb\nreplicaof 127.0.0.1 1\n");
    for (size_t j = 0; j < sizeof(renamed) / sizeof(renamed[0]); j++)
        config = sdscatprintf(config, "rename-command %s \"\"\n", renamed[j]);
    fuzzServerInit(config);
    sdsfree(config);
    return 0;
}

/* The invariants above, after a chunk; start is our offset before the
 * input, in the input's bytes fed so far. */
static void checkPrimaryClient(client *c, const char *in, size_t fed, long long start) {
    replClientData *d = c->repl;
    if (c->flags & CLIENT_BLOCKED) abort();
    if (d->reploff < start || d->reploff > d->read_reploff) abort();
    if (d->read_reploff - start != (long long)fed) abort();
    if (server.primary_repl_offset != d->reploff || d->unfed != 0) abort();
    size_t applied = (size_t)(d->reploff - start);
    size_t left = sdslen(c->querybuf);
    if (left != fed - applied || memcmp(c->querybuf, in + applied, left) != 0) abort();
}

/* Called by libFuzzer for each input (data is only read, owned by
 * libFuzzer). Returns 0; a broken invariant aborts. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    uint8_t opts = data[0];
    const char *in = (const char *)data + 1;
    size_t len = size - 1, fed = 0;
    size_t chunk = (opts & 0x80) ? len : 1 + (opts & 0x3f);

    long long start = server.primary_repl_offset;
    client *c = replicationCreatePrimaryClient(NULL, 0);
    /* Without a connection the client is born fake (never blocked, never
     * closed asynchronously): the primary's is neither. */
    c->flags &= ~CLIENT_FAKE;
    int dropped = 0;
    while (fed < len && !dropped) {
        size_t n = len - fed < chunk ? len - fed : chunk;
        c->querybuf = sdscatlen(c->querybuf, in + fed, n);
        replicationPrimaryRead(c, n);
        fed += n;
        c->flags |= CLIENT_PROTECTED;
        processInputBuffer(c);
        c->flags &= ~CLIENT_PROTECTED;
        checkPrimaryClient(c, in, fed, start);
        dropped = (c->flags & CLIENT_CLOSE_ASAP) != 0;
    }
    int broken = c->repl->stream_broken;
    if (broken && !dropped) abort(); /* (QUIT drops it too, unbroken) */
    if (dropped) freeClientsInAsyncFreeQueue();
    else freeClient(c);
    if (repl.primary != NULL) abort();
    if (broken && repl.psync_possible) abort();

    emptyData(-1, EMPTYDB_NO_FLAGS, NULL);
    server.primary_repl_offset = 0;
    return 0;
}
