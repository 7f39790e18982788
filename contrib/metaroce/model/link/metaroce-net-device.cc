#include "metaroce-net-device.h"

#include "metaroce-arrivals.h"
#include "metaroce-channel.h"
#include "metaroce-link-prefetcher.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/metaroce-now.h"
#include "ns3/node.h"
#include "ns3/pointer.h"
#include "ns3/ppp-header.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceNetDevice");

NS_OBJECT_ENSURE_REGISTERED(MetaRoceNetDevice);

TypeId
MetaRoceNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MetaRoceNetDevice")
            .SetParent<NetDevice>()
            .SetGroupName("MetaRoce")
            .AddConstructor<MetaRoceNetDevice>()
            .AddAttribute(
                "Mtu",
                "The MAC-level maximum transmission unit (reported, not enforced, as "
                "on the stock point-to-point device)",
                UintegerValue(1500),
                MakeUintegerAccessor(&MetaRoceNetDevice::SetMtu, &MetaRoceNetDevice::GetMtu),
                MakeUintegerChecker<uint16_t>())
            .AddAttribute("Address",
                          "The MAC address of this device",
                          Mac48AddressValue(Mac48Address("ff:ff:ff:ff:ff:ff")),
                          MakeMac48AddressAccessor(&MetaRoceNetDevice::SetMacAddress,
                                                   &MetaRoceNetDevice::GetMacAddress),
                          MakeMac48AddressChecker())
            .AddAttribute("DataRate",
                          "The rate at which frames are serialised",
                          DataRateValue(DataRate("32768b/s")),
                          MakeDataRateAccessor(&MetaRoceNetDevice::SetDataRate,
                                               &MetaRoceNetDevice::GetDataRate),
                          MakeDataRateChecker())
            .AddAttribute("ReceiveErrorModel",
                          "The model that decides which arriving frames are lost",
                          PointerValue(),
                          MakePointerAccessor(&MetaRoceNetDevice::SetReceiveErrorModel,
                                              &MetaRoceNetDevice::GetReceiveErrorModel),
                          MakePointerChecker<ErrorModel>())
            .AddAttribute("InterframeGap",
                          "The idle time after each frame",
                          TimeValue(Seconds(0.0)),
                          MakeTimeAccessor(&MetaRoceNetDevice::m_interframeGap),
                          MakeTimeChecker(Seconds(0.0)))
            .AddAttribute("TxQueue",
                          "The transmit queue",
                          PointerValue(),
                          MakePointerAccessor(&MetaRoceNetDevice::m_queue),
                          MakePointerChecker<Queue<Packet>>());
    return AddTraceSources(tid);
}

TypeId
MetaRoceNetDevice::AddTraceSources(TypeId tid)
{
    // The stock point-to-point device's names, so that helpers and scripts hook them alike.
    return tid
        .AddTraceSource("MacTx",
                        "A frame has been given to this device to transmit",
                        MakeTraceSourceAccessor(&MetaRoceNetDevice::m_macTxTrace),
                        "ns3::Packet::TracedCallback")
        .AddTraceSource("MacTxDrop",
                        "A frame has been dropped before transmission (link down, queue "
                        "full or a protocol other than IPv4)",
                        MakeTraceSourceAccessor(&MetaRoceNetDevice::m_macTxDropTrace),
                        "ns3::Packet::TracedCallback")
        .AddTraceSource("MacPromiscRx",
                        "A frame has been received and goes to the promiscuous callback",
                        MakeTraceSourceAccessor(&MetaRoceNetDevice::m_macPromiscRxTrace),
                        "ns3::Packet::TracedCallback")
        .AddTraceSource("MacRx",
                        "A frame has been received and goes to the receive callback (or the "
                        "frame sink)",
                        MakeTraceSourceAccessor(&MetaRoceNetDevice::m_macRxTrace),
                        "ns3::Packet::TracedCallback")
        .AddTraceSource("PhyTxBegin",
                        "A frame has started serialising onto the channel",
                        MakeTraceSourceAccessor(&MetaRoceNetDevice::m_phyTxBeginTrace),
                        "ns3::Packet::TracedCallback")
        .AddTraceSource("PhyTxEnd",
                        "A frame has been serialised completely",
                        MakeTraceSourceAccessor(&MetaRoceNetDevice::m_phyTxEndTrace),
                        "ns3::Packet::TracedCallback")
        .AddTraceSource("PhyTxDrop",
                        "The channel refused a frame",
                        MakeTraceSourceAccessor(&MetaRoceNetDevice::m_phyTxDropTrace),
                        "ns3::Packet::TracedCallback")
        .AddTraceSource("PhyRxEnd",
                        "A frame has arrived intact",
                        MakeTraceSourceAccessor(&MetaRoceNetDevice::m_phyRxEndTrace),
                        "ns3::Packet::TracedCallback")
        .AddTraceSource("PhyRxDrop",
                        "The receive error model has lost an arriving frame",
                        MakeTraceSourceAccessor(&MetaRoceNetDevice::m_phyRxDropTrace),
                        "ns3::Packet::TracedCallback")
        .AddTraceSource("Sniffer",
                        "Frames sent and received (non-promiscuous pcap)",
                        MakeTraceSourceAccessor(&MetaRoceNetDevice::m_snifferTrace),
                        "ns3::Packet::TracedCallback")
        .AddTraceSource("PromiscSniffer",
                        "Frames sent and received (promiscuous pcap)",
                        MakeTraceSourceAccessor(&MetaRoceNetDevice::m_promiscSnifferTrace),
                        "ns3::Packet::TracedCallback");
}

MetaRoceNetDevice::MetaRoceNetDevice()
{
    m_macTxTrace.Bind(&m_listened, kMacTx);
    m_macTxDropTrace.Bind(&m_listened, kMacTxDrop);
    m_macPromiscRxTrace.Bind(&m_listened, kMacPromiscRx);
    m_macRxTrace.Bind(&m_listened, kMacRx);
    m_phyTxBeginTrace.Bind(&m_listened, kPhyTxBegin);
    m_phyTxEndTrace.Bind(&m_listened, kPhyTxEnd);
    m_phyTxDropTrace.Bind(&m_listened, kPhyTxDrop);
    m_phyRxEndTrace.Bind(&m_listened, kPhyRxEnd);
    m_phyRxDropTrace.Bind(&m_listened, kPhyRxDrop);
    m_snifferTrace.Bind(&m_listened, kSniffer);
    m_promiscSnifferTrace.Bind(&m_listened, kPromiscSniffer);
}

MetaRoceNetDevice::~MetaRoceNetDevice() = default;

void
MetaRoceNetDevice::DoDispose()
{
    if (m_node != nullptr)
    {
        MetaRoceLinkPrefetcher::Forget(m_node->GetId());
    }
    m_node = nullptr;
    m_arrivals = nullptr;
    m_channel = nullptr;
    m_queue = nullptr;
    m_receiveErrorModel = nullptr;
    m_rateErrorModel = nullptr;
    m_current = nullptr;
    m_rxCallback.Nullify();
    m_sink = nullptr;
    m_promiscCallback.Nullify();
    m_listened &= ~kPromiscCallback;
    NetDevice::DoDispose();
}

bool
MetaRoceNetDevice::Attach(Ptr<MetaRoceChannel> channel)
{
    NS_LOG_FUNCTION(this << channel);
    NS_ABORT_MSG_IF(channel == nullptr, "MetaRoceNetDevice::Attach: null channel");
    m_channel = channel;
    m_channel->Attach(this);
    m_remoteKnown = false;
    m_linkUp = true;
    m_linkChanges();
    return true;
}

void
MetaRoceNetDevice::SetDataRate(DataRate rate)
{
    NS_ABORT_MSG_IF(rate.GetBitRate() == 0, "MetaRoceNetDevice: DataRate must be above 0 b/s");
    m_rate = rate;
    ClearTxTimes();
}

void
MetaRoceNetDevice::ClearTxTimes()
{
    m_recentBytes = {UINT32_MAX, UINT32_MAX};
    m_txTimes.fill(TxTimeEntry{});
}

DataRate
MetaRoceNetDevice::GetDataRate() const
{
    return m_rate;
}

void
MetaRoceNetDevice::SetInterframeGap(Time gap)
{
    m_interframeGap = gap;
}

void
MetaRoceNetDevice::SetQueue(Ptr<Queue<Packet>> queue)
{
    m_queue = queue;
}

Ptr<Queue<Packet>>
MetaRoceNetDevice::GetQueue() const
{
    return m_queue;
}

void
MetaRoceNetDevice::SetReceiveErrorModel(Ptr<ErrorModel> em)
{
    m_receiveErrorModel = em;
    // Only ns-3's own RateErrorModel is known not to read the packet: a subclass may.
    m_rateErrorModel = em && em->GetInstanceTypeId() == RateErrorModel::GetTypeId()
                           ? DynamicCast<RateErrorModel>(em)
                           : nullptr;
}

Ptr<ErrorModel>
MetaRoceNetDevice::GetReceiveErrorModel() const
{
    return m_receiveErrorModel;
}

Time
MetaRoceNetDevice::TxTime(uint32_t bytes)
{
    if (m_recentBytes[0] == bytes)
    {
        return m_recentTimes[0];
    }
    const Time time = m_recentBytes[1] == bytes ? m_recentTimes[1] : TxTimeSlow(bytes);
    m_recentBytes = {bytes, m_recentBytes[0]};
    m_recentTimes = {time, m_recentTimes[0]};
    return time;
}

Time
MetaRoceNetDevice::TxTimeSlow(uint32_t bytes)
{
    // Two ways per set, the latest used first; Fibonacci hashing keeps sizes that differ by a
    // multiple of a power of two (a full DATA packet and an ACK) apart.
    TxTimeEntry* set = &m_txTimes[((bytes * 0x9E3779B1u) >> 29) * 2];
    if (set[0].bytes == bytes)
    {
        return set[0].time;
    }
    if (set[1].bytes != bytes)
    {
        set[1] = {bytes, m_rate.CalculateBytesTxTime(bytes + kFrameHeaderBytes)};
    }
    std::swap(set[0], set[1]);
    return set[0].time;
}

Ptr<Packet>
MetaRoceNetDevice::Framed(Ptr<const Packet> p)
{
    Ptr<Packet> frame = p->Copy();
    PppHeader ppp;
    ppp.SetProtocol(0x0021); // IPv4
    frame->AddHeader(ppp);
    return frame;
}

bool
MetaRoceNetDevice::Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber)
{
    NS_LOG_FUNCTION(this << packet << dest << protocolNumber);
    NS_ABORT_MSG_IF(m_queue == nullptr,
                    "MetaRoceNetDevice::Send: no transmit queue (TxQueue attribute or SetQueue)");
    if (!m_linkUp || protocolNumber != kIpv4)
    {
        if (protocolNumber != kIpv4)
        {
            NS_LOG_WARN("MetaRoceNetDevice carries IPv4 only, not protocol " << protocolNumber);
        }
        m_macTxDropTrace(packet);
        return false;
    }
    Fire(kMacTx, m_macTxTrace, packet);
    if (!m_queue->Enqueue(packet))
    {
        Fire(kMacTxDrop, m_macTxDropTrace, packet);
        return false;
    }
    if (PullAtFrameEnd())
    {
        return true;
    }
    Ptr<Packet> next = m_queue->Dequeue();
    Fire(kSniffer, m_snifferTrace, next);
    Fire(kPromiscSniffer, m_promiscSnifferTrace, next);
    return TransmitStart(next);
}

void
MetaRoceNetDevice::DeferCompletion()
{
    m_deferNext = true;
}

bool
MetaRoceNetDevice::PullAtFrameEnd()
{
    if (!m_busy || m_completionScheduled)
    {
        return m_busy;
    }
    const Time now = MetaRoceNow();
    if (now >= m_txEnd)
    {
        m_busy = false; // the deferred frame is over
        return false;
    }
    m_completionScheduled = true;
    m_arrivals->Schedule(nullptr, m_txEnd - now, &MetaRoceNetDevice::TransmitComplete, this);
    return true;
}

bool
MetaRoceNetDevice::TransmitStart(Ptr<Packet> p)
{
    NS_ASSERT_MSG(!m_busy, "MetaRoceNetDevice: transmission started while busy");
    NS_ASSERT_MSG(m_arrivals != nullptr, "MetaRoceNetDevice: transmission from no node");
    m_busy = true;
    Fire(kPhyTxBegin, m_phyTxBeginTrace, p);
    const Time txTime = TxTime(p->GetSize());
    const bool defer = m_deferNext && (m_listened & kPhyTxEnd) == 0;
    m_deferNext = false;
    m_completionScheduled = !defer;
    if (defer)
    {
        m_txEnd = MetaRoceNow() + txTime + m_interframeGap;
    }
    else
    {
        m_current = p;
        m_arrivals->Schedule(nullptr,
                             txTime + m_interframeGap,
                             &MetaRoceNetDevice::TransmitComplete,
                             this);
    }
    if (!m_channel->TransmitStart(p, this, txTime))
    {
        Fire(kPhyTxDrop, m_phyTxDropTrace, p);
        return false;
    }
    return true;
}

void
MetaRoceNetDevice::TransmitComplete()
{
    NS_ASSERT_MSG(m_busy && m_completionScheduled,
                  "MetaRoceNetDevice: transmission ended while idle");
    m_busy = false;
    m_completionScheduled = false;
    if (m_current != nullptr)
    {
        // A deferred frame's end (PullAtFrameEnd) keeps no frame: its PhyTxEnd had no sink.
        Fire(kPhyTxEnd, m_phyTxEndTrace, m_current);
        m_current = nullptr;
    }
    Ptr<Packet> next = m_queue->Dequeue();
    if (next == nullptr)
    {
        return;
    }
    Fire(kSniffer, m_snifferTrace, next);
    Fire(kPromiscSniffer, m_promiscSnifferTrace, next);
    TransmitStart(next);
}

bool
MetaRoceNetDevice::ErrorModelReadsFrame() const
{
    // A RateErrorModel in packet units draws one number per packet and reads nothing of it.
    return !(m_rateErrorModel && m_rateErrorModel->GetUnit() == RateErrorModel::ERROR_UNIT_PACKET);
}

void
MetaRoceNetDevice::Receive(Ptr<Packet> packet)
{
    NS_LOG_FUNCTION(this << packet);
    if (m_receiveErrorModel)
    {
        Ptr<Packet> judged = ErrorModelReadsFrame() ? Framed(packet) : packet;
        if (m_receiveErrorModel->IsCorrupt(judged))
        {
            if ((m_listened & kPhyRxDrop) != 0)
            {
                m_phyRxDropTrace(judged == packet ? Framed(packet) : judged);
            }
            return;
        }
    }
    Fire(kSniffer, m_snifferTrace, packet);
    Fire(kPromiscSniffer, m_promiscSnifferTrace, packet);
    Fire(kPhyRxEnd, m_phyRxEndTrace, packet);
    if ((m_listened & kPromiscCallback) != 0)
    {
        if (!m_remoteKnown)
        {
            RefreshRemote();
        }
        Fire(kMacPromiscRx, m_macPromiscRxTrace, packet);
        m_promiscCallback(this, packet, kIpv4, m_remote, GetAddress(), NetDevice::PACKET_HOST);
    }
    Fire(kMacRx, m_macRxTrace, packet);
    if (m_sink != nullptr)
    {
        m_sink->ReceiveFrame(m_sinkPort, packet);
        return;
    }
    if (!m_remoteKnown)
    {
        RefreshRemote();
    }
    m_rxCallback(this, packet, kIpv4, m_remote);
}

void
MetaRoceNetDevice::RefreshRemote()
{
    m_remote = m_channel->GetEnd(m_channel->GetEnd(0) == this ? 1 : 0)->m_address;
    m_remoteKnown = true;
}

void
MetaRoceNetDevice::SetIfIndex(const uint32_t index)
{
    m_ifIndex = index;
}

uint32_t
MetaRoceNetDevice::GetIfIndex() const
{
    return m_ifIndex;
}

Ptr<Channel>
MetaRoceNetDevice::GetChannel() const
{
    return m_channel;
}

void
MetaRoceNetDevice::SetAddress(Address address)
{
    SetMacAddress(Mac48Address::ConvertFrom(address));
}

void
MetaRoceNetDevice::SetMacAddress(Mac48Address address)
{
    m_address = address;
    // The other end converts it at its next arrival (the receive callbacks' "from").
    for (std::size_t i = 0; m_channel != nullptr && i < m_channel->GetNDevices(); ++i)
    {
        m_channel->GetEnd(i)->m_remoteKnown = false;
    }
}

Mac48Address
MetaRoceNetDevice::GetMacAddress() const
{
    return m_address;
}

Address
MetaRoceNetDevice::GetAddress() const
{
    return m_address;
}

bool
MetaRoceNetDevice::SetMtu(const uint16_t mtu)
{
    m_mtu = mtu;
    return true;
}

uint16_t
MetaRoceNetDevice::GetMtu() const
{
    return m_mtu;
}

bool
MetaRoceNetDevice::IsLinkUp() const
{
    return m_linkUp;
}

void
MetaRoceNetDevice::AddLinkChangeCallback(Callback<void> callback)
{
    m_linkChanges.ConnectWithoutContext(callback);
}

Address
MetaRoceNetDevice::GetBroadcast() const
{
    return Mac48Address::GetBroadcast();
}

Address
MetaRoceNetDevice::GetMulticast(Ipv4Address) const
{
    return Mac48Address("01:00:5e:00:00:00");
}

Address
MetaRoceNetDevice::GetMulticast(Ipv6Address) const
{
    return Mac48Address("33:33:00:00:00:00");
}

bool
MetaRoceNetDevice::SendFrom(Ptr<Packet>, const Address&, const Address&, uint16_t)
{
    return false;
}

Ptr<Node>
MetaRoceNetDevice::GetNode() const
{
    return m_node;
}

void
MetaRoceNetDevice::SetNode(Ptr<Node> node)
{
    m_node = node;
    m_arrivals = node != nullptr ? PeekPointer(MetaRoceArrivals::Of(node)) : nullptr;
}

void
MetaRoceNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback cb)
{
    m_rxCallback = cb;
    m_sink = nullptr;
}

void
MetaRoceNetDevice::SetFrameSink(MetaRoceFrameSink* sink, uint32_t port)
{
    m_sink = sink;
    m_sinkPort = port;
    if (sink != nullptr && m_node != nullptr)
    {
        MetaRoceLinkPrefetcher::Watch(m_node);
    }
}

void
MetaRoceNetDevice::ReleaseFrameSink(const MetaRoceFrameSink* sink)
{
    if (m_sink == sink)
    {
        m_sink = nullptr;
    }
}

void
MetaRoceNetDevice::SetPromiscReceiveCallback(PromiscReceiveCallback cb)
{
    m_promiscCallback = cb;
    m_listened = cb.IsNull() ? m_listened & ~kPromiscCallback : m_listened | kPromiscCallback;
}

} // namespace ns3
