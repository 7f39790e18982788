/*
 * The socket factory that makes MetaRoCE (and RoCEv2) reachable through ns-3's socket API.
 *
 * ns-3 applications never name a socket class: they hold a TypeId ("Protocol" attribute) and
 * call Socket::CreateSocket(node, tid), which asks the node for the aggregated object of that
 * TypeId and calls its CreateSocket(). UdpSocketFactory and TcpSocketFactory are found that
 * way; so is this factory. Aggregate it to a host node that has a MetaRoceNic
 * (MetaRoceHelper::InstallSocketFactory does both checks) and point the application at it:
 *
 *   MetaRoceHelper rdma;
 *   ...
 *   rdma.InstallSocketFactory(node, metaroce::Transport::RoceV2);
 *   BulkSendHelper bulk("ns3::MetaRoceSocketFactory", InetSocketAddress(peer, 9));
 *
 * The factory is per node and does three jobs besides making sockets:
 *
 *  - it chooses the transport of the sockets it makes ("Transport": metaroce or rocev2; an
 *    EnumValue, so StringValue("rocev2") and Config::SetDefault work and a misspelt name is
 *    refused by the attribute system);
 *  - it is the node's port table: which ports are bound, which socket listens on which port,
 *    and the ephemeral range (49152-65535) for Bind() and implicit binds;
 *  - it owns every socket it made, the way TcpL4Protocol owns TCP sockets, so that a socket
 *    the application dropped still drains its sends and keeps re-posting receive buffers for
 *    its peer. Sockets are disposed with the node (Simulator::Destroy).
 *
 * One factory per node, hence one transport per node for sockets; queue pairs made directly
 * with MetaRoceNic::Connect are unaffected and can use either transport on the same NIC.
 */
#ifndef METAROCE_SOCKET_FACTORY_H
#define METAROCE_SOCKET_FACTORY_H

#include "ns3/ipv4-address.h"
#include "ns3/socket-factory.h"
#include "ns3/transport-engine.h"

#include <map>
#include <set>
#include <vector>

namespace ns3
{

class MetaRoceNic;
class MetaRoceSocket;
class Node;

/**
 * \ingroup metaroce
 * \brief Creates MetaRoceSocket objects; aggregate one to each host node that has a MetaRoceNic.
 */
class MetaRoceSocketFactory : public SocketFactory
{
  public:
    static TypeId GetTypeId();
    MetaRoceSocketFactory();
    ~MetaRoceSocketFactory() override;

    /**
     * Creates an unbound MetaRoceSocket on this node, using this factory's transport. Aborts
     * if the factory is not aggregated to a node with a MetaRoceNic.
     */
    Ptr<Socket> CreateSocket() override;

    /// The transport of sockets created from now on.
    void SetTransport(metaroce::Transport transport);
    metaroce::Transport GetTransport() const;

    /// Sockets this factory made (including accepted ones) that are still alive.
    uint32_t GetNSockets() const;

    /**
     * The node whose MetaRoceNic owns `address` (on any plane), and that plane in `plane`;
     * nullptr if no node of the simulation owns it. Looks through NodeList, so it only ever
     * sees the current simulation (no static state survives Simulator::Destroy).
     */
    static Ptr<Node> FindOwner(Ipv4Address address, uint32_t& plane);

  protected:
    void DoDispose() override;

  private:
    friend class MetaRoceSocket;

    Ptr<Node> GetNodeChecked() const;
    Ptr<MetaRoceNic> GetNic() const;

    /// Marks `port` bound (0: pick an ephemeral port). Returns the port, or 0 if none is free.
    uint16_t BindPort(uint16_t port);
    void ReleasePort(uint16_t port);
    void AddListener(uint16_t port, Ptr<MetaRoceSocket> socket);
    void RemoveListener(uint16_t port);
    /// The socket listening on `port` bound to `address` or to the any-address; else nullptr.
    Ptr<MetaRoceSocket> FindListener(Ipv4Address address, uint16_t port) const;
    /// Takes ownership of a socket made for an accepted connection.
    void Adopt(Ptr<MetaRoceSocket> socket);

    // The attribute accessors, as an EnumValue stores an int.
    void SetTransportValue(int value);
    int GetTransportValue() const;

    metaroce::Transport m_transport{metaroce::Transport::MetaRoce};
    std::vector<Ptr<MetaRoceSocket>> m_sockets;
    std::set<uint16_t> m_boundPorts;
    std::map<uint16_t, Ptr<MetaRoceSocket>> m_listeners;
    uint16_t m_nextEphemeral{49152};
};

} // namespace ns3

#endif // METAROCE_SOCKET_FACTORY_H
