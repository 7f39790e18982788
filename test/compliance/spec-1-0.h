/*
 * MetaRoCE 1.0's visible contents and the compliance suite's coverage of them.
 *
 * Of the released specification ("Meta-RoCE Protocol for AI Accelerators, Version 1.0") only
 * the table of contents is known, up to section 4.6; doc/spec.md opens with the mapping of each
 * of its sections to ours. Every scenario names the 1.0 sections it checks:
 *
 *   spec-1.0 4.6 4.4             one or more numbered sections of 1.0's visible contents
 *   spec-1.0 none (ours 9.2)     1.0's visible contents have no section for it: ours instead
 *
 * A chapter (1 to 4) is not a tag: its sections are. Nothing beyond 4.6 is visible, so a
 * behaviour that 1.0 may describe later (paths, congestion control, ...) is `none (ours ...)`.
 */
#ifndef METAROCE_COMPLIANCE_SPEC_1_0_H
#define METAROCE_COMPLIANCE_SPEC_1_0_H

#include <ostream>
#include <string>
#include <vector>

namespace metaroce::compliance
{

struct Scenario;

/// A heading of 1.0's visible contents, as titled there.
struct Spec10Section
{
    std::string number; ///< "4.6"; a chapter is "4"
    std::string title;
    bool chapter{false};
};

/// 1.0's visible contents in order: chapters 1-4 and sections 1.1 to 4.6.
const std::vector<Spec10Section>& Spec10Sections();

/// What a `spec-1.0` directive names: sections, or (none) our own sections.
struct Spec10Tag
{
    std::vector<std::string> sections; ///< empty for `none (ours ...)`
    std::string ours;                  ///< with `none`: what the parentheses hold
};

/// Parses the text after `spec-1.0`; throws std::invalid_argument with a one-line reason.
Spec10Tag ParseSpec10Tag(const std::string& text);

/// The tag as written back: "4.6 4.4" or "none (ours 9.2)".
std::string FormatSpec10Tag(const Spec10Tag& tag);

/**
 * Prints the scenarios per 1.0 section: every section of the contents with its count and
 * names (a scenario naming two sections counts under both), then those tagged `none` with
 * their own sections, then the sections no scenario names.
 */
void PrintSpec10Coverage(std::ostream& os, const std::vector<Scenario>& scenarios);

} // namespace metaroce::compliance

#endif // METAROCE_COMPLIANCE_SPEC_1_0_H
