#include "compliance-report.h"

#include <iomanip>
#include <sstream>

namespace metaroce::compliance
{

namespace
{

std::string
JsonString(const std::string& s)
{
    std::ostringstream os;
    os << '"';
    for (unsigned char c : s)
    {
        if (c == '"' || c == '\\')
        {
            os << '\\' << c;
        }
        else if (c < 0x20)
        {
            os << "\\u" << std::hex << std::setw(4) << std::setfill('0') << int{c} << std::dec;
        }
        else
        {
            os << c;
        }
    }
    os << '"';
    return os.str();
}

} // namespace

void
PrintResult(std::ostream& os, const ScenarioResult& r)
{
    os << (r.passed ? "PASS " : "FAIL ") << r.name << " (spec " << r.spec << ", "
       << r.packetsMatched << " packets)\n";
    if (r.divergence)
    {
        const Divergence& d = *r.divergence;
        os << "  first divergence at line " << d.line << ":\n"
           << "    expected: " << d.expected << "\n"
           << "    actual:   " << d.actual << "\n"
           << "    why:      " << d.reason << "\n";
    }
}

void
WriteJson(std::ostream& os, const std::string& adapter, const std::vector<ScenarioResult>& rs)
{
    std::size_t passed = 0;
    for (const ScenarioResult& r : rs)
    {
        passed += r.passed;
    }
    os << "{\n  \"adapter\": " << JsonString(adapter) << ",\n  \"passed\": " << passed
       << ",\n  \"failed\": " << rs.size() - passed << ",\n  \"scenarios\": [";
    for (std::size_t i = 0; i < rs.size(); ++i)
    {
        const ScenarioResult& r = rs[i];
        os << (i ? "," : "") << "\n    {\"name\": " << JsonString(r.name)
           << ", \"spec\": " << JsonString(r.spec) << ", \"spec-1.0\": " << JsonString(r.spec10)
           << ", \"title\": " << JsonString(r.title)
           << ", \"result\": " << (r.passed ? "\"pass\"" : "\"fail\"")
           << ", \"packets\": " << r.packetsMatched;
        if (r.divergence)
        {
            const Divergence& d = *r.divergence;
            os << ", \"divergence\": {\"line\": " << d.line
               << ", \"expected\": " << JsonString(d.expected)
               << ", \"actual\": " << JsonString(d.actual)
               << ", \"reason\": " << JsonString(d.reason) << "}";
        }
        os << "}";
    }
    os << "\n  ]\n}\n";
}

} // namespace metaroce::compliance
