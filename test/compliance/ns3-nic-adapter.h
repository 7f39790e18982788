/*
 * The ns-3 NIC adapter: the implementation under test is a MetaRoceNic on a node of its own,
 * in the smallest topology that exercises it as a NIC. Each NIC port is a MetaRoceNetDevice
 * linked by a zero-delay MetaRoceChannel to a "wire" device the adapter controls:
 *
 *     MetaRoceNic port p  <-- MetaRoceChannel, delay 0 -->  wire device p (absorb)
 *
 * Injection: the adapter frames the UDP payload in IPv4/UDP (CE or ECT(0)) and hands it to the
 * NIC port's device in an event of the NIC's node at the current instant, as a wire of no
 * length and infinite rate would (a MetaRoceChannel takes at least one time step, and the
 * scenarios' times are the engine's); the adapter runs the simulator until the NIC has
 * received it.
 * Capture: every frame is recorded at the instant its first bit leaves the NIC port (the
 * device's PhyTxBegin trace), which is what the engine adapter reports too; the wire device
 * then absorbs it. Time is the simulator's, from 0 after Reset().
 *
 * The queue pair is the NIC's first (MetaRoceNic::Connect with a second NIC that only gives
 * the connection its peer identity and addresses; it is never reached), so its connection id
 * and its peer's are kDutConnection. Portable settings become NIC attributes; regions are
 * registered with RegisterMemory. Packets the NIC refuses before its engine sees them (a port
 * it has taken down, a destination it has no queue pair for) are counted here under the
 * spec's reason (PortDown; WrongConnection, or Truncated when too short to name one).
 */
#ifndef METAROCE_COMPLIANCE_NS3_NIC_ADAPTER_H
#define METAROCE_COMPLIANCE_NS3_NIC_ADAPTER_H

#include "compliance-adapter.h"

#include "ns3/event-id.h"
#include "ns3/metaroce-net-device.h"
#include "ns3/metaroce-nic.h"
#include "ns3/metaroce-queue-pair.h"

namespace metaroce::compliance
{

/// Drives a MetaRoceNic in ns-3.
class Ns3NicAdapter : public ComplianceAdapter
{
  public:
    ~Ns3NicAdapter() override;

    const char* Name() const override;
    void Reset(const DutSetup& setup) override;
    TimeNs Now() const override;
    void AdvanceTo(TimeNs t, bool stopOnOutput) override;
    void Inject(const WirePacket& pkt) override;
    uint64_t Post(const WorkRequest& wr) override;
    /// Hands `wr` to the queue pair's engine, whose refusal the queue pair would turn into a
    /// fatal error.
    void PostToRefuse(const WorkRequest& wr) override;
    void SetPortState(uint16_t port, bool up) override;
    Counters ReadCounters() const override;

  private:
    void Teardown();
    void ApplyAttributes();
    void OnPhyTxBegin(uint16_t port, ns3::Ptr<const ns3::Packet> frame);
    void OnNicRx(ns3::Ptr<const ns3::Packet> packet, uint32_t port);
    void OnNicDrop(ns3::Ptr<const ns3::Packet> packet, uint32_t port, std::string reason);
    void OnCompletion(ns3::Ptr<ns3::MetaRoceQueuePair> qp, const Completion& c);
    /// Output arrived: end the current run early if the runner asked for it.
    void OutputArrived();
    static void StopNow();

    DutSetup m_setup;
    ns3::Ptr<ns3::MetaRoceNic> m_nic;
    ns3::Ptr<ns3::MetaRoceNic> m_peer;
    ns3::Ptr<ns3::MetaRoceQueuePair> m_qp;
    std::vector<ns3::Ptr<ns3::MetaRoceNetDevice>> m_nicPorts;
    Counters m_refusedByNic; ///< refusals made by the NIC before the engine
    uint64_t m_nicArrivals{0};
    bool m_running{false};
    bool m_stopOnOutput{false};
    ns3::EventId m_stopMarker;
};

} // namespace metaroce::compliance

#endif // METAROCE_COMPLIANCE_NS3_NIC_ADAPTER_H
