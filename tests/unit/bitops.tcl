# Bitmap commands: SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP, BITFIELD and
# BITFIELD_RO.  Randomized tests compare the server with a Tcl model built
# on `binary scan B*` (bit 0 is the most significant bit of byte 0).
# Tests tagged "valkey-only" cover behaviour newer than Redis 7.0.

# ---------------------------------------------------------------- helpers

proc bit_rand_bin {len} {
    set s ""
    for {set i 0} {$i < $len} {incr i} {
        append s [format %c [expr {int(rand() * 256)}]]
    }
    return $s
}

# A random string biased towards runs of 0x00 and 0xff, so that BITPOS
# searches cross long stretches.
proc bit_rand_runs {len} {
    set s ""
    while {[string length $s] < $len} {
        set n [expr {1 + int(rand() * 20)}]
        switch [expr {int(rand() * 3)}] {
            0 { append s [string repeat "\x00" $n] }
            1 { append s [string repeat "\xff" $n] }
            2 { append s [bit_rand_bin $n] }
        }
    }
    return [string range $s 0 [expr {$len - 1}]]
}

proc bit_string {s} {
    binary scan $s B* bits
    return $bits
}

proc bit_count_model {bits} {
    return [expr {[string length $bits] - [string length [string map {1 ""} $bits]]}]
}

# Clamps [start, end] the way BITCOUNT/BITPOS do.  Returns {} if empty.
# Only BITCOUNT (reversed=1) treats two negative ends with start > end as
# an empty range before clamping.
proc bit_range_model {start end total {reversed 0}} {
    if {$reversed && $start < 0 && $end < 0 && $start > $end} { return {} }
    if {$start < 0} { incr start $total }
    if {$end < 0} { incr end $total }
    if {$start < 0} { set start 0 }
    if {$end < 0} { set end 0 }
    if {$end >= $total} { set end [expr {$total - 1}] }
    if {$start > $end} { return {} }
    return [list $start $end]
}

# BITCOUNT key start end unit, modelled.
proc bitcount_model {s start end unit} {
    set bits [bit_string $s]
    set total [expr {$unit eq "bit" ? [string length $bits] : [string length $s]}]
    set r [bit_range_model $start $end $total 1]
    if {$r eq ""} { return 0 }
    lassign $r start end
    if {$unit eq "byte"} {
        set start [expr {$start * 8}]
        set end [expr {$end * 8 + 7}]
    }
    return [bit_count_model [string range $bits $start $end]]
}

# BITPOS key bit ?start? ?end? ?unit?, modelled; args as given to BITPOS.
proc bitpos_model {s bit args} {
    set bits [bit_string $s]
    set unit byte
    set end_given [expr {[llength $args] >= 2}]
    if {[llength $args] == 3} { set unit [lindex $args 2] }
    set total [expr {$unit eq "bit" ? [string length $bits] : [string length $s]}]
    set start [expr {[llength $args] >= 1 ? [lindex $args 0] : 0}]
    set end [expr {$end_given ? [lindex $args 1] : $total - 1}]
    set r [bit_range_model $start $end $total]
    if {$r eq ""} { return -1 }
    lassign $r start end
    if {$unit eq "byte"} {
        set start [expr {$start * 8}]
        set end [expr {$end * 8 + 7}]
    }
    set pos [string first $bit [string range $bits $start $end]]
    if {$pos >= 0} { return [expr {$start + $pos}] }
    if {$bit == 0 && !$end_given} { return [expr {$end + 1}] }
    return -1
}

# BITOP modelled on lists of byte values.
proc bitop_model {op args} {
    set max 0
    set vals {}
    foreach s $args {
        binary scan $s cu* bytes
        lappend vals $bytes
        if {[llength $bytes] > $max} { set max [llength $bytes] }
    }
    set out ""
    for {set i 0} {$i < $max} {incr i} {
        set acc {}
        foreach bytes $vals {
            set b [expr {$i < [llength $bytes] ? [lindex $bytes $i] : 0}]
            if {$acc eq ""} {
                set acc $b
                if {$op eq "not"} { set acc [expr {~$acc & 255}] }
                continue
            }
            switch $op {
                and { set acc [expr {$acc & $b}] }
                or  { set acc [expr {$acc | $b}] }
                xor { set acc [expr {$acc ^ $b}] }
            }
        }
        append out [binary format cu $acc]
    }
    return $out
}

# A BITFIELD field read from the model's bit string.
proc bitfield_get_model {bits signed width offset} {
    set field [string range $bits $offset [expr {$offset + $width - 1}]]
    while {[string length $field] < $width} { append field 0 }
    set v 0
    foreach b [split $field ""] { set v [expr {$v * 2 + $b}] }
    if {$signed && [string index $field 0] eq "1"} { set v [expr {$v - (1 << $width)}] }
    return $v
}

proc bitfield_set_model {bitsVar width offset value} {
    upvar 1 $bitsVar bits
    set need [expr {(($offset + $width + 7) / 8) * 8}]
    while {[string length $bits] < $need} { append bits 0 }
    set u [expr {$value & ((1 << $width) - 1)}]
    set field ""
    for {set k [expr {$width - 1}]} {$k >= 0} {incr k -1} {
        append field [expr {($u >> $k) & 1}]
    }
    set bits [string replace $bits $offset [expr {$offset + $width - 1}] $field]
}

# Fits v into a signed/unsigned field of `width` bits under `policy`.
# Returns {} for FAIL.
proc bitfield_fit_model {signed width policy v} {
    if {$signed} {
        set min [expr {-(1 << ($width - 1))}]
        set max [expr {(1 << ($width - 1)) - 1}]
    } else {
        set min 0
        set max [expr {(1 << $width) - 1}]
    }
    if {$v >= $min && $v <= $max} { return $v }
    switch $policy {
        fail { return {} }
        sat { return [expr {$v > $max ? $max : $min}] }
        wrap {
            set u [expr {$v & ((1 << $width) - 1)}]
            if {$signed && $u > $max} { set u [expr {$u - (1 << $width)}] }
            return $u
        }
    }
}

# Makes `key` a list, the usual "wrong type" value.  Until the server has
# lists the test is skipped from this point on (earlier asserts still ran).
proc make_list {key} {
    r del $key
    if {[catch {r rpush $key a} err]} {
        if {[string match "*unknown command*" $err]} { skip "no list type: $err" }
        error $err
    }
}

start_server {tags {bitops}} {
    # ------------------------------------------------------------ SETBIT / GETBIT

    test "SETBIT creates the key and returns the old bit" {
        r del b
        assert_equal 0 [r setbit b 1 1]
        assert_equal 1 [r setbit b 1 1]
        assert_equal 1 [r setbit b 1 0]
        assert_equal 0 [r setbit b 1 0]
        r get b
    } "\x00"

    test "SETBIT bit 0 is the most significant bit" {
        r del b
        r setbit b 0 1
        r setbit b 15 1
        r get b
    } "\x80\x01"

    test "SETBIT grows the string with zero bytes" {
        r set b "\xff"
        r setbit b 31 1
        r get b
    } "\xff\x00\x00\x01"

    test "SETBIT against an int-encoded value turns it into raw" {
        r set b 1
        assert_encoding int b
        assert_equal 0 [r setbit b 6 1]
        assert_encoding raw b
        r get b
    } 3

    test "SETBIT keeps the TTL" {
        r set b a ex 100
        r setbit b 7 0
        assert_range [r ttl b] 90 100
        r get b
    } "`"

    test "SETBIT against a non-string key" {
        make_list l
        assert_error "WRONGTYPE*" {r setbit l 0 1}
    }

    test "SETBIT with an out of range bit value" {
        r del b
        foreach v {2 -1 abc 1.0 ""} {
            assert_error "ERR bit is not an integer or out of range" {r setbit b 0 $v}
        }
        r exists b
    } 0

    test "SETBIT with an out of range offset" {
        r del b
        foreach off {-1 4294967296 abc 1.5 99999999999999999999} {
            assert_error "ERR bit offset is not an integer or out of range" {r setbit b $off 1}
        }
        r exists b
    } 0

    test "SETBIT checks the offset before the value" {
        assert_error "ERR bit offset is not an integer or out of range" {r setbit b -1 2}
    }

    test "SETBIT fuzzing against a Tcl model" {
        r del b
        set bits ""
        for {set i 0} {$i < 500} {incr i} {
            set off [expr {int(rand() * 300)}]
            set v [expr {int(rand() * 2)}]
            while {[string length $bits] <= $off} { append bits 00000000 }
            set old [string index $bits $off]
            assert_equal $old [r setbit b $off $v]
            set bits [string replace $bits $off $off $v]
        }
        assert_equal $bits [bit_string [r get b]]
    }

    test "GETBIT against a missing key, past the end and inside" {
        r del b
        assert_equal 0 [r getbit b 0]
        assert_equal 0 [r getbit b 4294967295]
        r set b "\x80\x01"
        list [r getbit b 0] [r getbit b 1] [r getbit b 15] [r getbit b 16] [r getbit b 100000]
    } {1 0 1 0 0}

    test "GETBIT against an int-encoded value" {
        r set b 1   ;# "1" is 0x31 = 00110001
        set got {}
        for {set i 0} {$i < 8} {incr i} { lappend got [r getbit b $i] }
        assert_encoding int b
        set got
    } {0 0 1 1 0 0 0 1}

    test "GETBIT errors" {
        assert_error "ERR bit offset is not an integer or out of range" {r getbit nosuch -1}
        assert_error "ERR bit offset is not an integer or out of range" {r getbit nosuch 4294967296}
        make_list l
        assert_error "WRONGTYPE*" {r getbit l 0}
    }

    # ------------------------------------------------------------ BITCOUNT

    test "BITCOUNT against a missing key" {
        r del b
        list [r bitcount b] [r bitcount b 0 -1] [r bitcount b 0 -1 bit]
    } {0 0 0}

    test "BITCOUNT whole strings" {
        r set b "foobar"
        r set i 1234567
        r set e ""
        list [r bitcount b] [r bitcount i] [r bitcount e]
    } {26 26 0}

    test "BITCOUNT with byte ranges" {
        r set b "foobar"
        list [r bitcount b 0 0] [r bitcount b 1 1] [r bitcount b 1 -2] [r bitcount b -2 -1] \
             [r bitcount b 0 100] [r bitcount b 4 2] [r bitcount b -100 -90] [r bitcount b 100 200] \
             [r bitcount b 0 -1 byte] [r bitcount b 1 1 BYTE]
    } {4 6 18 7 26 0 4 0 26 6}

    test "BITCOUNT with bit ranges" {
        r set b "foobar"
        list [r bitcount b 5 30 bit] [r bitcount b 0 -1 bit] [r bitcount b 1 1 bit] [r bitcount b 2 2 bit] \
             [r bitcount b -1 -1 bit] [r bitcount b 7 6 BIT] [r bitcount b 0 1000 bit] [r bitcount b 40 47 bit]
    } {17 26 1 1 0 0 26 4}

    test "BITCOUNT with both ends negative and start after end" {
        r set b "foobar"
        list [r bitcount b -1 -2] [r bitcount b -10 -20] [r bitcount b -1 -2 bit]
    } {0 0 0}

    test "BITCOUNT syntax errors" {
        r set b foobar
        assert_error "ERR syntax error" {r bitcount b 0 1 bit extra}
        assert_error "ERR syntax error" {r bitcount b 0 1 bits}
        assert_error "ERR value is not an integer or out of range" {r bitcount b a 1}
        assert_error "ERR value is not an integer or out of range" {r bitcount b 0 1.5}
        make_list l
        assert_error "WRONGTYPE*" {r bitcount l}
        assert_error "WRONGTYPE*" {r bitcount l 0 -1 bit}
    }

    test "BITCOUNT fuzzing against a Tcl model" {
        for {set i 0} {$i < 300} {incr i} {
            set s [bit_rand_bin [expr {int(rand() * 80)}]]
            r set b $s
            assert_equal [bit_count_model [bit_string $s]] [r bitcount b]
            set unit [lindex {byte bit} [expr {int(rand() * 2)}]]
            set span [expr {$unit eq "bit" ? 700 : 100}]
            set start [expr {int(rand() * $span) - $span / 2}]
            set end [expr {int(rand() * $span) - $span / 2}]
            assert_equal [bitcount_model $s $start $end $unit] [r bitcount b $start $end $unit] \
                "len [string length $s] $start $end $unit"
            if {$unit eq "byte"} {
                assert_equal [bitcount_model $s $start $end byte] [r bitcount b $start $end]
            }
        }
    }

    test "BITCOUNT of a long string (word-at-a-time path)" {
        set s [bit_rand_bin 3000]
        r set b $s
        assert_equal [bitcount_model $s 0 -1 byte] [r bitcount b]
        assert_equal [bitcount_model $s 3 2990 byte] [r bitcount b 3 2990]
        assert_equal [bitcount_model $s 17 23999 bit] [r bitcount b 17 23999 bit]
    }

    # ------------------------------------------------------------ BITPOS

    test "BITPOS against a missing key" {
        r del b
        list [r bitpos b 0] [r bitpos b 1] [r bitpos b 0 1 2] [r bitpos b 1 0 -1 bit]
    } {0 -1 0 -1}

    test "BITPOS basic" {
        r set b "\xff\xf0\x00"
        list [r bitpos b 0] [r bitpos b 1] [r bitpos b 1 2] [r bitpos b 0 0 0] [r bitpos b 1 1] [r bitpos b 0 -1]
    } {12 0 -1 -1 8 16}

    test "BITPOS looking for 0 past the end without an explicit end" {
        r set b "\xff\xff\xff"
        list [r bitpos b 0] [r bitpos b 0 0] [r bitpos b 0 1] [r bitpos b 0 0 -1] [r bitpos b 0 0 -1 bit]
    } {24 24 24 -1 -1}

    test "BITPOS with bit ranges" {
        r set b "\x00\xff\x00"
        list [r bitpos b 1 7 15 bit] [r bitpos b 0 8 15 bit] [r bitpos b 0 8 16 bit] [r bitpos b 1 0 7 bit] \
             [r bitpos b 1 -9 -1 bit] [r bitpos b 0 -9 -1 bit] [r bitpos b 1 3 2 bit]
    } {8 -1 16 -1 15 16 -1}

    test "BITPOS with both ends negative clamps them (unlike BITCOUNT)" {
        r set b foobar
        list [r bitpos b 1 -10 -20] [r bitpos b 0 -10 -20] [r bitpos b 1 -3 -5] [r bitpos b 0 -100 -200 bit] \
             [r bitpos b 1 -10 -20 bit]
    } {1 0 -1 0 -1}

    test "BITPOS start past the end" {
        r set b "\x00\xff"
        list [r bitpos b 1 5] [r bitpos b 0 5] [r bitpos b 1 100 200 bit]
    } {-1 -1 -1}

    test "BITPOS against an empty string" {
        r set b ""
        list [r bitpos b 0] [r bitpos b 1] [r bitpos b 0 0 -1]
    } {-1 -1 -1}

    test "BITPOS against an int-encoded value" {
        r set b 1   ;# 0x31
        list [r bitpos b 1] [r bitpos b 0] [r bitpos b 1 3 7 bit]
    } {2 0 3}

    test "BITPOS errors" {
        r set b foo
        assert_error "ERR The bit argument must be 1 or 0." {r bitpos b 2}
        assert_error "ERR The bit argument must be 1 or 0." {r bitpos b -1}
        assert_error "ERR value is not an integer or out of range" {r bitpos b x}
        assert_error "ERR value is not an integer or out of range" {r bitpos b 1 x}
        assert_error "ERR value is not an integer or out of range" {r bitpos b 1 0 x}
        assert_error "ERR syntax error" {r bitpos b 1 0 1 bits}
        assert_error "ERR syntax error" {r bitpos b 1 0 1 bit x}
        make_list l
        assert_error "WRONGTYPE*" {r bitpos l 1}
    }

    test "BITPOS fuzzing against a Tcl model" {
        for {set i 0} {$i < 400} {incr i} {
            set s [bit_rand_runs [expr {int(rand() * 60)}]]
            r set b $s
            set bit [expr {int(rand() * 2)}]
            set unit [lindex {byte bit} [expr {int(rand() * 2)}]]
            set span [expr {$unit eq "bit" ? 500 : 70}]
            set start [expr {int(rand() * $span) - $span / 2}]
            set end [expr {int(rand() * $span) - $span / 2}]
            switch [expr {int(rand() * 4)}] {
                0 { set extra {} }
                1 { set extra [list $start] }
                2 { set extra [list $start $end] }
                3 { set extra [list $start $end $unit] }
            }
            assert_equal [bitpos_model $s $bit {*}$extra] [r bitpos b $bit {*}$extra] \
                "[bit_string $s] bit $bit args $extra"
        }
    }

    test "BITPOS with a BIT range that ends inside its first byte" {
        # 0x7a = 01111010: bit 1 of the byte is set, bit 5 is not. A range
        # of bits 5..5 must not look back at the start of the byte.
        r set bp [binary format H* ff7a]
        list [r bitpos bp 1 13 13 bit] [r bitpos bp 1 9 9 bit] [r bitpos bp 0 13 13 bit] \
            [r bitpos bp 1 13 14 bit] [r bitpos bp 1 -3 -3 bit]
    } {-1 9 13 14 -1}

    test "BITPOS over long runs (word-at-a-time path)" {
        set s "[string repeat "\x00" 1000]\x01[string repeat "\xff" 1000]\x7f"
        r set b $s
        list [r bitpos b 1] [r bitpos b 0 1001] [r bitpos b 1 5 -1] [r bitpos b 0 1001 2000] [r bitpos b 1 9 8006 bit] \
             [r bitpos b 1 9 8007 bit]
    } {8007 16008 8007 -1 -1 8007}

    # ------------------------------------------------------------ BITOP

    test "BITOP AND, OR, XOR and NOT on simple strings" {
        r set a "\xf0\x0f"
        r set b "\xff"
        list [r bitop and d1 a b] [r get d1] [r bitop or d2 a b] [r get d2] [r bitop xor d3 a b] [r get d3] \
             [r bitop not d4 a] [r get d4]
    } [list 2 "\xf0\x00" 2 "\xff\x0f" 2 "\x0f\x0f" 2 "\x0f\xf0"]

    test "BITOP with a single source copies it" {
        r set a "foobar"
        list [r bitop and d a] [r get d] [r bitop or d a] [r get d] [r bitop xor d a] [r get d]
    } {6 foobar 6 foobar 6 foobar}

    test "BITOP treats missing keys as zero bytes" {
        r del nosuch
        r set a "\xff\xff"
        list [r bitop and d a nosuch] [r get d] [r bitop or d nosuch a] [r get d]
    } [list 2 "\x00\x00" 2 "\xff\xff"]

    test "BITOP with only missing sources deletes the destination" {
        r del nosuch nosuch2
        r set d something
        assert_equal 0 [r bitop or d nosuch nosuch2]
        assert_equal 0 [r exists d]
        r set e ""
        r set d something
        assert_equal 0 [r bitop not d e]
        r exists d
    } 0

    test "BITOP overwrites a destination of any type and drops its TTL" {
        r set a foo
        r set d old ex 100
        r bitop and d a a
        assert_equal -1 [r ttl d]
        make_list d
        r bitop or d a
        r get d
    } foo

    test "BITOP with a source that is the destination" {
        r set a "\x0f"
        r bitop not a a
        r get a
    } "\xf0"

    test "BITOP against int-encoded sources" {
        r set a 1
        r set b 2
        r bitop or d a b
        r get d
    } 3

    test "BITOP errors" {
        r set a foo
        assert_error "ERR syntax error" {r bitop nand d a}
        assert_error "ERR BITOP NOT must be called with a single source key." {r bitop not d a a}
        assert_error "ERR wrong number of arguments for 'bitop' command" {r bitop and d}
        make_list l
        assert_error "WRONGTYPE*" {r bitop and d a l}
        assert_error "WRONGTYPE*" {r bitop not d l}
    }

    test "BITOP with a wrong-type source leaves the destination alone" {
        make_list l
        r set d keep
        catch {r bitop or d a l}
        r get d
    } keep

    test "BITOP operation names are case-insensitive" {
        r set a "\x01"
        r set b "\x02"
        list [r bitop Or d a b] [r get d] [r bitop XOR d a b] [r get d]
    } [list 1 "\x03" 1 "\x03"]

    foreach op {and or xor} {
        test "BITOP [string toupper $op] fuzzing against a Tcl model" {
            for {set i 0} {$i < 40} {incr i} {
                set keys {}
                set vals {}
                set n [expr {1 + int(rand() * 8)}]
                for {set j 0} {$j < $n} {incr j} {
                    set v [bit_rand_bin [expr {int(rand() * 64)}]]
                    r set k$j $v
                    lappend keys k$j
                    lappend vals $v
                }
                set expected [bitop_model $op {*}$vals]
                assert_equal [string length $expected] [r bitop $op dest {*}$keys]
                assert_equal $expected [r get dest]
            }
        }
    }

    test "BITOP NOT fuzzing against a Tcl model" {
        for {set i 0} {$i < 40} {incr i} {
            set v [bit_rand_bin [expr {int(rand() * 100)}]]
            r set src $v
            set expected [bitop_model not $v]
            assert_equal [string length $expected] [r bitop not dest src]
            assert_equal $expected [r get dest]
        }
    }

    # ------------------------------------------------------------ BITFIELD

    test "BITFIELD with no subcommands" {
        r del bf
        list [r bitfield bf] [r exists bf]
    } {{} 0}

    test "BITFIELD signed SET and GET" {
        r del bf
        list [r bitfield bf set i8 0 -100] [r bitfield bf get i8 0]
    } {0 -100}

    test "BITFIELD unsigned SET and GET" {
        r del bf
        list [r bitfield bf set u8 0 255] [r bitfield bf get u8 0] [r get bf]
    } [list 0 255 "\xff"]

    test "BITFIELD SET replies with the old value" {
        r del bf
        r bitfield bf set u8 0 100 set u8 0 200 get u8 0
    } {0 100 200}

    test "BITFIELD fields at unaligned offsets" {
        r del bf
        r bitfield bf set u4 3 15 get u8 0 get u4 3 get i4 3 get u1 2 get u1 3
    } {0 30 15 -1 0 1}

    test "BITFIELD # offsets are multiplied by the width" {
        r del bf
        r bitfield bf set u8 #0 1 set u8 #1 2 set u8 #2 3 get u16 #0 get u8 8
    } {0 0 0 258 2}

    test "BITFIELD i64 round trip and u63 maximum" {
        r del bf
        list [r bitfield bf set i64 0 -9223372036854775808] [r bitfield bf get i64 0] \
             [r bitfield bf set u63 64 9223372036854775807] [r bitfield bf get u63 64]
    } {0 -9223372036854775808 0 9223372036854775807}

    test "BITFIELD reads past the end as zero" {
        r set bf "\xff"
        r bitfield bf get u8 4 get i8 100 get u16 0
    } {240 0 65280}

    test "BITFIELD against a missing key with only GET creates nothing" {
        r del bf
        list [r bitfield bf get u8 0] [r exists bf]
    } {0 0}

    test "BITFIELD INCRBY" {
        r del bf
        r bitfield bf incrby u8 0 10 incrby u8 0 10 incrby i8 0 -30 get u8 0
    } {10 20 -10 246}

    test "BITFIELD overflow WRAP is the default" {
        r del bf
        r bitfield bf set u8 0 255 incrby u8 0 1 incrby u8 0 -1 set i8 8 127 incrby i8 8 1 incrby i8 8 -1
    } {0 0 255 0 -128 127}

    test "BITFIELD overflow SAT" {
        r del bf
        r bitfield bf overflow sat set u8 0 250 incrby u8 0 10 incrby u8 0 -300 set i8 8 120 incrby i8 8 10 \
            incrby i8 8 -300
    } {0 255 0 0 127 -128}

    test "BITFIELD overflow FAIL" {
        r del bf
        r bitfield bf overflow fail set u8 0 250 incrby u8 0 10 incrby u8 0 -251 incrby u8 0 5 get u8 0
    } {0 {} {} 255 255}

    test "BITFIELD OVERFLOW applies to the following operations only" {
        r del bf
        r bitfield bf set u2 0 3 incrby u2 0 1 overflow sat incrby u2 0 5 overflow fail incrby u2 0 1 \
            overflow wrap incrby u2 0 1
    } {0 0 3 {} 0}

    test "BITFIELD SET out of the field's range follows the overflow policy" {
        r del bf
        list [r bitfield bf set u8 0 256 get u8 0] [r bitfield bf set i8 0 200 get i8 0] \
             [r bitfield bf overflow sat set u8 0 -1 get u8 0] [r bitfield bf overflow sat set i8 0 -1000 get i8 0] \
             [r bitfield bf overflow fail set u8 0 300 get u8 0] [r bitfield bf set u8 0 -1 get u8 0]
    } {{0 0} {0 -56} {200 255} {-1 -128} {{} 128} {128 255}}

    test "BITFIELD i64 and u63 increments at the limits" {
        r del bf
        list [r bitfield bf set i64 0 9223372036854775807 incrby i64 0 1] \
             [r bitfield bf overflow sat set i64 0 9223372036854775807 incrby i64 0 1] \
             [r bitfield bf overflow fail incrby i64 0 -9223372036854775808] \
             [r bitfield bf overflow wrap set u63 64 9223372036854775807 incrby u63 64 2]
    } {{0 -9223372036854775808} {-9223372036854775808 9223372036854775807} -1 {0 1}}

    test "BITFIELD operation names are case-insensitive" {
        r del bf
        r bitfield bf SET u8 0 1 Get u8 0 InCrBy u8 0 1 OVERFLOW Sat INCRBY u8 0 1000
    } {0 1 2 255}

    test "BITFIELD type errors" {
        r del bf
        foreach t {u64 i65 i0 u0 x8 8 i "" u-1 i1.5} {
            assert_error "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is." \
                {r bitfield bf get $t 0}
        }
        r exists bf
    } 0

    test "BITFIELD offset errors" {
        assert_error "ERR bit offset is not an integer or out of range" {r bitfield bf get u8 -1}
        assert_error "ERR bit offset is not an integer or out of range" {r bitfield bf get u8 x}
        assert_error "ERR bit offset is not an integer or out of range" {r bitfield bf get u8 4294967296}
        assert_error "ERR bit offset is not an integer or out of range" {r bitfield bf set u8 #536870912 1}
        assert_error "ERR bit offset is not an integer or out of range" {r bitfield bf get u8 #-1}
        assert_error "ERR bit offset is not an integer or out of range" {r bitfield bf get u8 ##1}
        r bitfield bf get u8 #536870911
    } 0

    test "BITFIELD value, overflow and syntax errors" {
        assert_error "ERR value is not an integer or out of range" {r bitfield bf set u8 0 x}
        assert_error "ERR value is not an integer or out of range" {r bitfield bf incrby u8 0 1.5}
        assert_error "ERR Invalid OVERFLOW type specified" {r bitfield bf overflow foo}
        assert_error "ERR syntax error" {r bitfield bf foo u8 0}
        assert_error "ERR syntax error" {r bitfield bf get u8}
        assert_error "ERR syntax error" {r bitfield bf set u8 0}
        assert_error "ERR syntax error" {r bitfield bf overflow}
    }

    test "BITFIELD parses everything before running anything" {
        r del bf
        assert_error "ERR syntax error" {r bitfield bf set u8 0 255 get u8}
        r exists bf
    } 0

    test "BITFIELD against a non-string key" {
        make_list l
        assert_error "WRONGTYPE*" {r bitfield l get u8 0}
        assert_error "WRONGTYPE*" {r bitfield l set u8 0 1}
        assert_error "WRONGTYPE*" {r bitfield l}
    }

    test "BITFIELD against an int-encoded value" {
        r set bf 1   ;# 0x31
        list [r bitfield bf get u8 0] [r bitfield bf incrby u8 0 1] [r get bf]
    } {49 50 2}

    test "BITFIELD keeps the TTL" {
        r set bf a ex 100
        r bitfield bf set u8 0 98
        assert_range [r ttl bf] 90 100
        r get bf
    } b

    test "BITFIELD fuzzing against a Tcl model" {
        r del bf
        set bits ""
        for {set i 0} {$i < 300} {incr i} {
            set signed [expr {int(rand() * 2)}]
            set width [expr {1 + int(rand() * ($signed ? 64 : 63))}]
            set type [expr {$signed ? "i" : "u"}]$width
            set offset [expr {int(rand() * 200)}]
            set policy [lindex {wrap sat fail} [expr {int(rand() * 3)}]]
            set v [expr {entier(rand() * (1 << $width)) - (1 << ($width - 1))}]
            if {rand() < 0.2} { set v [expr {int(rand() * 2000) - 1000}] }
            set old [bitfield_get_model $bits $signed $width $offset]
            switch [expr {int(rand() * 3)}] {
                0 {
                    assert_equal [list $old] [r bitfield bf get $type $offset]
                }
                1 {
                    set fit [bitfield_fit_model $signed $width $policy [expr {$signed ? $v : ($v & 0xffffffffffffffff)}]]
                    set reply [r bitfield bf overflow $policy set $type $offset $v]
                    if {$fit eq ""} {
                        assert_equal [list {}] $reply "set $type $offset $v $policy"
                    } else {
                        assert_equal [list $old] $reply "set $type $offset $v $policy"
                        bitfield_set_model bits $width $offset $fit
                    }
                }
                2 {
                    set fit [bitfield_fit_model $signed $width $policy [expr {$old + $v}]]
                    set reply [r bitfield bf overflow $policy incrby $type $offset $v]
                    if {$fit eq ""} {
                        assert_equal [list {}] $reply "incrby $type $offset $v $policy"
                    } else {
                        assert_equal [list $fit] $reply "incrby $type $offset $v $policy"
                        bitfield_set_model bits $width $offset $fit
                    }
                }
            }
            # The server grows the string for a failed write too; compare
            # only the bits the model knows about.
            set got [bit_string [r get bf]]
            assert_equal $bits [string range $got 0 [expr {[string length $bits] - 1}]]
        }
    }

    # ------------------------------------------------------------ BITFIELD_RO

    test "BITFIELD_RO GET" {
        r set bf "\x01\x02"
        r bitfield_ro bf get u8 0 get u16 0 get i4 12
    } {1 258 2}

    test "BITFIELD_RO refuses SET and INCRBY" {
        r set bf "\x01"
        assert_error "ERR BITFIELD_RO only supports the GET subcommand" {r bitfield_ro bf set u8 0 1}
        assert_error "ERR BITFIELD_RO only supports the GET subcommand" {r bitfield_ro bf get u8 0 incrby u8 0 1}
        r get bf
    } "\x01"

    test "BITFIELD_RO accepts OVERFLOW and reports parse errors first" {
        r set bf "\x01"
        assert_equal {1} [r bitfield_ro bf overflow fail get u8 0]
        assert_error "ERR Invalid bitfield type*" {r bitfield_ro bf set u64 0 1}
    }

    test "BITFIELD_RO against missing and non-string keys" {
        r del nosuch
        assert_equal {0 {}} [list [r bitfield_ro nosuch get i8 0] [r bitfield_ro nosuch]]
        make_list l
        assert_error "WRONGTYPE*" {r bitfield_ro l get u8 0}
    }

    # ------------------------------------------------------------ notifications, dirty, metadata

    test "Keyspace events of the bitmap commands" {
        r del b d nosuch
        if {[catch {r config set notify-keyspace-events KEA} err]} { skip "notifications not configurable: $err" }
        set rd [vk_deferring_client]
        $rd psubscribe "__keyevent@*__:*"
        if {[catch {$rd read} err]} {
            $rd close
            r config set notify-keyspace-events ""
            skip "PSUBSCRIBE not available: $err"
        }
        r setbit b 0 1
        r setbit b 0 1          ;# no change, no event
        r bitfield b set u8 0 1
        r bitfield b get u8 0   ;# read only
        r bitop not d b
        r bitop and d nosuch    ;# empty result deletes d
        r set __end__ 1
        set events {}
        while 1 {
            set msg [$rd read]
            set chan [lindex $msg 2]
            if {[lindex $msg 3] eq "__end__"} break
            lappend events [string range $chan [expr {[string first : $chan] + 1}] end] [lindex $msg 3]
        }
        $rd close
        r config set notify-keyspace-events ""
        set events
    } {setbit b setbit b set d del d}

    test "Bit commands count changes in the dirty counter" {
        r flushdb
        set info [r info persistence]
        if {![regexp {rdb_changes_since_last_save:(\d+)} $info -> d0]} { skip "no rdb_changes_since_last_save" }
        r setbit b 0 1          ;# 1
        r setbit b 0 1          ;# no change
        r bitfield b set u8 0 255 incrby u8 8 1   ;# 2 (bit grows and changes)
        r bitfield b get u8 0
        r bitop or d b          ;# 1
        regexp {rdb_changes_since_last_save:(\d+)} [r info persistence] -> d1
        expr {$d1 - $d0}
    } 4

    test "COMMAND INFO of the bitmap commands" {
        if {[catch {r command info getbit} err]} { skip "COMMAND INFO not available: $err" }
        set got {}
        foreach cmd {setbit getbit bitcount bitpos bitop bitfield bitfield_ro} {
            set info [lindex [r command info $cmd] 0]
            lappend got $cmd [lindex $info 1] [lsort [lindex $info 2]] [lrange $info 3 5]
        }
        set got
    } {setbit 4 {denyoom write} {1 1 1} getbit 3 {fast readonly} {1 1 1} bitcount -2 readonly {1 1 1} bitpos -3 readonly {1 1 1} bitop -4 {denyoom write} {2 -1 1} bitfield -2 {denyoom write} {1 1 1} bitfield_ro -2 {fast readonly} {1 1 1}}
}

start_server {tags {bitops valkey-only}} {
    test "BITCOUNT checks its arguments even for a missing key" {
        r del nosuch
        assert_error "ERR value is not an integer or out of range" {r bitcount nosuch a b}
        assert_error "ERR syntax error" {r bitcount nosuch 0 1 foo}
        assert_equal 0 [r bitcount nosuch 0]
    }

    test "BITCOUNT key start counts to the end of the string" {
        r set b foobar
        list [r bitcount b 0] [r bitcount b 1] [r bitcount b -1] [r bitcount b -100] [r bitcount b 6] \
             [r bitcount b 100] [r bitcount b 0 -1]
    } {26 22 4 26 0 0 26}

    test "BITCOUNT and BITPOS read start, then the unit, then end" {
        r set b foobar
        assert_error "ERR value is not an integer or out of range" {r bitcount b x 1}
        assert_error "ERR syntax error" {r bitcount b 0 x bits}
        assert_error "ERR value is not an integer or out of range" {r bitcount b 0 x bit}
        assert_error "ERR value is not an integer or out of range" {r bitcount b x}
        assert_error "ERR syntax error" {r bitpos b 1 0 x bits}
        assert_error "ERR value is not an integer or out of range" {r bitpos b 1 0 x bit}
        assert_error "ERR value is not an integer or out of range" {r bitpos b 1 x 1 bits}
    }

    test "SETBIT and BITFIELD count a write that changes nothing as no change" {
        r flushdb
        regexp {rdb_changes_since_last_save:(\d+)} [r info persistence] -> d0
        r setbit b 7 0                           ;# 1: the key is created
        r setbit b 7 0                           ;# nothing
        r bitfield b set u8 0 0                  ;# nothing: same value, same length
        r bitfield b set u8 0 0 incrby u4 0 0    ;# nothing
        r bitfield b set u8 0 1 set u8 0 1       ;# 1: the first one changes it
        r bitfield b set u8 8 0                  ;# 1: the string grows
        r bitfield n overflow fail set u2 0 8    ;# the only write fails: nothing
        regexp {rdb_changes_since_last_save:(\d+)} [r info persistence] -> d1
        expr {$d1 - $d0}
    } 3

    test "BITPOS checks its arguments even for a missing key" {
        r del nosuch
        assert_error "ERR value is not an integer or out of range" {r bitpos nosuch 1 a}
        assert_error "ERR syntax error" {r bitpos nosuch 1 0 1 foo}
        assert_error "ERR The bit argument must be 1 or 0." {r bitpos nosuch 2}
    }
}
