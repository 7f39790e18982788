# libsoftmetaroce: the protocol engines. Plain C++17, no ns-3 include.
# Included by contrib/metaroce/CMakeLists.txt (the ns-3 module) and by the top-level
# CMakeLists.txt (which also builds the engine alone as a library with no ns-3 dependency).
#
#   common/      types, counters, registered memory, the TransportEngine interface
#   metaroce/    the MetaRoCE engine: wire format, paths, requester, responder, connection
#   rocev2/      the RoCEv2 baseline: BTH/RETH/AETH, go-back-N requester and responder, QP
#   algorithms/  pluggable algorithms: congestion control (AIMD, Swift, DCQCN), path selection
#   driver/      what drives an engine: EngineDriver (shared by every driver), the loopback
#                harness and its scenarios
#
# Engine files include a sibling of their own folder by file name and one of another folder by
# its relative path ("../common/engine-types.h"), so the includes resolve wherever the headers
# are reached from: in the engine's own build, and through ns-3's include/ns3/ forwarding
# headers in an ns-3 tree. Users of the engine alone get these folders as include path.
set(METAROCE_ENGINE_DIRS
    engine/algorithms
    engine/common
    engine/driver
    engine/metaroce
    engine/rocev2
)
set(METAROCE_ENGINE_SOURCES
    engine/algorithms/congestion-control.cc
    engine/algorithms/dcqcn-reaction-point.cc
    engine/algorithms/dcqcn.cc
    engine/algorithms/flow-selector.cc
    engine/algorithms/swift-congestion-control.cc
    engine/common/config-field.cc
    engine/common/deadline-tree.cc
    engine/common/engine-counters.cc
    engine/common/engine-drop-reasons.cc
    engine/common/engine-memory.cc
    engine/common/engine-types.cc
    engine/common/header-bytes.cc
    engine/common/ipv4-udp-head.cc
    engine/common/transport-engine.cc
    engine/driver/engine-driver.cc
    engine/driver/loopback-harness.cc
    engine/driver/loopback-scenario.cc
    engine/metaroce/ack-coverage.cc
    engine/metaroce/loss-detection.cc
    engine/metaroce/mcrc.cc
    engine/metaroce/metaroce-config.cc
    engine/metaroce/metaroce-connection.cc
    engine/metaroce/metaroce-flow.cc
    engine/metaroce/metaroce-requester-ack.cc
    engine/metaroce/metaroce-requester-deadlines.cc
    engine/metaroce/metaroce-requester-markers.cc
    engine/metaroce/metaroce-requester-work.cc
    engine/metaroce/metaroce-requester.cc
    engine/metaroce/metaroce-responder-ack.cc
    engine/metaroce/metaroce-responder.cc
    engine/metaroce/metaroce-wire.cc
    engine/metaroce/pacer.cc
    engine/metaroce/flow-receive-window.cc
    engine/metaroce/flow-recovery.cc
    engine/metaroce/flow-table.cc
    engine/metaroce/reorder-window.cc
    engine/metaroce/requester-packets.cc
    engine/metaroce/send-queue.cc
    engine/metaroce/spurious-loss.cc
    engine/metaroce/tail-index.cc
    engine/metaroce/tail-loss-probe.cc
    engine/metaroce/injection-rate.cc
    engine/rocev2/rocev2-config.cc
    engine/rocev2/rocev2-queue-pair.cc
    engine/rocev2/rocev2-requester.cc
    engine/rocev2/rocev2-responder.cc
    engine/rocev2/rocev2-wire.cc
)
set(METAROCE_ENGINE_HEADERS
    engine/algorithms/congestion-control.h
    engine/algorithms/dcqcn.h
    engine/algorithms/flow-selector.h
    engine/algorithms/swift-congestion-control.h
    engine/common/config-field.h
    engine/common/deadline-cached.h
    engine/common/deadline-tree.h
    engine/common/engine-counters.h
    engine/common/engine-drop-reasons.h
    engine/common/engine-memory.h
    engine/common/engine-types.h
    engine/common/header-bytes.h
    engine/common/ipv4-udp-head.h
    engine/common/id-slots.h
    engine/common/transport-engine.h
    engine/driver/engine-driver.h
    engine/driver/loopback-harness.h
    engine/driver/loopback-scenario.h
    engine/metaroce/ack-coverage.h
    engine/metaroce/admission-credit.h
    engine/metaroce/loss-detection.h
    engine/metaroce/mcrc.h
    engine/metaroce/loss-evidence.h
    engine/metaroce/injection-rate.h
    engine/metaroce/metaroce-config.h
    engine/metaroce/metaroce-connection.h
    engine/metaroce/metaroce-flow.h
    engine/metaroce/metaroce-requester.h
    engine/metaroce/metaroce-responder.h
    engine/metaroce/metaroce-wire.h
    engine/metaroce/pacer.h
    engine/metaroce/flow-receive-window.h
    engine/metaroce/flow-recovery.h
    engine/metaroce/flow-table.h
    engine/metaroce/receiver-hints.h
    engine/metaroce/reorder-window.h
    engine/metaroce/requester-packets.h
    engine/metaroce/send-queue.h
    engine/metaroce/spurious-loss.h
    engine/metaroce/tail-index.h
    engine/metaroce/tail-loss-probe.h
    engine/rocev2/rocev2-config.h
    engine/rocev2/rocev2-queue-pair.h
    engine/rocev2/rocev2-requester.h
    engine/rocev2/rocev2-responder.h
    engine/rocev2/rocev2-wire.h
)
