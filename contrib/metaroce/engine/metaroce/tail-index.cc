#include "tail-index.h"

namespace metaroce
{

const SentPacket*
TailIndex::Lookup(const PathTable& paths, const Entry& e)
{
    // A path's ring holds consecutive PSNs from its floor (packets leave it only from the
    // front), so the entry's packet is at its distance from the front, if still there.
    const Ring<SentPacket>& out = paths[e.path].outstanding;
    if (out.empty() || e.psn < out.front().psn || e.psn - out.front().psn >= out.size())
    {
        return nullptr;
    }
    const SentPacket& p = out[static_cast<std::size_t>(e.psn - out.front().psn)];
    return p.psn == e.psn ? &p : nullptr;
}

void
TailIndex::PruneSettled(const PathTable& paths, const RackState& rack)
{
    while (!m_sent.empty() && !Unsettled(Lookup(paths, m_sent.front()), rack))
    {
        m_sent.pop_front();
    }
}

std::optional<Tail>
TailIndex::Find(const PathTable& paths, const SendQueue& queue, const RackState& rack)
{
    // One pass from the front: entries settled for good (data no longer needed, delivered by
    // another copy, settles a packet as well) are dropped while they lead; a packet of a Down
    // path (which FindTail passes over, and whose packets in flight are normally all declared
    // lost when it goes down) is kept and looked past.
    std::size_t i = 0;
    while (i < m_sent.size())
    {
        const Entry& e = m_sent[i];
        const SentPacket* p = Lookup(paths, e);
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
        if (paths[e.path].health != PathHealth::Down)
        {
            return Tail{&paths[e.path], p};
        }
        ++i;
    }
    return std::nullopt;
}

} // namespace metaroce
