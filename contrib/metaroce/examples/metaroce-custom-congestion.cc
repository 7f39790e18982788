/*
 * Your own MetaRoCE congestion control (spec 9.5) chosen by attribute: an engine algorithm (a
 * metaroce::CongestionControl, no ns-3) and an ns-3 MetaRoceCongestionOps holding its parameters
 * as attributes. Here a fixed window per flow, in an incast, against AIMD.
 *   ./metaroce-custom-congestion --hosts=16 --planes=8 --messageBytes=1048576
 */
#include "ns3/metaroce-atomic-file.h"
#include "ns3/metaroce-congestion-ops.h"
#include "ns3/metaroce-experiment.h"
#include "ns3/uinteger.h"

#include <iostream>

using namespace ns3;
using metaroce::TimeNs;
using Window = metaroce::WindowState;

/// The algorithm: every flow window stays at `bytes`, whatever ACKs, losses or timeouts say.
class FixedWindow : public metaroce::CongestionControl
{
  public:
    double bytes{8320}; ///< the window of every flow

    const char* Name() const override
    {
        return "fixed";
    }

    void OnAck(Window& flow, Window&, const metaroce::AckSample&, TimeNs) override
    {
        flow.window = bytes;
        flow.Clamp(); // within [one packet, the SACK span]
    }

    void OnLoss(Window&, Window&, TimeNs, TimeNs) override
    {
    }

    void OnTimeout(Window&, Window&, TimeNs) override
    {
    }

    std::unique_ptr<CongestionControl> Clone() const override
    {
        return std::make_unique<FixedWindow>(*this);
    }
};

/// The ns-3 object: chosen with CongestionControl=ns3::ExampleFixedWindow[Window=8320].
class ExampleFixedWindow : public MetaRoceCongestionOps
{
    uint32_t m_window{8320};

  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::ExampleFixedWindow")
                                .SetParent<MetaRoceCongestionOps>()
                                .SetGroupName("MetaRoce")
                                .AddConstructor<ExampleFixedWindow>()
                                .AddAttribute("Window",
                                              "Bytes every flow may have in flight.",
                                              UintegerValue(8320),
                                              MakeUintegerAccessor(&ExampleFixedWindow::m_window),
                                              MakeUintegerChecker<uint32_t>(1));
        return tid;
    }

    std::unique_ptr<metaroce::CongestionControl> Create() const override
    {
        auto algorithm = std::make_unique<FixedWindow>();
        algorithm->bytes = m_window;
        return algorithm;
    }
};

NS_OBJECT_ENSURE_REGISTERED(ExampleFixedWindow);

int
main(int argc, char* argv[])
{
    MetaRoceExperimentConfig c;
    c.workload = "incast";
    c.messageBytes = 1 << 20;
    if (!c.ParseOptions(argc, argv, "metaroce-custom-congestion")) // --hosts, --messageBytes...
    {
        return 2; // a bad option, said on stderr
    }
    int incomplete = 0;
    for (const std::string cc : {"ns3::MetaRoceAimd", "ns3::ExampleFixedWindow[Window=8320]"})
    {
        c.nicAttributes = "CongestionControl=" + cc;
        const MetaRoceExperimentResults r = MetaRoceExperiment(c).Run();
        incomplete += r.complete ? 0 : 1;
        std::cout << c.nicAttributes << ": " << r.durationUs << " us, peak switch queue "
                  << r.maxQueueBytes << " B, " << r.retransmitted << " retransmitted\n";
    }
    try
    {
        MetaRoceFlushStandardOutput();
    }
    catch (const std::exception& e)
    {
        std::cerr << "metaroce-custom-congestion: " << e.what() << "\n";
        return 2;
    }
    return incomplete; // 0 when every run delivered every byte
}
