#include "metaroce-fabric-helper.h"

#include "ns3/abort.h"
#include "ns3/error-model.h"
#include "ns3/log.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceFabricHelper");

namespace
{

Ipv4Address
HostAddress(uint32_t plane, uint32_t leaf, uint32_t index)
{
    return Ipv4Address((10u << 24) | (plane << 16) | (leaf << 8) | (index + 1));
}

} // namespace

MetaRoceFabricHelper::MetaRoceFabricHelper()
{
    m_nicFactory.SetTypeId("ns3::MetaRoceNic");
    m_switchFactory.SetTypeId("ns3::MetaRoceSwitch");
}

void
MetaRoceFabricHelper::SetHosts(uint32_t hosts)
{
    m_hosts = hosts;
}

void
MetaRoceFabricHelper::SetPlanes(uint32_t planes)
{
    m_planes = planes;
}

void
MetaRoceFabricHelper::SetHostsPerLeaf(uint32_t hostsPerLeaf)
{
    m_hostsPerLeaf = hostsPerLeaf;
}

void
MetaRoceFabricHelper::SetSpines(uint32_t spinesPerPlane)
{
    m_spines = spinesPerPlane;
}

void
MetaRoceFabricHelper::SetHostLink(DataRate rate, Time delay)
{
    m_hostRate = rate;
    m_hostDelay = delay;
}

void
MetaRoceFabricHelper::SetFabricLink(DataRate rate, Time delay)
{
    m_fabricRate = rate;
    m_fabricDelay = delay;
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
    m_switchFactory.Set(name, value);
}

void
MetaRoceFabricHelper::Build()
{
    NS_ABORT_MSG_IF(m_built, "MetaRoceFabricHelper::Build: already built");
    NS_ABORT_MSG_IF(m_hosts < 2, "MetaRoceFabricHelper: need at least 2 hosts, got " << m_hosts);
    NS_ABORT_MSG_IF(m_planes < 1 || m_planes > 64,
                    "MetaRoceFabricHelper: planes must be in [1, 64], got " << m_planes);
    NS_ABORT_MSG_IF(m_hostsPerLeaf < 1 || m_hostsPerLeaf > 254,
                    "MetaRoceFabricHelper: HostsPerLeaf must be in [1, 254], got "
                        << m_hostsPerLeaf);
    const uint32_t leaves = GetNLeaves();
    NS_ABORT_MSG_IF(leaves > 255,
                    "MetaRoceFabricHelper: " << leaves << " leaves per plane; at most 255");
    NS_ABORT_MSG_IF(leaves > 1 && m_spines == 0,
                    "MetaRoceFabricHelper: " << leaves
                                             << " leaves per plane cannot reach each other "
                                                "without spines (SetSpines >= 1)");
    NS_ABORT_MSG_IF(m_spines > 255, "MetaRoceFabricHelper: at most 255 spines per plane");
    NS_ABORT_MSG_IF(m_hostRate.GetBitRate() == 0 || m_fabricRate.GetBitRate() == 0,
                    "MetaRoceFabricHelper: link rates must be positive");
    m_built = true;

    m_hostNodes.Create(m_hosts);
    for (uint32_t h = 0; h < m_hosts; ++h)
    {
        Ptr<MetaRoceNic> nic = m_nicFactory.Create<MetaRoceNic>();
        m_hostNodes.Get(h)->AggregateObject(nic);
        m_nics.push_back(nic);
    }
    PointToPointHelper hostLink;
    hostLink.SetDeviceAttribute("DataRate", DataRateValue(m_hostRate));
    hostLink.SetChannelAttribute("Delay", TimeValue(m_hostDelay));
    PointToPointHelper fabricLink;
    fabricLink.SetDeviceAttribute("DataRate", DataRateValue(m_fabricRate));
    fabricLink.SetChannelAttribute("Delay", TimeValue(m_fabricDelay));

    uint32_t seed = m_ecmpSeed;
    auto makeSwitch = [&]() {
        Ptr<Node> node = CreateObject<Node>();
        m_switchFactory.Set("EcmpSeed", UintegerValue(seed++ * 2654435761u));
        Ptr<MetaRoceSwitch> sw = m_switchFactory.Create<MetaRoceSwitch>();
        node->AggregateObject(sw);
        return sw;
    };
    m_leaves.resize(m_planes);
    m_spineSw.resize(m_planes);
    m_hostLinks.resize(m_planes);
    m_fabricLinks.resize(m_planes);
    for (uint32_t p = 0; p < m_planes; ++p)
    {
        for (uint32_t l = 0; l < leaves; ++l)
        {
            m_leaves[p].push_back(makeSwitch());
        }
        for (uint32_t s = 0; s < m_spines; ++s)
        {
            m_spineSw[p].push_back(makeSwitch());
        }
        // Host links; NIC ports are added plane by plane, so port p is plane p.
        for (uint32_t h = 0; h < m_hosts; ++h)
        {
            const uint32_t l = h / m_hostsPerLeaf;
            Ptr<MetaRoceSwitch> leaf = m_leaves[p][l];
            NetDeviceContainer d = hostLink.Install(m_hostNodes.Get(h), leaf->GetObject<Node>());
            Link link;
            link.a = DynamicCast<PointToPointNetDevice>(d.Get(0));
            link.b = DynamicCast<PointToPointNetDevice>(d.Get(1));
            link.nic = m_nics[h];
            m_nics[h]->AddPort(link.a, HostAddress(p, l, h % m_hostsPerLeaf));
            link.swB = leaf;
            link.portB = leaf->AddPort(link.b);
            leaf->AddRoute(HostAddress(p, l, h % m_hostsPerLeaf),
                           Ipv4Mask("255.255.255.255"),
                           link.portB);
            m_hostLinks[p].push_back(link);
        }
        // Leaf-spine links: leaves spread the plane's other prefixes over every spine.
        for (uint32_t l = 0; l < leaves; ++l)
        {
            for (uint32_t s = 0; s < m_spines; ++s)
            {
                Ptr<MetaRoceSwitch> leaf = m_leaves[p][l];
                Ptr<MetaRoceSwitch> spine = m_spineSw[p][s];
                NetDeviceContainer d =
                    fabricLink.Install(leaf->GetObject<Node>(), spine->GetObject<Node>());
                Link link;
                link.a = DynamicCast<PointToPointNetDevice>(d.Get(0));
                link.b = DynamicCast<PointToPointNetDevice>(d.Get(1));
                link.swA = leaf;
                link.portA = leaf->AddPort(link.a);
                link.swB = spine;
                link.portB = spine->AddPort(link.b);
                leaf->AddRoute(Ipv4Address((10u << 24) | (p << 16)),
                               Ipv4Mask("255.255.0.0"),
                               link.portA);
                spine->AddRoute(Ipv4Address((10u << 24) | (p << 16) | (l << 8)),
                                Ipv4Mask("255.255.255.0"),
                                link.portB);
                m_fabricLinks[p].push_back(link);
            }
        }
    }
    NS_LOG_INFO("built " << m_hosts << " hosts x " << m_planes << " planes, " << leaves
                         << " leaves and " << m_spines << " spines per plane, oversubscription "
                         << GetOversubscription());
}

void
MetaRoceFabricHelper::CheckBuilt() const
{
    NS_ABORT_MSG_IF(!m_built, "MetaRoceFabricHelper: call Build() first");
}

uint32_t
MetaRoceFabricHelper::GetNHosts() const
{
    return m_hosts;
}

uint32_t
MetaRoceFabricHelper::GetNPlanes() const
{
    return m_planes;
}

uint32_t
MetaRoceFabricHelper::GetNLeaves() const
{
    return (m_hosts + m_hostsPerLeaf - 1) / std::max(m_hostsPerLeaf, 1u);
}

uint32_t
MetaRoceFabricHelper::GetNSpines() const
{
    return m_spines;
}

Ptr<Node>
MetaRoceFabricHelper::GetHost(uint32_t host) const
{
    CheckBuilt();
    NS_ABORT_MSG_IF(host >= m_hosts, "MetaRoceFabricHelper: no host " << host);
    return m_hostNodes.Get(host);
}

Ptr<MetaRoceNic>
MetaRoceFabricHelper::GetNic(uint32_t host) const
{
    CheckBuilt();
    NS_ABORT_MSG_IF(host >= m_hosts, "MetaRoceFabricHelper: no host " << host);
    return m_nics[host];
}

Ptr<MetaRoceSwitch>
MetaRoceFabricHelper::GetLeaf(uint32_t plane, uint32_t leaf) const
{
    CheckBuilt();
    NS_ABORT_MSG_IF(plane >= m_planes || leaf >= GetNLeaves(),
                    "MetaRoceFabricHelper: no leaf " << leaf << " on plane " << plane);
    return m_leaves[plane][leaf];
}

Ptr<MetaRoceSwitch>
MetaRoceFabricHelper::GetSpine(uint32_t plane, uint32_t spine) const
{
    CheckBuilt();
    NS_ABORT_MSG_IF(plane >= m_planes || spine >= m_spines,
                    "MetaRoceFabricHelper: no spine " << spine << " on plane " << plane);
    return m_spineSw[plane][spine];
}

Ipv4Address
MetaRoceFabricHelper::GetHostAddress(uint32_t host, uint32_t plane) const
{
    NS_ABORT_MSG_IF(host >= m_hosts || plane >= m_planes,
                    "MetaRoceFabricHelper: no host " << host << " on plane " << plane);
    return HostAddress(plane, host / m_hostsPerLeaf, host % m_hostsPerLeaf);
}

std::vector<Ptr<MetaRoceSwitch>>
MetaRoceFabricHelper::GetSwitches() const
{
    std::vector<Ptr<MetaRoceSwitch>> all;
    for (uint32_t p = 0; p < m_leaves.size(); ++p)
    {
        all.insert(all.end(), m_leaves[p].begin(), m_leaves[p].end());
        all.insert(all.end(), m_spineSw[p].begin(), m_spineSw[p].end());
    }
    return all;
}

NetDeviceContainer
MetaRoceFabricHelper::GetDevices() const
{
    NetDeviceContainer all;
    for (uint32_t p = 0; p < m_hostLinks.size(); ++p)
    {
        for (const Link& l : m_hostLinks[p])
        {
            all.Add(l.a);
            all.Add(l.b);
        }
        for (const Link& l : m_fabricLinks[p])
        {
            all.Add(l.a);
            all.Add(l.b);
        }
    }
    return all;
}

std::pair<Ptr<PointToPointNetDevice>, Ptr<PointToPointNetDevice>>
MetaRoceFabricHelper::GetHostLink(uint32_t host, uint32_t plane) const
{
    CheckBuilt();
    NS_ABORT_MSG_IF(host >= m_hosts || plane >= m_planes,
                    "MetaRoceFabricHelper: no host link " << host << " on plane " << plane);
    const Link& l = m_hostLinks[plane][host];
    return {l.a, l.b};
}

std::pair<Ptr<PointToPointNetDevice>, Ptr<PointToPointNetDevice>>
MetaRoceFabricHelper::GetFabricLink(uint32_t plane, uint32_t leaf, uint32_t spine) const
{
    CheckBuilt();
    NS_ABORT_MSG_IF(plane >= m_planes || leaf >= GetNLeaves() || spine >= m_spines,
                    "MetaRoceFabricHelper: no link leaf " << leaf << " - spine " << spine
                                                          << " on plane " << plane);
    const Link& l = m_fabricLinks[plane][leaf * m_spines + spine];
    return {l.a, l.b};
}

double
MetaRoceFabricHelper::GetOversubscription() const
{
    if (m_spines == 0)
    {
        return 1.0;
    }
    const double down = static_cast<double>(m_hostRate.GetBitRate()) * m_hostsPerLeaf;
    const double up = static_cast<double>(m_fabricRate.GetBitRate()) * m_spines;
    return down / up;
}

void
MetaRoceFabricHelper::SetLinkState(Link link, bool up)
{
    Ptr<RateErrorModel> em;
    if (!up)
    {
        em = CreateObject<RateErrorModel>();
        em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
        em->SetRate(1.0);
    }
    link.a->SetReceiveErrorModel(em);
    link.b->SetReceiveErrorModel(em);
    if (link.nic)
    {
        for (uint32_t port = 0; port < link.nic->GetNPorts(); ++port)
        {
            if (link.nic->GetPort(port) == link.a)
            {
                link.nic->SetPortUp(port, up);
            }
        }
    }
    if (link.swA)
    {
        link.swA->SetPortUp(link.portA, up);
    }
    if (link.swB)
    {
        link.swB->SetPortUp(link.portB, up);
    }
}

void
MetaRoceFabricHelper::ScheduleFailure(const Link& link, Time at, Time until)
{
    Simulator::Schedule(at, &MetaRoceFabricHelper::SetLinkState, link, false);
    if (until != Time::Max())
    {
        NS_ABORT_MSG_IF(until <= at, "MetaRoceFabricHelper: a failure must end after it starts");
        Simulator::Schedule(until, &MetaRoceFabricHelper::SetLinkState, link, true);
    }
}

void
MetaRoceFabricHelper::FailHostLink(uint32_t host, uint32_t plane, Time at, Time until)
{
    GetHostLink(host, plane);
    ScheduleFailure(m_hostLinks[plane][host], at, until);
}

void
MetaRoceFabricHelper::FailFabricLink(uint32_t plane,
                                     uint32_t leaf,
                                     uint32_t spine,
                                     Time at,
                                     Time until)
{
    GetFabricLink(plane, leaf, spine);
    ScheduleFailure(m_fabricLinks[plane][leaf * m_spines + spine], at, until);
}

void
MetaRoceFabricHelper::FailSpine(uint32_t plane, uint32_t spine, Time at, Time until)
{
    GetSpine(plane, spine);
    for (uint32_t l = 0; l < GetNLeaves(); ++l)
    {
        ScheduleFailure(m_fabricLinks[plane][l * m_spines + spine], at, until);
    }
}

void
MetaRoceFabricHelper::FailPlane(uint32_t plane, Time at, Time until)
{
    CheckBuilt();
    NS_ABORT_MSG_IF(plane >= m_planes, "MetaRoceFabricHelper: no plane " << plane);
    for (const Link& l : m_hostLinks[plane])
    {
        ScheduleFailure(l, at, until);
    }
    for (const Link& l : m_fabricLinks[plane])
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
