/*
 * Strictly checked command-line options for the metaroce examples, on top of ns3::CommandLine.
 *
 * ns-3.37's CommandLine reads a typed option with operator>>: "--messageBytes=-1" becomes
 * 2^64-1 for an unsigned field, "--hosts=4x" becomes 4, and text it cannot read at all prints
 * the whole usage text. The options added here parse their text themselves (all of it, digits
 * only for unsigned fields, the range checked) and throw std::invalid_argument naming the
 * option, the value and what is allowed; ParseCommandLine() turns that into one line on stderr
 * and exit status 2 (doc/reliability.md, "Bad input").
 */
#ifndef METAROCE_COMMAND_LINE_H
#define METAROCE_COMMAND_LINE_H

#include "ns3/command-line.h"
#include "ns3/metaroce-ns3-compat.h"
#include "ns3/transport-engine.h"

#include <cstdint>
#include <limits>
#include <string>

namespace ns3
{

/**
 * \ingroup metaroce
 * Parses all of `text` as a decimal integer in [min, max] (no sign for min >= 0, no trailing
 * text); throws std::invalid_argument "--<option>: '<text>' is not an integer in [min, max]".
 */
int64_t ParseIntegerOption(const std::string& option,
                           const std::string& text,
                           int64_t min,
                           uint64_t max);

/**
 * \ingroup metaroce
 * Parses all of `text` as a real number in [min, max] (finite); throws like ParseIntegerOption.
 */
double ParseRealOption(const std::string& option, const std::string& text, double min, double max);

/**
 * \ingroup metaroce
 * Parses "true", "false", "1" or "0" (what ns-3 prints for a bool); throws otherwise.
 */
bool ParseBoolOption(const std::string& option, const std::string& text);

/**
 * \ingroup metaroce
 * Parses an engine transport name, "metaroce" or "rocev2" (metaroce::ParseTransport); throws
 * std::invalid_argument naming the option otherwise.
 */
metaroce::Transport ParseTransportOption(const std::string& option, const std::string& text);

/**
 * \ingroup metaroce
 * Records that `cmd` has an option `name` (every Add*Option does), for ParseCommandLine().
 */
void RegisterOption(CommandLine& cmd, const std::string& name);

/**
 * \ingroup metaroce
 * Records that the program sets ns-3's global value `global` itself from its option `option`
 * (RngSeed from --seed): ParseCommandLine() refuses --<global>, which would change nothing.
 */
void RegisterOwnGlobal(CommandLine& cmd, const std::string& global, const std::string& option);

/**
 * \ingroup metaroce
 * Adds "--name" for an integer field, checked by ParseIntegerOption() against [min, max]
 * (default: the field type's range).
 */
template<typename T>
void
AddIntegerOption(CommandLine& cmd,
                 const std::string& name,
                 const std::string& help,
                 T& value,
                 int64_t min = static_cast<int64_t>(std::numeric_limits<T>::min()),
                 uint64_t max = static_cast<uint64_t>(std::numeric_limits<T>::max()))
{
    RegisterOption(cmd, name);
    cmd.AddValue(name,
                 help,
                 MetaRoceOptionCallback([&value, name, min, max](std::string text) {
                     value = static_cast<T>(ParseIntegerOption(name, text, min, max));
                     return true;
                 }),
                 std::to_string(value));
}

/**
 * \ingroup metaroce
 * Adds "--name" for a real-valued field checked against [min, max].
 */
void AddRealOption(CommandLine& cmd,
                   const std::string& name,
                   const std::string& help,
                   double& value,
                   double min,
                   double max);

/**
 * \ingroup metaroce
 * Adds "--name" for a bool field (ParseBoolOption(); a bare "--name" means true).
 */
void AddBoolOption(CommandLine& cmd, const std::string& name, const std::string& help, bool& value);

/**
 * \ingroup metaroce
 * Adds "--name" for a string field that takes the whole text: ns-3's own string option stops
 * at the first white space ("--nicAttributes=RtoMin=5 us" would silently become "RtoMin=5").
 */
void AddStringOption(CommandLine& cmd,
                     const std::string& name,
                     const std::string& help,
                     std::string& value);

/**
 * \ingroup metaroce
 * Checks every argument (see the file comment), then runs cmd.Parse(). Returns true when the
 * program should go on; false after printing "<program>: <message>" for an argument refused
 * (the caller exits with 2). Without `ns3Objects` (a program that builds no ns-3 object),
 * attribute defaults and global values are refused: they would change nothing.
 */
bool ParseCommandLine(CommandLine& cmd,
                      int argc,
                      char* argv[],
                      const std::string& program,
                      bool ns3Objects = true);

} // namespace ns3

#endif // METAROCE_COMMAND_LINE_H
