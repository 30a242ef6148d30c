# The server driven by Debian's redis-cli: a real client that nobody in
# this project wrote, so it catches replies that only our own Tcl client
# would accept.  Exit statuses and output formats pinned here are those of
# redis-cli 7.0 when its stdout is not a terminal (raw output by default).

start_server {tags {"cli rdma:skip:tcp-tool"}} {
    if {[cli_binary] eq ""} {
        test "redis-cli is installed" { skip "no redis-cli on PATH (apt-get install redis-tools)" }
    }

    test "redis-cli: SET and GET from argv" {
        assert_equal {0 OK} [run_cli set clikey "hello world"]
        assert_equal {hello world} [r get clikey]
        run_cli get clikey
    } {0 {hello world}}

    test "redis-cli: a missing key prints an empty line" {
        run_cli get nosuch
    } {0 {}}

    test "redis-cli: integers and arrays in raw output" {
        needs_commands rpush
        r del l
        assert_equal {0 2} [run_cli rpush l "a b" c]
        run_cli lrange l 0 -1
    } [list 0 "a b\nc"]

    test "redis-cli: --no-raw quotes strings and numbers arrays" {
        needs_commands rpush
        assert_equal {0 {"hello world"}} [run_cli --no-raw get clikey]
        run_cli --no-raw lrange l 0 -1
    } [list 0 "1) \"a b\"\n2) \"c\""]

    test "redis-cli: --raw prints binary-unsafe bytes as they are" {
        r set nl "line1\nline2"
        assert_equal [list 0 {"line1\nline2"}] [run_cli --no-raw get nl]
        run_cli --raw get nl
    } [list 0 "line1\nline2"]

    test "redis-cli: -n selects the database" {
        r flushall
        assert_equal {0 OK} [run_cli -n 5 set indb5 yes]
        assert_equal 0 [r exists indb5]
        r select 5
        set v [r get indb5]
        r select 0
        set v
    } yes

    test "redis-cli: -x reads the last argument from stdin" {
        assert_equal {0 OK} [run_cli -stdin "from\nstdin" -x set fromstdin]
        r get fromstdin
    } "from\nstdin"

    test "redis-cli: a pipe of commands on stdin" {
        r del counter
        run_cli -stdin "set counter 10\nincr counter\nincrby counter 5\nget counter\n"
    } [list 0 "OK\n11\n16\n16"]

    test "redis-cli: --pipe mass insertion of RESP" {
        set buf ""
        for {set i 0} {$i < 1000} {incr i} {
            append buf "*3\r\n\$3\r\nSET\r\n\$[string length pipe:$i]\r\npipe:$i\r\n\$[string length $i]\r\n$i\r\n"
        }
        lassign [run_cli -stdin $buf --pipe] status out
        assert_equal 0 $status
        assert_match "*errors: 0, replies: 1000*" $out
        r get pipe:999
    } 999

    test "redis-cli: --scan --pattern" {
        r flushall
        for {set i 0} {$i < 200} {incr i} { r set user:$i x; r set other:$i x }
        lassign [run_cli --scan --pattern "user:*"] status out
        assert_equal 0 $status
        set keys [split $out \n]
        assert_equal 200 [llength [lsort -unique $keys]]
        foreach k $keys { assert_match user:* $k }
    }

    test "redis-cli: an error reply is printed and the exit status stays 0" {
        # redis-cli 7.0 only fails (status 1) when it cannot talk to the
        # server; an error *reply* is output like any other reply.
        run_cli nosuchcmd a
    } [list 0 "ERR unknown command 'nosuchcmd', with args beginning with: 'a' \n"]

    test "redis-cli: error replies with --no-raw" {
        run_cli --no-raw get
    } {0 {(error) ERR wrong number of arguments for 'get' command}}

    test "redis-cli: an error in the middle of a stdin pipe does not stop it" {
        lassign [run_cli -stdin "set e 1\nnosuch\nincr e\n"] status out
        assert_equal 0 $status
        assert_match "OK\nERR unknown command 'nosuch'*\n2" $out
        r get e
    } 2

    test "redis-cli: a server that is not there gives status 1" {
        set cli [cli_binary]
        set code [catch {exec $cli -h 127.0.0.1 -p 1 ping 2>@1} out]
        list $code [string match "*Could not connect*" $out]
    } {1 1}
}
