// Fuzz target: the RoCEv2 wire parser (IbParse, spec 10.2/10.6) on arbitrary bytes and datagram
// sizes. An accepted packet's headers must serialize back to the bytes they came from, and its
// payload must lie inside the given bytes.
#include "fuzz-input.h"
#include "rocev2-wire.h"

#include <algorithm>
#include <cstring>

using namespace metaroce;
using metaroce_fuzz::Check;

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size)
{
    if (size < 2)
    {
        return 0;
    }
    const std::size_t extra = data[0];
    const std::size_t cut = data[1];
    const uint8_t* bytes = data + 2;
    const std::size_t n = size - 2;
    const std::size_t avail = cut < n ? n - cut : n;
    for (const std::size_t wire : {n, n + extra, avail})
    {
        const IbParseResult r = IbParse(bytes, avail, wire);
        Check(r.packet.has_value() != (r.reason != DropReason::Count), "packet xor reason");
        if (!r.packet)
        {
            continue;
        }
        const IbPacket& p = *r.packet;
        Check(p.info != nullptr, "accepted packet without opcode info");
        const std::vector<uint8_t> header = IbSerializeHeader(p.bth, p.reth, p.aeth).ToVector();
        Check(header.size() <= avail, "accepted headers longer than the bytes available");
        // The fields the spec leaves unchecked (BTH byte 4, the reserved bits 6-0 of byte 8,
        // a CNP's 16 reserved bytes) are written as 0: compare the rest.
        std::vector<uint8_t> given(bytes, bytes + header.size());
        given[4] = 0;
        given[8] &= 0x80;
        if (p.bth.opcode == IbOpcode::Cnp)
        {
            std::fill(given.begin() + kIbBthSize, given.end(), 0);
        }
        Check(given == header, "serialize(parse(x)) != x for the headers");
        Check(header.size() + IbTrailedSize(p.payloadLength) == wire,
              "headers + payload + pad + ICRC != wire size");
        if (p.payload)
        {
            Check(p.payload >= bytes && p.payload + p.payloadLength <= bytes + avail,
                  "payload outside the given bytes");
        }
    }
    return 0;
}
