# SORT and SORT_RO: numeric and ALPHA order, ASC/DESC, LIMIT windows,
# BY patterns (string keys and hash fields, "nosort"), GET patterns
# (including "#" and missing keys), STORE, the three sortable types and
# their encodings, the errors, and COMMAND GETKEYS.
#
# Tests tagged "valkey-only" need behaviour Redis 7.0 lacks (a short
# stored list is listpack-encoded only from 7.2 on).

# ---------------------------------------------------------------- helpers

proc sort_list {key elements} {
    r del $key
    if {[llength $elements]} { r rpush $key {*}$elements }
}

start_server {tags {sort}} {
    sort_list l {3 1 2 10 -5 2.5 7}

    test {SORT numeric ascending and descending} {
        assert_equal {-5 1 2 2.5 3 7 10} [r sort l]
        assert_equal {-5 1 2 2.5 3 7 10} [r sort l asc]
        assert_equal {10 7 3 2.5 2 1 -5} [r sort l desc]
        assert_equal {10 7 3 2.5 2 1 -5} [r sort l ASC DESC]
    }

    test {SORT ALPHA} {
        assert_equal {-5 1 10 2 2.5 3 7} [r sort l alpha]
        assert_equal {7 3 2.5 2 10 1 -5} [r sort l alpha desc]
    }

    test {SORT LIMIT windows} {
        assert_equal {-5 1 2} [r sort l limit 0 3]
        assert_equal {2 2.5} [r sort l limit 2 2]
        assert_equal {-5 1} [r sort l limit -1 2]
        assert_equal {7 10} [r sort l limit 5 100]
        assert_equal {} [r sort l limit 10 1]
        assert_equal {-5 1 2 2.5 3 7 10} [r sort l limit 0 -1]
        assert_equal {2.5 3 7 10} [r sort l limit 3 -5]
        assert_equal {} [r sort l limit 0 0]
        assert_equal {10 7} [r sort l desc limit 0 2]
        assert_equal {1 2} [r sort l limit 1 9223372036854775807 limit 1 2]
        assert_equal {} [r sort l limit 9223372036854775807 9223372036854775807]
        assert_equal {1 2 2.5 3 7 10} [r sort l limit 1 9223372036854775807]
    }

    test {SORT BY nosort keeps the list order, DESC reverses it} {
        assert_equal {3 1 2 10 -5 2.5 7} [r sort l by nosort]
        assert_equal {7 2.5 -5 10 2 1 3} [r sort l by nosort desc]
        assert_equal {1 2 10} [r sort l by nosort limit 1 3]
        assert_equal {2.5 -5 10} [r sort l by nosort desc limit 1 3]
        assert_equal {} [r sort l by nosort limit 7 3]
        # Any pattern without '*' means nosort.
        assert_equal {3 1 2 10 -5 2.5 7} [r sort l by weight_ alpha]
    }

    test {SORT BY a key pattern} {
        r mset w_3 30 w_1 70 w_2 20 w_10 10 w_-5 50 w_2.5 60 w_7 40
        assert_equal {10 2 3 7 -5 2.5 1} [r sort l by w_*]
        assert_equal {1 2.5 -5 7 3 2 10} [r sort l by w_* desc]
        assert_equal {2 3} [r sort l by w_* limit 1 2]
    }

    test {SORT BY a missing key weighs 0; ties break by the element} {
        r del w_7 w_3
        set r [r sort l by w_*]
        r mset w_3 30 w_7 40
        set r
    } {3 7 10 2 -5 2.5 1}

    test {SORT BY a pattern with ALPHA compares the weights as strings} {
        r mset a_3 c a_1 b a_2 a
        sort_list s3 {3 1 2}
        assert_equal {2 1 3} [r sort s3 by a_* alpha]
        assert_equal {3 1 2} [r sort s3 by a_* alpha desc]
        # Missing weights sort first.
        r del a_1
        assert_equal {1 2 3} [r sort s3 by a_* alpha]
    }

    test {SORT BY a hash field} {
        foreach {e v} {3 5 1 9 2 1} { r hset h_$e f $v }
        assert_equal {2 3 1} [r sort s3 by h_*->f]
        assert_equal {1 3 2} [r sort s3 by h_*->f desc]
        # A field that is missing, or a key that is not a hash, weighs 0.
        r hdel h_1 f
        assert_equal {1 2 3} [r sort s3 by h_*->f]
        r set h_1 "str"
        r sort s3 by h_*->f
    } {1 2 3}

    test {SORT GET patterns} {
        r mset o_3 three o_1 one o_2 two
        assert_equal {one two three} [r sort s3 get o_*]
        assert_equal {1 one 2 two 3 three} [r sort s3 get # get o_*]
        assert_equal {{} {} {}} [r sort s3 get missing_*]
        assert_equal {{} {} {}} [r sort s3 get nostar]
        assert_equal {one} [r sort s3 get o_* limit 0 1]
    }

    test {SORT GET with hash fields and odd arrows} {
        r del h_1 h_2 h_3
        foreach {e v} {3 c 1 a 2 b} { r hset h_$e f $v }
        r set h_1-> plain
        assert_equal {a b c} [r sort s3 get h_*->f]
        # "->" with nothing after it is part of the key name.
        assert_equal {plain {} {}} [r sort s3 get h_*->]
        assert_equal {{} {} {}} [r sort s3 get h_*->nofield]
        # A string where a hash is expected, and a hash where a string is.
        r set h_2 str
        assert_equal {a {} c} [r sort s3 get h_*->f]
        assert_equal {{} str {}} [r sort s3 get h_*]
    }

    test {SORT numeric conversion errors} {
        sort_list bad {a 1}
        assert_error {ERR One or more scores can't be converted into double} {r sort bad}
        assert_equal {1 a} [r sort bad alpha]
        assert_equal {a 1} [r sort bad by nosort]
        sort_list nan {nan 1}
        assert_error {*can't be converted into double*} {r sort nan}
        sort_list s3 {3 1 2}
        r mset x_1 1 x_2 abc x_3 3
        assert_error {*can't be converted into double*} {r sort s3 by x_*}
        assert_error {*can't be converted into double*} {r sort s3 by x_* store dst}
    }

    test {SORT accepts what strtod accepts} {
        sort_list f {1.5 1e3 -inf inf 0x10 { 3} {}}
        r sort f
    } {-inf {} 1.5 { 3} 0x10 1e3 inf}

    test {SORT of a missing key is empty} {
        r del nokey
        r sort nokey
    } {}

    test {SORT syntax and argument errors} {
        assert_error {*syntax error*} {r sort l foo}
        assert_error {*syntax error*} {r sort l by}
        assert_error {*syntax error*} {r sort l get}
        assert_error {*syntax error*} {r sort l store}
        assert_error {*syntax error*} {r sort l limit 1}
        assert_error {*value is not an integer or out of range*} {r sort l limit x 1}
        assert_error {*value is not an integer or out of range*} {r sort l limit 1 1.5}
        assert_error {*wrong number of arguments*} {r sort}
        assert_error {*wrong number of arguments*} {r sort_ro}
        # Options are checked before the key's type.
        r set str x
        assert_error {*value is not an integer*} {r sort str limit a b}
        assert_error {*syntax error*} {r sort str foo}
        assert_error {WRONGTYPE*} {r sort str}
        r hset hh a 1
        assert_error {WRONGTYPE*} {r sort hh}
    }

    test {SORT STORE creates a list and replies with its length} {
        r del dst
        assert_equal 7 [r sort l store dst]
        assert_equal list [r type dst]
        assert_equal {-5 1 2 2.5 3 7 10} [r lrange dst 0 -1]
        # Overwrites anything, any type, and drops its TTL.
        r set dst x ex 100
        assert_equal 3 [r sort l desc limit 0 3 store dst]
        assert_equal -1 [r ttl dst]
        r lrange dst 0 -1
    } {10 7 3}

    test {SORT STORE with GET stores every value, "" for missing ones} {
        sort_list s3 {3 1 2}
        r mset o_3 three o_1 one o_2 two
        assert_equal 6 [r sort s3 get # get missing_* store dst]
        r lrange dst 0 -1
    } {1 {} 2 {} 3 {}}

    test {SORT STORE of an empty result deletes the destination} {
        r set dst x
        assert_equal 0 [r sort l limit 100 1 store dst]
        assert_equal 0 [r exists dst]
        r del nokey
        r set dst x
        assert_equal 0 [r sort nokey store dst]
        r exists dst
    } 0

    test {SORT STORE into the source key} {
        sort_list src {3 1 2}
        r sort src desc store src
        r lrange src 0 -1
    } {3 2 1}

    test {SORT STORE of a long result is a quicklist} {
        r del big
        for {set i 0} {$i < 300} {incr i} { lappend els [format %060d $i] }
        r rpush big {*}$els
        assert_equal 300 [r sort big desc alpha store dst]
        assert_equal [format %060d 299] [r lindex dst 0]
        assert_encoding quicklist dst
    }

    tags {valkey-only} {
        test {SORT STORE of a short result is a listpack} {
            r sort l store dst
            assert_encoding listpack dst
        }
    }

    test {SORT_RO works like SORT and refuses STORE} {
        assert_equal {-5 1 2 2.5 3 7 10} [r sort_ro l]
        assert_equal {1 2 10} [r sort_ro l by nosort limit 1 3]
        assert_equal {10 7} [r sort_ro l desc limit 0 2]
        assert_equal {one two three} [r sort_ro s3 get o_*]
        assert_error {*syntax error*} {r sort_ro l store dst}
    }

    # ------------------------------------------------------------ types

    test {SORT a set} {
        r del s
        r sadd s 5 3 9 1
        assert_equal {1 3 5 9} [r sort s]
        assert_equal {9 5 3 1} [r sort s desc]
        assert_equal {1 3 5 9} [lsort -integer [r sort s by nosort]]
        assert_equal {3 5} [r sort s limit 1 2]
    }

    test {SORT STORE of a set BY nosort is sorted ALPHA} {
        r del s2
        r sadd s2 b a c aa B 10 9
        assert_equal 7 [r sort s2 by nosort store dst]
        assert_equal {10 9 B a aa b c} [r lrange dst 0 -1]
        # Also when DESC or LIMIT are given.
        r sort s2 by nosort desc limit 0 3 store dst
        r lrange dst 0 -1
    } {c b aa}

    test {SORT a big (hashtable) set} {
        r del bs
        set els {}
        for {set i 0} {$i < 1000} {incr i} { lappend els [expr {($i * 7919) % 1000}] }
        r sadd bs {*}$els
        set res [r sort bs]
        assert_equal 1000 [llength $res]
        assert_equal [lsort -integer $res] $res
        r sort bs desc limit 0 3
    } {999 998 997}

    test {SORT a sorted set ignores the scores unless BY nosort} {
        r del z
        r zadd z 1 c 2 a 3 b 0 d
        assert_equal {a b c d} [r sort z alpha]
        assert_equal {d c a b} [r sort z by nosort]
        assert_equal {b a c d} [r sort z by nosort desc]
        assert_equal {c a} [r sort z by nosort limit 1 2]
        assert_equal {a c} [r sort z by nosort desc limit 1 2]
        assert_equal 2 [r sort z by nosort limit 1 2 store dst]
        assert_equal {c a} [r lrange dst 0 -1]
        assert_error {*can't be converted*} {r sort z}
    }

    test {SORT a big (skiplist) sorted set BY nosort} {
        r del bz
        for {set i 0} {$i < 500} {incr i} { r zadd bz $i m$i }
        assert_equal {m0 m1 m2} [r sort bz by nosort limit 0 3]
        assert_equal {m499 m498} [r sort bz by nosort desc limit 0 2]
        assert_equal {m250 m251} [r sort bz by nosort limit 250 2]
        assert_equal {m0 m1 m10} [r sort bz alpha limit 0 3]
    }

    test {SORT a big (quicklist) list} {
        r del bl
        set els {}
        for {set i 0} {$i < 5000} {incr i} { lappend els [expr {($i * 7919) % 5000}] }
        r rpush bl {*}$els
        assert_equal quicklist [r object encoding bl]
        set res [r sort bl]
        assert_equal [lsort -integer $els] $res
        assert_equal [lrange $els 10 14] [r sort bl by nosort limit 10 5]
        assert_equal [lreverse [lrange $els end-4 end]] [r sort bl by nosort desc limit 0 5]
    }

    test {SORT with BY and GET over a big list, against a Tcl model} {
        r del bl2
        set els {}
        set model {}
        for {set i 0} {$i < 500} {incr i} {
            lappend els $i
            set w [expr {int(rand() * 100000)}]
            r set wt_$i $w
            r hset obj_$i name n$i
            lappend model [list $i $w]
        }
        r rpush bl2 {*}$els
        set expected {}
        foreach pair [lsort -integer -index 1 $model] { lappend expected n[lindex $pair 0] }
        # Ties (equal weights) break on the element text, not the number:
        # only compare when there are none.
        set weights [lsort -integer -unique [lmap p $model {lindex $p 1}]]
        if {[llength $weights] == 500} {
            assert_equal $expected [r sort bl2 by wt_* get obj_*->name]
        }
        llength [r sort bl2 by wt_* get obj_*->name get #]
    } 1000

    # ------------------------------------------------------------ keys

    test {COMMAND GETKEYS for SORT finds the STORE destination} {
        assert_equal {l} [r command getkeys sort l]
        assert_equal {l dst} [r command getkeys sort l store dst]
        assert_equal {l b} [r command getkeys sort l store a get store limit 1 2 store b]
        assert_equal {l} [r command getkeys sort l get store]
        assert_equal {l} [r command getkeys sort_ro l]
    }
}
