// aqm.cc: ns-3 (3.37) twin of fairway's AQM validation scenarios (scenarios/validation/aqm-*.toml):
// a dumbbell whose bottleneck runs ns-3's CoDel, PIE, FQ-CoDel, COBALT or FQ-PIE (or RED, or a
// FIFO), with greedy
// TCP NewReno flows and UDP CBR flows, written to follow fairway's scenario of the same name.
//
//   s0..s{n-1} --- r1 ==== qdisc ==== r2 --- d0..d{n-1}      (TCP flows first, then UDP)
//   access links: one per host, --access_rate, --access_delay, a device FIFO that never drops
//   bottleneck r1->r2: --rate, --delay, the queue disc, a device queue of 1 packet
//
// Usage: aqm --out=FILE.json [--seed=N] --qdisc=codel|pie|fq_codel|cobalt|fq_pie|red|fifo
//        [--tcp=newreno|cubic] [options]
//        aqm --help lists the options.
// See validation/ns3/README.md ("aqm") for the mapping to fairway and the differences.

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
#include <map>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint32_t kSegPayload = 1000; // fairway's TCP packet_size (payload)
constexpr uint32_t kTcpIpHdr = 40;     // 20 IPv4 + 20 TCP, no options: fairway's 40-byte header
constexpr uint32_t kUdpIpHdr = 28;     // 20 IPv4 + 8 UDP

[[noreturn]] void
Fail(const std::string& msg)
{
    std::cerr << "error: " << msg << "\n"
              << "usage: aqm --out=FILE.json [--seed=N] "
                 "--qdisc=codel|pie|fq_codel|cobalt|fq_pie|red|fifo "
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

// One UDP datagram of a fixed IP size every interval, the first at the start time (fairway's
// and ns-2's CBR; OnOffApplication sends its first packet one interval late).
class CbrSource : public Application
{
  public:
    void Configure(Address peer, uint32_t payload, Time interval)
    {
        m_peer = peer;
        m_payload = payload;
        m_interval = interval;
    }

    uint64_t Sent() const
    {
        return m_sent;
    }

  private:
    void StartApplication() override
    {
        m_socket = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
        m_socket->Bind();
        m_socket->Connect(m_peer);
        SendOne();
    }

    void StopApplication() override
    {
        Simulator::Cancel(m_next);
        if (m_socket)
        {
            m_socket->Close();
        }
    }

    void SendOne()
    {
        if (m_socket->Send(Create<Packet>(m_payload)) >= 0)
        {
            ++m_sent;
        }
        m_next = Simulator::Schedule(m_interval, &CbrSource::SendOne, this);
    }

    Address m_peer;
    uint32_t m_payload = 0;
    Time m_interval;
    Ptr<Socket> m_socket;
    EventId m_next;
    uint64_t m_sent = 0;
};

// The wait of each packet from the queue disc's enqueue to the start of its serialisation on
// the bottleneck (what fairway's mean_sojourn_s measures), and the queue disc's own sojourn
// time (enqueue to dequeue into the one-packet device queue).
struct Waits
{
    std::unordered_map<uint64_t, int64_t> enqueuedAt; // packet uid -> ns
    double sumNs = 0;
    double maxNs = 0;
    uint64_t n = 0;
    double qdiscSumNs = 0;
    uint64_t qdiscN = 0;
};

Waits g_waits;

// The bottleneck queue disc's drops by IP protocol (6 TCP, 17 UDP).
std::map<uint8_t, uint64_t> g_dropsByProto;

void
QdiscDrop(Ptr<const QueueDiscItem> item)
{
    if (Ptr<const Ipv4QueueDiscItem> ip = DynamicCast<const Ipv4QueueDiscItem>(item))
    {
        ++g_dropsByProto[ip->GetHeader().GetProtocol()];
    }
}

void
QdiscEnqueue(Ptr<const QueueDiscItem> item)
{
    g_waits.enqueuedAt[item->GetPacket()->GetUid()] = Simulator::Now().GetNanoSeconds();
}

void
QdiscDropAfter(Ptr<const QueueDiscItem> item, const char*)
{
    g_waits.enqueuedAt.erase(item->GetPacket()->GetUid());
}

void
QdiscDropBefore(Ptr<const QueueDiscItem> item, const char*)
{
    g_waits.enqueuedAt.erase(item->GetPacket()->GetUid());
}

void
TxBegin(Ptr<const Packet> p)
{
    auto it = g_waits.enqueuedAt.find(p->GetUid());
    if (it == g_waits.enqueuedAt.end())
    {
        return;
    }
    double w = double(Simulator::Now().GetNanoSeconds() - it->second);
    g_waits.sumNs += w;
    g_waits.maxNs = std::max(g_waits.maxNs, w);
    ++g_waits.n;
    g_waits.enqueuedAt.erase(it);
}

void
Sojourn(Time t)
{
    g_waits.qdiscSumNs += double(t.GetNanoSeconds());
    ++g_waits.qdiscN;
}

// COBALT's CoDel count, for --trace.
uint32_t g_cobaltCount = 0;

void
CobaltCount(uint32_t, uint32_t now)
{
    g_cobaltCount = now;
}

// --trace: the queue disc's packets and drops every 10 ms (and COBALT's BLUE probability and
// CoDel count).
void
Sample(Ptr<QueueDisc> q, std::ofstream* f)
{
    const QueueDisc::Stats& st = q->GetStats();
    *f << Simulator::Now().GetSeconds() << "," << q->GetNPackets() << "," << st.nTotalDroppedPackets;
    if (Ptr<CobaltQueueDisc> c = DynamicCast<CobaltQueueDisc>(q))
    {
        *f << "," << Fmt(c->GetPdrop()) << "," << g_cobaltCount;
    }
    *f << "\n";
    Simulator::Schedule(MilliSeconds(10), &Sample, q, f);
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
    std::string qdisc = "codel";
    uint32_t nTcp = 8;
    uint32_t nUdp = 0;
    std::string rate = "100Mbps";
    std::string delay = "10ms";
    std::string accessRate = "1Gbps";
    std::string accessDelay = "2ms";
    double udpRateBps = 5e6;
    uint32_t udpSize = 1000;
    double udpStart = 0;
    double tcpStagger = 0;
    double duration = 30;
    uint32_t window = 1000; // TCP's window cap, packets (receive buffer)
    uint32_t ssthresh = 0;  // TCP's initial slow-start threshold, packets (0: none)
    uint32_t accessLimit = 100000; // packets the access links' device queues hold
    bool sack = true;
    std::string tcp = "newreno";
    uint32_t limit = 0;     // packets; 0: the queue disc's default
    std::string target;     // CoDel, FQ-CoDel, PIE, COBALT, FQ-PIE: their default if empty
    std::string interval;
    bool ecn = false;
    uint32_t quantum = 0; // FQ-CoDel, FQ-PIE; 0: the device's MTU
    std::string blueThreshold; // COBALT; empty: its default (400 ms)
    double increment = -1, decrement = -1; // COBALT; negative: its defaults (1/256, 1/4096)
    double thresh = 5, maxthresh = 15, qWeight = 0.002;
    std::string trace;

    CommandLine cmd(__FILE__);
    cmd.AddValue("out", "output JSON file", out);
    cmd.AddValue("seed", "ns-3 run number (>= 1)", seed);
    cmd.AddValue("qdisc", "codel, pie, fq_codel, cobalt, fq_pie, red or fifo", qdisc);
    cmd.AddValue("n_tcp", "greedy TCP NewReno flows", nTcp);
    cmd.AddValue("n_udp", "UDP CBR flows", nUdp);
    cmd.AddValue("rate", "bottleneck rate", rate);
    cmd.AddValue("delay", "bottleneck delay", delay);
    cmd.AddValue("access_rate", "access link rate", accessRate);
    cmd.AddValue("access_delay", "access link delay", accessDelay);
    cmd.AddValue("access_limit", "access links' device queue, packets", accessLimit);
    cmd.AddValue("udp_rate", "each UDP flow's rate, b/s (IP bytes)", udpRateBps);
    cmd.AddValue("udp_size", "UDP packet size, IP bytes", udpSize);
    cmd.AddValue("udp_start", "UDP start, s", udpStart);
    cmd.AddValue("tcp_stagger", "seconds between TCP starts", tcpStagger);
    cmd.AddValue("duration", "run length, s", duration);
    cmd.AddValue("window", "TCP window cap, packets", window);
    cmd.AddValue("ssthresh", "TCP initial slow-start threshold, packets (0: none)", ssthresh);
    cmd.AddValue("sack", "TCP SACK (ns-3 without it resends data, validation/ns3/README.md)", sack);
    cmd.AddValue("tcp", "newreno or cubic (TcpCubic with HyStart off)", tcp);
    cmd.AddValue("limit", "queue disc limit, packets (0: its default)", limit);
    cmd.AddValue("target", "CoDel/FQ-CoDel/COBALT target, PIE/FQ-PIE QueueDelayReference", target);
    cmd.AddValue("interval", "CoDel/FQ-CoDel/COBALT interval", interval);
    cmd.AddValue("ecn", "ECN marking in the queue disc (and ECN-capable TCP)", ecn);
    cmd.AddValue("quantum", "FQ-CoDel/FQ-PIE quantum, bytes (0: the MTU)", quantum);
    cmd.AddValue("blue_threshold", "COBALT BlueThreshold (empty: 400ms)", blueThreshold);
    cmd.AddValue("increment", "COBALT Increment (negative: 1/256)", increment);
    cmd.AddValue("decrement", "COBALT Decrement (negative: 1/4096)", decrement);
    cmd.AddValue("thresh", "RED MinTh, packets", thresh);
    cmd.AddValue("maxthresh", "RED MaxTh, packets", maxthresh);
    cmd.AddValue("q_weight", "RED QW", qWeight);
    cmd.AddValue("trace", "CSV of the queue disc's packets and drops every 10 ms", trace);
    cmd.Parse(argc, argv);
    if (out.empty())
    {
        Fail("--out is required");
    }
    if (seed < 1)
    {
        Fail("--seed must be 1 or more");
    }
    const std::vector<std::string> kinds = {"codel", "pie", "fq_codel", "cobalt", "fq_pie", "red", "fifo"};
    if (std::find(kinds.begin(), kinds.end(), qdisc) == kinds.end())
    {
        Fail("unknown --qdisc '" + qdisc + "'");
    }
    if (nTcp + nUdp == 0)
    {
        Fail("no flows");
    }
    if (accessLimit == 0)
    {
        Fail("--access_limit must be at least 1");
    }
    if (udpSize <= kUdpIpHdr)
    {
        Fail("--udp_size must exceed the 28-byte UDP/IP header");
    }

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    // TCP as the existing twin sets it (README.md), SACK on by default: fairway's NewReno
    // without SACK matches ns-3's with SACK within 0.5% on dumbbell-mid.
    if (tcp == "cubic")
    {
        // fairway's CUBIC flavour "ns3" models TcpCubic without HyStart (its sender has one
        // RTT sample per round trip, not the eight HyStart's delay test needs).
        Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpCubic::GetTypeId()));
        Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(false));
    }
    else if (tcp == "newreno")
    {
        Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                           TypeIdValue(TcpNewReno::GetTypeId()));
    }
    else
    {
        Fail("--tcp must be newreno or cubic");
    }
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(kSegPayload));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    if (ssthresh)
    {
        Config::SetDefault("ns3::TcpSocket::InitialSlowStartThreshold",
                           UintegerValue(ssthresh * kSegPayload));
    }
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(Seconds(3.0)));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(window * kSegPayload));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(window * kSegPayload));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MilliSeconds(10)));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::UseEcn",
                       EnumValue(ecn ? TcpSocketState::On : TcpSocketState::Off));

    const uint32_t n = nTcp + nUdp;
    Ptr<Node> r1 = CreateObject<Node>();
    Ptr<Node> r2 = CreateObject<Node>();
    NodeContainer src, dst;
    src.Create(n);
    dst.Create(n);
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
    bneck.SetChannelAttribute("Delay", StringValue(delay));
    bneck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize("1p")));
    NetDeviceContainer bdev = bneck.Install(r1, r2);

    TrafficControlHelper tch;
    auto maybeLimit = [&](const std::string& dflt) {
        return QueueSizeValue(QueueSize(limit ? std::to_string(limit) + "p" : dflt));
    };
    if (qdisc == "codel")
    {
        tch.SetRootQueueDisc("ns3::CoDelQueueDisc",
                             "MaxSize", maybeLimit("1000p"),
                             "UseEcn", BooleanValue(ecn));
        if (!target.empty())
        {
            tch.SetRootQueueDisc("ns3::CoDelQueueDisc", "MaxSize", maybeLimit("1000p"),
                                 "UseEcn", BooleanValue(ecn), "Target", StringValue(target),
                                 "Interval", StringValue(interval.empty() ? "100ms" : interval));
        }
    }
    else if (qdisc == "pie")
    {
        tch.SetRootQueueDisc("ns3::PieQueueDisc",
                             "MaxSize", maybeLimit("1000p"),
                             "UseEcn", BooleanValue(ecn),
                             "QueueDelayReference", TimeValue(Time(target.empty() ? "15ms" : target)));
    }
    else if (qdisc == "fq_codel")
    {
        tch.SetRootQueueDisc("ns3::FqCoDelQueueDisc",
                             "MaxSize", maybeLimit("10240p"),
                             "UseEcn", BooleanValue(ecn),
                             "Target", StringValue(target.empty() ? "5ms" : target),
                             "Interval", StringValue(interval.empty() ? "100ms" : interval));
    }
    else if (qdisc == "cobalt")
    {
        // MaxSize's default is 1 500 000 bytes (1500 x DEFAULT_COBALT_LIMIT).
        tch.SetRootQueueDisc("ns3::CobaltQueueDisc",
                             "MaxSize", maybeLimit("1500000B"),
                             "UseEcn", BooleanValue(ecn),
                             "Target", StringValue(target.empty() ? "5ms" : target),
                             "Interval", StringValue(interval.empty() ? "100ms" : interval),
                             "BlueThreshold", StringValue(blueThreshold.empty() ? "400ms" : blueThreshold),
                             "Increment", DoubleValue(increment < 0 ? 1. / 256 : increment),
                             "Decrement", DoubleValue(decrement < 0 ? 1. / 4096 : decrement));
    }
    else if (qdisc == "fq_pie")
    {
        // Its UseEcn default is true; the PIE attributes not set here keep FqPie's defaults,
        // which it hands to each flow's PieQueueDisc.
        tch.SetRootQueueDisc("ns3::FqPieQueueDisc",
                             "MaxSize", maybeLimit("10240p"),
                             "UseEcn", BooleanValue(ecn),
                             "QueueDelayReference", TimeValue(Time(target.empty() ? "15ms" : target)));
    }
    else if (qdisc == "red")
    {
        tch.SetRootQueueDisc("ns3::RedQueueDisc",
                             "MaxSize", maybeLimit("60p"),
                             "MinTh", DoubleValue(thresh),
                             "MaxTh", DoubleValue(maxthresh),
                             "QW", DoubleValue(qWeight),
                             "LInterm", DoubleValue(10.0),
                             "Gentle", BooleanValue(false),
                             "Wait", BooleanValue(true),
                             "UseEcn", BooleanValue(ecn),
                             "LinkBandwidth", StringValue(rate),
                             "LinkDelay", StringValue(delay));
    }
    else
    {
        tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", maybeLimit("1000p"));
    }
    QueueDiscContainer qdiscs = tch.Install(bdev); // [0] r1->r2, [1] r2->r1
    addr.Assign(bdev);
    addr.NewNetwork();
    Ptr<QueueDisc> bq = qdiscs.Get(0);
    if (qdisc == "fq_codel" && quantum)
    {
        DynamicCast<FqCoDelQueueDisc>(bq)->SetQuantum(quantum);
    }
    if (qdisc == "fq_pie" && quantum)
    {
        DynamicCast<FqPieQueueDisc>(bq)->SetQuantum(quantum);
    }
    // The reverse direction carries ACKs only; a queue disc that never drops.
    qdiscs.Get(1)->SetAttribute("MaxSize", QueueSizeValue(QueueSize("100000p")));

    // ---- access links: a device FIFO large enough never to drop, no queue disc ----
    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", StringValue(accessRate));
    access.SetChannelAttribute("Delay", StringValue(accessDelay));
    access.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize",
                    QueueSizeValue(QueueSize(std::to_string(accessLimit) + "p")));
    TrafficControlHelper noQdisc;
    std::vector<Ipv4Address> dstAddr(n);
    auto link = [&](Ptr<Node> host, Ptr<Node> router) -> Ipv4Address {
        NetDeviceContainer d = access.Install(host, router);
        Ipv4InterfaceContainer ifc = addr.Assign(d);
        addr.NewNetwork();
        noQdisc.Uninstall(d);
        return ifc.GetAddress(0);
    };
    for (uint32_t i = 0; i < n; ++i)
    {
        link(src.Get(i), r1);
        dstAddr[i] = link(dst.Get(i), r2);
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    // ---- flows ----
    const uint16_t port = 5000;
    std::vector<Ptr<PacketSink>> sinks(n);
    std::vector<Ptr<CbrSource>> cbr;
    for (uint32_t i = 0; i < n; ++i)
    {
        bool isTcp = i < nTcp;
        PacketSinkHelper sinkH(isTcp ? "ns3::TcpSocketFactory" : "ns3::UdpSocketFactory",
                               InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sa = sinkH.Install(dst.Get(i));
        sa.Start(Seconds(0.0));
        sinks[i] = DynamicCast<PacketSink>(sa.Get(0));
        if (isTcp)
        {
            BulkSendHelper ftp("ns3::TcpSocketFactory", InetSocketAddress(dstAddr[i], port));
            ftp.SetAttribute("SendSize", UintegerValue(kSegPayload));
            ftp.SetAttribute("MaxBytes", UintegerValue(0));
            ApplicationContainer ca = ftp.Install(src.Get(i));
            ca.Start(Seconds(tcpStagger * i));
        }
        else
        {
            Ptr<CbrSource> s = CreateObject<CbrSource>();
            s->Configure(InetSocketAddress(dstAddr[i], port), udpSize - kUdpIpHdr,
                         Seconds(udpSize * 8.0 / udpRateBps));
            src.Get(i)->AddApplication(s);
            s->SetStartTime(Seconds(udpStart));
            cbr.push_back(s);
        }
    }

    // ---- measurements ----
    Hook(bq, "Enqueue", MakeCallback(&QdiscEnqueue));
    Hook(bq, "DropBeforeEnqueue", MakeCallback(&QdiscDropBefore));
    Hook(bq, "DropAfterDequeue", MakeCallback(&QdiscDropAfter));
    Hook(bq, "SojournTime", MakeCallback(&Sojourn));
    Hook(bq, "Drop", MakeCallback(&QdiscDrop));
    Hook(bdev.Get(0), "PhyTxBegin", MakeCallback(&TxBegin));

    std::ofstream traceFile;
    if (!trace.empty())
    {
        traceFile.open(trace);
        traceFile << "time_s,queue_pkts,drops_pkts" << (qdisc == "cobalt" ? ",pdrop,count" : "") << "\n";
        if (qdisc == "cobalt")
        {
            Hook(bq, "Count", MakeCallback(&CobaltCount));
        }
        Simulator::Schedule(Seconds(0), &Sample, bq, &traceFile);
    }
    Simulator::Stop(Seconds(duration));
    Simulator::Run();

    // ---- results ----
    const QueueDisc::Stats& st = bq->GetStats();
    auto wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::ostringstream js;
    js << "{\"schema\": \"fairway.ns3/1\", \"scenario\": \"aqm-" << qdisc << "\", \"seed\": " << seed
       << ", \"duration_s\": " << Fmt(duration) << ", \"ns_version\": \"3.37\", \"wall_s\": "
       << Fmt(wall) << ",\n \"flows\": [";
    for (uint32_t i = 0; i < n; ++i)
    {
        bool isTcp = i < nTcp;
        uint64_t payload = sinks[i]->GetTotalRx();
        js << (i ? ",\n" : "\n") << "  {\"name\": \"" << (isTcp ? "tcp" : "udp")
           << (isTcp ? i : i - nTcp) << "\", \"class\": \"" << (isTcp ? "tcp" : "udp") << "\"";
        if (isTcp)
        {
            uint64_t pkts = payload / kSegPayload;
            // fairway's bytes: every data packet at its wire size (the sink's in-order payload,
            // 1000 bytes a segment, plus 40 bytes of header each).
            js << ", \"recv_bytes\": " << pkts * (kSegPayload + kTcpIpHdr) << ", \"recv_pkts\": " << pkts;
        }
        else
        {
            uint64_t pkts = payload / (udpSize - kUdpIpHdr);
            js << ", \"recv_bytes\": " << pkts * udpSize << ", \"recv_pkts\": " << pkts
               << ", \"sent_pkts\": " << cbr[i - nTcp]->Sent();
        }
        js << ", \"recv_payload_bytes\": " << payload << "}";
    }
    js << "\n ],\n \"links\": [{\"name\": \"r1->r2\", \"queue\": \"" << bq->GetInstanceTypeId().GetName()
       << "\", \"arrivals_pkts\": " << st.nTotalReceivedPackets
       << ", \"departures_pkts\": " << st.nTotalDequeuedPackets
       << ", \"drops_pkts\": " << st.nTotalDroppedPackets
       << ", \"marks_pkts\": " << st.nTotalMarkedPackets
       << ", \"drops_tcp_pkts\": " << g_dropsByProto[6] << ", \"drops_udp_pkts\": " << g_dropsByProto[17];
    if (qdisc == "fq_codel" || qdisc == "fq_pie")
    {
        // The flow queues used: fewer than the flows when two flows hash to one queue.
        js << ", \"flow_queues\": " << bq->GetNQueueDiscClasses();
    }
    if (Ptr<CobaltQueueDisc> c = DynamicCast<CobaltQueueDisc>(bq))
    {
        js << ", \"pdrop_end\": " << Fmt(c->GetPdrop());
    }
    js << ", \"drops_by_reason\": {";
    bool first = true;
    for (const auto& [why, k] : st.nDroppedPacketsBeforeEnqueue)
    {
        js << (first ? "" : ", ") << "\"enqueue: " << why << "\": " << k;
        first = false;
    }
    for (const auto& [why, k] : st.nDroppedPacketsAfterDequeue)
    {
        js << (first ? "" : ", ") << "\"dequeue: " << why << "\": " << k;
        first = false;
    }
    js << "}, \"mean_sojourn_s\": " << Fmt(g_waits.n ? g_waits.sumNs / g_waits.n / 1e9 : 0)
       << ", \"max_sojourn_s\": " << Fmt(g_waits.maxNs / 1e9) << ", \"waits\": " << g_waits.n
       << ", \"qdisc_mean_sojourn_s\": "
       << Fmt(g_waits.qdiscN ? g_waits.qdiscSumNs / g_waits.qdiscN / 1e9 : 0) << ", \"attributes\": {";
    first = true;
    TypeId tid = bq->GetInstanceTypeId();
    for (uint32_t i = 0; i < tid.GetAttributeN(); ++i)
    {
        auto a = tid.GetAttribute(i);
        if (!(a.flags & TypeId::ATTR_GET) || !a.accessor->HasGetter())
        {
            continue;
        }
        Ptr<AttributeValue> v = a.checker->Create();
        bq->GetAttribute(a.name, *v);
        js << (first ? "" : ", ") << "\"" << a.name << "\": \"" << v->SerializeToString(a.checker) << "\"";
        first = false;
    }
    js << "}}]}\n";
    std::ofstream f(out);
    if (!f)
    {
        Fail("cannot write " + out);
    }
    f << js.str();
    Simulator::Destroy();
    return 0;
}
