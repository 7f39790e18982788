/*
 * Choudhury-Hahne dynamic thresholds, as shared-buffer switch ASICs use, the switch's default
 * buffer admission: a packet enters an egress queue only if that queue holds fewer than
 * Alpha x (buffer size - bytes in use) bytes, counted before the packet. A large Alpha
 * approaches complete sharing, a small one isolates ports.
 */
#ifndef METAROCE_DYNAMIC_THRESHOLD_ADMISSION_H
#define METAROCE_DYNAMIC_THRESHOLD_ADMISSION_H

#include "metaroce-buffer-admission.h"

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief Dynamic-threshold admission (attribute Alpha).
 */
class MetaRoceDynamicThresholdAdmission : public MetaRoceBufferAdmission
{
  public:
    static TypeId GetTypeId();
    MetaRoceDynamicThresholdAdmission();
    ~MetaRoceDynamicThresholdAdmission() override;

    bool Admit(uint64_t queueBytes,
               uint32_t size,
               uint64_t bufferUsed,
               uint64_t bufferSize) const override;
    std::string GetConfigProblem() const override;

  private:
    double m_alpha;
};

} // namespace ns3

#endif // METAROCE_DYNAMIC_THRESHOLD_ADMISSION_H
