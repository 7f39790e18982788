/*
 * MetaRoceFabricHelper: the links of a built fabric, their devices and the lookahead between
 * ranks (see the header).
 */
#include "metaroce-fabric-helper.h"

#include "ns3/abort.h"

#include <algorithm>

namespace ns3
{

Time
MetaRoceFabricHelper::GetLookahead() const
{
    CheckBuilt();
    Time lookahead = Time::Max();
    for (const MetaRoceFabricPlane& plane : m_planes)
    {
        // Each kind of link with the tier whose settings it was built with; a rail fabric's
        // host links are intra-server links and its NIC wires have the host link settings.
        const bool rail = m_shape.topology == MetaRoceTopology::RAIL;
        const std::pair<const std::vector<MetaRoceFabricLink>*, MetaRoceFabricTier> kinds[] = {
            {&plane.hostLinks, rail ? MetaRoceFabricTier::SERVER : MetaRoceFabricTier::LEAF},
            {&plane.railLinks, MetaRoceFabricTier::LEAF},
            {&plane.leafLinks, MetaRoceFabricTier::SPINE},
            {&plane.spineLinks, MetaRoceFabricTier::CORE}};
        for (const auto& [links, tier] : kinds)
        {
            for (const MetaRoceFabricLink& link : *links)
            {
                if (link.a->GetNode()->GetSystemId() != link.b->GetNode()->GetSystemId())
                {
                    lookahead = std::min(lookahead, m_links[static_cast<uint32_t>(tier)].delay);
                }
            }
        }
    }
    return lookahead;
}

NetDeviceContainer
MetaRoceFabricHelper::GetDevices() const
{
    NetDeviceContainer all;
    for (uint32_t p = 0; p < m_planes.size(); ++p)
    {
        all.Add(GetDevices(p));
    }
    return all;
}

NetDeviceContainer
MetaRoceFabricHelper::GetDevices(uint32_t plane) const
{
    NetDeviceContainer devices;
    for (const MetaRoceFabricLink& l : GetLinks(plane))
    {
        devices.Add(l.a);
        devices.Add(l.b);
    }
    return devices;
}

std::vector<MetaRoceFabricLink>
MetaRoceFabricHelper::GetLinks(uint32_t plane) const
{
    CheckPlane(plane);
    const MetaRoceFabricPlane& p = m_planes[plane];
    std::vector<MetaRoceFabricLink> links = p.hostLinks;
    links.insert(links.end(), p.railLinks.begin(), p.railLinks.end());
    links.insert(links.end(), p.leafLinks.begin(), p.leafLinks.end());
    links.insert(links.end(), p.spineLinks.begin(), p.spineLinks.end());
    return links;
}

MetaRoceFabricHelper::LinkEnds
MetaRoceFabricHelper::GetHostLink(uint32_t host, uint32_t plane) const
{
    CheckPlane(plane);
    NS_ABORT_MSG_IF(host >= m_shape.hosts,
                    "MetaRoceFabricHelper: no host link " << host << " on plane " << plane);
    const MetaRoceFabricLink& l = m_planes[plane].hostLinks[host];
    return {l.a, l.b};
}

MetaRoceFabricHelper::LinkEnds
MetaRoceFabricHelper::GetRailLink(uint32_t host, uint32_t plane) const
{
    CheckPlane(plane);
    NS_ABORT_MSG_IF(m_shape.topology != MetaRoceTopology::RAIL || host >= m_shape.hosts,
                    "MetaRoceFabricHelper: no rail link of host " << host << " on plane " << plane);
    const MetaRoceFabricLink& l = m_planes[plane].railLinks[host];
    return {l.a, l.b};
}

const MetaRoceFabricLink&
MetaRoceFabricHelper::LeafLink(uint32_t plane, uint32_t leaf, uint32_t spine) const
{
    CheckPlane(plane);
    const uint32_t perPod = m_shape.SpinesPerPod();
    NS_ABORT_MSG_IF(leaf >= m_shape.Leaves() || spine >= m_shape.Spines() ||
                        spine / perPod != m_shape.PodOf(leaf),
                    "MetaRoceFabricHelper: no link leaf " << leaf << " - spine " << spine
                                                          << " on plane " << plane);
    return m_planes[plane].leafLinks[leaf * perPod + spine % perPod];
}

const MetaRoceFabricLink&
MetaRoceFabricHelper::SpineLink(uint32_t plane, uint32_t spine, uint32_t core) const
{
    CheckPlane(plane);
    const uint32_t perSpine = m_shape.CoresPerSpine();
    NS_ABORT_MSG_IF(spine >= m_shape.Spines() || core >= GetNCores() ||
                        core / perSpine != m_shape.GroupOf(spine),
                    "MetaRoceFabricHelper: no link spine " << spine << " - core " << core
                                                           << " on plane " << plane);
    return m_planes[plane].spineLinks[spine * perSpine + core % perSpine];
}

MetaRoceFabricHelper::LinkEnds
MetaRoceFabricHelper::GetFabricLink(uint32_t plane, uint32_t leaf, uint32_t spine) const
{
    const MetaRoceFabricLink& l = LeafLink(plane, leaf, spine);
    return {l.a, l.b};
}

MetaRoceFabricHelper::LinkEnds
MetaRoceFabricHelper::GetCoreLink(uint32_t plane, uint32_t spine, uint32_t core) const
{
    const MetaRoceFabricLink& l = SpineLink(plane, spine, core);
    return {l.a, l.b};
}

} // namespace ns3
