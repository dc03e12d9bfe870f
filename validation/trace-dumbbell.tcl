# trace-dumbbell.tcl: ns-2 twin of fairway's scenarios/validation/trace-dumbbell.toml, for
# comparing packet traces line by line (crates/fairway-cli/tests/packet_trace.rs).
#
#   s1 --\                        
#         r1 ==== DropTail ==== r2 -- s3
#   s2 --/  2Mb 10ms, limit 10
#   access links: 6Mb 2ms DropTail (limit 50)
#
#   "ftp": TCP/Newreno s2 -> s3, TCPSink, window_ 20, packetSize_ 1000, FTP at 0.0, fid_ 0
#   "cbr": UDP s1 -> s3, CBR 500 B every 5 ms, random_ 0, at 1.0003, fid_ 1
#   run 10 s
#
# Nodes are made in the order fairway numbers them (first appearance in the scenario's links).
#
# Usage: ns trace-dumbbell.tcl <trace.tr>

if {[llength $argv] != 1} {
    puts stderr "usage: ns trace-dumbbell.tcl <trace.tr>"
    exit 2
}
set ns [new Simulator]
set tf [open [lindex $argv 0] w]
$ns trace-all $tf

set s1 [$ns node]
set r1 [$ns node]
set s2 [$ns node]
set r2 [$ns node]
set s3 [$ns node]

$ns duplex-link $s1 $r1 6Mb 2ms DropTail
$ns duplex-link $s2 $r1 6Mb 2ms DropTail
$ns duplex-link $r1 $r2 2Mb 10ms DropTail
$ns queue-limit $r1 $r2 10
$ns queue-limit $r2 $r1 10
$ns duplex-link $r2 $s3 6Mb 2ms DropTail

set tcp [new Agent/TCP/Newreno]
$tcp set window_ 20
$tcp set packetSize_ 1000
$tcp set fid_ 0
set sink [new Agent/TCPSink]
$ns attach-agent $s2 $tcp
$ns attach-agent $s3 $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns at 0.0 "$ftp start"

set udp [new Agent/UDP]
$udp set fid_ 1
set null [new Agent/Null]
$ns attach-agent $s1 $udp
$ns attach-agent $s3 $null
$ns connect $udp $null
set cbr [new Application/Traffic/CBR]
$cbr set packetSize_ 500
$cbr set random_ 0
$cbr set interval_ 0.005
$cbr attach-agent $udp
$ns at 1.0003 "$cbr start"

proc finish {} {
    global ns tf
    $ns flush-trace
    close $tf
    exit 0
}
$ns at 10.0 "finish"
$ns run
