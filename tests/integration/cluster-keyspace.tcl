# Cluster mode: the keyspace by slot. A node keeps db 0's keys in one table
# per hash slot, so that CLUSTER COUNTKEYSINSLOT, GETKEYSINSLOT and
# SLOT-STATS answer without a scan of the keyspace; cluster mode has one
# database (SELECT, MOVE, SWAPDB and COPY ... DB refused with Valkey 8's
# errors); DBSIZE, KEYS, SCAN, RANDOMKEY, expiry, eviction, FLUSHALL, RDB
# and AOF stay right with the keys split by slot; and a node that loses a
# slot to a node with a greater config epoch deletes the keys it still
# held there ("Deleting keys in dirty slot"), propagating the deletions.
# Every test checks the keys against what the clients wrote.

tags {cluster rdma:skip:cluster} {

# The slot of key, as the server computes it.
proc ks_slot {c key} { return [$c cluster keyslot $key] }

# SLOT-STATS' reply as a dict slot -> key-count (RESP2: the map is a flat
# list).
proc ks_slot_stats {reply} {
    set out [dict create]
    foreach entry $reply {
        lassign $entry slot stats
        assert_equal key-count [lindex $stats 0]
        dict set out $slot [lindex $stats 1]
    }
    return $out
}

# Every key a full SCAN returns (with extra SCAN arguments), sorted and
# unique; fails if the scan does not end within maxcalls calls.
proc ks_scan_all {c maxcalls args} {
    set cursor 0
    set keys {}
    set calls 0
    while 1 {
        lassign [$c scan $cursor {*}$args] cursor batch
        lappend keys {*}$batch
        if {$cursor == 0} break
        if {[incr calls] > $maxcalls} { fail "SCAN did not end after $maxcalls calls" }
    }
    return [lsort -unique $keys]
}

start_cluster 1 {tags {cluster} overrides {enable-debug-command yes}} {
    set c [vk_client [cluster_level 0]]
    assert_equal OK [$c cluster addslotsrange 0 16383]
    cluster_wait_ok [list $c]

    test "COUNTKEYSINSLOT and GETKEYSINSLOT follow writes, deletes and FLUSHALL" {
        set slot [ks_slot $c "{user1}"]
        set other [ks_slot $c "{user2}"]
        assert_equal 0 [$c cluster countkeysinslot $slot]
        assert_equal {} [$c cluster getkeysinslot $slot 10]
        set want {}
        for {set i 0} {$i < 50} {incr i} {
            $c set "{user1}:$i" $i
            lappend want "{user1}:$i"
        }
        $c rpush "{user2}:list" a b c
        $c hset "{user2}:hash" f v
        assert_equal 50 [$c cluster countkeysinslot $slot]
        assert_equal 2 [$c cluster countkeysinslot $other]
        assert_equal [lsort $want] [lsort [$c cluster getkeysinslot $slot 50]]
        assert_equal [lsort $want] [lsort [$c cluster getkeysinslot $slot 1000]]
        set some [$c cluster getkeysinslot $slot 7]
        assert_equal 7 [llength $some]
        foreach k $some { assert {[lsearch -exact $want $k] >= 0} }
        assert_equal {} [$c cluster getkeysinslot $slot 0]
        assert_equal [lsort [list "{user2}:list" "{user2}:hash"]] [lsort [$c cluster getkeysinslot $other 10]]
        assert_equal 52 [$c dbsize]

        # Overwrites do not count twice; deletions, RENAME and UNLINK move
        # the counts.
        $c set "{user1}:0" again
        assert_equal 50 [$c cluster countkeysinslot $slot]
        assert_equal 10 [$c del {*}[lrange $want 0 9]]
        assert_equal 40 [$c cluster countkeysinslot $slot]
        $c rename "{user2}:list" "{user2}:renamed"
        assert_equal 2 [$c cluster countkeysinslot $other]
        $c unlink "{user2}:hash"
        assert_equal 1 [$c cluster countkeysinslot $other]
        assert_equal 41 [$c dbsize]

        assert_equal OK [$c flushall]
        assert_equal 0 [$c cluster countkeysinslot $slot]
        assert_equal 0 [$c cluster countkeysinslot $other]
        assert_equal 0 [$c dbsize]
    }

    test "COUNTKEYSINSLOT and GETKEYSINSLOT refuse bad arguments with Valkey's errors" {
        assert_error {ERR Invalid slot} { $c cluster countkeysinslot 16384 }
        assert_error {ERR Invalid slot} { $c cluster countkeysinslot -1 }
        assert_error {ERR value is not an integer or out of range} { $c cluster countkeysinslot abc }
        assert_error {ERR Invalid slot or number of keys} { $c cluster getkeysinslot 16384 1 }
        assert_error {ERR Invalid slot or number of keys} { $c cluster getkeysinslot 0 -1 }
        assert_error {ERR value is not an integer or out of range} { $c cluster getkeysinslot 0 x }
        assert_error {ERR wrong number of arguments for 'cluster|countkeysinslot' command} {
            $c cluster countkeysinslot
        }
    }

    test "CLUSTER SLOT-STATS reports each slot's key-count, by range and sorted" {
        $c flushall
        set s1 [ks_slot $c "{a}"]
        set s2 [ks_slot $c "{b}"]
        set s3 [ks_slot $c "{c}"]
        for {set i 0} {$i < 5} {incr i} { $c set "{a}$i" x }
        for {set i 0} {$i < 3} {incr i} { $c set "{b}$i" x }
        $c set "{c}0" x
        set lo [expr {min($s1, $s2, $s3)}]
        set hi [expr {max($s1, $s2, $s3)}]
        set stats [ks_slot_stats [$c cluster slot-stats slotsrange $lo $hi]]
        assert_equal [expr {$hi - $lo + 1}] [dict size $stats]
        assert_equal 5 [dict get $stats $s1]
        assert_equal 3 [dict get $stats $s2]
        assert_equal 1 [dict get $stats $s3]
        set sum 0
        dict for {slot n} $stats { incr sum $n }
        assert_equal 9 $sum

        set top [$c cluster slot-stats orderby key-count limit 3]
        assert_equal [list $s1 $s2 $s3] [lmap e $top {lindex $e 0}]
        assert_equal {5 3 1} [lmap e $top {lindex $e 1 1}]
        # Ascending: empty slots first, ties in slot order.
        set low [$c cluster slot-stats orderby key-count limit 2 asc]
        assert_equal {0 0} [lmap e $low {lindex $e 1 1}]
        assert_equal 16384 [llength [$c cluster slot-stats orderby key-count]]

        assert_error {ERR Unrecognized sort metric for ORDERBY.} { $c cluster slot-stats orderby bytes }
        assert_error {ERR Limit has to lie in between 1 and 16384 (maximum number of slots).} {
            $c cluster slot-stats orderby key-count limit 0
        }
        assert_error {ERR Multiple filters of the same type are disallowed.} {
            $c cluster slot-stats orderby key-count asc desc
        }
        assert_error {ERR syntax error} { $c cluster slot-stats orderby key-count sideways }
        assert_error {ERR Start slot number 9 is greater than end slot number 2} {
            $c cluster slot-stats slotsrange 9 2
        }
        assert_error {ERR Invalid or out of range slot} { $c cluster slot-stats slotsrange 0 16384 }
        assert_error {*unknown subcommand*} { $c cluster slot-stats everything 1 }
    }

    test "Cluster mode has one database: SELECT, MOVE, SWAPDB and COPY ... DB are refused" {
        assert_error {ERR SELECT is not allowed in cluster mode} { $c select 1 }
        assert_equal OK [$c select 0]
        $c set "{m}k" v
        assert_error {ERR MOVE is not allowed in cluster mode} { $c move "{m}k" 1 }
        assert_error {ERR SWAPDB is not allowed in cluster mode} { $c swapdb 0 1 }
        assert_error {ERR Copying to another database is not allowed in cluster mode} {
            $c copy "{m}k" "{m}k2" db 1
        }
        assert_equal 1 [$c copy "{m}k" "{m}k2" db 0]
        assert_equal v [$c get "{m}k2"]
        assert_equal 2 [$c cluster countkeysinslot [ks_slot $c "{m}"]]
    }

    test "DBSIZE, KEYS, SCAN and RANDOMKEY see every key once the keyspace is split by slot" {
        $c flushall
        assert_equal OK [$c debug populate 3000 key 4]
        for {set i 0} {$i < 20} {incr i} { $c set "{tagged}:$i" v }
        assert_equal 3020 [$c dbsize]
        set all [lsort [$c keys *]]
        assert_equal 3020 [llength $all]
        # SCAN: the cursor carries the slot; a full scan returns each key.
        assert_equal $all [ks_scan_all $c 20000 count 100]
        assert_equal $all [ks_scan_all $c 200000 count 1]
        # A MATCH pattern with a literal hash tag walks its slot only, and
        # still finds all its keys.
        set tagged [lsort [lsearch -all -inline -glob $all "{tagged}*"]]
        assert_equal 20 [llength $tagged]
        assert_equal $tagged [lsort [$c keys "{tagged}*"]]
        assert_equal $tagged [ks_scan_all $c 100 match "{tagged}*" count 5]
        assert_equal {} [ks_scan_all $c 20000 match "{nothing}*" count 1000]
        assert_equal {0 {}} [$c scan 0 match "{nothing}*"]
        # The sum of the per-slot counts is DBSIZE.
        set sum 0
        foreach e [$c cluster slot-stats slotsrange 0 16383] { incr sum [lindex $e 1 1] }
        assert_equal 3020 $sum
        for {set i 0} {$i < 20} {incr i} {
            set k [$c randomkey]
            assert {[lsearch -exact -sorted $all $k] >= 0}
        }
        assert_error {ERR invalid cursor} { $c scan abc }
    }

    test "DEBUG RELOAD and an AOF rewrite keep the dataset and the per-slot counts" {
        set digest [$c debug digest]
        set slot [ks_slot $c "{tagged}"]
        set in_slot [$c cluster countkeysinslot $slot]
        assert {$in_slot >= 20}
        assert_equal OK [$c debug reload]
        assert_equal $digest [$c debug digest]
        assert_equal 3020 [$c dbsize]
        assert_equal $in_slot [$c cluster countkeysinslot $slot]
        assert_equal OK [$c config set appendonly yes]
        wait_for_condition 100 50 {[regexp {aof_rewrite_in_progress:0\r} [$c info persistence]] &&
                                   [regexp {aof_rewrite_scheduled:0\r} [$c info persistence]]} {
            fail "the AOF rewrite did not finish"
        }
        assert_equal OK [$c debug loadaof]
        assert_equal $digest [$c debug digest]
        assert_equal $in_slot [$c cluster countkeysinslot $slot]
        assert_equal OK [$c config set appendonly no]
    }

    test "Expired keys leave their slot's count (active and lazy expiry)" {
        $c flushall
        set slot [ks_slot $c "{ttl}"]
        for {set i 0} {$i < 30} {incr i} { $c set "{ttl}:$i" v px 100 }
        $c set "{ttl}:lazy" v px 100
        $c set "{ttl}:stays" v
        assert_equal 32 [$c cluster countkeysinslot $slot]
        # A read of an expired key deletes it at once.
        after 150
        assert_equal {} [$c get "{ttl}:lazy"]
        wait_for_condition 100 50 {[$c cluster countkeysinslot $slot] == 1} {
            fail "expired keys still counted: [$c cluster countkeysinslot $slot]"
        }
        assert_equal [list "{ttl}:stays"] [$c cluster getkeysinslot $slot 10]
        assert_equal 1 [$c dbsize]
    }

    test "Eviction samples every slot and keeps the counts right" {
        $c flushall
        $c debug populate 5000 evict 100
        set used [lindex [regexp -inline {used_memory:(\d+)} [$c info memory]] 1]
        $c config set maxmemory-policy allkeys-random
        $c config set maxmemory [expr {$used - 200000}]
        $c set "{trigger}" x
        wait_for_condition 100 50 {[$c dbsize] < 5000} { fail "nothing evicted" }
        $c config set maxmemory 0
        set n [$c dbsize]
        set sum 0
        foreach e [$c cluster slot-stats slotsrange 0 16383] { incr sum [lindex $e 1 1] }
        assert_equal $n $sum
        assert {[regexp {evicted_keys:(\d+)} [$c info stats] -> evicted] && $evicted > 0}
        $c config set maxmemory-policy noeviction
        $c flushall
    }
}

start_server {tags {cluster}} {
    test "Without cluster mode the slot subcommands say cluster support is disabled" {
        assert_error {ERR This instance has cluster support disabled} { r cluster countkeysinslot 0 }
        assert_error {ERR This instance has cluster support disabled} { r cluster getkeysinslot 0 1 }
        assert_error {ERR This instance has cluster support disabled} { r cluster slot-stats slotsrange 0 1 }
        assert_equal OK [r select 1]
        assert_equal OK [r select 0]
    }
}

start_cluster 2 {tags {cluster} overrides {appendonly yes enable-debug-command yes}} {
    set cs [cluster_clients]
    lassign $cs c0 c1
    cluster_meet_all $cs [cluster_ports]
    cluster_share_slots $cs
    cluster_wait_ok $cs
    cluster_wait_agree $cs

    test "A node that loses a slot to a greater config epoch deletes the keys it held there" {
        # Slots 0..8191 are node 0's: it writes keys in two of them.
        set lost [ks_slot $c0 "{lost}"]
        set kept [ks_slot $c0 "{kept}"]
        assert {$lost < 8192 && $kept < 8192 && $lost != $kept}
        for {set i 0} {$i < 25} {incr i} {
            $c0 set "{lost}:$i" v
            $c0 set "{kept}:$i" v
        }
        set watcher [vk_deferring_client [cluster_level 0]]
        $watcher config set notify-keyspace-events KEA
        $watcher read
        $watcher psubscribe "__keyevent@0__:del"
        $watcher read

        # Node 1 takes the slot with a greater config epoch: node 0 sees the
        # claim win over its own.
        $c1 cluster bumpepoch
        $c1 multi
        $c1 cluster delslots $lost
        $c1 cluster addslots $lost
        assert_equal {OK OK} [$c1 exec]
        wait_for_condition 200 50 {[cluster_slot_owner $c0 $lost] eq [$c1 cluster myid]} {
            fail "node 0 did not give slot $lost up: [$c0 cluster nodes]"
        }
        wait_for_condition 100 50 {[$c0 cluster countkeysinslot $lost] == 0} {
            fail "the keys of the lost slot are still there"
        }
        set log [cluster_file_text [srv [cluster_level 0 2] stdout]]
        assert_match "*Deleting keys in dirty slot $lost on node [$c0 cluster myid] *" $log
        assert_equal 25 [$c0 cluster countkeysinslot $kept]
        assert_equal 25 [$c0 dbsize]
        foreach k [$c0 keys *] { assert_match "{kept}:*" $k }

        # Each deletion was notified...
        set deleted {}
        set want {}
        for {set i 0} {$i < 25} {incr i} {
            lappend deleted [lindex [$watcher read] 3]
            lappend want "{lost}:$i"
        }
        assert_equal [lsort $want] [lsort $deleted]
        $watcher close

        # ... and propagated: the AOF replays to the same dataset.
        set digest [$c0 debug digest]
        wait_for_condition 100 50 {[regexp {aof_rewrite_in_progress:0\r} [$c0 info persistence]]} {
            fail "AOF rewrite in progress"
        }
        assert_equal OK [$c0 debug loadaof]
        assert_equal $digest [$c0 debug digest]
        assert_equal 25 [$c0 dbsize]
    }
}

}
