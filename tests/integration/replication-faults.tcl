# Replication under faults: processes killed and links cut during a full
# sync and while streaming, a primary that sends a truncated or corrupt
# snapshot, a replica too slow for its output buffer limit, a primary that
# stops answering past repl-timeout. Nothing crashes, nothing is lost:
# after recovery the digests match. Also primaries that refuse PSYNC: the
# replica falls back to SYNC, or retries later when the refusal is
# transient. And hostile primaries: a stream with commands of the wrong
# arity, unknown commands, inline commands or protocol errors drops the
# link without applying or counting the bad bytes; blocking commands in
# the stream run without blocking.

# Starts tests/assets/fake-primary.tcl on a free port with the given mode
# and payload bytes; returns {pid port payload-file}.
proc fake_primary_start {mode payload} {
    set port [::vk::alloc_port]
    set f [tmp_path fake-payload-[incr ::fake_seq]]
    set fh [open $f wb]
    puts -nonewline $fh $payload
    close $fh
    set script [file join $::vk::cfg(root) tests assets fake-primary.tcl]
    # Its output goes to a file: a fake primary left running must not
    # hold the worker's output open (the runner waits for its end).
    set pid [exec tclsh $script $port $mode $f >$f.log 2>@1 &]
    wait_for_condition 100 20 {![::vk::port_is_free $port]} { fail "fake primary did not start" }
    return [list $pid $port $f]
}

proc fake_primary_psyncs {h} {
    set f "[lindex $h 2].psyncs"
    if {![file exists $f]} { return 0 }
    set fh [open $f]
    set n [string trim [read $fh]]
    close $fh
    return $n
}

# The names of the commands the fake primary received, in order.
proc fake_primary_cmds {h} {
    set f "[lindex $h 2].cmds"
    if {![file exists $f]} { return {} }
    set fh [open $f]
    set cmds [split [string trim [read $fh]] "\n"]
    close $fh
    return $cmds
}

proc fake_primary_stop {h} {
    catch {exec kill -KILL [lindex $h 0]}
}

# Stream mode: the bytes the fake primary sends after its n-th snapshot.
proc fake_primary_set_stream {h n bytes} {
    set fh [open "[lindex $h 2].stream.$n.tmp" wb]
    puts -nonewline $fh $bytes
    close $fh
    file rename -force "[lindex $h 2].stream.$n.tmp" "[lindex $h 2].stream.$n"
}

# The arguments of every PSYNC the fake primary received, in order.
proc fake_primary_psync_args {h} {
    set f "[lindex $h 2].psync-args"
    if {![file exists $f]} { return {} }
    set fh [open $f]
    set lines [split [string trim [read $fh]] "\n"]
    close $fh
    return $lines
}

# Makes the replica (level 0) sync from a fake primary sending payload
# framed as mode; the snapshot must be refused and the sync retried. The
# replica then holds its old data (old:key, when expect_old) or nothing,
# and never the fake primary's keys.
proc expect_snapshot_refused {mode payload expect_old} {
    set h [fake_primary_start $mode $payload]
    r replicaof 127.0.0.1 [lindex $h 1]
    wait_for_condition 200 50 {[fake_primary_psyncs $h] >= 2} {
        fake_primary_stop $h
        fail "the replica did not retry"
    }
    fake_primary_stop $h
    r replicaof no one
    assert_equal PONG [r ping]
    assert_equal $expect_old [r exists old:key]
    assert_equal 0 [r exists from:fake]
    r set old:key 1
}

# A valid RDB payload: the snapshot of a scratch server of ours.
proc valid_rdb_payload {} {
    set payload ""
    start_server {} {
        r set from:fake primary
        r rpush from:fake:list a b c
        r save
        set fh [open [file join [srv dir] dump.rdb] rb]
        set payload [read $fh]
        close $fh
    }
    return $payload
}

tags {repl needs:debug external:skip rdma:skip:own-server} {
    set good [valid_rdb_payload]

    foreach {load expect_old} {disabled 0 swapdb 1} {
        start_server [list overrides [list enable-debug-command yes repl-diskless-load $load tls-replication no] \
                          log_allow {"*Failed trying to load*" "*Short read*" "*Wrong RDB checksum*"
                              "*Internal error in RDB*" "*EOF marker*" "*I/O error*" "*Bad data format*"
                              "*RDB*" "*Replication stream*" "*Timeout*"}] {
            r set old:key 1
            test "A truncated snapshot is refused, the replica retries (repl-diskless-load $load)" {
                expect_snapshot_refused bulk [string range $good 0 end-30] $expect_old
            }

            test "A snapshot with a flipped byte is refused (checksum) (repl-diskless-load $load)" {
                set pos [expr {[string length $good] / 2}]
                set byte [scan [string index $good $pos] %c]
                expect_snapshot_refused bulk [string replace $good $pos $pos [format %c [expr {$byte ^ 0x40}]]] \
                    $expect_old
            }

            test "A streamed snapshot with the wrong end mark is refused (repl-diskless-load $load)" {
                # Read into a file, the payload only ends at the right
                # mark: the replica waits for it until repl-timeout and
                # never flushes its data. Loaded with swapdb, the old data
                # comes back.
                r config set repl-timeout 2
                expect_snapshot_refused badmark $good 1
                r config set repl-timeout 60
            }

            test "A valid streamed snapshot from the same fake primary loads (repl-diskless-load $load)" {
                set h [fake_primary_start eof $good]
                r replicaof 127.0.0.1 [lindex $h 1]
                wait_for_condition 200 50 {[r exists from:fake]} {
                    fake_primary_stop $h
                    fail "the snapshot did not load"
                }
                assert_equal {a b c} [r lrange from:fake:list 0 -1]
                assert_equal 0 [r exists old:key]
                fake_primary_stop $h
                r replicaof no one
            }
        }
    }

    start_server {overrides {enable-debug-command yes repl-timeout 2 tls-replication no}
                  log_allow {"*Timeout receiving bulk data*" "*PRIMARY timeout*"}} {
        test "A primary that stops sending in the middle of the snapshot: the replica gives up after repl-timeout" {
            expect_snapshot_refused short $good 0
        }
    }
}

tags {repl needs:debug} {
    start_server {overrides {enable-debug-command yes repl-diskless-sync-delay 0}} {
        start_server {overrides {enable-debug-command yes repl-timeout 2}
                      log_allow {"*PRIMARY timeout*"}} {
            set phost [srv -1 host]
            set pport [srv -1 port]
            test "A primary silent past repl-timeout: the replica drops the link and continues with a partial resync" {
                r replicaof $phost $pport
                wait_for_sync
                r -1 set before:sleep 1
                wait_for_ofs_sync -1 0
                set ok_before [repl_info sync_partial_ok -1 stats]
                r -1 debug sleep 3
                wait_for_condition 100 100 {[repl_info sync_partial_ok -1 stats] > $ok_before} {
                    fail "no partial resync after the timeout"
                }
                wait_for_sync
                r -1 set after:sleep 1
                wait_for_ofs_sync -1 0
                assert_digests_equal {-1 0}
            }
        }
    }

    foreach diskless {no yes} {
        start_server [list overrides [list enable-debug-command yes repl-diskless-sync $diskless \
                                          repl-diskless-sync-delay 0]] {
            start_server {overrides {enable-debug-command yes}} {
                set phost [srv -1 host]
                set pport [srv -1 port]
                test "The link cut during a full sync (diskless $diskless): the replica syncs again" {
                    r -1 debug populate 2000 key 100
                    # A slow snapshot: 2000 keys at 1 ms each.
                    r -1 config set rdb-key-save-delay 1000
                    r replicaof $phost $pport
                    wait_for_condition 100 50 {[repl_info master_sync_in_progress] == 1 ||
                                               [string match "*wait_bgsave*" [r -1 info replication]]} {
                        fail "the sync did not start"
                    }
                    r -1 client kill type replica
                    r -1 config set rdb-key-save-delay 0
                    wait_for_sync
                    wait_for_ofs_sync -1 0
                    assert_digests_equal {-1 0}
                    r replicaof no one
                }
            }
        }
    }

    start_server {overrides {enable-debug-command yes repl-diskless-sync yes repl-diskless-sync-delay 1}} {
        start_server {overrides {enable-debug-command yes}} {
            start_server {overrides {enable-debug-command yes}} {
                set phost [srv -2 host]
                set pport [srv -2 port]
                test "A replica killed during a shared streamed sync: the other one completes" {
                    r -2 debug populate 3000 key 100
                    r -2 config set rdb-key-save-delay 500
                    r -1 replicaof $phost $pport
                    r replicaof $phost $pport
                    wait_for_condition 100 50 {[regexp -all {state=wait_bgsave} [r -2 info replication]] == 2} {
                        fail "both replicas did not join the sync: [r -2 info replication]"
                    }
                    # Let the snapshot start streaming, then kill one replica.
                    after 300
                    set pid [srv -1 pid]
                    catch {exec kill -KILL $pid}
                    expect_server_exit -1
                    r -2 config set rdb-key-save-delay 0
                    wait_for_sync 0
                    wait_for_ofs_sync -2 0
                    assert_digests_equal {-2 0}
                    assert_equal PONG [r -2 ping]
                }
            }
        }
    }

    start_server {overrides {enable-debug-command yes repl-diskless-sync-delay 0}
                  log_allow {"*closed for overcoming of output buffer limits*"
                             "*scheduled to be closed ASAP for overcoming of output buffer limits*"}} {
        start_server {overrides {enable-debug-command yes}} {
            start_server {overrides {enable-debug-command yes}} {
                set phost [srv -2 host]
                set pport [srv -2 port]
                test "A replica too slow for its output buffer limit is dropped, the others go on" {
                    r -1 replicaof $phost $pport
                    r replicaof $phost $pport
                    wait_replicas_online 2 -2
                    r -2 config set client-output-buffer-limit "replica 256k 0 0"
                    set slow [srv -1 pid]
                    exec kill -STOP $slow
                    # More than the kernel's socket buffers of both ends
                    # take: the rest waits in the primary's output buffer.
                    set big [string repeat x 100000]
                    for {set i 0} {$i < 300} {incr i} {
                        r -2 set big:[expr {$i % 20}] $big
                        if {[repl_info connected_slaves -2] == 1} break
                    }
                    wait_for_condition 100 50 {[repl_info connected_slaves -2] == 1} {
                        exec kill -CONT $slow
                        fail "the stalled replica was not dropped"
                    }
                    assert {[repl_info client_output_buffer_limit_disconnections -2 stats] >= 1}
                    # On a loaded machine (or under ASan) the running replica
                    # may overrun the 256k limit too and resync: wait long.
                    wait_for_ofs_sync -2 0 1200
                    assert_digests_equal {-2 0}
                    # Once it runs again it reconnects and catches up.
                    exec kill -CONT $slow
                    r -2 config set client-output-buffer-limit "replica 256mb 64mb 60"
                    # Its link may still say "up" until it notices the drop;
                    # then a full sync of ~2 MB follows (slow on a loaded
                    # machine over TLS): wait on the offsets, generously.
                    wait_for_sync -1
                    wait_for_ofs_sync -2 -1 1200
                    assert_digests_equal {-2 -1 0}
                }
            }
        }
    }

    start_server {overrides {enable-debug-command yes repl-diskless-sync-delay 0}} {
        start_server {overrides {enable-debug-command yes}
                      log_allow {"*Connection refused*" "*Error condition on socket*" "*I/O error*"}} {
            set phost [srv -1 host]
            set pport [srv -1 port]
            test "The primary killed with SIGKILL during a full sync: the replica retries and syncs after its restart" {
                r -1 debug populate 3000 key 100
                r -1 config set rdb-key-save-delay 1000
                r -1 config set save ""
                r replicaof $phost $pport
                wait_for_condition 100 50 {[string match "*wait_bgsave*" [r -1 info replication]]} {
                    fail "the sync did not start"
                }
                after 200
                restart_server_at -1 1
                # The restarted primary has no data (no save); write some.
                r -1 set after:restart 1
                wait_for_sync
                wait_for_ofs_sync -1 0
                assert_digests_equal {-1 0}
                assert_equal 1 [r get after:restart]
            }
        }
    }
}

tags {repl external:skip rdma:skip:own-server} {
    set good [valid_rdb_payload]
    # What the fake primary streams after the snapshot (fake-primary.tcl).
    set stream_set "*3\r\n\$3\r\nSET\r\n\$11\r\nfrom:stream\r\n\$1\r\n1\r\n"

    foreach load {disabled swapdb} {
        start_server [list overrides [list repl-diskless-load $load tls-replication no]] {
            test "A primary that refuses PSYNC is asked with SYNC on the same link (repl-diskless-load $load)" {
                set h [fake_primary_start nopsync $good]
                r replicaof 127.0.0.1 [lindex $h 1]
                wait_for_condition 200 50 {[r exists from:stream]} {
                    fake_primary_stop $h
                    fail "the replica did not sync with SYNC: [fake_primary_cmds $h]"
                }
                assert_equal {a b c} [r lrange from:fake:list 0 -1]
                assert_equal up [repl_info master_link_status]
                # No replication id came with the snapshot: none, and the
                # offset counts from -1, as on Valkey's replica.
                assert_equal "" [repl_info master_replid]
                assert_equal [expr {[string length $stream_set] - 1}] [repl_info master_repl_offset]
                # A cron second later: no REPLCONF ACK went to a primary
                # that would answer it with an error into the stream.
                after 1500
                assert_equal {ping replconf replconf psync sync} [fake_primary_cmds $h]
                assert_equal up [repl_info master_link_status]
                fake_primary_stop $h
                r replicaof no one
            }
        }
    }

    start_server {overrides {tls-replication no}} {
        test "A primary answering PSYNC with -LOADING gets PSYNC again later, never SYNC" {
            set h [fake_primary_start loading $good]
            r replicaof 127.0.0.1 [lindex $h 1]
            wait_for_condition 100 50 {[llength [lsearch -all [fake_primary_cmds $h] psync]] >= 2} {
                fake_primary_stop $h
                fail "the replica did not retry PSYNC: [fake_primary_cmds $h]"
            }
            assert_equal -1 [lsearch [fake_primary_cmds $h] sync]
            assert_equal 0 [r exists from:fake]
            assert_equal down [repl_info master_link_status]
            fake_primary_stop $h
            r replicaof no one
        }
    }
}

tags {repl external:skip} {
    start_server {overrides {repl-timeout 1}} {
        test "A replica that asked with SYNC (it never ACKs) is not dropped at repl-timeout" {
            set s [repl_stream_attach]
            after 3000
            r set after:timeout 1
            assert_replication_stream $s {{select *} {set after:timeout 1}}
            assert_equal 1 [repl_info connected_slaves]
            repl_stream_close $s
        }
    }
}

# A hostile primary: what follows the snapshot is no replication stream.
# The reference server (level -1) gets the snapshot's keys and the
# commands the replica (level 0) should have applied, for DEBUG DIGEST.
tags {repl needs:debug external:skip rdma:skip:own-server} {
    set good [valid_rdb_payload]
    set set_good [resp_multibulk SET good 1]

    start_server {overrides {enable-debug-command yes}} {
        start_server {overrides {enable-debug-command yes tls-replication no}
                      log_allow {"*== CRITICAL == This replica is sending an error to its primary*"
                                 "*The primary sent a command this replica cannot run*"
                                 "*which would change what the replication link is*"
                                 "*Protocol error*from client*"
                                 "*Receiving inline protocol from primary*"}} {
            foreach {what bad logged} [list \
                "a command with too few arguments" "*2\r\n\$3\r\nSET\r\n\$1\r\nk\r\n" \
                    "*CRITICAL*'wrong number of arguments for 'set' command' after processing the command 'set'" \
                "a command with too many arguments" [resp_multibulk GET k extra] \
                    "*CRITICAL*'wrong number of arguments for 'get' command'*" \
                "an unknown command" [resp_multibulk NOSUCHCMD a b] \
                    "*CRITICAL*'unknown command 'NOSUCHCMD', with args beginning with: 'a' 'b' ' after*'<unknown>'" \
                "an unknown subcommand" [resp_multibulk OBJECT NOSUCHSUB k] \
                    "*CRITICAL*'unknown subcommand 'NOSUCHSUB'. Try OBJECT HELP.'*" \
                "a bad command inside MULTI" \
                    "[resp_multibulk MULTI][resp_multibulk SET inmulti 1]*1\r\n\$3\r\nSET\r\n[resp_multibulk EXEC]" \
                    "*CRITICAL*wrong number of arguments for 'set' command*" \
                "an inline command" "SET k v\r\n" "*Receiving inline protocol from primary*" \
                "a reply" "+OK\r\n" "*Receiving inline protocol from primary*" \
                "a bad bulk length" "*2\r\n\$3\r\nGET\r\n\$x\r\n" \
                    "*Protocol error (*) from client: *flags=M*" \
                "a bad multibulk count" "*-x\r\n" "*Protocol error (*) from client: *flags=M*" \
                "SUBSCRIBE (later writes would be refused)" [resp_multibulk SUBSCRIBE ch] \
                    "*The primary sent subscribe, which would change what the replication link is*" \
                "REPLICAOF NO ONE" [resp_multibulk REPLICAOF NO ONE] "*The primary sent replicaof, *" \
                "PSYNC" [resp_multibulk PSYNC ? -1] "*The primary sent psync, *"] {
                test "A primary that sends $what: the link drops, the bad bytes are neither applied nor counted" {
                    r -1 flushall
                    r -1 set from:fake primary
                    r -1 rpush from:fake:list a b c
                    r -1 set good 1
                    set h [fake_primary_start stream $good]
                    try {
                        fake_primary_set_stream $h 1 "$set_good$bad[resp_multibulk SET after 1]"
                        r replicaof 127.0.0.1 [lindex $h 1]
                        # The replica drops the link and asks again (refused
                        # with -LOADING until the next stream is there).
                        wait_for_condition 100 50 {[llength [fake_primary_psync_args $h]] >= 2} {
                            fail "the link was not dropped: [r info replication]"
                        }
                        assert_equal 1 [log_has_line $logged] "no log line like $logged"
                        assert_equal [string length $set_good] [repl_info master_repl_offset]
                        assert_equal 0 [r exists after]
                        assert_equal 0 [r exists inmulti]
                        assert_digests_equal {-1 0}
                        # It forgot its place in the primary's history: a
                        # partial resync would get the same bytes again.
                        assert_equal {? -1} [lindex [fake_primary_psync_args $h] 1]
                        # With a sound stream the full sync brings it back.
                        fake_primary_set_stream $h 2 [resp_multibulk SET recovered 1]
                        wait_for_sync
                        wait_for_condition 100 50 {[r exists recovered]} { fail "the stream did not resume" }
                        assert_equal [string length [resp_multibulk SET recovered 1]] [repl_info master_repl_offset]
                        r -1 del good
                        r -1 set recovered 1
                        assert_digests_equal {-1 0}
                    } finally {
                        fake_primary_stop $h
                        r replicaof no one
                        r flushall
                    }
                }
            }

            test "A primary that sends QUIT (without ever getting an ACK): the link closes at once" {
                # A pre-PSYNC primary gets no REPLCONF ACK, the only reply
                # a primary's client writes: closing "after the reply"
                # must not wait for one, with the stream unread meanwhile.
                r -1 flushall
                r -1 set from:fake primary
                r -1 rpush from:fake:list a b c
                r -1 set from:stream 1
                set h [fake_primary_start nopsync $good]
                try {
                    fake_primary_set_stream $h 1 "[resp_multibulk QUIT][resp_multibulk SET after 1]"
                    r replicaof 127.0.0.1 [lindex $h 1]
                    wait_for_condition 100 50 {[fake_primary_psyncs $h] >= 2} {
                        fail "the link was not closed: [r info replication]"
                    }
                    wait_for_sync
                    wait_for_condition 100 50 {[r exists from:stream]} { fail "no stream after the new sync" }
                    assert_equal 0 [r exists after]
                    assert_digests_equal {-1 0}
                } finally {
                    fake_primary_stop $h
                    r replicaof no one
                    r flushall
                }
            }

            test "A primary's blocking commands never block: each runs as inside MULTI, the stream goes on" {
                r -1 flushall
                r -1 set from:fake primary
                r -1 rpush from:fake:list a b c
                set cmds {
                    {set a 1}
                    {blpop nolist 0} {brpop nolist 0} {brpoplpush nolist dst 0} {blmove nolist dst left right 0}
                    {blmpop 0 1 nolist left} {bzpopmin nozset 0} {bzpopmax nozset 0} {bzmpop 0 1 nozset min}
                    {xread block 0 streams nostream $} {xgroup create s g $ mkstream}
                    {xreadgroup group g c block 0 streams s >}
                    {rpush list x y} {blpop list 0} {zadd z 1 m} {bzpopmin z 0}
                    {set b 2}
                }
                set stream ""
                foreach c $cmds { append stream [resp_multibulk {*}$c] }
                # WAIT and WAITAOF are refused on a replica (no data);
                # empty lines are a primary's keepalives.
                append stream [resp_multibulk WAIT 1 0] [resp_multibulk WAITAOF 0 1 0] "\n\r\n"
                append stream [resp_multibulk SET c 3]
                r -1 multi
                foreach c $cmds { r -1 {*}$c }
                r -1 exec
                r -1 set c 3
                set h [fake_primary_start stream $good]
                try {
                    fake_primary_set_stream $h 1 $stream
                    r replicaof 127.0.0.1 [lindex $h 1]
                    wait_for_condition 100 50 {[r exists c]} { fail "the stream stalled: [r client list]" }
                    assert_equal up [repl_info master_link_status]
                    assert_equal [string length $stream] [repl_info master_repl_offset]
                    assert_equal 0 [repl_info blocked_clients 0 clients]
                    assert_equal y [r lindex list 0]
                    assert_digests_equal {-1 0}
                    assert_equal 1 [llength [fake_primary_psync_args $h]]
                } finally {
                    fake_primary_stop $h
                    r replicaof no one
                    r flushall
                }
            }
        }
    }
}
