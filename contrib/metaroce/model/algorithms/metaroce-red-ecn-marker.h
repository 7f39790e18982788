/*
 * RED on the instantaneous queue, the marking DCQCN recommends (spec 10.5), as the switch's
 * default ECN marker: a DATA packet entering a queue of q bytes is marked with probability 0 if
 * q <= Kmin, Pmax x (q - Kmin) / (Kmax - Kmin) up to Kmax, and 1 above Kmax. One uniform draw
 * is taken only between Kmin and Kmax, so the switch's random stream advances exactly as before
 * the marker became pluggable.
 */
#ifndef METAROCE_RED_ECN_MARKER_H
#define METAROCE_RED_ECN_MARKER_H

#include "metaroce-ecn-marker.h"

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief RED marking on the instantaneous DATA queue (attributes Kmin, Kmax, Pmax).
 */
class MetaRoceRedEcnMarker : public MetaRoceEcnMarker
{
  public:
    static TypeId GetTypeId();
    MetaRoceRedEcnMarker();
    ~MetaRoceRedEcnMarker() override;

    bool ShouldMark(uint64_t qBytes) override;
    std::string GetConfigProblem() const override;

  private:
    uint64_t m_kmin;
    uint64_t m_kmax;
    double m_pmax;
};

} // namespace ns3

#endif // METAROCE_RED_ECN_MARKER_H
