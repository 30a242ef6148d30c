# Shutdown with replicas: SHUTDOWN and SIGTERM first wait, writes paused,
# up to shutdown-timeout seconds for replicas to acknowledge the whole
# replication stream; SHUTDOWN ABORT cancels the wait; NOW skips it. A
# "lagging" replica here is a plain client attached with SYNC
# (repl_stream_attach), which never acknowledges anything.

# The server's log so far.
proc shutdown_log {{level 0}} {
    set fd [open [srv $level stdout]]
    set text [read $fd]
    close $fd
    return $text
}

# Waits until the log of the server at level has count lines matching
# pattern.
proc wait_log_count {pattern count {level 0}} {
    wait_for_condition 100 50 {[regexp -all -line -- $pattern [shutdown_log $level]] >= $count} {
        fail "log line '$pattern' seen [regexp -all -line -- $pattern [shutdown_log $level]] times, wanted $count"
    }
}

proc assert_no_match_info {field} {
    assert {![string match "*$field*" [r info server]]} "$field in INFO"
}

# Waits until the client with this id is blocked (CLIENT LIST flags b).
proc wait_client_blocked {id} {
    wait_for_condition 100 20 {[string match "*flags=b*" [r client list id $id]]} {
        fail "client $id is not blocked: [r client list id $id]"
    }
}

tags {shutdown repl external:skip valkey-only rdma:skip:process} {
    start_server {overrides {shutdown-timeout 60}} {
        set stream [repl_stream_attach]
        r set k v ;# the replica now lags

        test "SHUTDOWN waits for a lagging replica, with writes paused; SHUTDOWN ABORT cancels it" {
            set sd [vk_deferring_client]
            $sd client id
            set sd_id [$sd read]
            $sd shutdown
            wait_log_count {Waiting for replicas before shutting down\.} 1
            wait_client_blocked $sd_id
            # INFO says how long it may still wait.
            regexp {shutdown_in_milliseconds:(\d+)} [r info server] -> left
            assert_range $left 1 60000
            # Reads are served, writes wait for the end of the wait.
            assert_equal v [r get k]
            set w [vk_deferring_client]
            $w client id
            set w_id [$w read]
            $w set k v2
            wait_client_blocked $w_id
            assert_equal v [r get k]
            # A second SHUTDOWN joins the one under way.
            set sd2 [vk_deferring_client]
            $sd2 client id
            set sd2_id [$sd2 read]
            $sd2 shutdown nosave
            wait_client_blocked $sd2_id
            assert_equal OK [r shutdown abort]
            assert_error "ERR Errors trying to SHUTDOWN. Check logs." {$sd read}
            assert_error "ERR Errors trying to SHUTDOWN. Check logs." {$sd2 read}
            assert_equal OK [$w read]
            assert_equal v2 [r get k]
            assert_match "*Shutdown manually aborted.*" [shutdown_log]
            assert_error "ERR No shutdown in progress." {r shutdown abort}
            assert_no_match_info shutdown_in_milliseconds
            # The clients go on.
            foreach c [list $sd $sd2] {
                $c ping
                assert_equal PONG [$c read]
            }
        }

        test "SIGTERM waits for a lagging replica too, and SHUTDOWN ABORT cancels it" {
            exec kill -TERM [srv pid]
            wait_log_count {Waiting for replicas before shutting down\.} 2
            assert_equal OK [r shutdown abort]
            assert_equal 2 [regexp -all {Shutdown manually aborted\.} [shutdown_log]]
            after 300
            assert_equal PONG [r ping]
            r set k v3
            assert_equal v3 [r get k]
        }

        test "SHUTDOWN ABORT does not end a CLIENT PAUSE" {
            r client pause 100000 write
            set sd [vk_deferring_client]
            $sd shutdown
            wait_log_count {Waiting for replicas before shutting down\.} 3
            assert_equal OK [r shutdown abort]
            assert_error "ERR Errors trying to SHUTDOWN*" {$sd read}
            set w [vk_deferring_client]
            $w client id
            set w_id [$w read]
            $w set k v4
            wait_client_blocked $w_id
            r client unpause
            assert_equal OK [$w read]
        }

        test "SHUTDOWN without NOW is refused inside a transaction" {
            r multi
            catch {r shutdown} e
            catch {r exec}
            assert_match "*not allowed*" $e
        }

        test "At shutdown-timeout the shutdown goes on, logging the lagging replica" {
            r config set shutdown-timeout 1
            r set k v5
            set sd [vk_deferring_client]
            $sd shutdown nosave
            expect_server_exit
            set start [clock milliseconds]
            wait_for_condition 100 50 {![::vk::pid_alive [srv pid]]} { fail "the server did not exit" }
            assert_range [expr {[clock milliseconds] - $start}] 500 5000
            set text [shutdown_log]
            assert_match "*Lagging replica * reported offset * behind primary, lag=*, state=online.*" $text
            assert_match "*0 of 1 replicas are in sync when shutting down.*" $text
            assert_match "*is now ready to exit, bye bye...*" $text
            catch {repl_stream_close $stream}
        }
    }

    start_server {overrides {shutdown-timeout 60}} {
        set stream [repl_stream_attach]
        r set k v

        test "SHUTDOWN NOW does not wait for lagging replicas" {
            set sd [vk_deferring_client]
            $sd shutdown nosave now
            expect_server_exit
            wait_for_condition 100 20 {![::vk::pid_alive [srv pid]]} { fail "the server did not exit" }
            assert {![string match "*Waiting for replicas*" [shutdown_log]]}
            catch {repl_stream_close $stream}
        }
    }

    # A replica that keeps up: the primary asks it for an ACK and exits as
    # soon as it has the whole stream, long before shutdown-timeout.
    start_server {overrides {shutdown-timeout 60}} {
        start_server {} {
            r replicaof [srv -1 host] [srv -1 port]
            wait_for_sync
            r -1 set k v
            wait_for_ofs_sync -1 0

            test "A replica in sync: SHUTDOWN finishes at once after its ACK" {
                set sd [vk_deferring_client -1]
                set start [clock milliseconds]
                $sd shutdown nosave
                expect_server_exit -1
                wait_for_condition 100 50 {![::vk::pid_alive [srv -1 pid]]} { fail "the primary did not exit" }
                assert {[clock milliseconds] - $start < 10000}
                assert_match "*1 of 1 replicas are in sync when shutting down.*" [shutdown_log -1]
                assert_equal v [r get k]
            }
        }
    }
}
