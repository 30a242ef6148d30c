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
