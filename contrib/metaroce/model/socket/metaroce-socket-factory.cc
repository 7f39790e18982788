#include "metaroce-socket-factory.h"

#include "metaroce-socket.h"

#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/metaroce-nic.h"
#include "ns3/metaroce-ns3-compat.h"
#include "ns3/node-list.h"
#include "ns3/node.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceSocketFactory");
NS_OBJECT_ENSURE_REGISTERED(MetaRoceSocketFactory);

namespace
{

constexpr uint16_t kEphemeralFirst = 49152;

} // namespace

TypeId
MetaRoceSocketFactory::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MetaRoceSocketFactory")
            .SetParent<SocketFactory>()
            .SetGroupName("MetaRoce")
            .AddConstructor<MetaRoceSocketFactory>()
            .AddAttribute("Transport",
                          "Transport of the sockets this factory creates: a MetaRoCE connection "
                          "over every plane, or a RoCEv2 RC queue pair on the plane of the "
                          "address connected to.",
                          EnumValue(static_cast<int>(metaroce::Transport::MetaRoce)),
                          MetaRoceMakeIntEnumAccessor(&MetaRoceSocketFactory::SetTransportValue,
                                                      &MetaRoceSocketFactory::GetTransportValue),
                          MakeEnumChecker(static_cast<int>(metaroce::Transport::MetaRoce),
                                          "metaroce",
                                          static_cast<int>(metaroce::Transport::RoceV2),
                                          "rocev2"));
    return tid;
}

MetaRoceSocketFactory::MetaRoceSocketFactory()
{
    NS_LOG_FUNCTION(this);
}

MetaRoceSocketFactory::~MetaRoceSocketFactory() = default;

void
MetaRoceSocketFactory::DoDispose()
{
    NS_LOG_FUNCTION(this);
    // Move out first: disposing a socket may call back into the port table.
    std::vector<Ptr<MetaRoceSocket>> sockets;
    sockets.swap(m_sockets);
    for (Ptr<MetaRoceSocket>& s : sockets)
    {
        s->Dispose();
    }
    m_listeners.clear();
    m_boundPorts.clear();
    SocketFactory::DoDispose();
}

void
MetaRoceSocketFactory::SetTransportValue(int value)
{
    m_transport = static_cast<metaroce::Transport>(value);
}

int
MetaRoceSocketFactory::GetTransportValue() const
{
    return static_cast<int>(m_transport);
}

void
MetaRoceSocketFactory::SetTransport(metaroce::Transport transport)
{
    m_transport = transport;
}

metaroce::Transport
MetaRoceSocketFactory::GetTransport() const
{
    return m_transport;
}

uint32_t
MetaRoceSocketFactory::GetNSockets() const
{
    return static_cast<uint32_t>(m_sockets.size());
}

Ptr<Node>
MetaRoceSocketFactory::GetNodeChecked() const
{
    Ptr<Node> node = GetObject<Node>();
    NS_ABORT_MSG_IF(node == nullptr, "MetaRoceSocketFactory: aggregate the factory to a node");
    return node;
}

Ptr<MetaRoceNic>
MetaRoceSocketFactory::GetNic() const
{
    Ptr<MetaRoceNic> nic = GetObject<MetaRoceNic>();
    NS_ABORT_MSG_IF(nic == nullptr,
                    "MetaRoceSocketFactory: node " << GetNodeChecked()->GetId()
                                                   << " has no MetaRoceNic (MetaRoceHelper::"
                                                      "Install)");
    return nic;
}

Ptr<Socket>
MetaRoceSocketFactory::CreateSocket()
{
    NS_LOG_FUNCTION(this);
    Ptr<Node> node = GetNodeChecked();
    GetNic(); // fail here, with a clear message, rather than at Bind or Connect
    Ptr<MetaRoceSocket> socket = CreateObject<MetaRoceSocket>();
    socket->SetFactory(this, node);
    socket->SetTransport(m_transport);
    m_sockets.push_back(socket);
    return socket;
}

void
MetaRoceSocketFactory::Adopt(Ptr<MetaRoceSocket> socket)
{
    m_sockets.push_back(socket);
}

uint16_t
MetaRoceSocketFactory::BindPort(uint16_t port)
{
    if (port != 0)
    {
        return m_boundPorts.insert(port).second ? port : 0;
    }
    // Ephemeral: the next free port of the range, wrapping once.
    constexpr uint32_t kRange = 65536 - kEphemeralFirst;
    for (uint32_t tried = 0; tried < kRange; ++tried)
    {
        const uint16_t candidate = m_nextEphemeral;
        m_nextEphemeral = candidate == 65535 ? kEphemeralFirst : candidate + 1;
        if (m_boundPorts.insert(candidate).second)
        {
            return candidate;
        }
    }
    return 0;
}

void
MetaRoceSocketFactory::ReleasePort(uint16_t port)
{
    m_boundPorts.erase(port);
}

void
MetaRoceSocketFactory::AddListener(uint16_t port, Ptr<MetaRoceSocket> socket)
{
    NS_ASSERT_MSG(m_listeners.count(port) == 0, "two listeners on port " << port);
    m_listeners[port] = socket;
}

void
MetaRoceSocketFactory::RemoveListener(uint16_t port)
{
    m_listeners.erase(port);
}

Ptr<MetaRoceSocket>
MetaRoceSocketFactory::FindListener(Ipv4Address address, uint16_t port) const
{
    auto it = m_listeners.find(port);
    if (it == m_listeners.end())
    {
        return nullptr;
    }
    Address bound;
    it->second->GetSockName(bound);
    const Ipv4Address ip = InetSocketAddress::ConvertFrom(bound).GetIpv4();
    return ip.IsAny() || ip == address ? it->second : nullptr;
}

Ptr<Node>
MetaRoceSocketFactory::FindOwner(Ipv4Address address, uint32_t& plane)
{
    for (auto it = NodeList::Begin(); it != NodeList::End(); ++it)
    {
        Ptr<MetaRoceNic> nic = (*it)->GetObject<MetaRoceNic>();
        if (nic == nullptr)
        {
            continue;
        }
        for (uint32_t p = 0; p < nic->GetNPorts(); ++p)
        {
            if (nic->GetAddress(p) == address)
            {
                plane = p;
                return *it;
            }
        }
    }
    return nullptr;
}

} // namespace ns3
