/*
 * Parsing of the literal values scenarios are written with: unsigned integers (decimal or 0x
 * hex), times with a unit (250ns, 1.5us, 2ms, 1s), booleans. Every function throws
 * std::invalid_argument with a message naming the offending text.
 */
#ifndef METAROCE_COMPLIANCE_TEXT_VALUES_H
#define METAROCE_COMPLIANCE_TEXT_VALUES_H

#include "engine-types.h"

#include <cstdint>
#include <string>

namespace metaroce::compliance
{

/// "4096", "0x1000"; at most `max`.
uint64_t ParseUnsigned(const std::string& text, uint64_t max = UINT64_MAX);

/// "250ns", "1.5us", "2ms", "1s"; a bare number is nanoseconds. Exact to the nanosecond.
TimeNs ParseTime(const std::string& text);

/// "true"/"false"/"1"/"0".
bool ParseBool(const std::string& text);

/// A time for messages: "1.5us" style, exact.
std::string FormatTime(TimeNs t);

} // namespace metaroce::compliance

#endif // METAROCE_COMPLIANCE_TEXT_VALUES_H
