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
    throw std::invalid_argument(std::string("RoceV2Config.") + field + " " + why);
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

void
RoceV2Config::Validate() const
{
    CheckQpn("localQpn", localQpn);
    CheckQpn("remoteQpn", remoteQpn);
    if ((pKey & 0x7FFF) == 0)
    {
        Bad("pKey", "must not be an invalid partition key (0x0000 or 0x8000)");
    }
    CheckRange("initialPsn", initialPsn, 0, kIb24BitMask);
    CheckRange("remoteInitialPsn", remoteInitialPsn, 0, kIb24BitMask);
    if (mtu != 256 && mtu != 512 && mtu != 1024 && mtu != 2048 && mtu != 4096)
    {
        Bad("mtu", "must be 256, 512, 1024, 2048 or 4096 (got " + std::to_string(mtu) + ")");
    }
    // Half the 24-bit PSN space at most, so that old and new PSNs are never confused (IBA ch. 9.7).
    CheckRange("windowPackets", windowPackets, 1, uint64_t{1} << 22);
    CheckRange("ackEveryPackets", ackEveryPackets, 1, uint64_t{1} << 22);
    if (rtoNs == 0)
    {
        Bad("rtoNs", "must be > 0");
    }
    CheckRange("retryLimit", retryLimit, 0, 7);
    CheckRange("rnrRetryLimit", rnrRetryLimit, 0, 7);
    CheckRange("minRnrTimerCode", minRnrTimerCode, 0, 31);
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
