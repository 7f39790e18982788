/*
 * The first MetaRoCE program, in the shape of ns-3's examples/tutorial/first.cc: two nodes, a
 * point-to-point link built by ns-3's PointToPointHelper, a MetaRoCE NIC on each node with the
 * link's device as its port, and one RDMA WRITE from the first node to the second.
 *
 *   build/examples/metaroce-first
 *   build/examples/metaroce-first --bytes=4194304 --transport=rocev2 --pcap=true
 *
 * With --pcap=true, PointToPointHelper writes first-0-0.pcap and first-1-0.pcap (tshark with
 * contrib/metaroce/tools/wireshark/metaroce.lua decodes MetaRoCE; RoCEv2 needs nothing).
 */
#include "ns3/core-module.h"
#include "ns3/metaroce-helper.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <iostream>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("MetaRoceFirstExample");

namespace
{

/// Prints a completed work request.
void
Completed(Ptr<MetaRoceQueuePair> qp, const metaroce::Completion& c)
{
    std::cout << "node " << qp->GetNic()->GetObject<Node>()->GetId()
              << " t=" << Simulator::Now().As(Time::US) << ": work request " << c.wrId
              << " complete, " << c.bytes << " bytes" << std::endl;
}

} // namespace

int
main(int argc, char* argv[])
{
    uint64_t bytes = 1 << 20;
    std::string transport = "metaroce";
    bool pcap = false;
    CommandLine cmd(__FILE__);
    cmd.AddValue("bytes", "bytes to write", bytes);
    cmd.AddValue("transport", "metaroce or rocev2", transport);
    cmd.AddValue("pcap", "write first-<node>-<device>.pcap", pcap);
    cmd.Parse(argc, argv);
    if (transport != "metaroce" && transport != "rocev2")
    {
        std::cerr << "metaroce-first: --transport must be metaroce or rocev2, not '" << transport
                  << "'\n";
        return 2;
    }
    if (bytes == 0 || bytes > (uint64_t{1} << 31))
    {
        // RoCEv2 carries at most 2^31 bytes per message (spec 10.2); a WRITE needs one.
        std::cerr << "metaroce-first: --bytes must be in [1, 2147483648], not " << bytes << "\n";
        return 2;
    }

    NodeContainer nodes;
    nodes.Create(2);

    PointToPointHelper pointToPoint;
    pointToPoint.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
    pointToPoint.SetChannelAttribute("Delay", StringValue("1us"));
    NetDeviceContainer devices = pointToPoint.Install(nodes);

    // A MetaRoCE NIC on each node, the link's device its port (plane 0): hosts run no Internet
    // stack, the NIC is the RDMA offload and takes over the device's queue and receive path.
    MetaRoceHelper rdma;
    Ptr<MetaRoceNic> sender = rdma.Install(nodes.Get(0));
    Ptr<MetaRoceNic> receiver = rdma.Install(nodes.Get(1));
    sender->AddPort(devices.Get(0), Ipv4Address("10.1.1.1"));
    receiver->AddPort(devices.Get(1), Ipv4Address("10.1.1.2"));

    auto [qpSender, qpReceiver] = MetaRoceNic::Connect(
        sender,
        receiver,
        transport == "metaroce" ? metaroce::Transport::MetaRoce : metaroce::Transport::RoceV2);
    qpSender->SetCompletionCallback(MakeCallback(&Completed));
    qpReceiver->SetCompletionCallback(MakeCallback(&Completed));
    Simulator::Schedule(MicroSeconds(1),
                        [qpSender = qpSender, bytes]() { qpSender->PostWrite(0, bytes); });

    if (pcap)
    {
        pointToPoint.EnablePcapAll("first");
    }

    Simulator::Stop(Seconds(1));
    Simulator::Run();
    const uint64_t placed = qpReceiver->GetCounters().placedBytes;
    std::cout << placed << " of " << bytes << " bytes placed at the receiver" << std::endl;
    Simulator::Destroy();
    return placed == bytes ? 0 : 1;
}
