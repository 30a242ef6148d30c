# Miscellaneous server behaviour: SHUTDOWN, pipelining, and dataset
# fingerprints that later tests (replication, persistence) build upon.

start_server {tags {other}} {
    test "SHUTDOWN option errors" {
        assert_error "*syntax error*" {r shutdown nosave save}
        assert_error "*syntax error*" {r shutdown abort now}
        assert_error "*syntax error*" {r shutdown nosuchoption}
        assert_error "*No shutdown in progress*" {r shutdown abort}
        r ping
    } PONG

    test "SHUTDOWN is refused inside MULTI" {
        if {[catch {r multi} e]} { skip "MULTI is not available: $e" }
        catch {r shutdown nosave} err
        catch {r exec}
        assert_match "*not allowed*" $err
        r ping
    } PONG

    test "Pipelining: many commands written at once get their replies in order" {
        set c [vk_client]
        set n 1000
        set buf ""
        for {set i 0} {$i < $n} {incr i} {
            append buf "*3\r\n\$3\r\nSET\r\n\$[string length key:$i]\r\nkey:$i\r\n\$[string length $i]\r\n$i\r\n"
            append buf "*2\r\n\$3\r\nGET\r\n\$[string length key:$i]\r\nkey:$i\r\n"
        }
        $c write $buf
        $c flush
        for {set i 0} {$i < $n} {incr i} {
            assert_equal OK [$c read]
            assert_equal $i [$c read]
        }
        $c close
        r flushall
    } OK
}

start_server {tags {other needs:debug} overrides {enable-debug-command yes}} {
    test "DEBUG DIGEST is stable across FLUSHALL and an identical rebuild" {
        r flushall
        r debug populate 1000
        r set extra value
        r expire extra 1000000
        set before [r debug digest]
        set ttl [r pexpiretime extra]
        r flushall
        assert_equal [string repeat 0 40] [r debug digest]
        r debug populate 1000
        r set extra value
        r pexpireat extra $ttl
        assert_equal $before [r debug digest]
    }

    test "DEBUG DIGEST distinguishes the same data in another database" {
        r flushall
        r debug populate 10
        set d0 [r debug digest]
        r flushall
        r select 1
        r debug populate 10
        set d1 [r debug digest]
        r flushall
        r select 0
        assert_not_equal $d0 $d1
    }
}

# SHUTDOWN really stops the process; the server is started by hand because
# start_server treats a server that exits inside its block as a failure.
tags {other external:skip rdma:skip:own-server} {
    test "SHUTDOWN NOSAVE stops the server and logs the goodbye" {
        set dir [tmp_path shutdown]
        file mkdir $dir
        set port [::vk::alloc_port]
        set log [file join $dir log]
        set pid [exec $::vk::cfg(binary) --port $port --bind 127.0.0.1 --save "" --dir $dir \
                     --logfile $log >/dev/null 2>@1 &]
        wait_for_condition 200 20 {[file exists $log] && [string match "*Ready to accept*" [exec cat $log]]} {
            catch {exec kill -KILL $pid}
            fail "server did not start"
        }
        set c [::vk::client_open 127.0.0.1 $port]
        set r [catch {$c shutdown nosave} err]
        catch {$c close}
        wait_for_condition 250 20 {![::vk::pid_alive $pid]} {
            catch {exec kill -KILL $pid}
            fail "server still running after SHUTDOWN NOSAVE"
        }
        assert_match "*ready to exit, bye bye*" [exec cat $log]
    }
}

# oom-score-adj: the server writes /proc/self/oom_score_adj for its role
# (oom-score-adj-values: primary, replica, background child), relative to
# the score it started with unless "absolute", and puts the starting score
# back with "no". Raising a score needs no privilege, so the values here
# stay above the starting one.
tags {other oom-score-adj external:skip} {
    start_server {tags {needs:debug} overrides {enable-debug-command yes}} {
        proc oom_score_adj {pid} {
            set fd [open /proc/$pid/oom_score_adj]
            set v [string trim [read $fd]]
            close $fd
            return $v
        }

        test "oom-score-adj: the primary, replica and child scores follow the role" {
            if {![file exists /proc/self/oom_score_adj]} { skip "no /proc/self/oom_score_adj" }
            set pid [srv pid]
            set base [oom_score_adj $pid]
            r config set oom-score-adj-values "10 20 30"
            assert_equal $base [oom_score_adj $pid]
            r config set oom-score-adj yes
            assert_equal [expr {$base + 10}] [oom_score_adj $pid]
            # A replica (of a port where nobody listens: the role counts,
            # not the link).
            r replicaof 127.0.0.1 [::vk::alloc_port]
            assert_equal [expr {$base + 20}] [oom_score_adj $pid]
            r replicaof no one
            assert_equal [expr {$base + 10}] [oom_score_adj $pid]
            # A background save's child.
            r debug populate 1000
            r config set rdb-key-save-delay 1000
            r bgsave
            wait_for_condition 50 20 {[regexp {rdb_bgsave_in_progress:1} [r info persistence]]} { fail "no bgsave" }
            set child [lindex [regexp -inline {current_fork_pid:(\d+)} [r info persistence]] 1]
            if {$child eq ""} {
                set child [string trim [exec pgrep -P $pid]]
            }
            wait_for_condition 50 20 {[oom_score_adj $child] == $base + 30} {
                fail "child score [oom_score_adj $child], expected [expr {$base + 30}]"
            }
            r config set rdb-key-save-delay 0
            catch {r bgsave cancel}
            wait_for_condition 100 50 {[regexp {rdb_bgsave_in_progress:0} [r info persistence]]} { fail "bgsave still running" }
            # absolute takes the values as they are; no restores the start.
            r config set oom-score-adj-values "[expr {$base + 5}] 20 30"
            r config set oom-score-adj absolute
            assert_equal [expr {$base + 5}] [oom_score_adj $pid]
            r config set oom-score-adj no
            assert_equal $base [oom_score_adj $pid]
            r config set oom-score-adj-values "0 200 800"
        }
    }
}
