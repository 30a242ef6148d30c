# Pub/Sub: SUBSCRIBE / PSUBSCRIBE / SSUBSCRIBE and their UN- forms,
# PUBLISH, SPUBLISH, PUBSUB introspection, the RESP2 "subscribed mode"
# restrictions and the RESP3 push shapes, cleanup on disconnect and RESET,
# CLIENT LIST / INFO counters.  Tests tagged "valkey-only" cover behaviour
# Redis 7.0 does not have (messages to oneself ordered after the reply,
# INFO pubsub_clients).

# Sends `cmd names..` on a deferring client and reads one confirmation per
# name; returns the counts they carry.
proc ps_sub {client cmd names} {
    $client $cmd {*}$names
    set counts {}
    foreach name $names {
        set reply [$client read]
        assert_equal [list $cmd $name] [lrange $reply 0 1]
        lappend counts [lindex $reply 2]
    }
    return $counts
}

# Sends an UN-command with no names and reads `n` confirmations; returns
# them sorted by name (the server's order is unspecified).
proc ps_unsub_all {client cmd n} {
    $client $cmd
    set replies {}
    for {set i 0} {$i < $n} {incr i} { lappend replies [$client read] }
    return [lsort -index 1 $replies]
}

proc ps_info_field {section field} {
    if {[regexp "$field:(\\d+)" [r info $section] -> v]} { return $v }
    return ""
}

proc ps_client_field {line field} {
    foreach kv [split [string trim $line]] {
        lassign [split $kv =] k v
        if {$k eq $field} { return $v }
    }
    error "no field $field in: $line"
}

start_server {tags {"pubsub"}} {

    # ------------------------------------------------------------ SUBSCRIBE / PUBLISH

    test "SUBSCRIBE confirms each channel with the running count" {
        set rd [vk_deferring_client]
        assert_equal {1 2 3} [ps_sub $rd subscribe {chan1 chan2 chan3}]
        $rd close
    }

    test "PUBLISH delivers {message channel payload} and returns the receivers" {
        set rd [vk_deferring_client]
        ps_sub $rd subscribe {chan1 chan2}
        assert_equal 1 [r publish chan1 hello]
        assert_equal 1 [r publish chan2 world]
        assert_equal 0 [r publish chan3 nobody]
        assert_equal {message chan1 hello} [$rd read]
        assert_equal {message chan2 world} [$rd read]
        $rd close
    }

    test "PUBLISH reaches every subscriber of a channel" {
        set rd1 [vk_deferring_client]
        set rd2 [vk_deferring_client]
        ps_sub $rd1 subscribe {news}
        ps_sub $rd2 subscribe {news}
        assert_equal 2 [r publish news hi]
        assert_equal {message news hi} [$rd1 read]
        assert_equal {message news hi} [$rd2 read]
        $rd1 close
        $rd2 close
    }

    test "Channel names and payloads are binary safe" {
        set rd [vk_deferring_client]
        set chan "a\x00b\r\nc"
        set payload "x\x00\xff\r\ny"
        ps_sub $rd subscribe [list $chan]
        assert_equal 1 [r publish $chan $payload]
        assert_equal [list message $chan $payload] [$rd read]
        assert_equal 0 [r publish "a" $payload]
        $rd close
    }

    test "SUBSCRIBE to the same channel twice counts it once" {
        set rd [vk_deferring_client]
        assert_equal {1 1} [ps_sub $rd subscribe {dup dup}]
        assert_equal 1 [r publish dup m]
        assert_equal {message dup m} [$rd read]
        assert_equal {dup 1} [r pubsub numsub dup]
        $rd close
    }

    test "UNSUBSCRIBE with names replies for each, subscribed or not" {
        set rd [vk_deferring_client]
        ps_sub $rd subscribe {a b c}
        assert_equal {2 2} [ps_sub $rd unsubscribe {a nosuch}]
        assert_equal 0 [r publish a x]
        assert_equal 1 [r publish b x]
        assert_equal {message b x} [$rd read]
        $rd close
    }

    test "UNSUBSCRIBE without arguments drops every channel" {
        set rd [vk_deferring_client]
        ps_sub $rd subscribe {u1 u2 u3}
        set replies [ps_unsub_all $rd unsubscribe 3]
        assert_equal {u1 u2 u3} [lmap r $replies {lindex $r 1}]
        assert_equal {0 1 2} [lsort [lmap r $replies {lindex $r 2}]]
        assert_equal 0 [r publish u1 x]
        assert_equal 0 [r publish u2 x]
        $rd close
    }

    test "(P|S)UNSUBSCRIBE with nothing subscribed reply a null name and 0" {
        set c [vk_client]
        assert_equal {unsubscribe {} 0} [$c unsubscribe]
        assert_equal {punsubscribe {} 0} [$c punsubscribe]
        assert_equal {sunsubscribe {} 0} [$c sunsubscribe]
        $c readraw 1
        set first [$c unsubscribe]
        assert_equal "*3 \$11 unsubscribe \$-1 :0" [join [list $first [$c read] [$c read] [$c read] [$c read]]]
        $c close
    }

    test "UNSUBSCRIBE with nothing subscribed in RESP3 is a push with a null" {
        set c [vk_client]
        $c hello 3
        $c readraw 1
        set first [$c punsubscribe]
        assert_equal ">3 \$12 punsubscribe _ :0" [join [list $first [$c read] [$c read] [$c read] [$c read]]]
        $c close
    }

    # ------------------------------------------------------------ patterns

    test "PSUBSCRIBE delivers {pmessage pattern channel payload}" {
        set rd [vk_deferring_client]
        assert_equal {1 2} [ps_sub $rd psubscribe {foo.* bar.?}]
        assert_equal 1 [r publish foo.one hello]
        assert_equal 1 [r publish bar.x world]
        assert_equal 0 [r publish bar.xy nobody]
        assert_equal 0 [r publish foo nobody]
        assert_equal {pmessage foo.* foo.one hello} [$rd read]
        assert_equal {pmessage bar.? bar.x world} [$rd read]
        $rd close
    }

    test "PSUBSCRIBE patterns of more than 1000 runs of '*' match nothing, as in Valkey" {
        set rd [vk_deferring_client]
        set chan [string repeat a 1001]
        ps_sub $rd psubscribe [list "[string repeat *a 1000]a" [string repeat *a 1001]]
        assert_equal 1 [r publish $chan hello]
        assert_equal [list pmessage "[string repeat *a 1000]a" $chan hello] [$rd read]
        $rd close
    }

    test "Patterns use glob syntax: classes, ranges, negation and escapes" {
        set rd [vk_deferring_client]
        ps_sub $rd psubscribe {{h[ae]llo} {n[^o]t} {d[0-9]} {lit\*}}
        assert_equal 1 [r publish hallo 1]
        assert_equal 0 [r publish hillo 2]
        assert_equal 1 [r publish nut 3]
        assert_equal 0 [r publish not 4]
        assert_equal 1 [r publish d7 5]
        assert_equal 1 [r publish lit* 6]
        assert_equal 0 [r publish litx 7]
        assert_equal [list pmessage {h[ae]llo} hallo 1] [$rd read]
        assert_equal [list pmessage {n[^o]t} nut 3] [$rd read]
        assert_equal [list pmessage {d[0-9]} d7 5] [$rd read]
        assert_equal [list pmessage {lit\*} lit* 6] [$rd read]
        $rd close
    }

    test "A channel matching several patterns gets one message per pattern" {
        set rd [vk_deferring_client]
        ps_sub $rd psubscribe {* news.*}
        assert_equal 2 [r publish news.it x]
        set msgs [lsort [list [$rd read] [$rd read]]]
        assert_equal {{pmessage * news.it x} {pmessage news.* news.it x}} $msgs
        $rd close
    }

    test "A client on a channel and a matching pattern gets both messages" {
        set rd [vk_deferring_client]
        assert_equal {1} [ps_sub $rd subscribe {mix}]
        assert_equal {2} [ps_sub $rd psubscribe {mi*}]
        assert_equal 2 [r publish mix hi]
        assert_equal {message mix hi} [$rd read]
        assert_equal {pmessage mi* mix hi} [$rd read]
        $rd close
    }

    test "Counts add channels and patterns; PUNSUBSCRIBE without arguments" {
        set rd [vk_deferring_client]
        assert_equal {1 2} [ps_sub $rd subscribe {c1 c2}]
        assert_equal {3 4} [ps_sub $rd psubscribe {p1* p2*}]
        set replies [ps_unsub_all $rd punsubscribe 2]
        assert_equal {p1* p2*} [lmap r $replies {lindex $r 1}]
        assert_equal {2 3} [lsort [lmap r $replies {lindex $r 2}]]
        assert_equal 0 [r publish p1x m]
        assert_equal {1} [ps_sub $rd unsubscribe {c1}]
        $rd close
    }

    test "PUNSUBSCRIBE from patterns never subscribed still replies" {
        set rd [vk_deferring_client]
        ps_sub $rd psubscribe {x*}
        assert_equal {1 1} [ps_sub $rd punsubscribe {y* z*}]
        assert_equal {0} [ps_sub $rd punsubscribe {x*}]
        $rd close
    }

    # ------------------------------------------------------------ shard channels

    test "SSUBSCRIBE / SPUBLISH deliver {smessage channel payload}" {
        set rd [vk_deferring_client]
        assert_equal {1 2} [ps_sub $rd ssubscribe {s1 s2}]
        assert_equal 1 [r spublish s1 hello]
        assert_equal 0 [r spublish s3 nobody]
        assert_equal {smessage s1 hello} [$rd read]
        $rd close
    }

    test "Shard channels are a namespace of their own" {
        set rd [vk_deferring_client]
        assert_equal {1} [ps_sub $rd ssubscribe {ns}]
        assert_equal {1} [ps_sub $rd subscribe {ns}]
        assert_equal {2} [ps_sub $rd psubscribe {n*}]
        # SPUBLISH reaches only the shard subscription, PUBLISH the others.
        assert_equal 1 [r spublish ns a]
        assert_equal {smessage ns a} [$rd read]
        assert_equal 2 [r publish ns b]
        assert_equal {message ns b} [$rd read]
        assert_equal {pmessage n* ns b} [$rd read]
        # Shard counts are their own; (P)UNSUBSCRIBE counts ignore them.
        assert_equal {1} [ps_sub $rd unsubscribe {ns}]
        assert_equal {0} [ps_sub $rd sunsubscribe {ns}]
        assert_equal {0} [ps_sub $rd punsubscribe {n*}]
        $rd close
    }

    test "SUNSUBSCRIBE without arguments drops every shard channel" {
        set rd [vk_deferring_client]
        ps_sub $rd ssubscribe {sa sb}
        ps_sub $rd subscribe {plain}
        set replies [ps_unsub_all $rd sunsubscribe 2]
        assert_equal {sa sb} [lmap r $replies {lindex $r 1}]
        assert_equal {0 1} [lsort [lmap r $replies {lindex $r 2}]]
        assert_equal 1 [r publish plain still]
        assert_equal {message plain still} [$rd read]
        $rd close
    }

    test "SSUBSCRIBE inside MULTI is refused at EXEC" {
        set c [vk_client]
        $c multi
        $c ssubscribe s1
        $c ping
        set res [$c exec]
        assert_match "*SSUBSCRIBE isn't allowed for a DENY BLOCKING client*" [lindex $res 0]
        assert_equal PONG [lindex $res 1]
        assert_equal {s1 0} [r pubsub shardnumsub s1]
        $c close
    }

    # ------------------------------------------------------------ subscribed mode

    test "RESP2 subscribed mode: only the Pub/Sub family, PING, QUIT and RESET" {
        set c [vk_client]
        assert_equal {subscribe ch 1} [$c subscribe ch]
        assert_error "ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context" {$c get foo}
        assert_error "*Can't execute 'publish'*" {$c publish ch x}
        assert_error "*Can't execute 'client|id'*" {$c client id}
        assert_error "*Can't execute 'multi'*" {$c multi}
        assert_equal {psubscribe p* 2} [$c psubscribe p*]
        assert_equal {punsubscribe p* 1} [$c punsubscribe p*]
        assert_equal {unsubscribe ch 0} [$c unsubscribe ch]
        # Back to normal once nothing is subscribed.
        assert_equal {} [$c get foo]
        $c close
    }

    test "RESP2 subscribed mode: PING replies {pong <arg>}" {
        set c [vk_client]
        $c subscribe ch
        assert_equal {pong {}} [$c ping]
        assert_equal {pong hello} [$c ping hello]
        $c unsubscribe ch
        assert_equal PONG [$c ping]
        $c close
    }

    test "RESP2 subscribed mode: unknown commands still say unknown" {
        set c [vk_client]
        $c subscribe ch
        assert_error "*unknown command*" {$c nosuchcommand}
        assert_error "*wrong number of arguments*" {$c subscribe}
        $c close
    }

    test "RESP2 subscribed mode: RESET leaves it and drops the subscriptions" {
        set c [vk_client]
        $c subscribe ch
        $c psubscribe p*
        assert_equal RESET [$c reset]
        assert_equal {} [$c get foo]
        assert_equal 0 [r publish ch x]
        assert_equal 0 [r pubsub numpat]
        $c close
    }

    test "RESP2 subscribed mode: QUIT closes the connection" {
        set c [vk_client]
        $c subscribe ch
        assert_equal OK [$c quit]
        wait_for_condition 50 10 {[r publish ch x] == 0} { fail "subscription survived QUIT" }
        $c close
    }

    test "RESP3: any command runs while subscribed; PING is plain" {
        set c [vk_client]
        $c hello 3
        assert_equal {subscribe ch 1} [$c subscribe ch]
        r set psfoo bar
        assert_equal bar [$c get psfoo]
        assert_equal PONG [$c ping]
        assert_equal hi [$c ping hi]
        $c close
    }

    test "RESP3 messages are pushes: >3 message, >4 pmessage, >3 smessage" {
        set c [vk_client]
        $c hello 3
        $c subscribe ch
        $c psubscribe c*
        $c ssubscribe sh
        $c readraw 1
        r publish ch hi
        r spublish sh yo
        set lines {}
        for {set i 0} {$i < 23} {incr i} { lappend lines [$c read] }
        assert_equal ">3 \$7 message \$2 ch \$2 hi" [join [lrange $lines 0 6]]
        assert_equal ">4 \$8 pmessage \$2 c* \$2 ch \$2 hi" [join [lrange $lines 7 15]]
        assert_equal ">3 \$8 smessage \$2 sh \$2 yo" [join [lrange $lines 16 22]]
        $c close
    }

    test "RESP2 messages are plain arrays" {
        set c [vk_client]
        $c subscribe ch
        $c readraw 1
        r publish ch hi
        set lines {}
        for {set i 0} {$i < 7} {incr i} { lappend lines [$c read] }
        assert_equal "*3 \$7 message \$2 ch \$2 hi" [join $lines]
        $c close
    }

    test "RESP3: confirmations and messages ignore CLIENT REPLY OFF" {
        set rd [vk_deferring_client]
        $rd hello 3
        $rd read
        $rd client reply off
        assert_equal {1} [ps_sub $rd subscribe {quiet}]
        assert_equal {2} [ps_sub $rd psubscribe {qu*}]
        assert_equal 2 [r publish quiet hello]
        assert_equal {message quiet hello} [$rd read]
        assert_equal {pmessage qu* quiet hello} [$rd read]
        assert_equal {1} [ps_sub $rd unsubscribe {quiet}]
        assert_equal {0} [ps_sub $rd punsubscribe {qu*}]
        $rd client reply on
        assert_equal OK [$rd read]
        $rd close
    }

    tags {valkey-only} {
        test "RESP3: a message to oneself comes after the PUBLISH reply" {
            set c [vk_client]
            $c hello 3
            $c subscribe self
            assert_equal 1 [$c publish self one]
            assert_equal {message self one} [$c read]
            assert_equal PONG [$c ping]
            $c close
        }

        test "RESP3: messages to oneself inside MULTI come after the EXEC reply" {
            set c [vk_client]
            $c hello 3
            $c subscribe self
            $c multi
            $c ping abc
            $c publish self bar
            $c publish self vaz
            $c ping def
            assert_equal {abc 1 1 def} [$c exec]
            assert_equal {message self bar} [$c read]
            assert_equal {message self vaz} [$c read]
            $c close
        }

        test "RESP3: UNSUBSCRIBE inside MULTI, then PUBLISH to self reaches nobody" {
            set c [vk_client]
            $c hello 3
            $c subscribe self
            $c multi
            $c ping abc
            $c unsubscribe self
            $c publish self bar
            assert_equal {abc {unsubscribe self 0} 0} [$c exec]
            assert_equal PONG [$c ping]
            $c close
        }
    }

    test "SUBSCRIBE inside MULTI puts a RESP2 client in subscribed mode after EXEC" {
        set c [vk_client]
        $c multi
        $c subscribe txchan
        $c ping
        # PING ran after SUBSCRIBE: it already answers in subscribed-mode form.
        assert_equal {{subscribe txchan 1} {pong {}}} [$c exec]
        assert_error "*Can't execute 'get'*" {$c get foo}
        assert_equal 1 [r publish txchan m]
        assert_equal {message txchan m} [$c read]
        $c close
    }

    # ------------------------------------------------------------ PUBSUB

    test "PUBSUB CHANNELS lists channels with subscribers, optionally filtered" {
        set rd1 [vk_deferring_client]
        set rd2 [vk_deferring_client]
        ps_sub $rd1 subscribe {abc abd}
        ps_sub $rd2 subscribe {abc xyz}
        ps_sub $rd2 psubscribe {ab*}
        assert_equal {abc abd xyz} [lsort [r pubsub channels]]
        assert_equal {abc abd} [lsort [r pubsub channels ab*]]
        assert_equal {xyz} [r pubsub channels x?z]
        assert_equal {} [r pubsub channels nomatch*]
        $rd1 close
        $rd2 close
        wait_for_condition 50 10 {[r pubsub channels] eq {}} { fail "channels left: [r pubsub channels]" }
    }

    test "PUBSUB NUMSUB counts channel subscribers, not patterns" {
        set rd1 [vk_deferring_client]
        set rd2 [vk_deferring_client]
        ps_sub $rd1 subscribe {n1 n2}
        ps_sub $rd2 subscribe {n1}
        ps_sub $rd2 psubscribe {n*}
        assert_equal {n1 2 n2 1 n3 0} [r pubsub numsub n1 n2 n3]
        assert_equal {} [r pubsub numsub]
        $rd1 close
        $rd2 close
    }

    test "PUBSUB NUMSUB replies integers (RESP3 raw check)" {
        set c [vk_client]
        $c hello 3
        $c readraw 1
        set first [$c pubsub numsub zz]
        assert_equal "*2 \$2 zz :0" [join [list $first [$c read] [$c read] [$c read]]]
        $c close
    }

    test "PUBSUB NUMPAT counts distinct patterns" {
        set rd1 [vk_deferring_client]
        set rd2 [vk_deferring_client]
        assert_equal 0 [r pubsub numpat]
        ps_sub $rd1 psubscribe {a* b*}
        ps_sub $rd2 psubscribe {a* c*}
        assert_equal 3 [r pubsub numpat]
        ps_sub $rd1 punsubscribe {a*}
        assert_equal 3 [r pubsub numpat]
        ps_sub $rd2 punsubscribe {a*}
        assert_equal 2 [r pubsub numpat]
        $rd1 close
        $rd2 close
        wait_for_condition 50 10 {[r pubsub numpat] == 0} { fail "patterns left" }
    }

    test "PUBSUB SHARDCHANNELS and SHARDNUMSUB" {
        set rd [vk_deferring_client]
        ps_sub $rd ssubscribe {sh1 sh2}
        ps_sub $rd subscribe {plain}
        assert_equal {sh1 sh2} [lsort [r pubsub shardchannels]]
        assert_equal {sh2} [r pubsub shardchannels *2]
        assert_equal {sh1 1 sh3 0} [r pubsub shardnumsub sh1 sh3]
        assert_equal {plain} [r pubsub channels]
        $rd close
    }

    test "PUBSUB argument errors and HELP" {
        assert_error "*unknown subcommand 'foo'*" {r pubsub foo}
        assert_error "*wrong number of arguments for 'pubsub|numpat'*" {r pubsub numpat x}
        assert_error "*unknown subcommand or wrong number of arguments for 'channels'*" {r pubsub channels a b}
        assert_error "*wrong number of arguments for 'pubsub'*" {r pubsub}
        assert_error "*wrong number of arguments for 'publish'*" {r publish ch}
        assert_error "*wrong number of arguments for 'subscribe'*" {r subscribe}
        set help [r pubsub help]
        assert_match "PUBSUB <subcommand>*" [lindex $help 0]
        assert_match "*NUMSUB*" $help
        assert_match "*SHARDNUMSUB*" $help
    }

    # ------------------------------------------------------------ lifecycle and counters

    test "A disconnected subscriber leaves no trace" {
        set rd [vk_deferring_client]
        ps_sub $rd subscribe {gone1 gone2}
        ps_sub $rd psubscribe {gone*}
        ps_sub $rd ssubscribe {gones}
        assert_equal 2 [r publish gone1 x]
        $rd close
        wait_for_condition 50 10 {[r publish gone1 x] == 0} { fail "subscriber still there" }
        assert_equal {gone1 0 gone2 0} [r pubsub numsub gone1 gone2]
        assert_equal 0 [r pubsub numpat]
        assert_equal {} [r pubsub shardchannels]
    }

    test "CLIENT LIST shows sub, psub, ssub and the P flag" {
        set c [vk_client]
        set id [$c client id]
        $c hello 3
        $c subscribe a
        $c subscribe b
        $c psubscribe p*
        $c ssubscribe s
        set line [r client list id $id]
        assert_equal 2 [ps_client_field $line sub]
        assert_equal 1 [ps_client_field $line psub]
        assert_equal 1 [ps_client_field $line ssub]
        assert_equal P [ps_client_field $line flags]
        assert_match "*id=$id *" [r client list type pubsub]
        $c reset
        set line [r client list id $id]
        assert_equal {0 0 0 N} [list [ps_client_field $line sub] [ps_client_field $line psub] \
                                    [ps_client_field $line ssub] [ps_client_field $line flags]]
        assert_equal {} [string trim [r client list type pubsub]]
        $c close
    }

    test "CLIENT KILL TYPE pubsub closes subscribers only" {
        wait_for_condition 50 10 {[string trim [r client list type pubsub]] eq ""} { fail "old subscribers left" }
        set rd [vk_deferring_client]
        ps_sub $rd subscribe {killme}
        set c [vk_client]
        assert_equal 1 [r client kill type pubsub]
        wait_for_condition 50 10 {[r pubsub numsub killme] eq {killme 0}} { fail "subscriber not killed" }
        assert_equal PONG [$c ping]
        $c close
    }

    test "INFO stats: pubsub_channels, pubsub_patterns, pubsubshard_channels" {
        set rd [vk_deferring_client]
        ps_sub $rd subscribe {i1 i2}
        ps_sub $rd psubscribe {i*}
        ps_sub $rd ssubscribe {is}
        assert_equal 2 [ps_info_field stats pubsub_channels]
        assert_equal 1 [ps_info_field stats pubsub_patterns]
        assert_equal 1 [ps_info_field stats pubsubshard_channels]
        $rd close
        wait_for_condition 50 10 {[ps_info_field stats pubsub_channels] == 0} { fail "channels not released" }
        assert_equal 0 [ps_info_field stats pubsub_patterns]
        assert_equal 0 [ps_info_field stats pubsubshard_channels]
    }

    tags {valkey-only} {
        test "INFO clients: pubsub_clients counts clients with a subscription" {
            assert_equal 0 [ps_info_field clients pubsub_clients]
            set rd1 [vk_deferring_client]
            set rd2 [vk_deferring_client]
            ps_sub $rd1 subscribe {x}
            ps_sub $rd2 ssubscribe {y}
            assert_equal 2 [ps_info_field clients pubsub_clients]
            ps_sub $rd1 unsubscribe {x}
            assert_equal 1 [ps_info_field clients pubsub_clients]
            $rd2 close
            wait_for_condition 50 10 {[ps_info_field clients pubsub_clients] == 0} { fail "still counted" }
            $rd1 close
        }
    }

    test "Many subscribers on one channel and many channels per subscriber" {
        set clients {}
        for {set i 0} {$i < 50} {incr i} {
            set rd [vk_deferring_client]
            ps_sub $rd subscribe [list crowd own$i]
            lappend clients $rd
        }
        assert_equal 50 [r publish crowd hello]
        foreach rd $clients { assert_equal {message crowd hello} [$rd read] }
        for {set i 0} {$i < 50} {incr i} { assert_equal 1 [r publish own$i m$i] }
        set i 0
        foreach rd $clients {
            assert_equal [list message own$i m$i] [$rd read]
            incr i
        }
        assert_equal {crowd 50} [r pubsub numsub crowd]
        foreach rd $clients { $rd close }
        wait_for_condition 50 10 {[r pubsub numsub crowd] eq {crowd 0}} { fail "subscribers left" }
    }

    test "A slow subscriber does not block PUBLISH, and receives everything in order" {
        set rd [vk_deferring_client]
        ps_sub $rd subscribe {bulk}
        set payload [string repeat x 1000]
        for {set i 0} {$i < 2000} {incr i} { r publish bulk $i$payload }
        for {set i 0} {$i < 2000} {incr i} {
            if {[$rd read] ne [list message bulk $i$payload]} { fail "message $i out of order or corrupt" }
        }
        $rd close
    }
}
