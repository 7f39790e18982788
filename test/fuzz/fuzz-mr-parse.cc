// Fuzz target: the MetaRoCE wire parser (MrParse, spec 5.8 checks 2-13) on arbitrary bytes and
// datagram sizes. Beyond "no crash, no read past the input", a header it accepts must
// serialize back to the bytes it was parsed from (the parser and serializer share one opcode
// table, spec 5.7) and parse again to the same header.
#include "fuzz-input.h"
#include "metaroce-wire.h"

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
    // The first two bytes say how much longer the datagram is than the bytes given (virtual
    // payload, spec 1.3) and how many of the given bytes are "available".
    const std::size_t extra = data[0];
    const std::size_t cut = data[1];
    const uint8_t* bytes = data + 2;
    const std::size_t n = size - 2;
    const std::size_t avail = cut < n ? n - cut : n;
    for (const std::size_t wire : {n, n + extra, avail})
    {
        const MrParseResult r = MrParse(bytes, avail, wire);
        Check(r.header.has_value() != (r.reason != DropReason::Count), "header xor reason");
        if (!r.header)
        {
            continue;
        }
        const MrHeader& h = *r.header;
        Check(h.Size() <= avail, "accepted header longer than the bytes available");
        uint8_t out[kMrMaxHeaderSize];
        const std::size_t written = MrSerialize(h, out);
        Check(written == h.Size(), "serialized size differs from Size()");
        Check(std::memcmp(out, bytes, written) == 0, "serialize(parse(x)) != x");
        const MrParseResult again = MrParse(out, written, wire);
        Check(again.header.has_value(), "re-parse of a serialized header failed");
    }
    return 0;
}
