# The hash type: HSET/HMSET/HSETNX/HDEL, reads (HGET, HMGET, HLEN, HSTRLEN,
# HEXISTS, HKEYS, HVALS, HGETALL), counters (HINCRBY, HINCRBYFLOAT),
# HRANDFIELD, HSCAN, the listpack -> hashtable conversion, keyspace events,
# and MEMORY USAGE / COPY / DEBUG DIGEST-VALUE on hashes.
#
# Tests tagged "valkey-only" need behaviour Redis 7.0 lacks (HSCAN
# NOVALUES), so
#   ./runtest --server-binary /usr/bin/redis-server --tags -valkey-only
# runs the rest against Redis as a reference.

# ---------------------------------------------------------------- helpers

set ::hash_pad [string repeat "p" 100]

# Creates `key` as a hash of the flat field/value list `pairs` with the
# given encoding (a temporary over-long field forces a hashtable).
proc hash_create {key encoding pairs} {
    r del $key
    if {$encoding eq "hashtable"} {
        r hset $key $::hash_pad 1 {*}$pairs
        r hdel $key $::hash_pad
    } else {
        r hset $key {*}$pairs
    }
    assert_encoding $encoding $key
}

# Runs script with keyspace notifications on; returns the key events as a
# flat list {event key ...}. Skips when the server has no PSUBSCRIBE yet.
proc hash_keyevents {script} {
    r config set notify-keyspace-events KEA
    set rd [vk_deferring_client]
    $rd psubscribe "__keyevent@*__:*"
    if {[catch {$rd read} err]} {
        $rd close
        r config set notify-keyspace-events ""
        skip "PSUBSCRIBE not supported: $err"
    }
    uplevel 1 $script
    r set __events_end__ 1
    set events {}
    while 1 {
        set msg [$rd read]
        set key [lindex $msg 3]
        if {$key eq "__events_end__"} break
        set chan [lindex $msg 2]
        lappend events [string range $chan [expr {[string first : $chan] + 1}] end] $key
    }
    $rd close
    r config set notify-keyspace-events ""
    r del __events_end__
    return $events
}

# The first raw reply line of a command sent over RESP `proto`.
proc hash_raw_reply {proto args} {
    set c [vk_client]
    $c hello $proto
    $c readraw 1
    set line [$c {*}$args]
    $c close
    return $line
}

# A dict's pairs sorted by field, for comparing with HGETALL.
proc hash_sorted_pairs {d} {
    set out {}
    foreach k [lsort [dict keys $d]] { lappend out $k [dict get $d $k] }
    return $out
}

proc hash_assert_uniform {counts fields draws} {
    set expected [expr {double($draws) / [llength $fields]}]
    foreach f $fields {
        set got [expr {[dict exists $counts $f] ? [dict get $counts $f] : 0}]
        assert_range $got [expr {$expected / 3}] [expr {$expected * 3}] "field $f drawn $got times"
    }
}

start_server {tags {"hash"} overrides {enable-debug-command yes}} {
    # ------------------------------------------------------------ writes & reads

    test "HSET, HGET, HLEN, HEXISTS, HSTRLEN basics" {
        r del h
        assert_equal 2 [r hset h a 1 b hello]
        assert_equal 1 [r hset h a 2 c 3]
        assert_encoding listpack h
        assert_equal 2 [r hget h a]
        assert_equal hello [r hget h b]
        assert_equal {} [r hget h zz]
        assert_equal 3 [r hlen h]
        assert_equal 1 [r hexists h c]
        assert_equal 0 [r hexists h zz]
        assert_equal 5 [r hstrlen h b]
        assert_equal 1 [r hstrlen h a]
        assert_equal 0 [r hstrlen h zz]
        hash_sorted_pairs [r hgetall h]
    } {a 2 b hello c 3}

    test "HSTRLEN of integer-looking values on both encodings" {
        foreach enc {listpack hashtable} {
            hash_create h $enc {n -9223372036854775808 m 123 z 0}
            assert_equal 20 [r hstrlen h n]
            assert_equal 3 [r hstrlen h m]
            assert_equal 1 [r hstrlen h z]
            assert_equal -9223372036854775808 [r hget h n]
        }
    }

    test "HMSET replies OK, HSET the number of new fields" {
        r del h
        assert_equal OK [r hmset h a 1 b 2]
        assert_equal 0 [r hset h a 1]
        assert_equal 1 [r hset h x 1]
        r hlen h
    } 3

    test "HSET/HMSET with an odd number of arguments" {
        r del h
        assert_error "*wrong number of arguments for 'hset' command" {r hset h a 1 b}
        assert_error "*wrong number of arguments for 'hset' command" {r hset h a}
        assert_error "*wrong number of arguments for 'hmset' command" {r hmset h a 1 b}
        r exists h
    } 0

    test "HSETNX sets only missing fields" {
        r del h
        assert_equal 1 [r hsetnx h a 1]
        assert_equal 0 [r hsetnx h a 2]
        assert_equal 1 [r hsetnx h b 3]
        list [r hget h a] [r hget h b]
    } {1 3}

    test "HSETNX on a hashtable" {
        hash_create h hashtable {a 1}
        assert_equal 0 [r hsetnx h a 2]
        assert_equal 1 [r hsetnx h b 2]
        list [r hget h a] [r hget h b]
    } {1 2}

    test "HSET overwrites values of the same, shorter and longer length" {
        foreach enc {listpack hashtable} {
            hash_create h $enc {a abc b 12 c x}
            # Same length (rewritten in place on a hashtable), twice in one call.
            assert_equal 0 [r hset h a xyz a 123]
            assert_equal 0 [r hset h b 34 c yyyyyyyyyy]
            assert_equal 0 [r hset h c z]
            assert_equal {123 34 z} [r hmget h a b c]
            assert_equal {3 2 1} [list [r hstrlen h a] [r hstrlen h b] [r hstrlen h c]]
            r hincrby h b 65
            assert_equal 0 [r hset h b ab]
            assert_equal ab [r hget h b]
            assert_encoding $enc h
        }
    }

    test "Hashtable values of every length class survive updates, DUMP and reload" {
        needs_debug
        # 0, 1, 127 and 128, 16383 and 16384 bytes: where the length a
        # hashtable entry stores in front of its value needs one more byte.
        set lens {0 1 127 128 16383 16384 100000 5}
        hash_create h hashtable {f0 x}
        set i 0
        foreach len $lens {
            r hset h "f$i" [string repeat v $len]
            incr i
        }
        # Every field moves through every other length (a new entry each
        # time the length changes, in place when it stays).
        foreach len $lens {
            for {set j 0} {$j < $i} {incr j} {
                r hset h "f$j" [string repeat [format %c [expr {97 + $j}]] $len]
                assert_equal $len [r hstrlen h "f$j"]
            }
        }
        r hset h f7 455 f3 5
        r hincrby h f7 100
        r hincrbyfloat h f3 0.5
        assert_equal 555 [r hget h f7]
        assert_equal 5.5 [r hget h f3]
        for {set j 0} {$j < 7} {incr j} {
            if {$j == 3} continue
            assert_equal [string repeat [format %c [expr {97 + $j}]] 5] [r hget h "f$j"]
        }
        set digest [r debug digest-value h]
        set dump [r dump h]
        r del h2
        r restore h2 0 $dump
        assert_equal $digest [r debug digest-value h2]
        r debug reload
        assert_equal $digest [r debug digest-value h]
        assert_equal 8 [r hlen h]
    }

    test "Values change length while the hashtable grows and rehashes" {
        hash_create h hashtable {f0 a}
        set cmds {}
        for {set i 1} {$i < 3000} {incr i} { lappend cmds [list hset h "f$i" a] }
        # Each new field comes with a longer value for an older one: the
        # entry moves to a new block (and its slot) while buckets migrate.
        for {set i 3000} {$i < 9000} {incr i} {
            lappend cmds [list hset h "f$i" a "f[expr {$i - 3000}]" "value-$i"]
        }
        r_pipeline $cmds
        assert_equal 9000 [r hlen h]
        set bad {}
        foreach {f v} [r hgetall h] {
            set i [string range $f 1 end]
            set want [expr {$i < 6000 ? "value-[expr {$i + 3000}]" : "a"}]
            if {$v ne $want} { lappend bad $f $v }
        }
        set bad
    } {}

    test "HMGET with missing fields and keys" {
        r del h
        r hset h a 1 b 2
        assert_equal {1 {} 2} [r hmget h a zz b]
        r hmget nosuch a b
    } {{} {}}

    test "HKEYS, HVALS, HGETALL on both encodings" {
        foreach enc {listpack hashtable} {
            hash_create h $enc {f1 v1 f2 v2 f3 33}
            assert_equal {f1 f2 f3} [lsort [r hkeys h]]
            assert_equal {33 v1 v2} [lsort [r hvals h]]
            assert_equal {f1 v1 f2 v2 f3 33} [hash_sorted_pairs [r hgetall h]]
        }
    }

    test "Missing keys read as empty hashes" {
        r del nosuch
        assert_equal {} [r hget nosuch a]
        assert_equal 0 [r hlen nosuch]
        assert_equal 0 [r hexists nosuch a]
        assert_equal 0 [r hstrlen nosuch a]
        assert_equal {} [r hkeys nosuch]
        assert_equal {} [r hvals nosuch]
        assert_equal {} [r hgetall nosuch]
        assert_equal 0 [r hdel nosuch a]
        assert_equal {} [r hrandfield nosuch]
        assert_equal {} [r hrandfield nosuch 3]
        assert_equal {} [r hrandfield nosuch -3 withvalues]
        r exists nosuch
    } 0

    test "Hash commands against a non-hash key are WRONGTYPE" {
        r set str x
        foreach cmd {
            {hset str a 1} {hmset str a 1} {hsetnx str a 1} {hget str a} {hmget str a} {hdel str a}
            {hlen str} {hstrlen str a} {hexists str a} {hkeys str} {hvals str} {hgetall str}
            {hincrby str a 1} {hincrbyfloat str a 1} {hrandfield str} {hrandfield str 2}
            {hscan str 0}
        } {
            assert_error "WRONGTYPE Operation against a key holding the wrong kind of value" {r {*}$cmd}
        }
        r get str
    } x

    test "Fields and values are binary safe" {
        r del h
        r hset h "a\x00b" "v\r\n\x00" "" empty
        assert_equal "v\r\n\x00" [r hget h "a\x00b"]
        assert_equal empty [r hget h ""]
        r hlen h
    } 2

    # ------------------------------------------------------------ HDEL

    foreach enc {listpack hashtable} {
        test "HDEL on a $enc hash, key removed with its last field" {
            hash_create h $enc {a 1 b 2 c 3}
            assert_equal 2 [r hdel h a b zz]
            assert_equal 0 [r hdel h a]
            assert_encoding $enc h
            assert_equal {c 3} [r hgetall h]
            assert_equal 1 [r hdel h c c]
            r exists h
        } 0
    }

    # ------------------------------------------------------------ encodings

    test "listpack converts to hashtable past hash-max-listpack-entries" {
        r config set hash-max-listpack-entries 128 ;# Debian's Redis defaults to 512
        r del h
        for {set i 0} {$i < 128} {incr i} { r hset h "f$i" $i }
        assert_encoding listpack h
        r hset h f0 new
        assert_encoding listpack h
        r hset h f128 x
        assert_encoding hashtable h
        r hdel h f128 f127 f126
        assert_encoding hashtable h ;# never converts back
        list [r hlen h] [r hget h f0]
    } {126 new}

    test "listpack converts on a field or value over hash-max-listpack-value" {
        r del h
        r hset h a [string repeat x 64]
        assert_encoding listpack h
        r hset h b [string repeat y 65]
        assert_encoding hashtable h
        r del h
        r hset h a 1
        r hset h [string repeat f 65] 1
        assert_encoding hashtable h
        r del h
        r hsetnx h [string repeat f 65] 1
        assert_encoding hashtable h
        r hlen h
    } 1

    test "HINCRBY and HINCRBYFLOAT convert on a long field name" {
        r del h
        r hset h a 1
        r hincrby h [string repeat f 70] 5
        assert_encoding hashtable h
        r del h
        r hset h a 1
        r hincrbyfloat h [string repeat f 70] 1.5
        assert_encoding hashtable h
        r hget h [string repeat f 70]
    } 1.5

    tags {valkey-only} {
        test "HSET of many pairs at once creates a hashtable directly" {
            r del h
            set args {}
            for {set i 0} {$i < 129} {incr i} { lappend args f v }
            r hset h {*}$args  ;# one field, but more pairs than the limit
            assert_encoding hashtable h
            r hlen h
        } 1
    }

    test "hash-max-listpack-entries/value (and their ziplist aliases) when changed" {
        r config set hash-max-listpack-entries 2
        r del h
        r hset h a 1 b 2
        assert_encoding listpack h
        r hset h c 3
        assert_encoding hashtable h
        r config set hash-max-ziplist-entries 128 hash-max-ziplist-value 3
        assert_equal {hash-max-listpack-entries 128} [r config get hash-max-listpack-entries]
        assert_equal {hash-max-listpack-value 3} [r config get hash-max-listpack-value]
        r del h
        r hset h abc 123
        assert_encoding listpack h
        r hset h abcd 1
        assert_encoding hashtable h
        r config set hash-max-listpack-value 64
        r hlen h
    } 2

    test "Hash encoding configs: CONFIG GET, SET and REWRITE" {
        if {[r config get hash-max-listpack-entries] ne {hash-max-listpack-entries 128}} {
            skip "default differs on this server (Debian's Redis uses 512)"
        }
        assert_equal {hash-max-listpack-entries 128} [r config get hash-max-listpack-entries]
        assert_equal {hash-max-listpack-value 64} [r config get hash-max-listpack-value]
        assert_equal {hash-max-ziplist-entries 128} [r config get hash-max-ziplist-entries]
        r config set hash-max-listpack-entries 77 hash-max-listpack-value 33
        assert_error "*" {r config set hash-max-listpack-entries abc}
        r config rewrite
        set fd [open [srv config_file]]
        set text [read $fd]
        close $fd
        assert_match "*hash-max-listpack-entries 77*" $text
        assert_match "*hash-max-listpack-value 33*" $text
        r config set hash-max-listpack-entries 128 hash-max-listpack-value 64
        r config rewrite
        r config get hash-max-listpack-entries
    } {hash-max-listpack-entries 128}

    # ------------------------------------------------------------ counters

    foreach enc {listpack hashtable} {
        test "HINCRBY on a $enc hash" {
            hash_create h $enc {n 10 s abc big 9223372036854775806}
            assert_equal 15 [r hincrby h n 5]
            assert_equal 5 [r hincrby h n -10]
            assert_equal 7 [r hincrby h new 7]
            assert_equal 9223372036854775807 [r hincrby h big 1]
            assert_error "*increment or decrement would overflow*" {r hincrby h big 1}
            assert_error "*hash value is not an integer*" {r hincrby h s 1}
            assert_error "*value is not an integer or out of range*" {r hincrby h n x}
            assert_error "*value is not an integer or out of range*" {r hincrby h n 9223372036854775808}
            assert_encoding $enc h
            r hget h n
        } 5
    }

    test "HINCRBY overflow in both directions and on odd values" {
        r del h
        r hset h min -9223372036854775808 sp " 1" f 1.5
        assert_error "*increment or decrement would overflow*" {r hincrby h min -1}
        assert_equal -9223372036854775807 [r hincrby h min 1]
        assert_error "*hash value is not an integer*" {r hincrby h sp 1}
        assert_error "*hash value is not an integer*" {r hincrby h f 1}
        r del newkey
        r hincrby newkey x -3
    } -3

    foreach enc {listpack hashtable} {
        test "HINCRBYFLOAT on a $enc hash" {
            hash_create h $enc {n 10 s abc i 3}
            assert_equal 10.5 [r hincrbyfloat h n 0.5]
            assert_equal 5 [r hincrbyfloat h n -5.5]
            assert_equal 3.25 [r hincrbyfloat h i 0.25]
            assert_equal 1.5 [r hincrbyfloat h new 1.5]
            assert_equal 1000 [r hincrbyfloat h e 1e3]
            assert_error "*hash value is not a float*" {r hincrbyfloat h s 1}
            assert_error "*value is not a valid float*" {r hincrbyfloat h n x}
            assert_error "*value is NaN or Infinity*" {r hincrbyfloat h n inf}
            assert_encoding $enc h
            r hget h n
        } 5
    }

    test "HINCRBYFLOAT that would produce infinity, and huge values" {
        r del h
        r hset h f 1e400 ok 1e4932
        assert_error "*increment would produce NaN or Infinity*" {r hincrbyfloat h ok 1e4932}
        r hset h neg -1e4932
        assert_error "*increment would produce NaN or Infinity*" {r hincrbyfloat h neg -1e4932}
        r hset h ok 1
        assert_equal 1 [r hget h ok]
        assert_match "1000000000*" [r hincrbyfloat h f 1]
        r hincrbyfloat h x 10e-1
    } 1

    # ------------------------------------------------------------ HRANDFIELD

    foreach enc {listpack hashtable} {
        test "HRANDFIELD with and without count on a $enc hash" {
            set pairs {}
            for {set i 0} {$i < 20} {incr i} { lappend pairs "f$i" "v$i" }
            hash_create h $enc $pairs
            set fields [dict keys $pairs]
            assert {[lsearch -exact $fields [r hrandfield h]] >= 0}
            assert_equal {} [r hrandfield h 0]
            assert_equal {} [r hrandfield h 0 withvalues]
            set got [r hrandfield h 7]
            assert_equal 7 [llength [lsort -unique $got]]
            set got [r hrandfield h 7 withvalues]
            assert_equal 14 [llength $got]
            foreach {f v} $got { assert_equal [dict get $pairs $f] $v }
            assert_equal [lsort $fields] [lsort [r hrandfield h 20]]
            assert_equal [lsort $fields] [lsort [r hrandfield h 100]]
            assert_equal [hash_sorted_pairs $pairs] [hash_sorted_pairs [r hrandfield h 100 withvalues]]
            set got [r hrandfield h -50]
            assert_equal 50 [llength $got]
            foreach f $got { assert {[lsearch -exact $fields $f] >= 0} }
            set got [r hrandfield h -30 withvalues]
            assert_equal 60 [llength $got]
            foreach {f v} $got { assert_equal [dict get $pairs $f] $v }
            assert_encoding $enc h
        }

        test "HRANDFIELD distribution on a $enc hash" {
            set pairs {}
            for {set i 0} {$i < 30} {incr i} { lappend pairs "f$i" $i }
            hash_create h $enc $pairs
            set fields [dict keys $pairs]
            set counts [dict create]
            foreach f [r hrandfield h -6000] { dict incr counts $f }
            hash_assert_uniform $counts $fields 6000
            foreach count {10 25} {
                set counts [dict create]
                foreach got [r_pipeline [lrepeat 300 [list hrandfield h $count]]] {
                    assert_equal $count [llength [lsort -unique $got]]
                    foreach f $got { dict incr counts $f }
                }
                hash_assert_uniform $counts $fields [expr {300 * $count}]
            }
            set counts [dict create]
            foreach f [r_pipeline [lrepeat 3000 {hrandfield h}]] { dict incr counts $f }
            hash_assert_uniform $counts $fields 3000
        }
    }

    test "HRANDFIELD count limits and syntax" {
        r del h
        r hset h a 1 b 2
        assert_error "*value is out of range*" {r hrandfield h -9223372036854775808}
        assert_error "*value is not an integer or out of range*" {r hrandfield h 9223372036854775808}
        assert_error "*value is not an integer or out of range*" {r hrandfield h x}
        assert_error "*value is out of range*" {r hrandfield h -4611686018427387904 withvalues}
        assert_error "*value is out of range*" {r hrandfield h 4611686018427387904 withvalues}
        assert_error "*syntax error*" {r hrandfield h 1 foo}
        assert_error "*syntax error*" {r hrandfield h 1 withvalues x}
        assert_equal 4 [llength [r hrandfield h 4611686018427387903 withvalues]]
        llength [r hrandfield h 9223372036854775807]
    } 2

    test "HRANDFIELD replies in RESP3" {
        r del h
        r hset h a 1 b 2
        assert_equal "*2" [hash_raw_reply 3 hrandfield h 2 withvalues]
        assert_equal "*4" [hash_raw_reply 2 hrandfield h 2 withvalues]
        assert_equal "*3" [hash_raw_reply 3 hrandfield h -3 withvalues]
        assert_equal "*6" [hash_raw_reply 2 hrandfield h -3 withvalues]
        assert_equal "_" [hash_raw_reply 3 hrandfield nosuch]
        set c [vk_client]
        $c hello 3
        set pairs [$c hrandfield h -2 withvalues]
        $c close
        assert_equal 2 [llength $pairs]
        foreach p $pairs { assert_equal 2 [llength $p] }
        hash_raw_reply 3 hgetall h
    } "%2"

    # ------------------------------------------------------------ HSCAN

    test "HSCAN of a listpack hash returns everything at once" {
        hash_create h listpack {a 1 b 2 c 3 ab 4}
        set res [r hscan h 0 count 1]
        assert_equal 0 [lindex $res 0]
        assert_equal {a 1 ab 4 b 2 c 3} [hash_sorted_pairs [lindex $res 1]]
        hash_sorted_pairs [lindex [r hscan h 0 match a*] 1]
    } {a 1 ab 4}

    test "HSCAN of a hashtable hash iterates all pairs" {
        r del h
        set expected {}
        for {set i 0} {$i < 1000} {incr i} {
            r hset h "f$i" "v$i"
            dict set expected "f$i" "v$i"
        }
        assert_encoding hashtable h
        set seen [dict create]
        set cursor 0
        set calls 0
        while 1 {
            set res [r hscan h $cursor count 20]
            incr calls
            set cursor [lindex $res 0]
            foreach {f v} [lindex $res 1] { dict set seen $f $v }
            if {$cursor == 0} break
        }
        assert {$calls > 1}
        assert_equal [hash_sorted_pairs $expected] [hash_sorted_pairs $seen]
        set seen [dict create]
        set cursor 0
        while 1 {
            set res [r hscan h $cursor match f1?? count 100]
            set cursor [lindex $res 0]
            foreach {f v} [lindex $res 1] {
                assert_equal [dict get $expected $f] $v
                dict set seen $f $v
            }
            if {$cursor == 0} break
        }
        dict size $seen
    } 100

    tags {valkey-only} {
        test "HSCAN NOVALUES on both encodings" {
            foreach enc {listpack hashtable} {
                hash_create h $enc {a 1 b 2 c 3}
                set fields {}
                set cursor 0
                while 1 {
                    set res [r hscan h $cursor novalues]
                    set cursor [lindex $res 0]
                    lappend fields {*}[lindex $res 1]
                    if {$cursor == 0} break
                }
                assert_equal {a b c} [lsort $fields]
                assert_equal {b} [lindex [r hscan h 0 match b novalues count 100] 1]
                assert_equal {b} [lindex [r hscan h 0 NOVALUES match b] 1]
            }
        }
    }

    test "HSCAN returns every field present throughout while the hash grows and shrinks" {
        r del h
        set kept {}
        for {set i 0} {$i < 200} {incr i} { lappend kept "k$i" "val$i" }
        hash_create h hashtable $kept
        set seen [dict create]
        set added {}
        set cursor 0
        set round 0
        while 1 {
            set res [r hscan h $cursor count 10]
            set cursor [lindex $res 0]
            foreach {f v} [lindex $res 1] { dict set seen $f $v }
            # Between two calls of the scan, bursts of other fields grow the
            # table several sizes, then their removal shrinks it back.
            if {$round % 10 < 5} {
                set burst {}
                for {set j 0} {$j < 600} {incr j} {
                    lappend burst "x$round:$j" $j
                    lappend added "x$round:$j"
                }
                r hset h {*}$burst
            } elseif {[llength $added]} {
                r hdel h {*}$added
                set added {}
            }
            incr round
            if {$cursor == 0} break
        }
        assert {$round > 10} "$round rounds"
        set missing {}
        foreach {f v} $kept {
            if {![dict exists $seen $f] || [dict get $seen $f] ne $v} { lappend missing $f }
        }
        set missing
    } {}

    test "HSCAN errors and missing keys" {
        r del h
        r hset h a 1
        assert_error "*invalid cursor*" {r hscan h abc}
        assert_error "*syntax error*" {r hscan h 0 type hash}
        assert_error "*syntax error*" {r hscan h 0 count 0}
        assert_error "*syntax error*" {r hscan h 0 match}
        r hscan nosuch 0
    } {0 {}}

    # ------------------------------------------------------------ events

    test "Keyspace events of the hash commands" {
        r del h
        set ev [hash_keyevents {
            r hset h a 1 b 2
            r hmset h a 2
            r hsetnx h a 3      ;# exists: no event
            r hsetnx h c 3
            r hincrby h a 1
            r hincrbyfloat h a 1.5
            r hdel h zz         ;# nothing deleted: no event
            r hdel h a b
            r hdel h c
        }]
        set ev
    } {hset h hset h hset h hincrby h hincrbyfloat h hdel h hdel h del h}

    # ------------------------------------------------------------ object methods

    test "MEMORY USAGE, COPY and DEBUG DIGEST-VALUE on both encodings" {
        needs_debug
        set digests {}
        foreach enc {listpack hashtable} {
            hash_create h $enc {a 1 b two c 300}
            assert {[r memory usage h] > 0}
            lappend digests [r debug digest-value h]
            r del c
            assert_equal 1 [r copy h c]
            assert_encoding $enc c
            r hset c a changed d new
            r hdel c b
            assert_equal {a 1 b two c 300} [hash_sorted_pairs [r hgetall h]]
            assert_equal {a changed c 300 d new} [hash_sorted_pairs [r hgetall c]]
        }
        assert_equal 1 [llength [lsort -unique $digests]]
        # Swapping values between fields changes the digest.
        r del x y
        r hset x a 1 b 2
        r hset y a 2 b 1
        assert_not_equal [r debug digest-value x] [r debug digest-value y]
        r del big
        for {set i 0} {$i < 1000} {incr i} { r hset big "field:$i" "value:$i" }
        assert_range [r memory usage big] 20000 800000
        assert {[r memory usage big samples 0] > 0}
    }

    # Our hashtable encoding's own figure (Redis 7.0 spends about 72 bytes).
    tags {valkey-only} {
        test "A hashtable hash costs under 48 bytes per short field and value, and shrinks" {
            r del h
            set batch {}
            for {set i 0} {$i < 20000} {incr i} {
                lappend batch [format "f%07d" $i] [format "v%07d" $i]
                if {[llength $batch] == 2000} { r hset h {*}$batch; set batch {} }
            }
            assert_encoding hashtable h
            # Field and value share one 32-byte block, plus the field's share
            # of 64-byte buckets of seven slots, at most 77% full.
            set per [expr {[r memory usage h samples 0] / 20000.0}]
            assert {$per < 48} "$per bytes per field"
            assert_match "*buckets: * of 7 entries*" [r debug htstats-key h]
            for {set i 0} {$i < 19900} {incr i} { lappend batch [format "f%07d" $i] }
            r hdel h {*}$batch
            assert_equal 100 [r hlen h]
            assert {[r memory usage h samples 0] < 8000}
            assert_equal v0019999 [r hget h f0019999]
        }
    }

    # ------------------------------------------------------------ randomized

    test "Randomized hash operations against a Tcl model" {
        set model [dict create]
        r del rh
        for {set iter 0} {$iter < 4000} {incr iter} {
            switch [expr {int(rand() * 3)}] {
                0 { set f "f[expr {int(rand() * 60)}]" }
                1 { set f [expr {int(rand() * 60)}] }
                2 { set f "[string repeat F 70][expr {int(rand() * 3)}]" }
            }
            switch [expr {int(rand() * 3)}] {
                0 { set v [expr {int(rand() * 1000) - 500}] }
                1 { set v "val[expr {int(rand() * 100)}]" }
                2 { set v [string repeat V [expr {int(rand() * 80)}]] }
            }
            switch [expr {int(rand() * 7)}] {
                0 - 1 {
                    set new [expr {![dict exists $model $f]}]
                    assert_equal $new [r hset rh $f $v]
                    dict set model $f $v
                }
                2 {
                    set new [expr {![dict exists $model $f]}]
                    assert_equal $new [r hsetnx rh $f $v]
                    if {$new} { dict set model $f $v }
                }
                3 {
                    set had [dict exists $model $f]
                    assert_equal $had [r hdel rh $f]
                    dict unset model $f
                }
                4 {
                    set exp [expr {[dict exists $model $f] ? [dict get $model $f] : {}}]
                    assert_equal $exp [r hget rh $f]
                }
                5 {
                    set cur [expr {[dict exists $model $f] ? [dict get $model $f] : 0}]
                    if {[string is wideinteger -strict $cur] && [regexp {^(0|-?[1-9][0-9]*)$} $cur]} {
                        set by [expr {int(rand() * 20) - 10}]
                        assert_equal [expr {$cur + $by}] [r hincrby rh $f $by]
                        dict set model $f [expr {$cur + $by}]
                    } else {
                        assert_error "*not an integer*" {r hincrby rh $f 1}
                    }
                }
                6 {
                    if {[dict size $model]} {
                        foreach {rf rv} [r hrandfield rh -3 withvalues] {
                            assert_equal [dict get $model $rf] $rv
                        }
                    }
                }
            }
            if {$iter % 200 == 0} {
                assert_equal [hash_sorted_pairs $model] [hash_sorted_pairs [r hgetall rh]] "iteration $iter"
                assert_equal [dict size $model] [r hlen rh]
                assert_equal [expr {[dict size $model] > 0}] [r exists rh]
            }
        }
        assert_equal [hash_sorted_pairs $model] [hash_sorted_pairs [r hgetall rh]]
    }
}
