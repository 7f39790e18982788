#include "compliance-adapter.h"

namespace metaroce::compliance
{

std::vector<WirePacket>
ComplianceAdapter::TakeEmitted()
{
    std::vector<WirePacket> out;
    out.swap(m_emitted);
    return out;
}

std::vector<Completion>
ComplianceAdapter::TakeCompletions()
{
    std::vector<Completion> out;
    out.swap(m_completions);
    return out;
}

} // namespace metaroce::compliance
