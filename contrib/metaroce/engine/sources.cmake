# libsoftmetaroce: the protocol engines. Plain C++17, no ns-3 include.
# Included by contrib/metaroce/CMakeLists.txt (the ns-3 module) and by the top-level
# CMakeLists.txt (which also builds the engine alone as a library with no ns-3 dependency).
set(METAROCE_ENGINE_SOURCES
    engine/congestion-control.cc
    engine/engine-counters.cc
    engine/engine-memory.cc
    engine/engine-types.cc
    engine/loopback-harness.cc
    engine/loss-detection.cc
    engine/metaroce-config.cc
    engine/metaroce-connection.cc
    engine/metaroce-path.cc
    engine/metaroce-requester.cc
    engine/metaroce-responder.cc
    engine/metaroce-wire.cc
    engine/path-receive-window.cc
    engine/path-selector.cc
    engine/transport-engine.cc
)
set(METAROCE_ENGINE_HEADERS
    engine/congestion-control.h
    engine/engine-counters.h
    engine/engine-memory.h
    engine/engine-types.h
    engine/loopback-harness.h
    engine/loss-detection.h
    engine/metaroce-config.h
    engine/metaroce-connection.h
    engine/metaroce-path.h
    engine/metaroce-requester.h
    engine/metaroce-responder.h
    engine/metaroce-wire.h
    engine/path-receive-window.h
    engine/path-selector.h
    engine/transport-engine.h
)
