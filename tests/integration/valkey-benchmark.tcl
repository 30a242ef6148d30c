# Our src/valkey-benchmark driven against the test server: output formats
# (-q, --csv, the full report), that requests really reach the server
# (keys written with -r, exact counts with -P, --threads and -k 0), custom
# commands with __rand_int__, -x, --dbnum, -e, Unix sockets, 2000 clients
# at once, and clean failures (unreachable server, --rdma when not built
# in, an open files limit too low for -c).  Tests of the
# standard list that need data types the server may lack skip themselves
# with needs_commands.

set ::bench_binary [file join $::vk::cfg(root) src valkey-benchmark]

# run_bench ?-stdin data? args..: runs the benchmark against the innermost
# server; returns {exit_status output} (stdout and stderr mixed).
proc run_bench {args} {
    set stdin_data ""
    if {[lindex $args 0] eq "-stdin"} {
        set stdin_data [lindex $args 1]
        set args [lrange $args 2 end]
    }
    if {![file executable $::bench_binary]} { skip "$::bench_binary is not built (make)" }
    if {[catch {::vk::transport_cli_args} transport_args]} { skip $transport_args }
    set cmd [list $::bench_binary -h [srv host] -p [srv port] {*}$transport_args {*}$args]
    set code [catch {exec {*}$cmd << $stdin_data 2>@1} out opts]
    set status 0
    if {$code} {
        set ec [dict get $opts -errorcode]
        if {[lindex $ec 0] eq "CHILDSTATUS"} {
            set status [lindex $ec 2]
        } elseif {[lindex $ec 0] ne "NONE"} {
            error $out
        }
    }
    return [list $status $out]
}

# A TCP port nothing listens on (bound by us, then released).
proc bench_closed_port {} {
    set s [socket -server bench_never_accept -myaddr 127.0.0.1 0]
    set port [lindex [fconfigure $s -sockname] 2]
    close $s
    return $port
}

start_server {tags {"benchmark rdma:skip:tcp-tool"}} {
    test "valkey-benchmark: -q prints one line per test" {
        lassign [run_bench -t set,get -n 1000 -q] status out
        assert_equal 0 $status $out
        set lines [split $out "\n"]
        assert_equal 2 [llength $lines] $out
        assert_match {SET: * requests per second, p50=* msec} [lindex $lines 0]
        assert_match {GET: * requests per second, p50=* msec} [lindex $lines 1]
        assert {[regexp {^SET: [0-9]+\.[0-9]{2} requests per second, p50=[0-9]+\.[0-9]{3} msec$} [lindex $lines 0]]}
    }

    test "valkey-benchmark: --csv header and one row per test" {
        lassign [run_bench -t ping,set -n 500 --csv] status out
        assert_equal 0 $status $out
        set lines [split $out "\n"]
        assert_equal {"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"} [lindex $lines 0]
        assert_equal 4 [llength $lines] $out
        set num {"[0-9]+\.[0-9]+"}
        set row "^\"%s\",$num,$num,$num,$num,$num,$num,$num\$"
        assert {[regexp [format $row PING_INLINE] [lindex $lines 1]]}
        assert {[regexp [format $row PING_MBULK] [lindex $lines 2]]}
        assert {[regexp [format $row SET] [lindex $lines 3]]}
    }

    test "valkey-benchmark: the full report" {
        lassign [run_bench -t set -n 2000 -c 10 -d 7] status out
        assert_equal 0 $status $out
        foreach pattern {
            "*====== SET ======*"
            "*  2000 requests completed in * seconds*"
            "*  10 parallel clients*"
            "*  7 bytes payload*"
            "*  keep alive: 1*"
            "*  host configuration \"appendonly\": no*"
            "*  multi-thread: no*"
            "*Latency by percentile distribution:*0.000% <= * milliseconds (cumulative count *)*100.000% <= * milliseconds (cumulative count 2000)*"
            "*Cumulative distribution of latencies:*(cumulative count 2000)*"
            "*Summary:*  throughput summary: * requests per second*"
            "*  latency summary (msec):*          avg       min       p50       p95       p99       max*"
        } {
            assert_match $pattern $out
        }
    }

    test "valkey-benchmark: -t set,get with -r writes random keys" {
        r flushall
        lassign [run_bench -t set,get -n 1000 -r 1000 -d 5 -q] status out
        assert_equal 0 $status $out
        set n [r dbsize]
        assert_range $n 100 1000
        set key [r randomkey]
        assert_match {key:[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]} $key
        assert_equal xxxxx [r get $key]
    }

    test "valkey-benchmark: without -r the key is literal" {
        r flushall
        lassign [run_bench -t set -n 100 -q] status out
        assert_equal 0 $status $out
        assert_equal 1 [r dbsize]
        r get key:__rand_int__
    } xxx

    test "valkey-benchmark: -P 16 sends exactly -n requests" {
        r del counter
        lassign [run_bench -n 1001 -P 16 -q incr counter] status out
        assert_equal 0 $status $out
        assert_match {incr counter: * requests per second*} $out
        r get counter
    } 1001

    test "valkey-benchmark: -P 16 with the standard SET test" {
        r flushall
        lassign [run_bench -t set -n 5000 -P 16 -r 100000 -q] status out
        assert_equal 0 $status $out
        assert_range [r dbsize] 1000 5000
    }

    test "valkey-benchmark: --threads 2" {
        r del counter
        lassign [run_bench --threads 2 -c 8 -n 3000 -P 4 incr counter] status out
        assert_equal 0 $status $out
        assert_match "*multi-thread: yes*threads: 2*" $out
        assert_match "*3000 requests completed*" $out
        r get counter
    } 3000

    test "valkey-benchmark: -k 0 reconnects for every request" {
        r del counter
        lassign [run_bench -k 0 -c 5 -n 200 -q incr counter] status out
        assert_equal 0 $status $out
        r get counter
    } 200

    test "valkey-benchmark: custom command with __rand_int__" {
        r flushall
        lassign [run_bench -n 500 -r 10 -q set foo:__rand_int__ v:__rand_int__] status out
        assert_equal 0 $status $out
        assert_match {set foo:__rand_int__ v:__rand_int__: * requests per second, p50=* msec} $out
        assert_range [r dbsize] 1 10
        set key [r randomkey]
        assert_match {foo:0000000000[0-9][0-9]} $key
        assert_match {v:0000000000[0-9][0-9]} [r get $key]
    }

    test "valkey-benchmark: -x takes the last argument from stdin" {
        r del xkey
        lassign [run_bench -stdin "from\nstdin" -n 10 -q -x set xkey] status out
        assert_equal 0 $status $out
        r get xkey
    } "from\nstdin"

    test "valkey-benchmark: --dbnum selects the database" {
        r flushall
        lassign [run_bench --dbnum 4 -n 50 -q set indb4 yes] status out
        assert_equal 0 $status $out
        assert_equal 0 [r exists indb4]
        r select 4
        set v [r get indb4]
        r select 0
        set v
    } yes

    test "valkey-benchmark: -e shows server errors" {
        lassign [run_bench -e -n 10 -c 1 -q nosuchcommand] status out
        assert_equal 0 $status $out
        assert_match "*Error from server: ERR unknown command*" $out
        lassign [run_bench -n 10 -c 1 -q nosuchcommand] status out
        assert {![string match "*Error from server*" $out]} $out
    }

    test "valkey-benchmark: unreachable server exits non-zero" {
        if {![file executable $::bench_binary]} { skip "$::bench_binary is not built" }
        set port [bench_closed_port]
        set code [catch {exec $::bench_binary -h 127.0.0.1 -p $port -n 10 -q 2>@1} out]
        assert_equal 1 $code
        assert_match "*Could not connect to Valkey at 127.0.0.1:$port: Connection refused*" $out
    }

    test "valkey-benchmark: --rdma goes to the transport layer" {
        if {![file executable $::bench_binary]} { skip "$::bench_binary is not built" }
        set code [catch {exec $::bench_binary --rdma -h 127.0.0.1 -p [bench_closed_port] -n 10 -q 2>@1} out]
        assert_equal 1 $code
        if {![string match "*RDMA support is not built in*" $out]} {
            # Built with the RDMA client transport: it must fail to connect.
            assert_match "*Could not connect to Valkey at*" $out
        }
    }

    test "valkey-benchmark: list, set, hash and sorted-set tests" {
        needs_commands lpush rpush lpop rpop sadd hset spop zadd zpopmin lrange
        r flushall
        lassign [run_bench -t lpush,rpush,lpop,rpop,sadd,hset,spop,zadd,zpopmin,lrange -n 500 -q] status out
        assert_equal 0 $status $out
        foreach t {LPUSH RPUSH LPOP RPOP SADD HSET SPOP ZADD ZPOPMIN
                   {LPUSH (needed to benchmark LRANGE)} {LRANGE_100 (first 100 elements)}
                   {LRANGE_300 (first 300 elements)} {LRANGE_500 (first 500 elements)}
                   {LRANGE_600 (first 600 elements)}} {
            assert_match "*$t: * requests per second*" $out
        }
    }

    test "valkey-benchmark: LRANGE_600 replies are counted whole" {
        needs_commands lpush lrange
        r del mylist
        for {set j 0} {$j < 600} {incr j} { r lpush mylist [string repeat x 100] }
        lassign [run_bench -t lrange_600 -n 200 -P 4 --csv] status out
        assert_equal 0 $status $out
        assert_match {*"LRANGE_600 (first 600 elements)",*} $out
    }

    test "valkey-benchmark: 2000 clients over two threads all connect and run" {
        # Each worker's event loop must index every fd of the process
        # (clients x fds per connection + reserve), and RLIMIT_NOFILE is
        # raised to match.
        r del bigc
        regexp {total_connections_received:(\d+)} [r info stats] -> before
        lassign [run_bench -c 2000 --threads 2 -n 4000 -q incr bigc] status out
        assert_equal 0 $status $out
        assert_equal 4000 [r get bigc]
        # A connection counts once the server has finished accepting it:
        # under TLS that is when it reads the client's last handshake
        # message, which may come after the benchmark already exited (a
        # client that sent no request before the 4000 were done).
        wait_for_condition 100 50 {
            [regexp {total_connections_received:(\d+)} [r info stats] -> after] && $after - $before >= 2000
        } {
            fail "[expr {$after - $before}] connections counted, not 2000"
        }
    }

    test "valkey-benchmark: an open files limit too low for -c is a clear error" {
        if {![file executable $::bench_binary]} { skip "$::bench_binary is not built" }
        # ulimit -n in sh lowers the soft and the hard limit: nothing to raise.
        set cmd "ulimit -n 200 && exec $::bench_binary -h [srv host] -p [srv port] -c 500 -n 10 -q ping"
        set code [catch {exec sh -c $cmd 2>@1} out]
        assert_equal 1 $code
        assert_match "Error: 500 clients over tcp need up to 533 file descriptors, but the open files limit\
            (RLIMIT_NOFILE) is 200 with a hard limit of 200. Raise it (ulimit -n 533)*" $out
    }

    test "valkey-benchmark: MSET and XADD" {
        needs_commands mset xadd
        lassign [run_bench -t mset,xadd -n 200 -q] status out
        assert_equal 0 $status $out
        assert_match "*MSET (10 keys): *XADD: *" $out
    }
}

start_server [list tags {benchmark external:skip rdma:skip:unix} overrides [list unixsocket [tmp_path bench.sock]]] {
    test "valkey-benchmark: -s connects over a Unix socket" {
        if {![file executable $::bench_binary]} { skip "$::bench_binary is not built" }
        r del counter
        set code [catch {exec $::bench_binary -s [tmp_path bench.sock] -n 300 -q incr counter 2>@1} out]
        assert_equal 0 $code $out
        r get counter
    } 300
}
