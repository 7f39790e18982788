/*
 * The narrow interface between the compliance runner and an implementation under test (the
 * "DUT"). Anything that can take packets on a port, emit packets on a port, accept verbs-style
 * work requests and report completions and counters can be checked against the scenarios: the
 * engine directly (engine-adapter.h), the ns-3 NIC (ns3-nic-adapter.h), or a third
 * implementation (doc/compliance.md, "Plugging in an implementation").
 *
 * Time is integer nanoseconds on the DUT's own clock, starting at 0 after Reset(). The runner
 * only moves time forward: it calls AdvanceTo() before every action, so an action happens at
 * the adapter's Now().
 *
 * Payloads are virtual on both sides: an injected packet carries its header and zero bytes for
 * the payload, and the DUT's memory regions have no backing bytes. What is checked is the
 * protocol (headers, timing, completions, counters), not data integrity, which the engine's
 * loopback tests already check byte for byte.
 */
#ifndef METAROCE_COMPLIANCE_ADAPTER_H
#define METAROCE_COMPLIANCE_ADAPTER_H

#include "dut-setup.h"
#include "engine-counters.h"
#include "engine-types.h"

#include <cstdint>
#include <vector>

namespace metaroce::compliance
{

/// One UDP datagram on a DUT port, in either direction.
struct WirePacket
{
    TimeNs time{0};         ///< when its first bit left (emitted) or arrived (injected)
    uint16_t port{0};       ///< DUT port (= plane)
    uint16_t udpSrcPort{0}; ///< ECMP entropy
    uint16_t udpDstPort{0};
    bool ecnCe{false};          ///< IP ECN Congestion Experienced
    std::vector<uint8_t> bytes; ///< the whole UDP payload: transport header, then payload bytes
};

/// The operations every implementation under test provides.
class ComplianceAdapter
{
  public:
    virtual ~ComplianceAdapter() = default;

    /// "engine", "ns3-nic", ...
    virtual const char* Name() const = 0;

    /**
     * Discards any previous DUT and builds a fresh one from `setup`, at time 0, with the
     * identity of dut-setup.h (local and remote connection kDutConnection). Throws
     * std::invalid_argument when the setup cannot be applied.
     */
    virtual void Reset(const DutSetup& setup) = 0;

    /// The DUT's current time.
    virtual TimeNs Now() const = 0;

    /**
     * Runs the DUT until time `t` (no-op if `t <= Now()`). With `stopOnOutput`, returns as soon
     * as a packet is emitted or a completion delivered, possibly before `t`.
     */
    virtual void AdvanceTo(TimeNs t, bool stopOnOutput) = 0;

    /// Delivers a packet to DUT port `pkt.port` now (pkt.time is ignored).
    virtual void Inject(const WirePacket& pkt) = 0;

    /// Posts a WRITE, SEND or RECV now; returns the work request id completions will carry.
    virtual uint64_t Post(const WorkRequest& wr) = 0;

    /**
     * Posts `wr`, which the DUT should refuse (a `post` line with refused=1): a DUT that
     * refuses it throws std::invalid_argument and changes nothing. As Post() unless the DUT's
     * own refusal ends the run (the ns-3 queue pair's fatal error).
     */
    virtual void PostToRefuse(const WorkRequest& wr)
    {
        Post(wr);
    }

    /// Takes a port (plane) down or brings it back, now.
    virtual void SetPortState(uint16_t port, bool up) = 0;

    /// Packets emitted since the last call, in emission order, each with its start time.
    std::vector<WirePacket> TakeEmitted();

    /// Completions delivered since the last call.
    std::vector<Completion> TakeCompletions();

    /// The DUT's counters for the connection, including refusals made before the engine (a
    /// NIC that demultiplexes on the destination counts a stranger under WrongConnection).
    virtual Counters ReadCounters() const = 0;

  protected:
    /// What the DUT emitted and completed since the runner last took it: adapters append here.
    std::vector<WirePacket> m_emitted;
    std::vector<Completion> m_completions;
};

} // namespace metaroce::compliance

#endif // METAROCE_COMPLIANCE_ADAPTER_H
