#include "engine-memory.h"

#include <cstring>
#include <stdexcept>

namespace metaroce
{

void
MemoryRegistry::Register(const MemoryRegion& region)
{
    if (region.key == 0)
    {
        throw std::invalid_argument("memory region key 0 is reserved for virtual buffers");
    }
    if (region.addr + region.length < region.addr)
    {
        throw std::invalid_argument("memory region " + std::to_string(region.key) +
                                    ": address range wraps around");
    }
    if (!m_regions.emplace(region.key, region).second)
    {
        throw std::invalid_argument("memory region key " + std::to_string(region.key) +
                                    " is already registered");
    }
}

bool
MemoryRegistry::Deregister(uint32_t key)
{
    return m_regions.erase(key) == 1;
}

const MemoryRegion*
MemoryRegistry::Check(uint32_t key, uint64_t addr, uint64_t length) const
{
    static const MemoryRegion kVirtual{};
    if (key == 0)
    {
        return m_virtualAllowed ? &kVirtual : nullptr;
    }
    auto it = m_regions.find(key);
    if (it == m_regions.end())
    {
        return nullptr;
    }
    const MemoryRegion& r = it->second;
    if (addr < r.addr || length > r.length || addr - r.addr > r.length - length)
    {
        return nullptr;
    }
    return &r;
}

void
MemoryRegistry::Write(const MemoryRegion& region,
                      uint64_t addr,
                      const uint8_t* src,
                      uint64_t length)
{
    if (region.data != nullptr && src != nullptr && length > 0)
    {
        std::memcpy(region.data + (addr - region.addr), src, length);
    }
}

bool
MemoryRegistry::Read(const MemoryRegion& region, uint64_t addr, uint8_t* dst, uint64_t length) const
{
    if (region.data == nullptr)
    {
        return false;
    }
    if (length > 0)
    {
        std::memcpy(dst, region.data + (addr - region.addr), length);
    }
    return true;
}

} // namespace metaroce
