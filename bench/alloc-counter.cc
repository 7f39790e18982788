// Counting malloc interposer (see alloc-counter.h). The benchmark is single-threaded, so a plain
// counter is enough.
#include "alloc-counter.h"

#include <cstdlib>

extern "C"
{
    void* __libc_malloc(size_t size);
    void* __libc_calloc(size_t count, size_t size);
    void* __libc_realloc(void* ptr, size_t size);
}

namespace
{
uint64_t g_allocations = 0;
} // namespace

extern "C" void*
malloc(size_t size) noexcept
{
    ++g_allocations;
    return __libc_malloc(size);
}

extern "C" void*
calloc(size_t count, size_t size) noexcept
{
    ++g_allocations;
    return __libc_calloc(count, size);
}

extern "C" void*
realloc(void* ptr, size_t size) noexcept
{
    ++g_allocations;
    return __libc_realloc(ptr, size);
}

uint64_t
metaroce_bench::AllocationCount()
{
    return g_allocations;
}
