# The set type: SADD/SREM/SMOVE, membership, SPOP/SRANDMEMBER, the algebra
# commands (SINTER/SUNION/SDIFF, STORE forms, SINTERCARD), SSCAN, the three
# encodings (intset, listpack, hashtable) and their conversions, keyspace
# events, and MEMORY USAGE / COPY / DEBUG DIGEST-VALUE on sets.
#
# Tests tagged "valkey-only" need behaviour Redis 7.0 lacks (the listpack
# set encoding appeared in 7.2), so
#   ./runtest --server-binary /usr/bin/redis-server --tags -valkey-only
# runs the rest against Redis as a reference.

# ---------------------------------------------------------------- helpers

# A member longer than any listpack limit: adding it forces a hashtable
# on both Valkey and Redis 7.0; it is removed again right away.
set ::set_pad [string repeat "p" 100]

# Creates `key` as a set of `members` with the given encoding and checks it.
# A temporary string member makes integers land in a listpack, a temporary
# long one makes anything land in a hashtable.
proc set_create {key encoding members} {
    r del $key
    if {$encoding eq "hashtable"} {
        r sadd $key $::set_pad {*}$members
        r srem $key $::set_pad
    } elseif {$encoding eq "listpack"} {
        r sadd $key __lp__ {*}$members
        r srem $key __lp__
    } else {
        r sadd $key {*}$members
    }
    assert_encoding $encoding $key
}

# Passes if key is not an intset (a listpack, or a hashtable on servers
# without set listpacks).
proc set_assert_not_intset {key} {
    set enc [r object encoding $key]
    assert {$enc eq "listpack" || $enc eq "hashtable"} "encoding of $key is $enc"
}

# Runs script with keyspace notifications on; returns the key events it
# produced as a flat list {event key event key ...}. Skips the test when
# the server has no PSUBSCRIBE yet.
proc set_keyevents {script} {
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
proc set_raw_reply {proto args} {
    set c [vk_client]
    $c hello $proto
    $c readraw 1
    set line [$c {*}$args]
    $c close
    return $line
}

# Sorted-list algebra for the model checks.
proc set_lunion {args} {
    set d [dict create]
    foreach l $args { foreach e $l { dict set d $e 1 } }
    lsort [dict keys $d]
}
proc set_linter {first args} {
    set out {}
    foreach e [lsort -unique $first] {
        set ok 1
        foreach l $args { if {[lsearch -exact $l $e] < 0} { set ok 0; break } }
        if {$ok} { lappend out $e }
    }
    lsort $out
}
proc set_ldiff {first args} {
    set out {}
    foreach e [lsort -unique $first] {
        set ok 1
        foreach l $args { if {[lsearch -exact $l $e] >= 0} { set ok 0; break } }
        if {$ok} { lappend out $e }
    }
    lsort $out
}

# Checks that every member of the 0..n-1 population was drawn about as
# often as the others: each count within [expected/3, expected*3] (loose:
# a hashtable's "fair" random key is only approximately uniform).
proc set_assert_uniform {counts n draws} {
    set expected [expr {double($draws) / $n}]
    for {set i 0} {$i < $n} {incr i} {
        set got [expr {[dict exists $counts $i] ? [dict get $counts $i] : 0}]
        assert_range $got [expr {$expected / 3}] [expr {$expected * 3}] "member $i drawn $got times"
    }
}

start_server {tags {"set"} overrides {enable-debug-command yes}} {
    # ------------------------------------------------------------ SADD & co

    test "SADD, SCARD, SISMEMBER, SMEMBERS basics (intset)" {
        r del s
        assert_equal 3 [r sadd s 1 2 3]
        assert_equal 0 [r sadd s 2 3]
        assert_equal 1 [r sadd s 4 4 4]
        assert_encoding intset s
        assert_equal 4 [r scard s]
        assert_equal 1 [r sismember s 2]
        assert_equal 0 [r sismember s 5]
        assert_equal 0 [r sismember s x]
        lsort [r smembers s]
    } {1 2 3 4}

    tags {valkey-only} {
        test "SADD strings builds a listpack" {
            r del s
            assert_equal 3 [r sadd s a b c]
            assert_encoding listpack s
            assert_equal 1 [r sismember s b]
            lsort [r smembers s]
        } {a b c}
    }

    test "SADD is binary safe and keeps the empty string" {
        r del s
        r sadd s "" "a\x00b" "\r\n"
        assert_equal 1 [r sismember s ""]
        assert_equal 1 [r sismember s "a\x00b"]
        r scard s
    } 3

    test "SADD against a non-set key is WRONGTYPE" {
        r set str x
        assert_error "WRONGTYPE Operation against a key holding the wrong kind of value" {r sadd str a}
        assert_error "WRONGTYPE*" {r scard str}
        assert_error "WRONGTYPE*" {r sismember str a}
        assert_error "WRONGTYPE*" {r smismember str a}
        assert_error "WRONGTYPE*" {r smembers str}
        assert_error "WRONGTYPE*" {r srem str a}
        assert_error "WRONGTYPE*" {r spop str}
        assert_error "WRONGTYPE*" {r srandmember str}
        assert_error "WRONGTYPE*" {r srandmember str 3}
        assert_error "WRONGTYPE*" {r sscan str 0}
        r get str
    } x

    test "Arity errors" {
        assert_error "*wrong number of arguments for 'sadd' command" {r sadd s}
        assert_error "*wrong number of arguments for 'srem' command" {r srem s}
        assert_error "*wrong number of arguments for 'smismember' command" {r smismember s}
        assert_error "*wrong number of arguments for 'smove' command" {r smove a b}
        assert_error "*wrong number of arguments for 'sinterstore' command" {r sinterstore d}
    }

    test "Missing keys read as empty sets" {
        r del nosuch
        assert_equal 0 [r scard nosuch]
        assert_equal 0 [r sismember nosuch a]
        assert_equal {0 0} [r smismember nosuch a b]
        assert_equal {} [r smembers nosuch]
        assert_equal {} [r spop nosuch]
        assert_equal {} [r srandmember nosuch]
        assert_equal {} [r srandmember nosuch 5]
        assert_equal {} [r srandmember nosuch -5]
        assert_equal {} [r spop nosuch 5]
        assert_equal 0 [r srem nosuch a]
        r exists nosuch
    } 0

    test "SMISMEMBER on every encoding" {
        foreach {enc members} {intset {1 2 3} listpack {a b 3} hashtable {a b 3}} {
            if {$enc eq "listpack" && [catch {r config get set-max-listpack-entries} v] == 0 && $v eq ""} continue
            set_create s $enc $members
            assert_equal {1 0 1 1 0} [r smismember s [lindex $members 0] zz 3 [lindex $members 1] 4]
        }
    }

    test "Integers of every width in an intset" {
        r del s
        set vals {0 -1 32767 -32768 32768 -32769 2147483647 -2147483648 2147483648 -2147483649
                  9223372036854775807 -9223372036854775808}
        assert_equal [llength $vals] [r sadd s {*}$vals]
        assert_encoding intset s
        foreach v $vals { assert_equal 1 [r sismember s $v] }
        assert_equal 0 [r sismember s 9223372036854775806]
        lsort -integer [r smembers s]
    } [lsort -integer {0 -1 32767 -32768 32768 -32769 2147483647 -2147483648 2147483648 -2147483649
                       9223372036854775807 -9223372036854775808}]

    test "Non-canonical numbers are strings, not intset members" {
        foreach v {"01" "+1" " 1" "1 " "1.0" "9223372036854775808" "-9223372036854775809" "0x10"} {
            r del s
            r sadd s 1 2
            assert_encoding intset s
            assert_equal 1 [r sadd s $v]
            set_assert_not_intset s
            assert_equal 1 [r sismember s $v]
            assert_equal 3 [r scard s] "'$v' is not the number 1"
            r srem s 1 2
            assert_equal [list $v] [r smembers s]
        }
    }

    # ------------------------------------------------------ encodings

    test "intset converts to hashtable past set-max-intset-entries" {
        r del s
        for {set i 0} {$i < 512} {incr i} { r sadd s $i }
        assert_encoding intset s
        r sadd s 512
        assert_encoding hashtable s
        assert_equal 513 [r scard s]
        assert_equal 1 [r sismember s 300]
        r srem s 512 511 510
        assert_encoding hashtable s ;# never converts back
        r scard s
    } 510

    test "set-max-intset-entries is honoured when changed" {
        r config set set-max-intset-entries 4
        r del s
        r sadd s 1 2 3 4
        assert_encoding intset s
        r sadd s 5
        assert_encoding hashtable s
        r config set set-max-intset-entries 512
        lsort [r smembers s]
    } {1 2 3 4 5}

    test "SADD of many integers at once skips the intset when over the limit" {
        r del s
        set args {}
        for {set i 0} {$i < 600} {incr i} { lappend args $i }
        r sadd s {*}$args
        assert_encoding hashtable s
        r scard s
    } 600

    tags {valkey-only} {
        test "intset converts to listpack when a string is added" {
            r del s
            r sadd s 1 2 3
            r sadd s a
            assert_encoding listpack s
            lsort [r smembers s]
        } {1 2 3 a}
    }

    test "intset with too many members for a listpack converts to hashtable on a string" {
        r del s
        for {set i 0} {$i < 200} {incr i} { r sadd s $i }
        assert_encoding intset s
        r sadd s a
        assert_encoding hashtable s
        r scard s
    } 201

    tags {valkey-only} {
        test "listpack converts to hashtable past set-max-listpack-entries" {
            r del s
            for {set i 0} {$i < 128} {incr i} { r sadd s "m$i" }
            assert_encoding listpack s
            r sadd s m0
            assert_encoding listpack s ;# an existing member changes nothing
            r sadd s m128
            assert_encoding hashtable s
            r scard s
        } 129
    }

    tags {valkey-only} {
        test "listpack converts to hashtable on a member over set-max-listpack-value" {
            r del s
            r sadd s a [string repeat x 64]
            assert_encoding listpack s
            r sadd s [string repeat y 65]
            assert_encoding hashtable s
            r scard s
        } 3
    }

    tags {valkey-only} {
        test "set-max-listpack-entries/value are honoured when changed" {
            r config set set-max-listpack-entries 2
            r del s
            r sadd s a b
            assert_encoding listpack s
            r sadd s c
            assert_encoding hashtable s
            r config set set-max-listpack-entries 128 set-max-listpack-value 3
            r del s
            r sadd s abc
            assert_encoding listpack s
            r sadd s abcd
            assert_encoding hashtable s
            r config set set-max-listpack-value 64
            r scard s
        } 2
    }

    test "SADD of many strings at once creates a hashtable directly" {
        r del s
        set args {}
        for {set i 0} {$i < 200} {incr i} { lappend args "m$i" }
        r sadd s {*}$args
        assert_encoding hashtable s
        r scard s
    } 200

    tags {valkey-only} {
        test "Set encoding configs: CONFIG GET, SET and REWRITE" {
            set names {set-max-intset-entries 512 set-max-listpack-entries 128 set-max-listpack-value 64}
            foreach {name def} $names {
                assert_equal [list $name $def] [r config get $name]
            }
            r config set set-max-intset-entries 100 set-max-listpack-entries 50 set-max-listpack-value 32
            assert_equal {set-max-intset-entries 100} [r config get set-max-intset-entries]
            assert_equal {set-max-listpack-entries 50} [r config get set-max-listpack-entries]
            assert_equal {set-max-listpack-value 32} [r config get set-max-listpack-value]
            assert_error "*argument couldn't be parsed into an integer*" {r config set set-max-intset-entries abc}
            assert_error "*" {r config set set-max-listpack-entries -1}
            r config rewrite
            set fd [open [srv config_file]]
            set text [read $fd]
            close $fd
            assert_match "*set-max-intset-entries 100*" $text
            assert_match "*set-max-listpack-entries 50*" $text
            assert_match "*set-max-listpack-value 32*" $text
            r config set set-max-intset-entries 512 set-max-listpack-entries 128 set-max-listpack-value 64
            r config rewrite
            r config get set-max-intset-entries
        } {set-max-intset-entries 512}
    }

    # ------------------------------------------------------------ SREM

    foreach enc {intset listpack hashtable} {
        set tags [expr {$enc eq "listpack" ? "valkey-only" : ""}]
        tags $tags {
            test "SREM on a $enc set, key removed with its last member" {
                set_create s $enc {1 2 3 4}
                assert_equal 2 [r srem s 1 2 99]
                assert_equal 0 [r srem s 1]
                assert_equal {3 4} [lsort [r smembers s]]
                assert_encoding $enc s
                assert_equal 2 [r srem s 3 4 5]
                r exists s
            } 0
        }
    }

    test "SREM of a non-integer from an intset" {
        r del s
        r sadd s 1 2
        assert_equal 0 [r srem s a 1.5 01]
        r scard s
    } 2

    # ------------------------------------------------------------ SMOVE

    test "SMOVE between sets of every encoding" {
        foreach src_enc {intset listpack hashtable} {
            foreach dst_enc {intset listpack hashtable} {
                if {($src_enc eq "listpack" || $dst_enc eq "listpack") &&
                    [lindex [r config get set-max-listpack-entries] 1] eq ""} continue
                set src_m [expr {$src_enc eq "intset" ? {1 2 3} : {a 2 3}}]
                set dst_m [expr {$dst_enc eq "intset" ? {4 5} : {b 5}}]
                set_create src $src_enc $src_m
                set_create dst $dst_enc $dst_m
                assert_equal 1 [r smove src dst 2]
                assert_equal 0 [r sismember src 2]
                assert_equal 1 [r sismember dst 2]
                assert_equal 0 [r smove src dst 2]
                assert_equal [lsort [concat $dst_m 2]] [lsort [r smembers dst]]
            }
        }
    }

    test "SMOVE a string into an intset converts it" {
        r del src dst
        r sadd src a b
        r sadd dst 1 2
        assert_equal 1 [r smove src dst a]
        set_assert_not_intset dst
        lsort [r smembers dst]
    } {1 2 a}

    test "SMOVE creates the destination and deletes an emptied source" {
        r del src dst
        r sadd src 10
        assert_equal 1 [r smove src dst 10]
        assert_equal 0 [r exists src]
        assert_encoding intset dst
        r smembers dst
    } 10

    test "SMOVE of a member already in the destination" {
        r del src dst
        r sadd src a b
        r sadd dst a
        assert_equal 1 [r smove src dst a]
        list [lsort [r smembers src]] [lsort [r smembers dst]]
    } {b a}

    test "SMOVE of a member already in the destination does not touch a WATCHed destination" {
        r del src dst
        r sadd src a b
        r sadd dst a
        r watch dst
        r multi
        r sadd dst c
        set c2 [vk_client]
        assert_equal 1 [$c2 smove src dst a]
        $c2 close
        assert_equal {1} [r exec]
        lsort [r smembers dst]
    } {a c}

    # Listpack sets are Valkey 7.2+.
    tags {valkey-only} {
        test "SMOVE keeps small sets compact" {
            r del src dst d2
            r sadd src a b 1 2
            assert_equal 1 [r smove src dst a]
            assert_encoding listpack dst
            assert_equal 1 [r smove src dst 1]
            assert_encoding listpack dst
            assert_equal 1 [r smove src d2 2]
            assert_encoding intset d2
            assert_equal 1 [r smove src d2 b]
            assert_encoding listpack d2
            assert_equal 0 [r exists src]
        }
    }

    test "SMOVE from a missing source, or of a missing member, is 0" {
        r del src dst
        r sadd dst x
        assert_equal 0 [r smove src dst x]
        r sadd src a
        assert_equal 0 [r smove src dst zz]
        assert_equal 0 [r exists nosuch]
        r smembers dst
    } x

    test "SMOVE with the same source and destination" {
        r del s
        r sadd s a b
        assert_equal 1 [r smove s s a]
        assert_equal 0 [r smove s s zz]
        lsort [r smembers s]
    } {a b}

    test "SMOVE type errors" {
        r del src dst
        r set str x
        r sadd src a
        assert_error "WRONGTYPE*" {r smove str src a}
        assert_error "WRONGTYPE*" {r smove src str a}
        assert_equal 0 [r smove nosuch str a] ;# missing source wins
        r smembers src
    } a

    # ------------------------------------------------------------ SPOP

    foreach enc {intset listpack hashtable} {
        set tags [expr {$enc eq "listpack" ? "valkey-only" : ""}]
        tags $tags {
            test "SPOP one member at a time from a $enc set" {
                set m [expr {$enc eq "intset" ? {1 2 3 4} : {1 2 3 a}}]
                set_create s $enc $m
                set popped {}
                for {set i 0} {$i < 4} {incr i} { lappend popped [r spop s] }
                assert_equal $m [lsort $popped]
                assert_equal {} [r spop s]
                r exists s
            } 0

            test "SPOP with count from a $enc set" {
                set members {}
                for {set i 0} {$i < 20} {incr i} { lappend members $i }
                if {$enc ne "intset"} { lappend members x }
                set_create s $enc $members
                set got [r spop s 2]
                assert_equal 2 [llength [lsort -unique $got]]
                assert_encoding $enc s
                set got [concat $got [r spop s 3]]
                assert_equal 5 [llength [lsort -unique $got]]
                set rest [r smembers s]
                assert_equal [lsort $members] [lsort [concat $got $rest]]
                set got2 [r spop s 100]
                assert_equal [lsort $rest] [lsort $got2]
                r exists s
            } 0
        }
    }

    test "SPOP with a count close to the size of a hashtable (survivors rebuilt)" {
        r del s
        set all {}
        for {set i 0} {$i < 300} {incr i} { lappend all "m$i" }
        r sadd s {*}$all
        r expire s 1000
        set got [r spop s 290]
        assert_equal 290 [llength [lsort -unique $got]]
        set rest [r smembers s]
        assert_equal 10 [llength $rest]
        assert_equal [lsort $all] [lsort [concat $got $rest]]
        assert_range [r ttl s] 900 1000 ;# the TTL survives the rebuild
        r scard s
    } 10

    test "SPOP with a count close to the size of an integer hashtable leaves an intset" {
        r del s
        for {set i 0} {$i < 600} {incr i} { r sadd s $i }
        assert_encoding hashtable s
        assert_equal 590 [llength [lsort -unique [r spop s 590]]]
        assert_encoding intset s
        r scard s
    } 10

    test "SPOP with count of all hashtable integers leaves nothing" {
        r del s
        for {set i 0} {$i < 600} {incr i} { r sadd s $i }
        assert_equal 600 [llength [r spop s 600]]
        r exists s
    } 0

    test "SPOP count 0, negative count, extra arguments" {
        r del s
        r sadd s a b
        assert_equal {} [r spop s 0]
        assert_error "*value is out of range, must be positive*" {r spop s -1}
        assert_error "*value is out of range, must be positive*" {r spop s x}
        assert_error "*syntax error*" {r spop s 1 2}
        r scard s
    } 2

    test "SPOP count replies a set in RESP3, an array in RESP2" {
        r del s
        r sadd s a b c
        assert_equal "~2" [set_raw_reply 3 spop s 2]
        assert_equal "*1" [set_raw_reply 2 spop s 2]
        assert_equal "~0" [set_raw_reply 3 spop nosuch 2]
        assert_equal "_" [set_raw_reply 3 spop nosuch]
        set_raw_reply 2 spop nosuch
    } {$-1}

    # ------------------------------------------------------------ SRANDMEMBER

    foreach enc {intset listpack hashtable} {
        set tags [expr {$enc eq "listpack" ? "valkey-only" : ""}]
        tags $tags {
            test "SRANDMEMBER with and without count on a $enc set" {
                set members {}
                for {set i 0} {$i < 20} {incr i} { lappend members $i }
                set_create s $enc $members
                assert {[lsearch -exact $members [r srandmember s]] >= 0}
                assert_equal {} [r srandmember s 0]
                set got [r srandmember s 7]
                assert_equal 7 [llength [lsort -unique $got]]
                foreach m $got { assert {[lsearch -exact $members $m] >= 0} }
                assert_equal [lsort -integer $members] [lsort -integer [r srandmember s 20]]
                assert_equal [lsort -integer $members] [lsort -integer [r srandmember s 1000]]
                set got [r srandmember s -50]
                assert_equal 50 [llength $got]
                foreach m $got { assert {[lsearch -exact $members $m] >= 0} }
                assert_equal 1 [llength [r srandmember s -1]]
                assert_encoding $enc s
                r scard s
            } 20

            test "SRANDMEMBER distribution on a $enc set" {
                set members {}
                for {set i 0} {$i < 30} {incr i} { lappend members $i }
                set_create s $enc $members
                # Repetitions allowed.
                set counts [dict create]
                foreach m [r srandmember s -6000] { dict incr counts $m }
                set_assert_uniform $counts 30 6000
                # Distinct members: each call's picks, over many calls.
                set counts [dict create]
                foreach got [r_pipeline [lrepeat 300 {srandmember s 10}]] {
                    assert_equal 10 [llength [lsort -unique $got]]
                    foreach m $got { dict incr counts $m }
                }
                set_assert_uniform $counts 30 3000
                # Near the whole set (the "copy and drop" path).
                set counts [dict create]
                foreach got [r_pipeline [lrepeat 300 {srandmember s 25}]] {
                    assert_equal 25 [llength [lsort -unique $got]]
                    foreach m $got { dict incr counts $m }
                }
                set_assert_uniform $counts 30 7500
                # Single members.
                set counts [dict create]
                foreach m [r_pipeline [lrepeat 3000 {srandmember s}]] { dict incr counts $m }
                set_assert_uniform $counts 30 3000
            }
        }
    }

    test "SRANDMEMBER count limits and syntax" {
        r del s
        r sadd s a b
        assert_error "*value is out of range*" {r srandmember s -9223372036854775808}
        assert_error "*value is not an integer or out of range*" {r srandmember s 9223372036854775808}
        assert_error "*value is not an integer or out of range*" {r srandmember s x}
        assert_error "*syntax error*" {r srandmember s 1 2}
        llength [r srandmember s 9223372036854775807]
    } 2

    test "SRANDMEMBER count replies an array in RESP3" {
        r del s
        r sadd s a b c
        assert_equal "*2" [set_raw_reply 3 srandmember s 2]
        assert_equal "*5" [set_raw_reply 3 srandmember s -5]
        assert_equal "*0" [set_raw_reply 3 srandmember nosuch 5]
        set_raw_reply 3 smembers s
    } "~3"

    # ------------------------------------------------------------ algebra

    foreach {e1 e2} {intset intset intset listpack intset hashtable listpack listpack
                     listpack hashtable hashtable hashtable} {
        set tags [expr {$e1 eq "listpack" || $e2 eq "listpack" ? "valkey-only" : ""}]
        tags $tags {
            test "SINTER/SUNION/SDIFF and STORE forms: $e1 with $e2" {
                set m1 [expr {$e1 eq "intset" ? {1 2 3 4 5 6} : {1 2 3 a b c}}]
                set m2 [expr {$e2 eq "intset" ? {4 5 6 7 8} : {3 4 b d e}}]
                set_create s1 $e1 $m1
                set_create s2 $e2 $m2
                assert_equal [set_linter $m1 $m2] [lsort [r sinter s1 s2]]
                assert_equal [set_lunion $m1 $m2] [lsort [r sunion s1 s2]]
                assert_equal [set_ldiff $m1 $m2] [lsort [r sdiff s1 s2]]
                assert_equal [set_ldiff $m2 $m1] [lsort [r sdiff s2 s1]]
                assert_equal [llength [set_linter $m1 $m2]] [r sintercard 2 s1 s2]
                assert_equal [llength [set_linter $m1 $m2]] [r sinterstore d s1 s2]
                assert_equal [set_linter $m1 $m2] [lsort [r smembers d]]
                assert_equal [llength [set_lunion $m1 $m2]] [r sunionstore d s1 s2]
                assert_equal [set_lunion $m1 $m2] [lsort [r smembers d]]
                assert_equal [llength [set_ldiff $m1 $m2]] [r sdiffstore d s1 s2]
                assert_equal [set_ldiff $m1 $m2] [lsort [r smembers d]]
            }
        }
    }

    test "Algebra with three sets and with a key given twice" {
        r del a b c
        r sadd a 1 2 3 4 x
        r sadd b 2 3 4 5 x
        r sadd c 3 4 5 6 x
        assert_equal {3 4 x} [lsort [r sinter a b c]]
        assert_equal {1 2 3 4 5 6 x} [lsort [r sunion a b c]]
        assert_equal {1} [lsort [r sdiff a b c]]
        assert_equal {1 2 3 4 x} [lsort [r sinter a a]]
        assert_equal {} [r sdiff a a]
        assert_equal 0 [r sdiffstore d a a]
        assert_equal 5 [r sinterstore a a a]
        lsort [r smembers a]
    } {1 2 3 4 x}

    test "SDIFF with a big first set and small others (copy-and-remove path)" {
        r del big small
        set all {}
        for {set i 0} {$i < 1000} {incr i} { lappend all $i }
        r sadd big {*}$all
        r sadd small 1 2 3 999 5000
        set got [r sdiff big small small small]
        assert_equal 996 [llength $got]
        assert_equal [lsort $got] [lsort [r sdiff big small]]
        assert_equal [set_ldiff $all {1 2 3 999}] [lsort $got]
        r sdiff small big
    } 5000

    test "Missing keys: SINTER is empty, SUNION/SDIFF skip them" {
        r del a nosuch
        r sadd a x y
        assert_equal {} [r sinter a nosuch]
        assert_equal 0 [r sintercard 2 a nosuch]
        assert_equal {x y} [lsort [r sunion nosuch a]]
        assert_equal {x y} [lsort [r sdiff a nosuch]]
        assert_equal {} [r sdiff nosuch a]
        r sunion nosuch nosuch2
    } {}

    test "Wrong type is reported even after a missing key" {
        r del a nosuch
        r sadd a x
        r set str v
        assert_error "WRONGTYPE*" {r sinter nosuch str}
        assert_error "WRONGTYPE*" {r sinter a str}
        assert_error "WRONGTYPE*" {r sintercard 2 nosuch str}
        assert_error "WRONGTYPE*" {r sunion a str}
        assert_error "WRONGTYPE*" {r sdiff nosuch str}
        assert_error "WRONGTYPE*" {r sdiff a str}
        assert_error "WRONGTYPE*" {r sinterstore d nosuch str}
        assert_error "WRONGTYPE*" {r sunionstore d a str}
        r exists d
    } 0

    test "STORE forms delete the destination when the result is empty" {
        foreach cmd {sinterstore sunionstore sdiffstore} {
            r del a b
            r sadd a x
            r sadd b x
            r set d old
            set args [expr {$cmd eq "sinterstore" ? {a nosuch} : ($cmd eq "sdiffstore" ? {a b} : {nosuch nosuch2})}]
            assert_equal 0 [r $cmd d {*}$args] $cmd
            assert_equal 0 [r exists d] $cmd
            assert_equal 0 [r $cmd d {*}$args] "$cmd with no destination"
        }
    }

    test "STORE forms overwrite any type and clear the TTL" {
        r del a b
        r sadd a 1 2 3
        r sadd b 2 3 4
        r set d old ex 100
        assert_equal 2 [r sinterstore d a b]
        assert_equal set [r type d]
        assert_equal -1 [r ttl d]
        r set d old ex 100
        assert_equal 4 [r sunionstore d a b]
        assert_equal -1 [r ttl d]
        r set d old ex 100
        assert_equal 1 [r sdiffstore d a b]
        list [r ttl d] [r smembers d]
    } {-1 1}

    test "Stored results get the smallest encoding" {
        r del a b
        # Integer results are intsets whatever the sources' encoding.
        r sadd a 1 2 3 x
        r sadd b 1 2 3 $::set_pad
        r sinterstore d a b
        assert_encoding intset d
        r sunionstore d a
        set_assert_not_intset d
        r sdiffstore d b a
        assert_encoding hashtable d
        # Many integers overflow the intset.
        r del big
        for {set i 0} {$i < 600} {incr i} { r sadd big $i }
        r sunionstore d big
        assert_encoding hashtable d
        r scard d
    } 600

    tags {valkey-only} {
        test "Stored string results are listpacks when small" {
            r del a b
            r sadd a x y z $::set_pad
            r srem a $::set_pad
            r sadd b y z w
            r sinterstore d a b
            assert_encoding listpack d
            r sunionstore d a b
            assert_encoding listpack d
            lsort [r smembers d]
        } {w x y z}
    }

    test "SINTERCARD with LIMIT and its errors" {
        r del a b
        r sadd a 1 2 3 4 5 6
        r sadd b 2 3 4 5 6 7
        assert_equal 5 [r sintercard 2 a b]
        assert_equal 5 [r sintercard 2 a b limit 0]
        assert_equal 3 [r sintercard 2 a b limit 3]
        assert_equal 5 [r sintercard 2 a b LIMIT 10]
        assert_equal 6 [r sintercard 1 a]
        assert_error "*numkeys should be greater than 0*" {r sintercard 0 a}
        assert_error "*numkeys should be greater than 0*" {r sintercard x a}
        assert_error "*Number of keys can't be greater than number of args*" {r sintercard 3 a b}
        assert_error "*LIMIT can't be negative*" {r sintercard 2 a b limit -1}
        assert_error "*syntax error*" {r sintercard 2 a b limit}
        assert_error "*syntax error*" {r sintercard 2 a b foo 1}
        assert_error "*syntax error*" {r sintercard 1 a b}
        r command getkeys sintercard 2 a b limit 1
    } {a b}

    test "SINTER/SUNION/SDIFF reply sets in RESP3" {
        r del a
        r sadd a 1 2
        assert_equal "~2" [set_raw_reply 3 sinter a]
        assert_equal "~2" [set_raw_reply 3 sunion a]
        assert_equal "~2" [set_raw_reply 3 sdiff a]
        assert_equal "~0" [set_raw_reply 3 sinter a nosuch]
        set_raw_reply 2 sinter a
    } "*2"

    # ------------------------------------------------------------ SSCAN

    foreach enc {intset listpack} {
        set tags [expr {$enc eq "listpack" ? "valkey-only" : ""}]
        tags $tags {
            test "SSCAN of a $enc set returns everything at once" {
                set members [expr {$enc eq "intset" ? {1 2 3 10 20} : {a 1 c 10 20}}]
                set_create s $enc $members
                set res [r sscan s 0 count 1]
                assert_equal 0 [lindex $res 0]
                assert_equal [lsort $members] [lsort [lindex $res 1]]
                lsort [lindex [r sscan s 0 match 1*] 1]
            } {1 10}
        }
    }

    test "SSCAN of a hashtable set iterates all members" {
        r del s
        set all {}
        for {set i 0} {$i < 1000} {incr i} { lappend all "m$i" }
        r sadd s {*}$all
        assert_encoding hashtable s
        set seen {}
        set cursor 0
        set calls 0
        while 1 {
            set res [r sscan s $cursor count 20]
            incr calls
            set cursor [lindex $res 0]
            lappend seen {*}[lindex $res 1]
            if {$cursor == 0} break
        }
        assert {$calls > 1}
        assert_equal [lsort $all] [lsort -unique $seen]
        # MATCH filters members.
        set seen {}
        set cursor 0
        while 1 {
            set res [r sscan s $cursor match m1?? count 100]
            set cursor [lindex $res 0]
            lappend seen {*}[lindex $res 1]
            if {$cursor == 0} break
        }
        llength [lsort -unique $seen]
    } 100

    test "SSCAN returns every member present throughout while the set grows and shrinks" {
        r del s
        set kept {}
        for {set i 0} {$i < 500} {incr i} { lappend kept "k$i" }
        r sadd s {*}$kept
        set seen {}
        set cursor 0
        set round 0
        while 1 {
            set res [r sscan s $cursor count 40]
            set cursor [lindex $res 0]
            lappend seen {*}[lindex $res 1]
            # Bursts of other members: the table grows by several sizes,
            # then shrinks back, between the calls of one scan.
            set burst {}
            for {set j 0} {$j < 300} {incr j} { lappend burst "x$round:$j" }
            if {$round % 10 < 5} {
                r sadd s {*}$burst
            } else {
                r srem s {*}[r srandmember s 2000]
                r sadd s {*}$kept
            }
            incr round
            if {$cursor == 0} break
        }
        assert {$round > 10}
        set missing {}
        set seen [lsort -unique $seen]
        foreach m $kept { if {[lsearch -sorted $seen $m] < 0} { lappend missing $m } }
        set missing
    } {}

    # Our hashtable encoding's own figure (Redis 7.0 spends about 50 bytes).
    tags {valkey-only} {
        test "A hashtable set costs about 32 bytes per short member, and shrinks" {
            r del s
            set batch {}
            for {set i 0} {$i < 20000} {incr i} {
                lappend batch [format "m%07d" $i]
                if {[llength $batch] == 1000} { r sadd s {*}$batch; set batch {} }
            }
            assert_encoding hashtable s
            # The member's own sds (16 bytes) plus its share of 64-byte buckets
            # of seven slots, at most 77% full; no per-member entry.
            set per [expr {[r memory usage s samples 0] / 20000.0}]
            assert {$per < 34} "$per bytes per member"
            assert_match "*buckets: * of 7 entries*" [r debug htstats-key s]
            for {set i 0} {$i < 19900} {incr i} { lappend batch [format "m%07d" $i] }
            r srem s {*}$batch
            assert_equal 100 [r scard s]
            assert {[r memory usage s samples 0] < 8000}
        }
    }

    test "SSCAN errors and missing keys" {
        r del s
        r sadd s a
        assert_error "*invalid cursor*" {r sscan s abc}
        assert_error "*syntax error*" {r sscan s 0 type string}
        assert_error "*syntax error*" {r sscan s 0 count 0}
        assert_error "*syntax error*" {r sscan s 0 count}
        assert_error "*syntax error*" {r sscan s 0 novalues}
        r sscan nosuch 0
    } {0 {}}

    # ------------------------------------------------------------ events

    test "Keyspace events of the set commands" {
        r del s t d
        set ev [set_keyevents {
            r sadd s a b
            r sadd s a          ;# nothing added: no event
            r srem s a
            r srem s zz         ;# nothing removed: no event
            r smove s t b       ;# empties s
            r sadd s 1 2 3
            r spop s
            r spop s 5
            r sinterstore d t t
            r sunionstore d t
            r sdiffstore d t t  ;# empty result: d deleted
        }]
        set ev
    } {sadd s srem s srem s del s sadd t sadd s spop s spop s del s sinterstore d sunionstore d del d}

    # ------------------------------------------------------------ object methods

    test "MEMORY USAGE, COPY and DEBUG DIGEST-VALUE on every encoding" {
        needs_debug
        set digests {}
        foreach enc {intset listpack hashtable} {
            if {$enc eq "listpack" && [lindex [r config get set-max-listpack-entries] 1] eq ""} continue
            set_create s $enc {1 2 3}
            assert {[r memory usage s] > 0}
            lappend digests [r debug digest-value s]
            r del c
            assert_equal 1 [r copy s c]
            assert_encoding $enc c
            r sadd c 4
            r srem c 1
            assert_equal {1 2 3} [lsort [r smembers s]]
            assert_equal {2 3 4} [lsort [r smembers c]]
        }
        # The digest depends on the members only, not on the encoding.
        assert_equal 1 [llength [lsort -unique $digests]]
        # A big hashtable is sampled.
        r del big
        for {set i 0} {$i < 1000} {incr i} { r sadd big "member:$i" }
        assert_range [r memory usage big] 20000 500000
        assert {[r memory usage big samples 0] > 0}
        set d1 [r debug digest-value big]
        r sadd big extra
        assert_not_equal $d1 [r debug digest-value big]
        r srem big extra
        assert_equal $d1 [r debug digest-value big]
    }

    # ------------------------------------------------------------ randomized

    test "Randomized set operations against a Tcl model" {
        set model(k0) {}
        set model(k1) {}
        set model(k2) {}
        r del k0 k1 k2
        for {set iter 0} {$iter < 3000} {incr iter} {
            set k "k[expr {int(rand() * 3)}]"
            set o "k[expr {int(rand() * 3)}]"
            # Members: small integers, big integers, short and long strings.
            switch [expr {int(rand() * 4)}] {
                0 { set m [expr {int(rand() * 40)}] }
                1 { set m [expr {int(rand() * 100000) - 50000}] }
                2 { set m "s[expr {int(rand() * 40)}]" }
                3 { set m "[string repeat L 70][expr {int(rand() * 5)}]" }
            }
            switch [expr {int(rand() * 8)}] {
                0 - 1 - 2 {
                    set added [expr {[lsearch -exact $model($k) $m] < 0}]
                    if {$added} { lappend model($k) $m }
                    assert_equal $added [r sadd $k $m]
                }
                3 {
                    set i [lsearch -exact $model($k) $m]
                    assert_equal [expr {$i >= 0}] [r srem $k $m]
                    if {$i >= 0} { set model($k) [lreplace $model($k) $i $i] }
                }
                4 {
                    set had [expr {[lsearch -exact $model($k) $m] >= 0}]
                    assert_equal $had [r smove $k $o $m]
                    if {$had && $k ne $o} {
                        set i [lsearch -exact $model($k) $m]
                        set model($k) [lreplace $model($k) $i $i]
                        if {[lsearch -exact $model($o) $m] < 0} { lappend model($o) $m }
                    }
                }
                5 {
                    set got [r spop $k]
                    if {[llength $model($k)] == 0} {
                        assert_equal {} $got
                    } else {
                        set i [lsearch -exact $model($k) $got]
                        assert {$i >= 0}
                        set model($k) [lreplace $model($k) $i $i]
                    }
                }
                6 {
                    set n [expr {int(rand() * 5)}]
                    set got [r spop $k $n]
                    foreach g $got {
                        set i [lsearch -exact $model($k) $g]
                        assert {$i >= 0}
                        set model($k) [lreplace $model($k) $i $i]
                    }
                }
                7 {
                    assert_equal [set_linter $model($k) $model($o)] [lsort [r sinter $k $o]]
                    assert_equal [set_lunion $model($k) $model($o)] [lsort [r sunion $k $o]]
                    assert_equal [set_ldiff $model($k) $model($o)] [lsort [r sdiff $k $o]]
                }
            }
            if {$iter % 100 == 0} {
                foreach key {k0 k1 k2} {
                    assert_equal [lsort $model($key)] [lsort [r smembers $key]] "iteration $iter key $key"
                    assert_equal [llength $model($key)] [r scard $key]
                    assert_equal [expr {[llength $model($key)] > 0}] [r exists $key]
                }
            }
        }
        foreach key {k0 k1 k2} {
            assert_equal [lsort $model($key)] [lsort [r smembers $key]]
        }
    }
}
