# tahoe-mix.tcl: ns-2 twin of fairway's tahoe-mix validation scenario: droptail-mix with
# ns-2's Tahoe (Agent/TCP) in every TCP slot (dccp-ns2 and janani-tfrc compare against it).
#
#   n0 (1ms)  --\                                  /-- k0
#   n1 (5ms)  ---\                                /--- k1
#   n2 (10ms) ----- r1 ==== DropTail ==== r2 -------- k2
#   n3 (20ms) ---/   1.5Mb 20ms, limit 30  \--------- k3
#   u0 (1ms)  --/                           \-------- v0
#   access links 10Mb, delay as shown (sinks and v0: 1ms), DropTail limit 50
#
#   "tahoe0".."tahoe2" n0..n2 -> k0..k2: Agent/TCP, Agent/TCPSink
#   "tahoe3"           n3->k3: Agent/TCP, Agent/TCPSink/DelAck (interval_ default 100ms)
#   all window_ 64, packetSize_ 1000; FTP starts 0.0, 0.5, 1.0, 1.5 s in that order
#   "cbr" u0->v0: UDP, CBR packetSize_ 500, rate_ 500Kb, random_ 0, from 2.0 s, LossMonitor
#   run 60 s
#
# Usage: ns tahoe-mix.tcl <out.json> [seed]
# DropTail draws nothing, but the seed still matters: every ns-2 TCP agent
# draws boot_time_ = Random::uniform(tcpTick_) (the phase of its 10 ms RTT
# clock), which shifts RTT samples, hence RTOs, hence the run (see README).

source [file join [file dirname [info script]] lib.tcl]

set ns [fw_init "tahoe-mix" 60.0]

set r1 [$ns node]
set r2 [$ns node]
foreach i {0 1 2 3} {
    set n($i) [$ns node]
    set k($i) [$ns node]
}
set u0 [$ns node]
set v0 [$ns node]

fw_duplex $r1 $r2 1.5Mb 20ms DropTail 30
foreach i {0 1 2 3} d {1ms 5ms 10ms 20ms} {
    fw_duplex $n($i) $r1 10Mb $d DropTail
    fw_duplex $k($i) $r2 10Mb 1ms DropTail
}
fw_duplex $u0 $r1 10Mb 1ms DropTail
fw_duplex $v0 $r2 10Mb 1ms DropTail

fw_monitor_link "r1->r2" $r1 $r2

fw_tcp_flow "tahoe0" Agent/TCP Agent/TCPSink        $n(0) $k(0) 64 1000 0.0
fw_tcp_flow "tahoe1" Agent/TCP Agent/TCPSink        $n(1) $k(1) 64 1000 0.5
fw_tcp_flow "tahoe2" Agent/TCP Agent/TCPSink        $n(2) $k(2) 64 1000 1.0
fw_tcp_flow "tahoe3" Agent/TCP Agent/TCPSink/DelAck $n(3) $k(3) 64 1000 1.5
fw_cbr_flow "cbr" $u0 $v0 500 rate 500Kb 2.0

fw_run
