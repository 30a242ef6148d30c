# The replica side of replication and the primary's answers to what a
# replica (or valkey-cli) asks: FAILOVER's hand-over and the clients
# blocked meanwhile, bind-source-addr on the replica's link, REPLCONF
# rdb-only and rdb-filter-only, writable replicas expiring their own
# keys, a restarted primary continuing its history from its RDB, and
# repl-diskless-load swapdb loading in the background. Every scenario
# with data ends with equal DEBUG DIGESTs.
# Helpers: tests/lib/replication.tcl.

set unblocked "UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)"

# Sends each command of cmds on a deferring client of its own to the
# server at level and waits until n clients are blocked there. Returns
# the clients.
proc block_clients_at {level cmds n} {
    set clients {}
    foreach cmd $cmds {
        set rd [vk_deferring_client $level]
        $rd timeout 20
        $rd send {*}$cmd
        lappend clients $rd
    }
    wait_for_condition 100 20 {[repl_info blocked_clients $level clients] == $n} {
        fail "expected $n blocked clients: [r $level client list]"
    }
    return $clients
}

start_server {tags {repl needs:debug} overrides {enable-debug-command yes repl-diskless-sync-delay 0}} {
    start_server {overrides {enable-debug-command yes repl-diskless-sync-delay 0}
                  log_allow {{*Unexpected reply to PSYNC*}}} {
        set phost [srv -1 host]
        set pport [srv -1 port]
        r replicaof $phost $pport
        wait_for_sync
        wait_replicas_online 1 -1

        test "FAILOVER FORCE: Valkey's line at the time-out; clients blocked in WAIT, WAITAOF, BLPOP get UNBLOCKED only once the target took over" {
            repl_populate_all_types 20 -1
            wait_for_ofs_sync -1 0
            set clients [block_clients_at -1 {{wait 2 0} {waitaof 0 1 0} {blpop fo:list 0}} 3]
            # The target never acknowledges what follows: the failover
            # can only be forced.
            set pid [srv 0 pid]
            exec kill -STOP $pid
            r -1 set fo:unacked 1
            assert_equal OK [r -1 failover to [srv 0 host] [srv 0 port] timeout 200 force]
            wait_for_condition 100 20 {[repl_info master_failover_state -1] eq "failover-in-progress"} {
                exec kill -CONT $pid
                fail "the failover was not forced: [r -1 info replication]"
            }
            set line "*FAILOVER to [srv 0 host]:[srv 0 port] time out exceeded, failing over.*"
            assert [log_has_line $line -1] "no time-out line in the log"
            # Until the target accepts the PSYNC the failover may still be
            # aborted: the blocked clients stay blocked.
            assert_equal 3 [repl_info blocked_clients -1 clients]
            exec kill -CONT $pid
            wait_for_condition 100 50 {[repl_info master_failover_state -1] eq "no-failover" &&
                                       [lindex [r role] 0] eq "master"} {
                fail "the failover did not complete: [r -1 info replication]"
            }
            foreach rd $clients {
                assert_error $unblocked {$rd read}
                assert_error "*" {$rd read} ;# closed after the error
            }
            assert_equal 0 [repl_info blocked_clients -1 clients]
            wait_for_sync -1
            r set fo:after 1
            wait_for_ofs_sync 0 -1
            assert_equal 1 [r -1 get fo:after]
            assert_digests_equal {0 -1}
        }

        test "FAILOVER refused by the target (no PSYNC permission): clients blocked before and during it are served as on a primary" {
            # Level 0 is the primary now, -1 its replica.
            r -1 acl setuser default -psync
            set pid [srv -1 pid]
            exec kill -STOP $pid
            set clients [block_clients_at 0 {{blpop fo:queue 0} {wait 1 0}} 2]
            r set fo:before 1
            assert_equal OK [r failover to [srv -1 host] [srv -1 port]]
            assert_equal waiting-for-sync [repl_info master_failover_state]
            exec kill -CONT $pid
            wait_for_condition 100 50 {[repl_info master_failover_state] eq "no-failover"} {
                fail "the failover did not end: [r info replication]"
            }
            assert_equal master [lindex [r role] 0]
            assert [log_has_line "*FAILOVER to *aborted: Failover target rejected psync request*"]
            r -1 acl setuser default +psync
            # BLPOP still waits (WAIT may be answered already).
            assert_range [repl_info blocked_clients 0 clients] 1 2
            r rpush fo:queue a
            assert_equal {fo:queue a} [[lindex $clients 0] read]
            # The replica reconnects and acknowledges: WAIT is answered.
            assert_equal 1 [[lindex $clients 1] read]
            wait_for_ofs_sync 0 -1
            assert_digests_equal {0 -1}
        }
    }
}

start_server {tags {repl needs:debug rdma:skip:tcp-config} overrides {enable-debug-command yes repl-diskless-sync-delay 0}} {
    start_server {overrides {enable-debug-command yes bind-source-addr 127.0.0.2}} {
        test "bind-source-addr: the replica's link to its primary leaves from that address" {
            r -1 set src:key 1
            r replicaof [srv -1 host] [srv -1 port]
            wait_for_sync
            wait_replicas_online 1 -1
            assert_match "*slave0:ip=127.0.0.2,port=[srv 0 port],state=online*" [r -1 info replication]
            assert_match "*addr=127.0.0.2:*flags=S*" [r -1 client list type replica]
            wait_for_ofs_sync -1 0
            assert_digests_equal {-1 0}
            r replicaof no one
        }
    }
}
