# The CLIENT command and the other per-connection commands (RESET, ECHO,
# PING, QUIT, SELECT): what a session can learn and change about itself and
# about the other connections, and how CLIENT PAUSE holds traffic.

# The value of field `name` in one CLIENT LIST / CLIENT INFO line.
proc client_field {line name} {
    foreach pair [split [string trim $line] " "] {
        set eq [string first = $pair]
        if {[string range $pair 0 [expr {$eq - 1}]] eq $name} {
            return [string range $pair [expr {$eq + 1}] end]
        }
    }
    error "no field '$name' in: $line"
}

# The field names of one CLIENT LIST line, in order.
proc client_field_names {line} {
    set names {}
    foreach pair [split [string trim $line] " "] {
        lappend names [lindex [split $pair =] 0]
    }
    return $names
}

# The CLIENT LIST line of the connection with this id ("" if none).
proc client_line_by_id {id} {
    foreach line [split [string trim [r client list]] \n] {
        if {[client_field $line id] == $id} { return $line }
    }
    return ""
}

# True once the server closed c's connection (reads EOF or an error).
proc client_is_closed {c} {
    catch {$c ping} reply
    return [string match "*connection closed*" $reply]
}

start_server {tags {"client"}} {
    test "CLIENT ID is a positive integer, growing with each connection" {
        set id1 [r client id]
        set c [vk_client]
        set id2 [$c client id]
        $c close
        assert {$id1 > 0}
        assert {$id2 > $id1}
        assert_equal $id1 [r client id]
    }

    tags {shm:skip:tcp-addr} {
        test "CLIENT INFO describes the calling connection" {
            set id [r client id]
            set info [r client info]
            assert_equal 1 [llength [split [string trim $info] \n]]
            assert_equal $id [client_field $info id]
            assert_match "[::vk::transport_client_addr]:*" [client_field $info addr]
            assert_equal "[::vk::transport_server_addr]:[srv port]" [client_field $info laddr]
            assert_equal "" [client_field $info name]
            assert_equal N [client_field $info flags]
            assert_equal 0 [client_field $info db]
            assert_equal -1 [client_field $info multi]
            assert_equal client|info [client_field $info cmd]
            assert_equal default [client_field $info user]
            assert_equal 2 [client_field $info resp]
            assert_equal r [client_field $info events]
        }
    }

    test "CLIENT LIST has one line per connection with every field" {
        set c [vk_client]
        $c ping
        set lines [split [string trim [r client list]] \n]
        assert_equal 2 [llength $lines]
        foreach line $lines {
            foreach field {id addr laddr fd name age idle flags db sub psub ssub multi qbuf qbuf-free
                           argv-mem multi-mem rbs rbp obl oll omem tot-mem events cmd user redir resp} {
                client_field $line $field
            }
        }
        set other [client_line_by_id [$c client id]]
        assert_equal client|id [client_field $other cmd]
        $c close
    }

    tags {valkey-only shm:skip:list-field} {
        test "CLIENT LIST fields are those of Valkey 8, in order" {
            set expected [join {id addr laddr fd name age idle flags db sub psub ssub multi watch qbuf qbuf-free
                          argv-mem multi-mem rbs rbp obl oll omem tot-mem events cmd user redir resp lib-name
                          lib-ver tot-net-in tot-net-out tot-cmds}]
            assert_equal $expected [client_field_names [r client info]]
        }
    }

    tags {valkey-only} {
        test "CLIENT LIST tot-cmds counts the commands a connection ran" {
            set c [vk_client]
            set before [client_field [$c client info] tot-cmds]
            $c set x 1
            $c get x
            catch {$c nosuchcommand}
            set after [client_field [$c client info] tot-cmds]
            # CLIENT INFO, SET and GET; a rejected command does not count.
            assert_equal [expr {$before + 3}] $after
            $c close
        }
    }

    tags {valkey-only} {
        test "CLIENT LIST tot-net-in and tot-net-out count the connection's bytes" {
            set c [vk_client]
            set info [$c client info]
            set in1 [client_field $info tot-net-in]
            set out1 [client_field $info tot-net-out]
            $c set k [string repeat a 1000]
            $c get k
            set info [$c client info]
            assert {[client_field $info tot-net-in] >= $in1 + 1000}
            assert {[client_field $info tot-net-out] >= $out1 + 1000}
            $c close
        }
    }

    test "CLIENT LIST rbp is the peak use of the reply buffer" {
        set c [vk_client]
        $c set k [string repeat b 5000]
        $c get k
        set info [$c client info]
        set rbs [client_field $info rbs]
        set rbp [client_field $info rbp]
        assert {$rbp >= 5000}
        assert {$rbp <= $rbs}
        $c close
    }

    test "CLIENT LIST TYPE" {
        r client kill type normal skipme yes
        set c [vk_client]
        $c ping ;# accepted by the server before we list the clients
        set lines [split [string trim [r client list type normal]] \n]
        assert_equal 2 [llength $lines]
        assert_equal "" [r client list type pubsub]
        assert_equal "" [r client list type replica]
        assert_equal "" [r client list type master]
        assert_equal 2 [llength [split [string trim [r client list type NORMAL]] \n]]
        assert_error "ERR Unknown client type 'foo'" {r client list type foo}
        $c close
    }

    test "CLIENT LIST ID selects connections by id" {
        set c [vk_client]
        set me [r client id]
        set other [$c client id]
        set lines [split [string trim [r client list id $other]] \n]
        assert_equal 1 [llength $lines]
        assert_equal $other [client_field [lindex $lines 0] id]
        set lines [split [string trim [r client list id $me $other 999999]] \n]
        assert_equal 2 [llength $lines]
        assert_equal "" [r client list id 999999]
        assert_error "ERR Invalid client ID" {r client list id abc}
        $c close
    }

    test "CLIENT LIST with a bad option is a syntax error" {
        assert_error "ERR syntax error" {r client list foo}
        assert_error "ERR syntax error" {r client list type}
    }

    test "CLIENT SETNAME and GETNAME" {
        assert_equal "" [r client getname]
        assert_equal OK [r client setname myname]
        assert_equal myname [r client getname]
        assert_equal myname [client_field [r client info] name]
        assert_equal OK [r client setname ""]
        assert_equal "" [r client getname]
        assert_equal "" [client_field [r client info] name]
    }

    test "CLIENT SETNAME refuses names with spaces, newlines or special characters" {
        foreach bad [list "a b" "a\nb" "a\x01b" "\x7f"] {
            assert_error "ERR Client names cannot contain spaces, newlines or special characters." \
                {r client setname $bad}
        }
        r client setname kept
        catch {r client setname "bad name"}
        assert_equal kept [r client getname]
        r client setname ""
    }

    test "CLIENT SETNAME and GETNAME arity" {
        assert_error "ERR wrong number of arguments for 'client|setname' command" {r client setname}
        assert_error "ERR wrong number of arguments for 'client|getname' command" {r client getname x}
    }

    tags {valkey-only} {
        test "CLIENT SETINFO lib-name and lib-ver show in CLIENT LIST" {
            assert_equal OK [r client setinfo lib-name mylib]
            assert_equal OK [r client setinfo lib-ver 1.2.3]
            set info [r client info]
            assert_equal mylib [client_field $info lib-name]
            assert_equal 1.2.3 [client_field $info lib-ver]
            assert_equal OK [r client setinfo LIB-NAME ""]
            assert_equal "" [client_field [r client info] lib-name]
            assert_error "ERR Unrecognized option 'foo'" {r client setinfo foo bar}
            assert_error "ERR lib-name cannot contain spaces, newlines or special characters." \
                {r client setinfo lib-name "a b"}
            r client setinfo lib-ver ""
        }
    }

    tags {shm:skip:tcp-addr} {
        test "CLIENT KILL addr:port (old form) closes that connection and replies OK" {
            set c [vk_client]
            set addr [client_field [$c client info] addr]
            assert_equal OK [r client kill $addr]
            assert {[client_is_closed $c]}
            assert_error "ERR No such client" {r client kill $addr}
            assert_error "ERR No such client" {r client kill 1.2.3.4:5}
        }
    }

    test "CLIENT KILL ID replies the number of connections closed" {
        set c [vk_client]
        set id [$c client id]
        assert_equal 1 [r client kill id $id]
        assert {[client_is_closed $c]}
        assert_equal 0 [r client kill id $id]
    }

    tags {shm:skip:tcp-addr} {
        test "CLIENT KILL ADDR and LADDR" {
            r client kill type normal skipme yes
            set c1 [vk_client]
            set c2 [vk_client]
            assert_equal 1 [r client kill addr [client_field [$c1 client info] addr]]
            assert {[client_is_closed $c1]}
            assert_equal 0 [r client kill addr 1.2.3.4:5]
            assert_equal 0 [r client kill laddr 1.2.3.4:5]
            # Every connection came to the same local address; SKIPME spares us.
            assert_equal 1 [r client kill laddr [::vk::transport_server_addr]:[srv port]]
            assert {[client_is_closed $c2]}
            assert_equal [r client id] [client_field [r client list] id]
        }
    }

    test "CLIENT KILL TYPE with SKIPME yes spares the caller" {
        set c1 [vk_client]
        set c2 [vk_client]
        $c1 ping
        $c2 ping
        assert_equal 2 [r client kill type normal skipme yes]
        assert {[client_is_closed $c1]}
        assert {[client_is_closed $c2]}
        assert_equal PONG [r ping]
        assert_equal 0 [r client kill type pubsub]
        assert_equal 0 [r client kill type master]
        assert_equal 0 [r client kill type replica]
        assert_equal 0 [r client kill type slave]
    }

    tags {shm:skip:tcp-addr} {
        test "CLIENT KILL of the calling connection replies, then closes it" {
            set c [vk_client]
            set id [$c client id]
            # SKIPME defaults to yes in the new form.
            assert_equal 0 [$c client kill id $id]
            assert_equal 1 [$c client kill id $id skipme no]
            assert {[client_is_closed $c]}
            set c [vk_client]
            assert_equal OK [$c client kill [client_field [$c client info] addr]]
            assert {[client_is_closed $c]}
            assert_equal "" [client_line_by_id $id]
        }
    }

    test "CLIENT KILL errors" {
        assert_error "ERR client-id should be greater than 0" {r client kill id abc}
        assert_error "ERR client-id should be greater than 0" {r client kill id 0}
        assert_error "ERR client-id should be greater than 0" {r client kill id -5}
        assert_error "ERR Unknown client type 'foo'" {r client kill type foo}
        assert_error "ERR syntax error" {r client kill foo bar}
        assert_error "ERR syntax error" {r client kill id 1 skipme maybe}
        assert_error "ERR syntax error" {r client kill id 1 skipme}
        assert_error "ERR wrong number of arguments for 'client|kill' command" {r client kill}
    }

    tags {valkey-only} {
        test "CLIENT KILL errors: MAXAGE values, and filters checked in order" {
            assert_error "ERR maxage is not an integer or out of range" {r client kill maxage abc}
            assert_error "ERR maxage should be greater than 0" {r client kill maxage 0}
            assert_error "ERR maxage should be greater than 0" {r client kill maxage -1}
            # A bad filter value is reported before a filter missing its value.
            assert_error "ERR client-id should be greater than 0" {r client kill id 0 type}
            assert_error "ERR Unknown client type 'x'" {r client kill type x maxage}
            assert_error "ERR syntax error" {r client kill id 1 maxage}
            assert_equal PONG [r ping]
        }

        test "CLIENT KILL MAXAGE closes connections older than the age" {
            set c [vk_client]
            $c ping
            assert_equal 0 [r client kill maxage 100]
            after 2100
            assert_equal 1 [r client kill maxage 1]
            assert {[client_is_closed $c]}
            assert_equal PONG [r ping]
        }
    }

    test "CLIENT PAUSE WRITE lets reads through and holds writes until UNPAUSE" {
        r set k v
        set reader [vk_deferring_client]
        set writer [vk_deferring_client]
        assert_equal OK [r client pause 100000 write]
        $reader get k
        assert_equal v [$reader read]
        $reader ping
        assert_equal PONG [$reader read]
        $writer set k v2
        wait_for_condition 50 20 {[string match "*flags=b*cmd=set*" [r client list]]} {
            fail "the write was not held"
        }
        assert_equal v [r get k]
        assert_equal OK [r client unpause]
        assert_equal OK [$writer read]
        assert_equal v2 [r get k]
    }

    # As in Valkey: PAUSE WRITE holds whatever may write or be propagated
    # (PUBLISH, PFCOUNT, scripts that may write), and runs scripts and
    # functions that declare no-writes.
    tags {valkey-only} {
        test "CLIENT PAUSE WRITE runs no-writes scripts, holds PUBLISH, PFCOUNT and scripts that may write" {
            r function load replace {#!lua name=pauselib
                server.register_function{function_name='ro', callback=function() return 'ro' end, flags={'no-writes'}}
                server.register_function('rw', function() return 'rw' end)}
            r script flush
            set ro_sha [r script load "#!lua flags=no-writes\nreturn 'cached'"]
            r client pause 100000 write
            # These run at once.
            set c [vk_deferring_client]
            foreach {cmd reply} [list \
                    {eval_ro {return 1} 0} 1 \
                    [list eval "#!lua flags=no-writes\nreturn 2" 0] 2 \
                    [list evalsha $ro_sha 0] cached \
                    {fcall ro 0} ro \
                    {fcall_ro ro 0} ro \
                    {get pause:nokey} {}] {
                $c {*}$cmd
                assert_equal $reply [$c read]
            }
            $c close
            # These wait for the pause to end, each on its own connection.
            set held {}
            foreach cmd [list {eval {return 3} 0} [list eval "#!lua\nreturn 4" 0] {fcall rw 0} \
                             {publish ch m} {spublish ch m} {pfcount hll} {set pause:k v}] {
                set h [vk_deferring_client]
                $h {*}$cmd
                lappend held $h
                set name [string tolower [lindex $cmd 0]]
                wait_for_condition 50 20 {[regexp -all "flags=b\[^\n\]*cmd=$name" [r client list]] >= 1} {
                    fail "$cmd was not held"
                }
            }
            assert_equal 7 [regexp -all {flags=b} [r client list]]
            r client unpause
            foreach h $held reply {3 4 rw 0 0 0 OK} {
                assert_equal $reply [$h read]
                $h close
            }
            r function flush
            r script flush
        }
    }

    tags {valkey-only} {
        test "CLIENT PAUSE: a later WRITE pause keeps an ALL pause in effect, until the later end" {
            r set k v2
            r multi
            r client pause 100 all
            r client pause 600 write
            r exec
            set start [clock milliseconds]
            set c [vk_deferring_client]
            $c get k
            assert_equal v2 [$c read]
            # Held by ALL until the second pause's end, not 100 ms.
            assert {[clock milliseconds] - $start >= 400}
            $c close
        }
    }

    test "CLIENT PAUSE WRITE: held writes run in arrival order once the pause ends" {
        r del k
        set clients {}
        # Ended by UNPAUSE, not a timeout: setting up four clients may take
        # longer than any short pause on a slow transport (the RDMA VM).
        r client pause 100000 write
        foreach piece {a b c d} {
            set c [vk_deferring_client]
            $c append k $piece
            lappend clients $c
            # Each append must arrive before the next one is sent.
            wait_for_condition 50 10 {[regexp -all {cmd=append} [r client list]] == [llength $clients]} {
                fail "append was not held"
            }
        }
        assert_equal {} [r get k]
        r client unpause
        foreach c $clients { $c read }
        assert_equal abcd [r get k]
    }

    test "CLIENT PAUSE WRITE: a write from the pausing client waits too" {
        r del k
        set rd [vk_deferring_client]
        $rd client pause 300 write
        $rd read
        set start [clock milliseconds]
        $rd incr k
        assert_equal 1 [$rd read]
        assert {[clock milliseconds] - $start >= 200}
    }

    test "CLIENT PAUSE WRITE: expired keys are kept while writes are paused" {
        r flushall
        r set k v px 100
        r client pause 100000 write
        after 300
        # The key reads as gone but is not deleted: that would be a write.
        assert_equal "" [r get k]
        assert_equal 0 [r exists k]
        assert_equal -2 [r ttl k]
        assert_equal 1 [r dbsize]
        after 200
        assert_equal 1 [r dbsize]
        r client unpause
        wait_for_condition 50 20 {[r dbsize] == 0} {
            fail "the expired key was not deleted after the pause"
        }
    }

    # PAUSE ALL holds every client, the one that paused included (even its
    # CLIENT UNPAUSE), so these pauses are short and only timed.
    test "CLIENT PAUSE ALL holds reads until the timeout" {
        r set k v
        set rd [vk_deferring_client]
        set start [clock milliseconds]
        r client pause 600 all
        $rd get k
        assert_equal v [$rd read]
        assert {[clock milliseconds] - $start >= 500}
    }

    test "CLIENT PAUSE ALL holds the pausing client too" {
        set rd [vk_deferring_client]
        set start [clock milliseconds]
        $rd client pause 400 all
        $rd ping
        assert_equal OK [$rd read]
        assert_equal PONG [$rd read]
        assert {[clock milliseconds] - $start >= 300}
    }

    test "CLIENT PAUSE WRITE after ALL: reads wait until the ALL pause ends" {
        set rd [vk_deferring_client]
        set start [clock milliseconds]
        # One write, so that the second PAUSE is read while ALL is on.
        $rd write "CLIENT PAUSE 500 ALL\r\nCLIENT PAUSE 100 WRITE\r\nGET k\r\n"
        $rd flush
        assert_equal OK [$rd read]
        assert_equal OK [$rd read]
        assert_equal v [$rd read]
        assert {[clock milliseconds] - $start >= 400}
    }

    test "CLIENT PAUSE errors" {
        assert_error "ERR timeout is not an integer or out of range" {r client pause abc}
        assert_error "ERR timeout is negative" {r client pause -1}
        assert_error "ERR CLIENT PAUSE mode must be WRITE or ALL" {r client pause 10 foo}
        assert_error "ERR wrong number of arguments for 'client|pause' command" {r client pause}
        assert_equal OK [r client unpause]
    }

    test "CLIENT REPLY OFF and ON" {
        set rd [vk_deferring_client]
        $rd client reply off
        $rd set k off
        $rd ping
        $rd client reply on
        assert_equal OK [$rd read]
        $rd get k
        assert_equal off [$rd read]
    }

    test "CLIENT REPLY SKIP drops the reply of the next command only" {
        set rd [vk_deferring_client]
        $rd client reply skip
        $rd set k skipped
        $rd get k
        assert_equal skipped [$rd read]
        $rd ping
        assert_equal PONG [$rd read]
    }

    test "CLIENT REPLY with a bad mode" {
        assert_error "ERR syntax error" {r client reply maybe}
    }

    test "CLIENT NO-EVICT on and off" {
        assert_equal OK [r client no-evict on]
        assert_match "*e*" [client_field [r client info] flags]
        assert_equal OK [r client no-evict off]
        assert_equal N [client_field [r client info] flags]
        assert_error "ERR syntax error" {r client no-evict maybe}
    }

    tags {valkey-only} {
        test "CLIENT NO-TOUCH keeps OBJECT IDLETIME growing" {
            r set k v
            after 2100
            assert_equal OK [r client no-touch on]
            assert_match "*T*" [client_field [r client info] flags]
            r get k
            assert {[r object idletime k] >= 2}
            # TOUCH is explicit, so it still touches.
            r touch k
            assert {[r object idletime k] < 2}
            assert_equal OK [r client no-touch off]
            after 1100
            r get k
            assert {[r object idletime k] < 2} ;# whole seconds: a tick may fall between
            assert_error "ERR syntax error" {r client no-touch maybe}
        }
    }

    test "CLIENT HELP" {
        set help [r client help]
        assert_match "CLIENT <subcommand> *" [lindex $help 0]
        assert_match "*PAUSE <timeout> \\\[WRITE|ALL\\\]*" $help
        assert_match "*KILL <ip:port>*" $help
        assert_equal "    Prints this help." [lindex $help end]
    }

    test "CLIENT with an unknown subcommand" {
        assert_error "ERR unknown subcommand 'foo'. Try CLIENT HELP." {r client foo}
        assert_error "ERR wrong number of arguments for 'client' command" {r client}
    }
}

start_server {tags {"client"}} {
    test "RESET puts the connection back to its initial state" {
        r select 5
        r client setname someone
        r hello 3
        assert_equal RESET [r reset]
        set info [r client info]
        assert_equal 0 [client_field $info db]
        assert_equal "" [client_field $info name]
        assert_equal 2 [client_field $info resp]
        assert_equal N [client_field $info flags]
        assert_equal client|info [client_field $info cmd]
    }

    tags {valkey-only} {
        test "RESET clears CLIENT NO-EVICT and NO-TOUCH, keeps SETINFO" {
            r client no-evict on
            r client no-touch on
            r client setinfo lib-name mylib
            assert_equal RESET [r reset]
            set info [r client info]
            assert_equal N [client_field $info flags]
            assert_equal mylib [client_field $info lib-name]
        }
    }

    test "RESET turns CLIENT REPLY back on" {
        set rd [vk_deferring_client]
        $rd client reply off
        $rd reset
        assert_equal RESET [$rd read]
        $rd ping
        assert_equal PONG [$rd read]
    }

    test "RESET takes the connection out of MONITOR" {
        set rd [vk_deferring_client]
        $rd monitor
        assert_equal OK [$rd read]
        $rd reset
        assert_equal RESET [$rd read]
        r set x 1
        $rd ping
        assert_equal PONG [$rd read]
    }

    test "MONITOR does not show admin CLIENT subcommands" {
        set m [vk_deferring_client]
        $m monitor
        assert_equal OK [$m read]
        r client list
        r client kill id 999999
        r client no-evict off
        r client id
        r set marker 1
        assert_match {*"client" "id"} [$m read]
        assert_match {*"set" "marker" "1"} [$m read]
    }

    test "MONITOR shows a blocking command once, when it is sent" {
        needs_commands blpop
        r del q
        set m [vk_deferring_client]
        $m monitor
        assert_equal OK [$m read]
        set b [vk_deferring_client]
        $b blpop q 0
        assert_match {*"blpop" "q" "0"} [$m read]
        r rpush q x
        assert_equal {q x} [$b read]
        r set marker 2
        assert_match {*"rpush" "q" "x"} [$m read]
        assert_match {*"set" "marker" "2"} [$m read]
    }

    test "RESET arity" {
        assert_error "ERR wrong number of arguments for 'reset' command" {r reset x}
    }

    test "ECHO returns its argument, binary safe" {
        assert_equal "hello world" [r echo "hello world"]
        assert_equal "" [r echo ""]
        set bin "a\x00b\r\nc"
        assert_equal $bin [r echo $bin]
        assert_error "ERR wrong number of arguments for 'echo' command" {r echo}
        assert_error "ERR wrong number of arguments for 'echo' command" {r echo a b}
    }

    test "PING with and without an argument" {
        assert_equal PONG [r ping]
        assert_equal "hello world" [r ping "hello world"]
        assert_error "ERR wrong number of arguments for 'ping' command" {r ping a b}
        set c [vk_client]
        $c readraw 1
        assert_equal "+PONG" [$c ping]
        assert_equal {$2} [$c ping hi]
        assert_equal hi [$c read]
        $c close
    }

    test "QUIT replies OK and closes the connection after the reply" {
        set c [vk_client]
        $c readraw 1
        $c write "QUIT\r\nSET quit-after 1\r\n"
        $c flush
        assert_equal "+OK" [$c read]
        assert_error "*connection closed*" {$c read}
        $c close
        assert_equal 0 [r exists quit-after]
    }

    test "SELECT is per connection" {
        r flushall
        r select 9
        r set k nine
        set c [vk_client]
        assert_equal "" [$c get k]
        $c select 9
        assert_equal nine [$c get k]
        assert_equal 9 [client_field [$c client info] db]
        $c close
        r select 0
        assert_equal "" [r get k]
    }

    test "SELECT errors" {
        assert_error "ERR DB index is out of range" {r select 16}
        assert_error "ERR DB index is out of range" {r select -1}
        assert_error "ERR value is not an integer or out of range" {r select abc}
    }
}
