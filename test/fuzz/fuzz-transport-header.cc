// Fuzz target: the ns-3 transport header (model/nic/metaroce-transport-header.cc) on arbitrary
// packet bytes: Deserialize() through Packet::RemoveHeader/PeekHeader as pcap readers and
// printers call it, then Print(). ns-3's Buffer asserts (and aborts) on a read past the packet,
// so a header that trusts its first byte for its size is a finding.
#include "metaroce-transport-header.h"
#include "metaroce-wire.h"
#include "rocev2-wire.h"

#include "ns3/packet.h"

#include <sstream>

using namespace ns3;

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size)
{
    if (size < 1)
    {
        return 0;
    }
    // The first byte picks the UDP port the header is read for: MetaRoCE, RoCEv2 or other.
    const uint16_t port = data[0] % 3 == 0   ? metaroce::kMetaRoceUdpPort
                          : data[0] % 3 == 1 ? metaroce::kRoceV2UdpPort
                                             : 9;
    Ptr<Packet> p = Create<Packet>(data + 1, static_cast<uint32_t>(size - 1));
    MetaRoceTransportHeader h;
    h.SetUdpPort(port);
    const uint32_t peeked = p->PeekHeader(h);
    std::ostringstream os;
    h.Print(os);
    MetaRoceTransportHeader removed;
    removed.SetUdpPort(port);
    const uint32_t taken = p->RemoveHeader(removed);
    if (peeked != taken || taken > size - 1)
    {
        __builtin_trap();
    }
    return 0;
}
