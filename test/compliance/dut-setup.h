/*
 * What a scenario may configure on the implementation under test, and nothing more: the
 * "portable" settings every adapter must be able to apply (a NIC exposes them as attributes).
 * Everything else keeps the spec's defaults (spec 11, "Assumptions"; 8.5 for RoCEv2), so one
 * scenario means the same thing on every adapter.
 *
 * Identity is fixed: the DUT's connection (MetaRoCE) or QP number (RoCEv2) is kDutConnection,
 * and so is its peer's, as for the first queue pair of a MetaRoceNic. Entropy (UDP source
 * ports of DATA/PROBE, and RoCEv2's fixed source port) comes from each implementation's own
 * seed, so scenarios bind it to a variable rather than naming it.
 */
#ifndef METAROCE_COMPLIANCE_DUT_SETUP_H
#define METAROCE_COMPLIANCE_DUT_SETUP_H

#include "engine-memory.h"
#include "metaroce-config.h"
#include "rocev2-config.h"
#include "transport-engine.h"

#include <memory>
#include <string>
#include <vector>

namespace metaroce::compliance
{

/// Connection id / QP number of the DUT and of its peer.
constexpr uint32_t kDutConnection = 2;

/// A memory region registered on the DUT (virtual: no backing bytes).
struct DutRegion
{
    uint32_t key{0};
    uint64_t addr{0};
    uint64_t length{0};
};

/// Everything an adapter needs to build the DUT.
struct DutSetup
{
    Transport transport{Transport::MetaRoce};
    MetaRoceConfig metaroce; ///< used when transport is MetaRoce
    RoceV2Config rocev2;     ///< used when transport is RoceV2
    std::vector<DutRegion> regions;

    /// Number of DUT ports (planes): `metaroce.ports`, or 1 for RoCEv2.
    uint16_t Ports() const;
    /// Line rate of each port.
    uint64_t PortRateBps() const;
};

/// The setup a scenario starts from: spec defaults with the fixed identity.
DutSetup DefaultSetup(Transport transport);

/**
 * Applies one portable setting: every row of the engine's configuration tables (member names:
 * "mtu", "flowsPerPort", "rtoMinNs", ...; "aimd.<member>" and "dcqcn.<member>" for the nested
 * ones), each an attribute of MetaRoceNic, plus the DUT's shape ("ports", "portRateBps";
 * RoCEv2: "mtu", "lineRateBps"). Throws std::invalid_argument naming the key when it is not
 * portable for the transport or its value is malformed; the whole configuration is validated by
 * Finish().
 */
void ApplySetting(DutSetup& setup, const std::string& key, const std::string& value);

/// Derived fields and validation (std::invalid_argument naming the bad field).
void Finish(DutSetup& setup);

/// The portable keys of a transport, for documentation and error messages.
std::vector<std::string> PortableKeys(Transport transport);

/// The DUT's registered memory: the setup's regions, virtual (no host buffer behind them).
std::unique_ptr<MemoryRegistry> MakeDutMemory(const DutSetup& setup);

/// The DUT engine of the setup's transport over `memory` (which must outlive it).
std::unique_ptr<TransportEngine> MakeDutEngine(const DutSetup& setup, MemoryRegistry& memory);

} // namespace metaroce::compliance

#endif // METAROCE_COMPLIANCE_DUT_SETUP_H
