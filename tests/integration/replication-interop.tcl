# Replication between this server and others: a Debian redis-server 7.0
# primary feeding our replica (full sync, the stream, partial resync), and
# Debian's redis-cli --replica / --rdb against our primary.
#
# redis-server is started by hand on TCP, so these tests are tagged
# rdma:skip:own-server; without the binaries every test skips.

source [file join $::vk::cfg(root) tests assets rdb-dataset.tcl]

source [file join $::vk::cfg(root) tests assets redis-server.tcl]

# INFO field of a plain client.
proc interop_info_field {c field} {
    if {[regexp "(?:^|\n)$field:(\[^\r\n\]*)" [$c info] -> v]} { return $v }
    return ""
}

tags {repl external:skip rdma:skip:own-server} {
    set have_redis [file executable $::redis_binary]

    foreach load {disabled swapdb} {
        start_server [list overrides [list tls-replication no repl-diskless-load $load]] {
            test "A redis-server 7.0 primary feeds our replica (repl-diskless-load $load)" {
                if {!$have_redis} { skip "no $::redis_binary" }
                set h [redis_start [tmp_path redis-primary-$load] --repl-diskless-sync-delay 0]
                set rport [lindex $h 1]
                set rc [::vk::client_open 127.0.0.1 $rport]
                if {[catch {
                    rdb_fill_every_type $rc
                    r replicaof 127.0.0.1 $rport
                    wait_for_sync
                    # The stream: writes of every kind after the sync.
                    $rc set after:sync 1
                    $rc rpush after:list a b c
                    $rc select 5
                    $rc set after:db5 x
                    $rc select 9
                    wait_for_condition 100 50 {
                        [interop_info_field $rc master_repl_offset] eq [repl_info master_repl_offset]
                    } { fail "offsets differ" }
                    assert_dumps_equal [rdb_dataset_dump $rc] [rdb_dataset_dump r]

                    # Partial resync after the link drops.
                    set ok_before [interop_info_field $rc sync_partial_ok]
                    r client kill type master
                    $rc incr after:counter
                    wait_for_sync
                    wait_for_condition 100 50 {
                        [interop_info_field $rc master_repl_offset] eq [repl_info master_repl_offset]
                    } { fail "offsets differ after the partial resync" }
                    assert_equal [expr {$ok_before + 1}] [interop_info_field $rc sync_partial_ok]
                    assert_dumps_equal [rdb_dataset_dump $rc] [rdb_dataset_dump r]
                } err opts]} {
                    $rc close
                    redis_stop $h
                    return -options $opts $err
                }
                $rc close
                r replicaof no one
                redis_stop $h
            }
        }
    }

    start_server {overrides {repl-diskless-sync-delay 0}} {
        test "redis-cli --rdb saves our primary's snapshot (streamed)" {
            set cli [cli_binary]
            if {$cli eq ""} { skip "no redis-cli" }
            r rpush l a b c
            r set k v
            set f [tmp_path cli-dump.rdb]
            set rc [catch {exec $cli -h [srv host] -p [srv port] {*}[::vk::transport_cli_args] --rdb $f 2>@1} out]
            assert_equal 0 $rc $out
            set fh [open $f rb]
            set data [read $fh]
            close $fh
            assert_equal REDIS0011 [string range $data 0 8]
            assert_match "*Transfer finished with success*" $out
        }

        test "redis-cli --replica shows the stream of our primary" {
            set cli [cli_binary]
            if {$cli eq ""} { skip "no redis-cli" }
            set out [tmp_path cli-replica.out]
            set pid [exec $cli -h [srv host] -p [srv port] {*}[::vk::transport_cli_args] --replica >& $out &]
            wait_for_condition 100 50 {[string match "*Logging commands from master*" [file_contents $out]]} {
                catch {exec kill $pid}
                fail "redis-cli did not sync: [file_contents $out]"
            }
            r set streamed:key streamed:value
            wait_for_condition 100 50 {[string match "*streamed:value*" [file_contents $out]]} {
                catch {exec kill $pid}
                fail "the SET did not reach redis-cli: [file_contents $out]"
            }
            catch {exec kill $pid}
        }
    }
}
