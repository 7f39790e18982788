/*
 * The ns-3 API differences between the releases the module builds against (3.37, 3.43, 3.44),
 * in one place. Each entry names the release that changed the API; the module calls the entry
 * instead of the changed function.
 *
 * A release is recognised by the deprecation macros of ns3/deprecated.h: every release defines
 * NS_DEPRECATED_3_<release> for itself and the few before it, so ns-3.37 defines none of
 * NS_DEPRECATED_3_42 ... NS_DEPRECATED_3_44 and the releases from 3.42 on define at least one.
 * (ns3/version-defines.h cannot tell: a source tree generates it only when configured with
 * --enable-build-version, and Debian's ns-3.37 does not install it.)
 */
#ifndef METAROCE_NS3_COMPAT_H
#define METAROCE_NS3_COMPAT_H

#include "ns3/attribute-accessor-helper.h"
#include "ns3/callback.h"
#include "ns3/deprecated.h"
#include "ns3/enum.h"
#include "ns3/event-id.h"
#include "ns3/test.h"

#include <string>

#if defined(NS_DEPRECATED_3_42) || defined(NS_DEPRECATED_3_43) || defined(NS_DEPRECATED_3_44)
/// Defined when building against ns-3.42 or later.
#    define METAROCE_NS3_SINCE_3_42 1
#endif

namespace ns3
{

/**
 * \ingroup metaroce
 * Whether \p event is scheduled and has neither run nor been cancelled: EventId::IsRunning()
 * up to ns-3.41, EventId::IsPending() from ns-3.42 (which deprecated IsRunning()).
 * \param event the event
 * \return true while the event is pending
 */
inline bool
MetaRoceIsPending(const EventId& event)
{
#ifdef METAROCE_NS3_SINCE_3_42
    return event.IsPending();
#else
    return event.IsRunning();
#endif
}

/**
 * \ingroup metaroce
 * The accessor of an enum attribute whose value the class stores as an int, through a setter
 * and a getter. In ns-3.43 and 3.44 EnumValue is a template over the stored type
 * (MakeEnumAccessor<int>); ns-3.37's EnumValue always holds an int (MakeEnumAccessor). Either
 * way the attribute's value is the int, its checker MakeEnumChecker(int, "name", ...). (The
 * switch is at 3.42 with IsPending(); releases 3.38 to 3.41 are not built.)
 * \param setter the class's setter, void (C::*)(int)
 * \param getter the class's getter, int (C::*)() const
 * \return the accessor
 */
template<typename Setter, typename Getter>
Ptr<const AttributeAccessor>
MetaRoceMakeIntEnumAccessor(Setter setter, Getter getter)
{
#ifdef METAROCE_NS3_SINCE_3_42
    return MakeEnumAccessor<int>(setter, getter);
#else
    return MakeEnumAccessor(setter, getter);
#endif
}

/**
 * \ingroup metaroce
 * The callback CommandLine::AddValue takes for an option parsed by the caller:
 * Callback<bool, std::string> in ns-3.37, Callback<bool, const std::string&> in 3.43 and 3.44.
 */
#ifdef METAROCE_NS3_SINCE_3_42
using MetaRoceOptionCallback = Callback<bool, const std::string&>;
#else
using MetaRoceOptionCallback = Callback<bool, std::string>;
#endif

/**
 * \ingroup metaroce
 * A test case's duration (QUICK, EXTENSIVE, TAKES_FOREVER), as MetaRoceTestDuration::QUICK:
 * the enum TestCase::TestDuration in ns-3.37, the enum class TestCase::Duration from ns-3.42
 * (which deprecated TestDuration and TestCase::QUICK). A suite's type is
 * TestSuite::Type::UNIT in both.
 */
#ifdef METAROCE_NS3_SINCE_3_42
using MetaRoceTestDuration = TestCase::Duration;
#else
using MetaRoceTestDuration = TestCase::TestDuration;
#endif

} // namespace ns3

#endif // METAROCE_NS3_COMPAT_H
