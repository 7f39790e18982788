#include "metaroce-traffic-matrix.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <sstream>
#include <stdexcept>

namespace ns3
{

namespace
{

[[noreturn]] void
Fail(const std::string& path, const std::string& message)
{
    throw std::invalid_argument("--trafficMatrix: '" + path + "': " + message);
}

/// The entries of one line (comments dropped, commas as blanks).
std::vector<std::string>
Fields(std::string line)
{
    line = line.substr(0, line.find('#'));
    std::replace(line.begin(), line.end(), ',', ' ');
    std::replace(line.begin(), line.end(), '\t', ' ');
    std::replace(line.begin(), line.end(), '\r', ' ');
    std::istringstream in(line);
    std::vector<std::string> fields;
    for (std::string f; in >> f;)
    {
        fields.push_back(f);
    }
    return fields;
}

/// A whole number of bytes up to `max`, or throws naming where it is.
uint64_t
ParseEntry(const std::string& path,
           const std::string& text,
           std::size_t line,
           std::size_t column,
           uint64_t max)
{
    const std::string where =
        "line " + std::to_string(line) + ", column " + std::to_string(column) + ": ";
    if (text.find_first_not_of("0123456789") != std::string::npos)
    {
        Fail(path, where + "'" + text + "' is not a byte count (a whole number >= 0)");
    }
    if (text.size() > 19 || std::stoull(text) > max)
    {
        Fail(path,
             where + text + " bytes is past the largest message (" + std::to_string(max) + ")");
    }
    return std::stoull(text);
}

} // namespace

double
ParseZipfSkew(const std::string& text)
{
    const std::string prefix = "zipf:";
    const std::string number =
        text.compare(0, prefix.size(), prefix) == 0 ? text.substr(prefix.size()) : std::string();
    std::size_t used = 0;
    double s = -1;
    try
    {
        s = number.empty() ? -1 : std::stod(number, &used);
    }
    catch (const std::exception&)
    {
        s = -1;
    }
    if (text.compare(0, prefix.size(), prefix) != 0 || used != number.size() ||
        number.find_first_not_of("+-0123456789.eE") != std::string::npos || !(s >= 0) ||
        !std::isfinite(s) || s > 100)
    {
        throw std::invalid_argument(
            "--skew: '" + text + "' is not zipf:S with an exponent S in [0, 100] (e.g. zipf:1.2)");
    }
    return s;
}

MetaRoceTrafficMatrix
ReadTrafficMatrix(const std::string& path, uint32_t ranks, uint64_t maxEntry)
{
    std::ifstream in(path);
    if (!in)
    {
        Fail(path, "cannot be read");
    }
    MetaRoceTrafficMatrix matrix;
    std::string line;
    std::size_t number = 0;
    while (std::getline(in, line))
    {
        ++number;
        const std::vector<std::string> fields = Fields(line);
        if (fields.empty())
        {
            continue;
        }
        if (matrix.size() == ranks)
        {
            Fail(path,
                 "line " + std::to_string(number) + ": more than " + std::to_string(ranks) +
                     " rows (one per rank: --hosts=" + std::to_string(ranks) + ")");
        }
        if (fields.size() != ranks)
        {
            Fail(path,
                 "line " + std::to_string(number) + ": " + std::to_string(fields.size()) +
                     " entries, not " + std::to_string(ranks) +
                     " (one per rank: --hosts=" + std::to_string(ranks) + ")");
        }
        std::vector<uint64_t> row;
        for (std::size_t c = 0; c < fields.size(); ++c)
        {
            row.push_back(ParseEntry(path, fields[c], number, c + 1, maxEntry));
        }
        matrix.push_back(std::move(row));
    }
    if (in.bad() || (!in.eof() && in.fail()))
    {
        Fail(path, "cannot be read");
    }
    if (matrix.size() != ranks)
    {
        Fail(path,
             std::to_string(matrix.size()) + " rows, not " + std::to_string(ranks) +
                 " (one per rank: --hosts=" + std::to_string(ranks) + ")");
    }
    if (MatrixBytes(matrix, true) == 0)
    {
        Fail(path, "no rank sends a byte to another");
    }
    return matrix;
}

MetaRoceTrafficMatrix
ZipfTrafficMatrix(uint32_t ranks,
                  const MetaRoceMoeRouting& routing,
                  Ptr<UniformRandomVariable> uniform)
{
    const uint32_t experts = routing.experts == 0 ? ranks : routing.experts;
    // Popularity rank i (0 the most popular) has weight 1 / (i + 1)^S; the expert at each
    // popularity rank is a seeded permutation (Fisher-Yates), so that the hot experts are not
    // always on the first ranks.
    std::vector<uint32_t> expertAt(experts);
    std::iota(expertAt.begin(), expertAt.end(), 0);
    for (uint32_t i = experts; i > 1; --i)
    {
        const auto j = std::min<uint32_t>(i - 1, uint32_t(uniform->GetValue() * i));
        std::swap(expertAt[i - 1], expertAt[j]);
    }
    std::vector<double> weight(experts);
    double sum = 0;
    for (uint32_t i = 0; i < experts; ++i)
    {
        weight[i] = 1 / std::pow(i + 1.0, routing.zipfExponent);
        sum += weight[i];
    }
    MetaRoceTrafficMatrix matrix(ranks, std::vector<uint64_t>(ranks, 0));
    std::vector<uint32_t> chosen;
    for (uint32_t r = 0; r < ranks; ++r)
    {
        for (uint64_t t = 0; t < routing.tokensPerRank; ++t)
        {
            // K distinct experts, each drawn by popularity among those not chosen yet.
            chosen.clear();
            double left = sum;
            for (uint32_t k = 0; k < routing.topK; ++k)
            {
                double u = uniform->GetValue() * left;
                uint32_t pick = experts;
                for (uint32_t i = 0; i < experts; ++i)
                {
                    if (std::find(chosen.begin(), chosen.end(), i) != chosen.end())
                    {
                        continue;
                    }
                    pick = i; // the last unchosen one takes what rounding leaves
                    if (u < weight[i])
                    {
                        break;
                    }
                    u -= weight[i];
                }
                chosen.push_back(pick);
                left -= weight[pick];
                const uint64_t expertRank = uint64_t(expertAt[pick]) * ranks / experts;
                matrix[r][expertRank] += routing.tokenBytes;
            }
        }
    }
    return matrix;
}

MetaRoceSchedule
BuildAllToAllV(const MetaRoceTrafficMatrix& matrix, uint32_t channels, uint32_t channel)
{
    const auto n = static_cast<uint32_t>(matrix.size());
    MetaRoceSchedule schedule(n, std::vector<MetaRoceCollectiveStep>(1));
    for (uint32_t r = 0; r < n; ++r)
    {
        for (uint32_t k = 1; k < n; ++k)
        {
            const uint32_t to = (r + k) % n;
            const uint32_t from = (r + n - k) % n;
            const uint64_t out = BlockBytes(matrix[r][to], channels, channel);
            const uint64_t in = BlockBytes(matrix[from][r], channels, channel);
            if (out > 0)
            {
                schedule[r][0].sends.push_back({to, out});
            }
            if (in > 0)
            {
                schedule[r][0].recvs.push_back({from, in});
            }
        }
    }
    return schedule;
}

uint64_t
MatrixBytes(const MetaRoceTrafficMatrix& matrix, bool offDiagonalOnly)
{
    uint64_t sum = 0;
    for (std::size_t r = 0; r < matrix.size(); ++r)
    {
        for (std::size_t d = 0; d < matrix[r].size(); ++d)
        {
            sum += (offDiagonalOnly && r == d) ? 0 : matrix[r][d];
        }
    }
    return sum;
}

uint64_t
MatrixBusiestRankBytes(const MetaRoceTrafficMatrix& matrix)
{
    uint64_t busiest = 0;
    for (std::size_t r = 0; r < matrix.size(); ++r)
    {
        uint64_t out = 0;
        uint64_t in = 0;
        for (std::size_t d = 0; d < matrix.size(); ++d)
        {
            out += d == r ? 0 : matrix[r][d];
            in += d == r ? 0 : matrix[d][r];
        }
        busiest = std::max({busiest, out, in});
    }
    return busiest;
}

} // namespace ns3
