#include "engine-drop-reasons.h"

namespace metaroce
{

namespace
{

template<typename Reason, std::size_t N>
const char*
NameIn(const ReasonTable<Reason, N>& table, Reason reason)
{
    const auto i = static_cast<std::size_t>(reason);
    return i < table.size() ? table[i].name : "?";
}

} // namespace

const char*
DropReasonName(DropReason reason)
{
    return NameIn(kDropReasons, reason);
}

const char*
NicDropReasonName(NicDropReason reason)
{
    return NameIn(kNicDropReasons, reason);
}

std::optional<DropReason>
DropReasonBySpecName(std::string_view specName)
{
    const ReasonInfo<DropReason>* row = FindReason(kDropReasons, specName, true);
    return row == nullptr ? std::nullopt : std::optional<DropReason>(row->reason);
}

} // namespace metaroce
