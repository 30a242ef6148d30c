# transport.tcl -- the only place in the test harness that knows how bytes
# reach a server.
#
# Everything that opens a socket to a server (the RESP client, helpers that
# poke raw bytes at a port, the port-probing code) goes through
# ::vk::transport_connect, and everything that starts a server asks
# ::vk::transport_server_config which config lines make the server listen on
# the selected transport.  So adding TLS or RDMA means filling in one branch
# in each of the procs below and nothing else in the harness or in the test
# files changes.
#
# The transport is chosen once per run by ./runtest (--tls, --rdma, --shm,
# default tcp) and stored in ::vk::transport.  Unix domain sockets are not a run-wide
# transport: a test asks for one explicitly by passing a path instead of a
# host, with port 0.

namespace eval ::vk {
    variable transport tcp
    # RDMA: the Tcl channel extension (tests/rdma/tclrdma.c, built by
    # `make -C src tclrdma`; $TCLRDMA_LIB overrides the path) and the
    # addresses utils/rdma-vm gives its Soft-RoCE devices.  Servers listen
    # on RDMA_SERVER_ADDR; clients bind RDMA_CLIENT_ADDR so the traffic
    # crosses the veth pair instead of looping inside one device.
    variable rdma_lib [file join [file dirname [file dirname [file dirname \
        [file normalize [info script]]]]] tests rdma libtclrdma.so]
    if {[info exists ::env(TCLRDMA_LIB)]} { set rdma_lib $::env(TCLRDMA_LIB) }
    variable rdma_connect_timeout 30000  ;# ms; connects take ~0.3 s in the VM
    # TLS: the certificates utils/gen-test-certs makes (./runtest --tls
    # makes them when missing); $VK_TLS_DIR overrides the place.
    variable root [file dirname [file dirname [file dirname [file normalize [info script]]]]]
    variable tls_dir [file join $root tests tls]
    if {[info exists ::env(VK_TLS_DIR)]} { set tls_dir $::env(VK_TLS_DIR) }
    # Shared memory: the Tcl channel extension (tests/shm/tclshm.c, built
    # by `make`; $TCLSHM_LIB overrides the path).  Each server listens on
    # a Unix socket named after its TCP port, in /tmp (socket paths must
    # stay short).
    variable shm_lib [file join $root tests shm libtclshm.so]
    if {[info exists ::env(TCLSHM_LIB)]} { set shm_lib $::env(TCLSHM_LIB) }
}

# Returns "" when the transport can be used in this run, otherwise a
# sentence explaining why not.  ./runtest calls it before starting anything.
proc ::vk::transport_unavailable {name} {
    switch -- $name {
        tcp     { return "" }
        tls     { return [::vk::tls_unavailable] }
        rdma    { return [::vk::rdma_unavailable] }
        shm     { return [::vk::shm_unavailable] }
        default { return "unknown transport '$name'" }
    }
}

# Opens a connection and returns a Tcl channel configured for RESP: binary,
# blocking, fully buffered (callers flush).  host is a hostname or address;
# when port is 0 and host starts with "/", host is a unix socket path, and
# "shm:/path" is that socket upgraded to shared memory (whatever the run's
# transport; an error if the server refuses).
# Errors propagate to the caller as Tcl errors.
proc ::vk::transport_connect {host port} {
    if {$port == 0 && [string index $host 0] eq "/"} {
        set fd [::vk::unix_connect $host]
    } elseif {$port == 0 && [string match shm:/* $host]} {
        ::vk::shm_load
        set fd [shm::connect [string range $host 4 end]]
    } else {
        switch -- $::vk::transport {
            tcp {
                set fd [socket $host $port]
            }
            rdma {
                ::vk::rdma_load
                set opts [list -timeout $::vk::rdma_connect_timeout]
                if {[info exists ::env(RDMA_CLIENT_ADDR)]} {
                    lappend opts -source $::env(RDMA_CLIENT_ADDR)
                }
                set fd [rdma::connect [::vk::rdma_host $host] $port {*}$opts]
            }
            shm {
                set fd [::vk::shm_connect $host $port]
            }
            tls {
                package require tls
                set fd [tls::socket -cafile [file join $::vk::tls_dir ca.crt] \
                            -certfile [file join $::vk::tls_dir client.crt] \
                            -keyfile [file join $::vk::tls_dir client.key] \
                            -command ::vk::tls_callback $host $port]
                tls::handshake $fd
            }
            default {
                error "unknown transport '$::vk::transport'"
            }
        }
    }
    fconfigure $fd -translation binary -blocking 1 -buffering full
    return $fd
}

# Config lines (a flat key/value list) that make a server listen on `port`
# over the run's transport.  The harness appends them to every config it
# writes, after the base config and before the test's overrides.
proc ::vk::transport_server_config {port} {
    switch -- $::vk::transport {
        tcp  { return [list port $port] }
        tls  {
            # Every test client connects over TLS; the server has no TCP
            # port (a TCP port of the same number cannot coexist).
            # Replicas reach their primary over TLS too (tls-replication),
            # presenting the server certificate as their client one.
            # MIGRATE between servers uses TLS too (tls-cluster).
            return [list port 0 tls-port $port tls-replication yes tls-cluster yes \
                        tls-cert-file [file join $::vk::tls_dir server.crt] \
                        tls-key-file [file join $::vk::tls_dir server.key] \
                        tls-ca-cert-file [file join $::vk::tls_dir ca.crt]]
        }
        rdma {
            # The TCP port stays: the harness and tools that only speak TCP
            # may use it, but every test client connects over RDMA (same
            # number: RDMA CM ports are a separate space).  RDMA peers are
            # never loopback, so protected mode would refuse them.
            return [list port $port rdma-port $port rdma-bind $::env(RDMA_SERVER_ADDR) \
                        protected-mode no]
        }
        shm {
            # The TCP port stays (tools and the harness's probes use it);
            # every test client upgrades a connection to the Unix socket.
            return [list port $port unixsocket [::vk::shm_socket_path $port] unixsocketperm 700 \
                        shm-enabled yes]
        }
    }
    error "unknown transport '$::vk::transport'"
}

# Extra command-line arguments a command-line client (redis-cli/valkey-cli)
# needs to reach a server over the run's transport.
proc ::vk::transport_cli_args {} {
    switch -- $::vk::transport {
        tcp     { return {} }
        shm     { return {} }
        tls     {
            return [list --tls --cacert [file join $::vk::tls_dir ca.crt] \
                        --cert [file join $::vk::tls_dir client.crt] --key [file join $::vk::tls_dir client.key]]
        }
        default { error "command-line clients over $::vk::transport are not supported yet" }
    }
}

# Tests that cannot apply over the run's transport carry a tag saying so:
# `rdma:skip` or `rdma:skip:<why>`, where <why> is one of the keys below.
# Returns the reason to print when `tags` rule a test out, else "".
proc ::vk::transport_skip_reason {tags} {
    if {$::vk::transport eq "tls"} { return [::vk::tls_skip_reason $tags] }
    if {$::vk::transport eq "shm"} { return [::vk::shm_skip_reason $tags] }
    if {$::vk::transport ne "rdma"} { return "" }
    set why {
        unix       "uses a unix socket, which RDMA does not replace"
        threads    "checks that I/O threads serve the test's clients, and they serve TCP and Unix-socket ones only"
        tcp-tool   "runs a command-line tool over TCP (our tools over RDMA are tests/rdma/tools.sh: a tool start costs 1-2 s of RDMA set-up in the VM)"
        own-server "starts its own server by hand, listening on TCP only"
        tcp-config "checks TCP listener details or config defaults that an RDMA listener changes"
        process    "tests the server process (start-up, signals, daemonize), not a transport"
        crash      "crash tests start their own TCP-only servers and are no transport tests"
        timing     "assumes many round trips fit in a short TTL, which the emulated VM cannot keep"
        maxclients "over maxclients the server refuses the RDMA connection request itself (no error reply to read)"
        big-data   "moves a dataset (1M keys, 100 MB values) that the emulated VM needs minutes for"
        fork       "forks a debugging child, which cannot serve an RDMA connection; SCRIPT DEBUG YES is refused over RDMA"
        cluster    "tests the cluster bus, which runs over TCP or TLS only so far"
        loopback   "needs a client that is not on loopback, which an RDMA peer never is: protected mode over RDMA is checked in tests/rdma/run.sh"
        child-fd   "checks that a forked child holds no client socket; an RDMA connection is no fd a child could hold"
        tls-transport "tests TLS connections, which a test client over RDMA does not make"
        many-connections "opens thousands of connections: each costs registered buffers and seconds of set-up in the emulated VM"
    }
    foreach t $tags {
        if {$t eq "rdma:skip"} { return "not applicable over RDMA (tagged rdma:skip)" }
        if {[string match rdma:skip:* $t]} {
            set key [string range $t 10 end]
            if {[dict exists $why $key]} { return "over RDMA: [dict get $why $key] (tagged $t)" }
            return "not applicable over RDMA (tagged $t)"
        }
    }
    return ""
}

# The addresses a server sees on a test client's connection: where the
# client comes from (CLIENT LIST addr=) and where it arrived (laddr=).
proc ::vk::transport_client_addr {} {
    if {$::vk::transport eq "shm"} { return /unixsocket }
    if {$::vk::transport eq "rdma"} {
        if {[info exists ::env(RDMA_CLIENT_ADDR)]} { return $::env(RDMA_CLIENT_ADDR) }
        return $::env(RDMA_SERVER_ADDR)
    }
    return 127.0.0.1
}

proc ::vk::transport_server_addr {} {
    if {$::vk::transport eq "rdma"} { return $::env(RDMA_SERVER_ADDR) }
    return 127.0.0.1
}

# ---------------------------------------------------------------- tls

# tcl-tls reports handshake failures on stderr unless told otherwise; the
# tests see them as errors on the channel. Verification keeps OpenSSL's
# verdict.
proc ::vk::tls_callback {op args} {
    if {$op eq "verify"} { return [lindex $args 3] }
    return 1
}

# "" if this run can use TLS (the tcl-tls package and the certificates,
# made here when missing), else why not.
proc ::vk::tls_unavailable {} {
    if {[catch {package require tls} err]} { return "needs the Tcl tls package (Debian: tcl-tls): $err" }
    if {![file exists [file join $::vk::tls_dir client.key]]} {
        set gen [file join $::vk::root utils gen-test-certs]
        if {[catch {exec $gen $::vk::tls_dir} err]} { return "cannot make test certificates: $err" }
    }
    return ""
}

# Over TLS, the rdma:skip reasons that are about "not the run's
# transport" apply as well: tools and hand-started servers speak TCP.
proc ::vk::tls_skip_reason {tags} {
    set why {
        own-server "starts its own server by hand, listening on TCP only"
        tcp-config "checks TCP listener details or config defaults that a TLS listener changes"
        process    "tests the server process (start-up, signals, daemonize), not a transport"
        crash      "crash tests start their own TCP-only servers and are no transport tests"
        tls-transport "tests the TLS listener itself, next to TCP"
        tcp-port   "checks the TCP port, which a run over TLS turns off"
        allocator  "measures the allocator's fragmentation, which OpenSSL's own buffers change; no transport test"
        threads    "checks that I/O threads serve the test's clients, and they serve TCP and Unix-socket ones only"
    }
    foreach t $tags {
        if {[string match *:skip:* $t]} {
            set key [lindex [split $t :] 2]
            if {[dict exists $why $key]} { return "over TLS: [dict get $why $key] (tagged $t)" }
        }
    }
    return ""
}

# ---------------------------------------------------------------- rdma

# "" if this run can use RDMA, else why not.
proc ::vk::rdma_unavailable {} {
    if {![file exists /dev/infiniband/rdma_cm] ||
        [llength [glob -nocomplain /sys/class/infiniband/*]] == 0} {
        return "needs RDMA devices (run it through utils/rdma-vm)"
    }
    if {![info exists ::env(RDMA_SERVER_ADDR)]} {
        return "needs RDMA_SERVER_ADDR, the address servers listen on (utils/rdma-vm sets it)"
    }
    if {![file exists $::vk::rdma_lib]} {
        return "needs $::vk::rdma_lib (build it with: make -C src tclrdma)"
    }
    if {[catch {::vk::rdma_load} err]} {
        return "cannot load $::vk::rdma_lib: $err"
    }
    return ""
}

proc ::vk::rdma_load {} {
    if {[info commands ::rdma::connect] eq ""} {
        load $::vk::rdma_lib Tclrdma
    }
}

# Servers the harness starts report host 127.0.0.1 (their TCP side); over
# RDMA the same server is reached at RDMA_SERVER_ADDR.
proc ::vk::rdma_host {host} {
    if {$host in {127.0.0.1 localhost ::1}} { return $::env(RDMA_SERVER_ADDR) }
    return $host
}

# ---------------------------------------------------------------- shm

# "" if this run can use shared memory, else why not.
proc ::vk::shm_unavailable {} {
    if {![file exists $::vk::shm_lib]} {
        return "needs $::vk::shm_lib (build it with: make, or make -C src tclshm)"
    }
    if {[catch {::vk::shm_load} err]} {
        return "cannot load $::vk::shm_lib: $err"
    }
    return ""
}

proc ::vk::shm_load {} {
    if {[info commands ::shm::connect] eq ""} {
        load $::vk::shm_lib Tclshm
    }
}

# The Unix socket a server started by the harness on `port` listens on.
proc ::vk::shm_socket_path {port} {
    return "/tmp/vkshm-$port.sock"
}

# A test client over shared memory to the harness's server on host:port.
# A server that has no socket of ours (one a test configured itself, with
# its own unixsocket or none) is reached over TCP, as without --shm.
proc ::vk::shm_connect {host port} {
    ::vk::shm_load
    set path [::vk::shm_socket_path $port]
    if {$host in {127.0.0.1 localhost ::1} && [file exists $path]} {
        if {![catch {shm::connect $path} fd]} { return $fd }
        if {![string match "*Connection refused*" $fd] && ![string match "*No such file*" $fd]} {
            error $fd
        }
    }
    return [socket $host $port]
}

# Over shared memory, tests that cannot apply carry shm:skip:<why>, with
# <why> one of the keys below.  Tools and servers a test starts by hand
# use TCP, which works in this run too, so few tests need one.
proc ::vk::shm_skip_reason {tags} {
    set why {
        tcp-addr    "checks a client's own address, and every Unix-socket client has the same one"
        tcp-config  "checks config defaults that the harness's Unix socket changes"
        ring-memory "counts a client's memory, and a shared-memory client holds its rings (2 x shm-ring-size)"
        list-field  "checks the CLIENT LIST fields of Valkey 8, and an upgraded client's line ends with shm="
        maxclients  "over maxclients the server's error answers the upgrade: the connect fails with it (shm.tcl checks that)"
        threads     "checks that I/O threads serve the test's clients, and they serve TCP and Unix-socket ones only"
    }
    foreach t $tags {
        if {[string match shm:skip:* $t]} {
            set key [string range $t 9 end]
            if {[dict exists $why $key]} { return "over shared memory: [dict get $why $key] (tagged $t)" }
            return "not applicable over shared memory (tagged $t)"
        }
    }
    return ""
}

# ---------------------------------------------------------------- ports

# True if nothing is listening on (or holding) `port` on 127.0.0.1, so that a
# server we start there will be able to bind it.
proc ::vk::port_is_free {port} {
    if {[catch {socket -server ::vk::refuse_conn -myaddr 127.0.0.1 $port} probe]} {
        return 0
    }
    close $probe
    return 1
}
proc ::vk::refuse_conn {fd args} { close $fd }

# Tcl 8.6 has no AF_UNIX sockets, so unix paths are reached through a tiny
# relay process (python3) that copies bytes between its stdio and the socket.
# The returned channel behaves like a socket for everything the client does.
proc ::vk::unix_connect {path} {
    set python [auto_execok python3]
    if {$python eq ""} {
        error "unix socket connections need python3 (Tcl 8.6 has no AF_UNIX)"
    }
    set relay {
import os, socket, sys, threading
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1])
except OSError as e:
    sys.stderr.write("unix connect %s: %s\n" % (sys.argv[1], e))
    sys.exit(1)
def upstream():
    while True:
        d = os.read(0, 65536)
        if not d:
            s.shutdown(socket.SHUT_WR)
            return
        s.sendall(d)
threading.Thread(target=upstream, daemon=True).start()
while True:
    d = s.recv(65536)
    if not d:
        break
    os.write(1, d)
}
    return [open |[list {*}$python -c $relay $path 2>@stderr] r+]
}
