// dumbbell-mid.cc: ns-3 (3.37) twin of fairway's dumbbell-mid validation scenario,
// written to follow the ns-2 twin (validation/dumbbell-mid.tcl) as closely as ns-3 allows.
//
//   ts0..ts99, us0..us9 --- r1 ==== RED ==== r2 --- td0..td99, ud0..ud9
//   every end node: own point-to-point link to its router, 1 Gb/s 2 ms,
//                   DropTail device queue of 49 packets (ns-2 limit_ 50), no queue disc
//   r1-r2: 100 Mb/s 10 ms, RedQueueDisc in byte mode on both directions:
//          MaxSize 1000 x 500 B, MinTh/MaxTh 100/300 x 500 B, MeanPktSize 500,
//          gentle, wait, LInterm 10, QW -1 (ns-2's automatic q_weight_), device queue 1 packet
//   "tcp0".."tcp99": TcpNewReno tsI -> tdI, BulkSend (FTP), 1000-byte segments, from 0 s
//   "cbr0".."cbr9":  UDP usI -> udI, 1000-byte IP packets every 1.6 ms (5 Mb/s), from 1 s
//   run 20 s
//
// Usage: dumbbell-mid <out.json> [seed] [n_tcp n_cbr bottleneck_bps access_bps thresh maxthresh
//                     limit duration_s]
// See validation/ns3/README.md for the mapping to ns-2 and the differences.

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
#include <vector>

using namespace ns3;

namespace
{

// Sizes, in bytes, as ns-2 counts them (hdr_cmn size = what its links serialise).
constexpr uint32_t kSegPayload = 1000; // TCP packetSize_
constexpr uint32_t kTcpIpHdr = 40;     // ns-2 tcpip_base_hdr_size_; ns-3: 20 IPv4 + 20 TCP, no options
constexpr uint32_t kCbrIpSize = 1000;  // ns-2 CBR packetSize_ (UDP adds no header in ns-2)
constexpr uint32_t kUdpIpHdr = 28;     // ns-3: 20 IPv4 + 8 UDP
constexpr uint32_t kCbrPayload = kCbrIpSize - kUdpIpHdr;
constexpr double kCbrRateBps = 5e6;
constexpr uint32_t kTcpWindowPkts = 10000; // ns-2 window_
constexpr uint32_t kAccessQueuePkts = 49;  // ns-2 DropTail limit_ 50 holds at most 49 waiting
constexpr uint32_t kRedMeanPktSize = 500;  // ns-2 mean_pktsize_ (byte mode)

struct Params
{
    uint32_t nTcp = 100;
    uint32_t nCbr = 10;
    double bottleneckBps = 100e6;
    double accessBps = 1e9;
    double thresh = 100;
    double maxthresh = 300;
    uint32_t limit = 1000;
    double duration = 20.0;
};

[[noreturn]] void
Usage(const std::string& msg)
{
    std::cerr << "error: " << msg << "\n"
              << "usage: dumbbell-mid <out.json> [seed] [n_tcp n_cbr bottleneck_bps access_bps "
                 "thresh maxthresh limit duration_s]\n"
              << "  (seed: integer >= 1, default 1; the eight scenario values default to "
                 "100 10 100e6 1e9 100 300 1000 20)\n";
    std::exit(2);
}

double
ParseNum(const char* s, const char* what, double min)
{
    char* end = nullptr;
    double v = std::strtod(s, &end);
    if (end == s || *end != '\0' || !std::isfinite(v) || v < min)
    {
        Usage(std::string(what) + " must be a number >= " + std::to_string(min) + ", got '" + s +
              "'");
    }
    return v;
}

uint32_t
ParseUint(const char* s, const char* what, uint32_t min)
{
    char* end = nullptr;
    long long v = std::strtoll(s, &end, 10);
    if (end == s || *end != '\0' || v < (long long)min || v > 4000000000LL)
    {
        Usage(std::string(what) + " must be an integer >= " + std::to_string(min) + ", got '" +
              s + "'");
    }
    return (uint32_t)v;
}

std::string
FmtFixed(double v, int decimals)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string
Fmt(double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

// ns-2's CBR with random_ 0: one packet of a fixed size every interval, the first exactly at
// the start time. (OnOffApplication sends its first packet one interval late and derives the
// interval from the UDP payload size, so it is not used.)
class CbrSource : public Application
{
  public:
    void Configure(Address peer, uint32_t payload, Time interval)
    {
        m_peer = peer;
        m_payload = payload;
        m_interval = interval;
    }

    uint64_t SentPkts() const
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

struct TcpFlow
{
    std::string name;
    Ptr<BulkSendApplication> src;
    Ptr<PacketSink> sink;
    uint32_t cwndEnd = 0;     // bytes, the last CongestionWindow value
    uint32_t cwndMax = 0;     // bytes
    uint64_t sentData = 0;    // data segments sent, retransmissions included
    uint64_t retx = 0;        // data segments sent again (start below the highest sent)
    SequenceNumber32 highSent{0};
    uint32_t rtos = 0;        // entries into CA_LOSS (retransmission timeouts)
    uint32_t recoveries = 0;  // entries into CA_RECOVERY (fast retransmits)
    uint64_t arrivedData = 0; // data segments that reached the sink host, duplicates included
};

struct CbrFlow
{
    std::string name;
    Ptr<CbrSource> src;
    Ptr<PacketSink> sink;
};

uint64_t g_otherDrops = 0;

void
CountOtherDrop(Ptr<const Packet>)
{
    ++g_otherDrops;
}

void
CountOtherQdiscDrop(Ptr<const QueueDiscItem>)
{
    ++g_otherDrops;
}

// TraceConnectWithoutContext returns false, silently, for a misspelt trace source.
template <typename Cb>
void
Hook(Ptr<Object> obj, const std::string& source, const Cb& cb)
{
    NS_ABORT_MSG_UNLESS(obj && obj->TraceConnectWithoutContext(source, cb),
                        "cannot hook trace source " << source);
}

void
CwndChange(TcpFlow* f, uint32_t, uint32_t now)
{
    f->cwndEnd = now;
    f->cwndMax = std::max(f->cwndMax, now);
}

void
SenderTx(TcpFlow* f, Ptr<const Packet> pkt, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (pkt->GetSize() == 0)
    {
        return; // SYN or pure ACK
    }
    ++f->sentData;
    if (h.GetSequenceNumber() < f->highSent)
    {
        ++f->retx;
    }
    SequenceNumber32 end = h.GetSequenceNumber() + pkt->GetSize();
    if (end > f->highSent)
    {
        f->highSent = end;
    }
}

void
CongState(TcpFlow* f, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    if (now == TcpSocketState::CA_LOSS)
    {
        ++f->rtos;
    }
    else if (now == TcpSocketState::CA_RECOVERY)
    {
        ++f->recoveries;
    }
}

// IP packets arriving at a TCP sink host: that host receives nothing but its one flow's SYN,
// handshake ACK and data segments, so every packet longer than the 40-byte headers is a data
// segment (copies included).
void
SinkIpRx(TcpFlow* f, Ptr<const Packet> pkt, Ptr<Ipv4>, uint32_t)
{
    if (pkt->GetSize() > kTcpIpHdr + 20) // more than IP + TCP headers (+ SYN options)
    {
        ++f->arrivedData;
    }
}

// The BulkSend socket exists once the application has started (t = 0).
void
HookSender(TcpFlow* f)
{
    Ptr<Socket> s = f->src->GetSocket();
    NS_ABORT_MSG_IF(!s, f->name << ": no sender socket");
    Hook(s, "CongestionWindow", MakeBoundCallback(&CwndChange, f));
    Hook(s, "Tx", MakeBoundCallback(&SenderTx, f));
    Hook(s, "CongState", MakeBoundCallback(&CongState, f));
}

bool
EnvFlag(const char* name)
{
    const char* v = std::getenv(name);
    return v && *v && std::string(v) != "0";
}

} // namespace

int
main(int argc, char* argv[])
{
    auto t0 = std::chrono::steady_clock::now();

    if (argc != 2 && argc != 3 && argc != 11)
    {
        Usage("expected 1, 2 or 10 arguments, got " + std::to_string(argc - 1));
    }
    std::string outPath = argv[1];
    uint32_t seed = 1;
    if (argc >= 3)
    {
        seed = ParseUint(argv[2], "seed", 1);
    }
    Params p;
    bool custom = false;
    if (argc == 11)
    {
        custom = true;
        p.nTcp = ParseUint(argv[3], "n_tcp", 0);
        p.nCbr = ParseUint(argv[4], "n_cbr", 0);
        p.bottleneckBps = ParseNum(argv[5], "bottleneck_bps", 1);
        p.accessBps = ParseNum(argv[6], "access_bps", 1);
        p.thresh = ParseNum(argv[7], "thresh", 0);
        p.maxthresh = ParseNum(argv[8], "maxthresh", 0);
        p.limit = ParseUint(argv[9], "limit", 1);
        p.duration = ParseNum(argv[10], "duration_s", 0);
        if (p.thresh > p.maxthresh)
        {
            Usage("thresh exceeds maxthresh");
        }
    }

    // Every random draw of this scenario is RED's early-drop coin (ns-3's TCP has no
    // counterpart of ns-2's random boot_time_). The seed picks the run of ns-3's RNG.
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    // ---- TCP: as close to ns-2's one-way Agent/TCP/Newreno + TCPSink as ns-3 goes ----
    // Knobs for checking how much a difference matters (unset in normal runs):
    //   FAIRWAY_NS3_SACK=1         SACK on (ns-2 has none; see README: ns-3 without SACK
    //                              resends data the receiver already has)
    //   FAIRWAY_NS3_PRR=1          ns-3's default Proportional Rate Reduction instead of
    //                              NewReno's classic fast recovery
    //   FAIRWAY_NS3_SNDBUF=<bytes> the send buffer (see below)
    const bool sack = EnvFlag("FAIRWAY_NS3_SACK");
    const bool prr = EnvFlag("FAIRWAY_NS3_PRR");
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    // ns-2's NewReno fast recovery sets cwnd = ssthresh + 3 and inflates it by one segment per
    // further duplicate ACK (RFC 6582): ns-3's TcpClassicRecovery.
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(prr ? TcpPrrRecovery::GetTypeId()
                                       : TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(kSegPayload)); // packetSize_
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(2)); // windowInit_ 2
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1)); // TCPSink: ACK every packet
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(Seconds(3.0))); // rtxcur_init_ 3
    // window_ 10000 packets is ns-2's only cap besides cwnd. ns-3 caps the flight by the
    // receive window (RcvBufSize, advertised with window scaling) and by the send buffer
    // (SndBufSize), which holds the unsent data as packets, so 10000 segments of it cost
    // over 200 MiB for 100 flows. It is sized instead to twice what the path can hold
    // (bandwidth x propagation RTT + RED limit + access queues), or window_ if smaller: a
    // flight can't outgrow that before losses stop it (largest cwnd in dumbbell-mid: 33
    // segments). The results are identical to a 10 MB buffer.
    const double rttProp = 2 * (0.002 + 0.010 + 0.002);
    uint64_t pathBytes = uint64_t(p.bottleneckBps * rttProp / 8) +
                         uint64_t(p.limit) * kRedMeanPktSize +
                         2ULL * kAccessQueuePkts * (kSegPayload + kTcpIpHdr);
    uint64_t sndBuf = std::min<uint64_t>(uint64_t(kTcpWindowPkts) * kSegPayload,
                                         std::max<uint64_t>(2 * pathBytes, 64 * kSegPayload));
    sndBuf = (sndBuf + kSegPayload - 1) / kSegPayload * kSegPayload;
    if (const char* v = std::getenv("FAIRWAY_NS3_SNDBUF"))
    {
        sndBuf = ParseUint(v, "FAIRWAY_NS3_SNDBUF", kSegPayload);
    }
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(kTcpWindowPkts * kSegPayload));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(sndBuf));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack)); // no SACK in ns-2
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false)); // 40-byte headers
    // Window scaling only adds an option to the SYN and SYN-ACK; without it the receive window
    // stops at 64 KB (ns-2's TCPSink has none).
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200))); // minrto_ 0.2
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity",
                       TimeValue(MilliSeconds(10))); // tcpTick_ 0.01
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(true)); // singledup_ 1
    Config::SetDefault("ns3::TcpSocketBase::ReTxThreshold", UintegerValue(3));    // numdupacks_ 3

    // ---- nodes ----
    Ptr<Node> r1 = CreateObject<Node>();
    Ptr<Node> r2 = CreateObject<Node>();
    NodeContainer ts, td, us, ud;
    ts.Create(p.nTcp);
    td.Create(p.nTcp);
    us.Create(p.nCbr);
    ud.Create(p.nCbr);
    NodeContainer all;
    all.Add(r1);
    all.Add(r2);
    all.Add(ts);
    all.Add(td);
    all.Add(us);
    all.Add(ud);
    InternetStackHelper stack;
    stack.Install(all);

    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.252");

    // ---- bottleneck r1 - r2 ----
    PointToPointHelper bneck;
    bneck.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(p.bottleneckBps))));
    bneck.SetChannelAttribute("Delay", TimeValue(MilliSeconds(10)));
    // The RED queue disc above the device is the queue; the device keeps one packet waiting
    // (the smallest ns-3 allows) besides the one being sent.
    bneck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize("1p")));
    NetDeviceContainer bdev = bneck.Install(r1, r2);

    TrafficControlHelper red;
    red.SetRootQueueDisc(
        "ns3::RedQueueDisc",
        "MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, p.limit * kRedMeanPktSize)),
        "MinTh", DoubleValue(p.thresh * kRedMeanPktSize),
        "MaxTh", DoubleValue(p.maxthresh * kRedMeanPktSize),
        "MeanPktSize", UintegerValue(kRedMeanPktSize),
        "IdlePktSize", UintegerValue(0),
        "Wait", BooleanValue(true),
        "Gentle", BooleanValue(true),
        "QW", DoubleValue(-1.0), // ns-2's q_weight_ -1 formula, from LinkBandwidth/LinkDelay
        "LInterm", DoubleValue(10.0), // linterm_ 10: max_p 0.1
        "Ns1Compat", BooleanValue(false),
        "UseEcn", BooleanValue(false),
        "UseHardDrop", BooleanValue(true),
        "LinkBandwidth", DataRateValue(DataRate(uint64_t(p.bottleneckBps))),
        "LinkDelay", TimeValue(MilliSeconds(10)));
    QueueDiscContainer qdiscs = red.Install(bdev); // [0] r1->r2, [1] r2->r1
    addr.Assign(bdev);
    addr.NewNetwork();
    Ptr<QueueDisc> bq = qdiscs.Get(0);

    // ---- access links ----
    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(p.accessBps))));
    access.SetChannelAttribute("Delay", TimeValue(MilliSeconds(2)));
    access.SetQueue("ns3::DropTailQueue<Packet>",
                    "MaxSize",
                    QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, kAccessQueuePkts)));
    TrafficControlHelper noQdisc;
    std::vector<Ipv4Address> tdAddr(p.nTcp), udAddr(p.nCbr);
    NetDeviceContainer accessDevs;
    auto link = [&](Ptr<Node> host, Ptr<Node> router) -> Ipv4Address {
        NetDeviceContainer d = access.Install(host, router);
        Ipv4InterfaceContainer ifc = addr.Assign(d);
        addr.NewNetwork();
        // Ipv4AddressHelper::Assign installs ns-3's default queue disc (FqCoDel); take it off so
        // that the device's DropTail queue is the only queue, as in ns-2.
        noQdisc.Uninstall(d);
        accessDevs.Add(d);
        return ifc.GetAddress(0);
    };
    for (uint32_t i = 0; i < p.nTcp; ++i)
    {
        link(ts.Get(i), r1);
        tdAddr[i] = link(td.Get(i), r2);
    }
    for (uint32_t i = 0; i < p.nCbr; ++i)
    {
        link(us.Get(i), r1);
        udAddr[i] = link(ud.Get(i), r2);
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    // Drops anywhere but the r1->r2 queue disc, for the record (expected: none): every device
    // queue, the traffic-control layers (they drop when a device without a queue disc is
    // stopped) and the r2->r1 queue disc.
    accessDevs.Add(bdev);
    for (uint32_t i = 0; i < accessDevs.GetN(); ++i)
    {
        Ptr<PointToPointNetDevice> d = DynamicCast<PointToPointNetDevice>(accessDevs.Get(i));
        Hook(d->GetQueue(), "Drop", MakeCallback(&CountOtherDrop));
    }
    for (uint32_t i = 0; i < all.GetN(); ++i)
    {
        Hook(all.Get(i)->GetObject<TrafficControlLayer>(), "TcDrop", MakeCallback(&CountOtherDrop));
    }
    Hook(qdiscs.Get(1), "Drop", MakeCallback(&CountOtherQdiscDrop));

    // ---- flows ----
    const uint16_t port = 5000;
    std::vector<TcpFlow> tcp(p.nTcp);
    for (uint32_t i = 0; i < p.nTcp; ++i)
    {
        TcpFlow& f = tcp[i];
        f.name = "tcp" + std::to_string(i);
        PacketSinkHelper sinkH("ns3::TcpSocketFactory",
                               InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sa = sinkH.Install(td.Get(i));
        sa.Start(Seconds(0.0));
        f.sink = DynamicCast<PacketSink>(sa.Get(0));
        BulkSendHelper ftp("ns3::TcpSocketFactory", InetSocketAddress(tdAddr[i], port));
        ftp.SetAttribute("SendSize", UintegerValue(kSegPayload));
        ftp.SetAttribute("MaxBytes", UintegerValue(0));
        ApplicationContainer ca = ftp.Install(ts.Get(i));
        ca.Start(Seconds(0.0));
        f.src = DynamicCast<BulkSendApplication>(ca.Get(0));
    }
    std::vector<CbrFlow> cbr(p.nCbr);
    const Time cbrInterval = Seconds(kCbrIpSize * 8.0 / kCbrRateBps); // 1.6 ms
    for (uint32_t i = 0; i < p.nCbr; ++i)
    {
        CbrFlow& f = cbr[i];
        f.name = "cbr" + std::to_string(i);
        PacketSinkHelper sinkH("ns3::UdpSocketFactory",
                               InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sa = sinkH.Install(ud.Get(i));
        sa.Start(Seconds(0.0));
        f.sink = DynamicCast<PacketSink>(sa.Get(0));
        f.src = CreateObject<CbrSource>();
        f.src->Configure(InetSocketAddress(udAddr[i], port), kCbrPayload, cbrInterval);
        us.Get(i)->AddApplication(f.src);
        f.src->SetStartTime(Seconds(1.0));
    }

    for (uint32_t i = 0; i < p.nTcp; ++i)
    {
        Hook(td.Get(i)->GetObject<Ipv4L3Protocol>(), "Rx", MakeBoundCallback(&SinkIpRx, &tcp[i]));
        Simulator::Schedule(NanoSeconds(1), &HookSender, &tcp[i]);
    }

    Simulator::Stop(Seconds(p.duration));
    Simulator::Run();

    // ---- results ----
    const QueueDisc::Stats& st = bq->GetStats();
    DoubleValue qw;
    bq->GetAttribute("QW", qw);
    auto wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    std::ostringstream js;
    js << "{\"schema\": \"fairway.ns3/1\", \"scenario\": \"dumbbell-mid\", \"seed\": " << seed
       << ", \"duration_s\": " << Fmt(p.duration) << ",\n \"ns_version\": \"3.37\", \"sim_time_end_s\": "
       << Fmt(Simulator::Now().GetSeconds()) << ", \"wall_s\": " << FmtFixed(wall, 3)
       << ",\n \"params\": {\"custom\": " << (custom ? "true" : "false") << ", \"n_tcp\": " << p.nTcp
       << ", \"n_cbr\": " << p.nCbr << ", \"bottleneck_bps\": " << Fmt(p.bottleneckBps)
       << ", \"access_bps\": " << Fmt(p.accessBps) << ", \"thresh\": " << Fmt(p.thresh)
       << ", \"maxthresh\": " << Fmt(p.maxthresh) << ", \"limit\": " << p.limit
       << ", \"duration_s\": " << Fmt(p.duration) << "},\n \"tcp\": {\"sack\": "
       << (sack ? "true" : "false") << ", \"recovery\": \"" << (prr ? "prr" : "classic")
       << "\", \"snd_buf_bytes\": " << sndBuf << ", \"rcv_buf_bytes\": " << kTcpWindowPkts * kSegPayload
       << "},\n \"flows\": [";
    bool first = true;
    std::vector<std::string> warnings;
    for (TcpFlow& f : tcp)
    {
        uint64_t payload = f.sink->GetTotalRx();
        uint64_t nData = payload / kSegPayload;
        if (payload % kSegPayload != 0)
        {
            warnings.push_back(f.name + ": delivered payload " + std::to_string(payload) +
                               " is not a whole number of segments");
        }
        // ns-2's TCPSink counts on-wire sizes, the 40-byte SYN included: report the same.
        uint64_t nsBytes = payload > 0 ? kTcpIpHdr + nData * (kSegPayload + kTcpIpHdr) : 0;
        uint64_t nsPkts = payload > 0 ? 1 + nData : 0;
        js << (first ? "\n" : ",\n") << "  {\"name\": \"" << f.name
           << "\", \"class\": \"tcp\", \"recv_bytes\": " << nsBytes << ", \"recv_pkts\": " << nsPkts
           << ", \"recv_data_pkts\": " << nData << ", \"recv_payload_bytes\": " << payload
           << ", \"agent\": \"ns3::TcpNewReno\", \"sink\": \"ns3::PacketSink\", \"packet_size\": "
           << kSegPayload << ", \"hdr_bytes\": " << kTcpIpHdr << ", \"retx_pkts\": " << f.retx
           << ", \"sent_data_pkts\": " << f.sentData
           << ", \"arrived_data_pkts\": " << f.arrivedData
           << ", \"cwnd_end\": " << Fmt(double(f.cwndEnd) / kSegPayload)
           << ", \"cwnd_max\": " << Fmt(double(f.cwndMax) / kSegPayload) << ", \"rtos\": " << f.rtos
           << ", \"fast_recoveries\": " << f.recoveries << "}";
        first = false;
    }
    for (CbrFlow& f : cbr)
    {
        uint64_t payload = f.sink->GetTotalRx();
        uint64_t n = payload / kCbrPayload;
        js << (first ? "\n" : ",\n") << "  {\"name\": \"" << f.name
           << "\", \"class\": \"udp\", \"recv_bytes\": " << n * kCbrIpSize << ", \"recv_pkts\": " << n
           << ", \"recv_payload_bytes\": " << payload << ", \"sent_pkts\": " << f.src->SentPkts()
           << ", \"packet_size\": " << kCbrIpSize << ", \"cbr_rate_bps\": " << Fmt(kCbrRateBps) << "}";
        first = false;
    }
    uint32_t early = st.GetNDroppedPackets(RedQueueDisc::UNFORCED_DROP);
    uint32_t forcedAvg = st.GetNDroppedPackets(RedQueueDisc::FORCED_DROP);
    uint32_t full = st.GetNDroppedPackets(QueueDisc::INTERNAL_QUEUE_DROP);
    js << "\n ],\n \"links\": [\n  {\"name\": \"r1->r2\", \"queue\": \"ns3::RedQueueDisc\""
       << ", \"arrivals_pkts\": " << st.nTotalReceivedPackets
       << ", \"departures_pkts\": " << st.nTotalSentPackets
       << ", \"drops_pkts\": " << st.nTotalDroppedPackets << ", \"early_drops_pkts\": " << early
       << ", \"forced_avg_drops_pkts\": " << forcedAvg << ", \"queue_full_drops_pkts\": " << full
       << ", \"arrivals_bytes\": " << st.nTotalReceivedBytes
       << ", \"departures_bytes\": " << st.nTotalSentBytes
       << ", \"drops_bytes\": " << st.nTotalDroppedBytes
       << ", \"queued_pkts_end\": " << bq->GetNPackets()
       << ", \"queued_bytes_end\": " << bq->GetNBytes() << ", \"q_weight\": " << Fmt(qw.Get())
       << "}\n ],\n \"other_drops_pkts\": " << g_otherDrops;
    if (!warnings.empty())
    {
        js << ",\n \"warnings\": [";
        for (size_t i = 0; i < warnings.size(); ++i)
        {
            js << (i ? ", " : "") << "\"" << warnings[i] << "\"";
        }
        js << "]";
    }
    js << "}\n";

    Simulator::Destroy();

    std::ofstream out(outPath);
    if (!out)
    {
        std::cerr << "error: cannot write " << outPath << "\n";
        return 1;
    }
    out << js.str();
    return out.good() ? 0 : 1;
}
