# What a primary puts into its replication stream (src/propagate.c and the
# rewrites in the commands): read the real stream through SYNC
# (tests/lib/replstream.tcl) and compare with what Valkey sends. The AOF
# receives the same commands: the last server reads its incr file too
# (aof_stream_attach) and checks both against one list.
#
# Every test skips when the server does not answer SYNC (replication not
# built in).

proc needs_repl_stream {} {
    if {![repl_stream_supported]} {
        skip "the server does not answer SYNC"
    }
}

# Reads the next command, checks it matches pattern and returns it.
proc repl_next {s pattern} {
    set cmd [repl_stream_read $s]
    assert_match $pattern $cmd "replication stream"
    return $cmd
}

# A pattern matching text exactly (glob characters escaped).
proc exact {text} {
    return [string map {* \\* ? \\? [ \\[ ] \\] \\ \\\\} $text]
}

# The commands of the stream up to marker (a command, excluded).
proc repl_read_until {s marker} {
    set got {}
    while {[set cmd [repl_stream_read $s]] ne $marker} { lappend got $cmd }
    return $got
}

# One field of INFO.
proc info_field {field} {
    regexp "\r\n$field:(\[^\r\n\]*)" [r info] -> value
    return $value
}

# An absolute ms deadline must be within [now + min, now + max] ms.
proc assert_deadline {ms min max} {
    set now [clock milliseconds]
    assert_range $ms [expr {$now + $min - 5000}] [expr {$now + $max + 1000}]
}

start_server {tags {"repl"} overrides {lazyfree-lazy-expire no lazyfree-lazy-server-del no lazyfree-lazy-eviction no enable-debug-command yes} log_allow {"*WARNING: the new maxmemory value*"}} {
    test {Writes are propagated, reads and no-op writes are not} {
        needs_repl_stream
        r flushall
        set s [repl_stream_attach]
        r set foo bar
        r get foo
        r del missing
        r expire missing 100
        r set foo other nx
        r srem missing-set x
        r lpush list a b
        assert_replication_stream $s {
            {select 0}
            {set foo bar}
            {lpush list a b}
        }
        repl_stream_close $s
    }

    test {SELECT is sent when the database changes} {
        needs_repl_stream
        set s [repl_stream_attach]
        r select 9
        r set a 1
        r set b 2
        r select 10
        r set c 3
        r select 0
        r set d 4
        assert_replication_stream $s {
            {select 9}
            {set a 1}
            {set b 2}
            {select 10}
            {set c 3}
            {select 0}
            {set d 4}
        }
        repl_stream_close $s
        r select 0
    }

    test {MULTI/EXEC: several writes wrapped, one write alone, reads nothing} {
        needs_repl_stream
        set s [repl_stream_attach]
        r set pre 1 ;# (the stream's SELECT, before or inside MULTI: see below)
        r multi
        r set x 1
        r get x
        r incr x
        r exec
        r multi
        r get x
        r exec
        r multi
        r incr x
        r get x
        r exec
        r set sentinel 1
        assert_replication_stream $s {
            {select 0}
            {set pre 1}
            {multi}
            {set x 1}
            {incr x}
            {exec}
            {incr x}
            {set sentinel 1}
        }
        repl_stream_close $s
    }

    test {MULTI/EXEC across databases: SELECT inside the transaction} {
        needs_repl_stream
        set s [repl_stream_attach]
        r set first 1
        r multi
        r set y 1
        r select 5
        r set y 2
        r select 0
        r exec
        r select 0
        assert_replication_stream $s {
            {select 0}
            {set first 1}
            {multi}
            {set y 1}
            {select 5}
            {set y 2}
            {exec}
        }
        repl_stream_close $s
    }

    test {A transaction that makes the server a replica is not propagated} {
        needs_repl_stream
        set s [repl_stream_attach]
        r set t0 1
        r multi
        r set t1 1
        r replicaof 127.0.0.1 [::vk::alloc_port]
        r set t2 1
        r exec
        assert_error {READONLY*} {r set t3 1}
        r replicaof no one
        # Its writes were made, but the stream ends before them.
        assert_equal {1 1 1} [r mget t0 t1 t2]
        assert_replication_stream $s {
            {select 0}
            {set t0 1}
        }
        # (A primary turned replica drops its replicas: the stream ends.)
        catch {repl_stream_read $s} next
        assert {![string match {*t1*} $next]}
        repl_stream_close $s
    }

    test {Relative expiries become absolute: EXPIRE family} {
        needs_repl_stream
        r set k v
        set s [repl_stream_attach]
        r expire k 100
        r pexpire k 200000
        r expireat k [expr {[clock seconds] + 300}]
        set at [expr {[clock milliseconds] + 400000}]
        r pexpireat k $at
        r persist k
        repl_next $s {select 0}
        assert_deadline [lindex [repl_next $s {pexpireat k *}] 2] 100000 100000
        assert_deadline [lindex [repl_next $s {pexpireat k *}] 2] 200000 200000
        assert_deadline [lindex [repl_next $s {pexpireat k *}] 2] 299000 300000
        repl_next $s "pexpireat k $at"
        repl_next $s {persist k}
        repl_stream_close $s
    }

    test {A deadline in the past deletes, propagated as DEL} {
        needs_repl_stream
        r set k v
        set s [repl_stream_attach]
        r expire k -1
        r set sentinel 1
        assert_replication_stream $s {
            {select 0}
            {del k}
            {set sentinel 1}
        }
        repl_stream_close $s
    }

    test {SET EX/PX/EXAT, SETEX, PSETEX become SET ... PXAT} {
        needs_repl_stream
        set s [repl_stream_attach]
        r set a 1 ex 100
        r set b 2 px 200000
        r set c 3 exat [expr {[clock seconds] + 300}]
        r setex d 400 4
        r psetex e 500000 5
        set at [expr {[clock milliseconds] + 600000}]
        r set f 6 pxat $at
        r set g 7 ex 100 get
        repl_next $s {select 0}
        assert_deadline [lindex [repl_next $s {set a 1 PXAT *}] 4] 100000 100000
        assert_deadline [lindex [repl_next $s {set b 2 PXAT *}] 4] 200000 200000
        assert_deadline [lindex [repl_next $s {set c 3 PXAT *}] 4] 299000 300000
        assert_deadline [lindex [repl_next $s {set d 4 PXAT *}] 4] 400000 400000
        assert_deadline [lindex [repl_next $s {set e 5 PXAT *}] 4] 500000 500000
        repl_next $s "set f 6 \[pP\]\[xX\]\[aA\]\[tT\] $at" ;# (Redis 7.0 sends it uppercased)
        repl_next $s {set g 7 PXAT *}
        repl_stream_close $s
    }

    test {GETEX, GETDEL and GETSET propagate their effect} {
        needs_repl_stream
        r set a 1
        r set b 2 ex 100
        r set c 3
        r set d 4
        set s [repl_stream_attach]
        r getex a ex 100
        r getex a
        r getex b persist
        r getex c pxat 1
        r getdel d
        r getdel d
        r set e 5
        r config set lazyfree-lazy-expire yes
        r getex e pxat 1
        r config set lazyfree-lazy-expire no
        r getset e 6
        r set sentinel 1
        repl_next $s {select 0}
        assert_deadline [lindex [repl_next $s {pexpireat a *}] 2] 100000 100000
        assert_replication_stream $s {
            {persist b}
            {del c}
            {del d}
            {set e 5}
            {unlink e}
            {set e 6}
            {set sentinel 1}
        }
        repl_stream_close $s
    }

    test {INCRBYFLOAT and HINCRBYFLOAT propagate the resulting value} {
        needs_repl_stream
        r del f h
        set s [repl_stream_attach]
        r incrbyfloat f 1.5
        r incrbyfloat f 0.25
        r hincrbyfloat h fld 2.5
        assert_replication_stream $s {
            {select 0}
            {set f 1.5 KEEPTTL}
            {set f 1.75 KEEPTTL}
            {hset h fld 2.5}
        }
        repl_stream_close $s
    }

    tags {"valkey-only"} {
        test {SPOP propagates the members it removed} {
            needs_repl_stream
            r del s1 s2 s3
            r sadd s1 only
            r sadd s2 a b c d e
            r sadd s3 1 2 3
            set s [repl_stream_attach]
            r spop s1
            set popped [r spop s2 2]
            r spop s3 10
            r spop missing
            r srandmember s2 2
            r set sentinel 1
            repl_next $s {select 0}
            repl_next $s {srem s1 only}
            set srem [repl_next $s {srem s2 *}]
            assert_equal [lsort $popped] [lsort [lrange $srem 2 end]]
            assert_replication_stream $s {
                {del s3}
                {set sentinel 1}
            }
            repl_stream_close $s
        }
    }

    tags {"valkey-only"} {
        test {SPOP with a count on a big set propagates SREM batches} {
            needs_repl_stream
            r del big
            set members {}
            for {set i 0} {$i < 3000} {incr i} { lappend members m$i }
            r sadd big {*}$members
            set s [repl_stream_attach]
            set popped [r spop big 2500]
            repl_next $s {multi}
            repl_next $s {select 0}
            set removed {}
            foreach n {1024 1024 452} {
                set cmd [repl_next $s {srem big *}]
                assert_equal $n [expr {[llength $cmd] - 2}]
                lappend removed {*}[lrange $cmd 2 end]
            }
            assert_equal [lsort $popped] [lsort $removed]
            repl_next $s {exec}
            repl_stream_close $s
        }
    }

    test {Blocking list pops served at once propagate the non-blocking form} {
        needs_repl_stream
        r del l1 l2 l3
        r rpush l1 a b c d e f
        set s [repl_stream_attach]
        r blpop l0 l1 0
        r brpop l1 0
        r blmove l1 l2 left right 0
        r brpoplpush l1 l2 0
        r blmpop 0 2 l0 l1 left count 10
        r lmpop 1 l2 right count 1
        assert_replication_stream $s {
            {select 0}
            {lpop l1}
            {rpop l1}
            {lmove l1 l2 left right}
            {rpoplpush l1 l2}
            {lpop l1 2}
            {rpop l2 1}
        }
        repl_stream_close $s
    }

    test {Blocked clients served later propagate the non-blocking form after the push} {
        needs_repl_stream
        r del l1 l2 z1
        set rd [vk_deferring_client]
        set s [repl_stream_attach]
        $rd blpop l1 0
        wait_for_condition 50 20 {[info_field blocked_clients] == 1} { fail "not blocked" }
        r rpush l1 x y
        assert_equal {l1 x} [$rd read]
        $rd blmove l1 l2 right left 0
        assert_equal y [$rd read]
        $rd blmpop 0 1 l1 right count 3
        wait_for_condition 50 20 {[info_field blocked_clients] == 1} { fail "not blocked" }
        r rpush l1 p q
        assert_equal {l1 {q p}} [$rd read]
        $rd bzpopmin z1 0
        wait_for_condition 50 20 {[info_field blocked_clients] == 1} { fail "not blocked" }
        r zadd z1 1 one 2 two
        assert_equal {z1 one 1} [$rd read]
        $rd bzmpop 0 1 z1 max count 5
        assert_equal {z1 {{two 2}}} [$rd read]
        assert_replication_stream $s {
            {select 0}
            {rpush l1 x y}
            {lpop l1}
            {lmove l1 l2 right left}
            {rpush l1 p q}
            {rpop l1 2}
            {zadd z1 1 one 2 two}
            {zpopmin z1}
            {zpopmax z1 1}
        }
        repl_stream_close $s
    }

    test {ZMPOP propagates as ZPOPMIN/ZPOPMAX with the count popped} {
        needs_repl_stream
        r del z1 z2
        r zadd z2 1 a 2 b 3 c
        set s [repl_stream_attach]
        r zmpop 2 z1 z2 min count 2
        r zmpop 1 z2 max
        r zmpop 1 z2 max
        r zpopmin z2
        r set sentinel 1
        assert_replication_stream $s {
            {select 0}
            {zpopmin z2 2}
            {zpopmax z2 1}
            {set sentinel 1}
        }
        repl_stream_close $s
    }

    test {Scripts are propagated by their effects} {
        needs_repl_stream
        r del a b
        set s [repl_stream_attach]
        r eval {redis.call('set', KEYS[1], 'x')} 1 a
        r eval {redis.call('set', KEYS[1], 'y'); redis.call('incr', KEYS[2])} 2 a b
        r eval {return redis.call('get', KEYS[1])} 1 a
        r eval {redis.call('select', 7); redis.call('set', 'in7', 1)} 0
        r set sentinel 1
        assert_replication_stream $s {
            {select 0}
            {set a x}
            {multi}
            {set a y}
            {incr b}
            {exec}
            {select 7}
            {set in7 1}
            {select 0}
            {set sentinel 1}
        }
        repl_stream_close $s
    }

    test {redis.set_repl() keeps a script's commands out of the stream} {
        needs_repl_stream
        set s [repl_stream_attach]
        r set pre 1
        r eval {
            redis.call('set', 'r1', 'a')
            redis.set_repl(redis.REPL_NONE)
            redis.call('set', 'r2', 'b')
            redis.set_repl(redis.REPL_AOF)
            redis.call('set', 'r3', 'c')
            redis.set_repl(redis.REPL_ALL)
            redis.call('set', 'r4', 'd')
        } 0
        r eval {redis.set_repl(redis.REPL_NONE); redis.call('set', 'r5', 'e')} 0
        r eval {redis.call('set', 'r6', 'f')} 0
        assert_replication_stream $s {
            {select 0}
            {set pre 1}
            {multi}
            {set r1 a}
            {set r4 d}
            {exec}
            {set r6 f}
        }
        assert_equal {a b c d e f} [r mget r1 r2 r3 r4 r5 r6]
        repl_stream_close $s
    }

    test {A script inside MULTI joins the transaction} {
        needs_repl_stream
        set s [repl_stream_attach]
        r set pre 1
        r multi
        r set t 1
        r eval {redis.call('incr', KEYS[1])} 1 t
        r exec
        assert_replication_stream $s {
            {select 0}
            {set pre 1}
            {multi}
            {set t 1}
            {incr t}
            {exec}
        }
        repl_stream_close $s
    }

    test {FUNCTION LOAD, FCALL by effects, FUNCTION DELETE and FLUSH} {
        needs_repl_stream
        r function flush
        set s [repl_stream_attach]
        set code {#!lua name=plib
redis.register_function('pset', function(keys, args) return redis.call('set', keys[1], args[1]) end)}
        r function load $code
        r fcall pset 1 fk fv
        r function delete plib
        r function flush
        r script load {return 1}
        r set sentinel 1
        assert_replication_stream $s [list \
            {select 0} \
            [exact [list function load $code]] \
            {set fk fv} \
            {function delete plib} \
            {function flush} \
            {set sentinel 1}]
        repl_stream_close $s
    }

    test {PUBLISH is propagated; FLUSHALL and FLUSHDB even on empty data} {
        needs_repl_stream
        r flushall
        set s [repl_stream_attach]
        r publish chan msg
        r flushdb
        r flushall
        assert_replication_stream $s {
            {select 0}
            {publish chan msg}
            {flushdb}
            {flushall}
        }
        repl_stream_close $s
    }

    test {Key commands propagate as themselves} {
        needs_repl_stream
        r flushall
        r rpush src 3 1 2
        set s [repl_stream_attach]
        r rename src src2
        r copy src2 src3
        r sort src2 store sorted
        r move src3 4
        r swapdb 0 1
        r swapdb 0 1
        assert_replication_stream $s {
            {select 0}
            {rename src src2}
            {copy src2 src3}
            {sort src2 store sorted}
            {move src3 4}
            {swapdb 0 1}
            {swapdb 0 1}
        }
        repl_stream_close $s
    }

    test {RESTORE with a relative TTL becomes ABSTTL} {
        needs_repl_stream
        r set rk value
        set dump [r dump rk]
        r del rk
        set s [repl_stream_attach]
        r restore rk 100000 $dump
        r restore rk2 0 $dump
        repl_next $s {select 0}
        set cmd [repl_next $s {restore rk * ABSTTL}]
        assert_deadline [lindex $cmd 2] 100000 100000
        assert_equal $dump [lindex $cmd 3]
        repl_next $s {restore rk2 0 *}
        repl_stream_close $s
    }

    tags {"needs:debug"} {
        test {Lazy expiry of a key read or written is propagated as DEL} {
            needs_repl_stream
            r debug set-active-expire 0
            r set e1 v px 1
            r set e2 v px 1
            after 20
            set s [repl_stream_attach]
            assert_equal {} [r get e1]
            r set e2 new
            r set sentinel 1
            assert_replication_stream $s {
                {select 0}
                {del e1}
                {multi}
                {del e2}
                {set e2 new}
                {exec}
                {set sentinel 1}
            }
            repl_stream_close $s
            r debug set-active-expire 1
        }
    }

    tags {"needs:debug" "valkey-only"} {
        test {SCAN and RANDOMKEY: their expiries are not wrapped in MULTI/EXEC} {
            needs_repl_stream
            r debug set-active-expire 0
            r flushall
            foreach k {a b c d} { r set $k v px 1 }
            after 20
            set s [repl_stream_attach]
            r scan 0 count 100
            assert_equal 0 [r dbsize]
            foreach k {e f} { r set $k v px 1 }
            after 20
            r randomkey
            r set sentinel 1
            set got {}
            while {[set cmd [repl_stream_read $s]] ne {set sentinel 1}} { lappend got $cmd }
            r debug set-active-expire 1
            # Each expiry is an op of its own: no MULTI anywhere.
            assert_equal {select 0} [lindex $got 0]
            assert_equal -1 [lsearch -exact $got multi]
            set deleted [lmap cmd $got {if {[lindex $cmd 0] ne "del"} continue; lindex $cmd 1}]
            assert_equal {a b c d e f} [lsort $deleted]
            repl_stream_close $s
        }
    }

    test {Active expiry is propagated as DEL, or UNLINK with lazyfree-lazy-expire} {
        needs_repl_stream
        r flushall
        set s [repl_stream_attach]
        r set a v px 1
        wait_for_condition 100 20 {[r dbsize] == 0} { fail "a was not expired" }
        r config set lazyfree-lazy-expire yes
        r set b v px 1
        wait_for_condition 100 20 {[r dbsize] == 0} { fail "b was not expired" }
        r config set lazyfree-lazy-expire no
        assert_replication_stream $s {
            {select 0}
            {set a v PXAT *}
            {del a}
            {set b v PXAT *}
            {unlink b}
        }
        repl_stream_close $s
    }

    test {Eviction is propagated as DEL, or UNLINK with lazyfree-lazy-eviction} {
        needs_repl_stream
        r flushall
        for {set i 0} {$i < 20} {incr i} { r set key$i [string repeat x 1000] }
        set s [repl_stream_attach]
        set evicted_before [info_field evicted_keys]
        r config set maxmemory-policy allkeys-random
        r config set maxmemory [expr {[info_field used_memory] - 5000}]
        r set trigger 1
        r config set maxmemory 0
        # Keys may be evicted until maxmemory is 0 again: by the timer
        # CONFIG SET started, before SET runs, and before the last CONFIG
        # SET runs (it is a command too). So every deletion up to a marker
        # written after it counts, the trigger key included.
        r set marker 1
        set evicted 0
        foreach cmd [repl_read_until $s {set marker 1}] {
            if {$cmd eq {select 0} || $cmd eq {set trigger 1}} continue
            assert_match {del *} $cmd
            incr evicted
        }
        assert {$evicted >= 1}
        assert_equal $evicted [expr {[info_field evicted_keys] - $evicted_before}]
        assert_equal [expr {22 - $evicted}] [r dbsize] ;# 20 keys, trigger, marker
        r config set lazyfree-lazy-eviction yes
        set evicted_before [info_field evicted_keys]
        r config set maxmemory [expr {[info_field used_memory] - 3000}]
        r set trigger2 1
        r config set maxmemory 0
        r set marker 2
        set evicted 0
        foreach cmd [repl_read_until $s {set marker 2}] {
            if {$cmd eq {set trigger2 1}} continue
            assert_match {unlink *} $cmd
            incr evicted
        }
        assert {$evicted >= 1}
        assert_equal $evicted [expr {[info_field evicted_keys] - $evicted_before}]
        repl_stream_close $s
        r config set lazyfree-lazy-eviction no
        r config set maxmemory-policy noeviction
    }

    test {XADD propagates the ID it generated} {
        needs_repl_stream
        r del st
        set s [repl_stream_attach]
        set id [r xadd st * f v]
        set id2 [r xadd st 99999999999999-* f v]
        repl_next $s {select 0}
        repl_next $s "xadd st $id f v"
        repl_next $s "xadd st $id2 f v"
        repl_stream_close $s
    }

    test {XADD and XTRIM with ~ propagate an exact trim to what was reached} {
        needs_repl_stream
        r del st
        r config set stream-node-max-entries 10
        for {set i 1} {$i <= 35} {incr i} { r xadd st $i-0 f $i }
        set s [repl_stream_attach]
        r xadd st maxlen ~ 12 36-0 f 36
        set len1 [r xlen st]
        r xtrim st minid ~ 32-0
        set first [lindex [r xrange st - + count 1] 0 0]
        r xtrim st maxlen = 3
        assert_replication_stream $s [list \
            {select 0} \
            [list xadd st maxlen = $len1 36-0 f 36] \
            [list xtrim st minid = $first] \
            {xtrim st maxlen = 3}]
        repl_stream_close $s
        r config set stream-node-max-entries 100
    }

    tags {"valkey-only"} {
        test {XREADGROUP, XCLAIM and XAUTOCLAIM are propagated by their effects} {
            needs_repl_stream
            r del st
            r xadd st 1-0 f 1
            r xadd st 2-0 f 2
            r xadd st 3-0 f 3
            r xgroup create st g 0
            set s [repl_stream_attach]
            r xreadgroup group g alice count 2 streams st >
            r xreadgroup group g alice streams st >
            r xreadgroup group g alice streams st >
            r xclaim st g bob 0 1-0
            r xautoclaim st g carol 0 0 count 1
            r xadd st 4-0 f 4
            r xreadgroup group g dave noack streams st >
            r set sentinel 1
            assert_replication_stream $s {
                {multi}
                {select 0}
                {xclaim st g alice 0 1-0 TIME * RETRYCOUNT 1 FORCE JUSTID LASTID 1-0}
                {xclaim st g alice 0 2-0 TIME * RETRYCOUNT 1 FORCE JUSTID LASTID 2-0}
                {xgroup SETID st g 2-0 ENTRIESREAD 2}
                {exec}
                {multi}
                {xclaim st g alice 0 3-0 TIME * RETRYCOUNT 1 FORCE JUSTID LASTID 3-0}
                {xgroup SETID st g 3-0 ENTRIESREAD 3}
                {exec}
                {xclaim st g bob 0 1-0 TIME * RETRYCOUNT 2 FORCE JUSTID LASTID 3-0}
                {xclaim st g carol 0 1-0 TIME * RETRYCOUNT 3 FORCE JUSTID LASTID 3-0}
                {xadd st 4-0 f 4}
                {multi}
                {xgroup CREATECONSUMER st g dave}
                {xgroup SETID st g 4-0 ENTRIESREAD 4}
                {exec}
                {set sentinel 1}
            }
            repl_stream_close $s
        }
    }
}

# With Valkey 8's defaults (lazyfree-lazy-* yes) and appendonly yes: the
# replication stream and the AOF, read side by side.

# Attaches to both consumers and brings them to the same state, database 0
# selected: a fresh replication stream has none (its first command brings a
# SELECT), the AOF has the one of its last command. Returns
# {replication-handle aof-handle}.
proc streams_attach {} {
    r select 0
    r set warm 1
    set streams [list [repl_stream_attach] [aof_stream_attach]]
    r set warm 2
    assert_replication_stream [lindex $streams 0] {{select 0} {set warm 2}}
    assert_replication_stream [lindex $streams 1] {{set warm 2}}
    return $streams
}

# Checks the same patterns on both.
proc assert_streams {streams patterns} {
    foreach s $streams { assert_replication_stream $s $patterns }
}

proc streams_close {streams} {
    foreach s $streams { repl_stream_close $s }
}

start_server {tags {"repl" "needs:debug"} overrides {enable-debug-command yes appendonly yes appendfsync always} log_allow {"*WARNING: the new maxmemory value*"}} {
    tags {"valkey-only"} {
        test {Valkey 8 defaults: deletions by expiry and eviction are UNLINKs} {
            needs_repl_stream
            foreach name {eviction expire server-del user-del user-flush} {
                assert_equal yes [lindex [r config get lazyfree-lazy-$name] 1]
            }
            r set k1 v
            r set k2 v
            r set k3 v px 1
            r debug set-active-expire 0
            after 20
            set streams [streams_attach]
            r expire k1 -1
            r getex k2 pxat 1
            assert_equal {} [r get k3]
            r set k4 v
            r config set maxmemory-policy allkeys-lru
            r config set maxmemory 1
            wait_for_condition 100 20 {[r dbsize] == 0} { fail "keys were not evicted" }
            r config set maxmemory 0
            r config set maxmemory-policy noeviction
            r debug set-active-expire 1
            r set sentinel 1
            assert_streams $streams {
                {unlink k1}
                {unlink k2}
                {unlink k3}
                {set k4 v}
                {unlink *}
                {unlink *}
                {set sentinel 1}
            }
            streams_close $streams
        }

        test {A transaction is sent as MULTI, SELECT if the database changes, its commands, EXEC} {
            needs_repl_stream
            set streams [streams_attach]
            r select 9
            r set a 1
            r select 0
            r multi
            r set b 1
            r select 3
            r set c 1
            r exec
            r select 0
            r eval {redis.call('set', 'x', 1); redis.call('set', 'y', 2)} 0
            r multi
            r set d 1
            r set e 1
            r exec
            assert_streams $streams {
                {select 9}
                {set a 1}
                {multi}
                {select 0}
                {set b 1}
                {select 3}
                {set c 1}
                {exec}
                {multi}
                {select 0}
                {set x 1}
                {set y 2}
                {exec}
                {multi}
                {set d 1}
                {set e 1}
                {exec}
            }
            streams_close $streams
        }

        test {server.set_repl() and redis.set_repl(): REPL_AOF reaches the AOF only, REPL_REPLICA the replicas only} {
            needs_repl_stream
            set streams [streams_attach]
            r eval {
                redis.call('set', 'r1', 'a')
                server.set_repl(server.REPL_NONE)
                redis.call('set', 'r2', 'b')
                redis.set_repl(redis.REPL_AOF)
                redis.call('set', 'r3', 'c')
                server.set_repl(server.REPL_REPLICA)
                redis.call('set', 'r4', 'd')
                redis.set_repl(redis.REPL_SLAVE)
                redis.call('set', 'r5', 'e')
                server.set_repl(server.REPL_ALL)
                redis.call('set', 'r6', 'f')
            } 0
            # Whether to wrap counts the commands of both consumers, as
            # Valkey does: the replicas get an empty transaction here.
            r eval {server.set_repl(server.REPL_AOF); redis.call('set', 'a1', 1); redis.call('set', 'a2', 2)} 0
            r eval {server.set_repl(server.REPL_REPLICA); redis.call('set', 'only-replicas', 1)} 0
            r set sentinel 1
            assert_equal {a b c d e f} [r mget r1 r2 r3 r4 r5 r6]
            lassign $streams repl aof
            assert_replication_stream $repl {
                {multi}
                {set r1 a}
                {set r4 d}
                {set r5 e}
                {set r6 f}
                {exec}
                {multi}
                {exec}
                {set only-replicas 1}
                {set sentinel 1}
            }
            assert_replication_stream $aof {
                {multi}
                {set r1 a}
                {set r3 c}
                {set r6 f}
                {exec}
                {multi}
                {set a1 1}
                {set a2 2}
                {exec}
                {set sentinel 1}
            }
            streams_close $streams
        }

        test {Evictions are lone UNLINKs; CONFIG SET maxmemory inside MULTI evicts after EXEC} {
            needs_repl_stream
            set streams [streams_attach]
            r flushall
            r set asdf1 1
            r set asdf2 2
            r set asdf3 3
            r config set maxmemory-policy allkeys-lru
            r config set maxmemory 1
            wait_for_condition 100 20 {[r dbsize] == 0} { fail "keys were not evicted" }
            r config set maxmemory 0
            r set marker 1
            r flushall
            r multi
            r incr x
            r config set maxmemory 1
            r incr x
            assert_equal {1 OK 2} [r exec]
            wait_for_condition 100 20 {[r dbsize] == 0} { fail "x was not evicted" }
            r config set maxmemory 0
            r config set maxmemory-policy noeviction
            r set marker 2
            assert_streams $streams {
                {flushall}
                {set asdf1 1}
                {set asdf2 2}
                {set asdf3 3}
                {unlink *}
                {unlink *}
                {unlink *}
                {set marker 1}
                {flushall}
                {multi}
                {incr x}
                {incr x}
                {exec}
                {unlink x}
                {set marker 2}
            }
            streams_close $streams
        }

        test {SET with EXAT/PXAT already past is the SET, then UNLINK of the key} {
            needs_repl_stream
            set streams [streams_attach]
            r set k1 v exat 1
            wait_for_condition 100 20 {[r exists k1] == 0} { fail "k1 was not expired" }
            r set k2 v pxat 1
            wait_for_condition 100 20 {[r exists k2] == 0} { fail "k2 was not expired" }
            r multi
            r set k3 v exat 1
            r get k3
            r exec
            r set sentinel 1
            assert_streams $streams {
                {set k1 v PXAT 1000}
                {unlink k1}
                {set k2 v pxat 1}
                {unlink k2}
                {multi}
                {set k3 v PXAT 1000}
                {unlink k3}
                {exec}
                {set sentinel 1}
            }
            streams_close $streams
        }

        test {A key a transaction finds expired is UNLINKed inside it, where the command met it} {
            needs_repl_stream
            r debug set-active-expire 0
            r set e1 v px 1
            r set e2 v px 1
            after 20
            set streams [streams_attach]
            r multi
            r set a 1
            r get e1
            r incr e2
            r set b 1
            r exec
            r debug set-active-expire 1
            assert_streams $streams {
                {multi}
                {set a 1}
                {unlink e1}
                {unlink e2}
                {incr e2}
                {set b 1}
                {exec}
            }
            streams_close $streams
        }

        test {A key that expired while a transaction slept is UNLINKed by the blocked client it woke, in its database} {
            needs_repl_stream
            r debug set-active-expire 0
            set rd [vk_deferring_client]
            $rd select 9
            $rd read
            $rd blpop l 0
            wait_for_condition 50 20 {[info_field blocked_clients] == 1} { fail "not blocked" }
            set streams [streams_attach]
            r multi
            r select 9
            r rpush l a
            r pexpire l 100
            r select 0
            r set z 1
            r debug sleep 0.2
            r exec
            r set sentinel 1
            # The woken BLPOP met the key expired, deleted it and blocks again.
            assert_equal 1 [info_field blocked_clients]
            r select 9
            assert_equal 0 [r exists l]
            r select 0
            r debug set-active-expire 1
            assert_streams $streams {
                {multi}
                {select 9}
                {rpush l a}
                {pexpireat l *}
                {select 0}
                {set z 1}
                {exec}
                {select 9}
                {unlink l}
                {select 0}
                {set sentinel 1}
            }
            streams_close $streams
            $rd close
        }

        test {SWAPDB: a blocked client's key found expired in the database swapped in is UNLINKed after SWAPDB} {
            needs_repl_stream
            r flushall
            r debug set-active-expire 0
            set rd [vk_deferring_client]
            $rd blpop l 0
            wait_for_condition 50 20 {[info_field blocked_clients] == 1} { fail "not blocked" }
            set streams [streams_attach]
            r select 1
            r rpush l x
            r pexpire l 50
            after 100
            r swapdb 0 1
            r select 0
            r set sentinel 1
            assert_equal 1 [info_field blocked_clients]
            r debug set-active-expire 1
            assert_streams $streams {
                {select 1}
                {rpush l x}
                {pexpireat l *}
                {swapdb 0 1}
                {select 0}
                {unlink l}
                {set sentinel 1}
            }
            streams_close $streams
            $rd close
        }
    }

    test {XADD and XTRIM with ~ and LIMIT: the replicas and the AOF get an exact trim, LIMIT kept} {
        needs_repl_stream
        r del trimmed emptied
        r config set stream-node-max-entries 2
        for {set i 1} {$i <= 9} {incr i} { r xadd trimmed $i-0 f $i }
        for {set i 1} {$i <= 4} {incr i} { r xadd emptied $i-0 f $i }
        set streams [streams_attach]
        r xadd trimmed maxlen ~ 2 limit 4 10-0 f last
        r xtrim trimmed minid ~ 100 limit 2
        r xtrim emptied minid ~ 100
        r config set stream-node-max-entries 100
        # A MINID trim that emptied the stream sends the largest ID.
        assert_streams $streams {
            {xadd trimmed maxlen = 6 limit 4 10-0 f last}
            {xtrim trimmed minid = 7-0 limit 2}
            {xtrim emptied minid = 18446744073709551615-18446744073709551615}
        }
        streams_close $streams
    }

    test {The AOF replays "=" with LIMIT as the replicas do: DEBUG LOADAOF keeps the primary's exact stream} {
        r del trimmed
        r config set stream-node-max-entries 2
        for {set i 1} {$i <= 9} {incr i} { r xadd trimmed $i-0 f $i }
        r xadd trimmed maxlen ~ 2 limit 4 10-0 f last
        r xtrim trimmed minid ~ 100 limit 2
        r config set stream-node-max-entries 100
        set entries [r xrange trimmed - +]
        assert_equal 4 [llength $entries]
        # LIMIT does not apply to a replayed command, and is no error there.
        r debug loadaof
        assert_equal $entries [r xrange trimmed - +]
    }

    test {The AOF holds the same commands as the replication stream} {
        needs_repl_stream
        set streams [streams_attach]
        set rd [vk_deferring_client]
        r select 9
        r del l s1 st
        r sadd s1 a b c
        r set k1 v ex 100
        r expire k1 200
        r incrbyfloat f 1.5
        r spop s1 3
        r xadd st * f v
        r eval {redis.call('set', 'e1', 1); redis.call('lpush', 'el', 'x')} 0
        r multi
        r incr n
        r select 0
        r set m 1
        r exec
        r select 9
        $rd select 9
        $rd read
        $rd blpop l 0
        wait_for_condition 50 20 {[info_field blocked_clients] == 1} { fail "not blocked" }
        r rpush l a b
        assert_equal {l a} [$rd read]
        r set sentinel 1
        assert_streams $streams {
            {select 9}
            {sadd s1 a b c}
            {set k1 v PXAT *}
            {pexpireat k1 *}
            {set f 1.5 KEEPTTL}
            {* s1}
            {xadd st * f v}
            {multi}
            {set e1 1}
            {lpush el x}
            {exec}
            {multi}
            {incr n}
            {select 0}
            {set m 1}
            {exec}
            {select 9}
            {rpush l a b}
            {lpop l}
            {set sentinel 1}
        }
        streams_close $streams
        $rd close
        r select 0
    }
}

start_server {tags {"repl"} overrides {enable-debug-command yes}} {
    start_server {overrides {enable-debug-command yes repl-diskless-sync-delay 0}} {
        # The outer server (level -1) replicates the inner one.
        test {A replica keeps logically expired keys until its primary deletes them} {
            if {[catch {r -1 replicaof [srv 0 host] [srv 0 port]} err]} {
                skip "the server cannot be a replica: $err"
            }
            wait_for_sync -1
            r debug set-active-expire 0
            r set k v px 200
            r set k2 v
            wait_for_ofs_sync 0 -1
            after 300
            # Expired for the replica's clients, but not deleted by them.
            assert_equal {} [r -1 get k]
            assert_equal 0 [r -1 exists k]
            assert_equal 2 [r -1 dbsize]
            assert_equal 2 [r dbsize]
            # The primary deletes it on access and its DEL reaches the replica.
            assert_equal {} [r get k]
            wait_for_ofs_sync 0 -1
            assert_equal 1 [r -1 dbsize]
            r debug set-active-expire 1
            r -1 replicaof no one
        }
    }
}

start_server {tags {"repl"}} {
    test {SLOWLOG shows commands as sent, not as rewritten for propagation} {
        r config set slowlog-log-slower-than 0
        r slowlog reset
        r set a 1 ex 100
        r expire a 200
        r sadd s x y
        r spop s
        r rpush l v
        r blpop l 0
        r incrbyfloat f 1.5
        set logged {}
        foreach entry [r slowlog get 7] { lappend logged [lindex $entry 3] }
        r config set slowlog-log-slower-than 10000
        assert_equal {{incrbyfloat f 1.5} {blpop l 0} {rpush l v} {spop s} {sadd s x y} {expire a 200} {set a 1 ex 100}} $logged
    }
}

start_server {tags {"repl"} overrides {enable-debug-command yes}} {
    start_server {overrides {enable-debug-command yes repl-diskless-sync-delay 0}} {
        # The outer server (level -1) replicates the inner one.
        test {A replica fed the stream ends up with the primary's dataset} {
            if {[catch {r -1 replicaof [srv 0 host] [srv 0 port]} err]} {
                skip "the server cannot be a replica: $err"
            }
            wait_for_sync -1
            repl_populate_all_types 30 0 k
            set rd [vk_deferring_client]
            # Relative and non-deterministic commands.
            r set ex1 v ex 1000
            r setex ex2 1000 v
            r psetex ex3 1000000 v
            r set ex4 v px 1000000 get
            r getex k:s:1 ex 500
            r getex k:s:3 persist
            r getdel k:s:2
            r incrbyfloat fl 3.25
            r hincrbyfloat k:h:1 f3 1.5
            r expire k:s:4 300
            r expire k:s:5 -1
            r spop k:set:1
            r spop k:set:2 2
            r spop k:set:3 10
            set members {}
            for {set i 0} {$i < 2000} {incr i} { lappend members m$i }
            r sadd bigset {*}$members
            r spop bigset 1500
            r blpop k:l:1 0
            r brpop k:l:2 0
            r blmove k:l:3 k:l:4 left right 0
            r brpoplpush k:l:5 k:l:6 0
            r blmpop 0 2 nolist k:l:7 right count 2
            r bzpopmin k:z:1 0
            r bzmpop 0 1 k:z:2 max count 2
            r zmpop 1 k:z:3 min
            # A client blocked, then served by a push.
            $rd blpop waitlist 0
            wait_for_condition 50 20 {[repl_info blocked_clients 0 clients] == 1} { fail "not blocked" }
            r rpush waitlist a b
            $rd read
            # Streams and consumer groups.
            r xadd k:x:1 maxlen ~ 1 * f more
            r config set stream-node-max-entries 2
            for {set i 0} {$i < 9} {incr i} { r xadd trimmed * f $i }
            r xadd trimmed maxlen ~ 2 limit 4 * f last
            r config set stream-node-max-entries 100
            r xgroup create k:x:2 g 0
            r xadd k:x:2 * f a
            r xadd k:x:2 * f b
            r xreadgroup group g alice count 2 streams k:x:2 >
            r xreadgroup group g alice streams k:x:2 0
            r xclaim k:x:2 g bob 0 [lindex [r xrange k:x:2 - + count 1] 0 0]
            r xautoclaim k:x:2 g carol 0 0
            # Scripts, functions, transactions.
            r eval {redis.call('set', 'rnd', tostring(math.random())); redis.call('spop', KEYS[1])} 1 k:set:4
            r function load {#!lua name=dlib
redis.register_function('dpush', function(keys, args) return redis.call('lpush', keys[1], args[1]) end)}
            r fcall dpush 1 flist x
            r multi
            r incr counter
            r spop k:set:5
            r set txn v px 1000000
            r exec
            # Key commands, other databases, expiry and a restore.
            r rename k:s:6 k:s:6b
            r copy k:h:2 k:h:2b
            r sort k:l:8 alpha store sorted
            r move k:s:7 3
            r select 3
            r set indb3 v
            r select 0
            r swapdb 3 4
            set dump [r dump k:h:3]
            r restore restored 100000 $dump
            r set shortlived v px 50
            after 200
            r get shortlived
            r pfadd hll a b c
            r pfcount hll
            r geoadd geo 13.36 38.11 p1 15.08 37.50 p2
            r geosearchstore geostore geo fromlonlat 15 37 byradius 200 km
            wait_for_ofs_sync 0 -1
            assert_digests_equal {0 -1}
            r -1 replicaof no one
        }
    }
}
