# rdb-dataset.tcl -- a dataset holding every value type in every encoding
# an RDB file can carry, and a canonical dump of a dataset for comparing
# two servers that do not share DEBUG DIGEST (ours against redis-server).
# Sourced by tests/integration/rdb.tcl and rdb-interop.tcl.
#
# Both procs take the client to use as a command prefix: `r`, or a client
# object from ::vk::client_open / vk_client.

# Databases the dataset uses.
set ::rdb_dataset_dbs {0 1 9}

# Fills the databases of ::rdb_dataset_dbs (they should be empty).
proc rdb_fill_every_type {c} {
    $c select 0
    # Strings: plain, integers (the RDB's int encodings), compressible
    # (LZF), binary, and a float.
    $c set str:small hello
    $c set str:int8 -7
    $c set str:int16 12345
    $c set str:int32 -2000000000
    $c set str:int64 9000000000000000000
    $c set str:lzf [string repeat "abcdefgh" 1000]
    $c set str:bin "a\x00b\r\n\xff\x01"
    $c set str:float 3.14159
    $c set str:empty ""
    $c pfadd hll a b c d e f g
    # Lists: small (one listpack) and long (a quicklist of many nodes),
    # one element too big for a packed node.
    $c rpush list:small a b 1 2 -3 [string repeat x 40]
    for {set i 0} {$i < 600} {incr i} { $c rpush list:long "element-$i-[string repeat y [expr {$i % 37}]]" }
    $c rpush list:long [string repeat "big" 4000]
    # Sets: intset, small strings, a big hash table.
    $c sadd set:intset 1 2 3 -5 1000000 -70000
    $c sadd set:small a b c 17
    for {set i 0} {$i < 600} {incr i} { $c sadd set:big "member:$i" }
    # Sorted sets: small listpack and a skiplist with odd scores.
    $c zadd zset:small 1 a 2.5 b -3 c
    for {set i 0} {$i < 300} {incr i} { $c zadd zset:big [expr {$i * 1.5 - 100}] "m:$i" }
    $c zadd zset:big inf plus-inf -inf minus-inf 0.1 tenth 1e300 huge
    # Hashes: small listpack, big table, a value too long for a listpack.
    $c hset hash:small f1 v1 f2 22 f3 ""
    for {set i 0} {$i < 600} {incr i} { $c hset hash:big "field:$i" "value:$i" }
    $c hset hash:longval f [string repeat v 200]
    # Streams: entries (one deleted), a consumer group with a pending
    # entry, and an empty stream that only has a group.
    for {set i 1} {$i <= 5} {incr i} { $c xadd stream:s "$i-1" field $i other "v$i" }
    $c xdel stream:s 3-1
    $c xgroup create stream:s grp 0
    $c xreadgroup GROUP grp alice COUNT 2 STREAMS stream:s >
    $c xgroup create stream:empty g2 $ MKSTREAM
    # Expires: relative and absolute, far in the future.
    $c set exp:rel v
    $c expire exp:rel 100000
    $c hset exp:hash a 1
    $c pexpireat exp:hash 4102444800000
    # Other databases.
    $c select 1
    $c set db1:key one
    $c lpush db1:list x y z
    $c select 9
    $c sadd db9:set 7 8 9
    $c set db9:exp v
    $c pexpireat db9:exp 4102444800123
    $c select 0
}

# Returns a canonical text of the databases of ::rdb_dataset_dbs: per key
# its type, value (collections in a fixed order) and absolute expire time,
# so that two servers' dumps compare with assert_equal.
proc rdb_dataset_dump {c} {
    set out {}
    foreach db $::rdb_dataset_dbs {
        $c select $db
        foreach key [lsort [$c keys *]] {
            set type [$c type $key]
            switch -- $type {
                string { set val [$c get $key] }
                list   { set val [$c lrange $key 0 -1] }
                set    { set val [lsort [$c smembers $key]] }
                zset   {
                    # Scores as numbers: servers print doubles differently.
                    set val {}
                    foreach {m score} [$c zrange $key 0 -1 withscores] {
                        lappend val $m [expr {double($score)}]
                    }
                }
                hash   { set val [lsort -stride 2 [$c hgetall $key]] }
                stream { set val [rdb_stream_dump $c $key] }
                default { set val "?" }
            }
            lappend out [list $db $key $type [$c pexpiretime $key] $val]
        }
    }
    $c select 0
    return $out
}

# Entries, groups (name, consumers, pending, last delivered id) and the
# pending entries (id, consumer, deliveries) of a stream.
proc rdb_stream_dump {c key} {
    set out [list entries [$c xrange $key - +] length [$c xlen $key]]
    foreach g [$c xinfo groups $key] {
        set name [dict get $g name]
        lappend out group [list $name [dict get $g consumers] [dict get $g pending] \
                               [dict get $g last-delivered-id]]
        foreach p [$c xpending $key $name - + 100] {
            lappend out pending [list [lindex $p 0] [lindex $p 1] [lindex $p 3]]
        }
    }
    return $out
}

# Fails with the first differing key when two dumps differ (the dumps are
# too big to print whole).
proc assert_dumps_equal {expected actual} {
    if {$expected eq $actual} { return }
    set n [expr {max([llength $expected], [llength $actual])}]
    for {set i 0} {$i < $n} {incr i} {
        set e [lindex $expected $i]
        set a [lindex $actual $i]
        if {$e ne $a} {
            fail "datasets differ at entry $i:\n expected [string range $e 0 300]\n got      [string range $a 0 300]"
        }
    }
}
