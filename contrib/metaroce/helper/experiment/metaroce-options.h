/*
 * Parsing of the command-line values the metaroce examples and experiments share
 * ("--loss=0,0.01", "--transports=metaroce,rocev2", "--hostDelay=1us", "--hostRate=100Gbps"),
 * with one validation and one error format. Every function throws std::invalid_argument whose
 * message names the option and the offending text, so a C++ main() or a Python caller reports
 * it instead of aborting.
 */
#ifndef METAROCE_OPTIONS_H
#define METAROCE_OPTIONS_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup metaroce
 * Splits `text` at commas. Throws, naming `option`, when the list or an item is empty.
 */
std::vector<std::string> SplitOptionList(const std::string& option, const std::string& text);

/**
 * \ingroup metaroce
 * Parses a comma-separated list of probabilities in [0, 1).
 */
std::vector<double> ParseProbabilityList(const std::string& option, const std::string& text);

/**
 * \ingroup metaroce
 * Parses a distributed run's partition: "leaf" (an empty list: MetaRoceFabricPartition::ByLeaf)
 * or one rank per host, comma-separated ("0,0,1,1"); throws, naming `option`, on an item that
 * is not a rank number or a list whose length is not `hosts`.
 */
std::vector<uint32_t> ParseHostRanks(const std::string& option,
                                     const std::string& text,
                                     uint32_t hosts);

/**
 * \ingroup metaroce
 * Parses a time such as "1us", "2.5ms" or "0" (seconds) - the units ns-3's Time accepts.
 * Negative times are refused.
 */
Time ParseTimeOption(const std::string& option, const std::string& text);

/**
 * \ingroup metaroce
 * Parses a positive data rate such as "100Gbps" or "400Gb/s".
 */
DataRate ParseRateOption(const std::string& option, const std::string& text);

/**
 * \ingroup metaroce
 * Checks a prefix of files to write ("--pcap=out/run", "--output=out/run"): empty (nothing
 * written) or a prefix whose directory (the current one for a bare name) exists and is
 * writable, so that a bad path is refused before the simulation starts instead of failing when
 * the first file is opened.
 */
void ValidateOutputPrefix(const std::string& option, const std::string& prefix);

/**
 * \ingroup metaroce
 * Checks the path of one file to write ("--output=sweep.csv"): as ValidateOutputPrefix(), and
 * not an existing directory.
 */
void ValidateOutputFile(const std::string& option, const std::string& path);

/**
 * \ingroup metaroce
 * Checks that `files` files (captures, which ns-3's PcapHelper keeps open and aborts on when
 * one cannot be opened) fit in what the process may open (RLIMIT_NOFILE, less a margin for its
 * other files).
 */
void ValidateOpenFiles(const std::string& option, double files);

/**
 * \ingroup metaroce
 * Parses an ns-3 scheduler type name ("ns3::PriorityQueueScheduler"): it must name a subclass
 * of ns3::Scheduler. Returns the factory for Simulator::SetScheduler().
 */
ObjectFactory ParseSchedulerOption(const std::string& option, const std::string& text);

/**
 * \ingroup metaroce
 * Checks `value` for an attribute (or global value) whose checker is `checker`, named `what`
 * in the message ("ns3::MetaRoceNic::Mtu"): text ns-3's parsers would abort on is refused
 * before they see it, then the checker's own verdict. Throws naming `option`.
 */
void CheckAttributeValue(const std::string& option,
                         const AttributeChecker& checker,
                         const std::string& value,
                         const std::string& what);

/// Attribute settings as (name, value) pairs, in the order written.
using MetaRoceAttributeList = std::vector<std::pair<std::string, std::string>>;

/**
 * \ingroup metaroce
 * Parses "Name=Value;Name=Value" and checks each against the attributes of `typeName`
 * ("ns3::MetaRoceNic"): the name must exist and the value be valid for it.
 */
MetaRoceAttributeList ParseAttributeOption(const std::string& option,
                                           const std::string& text,
                                           const std::string& typeName);

} // namespace ns3

#endif // METAROCE_OPTIONS_H
