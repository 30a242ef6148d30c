# Blocking list commands: BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP.
# Timeouts (float seconds, 0 = forever, errors), wake-up by another
# client's push, FIFO order between clients waiting on one key, chains of
# BLMOVEs, clients killed or unblocked (CLIENT UNBLOCK) while waiting, the
# INFO counters, the non-blocking behaviour inside MULTI, and the first
# deadline kept by a waiter re-run after its key expired.  Tests tagged
# "valkey-only" cover behaviour Redis 7.0 does not have.

# Waits until INFO reports `n` clients blocked on keys.
proc wait_for_blocked_clients {n} {
    wait_for_condition 100 10 {[list_info_field blocked_clients] == $n} {
        fail "expected $n blocked clients, INFO says [list_info_field blocked_clients]"
    }
}

# total_blocking_keys is 7.2+: checked only where INFO has it.
proc assert_blocking_keys {n} {
    set v [list_info_field total_blocking_keys]
    if {$v != -1} { assert_equal $n $v "total_blocking_keys" }
}

proc list_info_field {field} {
    set info [r info clients]
    if {[regexp "$field:(\\d+)" $info -> v]} { return $v }
    return -1
}

start_server {tags {"list" "blocking"}} {

    test "BLPOP, BRPOP serve at once when a list has data" {
        r del l1 l2
        r rpush l2 a b c
        assert_equal {l2 a} [r blpop l1 l2 0]
        assert_equal {l2 c} [r brpop l1 l2 1]
        assert_equal {l2 b} [r blpop l2 l2 0]
        assert_equal 0 [r exists l2]
    }

    test "BLPOP is woken by a push from another client" {
        r del blist
        set rd [vk_deferring_client]
        $rd blpop blist 0
        wait_for_blocked_clients 1
        assert_blocking_keys 1
        r rpush blist foo
        assert_equal {blist foo} [$rd read]
        assert_equal 0 [r exists blist]
        assert_equal 0 [list_info_field blocked_clients]
        assert_blocking_keys 0
        $rd close
    }

    test "BLPOP with variadic LPUSH gets the head, the rest stays" {
        r del blist
        set rd [vk_deferring_client]
        $rd blpop blist 0
        wait_for_blocked_clients 1
        assert_equal 2 [r lpush blist foo bar]
        assert_equal {blist bar} [$rd read]
        assert_equal {foo} [r lrange blist 0 -1]
        $rd close
    }

    test "BRPOP on several keys: served by whichever gets data" {
        r del k1 k2 k3
        set rd [vk_deferring_client]
        $rd brpop k1 k2 k3 0
        wait_for_blocked_clients 1
        assert_blocking_keys 3
        r rpush k2 x y
        assert_equal {k2 y} [$rd read]
        assert_blocking_keys 0
        $rd close
    }

    test "BLPOP with the same key several times" {
        r del dup
        set rd [vk_deferring_client]
        $rd blpop dup dup dup 0
        wait_for_blocked_clients 1
        r rpush dup a
        assert_equal {dup a} [$rd read]
        assert_equal 0 [r exists dup]
        $rd close
    }

    test "Clients blocked on one key are served first come, first served" {
        r del fifo
        set rds {}
        for {set i 0} {$i < 3} {incr i} {
            set rd [vk_deferring_client]
            $rd blpop fifo 0
            wait_for_blocked_clients [expr {$i + 1}]
            lappend rds $rd
        }
        r rpush fifo a b c
        assert_equal {fifo a} [[lindex $rds 0] read]
        assert_equal {fifo b} [[lindex $rds 1] read]
        assert_equal {fifo c} [[lindex $rds 2] read]
        foreach rd $rds { $rd close }
    }

    test "Only as many clients as elements are served; the rest keep waiting" {
        r del fifo
        set rd1 [vk_deferring_client]
        set rd2 [vk_deferring_client]
        $rd1 brpop fifo 0
        wait_for_blocked_clients 1
        $rd2 brpop fifo 0
        wait_for_blocked_clients 2
        r lpush fifo one
        assert_equal {fifo one} [$rd1 read]
        assert_equal 1 [list_info_field blocked_clients]
        r lpush fifo two
        assert_equal {fifo two} [$rd2 read]
        $rd1 close
        $rd2 close
    }

    test "BLPOP timeout: null reply after the time, float seconds" {
        r del none
        set rd [vk_deferring_client]
        set start [clock milliseconds]
        $rd blpop none 0.2
        assert_equal {} [$rd read]
        set elapsed [expr {[clock milliseconds] - $start}]
        assert_range $elapsed 150 2000
        $rd brpop none 0.01
        assert_equal {} [$rd read]
        $rd close
    }

    test "Timeout null reply forms (RESP2 *-1, RESP3 _), for BLMOVE too" {
        r del none
        set c [vk_client]
        $c readraw 1
        assert_equal {*-1} [$c blpop none 0.01]
        assert_equal {*-1} [$c blmove none other left left 0.01]
        assert_equal {*-1} [$c brpoplpush none other 0.01]
        assert_equal {*-1} [$c blmpop 0.01 1 none left]
        $c readraw 0
        $c hello 3
        $c readraw 1
        assert_equal {_} [$c brpop none 0.01]
        $c close
    }

    test "Timeout 0 blocks until data arrives" {
        r del forever
        set rd [vk_deferring_client]
        $rd blpop forever 0
        wait_for_blocked_clients 1
        after 300
        assert_equal 1 [list_info_field blocked_clients]
        r rpush forever x
        assert_equal {forever x} [$rd read]
        $rd close
    }

    test "INFO clients_in_timeout_table counts the clients blocked with a timeout" {
        r del tt1 tt2
        set rd1 [vk_deferring_client]
        set rd2 [vk_deferring_client]
        $rd1 blpop tt1 100
        $rd2 blpop tt2 0
        wait_for_blocked_clients 2
        assert_equal 1 [list_info_field clients_in_timeout_table]
        r rpush tt1 a
        assert_equal {tt1 a} [$rd1 read]
        r rpush tt2 b
        assert_equal {tt2 b} [$rd2 read]
        wait_for_blocked_clients 0
        assert_equal 0 [list_info_field clients_in_timeout_table]
        $rd1 close
        $rd2 close
    }

    test "Timeout argument errors" {
        assert_error "ERR timeout is negative" {r blpop l -1}
        assert_error "ERR timeout is negative" {r brpop l -0.5}
        assert_error "ERR timeout is not a float or out of range" {r blpop l abc}
        assert_error "ERR timeout is not a float or out of range" {r blmove a b left left xyz}
        assert_error "ERR timeout is not a float or out of range" {r blmpop foo 1 l left}
        assert_error "ERR timeout is negative" {r blmpop -1 1 l left}
        assert_error "ERR timeout is negative" {r brpoplpush a b -1}
    }

    tags {"valkey-only"} {
        test "Timeout too large is out of range" {
            assert_error "ERR timeout is out of range" {r blpop l 9223372036854775807}
            assert_error "ERR timeout is out of range" {r blpop l 1e400}
        }
    }

    test "BLPOP against a key of another type is WRONGTYPE, at once" {
        r del s
        r set s x
        assert_error "WRONGTYPE*" {r blpop s 0}
        assert_error "WRONGTYPE*" {r brpop nolist s 0}
        assert_error "WRONGTYPE*" {r blmove s d left left 0}
        assert_error "WRONGTYPE*" {r blmpop 0 2 nolist s left}
    }

    test "A key created with another type does not wake the client" {
        r del k
        set rd [vk_deferring_client]
        $rd blpop k 0
        wait_for_blocked_clients 1
        r set k string
        after 100
        assert_equal 1 [list_info_field blocked_clients]
        r del k
        r rpush k v
        assert_equal {k v} [$rd read]
        $rd close
    }

    test "BLPOP when the key is moved into place by RENAME" {
        r del foo bob
        set rd [vk_deferring_client]
        $rd blpop foo 0
        wait_for_blocked_clients 1
        r lpush bob abc def hij
        r rename bob foo
        assert_equal {foo hij} [$rd read]
        assert_equal {def abc} [r lrange foo 0 -1]
        $rd close
    }

    test "BLMPOP: blocks, then pops COUNT from the first key with data" {
        r del m1 m2
        set rd [vk_deferring_client]
        $rd blmpop 0 2 m1 m2 right count 2
        wait_for_blocked_clients 1
        r rpush m2 a b c
        assert_equal {m2 {c b}} [$rd read]
        assert_equal {a} [r lrange m2 0 -1]
        assert_equal {m2 a} [r blmpop 0 2 m1 m2 left count 5]
        $rd close
    }

    test "BLMPOP argument errors" {
        assert_error "ERR numkeys*" {r blmpop 0 0 l left}
        assert_error "ERR syntax error*" {r blmpop 0 1 l middle}
        assert_error "ERR count*" {r blmpop 0 1 l left count 0}
        assert_error "ERR wrong number of arguments for 'blmpop' command" {r blmpop 0 1 l}
    }

    test "BLMOVE and BRPOPLPUSH wake up and move the element" {
        r del src dst
        set rd [vk_deferring_client]
        $rd blmove src dst left right 0
        wait_for_blocked_clients 1
        r rpush src a b
        assert_equal a [$rd read]
        assert_equal {b} [r lrange src 0 -1]
        assert_equal {a} [r lrange dst 0 -1]
        r del src
        $rd brpoplpush src dst 0
        wait_for_blocked_clients 1
        r rpush src z
        assert_equal z [$rd read]
        assert_equal {z a} [r lrange dst 0 -1]
        assert_equal 0 [r exists src]
        $rd close
    }

    test "Linked BLMOVEs: a push flows down the chain" {
        r del list1 list2 list3
        set rd1 [vk_deferring_client]
        set rd2 [vk_deferring_client]
        $rd1 blmove list1 list2 right left 0
        wait_for_blocked_clients 1
        $rd2 blmove list2 list3 left right 0
        wait_for_blocked_clients 2
        r rpush list1 foo
        assert_equal foo [$rd1 read]
        assert_equal foo [$rd2 read]
        assert_equal {} [r lrange list1 0 -1]
        assert_equal {} [r lrange list2 0 -1]
        assert_equal {foo} [r lrange list3 0 -1]
        $rd1 close
        $rd2 close
    }

    test "Circular BRPOPLPUSH" {
        r del list1 list2
        set rd1 [vk_deferring_client]
        set rd2 [vk_deferring_client]
        $rd1 brpoplpush list1 list2 0
        wait_for_blocked_clients 1
        $rd2 brpoplpush list2 list1 0
        wait_for_blocked_clients 2
        r rpush list1 foo
        assert_equal foo [$rd1 read]
        assert_equal foo [$rd2 read]
        assert_equal {foo} [r lrange list1 0 -1]
        assert_equal {} [r lrange list2 0 -1]
        $rd1 close
        $rd2 close
    }

    test "Self-referential BRPOPLPUSH" {
        r del blist
        set rd [vk_deferring_client]
        $rd brpoplpush blist blist 0
        wait_for_blocked_clients 1
        r rpush blist foo
        assert_equal foo [$rd read]
        assert_equal {foo} [r lrange blist 0 -1]
        $rd close
    }

    test "BRPOPLPUSH feeding a client BLPOPing the target" {
        r del blist target
        set rd1 [vk_deferring_client]
        set rd2 [vk_deferring_client]
        $rd1 brpoplpush blist target 0
        wait_for_blocked_clients 1
        $rd2 blpop target 0
        wait_for_blocked_clients 2
        r rpush blist foo
        assert_equal foo [$rd1 read]
        assert_equal {target foo} [$rd2 read]
        assert_equal 0 [r exists target]
        $rd1 close
        $rd2 close
    }

    test "BLMOVE onto a wrong-type destination: error, element stays" {
        r del blist target
        r set target nolist
        set rd [vk_deferring_client]
        $rd blmove blist target left left 0
        wait_for_blocked_clients 1
        r rpush blist foo
        assert_error "WRONGTYPE*" {$rd read}
        assert_equal {foo} [r lrange blist 0 -1]
        $rd close
    }

    test "A client killed while blocked leaves no trace" {
        r del kl
        set rd [vk_deferring_client]
        $rd client setname victim
        $rd read
        $rd blpop kl 0
        wait_for_blocked_clients 1
        r client kill type normal skipme yes
        wait_for_blocked_clients 0
        assert_blocking_keys 0
        r rpush kl a
        assert_equal {a} [r lrange kl 0 -1]
    }

    test "A client that closes while blocked leaves no trace" {
        r del kl
        set rd [vk_deferring_client]
        $rd blpop kl 0
        wait_for_blocked_clients 1
        $rd close
        wait_for_blocked_clients 0
        r rpush kl a
        assert_equal {a} [r lrange kl 0 -1]
    }

    test "CLIENT UNBLOCK: default, TIMEOUT and ERROR" {
        r del ul
        set rd [vk_deferring_client]
        $rd client id
        set id [$rd read]
        $rd blpop ul 0
        wait_for_blocked_clients 1
        assert_equal 1 [r client unblock $id]
        assert_equal {} [$rd read]
        $rd blmove ul other left left 0
        wait_for_blocked_clients 1
        assert_equal 1 [r client unblock $id timeout]
        assert_equal {} [$rd read]
        $rd blpop ul 0
        wait_for_blocked_clients 1
        assert_equal 1 [r client unblock $id error]
        assert_error "UNBLOCKED client unblocked via CLIENT UNBLOCK" {$rd read}
        assert_equal 0 [r client unblock $id]
        assert_equal 0 [r client unblock [r client id]]
        assert_error "ERR value is not an integer or out of range" {r client unblock abc}
        assert_error "ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR" {r client unblock $id foo}
        # still usable afterwards
        $rd blpop ul 0
        wait_for_blocked_clients 1
        r lpush ul foo
        assert_equal {ul foo} [$rd read]
        $rd close
    }

    test "Pipelined commands after a blocking one run once it is served" {
        r del pl
        set rd [vk_deferring_client]
        $rd blpop pl 0
        $rd ping
        wait_for_blocked_clients 1
        r rpush pl x
        assert_equal {pl x} [$rd read]
        assert_equal PONG [$rd read]
        $rd close
    }

    test "Blocked clients time out independently of served ones" {
        r del t1 t2
        set rd1 [vk_deferring_client]
        set rd2 [vk_deferring_client]
        $rd1 blpop t1 0.3
        $rd2 blpop t2 0
        wait_for_blocked_clients 2
        assert_equal {} [$rd1 read]
        assert_equal 1 [list_info_field blocked_clients]
        r rpush t2 v
        assert_equal {t2 v} [$rd2 read]
        $rd1 close
        $rd2 close
    }

    test "SWAPDB wakes clients blocked on a key that appears" {
        r select 9
        r del sw
        r select 0
        set rd [vk_deferring_client]
        $rd select 9
        $rd read
        $rd blpop sw 0
        wait_for_blocked_clients 1
        r del sw
        r rpush sw hello
        r swapdb 0 9
        assert_equal {sw hello} [$rd read]
        r swapdb 0 9
        r select 0
        $rd close
    }
}

start_server {tags {"list" "blocking" "needs:debug"} overrides {enable-debug-command yes}} {
    # The key a blocked client waits on is filled and made to expire in one
    # transaction that outlives the expiry: the waiter is re-run, finds
    # nothing, and waits again until its first deadline, not a new one.
    foreach {cmd args} {
        BLPOP {l 1}
        BLMOVE {l dst left left 1}
        BLMPOP {1 1 l left}
        BZPOPMIN {l 1}
        BZMPOP {1 1 l min}
    } {
        test "$cmd blocked again after its key expired keeps its first deadline" {
            r flushall
            r debug set-active-expire 0
            set rd [vk_deferring_client]
            set start [clock milliseconds]
            $rd [string tolower $cmd] {*}$args
            wait_for_blocked_clients 1
            r multi
            if {[string match BZ* $cmd]} { r zadd l 1 a } else { r rpush l a }
            r pexpire l 100
            r debug sleep 0.2
            r exec
            assert_equal {} [$rd read]
            set elapsed [expr {[clock milliseconds] - $start}]
            r debug set-active-expire 1
            $rd close
            assert_range $elapsed 950 1150
        }
    }
}
