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

# ---------------------------------------------------------------------------
# REPLCONF rdb-only and rdb-filter-only (valkey-cli --rdb, --functions-rdb)
# ---------------------------------------------------------------------------

set ::vcli_binary [file join $::vk::cfg(root) src valkey-cli]
# VALKEY_CLI_BINARY runs the valkey-cli tests with another build of it.
if {[info exists ::env(VALKEY_CLI_BINARY)]} { set ::vcli_binary $::env(VALKEY_CLI_BINARY) }

# Sends REPLCONF <k> <v> for each pair of opts, then SYNC, on a plain
# connection to the server at level. Returns the client.
proc sync_send {level opts} {
    set c [::vk::client_open [srv $level host] [srv $level port]]
    set fd [$c channel]
    foreach {k v} $opts {
        ::vk::send_command $fd [list replconf $k $v]
        set reply [::vk::repl_stream_line $fd]
        if {$reply ne "+OK"} {
            $c close
            error "REPLCONF $k $v: $reply"
        }
    }
    ::vk::send_command $fd {sync}
    return $c
}

# Reads the snapshot that answers the SYNC of client c; returns it
# without its framing.
proc sync_read_payload {c} {
    set fd [$c channel]
    set line [::vk::repl_stream_line $fd]
    if {[string match {$EOF:*} $line]} {
        set mark [string range $line 5 end]
        set payload ""
        while {[string range $payload end-39 end] ne $mark} {
            append payload [::vk::repl_stream_exact $fd 1]
        }
        return [string range $payload 0 end-40]
    }
    if {[string match {$*} $line]} { return [::vk::repl_stream_exact $fd [string range $line 1 end]] }
    error "SYNC: $line"
}

# sync_send, then sync_read_payload: returns {client payload}.
proc sync_with_options {level opts} {
    set c [sync_send $level $opts]
    return [list $c [sync_read_payload $c]]
}

# What happens to the link of client c within ms milliseconds: "closed"
# (the server closed it), "data: ..." (it sent more), or "open".
proc link_fate {c ms} {
    set fd [$c channel]
    fconfigure $fd -blocking 0 -translation binary
    set deadline [expr {[clock milliseconds] + $ms}]
    while {[clock milliseconds] < $deadline} {
        set d [read $fd]
        if {$d ne ""} { return "data: [string range $d 0 80]" }
        if {[eof $fd]} { return closed }
        after 20
    }
    return open
}

# Writes data (a snapshot) to dir/dump.rdb.
proc write_rdb {dir data} {
    file mkdir $dir
    set fh [open [file join $dir dump.rdb] wb]
    puts -nonewline $fh $data
    close $fh
}

# run_vcli args..: src/valkey-cli against the innermost server; returns
# {exit_status output}.
proc run_vcli {args} {
    if {![file executable $::vcli_binary]} { skip "$::vcli_binary is not built (make)" }
    if {[catch {::vk::transport_cli_args} transport_args]} { skip $transport_args }
    set code [catch {exec $::vcli_binary -h [srv host] -p [srv port] {*}$transport_args {*}$args 2>@1} out opts]
    set status 0
    if {$code && [lindex [dict get $opts -errorcode] 0] eq "CHILDSTATUS"} {
        set status [lindex [dict get $opts -errorcode] 2]
    }
    return [list $status $out]
}

start_server {tags {repl needs:debug} overrides {enable-debug-command yes repl-diskless-sync-delay 0}} {
    r function load {#!lua name=snaplib
        server.register_function('snapfunc', function() return 'snap' end)}
    repl_populate_all_types 30

    test "REPLCONF rdb-only and rdb-filter-only: argument errors" {
        set c [vk_client]
        assert_error "*value is out of range*" {$c replconf rdb-only 2}
        assert_error "*not an integer*" {$c replconf rdb-only yes}
        assert_error "ERR Unsupported rdb-filter-only option: keys" {$c replconf rdb-filter-only "functions keys"}
        assert_error "ERR Missing rdb-filter-only values" {$c replconf rdb-filter-only "\"functions"}
        assert_equal OK [$c replconf rdb-filter-only functions]
        # Without capa eof a filtered snapshot cannot be sent.
        assert_error "ERR Filtered replica requires EOF capability" {$c sync}
        $c close
    }

    foreach diskless {no yes} {
        test "REPLCONF rdb-only 1 (repl-diskless-sync $diskless): the snapshot, then the link is closed, never the stream" {
            r config set repl-diskless-sync $diskless
            lassign [sync_with_options 0 {capa eof rdb-only 1}] c payload
            r set rdbonly:after 1
            assert_equal closed [link_fate $c 3000]
            $c close
            wait_for_condition 100 20 {[log_has_line "*RDB transfer completed, rdb only replica (*) should be disconnected asap*"]} {
                fail "no line for the end of the rdb-only transfer"
            }
            wait_for_condition 100 20 {[repl_info connected_slaves] == 0} { fail "the rdb-only client is still listed" }
            r del rdbonly:after
            set dir [tmp_path rdbonly-$diskless]
            write_rdb $dir $payload
            set digest [r debug digest]
            start_server [list overrides [list dir $dir enable-debug-command yes]] {
                assert_equal $digest [r debug digest]
                assert_equal snap [r fcall snapfunc 0]
            }
        }
    }

    test "REPLCONF rdb-filter-only functions: a snapshot of the libraries alone (streamed even with repl-diskless-sync no)" {
        r config set repl-diskless-sync no
        lassign [sync_with_options 0 {capa eof rdb-only 1 rdb-filter-only functions}] c payload
        assert_equal closed [link_fate $c 3000]
        $c close
        set dir [tmp_path functions-only]
        write_rdb $dir $payload
        start_server [list overrides [list dir $dir]] {
            assert_equal 0 [r dbsize]
            assert_equal snap [r fcall snapfunc 0]
        }
    }

    test "REPLCONF rdb-filter-only with no filter (valkey-cli --replica): no keys and no libraries, then the stream" {
        lassign [sync_with_options 0 {capa eof rdb-filter-only ""}] c payload
        assert_match "REDIS0011*" $payload
        assert_equal -1 [string first snaplib $payload]
        # Not rdb-only: it gets the stream once it acknowledges, after the
        # primary saw the end of its snapshot.
        wait_for_condition 100 20 {[string match "*slave0:*state=online*" [r info replication]]} {
            fail "the replica did not go online"
        }
        ::vk::send_command [$c channel] {replconf ack 0}
        r set filtered:after 1
        set s $c
        assert_replication_stream $s {{select *} {set filtered:after 1}}
        $c close
        set dir [tmp_path nothing]
        write_rdb $dir $payload
        start_server [list overrides [list dir $dir]] {
            assert_equal 0 [r dbsize]
            assert_equal {} [r function list]
        }
        r del filtered:after
    }

    test "Replicas asking for different filters at the same time get one snapshot each" {
        r config set repl-diskless-sync yes
        r config set repl-diskless-sync-delay 1
        set forks [repl_info total_forks 0 stats]
        set whole [sync_send 0 {capa eof rdb-only 1}]
        set funcs [sync_send 0 {capa eof rdb-only 1 rdb-filter-only functions}]
        set same [sync_send 0 {capa eof rdb-only 1}]
        set p_whole [sync_read_payload $whole]
        set p_same [sync_read_payload $same]
        set p_funcs [sync_read_payload $funcs]
        foreach c [list $whole $funcs $same] { $c close }
        r config set repl-diskless-sync-delay 0
        # The two that asked for the whole dataset shared one child.
        assert_equal [expr {$forks + 2}] [repl_info total_forks 0 stats]
        assert_equal $p_whole $p_same
        set digest [r debug digest]
        write_rdb [tmp_path shared-whole] $p_whole
        write_rdb [tmp_path shared-funcs] $p_funcs
        start_server [list overrides [list dir [tmp_path shared-whole] enable-debug-command yes]] {
            assert_equal $digest [r debug digest]
        }
        start_server [list overrides [list dir [tmp_path shared-funcs]]] {
            assert_equal 0 [r dbsize]
            assert_equal snap [r fcall snapfunc 0]
        }
    }
}

start_server {tags {repl needs:debug rdma:skip:tcp-tool} overrides {enable-debug-command yes repl-diskless-sync yes
                                                              repl-diskless-sync-delay 1}} {
    r function load {#!lua name=clilib
        server.register_function('clifunc', function() return 'cli' end)}
    repl_populate_all_types 30

    test "valkey-cli --rdb: the whole snapshot (with keep-alives before it), the link gone after it" {
        set dir [tmp_path cli-rdb]
        file mkdir $dir
        lassign [run_vcli --rdb $dir/dump.rdb] code out
        assert_equal 0 $code $out
        assert_match "*Transfer finished with success*" $out
        # The cli leaves once it has the end mark, maybe before the
        # primary saw the end of its pipe: either side may close first.
        wait_for_condition 100 20 {[repl_info connected_slaves] == 0} { fail "the rdb-only client is still listed" }
        set digest [r debug digest]
        start_server [list overrides [list dir $dir enable-debug-command yes]] {
            assert_equal $digest [r debug digest]
            assert_equal cli [r fcall clifunc 0]
        }
    }

    test "valkey-cli --functions-rdb: the libraries and no keys" {
        set dir [tmp_path cli-functions]
        file mkdir $dir
        r config set repl-diskless-sync no
        lassign [run_vcli --functions-rdb $dir/dump.rdb] code out
        assert_equal 0 $code $out
        start_server [list overrides [list dir $dir]] {
            assert_equal 0 [r dbsize]
            assert_equal cli [r fcall clifunc 0]
        }
    }
}

# ---------------------------------------------------------------------------
# Expiry on replicas
# ---------------------------------------------------------------------------

# DBSIZE of database db on the server at level, without touching a key.
proc dbsize_of {level db} {
    set c [vk_client $level]
    $c select $db
    set n [$c dbsize]
    $c close
    return $n
}

start_server {tags {repl needs:debug} overrides {enable-debug-command yes repl-diskless-sync-delay 0}} {
    start_server {overrides {enable-debug-command yes}} {
        r replicaof [srv -1 host] [srv -1 port]
        wait_for_sync

        test "Writable replica: the keys its own clients give a TTL are expired actively" {
            r -1 debug set-active-expire 0
            r -1 set primary:key 1 px 100
            wait_for_ofs_sync -1 0
            r config set replica-read-only no
            r select 5
            r set w:px 1 px 100
            r setex w:setex 1 v
            r set w:persisted v
            r expire w:persisted 1
            r set w:restored v
            r restore w:restore 100 [r dump w:restored]
            r del w:restored
            r select 9
            r set w:db9 1 px 100
            r select 0
            assert_equal 5 [repl_info slave_expires_tracked_keys 0 stats]
            wait_for_condition 100 50 {[dbsize_of 0 5] == 0 && [dbsize_of 0 9] == 0} {
                fail "keys written on the replica did not expire: [r info keyspace]"
            }
            assert_equal 0 [repl_info slave_expires_tracked_keys 0 stats]
            # The primary's key is left for the primary's DEL, however late.
            after 200
            assert_equal 1 [dbsize_of 0 0]
            r -1 debug set-active-expire 1
            wait_for_condition 100 50 {[dbsize_of 0 0] == 0} { fail "the primary's DEL did not come" }
            wait_for_ofs_sync -1 0
            assert_digests_equal {-1 0}
        }

        test "Writable replica: a key its client persists is forgotten, FLUSHALL forgets them all" {
            r set w:kept v px 300
            r persist w:kept
            r set w:flushed v ex 100
            assert_equal 2 [repl_info slave_expires_tracked_keys 0 stats]
            after 500
            assert_equal v [r get w:kept]
            r flushall
            assert_equal 0 [repl_info slave_expires_tracked_keys 0 stats]
            r config set replica-read-only yes
            wait_for_ofs_sync -1 0
            assert_digests_equal {-1 0}
        }

        test "Writable replica: a write re-creates its primary's expired key, a read only misses it" {
            r -1 debug set-active-expire 0
            r -1 set k1 5 px 10
            r -1 set k2 5 px 10
            wait_for_ofs_sync -1 0
            wait_for_condition 100 20 {[r exists k1 k2] == 0} { fail "the keys did not expire logically" }
            r config set replica-read-only no
            assert_equal 2 [dbsize_of 0 0]
            assert_equal 1 [r incr k1]
            assert_equal -1 [r ttl k1]
            assert_equal {} [r get k2]
            assert_equal 2 [dbsize_of 0 0]
            r del k1 k2
            r config set replica-read-only yes
            r -1 debug set-active-expire 1
            r -1 del k1 k2
            wait_for_ofs_sync -1 0
            assert_digests_equal {-1 0}
        }

        test "Read-only replica: PFCOUNT updates its cache, ignores a logically expired key, DBSIZE still counts it" {
            r -1 pfadd hll a b c d e f g h i j k l m n o p q
            wait_for_ofs_sync -1 0
            set before [r get hll]
            assert_equal 17 [r pfcount hll]
            assert_not_equal $before [r get hll] ;# the cached cardinality was written
            r -1 del hll
            r -1 debug set-active-expire 0
            r -1 pfadd hll a b c d e f g h i j k l m n o p q
            r -1 pexpire hll 10
            wait_for_ofs_sync -1 0
            wait_for_condition 100 20 {[r exists hll] == 0} { fail "hll did not expire logically" }
            assert_equal 0 [r pfcount hll]
            assert_equal 1 [dbsize_of 0 0] ;# not deleted: the primary's DEL will come
            r -1 debug set-active-expire 1
            wait_for_condition 100 50 {[dbsize_of 0 0] == 0} { fail "the primary's DEL did not come" }
            assert_digests_equal {-1 0}
        }
    }
}

# ---------------------------------------------------------------------------
# A primary restarted from its RDB continues its history (PSYNC2)
# ---------------------------------------------------------------------------

# Waits until the primary at level 0 and its replica (-1) and sub-replica
# (-2) have the same offset, the primary's own replica having
# acknowledged it (a primary with a lagging replica may ask it for an ACK
# at shutdown, which would move the offset past what the RDB records).
proc wait_chain_synced {} {
    set offset [repl_info master_repl_offset 0]
    wait_for_condition 200 50 {
        [string match "*slave0:*,offset=$offset,*" [r info replication]] &&
        [repl_info master_repl_offset -1] == $offset &&
        [repl_info master_repl_offset -2] == $offset
    } {
        fail "offsets differ: [repl_info master_repl_offset 0] [repl_info master_repl_offset -1]\
              [repl_info master_repl_offset -2]"
    }
    return $offset
}

# Restarts the primary (level 0) and waits until both replicas follow its
# new replication id with their links up.
proc restart_primary_of_chain {} {
    restart_server_at 0
    wait_for_condition 100 100 {
        [repl_info master_link_status -1] eq "up" && [repl_info master_link_status -2] eq "up" &&
        [repl_info master_replid -1] eq [repl_info master_replid 0] &&
        [repl_info master_replid -2] eq [repl_info master_replid 0]
    } {
        fail "the replicas did not sync after the primary's restart"
    }
}

start_server {tags {repl needs:debug} overrides {enable-debug-command yes}} {
    start_server {overrides {enable-debug-command yes repl-diskless-sync-delay 0}} {
        start_server {overrides {enable-debug-command yes repl-diskless-sync-delay 0}} {
            # No PING and no time-out: the offsets move only when the tests
            # write, and no link drops on its own.
            r config set save "3600 1"
            r config set repl-ping-replica-period 3600
            r config set repl-timeout 3600
            r config rewrite
            r -1 config set repl-timeout 3600
            r -2 config set repl-timeout 3600
            r -1 replicaof [srv 0 host] [srv 0 port]
            r -2 replicaof [srv -1 host] [srv -1 port]
            wait_for_sync -1
            wait_for_sync -2

            test "Restarted primary, offset 0: the replicas continue with a partial resync (repl-id/repl-offset of its RDB)" {
                assert_equal 0 [repl_info master_repl_offset 0]
                set replid [repl_info master_replid 0]
                r -1 config resetstat
                restart_primary_of_chain
                assert_not_equal $replid [repl_info master_replid 0]
                assert_equal 0 [repl_info master_repl_offset 0]
                assert_equal $replid [repl_info master_replid2 0]
                assert_equal 1 [repl_info second_repl_offset 0]
                assert_equal 1 [repl_info repl_backlog_active 0]
                assert_equal 1 [repl_info repl_backlog_first_byte_offset 0]
                assert_equal 0 [repl_info repl_backlog_histlen 0]
                assert_equal 1 [repl_info sync_partial_ok 0 stats]
                assert_equal 0 [repl_info sync_full 0 stats]
                # The replica's own replica followed the id change the same way.
                assert_equal 1 [repl_info sync_partial_ok -1 stats]
            }

            test "Restarted primary with data: partial resync from the offset its RDB recorded" {
                repl_populate_all_types 100
                set replid [repl_info master_replid 0]
                set offset [wait_chain_synced]
                r -1 config resetstat
                restart_primary_of_chain
                assert_equal $offset [repl_info master_repl_offset 0]
                assert_equal $replid [repl_info master_replid2 0]
                assert_equal [expr {$offset + 1}] [repl_info second_repl_offset 0]
                assert_equal [expr {$offset + 1}] [repl_info repl_backlog_first_byte_offset 0]
                assert_equal 0 [repl_info repl_backlog_histlen 0]
                assert_equal 1 [repl_info sync_partial_ok 0 stats]
                assert_equal 1 [repl_info sync_partial_ok -1 stats]
                r set after:restart 1
                wait_chain_synced
                assert_digests_equal {0 -1 -2}
            }

            test "Restarted primary whose keys expired while it was down: their DELs follow the partial resync" {
                r debug set-active-expire 0
                for {set j 0} {$j < 1024} {incr j} {
                    r select [expr {$j % 16}]
                    r set exp:$j v px 10
                }
                r select 0
                after 20
                set offset [wait_chain_synced]
                r -1 config resetstat
                restart_primary_of_chain
                assert_equal 1024 [repl_info rdb_last_load_keys_expired 0 persistence]
                set dels [repl_info repl_backlog_histlen 0]
                assert {$dels > 0}
                assert_equal [expr {$offset + $dels}] [repl_info master_repl_offset 0]
                assert_equal 1 [repl_info sync_partial_ok 0 stats]
                assert_equal 0 [repl_info sync_full 0 stats]
                assert_equal 1 [repl_info sync_partial_ok -1 stats]
                wait_chain_synced
                for {set db 0} {$db < 16} {incr db} {
                    assert_equal [dbsize_of 0 $db] [dbsize_of -2 $db] "db $db"
                }
                assert_digests_equal {0 -1 -2}
            }

            test "Restarted primary whose expired keys' DELs overflow the backlog: the replicas need a full sync" {
                r config set repl-backlog-size 16384
                r config rewrite
                r debug set-active-expire 0
                for {set j 0} {$j < 2048} {incr j} {
                    r select [expr {$j % 16}]
                    r set exp:$j v px 10
                }
                r select 0
                after 20
                wait_chain_synced
                r -1 config resetstat
                restart_primary_of_chain
                assert_equal 2048 [repl_info rdb_last_load_keys_expired 0 persistence]
                assert {[repl_info repl_backlog_first_byte_offset 0] > [repl_info second_repl_offset 0]}
                assert_equal 0 [repl_info sync_partial_ok 0 stats]
                assert_equal 1 [repl_info sync_full 0 stats]
                assert_equal 1 [repl_info sync_full -1 stats]
                wait_chain_synced
                assert_digests_equal {0 -1 -2}
            }
        }
    }
}

# ---------------------------------------------------------------------------
# repl-diskless-load swapdb: the snapshot is loaded aside
# ---------------------------------------------------------------------------

# Makes the primary at level drop its replicas and fill a small backlog
# with new writes in one transaction: they reconnect with an offset the
# backlog no longer holds, and get a full sync of the same history.
proc force_full_sync_same_history {level} {
    r $level multi
    r $level client kill type replica
    r $level config set repl-backlog-size 16384
    for {set j 0} {$j < 10} {incr j} { r $level set fill:$j [string repeat A 16384] }
    r $level exec
}

start_server {tags {repl needs:debug} overrides {enable-debug-command yes repl-diskless-sync yes
                                                 repl-diskless-sync-delay 0}} {
    start_server {overrides {enable-debug-command yes repl-diskless-load swapdb}} {
        set phost [srv -1 host]
        set pport [srv -1 port]
        r replicaof $phost $pport
        wait_for_sync
        # Writable, so that a key of its own shows which dataset it serves.
        r config set replica-read-only no
        r debug populate 2000 replica 10
        r -1 debug populate 2000 primary 1000
        r set mykey myvalue
        r function load {#!lua name=swaplib
            server.register_function{function_name='which', callback=function() return 'replica' end,
                                    flags={'no-writes'}}}
        r -1 function load {#!lua name=swaplib
            server.register_function{function_name='which', callback=function() return 'primary' end,
                                    flags={'no-writes'}}}

        test "swapdb, same history: the replica keeps serving its data while it loads (async_loading:1)" {
            r -1 config set rdb-key-save-delay 10000 ;# 2000 keys: 20 s
            set full [repl_info sync_full -1 stats]
            force_full_sync_same_history -1
            wait_for_condition 100 50 {[repl_info sync_full -1 stats] > $full} { fail "no full sync" }
            wait_for_condition 100 50 {[repl_info async_loading 0 persistence] == 1} {
                fail "the replica did not load asynchronously: [r info persistence]"
            }
            assert_equal 0 [repl_info loading 0 persistence]
            assert_equal myvalue [r get mykey]
            assert_equal replica [r fcall which 0]
            assert_equal 2001 [r dbsize]
            # A write of its own with a TTL is still expired actively.
            r set async:ttl v px 300
            assert_equal 1 [repl_info async_loading 0 persistence]
        }

        test "swapdb, same history: what cannot run during the load gets -LOADING, a busy script can be killed" {
            assert_error "LOADING*" {r replicaof no one}
            assert_error "LOADING*" {r config set appendonly no}
            assert_error "LOADING*" {r bgsave}
            r multi
            r get mykey
            assert_error "LOADING*" {r bgsave}
            assert_error "EXECABORT*" {r exec}
            set rd [vk_deferring_client]
            r config set busy-reply-threshold 10
            $rd eval {while true do end} 0
            wait_for_condition 100 20 {[catch {r ping} e] && [string match BUSY* $e]} {
                fail "the script did not become busy"
            }
            r script kill
            assert_error "*killed*" {$rd read}
            $rd close
            assert_equal PONG [r ping]
            assert_equal 1 [repl_info async_loading 0 persistence]
        }

        test "swapdb, same history: a failed load leaves the old data and libraries" {
            # The next attempt waits 5 s: time to look between the two.
            r -1 config set repl-diskless-sync-delay 5
            r -1 client kill type replica
            wait_for_condition 100 50 {[repl_info async_loading 0 persistence] == 0} {
                fail "the load did not stop"
            }
            assert_equal 0 [repl_info loading 0 persistence]
            assert_equal myvalue [r get mykey]
            assert_equal replica [r fcall which 0]
            wait_for_condition 100 50 {[r dbsize] == 2001} { fail "async:ttl did not expire: [r dbsize] keys" }
            assert [log_has_line "*Discarding temporary DB in background*"]
        }

        test "swapdb, same history: a completed load swaps the new data and libraries in" {
            r -1 config set rdb-key-save-delay 0
            r -1 config set repl-diskless-sync-delay 0
            wait_for_sync 0 400
            wait_for_ofs_sync -1 0
            assert_equal {} [r get mykey]
            assert_equal primary [r fcall which 0]
            assert_equal [r -1 dbsize] [r dbsize]
            assert [log_has_line "*Swapping active DB with loaded DB*"]
            assert_digests_equal {-1 0}
        }
    }
}

start_server {tags {repl needs:debug} overrides {enable-debug-command yes repl-diskless-sync yes
                                                 repl-diskless-sync-delay 0}} {
    start_server {overrides {enable-debug-command yes repl-diskless-load swapdb}} {
        r debug populate 200 replica 10
        r set mykey myvalue
        r function load {#!lua name=swaplib
            server.register_function{function_name='which', callback=function() return 'replica' end,
                                    flags={'no-writes'}}}
        r -1 debug populate 1000 primary 1000
        r -1 function load {#!lua name=swaplib
            server.register_function{function_name='which', callback=function() return 'primary' end,
                                    flags={'no-writes'}}}

        test "swapdb, another history: the load is not asynchronous, clients get -LOADING" {
            r -1 config set rdb-key-save-delay 10000 ;# 1000 keys: 10 s
            r replicaof [srv -1 host] [srv -1 port]
            wait_for_condition 100 50 {[repl_info loading 0 persistence] == 1} {
                fail "the replica did not start loading: [r info persistence]"
            }
            assert_equal 0 [repl_info async_loading 0 persistence]
            assert_error "LOADING*" {r get mykey}
        }

        test "swapdb, another history: a failed load leaves the old data and libraries" {
            r -1 config set repl-diskless-sync-delay 5
            r -1 client kill type replica
            wait_for_condition 100 50 {[repl_info loading 0 persistence] == 0} { fail "the load did not stop" }
            assert_equal myvalue [r get mykey]
            assert_equal replica [r fcall which 0]
            assert_equal 201 [r dbsize]
        }

        test "swapdb, another history: a completed load swaps the new data and libraries in" {
            r -1 config set rdb-key-save-delay 0
            r -1 config set repl-diskless-sync-delay 0
            wait_for_sync 0 400
            wait_for_ofs_sync -1 0
            assert_equal {} [r get mykey]
            assert_equal primary [r fcall which 0]
            assert_equal 1000 [r dbsize]
            assert_digests_equal {-1 0}
        }
    }
}
