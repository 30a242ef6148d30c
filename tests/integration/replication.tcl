# Replication: full sync (through the file and streamed), the command
# stream, partial resync after a dropped link and after a restart,
# PSYNC2 across a promotion, chained replicas, WAIT, min-replicas-to-write,
# read-only replicas, clients blocked on a primary that becomes a replica.
# Every scenario ends with equal DEBUG DIGESTs.
# Helpers: tests/lib/replication.tcl.

foreach mode {disk diskless} {
    set diskless [expr {$mode eq "diskless" ? "yes" : "no"}]
    start_server [list tags {repl needs:debug} overrides [list enable-debug-command yes repl-diskless-sync $diskless \
                                                                repl-diskless-sync-delay 0]] {
        start_server {overrides {enable-debug-command yes}} {
            set phost [srv -1 host]
            set pport [srv -1 port]

            test "Full sync ($mode) of every data type" {
                repl_populate_all_types 300 -1
                # no-writes: a read-only replica refuses any other function.
                r -1 function load {#!lua name=replib
                    server.register_function{function_name='rf', callback=function() return 1 end, flags={'no-writes'}}}
                assert_equal OK [r replicaof $phost $pport]
                wait_for_sync
                wait_replicas_online 1 -1
                wait_for_ofs_sync -1 0
                assert_equal [r -1 dbsize] [r dbsize]
                assert_digests_equal {-1 0}
                assert_equal 1 [r fcall rf 0]
                assert_match "*role:slave*master_link_status:up*" [r info replication]
                assert_match "*connected_slaves:1*slave0:ip=*state=online*" [r -1 info replication]
                assert_equal [r -1 info replication] [r -1 info replication]
            }

            test "Writes after the sync ($mode) reach the replica" {
                r -1 set after:1 x
                r -1 incr after:counter
                r -1 rpush after:list a b c
                r -1 select 3
                r -1 set after:db3 y
                r -1 select 0
                wait_for_ofs_sync -1 0
                r select 3
                assert_equal y [r get after:db3]
                r select 0
                assert_equal x [r get after:1]
                assert_digests_equal {-1 0}
            }

            test "More stream than the backlog holds in one event loop iteration reaches the replica ($mode)" {
                # The stream goes to the replicas once per iteration from
                # the backlog: a transaction or a script that writes more
                # than the backlog holds must flush it on the way, and a
                # command bigger than the backlog must go out at once.
                r -1 config set repl-backlog-size 16384
                set val [string repeat v 1000]
                r -1 multi
                for {set i 0} {$i < 100} {incr i} { r -1 set burst:$i $val }
                r -1 set burst:big [string repeat b 100000]
                r -1 incr burst:counter
                r -1 exec
                r -1 eval {for i = 1, 100 do server.call('rpush', KEYS[1], ARGV[1]) end} 1 burst:list $val
                r -1 config set repl-backlog-size 1mb
                wait_for_ofs_sync -1 0
                assert_equal 100000 [r strlen burst:big]
                assert_equal 100 [r llen burst:list]
                assert_digests_equal {-1 0}
                # The replica's place in the stream is exact: it continues
                # with a partial resync.
                set ok_before [repl_info sync_partial_ok -1 stats]
                r client kill type master
                r -1 set burst:after 1
                wait_for_sync
                wait_for_ofs_sync -1 0
                assert_equal [expr {$ok_before + 1}] [repl_info sync_partial_ok -1 stats]
                assert_digests_equal {-1 0}
            }

            test "Partial resyncs read commands written across the end of a small backlog ($mode)" {
                # Commands are encoded straight into the ring when they fit
                # before its end, else whole through a buffer: the stream
                # a partial resync reads back must be the same either way.
                r -1 config set repl-backlog-size 16384
                for {set round 0} {$round < 3} {incr round} {
                    set ok_before [repl_info sync_partial_ok -1 stats]
                    r client kill type master
                    set cmds {}
                    for {set i 0} {$i < 150} {incr i} {
                        lappend cmds [list set wrap:$round:$i [string repeat x [expr {($i * 7 + $round) % 60}]]]
                    }
                    r_pipeline_at -1 $cmds
                    wait_for_sync
                    wait_for_ofs_sync -1 0
                    assert_equal [expr {$ok_before + 1}] [repl_info sync_partial_ok -1 stats]
                }
                r -1 config set repl-backlog-size 1mb
                assert_equal 25 [r strlen wrap:2:149]
                assert_digests_equal {-1 0}
            }

            test "The stream to replicas counts as replication output, not client output ($mode)" {
                set repl_before [repl_info total_net_repl_output_bytes -1 stats]
                set out_before [repl_info total_net_output_bytes -1 stats]
                r -1 set repl:bytes [string repeat r 100000]
                wait_for_ofs_sync -1 0
                assert {[repl_info total_net_repl_output_bytes -1 stats] - $repl_before >= 100000}
                assert {[repl_info total_net_output_bytes -1 stats] - $out_before < 50000}
            }

            test "A replica refuses writes from clients (replica-read-only, $mode)" {
                assert_error "READONLY*" {r set ro:key 1}
                assert_equal 0 [r exists ro:key]
            }

            test "ROLE on both sides ($mode)" {
                set role [r role]
                assert_equal slave [lindex $role 0]
                assert_equal $pport [lindex $role 2]
                assert_equal connected [lindex $role 3]
                set prole [r -1 role]
                assert_equal master [lindex $prole 0]
                assert_equal 1 [llength [lindex $prole 2]]
            }

            test "WAIT counts the replicas that acknowledged ($mode)" {
                r -1 set wait:key 1
                assert_equal 1 [r -1 wait 1 5000]
                # Asked for more replicas than exist: the timeout answers
                # with the count that acknowledged.
                r -1 set wait:key 2
                assert_equal 1 [r -1 wait 2 300]
            }

            test "Partial resync after the link is killed ($mode)" {
                set ok_before [repl_info sync_partial_ok -1 stats]
                r client kill type master
                r -1 set during:kill 1
                wait_for_sync
                wait_for_ofs_sync -1 0
                assert_equal [expr {$ok_before + 1}] [repl_info sync_partial_ok -1 stats]
                assert_equal 1 [r get during:kill]
                assert_digests_equal {-1 0}
            }

            test "Full sync again when the backlog no longer holds the replica's offset ($mode)" {
                set full_before [repl_info sync_full -1 stats]
                r -1 config set repl-backlog-size 16384
                r client kill type master
                # A replica that reconnects at once could still find its
                # offset: write more than the backlog holds meanwhile.
                r replicaof no one
                set big [string repeat x 1000]
                for {set i 0} {$i < 40} {incr i} { r -1 set bl:$i $big }
                r replicaof $phost $pport
                wait_for_sync
                wait_for_ofs_sync -1 0
                assert {[repl_info sync_full -1 stats] > $full_before}
                assert_digests_equal {-1 0}
                r -1 config set repl-backlog-size 1mb
            }

            test "REPLICAOF NO ONE keeps the data, starts a new history, takes writes ($mode)" {
                set old_id [repl_info master_replid]
                r replicaof no one
                assert_equal master [lindex [r role] 0]
                assert_equal $old_id [repl_info master_replid2]
                assert_not_equal $old_id [repl_info master_replid]
                r set promoted 1
                assert_equal 1 [r get promoted]
                assert_equal 0 [r -1 exists promoted]
            }
        }
    }
}

start_server {tags {repl needs:debug} overrides {enable-debug-command yes repl-diskless-sync-delay 0}} {
    start_server {overrides {enable-debug-command yes}} {
        start_server {overrides {enable-debug-command yes}} {
            set phost [srv -2 host]
            set pport [srv -2 port]
            test "Chained replicas receive exactly the primary's stream" {
                repl_populate_all_types 100 -2
                r -1 replicaof $phost $pport
                wait_for_sync -1
                r replicaof [srv -1 host] [srv -1 port]
                wait_for_sync 0
                for {set i 0} {$i < 50} {incr i} { r -2 incr chain:counter }
                r -2 del k:s:1
                wait_for_ofs_sync -2 -1
                wait_for_ofs_sync -1 0
                assert_equal [repl_info master_replid -2] [repl_info master_replid 0]
                assert_equal [repl_info master_repl_offset -2] [repl_info master_repl_offset 0]
                assert_digests_equal {-2 -1 0}
            }

            test "Chained replicas: big arguments and transactions read in pieces keep the backlogs equal" {
                # The middle replica proxies what it applied from its
                # query buffer: a transaction stays there until its EXEC
                # over many reads, a big argument is read in pieces, a
                # value longer than the backlog replaces all of it.
                foreach l {-2 -1} { r $l config set repl-backlog-size 1mb }
                r -2 set big:1 [string repeat a 100000]
                set cmds {multi}
                for {set i 0} {$i < 3000} {incr i} { lappend cmds [list set tx:$i [string repeat v 40]] }
                lappend cmds [list set big:2 [string repeat b 200000]] {incr chain:counter} {exec}
                r_pipeline_at -2 $cmds
                wait_for_ofs_sync -2 -1
                wait_for_ofs_sync -1 0
                set end [repl_info master_repl_offset -2]
                assert_equal [repl_backlog_bytes -2 [expr {$end - 400000}] 400000] \
                    [repl_backlog_bytes -1 [expr {$end - 400000}] 400000]
                r -2 set big:3 [string repeat c 3000000]
                r -2 multi
                r -2 set big:4 [string repeat d 50000]
                r -2 del big:1
                r -2 exec
                r -2 incr chain:counter
                wait_for_ofs_sync -2 -1
                wait_for_ofs_sync -1 0
                set end [repl_info master_repl_offset -2]
                assert_equal [repl_info master_repl_offset -2] [repl_info master_repl_offset 0]
                assert_equal [repl_backlog_bytes -2 [expr {$end - 1000000}] 1000000] \
                    [repl_backlog_bytes -1 [expr {$end - 1000000}] 1000000]
                assert_equal 3000000 [r strlen big:3]
                assert_equal 0 [r exists big:1]
                assert_digests_equal {-2 -1 0}
                # The middle replica's buffer for its primary's stream gave
                # the room it grew to for the big value back.
                set line [lsearch -inline [split [r -1 client list] "\n"] "*flags=M*"]
                assert_match "*qbuf=0 *" $line
                assert {[regexp {qbuf-free=(\d+)} $line -> free] && $free < 1000000}
            }

            test "PSYNC2: after a promotion the other replica continues with a partial resync" {
                # Promote the middle replica; the last one follows it with
                # the history it already has (replid2), no full sync.
                set full_before [repl_info sync_full -1 stats]
                r -1 replicaof no one
                wait_for_sync 0
                r -1 set after:promotion 1
                wait_for_ofs_sync -1 0
                assert_equal $full_before [repl_info sync_full -1 stats]
                assert_equal 1 [r get after:promotion]
                # And the old primary becomes a replica of the new one.
                r -2 replicaof [srv -1 host] [srv -1 port]
                wait_for_sync -2
                wait_for_ofs_sync -1 -2
                assert_digests_equal {-2 -1 0}
            }
        }
    }
}

start_server {tags {repl needs:debug} overrides {enable-debug-command yes repl-diskless-sync-delay 0}} {
    start_server {overrides {enable-debug-command yes}} {
        set phost [srv -1 host]
        set pport [srv -1 port]
        test "min-replicas-to-write refuses writes without enough good replicas" {
            r -1 config set min-replicas-to-write 1
            r -1 config set min-replicas-max-lag 10
            assert_error "NOREPLICAS*" {r -1 set k v}
            r replicaof $phost $pport
            wait_for_sync
            wait_for_condition 100 50 {[catch {r -1 set k v}] == 0} {
                fail "writes still refused with a replica attached"
            }
            r -1 config set min-replicas-to-write 0
        }

        test "A replica restarted from its own RDB continues with a partial resync" {
            r -1 set before:restart 1
            wait_for_ofs_sync -1 0
            set ok_before [repl_info sync_partial_ok -1 stats]
            r config set save "3600 1"
            r config rewrite
            restart_server_at 0
            wait_for_sync
            assert_equal 1 [r get before:restart]
            r -1 set after:restart 1
            wait_for_ofs_sync -1 0
            assert_equal [expr {$ok_before + 1}] [repl_info sync_partial_ok -1 stats]
            assert_digests_equal {-1 0}
        }
    }
}

start_server {tags {repl} overrides {repl-diskless-sync-delay 0}} {
    test "REPLCONF and PSYNC argument errors" {
        assert_error "*Unrecognized REPLCONF option*" {r replconf nosuchoption 1}
        assert_error "*syntax*" {r replconf listening-port}
        assert_error "*wrong number of arguments*" {r psync}
        assert_equal OK [r replconf listening-port 1234 capa eof capa psync2]
    }
    test "REPLICAOF argument errors" {
        assert_error "*Invalid master port*" {r replicaof 127.0.0.1 notaport}
        assert_error "*wrong number of arguments*" {r replicaof 127.0.0.1}
        assert_equal OK [r replicaof no one]
    }
    test "WAIT on a replica is refused, on a primary without replicas answers 0" {
        assert_equal 0 [r wait 0 0]
        assert_equal 0 [r wait 1 100]
    }
}

start_server {tags {repl needs:debug} overrides {enable-debug-command yes repl-diskless-sync-delay 0}} {
    start_server {overrides {enable-debug-command yes repl-diskless-sync-delay 0}} {
        start_server {overrides {enable-debug-command yes repl-diskless-sync-delay 0}} {
            set phost [srv -2 host]
            set pport [srv -2 port]
            test "FAILOVER argument and state errors" {
                assert_error "*FAILOVER requires connected replicas*" {r -2 failover}
                assert_error "*No failover in progress*" {r -2 failover abort}
                assert_error "*requires both a timeout and target*" {r -2 failover to 127.0.0.1 1 force}
                assert_error "*syntax*" {r -2 failover nonsense}
                assert_error "*timeout must be greater than 0*" {r -2 failover timeout 0}
            }

            test "FAILOVER TO a replica: it becomes the primary, the old primary its replica, no full sync" {
                r -1 replicaof $phost $pport
                r replicaof $phost $pport
                wait_replicas_online 2 -2
                repl_populate_all_types 50 -2
                wait_for_ofs_sync -2 -1
                assert_error "*not a replica*" {r -2 failover to 127.0.0.1 1}
                set full_before [repl_info sync_full -1 stats]
                assert_equal OK [r -2 failover to [srv -1 host] [srv -1 port]]
                wait_for_condition 100 50 {[lindex [r -1 role] 0] eq "master" &&
                                           [repl_info master_link_status -2] eq "up"} {
                    fail "the failover did not complete: [r -2 info replication]"
                }
                assert_equal no-failover [repl_info master_failover_state -2]
                assert_equal [srv -1 port] [repl_info master_port -2]
                assert_equal $full_before [repl_info sync_full -1 stats]
                # Writes now go to the new primary and reach everyone.
                assert_error "READONLY*" {r -2 set x 1}
                r -1 set after:failover 1
                wait_for_sync 0
                wait_for_ofs_sync -1 -2
                wait_for_condition 100 50 {[r exists after:failover]} { fail "the write did not reach the last replica" }
                assert_digests_equal {-2 -1 0}
            }

            test "FAILOVER whose replica never catches up is aborted at its timeout" {
                # -1 is the primary now, with -2 as its replica.
                set pid [srv -2 pid]
                exec kill -STOP $pid
                r -1 set while:stopped 1
                assert_equal OK [r -1 failover to [srv -2 host] [srv -2 port] timeout 500]
                assert_equal waiting-for-sync [repl_info master_failover_state -1]
                wait_for_condition 100 50 {[repl_info master_failover_state -1] eq "no-failover"} {
                    exec kill -CONT $pid
                    fail "the failover was not aborted"
                }
                exec kill -CONT $pid
                assert_equal master [lindex [r -1 role] 0]
                assert_equal OK [r -1 set after:abort 1]
                wait_for_ofs_sync -1 -2
                assert_digests_equal {-2 -1}
            }
        }
    }
}

start_server {tags {repl needs:debug} overrides {enable-debug-command yes repl-diskless-sync-delay 0 requirepass s3cret}} {
    start_server {overrides {enable-debug-command yes replica-announce-ip 10.1.2.3 replica-announce-port 4567}} {
        set phost [srv -1 host]
        set pport [srv -1 port]
        r -1 auth s3cret
        test "primaryauth: a replica authenticates to a primary with requirepass" {
            r config set primaryauth wrong
            r replicaof $phost $pport
            after 1500
            assert_equal down [repl_info master_link_status]
            r config set masterauth s3cret
            wait_for_sync
            r -1 set auth:key 1
            wait_for_condition 100 50 {[r exists auth:key]} { fail "the stream did not arrive" }
        }

        test "replica-announce-ip/-port: the primary lists the replica as announced" {
            assert_match "*slave0:ip=10.1.2.3,port=4567,state=online*" [r -1 info replication]
            assert_equal {10.1.2.3 4567} [lrange [lindex [lindex [r -1 role] 2] 0] 0 1]
        }

        test "replica-serve-stale-data no: MASTERDOWN while the link is down" {
            r config set replica-serve-stale-data no
            r config set masterauth wrong
            r client kill type master
            wait_for_condition 100 50 {[repl_info master_link_status] eq "down"} { fail "link still up" }
            assert_error "MASTERDOWN*" {r get auth:key}
            # INFO and CONFIG still answer (CMD_STALE).
            assert_match "*role:slave*" [r info replication]
            r config set replica-serve-stale-data yes
            assert_equal 1 [r get auth:key]
            r config set masterauth s3cret
            wait_for_sync
        }
    }
}

start_server {tags {repl needs:debug} overrides {enable-debug-command yes repl-diskless-sync yes
                                                 repl-diskless-sync-delay 2 repl-diskless-sync-max-replicas 2}} {
    start_server {overrides {enable-debug-command yes}} {
        start_server {overrides {enable-debug-command yes}} {
            set phost [srv -2 host]
            set pport [srv -2 port]
            test "Replicas asking within repl-diskless-sync-delay share one streamed snapshot" {
                r -2 debug populate 1000
                set forks [repl_info total_forks -2 stats]
                r -1 replicaof $phost $pport
                r replicaof $phost $pport
                wait_for_sync -1
                wait_for_sync 0
                # repl-diskless-sync-max-replicas 2 started it without
                # waiting the whole delay; one child served both.
                assert_equal [expr {$forks + 1}] [repl_info total_forks -2 stats]
                wait_for_ofs_sync -2 -1
                wait_for_ofs_sync -2 0
                assert_digests_equal {-2 -1 0}
            }
        }
    }
}

start_server {tags {repl needs:debug} overrides {enable-debug-command yes repl-diskless-sync-delay 0}} {
    start_server {overrides {enable-debug-command yes busy-reply-threshold 100}} {
        test "A replica busy with a script applies its primary's writes once the script ends" {
            r replicaof [srv -1 host] [srv -1 port]
            wait_for_sync 0
            # A read-only script of one of the replica's clients runs past
            # busy-reply-threshold: the replica serves events meanwhile,
            # reads its primary's stream, and must neither refuse those
            # commands with BUSY nor run them inside the script.
            set rd [vk_deferring_client]
            $rd eval {
                -- TIME stands still in a script: wait on the CPU clock.
                local stop = os.clock() + 1.5
                while os.clock() < stop do end
                return redis.call('get', 'during')
            } 0
            wait_for_condition 100 10 {[catch {r ping} e] && [string match BUSY* $e]} {
                fail "the script did not become busy"
            }
            r -1 set during 1
            r -1 multi
            r -1 incr during:tx
            r -1 incr during:tx
            r -1 exec
            assert_equal {} [$rd read]
            $rd close
            wait_for_ofs_sync -1 0
            assert_equal 1 [r get during]
            assert_equal 2 [r get during:tx]
            assert_digests_equal {-1 0}
        }
    }
}

# A primary turned into a replica: clients blocked on its keys would later
# be served by the new primary's writes, popping on a replica what the
# primary keeps. As Valkey does, they (and WAIT) get an UNBLOCKED error
# and are closed; a client held by CLIENT PAUSE stays held.
start_server {tags {repl needs:debug} overrides {enable-debug-command yes repl-diskless-sync-delay 0}} {
    start_server {overrides {enable-debug-command yes repl-diskless-sync-delay 0}} {
        start_server {overrides {enable-debug-command yes}} {
            set unblocked "UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)"

            # Sends each command of cmds on a deferring client of its own
            # to level 0 and waits until n clients are blocked there.
            proc block_clients {cmds n} {
                set clients {}
                foreach cmd $cmds {
                    set rd [vk_deferring_client]
                    $rd timeout 10
                    $rd send {*}$cmd
                    lappend clients $rd
                }
                wait_for_condition 100 20 {[repl_info blocked_clients 0 clients] == $n} {
                    fail "expected $n blocked clients: [r client list]"
                }
                return $clients
            }

            test "A primary that becomes a replica unblocks its blocked clients with an error and closes them" {
                r -1 flushall
                r xadd s 1-1 f v
                r -1 xadd s 1-1 f v
                set clients [block_clients {{blpop mylist 0} {bzpopmin myzset 0} {xread block 0 streams s $}
                                            {blmove mylist dst left right 0} {wait 1 0}} 5]
                r set untouched 1
                r -1 set untouched 1
                # A write held by CLIENT PAUSE has not started: it stays
                # held, and is refused once the server is a replica.
                r client pause 100000 write
                set held [vk_deferring_client]
                $held send set paused 1
                after 100
                assert_equal OK [r replicaof [srv -1 host] [srv -1 port]]
                foreach rd $clients {
                    assert_error $unblocked {$rd read}
                    assert_error "*" {$rd read} ;# closed after the error
                }
                assert_equal 1 [repl_info blocked_clients 0 clients] ;# the held write
                wait_for_sync
                r client unpause
                assert_error "READONLY*" {$held read}
                assert_equal 0 [repl_info blocked_clients 0 clients]
                # The new primary's writes are not popped by anyone here.
                r -1 rpush mylist a b
                r -1 zadd myzset 1 m
                r -1 xadd s 2-1 f v
                wait_for_ofs_sync -1 0
                assert_equal {a b} [r lrange mylist 0 -1]
                assert_equal 1 [r zcard myzset]
                assert_equal 0 [r exists paused]
                assert_digests_equal {-1 0}
            }

            test "A replica that follows another primary unblocks its blocked readers too" {
                r -2 flushall
                r -2 xadd s 1-1 f v
                set clients [block_clients {{xread block 0 streams s $}} 1]
                assert_equal OK [r replicaof [srv -2 host] [srv -2 port]]
                assert_error $unblocked {[lindex $clients 0] read}
                wait_for_sync
                r -2 xadd s 2-1 f v
                wait_for_ofs_sync -2 0
                assert_digests_equal {-2 0}
                r replicaof no one
            }
        }
    }
}

start_server {tags {repl needs:debug slow rdma:skip:big-data} overrides {enable-debug-command yes repl-diskless-sync-delay 0}} {
    start_server {overrides {enable-debug-command yes repl-diskless-load swapdb}} {
        set phost [srv -1 host]
        set pport [srv -1 port]
        test "1M keys and a 100 MB value replicate (streamed, loaded from the link)" {
            r -1 debug populate 1000000
            r -1 setrange big 104857599 x
            r replicaof $phost $pport
            wait_for_sync 0 1200
            wait_for_ofs_sync -1 0
            assert_equal 1000001 [r dbsize]
            assert_equal 104857600 [r strlen big]
            assert_digests_equal {-1 0}
        }
    }
}
