/*
 * The loopback harness: two engines joined by a scripted, impaired channel on a virtual clock,
 * all in one process (spec 12, "Reference harness").
 *
 * Each side has one port per plane. A port serialises one packet at a time at its line rate;
 * the channel then adds a propagation delay and may drop, duplicate or delay (reorder) packets
 * at random from a seeded generator, drop chosen packets deterministically, and take a whole
 * plane down (packets on it are lost, both ends see their port go down) and up again. The
 * harness is a driver like the ns-3 NIC, through the same EngineDriver (engine-driver.h): it
 * pulls packets when ports are free, calls OnTimeout() at the engines' deadlines (re-arming
 * whenever a deadline changes), and collects completions. Tests, benchmarks, the compliance
 * runner and the quick-start example use it.
 */
#ifndef METAROCE_ENGINE_LOOPBACK_HARNESS_H
#define METAROCE_ENGINE_LOOPBACK_HARNESS_H

#include "../common/ring.h"
#include "../common/transport-engine.h"
#include "engine-driver.h"

#include <array>
#include <cstdint>
#include <functional>
#include <queue>
#include <random>
#include <set>
#include <vector>

namespace metaroce
{

/// Channel impairments, per direction and plane alike.
struct ChannelConfig
{
    uint16_t ports{1};
    uint64_t rateBps{100'000'000'000}; ///< line rate of every port
    TimeNs delayNs{2'000};             ///< one-way propagation delay
    double lossRate{0};                ///< probability a packet is dropped
    double duplicateRate{0};           ///< probability a packet is delivered twice
    double reorderRate{0};             ///< probability a packet is held back
    TimeNs reorderDelayNs{5'000};      ///< how long a held-back packet waits, at most
    /// Probability a packet has one bit flipped, anywhere in its UDP payload (header, payload
    /// or, for RoCEv2, the ICRC). The receiving port detects it (see `Crc32` below) and drops
    /// the frame, counted in ChannelStats::corrupted: it never reaches the engine.
    double corruptRate{0};
    uint64_t seed{1};
};

/**
 * CRC-32 (IEEE 802.3 polynomial, reflected) of `size` bytes: the integrity check of a frame
 * on the harness's channel. It stands for what a receiving NIC verifies before handing a
 * datagram to the transport (doc/spec.md 4.1): the UDP checksum for MetaRoCE, the ICRC for
 * RoCEv2. The sender's port computes it over the bytes it sends; a frame whose bytes no
 * longer match, or whose virtual payload was hit, is dropped.
 */
uint32_t Crc32(const uint8_t* data, std::size_t size);

/// What happened on the channel.
struct ChannelStats
{
    uint64_t sent{0};
    uint64_t dropped{0};
    uint64_t duplicated{0};
    uint64_t reordered{0};
    uint64_t lostOnDownPlane{0};
    uint64_t corrupted{0}; ///< frames hit by a bit flip, detected and dropped at the receiver
    uint64_t delivered{0}; ///< frames handed to an engine
    uint64_t bytesDelivered{0};
};

/// Two engines, a virtual clock and a channel between them.
class LoopbackHarness
{
  public:
    /// Side index: 0 is `a`, 1 is `b`.
    LoopbackHarness(TransportEngine& a, TransportEngine& b, const ChannelConfig& channel);
    LoopbackHarness(const LoopbackHarness&) = delete;
    LoopbackHarness& operator=(const LoopbackHarness&) = delete;

    /// Drops the n-th packet (counting from 0) that `side` transmits, whatever it is.
    void DropNth(int side, uint64_t n);

    /// Drops every packet that `side` transmits while `pred(packet, now)` holds (a port that
    /// stays full for one packet, a route that never delivers it).
    void DropIf(int side, std::function<bool(const OutPacket&, TimeNs)> pred)
    {
        m_dropIf[side] = std::move(pred);
    }

    /// Takes plane `port` down at `at` and, when `upAt` != kNever, back up at `upAt`.
    void SchedulePlaneFailure(uint16_t port, TimeNs at, TimeNs upAt = kNever);

    /// Called for every transmitted packet with (side, packet, dropped).
    void OnTransmit(std::function<void(int, const OutPacket&, bool)> cb)
    {
        m_onTransmit = std::move(cb);
    }

    /**
     * Runs until `done()` holds after an event, the clock passes `limit`, or nothing is left to
     * do. Returns true when `done()` held.
     */
    bool Run(const std::function<bool()>& done, TimeNs limit);

    /// Runs until both engines are idle (all WRITE/SEND acknowledged) or `limit`.
    bool RunUntilIdle(TimeNs limit);

    /// Makes the harness look for work: call after posting requests between runs.
    void Kick();

    TimeNs Now() const
    {
        return m_now;
    }

    /// Completions collected so far from `side`.
    const std::vector<Completion>& Completions(int side) const
    {
        return m_completions[side];
    }

    const ChannelStats& Stats() const
    {
        return m_stats;
    }

    /// Frames on the wire: sent (duplicates included) and neither delivered nor dropped yet,
    /// so that sent + duplicated = delivered + dropped + lostOnDownPlane + corrupted + this.
    std::size_t FramesInFlight() const
    {
        return m_frames.size() - m_freeFrames.size();
    }

  private:
    enum class EventType : uint8_t
    {
        PortFree,
        Deliver,
        Timer,
        PlaneDown,
        PlaneUp,
    };

    /// 24 bytes: kept in order by time, then scheduling order (`seq`).
    struct Event
    {
        TimeNs time;
        uint64_t seq;
        uint32_t frame; ///< Deliver: index in m_frames
        uint16_t port;
        EventType type;
        uint8_t side;

        bool operator>(const Event& o) const
        {
            return time != o.time ? time > o.time : seq > o.seq;
        }
    };

    /// One side's host for its EngineDriver: the harness's ports, timer events, completions.
    class SideHost : public DriverHost
    {
      public:
        SideHost(LoopbackHarness& harness, int side);
        void ScheduleTimer(TimeNs at) override;
        bool PortIdle(uint16_t port) const override;
        void StartPort(uint16_t port) override;
        void Deliver(const Completion& c) override;

      private:
        LoopbackHarness& m_harness;
        int m_side;
    };

    struct Frame
    {
        std::vector<uint8_t> bytes; ///< header, plus payload in real-payload mode
        std::size_t wireSize{0};
        uint64_t planeEpoch{0}; ///< the plane's epoch at transmission
        uint32_t crc{0};        ///< Crc32 of `bytes` at transmission (when corruption is on)
        bool payloadHit{false}; ///< a bit of the virtual (absent) payload was flipped
    };

    /// Flips one random bit of `f` (its bytes or, beyond them, its virtual payload).
    void Corrupt(Frame& f);
    /// False for a frame the receiving port must drop as corrupted.
    bool Intact(const Frame& f) const;

    /// Schedules an event: a port's end of transmission in its slot, a delivery at the back of
    /// its wire when it comes no earlier than the wire's last one, anything else in the heap.
    void Push(TimeNs time, EventType type, int side, uint16_t port, std::size_t frame = 0);

    /// True while `side`'s `port` transmits: its end of transmission is pending.
    bool PortBusy(int side, uint16_t port) const
    {
        return m_portFree[side][port].time != kNever;
    }

    /// The earliest pending event, in a slot, on a wire, in the heap or a side's timer; null
    /// when there is none.
    const Event* Earliest() const;
    /// Removes `e`, which Earliest() returned.
    void Consume(const Event* e);
    void ServePort(int side, uint16_t port);
    void ServeAll(int side);
    /// Puts `pkt` on the wire; `serialisation`: its time on the port.
    void Transmit(int side, const OutPacket& pkt, TimeNs serialisation);

    std::array<TransportEngine*, 2> m_engines;
    std::array<SideHost, 2> m_hosts;
    std::array<EngineDriver, 2> m_drivers;
    ChannelConfig m_channel;
    std::mt19937_64 m_rng;
    bool m_impaired; ///< the channel may drop, duplicate or reorder: Transmit() draws
    /// Events that fit neither a slot nor a wire: plane failures and deliveries that overtake
    /// others (a reordered or duplicated frame).
    std::priority_queue<Event, std::vector<Event>, std::greater<>> m_events;
    /// By side and port: the end of the port's transmission (time kNever: none), at most one as
    /// a port sends one frame at a time.
    std::array<std::vector<Event>, 2> m_portFree;
    /// By side and port: deliveries towards that side on that port in time order, as a link
    /// delivers what it sent one frame after another. Four events per data packet go through a
    /// slot or a wire instead of the heap.
    std::array<std::vector<Ring<Event>>, 2> m_wires;
    uint64_t m_seq{0};
    TimeNs m_now{0};
    std::vector<bool> m_planeUp;
    std::vector<uint64_t> m_planeEpoch; ///< bumped when a plane fails: in-flight frames die
    /// Each side's timer, outside the queue so that moving it leaves nothing behind there;
    /// kNever: not armed. It takes its place among events by time, then scheduling order.
    std::array<Event, 2> m_timers{};
    std::array<uint64_t, 2> m_txCount{};
    std::array<std::set<uint64_t>, 2> m_dropNth;
    std::array<std::function<bool(const OutPacket&, TimeNs)>, 2> m_dropIf;
    std::vector<Frame> m_frames;
    std::vector<std::size_t> m_freeFrames;
    std::array<std::vector<Completion>, 2> m_completions;
    std::function<void(int, const OutPacket&, bool)> m_onTransmit;
    ChannelStats m_stats;
};

} // namespace metaroce

#endif // METAROCE_ENGINE_LOOPBACK_HARNESS_H
