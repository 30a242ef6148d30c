/* fuzz_server.h - start-up shared by the fuzz targets that link the whole
 * server (request, restore, rdb, config, manifest): the server set up as
 * main() sets it up with the default configuration (initServerEmbedded),
 * without listeners, data or event loop, so that a target can call into
 * networking.c, rdb.c, config.c or aof.c directly. The log goes to /dev/null at
 * the level the target asks for (its code paths still run). */
#ifndef FUZZ_SERVER_H
#define FUZZ_SERVER_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server.h"

/* Sets the server up once; config is extra config text (log level...). */
static void fuzzServerInit(const char *config) {
    sds err = NULL;
    initServerEmbedded();
    if (loadServerConfigText("logfile /dev/null", &err) != C_OK || loadServerConfigText(config, &err) != C_OK) {
        fprintf(stderr, "fuzz: bad config: %s\n", err);
        abort();
    }
}

#endif
