# Our src/valkey-cli driven against the test server: the reply formats
# (the terminal format forced with --no-raw, raw by default when stdout is
# a pipe, --csv, --json, RESP3 types with -3), -n, -r/-i, -x, -e exit
# codes, lines read from stdin, --pipe mass insertion, --scan, --bigkeys,
# --eval, clean failures (unreachable server, --rdma when not built in,
# bad options) and the interactive REPL through a pseudo-terminal
# (`script`). Expected texts are those of Valkey's cli, checked side by
# side with redis-cli 7.0 against the same server.

set ::vcli_binary [file join $::vk::cfg(root) src valkey-cli]
# VALKEY_CLI_BINARY runs these tests against another build of the cli
# (an older commit, to show a new test fails there).
if {[info exists ::env(VALKEY_CLI_BINARY)]} { set ::vcli_binary $::env(VALKEY_CLI_BINARY) }

# run_vcli ?-stdin data? args..: runs src/valkey-cli against the innermost
# server; returns {exit_status output} (stdout and stderr mixed, final
# newline stripped).
proc run_vcli {args} {
    set stdin_data ""
    if {[lindex $args 0] eq "-stdin"} {
        set stdin_data [lindex $args 1]
        set args [lrange $args 2 end]
    }
    if {![file executable $::vcli_binary]} { skip "$::vcli_binary is not built (make)" }
    if {[catch {::vk::transport_cli_args} transport_args]} { skip $transport_args }
    set cmd [list $::vcli_binary -h [srv host] -p [srv port] {*}$transport_args {*}$args]
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
    regsub {\n?child process exited abnormally$} $out {} out
    return [list $status $out]
}

# vcli_exec args..: runs valkey-cli (no server options added); returns
# {exit_status output}.
proc vcli_exec {args} {
    if {![file executable $::vcli_binary]} { skip "$::vcli_binary is not built" }
    set code [catch {exec $::vcli_binary {*}$args 2>@1} out opts]
    set status 0
    if {$code && [lindex [dict get $opts -errorcode] 0] eq "CHILDSTATUS"} {
        set status [lindex [dict get $opts -errorcode] 2]
    }
    regsub {\n?child process exited abnormally$} $out {} out
    return [list $status $out]
}

# vcli_background outfile args..: starts valkey-cli against the innermost
# server in the background, stdout and stderr to outfile; returns its pid.
proc vcli_background {outfile args} {
    if {![file executable $::vcli_binary]} { skip "$::vcli_binary is not built" }
    set cmd [list $::vcli_binary -h [srv host] -p [srv port] {*}[::vk::transport_cli_args] {*}$args]
    return [exec {*}$cmd >& $outfile &]
}

# vcli_stop pid: ends a background valkey-cli (SIGINT) and waits for it.
proc vcli_stop {pid} {
    catch {exec kill -INT $pid}
    for {set i 0} {$i < 50 && [::vk::pid_alive $pid]} {incr i} { after 100 }
    catch {exec kill -9 $pid}
}

proc vcli_read_file {path} {
    set fd [open $path rb]
    set data [read $fd]
    close $fd
    return $data
}

# vcli_for secs args..: runs valkey-cli against the innermost server for
# secs seconds, then interrupts it (SIGINT); returns its output.
proc vcli_for {secs args} {
    set out [tmp_path cli_for.out]
    set pid [vcli_background $out {*}$args]
    after [expr {int($secs * 1000)}]
    vcli_stop $pid
    return [vcli_read_file $out]
}

# A TCP port nothing listens on (bound by us, then released).
proc vcli_closed_port {} {
    set s [socket -server vcli_never_accept -myaddr 127.0.0.1 0]
    set port [lindex [fconfigure $s -sockname] 2]
    close $s
    return $port
}

# vcli_tty keys args..: runs valkey-cli on a pseudo-terminal (util-linux
# `script`), typing each of `keys` followed by Enter with a pause between
# them; returns what the terminal showed, carriage returns removed.
proc vcli_tty {keys args} {
    if {![file executable $::vcli_binary]} { skip "$::vcli_binary is not built (make)" }
    if {[auto_execok script] eq ""} { skip "no script(1) for a pseudo-terminal" }
    set typing ""
    foreach k $keys { append typing "printf '%s\\r' '$k'; sleep 0.3; " }
    set cli [join [list $::vcli_binary {*}$args] " "]
    set env "VALKEYCLI_HISTFILE=[tmp_path cli_history]"
    set out [exec sh -c "($typing) | $env script -q -c '$cli' /dev/null" 2>@1]
    return [string map [list "\r" ""] $out]
}

start_server {tags {"cli rdma:skip:tcp-tool"}} {
    test "valkey-cli: SET and GET from argv, raw output by default" {
        assert_equal {0 OK} [run_vcli set clikey "hello world"]
        assert_equal {hello world} [r get clikey]
        run_vcli get clikey
    } {0 {hello world}}

    test "valkey-cli: --no-raw gives the terminal format" {
        r del l nl
        r rpush l a "b c" 3
        r set nl "line1\nline2"
        assert_equal {0 {"hello world"}} [run_vcli --no-raw get clikey]
        assert_equal {0 {(integer) 1}} [run_vcli --no-raw exists clikey]
        assert_equal {0 (nil)} [run_vcli --no-raw get nosuch]
        assert_equal {0 OK} [run_vcli --no-raw set k v]
        assert_equal [list 0 {"line1\nline2"}] [run_vcli --no-raw get nl]
        assert_equal {0 {(empty array)}} [run_vcli --no-raw lrange nosuch 0 -1]
        assert_equal [list 0 "1) \"a\"\n2) \"b c\"\n3) \"3\""] [run_vcli --no-raw lrange l 0 -1]
        lassign [run_vcli --no-raw nosuchcommand] status out
        assert_equal 0 $status
        assert_match {(error) ERR unknown command*} $out
    }

    test "valkey-cli: nested arrays are indented under their index" {
        r del big
        r rpush big 1 2 3 4 5 6 7 8 9 10 11
        lassign [run_vcli --no-raw lrange big 0 -1] status out
        assert_match " 1) \"1\"\n 2) \"2\"\n*\n10) \"10\"\n11) \"11\"" $out
        lassign [run_vcli --no-raw scan 0 count 1000] status out
        assert_match "1) \"0\"\n2) 1) \"*\"\n   2) \"*\"*" $out
    }

    test "valkey-cli: --raw and the default raw output" {
        assert_equal [list 0 "line1\nline2"] [run_vcli --raw get nl]
        assert_equal [list 0 "a\nb c\n3"] [run_vcli lrange l 0 -1]
        assert_equal {0 {}} [run_vcli get nosuch]
        assert_equal {0 1} [run_vcli exists clikey]
        lassign [run_vcli nosuchcommand] status out
        assert_equal 0 $status
        assert_match "ERR unknown command*\n" "$out\n"
    }

    test "valkey-cli: -n selects the database" {
        r flushall
        assert_equal {0 OK} [run_vcli -n 5 set indb5 yes]
        assert_equal 0 [r exists indb5]
        r select 5
        set v [r get indb5]
        r select 0
        set v
    } yes

    test "valkey-cli: -r repeats the command, -i waits between runs" {
        r del counter
        set t0 [clock milliseconds]
        assert_equal [list 0 "1\n2\n3"] [run_vcli -r 3 -i 0.1 incr counter]
        assert {[clock milliseconds] - $t0 >= 200}
        r get counter
    } 3

    test "valkey-cli: -x reads the last argument from stdin" {
        assert_equal {0 OK} [run_vcli -stdin "from\nstdin" -x set fromstdin]
        r get fromstdin
    } "from\nstdin"

    test "valkey-cli: -e exits 1 on an error reply, 0 otherwise" {
        r set str notanumber
        assert_equal {0 OK} [run_vcli -e set k v]
        lassign [run_vcli -e incr str] status out
        assert_equal 1 $status
        assert_equal "ERR value is not an integer or out of range" $out
        lassign [run_vcli incr str] status out
        assert_equal 0 $status
        # -e stops repeating at the first error.
        lassign [run_vcli -e -r 5 incr str] status out
        assert_equal 1 $status
        assert_equal 1 [llength [split $out "\n"]]
    }

    test "valkey-cli: each line of a non-terminal stdin is a command" {
        r del counter
        run_vcli -stdin "set counter 10\nincr counter\n\nincrby counter 5\nset \"q x\" \"a b\"\nget \"q x\"\nget counter\n"
    } [list 0 "OK\n11\n16\nOK\na b\n16"]

    test "valkey-cli: stdin lines with a bad quote are refused, others run" {
        run_vcli -stdin "set a 1\nset \"b 2\nget a\n"
    } [list 0 "OK\nInvalid argument(s)\n1"]

    test "valkey-cli: --pipe mass insertion of 100000 commands" {
        r flushall
        set buf ""
        for {set i 0} {$i < 100000} {incr i} {
            append buf "*3\r\n\$3\r\nSET\r\n\$[string length pipe:$i]\r\npipe:$i\r\n\$[string length $i]\r\n$i\r\n"
        }
        lassign [run_vcli -stdin $buf --pipe] status out
        assert_equal 0 $status $out
        assert_equal "All data transferred. Waiting for the last reply...\nLast reply received from server.\nerrors: 0, replies: 100000" $out
        assert_equal 100000 [r dbsize]
        r get pipe:99999
    } 99999

    test "valkey-cli: --pipe counts error replies and exits 1" {
        set buf "*1\r\n\$3\r\nFOO\r\n*2\r\n\$4\r\nECHO\r\n\$1\r\nx\r\n*1\r\n\$4\r\nPING\r\n"
        lassign [run_vcli -stdin $buf --pipe] status out
        assert_equal 1 $status
        assert_match "All data transferred. Waiting for the last reply...*ERR unknown command*Last reply received from server.\nerrors: 1, replies: 3" $out
    }

    test "valkey-cli: --scan with --pattern and --count" {
        r flushall
        for {set i 0} {$i < 200} {incr i} { r set user:$i x; r set other:$i x }
        foreach extra {{} {--count 7} {--count 1000}} {
            lassign [run_vcli --scan --pattern "user:*" {*}$extra] status out
            assert_equal 0 $status
            set keys [split $out \n]
            assert_equal 200 [llength [lsort -unique $keys]]
            foreach k $keys { assert_match user:* $k }
        }
        lassign [run_vcli --scan] status out
        assert_equal 400 [llength [lsort -unique [split $out \n]]]
        lassign [run_vcli --scan --quoted-pattern {"user:1?"}] status out
        assert_equal 10 [llength [split $out \n]]
        lassign [run_vcli --no-raw --scan --pattern user:199] status out
        assert_equal {"user:199"} $out
    }

    test "valkey-cli: --csv of arrays, nulls and errors" {
        r del l h
        r rpush l a "b c" 3
        r set s "he\"llo"
        assert_equal [list 0 {"a","b c","3"}] [run_vcli --csv lrange l 0 -1]
        assert_equal [list 0 {"he\"llo",NULL}] [run_vcli --csv mget s nosuch]
        lassign [run_vcli --csv nosuchcommand] status out
        assert_match {ERROR,"ERR unknown command*"} $out
    } {}

    test "valkey-cli: --json of arrays, maps (RESP3 by default) and nulls" {
        r del h
        r hset h f1 v1 f2 v2
        assert_equal [list 0 {["a","b c","3"]}] [run_vcli --json lrange l 0 -1]
        assert_equal [list 0 {["he\"llo",null]}] [run_vcli --json mget s nosuch]
        assert_equal {0 null} [run_vcli --json get nosuch]
        assert_equal [list 0 {[]}] [run_vcli --json lrange nosuch 0 -1]
        set m [lindex [run_vcli --json hgetall h] 1]
        assert {$m eq {{"f1":"v1","f2":"v2"}} || $m eq {{"f2":"v2","f1":"v1"}}} $m
        # -2 keeps RESP2, where HGETALL is a flat array.
        set a [lindex [run_vcli -2 --json hgetall h] 1]
        assert_match {\[*"v1"*\]} $a
        r set bin "a\x01b"
        assert_equal [list 0 {"a\u0001b"}] [run_vcli --json get bin]
        assert_equal [list 0 {"a\\x01b"}] [run_vcli --quoted-json get bin]
    }

    test "valkey-cli: RESP3 maps, sets, doubles, booleans, nulls with -3" {
        lassign [run_vcli -3 --no-raw hgetall h] status out
        assert_match "1# \"f*\" => \"v*\"\n2# \"f*\" => \"v*\"" $out
        assert_equal {0 (nil)} [run_vcli -3 --no-raw get nosuch]
        assert_equal {0 {(empty hash)}} [run_vcli -3 --no-raw hgetall nosuch]
        assert_equal [list 0 "f1 v1\nf2 v2"] [list 0 [join [lsort [split [lindex [run_vcli -3 hgetall h] 1] \n]] \n]]
    }
}

start_server {tags {"cli needs:debug rdma:skip:tcp-tool"} overrides {enable-debug-command yes}} {
    test "valkey-cli: every RESP3 type from DEBUG PROTOCOL" {
        needs_debug
        assert_equal [list 0 "1# (integer) 0 => (false)\n2# (integer) 1 => (true)\n3# (integer) 2 => (false)"] \
            [run_vcli -3 --no-raw debug protocol map]
        assert_equal [list 0 "1~ (integer) 0\n2~ (integer) 1\n3~ (integer) 2"] [run_vcli -3 --no-raw debug protocol set]
        assert_equal [list 0 "1) (integer) 0\n2) (integer) 1\n3) (integer) 2"] [run_vcli -3 --no-raw debug protocol array]
        assert_equal {0 {(double) 3.141}} [run_vcli -3 --no-raw debug protocol double]
        assert_equal {0 (true)} [run_vcli -3 --no-raw debug protocol true]
        assert_equal {0 (false)} [run_vcli -3 --no-raw debug protocol false]
        assert_equal {0 (nil)} [run_vcli -3 --no-raw debug protocol null]
        assert_equal {0 {(big number) 1234567999999999999999999999999999999}} [run_vcli -3 --no-raw debug protocol bignum]
        assert_equal [list 0 "This is a verbatim\nstring"] [run_vcli -3 --no-raw debug protocol verbatim]
        # Attributes are skipped; the reply they annotate is printed.
        assert_equal {0 {"Some real reply following the attribute"}} [run_vcli -3 --no-raw debug protocol attrib]
        # A push message before the reply is not printed outside the REPL.
        assert_equal {0 {"Some real reply following the push reply"}} [run_vcli -3 --no-raw debug protocol push]
        # Raw, CSV and JSON of the same types.
        assert_equal [list 0 "0 (false)\n1 (true)\n2 (false)"] [run_vcli -3 debug protocol map]
        assert_equal {0 0,false,1,true,2,false} [run_vcli -3 --csv debug protocol map]
        assert_equal {0 {{"0":false,"1":true,"2":false}}} [run_vcli --json debug protocol map]
        assert_equal [list 0 {[0,1,2]}] [run_vcli --json debug protocol set]
        assert_equal {0 3.141} [run_vcli --json debug protocol double]
        assert_equal {0 NULL} [run_vcli -3 --csv debug protocol null]
        assert_equal {0 null} [run_vcli --json debug protocol null]
    }
}

start_server {tags {"cli rdma:skip:tcp-tool"}} {
    test "valkey-cli: --bigkeys summary lines" {
        needs_commands rpush hset sadd
        r flushall
        r rpush mylist a b c
        r set s1 hello
        r set s2 hi
        r hset myhash f v
        r sadd myset x y
        lassign [run_vcli --bigkeys] status out
        assert_equal 0 $status $out
        assert_match "*# Scanning the entire keyspace to find biggest keys*" $out
        assert_match "*\\\[*%\\\] Biggest list   found so far '\"mylist\"' with 3 items*" $out
        assert_match "*-------- summary -------*" $out
        assert_match "*Sampled 5 keys in the keyspace!*" $out
        assert_match "*Total key length in bytes is 21 (avg len 4.20)*" $out
        assert_match "*Biggest string found '\"s1\"' has 5 bytes*" $out
        assert_match "*Biggest   list found '\"mylist\"' has 3 items*" $out
        assert_match "*Biggest   hash found '\"myhash\"' has 1 fields*" $out
        assert_match "*Biggest    set found '\"myset\"' has 2 members*" $out
        assert_match "*2 strings with 7 bytes (40.00% of keys, avg size 3.50)*" $out
        assert_match "*1 lists with 3 items (20.00% of keys, avg size 3.00)*" $out
        assert_match "*0 zsets with 0 members (00.00% of keys, avg size 0.00)*" $out
    }

    test "valkey-cli: --memkeys reports bytes" {
        needs_commands memory
        lassign [run_vcli --memkeys] status out
        assert_equal 0 $status $out
        assert_match "*Biggest   list found '\"mylist\"' has * bytes*" $out
        assert_match "*1 lists with * bytes (20.00% of keys, avg size *" $out
    }

    test "valkey-cli: --eval runs a script with keys and args" {
        needs_commands eval
        set f [tmp_path cli_script.lua]
        set fd [open $f w]
        puts $fd "return {KEYS\[1\], KEYS\[2\], ARGV\[1\]}"
        close $fd
        run_vcli --eval $f k1 k2 , a1
    } [list 0 "k1\nk2\na1"]

    test "valkey-cli: --eval of a missing file fails" {
        lassign [run_vcli --eval [tmp_path no_such.lua]] status out
        assert_equal 1 $status
        assert_match "*Can't open file*" $out
    }

    test "valkey-cli: --latency in a pipe prints one summary line" {
        lassign [run_vcli --latency] status out
        assert_equal 0 $status
        assert {[regexp {^[0-9]+ [0-9]+ [0-9]+\.[0-9]{2} [0-9]+$} $out]} $out
    }

    test "valkey-cli: unreachable server exits 1 with Valkey's message" {
        set port [vcli_closed_port]
        lassign [vcli_exec -h 127.0.0.1 -p $port ping] code out
        assert_equal 1 $code
        assert_equal "Could not connect to Valkey at 127.0.0.1:$port: Connection refused" $out
    }

    test "valkey-cli: --rdma goes to the transport layer" {
        lassign [vcli_exec --rdma -h 127.0.0.1 -p [vcli_closed_port] ping] code out
        assert_equal 1 $code
        if {![string match "*RDMA support is not built in*" $out]} {
            assert_match "*Could not connect to Valkey at*" $out
        }
    }

    test "valkey-cli: bad options, --version, --help" {
        lassign [vcli_exec --no-such-option] code out
        assert_equal 1 $code
        assert_equal "Unrecognized option or bad number of args for: '--no-such-option'" $out
        assert_match "valkey-cli *" [exec $::vcli_binary --version]
        assert_match "*Usage: valkey-cli*--pipe*" [exec $::vcli_binary --help]
    }

    test "valkey-cli: interactive prompt follows SELECT, help and quit" {
        set out [vcli_tty {"set a 1" "select 2" "get a" "help get" "quit"} -h [srv host] -p [srv port] {*}[::vk::transport_cli_args]]
        set port [srv port]
        assert_match "*127.0.0.1:$port> *OK*" $out
        assert_match "*127.0.0.1:$port\\\[2\\\]> *" $out
        assert_match "*(nil)*" $out
        # Valkey's help layout: bold name, grey arguments, yellow labels.
        assert_match "*\x1b\\\[1mGET\x1b\\\[0m \x1b\\\[90mkey\x1b\\\[0m\n*\x1b\\\[33msummary:\x1b\\\[0m *" $out
        # The history file holds the lines typed.
        set fd [open [tmp_path cli_history]]
        set hist [read $fd]
        close $fd
        assert_match "*select*2*" $hist
    }

    # help text built from this server's COMMAND DOCS (7.0's differ in detail).
    tags {valkey-only} {
        test "valkey-cli: help <command> shows the arguments from COMMAND DOCS" {
            set out [vcli_tty {"help set" "help client kill" "help zrem" "quit"} -h [srv host] -p [srv port] {*}[::vk::transport_cli_args]]
            # The arguments as Valkey's hints write them: "|" between
            # alternatives, optional ones in brackets.
            assert_match "*SET\x1b\\\[0m \x1b\\\[90mkey value \\\[NX|XX\\\] \\\[GET\\\] \\\[EX seconds|PX milliseconds|EXAT unix-time-seconds|PXAT unix-time-milliseconds|KEEPTTL\\\]\x1b*" $out
            assert_match "*CLIENT KILL\x1b\\\[0m \x1b\\\[90mip:port|\\\[ID client-id\\\]|*|\\\[MAXAGE maxage\\\] \\\[\\\[ID client-id\\\]|*...\\\]\x1b*" $out
            assert_match "*ZREM\x1b\\\[0m \x1b\\\[90mkey member \\\[member ...\\\]\x1b\\\[0m\n*summary:*since:*group:*" $out
        }
    }

    test "valkey-cli: typing a command and a space hints its remaining arguments" {
        # The space redraws the line with the hint as its right prompt,
        # before Enter runs it (and gets the arity error).
        set out [vcli_tty {"hset h " "quit"} -h [srv host] -p [srv port] {*}[::vk::transport_cli_args]]
        assert_match "*field value \\\[field value ...\\\]*" $out
    }

    test "valkey-cli: interactive without a server shows not connected" {
        set out [vcli_tty {"ping" "quit"} -h 127.0.0.1 -p [vcli_closed_port]]
        assert_match "*Could not connect to Valkey at 127.0.0.1:*: Connection refused*" $out
        assert_match "*not connected> *" $out
    }
}

# ---------------------------------------------------------------------------
# Every option of Valkey 8's valkey-cli --help
# ---------------------------------------------------------------------------

start_server {tags {"cli rdma:skip:tcp-tool"}} {
    test "valkey-cli: --help lists every option of Valkey 8's cli" {
        set help [exec $::vcli_binary --help]
        foreach opt {-h -p -t -s -a --user --pass --askpass -u -r -i -n -2 -3 -x -X -d -D -c -e -4 -6
                     --raw --no-raw --quoted-input --csv --json --quoted-json --show-pushes --stat --latency
                     --latency-history --latency-dist --lru-test --replica --rdb --functions-rdb --pipe
                     --pipe-timeout --bigkeys --memkeys --memkeys-samples --hotkeys --scan --pattern --count
                     --quoted-pattern --intrinsic-latency --eval --ldb --ldb-sync-mode --cluster --verbose
                     --no-auth-warning --help --version} {
            assert {[regexp -line "^ {1,2}[string map {- \\-} $opt]\[ <\]" $help]} "$opt is not in --help"
        }
        assert_match "*Use --cluster help to list all available cluster manager commands.*" $help
        # -h as the last word is --help too; a usage error goes to stderr.
        assert_equal $help [exec $::vcli_binary -p 1 -h]
    }

    test "valkey-cli: Valkey's messages for bad option values and combinations" {
        foreach {args msg} {
            {-p 70000 ping}            {Invalid server port.}
            {-p x ping}                {Invalid server port.}
            {-t -1 ping}               {Invalid connection timeout for -t.}
            {-2 -3 ping}               {Options -2 and -3 are mutually exclusive.}
            {-c -s /tmp/x.sock ping}   {Options -c and -s are mutually exclusive.}
            {-x -X tag set k tag}      {Options -x and -X are mutually exclusive.}
            {-4 -6 ping}               {Options -4 and -6 are mutually exclusive.}
            {--rdb a --functions-rdb b} {Option --functions-rdb and --rdb are mutually exclusive.}
            {--show-pushes maybe ping} {Unknown --show-pushes value 'maybe' (valid: '[y]es', '[n]o')}
            {-u http://h ping}         {Invalid URI scheme}
            {-u valkey://a%zz@h ping}  {Illegal character in URI encoding}
        } {
            lassign [vcli_exec {*}$args] code out
            assert_equal 1 $code $args
            assert_equal $msg $out $args
        }
        lassign [vcli_exec --ldb ping] code out
        assert_equal 1 $code
        assert_equal "Options --ldb and --ldb-sync-mode require --eval.\nTry $::vcli_binary --help for more information." $out
    }

    test "valkey-cli: -t connects within the timeout, -4 and -6 pick the address family" {
        assert_equal {0 PONG} [run_vcli -t 0.5 ping]
        lassign [vcli_exec -4 -h localhost -p [srv port] {*}[::vk::transport_cli_args] client info] code out
        assert_equal 0 $code
        assert_match "*addr=127.0.0.1:*" $out
    }

    test "valkey-cli: -u sets user, password, host, port and database" {
        r acl setuser cliuser on >p@ss:word allkeys allcommands
        set uri "valkey://cliuser:p%40ss%3Aword@[srv host]:[srv port]/3"
        set tr [::vk::transport_cli_args]
        lassign [vcli_exec {*}$tr -u $uri set uri:key 1] code out
        assert_equal 0 $code
        assert_equal "Warning: Using a password with '-a' or '-u' option on the command line interface may not be safe.\nOK" $out
        assert_equal {0 OK} [vcli_exec {*}$tr --no-auth-warning -u $uri set uri:key 2]
        r select 3
        set v [r get uri:key]
        r select 0
        assert_equal 2 $v
        lassign [vcli_exec {*}$tr --no-auth-warning -u "valkey://cliuser:wrong@[srv host]:[srv port]" ping] code out
        assert_match "AUTH failed: WRONGPASS*" $out
    }

    test "valkey-cli: --askpass reads the password from stdin, overriding -a" {
        assert_equal {0 OK} [run_vcli -stdin "p@ss:word\n" --user cliuser --askpass -a wrong --no-auth-warning set askpass 1]
        r get askpass
    } 1

    test "valkey-cli: -X replaces the tagged argument with stdin" {
        r del xk
        assert_equal {0 OK} [run_vcli -stdin "from\nstdin" -X tag set xk tag]
        assert_equal "from\nstdin" [r get xk]
        lassign [run_vcli -stdin "x" -X tag set xk value] code out
        assert_equal {1 {Using -X option but stdin tag not match.}} [list $code $out]
    }

    test "valkey-cli: -d between the elements of a raw reply, -D after each reply" {
        r del dl
        r rpush dl a b c
        assert_equal {0 a,b,c} [run_vcli -d , lrange dl 0 -1]
        assert_equal [list 0 "a\nb\nc;a\nb\nc;"] [run_vcli -D ";" -r 2 lrange dl 0 -1]
        # Valkey's example: a DUMP payload kept byte for byte, then RESTOREd with -X.
        r set dumped "binary\x00\r\nvalue"
        set f [tmp_path key.dump]
        set cli [list $::vcli_binary -h [srv host] -p [srv port] {*}[::vk::transport_cli_args]]
        exec {*}$cli -D "" --raw dump dumped > $f
        r del restored
        exec {*}$cli -X dump_tag restore restored 0 dump_tag replace < $f
        r get restored
    } "binary\x00\r\nvalue"

    test "valkey-cli: --quoted-input unquotes each argument" {
        assert_equal {0 OK} [run_vcli --quoted-input set {"null-\x00-separated"} {"v\tx"}]
        assert_equal "v\tx" [r get "null-\x00-separated"]
        run_vcli --quoted-input get {"unbalanced}
    } {1 {Invalid quoted string}}

    test "valkey-cli: help without the REPL, from COMMAND DOCS" {
        lassign [run_vcli help get] code out
        assert_equal 0 $code
        # (exec reads "\r\n" as "\n")
        assert_match "\n  \x1b\\\[1mGET\x1b\\\[0m \x1b\\\[90mkey\x1b\\\[0m\n  \x1b\\\[33msummary:\x1b\\\[0m *\n  \x1b\\\[33msince:\x1b\\\[0m 1.0.0\n  \x1b\\\[33mgroup:\x1b\\\[0m string\n" $out
        lassign [run_vcli help] code out
        assert_match "valkey-cli *\nTo get help about Valkey commands type:*\":set hints\" enable online hints*" $out
        assert_equal {0 {}} [run_vcli help nosuchcommand]
    }

    test "valkey-cli: lines of a non-terminal stdin run as in the REPL" {
        r del rc
        # A count in front repeats, connect/quit/:set are the cli's own.
        lassign [run_vcli -stdin "3 incr rc\n:set nohints\n:set bogus\n-1 incr rc\nquit\nincr rc\n"] code out
        assert_equal 0 $code
        assert_equal "1\n2\n3\nunknown valkey-cli preference 'bogus'\nInvalid valkey-cli repeat command option value." $out
        r get rc
    } 3

    test "valkey-cli: INFO and friends print their text even with --no-raw" {
        lassign [run_vcli --no-raw info server] code out
        assert_match "# Server\n*\nprocess_id:[srv pid]\n*" $out
        lassign [run_vcli --no-raw client list] code out
        assert_match "id=*" $out
    }

    test "valkey-cli: SHUTDOWN-like lost connections and SUBSCRIBE in RESP3" {
        set out [tmp_path sub.out]
        set pid [vcli_background $out -3 subscribe ch1 ch2]
        wait_for_condition 50 100 {[r pubsub numsub ch2] eq {ch2 1}} { fail "the cli did not subscribe" }
        r publish ch1 hello
        after 200
        vcli_stop $pid
        vcli_read_file $out
    } "subscribe\nch1\n1\nsubscribe\nch2\n2\nmessage\nch1\nhello\n"
}

start_server {tags {"cli needs:debug rdma:skip:tcp-tool"} overrides {enable-debug-command yes}} {
    test "valkey-cli: --show-pushes prints RESP3 push messages" {
        needs_debug
        # Not by default when stdout is not a terminal...
        assert_equal {0 {Some real reply following the push reply}} [run_vcli -3 debug protocol push]
        # ... with --show-pushes yes in the output format first.
        lassign [run_vcli -3 --show-pushes yes debug protocol push] code out
        assert_equal [list 0 "server-cpu-usage\n42\nSome real reply following the push reply"] [list $code $out]
        lassign [run_vcli -3 --show-pushes y --no-raw debug protocol push] code out
        assert_equal "1) \"server-cpu-usage\"\n2) (integer) 42\n\"Some real reply following the push reply\"" $out
    }
}

# ---------------------------------------------------------------------------
# -c: following MOVED and ASK
# ---------------------------------------------------------------------------

# A stand-in cluster node, run as its own process: it answers every command
# with one fixed reply line (%PORT% is its own port), ASKING with +OK, and
# logs what it got.
set ::vcli_fake_node {
    lassign $argv portfile reply
    proc read_command {chan} {
        if {[gets $chan line] < 0} { return "" }
        set n [string range [string trimright $line "\r"] 1 end]
        set args {}
        for {set i 0} {$i < $n} {incr i} {
            gets $chan len
            set arg [read $chan [string range [string trimright $len "\r"] 1 end]]
            read $chan 2
            lappend args $arg
        }
        return $args
    }
    proc serve {chan addr port} {
        fconfigure $chan -translation binary
        fileevent $chan readable [list handle $chan]
    }
    proc handle {chan} {
        set cmd [read_command $chan]
        if {$cmd eq ""} { close $chan; return }
        set log [open $::portfile.cmds a]
        puts $log $cmd
        close $log
        if {[string toupper [lindex $cmd 0]] eq "ASKING"} {
            puts -nonewline $chan "+OK\r\n"
        } else {
            puts -nonewline $chan "$::reply\r\n"
        }
        flush $chan
    }
    set s [socket -server serve -myaddr 127.0.0.1 0]
    set reply [string map [list %PORT% [lindex [fconfigure $s -sockname] 2]] $reply]
    set fd [open $portfile.tmp w]
    puts $fd [lindex [fconfigure $s -sockname] 2]
    close $fd
    file rename -force $portfile.tmp $portfile
    vwait forever
}

# Starts a fake node answering `reply`; returns {pid port logfile}.
proc vcli_fake_node {name reply} {
    set script [tmp_path fake-node.tcl]
    set fd [open $script w]
    puts $fd $::vcli_fake_node
    close $fd
    set portfile [tmp_path $name.port]
    file delete -force $portfile $portfile.cmds
    set pid [exec [info nameofexecutable] $script $portfile $reply >& /dev/null &]
    wait_for_condition 50 100 {[file exists $portfile]} { fail "the fake node did not start" }
    return [list $pid [string trim [vcli_read_file $portfile]] $portfile.cmds]
}

# The fake nodes speak plain TCP.
start_server {tags {"cli external:skip rdma:skip:tcp-tool tls:skip:own-server"}} {
    test "valkey-cli: -c follows MOVED to the node named, keeping the host when it is empty" {
        r set moved:key here
        lassign [vcli_fake_node moved "-MOVED 3999 127.0.0.1:[srv port]"] pid port log
        assert_equal {0 here} [vcli_exec -c -h 127.0.0.1 -p $port get moved:key]
        # Without -c the redirection is just an error reply.
        lassign [vcli_exec -h 127.0.0.1 -p $port get moved:key] code out
        assert_equal "MOVED 3999 127.0.0.1:[srv port]\n" $out
        ::vk::kill_pid $pid
        lassign [vcli_fake_node moved2 "-MOVED 3999 :[srv port]"] pid port log
        assert_equal {0 here} [vcli_exec -c -h 127.0.0.1 -p $port get moved:key]
        # In the REPL the redirection is announced.
        set out [exec $::vcli_binary -c -h 127.0.0.1 -p $port << "get moved:key\n"]
        assert_equal "-> Redirected to slot \[3999\] located at 127.0.0.1:[srv port]\nhere" $out
        ::vk::kill_pid $pid
    }

    test "valkey-cli: -c sends ASKING to the node an ASK names" {
        lassign [vcli_fake_node target "+from-target"] tpid tport tlog
        lassign [vcli_fake_node asker "-ASK 12 127.0.0.1:$tport"] apid aport alog
        assert_equal {0 from-target} [vcli_exec -c -h 127.0.0.1 -p $aport get k]
        assert_equal "ASKING\nget k\n" [vcli_read_file $tlog]
        ::vk::kill_pid $apid
        ::vk::kill_pid $tpid
    }

    test "valkey-cli: a server answering SYNC or SCAN with nonsense gets a clear error" {
        lassign [vcli_fake_node junk "+junk"] pid port log
        assert_equal "1 {sending REPLCONF capa eof\nsending REPLCONF rdb-only 1\nUnexpected answer to SYNC from primary: '+junk'}" \
            [vcli_exec -h 127.0.0.1 -p $port --rdb [tmp_path junk.rdb]]
        ::vk::kill_pid $pid
        lassign [vcli_fake_node long "+[string repeat x 5000]"] pid port log
        lassign [vcli_exec -h 127.0.0.1 -p $port --rdb [tmp_path junk.rdb]] code out
        assert_equal 1 $code
        assert_match "*\nError reading bulk length while SYNCing" $out
        ::vk::kill_pid $pid
        lassign [vcli_fake_node scan "*2\r\n\$1\r\n0\r\n*1\r\n:5"] pid port log
        set r [vcli_exec -h 127.0.0.1 -p $port --scan]
        ::vk::kill_pid $pid
        set r
    } {1 {Non STRING key in the SCAN reply!}}

    test "valkey-cli: -c gives up on nodes that redirect in circles" {
        lassign [vcli_fake_node loop "-MOVED 1 127.0.0.1:%PORT%"] pid port log
        set r [vcli_exec -c -h 127.0.0.1 -p $port get k]
        ::vk::kill_pid $pid
        set r
    } {1 {Error: too many cluster redirections}}
}

# ---------------------------------------------------------------------------
# Interactive hints and preferences
# ---------------------------------------------------------------------------

start_server {tags {"cli rdma:skip:tcp-tool"}} {
    test "valkey-cli: the hint follows the arguments typed, :set nohints turns it off" {
        set out [vcli_tty {"zadd k ch lt " ":set nohints" "zadd k ch lt " "quit"} -h [srv host] -p [srv port] {*}[::vk::transport_cli_args]]
        # (script echoes all the typed input first: cut at the prompts.)
        set first [string first "[srv port]> zadd" $out]
        set second [string first "[srv port]> :set" $out]
        assert {$first >= 0 && $second > $first} $out
        set hint {[NX|XX] [INCR] score member [score member ...]}
        assert {[string first $hint [string range $out $first $second]] >= 0} $out
        assert {[string first $hint [string range $out $second end]] < 0} $out
    }

    # The hints of Valkey's tests/assets/test_cli_hint_suite.txt whose
    # commands this server documents as Valkey 8 does.
    tags {valkey-only} {
        test "valkey-cli: --test_hint_file, Valkey's hint cases against this server's COMMAND DOCS" {
            set suite [tmp_path hints.txt]
            set fd [open $suite w]
            puts $fd {# input, expected hint
"GET " "key"
"GET abc " ""
"DECRBY xyz 2 " ""
"DECRBY xyz " "decrement"
"DECRBY " "key decrement"
"LPOP key " "[count]"
"LPOP key 3 " ""
"XRANGE " "key start end [COUNT count]"
"XRANGE k 4 2 " "[COUNT count]"
"XRANGE k 4 2 COU" "[COUNT count]"
"XRANGE k 4 2 COUNT" "[COUNT count]"
"XRANGE k 4 2 COUNT " "count"
"BITFIELD_RO k " "[GET encoding offset [GET encoding offset ...]]"
"BITFIELD_RO k GET " "encoding offset [GET encoding offset ...]]"
"BITFIELD_RO k GET xyz " "offset [GET encoding offset ...]]"
"BITFIELD_RO k GET xyz 12 " "[GET encoding offset ...]]"
"BITFIELD_RO k GET enc1 12 GET enc2 34 " "[GET encoding offset ...]]"
"CONFIG SET param " "value [parameter value ...]"
"CONFIG SET param val " "[parameter value ...]"
"CONFIG SET param val param2 val2 " "[parameter value ...]"
"ZRANDMEMBER k " "[count [WITHSCORES]]"
"ZRANDMEMBER k 3 " "[WITHSCORES]"
"ZRANDMEMBER k 3 WI" "[WITHSCORES]"
"ZRANDMEMBER k 3 WITHSCORES " ""
"ZRANDMEMBER k cnt " ""
"MGET " "key [key ...]"
"MGET k " "[key ...]"
"MGET k k " "[key ...]"
"SCAN 2 MATCH " "pattern [COUNT count] [TYPE type]"
"SCAN 2 COUNT " "count [MATCH pattern] [TYPE type]"
"BLMOVE src dst LEFT " "LEFT|RIGHT timeout"
"ZRANGE k 1 2 " "[BYSCORE|BYLEX] [REV] [LIMIT offset count] [WITHSCORES]"
"ZRANGE k 1 2 bylex rev " "[LIMIT offset count] [WITHSCORES]"
"ZRANGE k 1 2 limit 2 4 " "[BYSCORE|BYLEX] [REV] [WITHSCORES]"
"ZRANGE k 1 2 WITHSCORES " "[BYSCORE|BYLEX] [REV] [LIMIT offset count]"
"SET key value EX " "seconds [NX|XX] [GET]"
"SET key value EX 23 " "[NX|XX] [GET]"
"SET key value KEEPTTL " "[NX|XX] [GET]"
"SET key value XX " "[GET] [EX seconds|PX milliseconds|EXAT unix-time-seconds|PXAT unix-time-milliseconds|KEEPTTL]"
"SET key value FOOBAR " ""
"SET key value EX sec " ""
"GEOSEARCH k FROMLONLAT 2.34 4.45 BYRADIUS badvalue " ""
"ZADD key " "[NX|XX] [GT|LT] [CH] [INCR] score member [score member ...]"
"ZADD key CH LT " "[NX|XX] [INCR] score member [score member ...]"
"ZADD key 0 " "member [score member ...]"}
            close $fd
            lassign [run_vcli --test_hint_file $suite] code out
            assert_equal {0 {SUCCESS: 45/45 passed}} [list $code $out]
            # A failing case is reported and counted in the exit status.
            set fd [open $suite w]
            puts $fd {"GET " "wrong"}
            close $fd
            lassign [run_vcli --test_hint_file $suite] code out
            assert_equal {1 {Test case 'GET ' FAILED: expected 'wrong', got 'key'
FAILURE: 0/1 passed}} [list $code $out]
            run_vcli --test_hint "hset h "
        } {0 {field value [field value ...]}}
    }
}

# ---------------------------------------------------------------------------
# The keyspace modes: --bigkeys, --memkeys(-samples), --hotkeys
# ---------------------------------------------------------------------------

start_server {tags {"cli rdma:skip:tcp-tool"}} {
    test "valkey-cli: --memkeys-samples passes SAMPLES to MEMORY USAGE" {
        needs_commands memory
        r flushall
        r rpush biglist {*}[lrepeat 200 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx]
        lassign [run_vcli --memkeys-samples 3] code out
        assert_equal 0 $code $out
        assert_match "*Biggest   list found '\"biglist\"' has * bytes*" $out
        # MEMORY USAGE with SAMPLES 3 estimates from 3 elements, so it
        # differs from the exact default only by the estimate; both name it.
        lassign [run_vcli --memkeys] code out2
        assert_match "*1 lists with * bytes (100.00% of keys, avg size *" $out2
    }

    test "valkey-cli: --bigkeys reports no biggest key for a type whose keys are all empty" {
        r flushall
        r set empty ""
        r set full abc
        lassign [run_vcli --bigkeys] code out
        assert_match "*\\\[00.00%\\\] Biggest string found so far '\"full\"' with 3 bytes*" $out
        assert {![string match "*so far '\"empty\"'*" $out]} $out
        assert_match "*2 strings with 3 bytes (100.00% of keys, avg size 1.50)*" $out
    }

    test "valkey-cli: --hotkeys needs an LFU policy" {
        needs_commands object
        r set somekey v
        lassign [run_vcli --hotkeys] code out
        assert_equal 1 $code
        assert_match "*Error: ERR An LFU maxmemory policy is not selected*" $out
    }

    test "valkey-cli: --hotkeys lists the most accessed keys" {
        needs_commands object
        r config set maxmemory-policy allkeys-lfu
        # Log factor 0: every access counts one, so the order is certain.
        r config set lfu-log-factor 0
        r flushall
        # (not integers: Redis may share one object between small integers)
        r set cold c
        r set warm w
        r set hot h
        for {set i 0} {$i < 5} {incr i} { r get warm }
        for {set i 0} {$i < 50} {incr i} { r get hot }
        lassign [run_vcli --hotkeys] code out
        r config set maxmemory-policy noeviction
        r config set lfu-log-factor 10
        assert_equal 0 $code $out
        assert_match "\n# Scanning the entire keyspace to find hot keys as well as\n*" $out
        assert_match "*Hot key '\"hot\"' found so far with counter *" $out
        assert_match "*-------- summary -------\n\nSampled 3 keys in the keyspace!\nhot key found with counter: *\tkeyname: \"hot\"\nhot key found with counter: *\tkeyname: \"warm\"\nhot key found with counter: *\tkeyname: \"cold\"" $out
    }
}

# ---------------------------------------------------------------------------
# --stat, the latency modes, --lru-test
# ---------------------------------------------------------------------------

start_server {tags {"cli rdma:skip:tcp-tool"}} {
    test "valkey-cli: --stat prints Valkey's columns every -i seconds" {
        r flushall
        r set a 1
        set out [vcli_for 1.5 --stat -i 0.3]
        set lines [split $out \n]
        assert_equal "------- data ------ --------------------- load -------------------- - child -" [lindex $lines 0]
        assert_equal "keys       mem      clients blocked requests            connections          " [lindex $lines 1]
        # keys (11 wide), mem (8), clients, blocked (8 each), requests (19).
        assert {[regexp {^1          [0-9.]+[BKMG] +[0-9] +0 +[0-9]+ \(\+0\) +[0-9]+ *$} [lindex $lines 2]]} $out
        assert {[regexp {^1          [0-9.]+[BKMG] +[0-9] +0 +[0-9]+ \(\+[0-9]+\) +[0-9]+ *$} [lindex $lines 3]]} $out
        assert_equal 11 [string first [lindex [lindex $lines 2] 1] [lindex $lines 2]]
    }

    test "valkey-cli: --latency in CSV, JSON and raw, over -i seconds" {
        foreach {fmt re} {
            --csv  {^[0-9]+,[0-9]+,[0-9]+\.[0-9]{2},[0-9]+$}
            --json {^\{"min": [0-9]+, "max": [0-9]+, "avg": [0-9]+\.[0-9]{2}, "count": [0-9]+\}$}
            --raw  {^[0-9]+ [0-9]+ [0-9]+\.[0-9]{2} [0-9]+$}
        } {
            set t0 [clock milliseconds]
            lassign [run_vcli --latency $fmt -i 0.3] code out
            assert_equal 0 $code
            assert {[regexp $re $out]} "$fmt: $out"
            assert {[clock milliseconds] - $t0 < 1000} "-i 0.3 took [expr {[clock milliseconds] - $t0}] ms"
        }
    }

    test "valkey-cli: --latency-history starts over every -i seconds" {
        set out [vcli_for 1.3 --latency-history -i 0.5]
        assert {[regexp { -- 0\.5[0-9] seconds range\n} $out]} $out
    }

    test "valkey-cli: --latency-dist shows the legend and one spectrum line per -i seconds" {
        set out [vcli_for 1.5 --latency-dist -i 0.3]
        assert_match "---------------------------------------------\n. - * #          .01 .125 .25 .5 milliseconds\n*From 0 to 100%: \x1b\\\[48;5;0m \x1b\\\[48;5;233m *" $out
        assert_match "*\x1b\\\[38;5;0m\x1b\\\[48;5;*m.\x1b\\\[48;5;*m-*\x1b\\\[48;5;*m?\x1b\\\[0m\n*" $out
        set out [vcli_for 0.6 --latency-dist --mono -i 0.2]
        assert_match "*From 0 to 100%: *\x1b\\\[48;5;253m \x1b\\\[0m\n*" $out
    }

    test "valkey-cli: --intrinsic-latency measures this machine without a server" {
        lassign [vcli_exec -p [vcli_closed_port] --intrinsic-latency 1] code out
        assert_equal 0 $code
        assert {[regexp {^Max latency so far: [0-9]+ microseconds\.\n} $out]} $out
        assert {[regexp {\n\n[0-9]+ total runs \(avg latency: [0-9.]+ microseconds / [0-9.]+ nanoseconds per run\)\.\nWorst run took [0-9]+x longer than the average latency\.$} $out]} $out
    }

    test "valkey-cli: --lru-test reports hits and misses every second" {
        r flushall
        set out [vcli_for 2.5 --lru-test 1000]
        assert {[regexp {(?n)^[0-9]+ Gets/sec \| Hits: [0-9]+ \([0-9.]+%\) \| Misses: [0-9]+ \([0-9.]+%\)$} $out]} $out
        assert {[r dbsize] > 0 && [r dbsize] <= 1000}
        assert_match "lru:*" [r randomkey]
    }
}

# ---------------------------------------------------------------------------
# --rdb, --functions-rdb, --replica: the replication handshake
# ---------------------------------------------------------------------------

start_server {tags {"cli repl rdma:skip:tcp-tool"} overrides {repl-diskless-sync-delay 0}} {
    set rdbdir [tmp_path rdbcopy]
    file mkdir $rdbdir

    test "valkey-cli: --rdb of a diskless sync writes the snapshot without its end mark" {
        r flushall
        r set str value
        r rpush lst a b c
        r config set repl-diskless-sync yes
        lassign [run_vcli --rdb $rdbdir/dump.rdb] code out
        assert_equal 0 $code $out
        assert_match "sending REPLCONF capa eof\nsending REPLCONF rdb-only 1\nSYNC sent to primary, writing bytes of bulk transfer until EOF marker to '$rdbdir/dump.rdb'\nTransfer finished with success after * bytes" $out
        regexp {after ([0-9]+) bytes} $out -> size
        assert_equal $size [file size $rdbdir/dump.rdb]
        assert_equal "REDIS00" [string range [vcli_read_file $rdbdir/dump.rdb] 0 6]
    }

    test "valkey-cli: the --rdb file loads into a new server" {
        start_server [list overrides [list dir $rdbdir]] {
            assert_equal value [r get str]
            r lrange lst 0 -1
        }
    } {a b c}

    test "valkey-cli: --rdb of a disk sync, into an existing longer file" {
        r config set repl-diskless-sync no
        set f [tmp_path disk.rdb]
        set fd [open $f w]
        puts -nonewline $fd [string repeat x 100000]
        close $fd
        lassign [run_vcli --rdb $f] code out
        assert_equal 0 $code $out
        assert {[regexp {SYNC sent to primary, writing ([0-9]+) bytes to '[^']*'\nTransfer finished with success\.$} $out -> size]} $out
        assert_equal $size [file size $f]
    }

    test "valkey-cli: --rdb - writes the snapshot to stdout" {
        r config set repl-diskless-sync yes
        set f [tmp_path stdout.rdb]
        exec $::vcli_binary -h [srv host] -p [srv port] {*}[::vk::transport_cli_args] --rdb - > $f 2> [tmp_path stdout.err]
        set err [vcli_read_file [tmp_path stdout.err]]
        assert {[regexp {after ([0-9]+) bytes} $err -> size]} $err
        assert_equal $size [file size $f]
        set data [vcli_read_file $f]
        assert_equal "REDIS00" [string range $data 0 6]
        # The snapshot ends with its checksum, not with the 40-byte mark.
        assert {![regexp {[0-9a-f]{40}$} $data]}
    }

    test "valkey-cli: --functions-rdb asks for functions only and gets the library" {
        needs_commands function
        r function flush
        r function load {#!lua name=clilib
            redis.register_function('clifunc', function() return 1 end)}
        lassign [run_vcli --functions-rdb [tmp_path functions.rdb]] code out
        assert_equal 0 $code $out
        assert_match "sending REPLCONF capa eof\nsending REPLCONF rdb-only 1\nsending REPLCONF rdb-filter-only functions\nSYNC sent to primary*Transfer finished with success*" $out
        assert_match "*clilib*" [vcli_read_file [tmp_path functions.rdb]]
    }

    test "valkey-cli: --rdb fails with Valkey's messages" {
        lassign [run_vcli --rdb /nonexistent/dir/x.rdb] code out
        assert_equal 1 $code
        assert_match "*Error opening '/nonexistent/dir/x.rdb': No such file or directory" $out
        r acl setuser nosync on >pw allkeys +@all -sync -psync
        lassign [run_vcli --user nosync -a pw --no-auth-warning --rdb [tmp_path never.rdb]] code out
        assert_equal 1 $code
        assert_match "*SYNC with primary failed: -NOPERM *" $out
        lassign [vcli_exec -p [vcli_closed_port] --rdb [tmp_path never.rdb]] code out
        assert_equal 1 $code
        assert_match "Could not connect to Valkey at *" $out
    }

    test "valkey-cli: --replica prints the replication stream in CSV" {
        r config set repl-diskless-sync yes
        set out [tmp_path replica.out]
        set pid [vcli_background $out --replica]
        wait_for_condition 50 100 {[string match "*Logging commands from primary*" [vcli_read_file $out]]} {
            fail "no sync: [vcli_read_file $out]"
        }
        # The primary streams once the replica ACKs, a second after the payload.
        after 1500
        r set "a b" "c\"d"
        r incr counter
        wait_for_condition 50 100 {[string match "*\"incr\",\"counter\"*" [vcli_read_file $out]]} {
            fail "no stream: [vcli_read_file $out]"
        }
        vcli_stop $pid
        set text [vcli_read_file $out]
        assert_match "sending REPLCONF capa eof\nsending REPLCONF rdb-filter-only \nFull resync with primary, discarding bytes of bulk transfer until EOF marker...\nFull resync done after * bytes. Logging commands from primary.\nsending REPLCONF ACK 0\n*" $text
        assert_match "*\"SELECT\",\"0\"\n*\"set\",\"a b\",\"c\\\\\"d\"\n\"incr\",\"counter\"\n*" $text
    }

    # Redis 7.0 serves a replica that sent rdb-filter-only diskless, always.
    tags {valkey-only} {
    test "valkey-cli: --replica is streamed even with repl-diskless-sync no (its rdb-filter-only asks for a filtered snapshot)" {
        # A filtered snapshot is never the dbfilename file: the primary
        # streams it, as Valkey does.
        r config set repl-diskless-sync no
        set out [tmp_path replica2.out]
        set pid [vcli_background $out --replica]
        wait_for_condition 50 100 {[string match "*Logging commands from primary*" [vcli_read_file $out]]} {
            fail "no sync: [vcli_read_file $out]"
        }
        vcli_stop $pid
        assert_match "*Full resync with primary, discarding bytes of bulk transfer until EOF marker...\nFull resync done after * bytes. Logging commands from primary.\n*" [vcli_read_file $out]
    }
    }
}

# ---------------------------------------------------------------------------
# --cluster (--ldb: valkey-cli-ldb.tcl)
# ---------------------------------------------------------------------------

start_server {tags {"cli rdma:skip:tcp-tool"}} {
    test "valkey-cli: --cluster help lists the cluster manager's commands and exits 1, as Valkey" {
        lassign [vcli_exec --cluster help] code out
        assert_equal 1 $code
        assert_match "Cluster Manager Commands:\n  create         host1:port1 ... hostN:portN\n                 --cluster-replicas <arg>\n  check  *" $out
        assert_match "*  add-node       new_host:new_port existing_host:existing_port\n                 --cluster-replica\n                 --cluster-primaries-id <arg>\n*" $out
        assert_match "*  help           \n\nFor check, fix, reshard, del-node, set-timeout, info, rebalance, call, import, backup you can specify the host and port of any working node in the cluster.\n\nCluster Manager Options:\n  --cluster-yes  Automatic yes to cluster commands prompts\n" $out
        assert_equal {1 {Unknown --cluster subcommand}} [vcli_exec --cluster nosuch]
        assert_equal {1 {[ERR] Wrong number of arguments for specified --cluster sub command}} [vcli_exec --cluster create]
        # --cluster without a command is a usage error: the help on stderr.
        lassign [vcli_exec --cluster] code out
        assert_equal 1 $code
        assert_match "valkey-cli *\n\nUsage: valkey-cli \\\[OPTIONS\\\]*" $out
        catch {exec $::vcli_binary --cluster 2>/dev/null} stdout
        assert_match "child process exited abnormally" $stdout
    }

}

start_server [list tags {cli external:skip rdma:skip:unix} overrides [list unixsocket [tmp_path cli.sock]]] {
    test "valkey-cli: -s connects over a Unix socket" {
        if {![file executable $::vcli_binary]} { skip "$::vcli_binary is not built" }
        exec $::vcli_binary -s [tmp_path cli.sock] set viaunix 1
        r get viaunix
    } 1
}
