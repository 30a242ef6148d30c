# I/O threads (io-threads N, src/io_threads.c): the threads read, parse and
# write for the main thread, which only executes commands. What is checked
# here: the options as Valkey 8 takes them; the INFO fields; that threads
# start only under load and stop when it falls, and never spin while idle;
# and that what the threads do is invisible to clients: pipelines of every
# shape (split anywhere, inline, empty, big arguments, many arguments, a
# protocol error after good requests), many clients at once, blocking,
# CLIENT PAUSE, MULTI, CLIENT KILL, QUIT, limits and eviction, pub/sub,
# MONITOR, tracking, a busy script, unix sockets and a replica.
#
# Most blocks set events-per-io-thread 0 (as ./runtest --io-threads does
# for every file): the threads then serve every client they can, however
# light the load, so that each test goes through them. The whole suite
# runs that way too (make test-io-threads); this file adds what only
# makes sense with threads. The threads serve TCP and Unix-socket clients
# only, so the file is skipped over TLS, shared memory and RDMA, whose
# clients stay on the main thread (tests/lib/transport.tcl, "threads").

proc io_info {field {level 0}} {
    foreach line [split [r $level info all] "\r\n"] {
        if {[string match "$field:*" $line]} {
            return [string range $line [expr {[string length $field] + 1}] end]
        }
    }
    return ""
}

# The I/O threads of the server at `level`: a list of {tid name cpu_ticks
# state} from /proc (threads are named io_thd_<n>).
proc io_thread_tasks {{level 0}} {
    set pid [srv $level pid]
    set out {}
    foreach dir [glob -nocomplain /proc/$pid/task/*] {
        if {[catch {
            set fh [open $dir/comm]
            set name [string trim [read $fh]]
            close $fh
            set fh [open $dir/stat]
            set stat [read $fh]
            close $fh
        }]} continue
        if {![string match io_thd_* $name]} continue
        # Fields after the ") ": state is the first, utime/stime the 12th and 13th.
        set rest [split [string range $stat [expr {[string last ")" $stat] + 2}] end] " "]
        lappend out [list [file tail $dir] $name [expr {[lindex $rest 11] + [lindex $rest 12]}] [lindex $rest 0]]
    }
    return $out
}

proc io_threads_cpu_ticks {{level 0}} {
    set sum 0
    foreach t [io_thread_tasks $level] { incr sum [lindex $t 2] }
    return $sum
}

# Runs valkey-benchmark against the innermost server with `args`.
proc io_bench {args} {
    set bench [file join $::vk::cfg(root) src valkey-benchmark]
    exec $bench -h [srv host] -p [srv port] {*}$args
}

start_server {tags {io-threads valkey-only tls:skip:threads shm:skip:threads rdma:skip:threads needs:debug} overrides {io-threads 4 events-per-io-thread 0 enable-debug-command yes loglevel verbose}} {
    tags {tcp-config own-server} {
    test "io-threads is immutable and bounded as in Valkey 8; io-threads-do-reads is accepted" {
        assert_equal {io-threads 4} [r config get io-threads]
        assert_error "ERR CONFIG SET failed (possibly related to argument 'io-threads') - can't set immutable config" {
            r config set io-threads 2
        }
        assert_equal {io-threads-do-reads no} [r config get io-threads-do-reads]
        set dir [srv dir]
        lassign [start_server_by_hand $dir --io-threads 129] status log
        assert_match "*argument must be between 1 and 128 inclusive*" $log
        assert_not_equal running $status
        lassign [start_server_by_hand $dir --io-threads 128 --io-threads-do-reads yes] status log
        assert_equal running $status $log
    }
    }

    test "INFO: io_threads_active and the io_threaded_* counters move with the threads' work" {
        assert_equal 1 [io_info io_threads_active]
        foreach f {io_threaded_reads_processed io_threaded_writes_processed io_threaded_freed_objects
                   io_threaded_poll_processed io_threaded_total_prefetch_batches
                   io_threaded_total_prefetch_entries} {
            assert {[string is integer -strict [io_info $f]]} "$f is a number"
        }
        set reads [io_info io_threaded_reads_processed]
        set writes [io_info io_threaded_writes_processed]
        set total [io_info total_reads_processed]
        for {set i 0} {$i < 20} {incr i} { r set k$i $i }
        assert {[io_info io_threaded_reads_processed] >= $reads + 20}
        assert {[io_info io_threaded_writes_processed] >= $writes + 20}
        # Reads by the threads count in total_reads_processed as well.
        assert {[io_info total_reads_processed] >= $total + 20}
        # Three threads (io-threads 4 counts the main thread), named.
        assert_equal {io_thd_1 io_thd_2 io_thd_3} [lsort [lmap t [io_thread_tasks] {lindex $t 1}]]
        r config resetstat
        # (the INFO reading it was read by a thread after the reset)
        assert_range [io_info io_threaded_reads_processed] 0 1
    }

    test "A pipeline split at every byte gets every reply, in order" {
        set rd [vk_deferring_client]
        set req ""
        for {set i 0} {$i < 30} {incr i} {
            append req "*3\r\n\$3\r\nSET\r\n\$[string length sp$i]\r\nsp$i\r\n\$[string length v$i]\r\nv$i\r\n"
            append req "GET sp$i\r\n"
        }
        append req "*2\r\n\$4\r\nECHO\r\n\$5\r\nhello\r\n"
        # A few bytes at a time, each write reaching the server alone.
        for {set j 0} {$j < [string length $req]} {incr j 7} {
            $rd write [string range $req $j [expr {$j + 6}]]
            $rd flush
            if {$j % 70 == 0} { after 1 }
        }
        for {set i 0} {$i < 30} {incr i} {
            assert_equal OK [$rd read]
            assert_equal v$i [$rd read]
        }
        assert_equal hello [$rd read]
        $rd close
    }

    test "Empty requests, inline requests and big argument counts in one pipeline" {
        set rd [vk_deferring_client]
        set mset [list MSET]
        for {set i 0} {$i < 60} {incr i} { lappend mset m$i $i }
        set req "*0\r\n*-1\r\nPING\r\n"
        append req "*[llength $mset]\r\n"
        foreach a $mset { append req "\$[string length $a]\r\n$a\r\n" }
        append req "INCR m59\r\n\r\n   \r\nECHO \"two words\"\r\n"
        $rd write $req
        $rd flush
        assert_equal PONG [$rd read]
        assert_equal OK [$rd read]
        assert_equal 60 [$rd read]
        assert_equal "two words" [$rd read]
        assert_equal 42 [r get m42]
        $rd close
    }

    test "Big arguments (several MB, and just over 32 KB) through the threads" {
        foreach size {32769 100000 4000000} {
            set v [string repeat [format %c [expr {65 + $size % 26}]] $size]
            r set big $v
            assert_equal $size [r strlen big]
            assert_equal $v [r get big]
        }
        # A big argument after other requests in the same pipeline.
        set rd [vk_deferring_client]
        set v [string repeat z 200000]
        $rd write "PING\r\n*3\r\n\$3\r\nSET\r\n\$4\r\nbig2\r\n\$200000\r\n$v\r\nPING\r\n"
        $rd flush
        assert_equal PONG [$rd read]
        assert_equal OK [$rd read]
        assert_equal PONG [$rd read]
        assert_equal 200000 [r strlen big2]
        $rd close
    }

    test "A protocol error after good requests: their replies, the error, then the close" {
        set rd [vk_deferring_client]
        $rd write "SET pe 1\r\nINCR pe\r\n*1\r\n\$x\r\nPING\r\n"
        $rd flush
        assert_equal OK [$rd read]
        assert_equal 2 [$rd read]
        assert_error "*Protocol error: invalid bulk length*" {$rd read}
        assert_error "*" {$rd read} ;# closed
        $rd close
        set rd [vk_deferring_client]
        $rd write "PING\r\n[string repeat x 70000]"
        $rd flush
        assert_equal PONG [$rd read]
        assert_error "*too big inline request*" {$rd read}
        $rd close
        assert_equal PONG [r ping]
    }

    test "Fifty clients pipelining INCRs at once: every increment counted once" {
        r del counter
        set clients {}
        for {set c 0} {$c < 50} {incr c} { lappend clients [vk_deferring_client] }
        foreach rd $clients {
            for {set i 0} {$i < 100} {incr i} { $rd write "INCR counter\r\n" }
            $rd flush
        }
        foreach rd $clients {
            set last 0
            for {set i 0} {$i < 100} {incr i} {
                set v [$rd read]
                assert {$v > $last}
                set last $v
            }
            $rd close
        }
        assert_equal 5000 [r get counter]
    }

    test "MULTI/EXEC and WATCH in a pipeline" {
        r set w 1
        set rd [vk_deferring_client]
        $rd write "WATCH w\r\nMULTI\r\nINCR w\r\nINCR w\r\nEXEC\r\nGET w\r\n"
        $rd flush
        assert_equal OK [$rd read]
        assert_equal OK [$rd read]
        assert_equal QUEUED [$rd read]
        assert_equal QUEUED [$rd read]
        assert_equal {2 3} [$rd read]
        assert_equal 3 [$rd read]
        $rd close
    }

    test "A BLPOP in a pipeline holds the requests after it until it is served" {
        r del bl
        set rd [vk_deferring_client]
        $rd write "PING\r\nBLPOP bl 0\r\nSET after-blpop 1\r\nGET after-blpop\r\n"
        $rd flush
        assert_equal PONG [$rd read]
        wait_for_condition 50 20 {[io_info blocked_clients] == 1} { fail "not blocked" }
        assert_equal 0 [r exists after-blpop]
        r rpush bl x
        assert_equal {bl x} [$rd read]
        assert_equal OK [$rd read]
        assert_equal 1 [$rd read]
        $rd close
    }

    test "A blocked client that disconnects is noticed at once" {
        r del bl2
        set rd [vk_deferring_client]
        $rd write "BLPOP bl2 0\r\n"
        $rd flush
        wait_for_condition 50 20 {[io_info blocked_clients] == 1} { fail "not blocked" }
        $rd close
        wait_for_condition 50 20 {[io_info blocked_clients] == 0} { fail "the closed client stayed blocked" }
    }

    test "CLIENT PAUSE holds a pipeline's writes; they run in order on unpause" {
        set rd [vk_deferring_client]
        r client pause 100000 write
        $rd write "GET p1\r\nSET p1 a\r\nAPPEND p1 b\r\nGET p1\r\n"
        $rd flush
        assert_equal {} [$rd read]
        after 100
        assert_equal 0 [r exists p1]
        r client unpause
        assert_equal OK [$rd read]
        assert_equal 2 [$rd read]
        assert_equal ab [$rd read]
        $rd close
    }

    test "CLIENT KILL, QUIT and a client closing with requests in flight" {
        set rd [vk_deferring_client]
        $rd client id
        set id [$rd read]
        assert_equal 1 [r client kill id $id]
        assert_error "*" {$rd ping; $rd read}
        $rd close
        set rd [vk_deferring_client]
        $rd write "SET q 1\r\nQUIT\r\nSET q 2\r\n"
        $rd flush
        assert_equal OK [$rd read]
        assert_equal OK [$rd read]
        $rd close
        assert_equal 1 [r get q]
        # Requests sent, then the connection closed before the replies.
        for {set i 0} {$i < 20} {incr i} {
            set rd [vk_deferring_client]
            $rd write "INCR closing\r\nGET q\r\n"
            $rd flush
            $rd close
        }
        wait_for_condition 50 20 {[r get closing] == 20} { fail "requests of closed clients lost" }
        assert_equal PONG [r ping]
    }

    test "A client reading nothing passes the output buffer hard limit and is closed" {
        r config set client-output-buffer-limit "normal 1mb 0 0"
        r set bigv [string repeat x 100000]
        set rd [vk_deferring_client]
        $rd client id
        set id [$rd read]
        for {set i 0} {$i < 100} {incr i} { $rd write "GET bigv\r\n" }
        $rd flush
        wait_for_condition 50 100 {![string match "*id=$id *" [r client list]]} {
            fail "the client over the hard limit was not closed"
        }
        assert {[io_info client_output_buffer_limit_disconnections] >= 1}
        r config set client-output-buffer-limit "normal 0 0 0"
        $rd close
    }

    test "The query buffer limit closes a threaded client sending too much" {
        r config set client-query-buffer-limit 1mb
        set rd [vk_deferring_client]
        # The server may close before the last bytes are sent.
        catch {
            $rd write "*2\r\n\$4\r\nECHO\r\n\$5000000\r\n[string repeat a 2000000]"
            $rd flush
        }
        wait_for_condition 50 100 {[io_info client_query_buffer_limit_disconnections] >= 1} {
            fail "the client over the query buffer limit was not closed"
        }
        r config set client-query-buffer-limit 1gb
        $rd close
    }

    test "maxmemory-clients evicts the biggest threaded client" {
        r config set maxmemory-clients 3mb
        set rd [vk_deferring_client]
        $rd client id
        set id [$rd read]
        r set bigv [string repeat x 100000]
        for {set i 0} {$i < 60} {incr i} { $rd write "GET bigv\r\n" }
        $rd flush
        wait_for_condition 50 100 {![string match "*id=$id *" [r client list]]} {
            fail "the big client was not evicted"
        }
        assert {[io_info evicted_clients] >= 1}
        r config set maxmemory-clients 0
        $rd close
    }

    test "Pub/sub: messages published by threaded clients reach every subscriber" {
        set subs {}
        for {set i 0} {$i < 5} {incr i} {
            set s [vk_deferring_client]
            $s subscribe news
            assert_equal {subscribe news 1} [$s read]
            lappend subs $s
        }
        set pubs {}
        for {set i 0} {$i < 5} {incr i} { lappend pubs [vk_deferring_client] }
        foreach p $pubs {
            for {set j 0} {$j < 20} {incr j} { $p publish news m$j }
            $p flush
        }
        foreach p $pubs {
            for {set j 0} {$j < 20} {incr j} { assert_equal 5 [$p read] }
            $p close
        }
        foreach s $subs {
            set got 0
            for {set j 0} {$j < 100} {incr j} {
                lassign [$s read] kind chan msg
                assert_equal message $kind
                incr got
            }
            assert_equal 100 $got
            $s close
        }
    }

    test "MONITOR sees the commands of threaded clients" {
        set mon [vk_deferring_client]
        $mon monitor
        assert_equal OK [$mon read]
        r set monitored 1
        r get monitored
        assert_match {*"set" "monitored" "1"*} [$mon read]
        assert_match {*"get" "monitored"*} [$mon read]
        $mon close
    }

    test "Client-side caching: an invalidation reaches a tracking client" {
        set t [vk_deferring_client]
        $t hello 3
        $t read
        $t client tracking on
        assert_equal OK [$t read]
        $t get tracked
        $t read
        r set tracked 1
        assert_equal {invalidate tracked} [$t read]
        $t close
    }

    tags {needs:debug} {
    test "DEBUG SLEEP: requests sent meanwhile are answered after it" {
        needs_debug
        set rd [vk_deferring_client]
        set sleeper [vk_deferring_client]
        $sleeper debug sleep 0.3
        after 50
        for {set i 0} {$i < 10} {incr i} { $rd incr ds }
        $rd flush
        assert_equal OK [$sleeper read]
        for {set i 1} {$i <= 10} {incr i} { assert_equal $i [$rd read] }
        $rd close
        $sleeper close
    }
    }

    test "A busy script: other clients get BUSY meanwhile, SCRIPT KILL ends it" {
        r config set busy-reply-threshold 100
        set script [vk_deferring_client]
        set other [vk_deferring_client]
        $other timeout 10
        # Sent together, the two requests are likely read by threads in
        # the same turn: the PING is answered while the script runs, not
        # after it.
        $script write "*3\r\n\$4\r\nEVAL\r\n\$17\r\nwhile true do end\r\n\$1\r\n0\r\n"
        $other write "PING\r\n"
        $script flush
        $other flush
        catch {$other read} e
        assert {[string match BUSY* $e] || $e eq "PONG"} "the PING got '$e'"
        after 200
        $other ping
        assert_error "BUSY*" {$other read}
        assert_error "BUSY*" {r ping}
        assert_equal OK [r script kill]
        assert_error "*Script killed by user*" {$script read}
        assert_equal PONG [r ping]
        $other ping
        assert_equal PONG [$other read]
        r config set busy-reply-threshold 5000
        $script close
        $other close
    }

    test "AUTH in a pipeline: the requests after it get the authenticated limits" {
        r config set requirepass secret
        set rd [vk_deferring_client]
        set v [string repeat b 40000]
        $rd write "AUTH secret\r\n*3\r\n\$3\r\nSET\r\n\$5\r\nauthv\r\n\$40000\r\n$v\r\n"
        $rd flush
        assert_equal OK [$rd read]
        assert_equal OK [$rd read]
        $rd close
        r auth secret
        r config set requirepass ""
        assert_equal 40000 [r strlen authv]
    }
}

start_server [list tags {io-threads valkey-only tls:skip:threads shm:skip:threads rdma:skip:threads} overrides [list io-threads 2 events-per-io-thread 0 \
        enable-debug-command yes unixsocket [tmp_path io.sock] unixsocketperm 700 repl-diskless-sync-delay 0]] {
    tags {unix rdma:skip:unix} {
    test "Unix socket clients are served by the threads too" {
        set c [::vk::client_open [tmp_path io.sock] 0]
        set before [io_info io_threaded_reads_processed]
        for {set i 0} {$i < 10} {incr i} { $c incr unix }
        assert_equal 10 [$c get unix]
        assert {[io_info io_threaded_reads_processed] >= $before + 11}
        $c close
    }
    }

    tags {needs:debug} {
    test "A replica of a server whose clients are served by threads ends with the same data" {
        start_server {overrides {io-threads 2 events-per-io-thread 0 enable-debug-command yes}} {
            r replicaof [srv -1 host] [srv -1 port]
            wait_for_condition 200 50 {[string match "*master_link_status:up*" [r info replication]]} {
                fail "the replica did not sync"
            }
            set clients {}
            for {set c 0} {$c < 10} {incr c} { lappend clients [vk_deferring_client -1] }
            foreach rd $clients {
                for {set i 0} {$i < 200} {incr i} { $rd write "INCR r:[expr {$i % 7}]\r\nRPUSH l:[expr {$i % 3}] $i\r\n" }
                $rd flush
            }
            foreach rd $clients {
                for {set i 0} {$i < 400} {incr i} { $rd read }
                $rd close
            }
            wait_for_condition 100 50 {[r debug digest] eq [r -1 debug digest]} {
                fail "the replica's data differs"
            }
            assert_equal [expr {10 * 67}] [llength [r lrange l:0 0 -1]]
        }
    }
    }
}

# The default policy: threads only while the load asks for them.
start_server {tags {io-threads valkey-only tls:skip:threads shm:skip:threads rdma:skip:threads} overrides {io-threads 4 events-per-io-thread 2}} {
    tags {tcp-tool} {
    test "Threads start only under load, and go back to sleep when it falls" {
        # One client at a time is no load: no thread was ever started.
        for {set i 0} {$i < 50} {incr i} { r ping }
        assert_equal 0 [io_info io_threads_active]
        assert_equal 0 [io_info io_threaded_reads_processed]
        assert_equal {} [io_thread_tasks]
        # Fifty clients at once: threads start and serve them.
        io_bench -c 50 -n 200000 -t get -P 1 -q
        assert {[io_info io_threaded_reads_processed] > 1000} "threads served the load"
        assert {[llength [io_thread_tasks]] >= 1}
        # The load is gone: within a few seconds no thread is active...
        wait_for_condition 50 100 {[io_info io_threads_active] == 0} {
            fail "threads still active without load"
        }
        # ...and none takes any CPU while idle (no spinning).
        set ticks [io_threads_cpu_ticks]
        after 1000
        assert_range [expr {[io_threads_cpu_ticks] - $ticks}] 0 1
        foreach t [io_thread_tasks] { assert_equal S [lindex $t 3] "state of [lindex $t 1]" }
        # Single requests again: served by the main thread, as with io-threads 1.
        set reads [io_info io_threaded_reads_processed]
        for {set i 0} {$i < 20} {incr i} { r ping }
        assert_equal $reads [io_info io_threaded_reads_processed]
    }
    }
}
