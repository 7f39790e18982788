-- MetaRoCE dissector for Wireshark and tshark (Lua), written from doc/spec.md section 5
-- ("Wire format"), the project's own design: Meta has not published MetaRoCE's headers.
--
--   tshark -X lua_script:contrib/metaroce/tools/wireshark/metaroce.lua -r capture.pcap
--   scripts/install-dissector.sh    # once: into ~/.local/lib/wireshark/plugins, no -X needed
--
-- It decodes every field of every opcode (WRITE, SEND, ACK with its 256-bit SACK and repeats,
-- PROBE, NAK)
-- on UDP destination port 4792 (kMetaRoceUdpPort, engine/metaroce/metaroce-wire.h), and flags
-- with expert info, in the order of the spec's validation table (3.9, checks 2-13), everything
-- the engine's parser refuses: a short datagram, an unknown version or opcode, a flag the
-- opcode may not carry, a non-zero reserved field, a length that disagrees with the datagram,
-- placement fields that contradict each other, an unknown NAK syndrome. Those are in the
-- "malformed" expert group, so `tshark -Y _ws.expert.group==malformed` lists them. Rules only
-- the sender follows (ACKREQ on the last packet of a message and on every retransmission, ECE
-- exactly when the CE count is non-zero) are warnings: the receiver does not check them. A
-- PROBE with ACKREQ is a Down flow's probe, one without a tail marker (spec 4.5); the info
-- column says which. Checks that need connection state (windows, MTU, registered memory) are not made.
--
-- The mCRC (spec 4.1, optional, off by default as in the model: attribute Mcrc, metaroce-perf
-- --mcrc=on) is a 4-byte CRC-32C trailer over header and payload. With the preference "mCRC
-- trailer" on (`-o metaroce.mcrc:TRUE`) the last 4 bytes are decoded as it, verified when the
-- capture holds the whole datagram (metaroce.mcrc.status: good, bad or unverified), and a wrong
-- one is flagged in the "checksum" expert group; the rest is decoded without them.
--
-- The same file decodes the fabric's PFC frames (IPv4 protocol 253, magic "MP";
-- model/switch/metaroce-switch-pfc.h). RoCEv2 (UDP 4791) is left to Wireshark's own InfiniBand
-- dissector. All integers are big-endian except the SACK bitvector (spec 5.3).

local UDP_PORT = 4792
local VERSION = 1
local PFC_PROTOCOL = 253
local PFC_MAGIC = 0x4D50

-- Flags (byte 1, spec 5.6).
local FIRST, LAST, RETX, ACKREQ, ECE, NOSACK = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20
local FLAG_NAMES = { { FIRST, "FIRST" }, { LAST, "LAST" }, { RETX, "RETX" },
                     { ACKREQ, "ACKREQ" }, { ECE, "ECE" }, { NOSACK, "NOSACK" } }

-- The opcode table (spec 5.7): header size, whether it carries payload, allowed flags. An ACK
-- with NOSACK leaves its 32-byte SACK out (spec 5.3): its header is then 32 bytes.
local OPCODES = {
    [1] = { name = "WRITE", header = 64, data = true, flags = FIRST + LAST + RETX + ACKREQ },
    [2] = { name = "SEND", header = 48, data = true, flags = FIRST + LAST + RETX + ACKREQ },
    [3] = { name = "ACK", header = 64, data = false, flags = ECE + NOSACK },
    [4] = { name = "PROBE", header = 24, data = false, flags = ACKREQ },
    [5] = { name = "NAK", header = 16, data = false, flags = 0 },
}
local OPCODE_NAMES = {}
for value, op in pairs(OPCODES) do OPCODE_NAMES[value] = op.name end
local SYNDROMES = { [1] = "remote access error", [2] = "invalid request" }

-- Bit tests in plain arithmetic: Wireshark builds with Lua 5.1 to 5.4, whose bit libraries differ.
local function has(value, mask) return math.floor(value / mask) % 2 == 1 end
local function band(a, b)
    local r, bit = 0, 1
    while a > 0 and b > 0 do
        if a % 2 == 1 and b % 2 == 1 then r = r + bit end
        a, b, bit = math.floor(a / 2), math.floor(b / 2), bit * 2
    end
    return r
end
-- CRC-32C (Castagnoli, reflected 0x82F63B78): the bit operations of whichever Lua this is.
local bxor, bandw, rshift
if bit32 then
    bxor, bandw, rshift = bit32.bxor, bit32.band, bit32.rshift
elseif bit then -- LuaJIT / BitOp: signed results, brought back to [0, 2^32)
    bxor = function(a, b) return bit.bxor(a, b) % 4294967296 end
    bandw = function(a, b) return bit.band(a, b) % 4294967296 end
    rshift = function(a, n) return bit.rshift(a, n) % 4294967296 end
else
    bxor, bandw, rshift = load("return function(a, b) return a ~ b end, "
                               .. "function(a, b) return a & b end, "
                               .. "function(a, n) return a >> n end")()
end
local CRC32C = {}
for i = 0, 255 do
    local c = i
    for _ = 1, 8 do
        if c % 2 == 1 then c = bxor(rshift(c, 1), 0x82F63B78) else c = rshift(c, 1) end
    end
    CRC32C[i] = c
end
local function crc32c(bytes)
    local c = 0xFFFFFFFF
    for i = 0, bytes:len() - 1 do
        c = bxor(CRC32C[bandw(bxor(c, bytes:get_index(i)), 0xff)], rshift(c, 8))
    end
    return bxor(c, 0xFFFFFFFF)
end

local function flag_list(flags)
    local names = {}
    for _, f in ipairs(FLAG_NAMES) do
        if has(flags, f[1]) then names[#names + 1] = f[2] end
    end
    if flags >= 0x40 then names[#names + 1] = string.format("0x%02x", band(flags, 0xc0)) end
    return table.concat(names, ",")
end

local mr = Proto("metaroce", "MetaRoCE")

local f = {
    version = ProtoField.uint8("metaroce.version", "Version", base.DEC, nil, 0xf0),
    opcode = ProtoField.uint8("metaroce.opcode", "Opcode", base.DEC, OPCODE_NAMES, 0x0f),
    flags = ProtoField.uint8("metaroce.flags", "Flags", base.HEX),
    first = ProtoField.bool("metaroce.flags.first", "FIRST", 8, nil, FIRST),
    last = ProtoField.bool("metaroce.flags.last", "LAST", 8, nil, LAST),
    retx = ProtoField.bool("metaroce.flags.retx", "RETX", 8, nil, RETX),
    ackreq = ProtoField.bool("metaroce.flags.ackreq", "ACKREQ", 8, nil, ACKREQ),
    ece = ProtoField.bool("metaroce.flags.ece", "ECE", 8, nil, ECE),
    nosack = ProtoField.bool("metaroce.flags.nosack", "NOSACK", 8, nil, NOSACK),
    flags_reserved = ProtoField.uint8("metaroce.flags.reserved", "Reserved flags", base.HEX,
                                      nil, 0xc0),
    flow = ProtoField.uint16("metaroce.flow", "Flow id", base.DEC),
    conn = ProtoField.uint32("metaroce.conn", "Destination connection", base.DEC),
    fsn = ProtoField.uint32("metaroce.fsn", "FSN", base.DEC),
    ack_floor = ProtoField.uint32("metaroce.ack_floor", "Ack floor", base.DEC),
    cum_fsn = ProtoField.uint32("metaroce.cum_fsn", "Cumulative FSN (first missing)", base.DEC),
    rate_hint = ProtoField.uint32("metaroce.rate_hint", "Rate hint (Mb/s, 0 = none)", base.DEC),
    stream = ProtoField.uint16("metaroce.stream", "Stream", base.DEC),
    data_reserved = ProtoField.uint16("metaroce.data.reserved", "Reserved", base.HEX),
    msn = ProtoField.uint32("metaroce.msn", "MSN", base.DEC),
    msg_len = ProtoField.uint32("metaroce.msg_len", "Message length", base.DEC),
    offset = ProtoField.uint32("metaroce.offset", "Offset", base.DEC),
    payload_len = ProtoField.uint32("metaroce.payload_len", "Payload length", base.DEC),
    recv_index = ProtoField.uint32("metaroce.recv_index", "Receive index", base.DEC),
    timestamp = ProtoField.uint64("metaroce.timestamp", "Timestamp (ns)", base.DEC),
    remote_addr = ProtoField.uint64("metaroce.remote_addr", "Remote address", base.HEX),
    rkey = ProtoField.uint32("metaroce.rkey", "Remote key", base.HEX),
    write_reserved = ProtoField.uint32("metaroce.write.reserved", "Reserved", base.HEX),
    echo_ts = ProtoField.uint64("metaroce.echo_ts", "Echoed timestamp (ns)", base.DEC),
    ce_count = ProtoField.uint16("metaroce.ce_count", "CE count", base.DEC),
    new_count = ProtoField.uint16("metaroce.new_count", "New count", base.DEC),
    credit = ProtoField.uint32("metaroce.credit", "Admission credit (bytes, 0 = none)", base.DEC),
    sack = ProtoField.bytes("metaroce.sack", "SACK bitvector"),
    sack_count = ProtoField.uint16("metaroce.sack.count", "FSNs selectively acknowledged",
                                   base.DEC),
    sack_fsns = ProtoField.string("metaroce.sack.fsns", "Selectively acknowledged FSNs"),
    repeat_ack = ProtoField.bytes("metaroce.repeat", "Repeated ACK"),
    repeat_flow = ProtoField.uint16("metaroce.repeat.flow", "Flow", base.DEC),
    repeat_sack = ProtoField.uint16("metaroce.repeat.sack", "SACK (first 16 bits)", base.HEX),
    repeat_cum = ProtoField.uint32("metaroce.repeat.cum_fsn", "Cumulative FSN", base.DEC),
    syndrome = ProtoField.uint16("metaroce.syndrome", "Syndrome", base.DEC, SYNDROMES),
    payload = ProtoField.bytes("metaroce.payload", "Payload"),
    mcrc = ProtoField.uint32("metaroce.mcrc", "mCRC (CRC-32C)", base.HEX),
    mcrc_status = ProtoField.string("metaroce.mcrc.status", "mCRC status"),
}
mr.fields = f

local e = {
    truncated = ProtoExpert.new("metaroce.truncated", "Truncated MetaRoCE packet",
                                expert.group.MALFORMED, expert.severity.ERROR),
    bad_version = ProtoExpert.new("metaroce.bad_version", "Unknown MetaRoCE version",
                                  expert.group.MALFORMED, expert.severity.ERROR),
    bad_opcode = ProtoExpert.new("metaroce.bad_opcode", "Unknown MetaRoCE opcode",
                                 expert.group.MALFORMED, expert.severity.ERROR),
    bad_flags = ProtoExpert.new("metaroce.bad_flags", "Flag not allowed for this opcode",
                                expert.group.MALFORMED, expert.severity.ERROR),
    reserved = ProtoExpert.new("metaroce.reserved_nonzero", "Reserved field is not zero",
                               expert.group.MALFORMED, expert.severity.ERROR),
    bad_length = ProtoExpert.new("metaroce.bad_length", "Length disagrees with the datagram",
                                 expert.group.MALFORMED, expert.severity.ERROR),
    bad_placement = ProtoExpert.new("metaroce.bad_placement", "Inconsistent placement fields",
                                    expert.group.MALFORMED, expert.severity.ERROR),
    bad_repeat = ProtoExpert.new("metaroce.bad_repeat",
                                 "ACK repeat of its own flow or of a flow named twice",
                                 expert.group.MALFORMED, expert.severity.ERROR),
    bad_syndrome = ProtoExpert.new("metaroce.bad_syndrome", "Unknown NAK syndrome",
                                   expert.group.MALFORMED, expert.severity.ERROR),
    sender_rule = ProtoExpert.new("metaroce.sender_rule", "Sender rule of spec 5.6 not followed",
                                  expert.group.PROTOCOL, expert.severity.WARN),
    trimmed = ProtoExpert.new("metaroce.trimmed", "Payload trimmed by a switch",
                              expert.group.SEQUENCE, expert.severity.NOTE),
    retx = ProtoExpert.new("metaroce.retransmission", "Retransmission (under a fresh FSN)",
                           expert.group.SEQUENCE, expert.severity.NOTE),
    nak = ProtoExpert.new("metaroce.nak", "NAK: the message failed at the responder",
                          expert.group.RESPONSE_CODE, expert.severity.WARN),
    bad_mcrc = ProtoExpert.new("metaroce.bad_mcrc", "mCRC disagrees with the packet (bit error)",
                               expert.group.CHECKSUM, expert.severity.ERROR),
}
mr.experts = e
mr.prefs.mcrc = Pref.bool("mCRC trailer", false,
                          "Every packet ends with a 4-byte mCRC (spec 4.1): decode and verify it")

-- The IPv4 DSCP, to tell a switch's trimming (it marks CS6 = 48) from a short capture.
local ip_dscp = Field.new("ip.dsfield.dscp")

-- Adds `field` over bytes [off, off+len) when the capture holds them; returns the item and
-- the value (nil when missing, which the caller has already flagged as truncated).
local function add(tree, field, tvb, off, len, value_of)
    if off + len > tvb:len() then return nil, nil end
    local range = tvb(off, len)
    local value = value_of and value_of(range) or nil
    return tree:add(field, range), value
end
local function u8(r) return r:uint() end
local function u16(r) return r:uint() end
local function u32(r) return r:uint() end

-- The SACK (spec 5.3): bit i at byte i/8, bit i%8 from the least significant, means FSN
-- cumulative+1+i arrived. Returns the count and the FSN ranges ("12-14,17").
local function sack_fsns(tvb, cum)
    local ranges, count, start, prev = {}, 0, nil, nil
    local function close()
        if start == nil then return end
        ranges[#ranges + 1] = start == prev and tostring(start) or (start .. "-" .. prev)
    end
    for i = 0, 255 do
        local byte = tvb(32 + math.floor(i / 8), 1):uint()
        if has(byte, 2 ^ (i % 8)) then
            local fsn = (cum + 1 + i) % 4294967296
            count = count + 1
            if start ~= nil and fsn ~= (prev + 1) % 4294967296 then close(); start = nil end
            if start == nil then start = fsn end
            prev = fsn
        end
    end
    close()
    return count, table.concat(ranges, ",")
end

-- WRITE and SEND (spec 5.2, validation checks 8-11).
local function dissect_data(tvb, pinfo, tree, op, flags, wire)
    local _, fsn = add(tree, f.fsn, tvb, 8, 4, u32)
    add(tree, f.ack_floor, tvb, 12, 4, u32)
    add(tree, f.stream, tvb, 16, 2, u16)
    local res_item, res = add(tree, f.data_reserved, tvb, 18, 2, u16)
    local _, msn = add(tree, f.msn, tvb, 20, 4, u32)
    local _, len = add(tree, f.msg_len, tvb, 24, 4, u32)
    local off_item, off = add(tree, f.offset, tvb, 28, 4, u32)
    local pl_item, pl = add(tree, f.payload_len, tvb, 32, 4, u32)
    local ri_item, ri = add(tree, f.recv_index, tvb, 36, 4, u32)
    add(tree, f.timestamp, tvb, 40, 8)
    if res and res ~= 0 then res_item:add_proto_expert_info(e.reserved) end
    if op.name == "WRITE" then
        add(tree, f.remote_addr, tvb, 48, 8)
        add(tree, f.rkey, tvb, 56, 4)
        local wr_item, wr = add(tree, f.write_reserved, tvb, 60, 4, u32)
        if wr and wr ~= 0 then wr_item:add_proto_expert_info(e.reserved) end
        if ri and ri ~= 0 then
            ri_item:add_proto_expert_info(e.reserved, "WRITE with a receive index other than 0")
        end
    end
    if pl == nil or len == nil or off == nil then return end
    pinfo.cols.info:append(string.format(" FSN=%d MSN=%d off=%d len=%d/%d", fsn, msn, off, pl,
                                         len))
    local payload = wire - op.header
    if payload < 0 then return end -- a cut header, already flagged as truncated
    if pl > payload then
        local dscp = ip_dscp()
        if dscp ~= nil and dscp.value == 48 then
            pl_item:add_proto_expert_info(e.trimmed, string.format(
                "Payload trimmed by a switch: %d of %d bytes left", payload, pl))
        else
            pl_item:add_proto_expert_info(e.truncated, string.format(
                "Datagram holds %d payload bytes, fewer than the payload length %d", payload, pl))
        end
    elseif pl < payload then
        pl_item:add_proto_expert_info(e.bad_length, string.format(
            "Datagram holds %d payload bytes, more than the payload length %d", payload, pl))
    end
    if pl == 0 or off >= len or off + pl > len then
        off_item:add_proto_expert_info(e.bad_placement, string.format(
            "Bytes %d..%d are not inside a message of %d bytes", off, off + pl, len))
    end
    if has(flags, FIRST) ~= (off == 0) then
        off_item:add_proto_expert_info(e.bad_placement, "FIRST must be set exactly when offset = 0")
    end
    if has(flags, LAST) ~= (off + pl == len) then
        off_item:add_proto_expert_info(e.bad_placement,
                                       "LAST must be set exactly when offset + payload = length")
    end
    if has(flags, RETX) then tree:add_proto_expert_info(e.retx) end
    if (has(flags, LAST) or has(flags, RETX)) and not has(flags, ACKREQ) then
        tree:add_proto_expert_info(e.sender_rule, "LAST or RETX without ACKREQ")
    end
    local avail = math.min(payload, tvb:len() - op.header)
    if avail > 0 then tree:add(f.payload, tvb(op.header, avail)) end
end

-- ACK (spec 5.3, validation check 12).
local function dissect_ack(tvb, pinfo, tree, flags)
    local _, cum = add(tree, f.cum_fsn, tvb, 8, 4, u32)
    add(tree, f.rate_hint, tvb, 12, 4)
    add(tree, f.echo_ts, tvb, 16, 8)
    local ce_item, ce = add(tree, f.ce_count, tvb, 24, 2, u16)
    add(tree, f.new_count, tvb, 26, 2)
    add(tree, f.credit, tvb, 28, 4)
    if ce ~= nil and (ce > 0) ~= has(flags, ECE) then
        ce_item:add_proto_expert_info(e.sender_rule, "ECE must be set exactly when CE count > 0")
    end
    if has(flags, NOSACK) then
        if cum ~= nil and ce ~= nil then
            pinfo.cols.info:append(string.format(" cum=%d sacked=0 CE=%d", cum, ce))
        end
        return
    end
    local sack_item = add(tree, f.sack, tvb, 32, 32)
    if sack_item == nil then return end
    local count, fsns = sack_fsns(tvb, cum)
    sack_item:add(f.sack_count, tvb(32, 32), count):set_generated()
    sack_item:add(f.sack_fsns, tvb(32, 32), fsns):set_generated()
    pinfo.cols.info:append(string.format(" cum=%d sacked=%d CE=%d", cum, count, ce))
end

-- ACK repeats (spec 5.3): 8 bytes each after the SACK (after the credit with NOSACK, at
-- `base`), as many as the datagram holds (<= 4).
local function dissect_repeats(tvb, pinfo, tree, wire, base)
    local extra = wire - base
    if extra % 8 ~= 0 or extra > 32 then
        tree:add_proto_expert_info(e.bad_length, string.format(
            "ACK is %d bytes: not %d plus 8 per repeat, at most 4 repeats", wire, base))
        return
    end
    local flows = {}
    for k = 0, extra / 8 - 1 do
        local off = base + 8 * k
        local item = add(tree, f.repeat_ack, tvb, off, 8)
        if item == nil then return end
        local flow, cum = tvb(off, 2):uint(), tvb(off + 4, 4):uint()
        item:add(f.repeat_flow, tvb(off, 2))
        item:add(f.repeat_sack, tvb(off + 2, 2))
        item:add(f.repeat_cum, tvb(off + 4, 4))
        item:append_text(string.format(" (flow %d, cum %d)", flow, cum))
        if flow == tvb(2, 2):uint() or flows[flow] then
            item:add_proto_expert_info(e.bad_repeat, "Flow " .. flow .. " may not be repeated here")
        end
        flows[flow] = true
        pinfo.cols.info:append(string.format(" +flow%d:%d", flow, cum))
    end
end

-- PROBE (spec 5.4).
local function dissect_probe(tvb, pinfo, tree, flags)
    local _, fsn = add(tree, f.fsn, tvb, 8, 4, u32)
    add(tree, f.ack_floor, tvb, 12, 4)
    add(tree, f.timestamp, tvb, 16, 8)
    if fsn then pinfo.cols.info:append(string.format(" FSN=%d", fsn)) end
    pinfo.cols.info:append(has(flags, ACKREQ) and " (flow probe)" or " (tail marker)")
end

-- NAK (spec 5.5, validation check 13).
local function dissect_nak(tvb, pinfo, tree)
    local _, stream = add(tree, f.stream, tvb, 8, 2, u16)
    local syn_item, syn = add(tree, f.syndrome, tvb, 10, 2, u16)
    local _, msn = add(tree, f.msn, tvb, 12, 4, u32)
    if syn == nil then return end
    if SYNDROMES[syn] == nil then
        syn_item:add_proto_expert_info(e.bad_syndrome, "NAK syndrome " .. syn .. " is not 1 or 2")
    else
        syn_item:add_proto_expert_info(e.nak, "NAK: " .. SYNDROMES[syn])
    end
    pinfo.cols.info:append(string.format(" stream=%d MSN=%d syndrome=%d", stream, msn, syn))
end

-- The mCRC trailer (spec 4.1): shows and verifies it; returns the packet without it, or nil
-- when the datagram is too short to hold one (flagged as truncated).
local function dissect_mcrc(tvb, root)
    local wire = tvb:reported_len()
    if wire < 4 then
        root:add_proto_expert_info(e.truncated, "Shorter than the 4-byte mCRC trailer")
        return nil
    end
    if tvb:len() < wire then
        root:add(f.mcrc_status, "unverified (the capture does not hold the whole datagram)")
        return tvb(0, math.min(tvb:len(), wire - 4)):tvb()
    end
    local item = root:add(f.mcrc, tvb(wire - 4, 4))
    local computed = crc32c(tvb(0, wire - 4):bytes())
    if computed == tvb(wire - 4, 4):uint() then
        root:add(f.mcrc_status, "good")
    else
        root:add(f.mcrc_status, "bad")
        item:add_proto_expert_info(e.bad_mcrc, string.format("mCRC 0x%08x, computed 0x%08x",
                                                             tvb(wire - 4, 4):uint(), computed))
    end
    if wire == 4 then return nil end
    return tvb(0, wire - 4):tvb()
end

-- The common header (spec 5.1), checks 2-7, then the opcode's body.
function mr.dissector(tvb, pinfo, tree)
    local consumed = tvb:len()
    pinfo.cols.protocol = "MetaRoCE"
    local root = tree:add(mr, tvb(0, math.min(tvb:len(), 96)))
    if mr.prefs.mcrc then
        local body = dissect_mcrc(tvb, root)
        if body == nil then
            pinfo.cols.info = "MetaRoCE [truncated]"
            return consumed
        end
        tvb = body
    end
    local wire = tvb:reported_len()
    if wire < 16 or tvb:len() < 16 then
        root:add_proto_expert_info(e.truncated, "Shorter than the 16-byte common header")
        pinfo.cols.info = "MetaRoCE [truncated]"
        return consumed
    end
    local b0 = tvb(0, 1):uint()
    local version, code = math.floor(b0 / 16), b0 % 16
    local vitem = root:add(f.version, tvb(0, 1))
    if version ~= VERSION then
        vitem:add_proto_expert_info(e.bad_version, "Version " .. version .. ", not 1")
        pinfo.cols.info = "MetaRoCE version " .. version
        return consumed
    end
    local oitem = root:add(f.opcode, tvb(0, 1))
    local op = OPCODES[code]
    if op == nil then
        oitem:add_proto_expert_info(e.bad_opcode, "Opcode " .. code .. " is not 1..5")
        pinfo.cols.info = "MetaRoCE opcode " .. code
        return consumed
    end
    root:append_text(", " .. op.name)
    local flags = tvb(1, 1):uint()
    local header = op.header
    if op.name == "ACK" and has(flags, NOSACK) then header = 32 end
    if wire < header or tvb:len() < header then
        root:add_proto_expert_info(e.truncated, string.format(
            "%d bytes, fewer than the %d-byte %s header", tvb:len(), header, op.name))
    end
    local ftree = root:add(f.flags, tvb(1, 1))
    ftree:append_text(" (" .. flag_list(flags) .. ")")
    for _, bitfield in ipairs({ f.first, f.last, f.retx, f.ackreq, f.ece, f.nosack,
                                f.flags_reserved }) do
        ftree:add(bitfield, tvb(1, 1))
    end
    local bad = band(flags, 255 - op.flags)
    if bad ~= 0 then
        ftree:add_proto_expert_info(e.bad_flags, string.format(
            "Flags 0x%02x not allowed on %s (allowed: %s)", bad, op.name, flag_list(op.flags)))
    end
    root:add(f.flow, tvb(2, 2))
    root:add(f.conn, tvb(4, 4))
    pinfo.cols.info = string.format("%s conn=%d flow=%d [%s]", op.name, tvb(4, 4):uint(),
                                    tvb(2, 2):uint(), flag_list(flags))
    if not op.data and wire > op.header and op.name ~= "ACK" then
        root:add_proto_expert_info(e.bad_length, string.format(
            "%s is %d bytes, not %d (it carries no payload)", op.name, wire, op.header))
    end
    if op.data then
        dissect_data(tvb, pinfo, root, op, flags, wire)
    elseif op.name == "ACK" then
        dissect_ack(tvb, pinfo, root, flags)
        if wire > header then dissect_repeats(tvb, pinfo, root, wire, header) end
    elseif op.name == "PROBE" then
        dissect_probe(tvb, pinfo, root, flags)
    else
        dissect_nak(tvb, pinfo, root)
    end
    return consumed
end

DissectorTable.get("udp.port"):add(UDP_PORT, mr)

-- PFC frames of the fabric (metaroce-switch-pfc.h): IPv4 protocol 253, 8 bytes, big-endian.
local pfc = Proto("metaroce_pfc", "MetaRoCE fabric PFC")
local pf = {
    magic = ProtoField.uint16("metaroce_pfc.magic", "Magic", base.HEX),
    opcode = ProtoField.uint8("metaroce_pfc.opcode", "Opcode", base.DEC,
                              { [1] = "PAUSE", [2] = "RESUME" }),
    class = ProtoField.uint8("metaroce_pfc.class", "Class", base.DEC,
                             { [0] = "CONTROL", [1] = "DATA" }),
    quanta = ProtoField.uint16("metaroce_pfc.quanta", "Quanta (512 bit times)", base.DEC),
    reserved = ProtoField.uint16("metaroce_pfc.reserved", "Reserved", base.HEX),
}
pfc.fields = pf
local pe = {
    malformed = ProtoExpert.new("metaroce_pfc.malformed", "Malformed MetaRoCE PFC frame",
                                expert.group.MALFORMED, expert.severity.ERROR),
}
pfc.experts = pe

function pfc.dissector(tvb, pinfo, tree)
    if tvb:len() < 2 or tvb(0, 2):uint() ~= PFC_MAGIC then return 0 end -- another protocol 253
    pinfo.cols.protocol = "MetaRoCE PFC"
    local root = tree:add(pfc, tvb(0, math.min(tvb:len(), 8)))
    if tvb:len() < 8 then
        root:add_proto_expert_info(pe.malformed, "Shorter than 8 bytes")
        return tvb:len()
    end
    root:add(pf.magic, tvb(0, 2))
    local op_item = root:add(pf.opcode, tvb(2, 1))
    local class_item = root:add(pf.class, tvb(3, 1))
    root:add(pf.quanta, tvb(4, 2))
    local res_item = root:add(pf.reserved, tvb(6, 2))
    local op, class, quanta = tvb(2, 1):uint(), tvb(3, 1):uint(), tvb(4, 2):uint()
    if op ~= 1 and op ~= 2 then op_item:add_proto_expert_info(pe.malformed, "Unknown opcode") end
    if class > 1 then class_item:add_proto_expert_info(pe.malformed, "Unknown class") end
    if tvb(6, 2):uint() ~= 0 then res_item:add_proto_expert_info(pe.malformed, "Reserved != 0") end
    pinfo.cols.info = string.format("PFC %s class=%d quanta=%d", op == 1 and "PAUSE" or "RESUME",
                                    class, quanta)
    return 8
end

DissectorTable.get("ip.proto"):add(PFC_PROTOCOL, pfc)
