/* fuzz_request.c - libFuzzer target for the server's request parsing as
 * networking.c does it: parseClientRequest() on a client's query buffer,
 * inline and multibulk, with argument objects, spare-argument reuse, big
 * arguments moved to the client's own buffer and stolen as the argument,
 * and the protocol-error path (its verbose log line reads the buffer).
 *
 * Input: one byte of options (authenticated or not, chunk size), then the
 * bytes a client sends. They arrive in chunks appended to the client's
 * query buffer; after each chunk every complete request is parsed, checked
 * (argc within argv, each argument a string of its stated length) and
 * dropped, and the consumed bytes are trimmed as processInputBuffer() does.
 * No command runs. A protocol error ends the input, as it ends the
 * connection. */
#include "fuzz_server.h"

/* Called by libFuzzer once, before the first input: sets the server up.
 * Returns 0. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    fuzzServerInit("loglevel verbose\nproto-max-bulk-len 1mb");
    return 0;
}

static void checkRequest(client *c) {
    if (c->argc < 0 || (c->argc && c->argc > c->argv_len)) abort();
    size_t sum = 0;
    for (int j = 0; j < c->argc; j++) {
        robj *o = c->argv[j];
        if (o->type != OBJ_STRING || o->refcount < 1) abort();
        sds s = objectGetVal(o);
        if (strlen(s) > sdslen(s)) abort(); /* NUL-terminated at its length */
        if (s[sdslen(s)] != '\0') abort();
        sum += sdslen(s);
    }
    if (sum != c->argv_len_sum) abort();
}

/* Parses every complete request in the buffer. Returns 0 once the client
 * would be closed for a protocol error. */
static int parseAll(client *c) {
    while (c->qb_pos < sdslen(c->querybuf)) {
        if (parseClientRequest(c) != C_OK) break;
        checkRequest(c);
        resetClient(c);
    }
    if (c->qb_pos) {
        if (c->qb_pos == sdslen(c->querybuf)) sdsclear(c->querybuf);
        else sdsrange(c->querybuf, c->qb_pos, -1);
        c->qb_pos = 0;
    }
    return !(c->flags & CLIENT_CLOSE_AFTER_REPLY);
}

/* Called by libFuzzer for each input (data is only read, owned by
 * libFuzzer). Returns 0; a broken invariant aborts. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    uint8_t opts = data[0];
    const char *in = (const char *)data + 1;
    size_t len = size - 1, fed = 0;
    size_t chunk = (opts & 0x80) ? len : 1 + (opts & 0x3f);

    server.requirepass = (opts & 0x40) ? "secret" : NULL; /* stricter limits before AUTH */
    client *c = createClient(NULL);
    c->querybuf = sdsempty();
    while (fed < len) {
        size_t n = len - fed < chunk ? len - fed : chunk;
        c->querybuf = sdscatlen(c->querybuf, in + fed, n);
        fed += n;
        if (!parseAll(c)) break;
    }
    freeClient(c);
    server.requirepass = NULL;
    return 0;
}
