# validation/lib.tcl: shared procedures for fairway's ns-2 twins.
#
# A twin does:
#   source [file join [file dirname [info script]] lib.tcl]
#   fw_init <scenario-name> <duration_s>       ;# parses argv, seeds the RNG, makes $ns
#   ... build nodes and links with fw_duplex ...
#   fw_monitor_link "r1->r2" $r1 $r2           ;# whole-run queue monitor on one direction
#   fw_tcp_flow / fw_cbr_flow ...              ;# registers flows for the result file
#   fw_run                                     ;# schedules fw_finish at duration_s and runs
#
# Interface: ns <twin>.tcl <out.json> [seed]   (seed defaults to 1, must be >= 1)
# Debug knobs (environment, all optional; none is set in normal runs):
#   FAIRWAY_NS2_TRACE=<file>        write an ns-2 trace of every link (`$ns trace-all`);
#                                   big for dumbbell-mid (hundreds of MB)
#   FAIRWAY_NS2_NO_EDROP_SNOOP=1    do not install the early-drop snoop on RED links
#                                   (used to check that it changes nothing)

set fw(schema) "fairway.ns2/1"

proc fw_usage {msg} {
    puts stderr "error: $msg"
    puts stderr "usage: ns <twin>.tcl <out.json> \[seed\]   (seed: integer >= 1, default 1)"
    exit 2
}

# Parse argv, seed ns-2's default RNG, create the Simulator.
proc fw_init {scenario duration} {
    global argv fw ns defaultRNG env
    set fw(t0_ms) [clock clicks -milliseconds]
    if {[llength $argv] < 1 || [llength $argv] > 2} {
        fw_usage "expected 1 or 2 arguments, got [llength $argv]"
    }
    set fw(out) [lindex $argv 0]
    set fw(seed) 1
    if {[llength $argv] == 2} {
        set fw(seed) [lindex $argv 1]
    }
    if {![string is integer -strict $fw(seed)] || $fw(seed) < 1} {
        # ns-2 treats seed 0 as "seed from the clock": never allowed here.
        fw_usage "seed must be an integer >= 1, got '$fw(seed)'"
    }
    set fw(scenario) $scenario
    set fw(duration) $duration
    set fw(flows) {}
    set fw(links) {}

    # Every random draw in these twins comes from the default RNG: RED's
    # early-drop coin and each TCP agent's boot_time_ (the phase of its
    # tcpTick_ RTT clock, drawn in TcpAgent::reset). This seed fixes them all.
    $defaultRNG seed $fw(seed)

    set ns [new Simulator]
    set fw(tracefile) ""
    if {[info exists env(FAIRWAY_NS2_TRACE)] && $env(FAIRWAY_NS2_TRACE) != ""} {
        set fw(tracefile) [open $env(FAIRWAY_NS2_TRACE) w]
        $ns trace-all $fw(tracefile)
    }
    return $ns
}

# A duplex link, with an optional queue limit (packets; see README for
# RED's queue_in_bytes_ quirk) applied to both directions.
proc fw_duplex {a b bw delay qtype {limit ""}} {
    global ns
    $ns duplex-link $a $b $bw $delay $qtype
    if {$limit != ""} {
        $ns queue-limit $a $b $limit
        $ns queue-limit $b $a $limit
    }
}

# Whole-run queue monitor on the simplex link from -> to.
# arrivals/departures/drops come from `$ns monitor-queue` (QueueMonitor fed by
# SnoopQueue/In, /Out, /Drop). On a RED queue an extra SnoopQueue/EDrop with its
# own QueueMonitor/ED is put in as the queue's early-drop target and then hands
# the packet on to the link's drophead_, so early drops still pass the main
# monitor's drop snoop (and the trace, if any): they are counted once in
# drops_pkts and also in early_drops_pkts.
proc fw_monitor_link {name from to} {
    global ns fw env
    set qm [$ns monitor-queue $from $to 0]
    set link [$ns link $from $to]
    set q [$link queue]
    set edqm ""
    set is_red [expr {[string first "RED" [$q info class]] >= 0}]
    if {$is_red && !([info exists env(FAIRWAY_NS2_NO_EDROP_SNOOP)] && $env(FAIRWAY_NS2_NO_EDROP_SNOOP) != "" && $env(FAIRWAY_NS2_NO_EDROP_SNOOP) != "0")} {
        set edqm [new QueueMonitor/ED]
        set eds [new SnoopQueue/EDrop]
        $eds set-monitor $edqm
        $eds target [$link set drophead_]
        $q early-drop-target $eds
    }
    lappend fw(links) [list $name $qm $edqm $is_red [$q info class]]
}

# TCP flow: agent class, sink class, src/dst nodes. Returns the FTP app.
# window_ and packetSize_ are set on the agent; packetSize_ is remembered for
# the packet count (see fw_tcp_pkts).
proc fw_tcp_flow {name tcpclass sinkclass src dst window psize start} {
    return [fw_tcp_agent $name [new $tcpclass] $sinkclass $src $dst $window $psize $start]
}

# The same with an agent the caller made (and may have scheduled events on).
proc fw_tcp_agent {name tcp sinkclass src dst window psize start} {
    global ns fw
    set tcpclass [$tcp info class]
    $tcp set window_ $window
    $tcp set packetSize_ $psize
    set sink [new $sinkclass]
    $ns attach-agent $src $tcp
    $ns attach-agent $dst $sink
    set fw(node_of,$name) $src
    $ns connect $tcp $sink
    set ftp [new Application/FTP]
    $ftp attach-agent $tcp
    $ns at $start "$ftp start"
    lappend fw(flows) [list tcp $name $tcp $sink $psize $tcpclass $sinkclass]
    return $ftp
}

# UDP flow with a CBR source and a LossMonitor sink. `how` is either
# {interval <s>} or {rate <bw>}; packetSize_ is always set first, because
# Application/Traffic/CBR's `set interval_` computes rate_ from the
# packetSize_ it sees at that moment.
proc fw_cbr_flow {name src dst psize how value start} {
    global ns fw
    set udp [new Agent/UDP]
    set lm [new Agent/LossMonitor]
    $ns attach-agent $src $udp
    $ns attach-agent $dst $lm
    $ns connect $udp $lm
    set cbr [new Application/Traffic/CBR]
    $cbr set packetSize_ $psize
    $cbr set random_ 0
    switch -- $how {
        interval { $cbr set interval_ $value }
        rate     { $cbr set rate_ $value }
        default  { error "fw_cbr_flow: unknown '$how'" }
    }
    $cbr attach-agent $udp
    $ns at $start "$cbr start"
    lappend fw(flows) [list udp $name $udp $lm $psize $cbr]
    return $cbr
}

# TFRC flow: Agent/TFRC -> Agent/TFRCSink at ns-2's defaults, packetSize_ psize. `app` is ftp
# (SndrType_ 0, the default infinite sender, started by an FTP) or {cbr <rate>} (SndrType_ 1: the
# agent sends what a CBR of packetSize_ psize at <rate> hands it, no faster than allowed).
# TFRCSink's bytes_ counts what arrives on the wire (packetSize_ + headersize_ 32 per packet).
proc fw_tfrc_flow {name src dst psize start app} {
    global ns fw
    set tfrc [new Agent/TFRC]
    set sink [new Agent/TFRCSink]
    $tfrc set packetSize_ $psize
    $ns attach-agent $src $tfrc
    $ns attach-agent $dst $sink
    $ns connect $tfrc $sink
    switch -- [lindex $app 0] {
        ftp {
            set a [new Application/FTP]
            $a attach-agent $tfrc
            $ns at $start "$a start"
        }
        cbr {
            $tfrc set SndrType_ 1
            set a [new Application/Traffic/CBR]
            $a set packetSize_ $psize
            $a set random_ 0
            $a set rate_ [lindex $app 1]
            $a attach-agent $tfrc
            $ns at $start "$a start"
        }
        default { error "fw_tfrc_flow: unknown app '$app'" }
    }
    lappend fw(flows) [list tfrc $name $tfrc $sink $psize]
    return $tfrc
}

# DCCP flow with CCID2: Agent/DCCP/TCPlike -> Agent/DCCP/TCPlike (the sink must listen, or
# it drops the Request without a word), packetSize_ psize, an FTP (infinite send) started at
# `start`; `ecn` 0 or 1 sets use_ecn_local_ and use_ecn_remote_ on both ends (TCPlike's default
# is 1). The sink's application counts the payload bytes delivered (DCCPAgent::recv hands each
# packet's payload to it).
Class Application/FwCount -superclass Application
Application/FwCount instproc init {} {
    $self next
    $self set total_ 0
}
Application/FwCount instproc recv {nbytes} {
    $self instvar total_
    incr total_ $nbytes
}

proc fw_dccp_flow {name src dst psize start ecn {agent TCPlike} {stop ""}} {
    global ns fw
    set dccp [new Agent/DCCP/$agent]
    set sink [new Agent/DCCP/$agent]
    foreach a [list $dccp $sink] {
        $a set packetSize_ $psize
        $a set use_ecn_local_ $ecn
        $a set use_ecn_remote_ $ecn
    }
    $ns attach-agent $src $dccp
    $ns attach-agent $dst $sink
    $ns connect $dccp $sink
    $ns at 0.0 "$sink listen"
    set ftp [new Application/FTP]
    $ftp attach-agent $dccp
    set cnt [new Application/FwCount]
    $cnt attach-agent $sink
    # `start` lets the sink call the counter's recv.
    $ns at 0.0 "$cnt start"
    $ns at $start "$ftp start"
    if {$stop != ""} {
        $ns at $stop "$ftp stop"
    }
    lappend fw(flows) [list dccp $name $dccp $cnt $psize [expr {$agent == "TFRC" ? "ccid3" : "ccid2"}]]
    return $dccp
}

# In-order packets delivered by a TCPSink, from its bytes_.
# ns-2.35's one-way TCP (syn_ true, the default) sends seqno 0 as a 40-byte
# "SYN" (tcpip_base_hdr_size_, no payload); every later segment is
# packetSize_ + 40 bytes on the wire. TCPSink::recv adds hdr_cmn size of each
# in-order packet to bytes_, so bytes_ = 40 + n_data * (psize + 40).
proc fw_tcp_pkts {bytes psize syn hdr} {
    if {$bytes <= 0} { return [list 0 0 1] }
    set seg [expr {$psize + $hdr}]
    set rest $bytes
    set n 0
    if {$syn} {
        set rest [expr {$bytes - $hdr}]
        set n 1
    }
    set ok [expr {$rest >= 0 && ($rest % $seg) == 0}]
    set n [expr {$n + $rest / $seg}]
    return [list $n [expr {$n - ($syn ? 1 : 0)}] $ok]
}

proc fw_jstr {s} {
    return "\"[string map {\\ \\\\ \" \\\"} $s]\""
}

# A float that always prints with a decimal point (50 -> 50.0).
proc fw_jfloat {x} {
    set s [format %.6f $x]
    set s [string trimright $s 0]
    if {[string index $s end] == "."} { append s 0 }
    return $s
}

proc fw_finish {} {
    global ns fw
    set wall [expr {([clock clicks -milliseconds] - $fw(t0_ms)) / 1000.0}]
    set now [$ns now]
    set flows {}
    set warnings {}
    foreach f $fw(flows) {
        set kind [lindex $f 0]
        set name [lindex $f 1]
        if {$kind == "tcp"} {
            foreach {kind name tcp sink psize tcpclass sinkclass} $f break
            set bytes [$sink set bytes_]
            set syn [$tcp set syn_]
            set hdr [$tcp set tcpip_base_hdr_size_]
            foreach {npk ndata ok} [fw_tcp_pkts $bytes $psize $syn $hdr] break
            if {!$ok} {
                lappend warnings "flow $name: bytes_ $bytes is not 40 + n*[expr {$psize + $hdr}]"
                puts stderr "warning: flow $name: TCPSink bytes_ $bytes does not split into whole packets"
            }
            set j "{\"name\": [fw_jstr $name], \"class\": \"tcp\", \"recv_bytes\": $bytes, \"recv_pkts\": $npk"
            append j ", \"recv_data_pkts\": $ndata, \"recv_payload_bytes\": [expr {$ndata * $psize}]"
            append j ", \"agent\": [fw_jstr $tcpclass], \"sink\": [fw_jstr $sinkclass]"
            append j ", \"packet_size\": $psize, \"hdr_bytes\": $hdr, \"syn\": [expr {$syn ? "true" : "false"}]"
            append j ", \"sent_pkts\": [$tcp set ndatapack_], \"retx_pkts\": [$tcp set nrexmitpack_]"
            append j ", \"highest_ack\": [$tcp set ack_], \"cwnd_end\": [fw_jfloat [$tcp set cwnd_]]}"
        } elseif {$kind == "tfrc"} {
            foreach {kind name tfrc sink psize} $f break
            # Every data packet is packetSize_ + headersize_ on the wire (useHeaders_, the default).
            set wire [expr {$psize + [$tfrc set headersize_]}]
            set rbytes [$sink set bytes_]
            set j "{\"name\": [fw_jstr $name], \"class\": \"udp\", \"transport\": \"tfrc\""
            append j ", \"recv_bytes\": $rbytes, \"recv_pkts\": [expr {$rbytes / $wire}], \"packet_size\": $psize"
            append j ", \"sent_pkts\": [$tfrc set ndatapack_], \"rate_end_Bps\": [fw_jfloat [$tfrc set rate_]]}"
        } elseif {$kind == "dccp"} {
            foreach {kind name dccp cnt psize ccid} $f break
            # Every packet carries psize bytes; on the wire a Data packet adds 32 (20 of IP and
            # the 12-byte short-sequence header), a DataAck a few more (about 1 in 20 packets).
            set payload [$cnt set total_]
            set npk [expr {$payload / $psize}]
            set j "{\"name\": [fw_jstr $name], \"class\": \"udp\", \"transport\": \"$ccid\""
            append j ", \"recv_bytes\": [expr {$npk * ($psize + 32)}], \"recv_pkts\": $npk"
            append j ", \"recv_payload_bytes\": $payload, \"packet_size\": $psize"
            append j ", \"sent_data_pkts\": [$dccp set num_data_pkt_], \"sent_dataack_pkts\": [$dccp set num_dataack_pkt_]"
            if {$ccid == "ccid2"} {
                set tail ", \"cwnd_end\": [$dccp set cwnd_]"
            } else {
                set tail ", \"rate_end_Bps\": [fw_jfloat [$dccp set s_x_]], \"p_end\": [fw_jfloat [$dccp set s_p_]]"
            }
            append j "$tail}"
        } else {
            foreach {kind name udp lm psize cbr} $f break
            set j "{\"name\": [fw_jstr $name], \"class\": \"udp\", \"recv_bytes\": [$lm set bytes_], \"recv_pkts\": [$lm set npkts_]"
            append j ", \"lost_pkts_seen\": [$lm set nlost_], \"packet_size\": $psize"
            append j ", \"cbr_rate_bps\": [fw_jfloat [$cbr set rate_]]}"
        }
        lappend flows $j
    }
    set links {}
    foreach l $fw(links) {
        foreach {name qm edqm is_red qclass} $l break
        set j "{\"name\": [fw_jstr $name], \"queue\": [fw_jstr $qclass]"
        append j ", \"arrivals_pkts\": [$qm set parrivals_], \"departures_pkts\": [$qm set pdepartures_]"
        append j ", \"drops_pkts\": [$qm set pdrops_]"
        if {$edqm != ""} {
            append j ", \"early_drops_pkts\": [$edqm set epdrops_]"
        } elseif {!$is_red} {
            append j ", \"early_drops_pkts\": 0"
        }
        append j ", \"arrivals_bytes\": [$qm set barrivals_], \"departures_bytes\": [$qm set bdepartures_]"
        append j ", \"drops_bytes\": [$qm set bdrops_]"
        if {$edqm != ""} {
            append j ", \"early_drops_bytes\": [$edqm set ebdrops_]"
        }
        append j ", \"queued_pkts_end\": [$qm set pkts_], \"queued_bytes_end\": [$qm set size_]}"
        lappend links $j
    }
    set out "{\"schema\": [fw_jstr $fw(schema)], \"scenario\": [fw_jstr $fw(scenario)], \"seed\": $fw(seed)"
    append out ", \"duration_s\": [fw_jfloat $fw(duration)], \"ns_version\": [fw_jstr [ns-version]]"
    append out ", \"sim_time_end_s\": [fw_jfloat $now], \"wall_s\": [fw_jfloat $wall],\n"
    append out " \"flows\": \[\n  [join $flows ",\n  "]\n ],\n"
    append out " \"links\": \[\n  [join $links ",\n  "]\n ]"
    if {[llength $warnings] > 0} {
        set ws {}
        foreach w $warnings { lappend ws [fw_jstr $w] }
        append out ",\n \"warnings\": \[[join $ws ", "]\]"
    }
    append out "}\n"
    set fh [open $fw(out) w]
    puts -nonewline $fh $out
    close $fh
    if {$fw(tracefile) != ""} {
        $ns flush-trace
        close $fw(tracefile)
    }
    exit 0
}

# Schedule the end of the run and start the simulator. fw_finish is the
# last setup-time event; it reads every counter at t = duration and exits.
proc fw_run {} {
    global ns fw env
    if {[info exists env(FAIRWAY_NS2_BOOT_TIMES)] && $env(FAIRWAY_NS2_BOOT_TIMES) != ""} {
        fw_boot_times
        return
    }
    $ns at $fw(duration) "fw_finish"
    $ns run
}

Simulator instproc fw_node_order {} {
    $self instvar Node_
    return [array names Node_]
}

# Each TCP agent's boot_time_, the phase of its tcpTick_ RTT clock, which
# ns-2 draws from the default RNG in TcpAgent::reset: once when the agent is
# made (in the order the agents are made) and again when `$ns run` resets the
# agents node by node, in the order Tcl's `array names` lists the
# Simulator's Node_ array; the last draw holds, and boot_time_ is not
# readable from Tcl. With FAIRWAY_NS2_BOOT_TIMES set, fw_run writes those
# draws, from an RNG seeded as fw_init seeds the default one, to the output
# file instead of running: {"boot_times": {"<flow>": <seconds>, ...}}, for
# fairway's `tick_phase` (docs/semantics.md, "Phase effects"). Only for twins
# whose only draws are their TCP agents' (no RED, no random starts), with one
# TCP agent per node.
proc fw_boot_times {} {
    global ns fw
    set rng [new RNG]
    $rng seed $fw(seed)
    set tcps {}
    foreach f $fw(flows) {
        if {[lindex $f 0] == "tcp"} {
            lappend tcps [lindex $f 1]
            set agent([lindex $f 1]) [lindex $f 2]
        }
    }
    foreach name $tcps {
        $rng uniform 0 [$agent($name) set tcpTick_]
    }
    set seen {}
    foreach id [$ns fw_node_order] {
        foreach name $tcps {
            if {[$fw(node_of,$name) id] != $id} { continue }
            if {[lsearch $seen $id] >= 0} {
                fw_usage "fw_boot_times: two TCP agents on node $id; their reset order is not derived"
            }
            lappend seen $id
            set bt($name) [$rng uniform 0 [$agent($name) set tcpTick_]]
        }
    }
    set items {}
    foreach name $tcps {
        lappend items "\"$name\": $bt($name)"
    }
    set out [open $fw(out) w]
    puts $out "{\"boot_times\": {[join $items {, }]}}"
    close $out
}
