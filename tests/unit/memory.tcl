# OBJECT (how a value is stored) and MEMORY (what it costs).

# The value of a field of INFO memory.
proc info_field_memory {name} {
    regexp "\r\n$name:(\[^\r\]*)\r\n" [r info memory] -> v
    return $v
}

proc memory_used {} {
    regexp {used_memory:(\d+)} [r info memory] -> used
    return $used
}

start_server {tags {"memory"}} {
    test "OBJECT ENCODING of strings: int, embstr, raw" {
        r set n 12345
        r set short hello
        r set long [string repeat x 100]
        assert_equal int [r object encoding n]
        assert_equal embstr [r object encoding short]
        assert_equal raw [r object encoding long]
        r append short " world"
        assert_equal raw [r object encoding short]
    }

    test "OBJECT ENCODING of a missing key is a null reply" {
        assert_equal "" [r object encoding nosuchkey]
        assert_equal "" [r object refcount nosuchkey]
        assert_equal "" [r object idletime nosuchkey]
    }

    # Keyspace values carry their key and are never shared (Valkey 8;
    # Redis 7.0 shares small integers and reports INT_MAX).
    tags {valkey-only} {
        test "OBJECT REFCOUNT: small integers and plain values have one owner" {
            r set small 100
            r set s abc
            assert_equal 1 [r object refcount small]
            assert_equal 1 [r object refcount s]
        }
    }

    test "OBJECT IDLETIME grows while the key is not used, and a read resets it" {
        # The LRU clock counts whole seconds: a command a few ms after the
        # access may already see the next tick (1), never 2 (seen in the
        # emulated RDMA VM, where a round trip takes milliseconds).
        r set idle v
        assert_range [r object idletime idle] 0 1
        after 2100
        assert {[r object idletime idle] >= 2}
        # OBJECT itself does not count as a use.
        assert {[r object idletime idle] >= 2}
        r get idle
        assert_range [r object idletime idle] 0 1
    }

    test "OBJECT FREQ needs an LFU policy" {
        r set f v
        assert_error "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust." {r object freq f}
    }

    test "OBJECT FREQ with an LFU policy; IDLETIME is then refused" {
        r config set maxmemory-policy allkeys-lfu
        r set f v
        set before [r object freq f]
        assert {$before >= 0}
        for {set i 0} {$i < 200} {incr i} { r get f }
        assert {[r object freq f] > $before}
        assert_error "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust." {r object idletime f}
        r config set maxmemory-policy noeviction
    }

    test "OBJECT HELP" {
        set help [r object help]
        assert_match "OBJECT <subcommand> *" [lindex $help 0]
        assert_match "*ENCODING <key>*" $help
        assert_match "*FREQ <key>*" $help
        assert_match "*IDLETIME <key>*" $help
        assert_match "*REFCOUNT <key>*" $help
        assert_equal "    Prints this help." [lindex $help end]
    }

    test "OBJECT errors" {
        assert_error "ERR unknown subcommand 'foo'. Try OBJECT HELP." {r object foo k}
        assert_error "ERR wrong number of arguments for 'object|encoding' command" {r object encoding}
        assert_error "ERR wrong number of arguments for 'object|encoding' command" {r object encoding a b}
        assert_error "ERR wrong number of arguments for 'object' command" {r object}
    }

    test "MEMORY USAGE grows with the size of the value" {
        r set m [string repeat a 10]
        set small [r memory usage m]
        r set m [string repeat a 10000]
        set big [r memory usage m]
        assert {$small > 10}
        assert {$big >= 10000}
        assert {$big - $small >= 9000}
        assert {$big < 20000}
    }

    test "MEMORY USAGE: a 16-byte key with a 16-byte value is one 48-byte block" {
        # header 8 + value (sdshdr8, 16 bytes, NUL) 20 + key (size byte,
        # sds5 header, 16 bytes, NUL) 19 = 47 bytes, no value pointer, plus
        # about 10 bytes of hashtable slot.
        r set key:000000000001 [string repeat v 16]
        assert_encoding embstr key:000000000001
        assert_equal 16 [string length key:000000000001]
        assert_range [r memory usage key:000000000001] 40 58
        # Values that keep the size class are overwritten in place: the key
        # that follows the value moves with it.
        foreach len {10 17 12 16} {
            r set key:000000000001 [string repeat x $len]
            assert_equal [string repeat x $len] [r get key:000000000001]
            assert_equal 1 [r exists key:000000000001]
        }
        r expire key:000000000001 1000
        r set key:000000000001 [string repeat y 9] keepttl
        assert_equal [string repeat y 9] [r get key:000000000001]
        assert_range [r ttl key:000000000001] 990 1000
        assert_equal embstr [r object encoding key:000000000001]
    }

    test "MEMORY USAGE of a missing key is a null reply" {
        assert_equal "" [r memory usage nosuchkey]
    }

    test "MEMORY USAGE SAMPLES" {
        r set m v
        assert {[r memory usage m samples 0] > 0}
        assert {[r memory usage m samples 10] > 0}
        assert {[r memory usage m SAMPLES 5] > 0}
        assert_error "ERR syntax error" {r memory usage m samples}
        assert_error "ERR syntax error" {r memory usage m samples -1}
        assert_error "ERR syntax error" {r memory usage m foo 1}
        assert_error "ERR value is not an integer or out of range" {r memory usage m samples abc}
    }

    # 16000 members: a 16384-bucket table, 8 bytes of bucket per member.
    # A short member lives in one 32-byte dict entry (a set), an entry with
    # a pointer to its value's sds (a hash), or an entry plus a skiplist
    # node that borrows it (a sorted set); with separate member strings the
    # figures would be about 56, 72 and 110 bytes.
    # Our memory layout, not a behaviour: Redis 7.0 needs more (valkey-only skips it there).
    tags {valkey-only} {
        foreach {type maxper} {set 48 hash 64 zset 101} {
            test "A $type of 16000 short members costs less than $maxper bytes a member" {
                r flushall
                wait_lazyfree_done
                set before [memory_used]
                for {set i 0} {$i < 16000} {incr i 100} {
                    set args {}
                    for {set j $i} {$j < $i + 100} {incr j} {
                        switch $type {
                            set {lappend args [format m%07d $j]}
                            hash {lappend args [format f%07d $j] [format v%07d $j]}
                            zset {lappend args $j [format m%07d $j]}
                        }
                    }
                    switch $type {
                        set {r sadd big {*}$args}
                        hash {r hset big {*}$args}
                        zset {r zadd big {*}$args}
                    }
                }
                set used [expr {[memory_used] - $before}]
                assert_equal [expr {$type eq "zset" ? "skiplist" : "hashtable"}] [r object encoding big]
                assert {$used / 16000.0 < $maxper} "$used bytes for 16000 members"
                # MEMORY USAGE counts the same things, within a quarter.
                set usage [r memory usage big samples 0]
                assert {$usage > $used * 0.75 && $usage < $used * 1.25} "MEMORY USAGE $usage, used_memory grew $used"
                assert {[r memory usage big] > $used * 0.5}
                r flushall
            }
        }
    }

    test "MEMORY STATS has the documented fields" {
        r flushall
        r set a 1
        r set b 2
        r select 3
        r set c 3
        r select 0
        set stats [r memory stats]
        foreach field {peak.allocated total.allocated startup.allocated replication.backlog
                       clients.slaves clients.normal aof.buffer lua.caches overhead.total
                       keys.count keys.bytes-per-key dataset.bytes dataset.percentage peak.percentage
                       allocator.allocated allocator.active allocator.resident
                       allocator-fragmentation.ratio allocator-fragmentation.bytes
                       allocator-rss.ratio allocator-rss.bytes rss-overhead.ratio rss-overhead.bytes
                       fragmentation fragmentation.bytes functions.caches} {
            assert {[dict exists $stats $field]} "no $field in MEMORY STATS"
        }
        assert_equal 3 [dict get $stats keys.count]
        assert {[dict exists $stats db.0]}
        assert {[dict exists $stats db.3]}
        assert {![dict exists $stats db.1]}
        assert {[dict exists [dict get $stats db.0] overhead.hashtable.main]}
        assert {[dict exists [dict get $stats db.0] overhead.hashtable.expires]}
        assert {[dict get $stats total.allocated] > 0}
        assert {[dict get $stats peak.allocated] >= [dict get $stats total.allocated]}
        assert {[dict get $stats clients.normal] > 0}
    }

    test "MEMORY STATS lists Valkey 8's fields in Valkey 8's order" {
        r flushall
        r set a 1
        set names {}
        foreach {k v} [r memory stats] { lappend names $k }
        assert_equal [join {peak.allocated total.allocated startup.allocated replication.backlog clients.slaves
            clients.normal cluster.links aof.buffer lua.caches functions.caches db.0 overhead.db.hashtable.lut
            overhead.db.hashtable.rehashing overhead.total db.dict.rehashing.count keys.count keys.bytes-per-key
            dataset.bytes dataset.percentage peak.percentage allocator.allocated allocator.active
            allocator.resident allocator.muzzy allocator-fragmentation.ratio allocator-fragmentation.bytes
            allocator-rss.ratio allocator-rss.bytes rss-overhead.ratio rss-overhead.bytes fragmentation
            fragmentation.bytes} " "] [join $names " "]
    }

    test "MEMORY STATS overhead.db.hashtable.lut counts every database's bucket arrays" {
        r flushall
        set empty [dict get [r memory stats] overhead.db.hashtable.lut]
        for {set i 0} {$i < 1000} {incr i} { r set k$i v }
        set lut [dict get [r memory stats] overhead.db.hashtable.lut]
        # 1000 keys need at least 1024 buckets of one pointer each.
        assert {$lut >= $empty + 1024 * 8}
        assert {[dict get [r memory stats] db.dict.rehashing.count] >= 0}
        assert_equal [dict get [r memory stats] overhead.db.hashtable.rehashing] \
            [info_field_memory mem_overhead_db_hashtable_rehashing]
        r flushall
    }

    test "Scripts and functions are counted in INFO memory and MEMORY STATS" {
        r script flush
        r function flush
        set info [r info memory]
        assert_match "*number_of_cached_scripts:0*" $info
        assert_match "*number_of_libraries:0*" $info
        set body "return 'a script of some length: [string repeat x 500]'"
        r script load $body
        r function load "#!lua name=memlib\nredis.register_function('memf', function() return 1 end)"
        set info [r info memory]
        assert_match "*number_of_cached_scripts:1\r*" $info
        assert_match "*number_of_functions:1\r*" $info
        assert_match "*number_of_libraries:1\r*" $info
        regexp {used_memory_scripts_eval:(\d+)} $info -> eval_cache
        regexp {used_memory_functions:(\d+)} $info -> fn_cache
        regexp {used_memory_scripts:(\d+)} $info -> scripts
        regexp {used_memory_vm_eval:(\d+)} $info -> vm_eval
        assert {$eval_cache >= [string length $body]}
        assert {$fn_cache > 0}
        assert_equal [expr {$eval_cache + $fn_cache}] $scripts
        assert {$vm_eval > 0}
        set stats [r memory stats]
        assert_equal $eval_cache [dict get $stats lua.caches]
        assert_equal $fn_cache [dict get $stats functions.caches]
        r script flush
        r function flush
        assert_match "*number_of_cached_scripts:0*" [r info memory]
    }

    test "MEMORY STATS dataset.bytes grows with the data" {
        r flushall
        wait_lazyfree_done
        set before [dict get [r memory stats] dataset.bytes]
        for {set i 0} {$i < 100} {incr i} { r set key:$i [string repeat v 1000] }
        set after [dict get [r memory stats] dataset.bytes]
        assert {$after - $before >= 100000}
        assert_equal 100 [dict get [r memory stats] keys.count]
    }

    test "MEMORY DOCTOR, MALLOC-STATS and PURGE" {
        assert {[string length [r memory doctor]] > 0}
        assert {[string length [r memory malloc-stats]] > 0}
        assert_equal OK [r memory purge]
    }

    tags {valkey-only} {
        test "MEMORY MALLOC-STATS is the allocator's own report" {
            assert_match "*jemalloc*" [r memory malloc-stats]
        }

        test "MEMORY DOCTOR reports a peak far above the memory in use" {
            r flushall
            # 30 MB of values, then keep a fifth of them: still more than
            # 5 MB in use, but the peak is five times that. Big values keep
            # the command count low (slow transports, the emulated VM).
            set value [string repeat x 100000]
            set sets {}
            set dels {}
            for {set i 0} {$i < 300} {incr i} {
                lappend sets [list set big:$i $value]
                if {$i % 5} { lappend dels big:$i }
            }
            r_pipeline $sets
            r del {*}$dels
            set report [r memory doctor]
            # The peak is recorded after every command, not only when the
            # cron happens to sample it.
            regexp {used_memory_peak:(\d+)} [r info memory] -> peak
            r flushall
            assert_match "*peak*" $report
            assert {$peak > 25000000}
        }
    }

    test "MEMORY HELP" {
        set help [r memory help]
        assert_match "MEMORY <subcommand> *" [lindex $help 0]
        foreach sub {DOCTOR MALLOC-STATS PURGE STATS USAGE} {
            assert_match "*$sub*" $help
        }
        assert_equal "    Prints this help." [lindex $help end]
    }

    test "MEMORY errors" {
        assert_error "ERR unknown subcommand 'foo'. Try MEMORY HELP." {r memory foo}
        assert_error "ERR wrong number of arguments for 'memory|usage' command" {r memory usage}
        assert_error "ERR wrong number of arguments for 'memory|stats' command" {r memory stats x}
        assert_error "ERR wrong number of arguments for 'memory' command" {r memory}
    }
}

# Per-key access data under maxmemory: LFU counters start at 5 (a new key
# is not the first to go), and an LRU or LFU policy gives every value,
# small integers included, its own clock instead of the shared integer
# objects 0..9999. Redis 7.0 behaves the same.
start_server {tags {"memory maxmemory"} log_allow {"*maxmemory value set via CONFIG SET*"}} {
    test "A new key starts with LFU counter 5; accesses raise it, an overwrite keeps it" {
        r config set maxmemory 1gb
        r config set maxmemory-policy allkeys-lfu
        r set f v
        r set n 10
        r incr fresh
        assert_equal 5 [r object freq f]
        assert_equal 5 [r object freq n]
        assert_equal 5 [r object freq fresh]
        for {set i 0} {$i < 300} {incr i} { r get f }
        set hot [r object freq f]
        assert {$hot > 5} "counter $hot after 300 reads"
        r set f v2
        assert_equal $hot [r object freq f]
        r incr n
        assert {[r object freq n] >= 5}
        r config set maxmemory-policy noeviction
        r config set maxmemory 0
    }

    test "Under an LRU policy small integer values each keep their own idle time" {
        r config set maxmemory 1gb
        r config set maxmemory-policy allkeys-lru
        r set a 100
        r set b 100
        r incr c
        after 2100
        r get a
        assert_range [r object idletime a] 0 1
        assert {[r object idletime b] >= 2}
        assert {[r object idletime c] >= 2}
        assert_equal 100 [r get b]
        r config set maxmemory-policy noeviction
        r config set maxmemory 0
    }
}
