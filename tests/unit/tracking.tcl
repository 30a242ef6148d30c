# Client-side caching: CLIENT TRACKING (default mode, OPTIN, OPTOUT, BCAST
# with prefixes, NOLOOP, REDIRECT to RESP3 and to RESP2 Pub/Sub clients),
# CLIENT CACHING / GETREDIR / TRACKINGINFO, the invalidation messages on
# writes, expiry and flushes, and the INFO counters. Tests tagged
# "valkey-only" cover behaviour Redis 7.0 lacks (keys read by a script
# tracked for its caller).

# A deferring RESP3 client with tracking turned on with `args`.
proc tracking_client {args} {
    set c [vk_deferring_client]
    $c hello 3
    $c read
    $c client tracking on {*}$args
    assert_equal OK [$c read]
    return $c
}

# Sends one command on a deferring client and returns its reply.
proc dcall {c args} {
    $c {*}$args
    return [$c read]
}

# Asserts that nothing (no invalidation) is waiting before the next reply.
proc assert_no_push {c} {
    assert_equal PONG [dcall $c ping]
}

start_server {tags {"tracking"}} {

    test "Default mode: a read key is invalidated once when another client writes it" {
        set c [tracking_client]
        assert_equal {} [dcall $c get k1]
        r set k1 v1
        assert_equal {invalidate k1} [$c read]
        # Not read again since: no second message.
        r set k1 v2
        assert_no_push $c
        # Read again: tracked again.
        assert_equal v2 [dcall $c get k1]
        r del k1
        assert_equal {invalidate k1} [$c read]
        $c close
    }

    test "MGET tracks every key; each gets its own invalidation" {
        set c [tracking_client]
        dcall $c mget a1 a2 a3
        r mset a1 x a3 y
        assert_equal {invalidate a1} [$c read]
        assert_equal {invalidate a3} [$c read]
        r set a2 z
        assert_equal {invalidate a2} [$c read]
        $c close
    }

    test "Writes that are not SET invalidate too: HSET, EXPIRE, RENAME, INCR" {
        set c [tracking_client]
        dcall $c hgetall h1
        dcall $c get n1
        dcall $c get rn1
        dcall $c get rn2
        r hset h1 f v
        assert_equal {invalidate h1} [$c read]
        r incr n1
        assert_equal {invalidate n1} [$c read]
        dcall $c get n1
        r expire n1 100
        assert_equal {invalidate n1} [$c read]
        r set rn1 v
        assert_equal {invalidate rn1} [$c read]
        dcall $c get rn1
        r rename rn1 rn2
        assert_equal {invalidate rn1} [$c read]
        assert_equal {invalidate rn2} [$c read]
        $c close
    }

    test "A client's own write: the invalidation follows the reply; NOLOOP leaves it out" {
        set c [tracking_client]
        dcall $c get own
        assert_equal OK [dcall $c set own 1]
        assert_equal {invalidate own} [$c read]
        $c close

        set c [tracking_client noloop]
        dcall $c get own
        assert_equal OK [dcall $c set own 2]
        assert_no_push $c
        dcall $c get own
        r set own 3
        assert_equal {invalidate own} [$c read]
        $c close
    }

    test "Inside MULTI the invalidation of one's own write comes after EXEC's reply" {
        set c [tracking_client]
        dcall $c get mk
        dcall $c multi
        dcall $c set mk 1
        dcall $c get mk
        assert_equal {OK 1} [dcall $c exec]
        assert_equal {invalidate mk} [$c read]
        $c close
    }

    test "FLUSHALL and FLUSHDB invalidate with a null key list" {
        set c [tracking_client]
        dcall $c get f1
        r flushall
        assert_equal {invalidate {}} [$c read]
        r flushdb
        assert_equal {invalidate {}} [$c read]
        # FLUSHALL forgot what was tracked.
        r set f1 x
        assert_no_push $c
        $c close
    }

    test "An expired key is invalidated" {
        set c [tracking_client]
        r set ex1 v px 100
        assert_equal v [dcall $c get ex1]
        # Found expired by a read, or by the active expiry: either way.
        after 200
        r get ex1
        assert_equal {invalidate ex1} [$c read]
        $c close
    }

    test "OPTIN: only a read right after CLIENT CACHING yes is tracked" {
        set c [tracking_client optin]
        dcall $c get o1
        assert_equal OK [dcall $c client caching yes]
        dcall $c get o2
        dcall $c get o3
        r mset o1 1 o2 2 o3 3
        assert_equal {invalidate o2} [$c read]
        assert_no_push $c
        $c close
    }

    test "OPTIN: CLIENT CACHING yes covers a whole MULTI/EXEC" {
        set c [tracking_client optin]
        dcall $c client caching yes
        dcall $c multi
        dcall $c get m1
        dcall $c get m2
        dcall $c exec
        dcall $c get m3
        r mset m1 1 m2 2 m3 3
        assert_equal {invalidate m1} [$c read]
        assert_equal {invalidate m2} [$c read]
        assert_no_push $c
        $c close
    }

    test "OPTOUT: every read is tracked but the one after CLIENT CACHING no" {
        set c [tracking_client optout]
        dcall $c get u1
        dcall $c client caching no
        dcall $c get u2
        r mset u1 1 u2 2
        assert_equal {invalidate u1} [$c read]
        assert_no_push $c
        $c close
    }

    test "BCAST: every key under a prefix, one message per prefix, prefixes in order" {
        set c [tracking_client bcast prefix p: prefix q]
        r mset p:1 a p:2 b q c x d
        assert_equal {invalidate {p:1 p:2}} [$c read]
        assert_equal {invalidate q} [$c read]
        assert_no_push $c
        $c close
    }

    test "BCAST without a prefix gets every key; NOLOOP spares one's own writes" {
        set c [tracking_client bcast noloop]
        assert_equal OK [dcall $c set mine 1]
        r set theirs 1
        assert_equal {invalidate theirs} [$c read]
        r flushall
        assert_equal {invalidate {}} [$c read]
        $c close
    }

    test "REDIRECT to a RESP3 client: the pushes go there" {
        set rx [vk_deferring_client]
        $rx hello 3
        $rx read
        set rxid [dcall $rx client id]
        set c [vk_deferring_client]
        assert_equal OK [dcall $c client tracking on redirect $rxid]
        assert_equal $rxid [dcall $c client getredir]
        dcall $c get rd1
        r set rd1 v
        assert_equal {invalidate rd1} [$rx read]
        $c close
        $rx close
    }

    test "REDIRECT to a RESP2 client: messages of __redis__:invalidate" {
        set sub [vk_deferring_client]
        set subid [dcall $sub client id]
        assert_equal {subscribe __redis__:invalidate 1} [dcall $sub subscribe __redis__:invalidate]
        set c [vk_deferring_client]
        assert_equal OK [dcall $c client tracking on redirect $subid]
        dcall $c get r2
        r set r2 v
        assert_equal {message __redis__:invalidate r2} [$sub read]
        r flushall
        assert_equal {message __redis__:invalidate {}} [$sub read]
        $c close
        $sub close
    }

    test "A broken redirect: a RESP3 client is told, TRACKINGINFO and CLIENT LIST show it" {
        set rx [vk_deferring_client]
        set rxid [dcall $rx client id]
        set c [tracking_client redirect $rxid]
        set cid [dcall $c client id]
        dcall $c get b1
        $rx close
        wait_for_condition 50 20 {[r client list id $rxid] eq ""} { fail "the redirect target is still there" }
        r set b1 v
        assert_equal [list tracking-redir-broken $rxid] [$c read]
        assert_equal [list flags {on broken_redirect} redirect $rxid prefixes {}] [dcall $c client trackinginfo]
        assert_match "*flags=tR *redir=$rxid *" [r client list id $cid]
        $c close
    }

    tags {valkey-only} {
        test "Keys read by a script are tracked for the client that ran it" {
            set c [tracking_client]
            dcall $c eval {return redis.call('get', KEYS[1])} 1 sk
            dcall $c eval {return redis.call('get', 'sk2')} 0
            r mset sk 1 sk2 2
            assert_equal {invalidate sk} [$c read]
            assert_equal {invalidate sk2} [$c read]
            $c close
        }
    }

    test "CLIENT TRACKING errors" {
        foreach {args err} {
            {maybe} "*syntax error*"
            {on foo} "*syntax error*"
            {on redirect} "*syntax error*"
            {on redirect abc} "*not an integer*"
            {on redirect 99999} "*The client ID you want redirect to does not exist*"
            {on prefix a} "*PREFIX option requires BCAST mode to be enabled*"
            {on bcast optin} "*OPTIN and OPTOUT are not compatible with BCAST*"
            {on optin optout} "*You can't specify both OPTIN mode and OPTOUT mode*"
            {on bcast prefix a prefix ab} "*Prefix 'a' overlaps with another provided prefix 'ab'*"
            {on bcast prefix ab prefix a} "*Prefix 'ab' overlaps with another provided prefix 'a'*"
            {off foo} "*syntax error*"
        } {
            assert_error $err [list r client tracking {*}$args]
        }
        assert_error "*wrong number of arguments*" {r client tracking}
        assert_equal {flags off redirect -1 prefixes {}} [r client trackinginfo]
    }

    test "CLIENT TRACKING: switching modes needs tracking off first; prefixes must not overlap" {
        set c [tracking_client optin]
        $c client tracking on optout
        assert_error "*switch OPTIN/OPTOUT mode*" {$c read}
        $c client tracking on bcast
        assert_error "*switch BCAST mode on/off*" {$c read}
        assert_equal OK [dcall $c client tracking off]
        assert_equal OK [dcall $c client tracking on bcast prefix x]
        $c client tracking on bcast prefix xa
        assert_error "*Prefix 'xa' overlaps with an existing prefix 'x'*" {$c read}
        assert_equal OK [dcall $c client tracking on bcast prefix z noloop]
        assert_equal {flags {on bcast noloop} redirect 0 prefixes {x z}} [dcall $c client trackinginfo]
        $c close
    }

    test "CLIENT CACHING errors" {
        assert_error "*CLIENT CACHING can be called only when the client is in tracking mode*" {r client caching yes}
        set c [tracking_client optin]
        $c client caching no
        assert_error "*CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode*" {$c read}
        $c client caching maybe
        assert_error "*syntax error*" {$c read}
        assert_equal OK [dcall $c client caching yes]
        assert_equal {flags {on optin caching-yes} redirect 0 prefixes {}} [dcall $c client trackinginfo]
        $c close
        set c [tracking_client optout]
        $c client caching yes
        assert_error "*CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode*" {$c read}
        $c close
    }

    test "CLIENT GETREDIR: -1 off, 0 without a redirect" {
        assert_equal -1 [r client getredir]
        set c [tracking_client]
        assert_equal 0 [dcall $c client getredir]
        $c close
    }

    test "INFO counts tracking clients, tracked keys and pairs, and prefixes" {
        r flushall
        set c1 [tracking_client]
        set c2 [tracking_client]
        set c3 [tracking_client bcast prefix pre1 prefix pre2]
        dcall $c1 mget i1 i2
        dcall $c2 get i1
        regexp {tracking_clients:(\d+)} [r info clients] -> clients
        assert_equal 3 $clients
        set stats [r info stats]
        assert_match "*tracking_total_keys:2\r\n*" $stats
        assert_match "*tracking_total_items:3\r\n*" $stats
        assert_match "*tracking_total_prefixes:2\r\n*" $stats
        foreach c [list $c1 $c2 $c3] { $c close }
        wait_for_condition 50 20 {[string match "*tracking_clients:0\r\n*" [r info clients]]} {
            fail "closed clients still count as tracking"
        }
        assert_match "*tracking_total_prefixes:0\r\n*" [r info stats]
    }

    test "RESET turns tracking off" {
        set c [tracking_client bcast prefix rs]
        assert_equal RESET [dcall $c reset]
        assert_equal {flags off redirect -1 prefixes {}} [dcall $c client trackinginfo]
        assert_match "*tracking_total_prefixes:0\r\n*" [r info stats]
        $c close
    }

    test "tracking-table-max-keys: over it, tracked keys are dropped and invalidated" {
        r flushall
        set c [tracking_client]
        dcall $c mget t1 t2 t3 t4 t5
        r config set tracking-table-max-keys 2
        # Three of the five go, each with its invalidation.
        set got {}
        for {set i 0} {$i < 3} {incr i} { lappend got [lindex [$c read] 1] }
        assert_equal 3 [llength [lsort -unique $got]]
        assert_match "*tracking_total_keys:2\r\n*" [r info stats]
        r config set tracking-table-max-keys 1000000
        $c close
    }

    test "CLIENT LIST shows tracking: flags t and B, redir" {
        set c [tracking_client bcast]
        set id [dcall $c client id]
        assert_match "*flags=tB *redir=0 *" [r client list id $id]
        $c close
        assert_match "*redir=-1 *" [r client list id [r client id]]
    }
}
