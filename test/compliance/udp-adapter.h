/*
 * The udp adapter: the scenarios against the UDP runtime (contrib/metaroce/runtime), the
 * engine on real sockets. The DUT is a UdpDriver with one socket per plane bound to a
 * loopback address; the adapter is the far end of every plane, with sockets of its own
 * bound to the transport's port on a second address. Every injected packet is sent from
 * the adapter's socket through the kernel (its source port bound to the packet's, its CE mark
 * set through IP_TOS) and read by the driver from its socket; every packet the DUT emits is
 * read back from the adapter's socket, bytes and source port as the kernel delivered them.
 *
 * The clock is virtual, as doc/compliance.md suggests for an implementation that accepts an
 * injected one: the driver reads the adapter's time (ClockMode::Virtual), and the adapter
 * steps it from event to event as the engine adapter does (timer, a port's pacing release),
 * so the scenarios' timing holds to the nanosecond and no tolerance is widened. The driver
 * paces each plane at the scenario's port rate with the frame the other adapters charge
 * (UDP payload + 30 bytes). What a real clock would add (scheduling jitter of tens of
 * microseconds against expectations of a few nanoseconds) is exactly what the scenarios must
 * not depend on; metaroce-perf runs the same driver on the real clock.
 *
 * An emission's time is the virtual time at which the driver handed it to its socket (the
 * instant its first bit leaves the port); its bytes are what the adapter's socket received.
 */
#ifndef METAROCE_COMPLIANCE_UDP_ADAPTER_H
#define METAROCE_COMPLIANCE_UDP_ADAPTER_H

#include "compliance-adapter.h"
#include "udp-driver.h"

#include <deque>
#include <memory>

namespace metaroce::compliance
{

/// Drives the engine through the UDP runtime on loopback sockets.
class UdpAdapter : public ComplianceAdapter
{
  public:
    UdpAdapter();
    ~UdpAdapter() override;

    const char* Name() const override;
    void Reset(const DutSetup& setup) override;
    TimeNs Now() const override;
    void AdvanceTo(TimeNs t, bool stopOnOutput) override;
    void Inject(const WirePacket& pkt) override;
    uint64_t Post(const WorkRequest& wr) override;
    void SetPortState(uint16_t port, bool up) override;
    Counters ReadCounters() const override;

  private:
    /// A datagram the DUT handed to its socket, waiting to be read at the adapter's end.
    struct InFlight
    {
        TimeNs time;
        uint16_t port;
        std::vector<uint8_t> sent;
    };

    /// Reads every datagram the DUT has sent back at the adapter's sockets, in send order.
    void Collect();
    bool HasOutput() const;
    void Teardown();

    DutSetup m_setup;
    std::unique_ptr<MemoryRegistry> m_memory;
    std::unique_ptr<TransportEngine> m_engine;
    std::unique_ptr<udp::UdpDriver> m_driver;
    std::vector<std::unique_ptr<udp::UdpPlane>> m_tester; ///< the far end of each plane
    std::deque<InFlight> m_inFlight;
    uint64_t m_nextWrId{1};
};

} // namespace metaroce::compliance

#endif // METAROCE_COMPLIANCE_UDP_ADAPTER_H
