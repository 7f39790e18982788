/*
 * Parsing of the comma-separated command-line lists the metaroce examples share
 * ("--loss=0,0.01", "--transports=metaroce,rocev2"), with one validation and one error format.
 */
#ifndef METAROCE_OPTIONS_H
#define METAROCE_OPTIONS_H

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup metaroce
 * Splits `text` at commas. Aborts, naming `option`, when the list or an item is empty.
 */
std::vector<std::string> SplitOptionList(const std::string& option, const std::string& text);

/**
 * \ingroup metaroce
 * Parses a comma-separated list of probabilities in [0, 1). Aborts, naming `option` and the
 * offending item, on anything else.
 */
std::vector<double> ParseProbabilityList(const std::string& option, const std::string& text);

} // namespace ns3

#endif // METAROCE_OPTIONS_H
