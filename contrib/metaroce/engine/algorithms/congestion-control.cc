#include "congestion-control.h"

#include <algorithm>

namespace metaroce
{

void
WindowState::Clamp()
{
    window = std::clamp(window, minWindow, maxWindow);
}

bool
WindowState::MayDecrease(TimeNs srtt, TimeNs now) const
{
    return !Decreased() || now >= lastDecrease + srtt;
}

void
WindowState::Decrease(double factor, TimeNs now)
{
    window *= factor;
    lastDecrease = now;
    Clamp();
}

void
WindowState::IncreaseAdditively(double bytesPerRtt, uint64_t ackedBytes)
{
    window += bytesPerRtt * static_cast<double>(ackedBytes) / std::max(window, 1.0);
    Clamp();
}

void
WindowState::Collapse(TimeNs now)
{
    window = minWindow;
    lastDecrease = now;
}

const ConfigFields<AimdConfig>&
AimdConfigFields()
{
    // One table row per field reads better than one argument per line.
    // clang-format off
    static const ConfigFields<AimdConfig> fields = {
        METAROCE_FIELD(AimdConfig, additiveIncreaseBytes, "AdditiveIncrease", Bytes,
                       1, 1 << 30, "9.2",
                       "Bytes added per RTT to every window whose ACKs carry no mark."),
        METAROCE_FIELD(AimdConfig, flowDecrease, "FlowDecrease", Real, 1e-6, 1 - 1e-6, "9.2",
                       "Share of a path window removed when its ACKs echo CE (once per RTT)."),
        METAROCE_FIELD(AimdConfig, connectionDecrease, "ConnectionDecrease", Real,
                       1e-6, 1 - 1e-6, "9.2",
                       "Share of the connection window removed on CE echoes (once per RTT)."),
        METAROCE_FIELD(AimdConfig, connectionCutByShare, "ConnectionCutByShare", Flag, 0, 1,
                       "9.2",
                       "Cut the connection by ConnectionDecrease x the marked bytes of each "
                       "ACK, in proportion to the share of its traffic marked, instead of "
                       "once per RTT on any mark."),
    };
    // clang-format on
    return fields;
}

void
AimdConfig::Validate(const char* owner) const
{
    ValidateFields(*this, AimdConfigFields(), owner);
}

AimdCongestionControl::AimdCongestionControl(const AimdConfig& config)
    : m_additiveIncrease(config.additiveIncreaseBytes)
    , m_flowDecrease(config.flowDecrease)
    , m_connectionDecrease(config.connectionDecrease)
    , m_connectionCutByShare(config.connectionCutByShare)
{
    config.Validate();
}

const char*
AimdCongestionControl::Name() const
{
    return "aimd";
}

void
AimdCongestionControl::Decrease(WindowState& w, double fraction, TimeNs srtt, TimeNs now)
{
    if (w.MayDecrease(srtt, now))
    {
        w.Decrease(1.0 - fraction, now);
    }
}

void
AimdCongestionControl::CutByShare(WindowState& connection,
                                  double packetBytes,
                                  const AckSample& sample,
                                  TimeNs now) const
{
    // The marked packets' bytes: the ACK's own average size, or a full packet when it
    // acknowledged nothing. Over a round trip the cuts add up to connectionDecrease x the share
    // of the window that was marked, so a connection all of whose packets are marked backs off
    // as the once-per-RTT rule does, and one whose few marked routes the selector leaves loses
    // little (spec 9.2).
    const uint32_t marked =
        sample.ackedPackets > 0 ? std::min(sample.ceCount, sample.ackedPackets) : sample.ceCount;
    const double perPacket = sample.ackedPackets > 0
                                 ? static_cast<double>(sample.ackedBytes) / sample.ackedPackets
                                 : packetBytes;
    connection.window -= m_connectionDecrease * marked * perPacket;
    connection.lastDecrease = now;
    connection.Clamp();
}

void
AimdCongestionControl::OnAck(WindowState& path,
                             WindowState& connection,
                             const AckSample& sample,
                             TimeNs now)
{
    if (sample.ceCount > 0)
    {
        Decrease(path, m_flowDecrease, sample.srtt, now);
        if (m_connectionCutByShare)
        {
            CutByShare(connection, path.minWindow, sample, now);
        }
        else
        {
            Decrease(connection, m_connectionDecrease, sample.srtt, now);
        }
        return;
    }
    path.IncreaseAdditively(m_additiveIncrease, sample.ackedBytes);
    connection.IncreaseAdditively(m_additiveIncrease, sample.ackedBytes);
}

void
AimdCongestionControl::OnLoss(WindowState& path, WindowState& connection, TimeNs srtt, TimeNs now)
{
    // Loss on a lossy fabric is not necessarily congestion (spec 9.3): only the path that lost
    // is cut, which moves traffic elsewhere; the connection window is left alone.
    Decrease(path, m_flowDecrease, srtt, now);
}

void
AimdCongestionControl::OnTimeout(WindowState& path, WindowState& connection, TimeNs now)
{
    path.Collapse(now);
}

std::unique_ptr<CongestionControl>
AimdCongestionControl::Clone() const
{
    return std::make_unique<AimdCongestionControl>(*this);
}

} // namespace metaroce
