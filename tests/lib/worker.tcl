# worker.tcl -- runs ONE test file in this fresh tclsh and reports to
# ./runtest through "@@vk" lines on stdout (see ::vk::emit).
#
# Usage (by ./runtest only): tclsh tests/lib/worker.tcl SETTINGS
# where SETTINGS is a dict of the run's options plus this file's
# port range and temp dir.  Whatever happens, the last message is "done";
# a worker that dies without sending it is reported by the parent.

set ::vk_lib_dir [file dirname [file normalize [info script]]]
source [file join $::vk_lib_dir transport.tcl]
source [file join $::vk_lib_dir resp.tcl]
source [file join $::vk_lib_dir harness.tcl]
source [file join $::vk_lib_dir replication.tcl]
source [file join $::vk_lib_dir replstream.tcl]
source [file join $::vk_lib_dir cluster.tcl]

array set ::vk::cfg [lindex $argv 0]
set ::vk::transport $::vk::cfg(transport)
file mkdir $::vk::cfg(run_dir)

set code [catch {uplevel #0 [list source $::vk::cfg(file)]} err opts]
if {$code == 1} {
    # An error outside any test (e.g. in a start_server body, or a server
    # that would not start) aborts the rest of the file.
    ::vk::emit abort $err [dict get $opts -errorinfo]
}
# Servers of blocks unwound by an error were already stopped by
# start_server; anything left means a bug in the harness itself.
foreach s $::vk::servers {
    if {![dict get $s external]} { ::vk::kill_pid [dict get $s pid] }
}
::vk::emit done
exit 0
