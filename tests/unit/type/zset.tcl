# The sorted set type: ZADD (NX XX GT LT CH INCR) and ZINCRBY, ZREM, scores
# and ranks, every ZRANGE form and ZRANGESTORE, the legacy range commands,
# ZCOUNT/ZLEXCOUNT, the ZREMRANGEBY* deletes, pops (ZPOPMIN/ZPOPMAX/ZMPOP and
# the blocking BZPOPMIN/BZPOPMAX/BZMPOP), ZRANDMEMBER, the algebra commands
# (ZUNION/ZINTER/ZDIFF, STORE forms, ZINTERCARD, plain sets as inputs), ZSCAN,
# the two encodings (listpack, skiplist) and the conversions between them,
# keyspace events, MEMORY USAGE / COPY / DEBUG DIGEST-VALUE, and randomized
# runs against a Tcl model.
#
# Most behaviour tests run once per encoding: the listpack pass keeps the
# default limits, the skiplist pass sets zset-max-listpack-entries to 0 so
# every new sorted set is a skiplist.  Tests tagged "valkey-only" need
# behaviour Redis 7.0 lacks (ZRANK WITHSCORE, ZSCAN NOSCORES), so
#   ./runtest --server-binary /usr/bin/redis-server --tags -valkey-only
# runs the rest against Redis as a reference.

# ---------------------------------------------------------------- helpers

proc zset_info_field {field} {
    set info [r info clients]
    if {[regexp "$field:(\\d+)" $info -> v]} { return $v }
    return -1
}

# Waits until INFO reports `n` clients blocked on keys.
proc zset_wait_blocked {n} {
    wait_for_condition 100 10 {[zset_info_field blocked_clients] == $n} {
        fail "expected $n blocked clients, INFO says [zset_info_field blocked_clients]"
    }
}

# Makes new sorted sets start in `enc`: listpack (default limits) or
# skiplist (no listpack at all).
proc zset_use_encoding {enc} {
    if {$enc eq "listpack"} {
        r config set zset-max-listpack-entries 128
        r config set zset-max-listpack-value 64
    } else {
        r config set zset-max-listpack-entries 0
        r config set zset-max-listpack-value 64
    }
}

# The first raw reply line of a command sent over RESP `proto`.
proc zset_raw_reply {proto args} {
    set c [vk_client]
    $c hello $proto
    $c readraw 1
    set line [$c {*}$args]
    $c close
    return $line
}

# A command's reply over RESP3.
proc zset_resp3 {args} {
    set c [vk_client]
    $c hello 3
    set reply [$c {*}$args]
    $c close
    return $reply
}

# Runs script with keyspace notifications on; returns the key events it
# produced as a flat list {event key ...}. Skips without PSUBSCRIBE.
proc zset_keyevents {script} {
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

# Orders {score member} pairs as a sorted set does.
proc zset_pair_cmp {a b} {
    set sa [lindex $a 0]
    set sb [lindex $b 0]
    if {$sa < $sb} { return -1 }
    if {$sa > $sb} { return 1 }
    return [string compare [lindex $a 1] [lindex $b 1]]
}

# The model dict (member -> score) as a sorted list of {score member}.
proc zset_model_sorted {model} {
    set pairs {}
    dict for {m s} $model { lappend pairs [list $s $m] }
    return [lsort -command zset_pair_cmp $pairs]
}

start_server {tags {"zset"} overrides {enable-debug-command yes}} {

    # ------------------------------------------------ per-encoding behaviour

    foreach enc {listpack skiplist} {
        zset_use_encoding $enc

        test "ZADD, ZCARD, ZSCORE and the encoding - $enc" {
            r del z
            assert_equal 3 [r zadd z 10 a 20 b 30 c]
            assert_encoding $enc z
            assert_equal 3 [r zcard z]
            assert_equal 20 [r zscore z b]
            assert_equal "" [r zscore z nosuch]
            assert_equal 0 [r zcard nosuch]
            assert_equal "" [r zscore nosuch a]
            assert_equal 0 [r zadd z 11 a]
            r zrange z 0 -1 withscores
        } {a 11 b 20 c 30}

        test "ZADD orders equal scores by member bytes - $enc" {
            r del z
            r zadd z 1 b 1 a 1 ab 0 z 2 A 1 B
            r zrange z 0 -1
        } {z B a ab b A}

        test "ZADD keeps float and infinite scores exactly - $enc" {
            r del z
            r zadd z 1.5 a -2.25 b +inf c -inf d 1e300 e
            assert_equal {d b a e c} [r zrange z 0 -1]
            assert_equal 1.5 [r zscore z a]
            assert_equal inf [r zscore z c]
            assert_equal -inf [r zscore z d]
            assert_equal -2.25 [r zscore z b]
        }

        test "ZADD XX and NX - $enc" {
            r del z
            assert_equal 0 [r zadd z xx 1 a]
            assert_equal 0 [r exists z]
            r zadd z 1 a
            assert_equal 0 [r zadd z xx 5 a 6 b]
            assert_equal {a 5} [r zrange z 0 -1 withscores]
            assert_equal 1 [r zadd z nx 9 a 7 b]
            r zrange z 0 -1 withscores
        } {a 5 b 7}

        test "ZADD GT and LT update only in one direction, always add - $enc" {
            r del z
            r zadd z 10 a 10 b
            assert_equal 1 [r zadd z gt 5 a 20 b 1 c]
            assert_equal {c 1 a 10 b 20} [r zrange z 0 -1 withscores]
            assert_equal 1 [r zadd z lt 5 a 30 b 2 d]
            assert_equal {c 1 d 2 a 5 b 20} [r zrange z 0 -1 withscores]
            assert_equal 0 [r zadd z xx gt 1 c 3 zz]
            assert_equal 1 [r zadd z xx gt ch 3 c]
            r zscore z c
        } {3}

        test "ZADD CH counts updates as well as additions - $enc" {
            r del z
            r zadd z 1 a 2 b
            assert_equal 0 [r zadd z 1 a 2 b]
            assert_equal 2 [r zadd z ch 1 a 5 b 3 c]
            r zadd z CH NX 9 a 9 d
        } {1}

        test "ZADD INCR and ZINCRBY - $enc" {
            r del z
            assert_equal 5 [r zadd z incr 5 a]
            assert_equal 7.5 [r zadd z incr 2.5 a]
            assert_equal 7.5 [r zscore z a]
            assert_equal "" [r zadd z nx incr 1 a]
            assert_equal "" [r zadd z xx incr 1 nosuch]
            assert_equal "" [r zadd z gt incr -1 a]
            assert_equal 8.5 [r zadd z gt incr 1 a]
            assert_equal 1 [r zincrby z 1 b]
            assert_equal -1 [r zincrby z -2 b]
            assert_equal "" [r zadd nosuch xx incr 1 a]
            r zrange z 0 -1 withscores
        } {b -1 a 8.5}

        test "ZADD and ZINCRBY errors - $enc" {
            r del z
            r zadd z 1 a
            assert_error "*XX and NX options at the same time are not compatible*" {r zadd z nx xx 1 a}
            assert_error "*GT, LT, and/or NX options at the same time are not compatible*" {r zadd z gt lt 1 a}
            assert_error "*GT, LT, and/or NX options at the same time are not compatible*" {r zadd z nx gt 1 a}
            assert_error "*GT, LT, and/or NX options at the same time are not compatible*" {r zadd z nx lt 1 a}
            assert_error "*INCR option supports a single increment-element pair*" {r zadd z incr 1 a 2 b}
            assert_error "*syntax error*" {r zadd z 1 a 2}
            assert_error "*syntax error*" {r zadd z nx 1}
            assert_error "*wrong number of arguments*" {r zadd z 1}
            assert_error "*value is not a valid float*" {r zadd z 1 a abc b}
            assert_error "*value is not a valid float*" {r zadd z nan a}
            assert_error "*value is not a valid float*" {r zincrby z abc a}
            set many {}
            for {set i 0} {$i < 12} {incr i} { lappend many $i m$i }
            assert_error "*value is not a valid float*" {r zadd z {*}$many 1x last}
            assert_error "*value is not a valid float*" {r zadd z 1 a 2 b 3 c 4 d 5 e 6 f 7 g 8 h 9.5.1 i}
            # A bad score leaves the set untouched, even the good pairs.
            assert_equal {a 1} [r zrange z 0 -1 withscores]
            # Scores written as plain digits, signed, with leading zeros.
            r zadd z2 007 a -0012 b +3 c 123456789012345 d 1234567890123456 e 0.5 f
            assert_equal {b -12 f 0.5 c 3 a 7 d 123456789012345 e 1234567890123456} [r zrange z2 0 -1 withscores]
            r del z2
            r set str x
            assert_error "*WRONGTYPE*" {r zadd str 1 a}
            assert_error "*WRONGTYPE*" {r zincrby str 1 a}
            r del str
        }

        test "ZINCRBY to NaN is refused and leaves the score - $enc" {
            r del z
            r zadd z +inf a
            assert_error "*resulting score is not a number (NaN)*" {r zincrby z -inf a}
            assert_error "*resulting score is not a number (NaN)*" {r zadd z incr -inf a}
            r zscore z a
        } {inf}

        test "ZREM removes members and deletes the emptied key - $enc" {
            r del z
            r zadd z 1 a 2 b 3 c
            assert_equal 0 [r zrem z nosuch]
            assert_equal 2 [r zrem z a b nosuch]
            assert_equal {c} [r zrange z 0 -1]
            assert_equal 1 [r zrem z c]
            assert_equal 0 [r exists z]
            assert_equal 0 [r zrem nosuch a]
        }

        test "ZMSCORE - $enc" {
            r del z
            r zadd z 1 a 2.5 b
            assert_equal {1 {} 2.5} [r zmscore z a x b]
            assert_equal {{} {}} [r zmscore nosuch a b]
            assert_error "*wrong number of arguments*" {r zmscore z}
        }

        test "ZRANK and ZREVRANK - $enc" {
            r del z
            r zadd z 10 x 20 y 30 z
            assert_equal 0 [r zrank z x]
            assert_equal 2 [r zrank z z]
            assert_equal 2 [r zrevrank z x]
            assert_equal 0 [r zrevrank z z]
            assert_equal "" [r zrank z nosuch]
            assert_equal "" [r zrank nosuch x]
            assert_equal "" [r zrevrank nosuch x]
        }

        tags {"valkey-only"} {
            test "ZRANK and ZREVRANK WITHSCORE - $enc" {
                r del z
                r zadd z 10 x 20.5 y 30 z
                assert_equal {1 20.5} [r zrank z y withscore]
                assert_equal {0 30} [r zrevrank z z WITHSCORE]
                assert_equal "" [r zrank z nosuch withscore]
                assert_equal "" [r zrank nosuch x withscore]
                assert_equal "*-1" [zset_raw_reply 2 zrank z nosuch withscore]
                assert_equal "_" [zset_raw_reply 3 zrank z nosuch withscore]
                assert_error "*syntax error*" {r zrank z x withscores}
                assert_error "*wrong number of arguments*" {r zrank z x withscore extra}
            }
        }

        test "ZRANGE by rank, negative indexes, WITHSCORES - $enc" {
            r del z
            r zadd z 1 a 2 b 3 c 4 d
            assert_equal {a b c d} [r zrange z 0 -1]
            assert_equal {a b c} [r zrange z 0 -2]
            assert_equal {b c d} [r zrange z -3 -1]
            assert_equal {} [r zrange z 5 10]
            assert_equal {} [r zrange z 2 1]
            assert_equal {a b c d} [r zrange z -10 10]
            assert_equal {d} [r zrange z -1 -1]
            assert_equal {a 1 b 2} [r zrange z 0 1 withscores]
            assert_equal {} [r zrange nosuch 0 -1]
        }

        test "ZREVRANGE and ZRANGE REV by rank - $enc" {
            r del z
            r zadd z 1 a 2 b 3 c 4 d
            assert_equal {d c b a} [r zrevrange z 0 -1]
            assert_equal {c b} [r zrevrange z 1 2]
            assert_equal {d 4 c 3} [r zrevrange z 0 1 withscores]
            assert_equal {c b} [r zrange z 1 2 rev]
            assert_equal {a} [r zrange z -1 -1 REV]
        }

        test "ZRANGEBYSCORE and ZRANGE BYSCORE with open and infinite bounds - $enc" {
            r del z
            r zadd z -inf ninf 1 a 2 b 3 c 4 d +inf pinf
            assert_equal {ninf a b c d pinf} [r zrangebyscore z -inf +inf]
            assert_equal {a b c} [r zrangebyscore z 1 3]
            assert_equal {b} [r zrangebyscore z (1 (3]
            assert_equal {b c} [r zrange z (1 3 byscore]
            assert_equal {ninf} [r zrangebyscore z -inf (1]
            assert_equal {pinf} [r zrangebyscore z (4 +inf]
            assert_equal {} [r zrangebyscore z 3 1]
            assert_equal {} [r zrangebyscore z (2 (2]
            assert_equal {b} [r zrangebyscore z 2 2]
            assert_equal {a 1 b 2} [r zrangebyscore z 1 2 withscores]
            assert_equal {} [r zrangebyscore nosuch -inf +inf]
        }

        test "ZREVRANGEBYSCORE and ZRANGE BYSCORE REV take max first - $enc" {
            r del z
            r zadd z 1 a 2 b 3 c 4 d
            assert_equal {d c b a} [r zrevrangebyscore z +inf -inf]
            assert_equal {c b} [r zrevrangebyscore z 3 (1]
            assert_equal {c 3 b 2} [r zrange z 3 (1 byscore rev withscores]
            assert_equal {} [r zrevrangebyscore z 1 3]
        }

        test "ZRANGEBYSCORE LIMIT: offset, count, negative count and offset - $enc" {
            r del z
            r zadd z 1 a 2 b 3 c 4 d 5 e
            assert_equal {b c} [r zrangebyscore z -inf +inf limit 1 2]
            assert_equal {c d e} [r zrangebyscore z -inf +inf limit 2 -1]
            assert_equal {} [r zrangebyscore z -inf +inf limit -1 2]
            assert_equal {} [r zrangebyscore z -inf +inf limit 10 2]
            assert_equal {} [r zrangebyscore z -inf +inf limit 0 0]
            assert_equal {d c} [r zrevrangebyscore z +inf -inf limit 1 2]
            assert_equal {d 4} [r zrange z +inf -inf byscore rev limit 1 1 withscores]
            assert_equal {b 2 c 3} [r zrangebyscore z 2 +inf withscores limit 0 2]
        }

        test "ZRANGEBYLEX, ZREVRANGEBYLEX and ZRANGE BYLEX - $enc" {
            r del z
            r zadd z 0 alpha 0 bar 0 cool 0 down 0 elephant 0 foo 0 great 0 hill 0 omega
            assert_equal {alpha bar cool} [r zrangebylex z - \[cool]
            assert_equal {bar cool} [r zrangebylex z (alpha \[cool]
            assert_equal {bar} [r zrangebylex z (alpha (cool]
            assert_equal {great hill omega} [r zrangebylex z \[g +]
            assert_equal {} [r zrangebylex z + -]
            assert_equal {} [r zrangebylex z \[z +]
            assert_equal {omega hill great} [r zrevrangebylex z + \[g]
            assert_equal {cool bar} [r zrevrangebylex z \[cool (alpha]
            assert_equal {bar cool} [r zrange z (alpha \[cool bylex]
            assert_equal {cool bar} [r zrange z \[cool (alpha bylex rev]
            assert_equal {bar cool} [r zrangebylex z - + limit 1 2]
            assert_equal {hill great} [r zrevrangebylex z + - limit 1 2]
            assert_equal {alpha bar cool down elephant foo great hill omega} [r zrangebylex z \[ +]
            assert_equal {} [r zrangebylex nosuch - +]
        }

        test "ZRANGE option errors - $enc" {
            r del z
            r zadd z 1 a 2 b
            assert_error "*syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX*" \
                {r zrange z 0 -1 limit 0 1}
            assert_error "*syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX*" \
                {r zrevrange z 0 -1 limit 0 1}
            assert_error "*syntax error, WITHSCORES not supported in combination with BYLEX*" \
                {r zrange z - + bylex withscores}
            assert_error "*syntax error, WITHSCORES not supported in combination with BYLEX*" \
                {r zrangebylex z - + withscores}
            assert_error "*min or max is not a float*" {r zrangebyscore z a b}
            assert_error "*min or max is not a float*" {r zrange z 1 nan byscore}
            assert_error "*min or max not valid string range item*" {r zrangebylex z a b}
            assert_error "*min or max not valid string range item*" {r zrange z - +x bylex}
            assert_error "*value is not an integer or out of range*" {r zrange z a 1}
            assert_error "*value is not an integer or out of range*" {r zrangebyscore z 0 1 limit x 1}
            assert_error "*syntax error*" {r zrange z 0 -1 byscore bylex}
            assert_error "*syntax error*" {r zrange z 0 -1 rev rev}
            assert_error "*syntax error*" {r zrangebyscore z 0 1 rev}
            assert_error "*syntax error*" {r zrangebyscore z 0 1 byscore}
            assert_error "*syntax error*" {r zrevrange z 0 1 rev}
            assert_error "*syntax error*" {r zrange z 0 -1 limit 1}
            assert_error "*syntax error*" {r zrangestore dst z 0 -1 withscores}
            assert_error "*wrong number of arguments*" {r zrange z 0}
        }

        test "ZRANGESTORE stores every form, and deletes on empty results - $enc" {
            r del z dst
            r zadd z 1 a 2 b 3 c 4 d
            assert_equal 4 [r zrangestore dst z 0 -1]
            assert_equal {a 1 b 2 c 3 d 4} [r zrange dst 0 -1 withscores]
            assert_equal 2 [r zrangestore dst z 3 (1 byscore rev]
            assert_equal {b 2 c 3} [r zrange dst 0 -1 withscores]
            assert_equal 0 [r zrangestore dst z 0 -1 rev limit 0 1 byscore]
            assert_equal 0 [r exists dst]
            assert_equal 1 [r zrangestore dst z -inf +inf byscore limit 1 1]
            assert_equal {b} [r zrange dst 0 -1]
            assert_equal 2 [r zrangestore dst z \[a (c bylex]
            assert_equal 0 [r zrangestore dst z 5 10]
            assert_equal 0 [r exists dst]
            r set dst str
            assert_equal 0 [r zrangestore dst nosuch 0 -1]
            assert_equal 0 [r exists dst]
            r set str x
            assert_error "*WRONGTYPE*" {r zrangestore dst str 0 -1}
            r del str
        }

        test "ZCOUNT and ZLEXCOUNT - $enc" {
            r del z zl
            r zadd z 1 a 2 b 3 c 4 d 5 e
            assert_equal 5 [r zcount z -inf +inf]
            assert_equal 3 [r zcount z 2 4]
            assert_equal 1 [r zcount z (2 (4]
            assert_equal 0 [r zcount z (2 (2]
            assert_equal 0 [r zcount z 10 20]
            assert_equal 0 [r zcount nosuch -inf +inf]
            assert_error "*min or max is not a float*" {r zcount z a 1}
            r zadd zl 0 a 0 b 0 c 0 d
            assert_equal 4 [r zlexcount zl - +]
            assert_equal 2 [r zlexcount zl (a \[c]
            assert_equal 0 [r zlexcount zl + -]
            assert_equal 0 [r zlexcount nosuch - +]
            assert_error "*min or max not valid string range item*" {r zlexcount zl a c}
        }

        test "ZREMRANGEBYRANK - $enc" {
            r del z
            r zadd z 1 a 2 b 3 c 4 d 5 e
            assert_equal 2 [r zremrangebyrank z 1 2]
            assert_equal {a d e} [r zrange z 0 -1]
            assert_equal 0 [r zremrangebyrank z 5 10]
            assert_equal 0 [r zremrangebyrank z 2 1]
            assert_equal 1 [r zremrangebyrank z -1 -1]
            assert_equal 2 [r zremrangebyrank z 0 100]
            assert_equal 0 [r exists z]
            assert_equal 0 [r zremrangebyrank nosuch 0 -1]
            assert_error "*value is not an integer or out of range*" {r zremrangebyrank z a 1}
        }

        test "ZREMRANGEBYSCORE - $enc" {
            r del z
            r zadd z 1 a 2 b 3 c 4 d 5 e
            assert_equal 2 [r zremrangebyscore z (1 3]
            assert_equal {a d e} [r zrange z 0 -1]
            assert_equal 0 [r zremrangebyscore z 10 20]
            assert_equal 1 [r zremrangebyscore z -inf (4]
            assert_equal 2 [r zremrangebyscore z -inf +inf]
            assert_equal 0 [r exists z]
            assert_error "*min or max is not a float*" {r zremrangebyscore z a 1}
        }

        test "ZREMRANGEBYLEX - $enc" {
            r del z
            r zadd z 0 a 0 b 0 c 0 d 0 e
            assert_equal 2 [r zremrangebylex z (a \[c]
            assert_equal {a d e} [r zrange z 0 -1]
            assert_equal 0 [r zremrangebylex z + -]
            assert_equal 3 [r zremrangebylex z - +]
            assert_equal 0 [r exists z]
            assert_error "*min or max not valid string range item*" {r zremrangebylex z a c}
        }

        test "ZPOPMIN and ZPOPMAX with and without count - $enc" {
            r del z
            r zadd z 1 a 2 b 3 c 4 d 5 e
            assert_equal {a 1} [r zpopmin z]
            assert_equal {e 5} [r zpopmax z]
            assert_equal {b 2 c 3} [r zpopmin z 2]
            assert_equal {} [r zpopmin z 0]
            assert_equal {d 4} [r zpopmax z 10]
            assert_equal 0 [r exists z]
            assert_equal {} [r zpopmin nosuch]
            assert_equal {} [r zpopmin nosuch 3]
            assert_error "*value is out of range, must be positive*" {r zpopmin z -1}
            assert_error "*syntax error*" {r zpopmin z 1 2}
        }

        test "ZPOPMIN/ZPOPMAX of integer members and equal scores - $enc" {
            r del z
            r zadd z 1 300 1 20 1 -5 2 7 0 100000000000
            assert_equal {100000000000 0 -5 1} [r zpopmin z 2]
            assert_equal {7 2 300 1} [r zpopmax z 2]
            assert_equal {20 1} [r zpopmin z]
            assert_equal 0 [r exists z]
        }

        test "ZPOPMIN/ZPOPMAX reply shapes in RESP2 and RESP3 - $enc" {
            r del z
            r zadd z 1 a 2 b 3 c 4 d
            assert_equal {a 1} [zset_resp3 zpopmin z]
            assert_equal {{b 2} {c 3}} [zset_resp3 zpopmin z 2]
            assert_equal "*2" [zset_raw_reply 2 zpopmax z 1]
            r zadd z 5 e
            assert_equal "*1" [zset_raw_reply 3 zpopmax z 1]
            assert_equal "*0" [zset_raw_reply 3 zpopmax nosuch]
        }

        test "ZMPOP - $enc" {
            r del z1 z2
            r zadd z2 1 a 2 b 3 c
            assert_equal {z2 {{a 1}}} [r zmpop 2 z1 z2 min]
            assert_equal {z2 {{c 3} {b 2}}} [r zmpop 2 z1 z2 max count 10]
            assert_equal 0 [r exists z2]
            assert_equal {} [r zmpop 2 z1 z2 min]
            r zadd z1 1.5 x
            assert_equal {z1 {{x 1.5}}} [zset_resp3 zmpop 1 z1 MIN COUNT 1]
            assert_error "*numkeys*" {r zmpop 0 z1 min}
            assert_error "*syntax error*" {r zmpop 1 z1 middle}
            assert_error "*syntax error*" {r zmpop 3 z1 z2 min}
            assert_error "*count*" {r zmpop 1 z1 min count 0}
            assert_error "*syntax error*" {r zmpop 1 z1 min count 1 count 1}
            r set str x
            assert_error "*WRONGTYPE*" {r zmpop 1 str min}
            r del str
        }

        test "ZRANDMEMBER without and with count - $enc" {
            r del z
            r zadd z 1 a 2 b 3 c 4 d 5 e
            assert {[lsearch {a b c d e} [r zrandmember z]] >= 0}
            assert_equal "" [r zrandmember nosuch]
            assert_equal {} [r zrandmember nosuch 5]
            assert_equal {} [r zrandmember z 0]
            assert_equal {a b c d e} [lsort [r zrandmember z 10]]
            set three [r zrandmember z 3]
            assert_equal 3 [llength [lsort -unique $three]]
            set many [r zrandmember z -20]
            assert_equal 20 [llength $many]
            foreach m $many { assert {[lsearch {a b c d e} $m] >= 0} }
            set ws [r zrandmember z -7 withscores]
            assert_equal 14 [llength $ws]
            foreach {m s} $ws { assert_equal [r zscore z $m] $s }
            set nested [zset_resp3 zrandmember z 2 withscores]
            assert_equal 2 [llength $nested]
            foreach p $nested { assert_equal [r zscore z [lindex $p 0]] [lindex $p 1] }
            assert_error "*syntax error*" {r zrandmember z 1 withscore}
            assert_error "*syntax error*" {r zrandmember z 1 withscores x}
            assert_error "*value is not an integer*" {r zrandmember z x}
            assert_error "*out of range*" {r zrandmember z -9223372036854775808}
        }

        test "ZUNION/ZINTER/ZDIFF and STORE forms, WEIGHTS and AGGREGATE - $enc" {
            r del z1 z2 dst
            r zadd z1 1 a 2 b 3 c
            r zadd z2 10 b 20 c 30 d
            assert_equal {a 1 b 12 c 23 d 30} [r zunion 2 z1 z2 withscores]
            assert_equal {b 12 c 23} [r zinter 2 z1 z2 withscores]
            assert_equal {a 1} [r zdiff 2 z1 z2 withscores]
            assert_equal {a b c d} [r zunion 2 z1 z2]
            assert_equal {a 2 b 14 c 26 d 30} [r zunion 2 z1 z2 weights 2 1 withscores]
            assert_equal {a 1 b 2 c 3 d 30} [r zunion 2 z1 z2 aggregate min withscores]
            assert_equal {b 10 c 20} [r zinter 2 z1 z2 aggregate max withscores]
            assert_equal {c -17 b -8} [r zinter 2 z1 z2 weights 1 -1 withscores]
            assert_equal 4 [r zunionstore dst 2 z1 z2]
            assert_equal {a 1 b 12 c 23 d 30} [r zrange dst 0 -1 withscores]
            assert_equal 2 [r zinterstore dst 2 z1 z2 weights 0 1]
            assert_equal {b 10 c 20} [r zrange dst 0 -1 withscores]
            assert_equal 1 [r zdiffstore dst 2 z1 z2]
            assert_equal {a 1} [r zrange dst 0 -1 withscores]
            assert_equal 0 [r zdiffstore dst 2 z1 z1]
            assert_equal 0 [r exists dst]
            assert_equal {a b c} [r zunion 3 z1 nosuch z1 aggregate max]
            assert_equal {} [r zinter 2 z1 nosuch]
            assert_equal {a b c} [r zdiff 2 z1 nosuch]
            assert_equal {} [r zdiff 2 nosuch z1]
            assert_equal {{a 1} {b 12} {c 23} {d 30}} [zset_resp3 zunion 2 z1 z2 withscores]
        }

        test "Algebra with plain sets as inputs (score 1) - $enc" {
            r del z1 s1 dst
            r zadd z1 5 a 6 b
            r sadd s1 a c
            assert_equal {c 1 a 6 b 6} [r zunion 2 z1 s1 withscores]
            assert_equal {a 6} [r zinter 2 z1 s1 withscores]
            assert_equal {a 2 c 2} [r zunion 2 s1 s1 aggregate sum withscores]
            assert_equal {b 6} [r zdiff 2 z1 s1 withscores]
            assert_equal 2 [r zinterstore dst 2 s1 s1 weights 2 3]
            assert_equal {a 5 c 5} [r zrange dst 0 -1 withscores]
            assert_equal 1 [r zintercard 2 z1 s1]
        }

        test "Algebra: infinities and NaN-producing weights give 0 - $enc" {
            r del z1 z2
            r zadd z1 +inf a -inf b 1 c
            r zadd z2 -inf a 0 b
            assert_equal {a 0 b -inf c 1} [lsort -stride 2 [r zunion 2 z1 z2 withscores]]
            assert_equal {a 0 b 0 c 0} [lsort -stride 2 [r zunion 1 z1 weights 0 withscores]]
            assert_equal {b 0 a inf} [r zinter 2 z1 z2 aggregate max withscores]
            assert_equal {a -inf b -inf} [r zinter 2 z1 z2 aggregate min withscores]
        }

        test "ZINTERCARD with LIMIT - $enc" {
            r del z1 z2
            r zadd z1 1 a 2 b 3 c 4 d
            r zadd z2 1 b 2 c 3 d 4 e
            assert_equal 3 [r zintercard 2 z1 z2]
            assert_equal 2 [r zintercard 2 z1 z2 limit 2]
            assert_equal 3 [r zintercard 2 z1 z2 limit 0]
            assert_equal 0 [r zintercard 2 z1 nosuch]
            assert_error "*LIMIT can't be negative*" {r zintercard 2 z1 z2 limit -1}
        }
    }
    zset_use_encoding listpack

    # ------------------------------------------------------ algebra errors

    test "ZUNION/ZINTER/ZDIFF argument errors" {
        r del z1 z2
        r zadd z1 1 a
        assert_error "*at least 1 input key is needed for 'zunionstore' command*" {r zunionstore dst 0 z1}
        assert_error "*at least 1 input key is needed for 'zinter' command*" {r zinter 0 z1}
        assert_error "*at least 1 input key is needed for 'zintercard' command*" {r zintercard 0 z1}
        assert_error "*value is not an integer or out of range*" {r zunion x z1}
        assert_error "*syntax error*" {r zunion 3 z1 z2}
        assert_error "*syntax error*" {r zintercard 3 z1}
        assert_error "*weight value is not a float*" {r zunion 2 z1 z2 weights 1 x}
        assert_error "*syntax error*" {r zunion 2 z1 z2 weights 1}
        assert_error "*syntax error*" {r zunion 1 z1 aggregate avg}
        assert_error "*syntax error*" {r zdiff 1 z1 weights 1}
        assert_error "*syntax error*" {r zdiff 1 z1 aggregate sum}
        assert_error "*syntax error*" {r zunionstore dst 1 z1 withscores}
        assert_error "*syntax error*" {r zintercard 1 z1 weights 1}
        r set str x
        assert_error "*WRONGTYPE*" {r zunion 2 z1 str}
        assert_error "*WRONGTYPE*" {r zunionstore dst 2 z1 str}
        assert_error "*WRONGTYPE*" {r zintercard 2 z1 str}
        assert_error "*WRONGTYPE*" {r zinter 2 nosuch str}
        r del str
    }

    test "ZUNIONSTORE overwrites any type and deletes on an empty result" {
        r del z1 dst
        r zadd z1 1 a
        r set dst string
        assert_equal 1 [r zunionstore dst 1 z1]
        assert_type zset dst
        assert_equal 0 [r zinterstore dst 2 z1 nosuch]
        assert_equal 0 [r exists dst]
    }

    test "Commands on a key of another type reply WRONGTYPE" {
        r del str
        r set str x
        foreach cmd {
            {zrem str a} {zcard str} {zscore str a} {zmscore str a} {zrank str a} {zrevrank str a}
            {zrange str 0 -1} {zrangebyscore str 0 1} {zrangebylex str - +} {zcount str 0 1}
            {zlexcount str - +} {zremrangebyrank str 0 1} {zremrangebyscore str 0 1}
            {zremrangebylex str - +} {zpopmin str} {zpopmax str 2} {zrandmember str} {zrandmember str 2}
            {zscan str 0} {bzpopmin str 0} {bzmpop 0 1 str min}
        } {
            assert_error "*WRONGTYPE*" [list r {*}$cmd]
        }
        r del str
    }

    # ------------------------------------------------- encodings, conversion

    test "Small sorted sets are listpacks, defaults and config names" {
        assert_equal {zset-max-listpack-entries 128} [r config get zset-max-listpack-entries]
        assert_equal {zset-max-listpack-value 64} [r config get zset-max-listpack-value]
        assert_equal {zset-max-ziplist-entries 128} [r config get zset-max-ziplist-entries]
        assert_equal {zset-max-ziplist-value 64} [r config get zset-max-ziplist-value]
        r del z
        r zadd z 1 a
        assert_encoding listpack z
    }

    test "CONFIG SET through the ziplist aliases" {
        r config set zset-max-ziplist-entries 7
        assert_equal {zset-max-listpack-entries 7} [r config get zset-max-listpack-entries]
        r config set zset-max-ziplist-value 9
        assert_equal {zset-max-listpack-value 9} [r config get zset-max-listpack-value]
        zset_use_encoding listpack
        r config get zset-max-listpack-entries
    } {zset-max-listpack-entries 128}

    test "Listpack converts to skiplist past zset-max-listpack-entries" {
        r config set zset-max-listpack-entries 4
        r del z
        r zadd z 1 a 2 b 3 c 4 d
        assert_encoding listpack z
        r zadd z 5 e
        assert_encoding skiplist z
        # Removing members never converts back.
        r zrem z a b c
        assert_encoding skiplist z
        assert_equal {d e} [r zrange z 0 -1]
        zset_use_encoding listpack
    }

    test "Listpack converts to skiplist on a long member, also via ZINCRBY" {
        r config set zset-max-listpack-value 8
        r del z z2
        r zadd z 1 a
        r zadd z 2 [string repeat x 9]
        assert_encoding skiplist z
        r zincrby z2 1 a
        assert_encoding listpack z2
        r zincrby z2 1 [string repeat y 9]
        assert_encoding skiplist z2
        zset_use_encoding listpack
    }

    test "ZADD with many pairs at once creates a skiplist directly" {
        r del z
        set args {}
        for {set i 0} {$i < 200} {incr i} { lappend args $i m$i }
        r zadd z {*}$args
        assert_encoding skiplist z
        assert_equal 200 [r zcard z]
        assert_equal {m0 m1 m2} [r zrange z 0 2]
    }

    test "STORE results that fit become listpacks again" {
        r del big dst
        set args {}
        for {set i 0} {$i < 200} {incr i} { lappend args $i m$i }
        r zadd big {*}$args
        assert_encoding skiplist big
        r zrangestore dst big 0 9
        assert_encoding listpack dst
        r zunionstore dst 1 big
        assert_encoding skiplist dst
        r zinterstore dst 2 big big
        assert_encoding skiplist dst
        r zremrangebyrank big 10 -1
        assert_encoding skiplist big
        r zunionstore dst 1 big
        assert_encoding listpack dst
        r zdiffstore dst 1 big
        assert_encoding listpack dst
        assert_equal [r zrange big 0 -1 withscores] [r zrange dst 0 -1 withscores]
    }

    test "Both encodings hold the same order after random updates" {
        r del a b
        r config set zset-max-listpack-entries 1000
        r config set zset-max-listpack-value 1000
        for {set i 0} {$i < 300} {incr i} {
            set m "m[expr {int(rand() * 100)}]"
            set s [expr {int(rand() * 20) - 10}]
            r zadd a $s $m
        }
        assert_encoding listpack a
        r config set zset-max-listpack-entries 0
        r zunionstore b 1 a
        assert_encoding skiplist b
        assert_equal [r zrange a 0 -1 withscores] [r zrange b 0 -1 withscores]
        zset_use_encoding listpack
    }

    # ----------------------------------------------------------------- ZSCAN

    test "ZSCAN of a listpack returns everything with scores at once" {
        r del z
        r zadd z 1 a 2.5 b 3 c
        set res [r zscan z 0 count 1]
        assert_equal 0 [lindex $res 0]
        assert_equal {a 1 b 2.5 c 3} [lindex $res 1]
        assert_equal {0 {a 1}} [r zscan z 0 match a]
        assert_equal {0 {}} [r zscan nosuch 0]
    }

    test "ZSCAN of a skiplist iterates every member with its score" {
        r del z
        set args {}
        for {set i 0} {$i < 500} {incr i} { lappend args $i m$i }
        r zadd z {*}$args
        assert_encoding skiplist z
        set cursor 0
        set seen {}
        set calls 0
        while 1 {
            set res [r zscan z $cursor count 20]
            set cursor [lindex $res 0]
            foreach {m s} [lindex $res 1] { dict set seen $m $s }
            incr calls
            if {$cursor == 0} break
        }
        assert {$calls > 1}
        assert_equal 500 [dict size $seen]
        dict for {m s} $seen { assert_equal "m$s" $m }
    }

    test "ZSCAN MATCH and errors" {
        r del z
        r zadd z 1 foo 2 bar 3 food
        assert_equal {foo 1 food 3} [lindex [r zscan z 0 match foo*] 1]
        assert_error "*invalid cursor*" {r zscan z x}
        assert_error "*syntax error*" {r zscan z 0 count 0}
        assert_error "*syntax error*" {r zscan z 0 type zset}
    }

    tags {"valkey-only"} {
        test "ZSCAN NOSCORES returns members only" {
            r del z z2
            r zadd z 1 a 2 b
            assert_equal {a b} [lindex [r zscan z 0 noscores] 1]
            set args {}
            for {set i 0} {$i < 300} {incr i} { lappend args $i m$i }
            r zadd z2 {*}$args
            set res [r zscan z2 0 count 1000 noscores]
            assert_equal 300 [llength [lindex $res 1]]
        }
    }

    # -------------------------------------------------------- reply formats

    test "Scores are bulk strings in RESP2 and doubles in RESP3" {
        r del z
        r zadd z 1.5 a
        assert_equal {$3} [zset_raw_reply 2 zscore z a]
        assert_equal {,1.5} [zset_raw_reply 3 zscore z a]
        assert_equal {,1.5} [zset_raw_reply 3 zincrby z 0 a]
        assert_equal "_" [zset_raw_reply 3 zscore z nosuch]
        assert_equal {$-1} [zset_raw_reply 2 zscore z nosuch]
        assert_equal "*2" [zset_raw_reply 2 zrange z 0 -1 withscores]
        assert_equal "*1" [zset_raw_reply 3 zrange z 0 -1 withscores]
        assert_equal {{a 1.5}} [zset_resp3 zrange z 0 -1 withscores]
        assert_equal {{a 1.5}} [zset_resp3 zrangebyscore z -inf +inf withscores]
    }

    # ------------------------------------------------------- keyspace events

    test "Keyspace events of the sorted set commands" {
        r del z z2 dst
        set events [zset_keyevents {
            r zadd z 1 a 2 b 3 c
            r zadd z 1 a
            r zincrby z 1 a
            r zrem z nosuch
            r zrem z b
            r zpopmin z
            r zpopmax z
            r zadd z2 1 a 2 b 3 c 4 d
            r zremrangebyrank z2 0 0
            r zremrangebyscore z2 2 2
            r zremrangebylex z2 - +
            r zadd z 1 a
            r zunionstore dst 1 z
            r zinterstore dst 1 z
            r zdiffstore dst 1 z
            r zrangestore dst z 0 -1
            r zinterstore dst 2 z nosuch
        }]
        set want [list zadd z zincr z zrem z zpopmin z zpopmax z del z zadd z2 zremrangebyrank z2 \
            zremrangebyscore z2 zremrangebylex z2 del z2 zadd z zunionstore dst zinterstore dst zdiffstore dst \
            zrangestore dst del dst]
        assert_equal $want $events
    }

    # ------------------------------------- MEMORY USAGE, COPY, DEBUG DIGEST

    test "MEMORY USAGE grows with the sorted set, in both encodings" {
        r del small big
        r zadd small 1 a
        set args {}
        for {set i 0} {$i < 1000} {incr i} { lappend args $i member:$i }
        r zadd big {*}$args
        set s [r memory usage small]
        set b [r memory usage big]
        assert {$s > 0 && $s < 200}
        assert {$b > 40000}
    }

    test "COPY duplicates a sorted set in both encodings" {
        foreach enc {listpack skiplist} {
            zset_use_encoding $enc
            r del src dst
            r zadd src 1 a 2 b 3 c
            assert_equal 1 [r copy src dst]
            assert_encoding $enc dst
            r zadd src 9 a
            assert_equal {a 1 b 2 c 3} [r zrange dst 0 -1 withscores]
            assert_equal 0 [r zrank dst a]
        }
        zset_use_encoding listpack
    }

    test "DEBUG DIGEST-VALUE is the same across encodings and changes with scores" {
        needs_debug
        r del a b
        r zadd a 1 x 2.5 y -3 z
        assert_encoding listpack a
        r config set zset-max-listpack-entries 0
        r zunionstore b 1 a
        assert_encoding skiplist b
        zset_use_encoding listpack
        assert_equal [r debug digest-value a] [r debug digest-value b]
        r zincrby b 1 x
        assert_not_equal [r debug digest-value a] [r debug digest-value b]
    }

    # ------------------------------------------------- randomized vs a model

    foreach enc {listpack skiplist} {
        test "Randomized ZADD/ZREM/ZINCRBY against a model: ranks and ranges - $enc" {
            zset_use_encoding $enc
            r config set zset-max-listpack-entries [expr {$enc eq "listpack" ? 1000 : 0}]
            r del z
            set model [dict create]
            for {set step 0} {$step < 1500} {incr step} {
                set m "m[expr {int(rand() * 60)}]"
                set op [expr {int(rand() * 10)}]
                if {$op < 6} {
                    set s [expr {int(rand() * 40) - 20}]
                    r zadd z $s $m
                    dict set model $m $s
                } elseif {$op < 8} {
                    r zrem z $m
                    dict unset model $m
                } else {
                    set inc [expr {int(rand() * 6) - 3}]
                    set old [expr {[dict exists $model $m] ? [dict get $model $m] : 0}]
                    r zincrby z $inc $m
                    dict set model $m [expr {$old + $inc}]
                }
                if {$step % 50 != 0} continue
                set sorted [zset_model_sorted $model]
                set flat {}
                foreach p $sorted { lappend flat [lindex $p 1] [lindex $p 0] }
                assert_equal $flat [r zrange z 0 -1 withscores]
                assert_equal [dict size $model] [r zcard z]
                # ZRANK / ZREVRANK of a few members.
                set n [llength $sorted]
                for {set k 0} {$k < 5 && $n > 0} {incr k} {
                    set idx [expr {int(rand() * $n)}]
                    set mm [lindex $sorted $idx 1]
                    assert_equal $idx [r zrank z $mm]
                    assert_equal [expr {$n - 1 - $idx}] [r zrevrank z $mm]
                }
                # ZRANGEBYSCORE with random bounds, open or closed.
                for {set k 0} {$k < 5} {incr k} {
                    set lo [expr {int(rand() * 50) - 25}]
                    set hi [expr {int(rand() * 50) - 25}]
                    set lox [expr {rand() < 0.5}]
                    set hix [expr {rand() < 0.5}]
                    set want {}
                    foreach p $sorted {
                        set s [lindex $p 0]
                        if {($lox ? $s > $lo : $s >= $lo) && ($hix ? $s < $hi : $s <= $hi)} {
                            lappend want [lindex $p 1]
                        }
                    }
                    set min [expr {$lox ? "($lo" : $lo}]
                    set max [expr {$hix ? "($hi" : $hi}]
                    assert_equal $want [r zrangebyscore z $min $max]
                    assert_equal [lreverse $want] [r zrevrangebyscore z $max $min]
                    assert_equal [llength $want] [r zcount z $min $max]
                }
            }
            assert_encoding $enc z
            zset_use_encoding listpack
        }

        test "Randomized ZRANGEBYLEX/ZLEXCOUNT/ZREMRANGEBYLEX against a model - $enc" {
            zset_use_encoding $enc
            r config set zset-max-listpack-entries [expr {$enc eq "listpack" ? 1000 : 0}]
            r del z
            set members {}
            set alphabet {a b c d e f}
            for {set i 0} {$i < 80} {incr i} {
                set len [expr {int(rand() * 4)}]
                set m ""
                for {set j 0} {$j < $len} {incr j} { append m [lindex $alphabet [expr {int(rand() * 6)}]] }
                lappend members $m
                r zadd z 0 $m
            }
            set sorted [lsort -unique $members]
            assert_equal $sorted [r zrange z 0 -1]
            for {set k 0} {$k < 100} {incr k} {
                set lo [lindex $sorted [expr {int(rand() * [llength $sorted])}]]
                set hi [lindex $sorted [expr {int(rand() * [llength $sorted])}]]
                set lox [expr {rand() < 0.5}]
                set hix [expr {rand() < 0.5}]
                set want {}
                foreach m $sorted {
                    set c1 [string compare $m $lo]
                    set c2 [string compare $m $hi]
                    if {($lox ? $c1 > 0 : $c1 >= 0) && ($hix ? $c2 < 0 : $c2 <= 0)} { lappend want $m }
                }
                set min [expr {$lox ? "($lo" : "\[$lo"}]
                set max [expr {$hix ? "($hi" : "\[$hi"}]
                assert_equal $want [r zrangebylex z $min $max]
                assert_equal [lreverse $want] [r zrevrangebylex z $max $min]
                assert_equal [llength $want] [r zlexcount z $min $max]
            }
            set lo [lindex $sorted 5]
            set hi [lindex $sorted 20]
            set removed [r zremrangebylex z "\[$lo" "($hi"]
            assert_equal 15 $removed
            assert_equal [concat [lrange $sorted 0 4] [lrange $sorted 20 end]] [r zrange z 0 -1]
            zset_use_encoding listpack
        }
    }

    # -------------------------------------------------------------- blocking

    test "BZPOPMIN/BZPOPMAX serve at once when a key has data" {
        r del z1 z2
        r zadd z2 1 a 2 b 3 c
        assert_equal {z2 a 1} [r bzpopmin z1 z2 0]
        assert_equal {z2 c 3} [r bzpopmax z1 z2 0]
        assert_equal {z2 {{b 2}}} [r bzmpop 0 2 z1 z2 min count 5]
        assert_equal 0 [r exists z2]
    }

    test "BZPOPMIN wakes up on ZADD from another client" {
        r del z
        set rd [vk_deferring_client]
        $rd bzpopmin z 0
        zset_wait_blocked 1
        r zadd z 2 b 1 a
        assert_equal {z a 1} [$rd read]
        assert_equal {b} [r zrange z 0 -1]
        $rd close
    }

    test "BZPOPMAX wakes up on the key that gets data, among several" {
        r del z1 z2 z3
        set rd [vk_deferring_client]
        $rd bzpopmax z1 z2 z3 0
        zset_wait_blocked 1
        r zadd z3 5 x 7 y
        assert_equal {z3 y 7} [$rd read]
        $rd close
    }

    test "BZMPOP wakes up with up to COUNT members" {
        r del z1 z2
        set rd [vk_deferring_client]
        $rd bzmpop 0 2 z1 z2 max count 2
        zset_wait_blocked 1
        r zadd z2 1 a 2 b 3 c
        assert_equal {z2 {{c 3} {b 2}}} [$rd read]
        assert_equal {a} [r zrange z2 0 -1]
        $rd close
    }

    test "A STORE command creating the key wakes a blocked BZPOPMIN" {
        r del z src
        r zadd src 4 q
        set rd [vk_deferring_client]
        $rd bzpopmin z 0
        zset_wait_blocked 1
        r zunionstore z 1 src
        assert_equal {z q 4} [$rd read]
        assert_equal 0 [r exists z]
        $rd close
    }

    test "Clients blocked on one sorted set are served first come, first served" {
        r del z
        set clients {}
        for {set i 0} {$i < 3} {incr i} {
            set rd [vk_deferring_client]
            $rd bzpopmin z 0
            zset_wait_blocked [expr {$i + 1}]
            lappend clients $rd
        }
        r zadd z 1 a 2 b 3 c
        set got {}
        foreach rd $clients { lappend got [$rd read] }
        assert_equal {{z a 1} {z b 2} {z c 3}} $got
        foreach rd $clients { $rd close }
        r exists z
    } {0}

    test "Only as many blocked clients as members are served; the rest wait" {
        r del z
        set rd1 [vk_deferring_client]
        set rd2 [vk_deferring_client]
        $rd1 bzpopmax z 0
        zset_wait_blocked 1
        $rd2 bzpopmax z 0
        zset_wait_blocked 2
        r zadd z 1 only
        assert_equal {z only 1} [$rd1 read]
        zset_wait_blocked 1
        r zadd z 2 next
        assert_equal {z next 2} [$rd2 read]
        $rd1 close
        $rd2 close
    }

    test "BZPOPMIN and BZMPOP time out with a null reply" {
        r del z
        set rd [vk_deferring_client]
        $rd bzpopmin z 0.05
        assert_equal {} [$rd read]
        $rd bzmpop 0.05 1 z min
        assert_equal {} [$rd read]
        $rd close
        set c [vk_client]
        $c readraw 1
        assert_equal "*-1" [$c bzpopmax z 0.01]
        $c readraw 0
        $c hello 3
        $c readraw 1
        assert_equal "_" [$c bzpopmax z 0.01]
        $c close
    }

    test "Blocking timeout errors" {
        assert_error "*timeout is not a float or out of range*" {r bzpopmin z abc}
        assert_error "*timeout is negative*" {r bzpopmin z -1}
        assert_error "*timeout is negative*" {r bzmpop -1 1 z min}
        assert_error "*numkeys*" {r bzmpop 0 0 z min}
        assert_error "*syntax error*" {r bzmpop 0 1 z sideways}
        # numkeys at the edge of its type (no signed overflow adding it).
        assert_error "*syntax error*" {r bzmpop 0 9223372036854775807 z min}
        assert_error "*syntax error*" {r zmpop 9223372036854775807 z min}
        assert_error "*syntax error*" {r zmpop 9223372036854775806 z min}
    }

    test "A key of the wrong type does not serve a blocked BZPOPMIN" {
        r del z
        set rd [vk_deferring_client]
        $rd bzpopmin z 0
        zset_wait_blocked 1
        r lpush z x
        after 50
        assert_equal 1 [zset_info_field blocked_clients]
        r del z
        r zadd z 3 m
        assert_equal {z m 3} [$rd read]
        $rd close
    }

    test "CLIENT UNBLOCK ends a BZPOPMIN with a null reply" {
        r del z
        set rd [vk_deferring_client]
        $rd client id
        set id [$rd read]
        $rd bzpopmin z 0
        zset_wait_blocked 1
        assert_equal 1 [r client unblock $id]
        assert_equal {} [$rd read]
        $rd close
    }

    test "BZPOPMIN reply in RESP3 has a double score" {
        r del z
        set rd [vk_deferring_client]
        $rd hello 3
        $rd read
        $rd bzpopmin z 0
        zset_wait_blocked 1
        r zadd z 2.5 a
        set reply [$rd read]
        $rd close
        set reply
    } {z a 2.5}
}
