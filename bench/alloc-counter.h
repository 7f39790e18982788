// A count of heap allocations, for the simulation-speed benchmark only.
//
// alloc-counter.cc defines malloc, calloc and realloc in the benchmark binary itself; the
// dynamic linker resolves every library's calls to them (ns-3's, libstdc++'s operator new, ours)
// to these definitions, which count and forward to glibc's __libc_* functions. free is left to
// glibc. Nothing else is linked with it: the module and its tests allocate as always.
#ifndef METAROCE_BENCH_ALLOC_COUNTER_H
#define METAROCE_BENCH_ALLOC_COUNTER_H

#include <cstdint>

namespace metaroce_bench
{

/// Heap allocations (malloc, calloc and realloc calls, operator new included) so far.
uint64_t AllocationCount();

} // namespace metaroce_bench

#endif // METAROCE_BENCH_ALLOC_COUNTER_H
