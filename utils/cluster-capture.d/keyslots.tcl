#!/usr/bin/env tclsh
# keyslots.tcl PORT [COUNT] [SEED] - asks a cluster-enabled server on
# 127.0.0.1:PORT (Debian's redis-server 7.0 for the reference values) for
# CLUSTER KEYSLOT of COUNT keys (default 300) and prints them as the rows of
# a C table { "key", length, slot }, the key in octal escapes where it is
# not printable. The keys are the cluster spec's examples, then random ones
# from a fixed seed: plain, with one or more hash tags in any position,
# empty tags, unbalanced braces, and binary bytes (NUL included).
# src/unit/test_crc16.c holds the output of a run against redis-server.
set port [lindex $argv 0]
set count [expr {[llength $argv] > 1 ? [lindex $argv 1] : 300}]
expr {srand([expr {[llength $argv] > 2 ? [lindex $argv 2] : 16384}])}

set sock [socket 127.0.0.1 $port]
fconfigure $sock -translation binary

proc keyslot {key} {
    global sock
    puts -nonewline $sock [format "*3\r\n\$7\r\nCLUSTER\r\n\$7\r\nKEYSLOT\r\n\$%d\r\n%s\r\n" [string length $key] $key]
    flush $sock
    set line [gets $sock]
    if {![regexp {^:(\d+)\r$} $line -> slot]} { error "unexpected reply: $line" }
    return $slot
}

proc randomPiece {} {
    set alphabet "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:_-.{}{}"
    set s ""
    set n [expr {int(rand() * 12)}]
    for {set i 0} {$i < $n} {incr i} {
        if {rand() < 0.1} {
            append s [binary format c [expr {int(rand() * 256)}]]
        } else {
            append s [string index $alphabet [expr {int(rand() * [string length $alphabet])}]]
        }
    }
    return $s
}

proc randomKey {} {
    switch [expr {int(rand() * 6)}] {
        0 { return [randomPiece] }
        1 { return "[randomPiece]\{[randomPiece]\}[randomPiece]" }
        2 { return "\{[randomPiece]\}[randomPiece]\{[randomPiece]\}" }
        3 { return "[randomPiece]\{\}[randomPiece]" }
        4 { return "[randomPiece]\{[randomPiece]" }
        5 { return "user:[expr {int(rand() * 100000)}]" }
    }
}

proc cString {key} {
    set out ""
    binary scan $key cu* bytes
    foreach b $bytes {
        if {$b == 34 || $b == 92} {
            append out "\\" [format %c $b]
        } elseif {$b >= 32 && $b < 127 && $b != 63} {
            append out [format %c $b]
        } else {
            append out [format "\\%03o" $b]
        }
    }
    return $out
}

set keys [list "" "123456789" "foo" "\{user1000\}.following" "\{user1000\}.followers" "foo\{\}\{bar\}" \
              "foo\{\{bar\}\}zap" "foo\{bar\}\{zap\}" "\{\}key" "\{" "\}" "\{\}" "\{a" "a\}" "\}\{a\}" "\x00" \
              "\x00\{\x00\}"]
while {[llength $keys] < $count} { lappend keys [randomKey] }
foreach key $keys {
    puts [format "    {\"%s\", %d, %d}," [cString $key] [string length $key] [keyslot $key]]
}
