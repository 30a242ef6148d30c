# The RESP wire protocol as the server parses it: inline and multibulk
# requests, pipelining, partial writes, every protocol error with its exact
# text, very large arguments, RESP3 replies and the query buffer limit.

# Sends raw bytes on a fresh connection and returns what the server does:
# {reply-or-error closed?}.
proc raw_exchange {bytes} {
    set c [vk_client]
    $c write $bytes
    $c flush
    catch {$c read} reply
    set closed [catch {$c read}]
    $c close
    return [list $reply $closed]
}

start_server {tags {"protocol"}} {
    test "Inline command" {
        set c [vk_client]
        $c write "PING\r\n"
        set reply [$c read]
        $c close
        set reply
    } PONG

    test "Inline command terminated by a bare newline" {
        set c [vk_client]
        $c write "SET inline ok\nGET inline\n"
        set reply [list [$c read] [$c read]]
        $c close
        set reply
    } {OK ok}

    test "Inline arguments with double and single quotes" {
        set c [vk_client]
        $c write "SET \"key with space\" 'single \"q\"'\r\nGET \"key with space\"\r\n"
        $c write "SET hexkey \"\\x41\\x42\\n\"\r\nGET hexkey\r\n"
        set reply [list [$c read] [$c read] [$c read] [$c read]]
        $c close
        set reply
    } [list OK {single "q"} OK "AB\n"]

    test "Multibulk command" {
        set c [vk_client]
        $c write "*3\r\n\$3\r\nSET\r\n\$2\r\nmb\r\n\$5\r\nhello\r\n*2\r\n\$3\r\nGET\r\n\$2\r\nmb\r\n"
        set reply [list [$c read] [$c read]]
        $c close
        set reply
    } {OK hello}

    test "Empty query lines and *0 are ignored" {
        set c [vk_client]
        $c write "\r\n\r\n\n*0\r\n*-1\r\nPING\r\n"
        set reply [$c read]
        # Nothing else was answered: the next reply belongs to this ECHO.
        $c write "ECHO next\r\n"
        lappend reply [$c read]
        $c close
        set reply
    } {PONG next}

    # Redis 7.0 looks for the newline with strchr() and waits for ever.
    tags {"valkey-only"} {
        test "An inline request with a NUL byte is read up to its newline" {
            set c [vk_client]
            # The line ends at \n, not at the NUL; the words end at the NUL.
            $c write "set nulkey a\x00b\r\nget nulkey\r\n"
            $c flush
            assert_equal OK [$c read]
            assert_equal a [$c read]
            assert_equal PONG [$c ping]
            $c close
        }
    }

    test "Binary-safe multibulk arguments" {
        set value "a\x00b\r\nc\xff"
        r set bin $value
        assert_equal $value [r get bin]
        r strlen bin
    } 7

    test "Pipelining 10000 commands in one write" {
        set c [vk_client]
        set buf ""
        for {set i 0} {$i < 10000} {incr i} {
            append buf "*3\r\n\$4\r\nINCR\r\n\$7\r\ncounter\r\n" 
        }
        # INCR takes one argument: fix the header above to *2 and send.
        set buf [string map [list "*3\r\n\$4\r\nINCR" "*2\r\n\$4\r\nINCR"] $buf]
        r del counter
        $c write $buf
        $c flush
        set last 0
        set ordered 1
        for {set i 1} {$i <= 10000} {incr i} {
            set v [$c read]
            if {$v != $i} { set ordered 0 }
            set last $v
        }
        $c close
        list $ordered $last [r get counter]
    } {1 10000 10000}

    test "Pipelined mix of inline and multibulk requests" {
        set c [vk_client]
        $c write "SET p 1\r\n*2\r\n\$4\r\nINCR\r\n\$1\r\np\r\nINCR p\r\n*2\r\n\$3\r\nGET\r\n\$1\r\np\r\n"
        set reply [list [$c read] [$c read] [$c read] [$c read]]
        $c close
        set reply
    } {OK 2 3 3}

    test "A command split over several writes" {
        set c [vk_client]
        $c write "*3\r\n\$3\r\nSET\r\n\$5\r\nsp"
        $c flush
        after 100
        $c write "lit\r\n\$3\r\nv"
        $c flush
        after 100
        $c write "al\r\n"
        set reply [$c read]
        $c close
        list $reply [r get split]
    } {OK val}

    test "A command sent one byte at a time" {
        set c [vk_client]
        foreach ch [split "*2\r\n\$4\r\nECHO\r\n\$5\r\nbytes\r\n" ""] {
            $c write $ch
            $c flush
        }
        set reply [$c read]
        $c close
        set reply
    } bytes

    test "Protocol error: invalid multibulk length" {
        assert_equal {{ERR Protocol error: invalid multibulk length} 1} [raw_exchange "*2147483648\r\n"]
        assert_equal {{ERR Protocol error: invalid multibulk length} 1} [raw_exchange "*3000000000\r\n"]
        assert_equal {{ERR Protocol error: invalid multibulk length} 1} [raw_exchange "*abc\r\n"]
    }

    test "Protocol error: invalid bulk length" {
        # One more than the default proto-max-bulk-len (512mb).
        assert_equal {{ERR Protocol error: invalid bulk length} 1} [raw_exchange "*1\r\n\$536870913\r\n"]
        assert_equal {{ERR Protocol error: invalid bulk length} 1} [raw_exchange "*1\r\n\$2147483648\r\n"]
        assert_equal {{ERR Protocol error: invalid bulk length} 1} [raw_exchange "*1\r\n\$-1\r\n"]
        assert_equal {{ERR Protocol error: invalid bulk length} 1} [raw_exchange "*1\r\n\$x\r\n"]
    }

    test "Protocol error: expected '\$', got something else" {
        raw_exchange "*1\r\nx\r\n"
    } {{ERR Protocol error: expected '$', got 'x'} 1}

    test "Protocol error: unbalanced quotes in an inline request" {
        assert_equal {{ERR Protocol error: unbalanced quotes in request} 1} [raw_exchange "SET \"foo bar\r\n"]
        assert_equal {{ERR Protocol error: unbalanced quotes in request} 1} [raw_exchange "SET 'foo\r\n"]
    }

    test "Protocol error: more than 64k without a newline" {
        assert_equal {{ERR Protocol error: too big inline request} 1} [raw_exchange [string repeat a 70000]]
        assert_equal {{ERR Protocol error: too big mbulk count string} 1} [raw_exchange "*[string repeat 1 70000]"]
        assert_equal {{ERR Protocol error: too big bulk count string} 1} [raw_exchange "*1\r\n\$[string repeat 1 70000]"]
    }

    test "Commands before a protocol error in the same write are answered" {
        set c [vk_client]
        $c write "PING\r\n*1\r\nx\r\n"
        set reply [$c read]
        catch {$c read} err
        set closed [catch {$c read}]
        $c close
        list $reply $err $closed
    } {PONG {ERR Protocol error: expected '$', got 'x'} 1}

    test "A protocol error does not disturb other clients" {
        set other [vk_client]
        $other select 3
        $other set mine 1
        # A half-sent command on a third client must survive too.
        set half [vk_client]
        $half write "*2\r\n\$4\r\nECHO\r\n\$4\r\nha"
        $half flush
        raw_exchange "*1\r\nx\r\n"
        raw_exchange "*2147483648\r\n"
        $half write "lf\r\n"
        set reply [list [$other get mine] [$other ping] [$half read]]
        $other close
        $half close
        set reply
    } {1 PONG half}

    # Found by fuzz/fuzz_request.c: the count of a multibulk request used to
    # size argv in full before any argument arrived, so 13 bytes made the
    # server allocate 16 GB (and evict the dataset under maxmemory).
    test "A huge multibulk count reserves no memory before its arguments" {
        proc used_memory {} { regexp {used_memory:(\d+)} [r info memory] -> m; return $m }
        set clients {}
        foreach n {2147483647 200000000 50000000} {
            set c [vk_client]
            $c ping
            lappend clients $c
        }
        # Measured once the connections exist: only the requests count.
        set before [used_memory]
        foreach c $clients n {2147483647 200000000 50000000} {
            $c write "*$n\r\n\$4\r\nPING\r\n"
            $c flush
        }
        # Each request's first argument has been parsed (argv-mem=4).
        wait_for_condition 100 10 {[regexp -all {argv-mem=4 } [r client list]] == 3} {
            fail "the requests were not parsed: [r client list]"
        }
        set grown [expr {[used_memory] - $before}]
        foreach c $clients { $c close }
        assert_range $grown -1000000 1000000
    }

    test "A multibulk request with more arguments than are reserved up front" {
        # 3000 arguments: past the 1024 slots a count reserves, argv grows
        # as they arrive.
        set req "*3001\r\n\$5\r\nRPUSH\r\n\$8\r\nbigargvl\r\n"
        for {set i 0} {$i < 2999} {incr i} { append req "\$[string length $i]\r\n$i\r\n" }
        set c [vk_client]
        $c write $req
        set reply [$c read]
        $c close
        list $reply [r llen bigargvl] [r lindex bigargvl 2998]
    } {2999 2999 2998}

    test "Unknown command error text" {
        assert_error "ERR unknown command 'foo', with args beginning with: 'a' 'b' " {r foo a b}
        assert_error "ERR unknown command 'foo', with args beginning with: " {r foo}
    }

    test "Unknown command error text over an inline request" {
        set c [vk_client]
        $c write "nosuchcmd x\r\n"
        catch {$c read} err
        $c close
        set err
    } "ERR unknown command 'nosuchcmd', with args beginning with: 'x' "

    test "Wrong number of arguments" {
        assert_error "ERR wrong number of arguments for 'get' command" {r get}
        assert_error "ERR wrong number of arguments for 'get' command" {r get a b}
        assert_error "ERR wrong number of arguments for 'set' command" {r set a}
    }

    test "Wrong arity keeps the connection usable" {
        catch {r get}
        r ping
    } PONG

    test "Large argument: 20 MB value round-trips" {
        set chunk [string repeat "0123456789abcdef" 4096]
        set value ""
        for {set i 0} {$i < 320} {incr i} { append value $chunk }
        set value "HEAD$value\TAIL"
        set len [string length $value]
        assert_equal OK [r set big $value]
        assert_equal $len [r strlen big]
        assert_equal HEAD0123 [r getrange big 0 7]
        assert_equal cdefTAIL [r getrange big -8 -1]
        set got [r get big]
        assert_equal $len [string length $got]
        assert {$got eq $value} "the value read back differs from the value written"
        r del big
    }

    test "A client vanishing in the middle of a big reply" {
        r set bigv [string repeat x 10000000]
        r mset m1 a m2 b
        for {set i 0} {$i < 5} {incr i} {
            set c [vk_deferring_client]
            $c get bigv
            $c mget bigv bigv m1 m2
            $c close
        }
        set c [vk_client]
        set reply [list [$c ping] [$c strlen bigv] [$c mget m1 m2]]
        $c close
        r del bigv
        set reply
    } {PONG 10000000 {a b}}

    test "Deferring client: send now, read later" {
        set rd [vk_deferring_client]
        $rd set deferred 1
        $rd incr deferred
        set reply [list [$rd read] [$rd read]]
        $rd close
        set reply
    } {OK 2}

    test "readraw shows reply lines as sent" {
        set c [vk_client]
        $c readraw 1
        set lines [list [$c set raw v] [$c get raw] [$c read]]
        $c close
        set lines
    } {+OK {$1} v}

    test "RESP2 types in raw form" {
        needs_commands lrange
        set c [vk_client]
        $c readraw 1
        set lines [list [$c get nosuch] [$c incr rawint] [$c lrange nosuch 0 -1]]
        lappend lines [$c foo]
        $c close
        set lines
    } {{$-1} :1 *0 {-ERR unknown command 'foo', with args beginning with: }}

    test "HELLO 3 replies with a map and switches the connection to RESP3" {
        set c [vk_client]
        set hello [$c hello 3]
        assert_equal 3 [dict get $hello proto]
        assert {[dict get $hello server] in {redis valkey}} "unexpected server name"
        foreach field {server version proto id mode role modules} {
            assert {[dict exists $hello $field]} "HELLO has no '$field' field"
        }
        $c readraw 1
        set lines [list [$c hello 3]]
        $c close
        set lines
    } {%7}

    test "RESP3 null, double, map and set replies" {
        needs_commands hset sadd zadd
        set c [vk_client]
        $c hello 3
        $c del h s z
        $c hset h f v
        $c sadd s m
        $c zadd z 1.5 m
        # Decoded form.
        assert_equal {} [$c get nosuch]
        assert_equal 1.5 [$c zscore z m]
        assert_equal {f v} [$c hgetall h]
        assert_equal {m} [$c smembers s]
        # Raw form: the type bytes a RESP3 client sees.
        $c readraw 1
        set lines [list [$c get nosuch] [$c zscore z m]]
        lappend lines [$c hgetall h] [$c read] [$c read] [$c read] [$c read]
        lappend lines [$c smembers s] [$c read] [$c read]
        $c close
        set lines
    } {_ ,1.5 %1 {$1} f {$1} v ~1 {$1} m}

    test "HELLO 2 goes back to RESP2" {
        set c [vk_client]
        $c hello 3
        set hello [$c hello 2]
        $c readraw 1
        set lines [list [$c get nosuch]]
        $c close
        lappend lines [dict get $hello proto]
    } {{$-1} 2}

    test "HELLO with an unsupported protocol version" {
        assert_error "NOPROTO unsupported protocol version" {r hello 4}
        assert_error "NOPROTO unsupported protocol version" {r hello 1}
        assert_error "ERR Protocol version is not an integer or out of range" {r hello x}
        r ping
    } PONG
}

start_server {tags {"protocol needs:debug"} overrides {enable-debug-command yes}} {
    test "DEBUG PROTOCOL: every RESP3 type decodes" {
        needs_debug
        set c [vk_client]
        $c hello 3
        set got {}
        foreach type {string integer double bignum null array set map true false verbatim attrib} {
            lappend got $type [$c debug protocol $type]
        }
        $c close
        set got
    } {string {Hello World} integer 12345 double 3.141 bignum 1234567999999999999999999999999999999 null {} array {0 1 2} set {0 1 2} map {0 0 1 1 2 0} true 1 false 0 verbatim {This is a verbatim
string} attrib {Some real reply following the attribute}}

    test "DEBUG PROTOCOL attrib: the attribute is kept aside" {
        needs_debug
        set c [vk_client]
        $c hello 3
        $c debug protocol attrib
        set attrs [$c attributes]
        $c close
        set attrs
    } {key-popularity {key:123 90}}
}

start_server {tags {"protocol"} overrides {client-query-buffer-limit 1mb}} {
    test "Query buffer limit: a client sending a too big request is closed" {
        set c [vk_client]
        $c timeout 10
        # Declare a 3 MB argument but send only 2 MB of it: the pending
        # request alone is over the limit.
        $c write "*3\r\n\$3\r\nSET\r\n\$3\r\nqbl\r\n\$3000000\r\n"
        # The server may close the socket while we are still writing.
        catch {
            $c write [string repeat x 2000000]
            $c flush
        }
        set closed [catch {$c read} err]
        catch {$c close}
        assert_equal 1 $closed
        assert_match "*connection closed*" $err
        list [r exists qbl] [r ping]
    } {0 PONG}

    test "Query buffer limit: a request under the limit works" {
        r set qbl [string repeat x 500000]
        r strlen qbl
    } 500000
}

# Over a keyspace of 65536 keys or more, the first argument of every
# complete request waiting in the query buffer is looked up ahead (a cache
# prefetch): the replies must be exactly those of the requests run one by
# one, whatever the pipeline holds.
start_server {tags {"protocol"} overrides {enable-debug-command yes}} {
    test "Pipelines over a big keyspace: mixed, partial and odd requests" {
        r debug populate 70000
        set c [vk_client]
        set long [string repeat k 300]
        set pipeline "*2\r\n\$3\r\nGET\r\n\$5\r\nkey:7\r\n"
        append pipeline "*3\r\n\$3\r\nSET\r\n\$5\r\nkey:8\r\n\$3\r\nnew\r\n"
        append pipeline "*2\r\n\$4\r\nINCR\r\n\$7\r\ncounter\r\n"
        append pipeline "*1\r\n\$4\r\nPING\r\n"
        append pipeline "*3\r\n\$3\r\nSET\r\n\$300\r\n$long\r\n\$1\r\nv\r\n"
        append pipeline "*2\r\n\$6\r\nSELECT\r\n\$1\r\n9\r\n"
        append pipeline "*2\r\n\$3\r\nGET\r\n\$5\r\nkey:7\r\n"
        append pipeline "*2\r\n\$6\r\nSELECT\r\n\$1\r\n0\r\n"
        append pipeline "*5\r\n\$4\r\nMSET\r\n\$5\r\nkey:9\r\n\$1\r\na\r\n\$6\r\nkey:10\r\n\$1\r\nb\r\n"
        append pipeline "*2\r\n\$3\r\nGET\r\n\$5\r\nkey:8\r\n"
        # The last request arrives in two parts.
        append pipeline "*2\r\n\$3\r\nGET\r\n\$5\r\nke"
        $c write $pipeline
        $c flush
        after 50
        $c write "y:9\r\n"
        $c flush
        set replies {}
        for {set j 0} {$j < 11} {incr j} {lappend replies [$c read]}
        $c close
        list $replies [r get $long] [r get key:10] [r dbsize]
    } {{value:7 OK 1 PONG OK OK {} OK OK new a} v b 70002}

    test "Pipelines over a big keyspace: more keys than one look-ahead batch" {
        set c [vk_client]
        set pipeline ""
        for {set j 0} {$j < 30} {incr j} {
            append pipeline "*11\r\n\$4\r\nMSET\r\n"
            for {set k 0} {$k < 5} {incr k} {
                set key "key:[expr {$j * 5 + $k}]"
                set val "$k$j"
                append pipeline "\$[string length $key]\r\n$key\r\n\$[string length $val]\r\n$val\r\n"
            }
        }
        $c write $pipeline
        $c flush
        set replies {}
        for {set j 0} {$j < 30} {incr j} {lappend replies [$c read]}
        $c close
        list [lsort -unique $replies] [r get key:0] [r get key:149] [r get key:150] [r dbsize]
    } {OK 00 429 value:150 70002}

    test "Pipelines over a big keyspace: a protocol error after complete requests" {
        set c [vk_client]
        $c write "*2\r\n\$3\r\nGET\r\n\$8\r\nkey:1000\r\n*2\r\n\$3\r\nGET\r\n\$8\r\nkey:2000\r\n*x\r\n"
        $c flush
        set replies [list [$c read] [$c read]]
        catch {$c read} err
        $c close
        assert_match "*Protocol error: invalid multibulk length*" $err
        set replies
    } {value:1000 value:2000}
}

start_server [list tags {"protocol external:skip rdma:skip:unix"} overrides [list unixsocket [tmp_path server.sock] unixsocketperm 700]] {
    test "Commands over a unix socket" {
        set c [::vk::client_open [tmp_path server.sock] 0]
        set reply [list [$c set unix yes] [$c get unix]]
        $c write "PING\r\n"
        lappend reply [$c read]
        $c close
        lappend reply [r get unix]
    } {OK yes PONG yes}
}
