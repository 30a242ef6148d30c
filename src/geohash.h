/* geohash.h - the geohash arithmetic behind the GEO commands (geo.c).
 *
 * A position is stored as a sorted-set score: longitude and latitude are
 * each scaled to 26 bits over their range (longitude -180..180, latitude
 * -85.05112878..85.05112878, the Web Mercator limits) and interleaved,
 * latitude in the even bits and longitude in the odd ones, into a 52-bit
 * integer that a double holds exactly. Nearby points share high bits, so
 * the points of one geohash cell are one score range of the sorted set.
 *
 * A search around a point covers the area with the point's cell and its 8
 * neighbours at a precision ("step": bits per coordinate) chosen from the
 * radius, then keeps the points whose great-circle distance (haversine on
 * a sphere of radius GEO_EARTH_RADIUS) passes the shape's test.
 *
 * Leaf library: no server types; unit tested in unit/test_geohash.c. */
#ifndef VK_GEOHASH_H
#define VK_GEOHASH_H

#include <stdint.h>

#define GEO_STEP_MAX 26 /* bits per coordinate in a stored score */
#define GEO_LAT_MIN -85.05112878
#define GEO_LAT_MAX 85.05112878
#define GEO_LONG_MIN -180
#define GEO_LONG_MAX 180
#define GEO_EARTH_RADIUS 6372797.560856 /* meters */

typedef struct {
    uint64_t bits;
    uint8_t step; /* bits per coordinate; 0 with bits 0 means "no cell" */
} GeoHashBits;

typedef struct {
    double min, max;
} GeoHashRange;

typedef struct {
    GeoHashBits hash;
    GeoHashRange longitude, latitude;
} GeoHashArea;

/* A cell and its neighbours, in the order a search visits them. */
enum { GEO_CENTER, GEO_NORTH, GEO_SOUTH, GEO_EAST, GEO_WEST, GEO_NORTH_EAST, GEO_NORTH_WEST, GEO_SOUTH_EAST,
       GEO_SOUTH_WEST, GEO_CELLS };

/* The cells a search must scan (a zeroed cell is skipped) and the area of
 * the centre one. */
typedef struct {
    GeoHashBits cells[GEO_CELLS];
    GeoHashArea area;
} GeoHashSearch;

/* What a search looks for around its centre, sizes in meters. */
typedef struct {
    double lon, lat;
    int is_box;
    double radius;        /* circle */
    double width, height; /* box (full sides) */
} GeoShape;

/* Encodes (lon, lat) with `step` bits per coordinate over the given ranges.
 * Returns 0 if the point is outside them or outside the storable range. */
int geohashEncode(const GeoHashRange *lon_range, const GeoHashRange *lat_range, double lon, double lat, uint8_t step,
                  GeoHashBits *hash);
int geohashEncodeWGS84(double lon, double lat, uint8_t step, GeoHashBits *hash);

/* The cell a hash stands for over the given ranges. Returns 0 for a zeroed
 * hash. */
int geohashDecode(const GeoHashRange *lon_range, const GeoHashRange *lat_range, GeoHashBits hash,
                  GeoHashArea *area);

/* The position a stored score stands for: the centre of its 26-bit cell,
 * clamped to the storable range. Returns 0 if it cannot be decoded. */
int geohashDecodeScore(double score, double *lon, double *lat);

/* A hash of `step` bits per coordinate shifted into the 52-bit score space:
 * the smallest score inside the cell. */
uint64_t geohashAlign52(GeoHashBits hash);

/* The 11-character standard geohash (latitude over -90..90) of a score, as
 * GEOHASH prints it; buf needs 12 bytes. Returns 0 if undecodable. */
int geohashScoreToString(double score, char *buf);

/* Great-circle distance in meters between two points (degrees). */
double geohashDistance(double lon1, double lat1, double lon2, double lat2);

/* Whether (lon, lat) is inside the shape; *dist gets its distance from the
 * shape's centre when it is. */
int geohashInShape(const GeoShape *shape, double lon, double lat, double *dist);

/* The cells to scan for a search of `shape`. */
void geohashSearchCells(const GeoShape *shape, GeoHashSearch *search);

#endif
