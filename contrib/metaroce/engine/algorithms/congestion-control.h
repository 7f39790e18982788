/*
 * Sender-side congestion control (spec 9), pluggable the way ns-3's TcpCongestionOps is: the
 * connection owns an algorithm object and hands it plain state blocks (one per path, one for the
 * connection) to work on. Algorithms keep no per-path state of their own, so one object serves
 * every path and Clone() gives each connection its own.
 *
 * The default, AimdCongestionControl, is the ECN-driven AIMD the MetaRoCE announcement
 * describes, with windows per path and per connection: an ACK echoing CE marks cuts the window
 * of the path that saw them (at most once per RTT) and, more gently, the connection's window;
 * unmarked ACKs grow both additively. Because a marked path's window shrinks while clear paths
 * keep theirs, the path selector naturally steers traffic to clear paths. The receiver's
 * fair-share rate hint bounds the sending rate on top (pacing, in the connection).
 */
#ifndef METAROCE_ENGINE_CONGESTION_CONTROL_H
#define METAROCE_ENGINE_CONGESTION_CONTROL_H

#include "../common/config-field.h"
#include "../common/engine-types.h"

#include <cstdint>
#include <memory>

namespace metaroce
{

/// A window the algorithm adjusts, with its bounds.
struct WindowState
{
    double window{0};            ///< bytes
    double minWindow{0};         ///< bytes
    double maxWindow{0};         ///< bytes
    TimeNs lastDecrease{kNever}; ///< kNever: never cut (a flag would cost 8 bytes a path)

    bool Decreased() const
    {
        return lastDecrease != kNever;
    }

    void Clamp();
    /// False while the last cut is less than `srtt` old: one window of congestion signals is
    /// one congestion event, so every algorithm cuts at most once per RTT (spec 9.2).
    bool MayDecrease(TimeNs srtt, TimeNs now) const;
    /// Multiplies the window by `factor` (clamped) and remembers the cut at `now`.
    void Decrease(double factor, TimeNs now);
    /// Adds `bytesPerRtt` per window's worth of acknowledged bytes, i.e. about that per RTT.
    void IncreaseAdditively(double bytesPerRtt, uint64_t ackedBytes);
    /// Sets the window to its minimum, counted as a cut at `now` (a retransmission timeout).
    void Collapse(TimeNs now);
};

/// What one ACK told the sender about one path.
struct AckSample
{
    uint64_t ackedBytes{0};
    uint32_t ackedPackets{0};
    uint32_t ceCount{0}; ///< of the acknowledged packets, how many were CE-marked
    TimeNs srtt{0};      ///< the path's smoothed RTT after this sample
    TimeNs rtt{0};       ///< this ACK's own RTT sample (now - echoed timestamp); 0: none
};

/// Parameters of AimdCongestionControl (spec 9.2; every value an assumption, spec 11).
struct AimdConfig
{
    uint32_t additiveIncreaseBytes{4096}; ///< per RTT, per path and per connection
    double flowDecrease{0.5};        ///< multiplicative decrease of a path on ECN (once per RTT)
    double connectionDecrease{0.25}; ///< same, for the connection window
    /// The connection loses connectionDecrease x the marked bytes of each ACK (on every marked
    /// ACK, no once-per-RTT rule): a cut in proportion to the share of its traffic that met a
    /// mark, so marks on a few routes move traffic instead of throttling the connection (7.2).
    /// false: x(1 - connectionDecrease) once per RTT on any mark.
    bool connectionCutByShare{true};

    /// Throws std::invalid_argument naming the first field out of range, prefixed by `owner`.
    void Validate(const char* owner = "AimdConfig") const;
};

/// The tunables of AimdConfig, one row each (config-field.h).
const ConfigFields<AimdConfig>& AimdConfigFields();

/// Interface of a congestion control algorithm.
class CongestionControl
{
  public:
    virtual ~CongestionControl() = default;

    virtual const char* Name() const = 0;

    /// New acknowledgements arrived on `path`.
    virtual void OnAck(WindowState& path,
                       WindowState& connection,
                       const AckSample& sample,
                       TimeNs now) = 0;

    /// Packets of `path` were declared lost by the sequence or time rule.
    virtual void OnLoss(WindowState& path, WindowState& connection, TimeNs srtt, TimeNs now) = 0;

    /// The retransmission timer of `path` expired.
    virtual void OnTimeout(WindowState& path, WindowState& connection, TimeNs now) = 0;

    /// A fresh copy with the same parameters.
    virtual std::unique_ptr<CongestionControl> Clone() const = 0;
};

/// ECN-driven additive increase, multiplicative decrease, per path and per connection.
class AimdCongestionControl : public CongestionControl
{
  public:
    /// \param config validated here: throws std::invalid_argument naming a bad field
    explicit AimdCongestionControl(const AimdConfig& config = AimdConfig());

    const char* Name() const override;
    void OnAck(WindowState& path,
               WindowState& connection,
               const AckSample& sample,
               TimeNs now) override;
    void OnLoss(WindowState& path, WindowState& connection, TimeNs srtt, TimeNs now) override;
    void OnTimeout(WindowState& path, WindowState& connection, TimeNs now) override;
    std::unique_ptr<CongestionControl> Clone() const override;

  private:
    /// Multiplies the window by (1 - fraction) unless it was cut less than one RTT ago.
    static void Decrease(WindowState& w, double fraction, TimeNs srtt, TimeNs now);
    /// Removes connectionDecrease x the bytes `sample` says were marked (connectionCutByShare).
    void CutByShare(WindowState& connection,
                    double packetBytes,
                    const AckSample& sample,
                    TimeNs now) const;

    double m_additiveIncrease;
    double m_flowDecrease;
    double m_connectionDecrease;
    bool m_connectionCutByShare;
};

} // namespace metaroce

#endif // METAROCE_ENGINE_CONGESTION_CONTROL_H
