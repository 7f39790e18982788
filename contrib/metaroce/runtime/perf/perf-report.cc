#include "perf-report.h"

#include <algorithm>
#include <cmath>
#include <iomanip>

namespace metaroce::perf
{

namespace
{

const char*
Title(Test t)
{
    switch (t)
    {
    case Test::WriteBw:
        return "RDMA_Write BW Test";
    case Test::SendBw:
        return "Send BW Test";
    case Test::WriteLat:
        return "RDMA_Write Latency Test (post to completion: one round trip)";
    case Test::SendLat:
        return "Send Latency Test (ping-pong, half round trip)";
    }
    return "";
}

double
Percentile(const std::vector<uint64_t>& sorted, double p)
{
    const std::size_t i =
        std::min(sorted.size() - 1, static_cast<std::size_t>(std::ceil(p * sorted.size())) - 1);
    return sorted[i] / 1000.0;
}

std::string
Endpoint(const Identity& id)
{
    return JoinComma(id.udpAddrs) + ":" + std::to_string(id.udpPort);
}

/// perftest's " local address: LID ... QPN ... PSN ... RKey ... VAddr ..." line.
void
AddressLine(std::ostream& out, const char* side, Transport t, const Identity& id)
{
    const int width = t == Transport::RoceV2 ? 6 : 8;
    out << " " << side << " address: " << (t == Transport::RoceV2 ? "QPN" : "Connection") << " 0x"
        << std::hex << std::setfill('0') << std::setw(width) << id.connection << " PSN 0x"
        << std::setw(width) << id.initialPsn << " RKey 0x" << std::setw(8) << id.rkey << " VAddr 0x"
        << std::setw(16) << id.bufferAddr << std::dec << std::setfill(' ') << "\n";
}

} // namespace

void
PrintRule(std::ostream& out)
{
    out << std::string(95, '-') << "\n";
}

void
PrintBanner(std::ostream& out, const PerfOptions& o, const Identity& local, const Identity& remote)
{
    PrintRule(out);
    out << "                    " << Title(o.test) << "\n";
    out << std::left;
    out << " Transport       : " << std::setw(20) << TransportName(o.transport)
        << " Planes         : " << o.planes << "\n";
    out << " Line rate       : " << std::setw(20) << (std::to_string(o.rateGbps) + " Gb/s/plane")
        << " MTU            : " << o.mtu << "\n";
    out << " TX depth        : " << std::setw(20) << o.txDepth
        << " Injected loss  : " << o.lossPercent << " % each way\n";
    out << " Entropy         : " << std::setw(20)
        << (o.entropy == udp::EntropyMode::Bind ? "bound source ports" : "one socket")
        << " Reorder/dup    : " << o.reorderPercent << " % / " << o.duplicatePercent << " %\n";
    out << " mCRC            : " << std::setw(20) << (o.mcrc ? "on" : "off")
        << " Bit errors     : " << o.corruptPercent << " % each way\n";
    out << " Local UDP       : " << std::setw(20) << Endpoint(local)
        << " Remote UDP     : " << Endpoint(remote) << "\n";
    out << std::right;
    PrintRule(out);
    AddressLine(out, "local", o.transport, local);
    AddressLine(out, "remote", o.transport, remote);
    PrintRule(out);
}

void
PrintColumns(std::ostream& out, Test t)
{
    if (IsLatency(t))
    {
        out << " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
               "t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]\n";
        return;
    }
    out << " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   "
           "BW average[MB/sec]   MsgRate[Mpps]\n";
}

void
PrintBandwidthRow(std::ostream& out,
                  uint64_t size,
                  uint64_t startNs,
                  const std::vector<uint64_t>& done)
{
    const std::size_t n = done.size();
    const double seconds = (done.back() - startNs) / 1e9;
    const double average = size * n / seconds; // bytes per second
    const std::size_t window = std::max<std::size_t>(1, n / 20);
    double peak = average;
    for (std::size_t i = window; i < n; ++i)
    {
        const uint64_t span = done[i] - done[i - window];
        if (span > 0)
        {
            peak = std::max(peak, size * window / (span / 1e9));
        }
    }
    out << std::fixed << " " << std::left << std::setw(11) << size << std::setw(15) << n
        << std::right << std::setprecision(2) << std::setw(15) << peak * 8 / 1e9 << std::setw(22)
        << average * 8 / 1e9 << std::setw(21) << average / 1e6 << std::setprecision(6)
        << std::setw(17) << n / seconds / 1e6 << "\n";
}

void
PrintLatencyRow(std::ostream& out, uint64_t size, std::vector<uint64_t> samples)
{
    std::sort(samples.begin(), samples.end());
    double sum = 0;
    for (uint64_t s : samples)
    {
        sum += s / 1000.0;
    }
    const double avg = sum / samples.size();
    double var = 0;
    for (uint64_t s : samples)
    {
        var += (s / 1000.0 - avg) * (s / 1000.0 - avg);
    }
    out << std::fixed << std::setprecision(2) << " " << std::left << std::setw(7) << size
        << std::setw(12) << samples.size() << std::right << std::setw(10)
        << samples.front() / 1000.0 << std::setw(15) << samples.back() / 1000.0 << std::setw(17)
        << Percentile(samples, 0.5) << std::setw(15) << avg << std::setw(17)
        << std::sqrt(var / samples.size()) << std::setw(23) << Percentile(samples, 0.99)
        << std::setw(25) << Percentile(samples, 0.999) << "\n";
}

} // namespace metaroce::perf
