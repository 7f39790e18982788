#include "metaroce-fabric-helper.h"

#include "metaroce-fabric-failure.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

namespace
{

const char* const kTierNames[kMetaRoceFabricTiers] = {"host",
                                                      "leaf-spine",
                                                      "spine-core",
                                                      "intra-server"};

} // namespace

NS_LOG_COMPONENT_DEFINE("MetaRoceFabricHelper");

MetaRoceFabricHelper::MetaRoceFabricHelper()
{
    m_nicFactory.SetTypeId("ns3::MetaRoceNic");
    for (ObjectFactory& f : m_switchFactories)
    {
        f.SetTypeId("ns3::MetaRoceSwitch");
    }
    for (MetaRoceFabricLinkSpec& l : m_links)
    {
        l = {DataRate("100Gbps"), MicroSeconds(1)};
    }
    // The intra-server link of a rail fabric: nine times the default NIC rate, as an H100's
    // NVLink (450 GB/s each way) is to its 400 Gb/s NIC, and a short delay.
    m_links[static_cast<uint32_t>(MetaRoceFabricTier::SERVER)] = {DataRate("900Gbps"),
                                                                  NanoSeconds(100)};
    // Server switches are lossless and mark nothing, as NVLink's credit flow control and a
    // NIC's own send queue: see SetServerLink.
    ObjectFactory& server = m_switchFactories[static_cast<uint32_t>(MetaRoceFabricTier::SERVER)];
    server.Set("PfcEnabled", BooleanValue(true));
    server.Set("EcnEnabled", BooleanValue(false));
}

void
MetaRoceFabricHelper::SetTopology(MetaRoceTopology topology)
{
    m_shape.topology = topology;
}

void
MetaRoceFabricHelper::SetHosts(uint32_t hosts)
{
    m_shape.hosts = hosts;
}

void
MetaRoceFabricHelper::SetPlanes(uint32_t planes)
{
    m_shape.planes = planes;
}

void
MetaRoceFabricHelper::SetHostsPerLeaf(uint32_t hostsPerLeaf)
{
    m_shape.hostsPerLeaf = hostsPerLeaf;
}

void
MetaRoceFabricHelper::SetSpines(uint32_t spines)
{
    m_shape.spines = spines;
}

void
MetaRoceFabricHelper::SetLeavesPerPod(uint32_t leavesPerPod)
{
    m_shape.leavesPerPod = leavesPerPod;
}

void
MetaRoceFabricHelper::SetCores(uint32_t cores)
{
    m_shape.cores = cores;
}

void
MetaRoceFabricHelper::SetFatTree(uint32_t k)
{
    NS_ABORT_MSG_IF(k < 2 || k % 2 != 0,
                    "MetaRoceFabricHelper::SetFatTree: k must be even and >= 2, got " << k);
    m_shape.topology = MetaRoceTopology::FAT_TREE;
    m_shape.hostsPerLeaf = k / 2;
    m_shape.leavesPerPod = k / 2;
    m_shape.spines = k / 2;
    m_shape.cores = (k / 2) * (k / 2);
}

void
MetaRoceFabricHelper::SetHostLink(DataRate rate, Time delay)
{
    m_links[static_cast<uint32_t>(MetaRoceFabricTier::LEAF)] = {rate, delay};
}

void
MetaRoceFabricHelper::SetFabricLink(DataRate rate, Time delay)
{
    m_links[static_cast<uint32_t>(MetaRoceFabricTier::SPINE)] = {rate, delay};
}

void
MetaRoceFabricHelper::SetCoreLink(DataRate rate, Time delay)
{
    m_links[static_cast<uint32_t>(MetaRoceFabricTier::CORE)] = {rate, delay};
}

void
MetaRoceFabricHelper::SetRailGpus(uint32_t gpus)
{
    m_shape.railGpus = gpus;
}

void
MetaRoceFabricHelper::SetServerLink(DataRate rate, Time delay)
{
    m_links[static_cast<uint32_t>(MetaRoceFabricTier::SERVER)] = {rate, delay};
}

void
MetaRoceFabricHelper::SetEcmpSeed(uint32_t seed)
{
    m_ecmpSeed = seed;
}

void
MetaRoceFabricHelper::SetNicAttribute(const std::string& name, const AttributeValue& value)
{
    m_nicFactory.Set(name, value);
}

void
MetaRoceFabricHelper::SetSwitchAttribute(const std::string& name, const AttributeValue& value)
{
    for (const auto tier :
         {MetaRoceFabricTier::LEAF, MetaRoceFabricTier::SPINE, MetaRoceFabricTier::CORE})
    {
        SetSwitchAttribute(tier, name, value);
    }
}

void
MetaRoceFabricHelper::SetSwitchAttribute(MetaRoceFabricTier tier,
                                         const std::string& name,
                                         const AttributeValue& value)
{
    m_switchFactories.at(static_cast<uint32_t>(tier)).Set(name, value);
}

void
MetaRoceFabricHelper::Build()
{
    NS_ABORT_MSG_IF(m_built, "MetaRoceFabricHelper::Build: already built");
    m_shape.Validate();
    for (uint32_t t = 0; t < kMetaRoceFabricTiers; ++t)
    {
        NS_ABORT_MSG_IF(m_links[t].rate.GetBitRate() == 0,
                        "MetaRoceFabricHelper: the " << kTierNames[t]
                                                     << " link rate must be positive");
        // Positive, not only non-negative: a distributed run's lookahead is the smallest delay
        // of a link between ranks, and arrivals are staged strictly after their transmission.
        NS_ABORT_MSG_IF(!m_links[t].delay.IsStrictlyPositive(),
                        "MetaRoceFabricHelper: the " << kTierNames[t]
                                                     << " link delay must be positive");
    }
    m_partition.Validate(m_shape);
    m_built = true;

    for (uint32_t h = 0; h < m_shape.hosts; ++h)
    {
        m_hostNodes.Add(CreateObject<Node>(m_partition.HostRank(m_shape, h)));
    }
    for (uint32_t h = 0; h < m_shape.hosts; ++h)
    {
        Ptr<MetaRoceNic> nic = m_nicFactory.Create<MetaRoceNic>();
        m_hostNodes.Get(h)->AggregateObject(nic);
        m_nics.push_back(nic);
    }
    MetaRoceFabricBuilder builder(m_shape, m_links, m_switchFactories, m_partition, m_deviceType);
    uint32_t seed = m_ecmpSeed;
    for (uint32_t p = 0; p < m_shape.planes; ++p)
    {
        m_planes.push_back(builder.Build(p, m_nics, seed));
    }
    NS_LOG_INFO("built " << m_shape.hosts << " hosts x " << m_shape.planes << " planes, "
                         << m_shape.Leaves() << " leaves, " << m_shape.Spines() << " spines and "
                         << GetNCores() << " cores per plane, oversubscription "
                         << GetOversubscription());
}

void
MetaRoceFabricHelper::SetDeviceType(const std::string& typeName)
{
    NS_ABORT_MSG_IF(m_built, "MetaRoceFabricHelper::SetDeviceType: call before Build()");
    const std::string problem = MetaRoceLinkHelper::GetDeviceTypeProblem(typeName);
    NS_ABORT_MSG_IF(!problem.empty(), "MetaRoceFabricHelper: " << problem);
    m_deviceType = typeName;
}

const std::string&
MetaRoceFabricHelper::GetDeviceType() const
{
    return m_deviceType;
}

void
MetaRoceFabricHelper::SetPartition(const MetaRoceFabricPartition& partition)
{
    NS_ABORT_MSG_IF(m_built, "MetaRoceFabricHelper::SetPartition: call before Build()");
    m_partition = partition;
}

const MetaRoceFabricPartition&
MetaRoceFabricHelper::GetPartition() const
{
    return m_partition;
}

void
MetaRoceFabricHelper::CheckBuilt() const
{
    NS_ABORT_MSG_IF(!m_built, "MetaRoceFabricHelper: call Build() first");
}

void
MetaRoceFabricHelper::CheckPlane(uint32_t plane) const
{
    CheckBuilt();
    NS_ABORT_MSG_IF(plane >= m_shape.planes,
                    "MetaRoceFabricHelper: no plane " << plane << " (" << m_shape.planes
                                                      << " planes)");
}

const MetaRoceFabricShape&
MetaRoceFabricHelper::GetShape() const
{
    return m_shape;
}

uint32_t
MetaRoceFabricHelper::GetNHosts() const
{
    return m_shape.hosts;
}

uint32_t
MetaRoceFabricHelper::GetNPlanes() const
{
    return m_shape.planes;
}

uint32_t
MetaRoceFabricHelper::GetNLeaves() const
{
    return m_shape.Leaves();
}

uint32_t
MetaRoceFabricHelper::GetNSpines() const
{
    return m_shape.Spines();
}

uint32_t
MetaRoceFabricHelper::GetNPods() const
{
    return m_shape.Pods();
}

uint32_t
MetaRoceFabricHelper::GetNCores() const
{
    return m_shape.CoresPerSpine() > 0 ? m_shape.cores : 0;
}

uint32_t
MetaRoceFabricHelper::GetNServers() const
{
    return m_shape.Servers();
}

Ptr<MetaRoceSwitch>
MetaRoceFabricHelper::GetServer(uint32_t plane, uint32_t server) const
{
    return GetSwitch(plane, MetaRoceFabricTier::SERVER, server);
}

Ptr<Node>
MetaRoceFabricHelper::GetHost(uint32_t host) const
{
    return GetNic(host)->GetObject<Node>();
}

Ptr<MetaRoceNic>
MetaRoceFabricHelper::GetNic(uint32_t host) const
{
    CheckBuilt();
    NS_ABORT_MSG_IF(host >= m_shape.hosts,
                    "MetaRoceFabricHelper: no host " << host << " (" << m_shape.hosts << " hosts)");
    return m_nics[host];
}

NodeContainer
MetaRoceFabricHelper::GetHosts() const
{
    CheckBuilt();
    return m_hostNodes;
}

std::vector<Ptr<MetaRoceNic>>
MetaRoceFabricHelper::GetNics() const
{
    CheckBuilt();
    return m_nics;
}

Ptr<MetaRoceSwitch>
MetaRoceFabricHelper::GetSwitch(uint32_t plane, MetaRoceFabricTier tier, uint32_t index) const
{
    CheckPlane(plane);
    const auto& tierSwitches = m_planes[plane].switches.at(static_cast<uint32_t>(tier));
    NS_ABORT_MSG_IF(index >= tierSwitches.size(),
                    "MetaRoceFabricHelper: no " << MetaRoceFabricTierName(tier) << " " << index
                                                << " on plane " << plane << " ("
                                                << tierSwitches.size() << " per plane)");
    return tierSwitches[index];
}

Ptr<MetaRoceSwitch>
MetaRoceFabricHelper::GetLeaf(uint32_t plane, uint32_t leaf) const
{
    return GetSwitch(plane, MetaRoceFabricTier::LEAF, leaf);
}

Ptr<MetaRoceSwitch>
MetaRoceFabricHelper::GetSpine(uint32_t plane, uint32_t spine) const
{
    return GetSwitch(plane, MetaRoceFabricTier::SPINE, spine);
}

Ptr<MetaRoceSwitch>
MetaRoceFabricHelper::GetCore(uint32_t plane, uint32_t core) const
{
    return GetSwitch(plane, MetaRoceFabricTier::CORE, core);
}

Ipv4Address
MetaRoceFabricHelper::GetHostAddress(uint32_t host, uint32_t plane) const
{
    NS_ABORT_MSG_IF(host >= m_shape.hosts || plane >= m_shape.planes,
                    "MetaRoceFabricHelper: no host " << host << " on plane " << plane);
    return m_shape.HostAddress(host, plane);
}

std::vector<Ptr<MetaRoceSwitch>>
MetaRoceFabricHelper::GetSwitches() const
{
    std::vector<Ptr<MetaRoceSwitch>> all;
    for (const MetaRoceFabricPlane& plane : m_planes)
    {
        for (const auto& tier : plane.switches)
        {
            all.insert(all.end(), tier.begin(), tier.end());
        }
    }
    return all;
}

std::vector<Ptr<MetaRoceSwitch>>
MetaRoceFabricHelper::GetSwitches(uint32_t plane, MetaRoceFabricTier tier) const
{
    CheckPlane(plane);
    return m_planes[plane].switches.at(static_cast<uint32_t>(tier));
}

NodeContainer
MetaRoceFabricHelper::GetSwitchNodes(uint32_t plane) const
{
    CheckPlane(plane);
    NodeContainer nodes;
    for (const auto& tier : m_planes[plane].switches)
    {
        for (const auto& sw : tier)
        {
            nodes.Add(sw->GetObject<Node>());
        }
    }
    return nodes;
}

double
MetaRoceFabricHelper::GetOversubscription(MetaRoceFabricTier tier) const
{
    auto bps = [this](MetaRoceFabricTier t) {
        return static_cast<double>(m_links[static_cast<uint32_t>(t)].rate.GetBitRate());
    };
    if (tier == MetaRoceFabricTier::LEAF && m_shape.topology == MetaRoceTopology::RAIL)
    {
        // A rail leaf: a NIC wire per server of its group over its spine uplinks.
        const uint32_t groups = m_shape.Leaves() / m_shape.railGpus;
        return m_shape.SpinesPerPod() == 0 || groups <= 1
                   ? 1.0
                   : m_shape.hostsPerLeaf * bps(MetaRoceFabricTier::LEAF) /
                         (m_shape.SpinesPerPod() * bps(MetaRoceFabricTier::SPINE));
    }
    if (tier == MetaRoceFabricTier::LEAF && m_shape.SpinesPerPod() > 0)
    {
        return m_shape.hostsPerLeaf * bps(MetaRoceFabricTier::LEAF) /
               (m_shape.SpinesPerPod() * bps(MetaRoceFabricTier::SPINE));
    }
    if (tier == MetaRoceFabricTier::SPINE && m_shape.CoresPerSpine() > 0)
    {
        return m_shape.LeavesPerPod() * bps(MetaRoceFabricTier::SPINE) /
               (m_shape.CoresPerSpine() * bps(MetaRoceFabricTier::CORE));
    }
    return 1.0;
}

double
MetaRoceFabricHelper::GetOversubscription() const
{
    return GetOversubscription(MetaRoceFabricTier::LEAF) *
           GetOversubscription(MetaRoceFabricTier::SPINE);
}

void
MetaRoceFabricHelper::ScheduleFailure(const MetaRoceFabricLink& link, Time at, Time until)
{
    MetaRoceFabricFailure::Schedule(link, at, until);
    m_failureSteps.insert((Simulator::Now() + at).GetTimeStep());
    if (until != Time::Max())
    {
        m_failureSteps.insert((Simulator::Now() + until).GetTimeStep());
    }
}

bool
MetaRoceFabricHelper::HasFailureEventAt(Time t) const
{
    return m_failureSteps.count(t.GetTimeStep()) > 0;
}

void
MetaRoceFabricHelper::FailHostLink(uint32_t host, uint32_t plane, Time at, Time until)
{
    GetHostLink(host, plane);
    ScheduleFailure(m_planes[plane].hostLinks[host], at, until);
}

void
MetaRoceFabricHelper::FailFabricLink(uint32_t plane,
                                     uint32_t leaf,
                                     uint32_t spine,
                                     Time at,
                                     Time until)
{
    ScheduleFailure(LeafLink(plane, leaf, spine), at, until);
}

void
MetaRoceFabricHelper::FailCoreLink(uint32_t plane,
                                   uint32_t spine,
                                   uint32_t core,
                                   Time at,
                                   Time until)
{
    ScheduleFailure(SpineLink(plane, spine, core), at, until);
}

void
MetaRoceFabricHelper::FailSwitch(uint32_t plane,
                                 MetaRoceFabricTier tier,
                                 uint32_t index,
                                 Time at,
                                 Time until)
{
    Ptr<MetaRoceSwitch> sw = GetSwitch(plane, tier, index);
    for (const MetaRoceFabricLink& l : GetLinks(plane))
    {
        if (l.swA == sw || l.swB == sw)
        {
            ScheduleFailure(l, at, until);
        }
    }
}

void
MetaRoceFabricHelper::FailSpine(uint32_t plane, uint32_t spine, Time at, Time until)
{
    FailSwitch(plane, MetaRoceFabricTier::SPINE, spine, at, until);
}

void
MetaRoceFabricHelper::FailPlane(uint32_t plane, Time at, Time until)
{
    for (const MetaRoceFabricLink& l : GetLinks(plane))
    {
        ScheduleFailure(l, at, until);
    }
}

int64_t
MetaRoceFabricHelper::AssignStreams(int64_t stream)
{
    CheckBuilt();
    int64_t used = 0;
    for (const auto& nic : m_nics)
    {
        used += nic->AssignStreams(stream + used);
    }
    for (const auto& sw : GetSwitches())
    {
        used += sw->AssignStreams(stream + used);
    }
    return used;
}

} // namespace ns3
