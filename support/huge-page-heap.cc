// tcmalloc's heap on transparent huge pages, for the executables linked with tcmalloc
// (METAROCE_ALLOCATOR, CMakeLists.txt; doc/performance.md, "The fast path").
//
// A large fabric's state is spread over gigabytes, and each packet-hop touches a few dozen cache
// lines of it scattered over as many 4 KiB pages: most of those touches miss the TLB too, and a
// page walk costs about as much as the cache miss itself. Debian's kernels hand out 2 MiB pages
// only to memory marked with madvise(MADV_HUGEPAGE) (transparent_hugepage=madvise), which
// tcmalloc does not do. So this file gives tcmalloc a system allocator that takes memory in
// 2 MiB-aligned regions marked that way and carves tcmalloc's requests out of them in order.
//
// Results do not depend on it (no code orders anything by address). METAROCE_HUGE_PAGES=0 in the
// environment keeps tcmalloc's own system allocator (for comparisons in the same binary); where
// the kernel gives no huge pages (transparent_hugepage=never) the regions are plain memory.
#include "huge-page-heap.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <gperftools/malloc_extension.h>
#include <new>
#include <sys/mman.h>

namespace
{

constexpr std::size_t kHugePage = metaroce::kHugePageBytes;
/// Address space reserved at a time; only the pages tcmalloc touches take memory.
constexpr std::size_t kRegion = std::size_t{64} << 20;

std::size_t
RoundUp(std::size_t n, std::size_t to)
{
    return (n + to - 1) / to * to;
}

class HugePageSysAllocator : public SysAllocator
{
  public:
    explicit HugePageSysAllocator(SysAllocator* fallback)
        : m_fallback(fallback)
    {
    }

    void* Alloc(std::size_t size, std::size_t* actualSize, std::size_t alignment) override
    {
        // tcmalloc calls this under its page-heap lock: no locking of its own is needed.
        if (alignment > kHugePage || size == 0)
        {
            return Fallback(size, actualSize, alignment);
        }
        alignment = alignment == 0 ? 1 : alignment;
        uintptr_t start = RoundUp(m_next, alignment);
        if (start + size > m_end)
        {
            if (!Reserve(RoundUp(size + alignment, kHugePage)))
            {
                return Fallback(size, actualSize, alignment);
            }
            start = RoundUp(m_next, alignment);
        }
        m_next = start + size;
        if (actualSize != nullptr)
        {
            *actualSize = size;
        }
        return reinterpret_cast<void*>(start);
    }

  private:
    /// Starts a new region of at least `bytes` (a multiple of kHugePage), 2 MiB-aligned.
    bool Reserve(std::size_t bytes)
    {
        const std::size_t length = std::max(bytes, kRegion);
        void* raw = mmap(nullptr,
                         length + kHugePage,
                         PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                         -1,
                         0);
        if (raw == MAP_FAILED)
        {
            return false;
        }
        const uintptr_t begin = RoundUp(reinterpret_cast<uintptr_t>(raw), kHugePage);
        // Advice only: without huge pages the region still serves as ordinary memory.
        madvise(reinterpret_cast<void*>(begin), length, MADV_HUGEPAGE);
        m_next = begin;
        m_end = begin + length;
        return true;
    }

    void* Fallback(std::size_t size, std::size_t* actualSize, std::size_t alignment)
    {
        return m_fallback == nullptr ? nullptr : m_fallback->Alloc(size, actualSize, alignment);
    }

    SysAllocator* m_fallback;
    uintptr_t m_next{0};
    uintptr_t m_end{0};
};

bool
HugePagesWanted()
{
    const char* setting = std::getenv("METAROCE_HUGE_PAGES");
    return setting == nullptr || std::strcmp(setting, "0") != 0;
}

/// Installed before main(); tcmalloc's memory taken before that (static initialisers) stays
/// where it is.
const bool g_installed = [] {
    MallocExtension* extension = MallocExtension::instance();
    if (!HugePagesWanted() || extension == nullptr)
    {
        return false;
    }
    // Static storage: the system allocator must not come from the heap it feeds.
    alignas(HugePageSysAllocator) static unsigned char storage[sizeof(HugePageSysAllocator)];
    extension->SetSystemAllocator(new (storage)
                                      HugePageSysAllocator(extension->GetSystemAllocator()));
    return true;
}();

} // namespace

bool
metaroce::HugePageHeapInstalled()
{
    return g_installed;
}
