# A misbehaving primary for replication fault tests, run as its own
# process:  tclsh fake-primary.tcl <port> <mode> <payload-file>
#
# It answers a replica's handshake (PING, AUTH, REPLCONF, PSYNC) like a
# primary, then sends the payload in payload-file as the full sync's
# snapshot, framed by <mode>:
#   bulk       "$<length>\r\n" then the file (a truncated or corrupt RDB
#              is the caller's choice of file)
#   short      "$<length + 1000>\r\n" then the file and nothing more: the
#              link stays open with the payload incomplete
#   eof        "$EOF:<mark>\r\n", the file, the mark
#   badmark    "$EOF:<mark>\r\n", the file, a different mark
# Every connection is served the same way; the count of PSYNCs received
# is written to <payload-file>.psyncs after each one.

lassign $argv port mode payload_file

set fh [open $payload_file rb]
set payload [read $fh]
close $fh
set psyncs 0

proc read_command {chan} {
    if {[gets $chan line] < 0} { return "" }
    set line [string trimright $line "\r"]
    if {[string index $line 0] ne "*"} { return [split $line] }
    set argc [string range $line 1 end]
    set args {}
    for {set i 0} {$i < $argc} {incr i} {
        gets $chan len
        set len [string range [string trimright $len "\r"] 1 end]
        set arg [read $chan $len]
        read $chan 2
        lappend args $arg
    }
    return $args
}

proc serve {chan addr rport} {
    global payload mode psyncs payload_file
    fconfigure $chan -translation binary -blocking 1 -buffering none
    while {1} {
        set cmd [read_command $chan]
        if {$cmd eq ""} { break }
        switch -- [string tolower [lindex $cmd 0]] {
            ping     { puts -nonewline $chan "+PONG\r\n" }
            psync -
            sync {
                incr psyncs
                set f [open $payload_file.psyncs w]
                puts $f $psyncs
                close $f
                set id [string repeat "ab" 20]
                puts -nonewline $chan "+FULLRESYNC $id 0\r\n"
                set mark [string repeat "0123456789" 4]
                switch -- $mode {
                    bulk    { puts -nonewline $chan "\$[string length $payload]\r\n$payload" }
                    short   { puts -nonewline $chan "\$[expr {[string length $payload] + 1000}]\r\n$payload" }
                    eof     { puts -nonewline $chan "\$EOF:$mark\r\n$payload$mark" }
                    badmark { puts -nonewline $chan "\$EOF:$mark\r\n$payload[string repeat x 40]" }
                }
                flush $chan
            }
            default  { puts -nonewline $chan "+OK\r\n" }
        }
        flush $chan
    }
    catch {close $chan}
}

proc accept {chan addr rport} {
    # One thread of control is enough: a replica talks to one primary.
    after 0 [list serve $chan $addr $rport]
}

socket -server accept -myaddr 127.0.0.1 $port
vwait forever
