# maxmemory and eviction: every maxmemory-policy evicts the right kind of
# key, the approximate LRU/LFU/TTL policies keep the keys they should, used
# memory stays near the limit, and noeviction refuses only commands that
# may grow memory.
#
# The limit is always set a little above the memory the server already
# uses, so the tests do not depend on how much a fresh server takes. So
# flushes are SYNC: an asynchronous one would still be giving memory back
# while the limit is measured.

# The value of `field` in an INFO reply, or "" if absent.
proc mm_info_field {info field} {
    if {[regexp "(?:^|\n)$field:(\[^\r\n\]*)" $info -> value]} { return $value }
    return ""
}

proc mm_used {} {
    return [mm_info_field [r info memory] used_memory]
}

proc mm_evicted {} {
    return [mm_info_field [r info stats] evicted_keys]
}

# Sets maxmemory to the memory in use now plus `extra` bytes and returns it.
proc mm_set_limit {extra} {
    r config set maxmemory 0
    set limit [expr {[mm_used] + $extra}]
    r config set maxmemory $limit
    return $limit
}

# The SET commands that write prefix:from .. prefix:to-1 with 1000-byte
# values, with a TTL of `ttl` seconds unless it is 0.
proc mm_set_cmds {prefix from to ttl} {
    set value [string repeat x 1000]
    set cmds {}
    for {set n $from} {$n < $to} {incr n} {
        if {$ttl} {
            lappend cmds [list set $prefix:$n $value ex $ttl]
        } else {
            lappend cmds [list set $prefix:$n $value]
        }
    }
    return $cmds
}

# Writes keys prefix:0, prefix:1, ... (values of 1000 bytes, with a TTL of
# `ttl` seconds unless it is 0) until used memory is within `margin` bytes
# of `limit`. Returns how many keys were written.
proc mm_fill {prefix limit ttl {margin 20000}} {
    set n 0
    while 1 {
        r_pipeline [mm_set_cmds $prefix $n [expr {$n + 10}] $ttl]
        incr n 10
        if {[mm_used] + $margin >= $limit} { return $n }
        if {$n > 1000000} { error "mm_fill: memory does not grow" }
    }
}

# Writes `count` more keys prefix:0.. with 1000-byte values (TTL as above),
# in order, 100 per round trip.
proc mm_add {prefix count ttl} {
    for {set n 0} {$n < $count} {incr n 100} {
        r_pipeline [mm_set_cmds $prefix $n [expr {min($n + 100, $count)}] $ttl]
    }
}

# The keys prefix:0 .. prefix:count-1.
proc mm_keys {prefix count} {
    set keys {}
    for {set n 0} {$n < $count} {incr n} { lappend keys $prefix:$n }
    return $keys
}

# How many of prefix:0 .. prefix:count-1 still exist.
proc mm_surviving {prefix count} {
    if {$count == 0} { return 0 }
    return [r exists {*}[mm_keys $prefix $count]]
}

# Reads prefix:0 .. prefix:count-1 once each (an access for LRU and LFU).
proc mm_touch {prefix count} {
    if {$count > 0} { r mget {*}[mm_keys $prefix $count] }
}

start_server {tags {"maxmemory external:skip"} log_allow {"*maxmemory value set via CONFIG SET*"}} {
    test "CONFIG SET maxmemory-policy accepts every policy" {
        foreach policy {volatile-lru allkeys-lru volatile-lfu allkeys-lfu volatile-random
                        allkeys-random volatile-ttl noeviction} {
            r config set maxmemory-policy $policy
            assert_equal [list maxmemory-policy $policy] [r config get maxmemory-policy]
        }
    }

    foreach policy {allkeys-lru allkeys-lfu allkeys-random} {
        test "$policy: used memory stays near maxmemory" {
            r flushall sync
            r config set maxmemory-policy $policy
            set limit [mm_set_limit 2000000]
            set before [mm_evicted]
            set n [mm_fill k $limit 0]
            assert {$n > 100}
            # As much again as fitted: must all be absorbed by evictions.
            mm_add more $n 0
            set used [mm_used]
            r config set maxmemory 0
            assert {$used < $limit + 50000} "used_memory $used over the limit $limit"
            assert {[mm_evicted] - $before >= $n / 2} "too few evictions"
            # The newest keys are there: nothing refused them.
            assert_equal 1 [r exists more:[expr {$n - 1}]]
        }
    }

    foreach policy {volatile-lru volatile-lfu volatile-random volatile-ttl} {
        test "$policy: only keys with a TTL are evicted, then writes fail" {
            r flushall sync
            r config set maxmemory-policy $policy
            set limit [mm_set_limit 2000000]
            # Half the room for persistent keys, half for volatile ones.
            set np [mm_fill persistent [expr {$limit - 1000000}] 0]
            set nv [mm_fill volatile $limit 100000]
            assert {$nv > 100}
            # Writing more persistent keys evicts volatile ones only, until
            # none is left; then the server must refuse writes.
            set value [string repeat x 1000]
            set refused ""
            for {set n 0} {$n < 10 * $nv} {incr n} {
                if {[catch {r set extra:$n $value} err]} {
                    set refused $err
                    break
                }
            }
            set used [mm_used]
            set left_volatile [mm_surviving volatile $nv]
            set left_persistent [mm_surviving persistent $np]
            r config set maxmemory 0
            assert_match "OOM command not allowed when used memory > 'maxmemory'*" $refused
            assert_equal $np $left_persistent "persistent keys were evicted"
            assert_equal 0 $left_volatile "volatile keys left although writes are refused"
            assert_equal $n [mm_surviving extra $n]
            assert {$used < $limit + 50000} "used_memory $used over the limit $limit"
        }
    }

    test "allkeys-lru keeps the recently used keys" {
        r flushall sync
        r config set maxmemory-policy allkeys-lru
        set limit [mm_set_limit 2000000]
        set n [mm_fill k $limit 0]
        # Let the untouched keys age past the LRU clock's 1 s resolution.
        after 3000
        set hot [expr {$n / 10}]
        mm_touch k $hot
        # Force out about half of the old keys.
        mm_add new [expr {$n / 2}] 0
        set hot_left [mm_surviving k $hot]
        set all_left [mm_surviving k $n]
        r config set maxmemory 0
        assert {$all_left < $n * 3 / 4} "too few keys evicted ($all_left of $n left)"
        assert {$hot_left >= $hot * 95 / 100} "recently used keys evicted: $hot_left of $hot left"
    }

    test "allkeys-lfu keeps the frequently used keys" {
        r flushall sync
        r config set maxmemory-policy allkeys-lfu
        set limit [mm_set_limit 2000000]
        set n [mm_fill k $limit 0]
        set hot [expr {$n / 10}]
        for {set round 0} {$round < 20} {incr round} {
            mm_touch k $hot
        }
        mm_add new [expr {$n / 2}] 0
        set hot_left [mm_surviving k $hot]
        set all_left [mm_surviving k $n]
        r config set maxmemory 0
        assert {$all_left < $n * 3 / 4} "too few keys evicted ($all_left of $n left)"
        assert {$hot_left >= $hot * 95 / 100} "frequently used keys evicted: $hot_left of $hot left"
    }

    test "volatile-ttl evicts the keys that expire soonest first" {
        r flushall sync
        r config set maxmemory-policy volatile-ttl
        set limit [mm_set_limit 2000000]
        set value [string repeat x 1000]
        # Alternate short and long TTLs until the limit is near.
        set n 0
        while {[mm_used] + 20000 < $limit} {
            set cmds {}
            for {set j 0} {$j < 10} {incr j} {
                lappend cmds [list set soon:$n $value ex 10000] [list set late:$n $value ex 1000000]
                incr n
            }
            r_pipeline $cmds
        }
        # Make room for about 40% of the keys: fewer than the soon ones.
        mm_add mid [expr {$n * 2 * 40 / 100}] 500000
        set soon_left [mm_surviving soon $n]
        set late_left [mm_surviving late $n]
        r config set maxmemory 0
        assert {$soon_left < $n * 60 / 100} "too few short-TTL keys evicted ($soon_left of $n left)"
        assert {$late_left >= $n * 95 / 100} "long-TTL keys evicted: $late_left of $n left"
    }

    test "Eviction reaches keys in every database" {
        r flushall sync
        r config set maxmemory-policy allkeys-random
        set limit [mm_set_limit 2000000]
        r select 9
        set n [mm_fill k $limit 0]
        r select 0
        mm_add k $n 0
        r select 9
        set left [mm_surviving k $n]
        r select 0
        r config set maxmemory 0
        assert {$left < $n} "no key of db 9 was evicted"
    }

    test "lazyfree-lazy-eviction yes evicts as well" {
        r flushall sync
        r config set maxmemory-policy allkeys-lru
        r config set lazyfree-lazy-eviction yes
        set limit [mm_set_limit 2000000]
        set n [mm_fill k $limit 0]
        mm_add more $n 0
        # Background freeing may lag a little behind.
        wait_for_condition 50 100 {[mm_used] < $limit + 50000} {
            fail "used_memory [mm_used] stays over the limit $limit"
        }
        r config set maxmemory 0
        r config set lazyfree-lazy-eviction no
        assert_equal 1 [r exists more:[expr {$n - 1}]]
    }

    test "noeviction refuses SET over the limit but allows GET, DEL and EXPIRE" {
        r flushall sync
        r config set maxmemory-policy noeviction
        set limit [mm_set_limit 2000000]
        set n [mm_fill k $limit 0]
        set value [string repeat x 1000]
        set refused ""
        for {set j 0} {$j < 2 * $n} {incr j} {
            if {[catch {r set extra:$j $value} err]} {
                set refused $err
                break
            }
        }
        assert_match "OOM command not allowed when used memory > 'maxmemory'*" $refused
        # Nothing was evicted to make room.
        assert_equal $n [mm_surviving k $n]
        # Client buffers shrink in the background (the clients cron), which
        # can bring usage back under the limit by a few KB: set the limit
        # well below the usage, so that the server stays over it.
        r config set maxmemory [expr {[mm_used] - 100000}]
        # Reads and deletions still work: they do not need memory.
        assert_equal $value [r get k:0]
        assert_equal 1 [r expire k:1 1000]
        assert_error "OOM command not allowed*" {r set extra $value}
        # (A DEL may bring usage back under the limit by itself: it goes
        # last, not before the refused SET.)
        assert_equal 1 [r del k:0]
        r config set maxmemory 0
        r set extra $value
    } OK

    test "noeviction with a limit below the base usage refuses every write" {
        r flushall sync
        r set k v
        r config set maxmemory-policy noeviction
        r config set maxmemory 1
        assert_error "OOM command not allowed when used memory > 'maxmemory'*" {r set k2 v}
        assert_error "OOM command not allowed*" {r append k x}
        set got [list [r get k] [r exists k] [r del k]]
        r config set maxmemory 0
        set got
    } {v 1 1}

    test "INFO stats counts evicted keys" {
        r flushall sync
        r config set maxmemory-policy allkeys-random
        set before [mm_evicted]
        set limit [mm_set_limit 1000000]
        set n [mm_fill k $limit 0]
        mm_add more $n 0
        # The limit goes first: every command (INFO included) may evict
        # before it runs, so the count is read once nothing can evict.
        r config set maxmemory 0
        set evicted [expr {[mm_evicted] - $before}]
        # Every evicted key is gone from the keyspace, and only those.
        assert_equal [expr {2 * $n - $evicted}] [r dbsize]
        assert {$evicted > 0}
    }
}
