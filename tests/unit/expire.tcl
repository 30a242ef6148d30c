# Key expiry: setting and reading TTLs, option combinations and their
# errors, lazy expiry on access and active expiry of keys nobody touches.

start_server {tags {"expire"}} {
    test "EXPIRE sets a TTL and replies 1, 0 for a missing key" {
        r flushall
        r set k v
        assert_equal 1 [r expire k 100]
        assert_range [r ttl k] 99 100
        assert_range [r pttl k] 98000 100000
        r expire nosuch 100
    } 0

    test "TTL and PTTL: -1 without expiry, -2 for a missing key" {
        r set k v
        list [r ttl k] [r pttl k] [r ttl nosuch] [r pttl nosuch]
    } {-1 -1 -2 -2}

    test "PEXPIRE, EXPIREAT and PEXPIREAT" {
        r set k v
        assert_equal 1 [r pexpire k 50000]
        assert_range [r pttl k] 49000 50000
        set at [expr {[clock seconds] + 200}]
        assert_equal 1 [r expireat k $at]
        assert_range [r ttl k] 198 200
        set pat [expr {[clock milliseconds] + 300000}]
        assert_equal 1 [r pexpireat k $pat]
        assert_range [r ttl k] 298 300
    }

    test "EXPIRETIME and PEXPIRETIME return the absolute deadline" {
        r set k v
        assert_equal -1 [r expiretime k]
        assert_equal -1 [r pexpiretime k]
        assert_equal -2 [r expiretime nosuch]
        assert_equal -2 [r pexpiretime nosuch]
        r expireat k 2000000000
        assert_equal 2000000000 [r expiretime k]
        assert_equal 2000000000000 [r pexpiretime k]
        r pexpireat k 2000000000123
        list [r expiretime k] [r pexpiretime k]
    } {2000000000 2000000000123}

    test "An expire time in the past deletes the key at once" {
        r set k v
        assert_equal 1 [r expire k -10]
        assert_equal 0 [r exists k]
        r set k v
        assert_equal 1 [r expireat k 1]
        r exists k
    } 0

    test "EXPIRE NX only sets a TTL when there is none" {
        r del k
        r set k v
        assert_equal 1 [r expire k 100 nx]
        assert_equal 0 [r expire k 200 nx]
        assert_range [r ttl k] 99 100
    }

    test "EXPIRE XX only sets a TTL when there is one" {
        r del k
        r set k v
        assert_equal 0 [r expire k 100 xx]
        assert_equal -1 [r ttl k]
        r expire k 100
        assert_equal 1 [r expire k 200 xx]
        assert_range [r ttl k] 199 200
    }

    test "EXPIRE GT only raises the TTL; no TTL counts as infinite" {
        r del k
        r set k v
        assert_equal 0 [r expire k 100 gt]
        assert_equal -1 [r ttl k]
        r expire k 100
        assert_equal 0 [r expire k 50 gt]
        assert_equal 1 [r expire k 200 gt]
        assert_range [r ttl k] 199 200
    }

    test "EXPIRE LT only lowers the TTL; no TTL counts as infinite" {
        r del k
        r set k v
        assert_equal 1 [r expire k 100 lt]
        assert_equal 0 [r expire k 200 lt]
        assert_equal 1 [r expire k 50 lt]
        assert_range [r ttl k] 49 50
    }

    test "PEXPIRE, EXPIREAT and PEXPIREAT accept the same flags" {
        r del k
        r set k v
        assert_equal 1 [r pexpire k 100000 nx]
        assert_equal 0 [r pexpire k 200000 nx]
        assert_equal 1 [r expireat k [expr {[clock seconds] + 500}] gt]
        assert_equal 0 [r pexpireat k [expr {[clock milliseconds] + 1000000}] lt]
        assert_range [r ttl k] 498 500
    }

    test "Flags on a missing key reply 0" {
        list [r expire nosuch 10 nx] [r expire nosuch 10 xx] [r expire nosuch 10 gt] [r expire nosuch 10 lt]
    } {0 0 0 0}

    test "Incompatible EXPIRE flags and unknown flags" {
        r set k v
        assert_error "ERR NX and XX, GT or LT options at the same time are not compatible" {r expire k 10 nx xx}
        assert_error "ERR NX and XX, GT or LT options at the same time are not compatible" {r expire k 10 nx gt}
        assert_error "ERR NX and XX, GT or LT options at the same time are not compatible" {r pexpire k 10 lt nx}
        assert_error "ERR GT and LT options at the same time are not compatible" {r expire k 10 gt lt}
        assert_error "ERR Unsupported option foo" {r expire k 10 foo}
    }

    test "EXPIRE with a time that is not an integer" {
        r set k v
        assert_error "ERR value is not an integer or out of range" {r expire k abc}
        assert_error "ERR value is not an integer or out of range" {r expire k 1.5}
        assert_error "ERR value is not an integer or out of range" {r pexpire k 99999999999999999999}
    }

    test "EXPIRE with a time that overflows once converted" {
        r set k v
        assert_error "ERR invalid expire time in 'expire' command" {r expire k 9223372036854775807}
        assert_error "ERR invalid expire time in 'expire' command" {r expire k -9223372036854775808}
        assert_error "ERR invalid expire time in 'pexpire' command" {r pexpire k 9223372036854775807}
        assert_error "ERR invalid expire time in 'expireat' command" {r expireat k 9223372036854775807}
        # The key is untouched by the failed attempts.
        list [r get k] [r ttl k]
    } {v -1}

    test "PEXPIREAT at the largest time is accepted (nothing to convert)" {
        r set k v
        assert_equal 1 [r pexpireat k 9223372036854775807]
        list [r get k] [r pexpiretime k]
    } {v 9223372036854775807}

    test "PERSIST removes the TTL" {
        r set k v
        r expire k 100
        assert_equal 1 [r persist k]
        assert_equal -1 [r ttl k]
        assert_equal 0 [r persist k]
        r persist nosuch
    } 0

    test "SET EX, PX, EXAT and PXAT" {
        r set k v ex 100
        assert_range [r ttl k] 99 100
        r set k v px 100000
        assert_range [r pttl k] 99000 100000
        r set k v exat [expr {[clock seconds] + 200}]
        assert_range [r ttl k] 198 200
        r set k v pxat [expr {[clock milliseconds] + 300000}]
        assert_range [r ttl k] 298 300
    }

    test "A plain SET clears the TTL, SET KEEPTTL keeps it" {
        r set k v ex 100
        r set k v2
        assert_equal -1 [r ttl k]
        r set k v ex 100
        r set k v3 keepttl
        assert_range [r ttl k] 99 100
        r get k
    } v3

    test "Other writes keep the TTL: APPEND, INCR, SETRANGE" {
        r set k 1 ex 100
        r incr k
        r append k 0
        r setrange k 0 9
        list [r get k] [expr {[r ttl k] > 90}]
    } {90 1}

    test "GETEX sets, changes and removes the TTL" {
        r set k v
        assert_equal v [r getex k ex 100]
        assert_range [r ttl k] 99 100
        r getex k persist
        r ttl k
    } -1

    test "SET expiry options that do not combine" {
        assert_error "ERR syntax error" {r set k v ex 10 px 10000}
        assert_error "ERR syntax error" {r set k v keepttl ex 10}
        assert_error "ERR syntax error" {r set k v ex 10 exat 10}
        assert_error "ERR syntax error" {r set k v ex}
    }

    test "SET with a zero, negative or overflowing expiry" {
        assert_error "ERR invalid expire time in 'set' command" {r set k v ex 0}
        assert_error "ERR invalid expire time in 'set' command" {r set k v ex -1}
        assert_error "ERR invalid expire time in 'set' command" {r set k v px 0}
        assert_error "ERR invalid expire time in 'set' command" {r set k v ex 9223372036854775807}
        assert_error "ERR invalid expire time in 'set' command" {r set k v px 9223372036854775807}
        assert_error "ERR value is not an integer or out of range" {r set k v ex abc}
    }

    test "SETEX and PSETEX" {
        r setex k 100 v
        assert_range [r ttl k] 99 100
        r psetex k 100000 v
        assert_range [r pttl k] 99000 100000
        assert_error "ERR invalid expire time in 'setex' command" {r setex k 0 v}
        assert_error "ERR invalid expire time in 'psetex' command" {r psetex k -5 v}
    }

    test "A key expires: GET returns nil after the deadline" {
        r set k v px 100
        assert_equal v [r get k]
        after 200
        list [r get k] [r exists k] [r ttl k]
    } {{} 0 -2}

    test "Time stands still while a script runs: a key that expires mid-script is still there" {
        needs_commands eval
        r del k
        r eval {
            server.call('set', KEYS[1], 'v', 'px', 2)
            -- TIME stands still too: wait on the CPU clock.
            local stop = os.clock() + 0.02
            while os.clock() < stop do end
            return {server.call('get', KEYS[1]), server.call('exists', KEYS[1])}
        } 1 k
    } {v 1}

    test "Lazy expiry: expired keys are invisible to every read command" {
        needs_commands lrange rpush
        r flushdb
        r set s v px 50
        r rpush l a px
        r pexpire l 50
        after 150
        list [r exists s l] [r type s] [r keys *] [r lrange l 0 -1] [r dbsize]
    } {0 none {} {} 0}

    test "RENAME keeps the TTL and PERSIST after expiry does nothing" {
        r set k v px 100
        r rename k k2
        after 200
        list [r exists k2] [r persist k2]
    } {0 0}

    test "SCAN never returns expired keys" {
        r flushdb
        for {set i 0} {$i < 50} {incr i} { r set live:$i v }
        for {set i 0} {$i < 50} {incr i} { r set dead:$i v px 10 }
        after 100
        set cursor 0
        set seen {}
        while 1 {
            lassign [r scan $cursor count 100] cursor keys
            lappend seen {*}$keys
            if {$cursor == 0} break
        }
        foreach k $seen { assert_match live:* $k }
        llength $seen
    } 50
}

start_server {tags {"expire"} overrides {hz 100}} {
    tags {rdma:skip:timing} {
        test "Active expiry removes keys nobody accesses" {
            r flushall
            for {set i 0} {$i < 100} {incr i} { r set k$i v px 100 }
            r set keeper v
            # DBSIZE counts keys without expiring them, so it only goes down
            # when the server's own cycle reclaims them.
            assert_equal 101 [r dbsize]
            wait_for_condition 100 50 {[r dbsize] == 1} {
                fail "active expiry left [r dbsize] keys"
            }
            assert_match "*keys=1,expires=0*" [r info keyspace]
        }
    }
}

start_server {tags {"expire needs:debug"} overrides {enable-debug-command yes}} {
    test "Time stands still inside MULTI/EXEC, and moves on after it" {
        needs_debug
        r del k
        r multi
        r set k v px 2
        r debug sleep 0.02
        r get k
        set res [r exec]
        list [lindex $res 2] [r get k]
    } {v {}}

    test "With active expiry disabled, expired keys stay until accessed" {
        needs_debug
        r flushall
        r debug set-active-expire 0
        for {set i 0} {$i < 10} {incr i} { r set k$i v px 10 }
        after 300
        # Still counted: nothing has removed them yet.
        assert_equal 10 [r dbsize]
        # Access removes one lazily.
        assert_equal {} [r get k0]
        assert_equal 9 [r dbsize]
        r debug set-active-expire 1
        wait_for_condition 100 50 {[r dbsize] == 0} {
            fail "active expiry did not resume"
        }
    }
}
