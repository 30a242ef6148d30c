/* fuzz_reply.c - libFuzzer target for the tools' RESP2/RESP3 reply parser
 * (src/cli_reply.c: valkey-cli and valkey-benchmark parse server replies
 * with it, not with hiredis) and for the formatters that print what it
 * builds (src/cli_output.c).
 *
 * Input: the bytes a server (or anything posing as one) sends. Replies are
 * parsed one after the other as the tools do; each complete one is printed
 * in every output mode. A reply must never claim more bytes than it was
 * given, and every prefix of a complete reply must parse as incomplete or
 * as an error, never as a different complete reply. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli_output.h"
#include "cli_reply.h"
#include "sds.h"

static void formatAll(const cliReply *r) {
    static const cliOutputMode modes[] = {CLI_OUTPUT_STANDARD, CLI_OUTPUT_RAW, CLI_OUTPUT_CSV, CLI_OUTPUT_JSON,
                                          CLI_OUTPUT_QUOTED_JSON};
    for (size_t j = 0; j < sizeof(modes) / sizeof(modes[0]); j++) sdsfree(cliFormatReply(sdsempty(), r, modes[j]));
}

/* Called by libFuzzer for each input (data is only read, owned by
 * libFuzzer). Returns 0; a broken invariant aborts. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *buf = (const char *)data;
    size_t pos = 0;
    char err[256];
    while (pos < size) {
        cliReply *r = NULL;
        ssize_t n = cliReplyParse(buf + pos, size - pos, &r, err, sizeof(err));
        if (n <= 0) {
            if (r != NULL) abort(); /* no tree without a whole reply */
            break;
        }
        if ((size_t)n > size - pos) abort();
        /* One byte short of the whole reply is never a whole reply. */
        cliReply *shorter = NULL;
        if (cliReplyParse(buf + pos, (size_t)n - 1, &shorter, err, sizeof(err)) > 0) abort();
        if (shorter != NULL) abort();
        formatAll(r);
        cliReplyFree(r);
        pos += (size_t)n;
    }
    return 0;
}
