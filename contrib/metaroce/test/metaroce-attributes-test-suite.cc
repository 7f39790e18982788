/*
 * The NIC's attributes are the engine's configuration tables (engine/common/config-field.h,
 * model/nic/metaroce-config-attributes.h):
 *
 *  - every row of every table is an attribute of ns3::MetaRoceNic, with the table's default;
 *  - a value outside the row's range is refused (SetAttributeFailSafe fails, the old value stays);
 *  - a value set by attribute (or Config::SetDefault) reaches the engine of every queue pair the
 *    NIC creates afterwards, for each table;
 *  - MetaRoceNic::GetConfigProblem and MetaRoceSwitch::GetConfigProblem report, from attribute
 *    settings alone and without drawing a random stream, what the NIC and the switch would
 *    abort with: rules across fields, algorithm parameters, former attributes, PFC thresholds.
 */
#include "ns3/config.h"
#include "ns3/metaroce-aimd.h"
#include "ns3/metaroce-algorithm-factory.h"
#include "ns3/metaroce-config-attributes.h"
#include "ns3/metaroce-connection.h"
#include "ns3/metaroce-dcqcn.h"
#include "ns3/metaroce-helper.h"
#include "ns3/metaroce-ns3-compat.h"
#include "ns3/metaroce-options.h"
#include "ns3/metaroce-swift.h"
#include "ns3/metaroce-switch.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/rocev2-queue-pair.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

using namespace ns3;
using metaroce::Transport;

namespace
{

class EveryFieldIsAnAttributeTestCase : public TestCase
{
  public:
    EveryFieldIsAnAttributeTestCase()
        : TestCase(
              "every engine configuration field is an attribute (NIC or algorithm) with its range")
    {
    }

  private:
    void DoRun() override
    {
        CheckTable(CreateObject<MetaRoceNic>(), metaroce::MetaRoceConfigFields(), "");
        CheckTable(CreateObject<MetaRoceNic>(), metaroce::RoceV2ConfigFields(), "Roce");
        CheckTable(CreateObject<MetaRoceDcqcn>(), metaroce::DcqcnConfigFields(), "");
        CheckTable(CreateObject<MetaRoceAimd>(), metaroce::AimdConfigFields(), "");
        CheckTable(CreateObject<MetaRoceSwift>(), metaroce::SwiftConfigFields(), "");
    }

    /// Checks that every row of `fields` is an attribute of `nic` (the NIC or an algorithm
    /// object) with the row's default, and that it refuses a value above the row's range.
    template<typename Config>
    void CheckTable(Ptr<Object> nic,
                    const metaroce::ConfigFields<Config>& fields,
                    const std::string& prefix)
    {
        const TypeId tid = nic->GetInstanceTypeId();
        const Config defaults{};
        for (const metaroce::ConfigField<Config>& f : fields)
        {
            const std::string name = prefix + f.attribute;
            TypeId::AttributeInformation info;
            NS_TEST_EXPECT_MSG_EQ(tid.LookupAttributeByName(name, &info),
                                  true,
                                  tid.GetName() << " has no attribute for " << f.member);
            const Ptr<AttributeValue> value = info.checker->Create();
            nic->GetAttribute(name, *value);
            double got = 0;
            NS_TEST_EXPECT_MSG_EQ(metaroce::FormatFieldValue(f.unit, f.get(defaults)),
                                  ReadConfigFieldValue(f.unit, *value, got)
                                      ? metaroce::FormatFieldValue(f.unit, got)
                                      : "unreadable",
                                  name << " default differs from the engine's");
            if (f.unit != metaroce::FieldUnit::Flag && f.max < 1e15)
            {
                NS_TEST_EXPECT_MSG_EQ(
                    nic->SetAttributeFailSafe(name, *MakeConfigFieldValue(f.unit, f.max + 1)),
                    false,
                    name << " accepted a value above its range");
                nic->GetAttribute(name, *value);
                ReadConfigFieldValue(f.unit, *value, got);
                NS_TEST_EXPECT_MSG_EQ(got, f.get(defaults), name << " changed by a refused value");
            }
        }
    }
};

class AttributesReachTheEngineTestCase : public TestCase
{
  public:
    AttributesReachTheEngineTestCase()
        : TestCase("attributes set on the NIC reach every engine it creates")
    {
    }

  private:
    void DoRun() override
    {
        Config::SetDefault("ns3::MetaRoceNic::MaxRetransmissions", UintegerValue(9));
        MetaRoceHelper rdma;
        rdma.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
        rdma.SetNicAttribute("RtoMin", TimeValue(MicroSeconds(77)));
        rdma.SetNicAttribute("CongestionControl",
                             StringValue("ns3::MetaRoceAimd[FlowDecrease=0.125]"));
        rdma.SetNicAttribute("RoceAckEveryPackets", UintegerValue(3));
        rdma.SetNicAttribute("RoceRateControl",
                             StringValue("ns3::MetaRoceDcqcn[MinRate=2Gbps|Enabled=false]"));
        NodeContainer nodes;
        nodes.Create(2);
        Ptr<MetaRoceNic> a = rdma.Install(nodes.Get(0));
        Ptr<MetaRoceNic> b = rdma.Install(nodes.Get(1));
        rdma.ConnectBackToBack(a, b, 1);
        Config::Reset();

        const auto [mr, mrPeer] = MetaRoceNic::Connect(a, b, Transport::MetaRoce);
        const auto& conn = dynamic_cast<const metaroce::MetaRoceConnection&>(mr->GetEngine());
        NS_TEST_EXPECT_MSG_EQ(conn.Config().rtoMinNs, 77'000, "RtoMin");
        NS_TEST_EXPECT_MSG_EQ(conn.Config().maxRetransmissions, 9, "Config::SetDefault");
        const Ptr<MetaRoceAimd> aimd = DynamicCast<MetaRoceAimd>(a->GetCongestionOps());
        NS_TEST_ASSERT_MSG_NE(aimd, nullptr, "the default congestion control is AIMD");
        NS_TEST_EXPECT_MSG_EQ(aimd->GetConfig().flowDecrease, 0.125, "FlowDecrease");
        NS_TEST_EXPECT_MSG_EQ(conn.Config().ports, 1, "ports are the NIC's");

        // A NIC's connections share one configuration until an attribute changes; those made
        // before keep theirs.
        const auto [second, secondPeer] = MetaRoceNic::Connect(a, b, Transport::MetaRoce);
        const auto& conn2 = dynamic_cast<const metaroce::MetaRoceConnection&>(second->GetEngine());
        NS_TEST_EXPECT_MSG_EQ((&conn2.Config() == &conn.Config()), true, "one configuration");
        NS_TEST_EXPECT_MSG_EQ((conn2.Ids().local != conn.Ids().local), true, "own identity");
        a->SetAttribute("RtoMin", TimeValue(MicroSeconds(88)));
        const auto [third, thirdPeer] = MetaRoceNic::Connect(a, b, Transport::MetaRoce);
        const auto& conn3 = dynamic_cast<const metaroce::MetaRoceConnection&>(third->GetEngine());
        NS_TEST_EXPECT_MSG_EQ(conn3.Config().rtoMinNs, 88'000, "a changed attribute");
        NS_TEST_EXPECT_MSG_EQ(conn.Config().rtoMinNs, 77'000, "kept by the connections before");

        const auto [rq, rqPeer] = MetaRoceNic::Connect(a, b, Transport::RoceV2);
        const auto& qp = dynamic_cast<const metaroce::RoceV2QueuePair&>(rq->GetEngine());
        NS_TEST_EXPECT_MSG_EQ(qp.GetConfig().ackEveryPackets, 3, "RoceAckEveryPackets");
        NS_TEST_EXPECT_MSG_EQ(qp.GetConfig().dcqcn.minRateBps,
                              2'000'000'000,
                              "MetaRoceDcqcn MinRate");
        NS_TEST_EXPECT_MSG_EQ(qp.GetConfig().dcqcn.enabled, false, "MetaRoceDcqcn Enabled");
        NS_TEST_EXPECT_MSG_EQ(qp.GetConfig().mtu, conn.Config().mtu, "one Mtu for both");
        Simulator::Destroy();
    }
};

class BadAlgorithmIsRefusedTestCase : public TestCase
{
  public:
    BadAlgorithmIsRefusedTestCase()
        : TestCase("an unknown or wrong algorithm type is refused with its attribute's name")
    {
    }

  private:
    void DoRun() override
    {
        // A factory of no known type. Debian's ns-3.37 makes one from an unknown name (its
        // ObjectFactoryValue parser accepts "ns3::NoSuchCc", and Create would crash); ns-3
        // libraries built with asserts (the 3.44 wheel, debug trees) abort on the name itself,
        // so the test starts from a factory without a type.
        const ObjectFactory unknown;
        const std::string none = AlgorithmFactoryProblem(unknown,
                                                         MetaRoceCongestionOps::GetTypeId(),
                                                         "MetaRoceNic::CongestionControl");
        NS_TEST_EXPECT_MSG_EQ(none.find("MetaRoceNic::CongestionControl: unknown type"), 0, none);
        const std::string wrong = AlgorithmFactoryProblem(ObjectFactory("ns3::MetaRoceDcqcn"),
                                                          MetaRoceCongestionOps::GetTypeId(),
                                                          "CongestionControl");
        NS_TEST_EXPECT_MSG_EQ(wrong,
                              "CongestionControl: ns3::MetaRoceDcqcn is not a "
                              "ns3::MetaRoceCongestionOps",
                              "wrong family");
        NS_TEST_EXPECT_MSG_EQ(AlgorithmFactoryProblem(ObjectFactory("ns3::MetaRoceSwift"),
                                                      MetaRoceCongestionOps::GetTypeId(),
                                                      "CongestionControl"),
                              "",
                              "a congestion control is one");
        // The experiment runner checks "Name=Value" strings before ns-3 sees them: true when
        // `text` is refused with a message containing `named`.
        auto refused = [](const std::string& text, const std::string& named) {
            try
            {
                ParseAttributeOption("nicAttributes", text, "ns3::MetaRoceNic");
            }
            catch (const std::invalid_argument& e)
            {
                return std::string(e.what()).find(named) != std::string::npos;
            }
            return false;
        };
        NS_TEST_EXPECT_MSG_EQ(
            refused("CongestionControl=ns3::MetaRoceSwift[TargetDelay=abc]", "CongestionControl"),
            true,
            "a bad parameter inside a factory string");
        // The attributes' own checkers refuse the wrong family where the value is set, so
        // SetAttribute, Config and --nicAttributes fail before the NIC makes its first object.
        Ptr<MetaRoceNic> nic = CreateObject<MetaRoceNic>();
        const std::pair<ObjectFactory, const char*> notCongestionControls[] = {
            {ObjectFactory("ns3::MetaRoceDcqcn"), "ns3::MetaRoceDcqcn"},
            {ObjectFactory("ns3::Node"), "ns3::Node"},
            {unknown, "a factory without a type"}};
        for (const auto& [factory, type] : notCongestionControls)
        {
            NS_TEST_EXPECT_MSG_EQ(
                nic->SetAttributeFailSafe("CongestionControl", ObjectFactoryValue(factory)),
                false,
                type << " as CongestionControl");
        }
        NS_TEST_EXPECT_MSG_EQ(
            nic->SetAttributeFailSafe("CongestionControl",
                                      ObjectFactoryValue(ObjectFactory("ns3::MetaRoceSwift"))),
            true,
            "a congestion control is accepted");
        // A type that is not an Object at all (a Header) crashed ObjectFactory::Create inside a
        // Pointer attribute's parser (found by test/fuzz, regress-pointer-not-object).
        NS_TEST_EXPECT_MSG_EQ(refused("CongestionControl=ns3::PbbPacket", "ns3::PbbPacket"),
                              true,
                              "a type that is not an Object");
    }
};

class StaticConfigCheckTestCase : public TestCase
{
  public:
    StaticConfigCheckTestCase()
        : TestCase("settings the NIC or switch would abort on are reported without building one")
    {
    }

  private:
    /// The problem `check` reports, and whether it drew a random stream meanwhile.
    template<typename F>
    static std::pair<std::string, bool> Run(F check)
    {
        const uint64_t before = RngSeedManager::GetNextStreamIndex();
        std::string problem = check();
        return {problem, RngSeedManager::GetNextStreamIndex() != before + 1};
    }

    void Nic(const MetaRoceAttributeSettings& settings,
             uint64_t rateBps,
             Transport transport,
             const std::string& expected)
    {
        const auto [problem, drew] =
            Run([&] { return MetaRoceNic::GetConfigProblem(settings, 2, rateBps, transport); });
        NS_TEST_EXPECT_MSG_EQ((problem.find(expected) != std::string::npos && !expected.empty()),
                              true,
                              "'" << problem << "' should name '" << expected << "'");
        NS_TEST_EXPECT_MSG_EQ(drew, false, "no random stream drawn");
    }

    void Switch(const MetaRoceAttributeSettings& settings, const std::string& expected)
    {
        const auto [problem, drew] =
            Run([&] { return MetaRoceSwitch::GetConfigProblem(settings); });
        NS_TEST_EXPECT_MSG_EQ((problem.find(expected) != std::string::npos && !expected.empty()),
                              true,
                              "'" << problem << "' should name '" << expected << "'");
        NS_TEST_EXPECT_MSG_EQ(drew, false, "no random stream drawn");
    }

    void DoRun() override
    {
        // Defaults and valid settings: nothing to report.
        for (const Transport t : {Transport::MetaRoce, Transport::RoceV2})
        {
            NS_TEST_EXPECT_MSG_EQ(MetaRoceNic::GetConfigProblem({{"Mtu", "2048"}}, 8, 1e11, t),
                                  "",
                                  "a valid NIC");
        }
        NS_TEST_EXPECT_MSG_EQ(
            MetaRoceSwitch::GetConfigProblem({{"PfcEnabled", "true"}, {"EcnKmin", "5000"}}),
            "",
            "a valid switch");
        // What CreateQueuePair() would report as a fatal error at the first connection.
        Nic({}, 1, Transport::MetaRoce, "portRateBps");
        Nic({{"RtoMin", "5ms"}, {"RtoMax", "1ms"}}, 1e11, Transport::MetaRoce, "rtoMaxNs");
        Nic({{"Mtu", "8192"}}, 1e11, Transport::RoceV2, "RoceV2Config.mtu");
        Nic({{"RoceRateControl", "ns3::MetaRoceDcqcn[MinRate=200Gbps]"}},
            1e11,
            Transport::RoceV2,
            "minRateBps");
        // What CheckConfig() would abort with when the switch starts.
        Switch({{"EcnKmin", "500000"}}, "Kmin (500000) must not exceed Kmax (400000)");
        Switch({{"EcnMarker", "ns3::MetaRoceRedEcnMarker[Kmin=10|Kmax=5]"}}, "Kmin (10)");
        Switch({{"EcnPmax", "2"}}, "Pmax");
        Switch({{"BufferAdmission", "ns3::MetaRoceDynamicThresholdAdmission[Alpha=0]"}}, "Alpha");
        Switch({{"PfcEnabled", "true"}, {"PfcXoff", "100"}}, "PfcXon (65536)");
        Switch({{"PfcEnabled", "true"}, {"BufferSize", "1000"}}, "PfcXoff (98304)");
        NS_TEST_EXPECT_MSG_EQ(MetaRoceSwitch::GetConfigProblem({{"BufferSize", "1000"}}),
                              "",
                              "the PFC thresholds matter only with PFC on");
    }
};

class MetaRoceAttributesTestSuite : public TestSuite
{
  public:
    MetaRoceAttributesTestSuite()
        : TestSuite("metaroce-attributes", Type::UNIT)
    {
        AddTestCase(new EveryFieldIsAnAttributeTestCase(), MetaRoceTestDuration::QUICK);
        AddTestCase(new AttributesReachTheEngineTestCase(), MetaRoceTestDuration::QUICK);
        AddTestCase(new BadAlgorithmIsRefusedTestCase(), MetaRoceTestDuration::QUICK);
        AddTestCase(new StaticConfigCheckTestCase(), MetaRoceTestDuration::QUICK);
    }
};

MetaRoceAttributesTestSuite g_metaRoceAttributesTestSuite;

} // namespace
