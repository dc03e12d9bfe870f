# tfrc-mix.tcl: ns-2 twin of fairway's TFRC validation scenarios (tfrc-red, tfrc-droptail,
# tfrc-lossy): Agent/TFRC beside Agent/TCP/Newreno through one bottleneck.
#
#   s0..s(n-1) --\                              /-- k0..k(n-1)
#                 r1 ==== bottleneck ===== r2
#   access links 10Mb, 2ms (sources) and 4ms (sinks), DropTail limit 50
#
#   bottleneck 1.5Mb 20ms: RED (limit 50, thresh 5, maxthresh 15, q_weight 0.002, ns-2's other
#   defaults) or DropTail (limit 30); with <loss> > 0 an ErrorModel drops that fraction of the
#   packets that leave r1 towards r2 (fairway's link `loss`): `link-lossmodel` puts it after the
#   link's delay, so a packet is lost at r2's end after its serialisation and propagation, and
#   r2 -> r1 (the feedback) loses nothing; it draws from its own RNG (a new stream advanced
#   <seed> - 1 substreams)
#   flows: <ntfrc> TFRC (packetSize_ 1000, FTP) starting 0, 0.3, 0.6 ... s, then <ntcp>
#   Agent/TCP/Newreno + TCPSink (window_ 64, packetSize_ 1000, FTP) starting 0.15, 0.45 ... s
#   (the spacing is the optional <stagger> argument)
#
# Usage: ns tfrc-mix.tcl <out.json> <seed> <red|droptail> <ntfrc> <ntcp> <loss> <duration_s>
#            [<bottleneck rate> <droptail limit> <stagger s>]   (defaults 1.5Mb, 30 and 0.3: flow i
#            starts at i x stagger, TCP flow j at stagger/2 + j x stagger; the benchmark's larger
#            set-up, scenarios/bench/tfrc-*.toml, names its own)

source [file join [file dirname [info script]] lib.tcl]

set queue [lindex $argv 2]
set ntfrc [lindex $argv 3]
set ntcp [lindex $argv 4]
set loss [lindex $argv 5]
set dur [lindex $argv 6]
set bw 1.5Mb
set dtlimit 30
set stagger 0.3
if {[llength $argv] >= 9} {
    set bw [lindex $argv 7]
    set dtlimit [lindex $argv 8]
}
if {[llength $argv] >= 10} {
    set stagger [lindex $argv 9]
}
set argv [lrange $argv 0 1]
set ns [fw_init "tfrc-mix" $dur]

set r1 [$ns node]
set r2 [$ns node]
set n [expr {$ntfrc + $ntcp}]
for {set i 0} {$i < $n} {incr i} {
    set s($i) [$ns node]
    set k($i) [$ns node]
    fw_duplex $s($i) $r1 10Mb 2ms DropTail
    fw_duplex $k($i) $r2 10Mb 4ms DropTail
}
switch -- $queue {
    red {
        Queue/RED set thresh_ 5
        Queue/RED set maxthresh_ 15
        Queue/RED set q_weight_ 0.002
        fw_duplex $r1 $r2 $bw 20ms RED 50
    }
    droptail { fw_duplex $r1 $r2 $bw 20ms DropTail $dtlimit }
    default { error "tfrc-mix.tcl: queue must be red or droptail, got '$queue'" }
}
if {$loss > 0} {
    set em [new ErrorModel]
    $em unit pkt
    $em set rate_ $loss
    # The ErrorModel draws from its own RNG, a new stream advanced <seed> - 1 substreams, not the
    # default RNG: MRG32k3a seeded with a small integer n starts with a draw of about
    # 0.00034 n (0.00034, 0.00067, 0.00101 for seeds 1-3), so on the default RNG the very first
    # packet was lost on every seed below 30, and the TFRC flow, which sends one packet at
    # InitRate_ 300 B/s before any report, stood idle until 3.39 s. fairway's link loss draws
    # from the link's own stream. (TFRC's per-packet Random::uniform() stays on the default
    # RNG; with overhead_ 0 it changes nothing.)
    set lossrng [new RNG]
    for {set i 1} {$i < $fw(seed)} {incr i} { $lossrng next-substream }
    set lossvar [new RandomVariable/Uniform]
    $lossvar use-rng $lossrng
    $em ranvar $lossvar
    $em drop-target [new Agent/Null]
    $ns link-lossmodel $em $r1 $r2
}
fw_monitor_link "r1->r2" $r1 $r2

for {set i 0} {$i < $ntfrc} {incr i} {
    fw_tfrc_flow "tfrc$i" $s($i) $k($i) 1000 [expr {$stagger * $i}] ftp
}
for {set j 0} {$j < $ntcp} {incr j} {
    set i [expr {$ntfrc + $j}]
    fw_tcp_flow "tcp$j" Agent/TCP/Newreno Agent/TCPSink $s($i) $k($i) 64 1000 [expr {$stagger / 2.0 + $stagger * $j}]
}

fw_run
