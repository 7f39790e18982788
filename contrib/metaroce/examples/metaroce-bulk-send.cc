/*
 * ns-3's BulkSendApplication and PacketSink, unchanged, over MetaRoCE and over RoCEv2.
 *
 * Two hosts, NICs back to back over `--planes` links. Each host gets a MetaRoceSocketFactory
 * (MetaRoceHelper::InstallSocketFactory), and the applications are told to use it through
 * their "Protocol" attribute - the only difference from the same program over TCP. With
 * `--loss` every link drops that fraction of packets at random (RateErrorModel on each
 * receiving device), which shows the two transports' different loss recovery.
 *
 *   ./metaroce-bulk-send --bytes=100000000 --planes=2 --loss=0,0.001,0.01
 *
 * Output: one line per (transport, loss): bytes received, completion time, goodput.
 */
#include "ns3/applications-module.h"
#include "ns3/error-model.h"
#include "ns3/metaroce-atomic-file.h"
#include "ns3/metaroce-command-line.h"
#include "ns3/metaroce-helper.h"
#include "ns3/metaroce-options.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <iomanip>
#include <iostream>
#include <stdexcept>
#include <vector>

using namespace ns3;

namespace
{

struct Result
{
    uint64_t received{0};
    Time lastRx;
};

void
OnSinkRx(Result* result, Ptr<const Packet> packet, const Address&)
{
    result->received += packet->GetSize();
    result->lastRx = Simulator::Now();
}

Result
RunOnce(metaroce::Transport transport,
        double loss,
        uint32_t planes,
        uint64_t bytes,
        uint32_t sendSize,
        const std::string& rate,
        const std::string& delay,
        uint32_t seed)
{
    NodeContainer nodes;
    nodes.Create(2);
    MetaRoceHelper rdma;
    rdma.SetDeviceAttribute("DataRate", StringValue(rate));
    rdma.SetChannelAttribute("Delay", StringValue(delay));
    Ptr<MetaRoceNic> a = rdma.Install(nodes.Get(0));
    Ptr<MetaRoceNic> b = rdma.Install(nodes.Get(1));
    NetDeviceContainer devices = rdma.ConnectBackToBack(a, b, planes);
    rdma.InstallSocketFactory(nodes.Get(0), transport);
    rdma.InstallSocketFactory(nodes.Get(1), transport);
    a->AssignStreams(seed);
    b->AssignStreams(seed + 1);
    if (loss > 0)
    {
        for (uint32_t i = 0; i < devices.GetN(); ++i)
        {
            Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
            em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
            em->SetRate(loss);
            em->AssignStreams(seed + 10 + i);
            devices.Get(i)->SetAttribute("ReceiveErrorModel", PointerValue(em));
        }
    }

    const uint16_t port = 5000;
    PacketSinkHelper sinkHelper("ns3::MetaRoceSocketFactory",
                                InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer sinkApps = sinkHelper.Install(nodes.Get(1));
    BulkSendHelper bulk("ns3::MetaRoceSocketFactory", InetSocketAddress(b->GetAddress(0), port));
    bulk.SetAttribute("MaxBytes", UintegerValue(bytes));
    bulk.SetAttribute("SendSize", UintegerValue(sendSize));
    bulk.Install(nodes.Get(0));

    Result result;
    sinkApps.Get(0)->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnSinkRx, &result));
    Simulator::Stop(Seconds(10));
    Simulator::Run();
    Simulator::Destroy();
    return result;
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string transports = "metaroce,rocev2";
    std::string losses = "0";
    uint32_t planes = 2;
    uint64_t bytes = 100'000'000;
    uint32_t sendSize = 1448;
    std::string rate = "100Gbps";
    std::string delay = "1us";
    uint32_t seed = 1;

    CommandLine cmd(__FILE__);
    AddStringOption(cmd, "transport", "Comma-separated transports (metaroce, rocev2)", transports);
    AddStringOption(cmd, "loss", "Comma-separated packet loss rates per link", losses);
    AddIntegerOption(cmd, "planes", "Links (planes) between the two hosts", planes, 1, 64);
    // MaxBytes 0 would mean "send forever": 10 simulated seconds of traffic, hours of wall time.
    AddIntegerOption(cmd, "bytes", "BulkSendApplication MaxBytes", bytes, 1, 10'000'000'000);
    AddIntegerOption(cmd, "sendSize", "BulkSendApplication SendSize", sendSize, 1, 1 << 24);
    AddStringOption(cmd, "rate", "Link rate", rate);
    AddStringOption(cmd, "delay", "Link delay", delay);
    AddIntegerOption(cmd, "seed", "First random stream", seed, 0, 1u << 30);
    if (!ParseCommandLine(cmd, argc, argv, "metaroce-bulk-send"))
    {
        return 2;
    }
    try
    {
        ParseProbabilityList("loss", losses);
        const uint64_t rateBps = ParseRateOption("rate", rate).GetBitRate();
        for (const std::string& name : SplitOptionList("transport", transports))
        {
            // What the NICs would meet as a fatal error at their first connection.
            const std::string problem =
                MetaRoceNic::GetConfigProblem({},
                                              planes,
                                              rateBps,
                                              ParseTransportOption("transport", name));
            if (!problem.empty())
            {
                throw std::invalid_argument("--rate=" + rate +
                                            " with the NICs' attributes: " + problem);
            }
        }
        if (ParseTimeOption("delay", delay) <= Time(0))
        {
            throw std::invalid_argument("--delay: '" + delay + "' is not a positive delay");
        }
    }
    catch (const std::invalid_argument& e)
    {
        std::cerr << "metaroce-bulk-send: " << e.what() << "\n";
        return 2;
    }
    std::cout << "transport,loss,planes,bytes_received,completion_us,goodput_gbps\n";
    for (const std::string& name : SplitOptionList("transport", transports))
    {
        const metaroce::Transport transport = ParseTransportOption("transport", name);
        for (const double loss : ParseProbabilityList("loss", losses))
        {
            const Result r = RunOnce(transport, loss, planes, bytes, sendSize, rate, delay, seed);
            const double seconds = r.lastRx.GetSeconds();
            const double gbps = seconds > 0 ? r.received * 8.0 / seconds / 1e9 : 0.0;
            std::cout << name << "," << loss << "," << planes << "," << r.received << ","
                      << std::fixed << std::setprecision(1) << r.lastRx.GetMicroSeconds() << ","
                      << std::setprecision(2) << gbps << std::defaultfloat << "\n";
        }
    }
    try
    {
        MetaRoceFlushStandardOutput(); // the CSV rows, if stdout is a file on a full disk
    }
    catch (const std::exception& e)
    {
        std::cerr << "metaroce-bulk-send: " << e.what() << "\n";
        return 2;
    }
    return 0;
}
