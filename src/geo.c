/* geo.c - the GEO commands: GEOADD, GEOPOS, GEODIST, GEOHASH, GEOSEARCH,
 * GEOSEARCHSTORE and the older GEORADIUS / GEORADIUSBYMEMBER (and their
 * _RO forms).
 *
 * There is no geo type: a geo set is a sorted set whose scores are 52-bit
 * geohashes (geohash.h), so ZRANGE, ZREM, ZCARD and the RDB format all
 * work on it. GEOADD turns each longitude/latitude into a score and runs
 * ZADD. A search computes the cells covering its circle or box
 * (geohashSearchCells()), reads each cell's score range in score order,
 * keeps the points inside the shape with their distance, and sorts them
 * when asked (COUNT without ANY implies nearest first). The STORE forms
 * write a new sorted set of the results, scored by geohash or, with
 * STOREDIST, by distance.
 *
 * Replies follow Valkey's: distances as bulk strings with 4 decimals in
 * the unit asked, coordinates as human-formatted long doubles, results in
 * the order the cells are visited unless sorted. */
#include "geohash.h"
#include "server.h"

#include <math.h>

/* ---------------------------------------------------------------------------
 * Argument parsing
 * ------------------------------------------------------------------------- */

/* Meters per unit, or -1 (and the error replied). */
static double unitToMeters(client *c, robj *unit) {
    const char *u = objectGetVal(unit);
    if (!strcasecmp(u, "m")) return 1;
    if (!strcasecmp(u, "km")) return 1000;
    if (!strcasecmp(u, "ft")) return 0.3048;
    if (!strcasecmp(u, "mi")) return 1609.34;
    addReplyError(c, "unsupported unit provided. please use M, KM, FT, MI");
    return -1;
}

/* Reads "longitude latitude" at argv[0..1]. */
static int parseLonLatOrReply(client *c, robj **argv, double *lon, double *lat) {
    if (getDoubleFromObjectOrReply(c, argv[0], lon, NULL) != C_OK) return C_ERR;
    if (getDoubleFromObjectOrReply(c, argv[1], lat, NULL) != C_OK) return C_ERR;
    if (*lon < GEO_LONG_MIN || *lon > GEO_LONG_MAX || *lat < GEO_LAT_MIN || *lat > GEO_LAT_MAX) {
        addReplyErrorFormat(c, "invalid longitude,latitude pair %f,%f", *lon, *lat);
        return C_ERR;
    }
    return C_OK;
}

/* Reads "radius unit" at argv[0..1] into a circle shape. */
static int parseRadiusOrReply(client *c, robj **argv, GeoShape *shape, double *to_meters) {
    double radius;
    if (getDoubleFromObjectOrReply(c, argv[0], &radius, "need numeric radius") != C_OK) return C_ERR;
    if (radius < 0) {
        addReplyError(c, "radius cannot be negative");
        return C_ERR;
    }
    if ((*to_meters = unitToMeters(c, argv[1])) < 0) return C_ERR;
    shape->is_box = 0;
    shape->radius = radius * *to_meters;
    return C_OK;
}

/* Reads "width height unit" at argv[0..2] into a box shape. */
static int parseBoxOrReply(client *c, robj **argv, GeoShape *shape, double *to_meters) {
    double width, height;
    if (getDoubleFromObjectOrReply(c, argv[0], &width, "need numeric width") != C_OK) return C_ERR;
    if (getDoubleFromObjectOrReply(c, argv[1], &height, "need numeric height") != C_OK) return C_ERR;
    if (width < 0 || height < 0) {
        addReplyError(c, "height or width cannot be negative");
        return C_ERR;
    }
    if ((*to_meters = unitToMeters(c, argv[2])) < 0) return C_ERR;
    shape->is_box = 1;
    shape->width = width * *to_meters;
    shape->height = height * *to_meters;
    return C_OK;
}

/* The position of member in the geo set zobj. */
static int memberPosition(robj *zobj, robj *member, double *lon, double *lat) {
    double score;
    if (zobj == NULL || zsetTypeScore(zobj, objectGetVal(member), sdslen(objectGetVal(member)), &score) != C_OK) return C_ERR;
    return geohashDecodeScore(score, lon, lat) ? C_OK : C_ERR;
}

/* Coordinates: bulk strings in RESP2, doubles in RESP3, as Valkey. */
static void addReplyCoordinate(client *c, double v) {
    if (c->resp == 2) {
        addReplyLongDoubleAsHuman(c, v);
        return;
    }
    char buf[MAX_LONG_DOUBLE_CHARS];
    int len = ld2string(buf, sizeof(buf), v, LD_STR_HUMAN);
    addReplyProto(c, ",", 1);
    addReplyProto(c, buf, len);
    addReplyProto(c, "\r\n", 2);
}

static void addReplyDistance(client *c, double d) {
    char buf[128];
    int len = snprintf(buf, sizeof(buf), "%.4f", d);
    addReplyBulkCBuffer(c, buf, len);
}

/* ---------------------------------------------------------------------------
 * GEOADD, GEOPOS, GEODIST, GEOHASH
 * ------------------------------------------------------------------------- */

/* GEOADD key [NX | XX] [CH] longitude latitude member [...]: ZADD with the
 * positions turned into scores. */
static void geoaddCommand(client *c) {
    int nx = 0, xx = 0, first = 2;
    for (; first < c->argc; first++) {
        const char *opt = objectGetVal(c->argv[first]);
        if (!strcasecmp(opt, "nx")) nx = 1;
        else if (!strcasecmp(opt, "xx")) xx = 1;
        else if (strcasecmp(opt, "ch")) break; /* CH is ZADD's to handle */
    }
    if ((c->argc - first) % 3 || (nx && xx)) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    int points = (c->argc - first) / 3;
    int argc = first + points * 2;
    robj **argv = zcalloc(sizeof(robj *) * argc);
    argv[0] = createStringObject("zadd", 4);
    for (int j = 1; j < first; j++) {
        argv[j] = c->argv[j];
        incrRefCount(argv[j]);
    }
    for (int i = 0; i < points; i++) {
        double lon, lat;
        robj **point = c->argv + first + i * 3;
        if (parseLonLatOrReply(c, point, &lon, &lat) != C_OK) {
            for (int j = 0; j < argc; j++)
                if (argv[j]) decrRefCount(argv[j]);
            zfree(argv);
            return;
        }
        GeoHashBits hash;
        geohashEncodeWGS84(lon, lat, GEO_STEP_MAX, &hash);
        argv[first + i * 2] = createStringObjectFromLongLong((long long)geohashAlign52(hash));
        argv[first + i * 2 + 1] = point[2];
        incrRefCount(point[2]);
    }
    replaceClientCommandVector(c, argc, argv);
    zaddCommand(c);
}

/* Looks the geo set up for a read: NULL (and the reply `missing` sent) if
 * absent, NULL with WRONGTYPE if not a sorted set. */
static robj *lookupGeoSetOrReply(client *c, robj *key, robj *missing, int *done) {
    robj *zobj = lookupKeyRead(c->db, key);
    *done = 0;
    if (zobj == NULL) {
        if (missing) addReply(c, missing);
        *done = missing != NULL;
        return NULL;
    }
    if (checkType(c, zobj, OBJ_ZSET)) {
        *done = 1;
        return NULL;
    }
    return zobj;
}

/* GEOPOS key [member ...]: [longitude, latitude] or null per member. */
static void geoposCommand(client *c) {
    int done;
    robj *zobj = lookupGeoSetOrReply(c, c->argv[1], NULL, &done);
    if (done) return;
    addReplyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) {
        double lon, lat;
        if (memberPosition(zobj, c->argv[j], &lon, &lat) != C_OK) {
            addReplyNullArray(c);
            continue;
        }
        addReplyArrayLen(c, 2);
        addReplyCoordinate(c, lon);
        addReplyCoordinate(c, lat);
    }
}

/* GEODIST key member1 member2 [unit] */
static void geodistCommand(client *c) {
    double to_meters = 1;
    if (c->argc == 5) {
        if ((to_meters = unitToMeters(c, c->argv[4])) < 0) return;
    } else if (c->argc > 5) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    int done;
    robj *zobj = lookupGeoSetOrReply(c, c->argv[1], shared.null[c->resp], &done);
    if (done) return;
    double lon1, lat1, lon2, lat2;
    if (memberPosition(zobj, c->argv[2], &lon1, &lat1) != C_OK ||
        memberPosition(zobj, c->argv[3], &lon2, &lat2) != C_OK) {
        addReplyNull(c);
        return;
    }
    addReplyDistance(c, geohashDistance(lon1, lat1, lon2, lat2) / to_meters);
}

/* GEOHASH key [member ...]: the standard 11-character geohash strings. */
static void geohashCommand(client *c) {
    int done;
    robj *zobj = lookupGeoSetOrReply(c, c->argv[1], NULL, &done);
    if (done) return;
    addReplyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) {
        double score;
        char buf[12];
        sds member = objectGetVal(c->argv[j]);
        if (zobj == NULL || zsetTypeScore(zobj, member, sdslen(member), &score) != C_OK ||
            !geohashScoreToString(score, buf)) {
            addReplyNull(c);
            continue;
        }
        addReplyBulkCBuffer(c, buf, 11);
    }
}

/* ---------------------------------------------------------------------------
 * Searching
 * ------------------------------------------------------------------------- */

typedef struct geoPoint {
    double lon, lat, dist, score;
    sds member;
} geoPoint;

typedef struct geoResults {
    geoPoint *points;
    size_t used, size;
    const GeoShape *shape;
    size_t limit; /* COUNT ... ANY: stop once this many are found; 0 = none */
} geoResults;

static int collectIfInShape(void *ctx, const char *ele, size_t len, double score) {
    geoResults *r = ctx;
    if (r->limit && r->used >= r->limit) return 0;
    double lon, lat, dist;
    if (!geohashDecodeScore(score, &lon, &lat) || !geohashInShape(r->shape, lon, lat, &dist)) return 1;
    if (r->used == r->size) {
        r->size = r->size ? r->size * 2 : 16;
        r->points = zrealloc(r->points, sizeof(geoPoint) * r->size);
    }
    geoPoint *p = &r->points[r->used++];
    p->lon = lon;
    p->lat = lat;
    p->dist = dist;
    p->score = score;
    p->member = sdsnewlen(ele, len);
    return 1;
}

/* Scans the cells of the search in order; a cell equal to the one scanned
 * just before (huge radii make neighbours coincide) is skipped. */
static void collectPoints(robj *zobj, const GeoHashSearch *search, geoResults *r) {
    int last = -1;
    for (int i = 0; i < GEO_CELLS; i++) {
        GeoHashBits cell = search->cells[i];
        if (cell.bits == 0 && cell.step == 0) continue;
        if (last >= 0 && cell.bits == search->cells[last].bits && cell.step == search->cells[last].step) continue;
        if (r->limit && r->used >= r->limit) break;
        GeoHashBits next = {.bits = cell.bits + 1, .step = cell.step};
        zsetTypeScanScores(zobj, (double)geohashAlign52(cell), (double)geohashAlign52(next), collectIfInShape, r);
        last = i;
    }
}

static int compareAscending(const void *a, const void *b) {
    double da = ((const geoPoint *)a)->dist, db = ((const geoPoint *)b)->dist;
    return da < db ? -1 : (da > db ? 1 : 0);
}

static int compareDescending(const void *a, const void *b) {
    return compareAscending(b, a);
}

/* Which command is parsing. */
#define GEO_BY_COORDS 1   /* GEORADIUS[_RO] key lon lat radius unit */
#define GEO_BY_MEMBER 2   /* GEORADIUSBYMEMBER[_RO] key member radius unit */
#define GEO_SEARCH 4      /* GEOSEARCH key ... */
#define GEO_SEARCHSTORE 8 /* GEOSEARCHSTORE dst key ... (with GEO_SEARCH) */
#define GEO_NO_STORE 16   /* the _RO forms */

#define SORT_NONE 0
#define SORT_ASC 1
#define SORT_DESC 2

typedef struct geoSearchArgs {
    GeoShape shape;
    double to_meters;
    int withdist, withhash, withcoord, any, sort, storedist;
    long long count;
    robj *storekey, *frommember;
} geoSearchArgs;

/* Parses the options after the fixed arguments (from argv[first]).
 * Returns C_ERR with the error replied. */
static int parseSearchOptions(client *c, int first, int flags, geoSearchArgs *a) {
    int fromloc = 0, byradius = 0, bybox = 0, search = flags & GEO_SEARCH;
    for (int i = first; i < c->argc; i++) {
        const char *arg = objectGetVal(c->argv[i]);
        int remaining = c->argc - i - 1;
        int may_store = !(flags & (GEO_NO_STORE | GEO_SEARCH));
        if (!strcasecmp(arg, "withdist")) {
            a->withdist = 1;
        } else if (!strcasecmp(arg, "withhash")) {
            a->withhash = 1;
        } else if (!strcasecmp(arg, "withcoord")) {
            a->withcoord = 1;
        } else if (!strcasecmp(arg, "any")) {
            a->any = 1;
        } else if (!strcasecmp(arg, "asc")) {
            a->sort = SORT_ASC;
        } else if (!strcasecmp(arg, "desc")) {
            a->sort = SORT_DESC;
        } else if (!strcasecmp(arg, "count") && remaining >= 1) {
            if (getLongLongFromObjectOrReply(c, c->argv[i + 1], &a->count, NULL) != C_OK) return C_ERR;
            if (a->count <= 0) {
                addReplyError(c, "COUNT must be > 0");
                return C_ERR;
            }
            i++;
        } else if ((!strcasecmp(arg, "store") || !strcasecmp(arg, "storedist")) && remaining >= 1 && may_store) {
            a->storekey = c->argv[i + 1];
            a->storedist = !strcasecmp(arg, "storedist");
            i++;
        } else if (!strcasecmp(arg, "storedist") && (flags & GEO_SEARCHSTORE)) {
            a->storedist = 1;
        } else if (!strcasecmp(arg, "frommember") && remaining >= 1 && search && !a->frommember && !fromloc) {
            a->frommember = c->argv[++i];
        } else if (!strcasecmp(arg, "fromlonlat") && remaining >= 2 && search && !a->frommember && !fromloc) {
            if (parseLonLatOrReply(c, c->argv + i + 1, &a->shape.lon, &a->shape.lat) != C_OK) return C_ERR;
            fromloc = 1;
            i += 2;
        } else if (!strcasecmp(arg, "byradius") && remaining >= 2 && search && !byradius && !bybox) {
            if (parseRadiusOrReply(c, c->argv + i + 1, &a->shape, &a->to_meters) != C_OK) return C_ERR;
            byradius = 1;
            i += 2;
        } else if (!strcasecmp(arg, "bybox") && remaining >= 3 && search && !byradius && !bybox) {
            if (parseBoxOrReply(c, c->argv + i + 1, &a->shape, &a->to_meters) != C_OK) return C_ERR;
            bybox = 1;
            i += 3;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return C_ERR;
        }
    }

    if (a->storekey && (a->withdist || a->withhash || a->withcoord)) {
        addReplyErrorFormat(c, "%s is not compatible with WITHDIST, WITHHASH and WITHCOORD options",
                            (flags & GEO_SEARCHSTORE) ? "GEOSEARCHSTORE" : "STORE option in GEORADIUS");
        return C_ERR;
    }
    if (search && !a->frommember && !fromloc) {
        addReplyErrorFormat(c, "exactly one of FROMMEMBER or FROMLONLAT can be specified for %s",
                            c->cmd->fullname);
        return C_ERR;
    }
    if (search && !byradius && !bybox) {
        addReplyErrorFormat(c, "exactly one of BYRADIUS and BYBOX can be specified for %s", c->cmd->fullname);
        return C_ERR;
    }
    if (a->any && !a->count) {
        addReplyError(c, "the ANY argument requires COUNT argument");
        return C_ERR;
    }
    return C_OK;
}

static void replyResults(client *c, geoSearchArgs *a, geoResults *r, size_t n) {
    int options = a->withdist + a->withhash + a->withcoord;
    addReplyArrayLen(c, n);
    for (size_t i = 0; i < n; i++) {
        geoPoint *p = &r->points[i];
        if (options) addReplyArrayLen(c, options + 1);
        addReplyBulkCBuffer(c, p->member, sdslen(p->member));
        if (a->withdist) addReplyDistance(c, p->dist / a->to_meters);
        if (a->withhash) addReplyLongLong(c, (long long)p->score);
        if (a->withcoord) {
            addReplyArrayLen(c, 2);
            addReplyCoordinate(c, p->lon);
            addReplyCoordinate(c, p->lat);
        }
    }
}

static void storeResults(client *c, geoSearchArgs *a, geoResults *r, size_t n, int flags) {
    /* Built as a skiplist (what zsetTypeAddNew() adds to), made a listpack
     * below when it is small enough. */
    robj *result = zsetTypeCreate(n, SIZE_MAX);
    size_t maxelelen = 0, totelelen = 0;
    for (size_t i = 0; i < n; i++) {
        geoPoint *p = &r->points[i];
        size_t len = sdslen(p->member);
        if (len > maxelelen) maxelelen = len;
        totelelen += len;
        zsetTypeAddNew(result, p->member, len, a->storedist ? p->dist / a->to_meters : p->score);
    }
    zsetConvertToListpackIfNeeded(result, maxelelen, totelelen);
    zsetTypeStoreResult(c, a->storekey, result, (flags & GEO_SEARCH) ? "geosearchstore" : "georadiusstore");
}

/* The common body of every search command; srckey is at argv[src]. */
static void geoSearchGeneric(client *c, int src, int flags) {
    geoSearchArgs a = {.to_meters = 1};
    robj *zobj = lookupKeyRead(c->db, c->argv[src]);
    if (checkType(c, zobj, OBJ_ZSET)) return;

    int first;
    if (flags & GEO_BY_COORDS) {
        first = 6;
        if (parseLonLatOrReply(c, c->argv + 2, &a.shape.lon, &a.shape.lat) != C_OK) return;
        if (parseRadiusOrReply(c, c->argv + 4, &a.shape, &a.to_meters) != C_OK) return;
    } else if (flags & GEO_BY_MEMBER) {
        first = 5;
        /* Without the key, the options are still checked before the empty
         * reply (which depends on STORE). */
        if (zobj) {
            if (memberPosition(zobj, c->argv[2], &a.shape.lon, &a.shape.lat) != C_OK) {
                addReplyError(c, "could not decode requested zset member");
                return;
            }
            if (parseRadiusOrReply(c, c->argv + 3, &a.shape, &a.to_meters) != C_OK) return;
        }
    } else {
        first = (flags & GEO_SEARCHSTORE) ? 3 : 2;
        if (flags & GEO_SEARCHSTORE) a.storekey = c->argv[1];
    }
    if (parseSearchOptions(c, first, flags, &a) != C_OK) return;

    if (zobj == NULL) {
        if (a.storekey) {
            if (dbDelete(c->db, a.storekey)) {
                signalModifiedKey(c, c->db, a.storekey);
                notifyKeyspaceEvent(NOTIFY_GENERIC, "del", a.storekey, c->db->id);
                server.dirty++;
            }
            addReply(c, shared.czero);
        } else {
            addReply(c, shared.emptyarray);
        }
        return;
    }
    if (a.frommember && memberPosition(zobj, a.frommember, &a.shape.lon, &a.shape.lat) != C_OK) {
        addReplyError(c, "could not decode requested zset member");
        return;
    }
    /* COUNT without ANY wants the nearest ones. */
    if (a.count && a.sort == SORT_NONE && !a.any) a.sort = SORT_ASC;

    GeoHashSearch search;
    geohashSearchCells(&a.shape, &search);
    geoResults r = {.shape = &a.shape, .limit = a.any ? (size_t)a.count : 0};
    collectPoints(zobj, &search, &r);

    if (a.sort != SORT_NONE && r.used > 1)
        qsort(r.points, r.used, sizeof(geoPoint), a.sort == SORT_ASC ? compareAscending : compareDescending);
    size_t n = (a.count == 0 || r.used < (size_t)a.count) ? r.used : (size_t)a.count;
    if (a.storekey) storeResults(c, &a, &r, n, flags);
    else replyResults(c, &a, &r, n);

    for (size_t i = 0; i < r.used; i++) sdsfree(r.points[i].member);
    zfree(r.points);
}

static void georadiusCommand(client *c) {
    geoSearchGeneric(c, 1, GEO_BY_COORDS);
}

static void georadiusroCommand(client *c) {
    geoSearchGeneric(c, 1, GEO_BY_COORDS | GEO_NO_STORE);
}

static void georadiusbymemberCommand(client *c) {
    geoSearchGeneric(c, 1, GEO_BY_MEMBER);
}

static void georadiusbymemberroCommand(client *c) {
    geoSearchGeneric(c, 1, GEO_BY_MEMBER | GEO_NO_STORE);
}

static void geosearchCommand(client *c) {
    geoSearchGeneric(c, 1, GEO_SEARCH);
}

static void geosearchstoreCommand(client *c) {
    geoSearchGeneric(c, 2, GEO_SEARCH | GEO_SEARCHSTORE);
}

/* ---------------------------------------------------------------------------
 * Command table
 * ------------------------------------------------------------------------- */

/* GEORADIUS and GEORADIUSBYMEMBER: the source key, and the STORE or
 * STOREDIST key when given (the last one wins, as the command takes it). */
static int georadiusGetKeys(struct serverCommand *cmd, robj **argv, int argc, int *keys, int maxkeys) {
    int n = 0, store = 0;
    int first = cmd->proc == georadiusCommand ? 6 : 5;
    for (int i = first; i < argc - 1; i++) {
        const char *arg = objectGetVal(argv[i]);
        if (!strcasecmp(arg, "store") || !strcasecmp(arg, "storedist")) store = ++i;
    }
    if (argc < 2) return 0;
    if (n < maxkeys) keys[n] = 1;
    n++;
    if (store) {
        if (n < maxkeys) keys[n] = store;
        n++;
    }
    return n < maxkeys ? n : maxkeys;
}

#define GEO_SEARCH_ARGS                                                                                          \
    "[ASC | DESC] [COUNT count:integer [ANY]] [WITHCOORD] [WITHDIST] [WITHHASH]"
#define GEO_RADIUS_COMPLEXITY                                                                                    \
    "O(N+log(M)) where N is the number of elements inside the bounding box of the circular area delimited by " \
    "center and radius and M is the number of items inside the index."

struct serverCommand geoCommands[] = {
    {.name = "geoadd", .proc = geoaddCommand, .arity = -5, .flags = CMD_WRITE | CMD_DENYOOM,
     .acl_categories = ACL_CATEGORY_GEO, .key = {1, 1, 1}, .group = "geo", .since = "3.2.0",
     .summary = "Adds one or more members to a geospatial index. The key is created if it doesn't exist.",
     .complexity = "O(log(N)) for each item added, where N is the number of elements in the sorted set.",
     .args = "key [condition=[NX | XX]] [change=CH] longitude:double latitude:double member "
             "[longitude:double latitude:double member ...]"},
    {.name = "geopos", .proc = geoposCommand, .arity = -2, .flags = CMD_READONLY,
     .acl_categories = ACL_CATEGORY_GEO, .key = {1, 1, 1}, .group = "geo", .since = "3.2.0",
     .summary = "Returns the longitude and latitude of members from a geospatial index.",
     .complexity = "O(1) for each member requested.", .args = "key [member [member ...]]"},
    {.name = "geodist", .proc = geodistCommand, .arity = -4, .flags = CMD_READONLY,
     .acl_categories = ACL_CATEGORY_GEO, .key = {1, 1, 1}, .group = "geo", .since = "3.2.0",
     .summary = "Returns the distance between two members of a geospatial index.", .complexity = "O(1)",
     .args = "key member1 member2 [unit=<M | KM | FT | MI>]"},
    {.name = "geohash", .proc = geohashCommand, .arity = -2, .flags = CMD_READONLY,
     .acl_categories = ACL_CATEGORY_GEO, .key = {1, 1, 1}, .group = "geo", .since = "3.2.0",
     .summary = "Returns members from a geospatial index as geohash strings.",
     .complexity = "O(1) for each member requested.", .args = "key [member [member ...]]"},
    {.name = "georadius", .proc = georadiusCommand, .arity = -6, .flags = CMD_WRITE | CMD_DENYOOM | CMD_MOVABLE_KEYS,
     .acl_categories = ACL_CATEGORY_GEO, .key = {1, 1, 1}, .getkeys_proc = georadiusGetKeys, .group = "geo",
     .since = "3.2.0",
     .summary = "Queries a geospatial index for members within a distance from a coordinate, optionally stores "
                "the result.",
     .complexity = GEO_RADIUS_COMPLEXITY,
     .args = "key longitude:double latitude:double radius:double unit=<M | KM | FT | MI> " GEO_SEARCH_ARGS
             " [store=<STORE key | STOREDIST key>]"},
    {.name = "georadius_ro", .proc = georadiusroCommand, .arity = -6, .flags = CMD_READONLY,
     .acl_categories = ACL_CATEGORY_GEO, .key = {1, 1, 1}, .group = "geo", .since = "3.2.10",
     .summary = "Returns members from a geospatial index that are within a distance from a coordinate.",
     .complexity = GEO_RADIUS_COMPLEXITY,
     .args = "key longitude:double latitude:double radius:double unit=<M | KM | FT | MI> " GEO_SEARCH_ARGS},
    {.name = "georadiusbymember", .proc = georadiusbymemberCommand, .arity = -5,
     .flags = CMD_WRITE | CMD_DENYOOM | CMD_MOVABLE_KEYS, .acl_categories = ACL_CATEGORY_GEO,
     .key = {1, 1, 1}, .getkeys_proc = georadiusGetKeys, .group = "geo", .since = "3.2.0",
     .summary = "Queries a geospatial index for members within a distance from a member, optionally stores the "
                "result.",
     .complexity = GEO_RADIUS_COMPLEXITY,
     .args = "key member radius:double unit=<M | KM | FT | MI> " GEO_SEARCH_ARGS
             " [store=<STORE key | STOREDIST key>]"},
    {.name = "georadiusbymember_ro", .proc = georadiusbymemberroCommand, .arity = -5, .flags = CMD_READONLY,
     .acl_categories = ACL_CATEGORY_GEO, .key = {1, 1, 1}, .group = "geo", .since = "3.2.10",
     .summary = "Returns members from a geospatial index that are within a distance from a member.",
     .complexity = GEO_RADIUS_COMPLEXITY,
     .args = "key member radius:double unit=<M | KM | FT | MI> " GEO_SEARCH_ARGS},
    {.name = "geosearch", .proc = geosearchCommand, .arity = -7, .flags = CMD_READONLY,
     .acl_categories = ACL_CATEGORY_GEO, .key = {1, 1, 1}, .group = "geo", .since = "6.2.0",
     .summary = "Queries a geospatial index for members inside an area of a box or a circle.",
     .complexity = "O(N+log(M)) where N is the number of elements in the grid-aligned bounding box area around "
                   "the shape provided as the filter and M is the number of items inside the shape",
     .args = "key from=<FROMMEMBER member | FROMLONLAT longitude:double latitude:double> by=<BYRADIUS "
             "radius:double unit=<M | KM | FT | MI> | BYBOX width:double height:double unit=<M | KM | FT | MI>> "
             GEO_SEARCH_ARGS},
    {.name = "geosearchstore", .proc = geosearchstoreCommand, .arity = -8, .flags = CMD_WRITE | CMD_DENYOOM,
     .acl_categories = ACL_CATEGORY_GEO, .key = {1, 2, 1}, .group = "geo", .since = "6.2.0",
     .summary = "Queries a geospatial index for members inside an area of a box or a circle, optionally stores "
                "the result.",
     .complexity = "O(N+log(M)) where N is the number of elements in the grid-aligned bounding box area around "
                   "the shape provided as the filter and M is the number of items inside the shape",
     .args = "destination source from=<FROMMEMBER member | FROMLONLAT longitude:double latitude:double> "
             "by=<BYRADIUS radius:double unit=<M | KM | FT | MI> | BYBOX width:double height:double unit=<M | KM | "
             "FT | MI>> [ASC | DESC] [COUNT count:integer [ANY]] [STOREDIST]"},
    {0},
};
