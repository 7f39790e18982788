#include "metaroce-red-ecn-marker.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceRedEcnMarker");
NS_OBJECT_ENSURE_REGISTERED(MetaRoceRedEcnMarker);

TypeId
MetaRoceRedEcnMarker::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MetaRoceRedEcnMarker")
            .SetParent<MetaRoceEcnMarker>()
            .SetGroupName("MetaRoce")
            .AddConstructor<MetaRoceRedEcnMarker>()
            .AddAttribute("Kmin",
                          "DATA queue bytes at and below which nothing is marked.",
                          UintegerValue(100000),
                          MakeUintegerAccessor(&MetaRoceRedEcnMarker::m_kmin),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("Kmax",
                          "DATA queue bytes above which every ECT packet is marked.",
                          UintegerValue(400000),
                          MakeUintegerAccessor(&MetaRoceRedEcnMarker::m_kmax),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("Pmax",
                          "Marking probability reached at Kmax.",
                          DoubleValue(0.2),
                          MakeDoubleAccessor(&MetaRoceRedEcnMarker::m_pmax),
                          MakeDoubleChecker<double>());
    return tid;
}

MetaRoceRedEcnMarker::MetaRoceRedEcnMarker()
{
    NS_LOG_FUNCTION(this);
}

MetaRoceRedEcnMarker::~MetaRoceRedEcnMarker() = default;

std::string
MetaRoceRedEcnMarker::GetConfigProblem() const
{
    std::ostringstream os;
    if (m_kmin > m_kmax)
    {
        os << "MetaRoceRedEcnMarker: Kmin (" << m_kmin << ") must not exceed Kmax (" << m_kmax
           << ")";
    }
    else if (!(m_pmax >= 0 && m_pmax <= 1))
    {
        os << "MetaRoceRedEcnMarker: Pmax must be in [0, 1], is " << m_pmax;
    }
    return os.str();
}

bool
MetaRoceRedEcnMarker::ShouldMark(uint64_t qBytes)
{
    if (qBytes <= m_kmin)
    {
        return false;
    }
    if (qBytes > m_kmax)
    {
        return true;
    }
    const double p = m_pmax * double(qBytes - m_kmin) / double(m_kmax - m_kmin);
    return GetRandomVariable()->GetValue() < p;
}

} // namespace ns3
