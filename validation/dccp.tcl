# dccp.tcl: ns-2 twin of scenarios/validation/dccp-ccid{2,3}*.toml, dccp-ns2's dumbbell
# (Table 2) with ns-2's CCID2 (Agent/DCCP/TCPlike) or CCID3 (Agent/DCCP/TFRC) at their defaults:
#
#   s0, s1, s2 --- r1 ==== 10Mb 2ms ==== r2 --- k0, k1, k2      (every link 10Mb 2ms)
#   access links DropTail (limit 50); the bottleneck DropTail with a 20-packet buffer, or RED
#   (limit 20, thresh_ 5, maxthresh_ 15, q_weight_ 0.002, setbit_ <ecn>, ns-2's other defaults)
#   flows: DCCP/TCPlike or DCCP/TFRC dI -> kI, packetSize_ 500, FTP starting at 0, 5 and 10 s
#
# Usage: ns dccp.tcl <out.json> <seed> <ccid2|ccid3> <droptail|red> <ecn 0|1> <duration_s>

source [file join [file dirname [info script]] lib.tcl]

if {[llength $argv] != 6} {
    fw_usage "expected 6 arguments (out.json seed ccid2|ccid3 droptail|red ecn duration), got [llength $argv]"
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
for {set i 0} {$i < 3} {incr i} {
    set s($i) [$ns node]
    set k($i) [$ns node]
    fw_duplex $s($i) $r1 10Mb 2ms DropTail
    fw_duplex $r2 $k($i) 10Mb 2ms DropTail
    fw_dccp_flow "$ccid-$i" $s($i) $k($i) 500 [expr {5.0 * $i}] $ecn $agent
}
fw_run
