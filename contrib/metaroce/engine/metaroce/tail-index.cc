#include "tail-index.h"

namespace metaroce
{

const SentPacket*
TailIndex::Lookup(const FlowTable& flows, const Entry& e)
{
    // A flow's ring holds consecutive FSNs from its floor (packets leave it only from the
    // front), so the entry's packet is at its distance from the front, if still there.
    const Ring<SentPacket>& out = flows[e.flow].outstanding;
    if (out.empty() || e.fsn < out.front().fsn || e.fsn - out.front().fsn >= out.size())
    {
        return nullptr;
    }
    const SentPacket& p = out[static_cast<std::size_t>(e.fsn - out.front().fsn)];
    return p.fsn == e.fsn ? &p : nullptr;
}

void
TailIndex::PruneSettled(const FlowTable& flows, const RackState& rack)
{
    while (!m_sent.empty() && !Unsettled(Lookup(flows, m_sent.front()), rack))
    {
        m_sent.pop_front();
    }
}

std::optional<Tail>
TailIndex::Find(const FlowTable& flows, const SendQueue& queue, const RackState& rack)
{
    // One pass from the front: entries settled for good (data no longer needed, delivered by
    // another copy, settles a packet as well) are dropped while they lead; a packet of a Down
    // flow (which FindTail passes over, and whose packets in flight are normally all declared
    // lost when it goes down) is kept and looked past.
    std::size_t i = 0;
    while (i < m_sent.size())
    {
        const Entry& e = m_sent[i];
        const SentPacket* p = Lookup(flows, e);
        if (!Unsettled(p, rack) || !queue.Needs(p->message, p->packetIndex))
        {
            if (i == 0)
            {
                m_sent.pop_front();
            }
            else
            {
                ++i;
            }
            continue;
        }
        if (flows[e.flow].health != FlowHealth::Down)
        {
            return Tail{&flows[e.flow], p};
        }
        ++i;
    }
    return std::nullopt;
}

} // namespace metaroce
