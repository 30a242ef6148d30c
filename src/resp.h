/* resp.h - RESP request parsing and reply encoding primitives.
 *
 * A leaf library (no server.h): the multibulk request parser as an
 * incremental state machine over a byte buffer, and the encoders for the
 * length-prefixed headers every reply uses. networking.c drives the parser
 * over a client's query buffer and turns its events into argument objects;
 * the unit tests drive it over hand-made byte strings. Inline requests are
 * split with sdssplitargs() and need nothing from here. */
#ifndef VK_RESP_H
#define VK_RESP_H

#include <stddef.h>

/* What respParseMultibulk() found. */
typedef enum {
    RESP_PARSE_NEED_MORE = 0, /* Nothing complete: read more bytes. */
    RESP_PARSE_COUNT,         /* "*<n>": n arguments follow (n <= 0: empty request). */
    RESP_PARSE_BULK_LEN,      /* "$<n>": the next argument is n bytes. */
    RESP_PARSE_ARG,           /* A whole argument; the request ends when args_left is 0. */
    RESP_PARSE_ERROR,         /* Protocol error; the reply text is in error. */
} respParseEvent;

typedef struct respMultibulkParser {
    /* Limits, set by the caller. */
    long long max_bulk_len;  /* proto-max-bulk-len */
    size_t max_line;         /* Longest "*<n>" / "$<n>" line before it is an error. */
    int unauthenticated;     /* Stricter limits for clients that did not AUTH. */
    /* Arguments shorter than this that are already complete in the buffer
     * come out as RESP_PARSE_ARG straight after their "$<n>" line, without
     * a RESP_PARSE_BULK_LEN event first (one call per argument instead of
     * two). 0, the default, reports every length. */
    long long quiet_len_below;
    /* State. */
    long long args_left;     /* Arguments still to read; 0 = a count line is next. */
    long long bulklen;       /* Length of the argument being read; -1 = its header is next. */
    char error[64];          /* "Protocol error: ..." when RESP_PARSE_ERROR. */
} respMultibulkParser;

#define RESP_UNAUTH_MAX_ARGS 10
#define RESP_UNAUTH_MAX_BULK 16384

void respParserInit(respMultibulkParser *p, long long max_bulk_len, size_t max_line);
void respParserReset(respMultibulkParser *p);
respParseEvent respParseMultibulk(respMultibulkParser *p, const char *buf, size_t len, size_t *pos,
                                  long long *value, const char **arg);

/* The one-pass path for a whole request already in buf (see resp.c):
 * returns its argument count n (1..max) with args/lens filled and *pos past
 * it, or 0 with nothing changed when respParseMultibulk() must be used. */
int respParseRequest(respMultibulkParser *p, const char *buf, size_t len, size_t *pos, const char **args,
                     size_t *lens, int max);
/* Writes "<prefix><n>\r\n" into dst (at least 24 bytes) and returns its
 * length: "*3\r\n", "$5\r\n", ":42\r\n", "%2\r\n" ... */
size_t respEncodeHeader(char *dst, char prefix, long long n);

/* Most bytes a bulk string adds around its payload: "$", 20 digits, and
 * two CRLFs. */
#define RESP_BULK_MAX_FRAMING 25

/* Writes the bulk string "$<len>\r\n<p>\r\n" into dst (at least
 * len + RESP_BULK_MAX_FRAMING bytes) and returns its length. */
size_t respEncodeBulk(char *dst, const void *p, size_t len);

#endif
