// Counting malloc interposer (see alloc-counter.h). The benchmark is single-threaded, so a plain
// counter is enough.
#include "alloc-counter.h"

#include <cstdlib>
#include <new>

// Forwarded to the allocator the binary is linked with (METAROCE_ALLOCATOR), whose free() and
// memalign() resolve as usual: both must be the same allocator's.
#ifdef METAROCE_TCMALLOC
extern "C"
{
    void* tc_malloc(size_t size);
    void* tc_calloc(size_t count, size_t size);
    void* tc_realloc(void* ptr, size_t size);
}
#    define METAROCE_REAL(name) tc_##name
#else
extern "C"
{
    void* __libc_malloc(size_t size);
    void* __libc_calloc(size_t count, size_t size);
    void* __libc_realloc(void* ptr, size_t size);
}
#    define METAROCE_REAL(name) __libc_##name
#endif

namespace
{
uint64_t g_allocations = 0;
} // namespace

extern "C" void*
malloc(size_t size) noexcept
{
    ++g_allocations;
    return METAROCE_REAL(malloc)(size);
}

extern "C" void*
calloc(size_t count, size_t size) noexcept
{
    ++g_allocations;
    return METAROCE_REAL(calloc)(count, size);
}

extern "C" void*
realloc(void* ptr, size_t size) noexcept
{
    ++g_allocations;
    return METAROCE_REAL(realloc)(ptr, size);
}

// The plain and array forms ns-3 uses; the aligned and sized forms keep the allocator's own.
void*
operator new(std::size_t size)
{
    void* p = malloc(size == 0 ? 1 : size);
    if (p == nullptr)
    {
        throw std::bad_alloc();
    }
    return p;
}

void*
operator new[](std::size_t size)
{
    return operator new(size);
}

void*
operator new(std::size_t size, const std::nothrow_t&) noexcept
{
    return malloc(size == 0 ? 1 : size);
}

uint64_t
metaroce_bench::AllocationCount()
{
    return g_allocations;
}
