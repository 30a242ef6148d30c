/* dump.h - DUMP payloads: an RDB-encoded value (or, for FUNCTION DUMP,
 * function records) followed by a 2-byte little-endian RDB version and an
 * 8-byte little-endian CRC-64 of everything before it. dump.c implements
 * DUMP/RESTORE on top of these; functions.c seals its payloads the same way;
 * migrate.c sends them to another server (MIGRATE). */
#ifndef DUMP_H
#define DUMP_H

#include <stddef.h>

#include "sds.h"

/* Appends the version and checksum to body and returns the payload (body
 * may have moved, as with any sds append). */
sds dumpPayloadSeal(sds body);

/* Returns the DUMP payload of the value o (type byte, body, version,
 * checksum) as a new sds the caller owns. o is only read. Used by DUMP and
 * by MIGRATE (migrate.c). */
struct serverObject;
sds dumpCreatePayload(struct serverObject *o);

/* C_OK when p[0..len) is a payload of an RDB version we read whose
 * checksum matches; *bodylen then gets the length of what precedes the
 * trailer. C_ERR otherwise. */
int dumpPayloadVerify(const unsigned char *p, size_t len, size_t *bodylen);

/* Decodes the value of a verified payload body (RESTORE; the fuzz target
 * fuzz/fuzz_restore.c). Returns a new object, or NULL when the body is not
 * one whole, valid, non-empty value. */
struct serverObject *restoreDecodeValue(const unsigned char *body, size_t len);

#endif
