// A count of heap allocations, for the simulation-speed benchmark only.
//
// alloc-counter.cc defines malloc, calloc, realloc and the plain operator new in the benchmark
// binary itself; the dynamic linker resolves every library's calls to them (ns-3's, ours) to
// these definitions, which count and forward to the allocator the binary is linked with
// (tcmalloc's tc_* functions, or glibc's __libc_*). free and operator delete are that
// allocator's own. operator new is defined too because tcmalloc replaces it without calling
// malloc. Nothing else is linked with it: the module and its tests allocate as always.
#ifndef METAROCE_BENCH_ALLOC_COUNTER_H
#define METAROCE_BENCH_ALLOC_COUNTER_H

#include <cstdint>

namespace metaroce_bench
{

/// Heap allocations (malloc, calloc and realloc calls, operator new included) so far.
uint64_t AllocationCount();

} // namespace metaroce_bench

#endif // METAROCE_BENCH_ALLOC_COUNTER_H
