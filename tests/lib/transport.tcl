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
# The transport is chosen once per run by ./runtest (--tls, --rdma, default
# tcp) and stored in ::vk::transport.  Unix domain sockets are not a run-wide
# transport: a test asks for one explicitly by passing a path instead of a
# host, with port 0.

namespace eval ::vk {
    variable transport tcp
}

# Returns "" when the transport can be used in this run, otherwise a
# sentence explaining why not.  ./runtest calls it before starting anything.
proc ::vk::transport_unavailable {name} {
    switch -- $name {
        tcp     { return "" }
        tls     { return "the TLS transport is not available yet (needs tcl-tls wiring and test certificates)" }
        rdma    { return "the RDMA transport is not available yet (needs the rdma Tcl extension from src/)" }
        default { return "unknown transport '$name'" }
    }
}

# Opens a connection and returns a Tcl channel configured for RESP: binary,
# blocking, fully buffered (callers flush).  host is a hostname or address;
# when port is 0 and host starts with "/", host is a unix socket path.
# Errors propagate to the caller as Tcl errors.
proc ::vk::transport_connect {host port} {
    if {$port == 0 && [string index $host 0] eq "/"} {
        set fd [::vk::unix_connect $host]
    } else {
        switch -- $::vk::transport {
            tcp {
                set fd [socket $host $port]
            }
            tls - rdma {
                error [::vk::transport_unavailable $::vk::transport]
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
        tls  { return [list port 0 tls-port $port] }
        rdma { return [list port 0 rdma-port $port rdma-bind 127.0.0.1] }
    }
    error "unknown transport '$::vk::transport'"
}

# Extra command-line arguments a command-line client (redis-cli/valkey-cli)
# needs to reach a server over the run's transport.
proc ::vk::transport_cli_args {} {
    switch -- $::vk::transport {
        tcp     { return {} }
        default { error "command-line clients over $::vk::transport are not supported yet" }
    }
}

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
