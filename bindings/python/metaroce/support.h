/*
 * C++ side of the Python bindings, parsed by cppyy (never compiled into a library): the few
 * things cppyy cannot express directly.
 *
 * - ns3::Callback from a Python callable: cppyy converts a Python callable to std::function,
 *   and ns-3.37's Callback is constructible from any functor.
 * - Simulator::Schedule of a Python callable (the C++ overloads are variadic templates).
 * - Conversions cppyy leaves out: InetSocketAddress to Address, a Time parsed from text.
 * - Capture of std::cerr around a call, so the message NS_ABORT_MSG/NS_FATAL_ERROR prints
 *   before std::terminate() can be put into the Python exception (see errors.py), and a quiet
 *   terminate handler meanwhile (libstdc++'s default one prints to stderr on its own).
 */
#ifndef METAROCE_PYTHON_SUPPORT_H
#define METAROCE_PYTHON_SUPPORT_H

#include "ns3/address.h"
#include "ns3/callback.h"
#include "ns3/inet-socket-address.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"

#include <cstdlib>
#include <exception>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>

namespace metaroce_python
{

/// An ns3::Callback that calls `f` (a Python callable, converted by cppyy).
template<typename R, typename... Args>
ns3::Callback<R, Args...>
MakeCallback(std::function<R(Args...)> f)
{
    return ns3::Callback<R, Args...>(f);
}

/// Schedules `f` after `delay` of simulated time.
inline ns3::EventId
Schedule(ns3::Time delay, std::function<void()> f)
{
    return ns3::Simulator::Schedule(delay, [f]() { f(); });
}

/// Time from text with a unit ("10us"); one overload, so cppyy does not try the others after
/// ns-3 aborts on malformed text.
inline ns3::Time
ParseTime(const std::string& text)
{
    return ns3::Time(text);
}

/// An Address from a socket address (cppyy does not apply the conversion operator itself).
inline ns3::Address
ToAddress(const ns3::InetSocketAddress& address)
{
    return address;
}

/// Redirects std::cerr and std::clog into a buffer while a guarded call runs.
class ErrorCapture
{
  public:
    /// Starts capturing (a capture already running is kept: guarded calls may nest).
    static void Start()
    {
        State& s = Get();
        if (s.depth++ == 0)
        {
            s.buffer.str("");
            s.saved = std::cerr.rdbuf(s.buffer.rdbuf());
            s.savedLog = std::clog.rdbuf(s.buffer.rdbuf()); // ns-3's time/node prefixes
            s.savedHandler = std::set_terminate(&QuietTerminate);
        }
    }

    /// Ends one capture; the outermost restores std::cerr and the terminate handler.
    static void Stop()
    {
        State& s = Get();
        if (s.depth > 0 && --s.depth == 0)
        {
            std::cerr.rdbuf(s.saved);
            std::clog.rdbuf(s.savedLog);
            std::set_terminate(s.savedHandler);
        }
    }

    /// What was captured since the last Take(), and empties the buffer.
    static std::string Take()
    {
        State& s = Get();
        std::string text = s.buffer.str();
        s.buffer.str("");
        return text;
    }

    /// Captures running (nested guarded calls).
    static int Depth()
    {
        return Get().depth;
    }

  private:
    struct State
    {
        std::ostringstream buffer;
        std::streambuf* saved{nullptr};
        std::streambuf* savedLog{nullptr};
        std::terminate_handler savedHandler{nullptr};
        int depth{0};
    };

    static State& Get()
    {
        static State state;
        return state;
    }

    [[noreturn]] static void QuietTerminate()
    {
        std::abort();
    }
};

} // namespace metaroce_python

#endif // METAROCE_PYTHON_SUPPORT_H
