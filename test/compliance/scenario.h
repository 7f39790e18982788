/*
 * A compliance scenario: a small text script in the spirit of packetdrill (doc/compliance.md has
 * the full grammar). Directives set the DUT up; timed lines inject packets, post work requests,
 * change port state, and state what the DUT must emit, complete and count:
 *
 *   spec 4.6 7.3                                   # sections of doc/spec.md the scenario checks
 *   spec-1.0 4.6                                   # ... and of MetaRoCE 1.0 (spec-1-0.h)
 *   transport metaroce
 *   config flowsPerPort=1 initialFlowWindowPackets=8
 *   0us        post WRITE w1 stream=0 length=16384
 *   0us        expect WRITE fsn=0 offset=0 flags=FIRST sport=$e
 *   +335ns+-2ns expect WRITE fsn=1 offset=4096 flags=0 sport=$e
 *   10us       inject ACK cumulativeFsn=0 sack={0,1,2}
 *   10us       expect WRITE fsn=4 offset=0 flags=FIRST|RETX|ACKREQ
 *   20us       expect counters fastRetransmits=1 drops.BadField=0
 *
 * Values: numbers, names (flags, statuses), `*` (anything), `$var` (bound by the first
 * expectation that sees it, compared afterwards; `$var+N` in injections), `a..b` (a range),
 * `!=` for "anything but". Times: absolute (10us) or relative to the previous line (+335ns),
 * with an optional tolerance (+-2us) on expectations.
 */
#ifndef METAROCE_COMPLIANCE_SCENARIO_H
#define METAROCE_COMPLIANCE_SCENARIO_H

#include "dut-setup.h"
#include "spec-1-0.h"

#include <string>
#include <vector>

namespace metaroce::compliance
{

/// One `name=value` or `name!=value` term of a line, kept as text until run time (values may
/// name variables bound by earlier expectations).
struct Term
{
    std::string name;
    std::string value;
    bool negate{false};
};

/// One timed line.
struct Step
{
    enum class Kind
    {
        Post,             ///< post <WRITE|SEND|RECV> <label> terms
        Inject,           ///< inject <OPCODE> terms
        PortState,        ///< port <n> <up|down>
        ExpectPacket,     ///< expect <OPCODE> terms
        ExpectCompletion, ///< expect completion <label> terms
        ExpectCounters,   ///< expect counters terms
        ExpectNothing,    ///< expect nothing
    };

    Kind kind{Kind::Inject};
    int line{0};
    std::string text; ///< the line as written, for reports
    TimeNs time{0};
    TimeNs tolerance{0};
    std::string opcode; ///< packet opcode, or WRITE/SEND/RECV for Post
    std::string label;  ///< work request label (Post, ExpectCompletion)
    std::vector<Term> terms;
    uint16_t port{0}; ///< PortState
    bool up{true};    ///< PortState
};

/// A parsed scenario file.
struct Scenario
{
    std::string path;
    std::string name;  ///< file name without .mrs
    std::string spec;  ///< sections cited by the `spec` directive
    Spec10Tag spec10;  ///< MetaRoCE 1.0 sections named by the `spec-1.0` directive
    std::string title; ///< the first comment line
    DutSetup setup;
    std::vector<Step> steps;
};

/// Parses a scenario file; throws std::invalid_argument as "path:line: problem".
Scenario ParseScenarioFile(const std::string& path);

/// Parses scenario text (`path` only names it in errors).
Scenario ParseScenario(const std::string& text, const std::string& path);

} // namespace metaroce::compliance

#endif // METAROCE_COMPLIANCE_SCENARIO_H
