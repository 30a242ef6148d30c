# HyperLogLog: PFADD / PFCOUNT / PFMERGE, the sparse and dense encodings
# and the promotion between them (hll-sparse-max-bytes), the cached
# cardinality in the header, PFDEBUG / PFSELFTEST, type checking, corrupt
# values, and values exchanged with a real Redis 7.0 through GET/SET.
#
# Encodings are read black-box from the header: byte 4 is 1 for sparse
# and 0 for dense, byte 15 has bit 7 set while the cached count is stale.
# Elements are deterministic ("ele:N"), and the hash is the same as
# Redis', so every count below is reproducible on both servers.
#
# Tests tagged "valkey-only" check stricter validation than Redis 7.0 has
# (it accepts PFADD on a sparse value with trailing garbage).

# ---------------------------------------------------------------- helpers

proc hll_encoding {key} {
    set b [r getrange $key 4 4]
    if {$b eq "\x00"} { return dense }
    if {$b eq "\x01"} { return sparse }
    return "unknown([binary encode hex $b])"
}

# Adds elements "$prefix$from" .. "$prefix[expr {$to-1}]" in batches of 1000.
proc hll_add_range {key prefix from to} {
    for {set i $from} {$i < $to} {incr i 1000} {
        set batch {}
        set end [expr {min($i + 1000, $to)}]
        for {set j $i} {$j < $end} {incr j} { lappend batch "$prefix$j" }
        r pfadd $key {*}$batch
    }
}

# A dense HLL value built by hand: registers from the dict idx -> value.
proc hll_make_dense {regs} {
    set bits [string repeat 0 [expr {16384 * 6}]]
    dict for {idx val} $regs {
        for {set b 0} {$b < 6} {incr b} {
            set bits [string replace $bits [expr {$idx*6+$b}] [expr {$idx*6+$b}] [expr {($val >> $b) & 1}]]
        }
    }
    # binary format b* packs the low bit of each byte first: the HLL order.
    return "HYLL\x00\x00\x00\x00[string repeat \x00 7]\x80[binary format b* $bits]"
}

# ---------------------------------------------------------------- basics

start_server {tags {hll}} {
    test {PFADD without elements creates an empty HLL} {
        r del hll
        assert_equal 1 [r pfadd hll]
        assert_equal 1 [r exists hll]
        assert_equal 0 [r pfadd hll]
        assert_equal sparse [hll_encoding hll]
        assert_equal 18 [r strlen hll]
        r pfcount hll
    } 0

    test {PFADD returns 1 only when a register changes} {
        r del hll
        assert_equal 1 [r pfadd hll a b c]
        assert_equal 0 [r pfadd hll a b c]
        assert_equal 0 [r pfadd hll a]
        assert_equal 1 [r pfadd hll d]
    }

    test {PFADD works with the empty string} {
        r del hll
        r pfadd hll ""
        r pfcount hll
    } 1

    test {PFCOUNT of a missing key is 0} {
        r del nokey
        r pfcount nokey
    } 0

    test {PFCOUNT is exact for small sets} {
        r del hll
        r pfadd hll a b c d e f g h i j
        assert_equal 10 [r pfcount hll]
        r pfadd hll a b c
        r pfcount hll
    } 10

    test {PFCOUNT caches the cardinality and PFADD invalidates it} {
        r del hll
        r pfadd hll a b c
        assert_equal "\x80" [r getrange hll 15 15]
        assert_equal 3 [r pfcount hll]
        assert_equal "\x03" [r getrange hll 8 8]
        assert_equal "\x00" [r getrange hll 15 15]
        r pfadd hll a b c
        assert_equal "\x00" [r getrange hll 15 15]
        r pfadd hll 1 2 3
        assert_equal "\x80" [r getrange hll 15 15]
        r pfcount hll
    } 6

    test {PFCOUNT returns a stale-marked cache value as computed, a valid one as stored} {
        r del hll
        r pfadd hll a b c
        r pfcount hll
        # Forge the cache: a valid cache is returned without looking at
        # the registers.
        r setrange hll 8 "\x39\x05"
        r pfcount hll
    } 1337

    test {PFCOUNT is within 2% for 10k, 50k and 100k elements (dense)} {
        r del hll
        set from 0
        foreach n {10000 50000 100000} {
            hll_add_range hll ele: $from $n
            set from $n
            assert_equal dense [hll_encoding hll]
            assert_equal 12304 [r strlen hll]
            set est [r pfcount hll]
            assert {abs($est - $n) <= $n * 0.02} "estimate $est for $n"
        }
    }

    test {Sparse and dense give the same count at every size} {
        r del sp
        for {set n 0} {$n < 3000} {incr n 100} {
            hll_add_range sp s: $n [expr {$n + 100}]
            if {[hll_encoding sp] ne "sparse"} break
            r del de
            r set de [r get sp]
            r pfdebug todense de
            assert_equal dense [hll_encoding de]
            assert_equal [r pfcount sp] [r pfcount de]
            set est [r pfcount sp]
            set real [expr {$n + 100}]
            assert {abs($est - $real) <= $real * 0.05} "estimate $est for $real"
        }
    }

    test {Sparse HLLs are promoted to dense past hll-sparse-max-bytes} {
        r config set hll-sparse-max-bytes 3000
        r del hll
        set promoted 0
        for {set i 0} {$i < 5000} {incr i} {
            r pfadd hll "p:$i"
            set len [r strlen hll]
            if {[hll_encoding hll] eq "sparse"} {
                assert {$len <= 3000} "sparse value of $len bytes"
            } else {
                assert_equal 12304 $len
                set promoted 1
                break
            }
        }
        assert_equal 1 $promoted
        # Never back to sparse.
        r pfadd hll x
        hll_encoding hll
    } dense

    test {hll-sparse-max-bytes: a tiny limit makes the first add dense} {
        r config set hll-sparse-max-bytes 30
        r del hll
        r pfadd hll a b c d e f g h i j k l m n o p
        set enc [hll_encoding hll]
        r config set hll-sparse-max-bytes 3000
        set enc
    } dense

    test {hll-sparse-max-bytes: CONFIG SET, GET, REWRITE} {
        r config set hll-sparse-max-bytes 1500
        assert_equal {hll-sparse-max-bytes 1500} [r config get hll-sparse-max-bytes]
        r config rewrite
        set fh [open [srv config_file]]
        set conf [read $fh]
        close $fh
        assert_match "*hll-sparse-max-bytes 1500*" $conf
        r config set hll-sparse-max-bytes 3000
        assert_error {*hll-sparse-max-bytes*} {r config set hll-sparse-max-bytes -1}
        r config get hll-sparse-max-bytes
    } {hll-sparse-max-bytes 3000}

    # ------------------------------------------------------------ PFMERGE

    test {PFMERGE results in the cardinality of the union} {
        r del a b c
        r pfadd a 1 2 3 4 5
        r pfadd b 3 4 5 6 7
        assert_equal OK [r pfmerge c a b]
        assert_equal "\x80" [r getrange c 15 15]
        assert_equal 7 [r pfcount c]
        # Sources untouched.
        assert_equal 5 [r pfcount a]
        r pfcount b
    } 5

    test {PFMERGE with the destination as a source keeps its elements} {
        r del a b
        r pfadd a x y z
        r pfadd b z w
        r pfmerge a b
        r pfcount a
    } 4

    test {PFMERGE on missing sources creates an empty destination} {
        r del dst nokey1 nokey2
        assert_equal OK [r pfmerge dst nokey1 nokey2]
        assert_equal 1 [r exists dst]
        assert_equal sparse [hll_encoding dst]
        r pfcount dst
    } 0

    test {PFMERGE with only a destination} {
        r del dst
        r pfmerge dst
        assert_equal 0 [r pfcount dst]
        r pfadd dst a
        r pfmerge dst
        r pfcount dst
    } 1

    test {PFMERGE of sparse values stays sparse; any dense input makes it dense} {
        r del a b c d
        r pfadd a 1 2 3
        r pfadd b 4 5 6
        r pfmerge c a b
        assert_equal sparse [hll_encoding c]
        hll_add_range d big: 0 5000
        assert_equal dense [hll_encoding d]
        r pfmerge c d
        assert_equal dense [hll_encoding c]
        assert_equal [r pfcount c] [r pfcount a b d]
    }

    test {PFMERGE promotes when a register does not fit the sparse form} {
        r del big dst
        r set big [hll_make_dense {5 40 100 3}]
        r pfadd dst a
        r pfmerge dst big
        assert_equal dense [hll_encoding dst]
        set regs [r pfdebug getreg dst]
        list [lindex $regs 5] [lindex $regs 100]
    } {40 3}

    test {PFCOUNT of several keys counts the union without touching them} {
        r del a b c
        r pfadd a 1 2 3 4 5
        r pfadd b 4 5 6 7 8 9
        set before [list [r get a] [r get b]]
        assert_equal 9 [r pfcount a b nokey]
        assert_equal $before [list [r get a] [r get b]]
        hll_add_range c u: 0 20000
        set est [r pfcount a b c]
        assert {abs($est - 20009) <= 20009 * 0.02} "estimate $est"
    }

    # ------------------------------------------------------------ errors

    test {PFADD, PFCOUNT, PFMERGE type checking} {
        r del s l hll
        r set s "not an hll"
        r rpush l a
        r pfadd hll a
        assert_error {WRONGTYPE Key is not a valid HyperLogLog string value.} {r pfadd s a}
        assert_error {WRONGTYPE Key is not a valid HyperLogLog string value.} {r pfcount s}
        assert_error {WRONGTYPE Key is not a valid HyperLogLog string value.} {r pfcount hll s}
        assert_error {WRONGTYPE Key is not a valid HyperLogLog string value.} {r pfmerge hll s}
        assert_error {WRONGTYPE Key is not a valid HyperLogLog string value.} {r pfmerge s hll}
        assert_error {WRONGTYPE Operation against a key holding the wrong kind of value*} {r pfadd l a}
        assert_error {WRONGTYPE Operation against a key holding the wrong kind of value*} {r pfcount l}
        assert_error {WRONGTYPE Operation against a key holding the wrong kind of value*} {r pfmerge hll l}
        assert_error {*wrong number of arguments*} {r pfadd}
        assert_error {*wrong number of arguments*} {r pfcount}
        assert_error {*wrong number of arguments*} {r pfmerge}
        # Integer-encoded and too-short strings are not HLLs either.
        r set s 12345
        assert_error {WRONGTYPE Key is not a valid*} {r pfcount s}
        r set s HYLL
        assert_error {WRONGTYPE Key is not a valid*} {r pfcount s}
    }

    test {Corrupted sparse HLL: additional bytes at the tail} {
        r del hll
        r pfadd hll a b c
        r append hll "hello"
        assert_error {INVALIDOBJ Corrupted HLL object detected} {r pfcount hll}
        assert_error {INVALIDOBJ*} {r pfcount hll hll}
        assert_error {INVALIDOBJ*} {r pfmerge dst hll}
    }

    tags {valkey-only} {
        test {Corrupted sparse HLL: PFADD and PFDEBUG reject it too} {
            r del hll
            r pfadd hll a b c
            r append hll "hello"
            assert_error {INVALIDOBJ*} {r pfadd hll zz}
            assert_error {INVALIDOBJ*} {r pfdebug decode hll}
            assert_error {INVALIDOBJ*} {r pfdebug getreg hll}
        }
    }

    test {Corrupted sparse HLL: truncated XZERO and short coverage} {
        # (The cache bytes are marked stale so PFCOUNT has to decode.)
        r del hll
        r set hll "HYLL\x01\x00\x00\x00[string repeat \x00 7]\x80\x7f"
        assert_error {INVALIDOBJ*} {r pfcount hll}
        # Covers only 64 registers.
        r set hll "HYLL\x01\x00\x00\x00[string repeat \x00 7]\x80\x3f"
        assert_error {INVALIDOBJ*} {r pfcount hll}
        # Covers too many: a full XZERO and one more VAL.
        r set hll "HYLL\x01\x00\x00\x00[string repeat \x00 7]\x80\x7f\xff\x80"
        assert_error {INVALIDOBJ*} {r pfcount hll}
    }

    test {Corrupted HLL: broken magic} {
        r del hll
        r pfadd hll a b c
        r setrange hll 0 "0123"
        assert_error {*WRONGTYPE*} {r pfcount hll}
    }

    test {Corrupted HLL: invalid encoding} {
        r del hll
        r pfadd hll a b c
        r setrange hll 4 "x"
        assert_error {*WRONGTYPE*} {r pfcount hll}
    }

    test {Corrupted dense HLL: wrong length} {
        r del hll
        r pfadd hll a b c
        r setrange hll 4 "\x00"
        assert_error {*WRONGTYPE*} {r pfcount hll}
    }

    test {Fuzzing sparse and dense values: errors, never crashes} {
        for {set j 0} {$j < 100} {incr j} {
            r del hll
            set n [expr {int(rand() * 3) ? 20 : 3000}]
            hll_add_range hll f$j: 0 $n
            set len [r strlen hll]
            for {set k 0} {$k < 10} {incr k} {
                set pos [expr {int(rand() * $len)}]
                r setrange hll $pos [binary format c [expr {int(rand() * 256) - 128}]]
            }
            catch {r pfcount hll}
            catch {r pfadd hll x y z}
            catch {r pfmerge dst hll}
            catch {r pfdebug getreg hll}
        }
        r ping
    } PONG

    # ------------------------------------------------------------ PFDEBUG

    test {PFDEBUG ENCODING, DECODE, TODENSE, GETREG} {
        r del hll
        r pfadd hll a b c
        assert_equal sparse [r pfdebug encoding hll]
        assert_equal {Z:8436 v:1,1 Z:4274 v:2,1 Z:3068 v:1,1 Z:603} [r pfdebug decode hll]
        assert_equal 1 [r pfdebug todense hll]
        assert_equal 0 [r pfdebug todense hll]
        assert_equal dense [r pfdebug encoding hll]
        assert_error {*HLL encoding is not sparse*} {r pfdebug decode hll}
        set regs [r pfdebug getreg hll]
        assert_equal 16384 [llength $regs]
        assert_equal 4 [expr [join $regs +]]
        r pfcount hll
    } 3

    test {PFDEBUG GETREG converts a sparse value} {
        r del hll
        r pfadd hll a b c
        r pfdebug getreg hll
        hll_encoding hll
    } dense

    test {PFDEBUG errors} {
        r del nokey s
        r set s foo
        assert_error {*The specified key does not exist*} {r pfdebug encoding nokey}
        assert_error {*WRONGTYPE Key is not a valid*} {r pfdebug encoding s}
        r pfadd hll a
        assert_error {*Unknown PFDEBUG subcommand 'foo'*} {r pfdebug foo hll}
    }

    test {PFSELFTEST passes} {
        r pfselftest
    } OK
}

# ---------------------------------------------------------------- Redis 7.0

# Starts /usr/bin/redis-server on a free port next to the server under
# test and runs body with `redis` naming a client to it. Skips the test
# when Redis is not installed.
proc hll_with_redis {body} {
    set bin /usr/bin/redis-server
    if {![file executable $bin]} { skip "$bin not installed" }
    set port [::vk::alloc_port]
    set dir [tmp_path redis-ref-$port]
    file mkdir $dir
    set pid [exec $bin --port $port --bind 127.0.0.1 --save "" --appendonly no \
                 --dir $dir --logfile [file join $dir log] &]
    set c ""
    for {set i 0} {$i < 100} {incr i} {
        if {![catch {::vk::client_open 127.0.0.1 $port} c]} break
        set c ""
        after 50
    }
    if {$c eq ""} {
        catch {exec kill $pid}
        fail "redis-server did not start on port $port"
    }
    uplevel 1 [list set redis $c]
    set code [catch {uplevel 1 $body} result opts]
    catch {$c close}
    catch {exec kill $pid}
    return -options $opts $result
}

start_server {tags {hll external:skip rdma:skip:own-server}} {
    test {HLL values are byte-identical to Redis 7.0 and interchangeable} {
        hll_with_redis {
            $redis del h
            r del h
            # Same adds, same bytes: sparse, across the promotion, dense.
            foreach n {3 100 1000 4000 20000} {
                set batch {}
                for {set i 0} {$i < $n} {incr i} { lappend batch "x:$i" }
                $redis pfadd h {*}$batch
                r pfadd h {*}$batch
                assert_equal [$redis get h] [r get h] "value after $n adds"
                assert_equal [$redis pfcount h] [r pfcount h]
                assert_equal [$redis get h] [r get h] "value after PFCOUNT at $n"
            }
        }
    }

    test {A sparse HLL made by Redis 7.0 works here, and back} {
        hll_with_redis {
            $redis del h
            $redis pfadd h a b c d e f g
            r del h
            r set h [$redis get h]
            assert_equal 7 [r pfcount h]
            r pfadd h h i j
            $redis set h2 [r get h]
            assert_equal 10 [$redis pfcount h2]
            assert_equal [r pfcount h] [$redis pfcount h2]
            assert_equal sparse [$redis pfdebug encoding h2]
        }
    }

    test {A dense HLL made by Redis 7.0 works here, and back} {
        hll_with_redis {
            $redis del h
            for {set i 0} {$i < 30000} {incr i 1000} {
                set batch {}
                for {set j $i} {$j < $i + 1000} {incr j} { lappend batch "d:$j" }
                $redis pfadd h {*}$batch
            }
            assert_equal dense [$redis pfdebug encoding h]
            r del h
            r set h [$redis get h]
            assert_equal [$redis pfcount h] [r pfcount h]
            # Merge with a local sparse value, check against Redis' merge.
            r del s m
            r pfadd s q1 q2 q3
            $redis set s [r get s]
            r pfmerge m h s
            $redis pfmerge m h s
            assert_equal [$redis get m] [r get m]
            assert_equal [$redis pfcount m] [r pfcount m]
            assert_equal [$redis pfcount h s] [r pfcount h s]
        }
    }
}
