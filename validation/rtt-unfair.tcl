# rtt-unfair.tcl: ns-2 twin of fairway's rtt-unfair validation scenario: four
# NewReno flows with round trips from 46 to 84 ms through one DropTail
# bottleneck, the set-up where phase effects decide per-flow shares.
#
#   n0 (1ms)  --\                                  /-- k0
#   n1 (5ms)  ---\                                /--- k1
#   n2 (10ms) ----- r1 ==== DropTail ==== r2 -------- k2
#   n3 (20ms) ---/   1.5Mb 20ms, limit 30  \--------- k3
#   access links 10Mb, delay as shown (sinks: 1ms), DropTail limit 50
#
#   "tcp<i>" n<i>->k<i>: Agent/TCP/Newreno, Agent/TCPSink, window_ 64,
#   packetSize_ 1000; FTP starts 0.0, 0.5, 1.0, 1.5 s; run 60 s
#
# Usage: ns rtt-unfair.tcl <out.json> [seed [overhead [sack]]]
# overhead: each agent's overhead_ in seconds (default 0: deterministic
# phases). fairway's scenario sets `overhead` to the same value.
# sack: "sack" makes every flow Agent/TCP/Sack1 with Agent/TCPSink/Sack1
# (fairway's sack-unfair scenario).

source [file join [file dirname [info script]] lib.tcl]

set overhead 0
set tcpclass Agent/TCP/Newreno
set sinkclass Agent/TCPSink
set scenario "rtt-unfair"
if {[llength $argv] == 4} {
    if {[lindex $argv 3] != "sack"} {
        fw_usage "the fourth argument may only be 'sack', got '[lindex $argv 3]'"
    }
    set tcpclass Agent/TCP/Sack1
    set sinkclass Agent/TCPSink/Sack1
    set scenario "sack-unfair"
    set argv [lrange $argv 0 2]
}
if {[llength $argv] == 3} {
    set overhead [lindex $argv 2]
    set argv [lrange $argv 0 1]
}
set ns [fw_init $scenario 60.0]

set r1 [$ns node]
set r2 [$ns node]
foreach i {0 1 2 3} {
    set n($i) [$ns node]
    set k($i) [$ns node]
}
fw_duplex $r1 $r2 1.5Mb 20ms DropTail 30
foreach i {0 1 2 3} d {1ms 5ms 10ms 20ms} {
    fw_duplex $n($i) $r1 10Mb $d DropTail
    fw_duplex $k($i) $r2 10Mb 1ms DropTail
}
fw_monitor_link "r1->r2" $r1 $r2

foreach i {0 1 2 3} start {0.0 0.5 1.0 1.5} {
    fw_tcp_flow "tcp$i" $tcpclass $sinkclass $n($i) $k($i) 64 1000 $start
    [lindex [lindex $fw(flows) end] 2] set overhead_ $overhead
}

fw_run
