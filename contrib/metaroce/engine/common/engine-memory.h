/*
 * Registered memory: the protection domain a NIC shares among its connections.
 *
 * A region is a key, a virtual address range and, optionally, real backing bytes. Regions
 * without backing bytes let a simulation move terabytes without allocating them: placement is
 * still bounds- and key-checked, only the copy is skipped.
 */
#ifndef METAROCE_ENGINE_MEMORY_H
#define METAROCE_ENGINE_MEMORY_H

#include <cstdint>
#include <map>
#include <string>

namespace metaroce
{

/// One registered memory region.
struct MemoryRegion
{
    uint32_t key{0};
    uint64_t addr{0};
    uint64_t length{0};
    uint8_t* data{nullptr}; ///< backing bytes, or nullptr for a virtual region
};

/// The regions registered on one NIC. Key 0 is reserved for "virtual, unchecked".
class MemoryRegistry
{
  public:
    /// Registers a region; throws std::invalid_argument on key 0, a duplicate key or an
    /// address range that wraps.
    void Register(const MemoryRegion& region);

    /// Removes a region; returns false when the key is unknown.
    bool Deregister(uint32_t key);

    /**
     * Checks that [addr, addr+length) lies inside the region named by key.
     * Key 0 passes (virtual buffers) unless RefuseVirtual() was called. Returns the region, or
     * nullptr when refused.
     */
    const MemoryRegion* Check(uint32_t key, uint64_t addr, uint64_t length) const;

    /// Copies bytes into registered memory when the region has backing bytes (no-op otherwise).
    /// The range must have passed Check().
    void Write(const MemoryRegion& region, uint64_t addr, const uint8_t* src, uint64_t length);

    /// Copies bytes out of registered memory; returns false for a virtual region.
    bool Read(const MemoryRegion& region, uint64_t addr, uint8_t* dst, uint64_t length) const;

    /// Refuses key 0 from now on: every buffer a packet names must be registered. For ends that
    /// take packets from outside (the UDP runtime); a simulation keeps key 0 for data it does
    /// not carry.
    void RefuseVirtual()
    {
        m_virtualAllowed = false;
    }

  private:
    std::map<uint32_t, MemoryRegion> m_regions;
    bool m_virtualAllowed{true};
};

} // namespace metaroce

#endif // METAROCE_ENGINE_MEMORY_H
