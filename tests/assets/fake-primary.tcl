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
#   nopsync    a primary older than PSYNC: PSYNC and REPLCONF get
#              "-ERR unknown command", SYNC gets "$<length>\r\n" and the
#              file (no +FULLRESYNC line), then the stream: SET from:stream 1
#              and, after the n-th SYNC, <payload-file>.stream.<n> if it
#              exists
#   loading    PSYNC gets "-LOADING ..." (a primary loading its data);
#              SYNC is served as in bulk
#   stream     the n-th PSYNC (n = 1, 2, ...) is served as in bulk, then
#              the bytes of <payload-file>.stream.<n> follow as the
#              replication stream, when that file exists; without it the
#              PSYNC gets "-LOADING ..." and the replica retries later. So
#              a test lets the replica sync again by writing the next file.
# Every connection is served the same way; the count of PSYNCs and SYNCs
# received is written to <payload-file>.psyncs after each one, the name
# of every command received is appended to <payload-file>.cmds and the
# arguments of each PSYNC to <payload-file>.psync-args. REPLCONF ACK gets
# no reply, as from a real primary: a reply would land in the replica's
# replication stream.

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
        set name [string tolower [lindex $cmd 0]]
        set f [open $payload_file.cmds a]
        puts $f $name
        close $f
        if {$mode eq "nopsync" && $name in {psync replconf}} {
            puts -nonewline $chan "-ERR unknown command '[lindex $cmd 0]'\r\n"
            continue
        }
        if {$name eq "psync"} {
            set f [open $payload_file.psync-args a]
            puts $f [lrange $cmd 1 end]
            close $f
        }
        if {$name eq "replconf" && [string tolower [lindex $cmd 1]] eq "ack"} continue
        if {$mode eq "loading" && $name eq "psync"} {
            puts -nonewline $chan "-LOADING Redis is loading the dataset in memory\r\n"
            continue
        }
        if {$mode eq "stream" && $name eq "psync" && ![file exists $payload_file.stream.[expr {$psyncs + 1}]]} {
            puts -nonewline $chan "-LOADING Redis is loading the dataset in memory\r\n"
            continue
        }
        switch -- $name {
            ping     { puts -nonewline $chan "+PONG\r\n" }
            psync -
            sync {
                incr psyncs
                set f [open $payload_file.psyncs w]
                puts $f $psyncs
                close $f
                set id [string repeat "ab" 20]
                if {$name eq "psync"} { puts -nonewline $chan "+FULLRESYNC $id 0\r\n" }
                set mark [string repeat "0123456789" 4]
                switch -- $mode {
                    loading -
                    bulk    { puts -nonewline $chan "\$[string length $payload]\r\n$payload" }
                    stream  {
                        set fh [open $payload_file.stream.$psyncs rb]
                        set bytes [read $fh]
                        close $fh
                        puts -nonewline $chan "\$[string length $payload]\r\n$payload$bytes"
                    }
                    nopsync {
                        puts -nonewline $chan "\$[string length $payload]\r\n$payload"
                        puts -nonewline $chan "*3\r\n\$3\r\nSET\r\n\$11\r\nfrom:stream\r\n\$1\r\n1\r\n"
                        if {[file exists $payload_file.stream.$psyncs]} {
                            set fh [open $payload_file.stream.$psyncs rb]
                            puts -nonewline $chan [read $fh]
                            close $fh
                        }
                    }
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
