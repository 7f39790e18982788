/*
 * metaroce-huge-page-heap: the test runner's tcmalloc takes its memory from the huge-page system
 * allocator (support/huge-page-heap.cc) unless METAROCE_HUGE_PAGES=0; the allocator returns
 * blocks aligned as asked that do not overlap, also blocks larger than its regions; and where the
 * kernel offers transparent huge pages, memory it returns is backed by them. Built into the
 * standalone test runner only, when the executables use the huge-page heap.
 */
#include "huge-page-heap.h"

#include "ns3/metaroce-ns3-compat.h"
#include "ns3/test.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <gperftools/malloc_extension.h>
#include <string>
#include <utility>
#include <vector>

using namespace ns3;

namespace
{

bool
HugePagesAskedOff()
{
    const char* setting = std::getenv("METAROCE_HUGE_PAGES");
    return setting != nullptr && std::strcmp(setting, "0") == 0;
}

/// The kernel's transparent huge page mode: "always", "madvise", "never" or "" when unknown.
std::string
KernelMode()
{
    std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string word;
    while (in >> word)
    {
        if (word.size() > 2 && word.front() == '[' && word.back() == ']')
        {
            return word.substr(1, word.size() - 2);
        }
    }
    return "";
}

class InstalledTestCase : public TestCase
{
  public:
    InstalledTestCase()
        : TestCase("installed before main() unless METAROCE_HUGE_PAGES=0")
    {
    }

  private:
    void DoRun() override
    {
        NS_TEST_ASSERT_MSG_EQ(metaroce::HugePageHeapInstalled(),
                              !HugePagesAskedOff(),
                              "the huge-page heap follows METAROCE_HUGE_PAGES");
    }
};

class BlocksTestCase : public TestCase
{
  public:
    BlocksTestCase()
        : TestCase("blocks are aligned as asked, disjoint and writable, also beyond a region")
    {
    }

  private:
    void DoRun() override
    {
        if (!metaroce::HugePageHeapInstalled())
        {
            return; // tcmalloc's own allocator: nothing of ours to check
        }
        SysAllocator* alloc = MallocExtension::instance()->GetSystemAllocator();
        NS_TEST_ASSERT_MSG_NE(alloc, nullptr, "tcmalloc has a system allocator");
        const std::vector<std::pair<std::size_t, std::size_t>> asks = {
            {8192, 8192},
            {3 * 8192, 8192},
            {65536, 65536},
            {8192, metaroce::kHugePageBytes},
            {200u << 20, 8192}, // larger than a region: a region of its own
            {8192, 8192},
        };
        std::vector<std::pair<uintptr_t, std::size_t>> blocks;
        for (const auto& [size, alignment] : asks)
        {
            std::size_t actual = 0;
            void* p = alloc->Alloc(size, &actual, alignment);
            NS_TEST_ASSERT_MSG_NE(p, nullptr, "a block of " << size);
            const auto at = reinterpret_cast<uintptr_t>(p);
            NS_TEST_EXPECT_MSG_EQ(at % alignment, 0u, "aligned to " << alignment);
            NS_TEST_EXPECT_MSG_EQ(actual, size, "the size asked for");
            for (const auto& [other, otherSize] : blocks)
            {
                NS_TEST_EXPECT_MSG_EQ((at + size <= other || other + otherSize <= at),
                                      true,
                                      "blocks do not overlap");
            }
            static_cast<volatile char*>(p)[0] = 1;
            static_cast<volatile char*>(p)[size - 1] = 1;
            blocks.emplace_back(at, size);
        }
    }
};

class HugePagesTestCase : public TestCase
{
  public:
    HugePagesTestCase()
        : TestCase("memory it returns is on huge pages where the kernel offers them")
    {
    }

  private:
    void DoRun() override
    {
        const std::string mode = KernelMode();
        if (!metaroce::HugePageHeapInstalled() || (mode != "always" && mode != "madvise"))
        {
            return; // no huge pages to expect
        }
        constexpr std::size_t kBytes = std::size_t{16} << 20;
        const long before = metaroce::ResidentOnHugePagesKb();
        SysAllocator* alloc = MallocExtension::instance()->GetSystemAllocator();
        std::size_t actual = 0;
        void* p = alloc->Alloc(kBytes, &actual, metaroce::kHugePageBytes);
        NS_TEST_ASSERT_MSG_NE(p, nullptr, "16 MiB");
        std::memset(p, 1, kBytes);
        const long gained = metaroce::ResidentOnHugePagesKb() - before;
        // The kernel may fall back to small pages where it cannot find a free 2 MiB page; of
        // eight, at least one must be huge.
        NS_TEST_EXPECT_MSG_GT_OR_EQ(gained, 2048, "kB more on huge pages after touching 16 MiB");
    }
};

class HugePageHeapTestSuite : public TestSuite
{
  public:
    HugePageHeapTestSuite()
        : TestSuite("metaroce-huge-page-heap", Type::UNIT)
    {
        AddTestCase(new InstalledTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new BlocksTestCase, MetaRoceTestDuration::QUICK);
        AddTestCase(new HugePagesTestCase, MetaRoceTestDuration::QUICK);
    }
};

HugePageHeapTestSuite g_hugePageHeapTestSuite;

} // namespace
