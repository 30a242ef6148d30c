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
            # A new key (b is left by the test before: SET over it would
            # keep, and touch, its LFU counter, as Valkey does).
            r del b
            r set b 1
            assert_equal 1 [r get b]
            assert_equal 1 [r object refcount b]
            # 5 or 6; 4 when a minute boundary passed (LFU decay counts minutes).
            assert_range [r object freq b] 4 6
            r config set maxmemory 0
            r config set maxmemory-policy noeviction
        }
    }
}

# The keyspace is a hashtable.c table whose entries are the values, each
# carrying its key and (when it has one) its expire time: setting a TTL on
# a key without an expire slot moves the value to a new allocation.
start_server {tags {"keyspace"}} {
    test "SCAN of a keyspace growing and shrinking returns every key present throughout" {
        r flushdb
        r_pipeline [lmap i [lrange [lsearch -all [lrepeat 500 x] x] 0 end] {list set stable:$i v}]
        set seen [dict create]
        set cursor 0
        set step 0
        while 1 {
            lassign [r scan $cursor count 10] cursor keys
            foreach k $keys { dict set seen $k 1 }
            incr step
            if {$step <= 8} {
                # Grow: 500 more keys per step (the table doubles a few times).
                r_pipeline [lmap i [lsearch -all [lrepeat 500 x] x] {list set tmp:$step:$i v}]
            } elseif {$step <= 16} {
                # Shrink: the same keys go away again.
                set batch [expr {$step - 8}]
                r_pipeline [lmap i [lsearch -all [lrepeat 500 x] x] {list del tmp:$batch:$i}]
            }
            if {$cursor == 0} break
        }
        assert {$step > 16}
        assert_equal 500 [r dbsize]
        set missing {}
        for {set i 0} {$i < 500} {incr i} {
            if {![dict exists $seen stable:$i]} { lappend missing stable:$i }
        }
        assert_equal {} $missing
    }

    test "A value keeps its contents across TTL set, removed and set again" {
        r flushdb
        r set emb [string repeat e 16]
        r set raw [string repeat r 100]
        r set int 123456
        r rpush list a b c
        foreach k {emb raw int list} {
            assert_equal 1 [r expire $k 100]
            assert_equal 1 [r persist $k]
            assert_equal 1 [r pexpire $k 200000]
            assert_range [r ttl $k] 190 200
        }
        assert_equal [string repeat e 16] [r get emb]
        assert_equal [string repeat r 100] [r get raw]
        assert_equal 123456 [r get int]
        assert_equal {a b c} [r lrange list 0 -1]
        assert_equal {embstr raw int} [list [r object encoding emb] [r object encoding raw] [r object encoding int]]
        # The value moved, its key did not: the key is found under its name.
        assert_equal 4 [r exists emb raw int list]
        assert_equal {0 {}} [r scan 0 match nosuch* count 1000]
        assert_equal [lsort {emb raw int list}] [lsort [r keys *]]
    }

    test "TTL changes inside MULTI/EXEC and a script see the same value" {
        r flushdb
        r multi
        r set m hello
        r expire m 100
        r get m
        r append m !
        r persist m
        r expire m 50
        r get m
        r ttl m
        assert_equal {OK 1 hello 6 1 1 hello! 50} [r exec]
        set script {
            redis.call('set', KEYS[1], 'x')
            redis.call('pexpire', KEYS[1], 100000)
            local a = redis.call('get', KEYS[1])
            redis.call('persist', KEYS[1])
            redis.call('append', KEYS[1], 'y')
            redis.call('expire', KEYS[1], 50)
            return {a, redis.call('get', KEYS[1]), redis.call('ttl', KEYS[1])}
        }
        assert_equal {x xy 50} [r eval $script 1 luak]
    }

    test "WATCH: a TTL change (which moves the value) touches the key, a read does not" {
        r flushdb
        r set w val
        r watch w
        set c [vk_client]
        $c expire w 100
        r multi
        r get w
        assert_equal {} [r exec]
        r watch w
        $c get w
        $c ttl w
        r multi
        r get w
        assert_equal {val} [r exec]
        $c close
    }

    test "RENAME and MOVE carry the value and its TTL" {
        r flushdb
        r set a [string repeat a 20] px 100000
        r rename a b
        assert_equal [string repeat a 20] [r get b]
        assert_range [r pttl b] 90000 100000
        r move b 9
        r select 9
        assert_equal [string repeat a 20] [r get b]
        assert_range [r pttl b] 90000 100000
        r flushdb
        r select 9
    }
}

start_server {tags {"keyspace"}} {
    # CLIENT NO-TOUCH is Valkey 8 / Redis 7.2.
    tags {valkey-only} {
        test "OBJECT IDLETIME is kept when a TTL change moves the value" {
            r flushdb
            r set k [string repeat v 16]
            set payload [r dump k]
            r del k
            r restore k 0 $payload idletime 1000
            r client no-touch on
            r expire k 100
            r persist k
            r pexpire k 200000
            set idle [r object idletime k]
            r client no-touch off
            assert_range $idle 1000 1010
        }
    }
}

start_server {tags {"keyspace"} overrides {maxmemory-policy allkeys-lfu}} {
    # CLIENT NO-TOUCH is Valkey 8 / Redis 7.2.
    tags {valkey-only} {
        test "OBJECT FREQ is kept when a TTL change moves the value" {
            r flushdb
            r set k [string repeat v 16]
            set payload [r dump k]
            r del k
            r restore k 0 $payload freq 100
            r client no-touch on
            r expire k 100
            r persist k
            r pexpire k 200000
            set freq [r object freq k]
            r client no-touch off
            assert_equal 100 $freq
        }
    }
}

# Memory per key with the key inside its value (Redis 7.0 needs about 90
# bytes here, a dict entry plus a value object).
start_server {tags {"keyspace needs:debug"} overrides {enable-debug-command yes}} {
    tags {valkey-only} {
        test "Memory per key: under 80 bytes for 100k keys with 16-byte values" {
            r flushall
            regexp {used_memory:(\d+)} [r info memory] -> before
            r debug populate 100000 key 16
            regexp {used_memory:(\d+)} [r info memory] -> after
            set per [expr {($after - $before) / 100000.0}]
            assert_equal 100000 [r dbsize]
            assert {$per < 80} "$per bytes per key"
            r flushall
        }
    }
}

# A big SET value moves into the keyspace: the keyspace entry takes the
# argument's bytes instead of a copy of them, so the memory peak of the
# command is one value, not two.
start_server {tags {"keyspace"}} {
    tags {valkey-only} {
        test "SET of a big value keeps one copy of it (used_memory_peak)" {
            r flushall
            set big [string repeat x 20000000]
            foreach ex {{} {EX 1000}} {
                r del k
                regexp {used_memory:(\d+)} [r info memory] -> before
                r config resetstat
                r set k $big {*}$ex
                regexp {used_memory_peak:(\d+)} [r info memory] -> peak
                assert_equal 20000000 [r strlen k]
                set extra [expr {$peak - $before}]
                assert {$extra < 30000000} "peak $extra bytes above the start for a 20 MB SET $ex"
            }
            r flushall
        }
    }
}

# A long string SET over a long (or integer) string that only the keyspace
# holds moves the new bytes into the existing entry instead of making a new
# one: the entry (DEBUG OBJECT's address) stays; the value, the TTL rules
# and the replies are those of any SET.
start_server {tags {"keyspace needs:debug"} overrides {enable-debug-command yes}} {
    tags {valkey-only} {
        test "SET of a long string over a long or integer string keeps the entry" {
            r flushall
            set a [string repeat a 100]
            set b [string repeat b 200]
            foreach first [list $a 12345678901] {
                r set k $first
                regexp {Value at:(0x[0-9a-f]+)} [r debug object k] -> before
                r set k $b
                regexp {Value at:(0x[0-9a-f]+)} [r debug object k] -> after
                assert_equal $before $after
                assert_equal $b [r get k]
                assert_equal raw [r object encoding k]
            }
            # SET drops the TTL, KEEPTTL keeps it; SET ... GET answers the old value.
            r set k $a EX 100
            r set k $b
            assert_equal -1 [r ttl k]
            r set k $a EX 100
            r set k $b KEEPTTL
            assert_range [r ttl k] 90 100
            assert_equal $b [r set k $a GET]
            assert_equal $a [r get k]
            # Twice in one transaction.
            r multi
            r set k $b
            r set k $a$b
            r exec
            assert_equal $a$b [r get k]
            assert_equal [string length $a$b] [r strlen k]
        }
    }
}

# SCAN ... TYPE in Valkey 8: a type name that names no type is an error
# (Redis 7.0 returned nothing), and the filter looks at a key's type before
# its TTL, so expired keys of other types are left for the expiry cycle.
start_server {tags {"keyspace needs:debug"} overrides {enable-debug-command yes}} {
    tags {valkey-only} {
        test "SCAN TYPE with an unknown type name is an error" {
            r flushall
            r set s v
            assert_error "ERR unknown type name 'string1'" {r scan 0 type string1}
            assert_error "ERR unknown type name 'none'" {r scan 0 type none}
            assert_error "ERR unknown type name ''" {r scan 0 type ""}
            # The last TYPE given counts, and every one is checked.
            assert_error "ERR unknown type name 'bogus'" {r scan 0 type string type bogus}
            # Names are case-insensitive.
            assert_equal {0 s} [r scan 0 type STRING]
        }

        test "SCAN TYPE expires only keys of the type it looks for" {
            r flushall
            r debug set-active-expire 0
            r set s1 v
            r set s2 v PX 1
            r hset h f v
            r pexpire h 1
            after 20
            assert_error "ERR unknown type name*" {r scan 0 type nosuchtype}
            assert_equal 3 [r dbsize]
            assert_equal {0 s1} [r scan 0 type string count 100]
            # The expired string went, the expired hash stayed...
            assert_equal 2 [r dbsize]
            # ...until a scan for hashes meets it.
            assert_equal {0 {}} [r scan 0 type hash count 100]
            assert_equal 1 [r dbsize]
            r debug set-active-expire 1
        } {OK}
    }
}
