/*
 * MetaRoceFabricHelper::EnablePcap: one pcap file per captured port (see the header).
 *
 * The files are what PointToPointHelper::EnablePcap writes for stock devices (DLT_PPP, the
 * PromiscSniffer trace, PcapHelper's own sink) except for the timestamp resolution, which is why
 * this does not call that helper: its files take microseconds from PcapFileWrapper's NanosecMode
 * default, and changing the default would change every other capture of the process too.
 */
#include "metaroce-fabric-helper.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/metaroce-switch.h"
#include "ns3/node.h"
#include "ns3/pcap-file-wrapper.h"
#include "ns3/simulator.h"
#include "ns3/trace-helper.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceFabricPcap");

namespace
{

/// Opens `filename` as a nanosecond DLT_PPP capture and writes every frame of `device` to it.
/// In a distributed run only the device's own rank captures it (the other ranks' copies never
/// carry a frame), so the ranks write distinct files, each what a sequential run writes.
void
CaptureDevice(Ptr<NetDevice> device, const std::string& filename)
{
    NS_LOG_FUNCTION(device << filename);
    if (device->GetNode()->GetSystemId() != Simulator::GetSystemId())
    {
        return;
    }
    Ptr<PcapFileWrapper> file = CreateObject<PcapFileWrapper>();
    file->SetAttribute("NanosecMode", BooleanValue(true));
    file->Open(filename, std::ios::out | std::ios::binary);
    NS_ABORT_MSG_IF(file->Fail(), "MetaRoceFabricHelper::EnablePcap: cannot write " << filename);
    file->Init(PcapHelper::DLT_PPP);
    // PromiscSniffer (either device's) sees the frame with its PPP header, on transmit and on
    // intact receive.
    PcapHelper().HookDefaultSink<NetDevice>(device, "PromiscSniffer", file);
}

} // namespace

void
MetaRoceFabricHelper::EnablePcap(const std::string& prefix, bool switchPorts) const
{
    CheckBuilt();
    NS_ABORT_MSG_IF(prefix.empty(), "MetaRoceFabricHelper::EnablePcap: empty prefix");
    for (uint32_t p = 0; p < m_planes.size(); ++p)
    {
        const std::string plane = "-plane" + std::to_string(p);
        for (uint32_t h = 0; h < m_shape.hosts; ++h)
        {
            CaptureDevice(m_planes[p].hostLinks[h].a,
                          prefix + "-host" + std::to_string(h) + plane + ".pcap");
        }
        if (!switchPorts)
        {
            continue;
        }
        for (const auto tier : {MetaRoceFabricTier::LEAF,
                                MetaRoceFabricTier::SPINE,
                                MetaRoceFabricTier::CORE,
                                MetaRoceFabricTier::SERVER})
        {
            const auto& switches = m_planes[p].switches[static_cast<uint32_t>(tier)];
            for (uint32_t i = 0; i < switches.size(); ++i)
            {
                const std::string name =
                    prefix + "-" + MetaRoceFabricTierName(tier) + std::to_string(i) + plane;
                for (uint32_t k = 0; k < switches[i]->GetNPorts(); ++k)
                {
                    CaptureDevice(switches[i]->GetPortDevice(k),
                                  name + "-port" + std::to_string(k) + ".pcap");
                }
            }
        }
    }
}

} // namespace ns3
