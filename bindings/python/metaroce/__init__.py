"""Python bindings of the metaroce ns-3 module, through cppyy.

``import metaroce`` loads ns-3 (Debian's 3.37 or the 3.44 wheel) and the project's module library
into cppyy (see _loader.py), so every public C++ class is usable as in C++:

    import metaroce
    from metaroce import ns, engine          # cppyy.gbl.ns3 and cppyy.gbl.metaroce
    helper = ns.MetaRoceFabricHelper()

and adds Pythonic helpers where cppyy is awkward: create() with checked attributes, time(),
callback(), schedule(), run(), reset(), the Fabric wrapper, on_completion(); C++ aborts and
exceptions raised as MetaRoceError subclasses with the C++ message (errors.py), a bad
experiment configuration as ConfigError naming the field.

The build directory is $METAROCE_BUILD_DIR, or <repo>/build (<repo>/build-3.44 with
METAROCE_NS3=3.44). With the 3.44 wheel, `from ns import ns` after `import metaroce` is ns-3's
own bindings on the same classes.
"""

from ._loader import LoadError, build_dir, loader

ns = loader.load()
cppyy = loader.cppyy
engine = cppyy.gbl.metaroce

from .errors import (ConfigError, FatalError, InvalidParameter, MetaRoceError,  # noqa: E402
                     cpp_errors)
from .objects import (address, attribute_value, callback, create, get_attribute,  # noqa: E402
                      include_module, now, reset, run, schedule, set_attributes, set_default,
                      time)
from .fabric import Fabric, on_completion, transport  # noqa: E402

__all__ = [
    "ns", "engine", "cppyy", "build_dir", "LoadError", "MetaRoceError", "InvalidParameter",
    "ConfigError", "FatalError", "cpp_errors", "address", "attribute_value", "callback", "create",
    "get_attribute", "include_module", "now", "reset", "run", "schedule", "set_attributes",
    "set_default", "time", "Fabric", "on_completion", "transport",
]
