/* test_geohash.c - unit tests for geohash.c: scores of known places (the
 * values Valkey stores, so RDB files agree), decoding back to the cell
 * centre, the standard geohash string, distances, the shape tests, and
 * that the cells of a search always hold every point of its shape. */
#include <math.h>
#include <stdlib.h>

#include "geohash.h"
#include "unittest.h"

static double scoreOf(double lon, double lat) {
    GeoHashBits h;
    if (!geohashEncodeWGS84(lon, lat, GEO_STEP_MAX, &h)) return -1;
    return (double)geohashAlign52(h);
}

static double randomIn(double min, double max) {
    return min + (max - min) * ((double)rand() / RAND_MAX);
}

/* Whether score falls in one of the search's cells. */
static int inSearchCells(const GeoHashSearch *s, double score) {
    for (int i = 0; i < GEO_CELLS; i++) {
        GeoHashBits cell = s->cells[i];
        if (cell.bits == 0 && cell.step == 0) continue;
        GeoHashBits next = {cell.bits + 1, cell.step};
        if (score >= (double)geohashAlign52(cell) && score < (double)geohashAlign52(next)) return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    (void)argc;
    UT_BEGIN(argv[0]);
    srand(7);

    TEST("geohash: scores of known places") {
        ASSERT(scoreOf(13.361389, 38.115556) == 3479099956230698.0); /* Palermo */
        ASSERT(scoreOf(15.087269, 37.502669) == 3479447370796909.0); /* Catania */
        ASSERT(scoreOf(0, 0) == 3377699720527872.0);
        ASSERT(scoreOf(181, 0) == -1);
        ASSERT(scoreOf(0, 86) == -1);
    }

    TEST("geohash: a score decodes to its cell's centre, within a cell of the input") {
        double lon, lat;
        ASSERT(geohashDecodeScore(3479099956230698.0, &lon, &lat));
        ASSERT(fabs(lon - 13.36138933897018433) < 1e-12);
        ASSERT(fabs(lat - 38.11555639549629859) < 1e-12);
        for (int i = 0; i < 1000; i++) {
            double x = randomIn(-180, 180), y = randomIn(GEO_LAT_MIN, GEO_LAT_MAX);
            ASSERT(geohashDecodeScore(scoreOf(x, y), &lon, &lat));
            ASSERT(fabs(lon - x) <= 360.0 / (1 << 26) && fabs(lat - y) <= 170.2 / (1 << 26));
        }
    }

    TEST("geohash: standard 11-character strings") {
        char buf[12];
        ASSERT(geohashScoreToString(3479099956230698.0, buf));
        ASSERT_STREQ(buf, "sqc8b49rny0");
        ASSERT(geohashScoreToString(3479447370796909.0, buf));
        ASSERT_STREQ(buf, "sqdtr74hyu0");
        ASSERT(geohashScoreToString(scoreOf(0, 0), buf));
        ASSERT_STREQ(buf, "s0000000000");
    }

    TEST("geohash: distances") {
        double d = geohashDistance(13.36138933897018433, 38.11555639549629859, 15.08726745843887329,
                                   37.50266842333162032);
        ASSERT(fabs(d - 166274.1516) < 0.0001);
        ASSERT(geohashDistance(1, 2, 1, 2) == 0);
        /* One degree along a meridian: a 360th of the sphere's girth. */
        ASSERT(fabs(geohashDistance(10, 0, 10, 1) - 2 * M_PI * GEO_EARTH_RADIUS / 360) < 1e-6);
        /* Symmetric. */
        ASSERT(fabs(geohashDistance(-70, -30, 100, 60) - geohashDistance(100, 60, -70, -30)) < 1e-6);
    }

    TEST("geohash: circle and box membership") {
        GeoShape circle = {.lon = 0, .lat = 0, .radius = 1000};
        double d;
        ASSERT(geohashInShape(&circle, 0, 0.008, &d) && d < 1000);
        ASSERT(!geohashInShape(&circle, 0, 0.01, &d));
        GeoShape box = {.lon = 0, .lat = 0, .is_box = 1, .width = 2000, .height = 500};
        ASSERT(geohashInShape(&box, 0.008, 0, &d));   /* 890 m east: inside the 1 km half width */
        ASSERT(!geohashInShape(&box, 0, 0.008, &d));  /* 890 m north: outside the 250 m half height */
        ASSERT(!geohashInShape(&box, 0.01, 0, &d));
    }

    TEST("geohash: the cells of a search hold every point of its shape") {
        for (int i = 0; i < 300; i++) {
            GeoShape s = {.lon = randomIn(-179, 179), .lat = randomIn(-80, 80)};
            if (i % 2) {
                s.is_box = 1;
                s.width = randomIn(100, 2e6);
                s.height = randomIn(100, 2e6);
            } else {
                s.radius = randomIn(10, 1e6);
            }
            GeoHashSearch search;
            geohashSearchCells(&s, &search);
            for (int j = 0; j < 200; j++) {
                /* Points around the centre, some inside the shape. */
                double span = (s.is_box ? s.width : 2 * s.radius) / 111000.0;
                double x = s.lon + randomIn(-span, span), y = s.lat + randomIn(-span, span);
                if (x < -180 || x > 180 || y < GEO_LAT_MIN || y > GEO_LAT_MAX) continue;
                double score = scoreOf(x, y), lon, lat, d;
                geohashDecodeScore(score, &lon, &lat);
                if (geohashInShape(&s, lon, lat, &d)) ASSERT(inSearchCells(&search, score));
            }
        }
    }

    return UT_END();
}
