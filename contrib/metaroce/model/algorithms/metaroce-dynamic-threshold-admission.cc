#include "metaroce-dynamic-threshold-admission.h"

#include "ns3/double.h"
#include "ns3/log.h"

#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceDynamicThresholdAdmission");
NS_OBJECT_ENSURE_REGISTERED(MetaRoceDynamicThresholdAdmission);

TypeId
MetaRoceDynamicThresholdAdmission::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MetaRoceDynamicThresholdAdmission")
            .SetParent<MetaRoceBufferAdmission>()
            .SetGroupName("MetaRoce")
            .AddConstructor<MetaRoceDynamicThresholdAdmission>()
            .AddAttribute("Alpha",
                          "A queue may grow while it holds less than Alpha x the free buffer.",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&MetaRoceDynamicThresholdAdmission::m_alpha),
                          MakeDoubleChecker<double>());
    return tid;
}

MetaRoceDynamicThresholdAdmission::MetaRoceDynamicThresholdAdmission()
{
    NS_LOG_FUNCTION(this);
}

MetaRoceDynamicThresholdAdmission::~MetaRoceDynamicThresholdAdmission() = default;

std::string
MetaRoceDynamicThresholdAdmission::GetConfigProblem() const
{
    if (m_alpha > 0) // false for NaN too
    {
        return "";
    }
    std::ostringstream os;
    os << "MetaRoceDynamicThresholdAdmission: Alpha must be > 0, is " << m_alpha;
    return os.str();
}

bool
MetaRoceDynamicThresholdAdmission::Admit(uint64_t queueBytes,
                                         uint32_t size,
                                         uint64_t bufferUsed,
                                         uint64_t bufferSize) const
{
    // The threshold counts the free space before this packet (Choudhury-Hahne).
    const double threshold = m_alpha * double(bufferSize - bufferUsed);
    return double(queueBytes) < threshold;
}

} // namespace ns3
