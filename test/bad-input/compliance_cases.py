"""Bad compliance scenario files (test/compliance, doc/compliance.md "Scenario format"): each
is written to its own .mrs file and given to metaroce-compliance --scenarios=FILE, which must
refuse it before anything runs - exit status 2, one line on stderr naming the file and the line
(<file>:<line>: ...) and containing the substrings given.

Each case is (name, the file's text, the line the message names, substrings).
"""

HEAD = "spec-1.0 4.2\nspec 6.4\ntransport metaroce\n"      # lines 1-3
ROCE = "spec-1.0 none (ours 10.2)\nspec 8.2\ntransport rocev2\n"
END = "10us expect nothing\n"
BODY = "spec 4.2\ntransport metaroce\n" + END          # lines 2-4 after a spec-1.0 line

COMPLIANCE_CASES = [
    # Directives.
    ("empty", "", 1, ["'transport'"]),
    ("no-transport", "spec 4.2\n", 1, ["'transport'"]),
    ("no-spec", "transport metaroce\n0us expect nothing\n", 2, ["'spec'"]),
    ("no-timed-line", HEAD, 3, ["timed line"]),
    # The MetaRoCE 1.0 sections a scenario checks (test/compliance/spec-1-0.h).
    ("no-spec-1.0", "spec 4.2\ntransport metaroce\n" + END, 3, ["'spec-1.0'"]),
    ("spec-1.0-unknown", "spec-1.0 4.7\n" + BODY, 1,
     ["unknown MetaRoCE 1.0 section '4.7'", "4.1-4.6", "none (ours"]),
    ("spec-1.0-not-a-section", "spec-1.0 retransmission\n" + BODY, 1, ["'retransmission'"]),
    ("spec-1.0-chapter", "spec-1.0 4\n" + BODY, 1, ["chapter", "Reliable Delivery"]),
    ("spec-1.0-empty", "spec-1.0\n" + BODY, 1, ["spec-1.0", "none (ours"]),
    ("spec-1.0-twice", HEAD + "spec-1.0 4.6\n" + END, 4, ["spec-1.0", "twice"]),
    ("spec-1.0-section-twice", "spec-1.0 4.6 4.6\n" + BODY, 1, ["4.6", "twice"]),
    ("spec-1.0-none-mixed", "spec-1.0 4.6 none\n" + BODY, 1, ["'none'", "alone"]),
    ("spec-1.0-none-bare", "spec-1.0 none\n" + BODY, 1, ["parentheses"]),
    ("spec-1.0-none-empty", "spec-1.0 none (ours )\n" + BODY, 1, ["no section of ours"]),
    ("spec-1.0-none-not-ours", "spec-1.0 none (ours loss)\n" + BODY, 1, ["'loss'"]),
    ("line-before-transport", "spec 4.2\n0us expect nothing\ntransport metaroce\n", 2,
     ["before the 'transport'"]),
    ("transport-twice", HEAD + "transport rocev2\n" + END, 4, ["twice"]),
    ("transport-unknown", "spec 4.2\ntransport tcp\n" + END, 2, ["'tcp'"]),
    ("directive-unknown", HEAD + "frobnicate 1\n" + END, 4, ["'frobnicate'"]),
    ("config-unknown-key", HEAD + "config nope=1\n" + END, 4, ["'nope'", "portable"]),
    ("config-not-a-number", HEAD + "config flowsPerPort=abc\n" + END, 4,
     ["flowsPerPort", "'abc'"]),
    ("config-out-of-range", HEAD + "config flowsPerPort=0\n" + END, 4, ["flowsPerPort", "0"]),
    ("config-real-word", HEAD + "config aimd.flowDecrease=half\n" + END, 4,
     ["aimd.flowDecrease", "'half'"]),
    ("config-real-nan", HEAD + "config aimd.flowDecrease=nan\n" + END, 4,
     ["aimd.flowDecrease", "nan"]),
    ("config-across-fields", HEAD + "config rtoMinNs=5ms rtoMaxNs=1ms\n" + END, 4,
     ["configuration", "rtoMaxNs"]),
    ("config-no-value", HEAD + "config mtu\n" + END, 4, ["name=value", "'mtu'"]),
    ("config-ports", HEAD + "config ports=65\n" + END, 4, ["ports", "65"]),
    ("config-rate-zero", HEAD + "config portRateBps=0\n" + END, 4, ["portRateBps"]),
    ("config-other-transport", ROCE + "config flowsPerPort=2\n" + END, 4,
     ["'flowsPerPort'", "rocev2"]),
    ("config-rocev2-mtu", ROCE + "config mtu=8192\n" + END, 4, ["mtu", "8192"]),
    ("memory-key-zero", HEAD + "memory key=0 addr=1 length=2\n" + END, 4, ["non-zero key"]),
    ("memory-unknown-key", HEAD + "memory key=1 addr=1 length=2 color=3\n" + END, 4,
     ["'color'"]),
    ("memory-wraps", HEAD + "memory key=1 addr=0xffffffffffffffff length=0x10\n" + END, 4,
     ["wraps"]),
    ("tolerance-not-a-time", HEAD + "tolerance fast\n" + END, 4, ["'fast'"]),
    ("tolerance-no-time", HEAD + "tolerance\n" + END, 4, ["tolerance"]),
    # Timed lines.
    ("time-backwards", HEAD + "10us expect nothing\n5us expect nothing\n", 5, ["5us", "10us"]),
    ("time-unit", HEAD + "10xs expect nothing\n", 4, ["'10xs'", "unit"]),
    ("time-below-ns", HEAD + "1.5ns expect nothing\n", 4, ["'1.5ns'", "nanoseconds"]),
    ("time-too-late", HEAD + "99999999999s expect nothing\n", 4, ["'99999999999s'"]),
    ("time-relative-too-late", HEAD + "18000000000s expect nothing\n"
     "+18000000000s expect nothing\n", 5, ["+18000000000s"]),
    ("time-no-action", HEAD + "10us\n", 4, ["action"]),
    ("action-unknown", HEAD + "10us fly WRITE\n", 4, ["'fly'"]),
    ("post-opcode", HEAD + "0us post READ w1\n", 4, ["post <WRITE|SEND|RECV>"]),
    ("post-label-reused", HEAD + "0us post WRITE w1 length=1\n1us post WRITE w1 length=1\n", 5,
     ["'w1'", "reused"]),
    ("post-unknown-term", HEAD + "0us post WRITE w1 color=red\n", 4, ["'color'"]),
    ("post-not-a-number", HEAD + "0us post WRITE w1 length=abc\n", 4, ["'abc'"]),
    ("post-too-long", HEAD + "0us post WRITE w1 length=99999999999999\n", 4,
     ["length=99999999999999"]),
    ("post-stream-too-large", HEAD + "0us post SEND s1 stream=70000 length=1\n", 4,
     ["stream=70000"]),
    ("inject-opcode", HEAD + "0us inject FOO\n", 4, ["'FOO'"]),
    ("inject-field", HEAD + "0us inject ACK color=1\n", 4, ["'color'", "ACK"]),
    ("inject-wildcard", HEAD + "0us inject ACK cumulativeFsn=*\n", 4, ["cumulativeFsn"]),
    ("inject-not-a-number", HEAD + "0us inject ACK cumulativeFsn=abc\n", 4, ["'abc'"]),
    ("inject-too-large", HEAD + "0us inject ACK cumulativeFsn=99999999999999999999\n", 4,
     ["'99999999999999999999'"]),
    ("inject-does-not-fit", HEAD + "0us inject ACK cumulativeFsn=4294967296\n", 4,
     ["cumulativeFsn=4294967296", "fit"]),
    ("inject-unbound-variable", HEAD + "0us inject ACK cumulativeFsn=$x\n", 4, ["$x", "binds"]),
    ("inject-bad-variable", HEAD + "0us expect ACK cumulativeFsn=$x\n1us inject ACK "
     "cumulativeFsn=$x+y\n", 5, ["'y'"]),
    ("inject-sack", HEAD + "0us inject ACK sack={a,b}\n", 4, ["'a'"]),
    ("inject-byte-offset", HEAD + "0us inject ACK @99999=0x1\n", 4, ["99999"]),
    ("inject-byte-value", HEAD + "0us inject ACK @1=0x1ff\n", 4, ["'0x1ff'", "255"]),
    ("inject-datagram", HEAD + "0us inject ACK datagram=999999999\n", 4,
     ["datagram=999999999", "65507"]),
    ("inject-payload", HEAD + "0us inject WRITE fsn=0 msn=0 messageLength=4000000000 "
     "payloadLength=4000000000\n", 4, ["payloadLength=4000000000", "65507"]),
    ("inject-port", HEAD + "0us inject ACK port=3\n", 4, ["port 3"]),
    ("inject-flag", HEAD + "0us inject WRITE fsn=0 msn=0 messageLength=10 flags=FIRST|NOPE\n", 4,
     ["'NOPE'"]),
    ("inject-no-length", HEAD + "0us inject WRITE fsn=0 msn=0\n", 4, ["messageLength"]),
    ("port-missing", HEAD + "0us port 9 down\n", 4, ["port 9"]),
    ("port-state", HEAD + "0us port 0 sideways\n", 4, ["'sideways'"]),
    ("port-terms", HEAD + "0us port 0 down x=1\n", 4, ["no name=value"]),
    ("expect-unknown", HEAD + "0us expect FOO\n", 4, ["'FOO'"]),
    ("expect-completion-unposted", HEAD + "0us expect completion w9\n", 4, ["'w9'"]),
    ("expect-completion-term", HEAD + "0us post WRITE w1 length=1\n1us expect completion w1 "
     "color=1\n", 5, ["'color'"]),
    ("expect-completion-status", HEAD + "0us post WRITE w1 length=1\n1us expect completion w1 "
     "status=Fine\n", 5, ["'Fine'", "status"]),
    ("expect-counter", HEAD + "0us expect counters nope=1\n", 4, ["'nope'"]),
    ("expect-range-backwards", HEAD + "0us expect ACK cumulativeFsn=5..2\n", 4,
     ["'5..2'", "backwards"]),
    ("expect-flag", HEAD + "0us expect WRITE flags=FIRST|NOPE\n", 4, ["'NOPE'"]),
    ("expect-negated-unbound", HEAD + "0us expect ACK cumulativeFsn!=$x\n", 4, ["$x"]),
    ("term-no-value", HEAD + "0us expect ACK cumulativeFsn=\n", 4, ["'cumulativeFsn='"]),
    ("term-no-name", HEAD + "0us expect ACK =5\n", 4, ["'=5'"]),
    ("nothing-terms", HEAD + "0us expect nothing x=1\n", 4, ["no name=value"]),
]
