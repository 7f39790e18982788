#include "engine-counters.h"

#include <numeric>

namespace metaroce
{

const std::array<const char*, static_cast<std::size_t>(DropReason::Count)> kDropReasonNames = {
    "truncated",
    "bad-version",
    "bad-opcode",
    "wrong-connection",
    "bad-field",
    "psn-out-of-window",
    "ack-out-of-window",
    "access-error",
    "no-receive-posted",
    "duplicate",
    "out-of-sequence",
    "port-down",
};

const char*
DropReasonName(DropReason reason)
{
    auto i = static_cast<std::size_t>(reason);
    return i < kDropReasonNames.size() ? kDropReasonNames[i] : "?";
}

uint64_t
Counters::TotalDrops() const
{
    return std::accumulate(drops.begin(), drops.end(), uint64_t{0});
}

} // namespace metaroce
