# The string type: SET and its options, GET/GETSET/GETDEL/GETEX, MGET/MSET,
# counters, APPEND/STRLEN, GETRANGE/SETRANGE and LCS.  Replies and error
# texts are the exact ones Valkey sends.  Tests tagged "valkey-only" cover
# behaviour newer than Redis 7.0 (run `--tags -valkey-only` against it).

# ---------------------------------------------------------------- helpers

# A random string of `len` bytes, any byte value.
proc str_rand_bin {len} {
    set s ""
    for {set i 0} {$i < $len} {incr i} {
        append s [format %c [expr {int(rand() * 256)}]]
    }
    return $s
}

# A random string of `len` characters from `alphabet`.
proc str_rand_from {alphabet len} {
    set s ""
    set n [string length $alphabet]
    for {set i 0} {$i < $len} {incr i} {
        append s [string index $alphabet [expr {int(rand() * $n)}]]
    }
    return $s
}

# Length of the longest common subsequence, the textbook way.
proc str_lcs_len {a b} {
    set la [string length $a]
    set lb [string length $b]
    set prev [lrepeat [expr {$lb + 1}] 0]
    for {set i 1} {$i <= $la} {incr i} {
        set cur [list 0]
        set ca [string index $a [expr {$i - 1}]]
        for {set j 1} {$j <= $lb} {incr j} {
            if {$ca eq [string index $b [expr {$j - 1}]]} {
                lappend cur [expr {[lindex $prev [expr {$j - 1}]] + 1}]
            } else {
                set up [lindex $prev $j]
                set left [lindex $cur [expr {$j - 1}]]
                lappend cur [expr {$up > $left ? $up : $left}]
            }
        }
        set prev $cur
    }
    return [lindex $prev end]
}

# GETRANGE as a Tcl model (Valkey's clamping rules).
proc str_getrange_model {s start end} {
    set len [string length $s]
    if {$start < 0 && $end < 0 && $start > $end} { return "" }
    if {$start < 0} { incr start $len }
    if {$end < 0} { incr end $len }
    if {$start < 0} { set start 0 }
    if {$end < 0} { set end 0 }
    if {$end >= $len} { set end [expr {$len - 1}] }
    if {$len == 0 || $start > $end} { return "" }
    return [string range $s $start $end]
}

# Runs script with keyspace notifications on and returns the key events
# it produced as a flat list {event key event key ...}.  Skips the test if
# the server cannot deliver notifications.
proc str_keyevents {script} {
    if {[catch {r config set notify-keyspace-events KEA} err]} {
        skip "notify-keyspace-events not supported: $err"
    }
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
        set chan [lindex $msg 2]
        set key [lindex $msg 3]
        if {$key eq "__events_end__"} break
        lappend events [string range $chan [expr {[string first : $chan] + 1}] end] $key
    }
    $rd close
    r config set notify-keyspace-events ""
    r del __events_end__
    return $events
}

# server.dirty as INFO reports it; skips the test if INFO lacks it.
proc str_dirty {} {
    set info [r info persistence]
    if {![regexp {rdb_changes_since_last_save:(\d+)} $info -> n]} {
        skip "INFO has no rdb_changes_since_last_save"
    }
    return $n
}

# The first reply line exactly as sent, for RESP2/RESP3 type checks.
proc str_raw_reply {proto args} {
    set c [vk_client]
    $c hello $proto
    $c readraw 1
    set line [$c {*}$args]
    $c close
    return $line
}

# Makes `key` a list, the usual "wrong type" value.  Until the server has
# lists the test is skipped from this point on (earlier asserts still ran).
proc make_list {key} {
    r del $key
    if {[catch {r rpush $key a} err]} {
        if {[string match "*unknown command*" $err]} { skip "no list type: $err" }
        error $err
    }
}

start_server {tags {"string"}} {
    # ------------------------------------------------------------ SET / GET

    test "SET and GET an item" {
        r set x foobar
        r get x
    } foobar

    test "SET and GET an empty item" {
        r set x {}
        list [r get x] [r exists x] [r strlen x]
    } {{} 1 0}

    test "GET of a missing key is null" {
        r del nosuch
        r get nosuch
    } {}

    test "SET and GET are binary safe" {
        set v "a\x00b\r\nc\xff"
        r set bin $v
        assert_equal $v [r get bin]
        r strlen bin
    } 7

    test "Very big payload in GET/SET" {
        set buf [string repeat "abcd" 1000000]
        r set big $buf
        assert_equal $buf [r get big]
        r del big
    } 1

    test "GET against a non-string key is WRONGTYPE" {
        make_list l
        assert_error "WRONGTYPE Operation against a key holding the wrong kind of value" {r get l}
    }

    test "SET replaces a value of another type" {
        make_list l
        r set l v
        list [r type l] [r get l]
    } {string v}

    test "SET removes an existing TTL" {
        r set foo bar ex 100
        r set foo bar2
        r ttl foo
    } -1

    test "SET NX sets only missing keys" {
        r del foo
        assert_equal OK [r set foo 1 nx]
        assert_equal {} [r set foo 2 nx]
        r get foo
    } 1

    test "SET XX sets only existing keys" {
        r del foo
        assert_equal {} [r set foo 1 xx]
        assert_equal 0 [r exists foo]
        r set foo 1
        assert_equal OK [r set foo 2 xx]
        r get foo
    } 2

    test "SET NX and XX are case-insensitive" {
        r del foo
        assert_equal OK [r set foo 1 Nx]
        assert_equal OK [r set foo 2 xX]
        r get foo
    } 2

    test "SET GET returns the old value and sets the new one" {
        r del foo
        assert_equal {} [r set foo v1 get]
        assert_equal v1 [r set foo v2 get]
        r get foo
    } v2

    test "SET GET against a non-string key fails and changes nothing" {
        make_list l
        assert_error "WRONGTYPE*" {r set l v get}
        r type l
    } list

    test "SET NX GET returns the old value without setting" {
        r set foo old
        assert_equal old [r set foo new nx get]
        assert_equal old [r get foo]
        r del foo
        assert_equal {} [r set foo new nx get]
        r get foo
    } new

    test "SET XX GET on a missing key returns null and sets nothing" {
        r del foo
        assert_equal {} [r set foo new xx get]
        r exists foo
    } 0

    test "SET EX, PX, EXAT and PXAT set the TTL" {
        r set foo bar ex 100
        assert_range [r ttl foo] 90 100
        r set foo bar px 100000
        assert_range [r pttl foo] 90000 100000
        r set foo bar exat [expr {[clock seconds] + 100}]
        assert_range [r ttl foo] 90 100
        r set foo bar pxat [expr {[clock milliseconds] + 100000}]
        assert_range [r ttl foo] 90 100
        r get foo
    } bar

    test "SET options are case-insensitive and may come in any order" {
        r del foo
        assert_equal OK [r set foo bar Ex 100 nX]
        assert_range [r ttl foo] 90 100
        assert_equal bar [r set foo baz pX 100000 GeT]
        r get foo
    } baz

    test "SET repeating the same option keeps the last value" {
        r set foo bar ex 10 ex 100
        assert_range [r ttl foo] 90 100
        r del foo
        assert_equal {} [r set foo bar nx nx get get]
        r get foo
    } {bar}

    test "SET KEEPTTL keeps the TTL" {
        r set foo bar ex 100
        r set foo bar2 keepttl
        assert_range [r ttl foo] 90 100
        r get foo
    } bar2

    test "SET KEEPTTL on a key without TTL" {
        r set foo bar
        r set foo bar2 keepttl
        r ttl foo
    } -1

    test "SET EXAT/PXAT in the past leaves no visible key" {
        r set foo bar exat 1
        assert_equal {} [r get foo]
        r set foo bar pxat 1
        r exists foo
    } 0

    test "SET option conflicts are syntax errors" {
        r set foo orig
        foreach opts {
            {nx xx} {xx nx} {ex 10 px 100} {px 100 ex 10} {ex 10 exat 100} {exat 100 pxat 100}
            {pxat 100 px 10} {ex 10 keepttl} {keepttl ex 10} {keepttl px 10} {keepttl exat 1} {keepttl pxat 1}
            {ex} {px} {exat} {pxat} {foo} {persist} {ex 10 foo} {nx get xx}
        } {
            assert_error "ERR syntax error" {r set foo bar {*}$opts}
        }
        r get foo
    } orig

    test "SET with an invalid expire time" {
        r set foo orig
        foreach opts {{ex 0} {ex -1} {px 0} {px -100} {exat 0} {pxat -1} {ex 9223372036854775807}
                      {ex 9223372036854776} {px 9223372036854775807}} {
            assert_error "ERR invalid expire time in 'set' command" {r set foo bar {*}$opts}
        }
        assert_error "ERR value is not an integer or out of range" {r set foo bar ex abc}
        assert_error "ERR value is not an integer or out of range" {r set foo bar px 1.5}
        assert_error "ERR value is not an integer or out of range" {r set foo bar ex 99999999999999999999}
        r get foo
    } orig

    test "SET checks the expire time before GET checks the type" {
        make_list l
        assert_error "ERR invalid expire time in 'set' command" {r set l v ex 0 get}
        assert_error "WRONGTYPE*" {r set l v ex 10 get}
    }

    test "SET value encodings: int, embstr, raw" {
        r set foo 12345
        assert_encoding int foo
        r set foo -9223372036854775808
        assert_encoding int foo
        r set foo 9223372036854775808
        assert_encoding embstr foo
        r set foo abc
        assert_encoding embstr foo
        r set foo 012
        assert_encoding embstr foo
        r set foo [string repeat x 44]
        assert_encoding embstr foo
        r set foo [string repeat x 45]
        assert_encoding raw foo
        r set foo ""
        assert_encoding embstr foo
    }

    # A keyspace value carries its key: never shared (Valkey 8; Redis 7.0
    # shares small integers).
    tags {valkey-only} {
        test "Small integers stored under a key are not shared objects" {
            r set foo 123
            list [r object encoding foo] [r object refcount foo]
        } {int 1}
    }

    test "SET replies in RESP2 and RESP3" {
        r set foo bar
        assert_equal {$-1} [str_raw_reply 2 get nosuch]
        assert_equal {_} [str_raw_reply 3 get nosuch]
        assert_equal {_} [str_raw_reply 3 set foo x nx]
        assert_equal {$-1} [str_raw_reply 2 set foo x nx]
        assert_equal {+OK} [str_raw_reply 3 set foo x]
        str_raw_reply 3 set foo y get
    } {$1}

    test "SET wrong number of arguments" {
        assert_error "ERR wrong number of arguments for 'set' command" {r set foo}
    }

    # ------------------------------------------------------------ SETNX / SETEX / PSETEX

    test "SETNX against a missing and an existing key" {
        r del foo
        assert_equal 1 [r setnx foo a]
        assert_equal 0 [r setnx foo b]
        r get foo
    } a

    test "SETNX against a non-string key does not overwrite" {
        make_list l
        assert_equal 0 [r setnx l v]
        r type l
    } list

    test "SETNX against an expired key sets it" {
        r set foo old px 1
        after 5
        assert_equal 1 [r setnx foo new]
        r get foo
    } new

    test "SETEX sets value and TTL" {
        r setex foo 100 bar
        assert_range [r ttl foo] 90 100
        r get foo
    } bar

    test "SETEX errors" {
        r set foo orig
        assert_error "ERR invalid expire time in 'setex' command" {r setex foo 0 bar}
        assert_error "ERR invalid expire time in 'setex' command" {r setex foo -10 bar}
        assert_error "ERR invalid expire time in 'setex' command" {r setex foo 9223372036854775807 bar}
        assert_error "ERR value is not an integer or out of range" {r setex foo abc bar}
        assert_error "ERR wrong number of arguments for 'setex' command" {r setex foo 10}
        r get foo
    } orig

    test "PSETEX sets value and TTL in milliseconds" {
        r psetex foo 100000 bar
        assert_range [r pttl foo] 90000 100000
        r get foo
    } bar

    test "PSETEX errors" {
        assert_error "ERR invalid expire time in 'psetex' command" {r psetex foo 0 bar}
        assert_error "ERR invalid expire time in 'psetex' command" {r psetex foo -1 bar}
        assert_error "ERR value is not an integer or out of range" {r psetex foo 1x bar}
    }

    test "SETEX replaces a value of another type" {
        make_list l
        r setex l 100 v
        r get l
    } v

    # ------------------------------------------------------------ GETSET / GETDEL / GETEX

    test "GETSET on a missing and an existing key" {
        r del foo
        assert_equal {} [r getset foo a]
        assert_equal a [r getset foo b]
        r get foo
    } b

    test "GETSET removes the TTL" {
        r set foo bar ex 100
        r getset foo baz
        r ttl foo
    } -1

    test "GETSET against a non-string key" {
        make_list l
        assert_error "WRONGTYPE*" {r getset l v}
        r type l
    } list

    test "GETSET stores integers int-encoded" {
        r getset foo 42424242
        assert_encoding int foo
    }

    test "GETDEL returns the value and deletes the key" {
        r set foo bar ex 100
        assert_equal bar [r getdel foo]
        list [r exists foo] [r getdel foo]
    } {0 {}}

    test "GETDEL against a non-string key" {
        make_list l
        assert_error "WRONGTYPE*" {r getdel l}
        r exists l
    } 1

    test "GETEX without options is a GET" {
        r set foo bar ex 100
        assert_equal bar [r getex foo]
        assert_range [r ttl foo] 90 100
        r getex nosuch
    } {}

    test "GETEX EX, PX, EXAT, PXAT" {
        r set foo bar
        assert_equal bar [r getex foo ex 100]
        assert_range [r ttl foo] 90 100
        r getex foo px 200000
        assert_range [r ttl foo] 190 200
        r getex foo exat [expr {[clock seconds] + 300}]
        assert_range [r ttl foo] 290 300
        r getex foo pxat [expr {[clock milliseconds] + 400000}]
        assert_range [r ttl foo] 390 400
    }

    test "GETEX PERSIST removes the TTL" {
        r set foo bar ex 100
        assert_equal bar [r getex foo persist]
        assert_equal -1 [r ttl foo]
        r getex foo persist
    } bar

    test "GETEX with a time in the past returns the value and deletes the key" {
        r set foo bar
        assert_equal bar [r getex foo pxat 1]
        r exists foo
    } 0

    test "GETEX syntax errors" {
        r set foo bar
        foreach opts {{ex 10 px 10} {persist ex 10} {ex 10 persist} {exat 1 pxat 1} {foo} {ex} {keepttl} {nx} {get}} {
            assert_error "ERR syntax error" {r getex foo {*}$opts}
        }
        r ttl foo
    } -1

    test "GETEX invalid expire times" {
        r set foo bar
        assert_error "ERR invalid expire time in 'getex' command" {r getex foo ex 0}
        assert_error "ERR invalid expire time in 'getex' command" {r getex foo px -1}
        assert_error "ERR invalid expire time in 'getex' command" {r getex foo ex 9223372036854775807}
        assert_error "ERR value is not an integer or out of range" {r getex foo ex x}
        r ttl foo
    } -1

    test "GETEX on a missing key ignores a bad expire time" {
        r del foo
        r getex foo ex 0
    } {}

    test "GETEX against a non-string key" {
        make_list l
        assert_error "WRONGTYPE*" {r getex l ex 10}
        r ttl l
    } -1

    test "GETEX needs a key" {
        assert_error "ERR wrong number of arguments for 'getex' command" {r getex}
    }

    # ------------------------------------------------------------ MGET / MSET / MSETNX

    test "MGET returns null for missing and non-string keys" {
        r flushdb
        r set a 1
        r set b 2
        assert_equal {1 2 {} 1} [r mget a b nosuch a]
        make_list l
        r mget a b nosuch l a
    } {1 2 {} {} 1}

    test "MGET in RESP3 uses the null type" {
        r del nosuch
        set c [vk_client]
        $c hello 3
        $c readraw 1
        set lines [list [$c mget nosuch] [$c read]]
        $c close
        set lines
    } {*1 _}

    test "MSET sets every pair and removes TTLs" {
        r set a old ex 100
        assert_equal OK [r mset a 1 b 2]
        list [r mget a b] [r ttl a]
    } {{1 2} -1}

    test "MSET overwrites keys of other types" {
        make_list l
        assert_equal OK [r mset a 1 l 3]
        r mget a l
    } {1 3}

    test "MSET with a repeated key keeps the last value" {
        r mset x 1 x 2
        r get x
    } 2

    test "MSET with an odd number of arguments" {
        assert_error "ERR wrong number of arguments for 'mset' command" {r mset a 1 b}
        assert_error "ERR wrong number of arguments for 'mset' command" {r mset a}
    }

    test "MSETNX sets all keys or none" {
        r del x1 x2 x3
        r set x3 old
        assert_equal 0 [r msetnx x1 a x2 b x3 c]
        assert_equal {{} {} old} [r mget x1 x2 x3]
        r del x3
        assert_equal 1 [r msetnx x1 a x2 b x3 c]
        r mget x1 x2 x3
    } {a b c}

    test "MSETNX with a repeated missing key" {
        r del x1
        assert_equal 1 [r msetnx x1 a x1 b]
        r get x1
    } b

    test "MSETNX counts a key of another type as existing" {
        r del l x1
        make_list l
        assert_equal 0 [r msetnx x1 a l b]
        r exists x1
    } 0

    test "MSETNX with an odd number of arguments" {
        assert_error "ERR wrong number of arguments for 'msetnx' command" {r msetnx a 1 b}
    }

    # ------------------------------------------------------------ INCR / DECR

    test "INCR against a missing key" {
        r del n
        list [r incr n] [r get n]
    } {1 1}

    test "INCR, DECR, INCRBY and DECRBY" {
        r set n 10
        list [r incr n] [r decr n] [r incrby n 100] [r decrby n 50] [r incrby n -200] [r decrby n -1]
    } {11 10 110 60 -140 -139}

    test "INCR against a key created by SET" {
        r set n 99
        r incr n
    } 100

    test "INCR against a value with spaces or signs is an error" {
        foreach v {" 11" "11 " "+1" "1.5" "abc" "" "0x10" "99999999999999999999"} {
            r set n $v
            assert_error "ERR value is not an integer or out of range" {r incr n}
            assert_equal $v [r get n]
        }
    }

    test "INCRBY/DECRBY with a non-integer increment" {
        r set n 1
        assert_error "ERR value is not an integer or out of range" {r incrby n x}
        assert_error "ERR value is not an integer or out of range" {r decrby n 1.0}
        assert_error "ERR value is not an integer or out of range" {r incrby n 9223372036854775808}
        r get n
    } 1

    test "INCR overflow" {
        r set n 9223372036854775807
        assert_error "ERR increment or decrement would overflow" {r incr n}
        assert_error "ERR increment or decrement would overflow" {r incrby n 1}
        r set n -9223372036854775808
        assert_error "ERR increment or decrement would overflow" {r decr n}
        assert_error "ERR increment or decrement would overflow" {r incrby n -1}
        r set n 1
        assert_error "ERR increment or decrement would overflow" {r incrby n 9223372036854775807}
        r set n -2
        assert_error "ERR increment or decrement would overflow" {r decrby n 9223372036854775807}
        r get n
    } -2

    test "DECRBY with the minimum integer" {
        r set n 0
        assert_error "ERR decrement would overflow" {r decrby n -9223372036854775808}
        r incrby n -9223372036854775808
    } -9223372036854775808

    test "INCR up to the integer limits" {
        r set n 9223372036854775806
        assert_equal 9223372036854775807 [r incr n]
        r set n -9223372036854775807
        r decr n
    } -9223372036854775808

    test "INCR against a non-string key" {
        make_list l
        assert_error "WRONGTYPE*" {r incr l}
        assert_error "WRONGTYPE*" {r decrby l 1}
    }

    test "INCR keeps the TTL" {
        r set n 1 ex 100
        r incr n
        assert_range [r ttl n] 90 100
        r incrby n 20000
        assert_range [r ttl n] 90 100
        r get n
    } 20002

    # Redis 7.0 shares the small result instead.
    tags {valkey-only} {
        test "INCR results are int-encoded, updated in place" {
            r set n 1
            r incr n
            assert_encoding int n
            assert_equal 1 [r object refcount n]
            r set n 20000
            r incr n
            assert_encoding int n
            assert_equal 1 [r object refcount n]
            r incr n
            assert_equal 1 [r object refcount n]
            r get n
        } 20002
    }

    test "INCR against an embstr and a raw numeric string" {
        r set n [string repeat 1 18]
        r append n ""          ;# now raw
        assert_encoding raw n
        assert_equal 111111111111111112 [r incr n]
        assert_encoding int n
    }

    test "INCR in RESP2 and RESP3 is an integer reply" {
        r set n 5
        list [str_raw_reply 2 incr n] [str_raw_reply 3 incr n]
    } {:6 :7}

    # ------------------------------------------------------------ INCRBYFLOAT

    test "INCRBYFLOAT against a missing key" {
        r del f
        list [r incrbyfloat f 1] [r incrbyfloat f 0.25] [r get f]
    } {1 1.25 1.25}

    test "INCRBYFLOAT against integers and decimals" {
        r set f 10
        assert_equal 10.5 [r incrbyfloat f 0.5]
        assert_equal -0.1 [r incrbyfloat f -10.6]
        r set f 5.0e3
        assert_equal 5200 [r incrbyfloat f 2.0e2]
        r set f 1
        r incrbyfloat f 1.5e-3
    } 1.0015

    test "INCRBYFLOAT result encoding is embstr even for integers" {
        r set f 1.5
        r incrbyfloat f 1.5
        assert_equal 3 [r get f]
        assert_encoding embstr f
    }

    test "INCRBYFLOAT errors" {
        r set f abc
        assert_error "ERR value is not a valid float" {r incrbyfloat f 1}
        r set f " 1"
        assert_error "ERR value is not a valid float" {r incrbyfloat f 1}
        r set f 1
        assert_error "ERR value is not a valid float" {r incrbyfloat f x}
        assert_error "ERR value is not a valid float" {r incrbyfloat f "1 "}
        assert_error "ERR value is not a valid float" {r incrbyfloat f ""}
        r get f
    } 1

    test "INCRBYFLOAT refuses NaN and Infinity" {
        r set f 0
        assert_error "ERR increment would produce NaN or Infinity" {r incrbyfloat f +inf}
        assert_error "ERR increment would produce NaN or Infinity" {r incrbyfloat f -inf}
        r get f
    } 0

    test "INCRBYFLOAT against a non-string key" {
        make_list l
        assert_error "WRONGTYPE*" {r incrbyfloat l 1.0}
    }

    test "INCRBYFLOAT keeps the TTL" {
        r set f 1 ex 100
        r incrbyfloat f 1.1
        assert_range [r ttl f] 90 100
        r get f
    } 2.1

    test "INCRBYFLOAT is a bulk reply in both protocols" {
        r set f 1
        list [str_raw_reply 2 incrbyfloat f 1] [str_raw_reply 3 incrbyfloat f 1]
    } {{$1} {$1}}

    # ------------------------------------------------------------ APPEND / STRLEN

    test "APPEND creates a missing key" {
        r del foo
        list [r append foo bar] [r get foo]
    } {3 bar}

    test "APPEND of an empty string creates an empty key" {
        r del foo
        list [r append foo ""] [r exists foo] [r get foo]
    } {0 1 {}}

    test "APPEND to an existing string" {
        r set foo hello
        list [r append foo " world"] [r get foo]
    } {11 {hello world}}

    test "APPEND to an int-encoded value" {
        r set foo 1
        assert_encoding int foo
        assert_equal 2 [r append foo 2]
        assert_encoding raw foo
        r get foo
    } 12

    test "APPEND turns embstr into raw and keeps the TTL" {
        r set foo abc ex 100
        assert_encoding embstr foo
        r append foo def
        assert_encoding raw foo
        assert_range [r ttl foo] 90 100
        r get foo
    } abcdef

    test "APPEND is binary safe" {
        r set foo "\x00"
        r append foo "\xff\x00"
        r get foo
    } "\x00\xff\x00"

    test "APPEND against a non-string key" {
        make_list l
        assert_error "WRONGTYPE*" {r append l x}
    }

    test "APPEND fuzzing" {
        foreach kind {ascii binary} {
            r del x
            set expected ""
            for {set i 0} {$i < 200} {incr i} {
                if {$kind eq "binary"} {
                    set chunk [str_rand_bin [expr {int(rand() * 20)}]]
                } else {
                    set chunk [str_rand_from "0123456789abc" [expr {int(rand() * 20)}]]
                }
                append expected $chunk
                assert_equal [string length $expected] [r append x $chunk]
            }
            assert_equal $expected [r get x]
        }
    }

    test "STRLEN of missing, raw, embstr and int values" {
        r del nosuch
        r set e abc
        r set i -12345
        r set raw [string repeat x 100]
        list [r strlen nosuch] [r strlen e] [r strlen i] [r strlen raw]
    } {0 3 6 100}

    test "STRLEN against a non-string key" {
        make_list l
        assert_error "WRONGTYPE*" {r strlen l}
    }

    # ------------------------------------------------------------ GETRANGE / SUBSTR

    test "GETRANGE against a missing key" {
        r del foo
        r getrange foo 0 -1
    } {}

    test "GETRANGE against a string" {
        r set foo "Hello World"
        list [r getrange foo 0 3] [r getrange foo 0 -1] [r getrange foo -4 -1] [r getrange foo 5 3] \
             [r getrange foo 5 5000] [r getrange foo -5000 10000] [r getrange foo 0 4294967297]
    } {Hell {Hello World} orld {} { World} {Hello World} {Hello World}}

    test "GETRANGE with negative ends out of range" {
        r set foo "Hello World"
        list [r getrange foo 0 -100] [r getrange foo 1 -100] [r getrange foo -1 -100] \
             [r getrange foo -100 -99] [r getrange foo -100 -100] [r getrange foo -100 -101] [r getrange foo 100 200]
    } {H {} {} H H {} {}}

    test "GETRANGE against an int-encoded value" {
        r set foo 1234
        list [r getrange foo 0 2] [r getrange foo 0 -1] [r getrange foo -3 -1] [r getrange foo 5 3] \
             [r getrange foo 3 5000] [r getrange foo -5000 10000]
    } {123 1234 234 {} 4 1234}

    test "GETRANGE against an empty string" {
        r set foo ""
        list [r getrange foo 0 -1] [r getrange foo -1 -1] [r getrange foo 0 0]
    } {{} {} {}}

    test "GETRANGE errors: bad integers are reported before the key is looked at" {
        r del nosuch
        assert_error "ERR value is not an integer or out of range" {r getrange nosuch a 1}
        assert_error "ERR value is not an integer or out of range" {r getrange nosuch 0 1.5}
        make_list l
        assert_error "WRONGTYPE*" {r getrange l 0 -1}
    }

    test "SUBSTR is GETRANGE" {
        r set foo "Hello World"
        list [r substr foo 0 4] [r substr foo -5 -1] [r substr nosuch 0 1]
    } {Hello World {}}

    test "GETRANGE fuzzing" {
        for {set i 0} {$i < 300} {incr i} {
            set v [str_rand_bin [expr {int(rand() * 40)}]]
            r set bin $v
            set start [expr {int(rand() * 100) - 50}]
            set end [expr {int(rand() * 100) - 50}]
            assert_equal [str_getrange_model $v $start $end] [r getrange bin $start $end] "$start $end len [string length $v]"
        }
    }

    # ------------------------------------------------------------ SETRANGE

    test "SETRANGE against a missing key" {
        r del foo
        assert_equal 3 [r setrange foo 0 foo]
        assert_equal foo [r get foo]
        r del foo
        assert_equal 4 [r setrange foo 1 foo]
        r get foo
    } "\x00foo"

    test "SETRANGE with an empty value on a missing key creates nothing" {
        r del foo
        assert_equal 0 [r setrange foo 0 ""]
        assert_equal 0 [r setrange foo 1000000000 ""]
        r exists foo
    } 0

    test "SETRANGE with an empty value on an existing key returns its length" {
        r set foo hello
        assert_equal 5 [r setrange foo 1 ""]
        assert_equal 5 [r setrange foo 2000000000 ""]
        r get foo
    } hello

    test "SETRANGE against a string" {
        r set foo "Hello World"
        assert_equal 11 [r setrange foo 6 Redis]
        assert_equal "Hello Redis" [r get foo]
        assert_equal 15 [r setrange foo 13 xy]
        r get foo
    } "Hello Redis\x00\x00xy"

    test "SETRANGE against an int-encoded value" {
        r set foo 1234
        assert_encoding int foo
        assert_equal 4 [r setrange foo 1 3]
        assert_encoding raw foo
        assert_equal 1334 [r get foo]
        r set foo 1234
        assert_equal 6 [r setrange foo 5 5]
        r get foo
    } "1234\x005"

    test "SETRANGE keeps the TTL" {
        r set foo abc ex 100
        r setrange foo 1 X
        assert_range [r ttl foo] 90 100
        r get foo
    } aXc

    test "SETRANGE errors" {
        r set foo abc
        assert_error "ERR offset is out of range" {r setrange foo -1 x}
        assert_error "ERR value is not an integer or out of range" {r setrange foo x y}
        assert_equal abc [r get foo]
        make_list l
        assert_error "WRONGTYPE*" {r setrange l 0 x}
        assert_error "WRONGTYPE*" {r setrange l 0 ""}
    }

    test "SETRANGE refuses strings over 512MB" {
        r del foo
        assert_error "ERR string exceeds maximum allowed size (proto-max-bulk-len)" {r setrange foo [expr {512*1024*1024}] x}
        assert_error "ERR string exceeds maximum allowed size (proto-max-bulk-len)" {r setrange foo [expr {512*1024*1024-4}] world}
        r set foo bar
        assert_error "ERR string exceeds maximum allowed size (proto-max-bulk-len)" {r setrange foo [expr {512*1024*1024-4}] world}
        assert_error "ERR string exceeds maximum allowed size (proto-max-bulk-len)" {r setrange foo 9223372036854775807 x}
        r get foo
    } bar

    test "APPEND and SETRANGE obey a lowered proto-max-bulk-len" {
        if {[catch {r config set proto-max-bulk-len 1048576} err]} { skip "proto-max-bulk-len not settable: $err" }
        r set foo [string repeat x 1048570]
        catch {r append foo 1234567} e1
        catch {r setrange foo 1048576 x} e2
        set ok [r setrange foo 1048575 x]
        r config set proto-max-bulk-len 536870912
        r del foo
        list $e1 $e2 $ok
    } {{ERR string exceeds maximum allowed size (proto-max-bulk-len)} {ERR string exceeds maximum allowed size (proto-max-bulk-len)} 1048576}

    test "SETRANGE fuzzing against a Tcl model" {
        r del x
        set model ""
        for {set i 0} {$i < 300} {incr i} {
            set off [expr {int(rand() * 60)}]
            set chunk [str_rand_bin [expr {int(rand() * 10)}]]
            set clen [string length $chunk]
            if {$clen > 0} {
                while {[string length $model] < $off} { append model "\x00" }
                set model "[string range $model 0 [expr {$off - 1}]]$chunk[string range $model [expr {$off + $clen}] end]"
            }
            assert_equal [string length $model] [r setrange x $off $chunk]
            assert_equal $model [r get x]
        }
    }

    # ------------------------------------------------------------ LCS

    test "LCS basic" {
        r mset virus1 ohmytext virus2 mynewtext
        r lcs virus1 virus2
    } mytext

    test "LCS LEN" {
        r lcs virus1 virus2 len
    } 6

    test "LCS IDX" {
        r lcs virus1 virus2 idx
    } {matches {{{4 7} {5 8}} {{2 3} {0 1}}} len 6}

    test "LCS IDX WITHMATCHLEN" {
        r lcs virus1 virus2 idx withmatchlen
    } {matches {{{4 7} {5 8} 4} {{2 3} {0 1} 2}} len 6}

    test "LCS IDX MINMATCHLEN" {
        list [r lcs virus1 virus2 idx minmatchlen 3] [r lcs virus1 virus2 idx minmatchlen -5 withmatchlen] \
             [r lcs virus1 virus2 IDX MINMATCHLEN 100]
    } {{matches {{{4 7} {5 8}}} len 6} {matches {{{4 7} {5 8} 4} {{2 3} {0 1} 2}} len 6} {matches {} len 6}}

    test "LCS with missing keys and empty strings" {
        r del nosuch1 nosuch2
        r set empty ""
        list [r lcs nosuch1 nosuch2] [r lcs virus1 nosuch1 len] [r lcs empty virus1] [r lcs nosuch1 nosuch2 idx]
    } {{} 0 {} {matches {} len 0}}

    test "LCS of a string with itself and with int-encoded values" {
        r set n1 12345
        r set n2 2349
        list [r lcs virus1 virus1] [r lcs n1 n2] [r lcs n1 n2 idx]
    } {ohmytext 234 {matches {{{1 3} {0 2}}} len 3}}

    test "LCS errors" {
        assert_error "ERR If you want both the length and indexes, please just use IDX." {r lcs virus1 virus2 len idx}
        assert_error "ERR syntax error" {r lcs virus1 virus2 foo}
        assert_error "ERR syntax error" {r lcs virus1 virus2 minmatchlen}
        assert_error "ERR value is not an integer or out of range" {r lcs virus1 virus2 minmatchlen x}
        assert_error "ERR wrong number of arguments for 'lcs' command" {r lcs virus1}
        make_list l
        assert_error "ERR The specified keys must contain string values" {r lcs l virus1}
        assert_error "ERR The specified keys must contain string values" {r lcs virus1 l}
    }

    test "LCS checks the key types before the options" {
        make_list l
        assert_error "ERR The specified keys must contain string values" {r lcs l virus1 foo}
    }

    test "LCS IDX is a map in RESP3 and an array in RESP2" {
        list [str_raw_reply 2 lcs virus1 virus2 idx] [str_raw_reply 3 lcs virus1 virus2 idx]
    } {*4 %2}

    test "LCS LEN fuzzing against a Tcl model" {
        for {set i 0} {$i < 50} {incr i} {
            set a [str_rand_from "abcd" [expr {int(rand() * 30)}]]
            set b [str_rand_from "abcd" [expr {int(rand() * 30)}]]
            r mset lcs_a $a lcs_b $b
            set len [str_lcs_len $a $b]
            assert_equal $len [r lcs lcs_a lcs_b len] "$a / $b"
            set common [r lcs lcs_a lcs_b]
            assert_equal $len [string length $common]
            # The reported subsequence really is one of both strings.
            assert_equal $len [str_lcs_len $common $a]
            assert_equal $len [str_lcs_len $common $b]
            # IDX ranges point at equal substrings summing to at most len.
            set total 0
            foreach m [dict get [r lcs lcs_a lcs_b idx withmatchlen] matches] {
                lassign $m ra rb mlen
                assert_equal [string range $a {*}$ra] [string range $b {*}$rb]
                incr total $mlen
            }
            assert_equal $len $total
        }
    }

    # ------------------------------------------------------------ notifications, dirty, metadata

    test "Keyspace events of the string commands" {
        r del foo n f s
        str_keyevents {
            r set foo bar
            r set foo bar ex 100
            r set foo bar nx
            r incr n
            r incrbyfloat f 1.5
            r append s x
            r setrange s 0 y
            r getex foo px 100000
            r getex foo persist
            r getex foo persist
            r getset foo v
            r mset a 1 b 2
            r getdel foo
            r setex foo 100 v
        }
    } {set foo set foo expire foo incrby n incrbyfloat f append s setrange s expire foo persist foo set foo set a set b del foo set foo expire foo}

    test "Every change increments the dirty counter, no-ops do not" {
        r flushdb
        set d0 [str_dirty]
        r set foo bar
        r set foo bar nx
        r mset a 1 b 2 c 3
        r incr n
        r setrange foo 0 ""
        r getex foo
        r getex foo persist
        r msetnx a 1 z 2
        r get foo
        expr {[str_dirty] - $d0}
    } 5

    test "COMMAND INFO reports the string commands' arity and key positions" {
        if {[catch {r command info get} err]} { skip "COMMAND INFO not available: $err" }
        set got {}
        foreach cmd {get set setnx setex psetex getset getdel getex mget mset msetnx incr decr incrby decrby
                     incrbyfloat append strlen getrange substr setrange lcs} {
            set info [lindex [r command info $cmd] 0]
            lappend got $cmd [lindex $info 1] [lrange $info 3 5]
        }
        set got
    } {get 2 {1 1 1} set -3 {1 1 1} setnx 3 {1 1 1} setex 4 {1 1 1} psetex 4 {1 1 1} getset 3 {1 1 1} getdel 2 {1 1 1} getex -2 {1 1 1} mget -2 {1 -1 1} mset -3 {1 -1 2} msetnx -3 {1 -1 2} incr 2 {1 1 1} decr 2 {1 1 1} incrby 3 {1 1 1} decrby 3 {1 1 1} incrbyfloat 3 {1 1 1} append 3 {1 1 1} strlen 2 {1 1 1} getrange 4 {1 1 1} substr 4 {1 1 1} setrange 4 {1 1 1} lcs -3 {1 2 1}}

    test "COMMAND INFO flags of the string commands" {
        if {[catch {r command info get} err]} { skip "COMMAND INFO not available: $err" }
        set got {}
        foreach cmd {get set setnx incr mget getdel getex lcs} {
            lappend got $cmd [lsort [lindex [r command info $cmd] 0 2]]
        }
        set got
    } {get {fast readonly} set {denyoom write} setnx {denyoom fast write} incr {denyoom fast write} mget {fast readonly} getdel {fast write} getex {fast write} lcs readonly}
}

start_server {tags {string valkey-only}} {
    test "SET IFEQ sets only when the current value matches" {
        r set foo v1
        assert_equal {} [r set foo v2 ifeq nope]
        assert_equal v1 [r get foo]
        assert_equal OK [r set foo v2 ifeq v1]
        assert_equal v2 [r get foo]
        r del foo
        assert_equal {} [r set foo v3 ifeq v2]
        r exists foo
    } 0

    test "SET IFEQ GET replies with the old value either way" {
        r set foo v1
        assert_equal v1 [r set foo v2 ifeq nope get]
        assert_equal v1 [r set foo v2 ifeq v1 get]
        r get foo
    } v2

    test "SET IFEQ conflicts with NX and XX" {
        assert_error "ERR syntax error" {r set foo v ifeq a nx}
        assert_error "ERR syntax error" {r set foo v xx ifeq a}
        assert_error "ERR syntax error" {r set foo v ifeq}
    }

    test "SET IFEQ against a non-string key" {
        make_list l
        assert_error "WRONGTYPE*" {r set l v ifeq a}
    }

    test "SET IFEQ compares int-encoded values by their text" {
        r set foo 123
        assert_equal OK [r set foo 456 ifeq 123]
        r get foo
    } 456
}
