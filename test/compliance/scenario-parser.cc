#include "packet-codec.h"
#include "scenario.h"
#include "text-values.h"

#include <algorithm>
#include <bitset>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

namespace metaroce::compliance
{

namespace
{

std::vector<std::string>
Split(const std::string& line)
{
    std::istringstream is(line);
    std::vector<std::string> out;
    for (std::string word; is >> word;)
    {
        out.push_back(word);
    }
    return out;
}

Term
ParseTerm(const std::string& word)
{
    const std::size_t eq = word.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == word.size())
    {
        throw std::invalid_argument("expected name=value, got '" + word + "'");
    }
    Term t;
    t.negate = word[eq - 1] == '!';
    t.name = word.substr(0, t.negate ? eq - 1 : eq);
    t.value = word.substr(eq + 1);
    return t;
}

bool
IsBytePatch(const std::string& name)
{
    return name.size() > 1 && name[0] == '@';
}

const std::set<std::string> kPostKeys =
    {"stream", "length", "localAddr", "localKey", "remoteAddr", "remoteKey", "refused"};
const std::set<std::string> kCompletionKeys = {"op", "stream", "status", "bytes"};

class Parser
{
  public:
    explicit Parser(const std::string& path)
    {
        m_scenario.path = path;
        const std::size_t slash = path.find_last_of('/');
        std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
        if (name.size() > 4 && name.substr(name.size() - 4) == ".mrs")
        {
            name.resize(name.size() - 4);
        }
        m_scenario.name = name;
    }

    Scenario Parse(const std::string& text)
    {
        std::istringstream in(text);
        std::string raw;
        int number = 0;
        while (std::getline(in, raw))
        {
            ++number;
            try
            {
                Line(raw, number);
            }
            catch (const std::invalid_argument& e)
            {
                throw std::invalid_argument(Where(number) + e.what());
            }
        }
        // What the whole file lacks is reported at its last line.
        const std::string end = Where(std::max(number, 1)) + "the file ends without ";
        if (!m_haveTransport)
        {
            throw std::invalid_argument(end + "a 'transport' directive");
        }
        if (m_scenario.spec.empty())
        {
            throw std::invalid_argument(end + "a 'spec' directive naming the sections checked");
        }
        if (!m_haveSpec10)
        {
            throw std::invalid_argument(end + "a 'spec-1.0' directive naming the MetaRoCE 1.0 "
                                              "sections checked (or 'none (ours 9.2)')");
        }
        if (m_scenario.steps.empty())
        {
            throw std::invalid_argument(end + "a timed line");
        }
        try
        {
            Finish(m_scenario.setup);
        }
        catch (const std::invalid_argument& e)
        {
            throw std::invalid_argument(Where(m_setupLine) + "configuration: " + e.what());
        }
        CheckValues();
        return m_scenario;
    }

  private:
    std::string Where(int line) const
    {
        return m_scenario.path + ":" + std::to_string(line) + ": ";
    }

    /**
     * The values of every timed line, now that the configuration is complete: what the runner
     * would only meet when it plays the line (and report as a failed scenario) is refused here
     * with the line - literals that do not parse or fit their field, ports the DUT does not
     * have, variables used before an expectation binds them, injections that cannot be built.
     */
    void CheckValues() const
    {
        std::set<std::string> bound;
        for (const Step& step : m_scenario.steps)
        {
            try
            {
                CheckStepValues(step, bound);
            }
            catch (const std::invalid_argument& e)
            {
                throw std::invalid_argument(Where(step.line) + e.what());
            }
        }
    }

    void CheckStepValues(const Step& step, std::set<std::string>& bound) const
    {
        const bool expectation = step.kind == Step::Kind::ExpectPacket ||
                                 step.kind == Step::Kind::ExpectCompletion ||
                                 step.kind == Step::Kind::ExpectCounters;
        if (step.kind == Step::Kind::PortState && step.port >= m_scenario.setup.Ports())
        {
            throw std::invalid_argument("the DUT has no port " + std::to_string(step.port) + " (" +
                                        std::to_string(m_scenario.setup.Ports()) + " ports)");
        }
        std::map<std::string, uint64_t> values;
        std::optional<std::bitset<kSackBits>> sack;
        BytePatches patches;
        std::set<std::string> binds;
        for (const Term& t : step.terms)
        {
            if (t.value[0] == '$')
            {
                values[t.name] = CheckVariable(t, expectation, bound, binds);
            }
            else if (t.value == "*")
            {
                continue;
            }
            else if (t.name == "sack")
            {
                sack = ParseSack(t.value);
            }
            else if (IsBytePatch(t.name))
            {
                patches.emplace_back(ParseUnsigned(t.name.substr(1), 65507),
                                     static_cast<uint8_t>(ParseUnsigned(t.value, 255)));
            }
            else
            {
                values[t.name] = CheckLiteral(step, t);
            }
        }
        bound.insert(binds.begin(), binds.end());
        if (step.kind == Step::Kind::Post)
        {
            // The runner narrows these to their work request fields (a length travels in 32
            // bits, spec 5.2): a larger value would be cut silently.
            for (const auto& [name, max] : {std::make_pair("length", uint64_t{UINT32_MAX}),
                                            std::make_pair("stream", uint64_t{UINT16_MAX}),
                                            std::make_pair("localKey", uint64_t{UINT32_MAX}),
                                            std::make_pair("remoteKey", uint64_t{UINT32_MAX})})
            {
                if (values.count(name) && values[name] > max)
                {
                    throw std::invalid_argument(std::string(name) + "=" +
                                                std::to_string(values[name]) + " is above " +
                                                std::to_string(max));
                }
            }
        }
        if (step.kind != Step::Kind::Inject)
        {
            return;
        }
        // The builder makes the datagram at these sizes: a UDP payload holds at most 65507 bytes.
        for (const char* size : {"datagram", "payloadLength"})
        {
            if (values.count(size) && values[size] > 65507)
            {
                throw std::invalid_argument(std::string(size) + "=" + std::to_string(values[size]) +
                                            ": a UDP payload holds at most 65507 bytes");
            }
        }
        if (values.count("port") && values["port"] >= m_scenario.setup.Ports())
        {
            throw std::invalid_argument("the DUT has no port " + std::to_string(values["port"]));
        }
        Build(m_scenario.setup, step.opcode, values, sack, patches, 0);
    }

    /// A literal value (or a range a..b in an expectation), as the runner reads it.
    static uint64_t CheckLiteral(const Step& step, const Term& t)
    {
        const std::size_t dots = t.value.find("..");
        if (step.kind == Step::Kind::ExpectCompletion && (t.name == "status" || t.name == "op"))
        {
            const bool known = t.name == "status"
                                   ? ParseStatus(t.value).has_value()
                                   : (t.value == "WRITE" || t.value == "SEND" || t.value == "RECV");
            if (!known)
            {
                throw std::invalid_argument("'" + t.value + "' is not a completion " + t.name);
            }
            return 0;
        }
        if (dots != std::string::npos)
        {
            if (ParseFieldValue(t.name, t.value.substr(0, dots)) >
                ParseFieldValue(t.name, t.value.substr(dots + 2)))
            {
                throw std::invalid_argument("range '" + t.value + "' runs backwards");
            }
            return 0;
        }
        return ParseFieldValue(t.name, t.value);
    }

    /// A variable term: "$x" binds x in an expectation; "$x+N" or "$x-N", and any use in an
    /// injection or a post, needs x bound by an earlier expectation. Returns a stand-in value.
    static uint64_t CheckVariable(const Term& t,
                                  bool expectation,
                                  const std::set<std::string>& bound,
                                  std::set<std::string>& binds)
    {
        const std::size_t op = t.value.find_first_of("+-");
        const std::string name = t.value.substr(1, op == std::string::npos ? op : op - 1);
        if (name.empty() ||
            name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"
                                   "WXYZ0123456789_") != std::string::npos)
        {
            throw std::invalid_argument("'" + t.value + "' is not a variable ($name or $name+N)");
        }
        if (op != std::string::npos)
        {
            ParseUnsigned(t.value.substr(op + 1));
        }
        if (!bound.count(name))
        {
            if (!expectation || op != std::string::npos || t.negate)
            {
                throw std::invalid_argument(t.value + " is used before an expectation binds it");
            }
            binds.insert(name);
        }
        return 0;
    }

  private:
    void Line(const std::string& raw, int number)
    {
        const std::size_t hash = raw.find('#');
        if (hash != std::string::npos && m_scenario.title.empty() && m_scenario.steps.empty())
        {
            std::string comment = raw.substr(hash + 1);
            comment.erase(0, comment.find_first_not_of(' '));
            m_scenario.title = comment;
        }
        const std::string line = raw.substr(0, hash);
        const std::vector<std::string> words = Split(line);
        if (words.empty())
        {
            return;
        }
        const std::string& first = words[0];
        if (first == "spec")
        {
            m_scenario.spec = line.substr(line.find("spec") + 4);
            m_scenario.spec.erase(0, m_scenario.spec.find_first_not_of(' '));
            m_scenario.spec.erase(m_scenario.spec.find_last_not_of(' ') + 1);
            return;
        }
        if (first == "spec-1.0")
        {
            if (m_haveSpec10)
            {
                throw std::invalid_argument("spec-1.0 given twice");
            }
            m_scenario.spec10 = ParseSpec10Tag(line.substr(line.find("spec-1.0") + 8));
            m_haveSpec10 = true;
            return;
        }
        if (first == "transport")
        {
            TransportDirective(words);
            m_setupLine = number;
            return;
        }
        RequireTransport(first);
        if (first == "config" || first == "memory")
        {
            m_setupLine = number;
        }
        if (first == "config")
        {
            for (std::size_t i = 1; i < words.size(); ++i)
            {
                const Term t = ParseTerm(words[i]);
                ApplySetting(m_scenario.setup, t.name, t.value);
            }
            return;
        }
        if (first == "memory")
        {
            Memory(words);
            return;
        }
        if (first == "tolerance")
        {
            if (words.size() != 2)
            {
                throw std::invalid_argument("tolerance takes one time, e.g. 'tolerance 5ns'");
            }
            m_tolerance = ParseTime(words[1]);
            return;
        }
        if ((first[0] >= '0' && first[0] <= '9') || first[0] == '+')
        {
            Timed(words, line, number);
            return;
        }
        throw std::invalid_argument("unknown directive '" + first + "'");
    }

    void TransportDirective(const std::vector<std::string>& words)
    {
        if (words.size() != 2)
        {
            throw std::invalid_argument("transport takes one name: metaroce or rocev2");
        }
        if (m_haveTransport)
        {
            throw std::invalid_argument("transport given twice");
        }
        m_scenario.setup = DefaultSetup(ParseTransport(words[1]));
        m_haveTransport = true;
    }

    void RequireTransport(const std::string& what) const
    {
        if (!m_haveTransport)
        {
            throw std::invalid_argument("'" + what + "' before the 'transport' directive");
        }
    }

    void Memory(const std::vector<std::string>& words)
    {
        DutRegion region;
        std::set<std::string> seen;
        for (std::size_t i = 1; i < words.size(); ++i)
        {
            const Term t = ParseTerm(words[i]);
            seen.insert(t.name);
            if (t.name == "key")
            {
                region.key = static_cast<uint32_t>(ParseUnsigned(t.value, UINT32_MAX));
            }
            else if (t.name == "addr")
            {
                region.addr = ParseUnsigned(t.value);
            }
            else if (t.name == "length")
            {
                region.length = ParseUnsigned(t.value);
            }
            else
            {
                throw std::invalid_argument("memory takes key=, addr= and length=, not '" + t.name +
                                            "'");
            }
        }
        if (seen.size() != 3 || region.key == 0)
        {
            throw std::invalid_argument("memory needs a non-zero key=, addr= and length=");
        }
        m_scenario.setup.regions.push_back(region);
        MakeDutMemory(m_scenario.setup); // what registration refuses (a range that wraps, ...)
    }

    void Timed(const std::vector<std::string>& words, const std::string& line, int number)
    {
        Step step;
        step.line = number;
        step.text = line.substr(line.find_first_not_of(" \t"));
        step.text.erase(step.text.find_last_not_of(" \t") + 1);
        std::string time = words[0];
        step.tolerance = m_tolerance;
        const std::size_t pm = time.find("+-");
        if (pm != std::string::npos && pm > 0)
        {
            step.tolerance = ParseTime(time.substr(pm + 2));
            time.resize(pm);
        }
        const TimeNs relative = time[0] == '+' ? ParseTime(time.substr(1)) : 0;
        if (relative > kNever - 1 - m_lastTime)
        {
            throw std::invalid_argument("'" + time + "' after " + FormatTime(m_lastTime) +
                                        " is past the latest time a scenario can name");
        }
        step.time = time[0] == '+' ? m_lastTime + relative : ParseTime(time);
        if (step.time < m_lastTime)
        {
            throw std::invalid_argument("time " + FormatTime(step.time) + " is before the " +
                                        "previous line's " + FormatTime(m_lastTime));
        }
        m_lastTime = step.time;
        if (words.size() < 2)
        {
            throw std::invalid_argument("a time must be followed by an action");
        }
        const std::string& verb = words[1];
        std::size_t next = 2;
        const ::metaroce::Transport transport = m_scenario.setup.transport;
        if (verb == "post")
        {
            step.kind = Step::Kind::Post;
            if (words.size() < 4 ||
                (words[2] != "WRITE" && words[2] != "SEND" && words[2] != "RECV"))
            {
                throw std::invalid_argument("post <WRITE|SEND|RECV> <label> name=value...");
            }
            step.opcode = words[2];
            step.label = words[3];
            if (!m_labels.insert(step.label).second)
            {
                throw std::invalid_argument("work request label '" + step.label + "' reused");
            }
            next = 4;
        }
        else if (verb == "inject")
        {
            step.kind = Step::Kind::Inject;
            step.opcode = Word(words, 2, "inject <OPCODE> name=value...");
            if (!IsOpcode(transport, step.opcode))
            {
                throw std::invalid_argument("'" + step.opcode + "' is not a " +
                                            TransportName(transport) + " opcode");
            }
            next = 3;
        }
        else if (verb == "port")
        {
            step.kind = Step::Kind::PortState;
            step.port = static_cast<uint16_t>(
                ParseUnsigned(Word(words, 2, "port <n> <up|down>"), UINT16_MAX));
            const std::string state = Word(words, 3, "port <n> <up|down>");
            if (state != "up" && state != "down")
            {
                throw std::invalid_argument("port <n> <up|down>, not '" + state + "'");
            }
            step.up = state == "up";
            next = 4;
        }
        else if (verb == "expect")
        {
            const std::string what = Word(words, 2, "expect <OPCODE|completion|counters|nothing>");
            next = 3;
            if (what == "completion")
            {
                step.kind = Step::Kind::ExpectCompletion;
                step.label = Word(words, 3, "expect completion <label> name=value...");
                if (!m_labels.count(step.label))
                {
                    throw std::invalid_argument("no work request '" + step.label +
                                                "' was posted before");
                }
                next = 4;
            }
            else if (what == "counters")
            {
                step.kind = Step::Kind::ExpectCounters;
            }
            else if (what == "nothing")
            {
                step.kind = Step::Kind::ExpectNothing;
            }
            else
            {
                step.kind = Step::Kind::ExpectPacket;
                step.opcode = what;
                if (!IsOpcode(transport, what))
                {
                    throw std::invalid_argument("'" + what + "' is not a " +
                                                TransportName(transport) + " opcode");
                }
            }
        }
        else
        {
            throw std::invalid_argument("unknown action '" + verb +
                                        "' (post, inject, port, expect)");
        }
        for (std::size_t i = next; i < words.size(); ++i)
        {
            step.terms.push_back(ParseTerm(words[i]));
            CheckTerm(step, step.terms.back());
        }
        m_scenario.steps.push_back(step);
    }

    static const std::string& Word(const std::vector<std::string>& words,
                                   std::size_t i,
                                   const std::string& usage)
    {
        if (i >= words.size())
        {
            throw std::invalid_argument("usage: " + usage);
        }
        return words[i];
    }

    void CheckTerm(const Step& step, const Term& t) const
    {
        const ::metaroce::Transport transport = m_scenario.setup.transport;
        switch (step.kind)
        {
        case Step::Kind::Post:
            if (!kPostKeys.count(t.name) || t.negate)
            {
                throw std::invalid_argument("post takes stream=, length=, localAddr=, "
                                            "localKey=, remoteAddr=, remoteKey=, refused=; "
                                            "not '" +
                                            t.name + "'");
            }
            return;
        case Step::Kind::Inject:
            if (t.negate || t.value == "*" || t.value.find("..") != std::string::npos)
            {
                throw std::invalid_argument("an injected field needs one value: '" + t.name + "'");
            }
            if (!IsBytePatch(t.name) && !IsInjectOnlyField(t.name) &&
                !IsField(transport, step.opcode, t.name))
            {
                throw std::invalid_argument("'" + t.name + "' is not a field of " + step.opcode);
            }
            return;
        case Step::Kind::ExpectPacket:
            if (!IsBytePatch(t.name) && !IsField(transport, step.opcode, t.name))
            {
                throw std::invalid_argument("'" + t.name + "' is not a field of " + step.opcode);
            }
            return;
        case Step::Kind::ExpectCompletion:
            if (!kCompletionKeys.count(t.name))
            {
                throw std::invalid_argument("a completion has op, stream, status and bytes; not '" +
                                            t.name + "'");
            }
            return;
        case Step::Kind::ExpectCounters: {
            const std::vector<std::string> names = CounterNames();
            if (std::find(names.begin(), names.end(), t.name) == names.end())
            {
                throw std::invalid_argument("unknown counter '" + t.name + "'");
            }
            return;
        }
        case Step::Kind::PortState:
        case Step::Kind::ExpectNothing:
            throw std::invalid_argument("this action takes no name=value terms");
        }
    }

    Scenario m_scenario;
    bool m_haveTransport{false};
    bool m_haveSpec10{false};
    TimeNs m_lastTime{0};
    TimeNs m_tolerance{0};
    int m_setupLine{1}; ///< the last line that configured the DUT (transport, config, memory)
    std::set<std::string> m_labels;
};

} // namespace

Scenario
ParseScenario(const std::string& text, const std::string& path)
{
    return Parser(path).Parse(text);
}

Scenario
ParseScenarioFile(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
    {
        throw std::invalid_argument(path + ": cannot be read");
    }
    std::ostringstream text;
    text << in.rdbuf();
    return ParseScenario(text.str(), path);
}

} // namespace metaroce::compliance
