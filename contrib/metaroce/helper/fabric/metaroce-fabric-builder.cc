#include "metaroce-fabric-builder.h"

#include "metaroce-link-helper.h"

#include "ns3/uinteger.h"

namespace ns3
{

namespace
{

const Ipv4Mask kHostMask("255.255.255.255");
const Ipv4Mask kLeafMask("255.255.255.0");

} // namespace

MetaRoceFabricBuilder::MetaRoceFabricBuilder(
    const MetaRoceFabricShape& shape,
    const std::array<MetaRoceFabricLinkSpec, kMetaRoceFabricTiers>& links,
    const std::array<ObjectFactory, kMetaRoceFabricTiers>& switches,
    const MetaRoceFabricPartition& partition,
    const std::string& deviceType)
    : m_shape(shape)
    , m_links(links)
    , m_switches(switches)
    , m_partition(partition)
    , m_deviceType(deviceType)
{
}

Ptr<MetaRoceSwitch>
MetaRoceFabricBuilder::MakeSwitch(MetaRoceFabricTier tier, uint32_t index, uint32_t& seed) const
{
    Ptr<Node> node = CreateObject<Node>(m_partition.SwitchRank(m_shape, tier, index));
    ObjectFactory factory = m_switches[static_cast<uint32_t>(tier)];
    factory.Set("EcmpSeed", UintegerValue(seed++ * 2654435761u));
    Ptr<MetaRoceSwitch> sw = factory.Create<MetaRoceSwitch>();
    node->AggregateObject(sw);
    return sw;
}

std::pair<Ptr<NetDevice>, Ptr<NetDevice>>
MetaRoceFabricBuilder::Connect(MetaRoceFabricTier tier, Ptr<Node> lower, Ptr<Node> upper) const
{
    const MetaRoceFabricLinkSpec& spec = m_links[static_cast<uint32_t>(tier)];
    MetaRoceLinkHelper link;
    link.SetDeviceType(m_deviceType);
    link.SetDeviceAttribute("DataRate", DataRateValue(spec.rate));
    link.SetChannelAttribute("Delay", TimeValue(spec.delay));
    NetDeviceContainer d = link.Install(lower, upper);
    return {d.Get(0), d.Get(1)};
}

MetaRoceFabricLink
MetaRoceFabricBuilder::SwitchLink(std::pair<Ptr<NetDevice>, Ptr<NetDevice>> ends,
                                  Ptr<MetaRoceSwitch> lower,
                                  Ptr<MetaRoceSwitch> upper)
{
    MetaRoceFabricLink link;
    link.a = ends.first;
    link.b = ends.second;
    link.swA = lower;
    link.portA = lower->AddPort(link.a);
    link.swB = upper;
    link.portB = upper->AddPort(link.b);
    return link;
}

MetaRoceFabricPlane
MetaRoceFabricBuilder::Build(uint32_t p,
                             const std::vector<Ptr<MetaRoceNic>>& nics,
                             uint32_t& seed) const
{
    MetaRoceFabricPlane plane;
    MakeSwitches(plane, seed);
    if (m_shape.topology == MetaRoceTopology::RAIL)
    {
        ConnectServers(plane, p, nics);
    }
    else
    {
        ConnectHosts(plane, p, nics);
    }
    ConnectLeaves(plane, p);
    ConnectSpines(plane, p);
    return plane;
}

void
MetaRoceFabricBuilder::MakeSwitches(MetaRoceFabricPlane& plane, uint32_t& seed) const
{
    const MetaRoceFabricShape& s = m_shape;
    const uint32_t cores = s.CoresPerSpine() > 0 ? s.cores : 0;
    for (uint32_t l = 0; l < s.Leaves(); ++l)
    {
        plane.switches[0].push_back(MakeSwitch(MetaRoceFabricTier::LEAF, l, seed));
    }
    for (uint32_t g = 0; g < s.Spines(); ++g)
    {
        plane.switches[1].push_back(MakeSwitch(MetaRoceFabricTier::SPINE, g, seed));
    }
    for (uint32_t c = 0; c < cores; ++c)
    {
        plane.switches[2].push_back(MakeSwitch(MetaRoceFabricTier::CORE, c, seed));
    }
    for (uint32_t server = 0; server < s.Servers(); ++server)
    {
        plane.switches[3].push_back(MakeSwitch(MetaRoceFabricTier::SERVER, server, seed));
    }
}

void
MetaRoceFabricBuilder::ConnectHosts(MetaRoceFabricPlane& plane,
                                    uint32_t p,
                                    const std::vector<Ptr<MetaRoceNic>>& nics) const
{
    const MetaRoceFabricShape& s = m_shape;
    auto& leaves = plane.switches[0];
    // Host links; NIC ports are added plane by plane, so port p is plane p.
    for (uint32_t h = 0; h < s.hosts; ++h)
    {
        Ptr<MetaRoceSwitch> leaf = leaves[s.LeafOf(h)];
        auto ends =
            Connect(MetaRoceFabricTier::LEAF, nics[h]->GetObject<Node>(), leaf->GetObject<Node>());
        MetaRoceFabricLink link;
        link.a = ends.first;
        link.b = ends.second;
        link.nic = nics[h];
        link.nicPort = nics[h]->AddPort(link.a, s.HostAddress(h, p));
        link.swB = leaf;
        link.portB = leaf->AddPort(link.b);
        leaf->AddRoute(s.HostAddress(h, p), kHostMask, link.portB);
        plane.hostLinks.push_back(link);
    }
}

void
MetaRoceFabricBuilder::ConnectLeaves(MetaRoceFabricPlane& plane, uint32_t p) const
{
    const MetaRoceFabricShape& s = m_shape;
    const uint32_t perPod = s.SpinesPerPod();
    auto& leaves = plane.switches[0];
    auto& spines = plane.switches[1];
    // Leaf-spine links, within each pod: leaves spread the other leaves' /24s over their pod's
    // spines, spines route each leaf's /24 down.
    for (uint32_t l = 0; l < s.Leaves(); ++l)
    {
        const uint32_t pod = s.PodOf(l);
        for (uint32_t j = 0; j < perPod; ++j)
        {
            Ptr<MetaRoceSwitch> spine = spines[pod * perPod + j];
            MetaRoceFabricLink link = SwitchLink(Connect(MetaRoceFabricTier::SPINE,
                                                         leaves[l]->GetObject<Node>(),
                                                         spine->GetObject<Node>()),
                                                 leaves[l],
                                                 spine);
            for (uint32_t other = 0; other < s.Leaves(); ++other)
            {
                if (other != l)
                {
                    leaves[l]->AddRoute(s.LeafPrefix(p, other), kLeafMask, link.portA);
                }
            }
            spine->AddRoute(s.LeafPrefix(p, l), kLeafMask, link.portB);
            plane.leafLinks.push_back(link);
        }
    }
}

void
MetaRoceFabricBuilder::ConnectSpines(MetaRoceFabricPlane& plane, uint32_t p) const
{
    const MetaRoceFabricShape& s = m_shape;
    const uint32_t perPod = s.SpinesPerPod();
    const uint32_t perSpine = s.CoresPerSpine();
    auto& spines = plane.switches[1];
    auto& coreSw = plane.switches[2];
    // Spine-core links: spine j of every pod goes up to core group j for the other pods' /24s;
    // cores route every leaf's /24 down to that leaf's pod.
    for (uint32_t g = 0; g < s.Spines() && perSpine > 0; ++g)
    {
        const uint32_t pod = g / perPod;
        for (uint32_t k = 0; k < perSpine; ++k)
        {
            Ptr<MetaRoceSwitch> core = coreSw[s.GroupOf(g) * perSpine + k];
            MetaRoceFabricLink link = SwitchLink(Connect(MetaRoceFabricTier::CORE,
                                                         spines[g]->GetObject<Node>(),
                                                         core->GetObject<Node>()),
                                                 spines[g],
                                                 core);
            for (uint32_t l = 0; l < s.Leaves(); ++l)
            {
                if (s.PodOf(l) != pod)
                {
                    spines[g]->AddRoute(s.LeafPrefix(p, l), kLeafMask, link.portA);
                }
                else
                {
                    core->AddRoute(s.LeafPrefix(p, l), kLeafMask, link.portB);
                }
            }
            plane.spineLinks.push_back(link);
        }
    }
}

} // namespace ns3
