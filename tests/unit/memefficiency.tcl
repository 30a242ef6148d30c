# Active defragmentation (activedefrag, src/defrag.c) and the allocator
# tools it comes with: DEBUG MALLCTL / MALLCTL-STR, the INFO fields, and
# passes that must fall fragmentation without changing one byte of the
# dataset (DEBUG DIGEST), for every type and encoding.
#
# Fragmentation tests need jemalloc behind malloc. In the sanitizer build
# (ASan's malloc) activedefrag yes is refused as Valkey refuses it without
# jemalloc; there DEBUG DEFRAG-MOVE-ALL still runs passes that move every
# block they visit, so a pointer left behind is caught by ASan.

source [file join $::vk::cfg(root) tests assets rdb-dataset.tcl]

proc defrag_field {name} {
    regexp "\r\n$name:(\[^\r\]*)\r\n" [r info all] -> v
    return $v
}

# 1 if jemalloc serves the server's allocations: its own count of
# allocated bytes then covers used_memory (under ASan or valgrind jemalloc
# is linked but serves nothing, and counts next to nothing).
proc jemalloc_serves {} {
    expr {[defrag_field allocator_allocated] > [defrag_field used_memory] / 2}
}

# Where jemalloc serves malloc, activedefrag yes must be taken (returns 1);
# elsewhere it must be refused with Valkey's error (returns 0). Leaves
# activedefrag no.
proc defrag_supported {} {
    if {[jemalloc_serves]} {
        r config set activedefrag yes
        assert_equal {activedefrag yes} [r config get activedefrag]
        r config set activedefrag no
        return 1
    }
    assert_error "*DISABLED Active defragmentation cannot be enabled: it requires a Valkey server compiled with a modified Jemalloc*" {r config set activedefrag yes}
    assert_equal {activedefrag no} [r config get activedefrag]
    return 0
}

# Deletes about 9 keys in 10 of prefix:0 .. prefix:n-1, at random.
proc delete_most {prefix n} {
    set cmds {}
    for {set i 0} {$i < $n} {incr i} {
        if {rand() < 0.9} { lappend cmds [list del $prefix:$i] }
    }
    r_pipeline $cmds
}

# Waits until the defragmenter is idle again after having moved blocks.
proc wait_defrag_idle {hits_before} {
    wait_for_condition 600 100 {
        [defrag_field active_defrag_running] == 0 && [defrag_field active_defrag_hits] > $hits_before
    } {
        fail "defrag did not run and finish: running [defrag_field active_defrag_running],\
              hits [defrag_field active_defrag_hits]"
    }
}

# Big values of every collection type: more elements than
# active-defrag-max-scan-fields (lowered by the tests), so they are done a
# part at a time; the lists and streams have many small nodes.
proc fill_big_values {n} {
    set cmds {}
    for {set i 0} {$i < $n} {incr i} {
        lappend cmds [list sadd big:set member:$i] [list hset big:hash field:$i value:$i] \
            [list zadd big:zset [expr {$i * 0.5}] member:$i] [list rpush big:list element:$i] \
            [list xadd big:stream * f $i] [list sadd big:intset $i]
    }
    r_pipeline $cmds
}

# Removes about 9 elements in 10 of each big value, at random.
proc thin_big_values {n} {
    set cmds {}
    for {set i 0} {$i < $n} {incr i} {
        if {rand() < 0.9} {
            lappend cmds [list srem big:set member:$i] [list hdel big:hash field:$i] \
                [list zrem big:zset member:$i] [list lrem big:list 1 element:$i]
        }
    }
    r_pipeline $cmds
}

start_server {tags {"memefficiency needs:debug"} overrides {enable-debug-command yes}} {
    test "The activedefrag options: set, read back, rewritten" {
        set supported [defrag_supported]
        foreach {name value expected} {
            active-defrag-ignore-bytes 2mb 2097152
            active-defrag-threshold-lower 7 7
            active-defrag-threshold-upper 70 70
            active-defrag-cycle-min 2 2
            active-defrag-cycle-max 30 30
            active-defrag-max-scan-fields 500 500
        } {
            r config set $name $value
            assert_equal [list $name $expected] [r config get $name]
        }
        assert_error "*argument must be between 1 and 99*" {r config set active-defrag-cycle-max 100}
        assert_error "*argument must be between 0 and 1000*" {r config set active-defrag-threshold-lower -1}
        if {$supported} { r config set activedefrag yes }
        r config rewrite
        set fh [open [srv config_file]]
        set text [read $fh]
        close $fh
        foreach line {"active-defrag-ignore-bytes 2mb" "active-defrag-threshold-lower 7"
                      "active-defrag-threshold-upper 70" "active-defrag-cycle-min 2"
                      "active-defrag-cycle-max 30" "active-defrag-max-scan-fields 500"} {
            assert_match "*\n$line\n*" $text
        }
        if {$supported} { assert_match "*\nactivedefrag yes\n*" $text }
        r config set activedefrag no
        foreach {name value} {active-defrag-ignore-bytes 100mb active-defrag-threshold-lower 10
                              active-defrag-threshold-upper 100 active-defrag-cycle-min 1
                              active-defrag-cycle-max 25 active-defrag-max-scan-fields 1000} {
            r config set $name $value
        }
    }

    set ::jemalloc_serves [jemalloc_serves]

    test "INFO reports the defragmenter's fields, idle" {
        set info [r info all]
        foreach field {active_defrag_running active_defrag_hits active_defrag_misses active_defrag_key_hits
                       active_defrag_key_misses total_active_defrag_time current_active_defrag_time
                       allocator_frag_ratio allocator_frag_bytes mem_fragmentation_ratio} {
            assert_match "*\r\n$field:*" $info
        }
        assert_equal 0 [defrag_field active_defrag_running]
        assert_equal 0 [defrag_field current_active_defrag_time]
    }

    test "DEBUG MALLCTL reads and writes numeric jemalloc options" {
        assert {[r debug mallctl arenas.page] >= 4096}
        # A bool: the old value comes back, the new one sticks.
        set old [r debug mallctl background_thread]
        assert_equal $old [r debug mallctl background_thread 0]
        assert_equal 0 [r debug mallctl background_thread]
        r debug mallctl background_thread $old
        assert_equal $old [r debug mallctl background_thread]
        # Read-only, unknown, pointer-valued.
        assert_error "*Operation not permitted*" {r debug mallctl arenas.page 8192}
        assert_error "*No such file or directory*" {r debug mallctl no.such.option}
        assert_error "*Operation not permitted*" {r debug mallctl arena.0.extent_hooks 12345}
        assert_error "*value is not an integer*" {r debug mallctl arenas.page notanumber}
    }

    test "DEBUG MALLCTL-STR reads string options and triggers void ones" {
        assert_match "5.*" [r debug mallctl-str version]
        assert_equal OK [r debug mallctl-str thread.tcache.flush VOID]
        assert_equal OK [r debug mallctl-str arena.0.purge VOID]
        # A size_t is as wide as a pointer: never followed as a string.
        assert_error "*arenas.page is not a string option*" {r debug mallctl-str arenas.page}
        assert_error "*No such file or directory*" {r debug mallctl-str no.such.option}
        assert_error "*wrong number of arguments*" {r debug mallctl}
    }
}

# activedefrag yes in the config file: taken at start-up where jemalloc
# serves malloc (elsewhere start-up stops, as Valkey's does without it).
if {$::jemalloc_serves} {
    start_server {tags {"memefficiency"} overrides {activedefrag yes active-defrag-cycle-max 30}} {
        test "activedefrag yes in the config file is taken at start-up" {
            assert_equal {activedefrag yes} [r config get activedefrag]
            assert_equal {active-defrag-cycle-max 30} [r config get active-defrag-cycle-max]
        }
    }
}

# MALLOC_CONF=junk:true makes jemalloc fill freed blocks with junk, so a
# pointer still aimed at a moved block reads garbage instead of the old
# bytes: the digest, or the server, would show it.
set ::env(MALLOC_CONF) junk:true
start_server {tags {"memefficiency needs:debug tls:skip:allocator rdma:skip:big-data"} overrides {enable-debug-command yes}} {
    unset ::env(MALLOC_CONF)
    test "Active defrag of many keys: fragmentation falls, the dataset stays byte for byte" {
        if {![defrag_supported]} { skip "malloc is not jemalloc" }
        r config set active-defrag-threshold-lower 5
        r config set active-defrag-ignore-bytes 2mb
        # Short values live in the keyspace entry (one block per key), long
        # ones in an sds of their own; some keys have a TTL, so the expires
        # table points at the same entries.
        set n 120000
        set cmds {}
        for {set i 0} {$i < $n} {incr i} {
            switch [expr {$i % 3}] {
                0 { lappend cmds [list set k:$i v$i] }
                1 { lappend cmds [list set k:$i [string repeat x 60]$i] }
                2 { lappend cmds [list set k:$i v$i ex 100000] }
            }
            if {[llength $cmds] == 10000} {
                r_pipeline $cmds
                set cmds {}
            }
        }
        r_pipeline $cmds
        delete_most k $n
        r debug mallctl-str thread.tcache.flush VOID
        set frag_before [defrag_field allocator_frag_ratio]
        assert {$frag_before > 1.4} "allocator_frag_ratio $frag_before after deleting 90% of the keys"
        set digest [r debug digest]
        regexp {db0:keys=\d+,expires=\d+} [r info keyspace] counts

        r config set activedefrag yes
        wait_for_condition 600 100 {
            [defrag_field active_defrag_running] == 0 && [defrag_field allocator_frag_ratio] < 1.2
        } {
            fail "fragmentation did not fall: allocator_frag_ratio\
                  [defrag_field allocator_frag_ratio] (was $frag_before)"
        }
        assert {[defrag_field active_defrag_hits] > 1000}
        assert {[defrag_field active_defrag_key_hits] > 1000}
        assert {[defrag_field active_defrag_misses] > 0}
        assert_equal $digest [r debug digest]
        assert_match "*$counts,*" [r info keyspace]
        r config set activedefrag no
        # The expires table still leads to the moved entries: the active
        # expiry walks it and deletes what it finds expired.
        set cmds {}
        for {set i 2} {$i < $n} {incr i 3} { lappend cmds [list pexpire k:$i 1] }
        r_pipeline $cmds
        wait_for_condition 200 50 {[string match "*db0:keys=*,expires=0,*" [r info keyspace]]} {
            fail "the keys with a TTL did not all expire: [r info keyspace]"
        }
    }
}
catch {unset ::env(MALLOC_CONF)} ;# when the block above was skipped

# Every type and encoding, small values and big ones (done a part at a
# time), with TTLs; freed blocks filled with junk as above.
set ::env(MALLOC_CONF) junk:true
start_server {tags {"memefficiency needs:debug tls:skip:allocator rdma:skip:big-data"} overrides {enable-debug-command yes
        list-max-listpack-size 4 stream-node-max-entries 4 active-defrag-max-scan-fields 50}} {
    unset ::env(MALLOC_CONF)
    test "Active defrag of every type, big values a part at a time: fragmentation falls, digests stay" {
        if {![defrag_supported]} { skip "malloc is not jemalloc" }
        r config set active-defrag-threshold-lower 5
        r config set active-defrag-ignore-bytes 1mb
        rdb_fill_every_type r
        fill_big_values 6000
        # Many small values of each collection type, a third with TTLs.
        set n 15000
        set cmds {}
        for {set i 0} {$i < $n} {incr i} {
            lappend cmds [list hset h:$i a $i b x] [list sadd s:$i a $i] [list zadd z:$i 1 a 2 $i] \
                [list rpush l:$i a $i] [list xadd x:$i * f $i] [list set r:$i [string repeat y 50]]
            if {$i % 3 == 0} { lappend cmds [list expire h:$i 100000] [list pexpire z:$i 100000000] }
            if {[llength $cmds] >= 10000} {
                r_pipeline $cmds
                set cmds {}
            }
        }
        r_pipeline $cmds
        foreach prefix {h s z l x r} { delete_most $prefix $n }
        thin_big_values 6000
        r debug mallctl-str thread.tcache.flush VOID
        assert_encoding hashtable big:set
        assert_encoding hashtable big:hash
        assert_encoding skiplist big:zset
        assert_encoding quicklist big:list
        set frag_before [defrag_field allocator_frag_ratio]
        assert {$frag_before > 1.3} "allocator_frag_ratio $frag_before"
        set digest [r debug digest]
        set values [r debug digest-value big:set big:hash big:zset big:list big:stream big:intset]
        set dump [rdb_dataset_dump r]
        set hits [defrag_field active_defrag_hits]

        r config set activedefrag yes
        wait_for_condition 600 100 {
            [defrag_field active_defrag_running] == 0 && [defrag_field allocator_frag_ratio] < 1.25
        } {
            fail "fragmentation did not fall: allocator_frag_ratio\
                  [defrag_field allocator_frag_ratio] (was $frag_before)"
        }
        assert {[defrag_field active_defrag_hits] > $hits + 1000}
        assert_equal $digest [r debug digest]
        assert_equal $values [r debug digest-value big:set big:hash big:zset big:list big:stream big:intset]
        assert_dumps_equal $dump [rdb_dataset_dump r]
        # The moved entries still work through both tables: lookups,
        # TTL changes, and the active expiry walking the expires table.
        assert_range [r ttl exp:rel] 1 100000
        r persist exp:rel
        r pexpire h:0 1
        r pexpire exp:hash 1
        wait_for_condition 100 50 {[r exists h:0 exp:hash] == 0} { fail "keys did not expire" }
        assert_equal 0 [r sismember big:set member:-1]
        r sadd big:set new
        r zincrby big:zset 1 member:5999
        r hset big:hash f v
        r xadd big:stream * f last
        r lpush big:list first
        r config set activedefrag no
    }
}
catch {unset ::env(MALLOC_CONF)} ;# when the block above was skipped

# DEBUG DEFRAG-MOVE-ALL: passes that move every block whatever the
# fragmentation, while clients change the dataset between the slices of a
# pass. A second server gets the same commands without defragmentation;
# the digests must agree. This runs in the ASan build too (where a stale
# pointer to a moved block is an immediate error).
# Every type in every encoding, deterministically (absolute expire times,
# explicit stream IDs, no reads that stamp delivery times), so two servers
# given the same commands have the same DEBUG DIGEST.
proc fill_every_encoding {c} {
    $c set s:int 12345
    $c set s:emb short
    $c set s:raw [string repeat raw 40]
    $c rpush l:lp a b 1 2
    for {set i 0} {$i < 200} {incr i} { $c rpush l:ql element-$i }
    $c sadd set:int 1 2 3
    $c sadd set:lp a b c
    for {set i 0} {$i < 300} {incr i} { $c sadd set:ht member:$i }
    $c zadd z:lp 1 a 2 b
    for {set i 0} {$i < 300} {incr i} { $c zadd z:sl $i member:$i }
    $c hset h:lp f v g w
    for {set i 0} {$i < 300} {incr i} { $c hset h:ht field:$i value:$i }
    for {set i 1} {$i <= 60} {incr i} { $c xadd x:s $i-1 f $i }
    $c xgroup create x:s grp 0
    $c pexpireat l:ql 4102444800000
    $c pexpireat z:sl 4102444800001
    $c pexpireat s:emb 4102444800002
    $c pexpireat s:raw 4102444800003
    $c select 3
    $c set other:db v
    $c pexpireat other:db 4102444800004
    $c select 9
}

start_server {tags {"memefficiency needs:debug rdma:skip:big-data"} overrides {enable-debug-command yes}} {
    start_server {tags {"memefficiency needs:debug"} overrides {enable-debug-command yes
            list-max-listpack-size 4 stream-node-max-entries 4 active-defrag-max-scan-fields 20
            active-defrag-cycle-min 1 active-defrag-cycle-max 1 hz 100}} {
        set shadow [vk_client -1]
        r select 9
        $shadow select 9
        # Runs a batch of commands on both servers.
        proc both {shadow cmds} {
            r_pipeline $cmds
            foreach c $cmds { $shadow {*}$c }
        }

        test "DEFRAG-MOVE-ALL moves every block of every type while clients write, digests agree" {
            fill_every_encoding r
            fill_every_encoding $shadow
            set cmds {}
            for {set i 0} {$i < 800} {incr i} {
                lappend cmds [list sadd big:set m:$i] [list hset big:hash f:$i v:$i] \
                    [list zadd big:zset $i m:$i] [list rpush big:list e:$i] [list xadd big:stream $i-1 f $i] \
                    [list set k:$i [string repeat v [expr {$i % 70}]]] [list set t:$i $i pxat [expr {4102444800000 + $i}]]
            }
            both $shadow $cmds
            assert_equal [$shadow debug digest] [r debug digest]

            r debug defrag-move-all 1
            r config set activedefrag yes
            wait_for_condition 100 20 {[defrag_field active_defrag_running] > 0} {
                fail "DEFRAG-MOVE-ALL did not start a pass"
            }
            # Change big values (also the one being done a part at a
            # time), delete and recreate keys, while the pass goes on.
            set round 0
            while {[defrag_field active_defrag_running] > 0 && $round < 400} {
                set i [expr {$round % 800}]
                both $shadow [list [list srem big:set m:$i] [list sadd big:set n:$round] \
                                  [list hdel big:hash f:$i] [list hset big:hash g:$round x] \
                                  [list zrem big:zset m:$i] [list zadd big:zset -$round n:$round] \
                                  [list lpop big:list] [list rpush big:list r:$round] \
                                  [list xadd big:stream [expr {1000 + $round}]-1 f $round] \
                                  [list del k:$i] [list set k:$i new$round] [list persist t:$i] \
                                  [list pexpireat t:[expr {($i + 1) % 800}] 4102444900000]]
                incr round
            }
            wait_defrag_idle 0
            assert {$round > 0} "the pass ended before any write came between its slices"
            assert {[defrag_field active_defrag_hits] > 3000}
            assert_equal 0 [defrag_field active_defrag_misses]
            # A pass at 1% of the CPU spans many ticks: its time is counted.
            assert {[defrag_field total_active_defrag_time] > 0}
            assert_equal 0 [defrag_field current_active_defrag_time]
            assert_equal [$shadow debug digest] [r debug digest]
            # Backward walks too (back links of moved nodes).
            foreach cmd {{xrevrange big:stream + -} {xrevrange x:s + -} {zrevrange big:zset 0 -1 withscores}
                         {zrevrange z:sl 0 -1} {lrange big:list -300 -1} {lrange l:ql -150 -1}} {
                assert_equal [$shadow {*}$cmd] [r {*}$cmd] $cmd
            }
            # One pass only: the flag is spent.
            set hits [defrag_field active_defrag_hits]
            after 300
            assert_equal 0 [defrag_field active_defrag_running]
            assert_equal $hits [defrag_field active_defrag_hits]
        }

        test "activedefrag no stops a pass in the middle" {
            set cmds {}
            for {set i 0} {$i < 30000} {incr i} { lappend cmds [list set many:$i $i] }
            both $shadow $cmds
            set before [defrag_field active_defrag_hits]
            r debug defrag-move-all 1
            r config set activedefrag yes
            wait_for_condition 100 20 {[defrag_field active_defrag_running] > 0} { fail "no pass started" }
            r config set activedefrag no
            wait_for_condition 100 20 {[defrag_field active_defrag_running] == 0} { fail "the pass did not stop" }
            set hits [defrag_field active_defrag_hits]
            # At 1% of the CPU a whole pass (over 30,000 keys) takes
            # seconds: this one was stopped early, and stays stopped.
            assert {$hits - $before < 30000} "moved [expr {$hits - $before}] blocks"
            after 300
            assert_equal $hits [defrag_field active_defrag_hits]
            r debug defrag-move-all 0
            assert_equal [$shadow debug digest] [r debug digest]
        }
    }
}

start_server {tags {"memefficiency needs:debug"} overrides {enable-debug-command yes}} {
    test "No block moves while a fork child runs" {
        # A child that takes about a second: 50 keys, 20 ms each.
        for {set i 0} {$i < 50} {incr i} { r set key:$i $i }
        set digest [r debug digest]
        r config set rdb-key-save-delay 20000
        r bgsave
        wait_for_condition 100 20 {[defrag_field rdb_bgsave_in_progress] == 1} { fail "no child" }
        set hits [defrag_field active_defrag_hits]
        r debug defrag-move-all 1
        r config set activedefrag yes
        after 300
        assert_equal 1 [defrag_field rdb_bgsave_in_progress]
        assert_equal $hits [defrag_field active_defrag_hits]
        # Once the child is gone, the armed pass runs.
        wait_for_condition 200 50 {[defrag_field rdb_bgsave_in_progress] == 0} { fail "the child did not end" }
        wait_defrag_idle $hits
        r config set activedefrag no
        assert_equal $digest [r debug digest]
    }
}
