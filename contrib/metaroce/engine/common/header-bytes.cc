#include "header-bytes.h"

#include <stdexcept>
#include <string>

namespace metaroce
{

void
HeaderBytes::ThrowTooLong(std::size_t size)
{
    throw std::length_error("header of " + std::to_string(size) + " bytes exceeds " +
                            std::to_string(kCapacity));
}

} // namespace metaroce
