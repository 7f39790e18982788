#include "engine-counters.h"

#include <numeric>

namespace metaroce
{

uint64_t
Counters::TotalDrops() const
{
    return std::accumulate(drops.begin(), drops.end(), uint64_t{0});
}

Counters&
Counters::operator+=(const Counters& other)
{
    for (const CounterField& field : kCounterFields)
    {
        this->*field.member += other.*field.member;
    }
    for (std::size_t i = 0; i < drops.size(); ++i)
    {
        drops[i] += other.drops[i];
    }
    return *this;
}

} // namespace metaroce
