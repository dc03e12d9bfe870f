# dccp.tcl: ns-2 twin of scenarios/validation/dccp-ccid{2,3}*.toml, dccp-ns2's dumbbell
# (Table 2) with ns-2's CCID2 (Agent/DCCP/TCPlike) or CCID3 (Agent/DCCP/TFRC) at their defaults:
#
#   s0, s1, s2 --- r1 ==== 10Mb 2ms ==== r2 --- k0, k1, k2      (every link 10Mb 2ms)
#   access links DropTail (limit 50); the bottleneck DropTail with a 20-packet buffer, or RED
#   (limit 20, thresh_ 5, maxthresh_ 15, q_weight_ 0.002, setbit_ <ecn>, ns-2's other defaults)
#   flows: DCCP/TCPlike or DCCP/TFRC dI -> kI, packetSize_ 500, FTP starting at 0, 5 and 10 s
#
# Usage: ns dccp.tcl <out.json> <seed> <ccid2|ccid3> <droptail|red> <ecn 0|1> <duration_s>
#                    [<fixed|random> [<n_dccp> <n_tcp>]]
#
# `random` starts DCCP flow i at 5i s plus a time uniform in [0, 1 s), drawn from ns-2's default
# RNG (seeded with <seed>) in flow order; `fixed` (the default) at exactly 5i s. <n_dccp> DCCP
# flows (default 3) and <n_tcp> Agent/TCP/Newreno flows (default 0; TCPSink, window_ 64,
# packetSize_ 1000, an FTP each, named tcp-J, on their own nodes sJ' and kJ' like the DCCP
# ones) share the bottleneck; TCP flow j starts like DCCP flow j. (TCP agents draw their
# boot_time_ from the same RNG when made: the DCCP flows are made first.)

source [file join [file dirname [info script]] lib.tcl]

if {[llength $argv] != 6 && [llength $argv] != 7 && [llength $argv] != 9} {
    fw_usage "expected 6, 7 or 9 arguments (out.json seed ccid2|ccid3 droptail|red ecn duration \[fixed|random \[n_dccp n_tcp\]\]), got [llength $argv]"
}
set starts fixed
set n_dccp 3
set n_tcp 0
if {[llength $argv] >= 7} {
    set starts [lindex $argv 6]
}
if {[llength $argv] == 9} {
    set n_dccp [lindex $argv 7]
    set n_tcp [lindex $argv 8]
}
if {$starts != "fixed" && $starts != "random"} {
    fw_usage "starts must be fixed or random, got '$starts'"
}
if {![string is integer -strict $n_dccp] || $n_dccp < 0 || ![string is integer -strict $n_tcp] || $n_tcp < 0} {
    fw_usage "n_dccp and n_tcp must be integers >= 0, got '$n_dccp' and '$n_tcp'"
}
set ccid [lindex $argv 2]
set queue [lindex $argv 3]
set ecn [lindex $argv 4]
set dur [lindex $argv 5]
switch -- $ccid {
    ccid2 { set agent TCPlike }
    ccid3 { set agent TFRC }
    default { fw_usage "ccid must be ccid2 or ccid3, got '$ccid'" }
}
if {$ecn != 0 && $ecn != 1} {
    fw_usage "ecn must be 0 or 1, got '$ecn'"
}
set argv [lrange $argv 0 1]
set ns [fw_init "dccp-$ccid" $dur]

set r1 [$ns node]
set r2 [$ns node]
switch -- $queue {
    droptail { fw_duplex $r1 $r2 10Mb 2ms DropTail 20 }
    red {
        Queue/RED set thresh_ 5
        Queue/RED set maxthresh_ 15
        Queue/RED set q_weight_ 0.002
        Queue/RED set setbit_ $ecn
        fw_duplex $r1 $r2 10Mb 2ms RED 20
    }
    default { fw_usage "queue must be droptail or red, got '$queue'" }
}
fw_monitor_link "r1->r2" $r1 $r2
# Flow i's start: 5i s, plus U[0, 1) with random starts.
proc start_of {i} {
    global starts defaultRNG
    set t [expr {5.0 * $i}]
    if {$starts == "random"} {
        set t [expr {$t + [$defaultRNG uniform 0 1]}]
    }
    return $t
}
for {set i 0} {$i < $n_dccp} {incr i} {
    set s($i) [$ns node]
    set k($i) [$ns node]
    fw_duplex $s($i) $r1 10Mb 2ms DropTail
    fw_duplex $r2 $k($i) 10Mb 2ms DropTail
    fw_dccp_flow "$ccid-$i" $s($i) $k($i) 500 [start_of $i] $ecn $agent
}
for {set j 0} {$j < $n_tcp} {incr j} {
    set ts($j) [$ns node]
    set tk($j) [$ns node]
    fw_duplex $ts($j) $r1 10Mb 2ms DropTail
    fw_duplex $r2 $tk($j) 10Mb 2ms DropTail
    fw_tcp_flow "tcp-$j" Agent/TCP/Newreno Agent/TCPSink $ts($j) $tk($j) 64 1000 [start_of $j]
}
fw_run
