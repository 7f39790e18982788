// Fuzz target: the "Name=Value;Name=Value" attribute strings of --nicAttributes and
// --switchAttributes (ParseAttributeOption, helper/experiment/metaroce-options.cc) on arbitrary
// text. The parser checks every name and value against ns-3's attribute system before ns-3
// sees it, because ns-3 aborts on some bad values instead of reporting them; so any abort (an
// NS_FATAL_ERROR inside ns-3 reached through the parser) is a finding, and the only allowed
// failure is std::invalid_argument. An accepted value must then be settable for real.
//
// The metaroce module is not linked (this target is built from the parser alone, so that
// libFuzzer's coverage covers it without building the module with clang): the types are
// ns-3's own, chosen by the first byte, whose attributes span the value kinds the parser
// handles (Uinteger, Double, Time, DataRate, Boolean, Enum, ObjectFactory, Pointer, String).
#include "metaroce-options.h"

#include "ns3/drop-tail-queue.h"
#include "ns3/error-model.h"
#include "ns3/object-factory.h"
#include "ns3/point-to-point-channel.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/random-variable-stream.h"
#include "ns3/string.h"

#include <array>
#include <stdexcept>

using namespace ns3;

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size)
{
    static const std::array<const char*, 5> kTypes{"ns3::PointToPointNetDevice",
                                                   "ns3::RateErrorModel",
                                                   "ns3::DropTailQueue<Packet>",
                                                   "ns3::PointToPointChannel",
                                                   "ns3::UniformRandomVariable"};
    // Named here so that the linker keeps the libraries that register these types.
    static const std::array<TypeId, 5> kRegistered{PointToPointNetDevice::GetTypeId(),
                                                   RateErrorModel::GetTypeId(),
                                                   DropTailQueue<Packet>::GetTypeId(),
                                                   PointToPointChannel::GetTypeId(),
                                                   UniformRandomVariable::GetTypeId()};
    if (size < 1 || kRegistered.empty())
    {
        return 0;
    }
    const std::string type = kTypes[data[0] % kTypes.size()];
    const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
    MetaRoceAttributeList list;
    try
    {
        list = ParseAttributeOption("nicAttributes", text, type);
    }
    catch (const std::invalid_argument&)
    {
        return 0;
    }
    // What the experiment does with an accepted list: set each on a factory and create.
    ObjectFactory factory;
    factory.SetTypeId(type);
    for (const auto& [name, value] : list)
    {
        factory.Set(name, StringValue(value));
    }
    factory.Create();
    return 0;
}
