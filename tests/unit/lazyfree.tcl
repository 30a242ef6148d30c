# Lazy freeing: UNLINK, FLUSHALL/FLUSHDB ASYNC and the lazyfree-lazy-*
# options hand big values and flushed databases to the lazy free thread.
# lazyfreed_objects counts what the thread freed; small values are freed
# inline and not counted.

proc lazyfree_field {name} {
    regexp "$name:(\\d+)" [r info memory] -> value
    return $value
}

# Fills key with a value of type that takes many allocations to free: big
# enough (3000 elements; a set of them is about 100 KB) that the few KB
# client buffers may take or give back meanwhile don't blur what it frees.
proc fill_big_value {type key} {
    r del $key
    set cmds {}
    for {set i 0} {$i < 3000} {incr i} {
        switch $type {
            set { lappend cmds [list sadd $key member:$i] }
            hash { lappend cmds [list hset $key field:$i $i] }
            zset { lappend cmds [list zadd $key $i member:$i] }
            list { lappend cmds [list rpush $key element:$i] }
            stream { lappend cmds [list xadd $key * field $i] }
        }
    }
    r_pipeline $cmds
}

start_server {tags {"lazyfree"} overrides {list-max-listpack-size 4 stream-node-max-entries 4}} {
    foreach type {set hash zset list stream} {
        test "UNLINK of a big $type is freed by the lazy free thread" {
            fill_big_value $type big
            assert_equal $type [r type big]
            set usage [r memory usage big]
            assert {$usage > 20000}
            set full [lazyfree_field used_memory]
            set freed [lazyfree_field lazyfreed_objects]
            assert_equal 1 [r unlink big]
            assert_equal 0 [r exists big]
            wait_lazyfree_done
            assert_equal [expr {$freed + 1}] [lazyfree_field lazyfreed_objects]
            set after [lazyfree_field used_memory]
            # Most of it: client buffers and the first use of a command
            # may allocate a few KB meanwhile.
            assert {$full - $after > $usage / 2} "MEMORY USAGE $usage, used_memory $full -> $after"
        }
    }

    test "A small value is freed inline, not by the thread" {
        set freed [lazyfree_field lazyfreed_objects]
        r sadd small a b c
        r set str hello
        r rpush shortlist a b c
        assert_equal 3 [r unlink small str shortlist]
        assert_equal $freed [lazyfree_field lazyfreed_objects]
    }

    test "A stream's consumer groups count toward the effort of freeing it" {
        # 3 entries fit one node, but 100 pending entries in a group make
        # the stream worth freeing in the background.
        r del s
        for {set i 1} {$i <= 100} {incr i} { r xadd s $i-1 f v }
        r xtrim s maxlen 3
        r xgroup create s g 0
        r xreadgroup group g alice streams s >
        set freed [lazyfree_field lazyfreed_objects]
        r unlink s
        wait_lazyfree_done
        assert_equal $freed [lazyfree_field lazyfreed_objects] "3 pending entries: inline"

        r del s
        r config set stream-node-max-entries 1000
        for {set i 1} {$i <= 100} {incr i} { r xadd s $i-1 f v }
        r xgroup create s g 0
        r xreadgroup group g alice streams s >
        r xtrim s maxlen 1
        set freed [lazyfree_field lazyfreed_objects]
        r unlink s
        wait_lazyfree_done
        assert_equal [expr {$freed + 1}] [lazyfree_field lazyfreed_objects] "100 pending entries: thread"
        r config set stream-node-max-entries 4
    }

    test "DEL follows lazyfree-lazy-user-del" {
        r config set lazyfree-lazy-user-del no
        fill_big_value set big
        set freed [lazyfree_field lazyfreed_objects]
        r del big
        assert_equal $freed [lazyfree_field lazyfreed_objects]
        r config set lazyfree-lazy-user-del yes
        fill_big_value set big
        r del big
        wait_lazyfree_done
        assert_equal [expr {$freed + 1}] [lazyfree_field lazyfreed_objects]
    }

    test "An overwritten big value follows lazyfree-lazy-server-del" {
        r config set lazyfree-lazy-server-del yes
        fill_big_value hash big
        set freed [lazyfree_field lazyfreed_objects]
        r set big now-a-string
        wait_lazyfree_done
        assert_equal [expr {$freed + 1}] [lazyfree_field lazyfreed_objects]
        assert_equal now-a-string [r get big]
        r config set lazyfree-lazy-server-del no
        fill_big_value hash big2
        r rename big2 big
        assert_equal [expr {$freed + 1}] [lazyfree_field lazyfreed_objects]
        assert_equal hash [r type big]
        r config set lazyfree-lazy-server-del yes
    }

    test "An expired big value follows lazyfree-lazy-expire" {
        r config set lazyfree-lazy-expire yes
        fill_big_value zset big
        set freed [lazyfree_field lazyfreed_objects]
        r pexpire big 1
        after 20
        assert_equal 0 [r exists big]
        wait_lazyfree_done
        assert_equal [expr {$freed + 1}] [lazyfree_field lazyfreed_objects]
    }

    test "FLUSHALL ASYNC empties every database at once and frees the keys in the background" {
        r flushall sync
        set base [lazyfree_field used_memory]
        r select 9
        set cmds {}
        for {set i 0} {$i < 1000} {incr i} { lappend cmds [list set key:$i [string repeat v 100]] }
        r_pipeline $cmds
        r expire key:1 1000
        r select 10
        fill_big_value set big
        r set small x
        set full [lazyfree_field used_memory]
        set freed [lazyfree_field lazyfreed_objects]
        r flushall async
        assert_equal 0 [r dbsize]
        r select 9
        assert_equal 0 [r dbsize]
        assert_equal -2 [r ttl key:1]
        wait_lazyfree_done
        assert_equal [expr {$freed + 1002}] [lazyfree_field lazyfreed_objects]
        assert {[lazyfree_field used_memory] < $full - ($full - $base) / 2}
        # The emptied databases work as before.
        r set key:1 again ex 100
        assert_equal again [r get key:1]
        assert_range [r ttl key:1] 1 100
    }

    test "FLUSHDB ASYNC frees the current database only" {
        r flushall sync
        r select 9
        r set a 1
        r set b 2
        r select 10
        r set c 3
        set freed [lazyfree_field lazyfreed_objects]
        r flushdb async
        assert_equal 0 [r dbsize]
        r select 9
        assert_equal 2 [r dbsize]
        wait_lazyfree_done
        assert_equal [expr {$freed + 1}] [lazyfree_field lazyfreed_objects]
    }

    test "FLUSHALL follows lazyfree-lazy-user-flush; SYNC overrides it" {
        r flushall sync
        r config set lazyfree-lazy-user-flush yes
        r set a 1
        set freed [lazyfree_field lazyfreed_objects]
        r flushall
        wait_lazyfree_done
        assert_equal [expr {$freed + 1}] [lazyfree_field lazyfreed_objects]
        r set a 1
        r flushall sync
        assert_equal [expr {$freed + 1}] [lazyfree_field lazyfreed_objects]
        r config set lazyfree-lazy-user-flush no
        r set a 1
        r flushall
        assert_equal [expr {$freed + 1}] [lazyfree_field lazyfreed_objects]
        r config set lazyfree-lazy-user-flush yes
    }

    test "FLUSHALL ASYNC inside MULTI or a script frees synchronously" {
        # The transaction's own argv still holds the value SET stored, so
        # the thread must not release it.
        set freed [lazyfree_field lazyfreed_objects]
        r multi
        r set k [string repeat x 200]
        r flushall async
        r set k2 v
        assert_equal {OK OK OK} [r exec]
        assert_equal 0 [r exists k]
        assert_equal v [r get k2]
        r eval {redis.call('set', KEYS[1], ARGV[1]); return redis.call('flushall', 'async')} 1 k [string repeat y 200]
        assert_equal 0 [r dbsize]
        assert_equal $freed [lazyfree_field lazyfreed_objects]
    }

    test "SCRIPT FLUSH ASYNC frees a big script cache in the background" {
        r script flush sync
        for {set i 0} {$i < 100} {incr i} { set sha [r script load "return $i"] }
        set freed [lazyfree_field lazyfreed_objects]
        assert_equal OK [r script flush async]
        assert_equal 0 [r script exists $sha]
        assert_equal 7 [r eval {return 7} 0]
        wait_lazyfree_done
        assert_equal [expr {$freed + 100}] [lazyfree_field lazyfreed_objects]
        # A small cache is freed inline, and so is any cache with SYNC or
        # with neither option while lazyfree-lazy-user-flush is off.
        for {set i 0} {$i < 10} {incr i} { r script load "return $i" }
        r script flush async
        for {set i 0} {$i < 100} {incr i} { r script load "return $i" }
        r script flush sync
        r config set lazyfree-lazy-user-flush no
        for {set i 0} {$i < 100} {incr i} { r script load "return $i" }
        r script flush
        r config set lazyfree-lazy-user-flush yes
        assert_equal [expr {$freed + 100}] [lazyfree_field lazyfreed_objects]
    }

    test "FUNCTION FLUSH ASYNC frees many functions in the background" {
        r function flush sync
        set code "#!lua name=many\n"
        for {set i 0} {$i < 100} {incr i} {
            append code "server.register_function('f$i', function() return $i end)\n"
        }
        assert_equal many [r function load $code]
        assert_equal 42 [r fcall f42 0]
        set freed [lazyfree_field lazyfreed_objects]
        assert_equal OK [r function flush async]
        assert_equal {} [r function list]
        assert_error "*Function not found*" {r fcall f42 0}
        wait_lazyfree_done
        assert_equal [expr {$freed + 100}] [lazyfree_field lazyfreed_objects]
        # The fresh VM takes the same library again; a library deleted
        # alone, and a small flush, are freed inline.
        assert_equal many [r function load $code]
        assert_equal 7 [r fcall f7 0]
        assert_equal OK [r function delete many]
        r function load "#!lua name=few\nserver.register_function('g', function() return 1 end)"
        r function flush async
        r function load $code
        r function flush sync
        assert_equal [expr {$freed + 100}] [lazyfree_field lazyfreed_objects]
        assert_equal {} [r function list]
    }

    test "CONFIG RESETSTAT resets lazyfreed_objects" {
        fill_big_value list big
        r unlink big
        wait_lazyfree_done
        assert {[lazyfree_field lazyfreed_objects] > 0}
        r config resetstat
        assert_equal 0 [lazyfree_field lazyfreed_objects]
    }

    tags {"external:skip"} {
        test "The lazy free thread is named bio_lazy_free" {
            regexp {process_id:(\d+)} [r info server] -> pid
            set names {}
            foreach f [glob -nocomplain /proc/$pid/task/*/comm] {
                set fd [open $f]
                lappend names [string trim [read $fd]]
                close $fd
            }
            assert {"bio_lazy_free" in $names} "threads: $names"
        }
    }
}
