/*
 * metaroce-atomic-file: result files appear whole or not at all (helper/experiment/
 * metaroce-atomic-file.h). A committed file holds exactly what was written and no temporary
 * file stays; a file never committed leaves nothing; a path that cannot be written (its parent
 * a file, a directory) and a write that fails on the way (the file-size limit, as a full disk
 * does: RLIMIT_FSIZE makes write() fail with EFBIG, no mount needed) throw an error naming the
 * path; MetaRoceExperimentResults::Write() then renames nothing and keeps an older run's files;
 * a process stopped by SIGTERM while a file is
 * being written leaves no file behind.
 */
#include "ns3/metaroce-atomic-file.h"
#include "ns3/metaroce-ns3-compat.h"
#include "ns3/metaroce-results.h"
#include "ns3/test.h"

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace ns3;

namespace
{

/// A fresh directory under $TMPDIR (or /tmp), removed with its files by the destructor.
class ScratchDir
{
  public:
    ScratchDir()
    {
        const char* tmp = std::getenv("TMPDIR");
        std::string pattern = std::string(tmp ? tmp : "/tmp") + "/metaroce-atomic-XXXXXX";
        std::vector<char> buffer(pattern.begin(), pattern.end());
        buffer.push_back('\0');
        m_flow = mkdtemp(buffer.data()) ? buffer.data() : "";
    }

    ~ScratchDir()
    {
        for (const std::string& name : Names())
        {
            unlink((m_flow + "/" + name).c_str());
        }
        rmdir(m_flow.c_str());
    }

    /// The names in the directory, sorted.
    std::vector<std::string> Names() const
    {
        std::vector<std::string> names;
        if (DIR* d = opendir(m_flow.c_str()))
        {
            for (dirent* e = readdir(d); e != nullptr; e = readdir(d))
            {
                const std::string name = e->d_name;
                if (name != "." && name != "..")
                {
                    names.push_back(name);
                }
            }
            closedir(d);
        }
        std::sort(names.begin(), names.end());
        return names;
    }

    std::string operator/(const std::string& name) const
    {
        return m_flow + "/" + name;
    }

  private:
    std::string m_flow;
};

std::string
Read(const std::string& path)
{
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/// The message of the std::runtime_error `f` throws, or "" when it throws none.
template<typename F>
std::string
ErrorOf(F f)
{
    try
    {
        f();
    }
    catch (const std::runtime_error& e)
    {
        return e.what();
    }
    return "";
}

/// Runs `f` with writes past `bytes` per file failing (EFBIG, SIGXFSZ ignored meanwhile).
template<typename F>
std::string
ErrorWithFileSizeLimit(rlim_t bytes, F f)
{
    rlimit saved;
    getrlimit(RLIMIT_FSIZE, &saved);
    rlimit limited = saved;
    limited.rlim_cur = bytes;
    const auto previous = std::signal(SIGXFSZ, SIG_IGN);
    setrlimit(RLIMIT_FSIZE, &limited);
    const std::string error = ErrorOf(f);
    setrlimit(RLIMIT_FSIZE, &saved);
    std::signal(SIGXFSZ, previous);
    return error;
}

bool
Contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

class CommitAndAbandonTestCase : public TestCase
{
  public:
    CommitAndAbandonTestCase()
        : TestCase("a committed file holds what was written; one never committed leaves nothing")
    {
    }

  private:
    void DoRun() override
    {
        ScratchDir dir;
        {
            MetaRoceAtomicFile file(dir / "a.csv");
            file.Stream() << "x,y\n1,2\n";
            NS_TEST_EXPECT_MSG_EQ(dir.Names().size(), 1, "only the temporary file while writing");
            NS_TEST_EXPECT_MSG_EQ(Contains(dir.Names().front(), "a.csv.partial-"),
                                  true,
                                  "the temporary name says what it is");
            file.Commit();
        }
        NS_TEST_EXPECT_MSG_EQ(Read(dir / "a.csv"), "x,y\n1,2\n", "the committed text");
        NS_TEST_EXPECT_MSG_EQ(dir.Names().size(), 1, "no temporary file stays");
        {
            MetaRoceAtomicFile file(dir / "a.csv");
            file.Stream() << "half";
        } // an exception or an early return: never committed
        NS_TEST_EXPECT_MSG_EQ(Read(dir / "a.csv"), "x,y\n1,2\n", "the older file is kept");
        NS_TEST_EXPECT_MSG_EQ(dir.Names().size(), 1, "the uncommitted file is gone");
        // Where nothing can be written: a parent that is a file, a path that is a directory.
        const std::string parentIsFile =
            ErrorOf([&dir] { MetaRoceAtomicFile::Write(dir / "a.csv/b.json", "{}"); });
        NS_TEST_EXPECT_MSG_EQ(Contains(parentIsFile, "cannot write '" + (dir / "a.csv/b.json")),
                              true,
                              parentIsFile);
        NS_TEST_EXPECT_MSG_EQ(Contains(parentIsFile, "Not a directory"), true, parentIsFile);
        const std::string isDirectory =
            ErrorOf([&dir] { MetaRoceAtomicFile::Write(dir / "", "{}"); });
        NS_TEST_EXPECT_MSG_EQ(Contains(isDirectory, "Is a directory"), true, isDirectory);
    }
};

class WriteErrorTestCase : public TestCase
{
  public:
    WriteErrorTestCase()
        : TestCase("a failed write is an error naming the file, and renames nothing")
    {
    }

  private:
    void DoRun() override
    {
        ScratchDir dir;
        const std::string big(200000, 'x');
        const std::string error = ErrorWithFileSizeLimit(100000, [&dir, &big] {
            MetaRoceAtomicFile::Write(dir / "big.csv", big);
        });
        NS_TEST_EXPECT_MSG_EQ(Contains(error, "cannot write '" + (dir / "big.csv") + "': File"),
                              true,
                              error);
        NS_TEST_EXPECT_MSG_EQ(dir.Names().empty(), true, "neither the file nor its temporary");

        // A run's files: an older run's stay whole when the new ones cannot be written.
        MetaRoceExperimentResults r;
        r.config.hosts = 4;
        r.Write(dir / "run");
        const std::vector<std::string> names = dir.Names();
        NS_TEST_EXPECT_MSG_EQ(names.size(), 6, "the JSON and five CSV files");
        const std::string older = Read(dir / "run.json");
        r.config.hosts = 5;
        r.flows.resize(20000, MetaRoceFlowRecord{1, 2, 3, 4.5, 6.5, 2, 1, 2});
        const std::string failed =
            ErrorWithFileSizeLimit(100000, [&dir, &r] { r.Write(dir / "run"); });
        NS_TEST_EXPECT_MSG_EQ(Contains(failed, "run-flows.csv"), true, failed);
        NS_TEST_EXPECT_MSG_EQ((dir.Names() == names), true, "no new name, no temporary file");
        NS_TEST_EXPECT_MSG_EQ(Read(dir / "run.json"), older, "the older run's JSON is untouched");
        // Once it can, the new set replaces the old one.
        r.Write(dir / "run");
        NS_TEST_EXPECT_MSG_EQ(Contains(Read(dir / "run.json"), "\"hosts\": 5"), true, "new JSON");
        NS_TEST_EXPECT_MSG_EQ((Read(dir / "run-flows.csv").size() > 100000), true, "all rows");
        NS_TEST_EXPECT_MSG_EQ((dir.Names() == names), true, "the same six names");
    }
};

class SignalTestCase : public TestCase
{
  public:
    SignalTestCase()
        : TestCase("a process stopped by SIGTERM while writing leaves no file")
    {
    }

  private:
    void DoRun() override
    {
        ScratchDir dir;
        const pid_t child = fork();
        if (child == 0)
        {
            MetaRoceAtomicFile file(dir / "run.json");
            file.Stream() << "{\"complete\": tr";
            file.Stream().flush();
            raise(SIGTERM);
            _exit(0); // not reached: the signal ends the process
        }
        int status = 0;
        waitpid(child, &status, 0);
        NS_TEST_EXPECT_MSG_EQ((WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM),
                              true,
                              "the signal still ends the process");
        NS_TEST_EXPECT_MSG_EQ(dir.Names().empty(), true, "no file, temporary or final");
    }
};

class MetaRoceAtomicFileTestSuite : public TestSuite
{
  public:
    MetaRoceAtomicFileTestSuite()
        : TestSuite("metaroce-atomic-file", Type::UNIT)
    {
        AddTestCase(new CommitAndAbandonTestCase(), MetaRoceTestDuration::QUICK);
        AddTestCase(new WriteErrorTestCase(), MetaRoceTestDuration::QUICK);
        AddTestCase(new SignalTestCase(), MetaRoceTestDuration::QUICK);
    }
};

MetaRoceAtomicFileTestSuite g_metaRoceAtomicFileTestSuite;

} // namespace
