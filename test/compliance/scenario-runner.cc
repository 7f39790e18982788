#include "scenario-runner.h"

#include "packet-codec.h"
#include "text-values.h"

#include <algorithm>
#include <deque>
#include <map>
#include <sstream>
#include <stdexcept>

namespace metaroce::compliance
{

namespace
{

/// Thrown inside the runner when the DUT diverges; caught by RunScenario.
struct DivergenceError
{
    Divergence d;
};

class Runner
{
  public:
    Runner(const Scenario& scenario, ComplianceAdapter& adapter)
        : m_scenario(scenario)
        , m_adapter(adapter)
        , m_transport(scenario.setup.transport)
        , m_mcrc(scenario.setup.transport == Transport::MetaRoce && scenario.setup.metaroce.mcrc)
    {
    }

    ScenarioResult Run()
    {
        ScenarioResult result;
        result.name = m_scenario.name;
        result.spec = m_scenario.spec;
        result.spec10 = FormatSpec10Tag(m_scenario.spec10);
        result.title = m_scenario.title;
        const Step* current = nullptr;
        try
        {
            m_adapter.Reset(m_scenario.setup);
            for (const Step& step : m_scenario.steps)
            {
                current = &step;
                Execute(step);
                ++result.stepsRun;
            }
            Collect();
            if (!m_packets.empty())
            {
                Diverge(m_scenario.steps.back(),
                        "(no more packets)",
                        Describe(m_packets.front()),
                        "unexpected packet: the DUT emitted it before the last line's time");
            }
            if (!m_completions.empty())
            {
                Diverge(m_scenario.steps.back(),
                        "(no more completions)",
                        Describe(m_completions.front()),
                        "unexpected completion");
            }
            result.passed = true;
        }
        catch (const DivergenceError& e)
        {
            result.divergence = e.d;
        }
        catch (const std::exception& e)
        {
            Divergence d;
            d.line = current ? current->line : 0;
            d.expected = current ? current->text : "(setup)";
            d.actual = "error";
            d.reason = e.what();
            result.divergence = d;
        }
        result.packetsMatched = m_matched;
        return result;
    }

  private:
    void Execute(const Step& step)
    {
        switch (step.kind)
        {
        case Step::Kind::Post:
            Act(step.time);
            Post(step);
            break;
        case Step::Kind::Inject:
            Act(step.time);
            m_adapter.Inject(BuildInjection(step));
            break;
        case Step::Kind::PortState:
            Act(step.time);
            if (step.port >= m_scenario.setup.Ports())
            {
                throw std::invalid_argument("the DUT has no port " + std::to_string(step.port));
            }
            m_adapter.SetPortState(step.port, step.up);
            break;
        case Step::Kind::ExpectPacket:
            ExpectPacket(step);
            break;
        case Step::Kind::ExpectCompletion:
            ExpectCompletion(step);
            break;
        case Step::Kind::ExpectCounters:
            Act(step.time);
            ExpectCounters(step);
            break;
        case Step::Kind::ExpectNothing:
            Act(step.time);
            if (!m_packets.empty())
            {
                Diverge(step, step.text, Describe(m_packets.front()), "unexpected packet");
            }
            if (!m_completions.empty())
            {
                Diverge(step, step.text, Describe(m_completions.front()), "unexpected completion");
            }
            break;
        }
        Collect();
    }

    /// Brings the DUT to `t` (never backwards: an expectation may have waited past it).
    void Act(TimeNs t)
    {
        m_adapter.AdvanceTo(t, false);
        Collect();
    }

    void Collect()
    {
        for (const WirePacket& p : m_adapter.TakeEmitted())
        {
            m_packets.push_back(Decode(m_transport, p, m_mcrc));
        }
        for (const Completion& c : m_adapter.TakeCompletions())
        {
            m_completions.push_back(c);
        }
    }

    /// Runs until something is pending in `queue` or the deadline passes.
    template<typename Queue>
    void WaitFor(const Queue& queue, TimeNs deadline)
    {
        while (queue.empty())
        {
            m_adapter.AdvanceTo(deadline, true);
            Collect();
            if (m_adapter.Now() >= deadline)
            {
                // Output stopping exactly at the deadline may leave later events of that instant.
                m_adapter.AdvanceTo(deadline, false);
                Collect();
                return;
            }
        }
    }

    void Post(const Step& step)
    {
        WorkRequest wr;
        wr.op = step.opcode == "WRITE"  ? Opcode::Write
                : step.opcode == "SEND" ? Opcode::Send
                                        : Opcode::Recv;
        for (const Term& t : step.terms)
        {
            const uint64_t v = Resolve(t);
            if (t.name == "stream")
            {
                wr.stream = static_cast<uint16_t>(v);
            }
            else if (t.name == "length")
            {
                wr.length = v;
            }
            else if (t.name == "localAddr")
            {
                wr.localAddr = v;
            }
            else if (t.name == "localKey")
            {
                wr.localKey = static_cast<uint32_t>(v);
            }
            else if (t.name == "remoteAddr")
            {
                wr.remoteAddr = v;
            }
            else if (t.name == "remoteKey")
            {
                wr.remoteKey = static_cast<uint32_t>(v);
            }
        }
        if (Refusal(step))
        {
            try
            {
                m_adapter.PostToRefuse(wr);
            }
            catch (const std::invalid_argument&)
            {
                return; // refused, as it should be
            }
            Diverge(step, step.text, "(taken)", "the DUT took a request it should refuse");
        }
        const uint64_t id = m_adapter.Post(wr);
        m_labels[id] = step.label;
    }

    /// True when `step` (a post) says refused=1: the DUT must refuse the request.
    bool Refusal(const Step& step) const
    {
        return std::any_of(step.terms.begin(), step.terms.end(), [&](const Term& t) {
            return t.name == "refused" && Resolve(t) != 0;
        });
    }

    WirePacket BuildInjection(const Step& step)
    {
        std::map<std::string, uint64_t> values;
        std::optional<std::bitset<kSackBits>> sack;
        BytePatches patches;
        for (const Term& t : step.terms)
        {
            if (t.name == "sack")
            {
                sack = ParseSack(t.value);
            }
            else if (t.name[0] == '@')
            {
                patches.emplace_back(ParseUnsigned(t.name.substr(1)),
                                     static_cast<uint8_t>(ParseUnsigned(t.value, 255)));
            }
            else
            {
                values[t.name] = Resolve(t);
            }
        }
        if (values.count("port") && values["port"] >= m_scenario.setup.Ports())
        {
            throw std::invalid_argument("the DUT has no port " + std::to_string(values["port"]));
        }
        return Build(m_scenario.setup, step.opcode, values, sack, patches, m_adapter.Now());
    }

    /// A value to use (injections, posts): a literal or a bound variable, optionally +/- N.
    uint64_t Resolve(const Term& t) const
    {
        if (t.value[0] != '$')
        {
            return ParseFieldValue(t.name, t.value);
        }
        const std::size_t op = t.value.find_first_of("+-");
        const std::string name = t.value.substr(1, op == std::string::npos ? op : op - 1);
        const auto it = m_vars.find(name);
        if (it == m_vars.end())
        {
            throw std::invalid_argument("$" + name + " is used before an expectation binds it");
        }
        if (op == std::string::npos)
        {
            return it->second;
        }
        const uint64_t delta = ParseUnsigned(t.value.substr(op + 1));
        return t.value[op] == '+' ? it->second + delta : it->second - delta;
    }

    /// Checks one term against an actual value; returns "" when it holds, else the problem.
    /// Unbound variables are bound in `bindings` (committed only if the whole line matches).
    std::string Check(const Term& t,
                      uint64_t actual,
                      std::map<std::string, uint64_t>& bindings,
                      const std::string& shown) const
    {
        if (t.value == "*")
        {
            return "";
        }
        bool ok = false;
        const std::size_t dots = t.value.find("..");
        if (t.value[0] == '$' && t.value.find_first_of("+-") == std::string::npos &&
            !m_vars.count(t.value.substr(1)))
        {
            if (t.negate)
            {
                throw std::invalid_argument(t.value + " is compared with != before it is bound");
            }
            bindings[t.value.substr(1)] = actual;
            return "";
        }
        if (t.value[0] == '$')
        {
            ok = Resolve(t) == actual;
        }
        else if (dots != std::string::npos)
        {
            const uint64_t lo = ParseFieldValue(t.name, t.value.substr(0, dots));
            const uint64_t hi = ParseFieldValue(t.name, t.value.substr(dots + 2));
            ok = lo <= actual && actual <= hi;
        }
        else
        {
            ok = ParseFieldValue(t.name, t.value) == actual;
        }
        if (ok != t.negate)
        {
            return "";
        }
        return t.name + (t.negate ? "!=" : "=") + t.value + " but got " + shown;
    }

    void ExpectPacket(const Step& step)
    {
        WaitFor(m_packets, step.time + step.tolerance);
        if (m_packets.empty())
        {
            Diverge(step,
                    step.text,
                    "nothing",
                    "no packet by " + FormatTime(step.time + step.tolerance));
        }
        const DecodedPacket& p = m_packets.front();
        std::vector<std::string> problems;
        if (p.time + step.tolerance < step.time)
        {
            problems.push_back("emitted at " + FormatTime(p.time) + ", earlier than " +
                               FormatTime(step.time) + " - " + FormatTime(step.tolerance));
        }
        if (!p.parseError.empty())
        {
            problems.push_back(p.parseError);
        }
        else if (p.opcode != step.opcode)
        {
            problems.push_back("opcode " + p.opcode);
        }
        std::map<std::string, uint64_t> bindings;
        if (problems.empty())
        {
            for (const Term& t : step.terms)
            {
                std::string problem;
                if (t.name == "sack")
                {
                    const bool same = p.sack && *p.sack == ParseSack(t.value);
                    if (t.value != "*" && same == t.negate)
                    {
                        problem = "sack" + std::string(t.negate ? "!=" : "=") + t.value +
                                  " but got " + (p.sack ? FormatSack(*p.sack) : "none");
                    }
                }
                else if (t.name[0] == '@')
                {
                    const uint64_t offset = ParseUnsigned(t.name.substr(1));
                    if (offset >= p.bytes.size())
                    {
                        problem = t.name + " is beyond the " + std::to_string(p.bytes.size()) +
                                  "-byte datagram";
                    }
                    else
                    {
                        problem = Check(t, p.bytes[offset], bindings, Hex(p.bytes[offset]));
                    }
                }
                else
                {
                    const uint64_t v = *p.Get(t.name);
                    problem = Check(t, v, bindings, std::to_string(v));
                }
                if (!problem.empty())
                {
                    problems.push_back(problem);
                }
            }
        }
        if (!problems.empty())
        {
            Diverge(step, step.text, Describe(p), Join(problems));
        }
        m_vars.insert(bindings.begin(), bindings.end());
        m_packets.pop_front();
        ++m_matched;
    }

    void ExpectCompletion(const Step& step)
    {
        WaitFor(m_completions, step.time + step.tolerance);
        if (m_completions.empty())
        {
            Diverge(step,
                    step.text,
                    "nothing",
                    "no completion by " + FormatTime(step.time + step.tolerance));
        }
        const Completion& c = m_completions.front();
        std::vector<std::string> problems;
        const auto label = m_labels.find(c.wrId);
        if (label == m_labels.end() || label->second != step.label)
        {
            problems.push_back("completion of " +
                               (label == m_labels.end() ? "an unknown request" : label->second));
        }
        if (c.time + step.tolerance < step.time || c.time > step.time + step.tolerance)
        {
            problems.push_back("completed at " + FormatTime(c.time));
        }
        std::map<std::string, uint64_t> bindings;
        for (const Term& t : step.terms)
        {
            std::string problem;
            if (t.name == "status" || t.name == "op")
            {
                const std::string actual =
                    t.name == "status" ? StatusName(c.status) : OpcodeName(c.op);
                if ((actual == t.value) == t.negate)
                {
                    problem = t.name + (t.negate ? "!=" : "=") + t.value + " but got " + actual;
                }
            }
            else
            {
                const uint64_t v = t.name == "stream" ? c.stream : c.bytes;
                problem = Check(t, v, bindings, std::to_string(v));
            }
            if (!problem.empty())
            {
                problems.push_back(problem);
            }
        }
        if (!problems.empty())
        {
            Diverge(step, step.text, Describe(c), Join(problems));
        }
        m_vars.insert(bindings.begin(), bindings.end());
        m_completions.pop_front();
    }

    void ExpectCounters(const Step& step)
    {
        const Counters counters = m_adapter.ReadCounters();
        std::vector<std::string> problems;
        std::ostringstream actual;
        std::map<std::string, uint64_t> bindings;
        for (const Term& t : step.terms)
        {
            const uint64_t v = *CounterValue(counters, t.name);
            actual << (actual.tellp() > 0 ? " " : "") << t.name << '=' << v;
            const std::string problem = Check(t, v, bindings, std::to_string(v));
            if (!problem.empty())
            {
                problems.push_back(problem);
            }
        }
        if (!problems.empty())
        {
            Diverge(step, step.text, "counters " + actual.str(), Join(problems));
        }
        m_vars.insert(bindings.begin(), bindings.end());
    }

    std::string Describe(const DecodedPacket& p) const
    {
        return FormatTime(p.time) + " " + p.ToString();
    }

    std::string Describe(const Completion& c) const
    {
        const auto label = m_labels.find(c.wrId);
        std::ostringstream os;
        os << FormatTime(c.time) << " completion "
           << (label == m_labels.end() ? "id " + std::to_string(c.wrId) : label->second)
           << " op=" << OpcodeName(c.op) << " stream=" << c.stream
           << " status=" << StatusName(c.status) << " bytes=" << c.bytes;
        return os.str();
    }

    static std::string Hex(uint64_t v)
    {
        std::ostringstream os;
        os << "0x" << std::hex << v;
        return os.str();
    }

    static std::string Join(const std::vector<std::string>& parts)
    {
        std::string out;
        for (const std::string& p : parts)
        {
            out += (out.empty() ? "" : "; ") + p;
        }
        return out;
    }

    [[noreturn]] static void Diverge(const Step& step,
                                     const std::string& expected,
                                     const std::string& actual,
                                     const std::string& reason)
    {
        throw DivergenceError{Divergence{step.line, expected, actual, reason}};
    }

    const Scenario& m_scenario;
    ComplianceAdapter& m_adapter;
    Transport m_transport;
    bool m_mcrc; ///< the DUT's packets end with an mCRC trailer (spec 4.1)
    std::deque<DecodedPacket> m_packets;
    std::deque<Completion> m_completions;
    std::map<std::string, uint64_t> m_vars;
    std::map<uint64_t, std::string> m_labels;
    std::size_t m_matched{0};
};

} // namespace

ScenarioResult
RunScenario(const Scenario& scenario, ComplianceAdapter& adapter)
{
    return Runner(scenario, adapter).Run();
}

} // namespace metaroce::compliance
