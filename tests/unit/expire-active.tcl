# Active expiry (the server reclaiming expired keys nobody reads) and the
# statistics it reports, plus the finer points of the TTL replies.
# tests/unit/expire.tcl covers the EXPIRE family's arguments and lazy expiry.

proc ea_info_field {section field} {
    if {[regexp "(?:^|\n)$field:(\[^\r\n\]*)" [r info $section] -> value]} { return $value }
    return ""
}

proc ea_expired {} {
    return [ea_info_field stats expired_keys]
}

start_server {tags {"expire"} overrides {hz 100}} {
    tags {rdma:skip:timing} {
        test "Active expiry deletes 1000 keys nobody touches" {
            r flushall
            set before [ea_expired]
            # One round trip for the 1000 SETs, and a TTL that outlives
            # writing them even on a loaded machine.
            set sets {}
            for {set i 0} {$i < 1000} {incr i} { lappend sets [list set k$i v px 1000] }
            r_pipeline $sets
            r set keeper v
            # DBSIZE does not expire anything itself.
            assert_equal 1001 [r dbsize]
            wait_for_condition 200 50 {[r dbsize] == 1} {
                fail "active expiry left [r dbsize] keys"
            }
            assert_equal 1000 [expr {[ea_expired] - $before}]
            r get keeper
        } v
    }

    test "Active expiry removes only the keys that are due" {
        r flushall
        set before [ea_expired]
        for {set i 0} {$i < 500} {incr i} {
            r set short$i v px 100
            r set long$i v ex 1000
        }
        wait_for_condition 100 50 {[r dbsize] == 500} {
            fail "expected 500 keys left, have [r dbsize]"
        }
        after 300
        assert_equal 500 [r dbsize]
        assert_equal 500 [expr {[ea_expired] - $before}]
        assert_range [r ttl long499] 990 1000
    }

    test "Active expiry reaches every database" {
        r flushall
        foreach db {0 3 15} {
            r select $db
            for {set i 0} {$i < 50} {incr i} { r set k$i v px 100 }
        }
        r select 0
        wait_for_condition 100 50 {![string match "*keys=*" [r info keyspace]]} {
            fail "keys left: [r info keyspace]"
        }
    }

    test "A few expired keys among many live ones are still found" {
        r flushall
        for {set i 0} {$i < 2000} {incr i} { r set live$i v ex 1000 }
        for {set i 0} {$i < 50} {incr i} { r set dead$i v px 100 }
        # Few stale keys: each cycle samples a little and moves on, but the
        # scan cursor brings every key round eventually.
        wait_for_condition 200 50 {[r dbsize] == 2000} {
            fail "expected 2000 keys left, have [r dbsize]"
        }
    }

    test "INFO keyspace reports the average TTL of volatile keys" {
        r flushall
        for {set i 0} {$i < 100} {incr i} { r set k$i v ex 1000 }
        r set plain v
        wait_for_condition 50 50 {[string match "*avg_ttl=\[1-9\]*" [r info keyspace]]} {
            fail "avg_ttl not computed: [r info keyspace]"
        }
        regexp {db0:keys=(\d+),expires=(\d+),avg_ttl=(\d+)} [r info keyspace] -> keys expires avg
        assert_equal {101 100} [list $keys $expires]
        assert_range $avg 900000 1000000
    }

    test "INFO stats reports the expire cycle statistics" {
        set stats [r info stats]
        foreach field {expired_keys expired_stale_perc expired_time_cap_reached_count
                       expire_cycle_cpu_milliseconds} {
            assert_match "*$field:*" $stats
        }
        assert {[string is double -strict [ea_info_field stats expired_stale_perc]]}
    }
}

start_server {tags {"expire needs:debug"} overrides {hz 100 enable-debug-command yes}} {
    test "DEBUG SET-ACTIVE-EXPIRE 0 stops active expiry, 1 resumes it" {
        needs_debug
        r flushall
        set before [ea_expired]
        r debug set-active-expire 0
        for {set i 0} {$i < 1000} {incr i} { r set k$i v px 50 }
        after 500
        assert_equal 1000 [r dbsize]
        assert_equal 0 [expr {[ea_expired] - $before}]
        r debug set-active-expire 1
        wait_for_condition 100 50 {[r dbsize] == 0} {
            fail "active expiry did not resume: [r dbsize] keys left"
        }
        expr {[ea_expired] - $before}
    } 1000

    test "Lazy expiry on access deletes the key and counts it" {
        needs_debug
        r flushall
        r debug set-active-expire 0
        r set k v px 20
        r set k2 v px 20
        after 100
        set before [ea_expired]
        assert_equal 2 [r dbsize]
        assert_equal {} [r get k]
        assert_equal 0 [r exists k2]
        assert_equal 2 [expr {[ea_expired] - $before}]
        set size [r dbsize]
        r debug set-active-expire 1
        set size
    } 0
}

start_server {tags {"expire"}} {
    test "TTL rounds to the nearest second, PTTL does not" {
        r set k v
        r pexpire k 1800
        assert_equal 2 [r ttl k]
        assert_range [r pttl k] 1700 1800
        r pexpire k 1200
        r ttl k
    } 1

    test "EXPIRETIME rounds the deadline to the nearest second" {
        r set k v
        r pexpireat k 2000000000600
        assert_equal 2000000001 [r expiretime k]
        r pexpireat k 2000000000400
        list [r expiretime k] [r pexpiretime k]
    } {2000000000 2000000000400}

    test "TTL commands do not touch the key's access time" {
        r flushall
        r set k v
        after 2100
        r ttl k
        r pttl k
        r expiretime k
        r pexpiretime k
        assert {[r object idletime k] >= 2}
    }

    test "EXPIRE with NX twice in a row, and on a persistent key after PERSIST" {
        r set k v
        assert_equal 1 [r expire k 100 NX]
        assert_equal 0 [r expire k 100 nx]
        assert_equal 1 [r persist k]
        r expire k 100 Nx
    } 1

    test "GT and LT compare against the current absolute deadline" {
        r set k v
        r pexpireat k 5000000000000
        assert_equal 0 [r pexpireat k 5000000000000 gt]
        assert_equal 0 [r pexpireat k 5000000000000 lt]
        assert_equal 1 [r pexpireat k 5000000000001 gt]
        assert_equal 1 [r pexpireat k 4999999999999 lt]
        r pexpiretime k
    } 4999999999999

    test "A past deadline with a condition that fails keeps the key" {
        r set k v
        r expire k 100
        assert_equal 0 [r expire k -1 nx]
        assert_equal 0 [r expire k -1 gt]
        assert_equal 1 [r exists k]
        assert_equal 1 [r expire k -1 lt]
        r exists k
    } 0

    test "Negative absolute times delete the key" {
        r set k v
        assert_equal 1 [r pexpireat k -9223372036854770000]
        r exists k
    } 0

    test "Command metadata of the EXPIRE family" {
        set got {}
        foreach {cmd} {expire pexpire expireat pexpireat ttl pttl expiretime pexpiretime persist} {
            set info [lindex [r command info $cmd] 0]
            lappend got [lindex $info 0] [lindex $info 1] [lindex $info 3] [lindex $info 4] [lindex $info 5]
        }
        set got
    } {expire -3 1 1 1 pexpire -3 1 1 1 expireat -3 1 1 1 pexpireat -3 1 1 1 ttl 2 1 1 1 pttl 2 1 1 1 expiretime 2 1 1 1 pexpiretime 2 1 1 1 persist 2 1 1 1}
}
