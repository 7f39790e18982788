"""C++ errors as Python exceptions.

Two kinds of C++ failure reach Python:

* C++ exceptions (the experiment API throws ``std::invalid_argument`` naming the bad field).
  cppyy already raises them as Python exceptions; ``cpp_errors()`` turns the standard ones into
  ``InvalidParameter`` / ``MetaRoceError`` carrying exactly ``what()``.
* ns-3's ``NS_ABORT_MSG``, ``NS_FATAL_ERROR`` and ``NS_ASSERT``, which print a message to
  ``std::cerr`` and call ``std::terminate()``: the process would die. Inside ``cpp_errors()``
  cppyy turns the resulting SIGABRT (and SIGSEGV, SIGBUS, SIGILL) into a Python exception by
  jumping back out of the C++ call, and std::cerr is captured meanwhile, so the exception is a
  ``FatalError`` with ns-3's own message. The jump skips C++ destructors: objects the failed
  call was building are leaked or half-built, so treat the simulation as lost (build a new one
  after ``reset()``); the Python process itself stays usable.
"""

import contextlib
import re
import sys

from ._loader import loader


class MetaRoceError(RuntimeError):
    """An error reported by the C++ side; str() is its message."""


class InvalidParameter(MetaRoceError, ValueError):
    """A parameter the C++ side (or ns-3's attribute system) rejected."""


class ConfigError(InvalidParameter):
    """A bad experiment configuration (metaroce.experiment): a field's value or type, an unknown
    field, a rule across fields, or an option the run would not use - raised before anything
    runs, the simulator untouched.

    ``field`` is the field it names, in snake case as the results' JSON names it
    (``hosts_per_leaf``), or the argument of ``grid()``/``sweep()`` (``processes``); None when the
    message names none. The message is the one a C++ example prints for the same value.
    """

    def __init__(self, message, field=None):
        super().__init__(message)
        self.field = field


class FatalError(MetaRoceError):
    """ns-3 aborted (NS_ABORT_MSG, NS_FATAL_ERROR, NS_ASSERT) or C++ crashed.

    Attributes: ``message`` (ns-3's msg=), ``condition`` (cond=, if any), ``file``, ``line``,
    ``output`` (everything the call wrote to std::cerr).
    """

    def __init__(self, message, condition=None, file=None, line=None, output=""):
        super().__init__(message)
        self.message = message
        self.condition = condition
        self.file = file
        self.line = line
        self.output = output


def _parse_ns3_report(output, fallback):
    """FatalError from what NS_FATAL_ERROR_IMPL printed:
    [aborted. |assert failed. ][cond="...", ]msg="...", file=..., line=N (msg may hold quotes)."""
    # With NS_LOG prefixes enabled, ns-3 puts "+<time>s <node> " before file=.
    prefix = r"(?:[+-]?[\d.]+s )?(?:-?\d+ )?"
    msg = re.search(r'msg="(.*?)", ' + prefix + "file=", output, re.S)
    cond = re.search(r'cond="(.*?)", (?:msg=|' + prefix + "file=)", output, re.S)
    where = re.search(r"file=(\S+), line=(\d+)", output)
    message = msg.group(1) if msg else (output.strip() or fallback)
    return FatalError(message,
                      condition=cond.group(1) if cond else None,
                      file=where.group(1) if where else None,
                      line=int(where.group(2)) if where else None,
                      output=output)


def _what(exc):
    try:
        return str(exc.what())
    except Exception:  # not a std::exception instance: keep cppyy's text
        return str(exc)


@contextlib.contextmanager
def cpp_errors():
    """Runs the body with C++ aborts and exceptions turned into MetaRoceError subclasses."""
    cppyy = loader.cppyy
    std = cppyy.gbl.std
    capture = cppyy.gbl.metaroce_python.ErrorCapture
    capture.Start()
    try:
        with cppyy.ll.signals_as_exception():
            yield
    except (cppyy.ll.AbortSignal, cppyy.ll.SegmentationViolation, cppyy.ll.BusError,
            cppyy.ll.IllegalInstruction) as e:
        raise _parse_ns3_report(str(capture.Take()), f"C++ failed: {type(e).__name__}") from None
    except std.invalid_argument as e:
        raise InvalidParameter(_what(e)) from None
    except std.exception as e:
        raise MetaRoceError(_what(e)) from None
    finally:
        capture.Stop()
        if capture.Depth() == 0:
            # What C++ wrote to std::cerr without failing (warnings, NS_LOG output) still shows.
            sys.stderr.write(str(capture.Take()))
