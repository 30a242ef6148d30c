# RDB encoding of lists, sets, hashes and sorted sets (src/rdb_object.c),
# seen through DUMP/RESTORE (and DEBUG RELOAD where the server has it):
#   - round trips of every type in every in-memory encoding;
#   - byte identity of the bodies with what Redis 7.0 writes for the same
#     values (CRC-64 of type byte + body, taken from redis-server 7.0.15);
#   - the encoding chosen after loading, including blobs too big for their
#     compact encoding under the current limits;
#   - payloads in the legacy encodings (RDB_TYPE_LIST, _ZIPLIST,
#     _QUICKLIST, SET, HASH, HASH_ZIPMAP, HASH_ZIPLIST, ZSET, ZSET_ZIPLIST),
#     built here byte by byte from the documented formats;
#   - corrupt and hostile payloads (duplicates, bad lengths, bad scores,
#     truncations, random damage) refused with "ERR Bad data format" and
#     the server still serving.

# ---------------------------------------------------------------- payloads

source [file join $::vk::cfg(root) tests assets dump-payload.tcl]

# The type byte and body of a DUMP payload (version and CRC cut off).
proc payload_body {p} {
    return [string range $p 0 end-10]
}

proc u8 {v} { binary format cu $v }
proc u16 {v} { binary format su $v }
proc u32 {v} { binary format iu $v }

# RDB_TYPE_ZSET's text score: 253 nan, 254 +inf, 255 -inf.
proc rdb_text_double {v} {
    switch -- $v {
        nan { return [u8 253] }
        inf { return [u8 254] }
        -inf { return [u8 255] }
    }
    return [u8 [string length $v]]$v
}

proc rdb_binary_double {v} { binary format q $v }

# A ziplist of entries {s text} or {i value}.
proc ziplist {entries} {
    set body ""
    set prev 0
    set last 10
    foreach e $entries {
        lassign $e kind v
        if {$prev < 254} { set entry [u8 $prev] } else { set entry [u8 254][u32 $prev] }
        if {$kind eq "s"} {
            set n [string length $v]
            if {$n < 64} {
                append entry [u8 $n]
            } else {
                append entry [binary format cucu [expr {0x40 | ($n >> 8)}] [expr {$n & 0xFF}]]
            }
            append entry $v
        } elseif {$v >= 0 && $v <= 12} {
            append entry [u8 [expr {0xF1 + $v}]]
        } elseif {$v >= -128 && $v <= 127} {
            append entry [u8 0xFE][binary format c $v]
        } elseif {$v >= -32768 && $v <= 32767} {
            append entry [u8 0xC0][binary format s $v]
        } elseif {$v >= -2147483648 && $v <= 2147483647} {
            append entry [u8 0xD0][binary format i $v]
        } else {
            append entry [u8 0xE0][binary format w $v]
        }
        set last [expr {10 + [string length $body]}]
        append body $entry
        set prev [string length $entry]
    }
    set total [expr {10 + [string length $body] + 1}]
    return [u32 $total][u32 $last][u16 [llength $entries]]$body[u8 255]
}

# A zipmap of key value ... (short lengths, no free bytes).
proc zipmap {pairs} {
    set zm [u8 [expr {[llength $pairs] / 2}]]
    foreach {k v} $pairs {
        append zm [u8 [string length $k]]$k[u8 [string length $v]][u8 0]$v
    }
    return $zm[u8 255]
}

# A listpack of short strings (under 64 bytes) and small integers (0..127,
# given as {i N}).
proc listpack {entries} {
    set body ""
    foreach e $entries {
        if {[llength $e] == 2 && [lindex $e 0] eq "i"} {
            append body [u8 [lindex $e 1]][u8 1]
        } else {
            set n [string length $e]
            append body [u8 [expr {0x80 | $n}]]$e[u8 [expr {$n + 1}]]
        }
    }
    set total [expr {6 + [string length $body] + 1}]
    return [u32 $total][u16 [llength $entries]]$body[u8 255]
}

# An intset of width enc (2, 4, 8) holding values in the given order.
proc intset {enc values} {
    set fmt [dict get {2 s 4 i 8 w} $enc]
    set is [u32 $enc][u32 [llength $values]]
    foreach v $values { append is [binary format $fmt $v] }
    return $is
}

# RESTOREs a payload under key (replacing it) and returns "ok" or the
# error text.
proc try_restore {key p} {
    if {[catch {r restore $key 0 $p replace} err]} { return $err }
    return ok
}

proc assert_bad_payload {p} {
    assert_match "*Bad data format*" [try_restore bad $p]
    assert_equal 0 [r exists bad]
}

# Content of any collection key in a canonical form.
proc value_of {key} {
    switch [r type $key] {
        list { return [r lrange $key 0 -1] }
        set { return [lsort [r smembers $key]] }
        hash { return [lsort -stride 2 [r hgetall $key]] }
        zset { return [r zrange $key 0 -1 withscores] }
    }
}

# DUMPs key, RESTOREs it as key.copy and checks content and encoding.
proc assert_dump_round_trip {key} {
    set p [r dump $key]
    r del $key.copy
    r restore $key.copy 0 $p
    assert_equal [value_of $key] [value_of $key.copy]
    assert_equal [r object encoding $key] [r object encoding $key.copy]
    # A hashtable's order is its own; every other encoding is written in
    # element order, so the copy dumps identically.
    if {[r object encoding $key] ne "hashtable"} {
        assert_equal [r dump $key] [r dump $key.copy]
    }
}

start_server {tags {"dump rdb"} overrides {enable-debug-command yes}} {
    if {[r command info restore] eq {{}} || [r command info restore] eq {}} {
        test "RDB collection encodings (DUMP/RESTORE missing)" { skip "needs DUMP and RESTORE" }
        return
    }

    # ------------------------------------------------------------ round trips

    test "DUMP/RESTORE: list, listpack and quicklist encodings" {
        r del l
        r rpush l a b 1 -2 12345678901 [string repeat x 100]
        assert_encoding listpack l
        assert_dump_round_trip l
        r del l
        for {set i 0} {$i < 2000} {incr i} { lappend vals "element:$i" }
        r rpush l {*}$vals
        assert_encoding quicklist l
        assert_dump_round_trip l
    }

    test "DUMP/RESTORE: a compressed quicklist (list-compress-depth 1)" {
        r config set list-compress-depth 1
        r del l
        set vals {}
        for {set i 0} {$i < 3000} {incr i} { lappend vals "compressible-[string repeat a 20]-$i" }
        r rpush l {*}$vals
        set p [r dump l]
        r restore l.copy 0 $p replace
        assert_equal $vals [r lrange l.copy 0 -1]
        r config set list-compress-depth 0
        r restore l.copy2 0 $p
        assert_equal $vals [r lrange l.copy2 0 -1]
        r del l l.copy l.copy2
    }

    test "DUMP/RESTORE: set, intset / listpack / hashtable encodings" {
        r del s
        r sadd s 1 2 3 -7 100000 -3000000000
        assert_encoding intset s
        assert_dump_round_trip s
        r sadd s a b c
        assert_encoding listpack s
        assert_dump_round_trip s
        r sadd s [string repeat y 100]
        assert_encoding hashtable s
        assert_dump_round_trip s
    }

    test "DUMP/RESTORE: hash, listpack / hashtable encodings" {
        r del h
        r hset h a 1 b 2 c -3 d [string repeat v 30]
        assert_encoding listpack h
        assert_dump_round_trip h
        for {set i 0} {$i < 600} {incr i} { r hset h f$i v$i }
        assert_encoding hashtable h
        assert_dump_round_trip h
    }

    test "DUMP/RESTORE: sorted set, listpack / skiplist encodings" {
        r del z
        r zadd z 1 a 2.5 b -3 c inf d -inf e 0.1 f 1e300 g
        assert_encoding listpack z
        assert_dump_round_trip z
        for {set i 0} {$i < 300} {incr i} { r zadd z [expr {$i * 0.7 - 50}] m$i }
        r zadd z 7 same1 7 same2 7 same0
        assert_encoding skiplist z
        assert_dump_round_trip z
        assert_equal {same0 same1 same2} [r zrangebyscore z 7 7]
    }

    # ---------------------------------------------------- byte identity

    # Type byte + body of Redis 7.0.15's DUMP of the same values: length
    # and CRC-64 (the RDB version and trailing CRC differ by design).
    test "DUMP bodies match Redis 7.0 byte for byte" {
        r flushall
        r rpush l1 a b c 1 2 3 -100 12345678901 {hello world}
        set vals {}
        for {set i 0} {$i < 600} {incr i} { lappend vals "element-$i-[string repeat x 40]" }
        r rpush l2 {*}$vals
        r rpush l3 {*}[lrepeat 5 [string repeat a 30]]
        r sadd s1 1 2 3 -5 70000 -3000000000
        r hset h1 f1 v1 f2 2 num -77777 big [string repeat 9 30]
        r zadd z1 1 a 2.5 b -3 c 100000 d inf e -inf f
        set args {}
        for {set i 0} {$i < 200} {incr i} { lappend args [expr {$i * 1.5}] member:$i }
        r zadd z2 {*}$args
        foreach {key len crc} {
            l1 52 ad086fb4a3be6de5
            l2 3167 d25938a478411c1a
            l3 27 6f6901414945accb
            s1 52 ccdf360f4851bb95
            h1 49 d26846b275f069f2
            z1 53 96e315451c92b726
            z2 3693 bd43a3fbd1b8a3ee
        } {
            set body [payload_body [r dump $key]]
            assert_equal $len [string length $body] $key
            assert_equal $crc [format %llx [crc64 $body]] $key
        }
    }

    test "DUMP of a compressed quicklist matches Redis 7.0 (LZF nodes as is)" {
        r config set list-compress-depth 1
        r del lc
        set vals {}
        for {set i 0} {$i < 3000} {incr i} { lappend vals "compressible-[string repeat a 20]-$i" }
        r rpush lc {*}$vals
        set body [payload_body [r dump lc]]
        r config set list-compress-depth 0
        assert_equal 15582 [string length $body]
        assert_equal 2ae1671a81a7bb2d [format %llx [crc64 $body]]
    }

    test "DUMP type bytes: SET_LISTPACK (20) and SET (2), HASH (4), ZSET_2 (5)" {
        r del s h z
        r sadd s a b
        assert_equal 20 [scan [string index [r dump s] 0] %c]
        r sadd s [string repeat x 100]
        assert_equal 2 [scan [string index [r dump s] 0] %c]
        r hset h f [string repeat x 100]
        assert_equal 4 [scan [string index [r dump h] 0] %c]
        r zadd z 1 [string repeat x 100]
        assert_equal 5 [scan [string index [r dump z] 0] %c]
    }

    # ---------------------------------------------- encoding after loading

    test "RESTORE picks the encoding from the current limits" {
        r flushall
        r hset h a 1 b 2 c 3 d 4
        r sadd s a b c d
        r sadd is 1 2 3 4
        r zadd z 1 a 2 b 3 c 4 d
        r rpush l a b c d
        set ph [r dump h]
        set ps [r dump s]
        set pis [r dump is]
        set pz [r dump z]
        set pl [r dump l]
        r config set hash-max-listpack-entries 3
        r config set set-max-listpack-entries 3
        r config set set-max-intset-entries 3
        r config set zset-max-listpack-entries 3
        r config set list-max-listpack-size 3
        r restore h2 0 $ph
        r restore s2 0 $ps
        r restore is2 0 $pis
        r restore z2 0 $pz
        r restore l2 0 $pl
        assert_encoding hashtable h2
        assert_encoding hashtable s2
        assert_encoding hashtable is2
        assert_encoding skiplist z2
        assert_encoding quicklist l2
        assert_equal [value_of h] [value_of h2]
        assert_equal [value_of s] [value_of s2]
        assert_equal [value_of is] [value_of is2]
        assert_equal [value_of z] [value_of z2]
        assert_equal [value_of l] [value_of l2]
        r config set hash-max-listpack-entries 128
        r config set set-max-listpack-entries 128
        r config set set-max-intset-entries 512
        r config set zset-max-listpack-entries 128
        r config set list-max-listpack-size -2
        r del h2 s2 is2 z2 l2
    }

    test "RESTORE converts a listpack whose elements break *-max-listpack-value" {
        r flushall
        r hset h f [string repeat v 40]
        r sadd s [string repeat m 40]
        r zadd z 1 [string repeat m 40]
        set ph [r dump h]
        set ps [r dump s]
        set pz [r dump z]
        r config set hash-max-listpack-value 10
        r config set set-max-listpack-value 10
        r config set zset-max-listpack-value 10
        r restore h2 0 $ph
        r restore s2 0 $ps
        r restore z2 0 $pz
        assert_encoding hashtable h2
        assert_encoding hashtable s2
        assert_encoding skiplist z2
        r config set hash-max-listpack-value 64
        r config set set-max-listpack-value 64
        r config set zset-max-listpack-value 64
        r del h2 s2 z2
    }

    test "RESTORE of a big encoding that now fits gives the compact one" {
        r flushall
        r hset h f [string repeat v 100]
        r hset h f short
        r sadd s [string repeat m 100] 1 2
        r srem s [string repeat m 100]
        r zadd z 1 [string repeat m 100] 2 b
        r zrem z [string repeat m 100]
        assert_encoding hashtable h
        assert_encoding hashtable s
        assert_encoding skiplist z
        r restore h2 0 [r dump h]
        r restore s2 0 [r dump s]
        r restore z2 0 [r dump z]
        assert_encoding listpack h2
        assert_encoding intset s2
        assert_encoding listpack z2
        assert_equal {b 2} [r zrange z2 0 -1 withscores]
        r del h s z h2 s2 z2
    }

    # ------------------------------------------------- legacy encodings

    test "RESTORE: RDB_TYPE_LIST (strings)" {
        r restore k 0 [seal_payload [u8 1][rdb_len 3][rdb_str a][rdb_str 12][rdb_str bc]] replace
        assert_equal {a 12 bc} [r lrange k 0 -1]
        assert_encoding listpack k
    }

    test "RESTORE: RDB_TYPE_LIST_ZIPLIST" {
        set zl [ziplist {{s hello} {i 7} {i -100} {i 30000} {i 2000000000} {i 9000000000} {s ""}}]
        r restore k 0 [seal_payload [u8 10][rdb_str $zl]] replace
        assert_equal {hello 7 -100 30000 2000000000 9000000000 {}} [r lrange k 0 -1]
    }

    test "RESTORE: RDB_TYPE_LIST_QUICKLIST (ziplist nodes, an empty one skipped)" {
        set n1 [ziplist {{s a} {s b}}]
        set n2 [ziplist {}]
        set n3 [ziplist [list {i 3} [list s [string repeat z 300]]]]
        r restore k 0 [seal_payload [u8 14][rdb_len 3][rdb_str $n1][rdb_str $n2][rdb_str $n3]] replace
        assert_equal [list a b 3 [string repeat z 300]] [r lrange k 0 -1]
    }

    test "RESTORE: RDB_TYPE_LIST_QUICKLIST_2 with PLAIN and PACKED nodes" {
        set lp [listpack {x y {i 5}}]
        set big [string repeat P 1000]
        set body [u8 18][rdb_len 2][rdb_len 1][rdb_str $big][rdb_len 2][rdb_str $lp]
        r restore k 0 [seal_payload $body] replace
        assert_equal [list $big x y 5] [r lrange k 0 -1]
    }

    test "RESTORE: RDB_TYPE_SET (integers give an intset, strings a listpack)" {
        r restore k 0 [seal_payload [u8 2][rdb_len 3][rdb_str 3][rdb_str 1][rdb_str 2]] replace
        assert_encoding intset k
        assert_equal {1 2 3} [r smembers k]
        r restore k 0 [seal_payload [u8 2][rdb_len 3][rdb_str 3][rdb_str a][rdb_str 2]] replace
        assert_encoding listpack k
        assert_equal {2 3 a} [lsort [r smembers k]]
    }

    test "RESTORE: RDB_TYPE_SET_INTSET and RDB_TYPE_SET_LISTPACK blobs" {
        r restore k 0 [seal_payload [u8 11][rdb_str [intset 4 {-70000 1 80000}]]] replace
        assert_encoding intset k
        assert_equal {-70000 1 80000} [r smembers k]
        r restore k 0 [seal_payload [u8 20][rdb_str [listpack {a {i 5} bb}]]] replace
        assert_encoding listpack k
        assert_equal {5 a bb} [lsort [r smembers k]]
        assert_equal 1 [r sismember k 5]
    }

    test "RESTORE: RDB_TYPE_HASH, HASH_ZIPMAP, HASH_ZIPLIST, HASH_LISTPACK" {
        r restore k 0 [seal_payload [u8 4][rdb_len 2][rdb_str f1][rdb_str v1][rdb_str f2][rdb_str 22]] replace
        assert_equal {f1 v1 f2 22} [r hgetall k]
        assert_encoding listpack k
        r restore k 0 [seal_payload [u8 9][rdb_str [zipmap {name joe age 33}]]] replace
        assert_equal {age 33 name joe} [lsort -stride 2 [r hgetall k]]
        assert_equal 34 [r hincrby k age 1]
        r restore k 0 [seal_payload [u8 13][rdb_str [ziplist {{s a} {i 1} {s b} {s two}}]]] replace
        assert_equal {a 1 b two} [r hgetall k]
        r restore k 0 [seal_payload [u8 16][rdb_str [listpack {f {i 9} g hh}]]] replace
        assert_equal {f 9 g hh} [r hgetall k]
    }

    test "RESTORE: a zipmap with a count of 254 (counted) and free bytes" {
        set zm [u8 254][u8 1]k[u8 2][u8 3]vv???[u8 255]
        r restore k 0 [seal_payload [u8 9][rdb_str $zm]] replace
        assert_equal {k vv} [r hgetall k]
    }

    test "RESTORE: RDB_TYPE_ZSET (text scores), ZSET_2, ZSET_ZIPLIST, ZSET_LISTPACK" {
        set body [u8 3][rdb_len 4]
        append body [rdb_str a][rdb_text_double 1.5][rdb_str b][rdb_text_double inf]
        append body [rdb_str c][rdb_text_double -inf][rdb_str d][rdb_text_double -2]
        r restore k 0 [seal_payload $body] replace
        assert_equal {c -inf d -2 a 1.5 b inf} [r zrange k 0 -1 withscores]
        assert_encoding listpack k
        set body [u8 5][rdb_len 2][rdb_str y][rdb_binary_double 0.25][rdb_str x][rdb_binary_double -1e10]
        r restore k 0 [seal_payload $body] replace
        assert_equal {x -10000000000 y 0.25} [r zrange k 0 -1 withscores]
        set zl [ziplist {{s m1} {i 1} {s m2} {s 2.5} {i 7} {i 100}}]
        r restore k 0 [seal_payload [u8 12][rdb_str $zl]] replace
        assert_equal {m1 1 m2 2.5 7 100} [r zrange k 0 -1 withscores]
        assert_equal 2.5 [r zscore k m2]
        r restore k 0 [seal_payload [u8 17][rdb_str [listpack {a {i 1} b 2.5}]]] replace
        assert_equal {a 1 b 2.5} [r zrange k 0 -1 withscores]
    }

    test "RESTORE: RDB_TYPE_ZSET's special length bytes 253, 254, 255 are nan, +inf, -inf" {
        set body [u8 3][rdb_len 2][rdb_str lo][u8 255][rdb_str hi][u8 254]
        r restore k 0 [seal_payload $body] replace
        assert_equal {lo -inf hi inf} [r zrange k 0 -1 withscores]
        # A NaN score is refused, as Valkey refuses it.
        set body [u8 3][rdb_len 1][rdb_str n][u8 253]
        assert_error "*Bad data format*" {r restore k2 0 [seal_payload $body]}
        assert_equal 0 [r exists k2]
    }

    test "RESTORE: a ZSET_2 large enough stays a skiplist, in order" {
        set body [u8 5][rdb_len 200]
        for {set i 199} {$i >= 0} {incr i -1} { append body [rdb_str m$i][rdb_binary_double $i] }
        r restore k 0 [seal_payload $body] replace
        assert_encoding skiplist k
        assert_equal 200 [r zcard k]
        assert_equal {m0 m1 m2} [r zrange k 0 2]
        assert_equal 150 [r zrank k m150]
    }

    test "RESTORE: empty collections are refused, not stored" {
        foreach body [list [u8 1][rdb_len 0] [u8 2][rdb_len 0] [u8 4][rdb_len 0] [u8 5][rdb_len 0] \
                          [u8 11][rdb_str [intset 2 {}]] [u8 20][rdb_str [listpack {}]] \
                          [u8 16][rdb_str [listpack {}]] [u8 17][rdb_str [listpack {}]] \
                          [u8 10][rdb_str [ziplist {}]] [u8 18][rdb_len 0]] {
            assert_match "*Bad data format*" [try_restore empty [seal_payload $body]]
            assert_equal 0 [r exists empty]
        }
    }

    # ------------------------------------------------- corrupt payloads

    test "RESTORE refuses duplicates in every encoding" {
        assert_bad_payload [seal_payload [u8 2][rdb_len 2][rdb_str a][rdb_str a]]
        assert_bad_payload [seal_payload [u8 2][rdb_len 2][rdb_str 1][rdb_str 1]]
        assert_bad_payload [seal_payload [u8 20][rdb_str [listpack {a b a}]]]
        assert_bad_payload [seal_payload [u8 20][rdb_str [listpack {{i 5} 5}]]]
        assert_bad_payload [seal_payload [u8 11][rdb_str [intset 2 {1 1}]]]
        assert_bad_payload [seal_payload [u8 4][rdb_len 2][rdb_str f][rdb_str 1][rdb_str f][rdb_str 2]]
        assert_bad_payload [seal_payload [u8 16][rdb_str [listpack {f 1 f 2}]]]
        assert_bad_payload [seal_payload [u8 13][rdb_str [ziplist {{s f} {i 1} {s f} {i 2}}]]]
        assert_bad_payload [seal_payload [u8 9][rdb_str [zipmap {f 1 f 2}]]]
        assert_bad_payload [seal_payload [u8 5][rdb_len 2][rdb_str m][rdb_binary_double 1][rdb_str m][rdb_binary_double 2]]
        assert_bad_payload [seal_payload [u8 17][rdb_str [listpack {m {i 1} m {i 2}}]]]
        assert_bad_payload [seal_payload [u8 12][rdb_str [ziplist {{s m} {i 1} {s m} {i 2}}]]]
        set body [u8 5][rdb_len 200]
        for {set i 0} {$i < 200} {incr i} { append body [rdb_str m[expr {$i % 199}]][rdb_binary_double $i] }
        assert_bad_payload [seal_payload $body]
    }

    test "RESTORE refuses bad sorted set scores and odd pair counts" {
        assert_bad_payload [seal_payload [u8 17][rdb_str [listpack {m abc}]]]
        assert_bad_payload [seal_payload [u8 17][rdb_str [listpack {m nan}]]]
        assert_bad_payload [seal_payload [u8 17][rdb_str [listpack {m {i 1} n}]]]
        assert_bad_payload [seal_payload [u8 12][rdb_str [ziplist {{s m} {s 1x}}]]]
        assert_bad_payload [seal_payload [u8 5][rdb_len 1][rdb_str m][binary format w 0x7FF8000000000000]]
        assert_bad_payload [seal_payload [u8 3][rdb_len 1][rdb_str m][rdb_text_double nan]]
        assert_bad_payload [seal_payload [u8 3][rdb_len 1][rdb_str m][u8 3]1.x]
        assert_bad_payload [seal_payload [u8 16][rdb_str [listpack {f v g}]]]
        assert_bad_payload [seal_payload [u8 13][rdb_str [ziplist {{s f}}]]]
    }

    test "RESTORE refuses malformed intsets" {
        assert_bad_payload [seal_payload [u8 11][rdb_str [intset 2 {3 2}]]]
        assert_bad_payload [seal_payload [u8 11][rdb_str [u32 3][u32 2][binary format ccc 1 2 3]]]
        assert_bad_payload [seal_payload [u8 11][rdb_str [u32 8][u32 2][binary format w 5][binary format w 5]]]
        assert_bad_payload [seal_payload [u8 11][rdb_str [string range [intset 4 {1 2}] 0 end-1]]]
        assert_bad_payload [seal_payload [u8 11][rdb_str [u32 2][u32 1000][binary format s 1]]]
    }

    test "RESTORE refuses malformed listpacks, ziplists, zipmaps and nodes" {
        set lp [listpack {a b c}]
        # header byte count and element count wrong, terminator missing
        assert_bad_payload [seal_payload [u8 20][rdb_str [u32 99][string range $lp 4 end]]]
        assert_bad_payload [seal_payload [u8 20][rdb_str [string range $lp 0 3][u16 2][string range $lp 6 end]]]
        assert_bad_payload [seal_payload [u8 20][rdb_str [string range $lp 0 end-1][u8 0]]]
        # a backlen that does not match its entry
        assert_bad_payload [seal_payload [u8 20][rdb_str [string range $lp 0 7][u8 9][string range $lp 9 end]]]
        assert_bad_payload [seal_payload [u8 18][rdb_len 1][rdb_len 2][rdb_str [string range $lp 0 7][u8 9][string range $lp 9 end]]]
        # a node container that does not exist
        assert_bad_payload [seal_payload [u8 18][rdb_len 1][rdb_len 3][rdb_str $lp]]
        # ziplist: wrong count, wrong tail, wrong prevlen
        set zl [ziplist {{s a} {s b}}]
        assert_bad_payload [seal_payload [u8 10][rdb_str [string range $zl 0 7][u16 3][string range $zl 10 end]]]
        assert_bad_payload [seal_payload [u8 10][rdb_str [string range $zl 0 3][u32 11][string range $zl 8 end]]]
        assert_bad_payload [seal_payload [u8 10][rdb_str [string range $zl 0 12][u8 7][string range $zl 14 end]]]
        assert_bad_payload [seal_payload [u8 14][rdb_len 1][rdb_str [string range $zl 0 end-1]]]
        # zipmap: wrong count, value running past the end
        assert_bad_payload [seal_payload [u8 9][rdb_str [u8 2][string range [zipmap {a b}] 1 end]]]
        assert_bad_payload [seal_payload [u8 9][rdb_str [u8 1][u8 1]a[u8 50][u8 0]b[u8 255]]]
    }

    test "RESTORE refuses hostile lengths without allocating for them" {
        assert_bad_payload [seal_payload [u8 2][u8 0x81][binary format W 0x7FFFFFFFFFFFFFFF]]
        assert_bad_payload [seal_payload [u8 4][u8 0x80][u32 0xFFFFFFFF][rdb_str a]]
        assert_bad_payload [seal_payload [u8 5][u8 0x80][u32 0xFFFFFFFF]]
        assert_bad_payload [seal_payload [u8 18][u8 0x80][u32 0xFFFFFFFF]]
        assert_bad_payload [seal_payload [u8 1][u8 0x80][u32 0xFFFFFFFF][rdb_str a]]
        assert_bad_payload [seal_payload [u8 20][u8 0x80][u32 0x7FFFFFFF]abc]
        assert_equal PONG [r ping]
    }

    test "RESTORE refuses every truncation of valid payloads" {
        r flushall
        r rpush l a b 1 [string repeat x 70]
        r sadd si 1 2 300000
        r sadd sl a b c
        r sadd sh a [string repeat x 100]
        r hset hl f v n 1
        r hset hh f [string repeat x 100] g 2
        r zadd zl 1 a 2.5 b
        r zadd zs 1 a 2 [string repeat x 100]
        foreach key {l si sl sh hl hh zl zs} {
            set body [payload_body [r dump $key]]
            for {set cut 1} {$cut < [string length $body]} {incr cut} {
                set p [seal_payload [string range $body 0 [expr {$cut - 1}]]]
                assert_match "*Bad data format*" [try_restore bad $p] "$key cut at $cut"
            }
        }
        assert_equal 0 [r exists bad]
        assert_equal PONG [r ping]
    }

    test "RESTORE survives random damage to valid payloads" {
        r flushall
        r rpush l a b 1 [string repeat x 70] -5
        r sadd si 1 2 300000
        r sadd sl a b c d
        r hset hl f v n 1 m 2
        r zadd zl 1 a 2.5 b 3 c
        set body [u8 12][rdb_str [ziplist {{s m1} {i 1} {s m2} {s 2.5}}]]
        lappend bodies $body [u8 9][rdb_str [zipmap {a 1 b 2}]]
        foreach key {l si sl hl zl} { lappend bodies [payload_body [r dump $key]] }
        expr {srand(4321)}
        foreach body $bodies {
            for {set n 0} {$n < 200} {incr n} {
                set pos [expr {1 + int(rand() * ([string length $body] - 1))}]
                set damaged [string replace $body $pos $pos [u8 [expr {int(rand() * 256)}]]]
                set res [try_restore fuzz [seal_payload $damaged]]
                if {$res ne "ok"} { assert_match "*Bad data format*" $res }
            }
        }
        assert_equal PONG [r ping]
        r del fuzz
    }

    # ------------------------------------------------------ DEBUG RELOAD

    # Skips unless the server can save and reload its dataset in place.
    proc needs_debug_reload {} {
        needs_debug
        if {[catch {r debug reload} err]} { skip "DEBUG RELOAD is not available: $err" }
    }

    tags {"needs:debug"} {
    test "DEBUG RELOAD keeps every collection, its encoding and its digest" {
        needs_debug_reload
        r flushall
        r rpush l_lp a b 1 2
        r rpush l_ql {*}[lrepeat 1000 [string repeat q 30]]
        r sadd s_is 1 2 3
        r sadd s_lp a b c
        r sadd s_ht a [string repeat x 100]
        r hset h_lp f v g 1
        r hset h_ht f [string repeat x 100]
        r zadd z_lp 1 a 2 b
        r zadd z_sl 1 a 2 [string repeat x 100]
        set keys {l_lp l_ql s_is s_lp s_ht h_lp h_ht z_lp z_sl}
        foreach k $keys {
            set before($k) [list [value_of $k] [r object encoding $k] [r debug digest-value $k]]
        }
        r debug reload
        foreach k $keys {
            assert_equal $before($k) [list [value_of $k] [r object encoding $k] [r debug digest-value $k]] $k
        }
    }

    test "DEBUG RELOAD with list-compress-depth keeps compressed lists" {
        needs_debug_reload
        r config set list-compress-depth 1
        r del l
        set vals {}
        for {set i 0} {$i < 3000} {incr i} { lappend vals "compressible-[string repeat a 20]-$i" }
        r rpush l {*}$vals
        r debug reload
        assert_equal $vals [r lrange l 0 -1]
        r config set list-compress-depth 0
    }
    }
}

# A dump.rdb that redis-server 7.0.15 wrote (tests/assets/
# redis70-collections.rdb: every collection encoding it has, a quicklist
# saved with list-compress-depth 1 so its inner nodes are LZF blobs, an
# expiry), loaded at start-up.
set rdb_dir [tmp_path redis70-rdb]
file mkdir $rdb_dir
file copy -force [file join $::vk::cfg(root) tests assets redis70-collections.rdb] [file join $rdb_dir dump.rdb]
# Its 300-field h_big was a hashtable in Redis 7.0 (saved with 128 as the
# limit); under the same limit it loads as one here.
start_server [list tags {"rdb"} overrides [list dir $rdb_dir hash-max-listpack-entries 128]] {
    test "A Redis 7.0 dump.rdb with every collection encoding loads" {
        assert_equal 11 [r dbsize]
        assert_equal {a b 1 -2 12345678901} [r lrange l_small 0 -1]
        assert_encoding listpack l_small
        assert_equal 4102444800000 [r pexpiretime l_small]
        set big {}
        for {set i 0} {$i < 1000} {incr i} { lappend big "item:$i" }
        assert_equal $big [r lrange l_big 0 -1]
        assert_encoding quicklist l_big
        set comp {}
        for {set i 0} {$i < 3000} {incr i} { lappend comp "compressible-[string repeat a 20]-$i" }
        assert_equal $comp [r lrange l_comp 0 -1]
        assert_equal {-70000 1 2 3 5000000000} [r smembers s_int]
        assert_encoding intset s_int
        assert_equal {a b c} [lsort [r smembers s_str]]
        assert_encoding listpack s_str
        assert_equal 600 [r scard s_big]
        assert_equal 1 [r sismember s_big m599]
        assert_encoding hashtable s_big
        assert_equal {f v n 1} [r hgetall h_small]
        assert_equal 300 [r hlen h_big]
        assert_equal v299 [r hget h_big f299]
        assert_encoding hashtable h_big
        assert_equal {c -inf a 1 b 2.5} [r zrange z_small 0 -1 withscores]
        assert_encoding listpack z_small
        assert_equal 300 [r zcard z_big]
        assert_equal {m0 0 m299 149.5} [concat [r zrange z_big 0 0 withscores] [r zrange z_big -1 -1 withscores]]
        assert_encoding skiplist z_big
        assert_equal hello [r get str]
    }
}

