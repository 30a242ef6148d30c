#!/usr/bin/env tclsh
# vectors.tcl NAME FILE [NAME FILE ...] - prints captured bus messages
# (utils/cluster-capture's msgs/*.bin) as C test vectors: for each message
# a table of runs {offset, "hex"} of its non-zero bytes (zero gaps under 16
# bytes are kept inside a run), ended by {0, NULL}, and one busVector row
# {name, length, runs}. Messages are mostly zeros (a 2 KB slot bitmap, a
# 30-byte reserved area), so this keeps the vectors readable and short.
# src/unit/cluster_bus_vectors.h is the output of a run.
set names {}
foreach {name file} $argv {
    set f [open $file rb]
    set data [read $f]
    close $f
    binary scan $data cu* bytes
    set n [llength $bytes]
    set runs {}
    set i 0
    while {$i < $n} {
        if {[lindex $bytes $i] == 0} { incr i; continue }
        # A run: from here to the last non-zero byte before a gap of 16 zeros.
        set start $i
        set last $i
        while {$i < $n && $i - $last < 16} {
            if {[lindex $bytes $i] != 0} { set last $i }
            incr i
        }
        lappend runs $start [string range [binary encode hex $data] [expr {$start * 2}] [expr {$last * 2 + 1}]]
        set i [expr {$last + 1}]
    }
    puts "static const busVectorRun ${name}_runs\[\] = {"
    foreach {off hex} $runs {
        # Long runs are split into string literals of 64 bytes per line.
        set parts {}
        for {set j 0} {$j < [string length $hex]} {incr j 128} {
            lappend parts "\"[string range $hex $j [expr {$j + 127}]]\""
        }
        puts "    {$off, [join $parts "\n        "]},"
    }
    puts "    {0, NULL}};"
    lappend names [list $name $n]
}
puts "static const busVector busVectors\[\] = {"
foreach entry $names {
    lassign $entry name n
    puts "    {\"$name\", $n, ${name}_runs},"
}
puts "};"
