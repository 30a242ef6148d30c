# Standalone replicas sending clients to their primary (src/redirect.c),
# as Valkey 8 does for a client that declared CLIENT CAPA redirect: its
# data commands (writes, and reads unless it sent READONLY) get
# "-REDIRECT host:port", the primary's address as the replica knows it
# (its replicaof host and port). Scripts and functions are judged by the
# flags they declare, EXEC by its queue; a command redirected inside MULTI
# aborts the transaction, an EXEC redirected drops it. During a FAILOVER
# the commands a capable client sends while the old primary hands its
# role over are held, then redirected to the new primary once it has it
# (or run, if the failover is aborted). Other clients, and every client of
# a primary, see no change. Every test asserts the exact replies.
# Helpers: tests/lib/replication.tcl.

set ::rd_readonly {READONLY You can't write against a read only replica.}
set ::rd_execabort {EXECABORT Transaction discarded because of previous errors.}

# Fails unless body raises exactly the error expected.
proc rd_assert_error {expected body} {
    if {![catch {uplevel 1 $body} err]} {
        fail "expected the error '$expected', got the reply '$err'"
    }
    assert_equal $expected $err
}

# A new client of the server at level that declared CLIENT CAPA redirect.
proc rd_capable_client {{level 0}} {
    set c [vk_client $level]
    assert_equal OK [$c client capa redirect]
    return $c
}

# The same as a deferring client (replies read with `read`).
proc rd_capable_deferring_client {{level 0}} {
    set c [vk_deferring_client $level]
    $c client capa redirect
    assert_equal OK [$c read]
    return $c
}

# The flags field of CLIENT LIST for the client with that id.
proc rd_client_flags {id {level 0}} {
    set line [r $level client list id $id]
    if {![regexp { flags=([^ ]*) } $line -> flags]} { fail "no flags in: $line" }
    return $flags
}

# Waits until the server at level counts n blocked (or held) clients.
proc rd_wait_blocked {n level} {
    wait_for_condition 100 20 {[repl_info blocked_clients $level clients] == $n} {
        fail "expected $n blocked clients at level $level, got [repl_info blocked_clients $level clients]"
    }
}

# A library whose rd_write may write and whose rd_read declares no-writes.
set ::rd_lib [join {
    {#!lua name=rdlib}
    {redis.register_function('rd_write', function(keys, args) return redis.call('set', keys[1], args[1]) end)}
    {redis.register_function{function_name='rd_read', flags={'no-writes'}, callback=function(keys) return redis.call('get', keys[1]) end}}
} "\n"]

tags {repl valkey-only needs:debug} {

start_server {overrides {enable-debug-command yes repl-diskless-sync-delay 0}} {
    start_server {overrides {enable-debug-command yes repl-diskless-sync-delay 0}} {
        set phost [srv -1 host]
        set pport [srv -1 port]
        set redirect "REDIRECT $phost:$pport"

        test "CLIENT CAPA: no capability is an arity error, unknown ones are ignored, any case" {
            set c [vk_client]
            rd_assert_error "ERR wrong number of arguments for 'client|capa' command" {$c client capa}
            assert_equal OK [$c client capa nosuchcapa other]
            assert_equal OK [$c client capa ReDiReCt nosuchcapa]
            assert_match "*CAPA <capability>*REDIRECT*" [$c client help]
        }

        test "On a primary nothing is redirected, READONLY and READWRITE answer OK, ASKING is still cluster-only" {
            # Level 0 is a primary until the next test.
            set c [rd_capable_client]
            assert_equal OK [$c set k v]
            assert_equal v [$c get k]
            assert_equal OK [$c readonly]
            assert_equal OK [$c set k v2]
            assert_equal OK [$c readwrite]
            assert_equal v2 [$c get k]
            rd_assert_error "ERR This instance has cluster support disabled" {$c asking}
            rd_assert_error "ERR This instance has cluster support disabled" {$c cluster info}
            r flushall
        }

        test "A transaction queued on a primary that became a replica: EXEC is redirected and the queue dropped" {
            set c [rd_capable_client]
            assert_equal OK [$c multi]
            assert_equal QUEUED [$c set queued:before 1]
            assert_equal QUEUED [$c incr counter]
            r replicaof $phost $pport
            wait_for_sync
            rd_assert_error $redirect {$c exec}
            rd_assert_error "ERR EXEC without MULTI" {$c exec}
            assert_equal 0 [r exists queued:before counter]
            assert_equal 0 [r -1 exists queued:before counter]
        }

        r -1 set foo bar
        r -1 function load $::rd_lib
        wait_for_ofs_sync -1 0

        test "A replica answers other clients as before: reads run, writes get READONLY" {
            assert_equal bar [r get foo]
            rd_assert_error $::rd_readonly {r set foo other}
            rd_assert_error $::rd_readonly {r fcall rd_write 1 foo other}
        }

        test "A replica redirects a capable client's reads and writes to its replicaof address" {
            set c [rd_capable_client]
            rd_assert_error $redirect {$c get foo}
            rd_assert_error $redirect {$c set foo other}
            rd_assert_error $redirect {$c mget foo k}
            rd_assert_error $redirect {$c dbsize}
            rd_assert_error $redirect {$c scan 0}
            rd_assert_error $redirect {$c del foo}
            # Neither reads nor writes: they run on the replica.
            assert_equal PONG [$c ping]
            assert_equal hi [$c echo hi]
            assert_match "*role:slave*" [$c info replication]
            assert_equal OK [$c select 1]
            assert_equal OK [$c select 0]
            assert_equal bar [r -1 get foo]
            assert_equal bar [r get foo]
        }

        test "The redirect is counted as a rejected call and a REDIRECT error" {
            r config resetstat
            set c [rd_capable_client]
            rd_assert_error $redirect {$c get foo}
            rd_assert_error $redirect {$c get foo}
            assert_match "*cmdstat_get:calls=0,*rejected_calls=2,failed_calls=0*" [r info commandstats]
            assert_match "*errorstat_REDIRECT:count=2*" [r info errorstats]
        }

        test "The address is the replicaof host as given, not a resolved one" {
            set c [rd_capable_client]
            r replicaof localhost $pport
            rd_assert_error "REDIRECT localhost:$pport" {$c get foo}
            r replicaof $phost $pport
            wait_for_sync
            rd_assert_error $redirect {$c get foo}
        }

        test "READONLY: reads run on the replica, writes are still redirected; READWRITE and RESET undo it" {
            set c [rd_capable_client]
            set id [$c client id]
            assert_equal N [rd_client_flags $id]
            assert_equal OK [$c readonly]
            assert_equal r [rd_client_flags $id]
            assert_match "* flags=r *" [$c client info]
            assert_equal bar [$c get foo]
            assert_equal 1 [$c dbsize]
            rd_assert_error $redirect {$c set foo other}
            assert_equal OK [$c readwrite]
            assert_equal N [rd_client_flags $id]
            rd_assert_error $redirect {$c get foo}
            # RESET forgets READONLY, but not the capability (as Valkey).
            assert_equal OK [$c readonly]
            assert_equal RESET [$c reset]
            assert_equal N [rd_client_flags $id]
            rd_assert_error $redirect {$c get foo}
            # READONLY alone does not make a client redirect-capable.
            assert_equal OK [r readonly]
            rd_assert_error $::rd_readonly {r set foo other}
            assert_equal OK [r readwrite]
        }

        test "Scripts and functions are judged by the flags they declare" {
            set c [rd_capable_client]
            set set_body {return redis.call('set', KEYS[1], ARGV[1])}
            set sha [r -1 script load $set_body]
            # Without a shebang a script declares nothing: it runs here and
            # its write fails inside it, as for any client.
            assert_equal 1 [$c eval {return 1} 0]
            rd_assert_error "$::rd_readonly script: $sha, on @user_script:1." {$c eval $set_body 1 foo other}
            # A shebang without no-writes declares a write; EVAL_RO a read.
            rd_assert_error $redirect {$c eval "#!lua\nreturn 1" 0}
            assert_equal bar [$c eval "#!lua flags=no-writes\nreturn redis.call('get', KEYS\[1\])" 1 foo]
            rd_assert_error $redirect {$c eval_ro {return redis.call('get', KEYS[1])} 1 foo}
            rd_assert_error $redirect {$c fcall rd_write 1 foo other}
            assert_equal bar [$c fcall rd_read 1 foo]
            rd_assert_error $redirect {$c fcall_ro rd_read 1 foo}
            assert_equal OK [$c readonly]
            assert_equal bar [$c eval_ro {return redis.call('get', KEYS[1])} 1 foo]
            assert_equal bar [$c fcall_ro rd_read 1 foo]
            rd_assert_error $redirect {$c fcall rd_write 1 foo other}
            rd_assert_error $redirect {$c eval "#!lua\nreturn 1" 0}
            assert_equal bar [r get foo]
        }

        test "Blocking commands are redirected at once; with READONLY a blocking read waits for the primary's write" {
            set c [rd_capable_client]
            rd_assert_error $redirect {$c blpop list 1}
            rd_assert_error $redirect {$c bzpopmin zset 1}
            rd_assert_error $redirect {$c xread block 100 streams stream $}
            set rd [rd_capable_deferring_client]
            $rd readonly
            assert_equal OK [$rd read]
            $rd xread block 0 streams stream $
            rd_wait_blocked 1 0
            r -1 xadd stream 1-1 f v
            assert_equal {{stream {{1-1 {f v}}}}} [$rd read]
            assert_equal 0 [r -1 exists list zset]
        }

        test "MULTI: a redirected command aborts the transaction, commands that are no data access are queued" {
            set c [rd_capable_client]
            assert_equal OK [$c multi]
            rd_assert_error $redirect {$c set foo other}
            assert_equal QUEUED [$c ping]
            rd_assert_error $redirect {$c get foo}
            rd_assert_error $::rd_execabort {$c exec}
            assert_equal OK [$c multi]
            assert_equal QUEUED [$c ping]
            assert_equal QUEUED [$c echo hi]
            assert_equal {PONG hi} [$c exec]
            # With READONLY reads are queued and run; a write still aborts.
            assert_equal OK [$c readonly]
            assert_equal OK [$c multi]
            assert_equal QUEUED [$c get foo]
            assert_equal {bar} [$c exec]
            assert_equal OK [$c multi]
            assert_equal QUEUED [$c get foo]
            rd_assert_error $redirect {$c incr counter}
            rd_assert_error $::rd_execabort {$c exec}
            assert_equal bar [r -1 get foo]
            assert_equal 0 [r -1 exists counter]
        }

        test "Our primary's stream is applied, never redirected" {
            r -1 set from:primary 1
            r -1 fcall rd_write 1 from:function 2
            wait_for_ofs_sync -1 0
            assert_equal 1 [r get from:primary]
            assert_equal 2 [r get from:function]
            assert_digests_equal {-1 0}
        }
    }
}

# ---------------------------------------------------------------------------
# FAILOVER between two of our servers: -1 starts as the primary, 0 as its
# replica. The replica is stopped (SIGSTOP) so that the failover stays in
# each of its states while the test sends commands.
# ---------------------------------------------------------------------------

start_server {overrides {enable-debug-command yes repl-diskless-sync-delay 0}} {
    start_server {overrides {enable-debug-command yes repl-diskless-sync-delay 0}} {
        set rhost [srv 0 host]
        set rport [srv 0 port]
        set rpid [srv 0 pid]
        r replicaof [srv -1 host] [srv -1 port]
        wait_for_sync
        wait_replicas_online 1 -1

        # Stops the replica, leaves the primary a write it never acked and
        # starts a forced FAILOVER to it after timeout ms.
        proc rd_start_stuck_failover {rhost rport rpid timeout} {
            exec kill -STOP $rpid
            r -1 set unacked 1
            assert_equal OK [r -1 failover to $rhost $rport timeout $timeout force]
        }

        # Waits until the old primary is in the failover state given.
        proc rd_wait_failover_state {state} {
            wait_for_condition 200 20 {[repl_info master_failover_state -1] eq $state} {
                fail "the failover did not reach $state: [r -1 info replication]"
            }
        }

        # Runs body in the caller; if it fails, the stopped replica is
        # resumed before the error goes on, so that the block can end.
        proc rd_resuming {rpid body} {
            set code [catch {uplevel 1 $body} result opts]
            if {$code == 1} { catch {exec kill -CONT $rpid} }
            return -options $opts $result
        }

        test "FAILOVER aborted while in progress: the commands held meanwhile run on the primary again" {
            r -1 set foo before
            wait_for_ofs_sync -1 0
            rd_resuming $rpid {
                rd_start_stuck_failover $rhost $rport $rpid 100
                rd_wait_failover_state failover-in-progress
                assert_equal slave [lindex [r -1 role] 0]
                # A capable client's read and write are held; other clients
                # are answered at once, as by any replica.
                set reader [rd_capable_deferring_client -1]
                $reader get foo
                set writer [rd_capable_deferring_client -1]
                $writer set foo during
                rd_wait_blocked 2 -1
                assert_equal before [r -1 get foo]
                rd_assert_error $::rd_readonly {r -1 set foo plain}
                assert_equal OK [r -1 failover abort]
                assert_equal before [$reader read]
                assert_equal OK [$writer read]
                assert_equal master [lindex [r -1 role] 0]
                assert_equal during [r -1 get foo]
                exec kill -CONT $rpid
            }
            wait_for_sync
            wait_for_ofs_sync -1 0
            assert_digests_equal {-1 0}
        }

        test "FAILOVER: commands held while it went on are redirected to the new primary once it completes" {
            r -1 set foo bar
            wait_for_ofs_sync -1 0
            rd_resuming $rpid {
                rd_start_stuck_failover $rhost $rport $rpid 1000
                assert_equal waiting-for-sync [repl_info master_failover_state -1]
                # While it waits for the replica, writes are paused (FAILOVER's
                # implicit CLIENT PAUSE WRITE), a capable client's as any other.
                set paused_capable [rd_capable_deferring_client -1]
                $paused_capable set paused:capable 1
                set paused_plain [vk_deferring_client -1]
                $paused_plain set paused:plain 1
                rd_wait_blocked 2 -1
                assert_equal bar [r -1 get foo]
                # Forced at the timeout: the old primary is a replica of a
                # target that does not answer yet.
                rd_wait_failover_state failover-in-progress
                assert_equal slave [lindex [r -1 role] 0]
                set held_read [rd_capable_deferring_client -1]
                $held_read client id
                set held_id [$held_read read]
                $held_read get foo
                set readonly [rd_capable_deferring_client -1]
                $readonly readonly
                assert_equal OK [$readonly read]
                $readonly get foo
                assert_equal bar [$readonly read]
                $readonly set held:readonly 1
                rd_wait_blocked 4 -1
                rd_assert_error $::rd_readonly {r -1 set plain:now 1}
                # CLIENT UNPAUSE does not end the failover: the commands held
                # for it stay held, the server keeps answering.
                assert_equal OK [r -1 client unpause]
                assert_equal PONG [r -1 ping]
                assert_equal failover-in-progress [repl_info master_failover_state -1]
                assert_equal b [rd_client_flags $held_id -1]
                exec kill -CONT $rpid
            }
            rd_wait_failover_state no-failover
            assert_equal master [lindex [r 0 role] 0]
            assert_equal slave [lindex [r -1 role] 0]
            set new_primary "REDIRECT $rhost:$rport"
            rd_assert_error $new_primary {$paused_capable read}
            rd_assert_error $new_primary {$held_read read}
            rd_assert_error $new_primary {$readonly read}
            rd_assert_error $::rd_readonly {$paused_plain read}
            # Nothing of it ran anywhere; the new primary serves the client.
            assert_equal 0 [r exists paused:capable paused:plain held:readonly plain:now]
            set c [rd_capable_client 0]
            assert_equal OK [$c set after:failover 1]
            set c [rd_capable_client -1]
            rd_assert_error $new_primary {$c set after:failover 2}
            wait_for_sync -1
            wait_for_ofs_sync 0 -1
            assert_equal 1 [r -1 get after:failover]
            assert_digests_equal {0 -1}
        }
    }
}

}
