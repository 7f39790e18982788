#include "metaroce-config-attributes.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/uinteger.h"

#include <sstream>

namespace ns3
{

using metaroce::FieldUnit;

Ptr<AttributeValue>
MakeConfigFieldValue(FieldUnit unit, double value)
{
    switch (unit)
    {
    case FieldUnit::Count:
    case FieldUnit::Bytes:
        return Create<UintegerValue>(static_cast<uint64_t>(value));
    case FieldUnit::Nanoseconds:
        return Create<TimeValue>(NanoSeconds(static_cast<int64_t>(value)));
    case FieldUnit::BitsPerSecond:
        return Create<DataRateValue>(DataRate(static_cast<uint64_t>(value)));
    case FieldUnit::Real:
        return Create<DoubleValue>(value);
    case FieldUnit::Flag:
        return Create<BooleanValue>(value != 0);
    }
    return nullptr;
}

bool
WriteConfigFieldValue(FieldUnit unit, double value, AttributeValue& out)
{
    switch (unit)
    {
    case FieldUnit::Count:
    case FieldUnit::Bytes:
        if (auto* u = dynamic_cast<UintegerValue*>(&out))
        {
            u->Set(static_cast<uint64_t>(value));
            return true;
        }
        return false;
    case FieldUnit::Nanoseconds:
        if (auto* t = dynamic_cast<TimeValue*>(&out))
        {
            t->Set(NanoSeconds(static_cast<int64_t>(value)));
            return true;
        }
        return false;
    case FieldUnit::BitsPerSecond:
        if (auto* r = dynamic_cast<DataRateValue*>(&out))
        {
            r->Set(DataRate(static_cast<uint64_t>(value)));
            return true;
        }
        return false;
    case FieldUnit::Real:
        if (auto* d = dynamic_cast<DoubleValue*>(&out))
        {
            d->Set(value);
            return true;
        }
        return false;
    case FieldUnit::Flag:
        if (auto* b = dynamic_cast<BooleanValue*>(&out))
        {
            b->Set(value != 0);
            return true;
        }
        return false;
    }
    return false;
}

bool
ReadConfigFieldValue(FieldUnit unit, const AttributeValue& value, double& out)
{
    switch (unit)
    {
    case FieldUnit::Count:
    case FieldUnit::Bytes:
        if (const auto* u = dynamic_cast<const UintegerValue*>(&value))
        {
            out = static_cast<double>(u->Get());
            return true;
        }
        return false;
    case FieldUnit::Nanoseconds:
        if (const auto* t = dynamic_cast<const TimeValue*>(&value))
        {
            out = static_cast<double>(t->Get().GetNanoSeconds());
            return true;
        }
        return false;
    case FieldUnit::BitsPerSecond:
        if (const auto* r = dynamic_cast<const DataRateValue*>(&value))
        {
            out = static_cast<double>(r->Get().GetBitRate());
            return true;
        }
        return false;
    case FieldUnit::Real:
        if (const auto* d = dynamic_cast<const DoubleValue*>(&value))
        {
            out = d->Get();
            return true;
        }
        return false;
    case FieldUnit::Flag:
        if (const auto* b = dynamic_cast<const BooleanValue*>(&value))
        {
            out = b->Get() ? 1 : 0;
            return true;
        }
        return false;
    }
    return false;
}

Ptr<const AttributeChecker>
MakeConfigFieldChecker(FieldUnit unit, double min, double max)
{
    switch (unit)
    {
    case FieldUnit::Count:
    case FieldUnit::Bytes:
        return MakeUintegerChecker<uint64_t>(static_cast<uint64_t>(min),
                                             static_cast<uint64_t>(max));
    case FieldUnit::Nanoseconds:
        return MakeTimeChecker(NanoSeconds(static_cast<int64_t>(min)),
                               NanoSeconds(static_cast<int64_t>(max)));
    case FieldUnit::BitsPerSecond:
        // DataRate has no ranged checker: the accessor refuses a rate outside the range.
        return MakeDataRateChecker();
    case FieldUnit::Real:
        return MakeDoubleChecker<double>(min, max);
    case FieldUnit::Flag:
        break;
    }
    return MakeBooleanChecker();
}

std::string
ConfigFieldHelp(FieldUnit unit, double min, double max, const char* section, const char* help)
{
    std::ostringstream os;
    os << help << " [";
    if (unit != FieldUnit::Flag)
    {
        const std::string symbol = metaroce::FieldUnitSymbol(unit);
        os << metaroce::FormatFieldValue(FieldUnit::Real, min) << " to "
           << metaroce::FormatFieldValue(FieldUnit::Real, max) << (symbol.empty() ? "" : " ")
           << symbol << "; ";
    }
    os << "spec " << section << "]";
    return os.str();
}

} // namespace ns3
