# Transactions: MULTI / EXEC / DISCARD, errors while queueing (EXECABORT),
# errors at run time, commands refused inside MULTI, blocking commands that
# answer at once, WATCH / UNWATCH with keys modified, expired, flushed and
# swapped, CLIENT LIST / INFO counters, and many clients.  Tests tagged
# "valkey-only" cover behaviour Redis 7.0 does not have.

proc mt_client_field {line field} {
    foreach kv [split [string trim $line]] {
        set eq [string first = $kv]
        if {[string range $kv 0 [expr {$eq - 1}]] eq $field} { return [string range $kv [expr {$eq + 1}] end] }
    }
    error "no field $field in: $line"
}

proc mt_info_field {section field} {
    if {[regexp "$field:(\\d+)" [r info $section] -> v]} { return $v }
    return ""
}

start_server {tags {"multi"} overrides {enable-debug-command yes}
              log_allow {"*maxmemory value set via CONFIG SET*"}} {

    # ------------------------------------------------------------ MULTI / EXEC / DISCARD

    test "MULTI / EXEC basics: commands are queued, then run in order" {
        r del mylist
        r rpush mylist a b c
        assert_equal OK [r multi]
        assert_equal QUEUED [r lrange mylist 0 -1]
        assert_equal QUEUED [r ping]
        assert_equal QUEUED [r rpush mylist d]
        assert_equal {{a b c} PONG 4} [r exec]
    }

    test "Queued commands do not run before EXEC" {
        r del x
        set other [vk_client]
        r multi
        r set x 1
        assert_equal 0 [$other exists x]
        r exec
        assert_equal 1 [$other get x]
        $other close
    }

    test "EXEC of an empty transaction replies an empty array" {
        r multi
        assert_equal {} [r exec]
    }

    test "DISCARD drops the queue" {
        r del x
        r multi
        r set x 1
        r incr x
        assert_equal OK [r discard]
        assert_equal 0 [r exists x]
        assert_equal PONG [r ping]
    }

    # Valkey 8 (unlike Redis 7.0) flags MULTI and WATCH no-multi: refused
    # inside a transaction, they make EXEC fail.
    tags {valkey-only} {
        test "Nested MULTI is refused and makes EXEC fail" {
            r del x
            r multi
            assert_error "ERR Command not allowed inside a transaction" {r multi}
            r set x 1
            assert_error "EXECABORT Transaction discarded because of previous errors." {r exec}
            assert_equal 0 [r exists x]
        }
    }

    test "EXEC and DISCARD without MULTI" {
        assert_error "ERR EXEC without MULTI" {r exec}
        assert_error "ERR DISCARD without MULTI" {r discard}
    }

    test "A run-time error does not stop the other commands" {
        r del s l
        r set s hello
        r multi
        r set s world
        r lpush s x
        r incr s
        r rpush l a
        set res [r exec]
        assert_equal OK [lindex $res 0]
        assert_match "WRONGTYPE*" [lindex $res 1]
        assert_match "*not an integer*" [lindex $res 2]
        assert_equal 1 [lindex $res 3]
        assert_equal world [r get s]
    }

    test "EXEC replies are in RESP3 form on a RESP3 connection" {
        set c [vk_client]
        $c hello 3
        $c multi
        $c hset h f v
        $c hgetall h
        $c get nosuch
        assert_equal {1 {f v} {}} [$c exec]
        $c readraw 1
        $c multi
        $c get nosuch
        set lines [list [$c exec] [$c read]]
        assert_equal {*1 _} $lines
        $c close
    }

    # ------------------------------------------------------------ errors while queueing

    test "An unknown command while queueing aborts the transaction" {
        r del x
        r multi
        r set x 1
        assert_error "*unknown command*" {r nosuchcommand a b}
        r set x 2
        assert_error "EXECABORT Transaction discarded because of previous errors." {r exec}
        assert_equal 0 [r exists x]
    }

    test "A wrong number of arguments while queueing aborts the transaction" {
        r del x
        r multi
        assert_error "*wrong number of arguments for 'set'*" {r set x}
        r set x 2
        assert_error "EXECABORT*" {r exec}
        assert_equal 0 [r exists x]
    }

    test "An unknown subcommand while queueing aborts the transaction" {
        r multi
        assert_error "*unknown subcommand*" {r config nosuch}
        assert_error "EXECABORT*" {r exec}
    }

    test "After EXECABORT the connection is out of MULTI" {
        r multi
        catch {r nosuch}
        catch {r exec}
        assert_equal PONG [r ping]
        assert_error "ERR EXEC without MULTI" {r exec}
    }

    test "DISCARD after a queueing error clears it" {
        r del x
        r multi
        catch {r nosuch}
        assert_equal OK [r discard]
        r multi
        r set x 1
        assert_equal OK [r exec]
    }

    test "Commands flagged no-multi are refused inside MULTI" {
        r multi
        assert_error "ERR Command not allowed inside a transaction" {r shutdown nosave}
        assert_error "EXECABORT*" {r exec}
        r ping
    } PONG

    tags {valkey-only} {
        test "WATCH inside MULTI is refused and makes EXEC fail" {
            r del x
            r multi
            assert_error "ERR Command not allowed inside a transaction" {r watch x}
            r set x 1
            assert_error "EXECABORT Transaction discarded because of previous errors." {r exec}
            assert_equal 0 [r exists x]
        }
    }

    test "EXEC refused with arguments: EXECABORT with the reason" {
        r multi
        r ping
        assert_error "EXECABORT Transaction discarded because of: wrong number of arguments for 'exec' command" {r exec extra}
        assert_error "ERR EXEC without MULTI" {r exec}
    }

    test "MULTI requires authentication like any command" {
        r config set requirepass secret
        set c [vk_client]
        assert_error "NOAUTH*" {$c multi}
        $c auth secret
        assert_equal OK [$c multi]
        $c ping
        assert_equal PONG [$c exec]
        $c close
        r auth secret
        r config set requirepass ""
    }

    test "Over maxmemory, every command is refused while queueing: EXECABORT" {
        r del x
        r config set maxmemory-policy noeviction
        r config set maxmemory 1
        try {
            r multi
            assert_error "OOM*" {r set x 1}
            assert_error "OOM*" {r get x}
            catch {r exec} err
        } finally {
            catch {r discard}
            r config set maxmemory 0
        }
        assert_match "EXECABORT*previous errors*" $err
        assert_equal 0 [r exists x]
    }

    test "Over maxmemory, DISCARD still works" {
        r config set maxmemory 1
        try {
            r multi
            catch {r get x}
            set res [r discard]
        } finally {
            r config set maxmemory 0
        }
        set res
    } OK

    test "EXEC of writes is refused when over maxmemory: EXECABORT with OOM" {
        r del x
        set other [vk_client]
        r multi
        r set x 1
        $other config set maxmemory 1
        catch {r exec} err
        $other config set maxmemory 0
        $other close
        assert_match "EXECABORT Transaction discarded because of: OOM command not allowed*" $err
        assert_equal 0 [r exists x]
        assert_error "ERR EXEC without MULTI" {r exec}
    }

    test "EXEC of reads only runs even when over maxmemory" {
        r set x 1
        set other [vk_client]
        r multi
        r get x
        $other config set maxmemory 1
        catch {r exec} res
        $other config set maxmemory 0
        $other close
        set res
    } {1}

    # ------------------------------------------------------------ commands inside EXEC

    test "Blocking commands inside MULTI answer at once" {
        r del bl bl2
        r multi
        r blpop bl 0
        r brpop bl 1
        r blmove bl bl2 left right 0
        r brpoplpush bl bl2 0
        r blmpop 0 1 bl left
        r rpush bl a
        r blpop bl 0
        set res [r exec]
        assert_equal {{} {} {} {} {} 1 {bl a}} $res
    }

    test "MULTI / EXEC with SELECT switches the db for the following commands" {
        r select 0
        r del x
        r select 9
        r del x
        r select 0
        r multi
        r select 9
        r set x nine
        r select 0
        r set x zero
        r exec
        assert_equal zero [r get x]
        r select 9
        assert_equal nine [r get x]
        r select 0
    }

    test "QUIT inside MULTI closes the connection at once" {
        set c [vk_client]
        $c multi
        $c set quitkey 1
        assert_equal OK [$c quit]
        assert_equal 0 [r exists quitkey]
        $c close
    }

    test "RESET inside MULTI discards the transaction" {
        set c [vk_client]
        $c multi
        $c set resetkey 1
        assert_equal RESET [$c reset]
        assert_error "ERR EXEC without MULTI" {$c exec}
        assert_equal 0 [r exists resetkey]
        $c close
    }

    test "MONITOR sees MULTI, the commands, then EXEC" {
        set mon [vk_deferring_client]
        $mon monitor
        $mon read
        r multi
        r set monkey bar
        r exec
        assert_match {*"multi"*} [$mon read]
        assert_match {*"set"*"monkey"*"bar"*} [$mon read]
        assert_match {*"exec"*} [$mon read]
        r multi
        catch {r nosuchcmd}
        catch {r exec}
        assert_match {*"multi"*} [$mon read]
        assert_match {*"exec"*} [$mon read]
        $mon close
    }

    test "MONITOR inside MULTI is refused at EXEC" {
        r multi
        r monitor
        set res [r exec]
        assert_match "*MONITOR isn't allowed*" [lindex $res 0]
        r ping
    } PONG

    test "Commands run by EXEC are counted in commandstats" {
        r config resetstat
        r multi
        r set a 1
        r set b 2
        r get a
        r exec
        set stats [r info commandstats]
        assert_match "*cmdstat_set:calls=2,*" $stats
        assert_match "*cmdstat_get:calls=1,*" $stats
        assert_match "*cmdstat_exec:calls=1,*" $stats
        assert_match "*cmdstat_multi:calls=1,*" $stats
    }

    test "CLIENT PAUSE WRITE holds an EXEC of writes, not one of reads" {
        r set x 1
        set rd [vk_deferring_client]
        $rd multi
        $rd read
        $rd set x 2
        $rd read
        set ro [vk_client]
        $ro multi
        $ro get x
        r client pause 60000 write
        $rd exec
        wait_for_condition 50 10 {[mt_info_field clients blocked_clients] == 1} { fail "EXEC was not held" }
        assert_equal {1} [$ro exec]
        r client unpause
        assert_equal {OK} [$rd read]
        assert_equal 2 [r get x]
        $rd close
        $ro close
    }

    # ------------------------------------------------------------ WATCH

    test "EXEC fails if a WATCHed key was modified by another client" {
        r set x 30
        set other [vk_client]
        r watch x
        $other set x 40
        r multi
        r ping
        assert_equal {} [r exec]
        assert_equal 40 [r get x]
        $other close
    }

    test "EXEC fails if a WATCHed key was modified by the same client" {
        r set x 30
        r watch x
        r set x 40
        r multi
        r ping
        r exec
    } {}

    test "EXEC succeeds if the WATCHed key was not touched" {
        r set x 30
        r watch x
        r set y 1
        r multi
        r ping
        r exec
    } {PONG}

    test "A failed EXEC replies a null array: *-1 in RESP2, _ in RESP3" {
        set c [vk_client]
        $c set x 1
        $c watch x
        $c set x 2
        $c multi
        $c ping
        $c readraw 1
        assert_equal {*-1} [$c exec]
        $c readraw 0
        $c hello 3
        $c watch x
        $c set x 3
        $c multi
        $c ping
        $c readraw 1
        assert_equal {_} [$c exec]
        $c close
    }

    test "WATCH on a key that does not exist: creating it fails EXEC" {
        r del x
        set other [vk_client]
        r watch x
        $other set x 1
        r multi
        r ping
        assert_equal {} [r exec]
        $other close
    }

    test "WATCH on a key that does not exist: nothing happening lets EXEC run" {
        r del x
        r watch x
        r del x
        r multi
        r ping
        r exec
    } {PONG}

    test "Stale WATCH state does not survive EXEC, successful or not" {
        r set x 1
        r watch x
        r multi
        r ping
        assert_equal PONG [r exec]
        r set x 2
        r multi
        r ping
        assert_equal PONG [r exec]
        r watch x
        r set x 3
        r multi
        r ping
        assert_equal {} [r exec]
        r set x 4
        r multi
        r ping
        assert_equal PONG [r exec]
    }

    test "The transaction's own writes do not fail its EXEC" {
        r set x 1
        r watch x
        r multi
        r set x 2
        r incr x
        assert_equal {OK 3} [r exec]
    }

    test "UNWATCH forgets the keys and the dirty state" {
        r set x 1
        r watch x
        r set x 2
        assert_equal OK [r unwatch]
        r multi
        r ping
        r exec
    } {PONG}

    test "UNWATCH with nothing watched, and inside MULTI" {
        assert_equal OK [r unwatch]
        r multi
        r unwatch
        r exec
    } {OK}

    test "DISCARD clears the dirty state and unwatches" {
        r set x 1
        r watch x
        r set x 2
        r multi
        r discard
        r multi
        r ping
        assert_equal PONG [r exec]
        r watch x
        r multi
        r discard
        r set x 3
        r multi
        r ping
        r exec
    } {PONG}

    test "WATCH of many keys: touching any one fails EXEC" {
        r mset a 1 b 2 c 3
        set other [vk_client]
        r watch a b c
        $other set c 30
        r multi
        r ping
        assert_equal {} [r exec]
        $other close
    }

    test "WATCH remembers the db of the key" {
        r select 9
        r set x 1
        r watch x
        r select 10
        r set x 2
        r select 9
        r multi
        r ping
        assert_equal PONG [r exec]
        r watch x
        r select 10
        r del x
        r select 9
        r set x 3
        r multi
        r ping
        assert_equal {} [r exec]
        r select 0
    }

    test "WATCH is touched by EXPIRE, PERSIST and deletions" {
        foreach cmd {{expire x 100} {del x} {rename x y} {getdel x} {unlink x}} {
            r del x y
            r set x 1
            r persist x
            r watch x
            r {*}$cmd
            r multi
            r ping
            assert_equal {} [r exec] "after $cmd"
        }
    }

    test "WATCH is touched by writes of every type" {
        foreach {setup cmd} {
            {r rpush k a} {r lpop k}
            {r sadd k a} {r srem k a}
            {r hset k f v} {r hdel k f}
            {r set k v} {r append k x}
            {r rpush k a b} {r lset k 0 z}
        } {
            r del k
            eval $setup
            r watch k
            eval $cmd
            r multi
            r ping
            assert_equal {} [r exec] "after $cmd"
        }
    }

    test "A write that changes nothing does not touch WATCHed keys" {
        r del k
        r sadd k a
        r watch k
        r srem k nosuch
        r sadd nosuchset a
        r multi
        r ping
        r exec
    } {PONG}

    # ------------------------------------------------------------ WATCH and expiry

    test "EXEC fails if a WATCHed key expires (lazily deleted)" {
        r del x
        r set x foo px 20
        r watch x
        after 50
        r get x
        r multi
        r ping
        r exec
    } {}

    test "EXEC fails if a WATCHed key expired, even if nothing deleted it" {
        needs_debug
        r debug set-active-expire 0
        r del x
        r set x foo px 20
        r watch x
        after 50
        r multi
        r ping
        set res [r exec]
        r debug set-active-expire 1
        set res
    } {}

    test "A key already stale when WATCHed does not fail EXEC" {
        needs_debug
        r debug set-active-expire 0
        r del x
        r set x foo px 1
        after 10
        r watch x
        r multi
        r ping
        set res [r exec]
        r debug set-active-expire 1
        set res
    } {PONG}

    test "Deleting a key that was stale when WATCHed does not fail EXEC" {
        needs_debug
        r debug set-active-expire 0
        r del x
        r set x foo px 1
        after 10
        r watch x
        r del x
        r get x
        r multi
        r ping
        set res [r exec]
        r debug set-active-expire 1
        set res
    } {PONG}

    test "Re-creating a key that was stale when WATCHed fails EXEC" {
        needs_debug
        r debug set-active-expire 0
        r del x
        r set x foo px 1
        after 10
        r watch x
        r set x bar
        r multi
        r ping
        set res [r exec]
        r debug set-active-expire 1
        set res
    } {}

    test "Active expiry of a WATCHed key fails EXEC" {
        r flushall
        # Long enough for WATCH to see the key even in the emulated RDMA VM.
        r set x foo px 1000
        r watch x
        wait_for_condition 200 50 {[r dbsize] == 0} { fail "key did not expire" }
        r multi
        r ping
        r exec
    } {}

    # ------------------------------------------------------------ WATCH and flushes

    test "FLUSHALL touches WATCHed keys that exist" {
        r select 9
        r set x 1
        r select 0
        r watch x
        r select 9
        r watch x
        r select 0
        r flushall
        r multi
        r ping
        r exec
    } {}

    test "FLUSHALL does not touch WATCHed keys that do not exist" {
        r flushall
        r watch x
        r flushall
        r multi
        r ping
        r exec
    } {PONG}

    test "FLUSHDB touches WATCHed keys of that db only" {
        r flushall
        r set x 1
        r watch x
        r select 9
        r flushdb
        r select 0
        r multi
        r ping
        assert_equal PONG [r exec]
        r watch x
        r flushdb
        r multi
        r ping
        r exec
    } {}

    test "FLUSHDB does not touch WATCHed keys that do not exist" {
        r flushall
        r set other 1
        r watch x
        r flushdb
        r multi
        r ping
        r exec
    } {PONG}

    test "FLUSHDB of a db holding only stale WATCHed keys does not fail EXEC" {
        needs_debug
        r flushall
        r debug set-active-expire 0
        r set x foo px 1
        after 10
        r watch x
        r flushdb
        r multi
        r ping
        set res [r exec]
        r debug set-active-expire 1
        set res
    } {PONG}

    test "SWAPDB touches WATCHed keys that exist" {
        r flushall
        r select 0
        r set x 1
        r watch x
        r swapdb 0 1
        r multi
        r ping
        r exec
    } {}

    test "SWAPDB touches WATCHed keys that appear from the other db" {
        r flushall
        r select 1
        r set x 1
        r select 0
        r watch x
        r swapdb 0 1
        r multi
        r ping
        r exec
    } {}

    test "SWAPDB does not touch WATCHed keys absent from both dbs" {
        r flushall
        r select 1
        r set y 1
        r select 0
        r watch x
        r swapdb 0 1
        r multi
        r ping
        r exec
    } {PONG}

    test "SWAPDB does not touch a stale WATCHed key replaced by nothing" {
        needs_debug
        r flushall
        r debug set-active-expire 0
        r set x foo px 1
        after 10
        r watch x
        r swapdb 0 1
        r multi
        r ping
        set res [r exec]
        r debug set-active-expire 1
        r flushall
        set res
    } {PONG}

    test "SWAPDB does not touch a missing WATCHed key replaced by a stale one" {
        needs_debug
        r flushall
        r debug set-active-expire 0
        r select 1
        r set x foo px 1
        r select 0
        after 10
        r watch x
        r swapdb 0 1
        r multi
        r ping
        set res [r exec]
        r debug set-active-expire 1
        r flushall
        set res
    } {PONG}

    test "SWAPDB does not touch a stale WATCHed key replaced by another stale one" {
        needs_debug
        r flushall
        r debug set-active-expire 0
        r set x foo px 1
        r select 1
        r set x bar px 1
        r select 0
        after 10
        r watch x
        r swapdb 0 1
        r multi
        r ping
        set res [r exec]
        r debug set-active-expire 1
        r flushall
        set res
    } {PONG}

    test "SWAPDB with the same index touches nothing" {
        r flushall
        r set x 1
        r watch x
        r swapdb 0 0
        r multi
        r ping
        r exec
    } {PONG}

    # ------------------------------------------------------------ introspection

    test "CLIENT LIST: multi= counts queued commands, flags x and d" {
        set c [vk_client]
        set id [$c client id]
        assert_equal -1 [mt_client_field [r client list id $id] multi]
        $c multi
        assert_equal 0 [mt_client_field [r client list id $id] multi]
        assert_equal x [mt_client_field [r client list id $id] flags]
        $c set a 1
        $c set b 2
        set line [r client list id $id]
        assert_equal 2 [mt_client_field $line multi]
        assert {[mt_client_field $line multi-mem] > 0}
        $c discard
        r set x 1
        $c watch x
        r set x 2
        assert_equal d [mt_client_field [r client list id $id] flags]
        $c unwatch
        assert_equal N [mt_client_field [r client list id $id] flags]
        $c close
    }

    tags {valkey-only} {
        test "CLIENT LIST: watch= counts watched keys" {
            set c [vk_client]
            set id [$c client id]
            assert_equal 0 [mt_client_field [r client list id $id] watch]
            $c watch a b c
            $c watch a
            assert_equal 3 [mt_client_field [r client list id $id] watch]
            $c multi
            $c ping
            $c exec
            assert_equal 0 [mt_client_field [r client list id $id] watch]
            $c close
        }

        test "INFO clients: watching_clients and total_watched_keys" {
            set c1 [vk_client]
            set c2 [vk_client]
            assert_equal 0 [mt_info_field clients watching_clients]
            assert_equal 0 [mt_info_field clients total_watched_keys]
            $c1 watch a b
            $c2 watch b c
            $c2 select 9
            $c2 watch a
            assert_equal 2 [mt_info_field clients watching_clients]
            assert_equal 4 [mt_info_field clients total_watched_keys]
            $c1 unwatch
            assert_equal 1 [mt_info_field clients watching_clients]
            assert_equal 3 [mt_info_field clients total_watched_keys]
            $c2 close
            wait_for_condition 50 10 {[mt_info_field clients watching_clients] == 0} { fail "watcher not released" }
            assert_equal 0 [mt_info_field clients total_watched_keys]
            $c1 close
        }
    }

    # ------------------------------------------------------------ many clients

    test "Many clients watching one key: one write fails them all" {
        r set shared 0
        set clients {}
        for {set i 0} {$i < 30} {incr i} {
            set c [vk_client]
            $c watch shared
            lappend clients $c
        }
        r incr shared
        foreach c $clients {
            $c multi
            $c incr shared
            assert_equal {} [$c exec]
            $c close
        }
        assert_equal 1 [r get shared]
    }

    test "Optimistic locking: concurrent increments with WATCH retries lose nothing" {
        r set counter 0
        set clients {}
        for {set i 0} {$i < 10} {incr i} { lappend clients [vk_client] }
        set retries 0
        for {set round 0} {$round < 20} {incr round} {
            # Every client reads, then all try to commit: only the first wins.
            set vals {}
            foreach c $clients {
                $c watch counter
                lappend vals [$c get counter]
            }
            set won 0
            foreach c $clients v $vals {
                $c multi
                $c set counter [expr {$v + 1}]
                if {[$c exec] ne {}} { incr won } else { incr retries }
            }
            assert_equal 1 $won
        }
        assert_equal 20 [r get counter]
        assert_equal [expr {20 * 9}] $retries
        foreach c $clients { $c close }
    }

    test "Clients in MULTI do not see each other's queued commands" {
        r del q
        set c1 [vk_client]
        set c2 [vk_client]
        $c1 multi
        $c2 multi
        $c1 rpush q 1
        $c2 rpush q 2
        $c1 rpush q 3
        assert_equal {1} [$c2 exec]
        assert_equal {2 3} [$c1 exec]
        assert_equal {2 1 3} [r lrange q 0 -1]
        $c1 close
        $c2 close
    }

    test "A client closed in the middle of MULTI leaves nothing behind" {
        set c [vk_client]
        $c client setname leaving
        $c watch leftover
        $c multi
        $c set leftover 1
        $c close
        wait_for_condition 50 10 {![string match "*name=leaving *" [r client list]]} {
            fail "client still listed"
        }
        assert_equal 0 [r exists leftover]
        r set leftover 2
        r ping
    } PONG
}

# A busy script answers BUSY to the commands it cannot let through; inside
# MULTI that refusal spoils the transaction like any queueing error.
start_server {tags {multi scripting valkey-only} overrides {busy-reply-threshold 50} log_allow {"*Slow script detected*"}} {
    proc mt_start_busy_script {rd} {
        $rd eval {local t = redis.call('time') while true do end} 0
        wait_for_condition 100 10 {[catch {r ping} e] && [string match BUSY* $e]} {
            fail "the script did not become busy"
        }
    }

    test "MULTI is allowed while a script is busy; commands queued then make EXEC fail" {
        set rd [vk_deferring_client]
        set c [vk_client]
        mt_start_busy_script $rd
        assert_equal OK [$c multi]
        assert_error "BUSY*" {$c set x 1}
        assert_equal OK [r script kill]
        assert_error "*killed by user*" {$rd read}
        assert_error "EXECABORT Transaction discarded because of previous errors." {$c exec}
        assert_equal 0 [r exists x]
        $c close
        $rd close
    }

    test "EXEC sent while a script is busy: EXECABORT with BUSY" {
        set rd [vk_deferring_client]
        set c [vk_client]
        assert_equal OK [$c multi]
        assert_equal QUEUED [$c set x 1]
        mt_start_busy_script $rd
        assert_error "EXECABORT Transaction discarded because of: BUSY *" {$c exec}
        assert_equal OK [r script kill]
        assert_error "*killed by user*" {$rd read}
        assert_error "ERR EXEC without MULTI" {$c exec}
        assert_equal 0 [r exists x]
        $c close
        $rd close
    }

    test "DISCARD is allowed while a script is busy" {
        set rd [vk_deferring_client]
        set c [vk_client]
        assert_equal OK [$c multi]
        mt_start_busy_script $rd
        assert_equal OK [$c discard]
        assert_equal OK [r script kill]
        assert_error "*killed by user*" {$rd read}
        $c close
        $rd close
    }
}
