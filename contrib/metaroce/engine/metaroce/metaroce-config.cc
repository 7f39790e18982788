#include "metaroce-config.h"

#include "metaroce-wire.h"

#include <stdexcept>
#include <string>

namespace metaroce
{

namespace
{

void
Require(bool ok, const char* field, const std::string& why)
{
    if (!ok)
    {
        throw std::invalid_argument(std::string("MetaRoceConfig.") + field + ": " + why);
    }
}

} // namespace

void
MetaRoceConfig::Validate() const
{
    Require(ports >= 1 && ports <= 64, "ports", "must be in [1, 64]");
    Require(pathsPerPort >= 1 && pathsPerPort <= 1024, "pathsPerPort", "must be in [1, 1024]");
    Require(uint32_t{ports} * pathsPerPort <= 65535,
            "pathsPerPort",
            "ports * pathsPerPort must fit the 16-bit path id");
    Require(streams >= 1, "streams", "must be at least 1");
    Require(mtu >= 256 && mtu <= 9000, "mtu", "must be in [256, 9000] bytes");
    Require(portRateBps >= 1'000'000, "portRateBps", "must be at least 1 Mb/s");
    Require(maxPathWindowPackets >= 1 && maxPathWindowPackets <= kSackBits,
            "maxPathWindowPackets",
            "must be in [1, 256]: the SACK bitvector covers 256 packets");
    Require(initialPathWindowPackets >= 1 && initialPathWindowPackets <= maxPathWindowPackets,
            "initialPathWindowPackets",
            "must be in [1, maxPathWindowPackets]");
    // The connection window never goes below one full packet per port (spec 7.1).
    const uint64_t minWindow = uint64_t{ports} * (mtu + kMrMaxHeaderSize);
    Require(initialConnectionWindowBytes >= minWindow,
            "initialConnectionWindowBytes",
            "must hold at least one packet (MTU + 64 bytes of header) per port");
    Require(maxConnectionWindowBytes >= initialConnectionWindowBytes,
            "maxConnectionWindowBytes",
            "must be >= initialConnectionWindowBytes");
    Require(pathDecrease > 0 && pathDecrease < 1, "pathDecrease", "must be in (0, 1)");
    Require(connectionDecrease > 0 && connectionDecrease < 1,
            "connectionDecrease",
            "must be in (0, 1)");
    Require(additiveIncreaseBytes >= 1, "additiveIncreaseBytes", "must be positive");
    Require(reorderTolerancePackets < kSackBits,
            "reorderTolerancePackets",
            "must be below the SACK width (256)");
    Require(rtoMinNs >= 1, "rtoMinNs", "must be positive");
    Require(rtoMaxNs >= rtoMinNs, "rtoMaxNs", "must be >= rtoMinNs");
    Require(initialRttNs >= 1, "initialRttNs", "must be positive");
    Require(initialRtoNs >= rtoMinNs && initialRtoNs <= rtoMaxNs,
            "initialRtoNs",
            "must be in [rtoMinNs, rtoMaxNs]");
    Require(maxRetransmissions >= 1 && maxRetransmissions <= 1000,
            "maxRetransmissions",
            "must be in [1, 1000]");
    Require(pathSuspectTimeouts >= 1, "pathSuspectTimeouts", "must be at least 1");
    Require(pathDownTimeouts >= pathSuspectTimeouts,
            "pathDownTimeouts",
            "must be >= pathSuspectTimeouts");
    Require(probeIntervalNs >= 1, "probeIntervalNs", "must be positive");
    Require(tailProbeMinNs >= 1, "tailProbeMinNs", "must be positive");
    Require(maxTailProbes <= 64, "maxTailProbes", "must be in [0, 64]");
    Require(entropyRedrawMarks >= 1, "entropyRedrawMarks", "must be at least 1");
    Require(entropyCount >= 1 && uint32_t{entropyBase} + entropyCount <= 65536,
            "entropyCount",
            "entropyBase + entropyCount must stay within the UDP port space");
    Require(ackEveryPackets >= 1 && ackEveryPackets <= kSackBits,
            "ackEveryPackets",
            "must be in [1, 256]");
    Require(ackDelayNs >= 1, "ackDelayNs", "must be positive");
    Require(maxMessagesInFlight >= 1, "maxMessagesInFlight", "must be at least 1");
}

uint64_t
MetaRoceConfig::BytesAtLineRate(TimeNs ns) const
{
    const long double bits = static_cast<long double>(portRateBps) * ports * ns / 1e9L;
    return static_cast<uint64_t>(bits / 8);
}

} // namespace metaroce
