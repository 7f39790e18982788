// tcmalloc's heap on transparent huge pages (huge-page-heap.cc): what the executables linked
// with it can ask about it.
#ifndef METAROCE_SUPPORT_HUGE_PAGE_HEAP_H
#define METAROCE_SUPPORT_HUGE_PAGE_HEAP_H

#include <cstddef>

namespace metaroce
{

/// The largest alignment the huge-page system allocator serves itself (larger: tcmalloc's own).
constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

/// True when tcmalloc takes its memory from the huge-page system allocator: installed before
/// main() unless METAROCE_HUGE_PAGES=0 is in the environment.
bool HugePageHeapInstalled();

} // namespace metaroce

#endif // METAROCE_SUPPORT_HUGE_PAGE_HEAP_H
