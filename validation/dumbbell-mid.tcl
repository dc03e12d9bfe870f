# dumbbell-mid.tcl: ns-2 twin of fairway's dumbbell-mid validation scenario
# (also the speed benchmark of docs/architecture.md: 100 flows, 100 Mb/s, 20 s).
#
#   ts0..ts99, us0..us9 --- r1 ==== RED ==== r2 --- td0..td99, ud0..ud9
#   every end node: own duplex link to its router, 1Gb 2ms DropTail (limit 50)
#   r1-r2: 100Mb 10ms RED, queue-limit 1000 both directions,
#          thresh_ 100, maxthresh_ 300, other RED parameters ns-2 defaults
#
#   "tcp0".."tcp99": Agent/TCP/Newreno tsI -> tdI, Agent/TCPSink, window_ 10000,
#                    packetSize_ 1000, FTP, all started at 0.0
#   "cbr0".."cbr9":  UDP usI -> udI, CBR packetSize_ 1000, rate_ 5Mb, random_ 0,
#                    started at 1.0, LossMonitor
#   run 20 s
#
# Usage: ns dumbbell-mid.tcl <out.json> [seed]

source [file join [file dirname [info script]] lib.tcl]

set ns [fw_init "dumbbell-mid" 20.0]

# Only thresholds set; q_weight_ stays at its 2.35 default -1 (automatic,
# see README), bytes_/queue_in_bytes_/gentle_ true, linterm_ 10, ...
Queue/RED set thresh_ 100
Queue/RED set maxthresh_ 300

set NTCP 100
set NCBR 10

set r1 [$ns node]
set r2 [$ns node]
for {set i 0} {$i < $NTCP} {incr i} {
    set ts($i) [$ns node]
    set td($i) [$ns node]
}
for {set i 0} {$i < $NCBR} {incr i} {
    set us($i) [$ns node]
    set ud($i) [$ns node]
}

fw_duplex $r1 $r2 100Mb 10ms RED 1000
for {set i 0} {$i < $NTCP} {incr i} {
    fw_duplex $ts($i) $r1 1Gb 2ms DropTail
    fw_duplex $td($i) $r2 1Gb 2ms DropTail
}
for {set i 0} {$i < $NCBR} {incr i} {
    fw_duplex $us($i) $r1 1Gb 2ms DropTail
    fw_duplex $ud($i) $r2 1Gb 2ms DropTail
}

fw_monitor_link "r1->r2" $r1 $r2

for {set i 0} {$i < $NTCP} {incr i} {
    fw_tcp_flow "tcp$i" Agent/TCP/Newreno Agent/TCPSink $ts($i) $td($i) 10000 1000 0.0
}
for {set i 0} {$i < $NCBR} {incr i} {
    fw_cbr_flow "cbr$i" $us($i) $ud($i) 1000 rate 5Mb 1.0
}

fw_run
