#include "metaroce-experiment.h"

#include "metaroce-collective-helper.h"
#include "metaroce-options.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/error-model.h"
#include "ns3/metaroce-fabric-helper.h"
#include "ns3/metaroce-fabric-monitor.h"
#include "ns3/metaroce-flow-generator.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace ns3
{

namespace
{

/**
 * True when ns-3 can read `value` for an attribute of `valueType` without aborting: the
 * numeric and time values of ns-3.37 abort on trailing text instead of reporting it, so those
 * are checked here first (others report a bad value through CreateValidValue()).
 */
bool
Readable(const std::string& valueType, const std::string& value)
{
    try
    {
        std::size_t used = 0;
        if (valueType == "ns3::UintegerValue")
        {
            std::stoull(value, &used);
            return used == value.size() && value.find('-') == std::string::npos;
        }
        if (valueType == "ns3::IntegerValue")
        {
            std::stoll(value, &used);
            return used == value.size();
        }
        if (valueType == "ns3::DoubleValue")
        {
            std::stod(value, &used);
            return used == value.size();
        }
        if (valueType == "ns3::TimeValue")
        {
            ParseTimeOption("attribute", value);
        }
    }
    catch (const std::exception&)
    {
        return false;
    }
    return true;
}

/// Parses "Name=Value;Name=Value" and checks each against `typeName`'s attributes.
std::vector<std::pair<std::string, std::string>>
ParseAttributes(const std::string& option, const std::string& text, const std::string& typeName)
{
    std::vector<std::pair<std::string, std::string>> result;
    std::stringstream ss(text);
    const TypeId tid = TypeId::LookupByName(typeName);
    for (std::string item; std::getline(ss, item, ';');)
    {
        if (item.empty())
        {
            continue;
        }
        const auto eq = item.find('=');
        if (eq == std::string::npos)
        {
            throw std::invalid_argument("--" + option + ": '" + item + "' is not Name=Value");
        }
        const std::string name = item.substr(0, eq);
        const std::string value = item.substr(eq + 1);
        TypeId::AttributeInformation info;
        if (!tid.LookupAttributeByName(name, &info))
        {
            throw std::invalid_argument("--" + option + ": " + typeName + " has no attribute '" +
                                        name + "'");
        }
        if (!Readable(info.checker->GetValueTypeName(), value) ||
            !info.checker->CreateValidValue(StringValue(value)))
        {
            throw std::invalid_argument("--" + option + ": '" + value +
                                        "' is not a valid value for " + typeName + "::" + name);
        }
        result.emplace_back(name, value);
    }
    return result;
}

/// Gathers the messages the workload's applications report.
class MessageLog
{
  public:
    MessageLog(const MetaRoceExperimentConfig& config, double hostBps, uint64_t mtuBytes)
        : m_hostsPerLeaf(config.hostsPerLeaf)
        , m_leavesPerPod(config.topology == "fat-tree" ? config.leavesPerPod : 0)
        , m_coreDelayUs(ParseTimeOption("coreDelay", config.coreDelay).GetSeconds() * 1e6)
        , m_planes(config.planes)
        , m_hostDelayUs(ParseTimeOption("hostDelay", config.hostDelay).GetSeconds() * 1e6)
        , m_fabricDelayUs(ParseTimeOption("fabricDelay", config.fabricDelay).GetSeconds() * 1e6)
        , m_hostBps(hostBps)
        , m_mtuBytes(mtuBytes)
    {
    }

    void OnMessage(uint32_t src, uint32_t dst, uint64_t bytes, Time posted, Time completed)
    {
        MetaRoceFlowRecord r;
        r.src = src;
        r.dst = dst;
        r.bytes = bytes;
        r.startUs = posted.GetNanoSeconds() / 1e3;
        r.endUs = completed.GetNanoSeconds() / 1e3;
        r.fctUs = (completed - posted).GetNanoSeconds() / 1e3;
        r.idealUs = IdealUs(src, dst, bytes);
        r.slowdown = r.idealUs > 0 ? r.fctUs / r.idealUs : 0;
        m_records.push_back(r);
    }

    /// The unloaded fabric's time for the message: propagation over the path, store-and-
    /// forward of one packet at every switch, and the bytes at the NIC's full rate (all planes).
    double IdealUs(uint32_t src, uint32_t dst, uint64_t bytes) const
    {
        const uint32_t leafA = src / m_hostsPerLeaf;
        const uint32_t leafB = dst / m_hostsPerLeaf;
        const bool sameLeaf = leafA == leafB;
        const bool samePod =
            m_leavesPerPod == 0 || leafA / m_leavesPerPod == leafB / m_leavesPerPod;
        const double propagation = 2 * m_hostDelayUs + (sameLeaf ? 0 : 2 * m_fabricDelayUs) +
                                   (samePod ? 0 : 2 * m_coreDelayUs);
        const double switches = sameLeaf ? 1 : (samePod ? 3 : 5);
        const double packetBits = std::min<uint64_t>(bytes, m_mtuBytes) * 8.0;
        return propagation + switches * packetBits / m_hostBps * 1e6 +
               bytes * 8.0 / (m_hostBps * m_planes) * 1e6;
    }

    std::vector<MetaRoceFlowRecord> m_records;

  private:
    uint32_t m_hostsPerLeaf;
    uint32_t m_leavesPerPod; ///< 0: leaf-spine, a single pod
    double m_coreDelayUs;
    uint32_t m_planes;
    double m_hostDelayUs;
    double m_fabricDelayUs;
    double m_hostBps;
    uint64_t m_mtuBytes; ///< the NICs' Mtu: the largest packet a switch stores and forwards
};

metaroce::Transport
TransportOf(const std::string& name)
{
    return name == "metaroce" ? metaroce::Transport::MetaRoce : metaroce::Transport::RoceV2;
}

void
AddLoss(const MetaRoceFabricHelper& fabric, const MetaRoceExperimentConfig& c, int64_t stream)
{
    for (uint32_t p = 0; p < fabric.GetNPlanes(); ++p)
    {
        if (c.lossPlane >= 0 && static_cast<uint32_t>(c.lossPlane) != p)
        {
            continue;
        }
        const NetDeviceContainer devices = fabric.GetDevices(p);
        for (auto it = devices.Begin(); it != devices.End(); ++it)
        {
            Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
            em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
            em->SetRate(c.loss);
            stream += em->AssignStreams(stream);
            DynamicCast<PointToPointNetDevice>(*it)->SetReceiveErrorModel(em);
        }
    }
}

void
ScheduleFailure(MetaRoceFabricHelper& fabric, const MetaRoceExperimentConfig& c)
{
    if (c.failure == "none")
    {
        return;
    }
    const Time at = ParseTimeOption("failureAt", c.failureAt);
    const Time until =
        c.failureUntil.empty() ? Time::Max() : ParseTimeOption("failureUntil", c.failureUntil);
    auto check = [](bool ok, const std::string& what) {
        if (!ok)
        {
            throw std::invalid_argument(what);
        }
    };
    if (c.failure == "plane")
    {
        fabric.FailPlane(c.failurePlane, at, until);
    }
    else if (c.failure == "spine")
    {
        check(c.failureIndex < fabric.GetNSpines(),
              "--failureIndex: spine " + std::to_string(c.failureIndex) + " of " +
                  std::to_string(fabric.GetNSpines()));
        fabric.FailSpine(c.failurePlane, c.failureIndex, at, until);
    }
    else if (c.failure == "fabric-link")
    {
        check(c.failureIndex < fabric.GetNLeaves(),
              "--failureIndex: leaf " + std::to_string(c.failureIndex) + " of " +
                  std::to_string(fabric.GetNLeaves()));
        check(c.failureSpine < fabric.GetNSpines(),
              "--failureSpine: spine " + std::to_string(c.failureSpine) + " of " +
                  std::to_string(fabric.GetNSpines()));
        fabric.FailFabricLink(c.failurePlane, c.failureIndex, c.failureSpine, at, until);
    }
    else
    {
        check(c.failureIndex < fabric.GetNHosts(),
              "--failureIndex: host " + std::to_string(c.failureIndex) + " of " +
                  std::to_string(fabric.GetNHosts()));
        fabric.FailHostLink(c.failureIndex, c.failurePlane, at, until);
    }
}

} // namespace

MetaRoceExperiment::MetaRoceExperiment(const MetaRoceExperimentConfig& config)
    : m_config(config)
{
    m_config.Validate();
}

MetaRoceExperimentResults
MetaRoceExperiment::Run()
{
    const MetaRoceExperimentConfig& c = m_config;
    const auto wallStart = std::chrono::steady_clock::now();
    const auto nicAttributes =
        ParseAttributes("nicAttributes", c.nicAttributes, "ns3::MetaRoceNic");
    const auto switchAttributes =
        ParseAttributes("switchAttributes", c.switchAttributes, "ns3::MetaRoceSwitch");
    const metaroce::Transport transport = TransportOf(c.transport);

    // Set-up that may still throw (a bad CDF file) happens before anything is scheduled.
    double meanFlowBytes = 0;
    Ptr<EmpiricalRandomVariable> flowSizes;
    if (c.workload == "flows")
    {
        flowSizes = ReadFlowSizeCdf(c.cdfFile, &meanFlowBytes);
    }

    // Whatever happens from here on (a late std::invalid_argument included), the simulator
    // is left clean for the next run.
    struct SimulatorGuard
    {
        ~SimulatorGuard()
        {
            Simulator::Destroy();
        }
    } guard;

    RngSeedManager::SetSeed(c.seed);
    RngSeedManager::SetRun(c.run);
    MetaRoceFabricHelper fabric;
    if (c.topology == "fat-tree")
    {
        fabric.SetTopology(MetaRoceTopology::FAT_TREE);
        fabric.SetLeavesPerPod(c.leavesPerPod);
        fabric.SetCores(c.cores);
        fabric.SetCoreLink(ParseRateOption("coreRate", c.coreRate),
                           ParseTimeOption("coreDelay", c.coreDelay));
    }
    fabric.SetHosts(c.hosts);
    fabric.SetPlanes(c.planes);
    fabric.SetHostsPerLeaf(c.hostsPerLeaf);
    fabric.SetSpines(c.spines);
    fabric.SetHostLink(ParseRateOption("hostRate", c.hostRate),
                       ParseTimeOption("hostDelay", c.hostDelay));
    fabric.SetFabricLink(ParseRateOption("fabricRate", c.fabricRate),
                         ParseTimeOption("fabricDelay", c.fabricDelay));
    fabric.SetEcmpSeed(c.seed);
    fabric.SetSwitchAttribute("PfcEnabled", BooleanValue(c.transport == "rocev2-pfc"));
    fabric.SetNicAttribute("Dcqcn", BooleanValue(c.transport != "rocev2-nocc"));
    const uint32_t channels = c.channels == 0 ? c.planes : c.channels;
    if (transport == metaroce::Transport::MetaRoce && channels > 16)
    {
        fabric.SetNicAttribute("Streams", UintegerValue(channels));
    }
    for (const auto& [name, value] : nicAttributes)
    {
        fabric.SetNicAttribute(name, StringValue(value));
    }
    for (const auto& [name, value] : switchAttributes)
    {
        fabric.SetSwitchAttribute(name, StringValue(value));
    }
    fabric.Build();
    int64_t stream = 1000 + fabric.AssignStreams(1000);
    if (c.loss > 0)
    {
        AddLoss(fabric, c, stream);
    }
    stream += 100000;
    ScheduleFailure(fabric, c);

    std::vector<Ptr<MetaRoceNic>> nics;
    for (uint32_t h = 0; h < c.hosts; ++h)
    {
        nics.push_back(fabric.GetNic(h));
    }
    UintegerValue mtu;
    nics.front()->GetAttribute("Mtu", mtu);
    MessageLog log(c, ParseRateOption("hostRate", c.hostRate).GetBitRate(), mtu.Get());
    std::unique_ptr<MetaRoceCollectiveHelper> collective;
    std::vector<Ptr<MetaRoceFlowGenerator>> generators;
    std::function<bool()> done;
    if (c.workload == "flows")
    {
        flowSizes->SetStream(stream++);
        for (uint32_t h = 0; h < c.hosts; ++h)
        {
            Ptr<MetaRoceFlowGenerator> g = CreateObject<MetaRoceFlowGenerator>();
            g->SetAttribute("Load", DoubleValue(c.load));
            g->SetAttribute("MaxFlows", UintegerValue(c.flowsPerHost));
            g->Setup(nics, h, transport, flowSizes, meanFlowBytes);
            stream += g->AssignStreams(stream);
            fabric.GetHost(h)->AddApplication(g);
            g->SetStartTime(Seconds(0));
            g->TraceConnectWithoutContext("Flow", MakeCallback(&MessageLog::OnMessage, &log));
            generators.push_back(g);
        }
        done = [&generators]() {
            return std::all_of(generators.begin(), generators.end(), [](const auto& g) {
                return g->IsFinished();
            });
        };
    }
    else
    {
        collective =
            std::make_unique<MetaRoceCollectiveHelper>(ParseCollective(c.workload), c.messageBytes);
        collective->SetChannels(channels);
        collective->SetRepetitions(c.repetitions);
        collective->Install(nics, transport);
        for (const auto& app : collective->GetApps())
        {
            app->TraceConnectWithoutContext("Message", MakeCallback(&MessageLog::OnMessage, &log));
        }
        done = [&collective]() {
            const auto& apps = collective->GetApps();
            return std::all_of(apps.begin(), apps.end(), [](const auto& a) {
                return a->IsFinished();
            });
        };
    }

    // Stop as soon as the workload is done: the trailing acknowledgements and timers would
    // only move the simulated end time, never a result.
    const auto stopWhenDone = [&done]() {
        if (done())
        {
            Simulator::Stop();
        }
    };
    for (const auto& app :
         collective ? collective->GetApps() : std::vector<Ptr<MetaRoceCollectiveApp>>{})
    {
        app->TraceConnectWithoutContext(
            "Finished",
            Callback<void, uint32_t, Time>([stopWhenDone](uint32_t, Time) { stopWhenDone(); }));
    }
    for (const auto& g : generators)
    {
        g->TraceConnectWithoutContext(
            "Flow",
            Callback<void, uint32_t, uint32_t, uint64_t, Time, Time>(
                [stopWhenDone](uint32_t, uint32_t, uint64_t, Time, Time) { stopWhenDone(); }));
    }

    MetaRoceFabricMonitor monitor(fabric);
    monitor.Start(Seconds(0),
                  ParseTimeOption("throughputInterval", c.throughputInterval),
                  c.progress,
                  done);
    Simulator::Stop(ParseTimeOption("stopTime", c.stopTime));
    Simulator::Run();

    MetaRoceExperimentResults r;
    r.config = c;
    r.simEndUs = Simulator::Now().GetNanoSeconds() / 1e3;
    r.flows = std::move(log.m_records);
    std::sort(r.flows.begin(), r.flows.end(), [](const auto& a, const auto& b) {
        return std::tie(a.startUs, a.src, a.dst, a.endUs) <
               std::tie(b.startUs, b.src, b.dst, b.endUs);
    });
    r.messagesCompleted = r.flows.size();
    if (collective)
    {
        r.collective = collective->GetResult();
        r.complete = r.collective.complete;
        r.durationUs = r.collective.endUs - r.collective.startUs;
        for (const auto& app : collective->GetApps())
        {
            r.messages += app->GetMessagesPosted();
        }
    }
    else
    {
        double first = r.flows.empty() ? 0 : r.flows.front().startUs;
        double last = 0;
        for (const auto& f : r.flows)
        {
            last = std::max(last, f.endUs);
        }
        r.durationUs = last - first;
        for (const auto& g : generators)
        {
            r.messages += g->GetStarted();
        }
        r.complete = done();
    }
    r.SummariseFlows();
    const Time duration = MicroSeconds(1) * std::max(r.durationUs, 1e-3);
    for (uint32_t h = 0; h < c.hosts; ++h)
    {
        MetaRoceHostRecord host;
        host.host = h;
        for (const auto& qp : nics[h]->GetQueuePairs())
        {
            const metaroce::Counters& k = qp->GetCounters();
            host.txBytes += k.txBytes;
            host.deliveredBytes += k.placedBytes;
            host.retransmitted += k.retransmittedPackets;
            host.timeouts += k.timeouts;
            host.ecnMarked += k.rxEcnMarked;
            r.dataPackets += k.txDataPackets;
            r.fastRetransmits += k.fastRetransmits;
            r.tailProbes += k.tailProbes;
            r.spuriousLosses += k.spuriousLosses;
            for (std::size_t reason = 0; reason < k.drops.size(); ++reason)
            {
                if (k.drops[reason] > 0)
                {
                    r.drops[std::string("nic-") + metaroce::kDropReasons[reason].name] +=
                        k.drops[reason];
                }
            }
        }
        host.goodputGbps = host.deliveredBytes * 8.0 / duration.GetNanoSeconds();
        r.bytesDelivered += host.deliveredBytes;
        r.retransmitted += host.retransmitted;
        r.timeouts += host.timeouts;
        r.ecnMarked += host.ecnMarked;
        r.hosts.push_back(host);
    }
    r.goodputGbps = r.bytesDelivered * 8.0 / duration.GetNanoSeconds();
    for (const auto& sw : fabric.GetSwitches())
    {
        for (uint32_t reason = 0; reason < uint32_t(MetaRoceDropReason::COUNT); ++reason)
        {
            const char* name = MetaRoceSwitch::DropReasonName(MetaRoceDropReason(reason));
            if (const uint64_t n = sw->GetDropCount(name); n > 0)
            {
                r.drops[std::string("switch-") + name] += n;
            }
        }
    }
    r.links = monitor.GetLinks(duration);
    r.planes = monitor.GetPlanes(r.links);
    uint64_t lost = 0;
    for (const auto& p : r.planes)
    {
        r.pfcPauses += p.pfcPauses;
        r.maxQueueBytes = std::max(r.maxQueueBytes, p.maxQueueBytes);
        lost += p.lost;
    }
    if (lost > 0)
    {
        r.drops["link-loss"] = lost;
    }
    r.throughput = monitor.GetThroughput();
    r.hostThroughput = monitor.GetHostThroughput();
    r.packetHops = monitor.GetPacketHops();
    Simulator::Destroy();
    r.wallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    if (!c.output.empty())
    {
        r.Write(c.output);
    }
    return r;
}

} // namespace ns3
