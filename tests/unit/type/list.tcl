# The list type: every non-blocking command with its options and errors,
# the listpack <-> quicklist encodings, empty keys disappearing, the object
# methods (COPY, DEBUG DIGEST-VALUE, MEMORY USAGE, SCAN TYPE) and a
# randomized run against a Tcl list model, and list-compress-depth
# (memory saved, every command agreeing on compressed and plain lists for
# both forms of list-max-listpack-size), and the packed interior nodes a
# list has without compression, and plain nodes (elements of at least
# DEBUG QUICKLIST-PACKED-THRESHOLD in nodes of their own, through every
# command, DUMP/RESTORE and a reload).  Blocking commands are in
# list-blocking.tcl.  Tests tagged "valkey-only" cover behaviour Redis 7.0
# does not have (it has no listpack-encoded lists: every list reports
# "quicklist" there).

# ---------------------------------------------------------------- helpers

# Sets a config value and returns the old one.
proc list_config_swap {name value} {
    set old [lindex [r config get $name] 1]
    r config set $name $value
    return $old
}

# A fresh list holding exactly `elements`.
proc list_create {key elements} {
    r del $key
    if {[llength $elements]} { r rpush $key {*}$elements }
}

# A random element: small or big integer, short or long string.
proc list_rand_element {} {
    switch [expr {int(rand() * 4)}] {
        0 { return [expr {int(rand() * 200) - 100}] }
        1 { return [expr {int(rand() * 4000000000) - 2000000000}] }
        2 { return "e[expr {int(rand() * 50)}]" }
        3 { return [string repeat x [expr {int(rand() * 300)}]] }
    }
}

# Tcl model of LRANGE's (and LTRIM's) index rules.
proc list_model_range {l start end} {
    set len [llength $l]
    if {$start < 0} { incr start $len }
    if {$end < 0} { incr end $len }
    if {$start < 0} { set start 0 }
    if {$start > $end || $start >= $len} { return {} }
    return [lrange $l $start $end]
}

start_server {tags {"list"} overrides {enable-debug-command yes}} {

    # ------------------------------------------------------------ push/pop

    test "LPUSH, RPUSH, LLEN, LINDEX, LPOP, RPOP" {
        r del mylist
        assert_equal 1 [r lpush mylist a]
        assert_equal 2 [r rpush mylist b]
        assert_equal 4 [r lpush mylist c d]
        assert_equal 6 [r rpush mylist 1 2]
        assert_equal {d c a b 1 2} [r lrange mylist 0 -1]
        assert_equal 6 [r llen mylist]
        assert_equal d [r lindex mylist 0]
        assert_equal 2 [r lindex mylist -1]
        assert_equal a [r lindex mylist 2]
        assert_equal d [r lpop mylist]
        assert_equal 2 [r rpop mylist]
        assert_equal {c a b 1} [r lrange mylist 0 -1]
    }

    test "LPUSH of integers and strings keeps the exact text" {
        list_create l {}
        r rpush l 0 -1 127 128 -4096 4095 4096 -32768 32767 8388607 -8388608 2147483647 -2147483648 \
            9223372036854775807 -9223372036854775808 012 +1 " 1" 1.5 9223372036854775808 ""
        assert_equal [list 0 -1 127 128 -4096 4095 4096 -32768 32767 8388607 -8388608 2147483647 -2147483648 \
            9223372036854775807 -9223372036854775808 012 +1 " 1" 1.5 9223372036854775808 ""] [r lrange l 0 -1]
        assert_equal 9223372036854775807 [r lindex l 13]
        assert_equal {} [r rpop l]
    }

    test "LPOP/RPOP with COUNT" {
        list_create l {a b c d e}
        assert_equal {a b} [r lpop l 2]
        assert_equal {e d} [r rpop l 2]
        assert_equal {} [r lpop l 0]
        assert_equal {c} [r rpop l 10]
        assert_equal 0 [r exists l]
    }

    test "LPOP/RPOP errors and missing keys" {
        r del nokey
        assert_equal {} [r lpop nokey]
        assert_equal {} [r rpop nokey 3]
        assert_equal {} [r lpop nokey 0]
        list_create l {a}
        assert_error "ERR value is out of range, must be positive" {r lpop l -1}
        assert_error "ERR value is out of range, must be positive" {r rpop l abc}
        assert_error "ERR wrong number of arguments for 'lpop' command" {r lpop l 1 2}
        assert_equal {a} [r lrange l 0 -1]
    }

    test "LPOP/RPOP null replies: RESP2 and RESP3 forms" {
        r del nokey
        set c [vk_client]
        $c readraw 1
        assert_equal {$-1} [$c lpop nokey]
        assert_equal {*-1} [$c lpop nokey 1]
        assert_equal {*-1} [$c rpop nokey 0]
        $c readraw 0
        $c hello 3
        $c readraw 1
        assert_equal {_} [$c rpop nokey]
        assert_equal {_} [$c lpop nokey 2]
        $c close
    }

    test "LPUSHX, RPUSHX only push onto existing lists" {
        r del xlist
        assert_equal 0 [r lpushx xlist a]
        assert_equal 0 [r rpushx xlist a b]
        assert_equal 0 [r exists xlist]
        r rpush xlist b
        assert_equal 3 [r lpushx xlist a z]
        assert_equal 5 [r rpushx xlist c d]
        assert_equal {z a b c d} [r lrange xlist 0 -1]
    }

    test "Commands against a key of the wrong type" {
        r del s
        r set s foo
        foreach cmd {
            {lpush s a} {rpush s a} {lpushx s a} {rpushx s a} {llen s} {lindex s 0}
            {lrange s 0 -1} {lset s 0 a} {linsert s before a b} {lrem s 0 a} {ltrim s 0 1}
            {lpop s} {rpop s 2} {lpos s a} {lmpop 1 s left} {rpoplpush s x} {lmove s x left left}
        } {
            assert_error "WRONGTYPE*" [list r {*}$cmd]
        }
        list_create l {a}
        assert_error "WRONGTYPE*" {r rpoplpush l s}
        assert_error "WRONGTYPE*" {r lmove l s right left}
        assert_equal {a} [r lrange l 0 -1]
        assert_equal foo [r get s]
    }

    test "Arity errors" {
        assert_error "ERR wrong number of arguments for 'lpush' command" {r lpush l}
        assert_error "ERR wrong number of arguments for 'linsert' command" {r linsert l before a}
        assert_error "ERR wrong number of arguments for 'lmpop' command" {r lmpop 1 l}
        assert_error "ERR wrong number of arguments for 'lmove' command" {r lmove a b left}
    }

    # ------------------------------------------------------------ index/range

    test "LINDEX out of range, bad index, missing key" {
        list_create l {a b c}
        assert_equal {} [r lindex l 3]
        assert_equal {} [r lindex l -4]
        assert_equal c [r lindex l -1]
        assert_error "ERR value is not an integer or out of range" {r lindex l abc}
        assert_equal {} [r lindex nokey 0]
        assert_equal {} [r lindex nokey abc]
    }

    test "LRANGE index rules" {
        list_create l {0 1 2 3 4 5 6 7 8 9}
        foreach {s e} {0 -1  0 0  -3 -1  5 100  -100 2  3 1  20 30  -1 -1  -100 -50  2 -8  0 -11} {
            assert_equal [list_model_range {0 1 2 3 4 5 6 7 8 9} $s $e] [r lrange l $s $e] "lrange $s $e"
        }
        assert_equal {} [r lrange nokey 0 -1]
        assert_error "ERR value is not an integer or out of range" {r lrange l a 1}
        assert_error "ERR value is not an integer or out of range" {r lrange nokey 0 b}
    }

    test "LSET" {
        list_create l {a b c}
        assert_equal OK [r lset l 0 x]
        assert_equal OK [r lset l -1 99]
        assert_equal {x b 99} [r lrange l 0 -1]
        assert_error "ERR index out of range" {r lset l 3 y}
        assert_error "ERR index out of range" {r lset l -4 y}
        assert_error "ERR no such key" {r lset nokey 0 y}
        assert_error "ERR value is not an integer or out of range" {r lset l a y}
    }

    # ------------------------------------------------------------ LINSERT

    test "LINSERT before/after, missing pivot, missing key, syntax" {
        list_create l {a b c}
        assert_equal 4 [r linsert l before b x]
        assert_equal 5 [r linsert l after c y]
        assert_equal 6 [r linsert l BEFORE a 0]
        assert_equal {0 a x b c y} [r lrange l 0 -1]
        assert_equal -1 [r linsert l before zz q]
        assert_equal 0 [r linsert nokey before a b]
        assert_equal 0 [r exists nokey]
        assert_error "ERR syntax error" {r linsert l middle a b}
        assert_error "ERR syntax error" {r linsert nokey middle a b}
        r rpush nums 1 2 3
        assert_equal 4 [r linsert nums after 2 2.5]
        assert_equal {1 2 2.5 3} [r lrange nums 0 -1]
    }

    # ------------------------------------------------------------ LREM / LTRIM

    test "LREM from head, from tail, all" {
        list_create l {a b a c a b a}
        assert_equal 2 [r lrem l 2 a]
        assert_equal {b c a b a} [r lrange l 0 -1]
        assert_equal 1 [r lrem l -1 a]
        assert_equal {b c a b} [r lrange l 0 -1]
        assert_equal 2 [r lrem l 0 b]
        assert_equal {c a} [r lrange l 0 -1]
        assert_equal 0 [r lrem l 0 zz]
        assert_equal 0 [r lrem nokey 0 a]
        assert_error "ERR value is not an integer or out of range" {r lrem l x a}
        assert_equal 1 [r lrem l 0 c]
        assert_equal 1 [r lrem l 0 a]
        assert_equal 0 [r exists l]
    }

    test "LREM matches integers by their text" {
        list_create l {1 01 1 +1 1.0 10}
        assert_equal 2 [r lrem l 0 1]
        assert_equal {01 +1 1.0 10} [r lrange l 0 -1]
    }

    test "LTRIM" {
        list_create l {0 1 2 3 4 5 6 7 8 9}
        assert_equal OK [r ltrim l 1 -2]
        assert_equal {1 2 3 4 5 6 7 8} [r lrange l 0 -1]
        assert_equal OK [r ltrim l -3 100]
        assert_equal {6 7 8} [r lrange l 0 -1]
        assert_equal OK [r ltrim l 2 1]
        assert_equal 0 [r exists l]
        assert_equal OK [r ltrim nokey 0 1]
        assert_error "ERR value is not an integer or out of range" {r ltrim l a 1}
    }

    # ------------------------------------------------------------ LPOS

    test "LPOS basic, RANK, COUNT, MAXLEN" {
        list_create l {a b c 1 2 3 c c}
        assert_equal 2 [r lpos l c]
        assert_equal 6 [r lpos l c rank 2]
        assert_equal 7 [r lpos l c rank -1]
        assert_equal 6 [r lpos l c rank -2]
        assert_equal {2 6 7} [r lpos l c count 0]
        assert_equal {2 6} [r lpos l c count 2]
        assert_equal {6 7} [r lpos l c rank 2 count 0]
        assert_equal {7 6 2} [r lpos l c rank -1 count 0]
        assert_equal {2} [r lpos l c count 0 maxlen 6]
        assert_equal {} [r lpos l c maxlen 2]
        assert_equal {7} [r lpos l c rank -1 count 0 maxlen 1]
        assert_equal 3 [r lpos l 1]
        assert_equal {} [r lpos l zz]
        assert_equal {} [r lpos l zz count 0]
        assert_equal {} [r lpos nokey a]
        assert_equal {} [r lpos nokey a count 1]
        assert_equal {} [r lpos l c rank 4]
    }

    test "LPOS errors" {
        list_create l {a}
        assert_error "ERR RANK can't be zero*" {r lpos l a rank 0}
        assert_error "ERR COUNT can't be negative" {r lpos l a count -1}
        assert_error "ERR MAXLEN can't be negative" {r lpos l a maxlen -1}
        assert_error "ERR syntax error" {r lpos l a foo 1}
        assert_error "ERR syntax error" {r lpos l a rank}
        assert_error "ERR value is not an integer or out of range" {r lpos l a rank x}
    }

    # ------------------------------------------------------------ LMPOP

    test "LMPOP pops from the first non-empty list" {
        r del l1 l2 l3
        r rpush l2 a b c d
        r rpush l3 x
        assert_equal {l2 a} [r lmpop 3 l1 l2 l3 left]
        assert_equal {l2 {d c}} [r lmpop 3 l1 l2 l3 right count 2]
        assert_equal {l2 b} [r lmpop 2 l2 l3 left count 10]
        assert_equal 0 [r exists l2]
        assert_equal {l3 x} [r lmpop 1 l3 RIGHT]
        assert_equal {} [r lmpop 2 l1 l3 left]
    }

    test "LMPOP argument errors" {
        assert_error "ERR numkeys*" {r lmpop 0 l left}
        assert_error "ERR numkeys*" {r lmpop a l left}
        assert_error "ERR numkeys*" {r lmpop -1 l right}
        assert_error "ERR syntax error*" {r lmpop 1 l bad_where}
        assert_error "ERR syntax error*" {r lmpop 1 l left bar_arg}
        assert_error "ERR syntax error*" {r lmpop 1 l right left}
        assert_error "ERR syntax error*" {r lmpop 1 l count}
        assert_error "ERR syntax error*" {r lmpop 1 l left count 1 count 2}
        assert_error "ERR syntax error*" {r lmpop 2 l l2 bad_arg}
        assert_error "ERR syntax error*" {r lmpop 5 l left}
        # numkeys at the edge of its type (no signed overflow adding it).
        assert_error "ERR syntax error*" {r lmpop 9223372036854775807 l left}
        assert_error "ERR syntax error*" {r lmpop 9223372036854775806 l left}
        assert_error "ERR syntax error*" {r blmpop 0 9223372036854775807 l left}
        assert_error "ERR numkeys*" {r lmpop 9223372036854775808 l left}
        assert_error "ERR count*" {r lmpop 1 l left count 0}
        assert_error "ERR count*" {r lmpop 1 l right count a}
        assert_error "ERR count*" {r lmpop 1 l left count -1}
    }

    test "LMPOP WRONGTYPE only if met before a non-empty list" {
        r del s l
        r set s x
        r rpush l a
        assert_error "WRONGTYPE*" {r lmpop 2 s l left}
        assert_equal {l a} [r lmpop 2 l s left]
    }

    # ------------------------------------------------------------ LMOVE

    test "LMOVE in all four directions, RPOPLPUSH" {
        list_create src {a b c d}
        r del dst
        assert_equal a [r lmove src dst left left]
        assert_equal d [r lmove src dst right left]
        assert_equal b [r lmove src dst left right]
        assert_equal c [r rpoplpush src dst]
        assert_equal {c d a b} [r lrange dst 0 -1]
        assert_equal 0 [r exists src]
        assert_equal {} [r lmove src dst left left]
        assert_equal {} [r rpoplpush src dst]
        assert_error "ERR syntax error" {r lmove dst src up left}
        assert_error "ERR syntax error" {r lmove dst src left down}
    }

    test "LMOVE on the same list rotates it" {
        list_create l {a b c}
        assert_equal c [r lmove l l right left]
        assert_equal {c a b} [r lrange l 0 -1]
        assert_equal c [r lmove l l left right]
        assert_equal {a b c} [r lrange l 0 -1]
        list_create one {x}
        assert_equal x [r rpoplpush one one]
        assert_equal {x} [r lrange one 0 -1]
    }

    test "LMOVE keeps integer elements intact" {
        list_create l {12345 -7 999999999999}
        r del d
        r lmove l d left right
        r lmove l d left right
        r lmove l d left right
        assert_equal {12345 -7 999999999999} [r lrange d 0 -1]
    }

    # ------------------------------------------------------------ encodings

    tags {"valkey-only"} {
        test "Small lists are listpack encoded" {
            list_create l {a b c}
            assert_encoding listpack l
        }

        test "List listpack -> quicklist by element count (list-max-listpack-size > 0)" {
            set old [list_config_swap list-max-listpack-size 4]
            list_create l {a b c d}
            assert_encoding listpack l
            r rpush l e
            assert_encoding quicklist l
            list_create l {a b c}
            r linsert l before a x
            assert_encoding listpack l
            r linsert l after a y
            assert_encoding quicklist l
            list_create l {a b c d}
            r lpush l e
            assert_encoding quicklist l
            r config set list-max-listpack-size $old
        }

        test "List listpack -> quicklist by size (list-max-listpack-size < 0)" {
            list_create l {a b c}
            r rpush l [string repeat x 8192]
            assert_encoding quicklist l
            list_create l {a b c}
            r lset l 1 [string repeat y 9000]
            assert_encoding quicklist l
            assert_equal [string repeat y 9000] [r lindex l 1]
            set old [list_config_swap list-max-listpack-size -1]
            list_create l {a}
            r rpush l [string repeat z 4100]
            assert_encoding quicklist l
            r config set list-max-listpack-size $old
        }

        test "List quicklist -> listpack when it shrinks to half the limit" {
            set old [list_config_swap list-max-listpack-size 4]
            list_create l {a b c d e}
            assert_encoding quicklist l
            r rpop l
            assert_encoding quicklist l
            r rpop l
            assert_encoding quicklist l
            r rpop l
            assert_encoding listpack l
            assert_equal {a b} [r lrange l 0 -1]

            list_create l {a b c d e f}
            r ltrim l 0 1
            assert_encoding listpack l
            list_create l {a b c d e}
            r lrem l 0 c
            r lrem l 0 d
            r lrem l 0 e
            assert_encoding listpack l
            r config set list-max-listpack-size $old

            list_create l {a}
            r lset l 0 [string repeat x 9000]
            assert_encoding quicklist l
            r lset l 0 b
            assert_encoding listpack l
        }

        test "LPOS RANK LONG_MIN is rejected" {
            list_create l {a}
            assert_error "ERR value is out of range*" {r lpos l a rank -9223372036854775808}
        }
    }

    test "Big lists work in the quicklist encoding (many nodes)" {
        set old [list_config_swap list-max-listpack-size 5]
        r del big
        set model {}
        for {set i 0} {$i < 200} {incr i} {
            r rpush big $i
            lappend model $i
        }
        assert_encoding quicklist big
        assert_equal $model [r lrange big 0 -1]
        assert_equal 100 [r lindex big 100]
        assert_equal 150 [r lpos big 150]
        r lset big 50 fifty
        assert_equal fifty [r lindex big 50]
        assert_equal 2 [r linsert big after 1 one_and_a_half; r lpos big one_and_a_half]
        assert_equal 1 [r lrem big 0 one_and_a_half]
        r ltrim big 10 -11
        assert_equal 180 [r llen big]
        assert_equal 10 [r lindex big 0]
        assert_equal 189 [r lindex big -1]
        r config set list-max-listpack-size $old
    }

    test "list-max-listpack-size and list-compress-depth: set, get, alias, rewrite" {
        set old [list_config_swap list-max-listpack-size 7]
        assert_equal {list-max-listpack-size 7} [r config get list-max-listpack-size]
        assert_equal 7 [lindex [r config get list-max-ziplist-size] 1]
        r config set list-max-ziplist-size -3
        assert_equal -3 [lindex [r config get list-max-listpack-size] 1]
        r config set list-max-listpack-size $old
        assert_equal {list-compress-depth 0} [r config get list-compress-depth]
        r config set list-compress-depth 2
        assert_equal {list-compress-depth 2} [r config get list-compress-depth]
        assert_error "*list-compress-depth*" {r config set list-compress-depth -1}
        r config set list-compress-depth 0
    }

    # ------------------------------------------------------------ object methods

    test "COPY of a list is a deep copy (both encodings)" {
        foreach n {3 300} {
            set old [list_config_swap list-max-listpack-size 16]
            r del src dst
            for {set i 0} {$i < $n} {incr i} { r rpush src $i }
            assert_equal 1 [r copy src dst]
            r rpush src extra
            assert_equal $n [r llen dst]
            assert_equal [r lrange src 0 [expr {$n - 1}]] [r lrange dst 0 -1]
            r config set list-max-listpack-size $old
        }
    }

    test "DEBUG DIGEST-VALUE depends on content, order, not encoding" {
        needs_debug
        list_create a {1 2 3}
        list_create b {1 2 3}
        list_create c {3 2 1}
        assert_equal [r debug digest-value a] [r debug digest-value b]
        assert_not_equal [r debug digest-value a] [r debug digest-value c]
        set old [list_config_swap list-max-listpack-size 1]
        list_create q {1 2 3}
        r config set list-max-listpack-size $old
        assert_equal [r debug digest-value a] [r debug digest-value q]
    }

    test "MEMORY USAGE grows with the list; SCAN TYPE list; TYPE" {
        list_create small {a}
        r del big
        for {set i 0} {$i < 1000} {incr i} { r rpush big "element-$i" }
        assert {[r memory usage big] > [r memory usage small]}
        assert {[r memory usage big] > 10000}
        r set str x
        set keys [lsort [lindex [r scan 0 type list count 1000] 1]]
        assert {[lsearch $keys str] == -1}
        assert {[lsearch $keys big] >= 0 && [lsearch $keys small] >= 0}
        assert_type list big
    }

    # ------------------------------------------------------------ randomized

    foreach fill {-2 3} {
        test "Randomized list operations against a Tcl model (list-max-listpack-size $fill)" {
            set old [list_config_swap list-max-listpack-size $fill]
            r del rl
            set model {}
            for {set step 0} {$step < 1500} {incr step} {
                set e [list_rand_element]
                set len [llength $model]
                switch [expr {int(rand() * 10)}] {
                    0 { r lpush rl $e; set model [linsert $model 0 $e] }
                    1 { r rpush rl $e; lappend model $e }
                    2 {
                        set got [r lpop rl]
                        if {$len} { assert_equal [lindex $model 0] $got; set model [lrange $model 1 end] }
                    }
                    3 {
                        set got [r rpop rl]
                        if {$len} { assert_equal [lindex $model end] $got; set model [lrange $model 0 end-1] }
                    }
                    4 {
                        if {$len} {
                            set i [expr {int(rand() * $len)}]
                            r lset rl $i $e
                            lset model $i $e
                        }
                    }
                    5 {
                        if {$len} {
                            set pivot [lindex $model [expr {int(rand() * $len)}]]
                            set where [lindex {before after} [expr {int(rand() * 2)}]]
                            r linsert rl $where $pivot $e
                            set i [lsearch -exact $model $pivot]
                            if {$where eq "after"} { incr i }
                            set model [linsert $model $i $e]
                        }
                    }
                    6 {
                        if {$len} {
                            set v [lindex $model [expr {int(rand() * $len)}]]
                            set cnt [expr {int(rand() * 5) - 2}]
                            set removed [r lrem rl $cnt $v]
                            set idx [lsearch -all -exact $model $v]
                            if {$cnt < 0} { set idx [lreverse $idx] }
                            if {$cnt != 0} { set idx [lrange $idx 0 [expr {abs($cnt) - 1}]] }
                            assert_equal [llength $idx] $removed
                            foreach i [lsort -integer -decreasing $idx] { set model [lreplace $model $i $i] }
                        }
                    }
                    7 {
                        set s [expr {int(rand() * 10) - 3}]
                        set t [expr {$len - int(rand() * 5)}]
                        r ltrim rl $s $t
                        set model [list_model_range $model $s $t]
                    }
                    8 {
                        set s [expr {int(rand() * ($len + 4)) - 2}]
                        set t [expr {int(rand() * ($len + 4)) - 2}]
                        assert_equal [list_model_range $model $s $t] [r lrange rl $s $t]
                    }
                    9 {
                        if {$len} {
                            set i [expr {int(rand() * $len)}]
                            assert_equal [lindex $model $i] [r lindex rl $i]
                            set v [lindex $model $i]
                            assert_equal [lsearch -exact $model $v] [r lpos rl $v]
                        }
                    }
                }
                assert_equal [llength $model] [r llen rl]
                if {[llength $model] == 0} { assert_equal 0 [r exists rl] }
            }
            assert_equal $model [r lrange rl 0 -1]
            r config set list-max-listpack-size $old
        }
    }
}

# ------------------------------------------------- list-compress-depth

# used_memory from INFO.
proc list_used_memory {} {
    regexp {used_memory:(\d+)} [r info memory] -> v
    return $v
}

# Builds `key` with n compressible elements (repetitive text and integers).
proc list_fill_compressible {key n} {
    r del $key
    for {set i 0} {$i < $n} {incr i 500} {
        set batch {}
        for {set j $i} {$j < $i + 500 && $j < $n} {incr j} {
            if {$j % 5 == 0} {
                lappend batch $j
            } else {
                lappend batch "element-$j-with-some-repeated-padding-padding-padding"
            }
        }
        r rpush $key {*}$batch
    }
}

start_server {tags {"list"}} {

    test "list-compress-depth 1 lowers used_memory of a big compressible list" {
        set old [list_config_swap list-compress-depth 0]
        r del big
        wait_lazyfree_done
        set base [list_used_memory]
        list_fill_compressible big 20000
        set plain_mem [expr {[list_used_memory] - $base}]
        set plain_usage [r memory usage big samples 0]
        set plain_data [r lrange big 0 -1]
        r del big
        r config set list-compress-depth 1
        wait_lazyfree_done
        set base [list_used_memory]
        list_fill_compressible big 20000
        set packed_mem [expr {[list_used_memory] - $base}]
        set packed_usage [r memory usage big samples 0]
        assert_equal quicklist [r object encoding big]
        # The 10000-element text compresses well: far less than half.
        assert {$packed_mem * 2 < $plain_mem}
        assert {$packed_usage * 2 < $plain_usage}
        assert_equal $plain_data [r lrange big 0 -1]
        r del big
        r config set list-compress-depth $old
    }

    # Every list command on a list built with compression must give what
    # it gives on the same list built without: at each depth, with both
    # forms of list-max-listpack-size (element count and byte size).
    foreach fill {-2 -1 8 128} {
        foreach depth {1 2 3} {
            test "List commands agree on compressed and plain lists (fill $fill, depth $depth)" {
                set old_fill [list_config_swap list-max-listpack-size $fill]
                set old_depth [list_config_swap list-compress-depth 0]
                list_fill_compressible {p{t}} 3000
                r config set list-compress-depth $depth
                list_fill_compressible {c{t}} 3000
                assert_equal quicklist [r object encoding {c{t}}]
                set mid "element-1501-with-some-repeated-padding-padding-padding"
                set steps {
                    {llen @K}
                    {lrange @K 0 -1}
                    {lrange @K 1000 1010}
                    {lrange @K -2000 -1990}
                    {lindex @K 0}
                    {lindex @K 1500}
                    {lindex @K -1}
                    {lindex @K -1700}
                    {lpos @K $mid}
                    {lpos @K $mid RANK -1}
                    {lpos @K 1500 COUNT 0}
                    {lset @K 1400 replaced}
                    {lset @K 1401 [string repeat z 5000]}
                    {lset @K -1200 1234567}
                    {linsert @K BEFORE $mid before-mid}
                    {linsert @K AFTER 2500 after-2500}
                    {lrem @K 3 1000}
                    {lrem @K -2 "element-2001-with-some-repeated-padding-padding-padding"}
                    {lrem @K 0 "element-7-with-some-repeated-padding-padding-padding"}
                    {lpush @K h1 h2 h3}
                    {rpush @K t1 t2 t3}
                    {lpop @K 2}
                    {rpop @K 2}
                    {lmove @K @K LEFT RIGHT}
                    {lmpop 1 @K RIGHT COUNT 3}
                    {sort @K BY nosort LIMIT 500 10}
                    {ltrim @K 100 -100}
                    {lrange @K 0 -1}
                    {ltrim @K 500 2000}
                    {lrange @K 0 -1}
                    {llen @K}
                }
                foreach step $steps {
                    set cmd_p [string map {@K p{t}} [subst $step]]
                    set cmd_c [string map {@K c{t}} [subst $step]]
                    # LMPOP names the key in its reply.
                    assert_equal [r {*}$cmd_p] [string map {c{t} p{t}} [r {*}$cmd_c]] "$step"
                }
                r del {p{t}} {c{t}}
                r config set list-max-listpack-size $old_fill
                r config set list-compress-depth $old_depth
            }
        }
    }
}

start_server {tags {"list" "needs:debug"} overrides {enable-debug-command yes}} {
    test "DEBUG OBJECT of a quicklist reports nodes, fill and compression" {
        r config set list-max-listpack-size -2
        foreach {depth flag} {0 0 1 1} {
            r config set list-compress-depth $depth
            r del l
            for {set i 0} {$i < 300} {incr i} {
                r rpush l "element-$i-padding-padding-padding-padding-padding-padding"
            }
            set d [r debug object l]
            assert_match "*encoding:quicklist *" $d
            assert_match "* ql_nodes:3 ql_avg_node:100.00 ql_listpack_max:-2 ql_compressed:$flag *" $d
            regexp {ql_uncompressed_size:(\d+)} $d -> raw
            # Three nodes of 100 elements of 58-60 bytes each.
            assert_range $raw 17000 19000
        }
        r config set list-compress-depth 0
        r del l
    }
    # Without compression the nodes between the head and the tail are kept
    # packed (quicklist.c): the same elements through every read, DUMP and
    # a reload, in well under the listpack bytes DEBUG OBJECT reports.
    test "A big list at depth 0 keeps its interior nodes packed" {
        set old [list_config_swap list-compress-depth 0]
        r del big
        set vals {}
        for {set i 0} {$i < 20000} {incr i} { lappend vals [format m%07d $i] }
        for {set i 0} {$i < 20000} {incr i 1000} { r rpush big {*}[lrange $vals $i [expr {$i + 999}]] }
        regexp {ql_uncompressed_size:(\d+)} [r debug object big] -> raw
        # 8 of every 10 listpack bytes, in allocations rounded up by jemalloc.
        assert {[r memory usage big samples 0] * 100 < $raw * 90}
        assert_equal $vals [r lrange big 0 -1]
        assert_equal [lrange $vals 9990 10010] [r lrange big 9990 10010]
        assert_equal m0012345 [r lindex big 12345]
        assert_equal 7777 [r lpos big m0007777]
        assert_equal [lreverse $vals] [r sort big by nosort desc]
        r restore big.copy 0 [r dump big]
        assert_equal $vals [r lrange big.copy 0 -1]
        r debug reload
        assert_equal $vals [r lrange big 0 -1]
        assert {[r memory usage big samples 0] * 100 < $raw * 90}
        r lset big 10000 changed
        assert_equal {m0009999 changed m0010001} [r lrange big 9999 10001]
        r del big big.copy
        r config set list-compress-depth $old
    }
}

# Plain nodes: with DEBUG QUICKLIST-PACKED-THRESHOLD lowered to 1K, every
# element of 1K or more in a quicklist gets a node of its own (Valkey's
# PLAIN container) that never takes another element, is saved as a PLAIN
# node and stays a quicklist even when it is the only node left.
source [file join $::vk::cfg(root) tests assets dump-payload.tcl]
start_server {tags {"list" "needs:debug"} overrides {enable-debug-command yes}} {
    proc plain_nodes {key} {
        regexp {ql_nodes:(\d+)} [r debug object $key] -> n
        return $n
    }

    test "DEBUG QUICKLIST-PACKED-THRESHOLD takes memory values below 4gb" {
        foreach v {1K 1mb 100 3gb 0} { assert_equal OK [r debug quicklist-packed-threshold $v] }
        foreach v {abc 4gb 5gb -1 1x} {
            assert_error "*argument must be a memory value bigger than 1 and smaller than 4gb*" \
                {r debug quicklist-packed-threshold $v}
        }
    }

    foreach depth {0 1} {
        test "Plain nodes: every list command on big and small elements (compress depth $depth)" {
            r config set list-max-listpack-size 4
            r config set list-compress-depth $depth
            r debug quicklist-packed-threshold 1K
            set b0 [string repeat A 1024]
            set b1 [string repeat B 1500]
            set b2 [string repeat C 3000]
            r del l
            r rpush l a b c d e
            assert_equal 2 [plain_nodes l]
            r rpush l $b1
            assert_equal 3 [plain_nodes l]
            r rpush l f
            assert_equal 4 [plain_nodes l]
            r lpush l $b0
            assert_equal 5 [plain_nodes l]
            set m [list $b0 a b c d e $b1 f]
            assert_equal $m [r lrange l 0 -1]
            assert_equal $b1 [r lindex l 6]
            assert_equal $b0 [r lindex l -8]
            assert_equal 6 [r lpos l $b1]
            assert_equal {c d} [r lrange l 3 4]
            # LINSERT: small next to a big one, big into a node of small ones.
            assert_equal 9 [r linsert l after $b1 g]
            assert_equal 10 [r linsert l before c $b2]
            set m [list $b0 a b $b2 c d e $b1 g f]
            assert_equal $m [r lrange l 0 -1]
            assert_equal 3 [r lpos l $b2]
            # LSET: big over small, small over big.
            r lset l 1 $b2
            r lset l 7 small
            set m [list $b0 $b2 b $b2 c d e small g f]
            assert_equal $m [r lrange l 0 -1]
            assert_equal {1 3} [r lpos l $b2 count 0]
            # A reload and a DUMP/RESTORE round trip keep every element.
            r debug reload
            assert_equal $m [r lrange l 0 -1]
            r restore l2 0 [r dump l]
            assert_equal $m [r lrange l2 0 -1]
            assert_equal [r debug digest-value l] [r debug digest-value l2]
            # LREM, LTRIM, pops.
            assert_equal 2 [r lrem l 0 $b2]
            set m [list $b0 b c d e small g f]
            assert_equal $m [r lrange l 0 -1]
            assert_equal $b0 [r lpop l]
            assert_equal f [r rpop l]
            r rpush l $b1
            assert_equal $b1 [r rpop l]
            r ltrim l 1 3
            assert_equal {c d e} [r lrange l 0 -1]
            r del l l2
        }
    }

    test "Plain nodes: saved as PLAIN containers, a lone big node stays a quicklist" {
        r config set list-max-listpack-size 4
        r debug quicklist-packed-threshold 1K
        set big [string repeat Z 2000]
        r del l
        r rpush l $big 1 2 3 4 5
        # DUMP: type, node count, then the first node's container (1: PLAIN).
        binary scan [string index [r dump l] 2] c container
        assert_equal 1 $container
        r ltrim l 0 0
        assert_encoding quicklist l
        assert_equal [list $big] [r lrange l 0 -1]
        r debug reload
        assert_encoding quicklist l
        assert_equal $big [r lindex l 0]
        r restore l2 0 [r dump l]
        assert_encoding quicklist l2
        # Back to the default threshold: new 2000-byte elements share nodes.
        r debug quicklist-packed-threshold 0
        # PLAIN nodes as Valkey writes them (whatever their size) load as
        # nodes of their own and are written back as PLAIN.
        set b1k [string repeat P 1000]
        set body "\x12\x02\x01\x43\xe8$b1k\x01\x04tiny"
        r restore l3 0 [seal_payload $body]
        assert_equal [list $b1k tiny] [r lrange l3 0 -1]
        assert_encoding quicklist l3
        r rpush l3 x
        assert_equal 3 [plain_nodes l3]
        binary scan [string range [r dump l3] 0 2] ccc type nodes c1
        assert_equal {18 3 1} [list $type $nodes $c1]
        r del l3
        r del l
        r rpush l $big 1 2 3 4 5
        binary scan [string index [r dump l] 2] c container
        assert_equal 2 $container
        r del l l2
        r config set list-max-listpack-size -2
    }
}
