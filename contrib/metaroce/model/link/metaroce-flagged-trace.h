/*
 * A trace source that keeps one bit of its owner's mask set while it has sinks.
 *
 * A device checks about ten trace sources per packet-hop, and nearly always finds them empty.
 * Each TracedCallback keeps its sink list inside the object, so asking each of them costs a
 * read of its own bytes: five cache lines per device per hop, which at a few hundred hosts miss
 * and cost more than the rest of the link layer together (doc/performance.md). With this wrapper
 * the owner reads one word kept beside its hot fields instead, and touches a trace only when it
 * fires. Sinks connect through the usual TypeId accessors (TraceConnect, Config::Connect, the
 * pcap helpers): the accessor calls these member functions, which hide TracedCallback's.
 */
#ifndef METAROCE_FLAGGED_TRACE_H
#define METAROCE_FLAGGED_TRACE_H

#include "ns3/traced-callback.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief A TracedCallback that mirrors "has sinks" into a bit of its owner's mask.
 */
template<typename... Ts>
class MetaRoceFlaggedTrace : public TracedCallback<Ts...>
{
  public:
    using Base = TracedCallback<Ts...>;

    MetaRoceFlaggedTrace() = default;
    /// Not copyable: a copy would keep the original's mask.
    MetaRoceFlaggedTrace(const MetaRoceFlaggedTrace&) = delete;
    MetaRoceFlaggedTrace& operator=(const MetaRoceFlaggedTrace&) = delete;

    /// Mirrors this trace's state into bit of *mask (the owner's member, which outlives it).
    void Bind(uint32_t* mask, uint32_t bit)
    {
        m_mask = mask;
        m_bit = bit;
        Update();
    }

    void ConnectWithoutContext(const CallbackBase& callback)
    {
        Base::ConnectWithoutContext(callback);
        Update();
    }

    void Connect(const CallbackBase& callback, std::string path)
    {
        Base::Connect(callback, path);
        Update();
    }

    void DisconnectWithoutContext(const CallbackBase& callback)
    {
        Base::DisconnectWithoutContext(callback);
        Update();
    }

    void Disconnect(const CallbackBase& callback, std::string path)
    {
        Base::Disconnect(callback, path);
        Update();
    }

  private:
    void Update()
    {
        if (m_mask != nullptr)
        {
            *m_mask = Base::IsEmpty() ? (*m_mask & ~m_bit) : (*m_mask | m_bit);
        }
    }

    uint32_t* m_mask{nullptr};
    uint32_t m_bit{0};
};

} // namespace ns3

#endif /* METAROCE_FLAGGED_TRACE_H */
