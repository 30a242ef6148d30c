/* fuzz_manifest.c - libFuzzer target for the AOF manifest parser (aof.c's
 * aofManifestParse: line reading with its 1024-byte limit and the final
 * newline, comments, blank and binary lines, sdssplitargs quoting, the
 * file/seq/type pairs, names that are paths, duplicate bases, incr
 * sequence numbers), which the server runs at start-up on
 * appenddirname/<appendfilename>.manifest and valkey-check-aof before it
 * opens any file the manifest names.
 *
 * Input: the manifest's bytes. What must hold beyond "no crash":
 *  - a refused manifest has a message, and a line number within the input
 *    (0 only for an empty file), with the line's text when it has one;
 *  - every file of an accepted manifest is a plain name in the AOF
 *    directory (not empty, no '/', '\\' or NUL, not "." or ".."), incr
 *    sequence numbers grow, every entry has its type;
 *  - the manifest written back (aofManifestToString, what the server
 *    persists) parses again to the same text, so the server can always
 *    restart on a manifest it wrote; a manifest of comments only lists
 *    nothing and writes as the empty text, which is refused as empty. */
#include "fuzz_server.h"

#include "aof.h"

/* Called by libFuzzer once, before the first input: sets the server up.
 * Returns 0. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    fuzzServerInit("loglevel warning");
    return 0;
}

/* Parses len bytes at text (a stream over them; fmemopen refuses 0 bytes,
 * so the empty input reads /dev/null). */
static aofManifest *parseBytes(const void *text, size_t len, aofManifestError *err) {
    FILE *fp = len ? fmemopen((void *)text, len, "r") : fopen("/dev/null", "r");
    if (fp == NULL) abort();
    aofManifest *m = aofManifestParse(fp, err);
    fclose(fp);
    return m;
}

static void checkName(aofInfo *ai, char type) {
    size_t len = sdslen(ai->name);
    if (ai->type != type || ai->seq <= 0 || len == 0) abort();
    for (size_t j = 0; j < len; j++)
        if (ai->name[j] == '/' || ai->name[j] == '\\' || ai->name[j] == '\0') abort();
    if (!strcmp(ai->name, ".") || !strcmp(ai->name, "..")) abort();
}

static void checkList(list *l, char type) {
    long long last = 0;
    listIter li;
    listNode *ln;
    listRewind(l, &li);
    while ((ln = listNext(&li))) {
        aofInfo *ai = listNodeValue(ln);
        checkName(ai, type);
        if (type == AOF_FILE_INCR && ai->seq <= last) abort();
        last = ai->seq;
    }
}

static void checkRefusal(aofManifestError *err, const uint8_t *data, size_t size) {
    size_t lines = 0;
    for (size_t j = 0; j < size; j++) lines += data[j] == '\n';
    if (err->msg == NULL || err->line < 0 || (size_t)err->line > lines + 1) abort();
    if ((err->line == 0) != (err->text == NULL)) abort();
    if (err->line == 0 && size != 0 && strcmp(err->msg, "Read AOF manifest failed") != 0) abort();
    aofManifestErrorLog(err); /* the log goes to /dev/null; frees err->text */
}

/* Called by libFuzzer for each input (data is only read, owned by
 * libFuzzer). Returns 0; a broken invariant aborts. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    aofManifestError err;
    aofManifest *m = parseBytes(data, size, &err);
    if (m == NULL) {
        checkRefusal(&err, data, size);
        return 0;
    }
    if (m->base) checkName(m->base, AOF_FILE_BASE);
    checkList(m->incr, AOF_FILE_INCR);
    checkList(m->history, AOF_FILE_HIST);

    sds text = aofManifestToString(m);
    aofManifest *again = parseBytes(text, sdslen(text), &err);
    if (sdslen(text) == 0) {
        if (again != NULL || strcmp(err.msg, "Found an empty AOF manifest") != 0) abort();
    } else {
        if (again == NULL) {
            fprintf(stderr, "fuzz_manifest: the written manifest is refused (%s):\n%s", err.msg, text);
            abort();
        }
        sds text2 = aofManifestToString(again);
        if (sdscmp(text, text2) != 0) {
            fprintf(stderr, "fuzz_manifest: the written manifest changes when read back:\n%s---\n%s", text, text2);
            abort();
        }
        sdsfree(text2);
        aofManifestFree(again);
    }
    sdsfree(err.text);
    sdsfree(text);
    aofManifestFree(m);
    return 0;
}
