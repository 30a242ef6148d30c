# Keyspace commands: existence, deletion, renaming, iteration, databases,
# and OBJECT introspection.  Error texts are the exact ones Valkey/Redis
# reply, because clients match on them.

start_server {tags {"keyspace"}} {
    test "DEL removes keys and counts only existing ones" {
        r flushdb
        r set a 1
        r set b 2
        assert_equal 2 [r del a b c]
        assert_equal 0 [r exists a b]
        r del a
    } 0

    test "DEL of the same key twice counts it once" {
        r set a 1
        r del a a
    } 1

    test "UNLINK removes keys like DEL" {
        needs_commands rpush
        r set a 1
        r rpush list x y
        assert_equal 2 [r unlink a list nosuch]
        r exists a list
    } 0

    test "EXISTS counts duplicated arguments every time" {
        r flushdb
        r set foo bar
        assert_equal 1 [r exists foo]
        assert_equal 3 [r exists foo foo foo]
        assert_equal 2 [r exists foo nosuch foo]
        r exists nosuch
    } 0

    test "TYPE of every basic type and of a missing key" {
        needs_commands hset rpush sadd xadd zadd
        r flushdb
        r set s v
        r rpush l v
        r sadd st v
        r zadd z 1 v
        r hset h f v
        r xadd x * f v
        list [r type s] [r type l] [r type st] [r type z] [r type h] [r type x] [r type nosuch]
    } {string list set zset hash stream none}

    test "assert_type helper agrees with TYPE" {
        r set s v
        assert_type string s
        assert_type none nosuch
    }

    test "RENAME moves value and TTL" {
        r flushdb
        r set src v
        r expire src 100
        assert_equal OK [r rename src dst]
        assert_equal 0 [r exists src]
        assert_equal v [r get dst]
        assert_range [r ttl dst] 90 100
    }

    test "RENAME overwrites an existing destination of any type" {
        needs_commands rpush
        r del dst
        r set src v
        r rpush dst a b
        r rename src dst
        list [r type dst] [r get dst]
    } {string v}

    test "RENAME of a missing key is an error" {
        r flushdb
        assert_error "ERR no such key" {r rename nosuch x}
    }

    test "RENAME of a key onto itself keeps it" {
        r set same v
        assert_equal OK [r rename same same]
        r get same
    } v

    test "RENAME onto itself of a missing key is still 'no such key'" {
        assert_error "ERR no such key" {r rename nosuch nosuch}
    }

    test "RENAMENX only renames onto a missing key" {
        r flushdb
        r set a 1
        r set b 2
        assert_equal 0 [r renamenx a b]
        assert_equal 1 [r get a]
        assert_equal 1 [r renamenx a c]
        list [r exists a] [r get c]
    } {0 1}

    test "RENAMENX of a key onto itself replies 0" {
        r set a 1
        r renamenx a a
    } 0

    test "RENAMENX of a missing key is an error" {
        assert_error "ERR no such key" {r renamenx nosuch x}
    }

    test {KEYS with *, ?, [] and escaped patterns} {
        r flushdb
        foreach k {foo fao fbo fooo bar b*r} { r set $k 1 }
        assert_equal {b*r bar fao fbo foo fooo} [lsort [r keys *]]
        assert_equal {fao fbo foo} [lsort [r keys f?o]]
        assert_equal {fao foo} [lsort [r keys {f[ao]o}]]
        assert_equal {fbo} [lsort [r keys {f[^ao]o}]]
        assert_equal {b*r} [r keys {b\*r}]
        assert_equal {} [r keys nomatch*]
    }

    test "KEYS and SCAN MATCH give up on patterns of more than 1000 runs of '*', as Valkey" {
        r flushdb
        set key [string repeat a 1001]
        r set $key 1
        r set "" empty
        # "*a" x 1000 plus "a": 1000 runs, still a match; one run more is not.
        set p1000 "[string repeat *a 1000]a"
        set p1001 "[string repeat *a 1001]"
        assert_equal [list $key] [r keys $p1000]
        assert_equal {} [r keys $p1001]
        assert_equal [list $key] [lindex [r scan 0 match $p1000 count 1000] 1]
        assert_equal {} [lindex [r scan 0 match $p1001 count 1000] 1]
        # A long run of '*' is one run, and a final run does not count.
        assert_equal [list $key] [r keys "[string repeat * 5000]a"]
        assert_equal [list $key] [r keys "[string repeat a* 1001]"]
        # An empty key: "*" alone means every key, other patterns need a byte.
        assert_equal 2 [llength [r keys *]]
        assert_equal [list $key] [r keys **]
        assert_equal [list $key] [lindex [r scan 0 match ** count 1000] 1]
    }

    test "SCAN COUNT of LONG_MAX" {
        r flushdb
        foreach k {a b c} { r set $k 1 }
        set reply [r scan 0 count 9223372036854775807]
        list [lindex $reply 0] [lsort [lindex $reply 1]]
    } {0 {a b c}}

    test "KEYS only sees the selected database" {
        r flushall
        r select 1
        r set only1 x
        set keys [r keys *]
        r select 0
        list $keys [r keys *]
    } {only1 {}}

    test "DBSIZE counts keys of the selected database" {
        r flushall
        for {set i 0} {$i < 10} {incr i} { r set k$i $i }
        r select 2
        r set other 1
        set n2 [r dbsize]
        r select 0
        list [r dbsize] $n2
    } {10 1}

    test "SCAN visits every key exactly once when nothing changes" {
        r flushdb
        for {set i 0} {$i < 1000} {incr i} { r set key:$i $i }
        set cursor 0
        set seen {}
        set rounds 0
        while 1 {
            lassign [r scan $cursor] cursor keys
            lappend seen {*}$keys
            incr rounds
            if {$cursor == 0} break
        }
        assert {$rounds > 1}
        assert_equal 1000 [llength $seen]
        assert_equal 1000 [llength [lsort -unique $seen]]
        set expected {}
        for {set i 0} {$i < 1000} {incr i} { lappend expected key:$i }
        assert_equal [lsort $expected] [lsort $seen]
    }

    test "SCAN MATCH filters keys" {
        r flushdb
        for {set i 0} {$i < 100} {incr i} { r set key:$i $i; r set other:$i $i }
        set cursor 0
        set seen {}
        while 1 {
            lassign [r scan $cursor match key:* count 10] cursor keys
            lappend seen {*}$keys
            if {$cursor == 0} break
        }
        assert_equal 100 [llength [lsort -unique $seen]]
        foreach k $seen { assert_match key:* $k }
    }

    test "SCAN COUNT bigger than the keyspace returns everything at once" {
        r flushdb
        for {set i 0} {$i < 50} {incr i} { r set k$i $i }
        lassign [r scan 0 count 1000] cursor keys
        list $cursor [llength $keys]
    } {0 50}

    test "SCAN TYPE returns only keys of that type" {
        needs_commands rpush sadd
        r flushdb
        for {set i 0} {$i < 20} {incr i} {
            r set s$i v
            r rpush l$i v
            r sadd st$i v
        }
        set cursor 0
        set seen {}
        while 1 {
            lassign [r scan $cursor type list count 7] cursor keys
            lappend seen {*}$keys
            if {$cursor == 0} break
        }
        assert_equal 20 [llength [lsort -unique $seen]]
        foreach k $seen { assert_match l* $k }
    }

    test "SCAN argument errors" {
        assert_error "ERR invalid cursor" {r scan abc}
        assert_error "ERR syntax error" {r scan 0 count 0}
        assert_error "ERR value is not an integer*" {r scan 0 count x}
        assert_error "ERR syntax error" {r scan 0 foo}
    }

    test "RANDOMKEY on an empty and a populated database" {
        r flushdb
        assert_equal {} [r randomkey]
        r set a 1
        r set b 2
        set seen {}
        for {set i 0} {$i < 100} {incr i} { lappend seen [r randomkey] }
        lsort -unique $seen
    } {a b}

    test "TOUCH counts existing keys and resets idle time" {
        r flushdb
        r set a 1
        r set b 2
        r touch a b nosuch
    } 2

    test "SELECT out of range and not a number" {
        assert_error "ERR DB index is out of range" {r select 16}
        assert_error "ERR DB index is out of range" {r select -1}
        assert_error "ERR value is not an integer or out of range" {r select abc}
        r select 15
        r select 0
    } OK

    test "SWAPDB swaps whole databases" {
        r flushall
        r set in0 a
        r select 1
        r set in1 b
        r select 0
        assert_equal OK [r swapdb 0 1]
        set now0 [r keys *]
        r select 1
        set now1 [r keys *]
        r select 0
        list $now0 $now1
    } {in1 in0}

    test "SWAPDB errors" {
        assert_error "ERR DB index is out of range" {r swapdb 0 16}
        assert_error "ERR invalid first DB index" {r swapdb x 0}
        assert_error "ERR invalid second DB index" {r swapdb 0 x}
    }

    test "MOVE to another database" {
        r flushall
        r set mykey v
        assert_equal 1 [r move mykey 1]
        assert_equal 0 [r exists mykey]
        r select 1
        set v [r get mykey]
        r select 0
        set v
    } v

    test "MOVE does not overwrite and fails on a missing key" {
        r flushall
        r set k here
        r select 1
        r set k there
        r select 0
        assert_equal 0 [r move k 1]
        assert_equal 0 [r move nosuch 1]
        r get k
    } here

    test "MOVE errors" {
        r set k v
        assert_error "ERR source and destination objects are the same" {r move k 0}
        assert_error "ERR DB index is out of range" {r move k 16}
    }

    test "COPY to a new key, to an existing key and with REPLACE" {
        r flushall
        r set src v1
        r set dst old
        assert_equal 1 [r copy src new]
        assert_equal 0 [r copy src dst]
        assert_equal old [r get dst]
        assert_equal 1 [r copy src dst replace]
        list [r get new] [r get dst] [r get src]
    } {v1 v1 v1}

    test "COPY of a missing key replies 0" {
        r copy nosuch x
    } 0

    test "COPY to another DB keeps the TTL" {
        r flushall
        r set src v
        r expire src 1000
        assert_equal 1 [r copy src src db 3]
        r select 3
        set v [r get src]
        set ttl [r ttl src]
        r select 0
        assert_range $ttl 990 1000
        set v
    } v

    test "COPY of a collection is a deep copy" {
        needs_commands lrange rpush
        r flushall
        r rpush l a b c
        r copy l l2
        r rpush l d
        list [r lrange l 0 -1] [r lrange l2 0 -1]
    } {{a b c d} {a b c}}

    test "COPY errors" {
        r set k v
        assert_error "ERR source and destination objects are the same" {r copy k k}
        assert_error "ERR syntax error" {r copy k x foo}
        assert_error "ERR DB index is out of range" {r copy k x db 99}
    }

    test "FLUSHDB only empties the selected database" {
        r flushall
        r set a 1
        r select 1
        r set b 2
        r flushdb
        set n1 [r dbsize]
        r select 0
        list $n1 [r dbsize]
    } {0 1}

    test "FLUSHDB and FLUSHALL with ASYNC and SYNC" {
        for {set i 0} {$i < 100} {incr i} { r set k$i $i }
        assert_equal OK [r flushdb async]
        assert_equal 0 [r dbsize]
        r set a 1
        assert_equal OK [r flushdb sync]
        r set a 1
        r select 1
        r set b 1
        assert_equal OK [r flushall async]
        assert_equal 0 [r dbsize]
        r select 0
        assert_equal 0 [r dbsize]
        r set a 1
        assert_equal OK [r flushall sync]
        r dbsize
    } 0

    test "FLUSHALL with a bad option" {
        assert_error "ERR syntax error" {r flushall foo}
    }

    test "OBJECT ENCODING of strings: int, embstr, raw" {
        r flushall
        r set n 12345
        r set e hello
        r set raw [string repeat x 100]
        assert_encoding int n
        assert_encoding embstr e
        assert_encoding raw raw
        # Appending turns any string into a raw one.
        r set e2 hello
        r append e2 x
        assert_encoding raw e2
    }

    test "OBJECT ENCODING of a missing key is nil" {
        r object encoding nosuch
    } {}

    # A value in the keyspace carries its key, so it is never a shared
    # object (as in Valkey 8; Redis 7.0 reports INT_MAX for small integers).
    tags {valkey-only} {
        test "OBJECT REFCOUNT is 1 for a small integer and for a plain string" {
            r set small 100
            r set str [string repeat y 60]
            list [r object refcount small] [r object refcount str]
        } {1 1}
    }

    test "OBJECT IDLETIME is small right after access" {
        r set k v
        r get k
        assert_range [r object idletime k] 0 2
    }

    test "OBJECT FREQ is refused without an LFU policy" {
        r set k v
        assert_error "ERR An LFU maxmemory policy is not selected, access frequency not tracked.*" {r object freq k}
    }

    test "OBJECT IDLETIME and FREQ of a missing key are nil" {
        list [r object idletime nosuch] [r object freq nosuch]
    } {{} {}}
}

start_server {tags {"keyspace"} overrides {maxmemory-policy allkeys-lfu}} {
    test "OBJECT FREQ works under allkeys-lfu" {
        r set k v
        for {set i 0} {$i < 20} {incr i} { r get k }
        assert_range [r object freq k] 1 255
    }

    test "OBJECT IDLETIME is refused under an LFU policy" {
        r set k v
        assert_error "ERR An LFU maxmemory policy is selected, idle time not tracked.*" {r object idletime k}
    }
}

start_server {tags {"keyspace"}} {
    test "With maxmemory and an LRU or LFU policy integers are not shared" {
        r config set maxmemory 1gb
        r config set maxmemory-policy allkeys-lru
        r set a 1
        r config set maxmemory-policy volatile-lfu
        r set b 1
        set got [list [r object refcount a] [r object refcount b] [r object freq b]]
        r config set maxmemory 0
        r config set maxmemory-policy noeviction
        set got
    } {1 1 5}

    # Redis 7.0 keeps such values shared.
    tags {valkey-only} {
        test "Small integers are not shared in the keyspace, with or without an LRU or LFU policy" {
            r set a 1
            r incr a
            assert_equal 1 [r object refcount a]
            r config set maxmemory 1gb
            r config set maxmemory-policy allkeys-lfu
            r set b 1
            assert_equal 1 [r get b]
            assert_equal 1 [r object refcount b]
            assert_range [r object freq b] 5 6
            r config set maxmemory 0
            r config set maxmemory-policy noeviction
        }
    }
}
