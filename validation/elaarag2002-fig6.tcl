# elaarag2002-fig6.tcl: ns-2 twin of elaarag2002's Figure 6 set-up with TCP in
# IFTP's place (ns-2 has no IFTP): what a TCP Reno gets in the slot IFTP takes.
#
#   s0..s3 -- 10Mb 1ms -- r1 === 1Mb 9ms, DropTail 50 === r2 -- 10Mb 1ms -- d0..d3
#
#   "iftp0" s0->d0, "iftp1" s1->d1: what stands in IFTP's slots (see mode)
#   "tcp0"  s2->d2, "tcp1"  s3->d3: Agent/TCP/Reno, Agent/TCPSink
#   TCP: window_ 50, initial ssthresh 32, packetSize_ 1000; all start at 0;
#   run 120 s. ssthresh_ is set by an event at t = 0 scheduled before the
#   FTP starts: `$ns run` resets every agent first, which sets ssthresh_ to
#   window_. (max_ssthresh_ would set it too, but it also turns on limited
#   slow start, RFC 3742, which fairway's `ssthresh` does not.)
#
# Usage: ns elaarag2002-fig6.tcl <out.json> [seed [overhead [mode [rate]]]]
#   overhead: every TCP agent's overhead_ in seconds (default 0)
#   mode: "reno" (default): TCP Reno in the IFTP slots too;
#         "cbr": a CBR of 1000-byte packets at <rate> (e.g. 300Kb) in each,
#         with random_ 1 when overhead > 0 (paced traffic beside Reno).

source [file join [file dirname [info script]] lib.tcl]

set overhead 0
set mode reno
set cbrrate 300Kb
if {[llength $argv] >= 3} {
    set overhead [lindex $argv 2]
    if {[llength $argv] >= 4} { set mode [lindex $argv 3] }
    if {[llength $argv] >= 5} { set cbrrate [lindex $argv 4] }
    set argv [lrange $argv 0 1]
}
set ns [fw_init "elaarag2002-fig6-$mode" 120.0]

set r1 [$ns node]
set r2 [$ns node]
fw_duplex $r1 $r2 1Mb 9ms DropTail 50
foreach i {0 1 2 3} {
    set s($i) [$ns node]
    set d($i) [$ns node]
    fw_duplex $s($i) $r1 10Mb 1ms DropTail
    fw_duplex $d($i) $r2 10Mb 1ms DropTail
}
fw_monitor_link "r1->r2" $r1 $r2

proc reno {name src dst} {
    global fw ns overhead
    set tcp [new Agent/TCP/Reno]
    $ns at 0.0 "$tcp set ssthresh_ 32"
    fw_tcp_agent $name $tcp Agent/TCPSink $src $dst 50 1000 0.0
    $tcp set overhead_ $overhead
}
foreach i {0 1} {
    if {$mode == "reno"} {
        reno "iftp$i" $s($i) $d($i)
    } else {
        set cbr [fw_cbr_flow "iftp$i" $s($i) $d($i) 1000 rate $cbrrate 0.0]
        if {$overhead > 0} { $cbr set random_ 1 }
    }
}
reno "tcp0" $s(2) $d(2)
reno "tcp1" $s(3) $d(3)

fw_run
