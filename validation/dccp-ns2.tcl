# dccp-ns2.tcl: dccp-ns2's experiments in ns-2.35, the twin of scenarios/dccp-ns2/*.toml
# (`fairway reproduce dccp-ns2`): three clients on a dumbbell, every link 10 Mb/s 2 ms DropTail
# (ns-2's 50 packets), the bottleneck's queue 20 packets; 500 B packets; greedy FTP senders,
# client 1 from 0 to 35 s, client 2 from 5 s and client 3 from 10 s to 50 s; the run ends at 55 s.
#   transport: tcp (Agent/TCP, Tahoe, window_ 20, TCPSink), ccid2 (Agent/DCCP/TCPlike) or ccid3
#              (Agent/DCCP/TFRC), DCCP at ns-2's defaults
#   change:    default | queue100 | rate20 | delay10 | delay50 (the bottleneck, one at a time)
#   ecn:       1 (ns-2's default for DCCP) or 0 (use_ecn_local_ and use_ecn_remote_ 0)
#   overhead:  optional, TCP only: Agent/TCP's overhead_ (s), a random wait below it before each
#              packet (ns-2's remedy for drop-tail phase effects; fairway's send_jitter), 0 by default
# Writes the delivered payload of each client every second (cumulative bytes) as JSON.
#
# Usage: ns dccp-ns2.tcl <out.json> <seed> <tcp|ccid2|ccid3> <change> <ecn 0|1> [overhead]

source [file join [file dirname [info script]] lib.tcl]

if {[llength $argv] != 5 && [llength $argv] != 6} {
    fw_usage "expected 5 or 6 arguments (out.json seed transport change ecn \[overhead\]), got [llength $argv]"
}
set overhead [expr {[llength $argv] == 6 ? [lindex $argv 5] : 0}]
Agent/TCP set overhead_ $overhead
set transport [lindex $argv 2]
set change [lindex $argv 3]
set ecn [lindex $argv 4]
set argv [lrange $argv 0 1]
set dur 55
set ns [fw_init "dccp-ns2-$transport-$change" $dur]

set rate 10Mb
set delay 2ms
set limit 20
switch -- $change {
    default {}
    queue100 { set limit 100 }
    rate20 { set rate 20Mb }
    delay10 { set delay 10ms }
    delay50 { set delay 50ms }
    default { fw_usage "unknown change '$change'" }
}
set r1 [$ns node]
set r2 [$ns node]
fw_duplex $r1 $r2 $rate $delay DropTail $limit
set starts {0 5 10}
set stops {35 50 50}
set counters {}
for {set i 0} {$i < 3} {incr i} {
    set s [$ns node]
    set c [$ns node]
    fw_duplex $s $r1 10Mb 2ms DropTail
    fw_duplex $r2 $c 10Mb 2ms DropTail
    set start [lindex $starts $i]
    switch -- $transport {
        tcp {
            set ftp [fw_tcp_flow "client[expr {$i + 1}]" Agent/TCP Agent/TCPSink $s $c 20 500 $start]
            # TCPSink's bytes_ counts 540 B per in-order segment (500 + 40 of headers).
            lappend counters [list tcp [lindex [lindex $fw(flows) end] 3]]
        }
        ccid2 - ccid3 {
            set agent [expr {$transport == "ccid2" ? "TCPlike" : "TFRC"}]
            set stop [expr {[lindex $stops $i] < $dur ? [lindex $stops $i] : ""}]
            fw_dccp_flow "client[expr {$i + 1}]" $s $c 500 $start $ecn $agent $stop
            lappend counters [list dccp [lindex [lindex $fw(flows) end] 3]]
            set ftp ""
        }
        default { fw_usage "unknown transport '$transport'" }
    }
    if {$ftp != "" && [lindex $stops $i] < $dur} {
        $ns at [lindex $stops $i] "$ftp stop"
    }
}

# The payload delivered to each client so far, sampled every second.
set samples {}
proc sample {} {
    global ns counters samples
    set row {}
    foreach c $counters {
        foreach {kind obj} $c break
        if {$kind == "tcp"} {
            lappend row [expr {[$obj set bytes_] / 540 * 500}]
        } else {
            lappend row [$obj set total_]
        }
    }
    lappend samples "\[[join $row ", "]\]"
    if {[$ns now] < 55} { $ns at [expr {[$ns now] + 1}] "sample" }
}
$ns at 0.0 "sample"
proc finish {} {
    global fw samples transport change ecn overhead
    set f [open $fw(out) w]
    puts $f "{\"transport\": \"$transport\", \"change\": \"$change\", \"ecn\": $ecn, \"seed\": $fw(seed), \"overhead_s\": $overhead, \"cumulative_payload_bytes\": \[[join $samples ", "]\]}"
    close $f
    exit 0
}
$ns at [expr {$dur + 0.001}] "finish"
if {[info exists env(FAIRWAY_NS2_BOOT_TIMES)] && $env(FAIRWAY_NS2_BOOT_TIMES) != ""} {
    # The TCP agents' boot_time_ instead of the run (lib.tcl's fw_boot_times).
    fw_boot_times
    exit 0
}
$ns run
