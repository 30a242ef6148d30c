# Our src/valkey-cli driven against the test server: the reply formats
# (the terminal format forced with --no-raw, raw by default when stdout is
# a pipe, --csv, --json, RESP3 types with -3), -n, -r/-i, -x, -e exit
# codes, lines read from stdin, --pipe mass insertion, --scan, --bigkeys,
# --eval, clean failures (unreachable server, --rdma when not built in,
# bad options) and the interactive REPL through a pseudo-terminal
# (`script`). Expected texts are those of Valkey's cli, checked side by
# side with redis-cli 7.0 against the same server.

set ::vcli_binary [file join $::vk::cfg(root) src valkey-cli]

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
        assert_match "*GET*summary: *" $out
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
            assert_match "*SET key value \\\[NX | XX\\\] \\\[GET\\\] \\\[EX seconds | PX milliseconds |*KEEPTTL\\\]*" $out
            assert_match "*CLIENT KILL <ip:port | <\\\[ID client-id\\\] | *\\\[MAXAGE maxage\\\]>*" $out
            assert_match "*ZREM key member \\\[member ...\\\]\n*" $out
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

start_server [list tags {cli external:skip rdma:skip:unix} overrides [list unixsocket [tmp_path cli.sock]]] {
    test "valkey-cli: -s connects over a Unix socket" {
        if {![file executable $::vcli_binary]} { skip "$::vcli_binary is not built" }
        exec $::vcli_binary -s [tmp_path cli.sock] set viaunix 1
        r get viaunix
    } 1
}
