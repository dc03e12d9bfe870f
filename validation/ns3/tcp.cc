// tcp.cc: ns-3 (3.37) twin of fairway's TCP validation scenarios (scenarios/validation/tcp-ns3-*.toml):
// greedy TCP flows with different round trips through one bottleneck, with ns-3's DEFAULT TCP
// (TcpSocketBase as ns-3.37 sets it: SACK, RFC 6675 loss recovery with PRR, timestamps, window
// scaling, an initial window of 10 segments, delayed ACKs every second segment or after 200 ms,
// MinRto 1 s, 1 ms clock granularity, limited transmit), NewReno or CUBIC.
//
//   s0..s{n-1} --- r1 ==== qdisc ==== r2 --- d0..d{n-1}
//   s_i -- r1: 1 Gb/s, a delay that gives flow i its base round trip (--rtt_min .. --rtt_max,
//              spread evenly over the flows), a device FIFO that never drops
//   r1 -> r2:  --rate, --delay, the queue disc (fifo or codel), a device queue of 1 packet
//   r2 -- d_i: 1 Gb/s, --dst_delay
//
// Each flow starts at a time drawn uniformly from [0, --start_max) by ns-3's RNG (the run
// number is --seed), and its goodput is its sink's in-order payload from --measure_from to the
// end. The bottleneck's mean wait is from the queue disc's enqueue to the start of the packet's
// serialisation, over the packets that start it from --measure_from on.
//
// Usage: tcp --out=FILE.json [--seed=N] [--tcp=newreno|cubic] [--qdisc=fifo|codel] [options]
//        tcp --PrintHelp lists the options.
// See validation/ns3/README.md ("tcp") for every setting that is not ns-3's default.

#include <ns3/applications-module.h>
#include <ns3/core-module.h>
#include <ns3/internet-module.h>
#include <ns3/network-module.h>
#include <ns3/point-to-point-module.h>
#include <ns3/traffic-control-module.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

using namespace ns3;

namespace
{

[[noreturn]] void
Fail(const std::string& msg)
{
    std::cerr << "error: " << msg << "\n"
              << "usage: tcp --out=FILE.json [--seed=N] [--tcp=newreno|cubic] [--qdisc=fifo|codel] "
                 "[--PrintHelp for the options]\n";
    std::exit(2);
}

std::string
Fmt(double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

// The wait of each packet from the queue disc's enqueue to the start of its serialisation on
// the bottleneck (fairway's mean_sojourn_s), counted for the packets whose serialisation starts
// at or after the end of the warm-up.
struct Waits
{
    std::unordered_map<uint64_t, int64_t> enqueuedAt; // packet uid -> ns
    int64_t fromNs = 0;
    double sumNs = 0;
    uint64_t n = 0;
};

Waits g_waits;
uint64_t g_dropsMeasured = 0; // queue disc drops from the end of the warm-up
int64_t g_fromNs = 0;

void
QdiscEnqueue(Ptr<const QueueDiscItem> item)
{
    g_waits.enqueuedAt[item->GetPacket()->GetUid()] = Simulator::Now().GetNanoSeconds();
}

void
QdiscDropWhy(Ptr<const QueueDiscItem> item, const char*)
{
    g_waits.enqueuedAt.erase(item->GetPacket()->GetUid());
}

void
QdiscDrop(Ptr<const QueueDiscItem>)
{
    if (Simulator::Now().GetNanoSeconds() >= g_fromNs)
    {
        ++g_dropsMeasured;
    }
}

void
TxBegin(Ptr<const Packet> p)
{
    auto it = g_waits.enqueuedAt.find(p->GetUid());
    if (it == g_waits.enqueuedAt.end())
    {
        return;
    }
    int64_t now = Simulator::Now().GetNanoSeconds();
    if (now >= g_waits.fromNs)
    {
        g_waits.sumNs += double(now - it->second);
        ++g_waits.n;
    }
    g_waits.enqueuedAt.erase(it);
}

// Per flow: entries into fast recovery and into loss (RTO), from the socket's CongState trace.
struct FlowDiag
{
    uint64_t recoveries = 0;
    uint64_t rtos = 0;
    uint64_t rxAtFrom = 0;
};

std::vector<FlowDiag> g_diag;
std::ofstream* g_cwndTrace = nullptr; // --trace: time_s,flow,cwnd_segments,ssthresh_segments
uint32_t g_segment = 1000;

void
CwndChange(uint32_t i, uint32_t, uint32_t now)
{
    *g_cwndTrace << Simulator::Now().GetSeconds() << "," << i << ",cwnd," << double(now) / g_segment << "\n";
}

void
SsthreshChange(uint32_t i, uint32_t, uint32_t now)
{
    *g_cwndTrace << Simulator::Now().GetSeconds() << "," << i << ",ssthresh," << double(now) / g_segment << "\n";
}

void
CongState(uint32_t i, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    if (now == TcpSocketState::CA_RECOVERY)
    {
        ++g_diag[i].recoveries;
    }
    else if (now == TcpSocketState::CA_LOSS)
    {
        ++g_diag[i].rtos;
    }
}

// The BulkSend's socket exists once the application has started: hook it then.
void
HookSocket(Ptr<BulkSendApplication> app, uint32_t i)
{
    Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(app->GetSocket());
    NS_ABORT_MSG_UNLESS(s, "no TCP socket on flow " << i);
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&CongState, i));
    if (g_cwndTrace)
    {
        s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&CwndChange, i));
        s->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&SsthreshChange, i));
    }
}

void
Snapshot(const std::vector<Ptr<PacketSink>>* sinks)
{
    for (uint32_t i = 0; i < sinks->size(); ++i)
    {
        g_diag[i].rxAtFrom = (*sinks)[i]->GetTotalRx();
    }
}

template <typename Cb>
void
Hook(Ptr<Object> obj, const std::string& source, const Cb& cb)
{
    NS_ABORT_MSG_UNLESS(obj && obj->TraceConnectWithoutContext(source, cb),
                        "cannot hook trace source " << source);
}

} // namespace

int
main(int argc, char* argv[])
{
    auto t0 = std::chrono::steady_clock::now();

    std::string out;
    uint32_t seed = 1;
    std::string tcp = "newreno";
    std::string qdisc = "fifo";
    uint32_t nTcp = 4;
    std::string rate = "10Mbps";
    double delayMs = 5;     // bottleneck, one way
    double dstDelayMs = 1;  // r2 -- d_i
    double rttMin = 20, rttMax = 100; // base round trips, ms
    uint32_t limit = 70;    // queue disc limit, packets
    double duration = 20;
    double measureFrom = 5;
    double startMax = 1;
    uint32_t segment = 1000;
    uint32_t buffer = 4000000; // send and receive buffers, bytes
    bool hystart = true;       // TcpCubic's default
    std::string trace;

    CommandLine cmd(__FILE__);
    cmd.AddValue("out", "output JSON file", out);
    cmd.AddValue("seed", "ns-3 run number (>= 1)", seed);
    cmd.AddValue("tcp", "newreno (TcpNewReno) or cubic (TcpCubic)", tcp);
    cmd.AddValue("qdisc", "fifo (FifoQueueDisc) or codel (CoDelQueueDisc)", qdisc);
    cmd.AddValue("n_tcp", "greedy TCP flows", nTcp);
    cmd.AddValue("rate", "bottleneck rate", rate);
    cmd.AddValue("delay", "bottleneck delay, ms", delayMs);
    cmd.AddValue("dst_delay", "receivers' access links' delay, ms", dstDelayMs);
    cmd.AddValue("rtt_min", "the first flow's base round trip, ms", rttMin);
    cmd.AddValue("rtt_max", "the last flow's base round trip, ms", rttMax);
    cmd.AddValue("limit", "queue disc limit, packets", limit);
    cmd.AddValue("duration", "run length, s", duration);
    cmd.AddValue("measure_from", "end of the warm-up, s", measureFrom);
    cmd.AddValue("start_max", "starts uniform in [0, start_max), s", startMax);
    cmd.AddValue("segment", "TCP SegmentSize (payload), bytes", segment);
    cmd.AddValue("buffer", "TCP send and receive buffers, bytes", buffer);
    cmd.AddValue("hystart", "TcpCubic's HyStart (its default: on)", hystart);
    cmd.AddValue("trace", "CSV of every flow's cwnd and ssthresh changes (segments)", trace);
    cmd.Parse(argc, argv);
    if (out.empty())
    {
        Fail("--out is required");
    }
    if (seed < 1)
    {
        Fail("--seed must be 1 or more");
    }
    if (nTcp == 0)
    {
        Fail("no flows");
    }
    if (qdisc != "fifo" && qdisc != "codel")
    {
        Fail("--qdisc must be fifo or codel");
    }
    if (measureFrom >= duration || startMax > measureFrom)
    {
        Fail("need start_max <= measure_from < duration");
    }
    const double oneWayMin = delayMs + dstDelayMs;
    if (rttMin / 2 < oneWayMin || rttMax < rttMin)
    {
        Fail("round trips must be at least 2 x (delay + dst_delay) and rtt_min <= rtt_max");
    }

    std::ofstream traceFile;
    if (!trace.empty())
    {
        traceFile.open(trace);
        traceFile << "time_s,flow,what,segments\n";
        g_cwndTrace = &traceFile;
    }
    g_segment = segment;

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    // ns-3's TCP at its defaults, but for what is named here.
    if (tcp == "cubic")
    {
        Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpCubic::GetTypeId()));
        Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(hystart));
    }
    else if (tcp == "newreno")
    {
        Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    }
    else
    {
        Fail("--tcp must be newreno or cubic");
    }
    // Not defaults: the segment size (536 by default) and buffers (131072 B by default) large
    // enough never to limit the window.
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segment));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(buffer));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(buffer));

    Ptr<Node> r1 = CreateObject<Node>();
    Ptr<Node> r2 = CreateObject<Node>();
    NodeContainer src, dst;
    src.Create(nTcp);
    dst.Create(nTcp);
    NodeContainer all;
    all.Add(r1);
    all.Add(r2);
    all.Add(src);
    all.Add(dst);
    InternetStackHelper stack;
    stack.Install(all);
    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.252");

    // ---- bottleneck ----
    PointToPointHelper bneck;
    bneck.SetDeviceAttribute("DataRate", StringValue(rate));
    bneck.SetChannelAttribute("Delay", TimeValue(MicroSeconds(int64_t(std::llround(delayMs * 1000)))));
    bneck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize("1p")));
    NetDeviceContainer bdev = bneck.Install(r1, r2);
    TrafficControlHelper tch;
    QueueSizeValue maxSize(QueueSize(std::to_string(limit) + "p"));
    if (qdisc == "codel")
    {
        // Target 5 ms, Interval 100 ms, MinBytes 1500, no ECN: its defaults.
        tch.SetRootQueueDisc("ns3::CoDelQueueDisc", "MaxSize", maxSize);
    }
    else
    {
        tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", maxSize);
    }
    QueueDiscContainer qdiscs = tch.Install(bdev); // [0] r1->r2, [1] r2->r1
    addr.Assign(bdev);
    addr.NewNetwork();
    Ptr<QueueDisc> bq = qdiscs.Get(0);
    // The reverse direction carries ACKs only; a queue disc that never drops.
    qdiscs.Get(1)->SetAttribute("MaxSize", QueueSizeValue(QueueSize("100000p")));

    // ---- access links: device FIFOs large enough never to drop, no queue disc ----
    TrafficControlHelper noQdisc;
    std::vector<Ipv4Address> dstAddr(nTcp);
    std::vector<double> rtt(nTcp);
    auto link = [&](Ptr<Node> host, Ptr<Node> router, double ms) -> Ipv4Address {
        PointToPointHelper access;
        access.SetDeviceAttribute("DataRate", StringValue("1Gbps"));
        access.SetChannelAttribute("Delay", TimeValue(MicroSeconds(int64_t(std::llround(ms * 1000)))));
        access.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize("100000p")));
        NetDeviceContainer d = access.Install(host, router);
        Ipv4InterfaceContainer ifc = addr.Assign(d);
        addr.NewNetwork();
        noQdisc.Uninstall(d);
        return ifc.GetAddress(0);
    };
    for (uint32_t i = 0; i < nTcp; ++i)
    {
        rtt[i] = nTcp == 1 ? rttMin : rttMin + (rttMax - rttMin) * i / (nTcp - 1);
        link(src.Get(i), r1, rtt[i] / 2 - oneWayMin);
        dstAddr[i] = link(dst.Get(i), r2, dstDelayMs);
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    // ---- flows: starts uniform in [0, start_max) from the run's own stream ----
    Ptr<UniformRandomVariable> startRv = CreateObject<UniformRandomVariable>();
    startRv->SetStream(0);
    startRv->SetAttribute("Min", DoubleValue(0));
    startRv->SetAttribute("Max", DoubleValue(startMax));
    const uint16_t port = 5000;
    std::vector<Ptr<PacketSink>> sinks(nTcp);
    std::vector<double> starts(nTcp);
    g_diag.assign(nTcp, FlowDiag{});
    for (uint32_t i = 0; i < nTcp; ++i)
    {
        PacketSinkHelper sinkH("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sa = sinkH.Install(dst.Get(i));
        sa.Start(Seconds(0.0));
        sinks[i] = DynamicCast<PacketSink>(sa.Get(0));
        BulkSendHelper ftp("ns3::TcpSocketFactory", InetSocketAddress(dstAddr[i], port));
        ftp.SetAttribute("SendSize", UintegerValue(segment));
        ftp.SetAttribute("MaxBytes", UintegerValue(0));
        ApplicationContainer ca = ftp.Install(src.Get(i));
        starts[i] = startRv->GetValue();
        ca.Start(Seconds(starts[i]));
        Simulator::Schedule(Seconds(starts[i]) + NanoSeconds(1), &HookSocket,
                            DynamicCast<BulkSendApplication>(ca.Get(0)), i);
    }

    // ---- measurements ----
    g_fromNs = Seconds(measureFrom).GetNanoSeconds();
    g_waits.fromNs = g_fromNs;
    Hook(bq, "Enqueue", MakeCallback(&QdiscEnqueue));
    Hook(bq, "DropBeforeEnqueue", MakeCallback(&QdiscDropWhy));
    Hook(bq, "DropAfterDequeue", MakeCallback(&QdiscDropWhy));
    Hook(bq, "Drop", MakeCallback(&QdiscDrop));
    Hook(bdev.Get(0), "PhyTxBegin", MakeCallback(&TxBegin));
    Simulator::Schedule(Seconds(measureFrom), &Snapshot, &sinks);

    Simulator::Stop(Seconds(duration));
    Simulator::Run();

    // ---- results ----
    const double window = duration - measureFrom;
    auto wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::ostringstream js;
    js << "{\"schema\": \"fairway.ns3-tcp/1\", \"tcp\": \"" << tcp << "\", \"qdisc\": \"" << qdisc
       << "\", \"seed\": " << seed << ", \"duration_s\": " << Fmt(duration)
       << ", \"measure_from_s\": " << Fmt(measureFrom) << ", \"ns_version\": \"3.37\", \"wall_s\": "
       << Fmt(wall) << ",\n \"flows\": [";
    for (uint32_t i = 0; i < nTcp; ++i)
    {
        uint64_t total = sinks[i]->GetTotalRx();
        js << (i ? ",\n" : "\n") << "  {\"name\": \"tcp" << i << "\", \"base_rtt_s\": " << Fmt(rtt[i] / 1000)
           << ", \"start_s\": " << Fmt(starts[i])
           << ", \"goodput_bps\": " << Fmt(double(total - g_diag[i].rxAtFrom) * 8 / window)
           << ", \"recv_payload_bytes\": " << total << ", \"fast_recoveries\": " << g_diag[i].recoveries
           << ", \"rtos\": " << g_diag[i].rtos << "}";
    }
    const QueueDisc::Stats& st = bq->GetStats();
    js << "\n ],\n \"links\": [{\"name\": \"r1->r2\", \"queue\": \"" << bq->GetInstanceTypeId().GetName()
       << "\", \"arrivals_pkts\": " << st.nTotalReceivedPackets
       << ", \"drops_pkts\": " << st.nTotalDroppedPackets
       << ", \"drops_measured_pkts\": " << g_dropsMeasured
       << ", \"mean_sojourn_s\": " << Fmt(g_waits.n ? g_waits.sumNs / g_waits.n / 1e9 : 0)
       << ", \"waits\": " << g_waits.n << "}]}\n";
    std::ofstream f(out);
    if (!f)
    {
        Fail("cannot write " + out);
    }
    f << js.str();
    Simulator::Destroy();
    return 0;
}
