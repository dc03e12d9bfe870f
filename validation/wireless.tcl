# wireless.tcl: generic ns-2 twin for fairway's wireless (802.11 ad hoc) validation scenarios.
#
#   nodes n0, n1, ... at the given positions (metres, z = 0) on a flat grid, static or moved by an
#   ns-2 movement file; every node has
#   ns-2.35's standard wireless stack at its defaults:
#     Channel/WirelessChannel, Propagation/TwoRayGround, Phy/WirelessPhy (Pt_ 0.28183815,
#     freq_ 914e6, RXThresh_ 3.652e-10 (250 m), CSThresh_ 1.559e-11 (550 m)), Mac/802_11
#     (dataRate_ = basicRate_ = 1Mb; only RTSThreshold_ set, from <rts_threshold>), LL,
#     Queue/DropTail/PriQueue (ifqLen 50), Antenna/OmniAntenna, -adhocRouting <routing>
#   routing: DumbAgent (one hop only, no routing) or AODV
#   flows (';'-separated):
#     name:cbr:from:to:rate_bps:size_bytes:start_s:stop_s
#         Agent/UDP (packetSize_ = size, so no fragmentation) + Application/Traffic/CBR
#         (packetSize_ = size, rate_ = rate, random_ 0) -> Agent/Null
#     name:tcp:from:to:window:size_bytes:start_s:stop_s
#         Agent/TCP/Newreno (window_, packetSize_ = size) -> Agent/TCPSink, Application/FTP
#     name:tfrc:from:to:rate_bps:size_bytes:start_s:stop_s
#         Agent/TFRC (ns-2 defaults, packetSize_ = size) -> Agent/TFRCSink. rate_bps 0: the greedy
#         sender (SndrType_ 0, Application/FTP); rate_bps > 0: SndrType_ 1 and an
#         Application/Traffic/CBR (packetSize_ = size, rate_, random_ 0) feeding the agent. At
#         stop_s the agent is stopped ($tfrc stop; the CBR too): FTP's stop (advance 0) is not a
#         TFRC command. Data packets are "tcpFriend" in the trace (size + headersize_ 32 at AGT),
#         the sink's feedback "tcpFriendCtl" (40 bytes).
#   from/to are node indices. Every counter in the JSON comes from the wireless trace (old CMU
#   format; agentTrace, routerTrace and macTrace ON, movementTrace OFF), parsed at the end.
#
# Usage: ns wireless.tcl <out.json> <seed> <duration_s> <DumbAgent|AODV> <rts_threshold>
#            <positions> <flows> [<options>]
# e.g.   ns wireless.tcl out.json 1 21 DumbAgent 3000 "0,0;200,0" "cbr0:cbr:0:1:2000000:1000:1:21"
#        ns wireless.tcl out.json 1 100 AODV 0 - "tf:tfrc:0:9:0:1000:1:100" "area=1000x1000;moves=m.tcl"
#
# <options>: ';'-separated key=value, or - (or absent) for none:
#   area=WxH    the flat grid (integer metres; ns-2's load_flatgrid takes integers). Positions are
#               used as given and must lie inside it. Without it: with no movement file, as before
#               (coordinates shifted so the smallest is 100 m when any is below, the grid 100 m past
#               the largest); with one, no shift and the grid 100 m past the largest x / y found in
#               the positions and the file (initial positions and destinations).
#   moves=PATH  an ns-2 movement file in CMU setdest format ($node_(i) set X_/Y_/Z_ v,
#               $ns_ at T "$node_(i) setdest X Y S", # comments, $god_ lines optional), sourced once
#               the nodes exist (node_, ns_ and god_ are defined for it). <positions> may then be -:
#               the node count is the largest $node_(i) index + 1, and every node needs its X_ and
#               Y_ in the file. If positions are given too, the file's X_/Y_ win. A relative
#               PATH not found from the current directory is looked up from the repository root.
#               Every setdest must lie strictly inside the grid (ns-2 rejects one on or past the
#               edge with a Tcl error that ends the run): checked before the run.
#
# The trace goes to a temporary file that is deleted at the end, or to $FAIRWAY_NS2_TRACE (kept).
#
# JSON ("fairway.ns2/1", scenario "wireless"):
#   area: [W, H], the flat grid ns-2 used; moves: the movement file or null
#   flows: name, class ("udp" for cbr, "tcp", "tfrc"), recv_pkts / recv_bytes (cbr: distinct packets
#     received by the sink agent (AGT r at the destination) x size; tcp: distinct data seqnos
#     received by the sink (the 40-byte SYN left out) x size), sent_pkts (AGT s at the source,
#     the SYN and retransmissions included for tcp), mean_delay_s (AGT s -> first AGT r of the
#     same uid; null if nothing arrived); tcp adds retx_pkts (AGT s of a seqno already sent),
#     acks_sent / acks_recv (AGT s at the sink / AGT r at the source), recv_inorder_pkts (data
#     packets the TCPSink has in order at the end, from its bytes_) and cwnd_end; tfrc counts
#     like cbr (tcpFriend packets; recv_bytes = recv_pkts x size, the 32-byte header left out)
#     and adds feedback_sent / feedback_recv (tcpFriendCtl: AGT s at the sink / AGT r at the
#     source) and rate_end_bps (the agent's rate_ at the end, x 8)
#   nodes: x, y are the positions at the start (after the movement file, if any);
#     per node, MAC transmissions (every attempt, retries included): mac_data_sent (frames
#     other than RTS/CTS/ACK: cbr, tcp, ack, AODV, ARP ...; mac_data_sent_by_type splits them),
#     mac_data_bytes_sent (their trace sizes: the packet + 58, i.e. 24 standing for the PHY
#     preamble and PLCP header at 1 Mb/s, 30 of MAC header, 4 of FCS), rts_sent, cts_sent, acks_sent
#     (MAC-level ACK frames), mac_data_recv (data frames the MAC passed up; broadcasts included),
#     mac_ctrl_recv (RTS/CTS/ACK received), and drops by trace layer and reason:
#     {"MAC": {"COL": 3, "RET": 1}, "IFQ": {"---": 12, "ARP": 1}, "RTR": {"CBK": 2}, ...}
#     (an IFQ drop with reason "---" is the interface queue overflowing: Queue::drop gives none)
#   routing: protocol, pkts and bytes of AODV packets sent or forwarded at RTR (s/f lines; bytes
#     at RTR size, IP header included), by AODV type; 0 for DumbAgent
#   links: [] (kept for the common schema)

source [file join [file dirname [info script]] lib.tcl]

set fw(t0_ms) [clock clicks -milliseconds]

proc wl_usage {msg} {
    puts stderr "error: $msg"
    puts stderr "usage: ns wireless.tcl <out.json> <seed> <duration_s> <DumbAgent|AODV> <rts_threshold> <positions x,y;x,y;...|-> <flows> \[<options key=value;...|->\]"
    puts stderr "   flow: name:cbr:from:to:rate_bps:size_bytes:start_s:stop_s, name:tcp:from:to:window:size_bytes:start_s:stop_s"
    puts stderr "         or name:tfrc:from:to:rate_bps:size_bytes:start_s:stop_s (rate_bps 0: greedy TFRC with FTP)"
    puts stderr "   options: area=WxH (integer metres), moves=PATH (ns-2 setdest movement file; positions may then be -)"
    puts stderr "   e.g. ns wireless.tcl out.json 1 21 DumbAgent 3000 \"0,0;200,0\" \"cbr0:cbr:0:1:2000000:1000:1:21\""
    exit 2
}

proc wl_is_num {x} {
    return [string is double -strict $x]
}

# ---- arguments ----

if {[llength $argv] != 7 && [llength $argv] != 8} {
    wl_usage "expected 7 or 8 arguments, got [llength $argv]"
}
foreach {wl(out) wl(seed) wl(dur) wl(routing) wl(rts) wl(posspec) wl(flowspec) wl(optspec)} $argv break
if {[llength $argv] == 7} {
    set wl(optspec) "-"
}

if {![string is integer -strict $wl(seed)] || $wl(seed) < 1} {
    # ns-2 treats seed 0 as "seed from the clock": never allowed here.
    wl_usage "seed must be an integer >= 1, got '$wl(seed)'"
}
if {![wl_is_num $wl(dur)] || $wl(dur) <= 0} {
    wl_usage "duration_s must be a number > 0, got '$wl(dur)'"
}
if {$wl(routing) != "DumbAgent" && $wl(routing) != "AODV"} {
    wl_usage "routing must be DumbAgent or AODV, got '$wl(routing)'"
}
if {![string is integer -strict $wl(rts)] || $wl(rts) < 0} {
    wl_usage "rts_threshold must be an integer >= 0 (bytes), got '$wl(rts)'"
}

# Options: area=WxH, moves=PATH, trace=off.
set wl(area) ""
set wl(moves) ""
set wl(traced) 1
if {[string trim $wl(optspec)] != "-"} {
    set seen {}
    foreach o [split $wl(optspec) ";"] {
        set o [string trim $o]
        if {$o == ""} continue
        set eq [string first "=" $o]
        if {$eq < 1} {
            wl_usage "bad option '$o' (want key=value)"
        }
        set key [string range $o 0 [expr {$eq - 1}]]
        set val [string range $o [expr {$eq + 1}] end]
        if {[lsearch -exact $seen $key] >= 0} {
            wl_usage "option '$key' given twice"
        }
        lappend seen $key
        switch -- $key {
            area {
                if {![regexp {^([0-9]+)x([0-9]+)$} $val -> aw ah] || $aw < 1 || $ah < 1} {
                    wl_usage "area must be WxH in whole metres >= 1, got '$val'"
                }
                set wl(area) [list [scan $aw %d] [scan $ah %d]]
            }
            moves {
                # A relative path not found from the current directory is tried from the
                # repository root (this file's parent's parent), where scenario headers live.
                set wl(movesfile) $val
                if {$val != "" && ![file readable $val] && [file pathtype $val] == "relative"} {
                    set alt [file join [file dirname [file dirname [file normalize [info script]]]] $val]
                    if {[file readable $alt]} {
                        set wl(movesfile) $alt
                    }
                }
                if {$val == "" || ![file readable $wl(movesfile)]} {
                    wl_usage "moves: cannot read movement file '$val'"
                }
                set wl(moves) $val
            }
            trace {
                # trace=off: ns-2's speed alone, for bench/wireless.py. No agent, router or MAC
                # trace (ns-2 still needs trace-all for wireless nodes: it goes to /dev/null),
                # nothing parsed; the JSON gives the wall time and no counts.
                if {$val != "off"} {
                    wl_usage "trace takes only 'off', got '$val'"
                }
                set wl(traced) 0
            }
            default {
                wl_usage "unknown option '$key' (known: area, moves, trace)"
            }
        }
    }
}

# Movement file, read once here to learn the node count and check it: initial positions
# (wl(mx,i), wl(my,i)) and every setdest (checked against the grid below).
set wl(mmax) -1
set wl(setdests) {}
if {$wl(moves) != ""} {
    set fh [open $wl(movesfile) r]
    set lineno 0
    while {[gets $fh line] >= 0} {
        incr lineno
        set line [string trim $line]
        if {$line == "" || [string index $line 0] == "#"} continue
        foreach {- idx} [regexp -all -inline {\$node_\(([0-9]+)\)} $line] {
            if {$idx > $wl(mmax)} { set wl(mmax) $idx }
        }
        if {[regexp {^\$node_\(([0-9]+)\)\s+set\s+([XYZ])_\s+(\S+)$} $line -> idx c v]} {
            if {![wl_is_num $v]} {
                wl_usage "$wl(moves):$lineno: bad coordinate '$v'"
            }
            set idx [scan $idx %d]
            if {$c == "X"} { set wl(mx,$idx) [expr {double($v)}] }
            if {$c == "Y"} { set wl(my,$idx) [expr {double($v)}] }
        } elseif {[regexp {^\$ns_\s+at\s+(\S+)\s+"\$node_\(([0-9]+)\)\s+setdest\s+(\S+)\s+(\S+)\s+(\S+)\s*"$} $line -> t idx x y sp]} {
            foreach v [list $t $x $y $sp] {
                if {![wl_is_num $v]} {
                    wl_usage "$wl(moves):$lineno: bad number '$v' in setdest"
                }
            }
            if {$t < 0 || $sp < 0} {
                wl_usage "$wl(moves):$lineno: negative time or speed"
            }
            lappend wl(setdests) [list $lineno [expr {double($x)}] [expr {double($y)}]]
        } elseif {![regexp {\$god_} $line]} {
            wl_usage "$wl(moves):$lineno: not a setdest movement line: '$line'"
        }
    }
    close $fh
}

set wl(xs) {}
set wl(ys) {}
if {[string trim $wl(posspec)] == "-"} {
    if {$wl(moves) == ""} {
        wl_usage "positions '-' need a movement file (option moves=PATH)"
    }
    set wl(posspec) ""
    for {set i 0} {$i <= $wl(mmax)} {incr i} {
        if {![info exists wl(mx,$i)] || ![info exists wl(my,$i)]} {
            wl_usage "$wl(moves): node $i has no initial X_ and Y_ (and positions are -)"
        }
        lappend wl(xs) $wl(mx,$i)
        lappend wl(ys) $wl(my,$i)
    }
}
foreach p [split $wl(posspec) ";"] {
    set p [string trim $p]
    if {$p == ""} continue
    set xy [split $p ","]
    if {[llength $xy] != 2 || ![wl_is_num [lindex $xy 0]] || ![wl_is_num [lindex $xy 1]]} {
        wl_usage "bad position '$p' (want x,y in metres)"
    }
    lappend wl(xs) [expr {double([lindex $xy 0])}]
    lappend wl(ys) [expr {double([lindex $xy 1])}]
}
set wl(n) [llength $wl(xs)]
if {$wl(n) < 1} {
    wl_usage "no node positions given"
}
if {$wl(mmax) >= $wl(n)} {
    wl_usage "$wl(moves) moves node $wl(mmax), but there are only $wl(n) nodes"
}

# Each flow: {kind name from to param size start stop}
set wl(flows) {}
set names {}
foreach f [split $wl(flowspec) ";"] {
    set f [string trim $f]
    if {$f == ""} continue
    set fs [split $f ":"]
    if {[llength $fs] != 8} {
        wl_usage "bad flow '$f' (want 8 ':'-separated fields)"
    }
    foreach {name kind from to param size start stop} $fs break
    if {$name == "" || [lsearch -exact $names $name] >= 0} {
        wl_usage "flow names must be non-empty and distinct: '$name'"
    }
    lappend names $name
    if {$kind != "cbr" && $kind != "tcp" && $kind != "tfrc"} {
        wl_usage "flow $name: kind must be cbr, tcp or tfrc, got '$kind'"
    }
    foreach v [list $from $to] {
        if {![string is integer -strict $v] || $v < 0 || $v >= $wl(n)} {
            wl_usage "flow $name: node index '$v' out of range 0..[expr {$wl(n) - 1}]"
        }
    }
    if {$from == $to} {
        wl_usage "flow $name: from and to are the same node"
    }
    if {$kind == "cbr"} {
        if {![wl_is_num $param] || $param <= 0} {
            wl_usage "flow $name: rate_bps must be a number > 0, got '$param'"
        }
    } elseif {$kind == "tfrc"} {
        if {![wl_is_num $param] || $param < 0} {
            wl_usage "flow $name: rate_bps must be a number >= 0 (0: greedy), got '$param'"
        }
    } elseif {![string is integer -strict $param] || $param < 1} {
        wl_usage "flow $name: window must be an integer >= 1, got '$param'"
    }
    if {![string is integer -strict $size] || $size < 1} {
        wl_usage "flow $name: size_bytes must be an integer >= 1, got '$size'"
    }
    if {![wl_is_num $start] || ![wl_is_num $stop] || $start < 0 || $stop <= $start} {
        wl_usage "flow $name: need 0 <= start_s < stop_s, got '$start' and '$stop'"
    }
    lappend wl(flows) [list $kind $name $from $to $param $size $start $stop]
}

# ---- trace file ----

if {!$wl(traced)} {
    set wl(keep_trace) 1
    set wl(trace) /dev/null
    set wl(tracefh) [open /dev/null w]
} elseif {[info exists env(FAIRWAY_NS2_TRACE)] && $env(FAIRWAY_NS2_TRACE) != ""} {
    set wl(trace) $env(FAIRWAY_NS2_TRACE)
    set wl(keep_trace) 1
    set wl(tracefh) [open $wl(trace) w]
} else {
    set wl(keep_trace) 0
    set wl(tracefh) [file tempfile wl(trace) fairway-wireless.tr]
}

# ---- simulator and nodes ----

# Every random draw (802.11 backoff, AODV jitter, TCP boot_time_) comes from the default RNG.
$defaultRNG seed $wl(seed)

set ns [new Simulator]
$ns trace-all $wl(tracefh)

# Flat grid: TwoRayGround uses only distances (and antenna heights), so with neither an area nor
# a movement file, coordinates are shifted to make the smallest one 100 m when any is below that;
# the grid reaches 100 m past the largest. With a movement file (whose destinations cannot be
# shifted) or an area, nothing is shifted.
set wl(dx) 0.0
set wl(dy) 0.0
if {$wl(area) != ""} {
    foreach {gridx gridy} $wl(area) break
} elseif {$wl(moves) == ""} {
    set minx [tcl::mathfunc::min {*}$wl(xs)]
    set miny [tcl::mathfunc::min {*}$wl(ys)]
    set wl(dx) [expr {$minx < 100.0 ? 100.0 - $minx : 0.0}]
    set wl(dy) [expr {$miny < 100.0 ? 100.0 - $miny : 0.0}]
    set gridx [expr {[tcl::mathfunc::max {*}$wl(xs)] + $wl(dx) + 100.0}]
    set gridy [expr {[tcl::mathfunc::max {*}$wl(ys)] + $wl(dy) + 100.0}]
} else {
    set allx $wl(xs)
    set ally $wl(ys)
    for {set i 0} {$i <= $wl(mmax)} {incr i} {
        if {[info exists wl(mx,$i)]} { lappend allx $wl(mx,$i) }
        if {[info exists wl(my,$i)]} { lappend ally $wl(my,$i) }
    }
    foreach sd $wl(setdests) {
        lappend allx [lindex $sd 1]
        lappend ally [lindex $sd 2]
    }
    set gridx [expr {[tcl::mathfunc::max {*}$allx] + 100.0}]
    set gridy [expr {[tcl::mathfunc::max {*}$ally] + 100.0}]
}
# load_flatgrid reads its arguments with atoi: the grid is the integer part.
set wl(gridx) [expr {int($gridx)}]
set wl(gridy) [expr {int($gridy)}]
if {$wl(area) != ""} {
    for {set i 0} {$i < $wl(n)} {incr i} {
        set x [lindex $wl(xs) $i]
        set y [lindex $wl(ys) $i]
        if {$x < 0 || $y < 0 || $x > $wl(gridx) || $y > $wl(gridy)} {
            wl_usage "position $x,$y of node $i is outside the area $wl(gridx)x$wl(gridy)"
        }
    }
}
foreach sd $wl(setdests) {
    foreach {lineno x y} $sd break
    if {$x <= 0 || $y <= 0 || $x >= $wl(gridx) || $y >= $wl(gridy)} {
        wl_usage "$wl(moves):$lineno: setdest to $x,$y is not strictly inside the grid $wl(gridx)x$wl(gridy)"
    }
}
set topo [new Topography]
$topo load_flatgrid $gridx $gridy
set god_ [create-god $wl(n)]

Mac/802_11 set RTSThreshold_ $wl(rts)

set chan [new Channel/WirelessChannel]
$ns node-config -adhocRouting $wl(routing) \
    -llType LL \
    -macType Mac/802_11 \
    -ifqType Queue/DropTail/PriQueue \
    -ifqLen 50 \
    -antType Antenna/OmniAntenna \
    -propType Propagation/TwoRayGround \
    -phyType Phy/WirelessPhy \
    -channel $chan \
    -topoInstance $topo \
    -agentTrace [expr {$wl(traced) ? "ON" : "OFF"}] \
    -routerTrace [expr {$wl(traced) ? "ON" : "OFF"}] \
    -macTrace [expr {$wl(traced) ? "ON" : "OFF"}] \
    -movementTrace OFF

for {set i 0} {$i < $wl(n)} {incr i} {
    set node($i) [$ns node]
    $node($i) random-motion 0
    $node($i) set X_ [expr {[lindex $wl(xs) $i] + $wl(dx)}]
    $node($i) set Y_ [expr {[lindex $wl(ys) $i] + $wl(dy)}]
    $node($i) set Z_ 0.0
    if {[$node($i) id] != $i} {
        error "wireless.tcl: node $i got id [$node($i) id]"
    }
}

# The movement file: setdest's names for the simulator, the nodes and God.
if {$wl(moves) != ""} {
    set ns_ $ns
    for {set i 0} {$i < $wl(n)} {incr i} {
        set node_($i) $node($i)
    }
    source $wl(movesfile)
    # Its X_ / Y_ win: report the positions the run starts from.
    set wl(xs) {}
    set wl(ys) {}
    for {set i 0} {$i < $wl(n)} {incr i} {
        lappend wl(xs) [expr {double([$node($i) set X_])}]
        lappend wl(ys) [expr {double([$node($i) set Y_])}]
    }
}

# ---- flows ----

# wl(src,<node>:<port>) -> flow index, for data packets; wl(ack,<node>:<port>) for TCP ACKs.
set k 0
foreach f $wl(flows) {
    foreach {kind name from to param size start stop} $f break
    if {$kind == "tfrc"} {
        set src [new Agent/TFRC]
        $src set packetSize_ $size
        set sink [new Agent/TFRCSink]
        $ns attach-agent $node($from) $src
        $ns attach-agent $node($to) $sink
        $ns connect $src $sink
        if {$param == 0} {
            # Greedy: SndrType_ 0 (the default), FTP's "send -1".
            set app [new Application/FTP]
            $app attach-agent $src
            set stopcmd "$src stop"
        } else {
            $src set SndrType_ 1
            set app [new Application/Traffic/CBR]
            $app set packetSize_ $size
            $app set random_ 0
            $app set rate_ $param
            $app attach-agent $src
            set stopcmd "$app stop; $src stop"
        }
        set wl(ack,$to:[$sink set agent_port_]) $k
        set wl(src,$from:[$src set agent_port_]) $k
        set wl(agents,$k) [list $src $sink]
        $ns at $start "$app start"
        $ns at $stop $stopcmd
        incr k
        continue
    }
    if {$kind == "cbr"} {
        set src [new Agent/UDP]
        $src set packetSize_ $size
        set sink [new Agent/Null]
        $ns attach-agent $node($from) $src
        $ns attach-agent $node($to) $sink
        $ns connect $src $sink
        set app [new Application/Traffic/CBR]
        $app set packetSize_ $size
        $app set random_ 0
        $app set rate_ $param
        $app attach-agent $src
    } else {
        set src [new Agent/TCP/Newreno]
        $src set window_ $param
        $src set packetSize_ $size
        set sink [new Agent/TCPSink]
        $ns attach-agent $node($from) $src
        $ns attach-agent $node($to) $sink
        $ns connect $src $sink
        set app [new Application/FTP]
        $app attach-agent $src
        set wl(ack,$to:[$sink set agent_port_]) $k
    }
    set wl(src,$from:[$src set agent_port_]) $k
    set wl(agents,$k) [list $src $sink]
    $ns at $start "$app start"
    $ns at $stop "$app stop"
    incr k
}

$ns at $wl(dur) "$ns halt"
$ns run

if {!$wl(traced)} {
    close $wl(tracefh)
    set ofh [open $wl(out) w]
    puts $ofh "{\"schema\": \"$fw(schema)\", \"scenario\": \"wireless\", \"seed\": $wl(seed), \"duration_s\": $wl(dur), \"traced\": false, \"wall_s\": [format %.3f [expr {([clock clicks -milliseconds] - $fw(t0_ms)) / 1000.0}]], \"flows\": \[\], \"links\": \[\]}"
    close $ofh
    exit 0
}

# ---- after the run: parse the trace ----

$ns flush-trace
close $wl(tracefh)

# Old CMU wireless trace lines (nodes _i_, layer AGT/RTR/IFQ/MAC, reason "---" or a drop code):
#   s 1.000000000 _0_ AGT  --- 5 cbr 1000 [0 0 0 0] ------- [0:0 1:0 32 0] [5] 0 0
#   s 1.004526000 _0_ MAC  --- 5 cbr 1058 [13a 1 0 800] ------- [0:0 1:0 32 0] [5] 0 0
#   s 1.001818667 _1_ MAC  --- 0 RTS 44 [52e 0 1 0]
#   D 1.332025000 _0_ IFQ  --- 83 cbr 1000 [0 1 0 800] ------- [0:0 1:0 32 0] [83] 0 0
# The IP part is [src:sport dst:dport ttl next_hop]; tcp and ack add [seqno ackno].
# (A proc, so that Tcl compiles the loop with local variables: about 3 us a line.)
proc wl_parse {} {
    global wl fl nd rt
    for {set k 0} {$k < [llength $wl(flows)]} {incr k} {
        foreach v {sent recv retx acks_sent acks_recv delay_sum} { set fl($k,$v) 0 }
        set fl($k,rseq) [dict create]
    }
    for {set i 0} {$i < $wl(n)} {incr i} {
        foreach v {data_sent data_bytes RTS CTS ACK data_recv ctrl_recv} { set nd($i,$v) 0 }
        set nd($i,bytype) [dict create]
        set nd($i,drops) [dict create]
    }
    set rt(pkts) 0
    set rt(bytes) 0
    set rt(bytype) [dict create]
    set lines 0

    set ipre {------- \[(-?\d+):(-?\d+) (-?\d+):(-?\d+) (-?\d+) (-?\d+)\]}
    set tcpre {------- \[-?\d+:-?\d+ -?\d+:-?\d+ -?\d+ -?\d+\] \[(-?\d+) (-?\d+)\]}

    set fh [open $wl(trace) r]
    while {[gets $fh line] >= 0} {
        incr lines
        set ev [string index $line 0]
        if {$ev != "s" && $ev != "r" && $ev != "f" && $ev != "D"} continue
        if {[scan $line "%s %s %s %s %s %s %s %s" ev t nodef layer reason uid type size] != 8} continue
        set n [string trim $nodef _]
        if {![info exists nd($n,data_sent)]} continue
        if {$ev == "D"} {
            dict incr nd($n,drops) "$layer $reason"
            continue
        }
        switch -- $layer {
            MAC {
                set ctrl [expr {$type == "RTS" || $type == "CTS" || $type == "ACK"}]
                if {$ev == "s"} {
                    if {$ctrl} {
                        incr nd($n,$type)
                    } else {
                        incr nd($n,data_sent)
                        incr nd($n,data_bytes) $size
                        dict incr nd($n,bytype) $type
                    }
                } elseif {$ev == "r"} {
                    if {$ctrl} {
                        incr nd($n,ctrl_recv)
                    } else {
                        incr nd($n,data_recv)
                    }
                }
            }
            RTR {
                if {$type == "AODV" && ($ev == "s" || $ev == "f")} {
                    incr rt(pkts)
                    incr rt(bytes) $size
                    if {[regexp {\((REQUEST|REPLY|ERROR|HELLO)\)} $line -> akind]} {
                        dict incr rt(bytype) $akind
                    }
                }
            }
            AGT {
                if {![regexp -- $ipre $line -> saddr sport daddr dport]} continue
                set key "$saddr:$sport"
                if {$type == "cbr" || $type == "tcp" || $type == "tcpFriend"} {
                    if {![info exists wl(src,$key)]} continue
                    set k $wl(src,$key)
                    set to [lindex $wl(flows) $k 3]
                    if {$ev == "s" && $n == $saddr} {
                        incr fl($k,sent)
                        set sendt($uid) $t
                        if {$type == "tcp" && [regexp -- $tcpre $line -> seq]} {
                            if {[info exists sentseq($k,$seq)]} {
                                incr fl($k,retx)
                            } else {
                                set sentseq($k,$seq) 1
                            }
                        }
                    } elseif {$ev == "r" && $n == $to && ![info exists recvd($uid)]} {
                        # First arrival of this uid at the sink agent.
                        set recvd($uid) 1
                        if {[info exists sendt($uid)]} {
                            set fl($k,delay_sum) [expr {$fl($k,delay_sum) + $t - $sendt($uid)}]
                            incr fl($k,recv)
                            # Data segments only: the SYN (seqno 0) is 40 bytes at AGT.
                            if {$type == "tcp" && $size > 40 && [regexp -- $tcpre $line -> seq]} {
                                dict set fl($k,rseq) $seq 1
                            }
                        }
                    }
                } elseif {($type == "ack" || $type == "tcpFriendCtl") && [info exists wl(ack,$key)]} {
                    set k $wl(ack,$key)
                    if {$ev == "s" && $n == $saddr} {
                        incr fl($k,acks_sent)
                    } elseif {$ev == "r"} {
                        incr fl($k,acks_recv)
                    }
                }
            }
        }
    }
    close $fh
    set wl(lines) $lines
}

wl_parse
if {!$wl(keep_trace)} {
    file delete $wl(trace)
}

# ---- JSON ----

proc wl_jdict {d} {
    set parts {}
    foreach key [lsort [dict keys $d]] {
        lappend parts "[fw_jstr $key]: [dict get $d $key]"
    }
    return "{[join $parts ", "]}"
}

set flows {}
set k 0
foreach f $wl(flows) {
    foreach {kind name from to param size start stop} $f break
    foreach {src sink} $wl(agents,$k) break
    set delay "null"
    if {$fl($k,recv) > 0} {
        set delay [format %.6f [expr {$fl($k,delay_sum) / $fl($k,recv)}]]
    }
    if {$kind == "cbr"} {
        set npk $fl($k,recv)
        set j "{\"name\": [fw_jstr $name], \"class\": \"udp\", \"recv_bytes\": [expr {$npk * $size}], \"recv_pkts\": $npk"
        append j ", \"sent_pkts\": $fl($k,sent), \"mean_delay_s\": $delay"
        append j ", \"from\": \"n$from\", \"to\": \"n$to\", \"packet_size\": $size, \"cbr_rate_bps\": [fw_jfloat $param]}"
    } elseif {$kind == "tfrc"} {
        set npk $fl($k,recv)
        set j "{\"name\": [fw_jstr $name], \"class\": \"tfrc\", \"recv_bytes\": [expr {$npk * $size}], \"recv_pkts\": $npk"
        append j ", \"sent_pkts\": $fl($k,sent), \"mean_delay_s\": $delay"
        append j ", \"feedback_sent\": $fl($k,acks_sent), \"feedback_recv\": $fl($k,acks_recv)"
        append j ", \"rate_end_bps\": [fw_jfloat [expr {8.0 * [$src set rate_]}]]"
        append j ", \"from\": \"n$from\", \"to\": \"n$to\", \"packet_size\": $size, \"hdr_bytes\": [$src set headersize_]"
        # (The closing brace stays at this level: a brace inside quotes still counts in a braced body.)
        if {$param == 0} {
            append j ", \"app\": \"ftp\""
        } else {
            append j ", \"app\": \"cbr\", \"cbr_rate_bps\": [fw_jfloat $param]"
        }
        append j "}"
    } else {
        set npk [dict size $fl($k,rseq)]
        foreach {ninorder ndata ok} [fw_tcp_pkts [$sink set bytes_] $size [$src set syn_] [$src set tcpip_base_hdr_size_]] break
        set j "{\"name\": [fw_jstr $name], \"class\": \"tcp\", \"recv_bytes\": [expr {$npk * $size}], \"recv_pkts\": $npk"
        append j ", \"sent_pkts\": $fl($k,sent), \"mean_delay_s\": $delay, \"retx_pkts\": $fl($k,retx)"
        append j ", \"acks_sent\": $fl($k,acks_sent), \"acks_recv\": $fl($k,acks_recv)"
        append j ", \"recv_inorder_pkts\": $ndata, \"cwnd_end\": [fw_jfloat [$src set cwnd_]]"
        append j ", \"from\": \"n$from\", \"to\": \"n$to\", \"packet_size\": $size, \"window\": $param}"
    }
    lappend flows $j
    incr k
}

set nodes {}
for {set i 0} {$i < $wl(n)} {incr i} {
    # drops: {layer: {reason: n}}
    set bylayer [dict create]
    dict for {lr cnt} $nd($i,drops) {
        foreach {layer reason} $lr break
        dict set bylayer $layer $reason $cnt
    }
    set dparts {}
    foreach layer [lsort [dict keys $bylayer]] {
        lappend dparts "[fw_jstr $layer]: [wl_jdict [dict get $bylayer $layer]]"
    }
    set j "{\"name\": \"n$i\", \"x\": [fw_jfloat [lindex $wl(xs) $i]], \"y\": [fw_jfloat [lindex $wl(ys) $i]]"
    append j ", \"mac_data_sent\": $nd($i,data_sent), \"mac_data_bytes_sent\": $nd($i,data_bytes)"
    append j ", \"rts_sent\": $nd($i,RTS), \"cts_sent\": $nd($i,CTS), \"acks_sent\": $nd($i,ACK)"
    append j ", \"mac_data_recv\": $nd($i,data_recv), \"mac_ctrl_recv\": $nd($i,ctrl_recv)"
    append j ", \"mac_data_sent_by_type\": [wl_jdict $nd($i,bytype)]"
    append j ", \"drops\": {[join $dparts ", "]}}"
    lappend nodes $j
}

set routing "{\"protocol\": [fw_jstr $wl(routing)], \"pkts\": $rt(pkts), \"bytes\": $rt(bytes), \"by_type\": [wl_jdict $rt(bytype)]}"

set wall [expr {([clock clicks -milliseconds] - $fw(t0_ms)) / 1000.0}]
set out "{\"schema\": [fw_jstr $fw(schema)], \"scenario\": \"wireless\", \"seed\": $wl(seed)"
append out ", \"duration_s\": [fw_jfloat $wl(dur)], \"ns_version\": [fw_jstr [ns-version]]"
append out ", \"sim_time_end_s\": [fw_jfloat [$ns now]], \"wall_s\": [fw_jfloat $wall]"
append out ", \"rts_threshold\": $wl(rts), \"trace_lines\": $wl(lines)"
append out ", \"area\": \[[fw_jfloat $wl(gridx)], [fw_jfloat $wl(gridy)]\]"
append out ", \"moves\": [expr {$wl(moves) == "" ? "null" : [fw_jstr $wl(moves)]}],\n"
append out " \"flows\": \[\n  [join $flows ",\n  "]\n ],\n"
append out " \"nodes\": \[\n  [join $nodes ",\n  "]\n ],\n"
append out " \"routing\": $routing,\n"
append out " \"links\": \[\]}\n"
set ofh [open $wl(out) w]
puts -nonewline $ofh $out
close $ofh
exit 0
