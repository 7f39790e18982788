#include "tail-index.h"

namespace metaroce
{

const SentPacket*
TailIndex::Lookup(const std::vector<Path>& paths, const Entry& e)
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
TailIndex::PruneSettled(const std::vector<Path>& paths, const RackState& rack)
{
    while (!m_sent.empty() && !Unsettled(Lookup(paths, m_sent.front()), rack))
    {
        m_sent.pop_front();
    }
}

std::optional<Tail>
TailIndex::Find(const std::vector<Path>& paths, const SendQueue& queue, const RackState& rack)
{
    // Data no longer needed (delivered by another copy) settles a packet for good as well.
    while (!m_sent.empty())
    {
        const SentPacket* p = Lookup(paths, m_sent.front());
        if (Unsettled(p, rack) && queue.Needs(p->message, p->packetIndex))
        {
            break;
        }
        m_sent.pop_front();
    }
    // The front may be a packet of a Down path (which FindTail passes over, and whose packets
    // in flight are normally all declared lost when it goes down): look further, keeping it.
    for (const Entry& e : m_sent)
    {
        const Path& path = paths[e.path];
        const SentPacket* p = Lookup(paths, e);
        if (path.health != PathHealth::Down && Unsettled(p, rack) &&
            queue.Needs(p->message, p->packetIndex))
        {
            return Tail{&path, p};
        }
    }
    return std::nullopt;
}

} // namespace metaroce
