/* geohash.c - geohash encoding, cells, neighbours and distances for the
 * GEO commands. See geohash.h for the representation. The arithmetic is
 * done in the same order as Valkey's, so that the same input gives the
 * same bits, the same decoded coordinates and the same search cells: the
 * stored scores are shared with it through RDB files. */
#include "geohash.h"

#include <math.h>
#include <stddef.h>

#define GEO_MERCATOR_MAX 20037726.37 /* half the equator of the projection, meters */

static const GeoHashRange lonRangeWGS84 = {GEO_LONG_MIN, GEO_LONG_MAX};
static const GeoHashRange latRangeWGS84 = {GEO_LAT_MIN, GEO_LAT_MAX};

static double degToRad(double d) {
    return d * (M_PI / 180.0);
}

static double radToDeg(double r) {
    return r / (M_PI / 180.0);
}

/* ---------------------------------------------------------------------------
 * Bit interleaving
 * ------------------------------------------------------------------------- */

/* Moves bit i of x to bit 2i. */
static uint64_t spreadBits(uint32_t x) {
    uint64_t v = x;
    v = (v | (v << 16)) & 0x0000FFFF0000FFFFULL;
    v = (v | (v << 8)) & 0x00FF00FF00FF00FFULL;
    v = (v | (v << 4)) & 0x0F0F0F0F0F0F0F0FULL;
    v = (v | (v << 2)) & 0x3333333333333333ULL;
    v = (v | (v << 1)) & 0x5555555555555555ULL;
    return v;
}

/* Moves bit 2i of v to bit i (the odd bits are dropped). */
static uint32_t squeezeBits(uint64_t v) {
    v &= 0x5555555555555555ULL;
    v = (v | (v >> 1)) & 0x3333333333333333ULL;
    v = (v | (v >> 2)) & 0x0F0F0F0F0F0F0F0FULL;
    v = (v | (v >> 4)) & 0x00FF00FF00FF00FFULL;
    v = (v | (v >> 8)) & 0x0000FFFF0000FFFFULL;
    v = (v | (v >> 16)) & 0x00000000FFFFFFFFULL;
    return (uint32_t)v;
}

/* Latitude cell index in the even bits, longitude in the odd ones. */
static uint64_t interleave(uint32_t lat_index, uint32_t lon_index) {
    return spreadBits(lat_index) | (spreadBits(lon_index) << 1);
}

static void deinterleave(uint64_t bits, uint32_t *lat_index, uint32_t *lon_index) {
    *lat_index = squeezeBits(bits);
    *lon_index = squeezeBits(bits >> 1);
}

/* ---------------------------------------------------------------------------
 * Encoding and decoding
 * ------------------------------------------------------------------------- */

int geohashEncode(const GeoHashRange *lon_range, const GeoHashRange *lat_range, double lon, double lat, uint8_t step,
                  GeoHashBits *hash) {
    if (step == 0 || step > 32) return 0;
    if (lon > GEO_LONG_MAX || lon < GEO_LONG_MIN || lat > GEO_LAT_MAX || lat < GEO_LAT_MIN) return 0;
    hash->bits = 0;
    hash->step = step;
    if (lat < lat_range->min || lat > lat_range->max || lon < lon_range->min || lon > lon_range->max) return 0;
    double lat_offset = (lat - lat_range->min) / (lat_range->max - lat_range->min);
    double lon_offset = (lon - lon_range->min) / (lon_range->max - lon_range->min);
    lat_offset *= (double)(1ULL << step);
    lon_offset *= (double)(1ULL << step);
    /* The top edge gives an index of 2^step: kept as is, as Valkey does
     * (it lands one cell beyond, which a search then steps back from). */
    hash->bits = interleave((uint32_t)lat_offset, (uint32_t)lon_offset);
    return 1;
}

int geohashEncodeWGS84(double lon, double lat, uint8_t step, GeoHashBits *hash) {
    return geohashEncode(&lonRangeWGS84, &latRangeWGS84, lon, lat, step, hash);
}

int geohashDecode(const GeoHashRange *lon_range, const GeoHashRange *lat_range, GeoHashBits hash,
                  GeoHashArea *area) {
    if (hash.bits == 0 && hash.step == 0) return 0;
    area->hash = hash;
    uint32_t lat_index, lon_index;
    deinterleave(hash.bits, &lat_index, &lon_index);
    double lat_scale = lat_range->max - lat_range->min;
    double lon_scale = lon_range->max - lon_range->min;
    double cells = (double)(1ULL << hash.step);
    area->latitude.min = lat_range->min + (lat_index * 1.0 / cells) * lat_scale;
    area->latitude.max = lat_range->min + ((lat_index + 1) * 1.0 / cells) * lat_scale;
    area->longitude.min = lon_range->min + (lon_index * 1.0 / cells) * lon_scale;
    area->longitude.max = lon_range->min + ((lon_index + 1) * 1.0 / cells) * lon_scale;
    return 1;
}

static double clamp(double v, double min, double max) {
    return v > max ? max : (v < min ? min : v);
}

int geohashDecodeScore(double score, double *lon, double *lat) {
    GeoHashBits hash = {.bits = (uint64_t)score, .step = GEO_STEP_MAX};
    GeoHashArea area;
    if (!geohashDecode(&lonRangeWGS84, &latRangeWGS84, hash, &area)) return 0;
    *lon = clamp((area.longitude.min + area.longitude.max) / 2, GEO_LONG_MIN, GEO_LONG_MAX);
    *lat = clamp((area.latitude.min + area.latitude.max) / 2, GEO_LAT_MIN, GEO_LAT_MAX);
    return 1;
}

uint64_t geohashAlign52(GeoHashBits hash) {
    return hash.bits << (52 - hash.step * 2);
}

int geohashScoreToString(double score, char *buf) {
    static const char alphabet[] = "0123456789bcdefghjkmnpqrstuvwxyz";
    /* Stored scores use the Mercator latitude limits; a standard geohash
     * string uses -90..90, so the point is encoded again for it. */
    static const GeoHashRange lat_std = {-90, 90};
    double lon, lat;
    GeoHashBits hash;
    if (!geohashDecodeScore(score, &lon, &lat)) return 0;
    geohashEncode(&lonRangeWGS84, &lat_std, lon, lat, GEO_STEP_MAX, &hash);
    for (int i = 0; i < 11; i++) {
        /* 52 bits make 10 characters and 2 bits: the 11th is '0'. */
        int idx = i == 10 ? 0 : (int)((hash.bits >> (52 - (i + 1) * 5)) & 0x1f);
        buf[i] = alphabet[idx];
    }
    buf[11] = '\0';
    return 1;
}

/* ---------------------------------------------------------------------------
 * Distances and shapes
 * ------------------------------------------------------------------------- */

static double latitudeDistance(double lat1, double lat2) {
    return GEO_EARTH_RADIUS * fabs(degToRad(lat2) - degToRad(lat1));
}

double geohashDistance(double lon1, double lat1, double lon2, double lat2) {
    double v = sin((degToRad(lon2) - degToRad(lon1)) / 2);
    /* Same meridian: the haversine reduces to the latitude difference. */
    if (v == 0.0) return latitudeDistance(lat1, lat2);
    double lat1r = degToRad(lat1), lat2r = degToRad(lat2);
    double u = sin((lat2r - lat1r) / 2);
    double a = u * u + cos(lat1r) * cos(lat2r) * v * v;
    return 2.0 * GEO_EARTH_RADIUS * asin(sqrt(a));
}

int geohashInShape(const GeoShape *shape, double lon, double lat, double *dist) {
    if (!shape->is_box) {
        *dist = geohashDistance(shape->lon, shape->lat, lon, lat);
        return *dist <= shape->radius;
    }
    /* A box: the north-south offset along the meridian, the east-west one
     * along the point's own parallel. */
    if (latitudeDistance(lat, shape->lat) > shape->height / 2) return 0;
    if (geohashDistance(lon, lat, shape->lon, lat) > shape->width / 2) return 0;
    *dist = geohashDistance(shape->lon, shape->lat, lon, lat);
    return 1;
}

/* The shape's bounding box: {min lon, min lat, max lon, max lat}. The
 * longitude span is taken at the latitude edge nearer the pole, where a
 * degree of longitude is shortest. */
static void boundingBox(const GeoShape *shape, double bounds[4]) {
    double height = shape->is_box ? shape->height / 2 : shape->radius;
    double width = shape->is_box ? shape->width / 2 : shape->radius;
    double lat_delta = radToDeg(height / GEO_EARTH_RADIUS);
    double lon_delta_top = radToDeg(width / GEO_EARTH_RADIUS / cos(degToRad(shape->lat + lat_delta)));
    double lon_delta_bottom = radToDeg(width / GEO_EARTH_RADIUS / cos(degToRad(shape->lat - lat_delta)));
    int southern = shape->lat < 0;
    bounds[0] = shape->lon - (southern ? lon_delta_bottom : lon_delta_top);
    bounds[2] = shape->lon + (southern ? lon_delta_bottom : lon_delta_top);
    bounds[1] = shape->lat - lat_delta;
    bounds[3] = shape->lat + lat_delta;
}

/* The precision whose cells are about as large as the search. */
static uint8_t stepsForRadius(double radius, double lat) {
    if (radius == 0) return GEO_STEP_MAX;
    int step = 1;
    while (radius < GEO_MERCATOR_MAX) {
        radius *= 2;
        step++;
    }
    step -= 2; /* so that the cell and its neighbours hold the radius in most cases */
    /* Cells narrow towards the poles: go coarser there. */
    if (lat > 66 || lat < -66) {
        step--;
        if (lat > 80 || lat < -80) step--;
    }
    if (step < 1) step = 1;
    if (step > GEO_STEP_MAX) step = GEO_STEP_MAX;
    return (uint8_t)step;
}

/* The cell dx cells east and dy cells north of h, wrapping around. A
 * coordinate that does not move is left as it is, even an index one past
 * the edge (see geohashEncode()), as Valkey leaves it. */
static GeoHashBits moveCell(GeoHashBits h, int dx, int dy) {
    uint32_t lat_index, lon_index;
    deinterleave(h.bits, &lat_index, &lon_index);
    uint64_t mask = (1ULL << h.step) - 1;
    if (dx) lon_index = (uint32_t)(((uint64_t)lon_index + (uint64_t)(int64_t)dx) & mask);
    if (dy) lat_index = (uint32_t)(((uint64_t)lat_index + (uint64_t)(int64_t)dy) & mask);
    GeoHashBits moved = {.bits = interleave(lat_index, lon_index), .step = h.step};
    return moved;
}

static void centerAndNeighbours(const GeoShape *shape, uint8_t steps, GeoHashSearch *search) {
    static const int moves[GEO_CELLS][2] = {
        [GEO_NORTH] = {0, 1},       [GEO_SOUTH] = {0, -1},      [GEO_EAST] = {1, 0},
        [GEO_WEST] = {-1, 0},       [GEO_NORTH_EAST] = {1, 1},  [GEO_NORTH_WEST] = {-1, 1},
        [GEO_SOUTH_EAST] = {1, -1}, [GEO_SOUTH_WEST] = {-1, -1},
    };
    GeoHashBits center;
    geohashEncodeWGS84(shape->lon, shape->lat, steps, &center);
    search->cells[GEO_CENTER] = center;
    for (int j = GEO_NORTH; j < GEO_CELLS; j++) search->cells[j] = moveCell(center, moves[j][0], moves[j][1]);
    geohashDecode(&lonRangeWGS84, &latRangeWGS84, center, &search->area);
}

static void zeroCells(GeoHashSearch *search, int a, int b, int c) {
    GeoHashBits none = {0, 0};
    search->cells[a] = search->cells[b] = search->cells[c] = none;
}

void geohashSearchCells(const GeoShape *shape, GeoHashSearch *search) {
    double radius = shape->is_box ? sqrt((shape->width / 2) * (shape->width / 2) + (shape->height / 2) * (shape->height / 2))
                                  : shape->radius;
    double bounds[4];
    boundingBox(shape, bounds);
    double min_lon = bounds[0], min_lat = bounds[1], max_lon = bounds[2], max_lat = bounds[3];

    uint8_t steps = stepsForRadius(radius, shape->lat);
    centerAndNeighbours(shape, steps, search);

    /* Near the edge of its cell, a search may reach past the neighbours:
     * then one step coarser (cells twice as large) covers it. */
    GeoHashArea n, s, e, w;
    geohashDecode(&lonRangeWGS84, &latRangeWGS84, search->cells[GEO_NORTH], &n);
    geohashDecode(&lonRangeWGS84, &latRangeWGS84, search->cells[GEO_SOUTH], &s);
    geohashDecode(&lonRangeWGS84, &latRangeWGS84, search->cells[GEO_EAST], &e);
    geohashDecode(&lonRangeWGS84, &latRangeWGS84, search->cells[GEO_WEST], &w);
    int coarser = n.latitude.max < max_lat || s.latitude.min > min_lat || e.longitude.max < max_lon ||
                  w.longitude.min > min_lon;
    if (steps > 1 && coarser) {
        steps--;
        centerAndNeighbours(shape, steps, search);
    }

    /* Neighbours the bounding box does not reach are not scanned. */
    if (steps >= 2) {
        const GeoHashArea *a = &search->area;
        if (a->latitude.min < min_lat) zeroCells(search, GEO_SOUTH, GEO_SOUTH_WEST, GEO_SOUTH_EAST);
        if (a->latitude.max > max_lat) zeroCells(search, GEO_NORTH, GEO_NORTH_EAST, GEO_NORTH_WEST);
        if (a->longitude.min < min_lon) zeroCells(search, GEO_WEST, GEO_SOUTH_WEST, GEO_NORTH_WEST);
        if (a->longitude.max > max_lon) zeroCells(search, GEO_EAST, GEO_SOUTH_EAST, GEO_NORTH_EAST);
    }
}
