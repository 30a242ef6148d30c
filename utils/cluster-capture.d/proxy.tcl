#!/usr/bin/env tclsh
# proxy.tcl LISTEN-PORT TARGET-PORT NAME OUTDIR - a recording relay for one
# node's cluster bus port (utils/cluster-capture starts one per node).
#
# Every connection accepted on 127.0.0.1:LISTEN-PORT is relayed to
# 127.0.0.1:TARGET-PORT, and the bytes of both directions are cut into
# cluster bus messages by their length field (bytes 4..7, big endian) and
# written one message per file:
#
#   OUTDIR/<microseconds>-<NAME>-c<connection>-<dir>-<type>.bin
#
# where dir is "in" for what the connecting peer sent to node NAME and "out"
# for what NAME answered on that connection, and type is the message type
# (16-bit, bytes 12..13) in decimal. A stream that does not start with the
# "RCmb" signature is recorded raw, as <...>-raw.bin, once it closes.
set listen [lindex $argv 0]
set target [lindex $argv 1]
set name [lindex $argv 2]
set outdir [lindex $argv 3]
set conns 0

# Writes every whole message at the front of the stream's buffer to a file
# and keeps the rest for the next read.
proc drain {key} {
    global buf outdir name
    while {[string length $buf($key)] >= 16} {
        if {[string range $buf($key) 0 3] ne "RCmb"} return
        binary scan $buf($key) @4Iu totlen
        binary scan $buf($key) @12Su type
        if {$totlen < 16 || [string length $buf($key)] < $totlen} return
        set f [open [format "%s/%d-%s-%s-%d.bin" $outdir [clock microseconds] $name $key $type] wb]
        puts -nonewline $f [string range $buf($key) 0 [expr {$totlen - 1}]]
        close $f
        set buf($key) [string range $buf($key) $totlen end]
    }
}

# Relays what is readable on $from to $to, recording it under $key.
proc relay {from to key} {
    global buf outdir name
    set data [read $from]
    if {$data ne ""} {
        catch {puts -nonewline $to $data; flush $to}
        append buf($key) $data
        drain $key
    }
    if {[eof $from]} {
        if {$buf($key) ne ""} {
            set f [open [format "%s/%d-%s-%s-raw.bin" $outdir [clock microseconds] $name $key] wb]
            puts -nonewline $f $buf($key)
            close $f
            set buf($key) ""
        }
        catch {close $from}
        catch {close $to}
    }
}

proc accept {sock addr port} {
    global target conns buf
    incr conns
    if {[catch {socket 127.0.0.1 $target} peer]} {
        close $sock
        return
    }
    foreach s [list $sock $peer] {
        fconfigure $s -translation binary -blocking 0 -buffering none
    }
    set buf(c$conns-in) ""
    set buf(c$conns-out) ""
    fileevent $sock readable [list relay $sock $peer c$conns-in]
    fileevent $peer readable [list relay $peer $sock c$conns-out]
}

file mkdir $outdir
socket -server accept -myaddr 127.0.0.1 $listen
vwait forever
