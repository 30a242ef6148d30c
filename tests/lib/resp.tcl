# resp.tcl -- a small RESP2/RESP3 client written for this test suite.
#
# A client is a Tcl command (returned by ::vk::client_open) that is used like
# the `r` of a test file:
#
#     set c [::vk::client_open 127.0.0.1 6379 0]
#     $c set foo bar          ;# sends SET, waits, returns "OK"
#     $c close
#
# Replies are decoded into plain Tcl values:
#     +simple  :int  $bulk  ,double  (bignum   -> the text as sent
#     =verbatim                               -> the text without "txt:"
#     #t / #f                                 -> 1 / 0
#     $-1  *-1  _                             -> "" (empty string)
#     *array  ~set  >push                     -> Tcl list
#     %map                                    -> flat key/value list (a dict)
#     |attribute                              -> skipped; kept in `$c attributes`
#     -error  !bloberror                      -> Tcl error carrying the message
# Errors nested inside an aggregate (e.g. an EXEC reply) are returned as
# their message text so the rest of the reply is still consumed.
#
# Subcommands that are not sent to the server:
#     $c read              read one reply (for deferring clients / pipelines)
#     $c send cmd args..   send one command, do not wait for the reply
#     $c write bytes       queue raw bytes (no RESP encoding); pair with flush
#     $c flush             flush queued bytes
#     $c readraw 0|1       raw mode: each read returns one reply line, no CRLF
#     $c timeout secs      how long a read may wait (default 60)
#     $c deferred 0|1      deferring mode: commands only send; use read
#     $c attributes        the last RESP3 attribute map seen
#     $c channel           the underlying Tcl channel
#     $c close             close the connection and delete the command
# Values are sent and received as bytes: strings containing characters above
# \xff are UTF-8 encoded before sending; replies are never decoded.

namespace eval ::vk {
    variable client_seq 0
    variable C              ;# per-client state: C($id,fd) C($id,raw) ...
    array set C {}
    variable read_timeout 60  ;# seconds a reply may take; per client: $c timeout
    variable deadline 0       ;# of the reply being read
    variable wake ""          ;# set by wait_readable's event handlers
}

# Connects through the transport layer and returns the new client command.
# deferred=1 makes a deferring client.  The caller owns the client and
# should `$c close` it; the harness closes clients it created itself.
proc ::vk::client_open {host port {deferred 0}} {
    variable C
    set fd [::vk::transport_connect $host $port]
    set id [incr ::vk::client_seq]
    set C($id,fd) $fd
    set C($id,raw) 0
    set C($id,deferred) $deferred
    set C($id,attrs) {}
    set C($id,timeout) $::vk::read_timeout
    set name ::vk::client$id
    proc $name {args} "::vk::client_dispatch $id {*}\$args"
    return $name
}

proc ::vk::client_dispatch {id args} {
    variable C
    if {![info exists C($id,fd)]} {
        error "client $id is closed"
    }
    set fd $C($id,fd)
    switch -exact -- [lindex $args 0] {
        read       { return [::vk::read_reply $id] }
        send       { ::vk::send_command $fd [lrange $args 1 end]; return }
        write      { puts -nonewline $fd [lindex $args 1]; return }
        flush      { flush $fd; return }
        readraw    { set C($id,raw) [lindex $args 1]; return }
        timeout    { set C($id,timeout) [lindex $args 1]; return }
        deferred   { set C($id,deferred) [lindex $args 1]; return }
        attributes { return $C($id,attrs) }
        channel    { return $fd }
        close      { ::vk::client_close $id; return }
    }
    ::vk::send_command $fd $args
    if {$C($id,deferred)} {
        return
    }
    return [::vk::read_reply $id]
}

proc ::vk::client_close {id} {
    variable C
    catch {close $C($id,fd)}
    array unset C $id,*
    catch {rename ::vk::client$id {}}
}

# Closes every client still open; used by the harness between servers.
proc ::vk::client_close_all {} {
    variable C
    foreach key [array names C *,fd] {
        ::vk::client_close [lindex [split $key ,] 0]
    }
}

# Encodes argv as a RESP multibulk and writes it in one flush.
proc ::vk::send_command {fd argv} {
    set buf "*[llength $argv]\r\n"
    foreach arg $argv {
        if {[regexp {[^\x00-\xff]} $arg]} {
            set arg [encoding convertto utf-8 $arg]
        }
        append buf "\$[string length $arg]\r\n" $arg "\r\n"
    }
    puts -nonewline $fd $buf
    flush $fd
}

# Reads one whole reply.  Top-level errors raise a Tcl error.  A reply
# that has not fully arrived after the client's timeout raises
# "timeout reading reply", so a server that never answers fails the test
# instead of hanging the whole file.
proc ::vk::read_reply {id} {
    variable C
    variable deadline
    set fd $C($id,fd)
    flush $fd
    set deadline [expr {[clock milliseconds] + 1000 * $C($id,timeout)}]
    fconfigure $fd -blocking 0
    set code [catch {
        if {$C($id,raw)} {
            set value [::vk::read_line $fd]
        } else {
            lassign [::vk::read_value $id] kind value
            if {$kind eq "error"} {
                return -code error -errorcode [list VKREPLY $value] $value
            }
        }
        set value
    } result opts]
    catch {fconfigure $fd -blocking 1}
    return -options $opts $result
}

# Sleeps in the event loop until fd is readable or the deadline passes.
proc ::vk::wait_readable {fd} {
    variable deadline
    variable wake
    set ms [expr {$deadline - [clock milliseconds]}]
    if {$ms <= 0} {
        error "timeout reading reply"
    }
    set wake ""
    fileevent $fd readable [list set ::vk::wake readable]
    set timer [after $ms [list set ::vk::wake timeout]]
    vwait ::vk::wake
    fileevent $fd readable {}
    after cancel $timer
    if {$wake eq "timeout"} {
        error "timeout reading reply"
    }
}

proc ::vk::read_line {fd} {
    while {[gets $fd line] < 0} {
        if {[eof $fd]} {
            error "connection closed by server (I/O error reading reply)"
        }
        ::vk::wait_readable $fd
    }
    return [string trimright $line "\r"]
}

proc ::vk::read_exact {fd len} {
    set data ""
    while {[string length $data] < $len} {
        append data [read $fd [expr {$len - [string length $data]}]]
        if {[string length $data] == $len} break
        if {[eof $fd]} {
            error "connection closed by server (short read: wanted $len bytes, got [string length $data])"
        }
        ::vk::wait_readable $fd
    }
    return $data
}

proc ::vk::read_bulk {fd len} {
    set data [::vk::read_exact $fd $len]
    ::vk::read_exact $fd 2
    return $data
}

# Returns {kind value} where kind is "value" or "error", so that aggregate
# readers can keep going after an error element.
proc ::vk::read_value {id} {
    variable C
    set fd $C($id,fd)
    set line [::vk::read_line $fd]
    set type [string index $line 0]
    set rest [string range $line 1 end]
    switch -exact -- $type {
        + - : - , - ( {
            return [list value $rest]
        }
        - {
            return [list error $rest]
        }
        _ {
            return [list value {}]
        }
        # {
            return [list value [expr {$rest eq "t" ? 1 : 0}]]
        }
        $ {
            if {$rest < 0} { return [list value {}] }
            return [list value [::vk::read_bulk $fd $rest]]
        }
        = {
            return [list value [string range [::vk::read_bulk $fd $rest] 4 end]]
        }
        ! {
            return [list error [::vk::read_bulk $fd $rest]]
        }
        * - ~ - > {
            if {$rest < 0} { return [list value {}] }
            set items {}
            for {set i 0} {$i < $rest} {incr i} {
                lappend items [lindex [::vk::read_value $id] 1]
            }
            return [list value $items]
        }
        % - | {
            set items {}
            for {set i 0} {$i < 2 * $rest} {incr i} {
                lappend items [lindex [::vk::read_value $id] 1]
            }
            if {$type eq "|"} {
                # An attribute decorates the reply that follows it.
                set C($id,attrs) $items
                return [::vk::read_value $id]
            }
            return [list value $items]
        }
    }
    error "protocol error: unexpected reply line '[string range $line 0 60]'"
}
