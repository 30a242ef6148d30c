# The server as a process: start-up lines, signals, daemonizing, pid file,
# Unix socket, command-line errors. Servers here are started by hand (not
# with start_server) because the tests are about how they start and stop.

# Starts the binary with these arguments, stdout and stderr going to
# files in dir. Returns a dict: chan (a pipe whose close reports the exit
# status; its writing end is the stdin of the server), pid, out (the stdout+stderr file).
proc proc_start {dir args} {
    file mkdir $dir
    set out [file join $dir out]
    set chan [open [list | $::vk::cfg(binary) {*}$args >& $out] w]
    return [dict create chan $chan pid [pid $chan] out $out]
}

# Waits for the process to exit; returns its exit status (-1 if it is
# still running after `ms`: it is then killed).
proc proc_wait {p {ms 10000}} {
    set deadline [expr {[clock milliseconds] + $ms}]
    while {[::vk::pid_alive [dict get $p pid]] && [clock milliseconds] < $deadline} { after 20 }
    if {[::vk::pid_alive [dict get $p pid]]} {
        catch {exec kill -KILL [dict get $p pid]}
        catch {close [dict get $p chan]}
        return -1
    }
    if {[catch {close [dict get $p chan]} err opts]} {
        set ec [dict get $opts -errorcode]
        if {[lindex $ec 0] eq "CHILDSTATUS"} { return [lindex $ec 2] }
        if {[lindex $ec 0] eq "CHILDKILLED"} { return "killed by [lindex $ec 2]" }
    }
    return 0
}

proc file_text {path} {
    if {![file exists $path]} { return "" }
    set fh [open $path]
    set text [read $fh]
    close $fh
    return $text
}

# Waits until the log at path says the server is ready.
proc wait_log_ready {path pid} {
    wait_for_condition 250 20 {[string match "*Ready to accept connections*" [file_text $path]]} {
        catch {exec kill -KILL $pid}
        fail "server did not start: [file_text $path]"
    }
}

# Common arguments of a server that listens on its own port.
proc base_args {dir port} {
    return [list --port $port --bind 127.0.0.1 --save "" --dir $dir]
}

tags {process external:skip rdma:skip:process} {
    test "Start-up log lines and a graceful exit on SIGTERM" {
        set dir [tmp_path sigterm]
        set port [::vk::alloc_port]
        set p [proc_start $dir {*}[base_args $dir $port]]
        wait_log_ready [dict get $p out] [dict get $p pid]
        set c [::vk::client_open 127.0.0.1 $port]
        assert_equal PONG [$c ping]
        $c close
        exec kill -TERM [dict get $p pid]
        assert_equal 0 [proc_wait $p]
        set log [file_text [dict get $p out]]
        assert_match "*Server initialized*" $log
        assert_match "*Ready to accept connections*" $log
        assert_match "*Received SIGTERM scheduling shutdown...*" $log
        assert_match "*User requested shutdown...*" $log
        assert_match "* is now ready to exit, bye bye...*" $log
        # In this order.
        assert {[string first "Received SIGTERM" $log] < [string first "User requested shutdown" $log]}
        assert {[string first "User requested shutdown" $log] < [string first "ready to exit, bye bye" $log]}
    }

    test "SIGINT shuts down gracefully too" {
        set dir [tmp_path sigint]
        set port [::vk::alloc_port]
        set p [proc_start $dir {*}[base_args $dir $port]]
        wait_log_ready [dict get $p out] [dict get $p pid]
        exec kill -INT [dict get $p pid]
        assert_equal 0 [proc_wait $p]
        set log [file_text [dict get $p out]]
        assert_match "*Received SIGINT scheduling shutdown...*" $log
        assert_match "*User requested shutdown...*" $log
        assert_match "* is now ready to exit, bye bye...*" $log
    }

    test "A second SIGINT exits at once and removes the temp file of a SAVE in progress" {
        set dir [tmp_path sigint-save]
        set port [::vk::alloc_port]
        # 1000 keys at 10 ms each: the SAVE would take 10 s.
        set p [proc_start $dir {*}[base_args $dir $port] --enable-debug-command yes --rdb-key-save-delay 10000]
        set pid [dict get $p pid]
        wait_log_ready [dict get $p out] $pid
        set c [::vk::client_open 127.0.0.1 $port]
        $c debug populate 1000
        set d [::vk::client_open 127.0.0.1 $port 1]
        $d save
        set tmp [file join $dir temp-$pid.rdb]
        wait_for_condition 250 20 {[file exists $tmp]} { fail "SAVE did not start writing $tmp" }
        exec kill -INT $pid
        after 100
        exec kill -INT $pid
        assert_equal 1 [proc_wait $p]
        catch {$c close}
        catch {$d close}
        set log [file_text [dict get $p out]]
        assert_match "*Received SIGINT scheduling shutdown...*You insist... exiting now.*" $log
        assert {![file exists $tmp]} "$tmp left behind"
        assert {![file exists [file join $dir dump.rdb]]}
    }

    test "SHUTDOWN NOSAVE exits with status 0" {
        set dir [tmp_path shutdown-status]
        set port [::vk::alloc_port]
        set p [proc_start $dir {*}[base_args $dir $port]]
        wait_log_ready [dict get $p out] [dict get $p pid]
        set c [::vk::client_open 127.0.0.1 $port]
        catch {$c shutdown nosave}
        $c close
        assert_equal 0 [proc_wait $p]
    }

    tags {valkey-only} {
        test "The ready line names the transport: tcp" {
            set dir [tmp_path ready-tcp]
            set port [::vk::alloc_port]
            set p [proc_start $dir {*}[base_args $dir $port]]
            wait_log_ready [dict get $p out] [dict get $p pid]
            exec kill -TERM [dict get $p pid]
            proc_wait $p
            assert_match "*Ready to accept connections tcp*" [file_text [dict get $p out]]
        }
    }

    test "daemonize yes: the parent returns, the pid file holds the daemon's pid" {
        set dir [tmp_path daemon]
        file mkdir $dir
        set port [::vk::alloc_port]
        set pidfile [file join $dir server.pid]
        set logfile [file join $dir server.log]
        set parent [proc_start $dir {*}[base_args $dir $port] --daemonize yes \
                        --pidfile $pidfile --logfile $logfile]
        assert_equal 0 [proc_wait $parent 5000]
        wait_for_condition 250 20 {[file exists $pidfile] && [string trim [file_text $pidfile]] ne ""} {
            fail "no pid file"
        }
        set daemon [string trim [file_text $pidfile]]
        assert {$daemon != [dict get $parent pid]}
        assert {[::vk::pid_alive $daemon]}
        wait_log_ready $logfile $daemon
        set log [file_text $logfile]
        assert_match "*Server initialized*" $log
        set c [::vk::client_open 127.0.0.1 $port]
        assert_equal PONG [$c ping]
        assert_match "*process_id:$daemon*" [$c info server]
        # SHUTDOWN removes the pid file.
        catch {$c shutdown nosave}
        $c close
        wait_for_condition 250 20 {![::vk::pid_alive $daemon]} {
            catch {exec kill -KILL $daemon}
            fail "the daemon did not exit"
        }
        assert_equal 0 [file exists $pidfile]
        assert_match "*Removing the pid file.*" [file_text $logfile]
    }

    test "A pid file without daemonize" {
        set dir [tmp_path pidfile]
        set port [::vk::alloc_port]
        set pidfile [file join $dir server.pid]
        set p [proc_start $dir {*}[base_args $dir $port] --pidfile $pidfile]
        wait_log_ready [dict get $p out] [dict get $p pid]
        assert_equal [dict get $p pid] [string trim [file_text $pidfile]]
        exec kill -TERM [dict get $p pid]
        assert_equal 0 [proc_wait $p]
        assert_equal 0 [file exists $pidfile]
    }

    test "unixsocket with unixsocketperm: created with those permissions, removed at shutdown" {
        set dir [tmp_path unixsock]
        set port [::vk::alloc_port]
        set sock [file join $dir s.sock]
        set p [proc_start $dir {*}[base_args $dir $port] --unixsocket $sock --unixsocketperm 700]
        wait_log_ready [dict get $p out] [dict get $p pid]
        wait_for_condition 50 20 {[file exists $sock]} { fail "no socket file" }
        assert_equal socket [file type $sock]
        assert_equal 0700 [format %04o [expr {[file attributes $sock -permissions] & 0777}]]
        set c [::vk::client_open $sock 0]
        assert_equal PONG [$c ping]
        assert_match "*flags=U*" [$c client info]
        $c close
        exec kill -TERM [dict get $p pid]
        assert_equal 0 [proc_wait $p]
        assert_equal 0 [file exists $sock]
    }

    test "unixsocketperm 777" {
        set dir [tmp_path unixsock777]
        set port [::vk::alloc_port]
        set sock [file join $dir s.sock]
        set p [proc_start $dir {*}[base_args $dir $port] --unixsocket $sock --unixsocketperm 777]
        wait_log_ready [dict get $p out] [dict get $p pid]
        assert_equal 0777 [format %04o [expr {[file attributes $sock -permissions] & 0777}]]
        exec kill -TERM [dict get $p pid]
        assert_equal 0 [proc_wait $p]
    }

    tags {valkey-only} {
        test "The ready lines name both transports: tcp and unix" {
            set dir [tmp_path ready-unix]
            set port [::vk::alloc_port]
            set sock [file join $dir s.sock]
            set p [proc_start $dir {*}[base_args $dir $port] --unixsocket $sock]
            wait_log_ready [dict get $p out] [dict get $p pid]
            wait_for_condition 50 20 {[string match "*Ready to accept connections unix*" [file_text [dict get $p out]]]} {
                fail "no unix ready line"
            }
            assert_match "*Ready to accept connections tcp*" [file_text [dict get $p out]]
            exec kill -TERM [dict get $p pid]
            proc_wait $p
        }
    }

    test "--version prints the version and exits 0" {
        set p [proc_start [tmp_path version] --version]
        assert_equal 0 [proc_wait $p]
        assert_match "* server v=*" [file_text [dict get $p out]]
    }

    tags {valkey-only} {
        test "--version names Valkey" {
            set p [proc_start [tmp_path version2] -v]
            assert_equal 0 [proc_wait $p]
            assert_match "Valkey server v=8.*" [file_text [dict get $p out]]
        }
    }

    test "An unknown option exits 1 with the FATAL config error" {
        set p [proc_start [tmp_path badopt] --no-such-option 1]
        assert_equal 1 [proc_wait $p]
        set out [file_text [dict get $p out]]
        assert_match "*FATAL CONFIG FILE ERROR*" $out
        assert_match "*no-such-option*" $out
        assert_match "*Bad directive or wrong number of arguments*" $out
    }

    test "A bad option value exits 1 with the FATAL config error" {
        set p [proc_start [tmp_path badval] --port notanumber]
        assert_equal 1 [proc_wait $p]
        set out [file_text [dict get $p out]]
        assert_match "*FATAL CONFIG FILE ERROR*" $out
        assert_match "*port*" $out
    }

    test "replicaof in the configuration starts a replica that connects" {
        set dir [tmp_path replicaof]
        set port [::vk::alloc_port]
        set p [proc_start $dir {*}[base_args $dir $port] --replicaof "127.0.0.1 1"]
        wait_for_condition 100 50 {[string match "*Connecting to PRIMARY 127.0.0.1:1*" [file_text [dict get $p out]]]} {
            fail "the replica did not try to connect: [file_text [dict get $p out]]"
        }
        set c [::vk::client_open 127.0.0.1 $port]
        assert_match "*role:slave*master_host:127.0.0.1*master_port:1*master_link_status:down*" [$c info replication]
        $c close
        exec kill -TERM [dict get $p pid]
        assert_equal 0 [proc_wait $p]
    }

    test "A port already in use: start-up fails with a clear log line" {
        set dir [tmp_path portinuse]
        set port [::vk::alloc_port]
        set holder [socket -server {apply {{ch addr port} {close $ch}}} -myaddr 127.0.0.1 $port]
        set p [proc_start $dir {*}[base_args $dir $port]]
        set status [proc_wait $p]
        close $holder
        assert {$status ne 0 && $status ne -1}
        set log [file_text [dict get $p out]]
        assert_match "*Could not create server TCP listening socket *:$port*Address already in use*" $log
        assert_match "*Failed listening on port $port*aborting*" $log
    }
}
