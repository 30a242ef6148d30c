# What a connection costs while it does nothing: query and reply buffers
# come with use and go back within seconds of idleness, so idle clients
# neither hold memory nor push the dataset out under maxmemory; a client
# announcing a huge argument makes the server reserve only what it sent.

proc info_field {section name} {
    foreach line [split [r info $section] "\r\n"] {
        if {[string match "$name:*" $line]} {
            return [string range $line [expr {[string length $name] + 1}] end]
        }
    }
    return ""
}

# A field of the CLIENT LIST line of client `id` ("" if not connected).
proc client_field {id name} {
    if {[regexp "(^| )$name=(\[^ \]*)" [r client list id $id] -> _ v]} { return $v }
    return ""
}

# The ids of every client but the test's own default one.
proc other_client_ids {} {
    set me [r client id]
    set ids {}
    foreach line [split [string trim [r client list]] "\n"] {
        if {[regexp {^id=([0-9]+) } $line -> id] && $id != $me} { lappend ids $id }
    }
    return $ids
}

# How many idle connections to open: 2000, or fewer if this process may
# not open that many files; 500 over TLS, where each handshake costs.
proc idle_client_count {} {
    if {$::vk::transport eq "tls"} { return 500 }
    set limit 2000
    catch {set limit [exec sh -c {ulimit -n}]}
    if {$limit eq "unlimited" || $limit > 2200} { return 2000 }
    return [expr {$limit - 200}]
}

# Opens n connections that never send a byte and waits until the server
# has accepted them all.
proc open_idle_clients {n} {
    set before [llength [split [string trim [r client list]] "\n"]]
    set clients {}
    for {set i 0} {$i < $n} {incr i} { lappend clients [vk_deferring_client] }
    wait_for_condition 100 100 {[info_field clients connected_clients] >= $before + $n} {
        fail "the server did not accept $n connections"
    }
    return $clients
}

start_server {tags {"client-buffers"} overrides {enable-debug-command yes}} {
    tags {shm:skip:ring-memory} {
        test "A client that never sent a byte holds no query or reply buffer" {
            set c [vk_deferring_client]
            wait_for_condition 50 50 {[llength [other_client_ids]] == 1} { fail "the client did not connect" }
            set id [lindex [other_client_ids] 0]
            foreach {field value} {qbuf 0 qbuf-free 0 rbs 0 rbp 0 omem 0 obl 0 oll 0} {
                assert_equal $value [client_field $id $field] "$field of an idle client"
            }
            assert_range [client_field $id tot-mem] 1 4096
            $c close
        }
    }

    test "An idle client's query buffer is 0 between requests, and omem counts only the reply list" {
        set c [vk_client]
        $c client setname idle-q
        set id [$c client id]
        assert_equal 0 [client_field $id qbuf]
        assert_equal 0 [client_field $id qbuf-free]
        assert_equal 0 [client_field $id omem]
        # The calling client sees its own request in the buffer it reads;
        # an I/O thread (--io-threads) took it out of the buffer when it
        # parsed it, before it ran.
        if {[::vk::io_threads_mode]} {
            assert_match "*qbuf=0 *" [r client info]
        } else {
            assert_match "*qbuf=26 *" [r client info]
        }
        $c close
    }

    test "The reply buffer shrinks when idle and grows back with use (DEBUG REPLYBUFFER)" {
        r config resetstat
        r debug replybuffer peak-reset-time 100
        set c [vk_client]
        set id [$c client id]
        assert_equal 16384 [client_field $id rbs]
        wait_for_condition 50 100 {[client_field $id rbs] >= 1024 && [client_field $id rbs] < 2048} {
            fail "the idle client's reply buffer did not shrink: rbs=[client_field $id rbs]"
        }
        assert {[info_field stats reply_buffer_shrinks] >= 1}
        r set bigval [string repeat x 32768]
        # The peak must stay while the buffer doubles back.
        r debug replybuffer peak-reset-time never
        wait_for_condition 50 100 {[string length [$c get bigval]] == 32768 &&
                                   [client_field $id rbs] >= 16384 && [client_field $id rbs] < 32768} {
            fail "the reply buffer did not grow back: rbs=[client_field $id rbs]"
        }
        assert {[info_field stats reply_buffer_expands] >= 1}
        r debug replybuffer peak-reset-time reset
        $c close
    }

    test "DEBUG REPLYBUFFER RESIZING 0 keeps the reply buffer as it is" {
        r debug replybuffer peak-reset-time 100
        r debug replybuffer resizing 0
        set c [vk_client]
        set id [$c client id]
        after 1500
        assert_equal 16384 [client_field $id rbs]
        r debug replybuffer resizing 1
        wait_for_condition 50 100 {[client_field $id rbs] < 2048} { fail "resizing did not resume" }
        r debug replybuffer peak-reset-time reset
        assert_error "*unknown subcommand*" {r debug replybuffer nosuch 1}
        $c close
    }

    test "A partial request's query buffer loses its free space after 2 idle seconds" {
        set c [vk_deferring_client]
        $c client id
        set id [$c read]
        $c write "*2\r\n\$4\r\necho\r\n\$200000\r\n[string repeat a 150000]"
        $c flush
        wait_for_condition 50 50 {[client_field $id qbuf] == 150000} { fail "the bytes did not arrive" }
        # Free space up to the allocator's size class may remain.
        wait_for_condition 50 100 {[client_field $id qbuf-free] <= 150000 / 4} {
            fail "the query buffer kept its free space: qbuf-free=[client_field $id qbuf-free]"
        }
        # The rest arrives and the command runs as usual.
        $c write "[string repeat a 50000]\r\n"
        $c flush
        assert_equal 200000 [string length [$c read]]
        wait_for_condition 50 100 {[client_field $id qbuf] == 0 && [client_field $id qbuf-free] == 0} {
            fail "the query buffer was not given back"
        }
        $c close
    }

    test "Announcing a huge bulk string reserves only what was sent" {
        set before [info_field memory used_memory]
        set clients {}
        set ids {}
        for {set i 0} {$i < 4} {incr i} {
            set c [vk_deferring_client]
            $c client id
            lappend ids [$c read]
            $c write "*3\r\n\$3\r\nset\r\n\$1\r\nk\r\n\$536870912\r\n[string repeat a 1000]"
            $c flush
            lappend clients $c
        }
        foreach id $ids {
            wait_for_condition 50 50 {[client_field $id qbuf] >= 1000} { fail "the bytes did not arrive" }
            assert_range [expr {[client_field $id qbuf] + [client_field $id qbuf-free]}] 1000 100000
        }
        assert_range [expr {[info_field memory used_memory] - $before}] -1000000 2000000
        foreach c $clients { $c close }
    }

    test "Big arguments still arrive whole in pieces, with the buffer growing as they come" {
        set c [vk_deferring_client]
        set val [string repeat b 3000000]
        $c write "*3\r\n\$3\r\nset\r\n\$3\r\nbig\r\n\$3000000\r\n"
        $c flush
        for {set off 0} {$off < 3000000} {incr off 250000} {
            $c write [string range $val $off [expr {$off + 249999}]]
            $c flush
        }
        $c write "\r\n"
        $c flush
        assert_equal OK [$c read]
        assert_equal 3000000 [r strlen big]
        assert_equal $val [r get big]
        $c close
    }
}

# Thousands of connections: each RDMA channel in the emulated VM costs
# registered buffers and seconds of set-up.
start_server {tags {"client-buffers rdma:skip:many-connections"}} {
    test "Idle connections cost little memory each" {
        set n [idle_client_count]
        set before [info_field memory used_memory]
        set clients [open_idle_clients $n]
        set per [expr {([info_field memory used_memory] - $before) / $n}]
        assert_range $per 0 2048
        foreach c $clients { $c close }
    }
}

start_server {tags {"client-buffers rdma:skip:many-connections"} overrides {maxmemory-policy allkeys-lru}} {
    test "Idle connections do not evict the dataset under maxmemory" {
        for {set i 0} {$i < 20} {incr i} {
            set cmds {}
            for {set j 0} {$j < 100} {incr j} { lappend cmds [list set key:$i:$j [string repeat v 500]] }
            r_pipeline $cmds
        }
        set used [info_field memory used_memory]
        r config set maxmemory [expr {$used + 6 * 1024 * 1024}]
        r config resetstat
        set n [idle_client_count]
        set clients [open_idle_clients $n]
        # Commands run (and would evict) with every connection open.
        r set one more
        r ping
        assert_equal 0 [info_field stats evicted_keys]
        assert_equal 2001 [r dbsize]
        foreach c $clients { $c close }
        r config set maxmemory 0
    }
}

# Besides its buffers, a client holds its transaction (a MULTI queue, the
# keys it watches) and its subscriptions: CLIENT LIST's tot-mem counts
# them, and so does maxmemory-clients, as in Valkey. The watched keys' and
# channels' names are shared with the server's own index and not counted.
start_server {tags {"client-buffers"}} {
    # n names prefix:0 .. prefix:n-1.
    proc cb_names {prefix n} {
        set names {}
        for {set i 0} {$i < $n} {incr i} { lappend names $prefix:$i }
        return $names
    }

    test "tot-mem counts watched keys, queued MULTI commands and subscriptions" {
        set c [vk_client]
        set id [$c client id]
        set base [client_field $id tot-mem]
        $c watch {*}[cb_names key 20000]
        set watching [client_field $id tot-mem]
        assert {$watching - $base >= 20000 * 48} "tot-mem $base, watching 20000 keys $watching"
        $c unwatch
        assert {[client_field $id tot-mem] < $base + 20000} "UNWATCH gives it back"
        $c multi
        set val [string repeat x 1000]
        for {set i 0} {$i < 500} {incr i} { assert_equal QUEUED [$c set k:$i $val] }
        set queued [client_field $id tot-mem]
        assert {$queued - $base >= 500 * 1000} "tot-mem $base, 500 queued SETs $queued"
        assert_equal OK [$c discard]
        $c close
        set s [vk_deferring_client]
        $s subscribe {*}[cb_names ch 20000]
        for {set i 0} {$i < 20000} {incr i} { $s read }
        set sid [lindex [split [string trim [r client list]] "\n"] end]
        regexp {^id=(\d+) } $sid -> sid
        assert_equal 20000 [client_field $sid sub]
        assert {[client_field $sid tot-mem] - $base >= 20000 * 24} "subscribed to 20000 channels"
        $s close
    }

    test "A client watching 200,000 keys is evicted under maxmemory-clients" {
        set c [vk_client]
        $c timeout 30
        set id [$c client id]
        assert_equal OK [$c watch {*}[cb_names key 200000]]
        assert_equal 200000 [client_field $id watch]
        assert {[client_field $id tot-mem] > 10 * 1024 * 1024}
        set evicted [info_field stats evicted_clients]
        r config set maxmemory-clients 10mb
        assert_error "*" {$c ping}
        assert_equal [expr {$evicted + 1}] [info_field stats evicted_clients]
        assert_equal "" [client_field $id id]
        assert_equal 0 [info_field clients watching_clients]
        r config set maxmemory-clients 0
    }

    test "A client with a big MULTI queue is evicted under maxmemory-clients" {
        set evicted [info_field stats evicted_clients]
        r config set maxmemory-clients 2mb
        set c [vk_deferring_client]
        set val [string repeat x 1000]
        # The connection is closed while the queue grows: the sends or the
        # reads fail, and EXEC never runs.
        set failed [catch {
            $c multi
            for {set i 0} {$i < 4000} {incr i} { $c set k:$i $val }
            $c exec
            for {set i 0} {$i < 4002} {incr i} { $c read }
        }]
        assert_equal 1 $failed
        wait_for_condition 50 20 {[info_field stats evicted_clients] == $evicted + 1} {
            fail "not evicted: [r client list]"
        }
        assert_equal 0 [r exists k:0]
        r config set maxmemory-clients 0
    }
}
