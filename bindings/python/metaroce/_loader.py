"""Loads ns-3 and the metaroce module into cppyy, the way ns-3's own cppyy bindings do.

ns-3.37's bindings (bindings/python/ns__init__.py) load every module library, put the headers
on cppyy's include path and include each ``<module>-module.h``. Here ns-3 is Debian's installed
ns-3.37 or the ns-3.44 wheel, and metaroce is a standalone build against it, so the build
directory tells everything:

* ``compile_commands.json`` holds the exact ``-D`` and ``-I`` flags the module library was
  compiled with; cppyy gets the same ones (``NS3_LOG_ENABLE`` and ``NS3_ASSERT_ENABLE`` change
  class layouts and inline code, so a mismatch would be undefined behaviour, not a warning).
* ``contrib/metaroce/libns3-metaroce.so`` is the module; loading it pulls in the ns-3 libraries
  it links, and the directory and name of ns-3's core library locate the others (Debian names
  them ``libns3-core.so.37``, the wheel ``libns3.44-core.so``).

With the wheel, ns-3's own bindings and these share one cppyy: ``from ns import ns`` after
``import metaroce`` sees the module's classes as ``ns.MetaRoceNic`` and so on (both are
``cppyy.gbl.ns3``). Not before: ns-3's bindings put the wheel's include directory on cppyy's
path, and with it the Boost headers the wheel carries (1.66), ahead of the system's Boost (1.74)
that the module was compiled with; the module's headers (engine containers, the schedulers)
would then be parsed against another Boost than the library's, so that order is refused.
* ``include/ns3/`` holds the module's public headers (engine, model, helper), all included.

Libraries are loaded before headers are parsed: ns-3 headers have static initialisers (e.g.
``g_TimeStaticInit``) that cling runs at once and that need the libraries' symbols.
"""

import glob
import json
import os
import re
import shlex
import sys

# The ns-3 modules whose public API is parsed: the module's dependencies, and applications for
# ns-3's own traffic generators over MetaRoceSocket. Others: include_module().
NS3_MODULES = ("core", "network", "point-to-point", "internet", "applications")

# <repo>/bindings/python/metaroce/_loader.py
_REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
_SUPPORT_HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "support.h")


class LoadError(ImportError):
    """The build or ns-3 could not be found or loaded; the message says what to do."""


def build_dir():
    """The metaroce build directory: $METAROCE_BUILD_DIR, else the scripts' default for
    $METAROCE_NS3: <repo>/build-3.44 for 3.44 (the ns-3 wheel), <repo>/build otherwise."""
    default = "build-3.44" if os.environ.get("METAROCE_NS3") == "3.44" else "build"
    return os.path.abspath(os.environ.get("METAROCE_BUILD_DIR", os.path.join(_REPO, default)))


def _module_flags(build):
    """(defines, include dirs) of the module library's compile command."""
    path = os.path.join(build, "compile_commands.json")
    if not os.path.exists(path):
        raise LoadError(f"metaroce: {path} is missing; build first (scripts/build.sh), or set "
                        f"METAROCE_BUILD_DIR to a configured build directory")
    with open(path) as f:
        commands = json.load(f)
    for entry in commands:
        if re.search(r"contrib/metaroce/model/.*\.cc$", entry["file"]):
            args = entry.get("arguments") or shlex.split(entry["command"])
            break
    else:
        raise LoadError(f"metaroce: {path} has no compile command for the module's model; "
                        f"was the build configured with METAROCE_WITH_NS3=ON?")
    defines, includes = [], []
    i = 0
    while i < len(args):
        arg = args[i]
        for flag, out in (("-D", defines), ("-I", includes), ("-isystem", includes)):
            if arg == flag and i + 1 < len(args):
                out.append(args[i + 1])
                i += 1
                break
            if arg.startswith(flag) and len(arg) > len(flag):
                out.append(arg[len(flag):])
                break
        i += 1
    return defines, includes


# ns-3's core library: libns3-core.so.37 (Debian), libns3.44-core.so (the wheel),
# libns3.43-core-optimized.so (a source tree).
_CORE_LIBRARY = re.compile(r"^(libns3(?:\.[0-9]+)?-)core(\S*\.so\S*)$")


def _loaded_core_library():
    """(path, name prefix, name suffix) of ns-3's core library mapped into this process."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            match = _CORE_LIBRARY.match(os.path.basename(path))
            if match:
                return path, match.group(1), match.group(2)
    return None, None, None


class _Loader:
    def __init__(self):
        self.cppyy = None
        self.ns3_lib_dir = None
        self.ns3_prefix = None
        self.ns3_suffix = None
        self.modules = set()

    def load(self):
        build = build_dir()
        library = os.path.join(build, "contrib", "metaroce", "libns3-metaroce.so")
        if not os.path.exists(library):
            raise LoadError(f"metaroce: {library} is missing; build first (scripts/build.sh) or "
                            f"set METAROCE_BUILD_DIR")
        defines, includes = _module_flags(build)
        if "ns3.ns" in sys.modules:
            raise LoadError("metaroce: import metaroce before `from ns import ns`: ns-3's "
                            "bindings put the wheel's Boost (1.66) ahead of the system's, which "
                            "the module was compiled with (doc/python.md, 'ns-3's own bindings')")
        try:
            import cppyy
        except ModuleNotFoundError as e:
            raise LoadError("metaroce: cppyy is not installed; use the project's virtualenv "
                            "(scripts/python-env.sh prints its path)") from e
        import cppyy.ll

        # ns3::Ptr<T> stays a plain class: cppyy forwards T's methods through its operator->.
        # (Registered as a smart pointer type, as ns-3's bindings try to, cppyy 3.5 refuses
        # such objects as the second by-value Ptr argument of a call.)
        # A C++ abort turned into a Python exception (see errors.py) must not start gdb.
        cppyy.gbl.CppyyLegacy.gEnv.SetValue("Root.Stacktrace", "no")
        self.cppyy = cppyy

        cppyy.load_library(library)
        core, self.ns3_prefix, self.ns3_suffix = _loaded_core_library()
        if core is None:
            raise LoadError(f"metaroce: {library} loaded but ns-3's core library is not mapped")
        self.ns3_lib_dir = os.path.dirname(core)

        for d in defines:
            name, _, value = d.partition("=")
            cppyy.cppdef(f"#define {name} {value or 1}\n")
        for d in includes:
            cppyy.add_include_path(d)
        for m in NS3_MODULES:
            self.include_module(m)
        for header in sorted(glob.glob(os.path.join(build, "include", "ns3", "*.h"))):
            cppyy.include(header)
        cppyy.include(_SUPPORT_HEADER)
        return cppyy.gbl.ns3

    def include_module(self, name):
        """Loads ns-3 module `name` (library and <name>-module.h) if not loaded yet."""
        if name in self.modules:
            return
        path = os.path.join(self.ns3_lib_dir, f"{self.ns3_prefix}{name}{self.ns3_suffix}")
        if not os.path.exists(path):
            raise LoadError(f"metaroce: no ns-3 module '{name}' ({path} does not exist)")
        self.cppyy.load_library(path)
        self.cppyy.include(f"ns3/{name}-module.h")
        self.modules.add(name)


loader = _Loader()
