/*
 * MetaRoceLinkHelper: the point-to-point links of metaroce fabrics and back-to-back NICs, on
 * either of two devices, chosen by TypeId name (SetDeviceType):
 *
 *  - "ns3::MetaRoceNetDevice" (the default): two MetaRoceNetDevices (the stock point-to-point
 *    device's DataRate, error models, pcap and traces, without its per-hop copies:
 *    model/link/metaroce-net-device.h) joined by a MetaRoceChannel; in a distributed run (ns-3
 *    built with MPI, MpiInterface enabled) a link whose nodes have different system ids gets a
 *    MetaRoceRemoteChannel instead. The fast link: the default of every experiment.
 *  - "ns3::PointToPointNetDevice": ns-3's own devices and channel, built by PointToPointHelper
 *    (a PointToPointRemoteChannel between ranks), so everything written for them applies:
 *    "$ns3::PointToPointNetDevice/..." configuration paths, TxRxPointToPoint, ASCII traces.
 *
 * On both, the arrivals of a NIC's or switch's ports reach their node in a fixed order within a
 * nanosecond (model/link/metaroce-arrivals.h) - what makes results independent of the
 * scheduler's tie order and of the device.
 *
 *   MetaRoceLinkHelper link;
 *   link.SetDeviceType("ns3::PointToPointNetDevice");
 *   link.SetDeviceAttribute("DataRate", DataRateValue(DataRate("100Gbps")));
 *   link.SetChannelAttribute("Delay", TimeValue(NanoSeconds(500)));
 *   NetDeviceContainer d = link.Install(a, b);
 */
#ifndef METAROCE_LINK_HELPER_H
#define METAROCE_LINK_HELPER_H

#include "ns3/net-device-container.h"
#include "ns3/node.h"
#include "ns3/object-factory.h"
#include "ns3/trace-helper.h"

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief Builds point-to-point links over MetaRoceChannel or ns-3's PointToPointChannel.
 */
class MetaRoceLinkHelper : public PcapHelperForDevice
{
  public:
    /// The devices a link can be made of, by TypeId name (the default first).
    static const std::vector<std::string>& GetDeviceTypes();
    /// "" if `typeName` names one of GetDeviceTypes(), else a message naming them.
    static std::string GetDeviceTypeProblem(const std::string& typeName);

    MetaRoceLinkHelper();

    /// The device of the links installed from now on (one of GetDeviceTypes(); any other name
    /// is a fatal error). Attributes set before and after apply alike.
    void SetDeviceType(const std::string& typeName);
    const std::string& GetDeviceType() const;
    /// Sets an attribute of every device created from now on (e.g. DataRate).
    void SetDeviceAttribute(const std::string& name, const AttributeValue& value);
    /// Sets an attribute of every channel created from now on (e.g. Delay).
    void SetChannelAttribute(const std::string& name, const AttributeValue& value);

    /// Links a and b: returns their two new devices, a's first.
    NetDeviceContainer Install(Ptr<Node> a, Ptr<Node> b) const;

  private:
    /// Install() with MetaRoceNetDevice and MetaRoceChannel.
    NetDeviceContainer InstallFast(Ptr<Node> a, Ptr<Node> b) const;
    /// Install() with PointToPointHelper.
    NetDeviceContainer InstallStock(Ptr<Node> a, Ptr<Node> b) const;

    /// PcapHelperForDevice: captures a device's frames (its PromiscSniffer trace, PPP-framed)
    /// into a DLT_PPP file, as PointToPointHelper does for its devices.
    void EnablePcapInternal(std::string prefix,
                            Ptr<NetDevice> nd,
                            bool promiscuous,
                            bool explicitFilename) override;

    using Attributes = std::vector<std::pair<std::string, Ptr<AttributeValue>>>;

    std::string m_deviceType;
    Attributes m_deviceAttributes;
    Attributes m_channelAttributes;
};

} // namespace ns3

#endif /* METAROCE_LINK_HELPER_H */
