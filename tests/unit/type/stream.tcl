# Streams without consumer groups: XADD (ID forms, NOMKSTREAM, MAXLEN /
# MINID trimming with = ~ and LIMIT, every error), XLEN, XRANGE and
# XREVRANGE (COUNT, exclusive bounds), XDEL, XTRIM, XSETID, XREAD (COUNT,
# "$", several keys, RESP3 map) and blocking XREAD (wake-up, timeout,
# FIFO, "$" pinned at block time, MULTI, the key deleted or replaced by
# another type while waiting), XINFO STREAM, keyspace events,
# TYPE / SCAN TYPE / COPY / MEMORY USAGE / DEBUG DIGEST-VALUE, and a
# randomized XADD/XDEL/XTRIM/XRANGE run checked against a Tcl model.
# Consumer groups are in stream-cgroups.tcl.  Tests tagged "valkey-only"
# cover behaviour Redis 7.0 does not have.

proc stream_wait_blocked {n} {
    wait_for_condition 100 10 {[stream_info_field blocked_clients] == $n} {
        fail "expected $n blocked clients"
    }
}

proc stream_info_field {field} {
    if {[regexp "$field:(\\d+)" [r info clients] -> v]} { return $v }
    return -1
}

# Runs script with keyspace notifications on; returns {event key ...}.
proc stream_keyevents {script} {
    r config set notify-keyspace-events KEA
    set rd [vk_deferring_client]
    $rd psubscribe "__keyevent@*__:*"
    $rd read
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

# The IDs of a list of entries.
proc stream_ids {entries} {
    set ids {}
    foreach e $entries { lappend ids [lindex $e 0] }
    return $ids
}

start_server {tags {"stream"}} {

    test "XADD with explicit IDs, XLEN and XRANGE" {
        r del s
        assert_equal 1-1 [r xadd s 1-1 a 1]
        assert_equal 1-2 [r xadd s 1-2 b 2 c 3]
        assert_equal 5-0 [r xadd s 5 d 4]
        assert_equal 3 [r xlen s]
        assert_equal {{1-1 {a 1}} {1-2 {b 2 c 3}} {5-0 {d 4}}} [r xrange s - +]
        assert_equal stream [r type s]
        assert_equal stream [r object encoding s]
    }

    test "XADD * generates increasing time based IDs" {
        r del s
        set before [clock milliseconds]
        set id1 [r xadd s * a 1]
        set id2 [r xadd s * a 2]
        lassign [split $id1 -] ms1 seq1
        assert {$ms1 >= $before - 1000 && $ms1 <= [clock milliseconds] + 1000}
        lassign [split $id2 -] ms2 seq2
        assert {$ms2 > $ms1 || ($ms2 == $ms1 && $seq2 == $seq1 + 1)}
    }

    test "XADD * after a future explicit ID increments the sequence" {
        r del s
        r xadd s 99999999999999-5 a 1
        assert_equal 99999999999999-6 [r xadd s * a 2]
    }

    test "XADD <ms>-* picks the next sequence of that millisecond" {
        r del s
        assert_equal 0-1 [r xadd s 0-* a 1]
        assert_equal 0-2 [r xadd s 0-* a 1]
        assert_equal 5-0 [r xadd s 5-* a 1]
        assert_equal 5-1 [r xadd s 5-* a 1]
        assert_error "*equal or smaller than the target stream top item*" {r xadd s 4-* a 1}
    }

    tags {"valkey-only"} {
        # Redis 7.0 replies "Elements are too large to be stored" here.
        test "XADD <ms>-* when that millisecond's sequence is used up" {
            r del s
            r xadd s 6-18446744073709551615 a 1
            assert_error "*equal or smaller than the target stream top item*" {r xadd s 6-* a 1}
            assert_equal 7-0 [r xadd s 7-* a 1]
        }
    }

    test "XADD ID errors" {
        r del s
        assert_error "ERR The ID specified in XADD must be greater than 0-0" {r xadd s 0-0 a 1}
        assert_error "ERR The ID specified in XADD must be greater than 0-0" {r xadd s 0 a 1}
        foreach bad {abc 1-x -1 1- - + $ 18446744073709551616-0 1-2-3} {
            assert_error "ERR Invalid stream ID specified as stream command argument" {r xadd s $bad a 1}
        }
        r xadd s 10-5 a 1
        assert_error "ERR The ID specified in XADD is equal or smaller than the target stream top item" {r xadd s 10-5 a 1}
        assert_error "ERR The ID specified in XADD is equal or smaller than the target stream top item" {r xadd s 9 a 1}
        assert_equal 1 [r xlen s]
    }

    test "XADD with the last possible ID, then * fails" {
        r del s
        r xadd s 18446744073709551615-18446744073709551615 a 1
        assert_error "ERR The stream has exhausted the last possible ID, unable to add more items" {r xadd s * a 1}
    }

    test "XADD wrong number of field/values" {
        assert_error "ERR wrong number of arguments for 'xadd' command" {r xadd s * a}
        assert_error "ERR wrong number of arguments for 'xadd' command" {r xadd s * a 1 b}
        assert_error "ERR wrong number of arguments for 'xadd' command" {r xadd s maxlen 5 *}
    }

    test "XADD against a key of another type" {
        r del str
        r set str x
        assert_error "WRONGTYPE*" {r xadd str * a 1}
        assert_error "WRONGTYPE*" {r xlen str}
        assert_error "WRONGTYPE*" {r xrange str - +}
    }

    test "XADD NOMKSTREAM" {
        r del s
        assert_equal {} [r xadd s nomkstream * a 1]
        assert_equal 0 [r exists s]
        r xadd s 1-0 a 1
        assert_equal 2-0 [r xadd s nomkstream 2-0 b 2]
        assert_equal 2 [r xlen s]
    }

    test "XADD with MAXLEN trims exactly" {
        r del s
        for {set i 1} {$i <= 100} {incr i} { r xadd s maxlen 5 $i-0 v $i }
        assert_equal 5 [r xlen s]
        assert_equal {96-0 97-0 98-0 99-0 100-0} [stream_ids [r xrange s - +]]
        r xadd s maxlen = 2 101-0 v 101
        assert_equal {100-0 101-0} [stream_ids [r xrange s - +]]
        r xadd s maxlen 0 102-0 v 102
        assert_equal 0 [r xlen s]
        assert_equal 1 [r exists s]
    }

    test "XADD with MINID trims exactly" {
        r del s
        for {set i 1} {$i <= 20} {incr i} { r xadd s $i-0 v $i }
        r xadd s minid 15 21-0 v 21
        assert_equal {15-0 16-0 17-0 18-0 19-0 20-0 21-0} [stream_ids [r xrange s - +]]
        r xadd s minid = 20-0 22-0 v 22
        assert_equal {20-0 21-0 22-0} [stream_ids [r xrange s - +]]
    }

    test "XADD with MAXLEN ~ removes whole nodes only" {
        r del s
        r config set stream-node-max-entries 10
        for {set i 0} {$i < 100} {incr i} { r xadd s * v $i }
        r xadd s maxlen ~ 55 * v x
        # 101 entries in nodes of 10: whole nodes go while 55 stay.
        assert_equal 61 [r xlen s]
        r xadd s maxlen ~ 1000 * v y
        assert_equal 62 [r xlen s]
        r config set stream-node-max-entries 100
    }

    test "XADD with LIMIT consecutive calls" {
        r del s
        r config set stream-node-max-entries 10
        for {set i 0} {$i < 100} {incr i} { r xadd s * v $i }
        r xadd s maxlen ~ 55 limit 30 * xitem v
        assert_equal 71 [r xlen s]
        r xadd s maxlen ~ 55 limit 30 * xitem v
        assert_equal 62 [r xlen s]
        r config set stream-node-max-entries 100
    }

    test "XADD with LIMIT 0 means no limit" {
        r del s
        r config set stream-node-max-entries 10
        for {set i 0} {$i < 100} {incr i} { r xadd s * v $i }
        r xadd s maxlen ~ 5 limit 0 * xitem v
        assert_range [r xlen s] 5 20
        r config set stream-node-max-entries 100
    }

    test "XADD and XTRIM trimming option errors" {
        r del s
        r xadd s 1-0 a 1
        assert_error "ERR The MAXLEN argument must be >= 0." {r xadd s maxlen -1 * a 1}
        assert_error "ERR syntax error, LIMIT cannot be used without the special ~ option" {r xadd s maxlen 1 limit 1 * a 1}
        assert_error "ERR syntax error, LIMIT cannot be used without the special ~ option" {r xadd s maxlen = 1 limit 1 * a 1}
        assert_error "ERR The LIMIT argument must be >= 0." {r xadd s maxlen ~ 1 limit -1 * a 1}
        assert_error "ERR The LIMIT argument must be >= 0." {r xtrim s maxlen ~ 1 limit -1}
        assert_error "ERR syntax error, MAXLEN and MINID options at the same time are not compatible" {r xadd s minid 1 maxlen 1 * a 1}
        assert_error "ERR value is not an integer or out of range" {r xadd s maxlen abc * a 1}
        assert_error "ERR Invalid stream ID specified as stream command argument" {r xadd s minid abc * a 1}
        assert_error "ERR syntax error*" {r xtrim s foo 1}
        assert_error "ERR syntax error*" {r xtrim s maxlen 1 extra}
        assert_error "ERR The MAXLEN argument must be >= 0." {r xtrim s maxlen -2}
        assert_error "ERR syntax error, LIMIT cannot be used without the special ~ option" {r xtrim s maxlen 1 limit 5}
        assert_equal 1 [r xlen s]
        # The arguments are checked before the key is looked up.
        r del nokey
        assert_error "ERR value is not an integer or out of range" {r xtrim nokey maxlen abc}
        assert_error "ERR The LIMIT argument must be >= 0." {r xtrim nokey maxlen ~ 0 limit -1}
        r set str x
        assert_error "ERR syntax error*" {r xtrim str foo 1}
    }

    test "XTRIM with MAXLEN, MINID, ~ and LIMIT" {
        r del s
        r config set stream-node-max-entries 10
        for {set i 1} {$i <= 100} {incr i} { r xadd s $i-0 v $i }
        assert_equal 0 [r xtrim s maxlen 1000]
        assert_equal 10 [r xtrim s maxlen ~ 85]
        assert_equal 90 [r xlen s]
        assert_equal 5 [r xtrim s maxlen 85]
        assert_equal 16-0 [lindex [r xrange s - + count 1] 0 0]
        assert_equal 5 [r xtrim s minid ~ 25]
        assert_equal 21-0 [lindex [r xrange s - + count 1] 0 0]
        assert_equal 4 [r xtrim s minid 25]
        assert_equal 25-0 [lindex [r xrange s - + count 1] 0 0]
        assert_equal 0 [r xtrim s maxlen ~ 10 limit 5]
        assert_equal 76 [r xlen s]
        assert_equal 0 [r xtrim nokey maxlen 0]
        r config set stream-node-max-entries 100
    }

    test "XTRIM against a key of another type" {
        r set str x
        assert_error "WRONGTYPE*" {r xtrim str maxlen 0}
    }

    test "XRANGE and XREVRANGE with COUNT and bounds" {
        r del s
        for {set i 1} {$i <= 10} {incr i} { r xadd s $i-1 v $i }
        assert_equal {1-1 2-1 3-1} [stream_ids [r xrange s - + count 3]]
        assert_equal {10-1 9-1 8-1} [stream_ids [r xrevrange s + - count 3]]
        assert_equal {3-1 4-1 5-1} [stream_ids [r xrange s 3 5]]
        assert_equal {5-1 4-1 3-1} [stream_ids [r xrevrange s 5 3]]
        assert_equal {} [r xrange s 5 3]
        assert_equal {} [r xrange s 11 +]
        assert_equal {} [r xrange nokey - +]
        assert_equal {1-1 2-1} [stream_ids [r xrange s - 2-1]]
        assert_equal {} [r xrange s - 1-0]
        assert_equal {10-1} [stream_ids [r xrange s 10-1 10-1]]
    }

    test "XRANGE COUNT 0 and negative COUNT" {
        r del s
        r xadd s 1-1 a 1
        assert_equal {} [r xrange s - + count 0]
        assert_equal {} [r xrange s - + count -1]
        assert_error "ERR syntax error*" {r xrange s - + count}
        assert_error "ERR syntax error*" {r xrange s - + foo 1}
        assert_error "ERR value is not an integer*" {r xrange s - + count x}
    }

    test "XRANGE exclusive ranges" {
        r del s
        for {set i 1} {$i <= 5} {incr i} { r xadd s $i-0 v $i }
        assert_equal {2-0 3-0 4-0 5-0} [stream_ids [r xrange s (1-0 +]]
        assert_equal {2-0 3-0} [stream_ids [r xrange s (1-0 (4-0]]
        assert_equal {4-0 3-0} [stream_ids [r xrevrange s (5-0 (2-0]]
        assert_equal {} [r xrange s (1-0 (2-0]
        r del s
        r xadd s 0-1 a 1
        r xadd s 18446744073709551615-18446744073709551615 a 1
        assert_equal {18446744073709551615-18446744073709551615} [stream_ids [r xrange s (0-1 +]]
        assert_equal {0-1} [stream_ids [r xrange s - (18446744073709551615-18446744073709551615]]
    }

    test "XRANGE interval errors" {
        assert_error "ERR invalid start ID for the interval" {r xrange s (18446744073709551615-18446744073709551615 +}
        assert_error "ERR invalid end ID for the interval" {r xrange s - (0-0}
        assert_error "ERR Invalid stream ID specified as stream command argument" {r xrange s (- +}
        assert_error "ERR Invalid stream ID specified as stream command argument" {r xrange s - (+}
        assert_error "ERR Invalid stream ID specified as stream command argument" {r xrange s abc +}
        assert_error "ERR Invalid stream ID specified as stream command argument" {r xrevrange s + x}
    }

    test "XDEL deletes entries and reports how many" {
        r del s
        for {set i 1} {$i <= 10} {incr i} { r xadd s $i-0 v $i }
        assert_equal 2 [r xdel s 2-0 5-0 5-0 50-0]
        assert_equal 8 [r xlen s]
        assert_equal {1-0 3-0 4-0 6-0} [stream_ids [r xrange s - 6]]
        assert_equal 0 [r xdel nokey 1-0]
        assert_error "ERR Invalid stream ID*" {r xdel s 1-0 abc}
        assert_equal 8 [r xlen s]
        # Deleting the last entry keeps the last ID: XADD cannot go back.
        r xdel s 10-0
        assert_error "*equal or smaller*" {r xadd s 10-0 v 1}
        assert_equal 10-1 [r xadd s 10-* v 1]
    }

    test "XDEL of every entry leaves an empty stream" {
        r del s
        r xadd s 1-0 a 1
        r xadd s 2-0 a 1
        assert_equal 2 [r xdel s 1-0 2-0]
        assert_equal 1 [r exists s]
        assert_equal 0 [r xlen s]
        assert_equal {} [r xrange s - +]
        assert_equal 3-0 [r xadd s 3-0 a 1]
    }

    test "XDEL and XRANGE across nodes" {
        r del s
        r config set stream-node-max-entries 3
        for {set i 1} {$i <= 20} {incr i} { r xadd s $i-0 v $i }
        r xdel s 4-0 5-0 6-0 10-0
        assert_equal {3-0 7-0 8-0 9-0 11-0} [stream_ids [r xrange s 3 11]]
        assert_equal {11-0 9-0 8-0 7-0 3-0} [stream_ids [r xrevrange s 11 3]]
        assert_equal {7-0 8-0} [stream_ids [r xrange s (3-0 + count 2]]
        r config set stream-node-max-entries 100
    }

    test "Values that look like integers come back unchanged" {
        r del s
        r xadd s 1-0 12 -5 007 1.5 9223372036854775807 -9223372036854775808 big 99999999999999999999
        assert_equal {{1-0 {12 -5 007 1.5 9223372036854775807 -9223372036854775808 big 99999999999999999999}}} [r xrange s - +]
    }

    test "XADD with large values and many fields" {
        r del s
        set big [string repeat x 10000]
        r xadd s 1-0 f $big
        set fields {}
        for {set i 0} {$i < 500} {incr i} { lappend fields f$i v$i }
        r xadd s 2-0 {*}$fields
        assert_equal $big [lindex [r xrange s 1-0 1-0] 0 1 1]
        assert_equal $fields [lindex [r xrange s 2-0 2-0] 0 1]
    }

    test "stream-node-max-bytes and stream-node-max-entries configs" {
        assert_equal {stream-node-max-bytes 4096} [r config get stream-node-max-bytes]
        assert_equal {stream-node-max-entries 100} [r config get stream-node-max-entries]
        r config set stream-node-max-bytes 1kb
        assert_equal {stream-node-max-bytes 1024} [r config get stream-node-max-bytes]
        r del s
        for {set i 0} {$i < 50} {incr i} { r xadd s * f [string repeat x 100] }
        assert_range [dict get [r xinfo stream s] radix-tree-keys] 5 50
        r config set stream-node-max-bytes 4096
        r config set stream-node-max-entries 5
        r del s
        for {set i 0} {$i < 50} {incr i} { r xadd s * f v }
        assert_equal 10 [dict get [r xinfo stream s] radix-tree-keys]
        r config set stream-node-max-entries 100
        assert_error "*" {r config set stream-node-max-entries -1}
    }

    test "XSETID sets the last ID and the counters" {
        r del s
        r xadd s 1-0 a 1
        r xadd s 2-0 a 1
        assert_equal OK [r xsetid s 200-0]
        assert_error "*equal or smaller*" {r xadd s 100-0 a 1}
        assert_equal 200-1 [r xadd s 200-* a 1]
        assert_equal OK [r xsetid s 300-0 entriesadded 50 maxdeletedid 250-0]
        set info [r xinfo stream s]
        assert_equal 300-0 [dict get $info last-generated-id]
        assert_equal 50 [dict get $info entries-added]
        assert_equal 250-0 [dict get $info max-deleted-entry-id]
    }

    test "XSETID errors" {
        r del s
        r xadd s 5-0 a 1
        assert_error "ERR The ID specified in XSETID is smaller than the target stream top item" {r xsetid s 4-0}
        assert_error "ERR no such key" {r xsetid nokey 1-0}
        assert_error "ERR entries_added must be positive" {r xsetid s 5-0 entriesadded -1}
        assert_error "ERR The entries_added specified in XSETID is smaller than the target stream length" {r xsetid s 5-0 entriesadded 0}
        assert_error "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id" {r xsetid s 5-0 maxdeletedid 6-0}
        assert_error "ERR Invalid stream ID*" {r xsetid s abc}
        assert_error "ERR syntax error*" {r xsetid s 5-0 foo}
        r set str x
        assert_error "WRONGTYPE*" {r xsetid str 1-0}
    }

    tags {valkey-only} {
        test "XSETID cannot go below the max deleted entry ID" {
            r del s
            r xadd s 1-0 a 1
            r xadd s 2-0 a 1
            r xadd s 3-0 a 1
            r xdel s 2-0 3-0
            # Below the deleted top entries but above the last one left: refused,
            # an ID once used would be handed out again.
            assert_error "ERR The ID specified in XSETID is smaller than current max_deleted_entry_id" {r xsetid s 2-5}
            assert_equal OK [r xsetid s 3-0]
            assert_equal 3-1 [r xadd s 3-* a 1]
            # MAXDELETEDID 0-0 keeps the recorded one.
            assert_equal OK [r xsetid s 4-0 maxdeletedid 0-0]
            assert_equal 3-0 [dict get [r xinfo stream s] max-deleted-entry-id]
            # An empty stream checks it too.
            r del s
            r xadd s 5-0 a 1
            r xdel s 5-0
            assert_error "ERR The ID specified in XSETID is smaller than current max_deleted_entry_id" {r xsetid s 4-0}
        }
    }

    test "XINFO STREAM basic fields" {
        r del s
        r xadd s 1-0 a 1
        r xadd s 2-0 b 2
        r xadd s 3-0 c 3
        r xdel s 2-0
        set info [r xinfo stream s]
        assert_equal 2 [dict get $info length]
        assert_equal 3-0 [dict get $info last-generated-id]
        assert_equal 2-0 [dict get $info max-deleted-entry-id]
        assert_equal 3 [dict get $info entries-added]
        assert_equal 1-0 [dict get $info recorded-first-entry-id]
        assert_equal 0 [dict get $info groups]
        assert_equal {1-0 {a 1}} [dict get $info first-entry]
        assert_equal {3-0 {c 3}} [dict get $info last-entry]
        r xdel s 1-0
        assert_equal 3-0 [dict get [r xinfo stream s] recorded-first-entry-id]
    }

    test "XINFO STREAM on an empty stream, a missing key, bad arguments" {
        r del s
        r xadd s maxlen 0 1-0 a 1
        set info [r xinfo stream s]
        assert_equal 0 [dict get $info length]
        assert_equal {} [dict get $info first-entry]
        assert_equal {} [dict get $info last-entry]
        assert_error "ERR no such key" {r xinfo stream nokey}
        assert_error "*unknown subcommand or wrong number of arguments for 'stream'*" {r xinfo stream s foo}
        assert_error "*unknown subcommand 'foo'. Try XINFO HELP.*" {r xinfo foo}
        assert_match "*STREAM*" [r xinfo help]
    }

    test "XINFO STREAM FULL with COUNT" {
        r del s
        for {set i 1} {$i <= 20} {incr i} { r xadd s $i-0 v $i }
        set info [r xinfo stream s full]
        assert_equal 20 [dict get $info length]
        assert_equal 10 [llength [dict get $info entries]]
        assert_equal {} [dict get $info groups]
        assert_equal 3 [llength [dict get [r xinfo stream s full count 3] entries]]
        assert_equal 20 [llength [dict get [r xinfo stream s full count 0] entries]]
    }

    test "XREAD non-blocking: several streams, COUNT, IDs" {
        r del s1 s2 s3
        r xadd s1 1-0 a 1
        r xadd s1 2-0 b 2
        r xadd s2 1-0 c 3
        assert_equal {{s1 {{2-0 {b 2}}}} {s2 {{1-0 {c 3}}}}} [r xread streams s1 s2 s3 1-0 0 0]
        assert_equal {{s1 {{1-0 {a 1}}}}} [r xread count 1 streams s1 0]
        assert_equal {{s1 {{1-0 {a 1}} {2-0 {b 2}}}}} [r xread count 0 streams s1 0]
        assert_equal {{s1 {{1-0 {a 1}} {2-0 {b 2}}}}} [r xread count -5 streams s1 0]
        assert_equal {} [r xread streams s1 2-0]
        assert_equal {} [r xread streams s1 $]
        assert_equal {} [r xread streams nokey 0]
        # A key named twice is served twice, as in Valkey.
        assert_equal {{s1 {{1-0 {a 1}} {2-0 {b 2}}}} {s1 {{2-0 {b 2}}}}} [r xread streams s1 s1 0 1-0]
    }

    test "XREAD errors" {
        assert_error "ERR Unbalanced*list of streams: for each stream key an ID or '\$' must be specified." {r xread streams s1 s2 0}
        assert_error "ERR The > ID can be specified only when calling XREADGROUP*" {r xread streams s1 >}
        assert_error "ERR Invalid stream ID*" {r xread streams s1 -}
        assert_error "ERR Invalid stream ID*" {r xread streams s1 abc}
        assert_error "ERR timeout is negative" {r xread block -1 streams s1 0}
        # BLOCK is in milliseconds: an integer (a float is for seconds).
        assert_error "ERR timeout is not an integer or out of range" {r xread block abc streams s1 0}
        assert_error "ERR timeout is not an integer or out of range" {r xread block 1.5 streams s1 0}
        assert_error "ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead." {r xread noack streams s1 0}
        assert_error "ERR syntax error*" {r xread count 1 foo 1 streams s1 0}
        assert_error "ERR wrong number of arguments for 'xread' command" {r xread streams s1}
        r set str x
        assert_error "WRONGTYPE*" {r xread streams str 0}
    }

    tags {valkey-only} {
        test "XREAD unbalanced streams: Valkey's error names the command" {
            assert_error "ERR Unbalanced 'xread' list of streams: for each stream key an ID or '\$' must be specified." {r xread streams s1 s2 0}
            assert_error "ERR Unbalanced 'xread' list of streams*" {r xread count 1 streams s1}
        }

        test "XREAD with the + ID replies the last entry" {
            r del s1 s2
            r xadd s1 1-0 a 1
            r xadd s1 2-0 b 2
            assert_equal {{s1 {{2-0 {b 2}}}}} [r xread streams s1 +]
            assert_equal {{s1 {{2-0 {b 2}}}}} [r xread count 5 streams s1 +]
            # Missing keys have nothing; others are served alongside.
            assert_equal {{s1 {{2-0 {b 2}}}}} [r xread streams s2 s1 + +]
            # The last entry deleted: nothing after what is left.
            r xdel s1 2-0
            assert_equal {} [r xread streams s1 +]
            # A stream that never had an entry.
            r xgroup create s2 g $ mkstream
            assert_error "ERR the stream last element ID is 0-0" {r xread streams s2 +}
        }

        test "Blocking XREAD with + is served at once when the stream has entries" {
            r del s1
            r xadd s1 7-0 a 1
            assert_equal {{s1 {{7-0 {a 1}}}}} [r xread block 0 streams s1 +]
        }

        test "Blocking XREAD with + waits on a missing key, then gets the new entry" {
            r del s1
            set rd [vk_deferring_client]
            $rd xread block 0 streams s1 +
            stream_wait_blocked 1
            r xadd s1 3-0 a 1
            assert_equal {{s1 {{3-0 {a 1}}}}} [$rd read]
            $rd close
        }
    }

    test "XREAD past the last entry left replies nil, not an empty array" {
        r del s1
        r xadd s1 1-0 a 1
        r xadd s1 2-0 b 2
        r xdel s1 2-0
        # last_id is 2-0 but no entry is after 1-0.
        assert_equal {} [r xread streams s1 1-0]
        assert_equal {} [r xread block 10 streams s1 1-0]
        set rd [vk_deferring_client]
        $rd xread block 0 streams s1 1-0
        stream_wait_blocked 1
        r xadd s1 3-0 c 3
        assert_equal {{s1 {{3-0 {c 3}}}}} [$rd read]
        $rd close
    }

    test "XREAD with RESP3 replies a map" {
        r del s1
        r xadd s1 1-0 a 1
        r hello 3
        assert_equal {s1 {{1-0 {a 1}}}} [r xread streams s1 0]
        assert_equal {} [r xread streams s1 1-0]
        r hello 2
    }

    test "Blocking XREAD is woken by XADD" {
        r del s
        set rd [vk_deferring_client]
        $rd xread block 0 streams s $
        stream_wait_blocked 1
        r xadd s 1-0 a 1
        assert_equal {{s {{1-0 {a 1}}}}} [$rd read]
        $rd close
    }

    test "Blocking XREAD with an explicit ID wakes only for larger IDs" {
        r del s
        r xadd s 1-0 a 1
        set rd [vk_deferring_client]
        $rd xread block 0 streams s 10-0
        stream_wait_blocked 1
        r xadd s 5-0 a 2
        after 50
        assert_equal 1 [stream_info_field blocked_clients]
        r xadd s 11-0 a 3
        assert_equal {{s {{11-0 {a 3}}}}} [$rd read]
        $rd close
    }

    # XREAD waits on a position, not on a group: when its key is deleted
    # or replaced by another type it keeps waiting (no error, no reply),
    # and it is served once the key is a stream again with newer entries.
    foreach {what script} {
        DEL {r del s}
        UNLINK {r unlink s}
        FLUSHALL {r flushall}
        "SET over it" {r set s v}
        "LPUSH after DEL" {r del s; r lpush s e1}
        "SADD in a transaction" {r multi; r del s; r sadd s e1; r exec}
        "expiry" {r pexpire s 20; after 100}
    } {
        test "Blocking XREAD: $what keeps it waiting until the key is a stream again" {
            r del s
            r xadd s 666-0 f v
            set rd [vk_deferring_client]
            $rd xread block 0 streams s $
            stream_wait_blocked 1
            eval $script
            after 50
            assert_equal 1 [stream_info_field blocked_clients]
            r del s
            r xadd s 1-0 old 1   ;# not after the "$" seen when it blocked
            after 50
            assert_equal 1 [stream_info_field blocked_clients]
            r xadd s 667-0 f v
            assert_equal {{s {{667-0 {f v}}}}} [$rd read]
            $rd close
        }
    }

    test "Blocking XREAD behind a BLPOP on the same key is served by XADD" {
        # Waiters of different types share the key's queue: the first one
        # (a list waiter) must not stop the stream waiter behind it.
        r del s
        set rd1 [vk_deferring_client]
        set rd2 [vk_deferring_client]
        $rd1 blpop s 0
        stream_wait_blocked 1
        $rd2 xread block 0 streams s $
        stream_wait_blocked 2
        r xadd s 1-0 a 1
        assert_equal {{s {{1-0 {a 1}}}}} [$rd2 read]
        assert_equal 1 [stream_info_field blocked_clients]
        r del s
        r rpush s x
        assert_equal {s x} [$rd1 read]
        $rd1 close
        $rd2 close
    }

    test "Blocking XREAD on several keys gets the first that receives data" {
        r del s1 s2
        set rd [vk_deferring_client]
        $rd xread block 0 streams s1 s2 $ $
        stream_wait_blocked 1
        r xadd s2 1-0 b 2
        assert_equal {{s2 {{1-0 {b 2}}}}} [$rd read]
        $rd close
    }

    test "Blocking XREAD times out with a null reply" {
        r del s
        set rd [vk_deferring_client]
        set start [clock milliseconds]
        $rd xread block 100 streams s $
        assert_equal {} [$rd read]
        assert {[clock milliseconds] - $start >= 90}
        $rd close
    }

    test "Blocking XREAD keeps its deadline when woken without data" {
        r del s
        r xadd s 1-0 a 1
        set rd [vk_deferring_client]
        set start [clock milliseconds]
        $rd xread block 400 streams s 100-0
        stream_wait_blocked 1
        after 200
        r xadd s 2-0 a 1
        assert_equal {} [$rd read]
        set elapsed [expr {[clock milliseconds] - $start}]
        assert {$elapsed >= 380 && $elapsed < 550}
        $rd close
    }

    test "Blocking XREAD serves clients FIFO, each gets the new entry" {
        r del s
        set rd1 [vk_deferring_client]
        set rd2 [vk_deferring_client]
        $rd1 xread block 0 streams s $
        stream_wait_blocked 1
        $rd2 xread block 0 streams s $
        stream_wait_blocked 2
        r xadd s 1-0 a 1
        assert_equal {{s {{1-0 {a 1}}}}} [$rd1 read]
        assert_equal {{s {{1-0 {a 1}}}}} [$rd2 read]
        $rd1 close
        $rd2 close
    }

    test "Blocking XREAD with $ is pinned at block time" {
        r del s
        r xadd s 1-0 a 1
        set rd [vk_deferring_client]
        $rd xread block 0 streams s $
        stream_wait_blocked 1
        r multi
        r xadd s 2-0 a 2
        r xadd s 3-0 a 3
        r exec
        assert_equal {{s {{2-0 {a 2}} {3-0 {a 3}}}}} [$rd read]
        $rd close
    }

    test "XREAD: XADD + DEL in MULTI does not wake the client" {
        r del s
        set rd [vk_deferring_client]
        $rd xread block 0 streams s $
        stream_wait_blocked 1
        r multi
        r xadd s 1-0 a 1
        r del s
        r exec
        after 50
        assert_equal 1 [stream_info_field blocked_clients]
        r xadd s 2-0 b 2
        assert_equal {{s {{2-0 {b 2}}}}} [$rd read]
        $rd close
    }

    test "XREAD: XADD + DEL + LPUSH does not wake the client" {
        r del s
        set rd [vk_deferring_client]
        $rd xread block 0 streams s $
        stream_wait_blocked 1
        r multi
        r xadd s 1-0 a 1
        r del s
        r lpush s x
        r exec
        after 50
        assert_equal 1 [stream_info_field blocked_clients]
        r del s
        r xadd s 2-0 b 2
        assert_equal {{s {{2-0 {b 2}}}}} [$rd read]
        $rd close
    }

    test "Blocking XREAD with COUNT gets at most COUNT entries" {
        r del s
        set rd [vk_deferring_client]
        $rd xread count 1 block 0 streams s $
        stream_wait_blocked 1
        r multi
        r xadd s 1-0 a 1
        r xadd s 2-0 a 2
        r exec
        assert_equal {{s {{1-0 {a 1}}}}} [$rd read]
        $rd close
    }

    test "XREAD BLOCK inside MULTI does not block" {
        r del s
        r multi
        r xread block 0 streams s $
        assert_equal {{}} [r exec]
    }

    test "CLIENT UNBLOCK of a blocked XREAD replies null" {
        r del s
        set rd [vk_deferring_client]
        $rd client id
        set id [$rd read]
        $rd xread block 0 streams s $
        stream_wait_blocked 1
        assert_equal 1 [r client unblock $id]
        assert_equal {} [$rd read]
        $rd close
    }

    test "XREAD after XDEL and XTRIM of the read position" {
        r del s
        for {set i 1} {$i <= 5} {incr i} { r xadd s $i-0 v $i }
        r xdel s 3-0
        assert_equal {4-0 5-0} [stream_ids [lindex [r xread streams s 2-0] 0 1]]
        r xtrim s maxlen 1
        assert_equal {5-0} [stream_ids [lindex [r xread streams s 0] 0 1]]
    }

    test "Keyspace events: xadd, xtrim, xdel, xsetid" {
        r del s
        set ev [stream_keyevents {
            r xadd s 1-0 a 1
            r xadd s maxlen 1 2-0 a 1
            r xdel s 2-0
            r xdel s 99-0
            r xtrim s maxlen 0
            r xadd s 3-0 a 1
            r xtrim s maxlen 0
            r xsetid s 10-0
            r xadd s nomkstream 11-0 a 1
        }]
        assert_equal {xadd s xadd s xtrim s xdel s xadd s xtrim s xsetid s xadd s} $ev
    }

    test "SCAN TYPE stream, COPY, MEMORY USAGE" {
        r flushdb
        r xadd s1 1-0 a 1
        r xadd s2 1-0 a 1
        r set str x
        assert_equal {s1 s2} [lsort [lindex [r scan 0 type stream count 100] 1]]
        assert_equal 1 [r copy s1 s3]
        r xadd s3 2-0 b 2
        assert_equal 1 [r xlen s1]
        assert_equal 2 [r xlen s3]
        assert {[r memory usage s1] > 0}
        r del s
        for {set i 0} {$i < 1000} {incr i} { r xadd s * field [string repeat x 50] }
        assert {[r memory usage s] > 50000}
    }

    test "COPY keeps consumer groups apart" {
        r del s s2
        r xadd s 1-0 a 1
        r xgroup create s g 0
        r xreadgroup group g c streams s >
        r copy s s2
        assert_equal 1 [r xack s2 g 1-0]
        assert_equal 1 [lindex [r xpending s g] 0]
        assert_equal 0 [lindex [r xpending s2 g] 0]
    }
}

start_server {tags {"stream" "needs:debug"} overrides {enable-debug-command yes}} {
    test "DEBUG DIGEST-VALUE follows content, and COPY keeps it" {
        r del s s2
        r xadd s 1-0 a 1
        r xadd s 2-0 b 2
        set d1 [r debug digest-value s]
        r copy s s2
        assert_equal $d1 [r debug digest-value s2]
        r xadd s2 3-0 c 3
        assert_not_equal $d1 [r debug digest-value s2]
    }
}

start_server {tags {"stream"}} {
    test "XADD/XDEL/XTRIM/XRANGE randomized against a Tcl model" {
        r del s
        r config set stream-node-max-entries 7
        set model {}  ;# list of {id fields}, in ID order
        set next 1
        for {set step 0} {$step < 1500} {incr step} {
            set op [expr {int(rand() * 100)}]
            if {$op < 55} {
                incr next [expr {int(rand() * 3)}]
                set seq [expr {int(rand() * 2)}]
                set id $next-$seq
                set fields [list f[expr {int(rand() * 5)}] [expr {int(rand() * 1000)}]]
                if {rand() < 0.3} { lappend fields g [string repeat z [expr {int(rand() * 20)}]] }
                assert_equal $id [r xadd s $id {*}$fields]
                lappend model [list $id $fields]
                incr next
            } elseif {$op < 70} {
                if {[llength $model] == 0} continue
                set victim [lindex $model [expr {int(rand() * [llength $model])}] 0]
                assert_equal 1 [r xdel s $victim]
                set idx [lsearch -exact -index 0 $model $victim]
                set model [lreplace $model $idx $idx]
            } elseif {$op < 78} {
                set maxlen [expr {int(rand() * 60)}]
                set removed [r xtrim s maxlen $maxlen]
                set expected [expr {max(0, [llength $model] - $maxlen)}]
                assert_equal $expected $removed
                set model [lrange $model $expected end]
            } elseif {$op < 82} {
                # Approximate trimming removes a prefix, never goes below maxlen.
                set maxlen [expr {int(rand() * 60)}]
                set removed [r xtrim s maxlen ~ $maxlen]
                assert {[llength $model] - $removed >= min($maxlen, [llength $model])}
                set model [lrange $model $removed end]
            } else {
                set a [expr {int(rand() * $next)}]
                set b [expr {$a + int(rand() * 40)}]
                set expected {}
                foreach e $model {
                    lassign [split [lindex $e 0] -] ms seq
                    if {$ms >= $a && $ms <= $b} { lappend expected $e }
                }
                assert_equal $expected [r xrange s $a $b]
                assert_equal [lreverse $expected] [r xrevrange s $b $a]
                if {[llength $expected] > 2} {
                    assert_equal [lrange $expected 0 1] [r xrange s $a $b count 2]
                }
            }
            assert_equal [llength $model] [r xlen s]
        }
        assert_equal $model [r xrange s - +]
        r config set stream-node-max-entries 100
    }
}
