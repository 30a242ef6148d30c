# Streams through DUMP/RESTORE (rdb_stream.c): RDB_TYPE_STREAM_LISTPACKS_3
# written, _1/_2/_3 read. Round trips of streams built by commands (several
# nodes, deleted entries, mixed field sets, big and binary values, groups,
# consumers, PELs, empty streams with and without groups), payloads
# captured from Redis 7.0 (RDB 10, RDB_TYPE_STREAM_LISTPACKS_2, and the
# same bodies rewritten as RDB_TYPE_STREAM_LISTPACKS for RDB 9) restored
# and compared with Redis 7.0's XINFO STREAM FULL of the same payload, and
# corrupt payloads: each layout, count, ordering and reference rule broken
# on its own, truncations, and random byte flips with the checksum fixed.
#
# Redis 7.0 replies differ from ours in two fields only: radix-tree-nodes
# counts rax nodes (we have no rax) and consumers have no active-time (a
# Valkey 7.2 field; loaded from _2 or older it is the seen-time).

# ---- payload tools ----------------------------------------------------------

source [file join $::vk::cfg(root) tests assets dump-payload.tcl]

# A DUMP payload: type byte, body, RDB version, checksum.
proc srdb_seal {type body {ver 11}} { seal_payload "[binary format c $type]$body" $ver }

# A 16-byte raw stream ID.
proc srdb_id {ms seq} { binary format WW $ms $seq }

# A listpack of elements; "i:N" is the integer N, anything else a string.
proc srdb_lp {elems} {
    set body ""
    foreach e $elems {
        if {[string match i:* $e]} {
            set v [string range $e 2 end]
            if {$v >= 0 && $v <= 127} {
                set enc [binary format c $v]
            } elseif {$v >= -4096 && $v <= 4095} {
                set u [expr {$v & 0x1fff}]
                set enc [binary format cc [expr {0xc0 | ($u >> 8)}] [expr {$u & 0xff}]]
            } elseif {$v >= -32768 && $v <= 32767} {
                set enc "\xf1[binary format s $v]"
            } elseif {$v >= -2147483648 && $v <= 2147483647} {
                set enc "\xf3[binary format i $v]"
            } else {
                set enc "\xf4[binary format w $v]"
            }
        } else {
            set n [string length $e]
            if {$n < 64} {
                set enc "[binary format c [expr {0x80 | $n}]]$e"
            } else {
                set enc "[binary format cc [expr {0xe0 | ($n >> 8)}] [expr {$n & 0xff}]]$e"
            }
        }
        set l [string length $enc]
        if {$l < 128} {
            append body $enc [binary format c $l]
        } else {
            append body $enc [binary format cc [expr {$l >> 7}] [expr {0x80 | ($l & 0x7f)}]]
        }
    }
    set total [expr {6 + [string length $body] + 1}]
    return "[binary format is $total [llength $elems]]$body\xff"
}

# One node: its key and its listpack, as strings.
proc srdb_node {ms seq elems} {
    return "[rdb_str [srdb_id $ms $seq]][rdb_str [srdb_lp $elems]]"
}

# The node of the reference stream: 1-1 {a 1 b 2}, 1-2 {a 3 b 4} (both
# SAMEFIELDS), 2-0 {c 5} (its own fields).
set ::srdb_node_elems {
    i:3 i:0 i:2 a b i:0
    i:2 i:0 i:0 i:1 i:2 i:5
    i:2 i:0 i:1 i:3 i:4 i:5
    i:0 i:1 i:-1 i:1 c i:5 i:6
}

# The group of the reference stream: g1 at 1-2, 1-1 and 1-2 pending for
# alice.
proc srdb_ref_group {type} {
    set g [rdb_str g1][rdb_len 1][rdb_len 2]
    if {$type >= 19} { append g [rdb_len 2] }
    append g [rdb_len 2]
    foreach seq {1 2} {
        append g [srdb_id 1 $seq] [binary format w 1000] [rdb_len 1]
    }
    append g [rdb_len 1] [rdb_str alice] [binary format w 2000]
    if {$type >= 21} { append g [binary format w 3000] }
    append g [rdb_len 2] [srdb_id 1 1] [srdb_id 1 2]
    return $g
}

# A stream body assembled from parts; every part defaults to the
# reference stream's, so a test changes just the one it breaks.
proc srdb_body {args} {
    set o [dict merge [dict create type 21 nodes [list [srdb_node 1 1 $::srdb_node_elems]] \
        length 3 last {2 0} first {1 1} maxdel {0 0} added 3 groups [list [srdb_ref_group 21]]] $args]
    set b [rdb_len [llength [dict get $o nodes]]]
    foreach n [dict get $o nodes] { append b $n }
    append b [rdb_len [dict get $o length]]
    foreach part {last first maxdel} {
        if {$part ne "last" && [dict get $o type] < 19} continue
        lassign [dict get $o $part] ms seq
        append b [rdb_len $ms] [rdb_len $seq]
    }
    if {[dict get $o type] >= 19} { append b [rdb_len [dict get $o added]] }
    append b [rdb_len [llength [dict get $o groups]]]
    foreach g [dict get $o groups] { append b $g }
    return [srdb_seal [dict get $o type] $b]
}

# XINFO STREAM FULL without what Redis 7.0 cannot match: radix-tree-nodes,
# and each consumer's active-time (checked to equal seen-time when
# `active_is_seen`).
proc srdb_xinfo {key {active_is_seen 0}} {
    set info [dict remove [r xinfo stream $key full] radix-tree-nodes]
    set groups {}
    foreach g [dict get $info groups] {
        set conss {}
        foreach c [dict get $g consumers] {
            if {$active_is_seen} { assert_equal [dict get $c seen-time] [dict get $c active-time] }
            lappend conss [dict remove $c active-time]
        }
        lappend groups [dict replace $g consumers $conss]
    }
    dict replace $info groups $groups
}

proc srdb_redis_xinfo {name} {
    dict remove [dict get $::stream_rdb_redis_xinfo $name] radix-tree-nodes
}

# A random integer in [0, n).
proc srdb_rand {n} { expr {int(rand() * $n)} }

# A value of a random shape: small or large integer, short or long string.
proc srdb_random_value {} {
    switch [expr {int(rand() * 4)}] {
        0 { return [expr {int(rand() * 1000)}] }
        1 { return [expr {int(rand() * 1e15) - 500000000000000}] }
        2 { return [string repeat [format %c [expr {97 + int(rand() * 26)}]] [expr {1 + int(rand() * 40)}]] }
        3 { return [string repeat "x\x00y" [expr {30 + int(rand() * 1500)}]] }
    }
}

proc srdb_redis_payload {name} { unhex [dict get $::stream_rdb_redis_payloads $name] }

# ---- payloads captured from Redis 7.0.15 ---------------------------------------
#
# Built with stream-node-max-entries 5 and rdbcompression yes:
#   plain   3 entries in one node, groups g1 at 0 and g2 at 1-1
#   multi   23 entries in five nodes, fields {name val} or {other x}, 9
#           deleted (a whole node among them), groups g1 (alice, bob, dave
#           with a claimed entry and none), g2 (carol), "" at $
#   empty   one entry added and deleted
#   emptyg  two entries, group g with c1 holding 7-1, both deleted
#   trim    8 entries trimmed to MAXLEN 5, group g at 2-0
#   big     7 entries with 151-byte values (LZF-compressed nodes)
# and *_v1: the same bodies without the _2 fields, as RDB_TYPE_STREAM_LISTPACKS
# in an RDB 9 payload, which Redis 7.0 restores deriving them.

set ::stream_rdb_redis_payloads {
    plain {
        130110000000000000000100000000000000013d3d000000190003010001020181610281620200010201000100010101
        0201050102010001010103010401050100010101dfff02010181630205010601ff030200010100000302026731000081
        ffffffffffffffff0000026732010181ffffffffffffffff00000a00f0c12822a4176cbe
    }
    plain_v1 {
        0f0110000000000000000100000000000000013d3d000000190003010001020181610281620200010201000100010101
        0201050102010001010103010401050100010101dfff02010181630205010601ff030200020267310000000002673201
        0100000900e11ce9961ace6680
    }
    multi {
        13041000000000000000010000000000000001c3406a40710871000000270003010220010f846e616d65058376616c04
        0001030100200107826e3103c3e80205201d400005826e3203c7d0200e403008dfff02826e3303cbb8200f802f110201
        856f74686572060401817802817902082012000420380a826e3503f18813030501ff1000000000000000060000000000
        0000004074740000002700030102010201846e616d65058376616c040001020100010001826e3603f170170305010301
        01010101826e3703f1581b0305010101020102010201856f746865720608018178028179020801020103010001826e39
        03f12823030501020104010101836e313004f11027030501ff10000000000000000b0000000000000002c34072407a16
        7a0000002700050100010201846e616d65058376616c04400e0000200108836e313104f1f82a034021160101dffe0202
        01856f74686572060c01817802817902082039040201dfff02202b043304f1c832202b02020103803c043404f1b03660
        100004403c2022043504f1983a201100ff1000000000000000150000000000000000c34045404d164d00000018000301
        00010201846e616d65058376616c04400e0000200109836e323104f108520305201f40002010043204f1f05560104001
        2010043304f1d859201000ff0e170202021402170300170281ffffffffffffffff00000267310a0181ffffffffffffff
        ff0600000000000000010000000000000001326caf15a20100000100000000000000040000000000000001326caf15a2
        01000001000000000000000500000000000000024b6caf15a20100000200000000000000060000000000000000376caf
        15a20100000100000000000000090000000000000000376caf15a201000001000000000000000a000000000000000137
        6caf15a2010000010305616c696365326caf15a201000002000000000000000100000000000000010000000000000004
        000000000000000103626f62376caf15a201000003000000000000000600000000000000000000000000000009000000
        0000000000000000000000000a000000000000000104646176654b6caf15a20100000100000000000000050000000000
        00000202673217021708000000000000000b00000000000000023b6caf15a201000001000000000000000c0000000000
        0000003b6caf15a201000001000000000000000d00000000000000013b6caf15a201000001000000000000000e000000
        00000000023b6caf15a201000001000000000000000f00000000000000003b6caf15a201000001000000000000001500
        000000000000003b6caf15a201000001000000000000001600000000000000013b6caf15a20100000100000000000000
        1700000000000000023b6caf15a20100000101056361726f6c3b6caf15a201000008000000000000000b000000000000
        0002000000000000000c0000000000000000000000000000000d0000000000000001000000000000000e000000000000
        0002000000000000000f0000000000000000000000000000001500000000000000000000000000000016000000000000
        0001000000000000001700000000000000020a006dc65b548eeefefc
    }
    multi_v1 {
        0f041000000000000000010000000000000001c3406a40710871000000270003010220010f846e616d65058376616c04
        0001030100200107826e3103c3e80205201d400005826e3203c7d0200e403008dfff02826e3303cbb8200f802f110201
        856f74686572060401817802817902082012000420380a826e3503f18813030501ff1000000000000000060000000000
        0000004074740000002700030102010201846e616d65058376616c040001020100010001826e3603f170170305010301
        01010101826e3703f1581b0305010101020102010201856f746865720608018178028179020801020103010001826e39
        03f12823030501020104010101836e313004f11027030501ff10000000000000000b0000000000000002c34072407a16
        7a0000002700050100010201846e616d65058376616c04400e0000200108836e313104f1f82a034021160101dffe0202
        01856f74686572060c01817802817902082039040201dfff02202b043304f1c832202b02020103803c043404f1b03660
        100004403c2022043504f1983a201100ff1000000000000000150000000000000000c34045404d164d00000018000301
        00010201846e616d65058376616c04400e0000200109836e323104f108520305201f40002010043204f1f05560104001
        2010043304f1d859201000ff0e17020300170200000267310a010600000000000000010000000000000001326caf15a2
        0100000100000000000000040000000000000001326caf15a201000001000000000000000500000000000000024b6caf
        15a20100000200000000000000060000000000000000376caf15a2010000010000000000000009000000000000000037
        6caf15a201000001000000000000000a0000000000000001376caf15a2010000010305616c696365326caf15a2010000
        02000000000000000100000000000000010000000000000004000000000000000103626f62376caf15a2010000030000
        000000000006000000000000000000000000000000090000000000000000000000000000000a00000000000000010464
        6176654b6caf15a20100000100000000000000050000000000000002026732170208000000000000000b000000000000
        00023b6caf15a201000001000000000000000c00000000000000003b6caf15a201000001000000000000000d00000000
        000000013b6caf15a201000001000000000000000e00000000000000023b6caf15a201000001000000000000000f0000
        0000000000003b6caf15a201000001000000000000001500000000000000003b6caf15a2010000010000000000000016
        00000000000000013b6caf15a201000001000000000000001700000000000000023b6caf15a20100000101056361726f
        6c3b6caf15a201000008000000000000000b0000000000000002000000000000000c0000000000000000000000000000
        000d0000000000000001000000000000000e0000000000000002000000000000000f0000000000000000000000000000
        001500000000000000000000000000000016000000000000000100000000000000170000000000000002090089e29368
        590710e9
    }
    empty {
        13000005050000050501000a002ec29e198cf64e24
    }
    empty_v1 {
        0f00000505000900b46562182129e220
    }
    emptyg {
        130000070200000702020101670701010100000000000000070000000000000001646caf15a20100000101026331646c
        af15a201000001000000000000000700000000000000010a00128afe41520e9c27
    }
    emptyg_v1 {
        0f0000070201016707010100000000000000070000000000000001646caf15a20100000101026331646caf15a2010000
        0100000000000000070000000000000001090007c85e99adf5266a
    }
    trim {
        13021000000000000000010000000000000000c34041404e0f4e0000001e00020103010101816b020020080000200104
        8276310304200b0001600b0032600b0002600b0033200b402e40230034600b0004600b0035200b00ff10000000000000
        0006000000000000000036360000001400030100010101816b0200010201000100018276360304010201010100018276
        37030401020102010001827638030401ff0508000400000008010167020081ffffffffffffffff00000a00006ec6bcb4
        a98774
    }
    trim_v1 {
        0f021000000000000000010000000000000000c34041404e0f4e0000001e00020103010101816b020020080000200104
        8276310304200b0001600b0032600b0002600b0033200b402e40230034600b0004600b0035200b00ff10000000000000
        0006000000000000000036360000001400030100010101816b0200010201000100018276360304010201010100018276
        37030401020102010001827638030401ff050800010167020000000900390a77d30b39cfd7
    }
    big {
        13021000000000000000010000000000000000c34061435417540300002400050100010201877061796c6f616408816e
        02400f0000200102e09778e08c000531019901010520b40001e092a4033201990260a4414be18f49033301990360a400
        03e19249033401990460a40004e092a4033501990520a400ff1000000000000000060000000000000000c33d41651765
        0100001200020100010201877061796c6f616408816e02400f0000200102e09778e08c000536019906010520b40001e0
        92a4033701990720a400ff0707000100000007000a00206f7eb98effb7a1
    }
}

set ::stream_rdb_redis_xinfo {
    plain {length 3 radix-tree-keys 1 radix-tree-nodes 2 last-generated-id 2-0 max-deleted-entry-id 0-0 entries-added 3 recorded-first-entry-id 1-1 entries {{1-1 {a 1 b 2}} {1-2 {a 3 b 4}} {2-0 {c 5}}} groups {{name g1 last-delivered-id 0-0 entries-read {} lag 3 pel-count 0 pending {} consumers {}} {name g2 last-delivered-id 1-1 entries-read {} lag 2 pel-count 0 pending {} consumers {}}}}
    plain_v1 {length 3 radix-tree-keys 1 radix-tree-nodes 2 last-generated-id 2-0 max-deleted-entry-id 0-0 entries-added 3 recorded-first-entry-id 1-1 entries {{1-1 {a 1 b 2}} {1-2 {a 3 b 4}} {2-0 {c 5}}} groups {{name g1 last-delivered-id 0-0 entries-read 0 lag 3 pel-count 0 pending {} consumers {}} {name g2 last-delivered-id 1-1 entries-read 1 lag 2 pel-count 0 pending {} consumers {}}}}
    multi {length 14 radix-tree-keys 4 radix-tree-nodes 10 last-generated-id 23-2 max-deleted-entry-id 20-2 entries-added 23 recorded-first-entry-id 2-2 entries {{2-2 {name n2 val 2000}} {4-1 {other 4 x y}} {5-2 {name n5 val 5000}} {6-0 {name n6 val 6000}} {9-0 {name n9 val 9000}} {10-1 {name n10 val 10000}} {11-2 {name n11 val 11000}} {12-0 {other 12 x y}} {13-1 {name n13 val 13000}} {14-2 {name n14 val 14000}}} groups {{name {} last-delivered-id 23-2 entries-read {} lag 0 pel-count 0 pending {} consumers {}} {name g1 last-delivered-id 10-1 entries-read {} lag {} pel-count 6 pending {{1-1 alice 1795660147762 1} {4-1 alice 1795660147762 1} {5-2 dave 1795660147787 2} {6-0 bob 1795660147767 1} {9-0 bob 1795660147767 1} {10-1 bob 1795660147767 1}} consumers {{name alice seen-time 1795660147762 pel-count 2 pending {{1-1 1795660147762 1} {4-1 1795660147762 1}}} {name bob seen-time 1795660147767 pel-count 3 pending {{6-0 1795660147767 1} {9-0 1795660147767 1} {10-1 1795660147767 1}}} {name dave seen-time 1795660147787 pel-count 1 pending {{5-2 1795660147787 2}}}}} {name g2 last-delivered-id 23-2 entries-read 23 lag 0 pel-count 8 pending {{11-2 carol 1795660147771 1} {12-0 carol 1795660147771 1} {13-1 carol 1795660147771 1} {14-2 carol 1795660147771 1} {15-0 carol 1795660147771 1} {21-0 carol 1795660147771 1} {22-1 carol 1795660147771 1} {23-2 carol 1795660147771 1}} consumers {{name carol seen-time 1795660147771 pel-count 8 pending {{11-2 1795660147771 1} {12-0 1795660147771 1} {13-1 1795660147771 1} {14-2 1795660147771 1} {15-0 1795660147771 1} {21-0 1795660147771 1} {22-1 1795660147771 1} {23-2 1795660147771 1}}}}}}}
    multi_v1 {length 14 radix-tree-keys 4 radix-tree-nodes 10 last-generated-id 23-2 max-deleted-entry-id 0-0 entries-added 14 recorded-first-entry-id 2-2 entries {{2-2 {name n2 val 2000}} {4-1 {other 4 x y}} {5-2 {name n5 val 5000}} {6-0 {name n6 val 6000}} {9-0 {name n9 val 9000}} {10-1 {name n10 val 10000}} {11-2 {name n11 val 11000}} {12-0 {other 12 x y}} {13-1 {name n13 val 13000}} {14-2 {name n14 val 14000}}} groups {{name {} last-delivered-id 23-2 entries-read 14 lag 0 pel-count 0 pending {} consumers {}} {name g1 last-delivered-id 10-1 entries-read {} lag {} pel-count 6 pending {{1-1 alice 1795660147762 1} {4-1 alice 1795660147762 1} {5-2 dave 1795660147787 2} {6-0 bob 1795660147767 1} {9-0 bob 1795660147767 1} {10-1 bob 1795660147767 1}} consumers {{name alice seen-time 1795660147762 pel-count 2 pending {{1-1 1795660147762 1} {4-1 1795660147762 1}}} {name bob seen-time 1795660147767 pel-count 3 pending {{6-0 1795660147767 1} {9-0 1795660147767 1} {10-1 1795660147767 1}}} {name dave seen-time 1795660147787 pel-count 1 pending {{5-2 1795660147787 2}}}}} {name g2 last-delivered-id 23-2 entries-read 14 lag 0 pel-count 8 pending {{11-2 carol 1795660147771 1} {12-0 carol 1795660147771 1} {13-1 carol 1795660147771 1} {14-2 carol 1795660147771 1} {15-0 carol 1795660147771 1} {21-0 carol 1795660147771 1} {22-1 carol 1795660147771 1} {23-2 carol 1795660147771 1}} consumers {{name carol seen-time 1795660147771 pel-count 8 pending {{11-2 1795660147771 1} {12-0 1795660147771 1} {13-1 1795660147771 1} {14-2 1795660147771 1} {15-0 1795660147771 1} {21-0 1795660147771 1} {22-1 1795660147771 1} {23-2 1795660147771 1}}}}}}}
    empty {length 0 radix-tree-keys 0 radix-tree-nodes 1 last-generated-id 5-5 max-deleted-entry-id 5-5 entries-added 1 recorded-first-entry-id 0-0 entries {} groups {}}
    empty_v1 {length 0 radix-tree-keys 0 radix-tree-nodes 1 last-generated-id 5-5 max-deleted-entry-id 0-0 entries-added 0 recorded-first-entry-id 18446744073709551615-18446744073709551615 entries {} groups {}}
    emptyg {length 0 radix-tree-keys 0 radix-tree-nodes 1 last-generated-id 7-2 max-deleted-entry-id 7-2 entries-added 2 recorded-first-entry-id 0-0 entries {} groups {{name g last-delivered-id 7-1 entries-read 1 lag 1 pel-count 1 pending {{7-1 c1 1795660147812 1}} consumers {{name c1 seen-time 1795660147812 pel-count 1 pending {{7-1 1795660147812 1}}}}}}}
    emptyg_v1 {length 0 radix-tree-keys 0 radix-tree-nodes 1 last-generated-id 7-2 max-deleted-entry-id 0-0 entries-added 0 recorded-first-entry-id 18446744073709551615-18446744073709551615 entries {} groups {{name g last-delivered-id 7-1 entries-read 0 lag 0 pel-count 1 pending {{7-1 c1 1795660147812 1}} consumers {{name c1 seen-time 1795660147812 pel-count 1 pending {{7-1 1795660147812 1}}}}}}}
    trim {length 5 radix-tree-keys 2 radix-tree-nodes 6 last-generated-id 8-0 max-deleted-entry-id 0-0 entries-added 8 recorded-first-entry-id 4-0 entries {{4-0 {k v4}} {5-0 {k v5}} {6-0 {k v6}} {7-0 {k v7}} {8-0 {k v8}}} groups {{name g last-delivered-id 2-0 entries-read {} lag 5 pel-count 0 pending {} consumers {}}}}
    trim_v1 {length 5 radix-tree-keys 2 radix-tree-nodes 6 last-generated-id 8-0 max-deleted-entry-id 0-0 entries-added 5 recorded-first-entry-id 4-0 entries {{4-0 {k v4}} {5-0 {k v5}} {6-0 {k v6}} {7-0 {k v7}} {8-0 {k v8}}} groups {{name g last-delivered-id 2-0 entries-read 0 lag 5 pel-count 0 pending {} consumers {}}}}
    big {length 7 radix-tree-keys 2 radix-tree-nodes 6 last-generated-id 7-0 max-deleted-entry-id 0-0 entries-added 7 recorded-first-entry-id 1-0 entries {{1-0 {payload xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx1 n 1}} {2-0 {payload xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx2 n 2}} {3-0 {payload xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx3 n 3}} {4-0 {payload xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx4 n 4}} {5-0 {payload xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx5 n 5}} {6-0 {payload xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx6 n 6}} {7-0 {payload xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx7 n 7}}} groups {}}
}

start_server {tags {"stream" "dump" "needs:debug"} overrides {enable-debug-command yes}} {
    r config set stream-node-max-entries 5

    # ---- writing ---------------------------------------------------------

    test "DUMP of a stream writes RDB_TYPE_STREAM_LISTPACKS_3" {
        r del s
        r xadd s 1-1 a 1
        binary scan [string index [r dump s] 0] cu type
        set type
    } 21

    test "DUMP of a Redis 7.0 stream without consumers gives back its body byte for byte" {
        # Same node boundaries, first-entry fields as master fields and
        # SAMEFIELDS where they match: the node listpacks come out as
        # Redis wrote them. Only the type byte and version differ.
        r config set rdbcompression no
        r del s
        r restore s 0 [srdb_redis_payload plain]
        set ours [r dump s]
        r config set rdbcompression yes
        set redis [srdb_redis_payload plain]
        list [string equal [string range $ours 1 end-10] [string range $redis 1 end-10]] \
            [string range $ours end-9 end-8]
    } [list 1 "\x0b\x00"]

    # ---- round trips -------------------------------------------------------

    test "Stream round trip: several nodes, deletions, mixed fields, big and binary values" {
        r config set stream-node-max-entries 3
        r del s
        for {set i 1} {$i <= 40} {incr i} {
            switch [expr {$i % 5}] {
                0 { r xadd s $i-0 other $i }
                1 { r xadd s $i-0 name n$i val [expr {$i * -1000}] }
                2 { r xadd s $i-0 name n$i val [string repeat v 70] }
                3 { r xadd s $i-0 name "bin\x00\xff$i" val [string repeat w 5000] }
                4 { r xadd s $i-0 val $i name n$i }
            }
        }
        r xdel s 2-0 7-0 8-0 9-0 13-0
        r xtrim s minid 4-0
        r config set stream-node-max-entries 5
        set before [r xinfo stream s full count 0]
        set digest [r debug digest-value s]
        set p [r dump s]
        r del s
        r restore s 0 $p
        assert_equal $before [r xinfo stream s full count 0]
        assert_equal $digest [r debug digest-value s]
        assert_equal $p [r dump s]
        list [r xlen s] [lindex [r xrange s - + count 1] 0 0] [lindex [r xrevrange s + - count 1] 0 0]
    } {33 4-0 40-0}

    test "Stream round trip: groups, consumers, PELs, claims, acks" {
        r del s
        for {set i 1} {$i <= 20} {incr i} { r xadd s $i-1 f $i }
        r xgroup create s g1 0
        r xgroup create s g2 5-1 entriesread 3
        r xgroup create s g3 $
        r xgroup create s "" 0
        r xreadgroup group g1 alice count 6 streams s >
        r xreadgroup group g1 bob count 4 streams s >
        r xreadgroup group g2 carol streams s >
        r xgroup createconsumer s g1 idle
        r xack s g1 2-1 3-1
        r xclaim s g1 bob 0 4-1 5-1
        r xdel s 1-1 8-1 15-1
        r xreadgroup group "" "" count 1 streams s >
        set before [r xinfo stream s full count 0]
        set p [r dump s]
        r del s
        r restore s 0 $p
        assert_equal $before [r xinfo stream s full count 0]
        assert_equal $p [r dump s]
        # The restored groups keep working, exactly as the original would.
        r restore copy 0 $p
        set got {}
        foreach k {s copy} {
            r xadd $k 21-1 f 21
            lappend got [lindex [r xreadgroup group g2 carol streams $k >] 0 1] [r xinfo groups $k] \
                [lmap e [r xpending $k g1 - + 10 bob] {lreplace $e 2 2}] [r xack $k g1 4-1] [r xautoclaim $k g1 idle 0 0 count 3]
        }
        assert_equal [lrange $got 0 4] [lrange $got 5 9]
        r del copy
        lindex $got 0 0 0
    } {21-1}

    test "Stream round trip: entries-read unknown stays unknown" {
        r del s
        r xadd s 1-1 f v
        r xadd s 2-1 f v
        r xgroup create s g 1-1
        set p [r dump s]
        r del s
        r restore s 0 $p
        dict get [lindex [r xinfo groups s] 0] entries-read
    } {}

    test "Stream round trip: a 10000-entry stream with random deletions" {
        r config set stream-node-max-entries 100
        r del s
        set ids {}
        for {set i 0} {$i < 10000} {incr i} {
            lappend ids [r xadd s * f [expr {$i % 7}] v [srdb_random_value]]
        }
        for {set i 0} {$i < 1000} {incr i} { r xdel s [lindex $ids [srdb_rand 10000]] }
        r xgroup create s g 0
        r xreadgroup group g c count 500 streams s >
        set digest [r debug digest-value s]
        set info [r xinfo stream s full count 0]
        r restore s2 0 [r dump s]
        r config set stream-node-max-entries 5
        list [expr {$digest eq [r debug digest-value s2]}] [expr {$info eq [r xinfo stream s2 full count 0]}]
    } {1 1}

    test "Stream round trip: one node of more than 65535 listpack elements (saturated count)" {
        r config set stream-node-max-entries 0
        r config set stream-node-max-bytes 0
        r del s
        for {set i 1} {$i <= 12000} {incr i} { r xadd s $i-0 f $i g x }
        r xdel s 5-0 11999-0
        r config set stream-node-max-bytes 4096
        r config set stream-node-max-entries 5
        set digest [r debug digest-value s]
        r restore s2 0 [r dump s] replace
        list [dict get [r xinfo stream s2] radix-tree-keys] [r xlen s2] [expr {$digest eq [r debug digest-value s2]}] \
            [lindex [r xrevrange s2 + - count 1] 0]
    } {1 11998 1 {12000-0 {f 12000 g x}}}

    test "Empty streams are kept, with and without groups" {
        r del s s2
        r xadd s 5-5 f v
        r xdel s 5-5
        r restore s2 0 [r dump s]
        set a [list [r exists s2] [r xlen s2] [dict get [r xinfo stream s2] last-generated-id]]
        r del s s2
        r xgroup create s g $ mkstream
        r restore s2 0 [r dump s]
        list {*}$a [r exists s2] [r xlen s2] [dict get [lindex [r xinfo groups s2] 0] name]
    } {1 0 5-5 1 0 g}

    # ---- Redis 7.0 payloads ------------------------------------------------

    foreach name {plain multi empty emptyg trim big} {
        test "RESTORE of Redis 7.0 payload '$name' (RDB_TYPE_STREAM_LISTPACKS_2) matches its XINFO STREAM FULL" {
            r del s
            r restore s 0 [srdb_redis_payload $name]
            assert_equal [srdb_redis_xinfo $name] [srdb_xinfo s 1]
            # And it survives our own round trip unchanged.
            set info [r xinfo stream s full]
            r restore s 0 [r dump s] replace
            assert_equal $info [r xinfo stream s full]
        }
    }

    foreach name {plain multi empty emptyg trim} {
        test "RESTORE of '$name' as RDB_TYPE_STREAM_LISTPACKS derives the missing fields as Redis 7.0 does" {
            r del s
            r restore s 0 [srdb_redis_payload ${name}_v1]
            assert_equal [srdb_redis_xinfo ${name}_v1] [srdb_xinfo s 1]
        }
    }

    test "RESTORE builds a usable stream from a Redis 7.0 payload" {
        r del s
        r restore s 0 [srdb_redis_payload multi]
        r xadd s 24-0 name n24 val 24000
        set got [r xreadgroup group g1 erin count 2 streams s >]
        list [llength [lindex $got 0 1]] [r xack s g1 5-2] [r xlen s] [lindex [r xrange s 23-0 +] end 0]
    } {2 1 15 24-0}

    # ---- corrupt payloads --------------------------------------------------

    test "The reference payload used below is valid in every version" {
        set got {}
        foreach type {15 19 21} {
            r del s
            set groups [list [srdb_ref_group $type]]
            lappend got [r restore s 0 [srdb_body type $type groups $groups]]
            lappend got [r xlen s] [llength [r xpending s g1 - + 10 alice]]
        }
        set got
    } {OK 3 2 OK 3 2 OK 3 2}

    # Each body breaks one rule; all must be refused.
    set lp $::srdb_node_elems
    set corrupt [dict create \
        "node key not 16 bytes" [list nodes [list "[rdb_str [binary format WS 1 1]][rdb_str [srdb_lp $lp]]"]] \
        "node listpack empty" [list nodes [list [srdb_node 1 1 {}]]] \
        "node listpack bytes corrupt" [list nodes [list "[rdb_str [srdb_id 1 1]][rdb_str [string map {"\x81a\x02" "\x81a\x03"} [srdb_lp $lp]]]"]] \
        "live count wrong" [list nodes [list [srdb_node 1 1 [lreplace $lp 0 0 i:4]]]] \
        "deleted count disagrees with the flags" [list nodes [list [srdb_node 1 1 [lreplace $lp 0 1 i:2 i:1]]]] \
        "no entries" [list nodes [list [srdb_node 1 1 {i:0 i:0 i:1 a i:0}]]] \
        "master field count zero" [list nodes [list [srdb_node 1 1 [lreplace $lp 2 4 i:0]]]] \
        "master terminator not zero" [list nodes [list [srdb_node 1 1 [lreplace $lp 5 5 i:1]]]] \
        "unknown entry flag" [list nodes [list [srdb_node 1 1 [lreplace $lp 6 6 i:6]]]] \
        "lp-count wrong (SAMEFIELDS)" [list nodes [list [srdb_node 1 1 [lreplace $lp 11 11 i:6]]]] \
        "lp-count wrong (own fields)" [list nodes [list [srdb_node 1 1 [lreplace $lp 24 24 i:5]]]] \
        "entry field count zero" [list nodes [list [srdb_node 1 1 [lreplace $lp 18 24 i:0 i:1 i:-1 i:0 i:4]]]] \
        "entry field count beyond the listpack" [list nodes [list [srdb_node 1 1 [lreplace $lp 21 21 i:9]]]] \
        "SAMEFIELDS entry short of values" [list nodes [list [srdb_node 1 1 [lreplace $lp 15 16 i:4]]]] \
        "element after the last entry" [list nodes [list [srdb_node 1 1 [concat $lp i:0]]]] \
        "count element is a non-numeric string" [list nodes [list [srdb_node 1 1 [lreplace $lp 0 0 three]]]] \
        "duplicate entry ID" [list nodes [list [srdb_node 1 1 [lreplace $lp 14 14 i:0]]]] \
        "entry before its node key" [list nodes [list [srdb_node 1 1 [lreplace $lp 8 8 i:-1]]]] \
        "node keys not ascending" [list nodes [list [srdb_node 1 1 $lp] [srdb_node 1 5 {i:1 i:0 i:1 c i:0 i:0 i:0 i:0 i:9 i:4}]] length 4 last {2 0}] \
        "entry beyond the last ID" [list last {1 9}] \
        "length disagrees with the entries" [list length 2] \
        "entries added below the length" [list added 2] \
        "max deleted ID beyond the last ID" [list maxdel {3 0}] \
        "first ID beyond the last ID" [list first {2 1}] \
        "duplicate group" [list groups [list [srdb_ref_group 21] [srdb_ref_group 21]]] \
        "duplicate consumer" [list groups [list [string map [list "[rdb_len 1][rdb_str alice]" "[rdb_len 2][rdb_str alice]"] [srdb_ref_group 21]][rdb_str alice][binary format ww 1 1][rdb_len 0]]] \
        "duplicate group PEL ID" [list groups [list [string map [list [srdb_id 1 2] [srdb_id 1 1]] [srdb_ref_group 21]]]] \
        "consumer PEL ID not in the group PEL" [list groups [list [string map [list "[srdb_id 1 1][srdb_id 1 2]" "[srdb_id 1 1][srdb_id 1 3]"] [srdb_ref_group 21]]]] \
        "group PEL ID owned by no consumer" [list groups [list [string map [list "[rdb_len 2][srdb_id 1 1][srdb_id 1 2]" "[rdb_len 1][srdb_id 1 1]"] [srdb_ref_group 21]]]] \
        "group PEL ID owned by two consumers" [list groups [list [string map [list "[rdb_len 1][rdb_str alice]" "[rdb_len 2][rdb_str alice]"] [srdb_ref_group 21]][rdb_str bob][binary format ww 1 1][rdb_len 1][srdb_id 1 2]]] \
        "entries read beyond 2^63" [list groups [list [string map [list "[rdb_len 2][rdb_len 2][srdb_id 1 1]" "\x81\x80\x00\x00\x00\x00\x00\x00\x00[rdb_len 2][srdb_id 1 1]"] [srdb_ref_group 21]]]] \
    ]
    dict for {what parts} $corrupt {
        test "Corrupt stream payload refused: $what" {
            r del s
            assert_error "*Bad data format*" {r restore s 0 [srdb_body {*}$parts]}
            r exists s
        } 0
    }

    test "Accepted edge cases: entries-read -1, a first ID of 2^64-1 on an empty stream, a node with only deleted entries" {
        r del s s2 s3
        # -1 is written as the 64-bit length 2^64-1.
        set g [string map [list "[rdb_len 2][rdb_len 2][srdb_id 1 1]" "\x81\xff\xff\xff\xff\xff\xff\xff\xff[rdb_len 2][srdb_id 1 1]"] [srdb_ref_group 21]]
        r restore s 0 [srdb_body groups [list $g]]
        set a [dict get [lindex [r xinfo groups s] 0] entries-read]
        # What Redis 7.0 writes for an empty stream it loaded from RDB 9.
        r restore s2 0 [srdb_body nodes {} length 0 first {18446744073709551615 18446744073709551615} added 0 groups {}]
        set b [dict get [r xinfo stream s2] recorded-first-entry-id]
        # All entries of the first node deleted: the node is not kept.
        set dead [srdb_node 1 0 {i:0 i:1 i:1 x i:0 i:3 i:0 i:0 i:7 i:4}]
        r restore s3 0 [srdb_body nodes [list $dead [srdb_node 1 1 $::srdb_node_elems]]]
        list $a $b [r xlen s3] [dict get [r xinfo stream s3] radix-tree-keys] [lindex [r xrange s3 - +] 0 0]
    } {{} 18446744073709551615-18446744073709551615 3 1 1-1}

    test "Truncated stream payloads are refused at every length" {
        r del s
        set p [srdb_body]
        set body [string range $p 1 end-10]
        set bad 0
        for {set n 0} {$n < [string length $body]} {incr n} {
            if {[catch {r restore s 0 [srdb_seal 21 [string range $body 0 [expr {$n - 1}]]]} e]} {
                if {[string match "*Bad data format*" $e]} { incr bad }
            } else {
                r del s
            }
        }
        list [expr {$bad == [string length $body]}] [r ping]
    } {1 PONG}

    test "Random byte flips in stream payloads: refused or usable, never a crash" {
        set seen_ok 0
        foreach name {multi emptyg big} {
            set orig [srdb_redis_payload $name]
            set len [string length $orig]
            for {set i 0} {$i < 150} {incr i} {
                set p $orig
                for {set k 0} {$k < 1 + [srdb_rand 3]} {incr k} {
                    set pos [expr {1 + [srdb_rand [expr {$len - 11}]]}]
                    set p [string replace $p $pos $pos [binary format c [srdb_rand 256]]]
                }
                r del s
                if {[catch {r restore s 0 [fix_checksum $p]} e]} {
                    assert_match "*Bad data format*" $e
                } else {
                    incr seen_ok
                    r xinfo stream s full
                    r xrange s - +
                    r restore s2 0 [r dump s] replace
                    r xadd s * f v
                }
            }
        }
        r ping
    } {PONG}

    # A restored pending entry (and consumer) may carry any 64-bit time:
    # idle times are computed without signed overflow (UBSan aborts the
    # sanitizer build otherwise) and saturate.
    tags {valkey-only} {
        test "XPENDING, XCLAIM, XAUTOCLAIM, XINFO over delivery times near INT64_MIN after RESTORE" {
            r del s
            r xadd s 1-0 f v
            r xadd s 2-0 f v
            r xgroup create s g 0
            r xreadgroup group g alice streams s >
            set full [r xinfo stream s full]
            set t [lindex [lindex [dict get [lindex [dict get $full groups] 0] pending] 0] 2]
            set p [string map [list [le64 $t] [le64 0x8000000000000001]] [r dump s]]
            r restore s 0 [fix_checksum $p] replace
            assert_equal 9223372036854775807 [lindex [lindex [r xpending s g - + 10] 0] 2]
            assert_equal 2 [llength [r xpending s g idle 1000 - + 10]]
            assert_equal 9223372036854775807 [dict get [lindex [r xinfo consumers s g] 0] idle]
            assert_equal {1-0} [r xclaim s g bob 1000 1-0 justid]
            assert_equal {0-0 2-0 {}} [r xautoclaim s g bob 1000 0 justid]
            assert_equal {1-0} [r xclaim s g bob 0 1-0 idle -9223372036854775807 justid]
            r ping
        } {PONG}
    }
}
