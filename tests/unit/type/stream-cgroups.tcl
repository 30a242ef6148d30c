# Stream consumer groups: XGROUP (CREATE with MKSTREAM / ENTRIESREAD / $,
# SETID, DESTROY, CREATECONSUMER, DELCONSUMER, errors), XREADGROUP (">",
# history with explicit IDs, COUNT, NOACK, NOGROUP and other errors,
# blocking wake-ups, timeouts, DESTROY while blocked, and the key deleted,
# flushed, expired, renamed, moved, swapped or overwritten while blocked),
# XACK, XPENDING
# (summary and extended forms, IDLE, consumer filter), XCLAIM (IDLE TIME
# RETRYCOUNT FORCE JUSTID LASTID, deleted entries), XAUTOCLAIM (cursor,
# COUNT, JUSTID, deleted IDs), XINFO GROUPS / CONSUMERS / STREAM FULL,
# entries-read and lag, RESP3 shapes and keyspace events.  Tests tagged
# "valkey-only" cover behaviour Redis 7.0 does not have.

proc cg_wait_blocked {n} {
    wait_for_condition 100 10 {[cg_info_field blocked_clients] == $n} {
        fail "expected $n blocked clients"
    }
}

proc cg_info_field {field} {
    if {[regexp "$field:(\\d+)" [r info clients] -> v]} { return $v }
    return -1
}

proc cg_ids {entries} {
    set ids {}
    foreach e $entries { lappend ids [lindex $e 0] }
    return $ids
}

# Keyspace events {event key ...} fired while running script.
proc cg_keyevents {script} {
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

# The commandstats line of one command.
proc cg_cmdstat {cmd} {
    foreach line [split [r info commandstats] "\n"] {
        if {[string match "cmdstat_$cmd:*" $line]} { return [string trim $line] }
    }
    return ""
}

# A stream s with entries 1-0 .. n-0 and group g at 0.
proc cg_setup {n} {
    r del s
    for {set i 1} {$i <= $n} {incr i} { r xadd s $i-0 f $i }
    r xgroup create s g 0 mkstream
}

start_server {tags {"stream"}} {

    test "XGROUP CREATE: creation and errors" {
        r del s
        assert_error "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically." {r xgroup create s g $}
        assert_equal OK [r xgroup create s g $ mkstream]
        assert_equal 1 [r exists s]
        assert_equal 0 [r xlen s]
        assert_error "BUSYGROUP Consumer Group name already exists" {r xgroup create s g $}
        assert_error "ERR Invalid stream ID*" {r xgroup create s g2 abc}
        assert_error "ERR value for ENTRIESREAD must be positive or -1" {r xgroup create s g2 0 entriesread -2}
        assert_error "ERR unknown subcommand or wrong number of arguments for 'create'*" {r xgroup create s g2 0 foo}
        assert_error "ERR wrong number of arguments for 'xgroup|create' command" {r xgroup create s g2}
        assert_error "ERR unknown subcommand 'foo'. Try XGROUP HELP." {r xgroup foo}
        r set str x
        assert_error "WRONGTYPE*" {r xgroup create str g 0}
        assert_match "*CREATE*" [r xgroup help]
    }

    test "XGROUP CREATE with ENTRIESREAD and $" {
        cg_setup 5
        r xgroup create s g2 $
        r xgroup create s g3 0 entriesread 3
        set groups [r xinfo groups s]
        assert_equal {g g2 g3} [list [dict get [lindex $groups 0] name] [dict get [lindex $groups 1] name] [dict get [lindex $groups 2] name]]
        assert_equal 5-0 [dict get [lindex $groups 1] last-delivered-id]
        assert_equal 0 [dict get [lindex $groups 1] lag]
        assert_equal 3 [dict get [lindex $groups 2] entries-read]
        assert_equal 2 [dict get [lindex $groups 2] lag]
    }

    tags {"valkey-only"} {
        # Redis 7.0 leaves entries-read unknown (nil) after CREATE ... $.
        test "XGROUP CREATE with $ knows its entries-read" {
            cg_setup 5
            r xgroup create s g2 $
            assert_equal 5 [dict get [lindex [r xinfo groups s] 1] entries-read]
        }
    }

    test "XREADGROUP > delivers new entries and makes them pending" {
        cg_setup 3
        assert_equal {{s {{1-0 {f 1}} {2-0 {f 2}}}}} [r xreadgroup group g alice count 2 streams s >]
        assert_equal {{s {{3-0 {f 3}}}}} [r xreadgroup group g bob streams s >]
        assert_equal {} [r xreadgroup group g bob streams s >]
        set p [r xpending s g]
        assert_equal {3 1-0 3-0 {{alice 2} {bob 1}}} $p
    }

    test "XREADGROUP with an ID replays the consumer's history" {
        cg_setup 4
        r xreadgroup group g alice count 3 streams s >
        r xreadgroup group g bob streams s >
        assert_equal {{s {{1-0 {f 1}} {2-0 {f 2}} {3-0 {f 3}}}}} [r xreadgroup group g alice streams s 0]
        assert_equal {{s {{2-0 {f 2}} {3-0 {f 3}}}}} [r xreadgroup group g alice streams s 1-0]
        assert_equal {{s {{2-0 {f 2}}}}} [r xreadgroup group g alice count 1 streams s 1]
        assert_equal {{s {}}} [r xreadgroup group g alice streams s 3-0]
        assert_equal {{s {}}} [r xreadgroup group g nobody streams s 0]
        r xack s g 2-0
        assert_equal {1-0 3-0} [cg_ids [lindex [r xreadgroup group g alice streams s 0] 0 1]]
        # Each replay is a delivery.
        set ext [r xpending s g - + 10 alice]
        assert_equal 3 [lindex $ext 0 3]
    }

    test "XREADGROUP history shows deleted entries as nil" {
        cg_setup 3
        r xreadgroup group g alice streams s >
        r xdel s 2-0
        assert_equal {{s {{1-0 {f 1}} {2-0 {}} {3-0 {f 3}}}}} [r xreadgroup group g alice streams s 0]
    }

    test "XREADGROUP NOACK does not create pending entries" {
        cg_setup 3
        assert_equal {1-0 2-0 3-0} [cg_ids [lindex [r xreadgroup group g alice noack streams s >] 0 1]]
        assert_equal 0 [lindex [r xpending s g] 0]
        assert_equal 3-0 [dict get [lindex [r xinfo groups s] 0] last-delivered-id]
    }

    test "XREADGROUP errors" {
        cg_setup 1
        assert_error "NOGROUP No such key 's' or consumer group 'nog' in XREADGROUP with GROUP option" {r xreadgroup group nog c streams s >}
        assert_error "NOGROUP No such key 'nokey' or consumer group 'g' in XREADGROUP with GROUP option" {r xreadgroup group g c streams s nokey > >}
        assert_error "ERR The \$ ID is meaningless in the context of XREADGROUP*" {r xreadgroup group g c streams s $}
        assert_error "ERR Missing GROUP option for XREADGROUP" {r xreadgroup count 1 block 0 streams s >}
        assert_error "ERR Unbalanced*list of streams*" {r xreadgroup group g c count 1 streams s}
        assert_error "ERR Invalid stream ID*" {r xreadgroup group g c streams s abc}
        assert_error "ERR wrong number of arguments for 'xreadgroup' command" {r xreadgroup group g c streams s}
        r set str x
        assert_error "WRONGTYPE*" {r xreadgroup group g c streams str >}
    }

    test "XREADGROUP creates the consumer" {
        cg_setup 1
        r xreadgroup group g newc streams s >
        set cons [r xinfo consumers s g]
        assert_equal newc [dict get [lindex $cons 0] name]
        assert_equal 1 [dict get [lindex $cons 0] pending]
    }

    test "XREADGROUP > again after SETID back re-delivers to another consumer" {
        cg_setup 2
        r xreadgroup group g alice streams s >
        r xgroup setid s g 0
        r xreadgroup group g bob streams s >
        assert_equal {2 1-0 2-0 {{bob 2}}} [r xpending s g]
    }

    test "XACK acknowledges, counts, ignores unknown" {
        cg_setup 3
        r xreadgroup group g alice streams s >
        assert_equal 2 [r xack s g 1-0 2-0 2-0 9-0]
        assert_equal 0 [r xack s g 1-0]
        assert_equal 0 [r xack s nog 3-0]
        assert_equal 0 [r xack nokey g 3-0]
        assert_error "ERR Invalid stream ID*" {r xack s g 3-0 abc}
        assert_equal 1 [lindex [r xpending s g] 0]
        assert_equal 1 [r xack s g 3-0]
        assert_equal {0 {} {} {}} [r xpending s g]
    }

    test "XPENDING summary, extended form, consumer filter" {
        cg_setup 5
        r xreadgroup group g alice count 2 streams s >
        r xreadgroup group g bob count 3 streams s >
        assert_equal {5 1-0 5-0 {{alice 2} {bob 3}}} [r xpending s g]
        set ext [r xpending s g - + 10]
        assert_equal 5 [llength $ext]
        assert_equal {1-0 alice} [lrange [lindex $ext 0] 0 1]
        assert_equal 1 [lindex $ext 0 3]
        assert_equal {3-0 4-0 5-0} [cg_ids [r xpending s g - + 10 bob]]
        assert_equal {2-0 3-0} [cg_ids [r xpending s g 2 3 10]]
        assert_equal {3-0 4-0} [cg_ids [r xpending s g (2-0 (5-0 10]]
        assert_equal {1-0 2-0} [cg_ids [r xpending s g - + 2]]
        assert_equal {} [r xpending s g - + 0]
        assert_equal {} [r xpending s g - + -1]
        assert_equal {} [r xpending s g - + 10 nobody]
    }

    test "XPENDING with IDLE" {
        cg_setup 2
        r xreadgroup group g alice streams s >
        # Make 1-0 look delivered 100 s ago.
        r xclaim s g alice 0 1-0 idle 100000 justid
        set ext [r xpending s g idle 50000 - + 10]
        assert_equal {1-0} [cg_ids $ext]
        assert {[lindex $ext 0 2] >= 100000}
        assert_equal {1-0} [cg_ids [r xpending s g idle 50000 - + 10 alice]]
        assert_equal {} [r xpending s g idle 50000 - + 10 bob]
        assert_equal {1-0 2-0} [cg_ids [r xpending s g idle 0 - + 10]]
    }

    test "XPENDING errors" {
        cg_setup 1
        assert_error "NOGROUP No such key 's' or consumer group 'nog'" {r xpending s nog}
        assert_error "NOGROUP No such key 'nokey' or consumer group 'g'" {r xpending nokey g}
        assert_error "ERR syntax error*" {r xpending s g idle 10}
        assert_error "ERR syntax error*" {r xpending s g -}
        assert_error "ERR syntax error*" {r xpending s g idle 10 - +}
        assert_error "ERR value is not an integer*" {r xpending s g - + x}
        assert_error "ERR Invalid stream ID*" {r xpending s g x + 10}
    }

    test "XCLAIM moves idle entries to another consumer" {
        cg_setup 3
        r xreadgroup group g alice streams s >
        after 50
        assert_equal {{1-0 {f 1}} {2-0 {f 2}}} [r xclaim s g bob 40 1-0 2-0]
        assert_equal {{alice 1} {bob 2}} [lindex [r xpending s g] 3]
        # Just claimed: not idle enough for a second claim.
        assert_equal {} [r xclaim s g carol 40 1-0]
        set ext [r xpending s g - + 10 bob]
        assert_equal 2 [lindex $ext 0 3]
    }

    test "XCLAIM JUSTID does not count a delivery" {
        cg_setup 1
        r xreadgroup group g alice streams s >
        assert_equal {1-0} [r xclaim s g bob 0 1-0 justid]
        assert_equal 1 [lindex [r xpending s g - + 10] 0 3]
    }

    test "XCLAIM IDLE, TIME and RETRYCOUNT" {
        cg_setup 2
        r xreadgroup group g alice streams s >
        r xclaim s g bob 0 1-0 idle 5000 retrycount 7
        set e [lindex [r xpending s g - + 10] 0]
        assert_equal 7 [lindex $e 3]
        assert {[lindex $e 2] >= 5000}
        set t [expr {[clock milliseconds] - 10000}]
        r xclaim s g bob 0 2-0 time $t
        assert {[lindex [r xpending s g - + 10] 1 2] >= 10000}
        # A TIME in the future counts as now.
        r xclaim s g bob 0 2-0 time [expr {[clock milliseconds] + 100000}]
        assert {[lindex [r xpending s g - + 10] 1 2] < 5000}
    }

    test "XCLAIM FORCE creates pending entries for existing entries only" {
        cg_setup 3
        assert_equal {} [r xclaim s g bob 0 2-0]
        assert_equal {2-0} [r xclaim s g bob 0 2-0 9-0 force justid]
        assert_equal {1 2-0 2-0 {{bob 1}}} [r xpending s g]
    }

    test "XCLAIM LASTID moves the group forward only" {
        cg_setup 3
        r xclaim s g bob 0 1-0 lastid 2-0
        assert_equal 2-0 [dict get [lindex [r xinfo groups s] 0] last-delivered-id]
        r xclaim s g bob 0 1-0 lastid 1-0
        assert_equal 2-0 [dict get [lindex [r xinfo groups s] 0] last-delivered-id]
    }

    test "XCLAIM of a deleted entry drops it from the PEL" {
        cg_setup 2
        r xreadgroup group g alice streams s >
        r xdel s 1-0
        assert_equal {{2-0 {f 2}}} [r xclaim s g bob 0 1-0 2-0]
        assert_equal {1 2-0 2-0 {{bob 1}}} [r xpending s g]
    }

    tags {"valkey-only"} {
        # Redis 7.0 creates the consumer only when something is claimed.
        test "XCLAIM creates the consumer even when nothing is claimed" {
            cg_setup 1
            r xclaim s g newc 0 9-0
            assert_equal newc [dict get [lindex [r xinfo consumers s g] 0] name]
        }
    }

    test "XCLAIM errors" {
        cg_setup 1
        assert_error "NOGROUP No such key 's' or consumer group 'nog'" {r xclaim s nog c 0 1-0}
        assert_error "ERR Invalid min-idle-time argument for XCLAIM" {r xclaim s g c abc 1-0}
        assert_error "ERR Unrecognized XCLAIM option 'foo'" {r xclaim s g c 0 1-0 foo}
        assert_error "ERR Unrecognized XCLAIM option 'abc'" {r xclaim s g c 0 abc}
        assert_error "ERR Invalid IDLE option argument for XCLAIM" {r xclaim s g c 0 1-0 idle x}
        assert_error "ERR Invalid TIME option argument for XCLAIM" {r xclaim s g c 0 1-0 time x}
        assert_error "ERR Invalid RETRYCOUNT option argument for XCLAIM" {r xclaim s g c 0 1-0 retrycount x}
        assert_error "ERR Invalid stream ID*" {r xclaim s g c 0 1-0 lastid x}
    }

    test "XAUTOCLAIM claims idle entries and returns a cursor" {
        cg_setup 5
        r xreadgroup group g alice streams s >
        after 50
        set reply [r xautoclaim s g bob 40 0 count 2]
        assert_equal 3-0 [lindex $reply 0]
        assert_equal {{1-0 {f 1}} {2-0 {f 2}}} [lindex $reply 1]
        assert_equal {} [lindex $reply 2]
        set reply [r xautoclaim s g bob 40 [lindex $reply 0] count 10 justid]
        assert_equal {0-0 {3-0 4-0 5-0} {}} $reply
        assert_equal {{bob 5}} [lindex [r xpending s g] 3]
        # JUSTID did not count deliveries; the first claim did.
        assert_equal {2 2 1 1 1} [lmap e [r xpending s g - + 10] {lindex $e 3}]
    }

    test "XAUTOCLAIM skips entries not idle enough" {
        cg_setup 2
        r xreadgroup group g alice streams s >
        assert_equal {0-0 {} {}} [r xautoclaim s g bob 100000 0]
    }

    test "XAUTOCLAIM returns deleted entries and drops them from the PEL" {
        cg_setup 4
        r xreadgroup group g alice streams s >
        r xdel s 2-0 3-0
        set reply [r xautoclaim s g bob 0 0]
        assert_equal 0-0 [lindex $reply 0]
        assert_equal {1-0 4-0} [cg_ids [lindex $reply 1]]
        assert_equal {2-0 3-0} [lindex $reply 2]
        assert_equal 2 [lindex [r xpending s g] 0]
    }

    test "XAUTOCLAIM: deleted entries count against COUNT, the cursor is the next PEL entry" {
        cg_setup 5
        r xreadgroup group g alice streams s >
        r xdel s 1-0 2-0
        # COUNT 2 is used up by the two deleted IDs.
        assert_equal {3-0 {} {1-0 2-0}} [r xautoclaim s g bob 0 0 count 2 justid]
        assert_equal {5-0 {3-0 4-0} {}} [r xautoclaim s g bob 0 3-0 count 2 justid]
        r xdel s 5-0
        assert_equal {0-0 {} 5-0} [r xautoclaim s g bob 0 5-0 count 2 justid]
        assert_equal 2 [lindex [r xpending s g] 0]
    }

    tags {valkey-only} {
        test "XAUTOCLAIM COUNT is bounded" {
            cg_setup 1
            assert_error "ERR COUNT must be > 0" {r xautoclaim s g c 0 0 count 576460752303423488}
            assert_equal {0-0 {} {}} [r xautoclaim s g c 0 0 count 576460752303423487]
        }
    }

    test "XAUTOCLAIM with an exclusive start" {
        cg_setup 3
        r xreadgroup group g alice streams s >
        assert_equal {0-0 {2-0 3-0} {}} [r xautoclaim s g bob 0 (1-0 justid]
    }

    test "XAUTOCLAIM errors" {
        cg_setup 1
        assert_error "NOGROUP No such key 's' or consumer group 'nog'" {r xautoclaim s nog c 0 0}
        assert_error "ERR COUNT must be > 0" {r xautoclaim s g c 0 0 count 0}
        assert_error "ERR COUNT must be > 0" {r xautoclaim s g c 0 0 count -1}
        assert_error "ERR Invalid min-idle-time argument for XAUTOCLAIM" {r xautoclaim s g c x 0}
        assert_error "ERR Invalid stream ID*" {r xautoclaim s g c 0 x}
        assert_error "ERR syntax error*" {r xautoclaim s g c 0 0 foo}
        # Bad arguments are reported first, then a wrong type, then a
        # missing key or group.
        assert_error "ERR COUNT must be > 0" {r xautoclaim s nog c 0 0 count 0}
        assert_error "ERR Invalid min-idle-time argument for XAUTOCLAIM" {r xautoclaim nokey g c x 0}
        r set str x
        assert_error "ERR Invalid min-idle-time argument for XAUTOCLAIM" {r xautoclaim str g c x 0}
        assert_error "WRONGTYPE*" {r xautoclaim str g c 0 0}
    }

    test "XGROUP SETID" {
        cg_setup 3
        assert_equal OK [r xgroup setid s g 2-0]
        assert_equal {{s {{3-0 {f 3}}}}} [r xreadgroup group g c streams s >]
        assert_equal OK [r xgroup setid s g $]
        assert_equal {} [r xreadgroup group g c streams s >]
        assert_equal OK [r xgroup setid s g 0 entriesread 0]
        assert_equal 0 [dict get [lindex [r xinfo groups s] 0] entries-read]
        assert_error "NOGROUP No such consumer group 'nog' for key name 's'" {r xgroup setid s nog 0}
        assert_error "ERR The XGROUP subcommand requires the key to exist*" {r xgroup setid nokey g 0}
        assert_error "ERR unknown subcommand or wrong number of arguments for 'setid'*" {r xgroup setid s g 0 mkstream}
    }

    test "XGROUP DESTROY" {
        cg_setup 1
        r xreadgroup group g c streams s >
        assert_equal 1 [r xgroup destroy s g]
        assert_equal 0 [r xgroup destroy s g]
        assert_equal {} [r xinfo groups s]
        assert_error "ERR The XGROUP subcommand requires the key to exist*" {r xgroup destroy nokey g}
    }

    test "XGROUP CREATECONSUMER and DELCONSUMER" {
        cg_setup 3
        assert_equal 1 [r xgroup createconsumer s g alice]
        assert_equal 0 [r xgroup createconsumer s g alice]
        r xreadgroup group g alice count 2 streams s >
        r xreadgroup group g bob streams s >
        assert_equal 2 [r xgroup delconsumer s g alice]
        assert_equal 0 [r xgroup delconsumer s g alice]
        assert_equal {1 3-0 3-0 {{bob 1}}} [r xpending s g]
        assert_equal {bob} [lmap c [r xinfo consumers s g] {dict get $c name}]
        assert_error "NOGROUP No such consumer group 'nog' for key name 's'" {r xgroup createconsumer s nog c}
        assert_error "NOGROUP No such consumer group 'nog' for key name 's'" {r xgroup delconsumer s nog c}
        assert_error "ERR wrong number of arguments for 'xgroup|createconsumer' command" {r xgroup createconsumer s g}
    }

    test "XINFO GROUPS and CONSUMERS" {
        cg_setup 3
        r xgroup create s a-group $
        r xreadgroup group g zed count 1 streams s >
        r xreadgroup group g amy streams s >
        set groups [r xinfo groups s]
        assert_equal {a-group g} [lmap x $groups {dict get $x name}]
        set g [lindex $groups 1]
        assert_equal 2 [dict get $g consumers]
        assert_equal 3 [dict get $g pending]
        assert_equal 3-0 [dict get $g last-delivered-id]
        assert_equal 3 [dict get $g entries-read]
        assert_equal 0 [dict get $g lag]
        set cons [r xinfo consumers s g]
        assert_equal {amy zed} [lmap x $cons {dict get $x name}]
        assert_equal {2 1} [lmap x $cons {dict get $x pending}]
        assert {[dict get [lindex $cons 0] idle] >= 0}
        assert_error "ERR no such key" {r xinfo groups nokey}
        assert_error "ERR no such key" {r xinfo consumers nokey g}
        assert_error "NOGROUP No such consumer group 'nog' for key name 's'" {r xinfo consumers s nog}
    }

    tags {"valkey-only"} {
        test "XINFO CONSUMERS reports inactive" {
            cg_setup 1
            r xgroup createconsumer s g idler
            r xreadgroup group g reader streams s >
            set cons [r xinfo consumers s g]
            assert_equal -1 [dict get [lindex $cons 0] inactive]
            assert {[dict get [lindex $cons 1] inactive] >= 0}
        }
    }

    test "XINFO STREAM FULL with groups, consumers and pending entries" {
        cg_setup 3
        r xreadgroup group g alice count 2 streams s >
        set info [r xinfo stream s full]
        assert_equal 1 [llength [dict get $info groups]]
        set g [lindex [dict get $info groups] 0]
        assert_equal g [dict get $g name]
        assert_equal 2-0 [dict get $g last-delivered-id]
        assert_equal 2 [dict get $g entries-read]
        assert_equal 1 [dict get $g lag]
        assert_equal 2 [dict get $g pel-count]
        assert_equal {1-0 alice} [lrange [lindex [dict get $g pending] 0] 0 1]
        set c [lindex [dict get $g consumers] 0]
        assert_equal alice [dict get $c name]
        assert_equal 2 [dict get $c pel-count]
        assert_equal 1-0 [lindex [dict get $c pending] 0 0]
        set g [lindex [dict get [r xinfo stream s full count 1] groups] 0]
        assert_equal 1 [llength [dict get $g pending]]
        assert_equal 2 [dict get $g pel-count]
    }

    test "Consumer group entries-read and lag" {
        r del s
        r xadd s 1-0 a 1
        r xadd s 2-0 a 1
        r xadd s 3-0 a 1
        r xadd s 4-0 a 1
        r xgroup create s g 0
        set g [lindex [r xinfo groups s] 0]
        assert_equal {} [dict get $g entries-read]
        assert_equal 4 [dict get $g lag]
        r xreadgroup group g c count 1 streams s >
        set g [lindex [r xinfo groups s] 0]
        assert_equal 1 [dict get $g entries-read]
        assert_equal 3 [dict get $g lag]
        # A tombstone ahead of the group makes the lag unknown.
        r xdel s 3-0
        assert_equal {} [dict get [lindex [r xinfo groups s] 0] lag]
        r xreadgroup group g c streams s >
        set g [lindex [r xinfo groups s] 0]
        assert_equal 4 [dict get $g entries-read]
        assert_equal 0 [dict get $g lag]
        r xadd s 5-0 a 1
        assert_equal 1 [dict get [lindex [r xinfo groups s] 0] lag]
    }

    test "Consumer group lag after trimming everything read" {
        r del s
        for {set i 1} {$i <= 5} {incr i} { r xadd s $i-0 a 1 }
        r xgroup create s g 0
        r xtrim s maxlen 2
        set g [lindex [r xinfo groups s] 0]
        assert_equal 2 [dict get $g lag]
        r xreadgroup group g c streams s >
        set g [lindex [r xinfo groups s] 0]
        assert_equal 5 [dict get $g entries-read]
        assert_equal 0 [dict get $g lag]
    }

    test "XREADGROUP with RESP3" {
        cg_setup 1
        r hello 3
        assert_equal {s {{1-0 {f 1}}}} [r xreadgroup group g c streams s >]
        r hello 2
    }

    test "Blocking XREADGROUP is woken by XADD" {
        cg_setup 0
        set rd [vk_deferring_client]
        $rd xreadgroup group g alice block 0 streams s >
        cg_wait_blocked 1
        r xadd s 1-0 a 1
        assert_equal {{s {{1-0 {a 1}}}}} [$rd read]
        assert_equal {1 1-0 1-0 {{alice 1}}} [r xpending s g]
        $rd close
    }

    test "Blocking XREADGROUP times out" {
        cg_setup 0
        set rd [vk_deferring_client]
        set start [clock milliseconds]
        $rd xreadgroup group g alice block 100 streams s >
        assert_equal {} [$rd read]
        assert {[clock milliseconds] - $start >= 90}
        $rd close
    }

    test "Blocking XREADGROUP: each entry goes to one consumer" {
        cg_setup 0
        set rd1 [vk_deferring_client]
        set rd2 [vk_deferring_client]
        $rd1 xreadgroup group g c1 block 0 streams s >
        cg_wait_blocked 1
        $rd2 xreadgroup group g c2 block 0 streams s >
        cg_wait_blocked 2
        r xadd s 1-0 a 1
        assert_equal {{s {{1-0 {a 1}}}}} [$rd1 read]
        after 50
        assert_equal 1 [cg_info_field blocked_clients]
        r xadd s 2-0 a 2
        assert_equal {{s {{2-0 {a 2}}}}} [$rd2 read]
        $rd1 close
        $rd2 close
    }

    test "Blocking XREADGROUP with an ID does not block" {
        cg_setup 0
        assert_equal {{s {}}} [r xreadgroup group g alice block 0 streams s 0]
    }

    test "XGROUP DESTROY unblocks XREADGROUP with NOGROUP" {
        cg_setup 0
        set rd [vk_deferring_client]
        $rd xreadgroup group g alice block 0 streams s >
        cg_wait_blocked 1
        r xgroup destroy s g
        assert_error "NOGROUP*" {$rd read}
        $rd close
    }

    tags {valkey-only} {
        test "XREADGROUP errors of Valkey 8: the unbalanced list, the + ID" {
            cg_setup 1
            assert_error "ERR Unbalanced 'xreadgroup' list of streams: for each stream key an ID or '>' must be specified." {r xreadgroup group g c count 1 streams s}
            assert_error "ERR The + ID is meaningless in the context of XREADGROUP*The + ID would just return an empty result set." {r xreadgroup group g c streams s +}
        }
    }

    test "XGROUP DESTROY unblocking XREADGROUP counts a failed call" {
        cg_setup 0
        r config resetstat
        set rd [vk_deferring_client]
        $rd xreadgroup group g alice block 0 streams s >
        cg_wait_blocked 1
        r xgroup destroy s g
        assert_error "NOGROUP*" {$rd read}
        $rd close
        assert_match "*calls=1,*,rejected_calls=0,failed_calls=1*" [cg_cmdstat xreadgroup]
        assert_match "*NOGROUP*count=1*" [r info errorstats]
    }

    test "Blocking XREADGROUP past the last entry left keeps waiting" {
        cg_setup 2
        r xreadgroup group g alice streams s >
        r xadd s 3-0 f 3
        r xdel s 3-0
        # The group is at 2-0, last_id at 3-0, nothing after 2-0 is left.
        assert_equal {} [r xreadgroup group g alice streams s >]
        set rd [vk_deferring_client]
        $rd xreadgroup group g alice block 0 streams s >
        cg_wait_blocked 1
        r xadd s 4-0 f 4
        assert_equal {{s {{4-0 {f 4}}}}} [$rd read]
        $rd close
    }

    # A client blocked in XREADGROUP on s (group g), returned as the
    # deferring client, once the server counts it as blocked.
    proc cg_block_reader {} {
        cg_setup 0
        set rd [vk_deferring_client]
        $rd xreadgroup group g alice block 0 streams s >
        cg_wait_blocked 1
        return $rd
    }

    # The group lives in the key: when the key goes away the waiter is told
    # at once. Valkey 8 re-runs the command, which replies NOGROUP (or
    # WRONGTYPE for a new value of another type); Redis 7.0 instead replies
    # "-UNBLOCKED the stream key no longer exists", hence valkey-only.
    tags {valkey-only} {
        foreach {what script} {
            DEL {r del s}
            UNLINK {r unlink s}
            FLUSHDB {r flushdb}
            FLUSHALL {r flushall}
            "RENAME away" {r rename s s2}
            "MOVE to another db" {r move s 1}
            "expiry (active)" {r pexpire s 20}
        } {
            test "Blocking XREADGROUP: $what unblocks it with NOGROUP" {
                set rd [cg_block_reader]
                eval $script
                assert_error "NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option" {$rd read}
                $rd close
                r select 1
                r flushdb
                r select 0
                assert_equal 0 [cg_info_field blocked_clients]
            }
        }
    }

    # Redis 7.0 replies -UNBLOCKED here instead (see above).
    tags {valkey-only} {
        test "Blocking XREADGROUP: SET over the key unblocks it with WRONGTYPE" {
            set rd [cg_block_reader]
            r set s v
            assert_error "WRONGTYPE*" {$rd read}
            $rd close
        }
    }

    # Redis 7.0 replies -UNBLOCKED here instead (see above).
    tags {valkey-only} {
        test "Blocking XREADGROUP: key replaced by a set in a transaction gives WRONGTYPE" {
            set rd [cg_block_reader]
            r multi
            r del s
            r sadd s e1
            r exec
            assert_error "WRONGTYPE*" {$rd read}
            $rd close
        }
    }

    # Redis 7.0 replies -UNBLOCKED here instead (see above).
    tags {valkey-only} {
        test "Blocking XREADGROUP: SWAPDB with a db missing the key gives NOGROUP" {
            r select 4
            r flushdb
            r select 0
            set rd [cg_block_reader]
            r swapdb 4 0
            assert_error "NOGROUP*" {$rd read}
            r swapdb 4 0
            $rd close
        }
    }

    # Redis 7.0 replies -UNBLOCKED here instead (see above).
    tags {valkey-only} {
        test "Blocking XREADGROUP: SWAPDB with a db where the key is a list gives WRONGTYPE" {
            r select 4
            r flushdb
            r lpush s e1
            r select 0
            set rd [cg_block_reader]
            r swapdb 4 0
            assert_error "WRONGTYPE*" {$rd read}
            r swapdb 4 0
            r select 4
            r flushdb
            r select 0
            $rd close
        }
    }

    test "Blocking XREADGROUP: SWAPDB with the same stream and group keeps waiting" {
        r select 4
        r flushdb
        r xgroup create s g 0 mkstream
        r select 0
        set rd [cg_block_reader]
        r swapdb 4 0
        after 50
        assert_equal 1 [cg_info_field blocked_clients]
        r xadd s 1-0 a 1
        assert_equal {{s {{1-0 {a 1}}}}} [$rd read]
        r swapdb 4 0
        r select 4
        r flushdb
        r select 0
        $rd close
    }

    test "Blocking XREADGROUP: RENAME of a stream with the group serves its entries" {
        set rd [cg_block_reader]
        r del s2
        r xgroup create s2 g 0 mkstream
        r xadd s2 100-0 f1 v1
        r rename s2 s
        assert_equal {{s {{100-0 {f1 v1}}}}} [$rd read]
        $rd close
    }

    test "Blocking XREADGROUP: RENAME of a stream without the group gives NOGROUP" {
        set rd [cg_block_reader]
        r del s2
        r xadd s2 100-0 f1 v1
        r rename s2 s
        assert_error "*NOGROUP*" {$rd read}
        $rd close
    }

    # Redis 7.0 replies -UNBLOCKED here instead (see above).
    tags {valkey-only} {
        test "Blocking XREADGROUP on two keys: deleting the second names it in NOGROUP" {
            cg_setup 0
            r del s2
            r xgroup create s2 g 0 mkstream
            set rd [vk_deferring_client]
            $rd xreadgroup group g alice block 0 streams s s2 > >
            cg_wait_blocked 1
            r del s2
            assert_error "NOGROUP No such key 's2' or consumer group 'g'*" {$rd read}
            $rd close
        }
    }

    # Redis 7.0 replies -UNBLOCKED here instead (see above).
    tags {valkey-only} {
        test "Blocking XREADGROUP: deleting the key wakes only the XREADGROUP waiter" {
            # A BLPOP (blocked before the stream existed) and an XREAD
            # waiting on the same key are not woken by its deletion; only
            # the XREADGROUP waiter is.
            r del s
            set rd2 [vk_deferring_client]
            $rd2 blpop s 0
            cg_wait_blocked 1
            r xgroup create s g 0 mkstream
            set rd [vk_deferring_client]
            $rd xreadgroup group g alice block 0 streams s >
            set rd3 [vk_deferring_client]
            $rd3 xread block 0 streams s $
            cg_wait_blocked 3
            r del s
            assert_error "NOGROUP*" {$rd read}
            after 50
            assert_equal 2 [cg_info_field blocked_clients]
            r xadd s 1-0 a 1
            assert_equal {{s {{1-0 {a 1}}}}} [$rd3 read]
            r del s
            r rpush s x
            assert_equal {s x} [$rd2 read]
            $rd close
            $rd2 close
            $rd3 close
        }
    }

    # total_blocking_keys_on_nokey is 7.2+; 7.0 also replies -UNBLOCKED.
    tags {valkey-only} {
        test "INFO counts keys with XREADGROUP waiters in total_blocking_keys_on_nokey" {
            r del s
            set rd2 [vk_deferring_client]
            $rd2 blpop s 0
            cg_wait_blocked 1
            assert_equal 0 [cg_info_field total_blocking_keys_on_nokey]
            set rd [vk_deferring_client]
            r xgroup create s g 0 mkstream
            $rd xreadgroup group g alice block 0 streams s >
            cg_wait_blocked 2
            assert_equal 1 [cg_info_field total_blocking_keys]
            assert_equal 1 [cg_info_field total_blocking_keys_on_nokey]
            r del s
            assert_error "NOGROUP*" {$rd read}
            assert_equal 1 [cg_info_field total_blocking_keys]
            assert_equal 0 [cg_info_field total_blocking_keys_on_nokey]
            $rd2 close
            cg_wait_blocked 0
            assert_equal 0 [cg_info_field total_blocking_keys]
            $rd close
        }
    }

    test "Blocking XREADGROUP inside MULTI does not block" {
        cg_setup 0
        r multi
        r xreadgroup group g alice block 0 streams s >
        assert_equal {{}} [r exec]
    }

    test "Keyspace events of consumer groups" {
        r del s
        set ev [cg_keyevents {
            r xgroup create s g $ mkstream
            r xgroup createconsumer s g c1
            r xadd s 1-0 a 1
            r xreadgroup group g c2 streams s >
            r xgroup setid s g 0
            r xgroup delconsumer s g c1
            r xgroup destroy s g
        }]
        assert_equal {xgroup-create s xgroup-createconsumer s xadd s xgroup-createconsumer s xgroup-setid s xgroup-delconsumer s xgroup-destroy s} $ev
    }

    test "Deleting the stream drops its groups" {
        cg_setup 1
        r del s
        r xadd s 1-0 a 1
        assert_error "NOGROUP*" {r xreadgroup group g c streams s >}
    }
}

# Redis 7.0 replies -UNBLOCKED here instead.
start_server {tags {"stream needs:debug valkey-only"} overrides {enable-debug-command yes}} {
    test "Blocking XREADGROUP: lazy expiry of the key unblocks it with NOGROUP" {
        r debug set-active-expire 0
        cg_setup 0
        set rd [vk_deferring_client]
        $rd xreadgroup group g alice block 0 streams s >
        cg_wait_blocked 1
        r pexpire s 20
        after 40
        assert_equal 1 [cg_info_field blocked_clients]
        assert_equal 0 [r exists s]
        assert_error "NOGROUP No such key 's'*" {$rd read}
        r debug set-active-expire 1
        $rd close
    }
}
