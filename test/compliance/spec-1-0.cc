#include "spec-1-0.h"

#include "scenario.h"

#include <algorithm>
#include <cctype>
#include <iomanip>
#include <sstream>
#include <stdexcept>

namespace metaroce::compliance
{

namespace
{

/// The words of `text`, split at spaces.
std::vector<std::string>
Words(const std::string& text)
{
    std::istringstream is(text);
    std::vector<std::string> out;
    for (std::string word; is >> word;)
    {
        out.push_back(word);
    }
    return out;
}

const Spec10Section*
FindSection(const std::string& number)
{
    for (const Spec10Section& s : Spec10Sections())
    {
        if (s.number == number)
        {
            return &s;
        }
    }
    return nullptr;
}

/// One of our sections or assumptions, as doc/spec.md numbers them: "7.2", "9", "A14", "F4".
bool
IsOurReference(const std::string& word)
{
    std::size_t i = (word[0] == 'A' || word[0] == 'F') ? 1 : 0;
    if (i == word.size())
    {
        return false;
    }
    bool digit = false;
    for (; i < word.size(); ++i)
    {
        const unsigned char c = static_cast<unsigned char>(word[i]);
        if (std::isdigit(c))
        {
            digit = true;
        }
        else if (c != '.' || !digit || word[0] == 'A' || word[0] == 'F')
        {
            return false;
        }
        else
        {
            digit = false; // a dot must be followed by a digit
        }
    }
    return digit;
}

const char* const kVisible = "its visible contents: 1.1-1.6, 2.1-2.5, 3.1-3.4, 4.1-4.6";
const char* const kNoneForm = "'none (ours 9.2)'";

Spec10Tag
ParseNone(const std::string& text)
{
    // "none (ours X Y)": what follows "none", without the parentheses and the word "ours".
    std::string rest = text.substr(text.find("none") + 4);
    rest.erase(0, rest.find_first_not_of(' '));
    rest.erase(rest.find_last_not_of(' ') + 1);
    const std::string open = "(ours ";
    if (rest.compare(0, open.size(), open) != 0 || rest.back() != ')')
    {
        throw std::invalid_argument(std::string("spec-1.0 none names our own sections in "
                                                "parentheses, as in ") +
                                    kNoneForm);
    }
    Spec10Tag tag;
    const std::vector<std::string> ours = Words(rest.substr(open.size(), rest.size() - 7));
    if (ours.empty())
    {
        throw std::invalid_argument(std::string("spec-1.0 none names no section of ours, as in ") +
                                    kNoneForm);
    }
    for (const std::string& w : ours)
    {
        if (!IsOurReference(w))
        {
            throw std::invalid_argument("spec-1.0 none: '" + w +
                                        "' is not a section (7.2) or assumption (A14) of "
                                        "doc/spec.md");
        }
        tag.ours += (tag.ours.empty() ? "" : " ") + w;
    }
    return tag;
}

} // namespace

const std::vector<Spec10Section>&
Spec10Sections()
{
    static const std::vector<Spec10Section> sections = {
        {"1", "Introduction", true},
        {"1.1", "Motivation"},
        {"1.2", "Fabric Features"},
        {"1.3", "Design Overview"},
        {"1.4", "Congestion Control and Loss Recovery"},
        {"1.5", "Supported Operations"},
        {"1.6", "Document Organization"},
        {"2", "Sequence Numbers", true},
        {"2.1", "Overview"},
        {"2.2", "Message Sequence Number"},
        {"2.3", "Packet Offset Sequence Number"},
        {"2.4", "Completion Sequence Number"},
        {"2.5", "Flow Sequence Number"},
        {"3", "Ordering", true},
        {"3.1", "Terminology"},
        {"3.2", "Supported Message Sequences"},
        {"3.3", "Completion Ordering Modes"},
        {"3.4", "In-Protocol Message Sequencing"},
        {"4", "Reliable Delivery", true},
        {"4.1", "Bit Error Detection (mCRC)"},
        {"4.2", "Acknowledgment Generation"},
        {"4.3", "Acknowledgment contents: Additional"},
        {"4.4", "Packet Trackers"},
        {"4.5", "Packet loss detection by per-flow timeout"},
        {"4.6", "Packet Loss Detection by Out of Order Receipt / SACK"},
    };
    return sections;
}

Spec10Tag
ParseSpec10Tag(const std::string& text)
{
    const std::vector<std::string> words = Words(text);
    if (words.empty())
    {
        throw std::invalid_argument(std::string("spec-1.0 names the MetaRoCE 1.0 sections the "
                                                "scenario checks ('spec-1.0 4.6'), or ") +
                                    kNoneForm + " where 1.0 has none");
    }
    if (words[0] == "none")
    {
        return ParseNone(text);
    }
    Spec10Tag tag;
    for (const std::string& w : words)
    {
        const Spec10Section* s = FindSection(w);
        if (w == "none")
        {
            throw std::invalid_argument("spec-1.0: 'none' stands alone, as in " +
                                        std::string(kNoneForm));
        }
        if (s == nullptr)
        {
            throw std::invalid_argument("unknown MetaRoCE 1.0 section '" + w + "' (" + kVisible +
                                        "; " + kNoneForm + " where it has none)");
        }
        if (s->chapter)
        {
            throw std::invalid_argument("spec-1.0 " + w + " is a chapter (" + s->title +
                                        "): name its sections (" + kVisible + ")");
        }
        if (std::find(tag.sections.begin(), tag.sections.end(), w) != tag.sections.end())
        {
            throw std::invalid_argument("spec-1.0 names section " + w + " twice");
        }
        tag.sections.push_back(w);
    }
    return tag;
}

std::string
FormatSpec10Tag(const Spec10Tag& tag)
{
    if (tag.sections.empty())
    {
        return "none (ours " + tag.ours + ")";
    }
    std::string out;
    for (const std::string& s : tag.sections)
    {
        out += (out.empty() ? "" : " ") + s;
    }
    return out;
}

void
PrintSpec10Coverage(std::ostream& os, const std::vector<Scenario>& scenarios)
{
    os << "MetaRoCE 1.0 coverage: " << scenarios.size()
       << " scenarios by the sections of 1.0's visible contents they name (spec-1.0)\n";
    std::vector<std::string> empty;
    std::size_t sections = 0;
    for (const Spec10Section& s : Spec10Sections())
    {
        if (s.chapter)
        {
            os << s.number << "  " << s.title << "\n";
            continue;
        }
        ++sections;
        std::vector<std::string> names;
        for (const Scenario& sc : scenarios)
        {
            const std::vector<std::string>& tags = sc.spec10.sections;
            if (std::find(tags.begin(), tags.end(), s.number) != tags.end())
            {
                names.push_back(sc.name);
            }
        }
        os << "  " << std::left << std::setw(5) << s.number << std::setw(54) << s.title
           << std::right << std::setw(3) << names.size() << "\n";
        for (const std::string& n : names)
        {
            os << "        " << n << "\n";
        }
        if (names.empty())
        {
            empty.push_back(s.number);
        }
    }
    std::size_t none = 0;
    for (const Scenario& sc : scenarios)
    {
        none += sc.spec10.sections.empty();
    }
    os << "none  (no section of 1.0's visible contents: ours)" << std::setw(14) << none << "\n";
    for (const Scenario& sc : scenarios)
    {
        if (sc.spec10.sections.empty())
        {
            os << "        " << sc.name << " (ours " << sc.spec10.ours << ")\n";
        }
    }
    os << "named a 1.0 section: " << scenarios.size() - none << "; none: " << none << "\n";
    os << "sections of 1.0 no scenario names (" << empty.size() << " of " << sections << "):";
    for (const std::string& n : empty)
    {
        os << " " << n;
    }
    os << "\n";
}

} // namespace metaroce::compliance
