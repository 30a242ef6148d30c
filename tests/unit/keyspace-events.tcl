# Keyspace notifications: the notify-keyspace-events classes (K E g $ l s
# h z x e n m t d A), the __keyspace@<db>__:<key> / __keyevent@<db>__:<event>
# channels, the events of each data type, expiry (lazy and active) and
# eviction, and how they reach RESP2/RESP3 subscribers.  Tests tagged
# "valkey-only" cover behaviour Redis 7.0 does not have.

# Runs script (in the caller's scope) with notify-keyspace-events set to
# flags and returns what a pattern subscriber on __key*__:* received, as a
# flat list {channel payload ...}.  A PUBLISH to a marker channel ends the
# collection, so scripts that trigger no event at all work too.
proc ke_collect {flags script} {
    r config set notify-keyspace-events $flags
    set rd [vk_deferring_client]
    $rd psubscribe "__key*__:*"
    $rd read
    set code [catch {uplevel 1 $script} err opts]
    r publish __keyevent@0__:__end__ marker
    set events {}
    while 1 {
        set msg [$rd read]
        if {[lindex $msg 2] eq "__keyevent@0__:__end__"} break
        lappend events [lindex $msg 2] [lindex $msg 3]
    }
    $rd close
    r config set notify-keyspace-events ""
    if {$code} { return -options $opts $err }
    return $events
}

# Like ke_collect with "KEA"-style flags that include E only: returns the
# event names and keys as a flat list {event key ...}.
proc ke_events {flags script} {
    set out {}
    foreach {chan payload} [uplevel 1 [list ke_collect $flags $script]] {
        if {[string match "__keyevent@*" $chan]} {
            lappend out [string range $chan [expr {[string first : $chan] + 1}] end] $payload
        }
    }
    return $out
}

start_server {tags {"pubsub" "keyspace-events"} overrides {enable-debug-command yes}
              log_allow {"*maxmemory value set via CONFIG SET*"}} {

    # ------------------------------------------------------------ configuration

    test "notify-keyspace-events is empty by default" {
        assert_equal {notify-keyspace-events {}} [r config get notify-keyspace-events]
    }

    test "CONFIG SET/GET notify-keyspace-events normalises the flags" {
        r config set notify-keyspace-events KEA
        assert_equal AKE [lindex [r config get notify-keyspace-events] 1]
        r config set notify-keyspace-events "E\$lgK"
        assert_equal "g\$lKE" [lindex [r config get notify-keyspace-events] 1]
        r config set notify-keyspace-events Kshzxe
        assert_equal shzxeK [lindex [r config get notify-keyspace-events] 1]
        r config set notify-keyspace-events AKEm
        assert_equal AKEm [lindex [r config get notify-keyspace-events] 1]
        r config set notify-keyspace-events ""
        assert_equal {} [lindex [r config get notify-keyspace-events] 1]
    }

    test "CONFIG SET notify-keyspace-events refuses unknown class letters" {
        assert_error "*notify-keyspace-events*" {r config set notify-keyspace-events KEQ}
        assert_equal {} [lindex [r config get notify-keyspace-events] 1]
    }

    test "Nothing is published while the option is empty" {
        assert_equal {} [ke_collect "" {
            r set foo bar
            r del foo
        }]
    }

    test "A class without K or E publishes nothing" {
        assert_equal {} [ke_collect "g\$" {
            r set foo bar
            r del foo
        }]
    }

    # ------------------------------------------------------------ channels

    test "K: __keyspace@<db>__:<key> carries the event name" {
        r del foo
        assert_equal {__keyspace@0__:foo set} [ke_collect "K\$" { r set foo bar }]
    }

    test "E: __keyevent@<db>__:<event> carries the key name" {
        r del foo
        assert_equal {__keyevent@0__:set foo} [ke_collect "E\$" { r set foo bar }]
    }

    test "KE: both messages, keyspace first" {
        r del foo
        assert_equal {__keyspace@0__:foo set __keyevent@0__:set foo} [ke_collect "KE\$" { r set foo bar }]
    }

    test "The database number is part of the channel" {
        set events [ke_collect "KEg" {
            r select 9
            r set foo bar
            r del foo
            r select 0
        }]
        assert_equal {__keyspace@9__:foo del __keyevent@9__:del foo} $events
    }

    test "Binary key names are delivered as they are" {
        set key "k\x00\r\ny"
        set events [ke_collect "KE\$" { r set $key v }]
        assert_equal [list __keyspace@0__:$key set __keyevent@0__:set $key] $events
    }

    test "Classes mask each other: g sees DEL, not SET; \$ the opposite" {
        r del foo
        assert_equal {del foo} [ke_events "Eg" {
            r set foo bar
            r del foo
        }]
        assert_equal {set foo} [ke_events "E\$" {
            r set foo bar
            r del foo
        }]
    }

    test "A: every class but m and n" {
        r del foo
        assert_equal {set foo del foo} [ke_events "EA" {
            r set foo bar
            r get nosuchkey
            r del foo
        }]
    }

    test "Events reach channel subscribers too, not only patterns" {
        r config set notify-keyspace-events KE\$
        set rd [vk_deferring_client]
        $rd subscribe __keyevent@0__:set __keyspace@0__:chkey
        $rd read
        $rd read
        r set chkey v
        assert_equal {message __keyspace@0__:chkey set} [$rd read]
        assert_equal {message __keyevent@0__:set chkey} [$rd read]
        $rd close
        r config set notify-keyspace-events ""
    }

    test "RESP3 subscribers get events as >4 pmessage pushes" {
        r config set notify-keyspace-events E\$
        set c [vk_client]
        $c hello 3
        $c psubscribe __keyevent@*
        r set r3key v
        $c readraw 1
        set lines {}
        for {set i 0} {$i < 9} {incr i} { lappend lines [$c read] }
        assert_equal ">4 \$8 pmessage \$12 __keyevent@* \$18 __keyevent@0__:set \$5 r3key" [join $lines]
        $c close
        r config set notify-keyspace-events ""
    }

    # ------------------------------------------------------------ generic events

    test "Generic events: del, rename, move, copy, expire, persist" {
        needs_commands copy move
        r flushall
        set events [ke_events "Eg" {
            r set a 1
            r del a
            r set b 1
            r rename b c
            r renamenx c d
            r move d 5
            r select 5
            r del d
            r select 0
            r set e 1
            r copy e f
            r expire e 100
            r persist e
            r pexpire e 100000
            r unlink e f
            r del nosuch
        }]
        set expected [concat {del a rename_from b rename_to c rename_from c rename_to d move_from d move_to d del d} \
                             {copy_to f expire e persist e expire e del e del f}]
        assert_equal $expected $events
    }

    test "EXPIRE with a time in the past deletes the key: a del event" {
        r del foo
        r set foo bar
        assert_equal {del foo} [ke_events "Eg" { r expire foo -1 }]
        assert_equal 0 [r exists foo]
    }

    # ------------------------------------------------------------ data types

    test "String events" {
        r flushall
        set events [ke_events "E\$" {
            r set s 1
            r setnx s 2
            r setnx s2 2
            r incr s
            r incrby s 5
            r decr s
            r incrbyfloat s 1.5
            r append s x
            r setrange s 0 y
            r getset s z
            r mset m1 a m2 b
            r getdel m1
        }]
        assert_equal {set s set s2 incrby s incrby s incrby s incrbyfloat s append s setrange s set s set m1 set m2} $events
    }

    test "String events: SET with a TTL also reports expire" {
        r del s
        assert_equal {set s expire s} [ke_events "E\$g" { r set s v ex 100 }]
        assert_equal {set s expire s} [ke_events "E\$g" { r setex s 100 v }]
    }

    test "GETDEL and GETEX events" {
        r set s v
        assert_equal {expire s persist s del s} [ke_events "Eg" {
            r getex s ex 100
            r getex s persist
            r getdel s
        }]
    }

    test "List events" {
        r flushall
        set events [ke_events "El" {
            r rpush l a b c
            r lpush l z
            r linsert l before a x
            r lset l 0 y
            r lrem l 1 x
            r ltrim l 0 2
            r lpop l
            r rpop l
            r rpushx l q
            r lpushx nosuch q
        }]
        assert_equal {rpush l lpush l linsert l lset l lrem l ltrim l lpop l rpop l rpush l} $events
    }

    test "List events: LMOVE / RPOPLPUSH report the push, then the pop" {
        r flushall
        r rpush src a b
        set events [ke_events "El" {
            r rpoplpush src dst
            r lmove src dst left right
        }]
        assert_equal {lpush dst rpop src rpush dst lpop src} $events
    }

    test "List events: a list popped empty is deleted (del, generic class)" {
        r flushall
        r rpush l a
        assert_equal {lpop l del l} [ke_events "Elg" { r lpop l }]
    }

    test "Set events" {
        r flushall
        set events [ke_events "Es" {
            r sadd s a b c
            r sadd s a
            r srem s a
            r srem s nosuch
            r smove s t b
            r sadd u x y
            r sinterstore dst s u
            r sunionstore dst s u
            r sdiffstore dst s u
            r spop s
        }]
        assert_equal {sadd s srem s srem s sadd t sadd u sunionstore dst sdiffstore dst spop s} $events
    }

    test "Set events: an emptied set is deleted" {
        r flushall
        r sadd s a
        assert_equal {srem s del s} [ke_events "Esg" { r srem s a }]
    }

    test "Hash events" {
        r flushall
        set events [ke_events "Eh" {
            r hset h a 1 b 2
            r hsetnx h a 9
            r hsetnx h c 3
            r hincrby h a 1
            r hincrbyfloat h a 0.5
            r hdel h b
            r hdel h nosuch
        }]
        assert_equal {hset h hset h hincrby h hincrbyfloat h hdel h} $events
    }

    test "Hash events: HDEL of the last field deletes the hash" {
        r flushall
        r hset h a 1
        assert_equal {hdel h del h} [ke_events "Ehg" { r hdel h a }]
    }

    test "Sorted set events" {
        needs_commands zadd zincrby zrem zremrangebyscore
        r flushall
        set events [ke_events "Ez" {
            r zadd z 1 a 2 b 3 c
            r zincrby z 1 a
            r zrem z b
            r zremrangebyscore z 0 2
        }]
        assert_equal {zadd z zincr z zrem z zremrangebyscore z} $events
    }

    test "Commands that change nothing publish nothing" {
        r flushall
        r set s v
        r rpush l a
        r sadd set a
        r hset h f v
        assert_equal {} [ke_events "EA" {
            r get s
            r lrange l 0 -1
            r sismember set a
            r hget h f
            r srem set nosuch
            r hdel h nosuch
            r lrem l 0 nosuch
            r persist s
        }]
    }

    # ------------------------------------------------------------ expiry and eviction

    test "Expired events: lazy expiry on access" {
        needs_debug
        r flushall
        r debug set-active-expire 0
        r set foo bar px 5
        after 20
        set events [ke_collect "KEx" { r get foo }]
        r debug set-active-expire 1
        assert_equal {__keyspace@0__:foo expired __keyevent@0__:expired foo} $events
    }

    test "Expired events: background expiry" {
        r flushall
        r config set notify-keyspace-events Ex
        set rd [vk_deferring_client]
        $rd psubscribe __keyevent@*
        $rd read
        r set foo bar px 50
        r set other bar
        assert_equal {pmessage __keyevent@* __keyevent@0__:expired foo} [$rd read]
        assert_equal 1 [r dbsize]
        $rd close
        r config set notify-keyspace-events ""
    }

    test "Expired events: x alone does not publish the expire of SET EX" {
        r del foo
        assert_equal {} [ke_events "Ex" { r set foo bar ex 100 }]
    }

    test "Evicted events" {
        r flushall
        r config set maxmemory-policy allkeys-random
        for {set i 0} {$i < 5} {incr i} { r set key$i [string repeat x 100] }
        set events [ke_events "Ee" {
            r config set maxmemory 1
            catch {r set trigger 1}
            r config set maxmemory 0
        }]
        r config set maxmemory-policy noeviction
        set keys {}
        foreach {ev key} $events {
            assert_equal evicted $ev
            lappend keys $key
        }
        assert {[llength $keys] >= 5}
        foreach i {0 1 2 3 4} { assert {[lsearch $keys key$i] >= 0} }
    }

    # ------------------------------------------------------------ n and m

    test "n: new-key events, only for keys that did not exist" {
        r flushall
        set events [ke_events "En" {
            r set a 1
            r set a 2
            r rpush l x
            r rpush l y
            r sadd s m
            r hset h f v
        }]
        assert_equal {new a new l new s new h} $events
    }

    test "n is not part of A" {
        r flushall
        assert_equal {set a} [ke_events "EA" { r set a 1 }]
    }

    test "m: key-miss events on reads of missing keys" {
        r flushall
        r set present v
        set events [ke_collect "KEm" {
            r get nosuch
            r get present
            r exists nosuch
        }]
        # GET and EXISTS both miss; the hit publishes nothing.
        set miss {__keyspace@0__:nosuch keymiss __keyevent@0__:keymiss nosuch}
        assert_equal [concat $miss $miss] $events
    }

    test "m is not part of A" {
        assert_equal {} [ke_events "EA" { r get nosuch }]
    }

    # ------------------------------------------------------------ ordering and transactions

    test "Events of a transaction arrive in command order" {
        r flushall
        set events [ke_events "EA" {
            r multi
            r set a 1
            r rpush l x
            r del a
            r exec
        }]
        assert_equal {set a rpush l del a} $events
    }

    tags {valkey-only} {
        test "RESP3: events caused by one's own command come after its reply" {
            r config set notify-keyspace-events KE\$
            set c [vk_client]
            $c hello 3
            $c psubscribe __keyspace@0__:self*
            assert_equal OK [$c set selfkey v]
            assert_equal {pmessage __keyspace@0__:self* __keyspace@0__:selfkey set} [$c read]
            assert_equal PONG [$c ping]
            $c close
            r config set notify-keyspace-events ""
        }
    }

    test "Many subscribers all receive every event" {
        r config set notify-keyspace-events E\$
        set clients {}
        for {set i 0} {$i < 20} {incr i} {
            set rd [vk_deferring_client]
            $rd subscribe __keyevent@0__:set
            $rd read
            lappend clients $rd
        }
        for {set i 0} {$i < 10} {incr i} { r set k$i v }
        foreach rd $clients {
            for {set i 0} {$i < 10} {incr i} {
                assert_equal [list message __keyevent@0__:set k$i] [$rd read]
            }
            $rd close
        }
        r config set notify-keyspace-events ""
    }
}
