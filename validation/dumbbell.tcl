# dumbbell.tcl: parametrised ns-2 dumbbell, the twin of the scenarios in scenarios/bench/
# (bench/bench.py runs it beside fairway). It generalises dumbbell-mid.tcl, and with
#   100 10 100Mb 1Gb 100 300 1000 20
# it is the same simulation as dumbbell-mid.tcl: same nodes, links, agents and order of
# creation, so the same random draws and the same JSON numbers (only "scenario" and "wall_s"
# differ).
#
#   ts0.., us0.. --- r1 ==== RED ==== r2 --- td0.., ud0..
#   every end node: own duplex link to its router, <access rate> 2ms DropTail (limit 50)
#   r1-r2: <bottleneck rate> 10ms RED, queue-limit <limit> both directions,
#          thresh_ <thresh>, maxthresh_ <maxthresh>, other RED parameters ns-2 defaults
#          (byte mode: limit and thresholds count mean_pktsize_ = 500 bytes; q_weight_ -1,
#          automatic; gentle_; linterm_ 10)
#
#   "tcp0".."tcp<n_tcp-1>": Agent/TCP/Newreno tsI -> tdI, Agent/TCPSink, window_ 10000,
#                           packetSize_ 1000, FTP, all started at 0.0
#   "cbr0".."cbr<n_cbr-1>": UDP usI -> udI, CBR packetSize_ 1000, rate_ 5Mb, random_ 0,
#                           started at <cbr start> (default 1.0), LossMonitor
#   run <duration> s
#
# Usage: ns dumbbell.tcl <out.json> <seed> <n_tcp> <n_cbr> <bottleneck rate> <access rate>
#                        <thresh> <maxthresh> <limit> <duration> [<cbr start>]
# e.g.   ns dumbbell.tcl out.json 1 100 10 100Mb 1Gb 100 300 1000 20
# Rates are ns-2 bandwidths (100Mb, 1Gb, 10Gb); duration and cbr start are seconds.

source [file join [file dirname [info script]] lib.tcl]

proc dumbbell_usage {msg} {
    puts stderr "error: $msg"
    puts stderr "usage: ns dumbbell.tcl <out.json> <seed> <n_tcp> <n_cbr> <bottleneck rate> <access rate> <thresh> <maxthresh> <limit> <duration> \[<cbr start>\]"
    puts stderr "   e.g. ns dumbbell.tcl out.json 1 100 10 100Mb 1Gb 100 300 1000 20"
    exit 2
}

if {[llength $argv] != 10 && [llength $argv] != 11} {
    dumbbell_usage "expected 10 or 11 arguments, got [llength $argv]"
}
foreach {out seed NTCP NCBR BNECK ACCESS THRESH MAXTHRESH LIMIT DURATION} $argv break
set CBRSTART 1.0
if {[llength $argv] == 11} {
    set CBRSTART [lindex $argv 10]
}
foreach {var what} {NTCP n_tcp NCBR n_cbr LIMIT limit} {
    set v [set $var]
    if {![string is integer -strict $v] || $v < 0} {
        dumbbell_usage "$what must be an integer >= 0, got '$v'"
    }
}
if {$NTCP + $NCBR < 1} {
    dumbbell_usage "need at least one flow"
}
foreach {var what} {THRESH thresh MAXTHRESH maxthresh DURATION duration CBRSTART "cbr start"} {
    set v [set $var]
    if {![string is double -strict $v] || $v < 0} {
        dumbbell_usage "$what must be a number >= 0, got '$v'"
    }
}
if {$THRESH > $MAXTHRESH} {
    dumbbell_usage "thresh $THRESH exceeds maxthresh $MAXTHRESH"
}
if {$DURATION <= 0} {
    dumbbell_usage "duration must be above 0, got '$DURATION'"
}
foreach {var what} {BNECK "bottleneck rate" ACCESS "access rate"} {
    set v [set $var]
    # ns-2's bw_parse exits on an unknown unit, so check its syntax first.
    if {![regexp {^[0-9]*\.?[0-9]+([eE][0-9]+)?((b|kb|Mb|Gb|B|kB|MB|GB)([/p]s(ec)?)?)?$} $v]
        || [bw_parse $v] <= 0} {
        dumbbell_usage "$what must be an ns-2 bandwidth such as 100Mb or 1Gb, got '$v'"
    }
}

# lib.tcl's fw_init reads `<out.json> [seed]` from argv (and checks the seed).
set argv [list $out $seed]
set ns [fw_init "dumbbell" [expr {double($DURATION)}]]

# Only thresholds set; q_weight_ stays at its 2.35 default -1 (automatic,
# see validation/README.md), bytes_/queue_in_bytes_/gentle_ true, linterm_ 10, ...
Queue/RED set thresh_ $THRESH
Queue/RED set maxthresh_ $MAXTHRESH

# Node creation order as in dumbbell-mid.tcl (node ids fix the routing tie-breaks).
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

fw_duplex $r1 $r2 $BNECK 10ms RED $LIMIT
for {set i 0} {$i < $NTCP} {incr i} {
    fw_duplex $ts($i) $r1 $ACCESS 2ms DropTail
    fw_duplex $td($i) $r2 $ACCESS 2ms DropTail
}
for {set i 0} {$i < $NCBR} {incr i} {
    fw_duplex $us($i) $r1 $ACCESS 2ms DropTail
    fw_duplex $ud($i) $r2 $ACCESS 2ms DropTail
}

fw_monitor_link "r1->r2" $r1 $r2

for {set i 0} {$i < $NTCP} {incr i} {
    fw_tcp_flow "tcp$i" Agent/TCP/Newreno Agent/TCPSink $ts($i) $td($i) 10000 1000 0.0
}
for {set i 0} {$i < $NCBR} {incr i} {
    fw_cbr_flow "cbr$i" $us($i) $ud($i) 1000 rate 5Mb $CBRSTART
}

fw_run
