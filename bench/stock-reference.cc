// The stock-ns-3 reference (see stock-reference.h).
#include "stock-reference.h"

#include "alloc-counter.h"

#include "ns3/abort.h"
#include "ns3/ipv4-header.h"
#include "ns3/net-device-container.h"
#include "ns3/node.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/queue-size.h"
#include "ns3/simulator.h"

#include <chrono>
#include <memory>
#include <sys/resource.h>

using namespace ns3;

namespace metaroce_bench
{

namespace
{

constexpr uint16_t kIpv4 = 0x0800;
/// Bytes the device adds on Send (its PPP header): the recorded sizes include them.
constexpr uint32_t kPppBytes = 2;

/// 10.p.l.(i+1), as MetaRoceFabricShape::HostAddress numbers hosts.
Ipv4Address
HostAddress(const StockShape& shape, uint32_t host, uint32_t plane)
{
    const uint32_t leaf = host / shape.hostsPerLeaf;
    const uint32_t index = host % shape.hostsPerLeaf;
    return Ipv4Address((10u << 24) | (plane << 16) | (leaf << 8) | (index + 1));
}

/// A leaf or spine: a destination lookup and a Send on the egress device.
class StockSwitch
{
  public:
    StockSwitch(bool leaf, uint32_t index, uint64_t& hops)
        : m_leaf(leaf)
        , m_index(index)
        , m_hops(hops)
    {
    }

    /// Down ports by host index in the leaf (leaf) or by leaf (spine); up ports by spine.
    std::vector<Ptr<NetDevice>> down;
    std::vector<Ptr<NetDevice>> up;

    bool Receive(Ptr<NetDevice> in, Ptr<const Packet> packet, uint16_t protocol, const Address&)
    {
        ++m_hops;
        Ipv4Header ip;
        packet->PeekHeader(ip);
        const uint32_t dst = ip.GetDestination().Get();
        const uint32_t leaf = (dst >> 8) & 0xff;
        Ptr<NetDevice> out;
        if (!m_leaf)
        {
            out = down[leaf];
        }
        else if (leaf == m_index)
        {
            out = down[(dst & 0xff) - 1];
        }
        else
        {
            out = up[m_nextUp++ % up.size()];
        }
        out->Send(packet->Copy(), out->GetBroadcast(), protocol);
        return true;
    }

  private:
    bool m_leaf;
    uint32_t m_index;
    uint32_t m_nextUp{0};
    uint64_t& m_hops;
};

/// One host port: sends its trace, one packet per event, at the recorded times.
class PortReplay
{
  public:
    PortReplay(Ptr<NetDevice> device, const PortTrace& trace, Ipv4Address src)
        : m_device(device)
        , m_trace(trace)
        , m_src(src)
    {
    }

    void Start()
    {
        if (!m_trace.empty())
        {
            Simulator::Schedule(m_trace.front().at, &PortReplay::SendNext, this);
        }
    }

  private:
    void SendNext()
    {
        const uint32_t bytes = m_trace[m_next].bytes - kPppBytes;
        Ipv4Header ip;
        ip.SetSource(m_src);
        ip.SetDestination(Ipv4Address(m_trace[m_next].destination));
        ip.SetProtocol(17);
        ip.SetPayloadSize(bytes > ip.GetSerializedSize() ? bytes - ip.GetSerializedSize() : 0);
        Ptr<Packet> packet = Create<Packet>(ip.GetPayloadSize());
        packet->AddHeader(ip);
        m_device->Send(packet, m_device->GetBroadcast(), kIpv4);
        if (++m_next < m_trace.size())
        {
            Simulator::Schedule(m_trace[m_next].at - Simulator::Now(), &PortReplay::SendNext, this);
        }
    }

    Ptr<NetDevice> m_device;
    const PortTrace& m_trace;
    Ipv4Address m_src;
    size_t m_next{0};
};

/// The stock fabric: nodes, links, switches and the hosts' receive counting.
class StockFabric
{
  public:
    explicit StockFabric(const StockShape& shape)
        : m_shape(shape)
    {
        m_p2p.SetDeviceAttribute("DataRate", DataRateValue(shape.rate));
        m_p2p.SetChannelAttribute("Delay", TimeValue(shape.delay));
        // Deep enough for the whole run: the reference must deliver every packet.
        m_p2p.SetQueue("ns3::DropTailQueue<Packet>",
                       "MaxSize",
                       QueueSizeValue(QueueSize("1000000p")));
        for (uint32_t h = 0; h < shape.hosts; ++h)
        {
            m_hosts.push_back(CreateObject<Node>());
            m_hostPorts.emplace_back();
        }
        for (uint32_t p = 0; p < shape.planes; ++p)
        {
            BuildPlane(p);
        }
    }

    Ptr<NetDevice> HostPort(uint32_t host, uint32_t plane) const
    {
        return m_hostPorts[host][plane];
    }

    uint64_t hops{0};
    uint64_t delivered{0};

  private:
    void BuildPlane(uint32_t plane)
    {
        const uint32_t leaves = (m_shape.hosts + m_shape.hostsPerLeaf - 1) / m_shape.hostsPerLeaf;
        std::vector<StockSwitch*> leafSwitches;
        std::vector<Ptr<Node>> leafNodes;
        for (uint32_t l = 0; l < leaves; ++l)
        {
            leafSwitches.push_back(NewSwitch(true, l));
            leafNodes.push_back(CreateObject<Node>());
        }
        for (uint32_t h = 0; h < m_shape.hosts; ++h)
        {
            NetDeviceContainer d = m_p2p.Install(m_hosts[h], leafNodes[h / m_shape.hostsPerLeaf]);
            d.Get(0)->SetReceiveCallback(MakeCallback(&StockFabric::HostReceive, this));
            m_hostPorts[h].push_back(d.Get(0));
            Attach(leafSwitches[h / m_shape.hostsPerLeaf], d.Get(1), true);
        }
        for (uint32_t s = 0; s < m_shape.spines; ++s)
        {
            StockSwitch* spine = NewSwitch(false, s);
            Ptr<Node> spineNode = CreateObject<Node>();
            for (uint32_t l = 0; l < leaves; ++l)
            {
                NetDeviceContainer d = m_p2p.Install(leafNodes[l], spineNode);
                Attach(leafSwitches[l], d.Get(0), false);
                Attach(spine, d.Get(1), true);
            }
        }
    }

    StockSwitch* NewSwitch(bool leaf, uint32_t index)
    {
        m_switches.push_back(std::make_unique<StockSwitch>(leaf, index, hops));
        return m_switches.back().get();
    }

    static void Attach(StockSwitch* sw, Ptr<NetDevice> device, bool down)
    {
        (down ? sw->down : sw->up).push_back(device);
        device->SetReceiveCallback(MakeCallback(&StockSwitch::Receive, sw));
    }

    bool HostReceive(Ptr<NetDevice>, Ptr<const Packet>, uint16_t, const Address&)
    {
        ++hops;
        ++delivered;
        return true;
    }

    StockShape m_shape;
    PointToPointHelper m_p2p;
    std::vector<Ptr<Node>> m_hosts;
    std::vector<std::vector<Ptr<NetDevice>>> m_hostPorts; ///< [host][plane]
    std::vector<std::unique_ptr<StockSwitch>> m_switches;
};

} // namespace

double
CpuSeconds()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
           (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

RunFigures
RunStockReference(const StockShape& shape, const std::vector<std::vector<PortTrace>>& traces)
{
    StockFabric fabric(shape);
    std::vector<std::unique_ptr<PortReplay>> replays;
    RunFigures figures;
    for (uint32_t h = 0; h < shape.hosts; ++h)
    {
        for (uint32_t p = 0; p < shape.planes; ++p)
        {
            replays.push_back(std::make_unique<PortReplay>(fabric.HostPort(h, p),
                                                           traces[h][p],
                                                           HostAddress(shape, h, p)));
            replays.back()->Start();
            figures.packets += traces[h][p].size();
        }
    }
    const uint64_t eventsStart = Simulator::GetEventCount();
    const uint64_t allocStart = AllocationCount();
    const double cpuStart = CpuSeconds();
    const auto wallStart = std::chrono::steady_clock::now();
    Simulator::Run();
    figures.wallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    figures.cpuSeconds = CpuSeconds() - cpuStart;
    figures.allocations = AllocationCount() - allocStart;
    figures.events = Simulator::GetEventCount() - eventsStart;
    figures.packetHops = fabric.hops;
    NS_ABORT_MSG_IF(fabric.delivered != figures.packets,
                    "stock reference delivered " << fabric.delivered << " of " << figures.packets);
    Simulator::Destroy();
    return figures;
}

} // namespace metaroce_bench
