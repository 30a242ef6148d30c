/* cli_output.h - how valkey-cli prints a reply: the terminal format, raw,
 * CSV and JSON. Pure functions from a cliReply tree to text (cli_output.c),
 * unit-tested in unit/test_cli_output.c. */
#ifndef VK_CLI_OUTPUT_H
#define VK_CLI_OUTPUT_H

#include "cli_reply.h"
#include "sds.h"

typedef enum {
    CLI_OUTPUT_STANDARD,   /* The terminal format: (integer) 1, "str", 1) ... */
    CLI_OUTPUT_RAW,        /* Bytes as they are, one element per line. */
    CLI_OUTPUT_CSV,
    CLI_OUTPUT_JSON,
    CLI_OUTPUT_QUOTED_JSON /* JSON with ASCII-only escaped strings. */
} cliOutputMode;

sds cliFormatReply(sds out, const cliReply *r, cliOutputMode mode);
sds cliFormatTTY(sds out, const cliReply *r, size_t indent);
sds cliFormatRaw(sds out, const cliReply *r);
sds cliFormatRawDelim(sds out, const cliReply *r, const char *delim);
sds cliFormatCSV(sds out, const cliReply *r);
sds cliFormatJSON(sds out, const cliReply *r, int quoted);

/* The mark that ends a Lua debugging session: the last line of the
 * debugger's last answer; the EVAL's own reply follows. */
#define CLI_LDB_END_MARK "<endsession>"

sds cliFormatLdbReply(sds out, const cliReply *r, int color, int *ended);

#endif
