/*
 * MetaRoceLinkHelper: the point-to-point links of metaroce fabrics and back-to-back NICs.
 *
 * Installs two MetaRoceNetDevices (the stock point-to-point device's DataRate, error models,
 * pcap and traces, without its per-hop copies: model/link/metaroce-net-device.h)
 * joined by a MetaRoceChannel, whose arrivals reach each node in a fixed order within a
 * nanosecond (model/link/metaroce-arrivals.h) - what makes results independent of the
 * scheduler's tie order and identical between sequential and distributed runs. In a
 * distributed run (ns-3 built with MPI, MpiInterface enabled) a link whose nodes have different
 * system ids gets a MetaRoceRemoteChannel instead.
 *
 *   MetaRoceLinkHelper link;
 *   link.SetDeviceAttribute("DataRate", StringValue("400Gbps"));
 *   link.SetChannelAttribute("Delay", StringValue("1us"));
 *   NetDeviceContainer ends = link.Install(a, b);
 *   link.EnablePcapAll("run"); // as PointToPointHelper's: DLT_PPP, one file per device
 */
#ifndef METAROCE_LINK_HELPER_H
#define METAROCE_LINK_HELPER_H

#include "ns3/net-device-container.h"
#include "ns3/node.h"
#include "ns3/object-factory.h"
#include "ns3/trace-helper.h"

#include <string>

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief Builds point-to-point links over MetaRoceChannel.
 */
class MetaRoceLinkHelper : public PcapHelperForDevice
{
  public:
    MetaRoceLinkHelper();

    /// Sets an attribute of every MetaRoceNetDevice created from now on (e.g. DataRate).
    void SetDeviceAttribute(const std::string& name, const AttributeValue& value);
    /// Sets an attribute of every channel created from now on (e.g. Delay).
    void SetChannelAttribute(const std::string& name, const AttributeValue& value);

    /// Links a and b: returns their two new devices, a's first.
    NetDeviceContainer Install(Ptr<Node> a, Ptr<Node> b) const;

  private:
    /// PcapHelperForDevice: captures a MetaRoceNetDevice's frames (its PromiscSniffer trace,
    /// PPP-framed) into a DLT_PPP file, as PointToPointHelper does for its devices.
    void EnablePcapInternal(std::string prefix,
                            Ptr<NetDevice> nd,
                            bool promiscuous,
                            bool explicitFilename) override;

    ObjectFactory m_deviceFactory;
    ObjectFactory m_queueFactory;
    ObjectFactory m_channelFactory;
};

} // namespace ns3

#endif /* METAROCE_LINK_HELPER_H */
