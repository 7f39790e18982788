/*
 * metaroce-compliance: plays the compliance scenarios (test/compliance/scenarios, one .mrs file
 * each) against an implementation and reports pass/fail per scenario, with the first divergence of
 * each failure, and a JSON summary. Exits 0 only when every selected scenario passes.
 *
 *   metaroce-compliance [--adapter=engine|udp|ns3-nic] [--scenario=SUBSTRING] [--report=FILE.json]
 *                       [--scenarios=DIR|FILE.mrs] [--list] [--coverage]
 *
 * --list prints each scenario with the sections of doc/spec.md and of MetaRoCE 1.0 it checks;
 * --coverage prints the scenarios per section of MetaRoCE 1.0's visible contents (spec-1-0.h).
 * Neither runs anything.
 *
 * A problem with the arguments or a scenario file is one line on stderr ("<file>:<line>: ..."
 * for a scenario) and exit status 2, before any scenario runs.
 */
#include "compliance-report.h"
#include "engine-adapter.h"
#include "metaroce-atomic-file.h"
#include "scenario-runner.h"
#include "scenario.h"
#include "udp-adapter.h"

#ifdef METAROCE_COMPLIANCE_WITH_NS3
#    include "ns3-nic-adapter.h"
#endif

#include <algorithm>
#include <dirent.h>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <sys/stat.h>
#include <vector>

using namespace metaroce::compliance;

namespace
{

std::vector<std::string>
ScenarioFiles(const std::string& dir)
{
    struct stat info;
    if (stat(dir.c_str(), &info) == 0 && S_ISREG(info.st_mode))
    {
        return {dir}; // one scenario file
    }
    DIR* d = opendir(dir.c_str());
    if (d == nullptr)
    {
        throw std::invalid_argument("--scenarios: cannot open '" + dir +
                                    "' (a directory of .mrs files, or one file)");
    }
    std::vector<std::string> files;
    for (dirent* e = readdir(d); e != nullptr; e = readdir(d))
    {
        const std::string name = e->d_name;
        if (name.size() > 4 && name.substr(name.size() - 4) == ".mrs")
        {
            files.push_back(dir + "/" + name);
        }
    }
    closedir(d);
    std::sort(files.begin(), files.end());
    return files;
}

std::unique_ptr<ComplianceAdapter>
MakeAdapter(const std::string& name)
{
    if (name == "engine")
    {
        return std::make_unique<EngineAdapter>();
    }
    if (name == "udp")
    {
        return std::make_unique<UdpAdapter>();
    }
#ifdef METAROCE_COMPLIANCE_WITH_NS3
    if (name == "ns3-nic")
    {
        return std::make_unique<Ns3NicAdapter>();
    }
    throw std::invalid_argument("unknown adapter '" + name + "' (engine, udp, ns3-nic)");
#else
    throw std::invalid_argument("unknown adapter '" + name +
                                "' (this build has only 'engine' and 'udp'; ns3-nic needs ns-3)");
#endif
}

const char* const kUsage = "metaroce-compliance [--adapter=engine|udp|ns3-nic] "
                           "[--scenario=SUBSTRING] [--report=FILE.json] "
                           "[--scenarios=DIR|FILE.mrs] [--list] [--coverage]";

/// A refused argument: one line, exit status 2.
int
Usage(const std::string& problem)
{
    std::cerr << "metaroce-compliance: " << problem << " (usage: " << kUsage << ")\n";
    return 2;
}

} // namespace

int
main(int argc, char** argv)
{
    std::string adapterName = "engine";
    std::string filter;
    std::string report;
    std::string dir = METAROCE_COMPLIANCE_SCENARIO_DIR;
    bool list = false;
    bool coverage = false;
    for (int i = 1; i < argc; ++i)
    {
        const std::string arg = argv[i];
        auto value = [&arg](const std::string& flag) {
            return arg.rfind(flag, 0) == 0 ? arg.substr(flag.size()) : std::string();
        };
        if (arg.rfind("--adapter=", 0) == 0)
        {
            adapterName = value("--adapter=");
        }
        else if (arg.rfind("--scenario=", 0) == 0)
        {
            filter = value("--scenario=");
        }
        else if (arg.rfind("--report=", 0) == 0)
        {
            report = value("--report=");
        }
        else if (arg.rfind("--scenarios=", 0) == 0)
        {
            dir = value("--scenarios=");
        }
        else if (arg == "--list")
        {
            list = true;
        }
        else if (arg == "--coverage")
        {
            coverage = true;
        }
        else if (arg == "--help" || arg == "-h")
        {
            std::cout << "usage: " << kUsage << "\n";
            return 0;
        }
        else
        {
            return Usage("unknown argument '" + arg + "'");
        }
    }
    try
    {
        std::unique_ptr<ComplianceAdapter> adapter = MakeAdapter(adapterName);
        std::vector<Scenario> scenarios;
        for (const std::string& file : ScenarioFiles(dir))
        {
            Scenario s = ParseScenarioFile(file);
            if (s.name.find(filter) != std::string::npos)
            {
                scenarios.push_back(std::move(s));
            }
        }
        if (scenarios.empty())
        {
            return Usage("no scenario in " + dir + " matches '" + filter + "'");
        }
        if (list)
        {
            for (const Scenario& s : scenarios)
            {
                std::cout << s.name << "  (spec " << s.spec << "; 1.0 " << FormatSpec10Tag(s.spec10)
                          << ")  " << s.title << "\n";
            }
        }
        if (coverage)
        {
            PrintSpec10Coverage(std::cout, scenarios);
        }
        if (list || coverage)
        {
            ns3::MetaRoceFlushStandardOutput();
            return 0;
        }
        // The report's file is made (under a temporary name) before anything runs, so a path
        // that cannot be written is refused at once; it gets its name when complete.
        std::unique_ptr<ns3::MetaRoceAtomicFile> out;
        if (!report.empty())
        {
            out = std::make_unique<ns3::MetaRoceAtomicFile>(report);
        }
        std::vector<ScenarioResult> results;
        std::size_t failed = 0;
        for (const Scenario& s : scenarios)
        {
            results.push_back(RunScenario(s, *adapter));
            failed += !results.back().passed;
            PrintResult(std::cout, results.back());
        }
        if (out)
        {
            WriteJson(out->Stream(), adapter->Name(), results);
            out->Commit();
        }
        std::cout << adapter->Name() << ": " << results.size() - failed << " passed, " << failed
                  << " failed\n";
        ns3::MetaRoceFlushStandardOutput(); // the results, if stdout is a file on a full disk
        return failed == 0 ? 0 : 1;
    }
    catch (const std::exception& e)
    {
        std::cerr << "metaroce-compliance: " << e.what() << "\n";
        return 2;
    }
}
