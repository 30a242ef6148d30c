# Debian's redis-server 7.0 started by hand next to our servers (the
# interoperability tests source this file). It listens on TCP only, so
# tests using it are tagged rdma:skip:own-server.

set ::redis_binary /usr/bin/redis-server

# Starts redis-server on dir (created if missing) with extra arguments;
# returns {pid port chan}. Waits until it is ready.
proc redis_start {dir args} {
    file mkdir $dir
    set port [::vk::alloc_port]
    set out [file join $dir redis.log]
    set chan [open [list | $::redis_binary --port $port --bind 127.0.0.1 --save "" --appendonly no \
                        --dir $dir --enable-debug-command yes {*}$args >& $out] w]
    set pid [pid $chan]
    wait_for_condition 250 20 {[string match "*Ready to accept connections*" [redis_log $dir]]} {
        ::vk::kill_pid $pid
        fail "redis-server did not start: [redis_log $dir]"
    }
    return [list $pid $port $chan]
}

# The log of the redis-server started on dir.
proc redis_log {dir} {
    return [file_contents [file join $dir redis.log]]
}

# The text of a file, "" if it does not exist.
proc file_contents {path} {
    if {![file exists $path]} { return "" }
    set fh [open $path]
    set text [read $fh]
    close $fh
    return $text
}

proc redis_stop {handle} {
    lassign $handle pid port chan
    ::vk::kill_pid $pid
    catch {close $chan}
}
