// A main() for the fuzz targets when they are built without libFuzzer (by gcc, in the normal
// build): each argument is a file or a directory of files, and every file is run through
// LLVMFuzzerTestOneInput once. scripts/test.sh replays the committed corpora this way, so a
// regression input fails CI without clang being installed (doc/reliability.md).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size);

namespace
{

void
RunFile(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                     std::istreambuf_iterator<char>());
    // A copy of exactly `size` bytes, as libFuzzer passes, so that reading past the input is
    // seen by the sanitizers when they are on.
    std::vector<uint8_t> exact(bytes);
    LLVMFuzzerTestOneInput(exact.data(), exact.size());
}

} // namespace

int
main(int argc, char* argv[])
{
    std::size_t runs = 0;
    for (int i = 1; i < argc; ++i)
    {
        const std::filesystem::path arg(argv[i]);
        if (std::filesystem::is_directory(arg))
        {
            std::vector<std::filesystem::path> files;
            for (const auto& entry : std::filesystem::directory_iterator(arg))
            {
                if (entry.is_regular_file())
                {
                    files.push_back(entry.path());
                }
            }
            std::sort(files.begin(), files.end()); // the same order on every machine
            for (const auto& f : files)
            {
                RunFile(f);
                ++runs;
            }
        }
        else
        {
            RunFile(arg);
            ++runs;
        }
    }
    std::printf("%s: %zu inputs replayed\n", argc > 0 ? argv[0] : "fuzz", runs);
    return 0;
}
