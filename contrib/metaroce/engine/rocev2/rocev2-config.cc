#include "rocev2-config.h"

#include "rocev2-wire.h"

#include <stdexcept>
#include <string>

namespace metaroce
{

namespace
{

[[noreturn]] void
Bad(const char* field, const std::string& why)
{
    throw std::invalid_argument(std::string("RoceV2Config.") + field + ": " + why);
}

void
CheckQpn(const char* field, uint32_t qpn)
{
    if (qpn < 2 || qpn >= kIb24BitMask)
    {
        Bad(field, "must be in [2, 0xFFFFFE] (got " + std::to_string(qpn) + ")");
    }
}

void
CheckRange(const char* field, uint64_t value, uint64_t low, uint64_t high)
{
    if (value < low || value > high)
    {
        Bad(field,
            "must be in [" + std::to_string(low) + ", " + std::to_string(high) + "] (got " +
                std::to_string(value) + ")");
    }
}

} // namespace

const ConfigFields<RoceV2Config>&
RoceV2ConfigFields()
{
    using C = RoceV2Config;
    // One table row per field reads better than one argument per line.
    // clang-format off
    static const ConfigFields<RoceV2Config> fields = {
        // Half the 24-bit PSN space at most, so old and new PSNs are never confused (IBA 9.7).
        METAROCE_FIELD(C, windowPackets, "Window", Count, 1, 1 << 22, "10.3",
                       "Most packets sent and not yet acknowledged."),
        METAROCE_FIELD(C, ackEveryPackets, "AckEveryPackets", Count, 1, 1 << 22, "10.4",
                       "In-order packets per coalesced ACK (at once on AckReq or a message's last "
                       "packet)."),
        METAROCE_FIELD(C, rtoNs, "Rto", Nanoseconds, 1, 1e12, "10.3",
                       "Retransmission timeout before backoff (IB local ACK timeout)."),
        METAROCE_FIELD(C, retryLimit, "RetryLimit", Count, 0, 7, "10.3",
                       "Timeouts in a row before RetryExceeded (IB retry_cnt)."),
        METAROCE_FIELD(C, rnrRetryLimit, "RnrRetryLimit", Count, 0, 7, "10.3",
                       "RNR NAKs in a row tolerated (IB rnr_retry; 7: forever)."),
        METAROCE_FIELD(C, minRnrTimerCode, "MinRnrTimer", Count, 0, 31, "10.4",
                       "RNR timer code the responder advertises (IB min_rnr_timer)."),
        METAROCE_FIELD(C, pKey, "PKey", Count, 1, 65535, "10.2",
                       "Partition key; both ends must use the same valid one."),
        METAROCE_FIELD(C, frameOverheadBytes, "FrameOverhead", Bytes, 0, 1024, "10.5",
                       "Bytes each packet adds below the UDP payload, for pacing."),
    };
    // clang-format on
    return fields;
}

void
RoceV2Config::Validate() const
{
    CheckQpn("localQpn", localQpn);
    CheckQpn("remoteQpn", remoteQpn);
    if ((pKey & 0x7FFF) == 0)
    {
        Bad("pKey", "must not be an invalid partition key (0x0000 or 0x8000)");
    }
    ValidateFields(*this, RoceV2ConfigFields(), "RoceV2Config");
    CheckRange("initialPsn", initialPsn, 0, kIb24BitMask);
    CheckRange("remoteInitialPsn", remoteInitialPsn, 0, kIb24BitMask);
    if (mtu != 256 && mtu != 512 && mtu != 1024 && mtu != 2048 && mtu != 4096)
    {
        Bad("mtu", "must be 256, 512, 1024, 2048 or 4096 (got " + std::to_string(mtu) + ")");
    }
    if (udpSrcPort == 0)
    {
        Bad("udpSrcPort", "must be > 0");
    }
    if (lineRateBps == 0)
    {
        Bad("lineRateBps", "must be > 0");
    }
    dcqcn.Validate(lineRateBps, "RoceV2Config.dcqcn");
}

} // namespace metaroce
