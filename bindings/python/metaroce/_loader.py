"""Loads ns-3 and the metaroce module into cppyy, the way ns-3's own cppyy bindings do.

ns-3.37's bindings (bindings/python/ns__init__.py) load every module library, put the headers
on cppyy's include path and include each ``<module>-module.h``. Here ns-3 is Debian's installed
ns-3.37 and metaroce is a standalone build, so the build directory tells everything:

* ``compile_commands.json`` holds the exact ``-D`` and ``-I`` flags the module library was
  compiled with; cppyy gets the same ones (``NS3_LOG_ENABLE`` and ``NS3_ASSERT_ENABLE`` change
  class layouts and inline code, so a mismatch would be undefined behaviour, not a warning).
* ``contrib/metaroce/libns3-metaroce.so`` is the module; loading it pulls in the ns-3 libraries
  it links, and the directory and version suffix of ``libns3-core`` locate the others.
* ``include/ns3/`` holds the module's public headers (engine, model, helper), all included.

Libraries are loaded before headers are parsed: ns-3 headers have static initialisers (e.g.
``g_TimeStaticInit``) that cling runs at once and that need the libraries' symbols.
"""

import glob
import json
import os
import re
import shlex

# The ns-3 modules whose public API is parsed: the module's dependencies, and applications for
# ns-3's own traffic generators over MetaRoceSocket. Others: include_module().
NS3_MODULES = ("core", "network", "point-to-point", "internet", "applications")

# <repo>/bindings/python/metaroce/_loader.py
_REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
_SUPPORT_HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "support.h")


class LoadError(ImportError):
    """The build or ns-3 could not be found or loaded; the message says what to do."""


def build_dir():
    """The metaroce build directory: $METAROCE_BUILD_DIR, else <repo>/build."""
    return os.path.abspath(os.environ.get("METAROCE_BUILD_DIR", os.path.join(_REPO, "build")))


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


def _loaded_library(prefix):
    """Path of the first library mapped into this process whose file name starts with prefix."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if os.path.basename(path).startswith(prefix):
                return path
    return None


class _Loader:
    def __init__(self):
        self.cppyy = None
        self.ns3_lib_dir = None
        self.ns3_suffix = None
        self.modules = set()

    def load(self):
        build = build_dir()
        library = os.path.join(build, "contrib", "metaroce", "libns3-metaroce.so")
        if not os.path.exists(library):
            raise LoadError(f"metaroce: {library} is missing; build first (scripts/build.sh) or "
                            f"set METAROCE_BUILD_DIR")
        defines, includes = _module_flags(build)
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
        core = _loaded_library("libns3-core")
        if core is None:
            raise LoadError(f"metaroce: {library} loaded but libns3-core is not mapped")
        self.ns3_lib_dir = os.path.dirname(core)
        self.ns3_suffix = os.path.basename(core)[len("libns3-core"):]

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
        path = os.path.join(self.ns3_lib_dir, f"libns3-{name}{self.ns3_suffix}")
        if not os.path.exists(path):
            raise LoadError(f"metaroce: no ns-3 module '{name}' ({path} does not exist)")
        self.cppyy.load_library(path)
        self.cppyy.include(f"ns3/{name}-module.h")
        self.modules.add(name)


loader = _Loader()
