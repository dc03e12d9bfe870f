# kadhum2015-cbr.tcl: ns-2 twin of fairway's scenarios/validation kadhum2015-cbr
# (kadhum2015's comparison run, Kadhum & Hassanein 2015).
#
#   s1 --\                      /-- s3
#         r1 ==== RED ==== r2
#   s2 --/  2Mb 10ms, limit 20  \-- s4
#   access links: 6Mb 2ms DropTail (limit 50)
#
#   "ftp": TCP/Newreno s2 -> s4, TCPSink, window_ 15, packetSize_ 1000, FTP at 0.0
#   "cbr": UDP s1 -> s3, CBR 500 B every 5 ms (800 kb/s), random_ 0, at 1.0, LossMonitor
#   run 50 s
#
# Usage: ns kadhum2015-cbr.tcl <out.json> [seed]

source [file join [file dirname [info script]] lib.tcl]

set ns [fw_init "kadhum2015-cbr" 50.0]

# RED on the bottleneck: these three, everything else at ns-2 2.35 defaults
# (bytes_ true, queue_in_bytes_ true, gentle_ true, linterm_ 10,
# mean_pktsize_ 500, wait_ true, setbit_ false). Class defaults, so they are
# in place when the link's RED queue is built and bound.
Queue/RED set thresh_ 5
Queue/RED set maxthresh_ 10
Queue/RED set q_weight_ 0.002

set s1 [$ns node]
set s2 [$ns node]
set r1 [$ns node]
set r2 [$ns node]
set s3 [$ns node]
set s4 [$ns node]

fw_duplex $s1 $r1 6Mb 2ms DropTail
fw_duplex $s2 $r1 6Mb 2ms DropTail
fw_duplex $s3 $r2 6Mb 2ms DropTail
fw_duplex $s4 $r2 6Mb 2ms DropTail
fw_duplex $r1 $r2 2Mb 10ms RED 20

fw_monitor_link "r1->r2" $r1 $r2

fw_tcp_flow "ftp" Agent/TCP/Newreno Agent/TCPSink $s2 $s4 15 1000 0.0
fw_cbr_flow "cbr" $s1 $s3 500 interval 0.005 1.0

fw_run
