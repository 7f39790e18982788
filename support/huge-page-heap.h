// tcmalloc's heap on transparent huge pages (huge-page-heap.cc): what the executables linked
// with it can ask about it.
#ifndef METAROCE_SUPPORT_HUGE_PAGE_HEAP_H
#define METAROCE_SUPPORT_HUGE_PAGE_HEAP_H

#include <cstddef>
#include <fstream>
#include <string>

namespace metaroce
{

/// The largest alignment the huge-page system allocator serves itself (larger: tcmalloc's own).
constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

/// True when tcmalloc takes its memory from the huge-page system allocator: installed before
/// main() unless METAROCE_HUGE_PAGES=0 is in the environment.
bool HugePageHeapInstalled();

/// What of this process the kernel keeps on transparent huge pages, in kB (AnonHugePages of
/// /proc/self/smaps_rollup; 0 where it cannot be read). Header-only: also for executables
/// built without the huge-page heap.
inline long
ResidentOnHugePagesKb()
{
    std::ifstream rollup("/proc/self/smaps_rollup");
    std::string key;
    long kb = 0;
    while (rollup >> key)
    {
        if (key == "AnonHugePages:")
        {
            rollup >> kb;
            break;
        }
    }
    return kb;
}

} // namespace metaroce

#endif // METAROCE_SUPPORT_HUGE_PAGE_HEAP_H
