# The GEO commands: GEOADD (NX/XX/CH, errors), GEOPOS, GEODIST with units,
# GEOHASH, GEORADIUS / GEORADIUSBYMEMBER (and _RO) with every option,
# STORE / STOREDIST, GEOSEARCH / GEOSEARCHSTORE by radius and by box, and a
# randomized comparison of searches with a distance model computed here.
# The expected values are Valkey's (the scores are what it stores).

# Great-circle distance in meters, the haversine on Valkey's sphere.
proc geo_distance {lon1 lat1 lon2 lat2} {
    set r 6372797.560856
    set rad [expr {acos(-1) / 180.0}]
    set u [expr {sin(($lat2 - $lat1) * $rad / 2)}]
    set v [expr {sin(($lon2 - $lon1) * $rad / 2)}]
    expr {2.0 * $r * asin(sqrt($u * $u + cos($lat1 * $rad) * cos($lat2 * $rad) * $v * $v))}
}

start_server {tags {"geo"}} {
    test "GEOADD stores 52-bit geohash scores in a sorted set" {
        r del Sicily
        assert_equal 2 [r geoadd Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania]
        assert_equal zset [r type Sicily]
        assert_equal {Palermo 3479099956230698 Catania 3479447370796909} [r zrange Sicily 0 -1 withscores]
    }

    test "GEOADD NX, XX and CH" {
        assert_equal 0 [r geoadd Sicily 13.361389 38.115556 Palermo]
        assert_equal 1 [r geoadd Sicily NX 1 1 Palermo 2 2 Newone]
        assert_equal 3479099956230698 [r zscore Sicily Palermo]
        assert_equal 1 [r geoadd Sicily XX CH 15 37 Catania 3 3 Nothere]
        assert_equal {} [r zscore Sicily Nothere]
        r zrem Sicily Newone
        r geoadd Sicily 15.087269 37.502669 Catania
    }

    test "GEOADD errors" {
        assert_error "*wrong number of arguments*" {r geoadd Sicily 1 2}
        assert_error "*syntax error*" {r geoadd Sicily 1 2 a b}
        assert_error "*syntax error*" {r geoadd Sicily NX XX 1 2 a}
        assert_error "*syntax error*" {r geoadd Sicily GT 1 2 a}
        assert_error "*invalid longitude,latitude pair 200.000000,10.000000*" {r geoadd Sicily 200 10 x}
        assert_error "*invalid longitude,latitude pair 10.000000,86.000000*" {r geoadd Sicily 10 86 x}
        assert_error "*value is not a valid float*" {r geoadd Sicily abc 10 x}
        r set str x
        assert_error "WRONGTYPE*" {r geoadd str 1 1 a}
    }

    test "GEOPOS returns the centre of the stored cell, null for missing members" {
        assert_equal {{13.36138933897018433 38.11555639549629859} {15.08726745843887329 37.50266842333162032} {}} \
            [r geopos Sicily Palermo Catania nope]
        assert_equal {{}} [r geopos nokey a]
        assert_equal {} [r geopos Sicily]
        assert_error "WRONGTYPE*" {r geopos str a}
    }

    test "GEODIST in every unit" {
        assert_equal 166274.1516 [r geodist Sicily Palermo Catania]
        assert_equal 166274.1516 [r geodist Sicily Palermo Catania m]
        assert_equal 166.2742 [r geodist Sicily Palermo Catania KM]
        assert_equal 103.3182 [r geodist Sicily Palermo Catania mi]
        assert_equal 545518.8700 [r geodist Sicily Palermo Catania ft]
        assert_equal {} [r geodist Sicily Palermo nope]
        assert_equal {} [r geodist nokey a b]
        assert_error "*unsupported unit provided. please use M, KM, FT, MI*" {r geodist Sicily Palermo Catania xx}
        assert_error "*syntax error*" {r geodist Sicily Palermo Catania km extra}
    }

    test "GEOHASH gives standard geohash strings" {
        assert_equal {sqc8b49rny0 sqdtr74hyu0 {}} [r geohash Sicily Palermo Catania nope]
        assert_equal {{}} [r geohash nokey a]
    }

    test "GEORADIUS: members within the radius, with the requested details" {
        assert_equal {{Palermo 190.4424} {Catania 56.4413}} [r georadius Sicily 15 37 200 km withdist]
        assert_equal {Catania Palermo} [r georadius Sicily 15 37 200 km asc]
        assert_equal {Palermo Catania} [r georadius Sicily 15 37 200 km desc]
        assert_equal {{Catania 56.4413 3479447370796909 {15.08726745843887329 37.50266842333162032}}} \
            [r georadius Sicily 15 37 100 km withdist withcoord withhash]
        assert_equal {} [r georadius Sicily 15 37 1 km]
        assert_equal {} [r georadius nokey 15 37 200 km]
    }

    test "GEORADIUS COUNT: the nearest first, or any with ANY" {
        assert_equal {Catania} [r georadius Sicily 15 37 200 km count 1]
        assert_equal 1 [llength [r georadius Sicily 15 37 200 km count 1 any]]
        assert_equal {Palermo} [r georadius Sicily 15 37 200 km count 1 desc]
    }

    test "GEORADIUS errors" {
        assert_error "*the ANY argument requires COUNT argument*" {r georadius Sicily 15 37 200 km any}
        assert_error "*COUNT must be > 0*" {r georadius Sicily 15 37 200 km count 0}
        assert_error "*value is not an integer or out of range*" {r georadius Sicily 15 37 200 km count x}
        assert_error "*radius cannot be negative*" {r georadius Sicily 15 37 -1 km}
        assert_error "*need numeric radius*" {r georadius Sicily 15 37 abc km}
        assert_error "*unsupported unit*" {r georadius Sicily 15 37 200 xx}
        assert_error "*invalid longitude,latitude pair*" {r georadius Sicily 200 37 200 km}
        assert_error "*syntax error*" {r georadius Sicily 15 37 200 km foo}
        assert_error "*STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD*" \
            {r georadius Sicily 15 37 200 km store dst withdist}
        assert_error "*syntax error*" {r georadius_ro Sicily 15 37 200 km store dst}
        assert_error "WRONGTYPE*" {r georadius str 1 1 1 km}
    }

    test "GEORADIUS STORE and STOREDIST write sorted sets; an empty result deletes the target" {
        assert_equal 2 [r georadius Sicily 15 37 200 km store dst]
        assert_equal {Palermo 3479099956230698 Catania 3479447370796909} [r zrange dst 0 -1 withscores]
        assert_equal 2 [r georadius Sicily 15 37 200 km storedist dst2]
        assert_equal {Catania Palermo} [r zrange dst2 0 -1]
        assert_equal 56.4413 [format %.4f [r zscore dst2 Catania]]
        assert_equal 0 [r georadius Sicily 15 37 1 km store dst]
        assert_equal 0 [r exists dst]
        assert_equal 0 [r georadius nokey 15 37 200 km store dst2]
        assert_equal 0 [r exists dst2]
    }

    test "GEORADIUSBYMEMBER and its _RO form" {
        assert_equal {{Palermo 0.0000} {Catania 166.2742}} [r georadiusbymember Sicily Palermo 200 km withdist]
        assert_equal {Palermo} [r georadiusbymember_ro Sicily Palermo 100 km]
        assert_error "*could not decode requested zset member*" {r georadiusbymember Sicily nope 200 km}
        assert_equal {} [r georadiusbymember nokey nope 200 km]
    }

    test "GEOSEARCH by radius and by box, from a point or a member" {
        assert_equal {Catania Palermo} [r geosearch Sicily fromlonlat 15 37 byradius 200 km asc]
        assert_equal {{Catania 56.4413} {Palermo 190.4424}} \
            [r geosearch Sicily fromlonlat 15 37 bybox 400 400 km asc withdist]
        assert_equal {Catania} [r geosearch Sicily fromlonlat 15 37 bybox 200 200 km]
        assert_equal {{Palermo 0.0000} {Catania 166.2742}} \
            [r geosearch Sicily frommember Palermo bybox 400 400 km asc withdist]
        assert_equal {Palermo} [r geosearch Sicily fromlonlat 15 37 byradius 200 km count 1 desc]
        assert_equal {} [r geosearch nokey fromlonlat 1 1 byradius 200 km]
    }

    test "GEOSEARCH errors" {
        assert_error "*syntax error*" {r geosearch Sicily frommember Palermo fromlonlat 1 1 byradius 1 km}
        assert_error "*syntax error*" {r geosearch Sicily fromlonlat 15 37 byradius 1 km bybox 1 1 km}
        assert_error "*exactly one of FROMMEMBER or FROMLONLAT*" {r geosearch Sicily byradius 1 km asc desc}
        assert_error "*exactly one of BYRADIUS and BYBOX*" {r geosearch Sicily fromlonlat 15 37 asc desc}
        assert_error "*height or width cannot be negative*" {r geosearch Sicily fromlonlat 15 37 bybox -1 1 km}
        assert_error "*need numeric height*" {r geosearch Sicily fromlonlat 15 37 bybox 1 abc km}
        assert_error "*syntax error*" {r geosearch Sicily fromlonlat 15 37 byradius 200 km store x}
        assert_error "*could not decode requested zset member*" {r geosearch Sicily frommember nope byradius 1 km}
    }

    test "GEOSEARCHSTORE, with STOREDIST; an empty or missing source deletes the target" {
        assert_equal 2 [r geosearchstore dst Sicily fromlonlat 15 37 bybox 400 400 km asc count 3 storedist]
        assert_equal {Catania Palermo} [r zrange dst 0 -1]
        assert_equal 190.4424 [format %.4f [r zscore dst Palermo]]
        assert_error "*GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD*" \
            {r geosearchstore dst Sicily fromlonlat 15 37 bybox 400 400 km withdist}
        assert_equal 0 [r geosearchstore dst nokey fromlonlat 15 37 bybox 400 400 km]
        assert_equal 0 [r exists dst]
        # The target may hold any type: it is replaced.
        r set strdst x
        assert_equal 2 [r geosearchstore strdst Sicily fromlonlat 15 37 bybox 400 400 km]
        assert_equal zset [r type strdst]
    }

    test "COMMAND GETKEYS of the geo commands that store" {
        assert_equal {Sicily dst} [r command getkeys georadius Sicily 15 37 200 km store dst]
        assert_equal {Sicily dst2} [r command getkeys georadiusbymember Sicily a 200 km storedist dst2]
        assert_equal {dst src} [r command getkeys geosearchstore dst src fromlonlat 15 37 bybox 1 1 km]
    }

    test "Points at the edges: poles, the antimeridian, the origin" {
        r del world
        r geoadd world 0 0 a 179.9 0 b -179.9 0 c 0 85 d 0 -85 e 0.0001 0.0001 f
        assert_equal {a f d e b c} [r georadius world 0 0 50000 km asc]
        assert_equal {{a 0.3300 3377699720527872}} [r georadius world 0 0 1 m withdist withhash]
        assert_equal {} [r georadius world 0 0 0 m]
        assert_equal {{d 111.2263}} [r geosearch world fromlonlat 0 84 bybox 1000 1000 km withdist]
        assert_equal {s0000000000 xbpbj8p0jb0 8000420b400 up0581b0bh0 h0bh2n0p050 s0000000d60} \
            [r geohash world a b c d e f]
    }

    test "Randomized: searches find exactly the points the distance model finds" {
        r del rnd
        set points {}
        for {set i 0} {$i < 400} {incr i} {
            set lon [expr {-30 + rand() * 60}]
            set lat [expr {-30 + rand() * 60}]
            lappend points $i
            r geoadd rnd $lon $lat $i
        }
        # The model works on the stored (decoded) positions.
        set pos [r geopos rnd {*}$points]
        for {set q 0} {$q < 40} {incr q} {
            set clon [expr {-30 + rand() * 60}]
            set clat [expr {-30 + rand() * 60}]
            set radius [expr {10 + rand() * 2000}]
            set expected {}
            foreach p $points xy $pos {
                lassign $xy lon lat
                if {[geo_distance $clon $clat $lon $lat] <= $radius * 1000} { lappend expected $p }
            }
            set got [r geosearch rnd fromlonlat $clon $clat byradius $radius km]
            assert_equal [lsort -integer $expected] [lsort -integer $got] "search $q around $clon,$clat r=$radius km"
            # Nearest first, distances ascending.
            set dists {}
            foreach item [r geosearch rnd fromlonlat $clon $clat byradius $radius km asc withdist] {
                lappend dists [lindex $item 1]
            }
            assert_equal $dists [lsort -real $dists]
        }
    }
}
