// Fuzz target: the compliance scenario (.mrs) parser (test/compliance/scenario-parser.cc) on
// arbitrary text. A bad scenario must be refused with std::invalid_argument ("path:line:
// problem"); any other exception, a crash or a hang is a finding. A scenario that parses and is
// short (few steps, a few milliseconds of virtual time) is also run against the engine adapter,
// so the runner and the DUT set-up see the odd but legal values the parser lets through.
#include "engine-adapter.h"
#include "scenario-runner.h"
#include "scenario.h"

#include <stdexcept>
#include <string>

using namespace metaroce;
using namespace metaroce::compliance;

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    Scenario scenario;
    try
    {
        scenario = ParseScenario(text, "fuzz.mrs");
    }
    catch (const std::invalid_argument&)
    {
        return 0; // refused with a message: what a bad file must get
    }
    if (scenario.steps.size() > 64 || scenario.steps.empty() ||
        scenario.steps.back().time > 10'000'000)
    {
        return 0; // long runs make slow fuzzing, not new coverage
    }
    try
    {
        EngineAdapter adapter;
        RunScenario(scenario, adapter);
    }
    catch (const std::invalid_argument&)
    {
        // A value the parser accepts but the DUT refuses (a config the engine validates).
    }
    return 0;
}
