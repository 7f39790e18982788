/*
 * Buffer admission of a MetaRoceSwitch in lossy mode, chosen by its "BufferAdmission" attribute
 * (an ObjectFactory, default "ns3::MetaRoceDynamicThresholdAdmission") in the manner of ns-3's
 * QueueDisc: the policy decides whether an egress queue may take one more packet of the shared
 * buffer. The switch keeps what holds whatever the policy: a packet that does not fit in the
 * free space is dropped as "buffer-full", and with PFC on (lossless mode) no per-queue limit
 * applies; a packet the policy refuses is dropped as "port-limit" (or trimmed).
 */
#ifndef METAROCE_BUFFER_ADMISSION_H
#define METAROCE_BUFFER_ADMISSION_H

#include "ns3/object.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief Base of the switch's shared-buffer admission policies (lossy mode).
 */
class MetaRoceBufferAdmission : public Object
{
  public:
    static TypeId GetTypeId();
    MetaRoceBufferAdmission();
    ~MetaRoceBufferAdmission() override;

    /**
     * True when an egress queue holding `queueBytes` may take a packet of `size` bytes, with
     * `bufferUsed` of the shared `bufferSize` bytes in use (the packet is known to fit).
     */
    virtual bool Admit(uint64_t queueBytes,
                       uint32_t size,
                       uint64_t bufferUsed,
                       uint64_t bufferSize) const = 0;

    /// Why the parameters cannot work (naming the attribute and its value), or "" when they can.
    /// Subclasses with parameters override it.
    virtual std::string GetConfigProblem() const;

    /// Aborts with GetConfigProblem(), if any; the switch calls it when it starts.
    void CheckConfig() const;
};

} // namespace ns3

#endif // METAROCE_BUFFER_ADMISSION_H
