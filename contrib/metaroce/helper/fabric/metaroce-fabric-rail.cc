/*
 * MetaRoceFabricBuilder::ConnectServers: the server half of a rail-optimized plane (the routes
 * are in metaroce-fabric-builder.h, the numbering in metaroce-fabric-shape.h).
 *
 * Build order, per server in order: the intra-server links of its GPUs in GPU order, then its
 * NIC wires in rail order. A server switch's ports are hence its GPUs first, then its rails;
 * a rail leaf's ports are its group's servers in order, then its spines.
 */
#include "metaroce-fabric-builder.h"

namespace ns3
{

namespace
{

const Ipv4Mask kHostMask("255.255.255.255");
const Ipv4Mask kLeafMask("255.255.255.0");

} // namespace

void
MetaRoceFabricBuilder::ConnectServers(MetaRoceFabricPlane& plane,
                                      uint32_t p,
                                      const std::vector<Ptr<MetaRoceNic>>& nics) const
{
    const MetaRoceFabricShape& s = m_shape;
    const uint32_t gpus = s.railGpus;
    const uint32_t groups = s.Leaves() / gpus;
    auto& leaves = plane.switches[static_cast<uint32_t>(MetaRoceFabricTier::LEAF)];
    auto& servers = plane.switches[static_cast<uint32_t>(MetaRoceFabricTier::SERVER)];
    plane.hostLinks.resize(s.hosts);
    plane.railLinks.resize(s.hosts);
    for (uint32_t server = 0; server < s.Servers(); ++server)
    {
        Ptr<MetaRoceSwitch> sw = servers[server];
        Ptr<Node> swNode = sw->GetObject<Node>();
        for (uint32_t g = 0; g < gpus; ++g)
        {
            // The GPU's port: the intra-server link; NIC ports are added plane by plane.
            const uint32_t h = server * gpus + g;
            auto ends = Connect(MetaRoceFabricTier::SERVER, nics[h]->GetObject<Node>(), swNode);
            MetaRoceFabricLink& link = plane.hostLinks[h];
            link.a = ends.first;
            link.b = ends.second;
            link.nic = nics[h];
            link.nicPort = nics[h]->AddPort(link.a, s.HostAddress(h, p));
            link.swB = sw;
            link.portB = sw->AddPort(link.b);
            sw->AddRoute(s.HostAddress(h, p), kHostMask, link.portB);
        }
        std::vector<uint32_t> railPort(gpus);
        for (uint32_t g = 0; g < gpus; ++g)
        {
            // GPU g's NIC wire, from the server switch up to rail g's leaf of the group.
            const uint32_t h = server * gpus + g;
            Ptr<MetaRoceSwitch> leaf = leaves[s.LeafOf(h)];
            plane.railLinks[h] =
                SwitchLink(Connect(MetaRoceFabricTier::LEAF, swNode, leaf->GetObject<Node>()),
                           sw,
                           leaf);
            railPort[g] = plane.railLinks[h].portA;
            leaf->AddRoute(s.HostAddress(h, p), kHostMask, plane.railLinks[h].portB);
        }
        // Everything else leaves on the destination's rail: the GPUs of the other servers of
        // the group host by host (their leaves' /24s hold this server's own GPUs too), the
        // other groups by their leaves' /24s.
        const uint32_t group = server / s.hostsPerLeaf;
        for (uint32_t h = 0; h < s.hosts; ++h)
        {
            const uint32_t other = s.ServerOf(h);
            if (other != server && other / s.hostsPerLeaf == group)
            {
                sw->AddRoute(s.HostAddress(h, p), kHostMask, railPort[s.RailOf(h)]);
            }
        }
        for (uint32_t u = 0; u < groups; ++u)
        {
            for (uint32_t g = 0; g < gpus && u != group; ++g)
            {
                sw->AddRoute(s.LeafPrefix(p, u * gpus + g), kLeafMask, railPort[g]);
            }
        }
    }
}

} // namespace ns3
