# DUMP and RESTORE: the payload layout (type byte, body, RDB version,
# CRC-64), round trips of every string encoding, of every collection
# encoding and of streams, payloads captured from Redis 7.0, each RESTORE
# option and error, keyspace events and the dirty counter, FUNCTION DUMP's
# use of the same payload format, and corrupt payloads: random byte flips
# with the checksum fixed up must give an error or a usable value, never a
# crash.

source [file join $::vk::cfg(root) tests assets dump-payload.tcl]

# The integers from..to.
proc range {from to} {
    set l {}
    for {set i $from} {$i <= $to} {incr i} { lappend l $i }
    return $l
}

# The value of key in a form that compares across encodings.
proc value_of {key} {
    switch [r type $key] {
        string { return [r get $key] }
        list { return [r lrange $key 0 -1] }
        set { return [lsort [r smembers $key]] }
        hash { return [lsort [r hgetall $key]] }
        zset { return [r zrange $key 0 -1 withscores] }
        stream { return [list [r xrange $key - +] [r xinfo stream $key full]] }
        none { return {} }
        default { return [r type $key] }
    }
}

start_server {tags {"dump"}} {
    test "DUMP of a missing key is a null reply" {
        r flushall
        r dump nosuch
    } {}

    test "DUMP payload layout: type byte, body, RDB version 11, CRC-64 of the rest" {
        r set k 12
        set p [r dump k]
        assert_equal 13 [string length $p]
        assert_equal [unhex 00c00c0b00] [string range $p 0 4]
        assert_equal [le64 [crc64 [string range $p 0 end-8]]] [string range $p end-7 end]
        r set k hello
        assert_equal [unhex 000568656c6c6f0b00] [string range [r dump k] 0 end-8]
    }

    test "DUMP of strings: integer encodings only for canonical 32-bit integers" {
        set got {}
        foreach v {0 -1 127 128 -32768 32768 2147483647 2147483648 -2147483649 012 +1 1.5} {
            r set k $v
            binary scan [string index [r dump k] 1] cu first
            lappend got [format %02x $first]
        }
        set got
    } {c0 c0 c0 c1 c1 c2 c2 0a 0b 03 02 03}

    test "DUMP compresses long strings with LZF (rdbcompression yes)" {
        r set k [string repeat abc 100]
        set p [r dump k]
        binary scan [string index $p 1] cu enc
        assert_equal 0xc3 [format 0x%02x $enc]
        assert {[string length $p] < 60}
        r set k [string repeat x 20]   ;# 20 bytes: never compressed
        string length [r dump k]
    } 32

    test "DUMP / RESTORE round-trip strings of every encoding" {
        r flushall
        set vals [list 0 -5 1000 -100000 2147483647 9223372036854775807 -9223372036854775808 \
                      hello [string repeat a 44] [string repeat b 45] [string repeat xyz 1000] \
                      "bin\x00ary\xff\x01" {} 3.14]
        set i 0
        foreach v $vals {
            r set src$i $v
            set enc [r object encoding src$i]
            r restore dst$i 0 [r dump src$i]
            assert_equal $v [r get dst$i]
            assert_equal $enc [r object encoding dst$i]
            incr i
        }
        r dbsize
    } 28

    test "RESTORE refuses an existing key: BUSYKEY" {
        r set k v
        assert_error "BUSYKEY Target key name already exists." {r restore k 0 [r dump k]}
    }

    test "RESTORE REPLACE overwrites a key of any type" {
        r set k v
        set p [r dump k]
        r del k
        r rpush k a b c
        assert_equal OK [r restore k 0 $p replace]
        list [r type k] [r get k]
    } {string v}

    test "RESTORE with a relative TTL, with ABSTTL and with 0 (no TTL)" {
        r set k v
        set p [r dump k]
        r del k
        r restore k 10000 $p
        assert_range [r pttl k] 9000 10000
        r del k
        set at [expr {[clock milliseconds] + 20000}]
        r restore k $at $p absttl
        assert_equal $at [r pexpiretime k]
        r del k
        r restore k 0 $p
        r ttl k
    } -1

    test "RESTORE with a TTL already in the past creates nothing" {
        r set k v
        set p [r dump k]
        r del k
        assert_equal OK [r restore k 1000 $p absttl]
        assert_equal 0 [r exists k]
        r set k other
        assert_equal OK [r restore k 1000 $p absttl replace]
        r exists k
    } 0

    test "RESTORE TTL errors" {
        r set k v
        set p [r dump k]
        r del k
        assert_error "ERR Invalid TTL value, must be >= 0" {r restore k -1 $p}
        assert_error "ERR value is not an integer or out of range" {r restore k abc $p}
        r exists k
    } 0

    test "RESTORE IDLETIME sets the idle time" {
        r config set maxmemory-policy noeviction
        r set k v
        set p [r dump k]
        r del k
        r restore k 0 $p idletime 1000
        assert_range [r object idletime k] 1000 1010
        assert_error "ERR Invalid IDLETIME value, must be >= 0" {r restore k2 0 $p idletime -1}
        assert_error "ERR value is not an integer or out of range" {r restore k2 0 $p idletime x}
        r exists k2
    } 0

    test "RESTORE FREQ sets the LFU counter" {
        r config set maxmemory-policy allkeys-lfu
        r set k v
        set p [r dump k]
        r del k
        r restore k 0 $p freq 100
        set f [r object freq k]
        r config set maxmemory-policy noeviction
        assert_error "ERR Invalid FREQ value, must be >= 0 and <= 255" {r restore k2 0 $p freq 256}
        assert_error "ERR Invalid FREQ value, must be >= 0 and <= 255" {r restore k2 0 $p freq -1}
        set f
    } 100

    test "RESTORE option syntax errors" {
        r set k v
        set p [r dump k]
        r del k
        assert_error "ERR syntax error" {r restore k 0 $p idletime 10 freq 5}
        assert_error "ERR syntax error" {r restore k 0 $p freq 5 idletime 10}
        assert_error "ERR syntax error" {r restore k 0 $p idletime}
        assert_error "ERR syntax error" {r restore k 0 $p bogus}
        assert_error "ERR wrong number of arguments for 'restore' command" {r restore k 0}
        assert_error "ERR wrong number of arguments for 'dump' command" {r dump k k}
        r exists k
    } 0

    test "RESTORE rejects a wrong checksum or an unknown version" {
        r set k v
        set p [r dump k]
        r del k
        set bad "[string range $p 0 end-1][binary format c [expr {([scan [string index $p end] %c] + 1) & 0xff}]]"
        assert_error "ERR DUMP payload version or checksum are wrong" {r restore k 0 $bad}
        assert_error "ERR DUMP payload version or checksum are wrong" {r restore k 0 [seal_payload [unhex 000176] 12]}
        assert_error "ERR DUMP payload version or checksum are wrong" {r restore k 0 short}
        assert_error "ERR DUMP payload version or checksum are wrong" {r restore k 0 {}}
        r exists k
    } 0

    test "RESTORE accepts older RDB versions" {
        r restore k 0 [seal_payload [unhex 000176] 6]
        r get k
    } v

    test "RESTORE: Bad data format for well-sealed garbage" {
        r del k
        foreach body [list {} [unhex 08] [unhex ff] [unhex 0005616263] [unhex 000161ff] [unhex 00c3] \
                          [unhex 0007] [unhex 00c30504010203] [unhex 06] [unhex 07]] {
            assert_error "ERR Bad data format" {r restore k 0 [seal_payload $body]}
        }
        r exists k
    } 0

    # Valkey checks a payload's inner structure only with
    # sanitize-dump-payload yes (or clients, for RESTORE from a client);
    # here every payload is checked deeply whatever it says, so a value
    # broken inside (an intset out of order) is refused under each setting.
    # Redis 7.0 and Valkey with "no" accept it: valkey-only.
    tags {valkey-only} {
        test "sanitize-dump-payload no, yes and clients: a deep-broken payload is refused under each" {
            r del k
            set sorted [seal_payload [unhex 0b0c020000000200000001000200]]
            set unsorted [seal_payload [unhex 0b0c020000000200000002000100]]
            set out {}
            foreach mode {no yes clients} {
                r config set sanitize-dump-payload $mode
                lappend out [lindex [r config get sanitize-dump-payload] 1]
                assert_error "ERR Bad data format" {r restore k 0 $unsorted replace}
                r restore k 0 $sorted replace
                lappend out [lsort [r smembers k]]
            }
            assert_error "*argument(s) must be one of the following*" {r config set sanitize-dump-payload maybe}
            r config set sanitize-dump-payload no
            set out
        } {no {1 2} yes {1 2} clients {1 2}}
    }

    test "RESTORE of payloads captured from Redis 7.0" {
        r flushall
        r restore l 0 [unhex 120102121200000004008161028162020101dff902ff0a00d6a7077c34153bb9]
        r restore si 0 [unhex 0b0e0200000003000000010002002c010a00e510b28e7b9529aa]
        r restore sl 0 [unhex 0202017901780a000cdf6b3db330bcf0]
        r restore h 0 [unhex 1012120000000400816602817602816e020c01ff0a0001369481d35b8974]
        r restore z 0 [unhex 1115150000000400816202dffe0281610283312e3504ff0a006c359df633d08b5d]
        r restore s 0 [unhex 000568656c6c6f0a006372df766534200a]
        list [value_of l] [value_of si] [value_of sl] [value_of h] [value_of z] [value_of s]
    } {{a b 1 -7} {1 2 300} {x y} {12 f n v} {b -2 a 1.5} hello}

    test "DUMP / RESTORE round-trip every collection encoding" {
        r flushall
        r config set list-max-listpack-size 4
        r rpush l_small a b 1 2
        r rpush l_big {*}[lrepeat 50 elem] 1 2 3
        r sadd s_int 1 2 3 -100000
        r sadd s_lp a b c
        r sadd s_ht {*}[lmap i [range 0 200] {set _ m$i}]
        r hset h_lp f1 v1 f2 2
        r hset h_ht {*}[concat {*}[lmap i [range 0 300] {list f$i v$i}]]
        r hset h_long f [string repeat v 100]
        r zadd z_lp 1 a 2.5 b -inf c
        r zadd z_sl {*}[concat {*}[lmap i [range 0 200] {list $i m$i}]]
        foreach k [r keys *] {
            set enc [r object encoding $k]
            set v [value_of $k]
            r restore copy 0 [r dump $k]
            assert_equal $v [value_of copy]
            assert_equal $enc [r object encoding copy]
            r del copy
        }
        r config set list-max-listpack-size -2
        r dbsize
    } 10

    test "DUMP / RESTORE round-trip streams with consumer groups and PELs" {
        r flushall
        r xadd st 1-1 a 1 b 2
        r xadd st 2-0 a 3 b 4
        r xadd st 3-5 c 5 d 6 e 7
        r xdel st 2-0
        r xgroup create st g1 0
        r xgroup create st g2 $
        r xreadgroup group g1 alice count 2 streams st >
        r xreadgroup group g1 bob streams st >
        r xadd empty 5-5 f v
        r xdel empty 5-5
        r xgroup create empty g 0
        foreach k {st empty} {
            r restore copy 0 [r dump $k]
            assert_equal [r xinfo stream $k full] [r xinfo stream copy full]
            r del copy
        }
        list [r xlen st] [r xlen empty]
    } {2 0}

    test "RESTORE of a stream payload captured from Redis 7.0 (STREAM_LISTPACKS_2)" {
        r del st
        r restore st 0 [unhex 130110000000000000000100000000000000013d3d0000001900030100010201816102816202000102010001000101010201050102010101dfff02030104010501000102010401010181630205010601ff030305010100000301026731000081ffffffffffffffff00000a00d083af734db6c291]
        list [r xrange st - +] [lindex [r xinfo groups st] 0]
    } {{{1-1 {a 1 b 2}} {2-0 {a 3 b 4}} {3-5 {c 5}}} {name g1 consumers 0 pending 0 last-delivered-id 0-0 entries-read {} lag 3}}

    test "FUNCTION DUMP shares the payload format: a Redis 7.0 payload restores, bodies are identical" {
        r function flush
        set p [unhex f5404623216c7561206e616d653d6c6962310a72656469732e72656769737465725f66756e6374696f6e28276678272c2066756e6374696f6e28292072657475726e203720656e64290a00b8d8dbb73991bfa4]
        r function restore $p
        assert_equal 7 [r fcall fx 0]
        set ours [r function dump]
        assert_equal [string range $p 0 end-10] [string range $ours 0 end-10]
        assert_equal [le64 [crc64 [string range $ours 0 end-8]]] [string range $ours end-7 end]
        r function flush
    } {OK}

    test "DUMP of an expired key is a null reply" {
        r set k v px 1
        after 5
        r dump k
    } {}

    test "RESTORE fires a restore keyspace event and counts as a change" {
        r flushall
        r set k v
        set p [r dump k]
        r del k
        set d0 -1
        regexp {rdb_changes_since_last_save:(\d+)} [r info persistence] -> d0
        r config set notify-keyspace-events KEA
        set rd [vk_deferring_client]
        $rd psubscribe "__keyevent@*__:*"
        $rd read
        r restore k 0 $p
        r set __end__ 1
        set events {}
        while 1 {
            set msg [$rd read]
            if {[lindex $msg 3] eq "__end__"} break
            set chan [lindex $msg 2]
            lappend events [string range $chan [expr {[string first : $chan] + 1}] end] [lindex $msg 3]
        }
        $rd close
        r config set notify-keyspace-events ""
        if {$d0 >= 0} {
            regexp {rdb_changes_since_last_save:(\d+)} [r info persistence] -> d1
            assert_equal 2 [expr {$d1 - $d0}]
        }
        set events
    } {restore k}

    test "RESTORE-ASKING restores like RESTORE" {
        r set k v
        set p [r dump k]
        r del k
        r restore-asking k 0 $p
        r get k
    } v

    test "COMMAND DOCS and INFO of DUMP and RESTORE" {
        set docs [r command docs restore]
        set args [dict get [lindex $docs 1] arguments]
        set names [lmap a $args {dict get $a name}]
        assert_equal {key ttl serialized-value replace absttl seconds frequency} $names
        set info [lindex [r command info dump] 0]
        list [lindex $info 1] [lindex [lindex [r command info restore] 0] 1]
    } {2 -4}

    test "Corrupt payloads (byte flips, checksum fixed) never crash the server" {
        r flushall
        r set str [string repeat abcd 40]
        r set int 123456
        r rpush list a b c 1 2 3 [string repeat q 30]
        r sadd iset 1 2 3 70000
        r sadd lset a b c
        r sadd hset {*}[lmap i [range 0 150] {set _ m$i}]
        r hset lhash a 1 b 2
        r hset bhash {*}[concat {*}[lmap i [range 0 300] {list f$i v$i}]]
        r zadd lz 1 a 2 b
        r zadd bz {*}[concat {*}[lmap i [range 0 150] {list $i m$i}]]
        r xadd st 1-1 a 1 b 2
        r xadd st 2-2 a 3 b 4 c 5
        r xgroup create st g 0
        r xreadgroup group g c1 count 1 streams st >
        set keys [r keys *]
        expr {srand(4321)}
        set ok 0
        set bad 0
        for {set iter 0} {$iter < 1500} {incr iter} {
            set p [r dump [lindex $keys [expr {$iter % [llength $keys]}]]]
            set body [string range $p 0 end-10]
            set flips [expr {1 + int(rand() * 3)}]
            for {set f 0} {$f < $flips} {incr f} {
                set at [expr {int(rand() * [string length $body])}]
                set byte [binary format c [expr {int(rand() * 256)}]]
                set body [string replace $body $at $at $byte]
            }
            if {[expr {$iter % 7 == 0}]} {
                set body [string range $body 0 [expr {int(rand() * [string length $body])}]]
            }
            if {[catch {r restore victim 0 [seal_payload $body] replace} err]} {
                assert_match "*Bad data format*" $err
                incr bad
            } else {
                incr ok
                value_of victim   ;# a restored value must be readable
                r del victim
            }
        }
        assert_equal PONG [r ping]
        assert {$bad > 0}
        expr {$ok + $bad}
    } 1500
}
