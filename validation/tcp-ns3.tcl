# tcp-ns3.tcl: ns-2 twin of fairway's tcp-ns3-newreno-droptail-{2,4,8} dumbbells
# (scenarios/validation/), a second referee beside ns-3's validation/ns3/tcp.cc.
#
#   s_i -- r1 ==== DropTail ==== r2 -- d_i
#   r1 -> r2: 10 Mb/s, 5 ms, queue-limit 72 (71 wait, one on the wire: fairway's limit 72,
#             ns-3's 70-packet FifoQueueDisc and 1-packet device queue)
#   s_i -- r1: 1 Gb/s, the delay that gives flow i its base round trip (<rtt_min> .. 100 ms,
#             spread evenly over the flows: 20 for 2 flows, 22 for 4, 23 for 8)
#   r2 -- d_i: 1 Gb/s, 1 ms; access queues 100 000 packets
#
#   "tcp<i>" s_i -> d_i: Agent/TCP/Sack1 with Agent/TCPSink/Sack1/DelAck (an ACK for every
#   second packet or after interval_ 200 ms) or, with `newreno`, Agent/TCP/Newreno with
#   Agent/TCPSink/DelAck; window_ 4000, windowInit_ 10, packetSize_ 1000, timestamps_ true
#   (an RTT sample from every ACK), minrto_ 1 s, tcpTick_ 1 ms; every data packet is
#   packetSize_ + <hdr> bytes on the wire, every ACK <hdr> bytes. An FTP starts each flow at
#   a time uniform in [0, 1 s) from ns-2's default RNG (seeded with <seed>); run 30 s.
#
# Usage: ns tcp-ns3.tcl <out.json> [seed [n_tcp [rtt_min [hdr [sack|newreno]]]]]
#        (defaults: 1, 2, 20 ms, 52 (fairway's options = "ns3": 40 + 12 of timestamps), sack;
#        54 is ns-3's frame, with PPP's 2 bytes)
#
# Writes each flow's goodput from 5 s (payload of the in-order packets its sink counts),
# its start, packets sent and resent, and for r1->r2 the drops from 5 s and the mean wait
# from 5 s, by Little's law: the queue monitor's packets-in-queue integral over [5, 30 s]
# divided by the packets that left the queue then (the wait before serialisation, as fairway's
# mean_sojourn_s).

source [file join [file dirname [info script]] lib.tcl]

proc usage {msg} {
    puts stderr "error: $msg"
    puts stderr "usage: ns tcp-ns3.tcl <out.json> \[seed \[n_tcp \[rtt_min \[hdr \[sack|newreno\]\]\]\]\]"
    exit 2
}

if {[llength $argv] < 1 || [llength $argv] > 6} { usage "expected 1 to 6 arguments" }
set out [lindex $argv 0]
set seed [expr {[llength $argv] > 1 ? [lindex $argv 1] : 1}]
set n [expr {[llength $argv] > 2 ? [lindex $argv 2] : 2}]
set rttmin [expr {[llength $argv] > 3 ? [lindex $argv 3] : 20}]
set hdr [expr {[llength $argv] > 4 ? [lindex $argv 4] : 52}]
set kind [expr {[llength $argv] > 5 ? [lindex $argv 5] : "sack"}]
foreach {what v min} [list seed $seed 1 n_tcp $n 1 rtt_min $rttmin 14 hdr $hdr 20] {
    if {![string is integer -strict $v] || $v < $min} { usage "$what must be an integer >= $min, got '$v'" }
}
switch -- $kind {
    sack    { set tcpclass Agent/TCP/Sack1;   set sinkclass Agent/TCPSink/Sack1/DelAck }
    newreno { set tcpclass Agent/TCP/Newreno; set sinkclass Agent/TCPSink/DelAck }
    default { usage "the sixth argument must be sack or newreno, got '$kind'" }
}

set duration 30.0
set from 5.0
set psize 1000
set t0 [clock clicks -milliseconds]
$defaultRNG seed $seed
set ns [new Simulator]

set r1 [$ns node]
set r2 [$ns node]
fw_duplex $r1 $r2 10Mb 5ms DropTail 72
set qm [$ns monitor-queue $r1 $r2 0]
for {set i 0} {$i < $n} {incr i} {
    set rtt($i) [expr {$n == 1 ? double($rttmin) : $rttmin + (100.0 - $rttmin) * $i / ($n - 1)}]
    set s($i) [$ns node]
    set d($i) [$ns node]
    fw_duplex $s($i) $r1 1Gb [expr {$rtt($i) / 2 - 6.0}]ms DropTail 100000
    fw_duplex $r2 $d($i) 1Gb 1ms DropTail 100000
}

set u [new RandomVariable/Uniform]
$u set min_ 0.0
$u set max_ 1.0
for {set i 0} {$i < $n} {incr i} {
    set tcp($i) [new $tcpclass]
    foreach {k v} [list window_ 4000 windowInit_ 10 packetSize_ $psize timestamps_ true \
                       minrto_ 1.0 tcpTick_ 0.001 tcpip_base_hdr_size_ $hdr] {
        $tcp($i) set $k $v
    }
    set sink($i) [new $sinkclass]
    $sink($i) set interval_ 0.2
    $sink($i) set packetSize_ $hdr
    $ns attach-agent $s($i) $tcp($i)
    $ns attach-agent $d($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    set start($i) [$u value]
    $ns at $start($i) "$ftp($i) start"
}

proc snapshot {} {
    global n sink at5 qm q5 dep5 drop5
    for {set i 0} {$i < $n} {incr i} { set at5($i) [$sink($i) set bytes_] }
    set q5 [[$qm get-pkts-integrator] set sum_]
    set dep5 [$qm set pdepartures_]
    set drop5 [$qm set pdrops_]
}

proc finish {} {
    global n sink at5 qm q5 dep5 drop5 tcp start rtt psize hdr out duration from seed t0 tcpclass sinkclass
    set window [expr {$duration - $from}]
    set flows {}
    for {set i 0} {$i < $n} {incr i} {
        # bytes_ adds each in-order packet's size (psize + hdr).
        set pk [expr {([$sink($i) set bytes_] - $at5($i)) / ($psize + $hdr)}]
        set j "{\"name\": \"tcp$i\", \"base_rtt_s\": [fw_jfloat [expr {$rtt($i) / 1000.0}]]"
        append j ", \"start_s\": [fw_jfloat $start($i)]"
        append j ", \"goodput_bps\": [fw_jfloat [expr {$pk * $psize * 8.0 / $window}]]"
        append j ", \"sent_pkts\": [$tcp($i) set ndatapack_], \"retx_pkts\": [$tcp($i) set nrexmitpack_]}"
        lappend flows $j
    }
    set area [expr {[[$qm get-pkts-integrator] set sum_] - $q5}]
    set deps [expr {[$qm set pdepartures_] - $dep5}]
    set wait [expr {$deps > 0 ? $area / $deps : 0.0}]
    set wall [expr {([clock clicks -milliseconds] - $t0) / 1000.0}]
    set js "{\"schema\": \"fairway.ns2-tcp-ns3/1\", \"seed\": $seed, \"agent\": [fw_jstr $tcpclass]"
    append js ", \"sink\": [fw_jstr $sinkclass], \"hdr_bytes\": $hdr, \"ns_version\": [fw_jstr [ns-version]]"
    append js ", \"wall_s\": [fw_jfloat $wall],\n \"flows\": \[\n  [join $flows ",\n  "]\n \],\n"
    append js " \"links\": \[{\"name\": \"r1->r2\", \"drops_measured_pkts\": [expr {[$qm set pdrops_] - $drop5}]"
    append js ", \"mean_sojourn_s\": [format %.6f $wait]}\]}\n"
    set fh [open $out w]
    puts -nonewline $fh $js
    close $fh
    exit 0
}

$ns at $from "snapshot"
$ns at $duration "finish"
$ns run
