#include "metaroce-options.h"

#include "ns3/abort.h"

#include <sstream>
#include <stdexcept>

namespace ns3
{

std::vector<std::string>
SplitOptionList(const std::string& option, const std::string& text)
{
    std::vector<std::string> items;
    std::stringstream ss(text);
    for (std::string item; std::getline(ss, item, ',');)
    {
        NS_ABORT_MSG_IF(item.empty(), "--" << option << ": empty item in '" << text << "'");
        items.push_back(item);
    }
    NS_ABORT_MSG_IF(items.empty(), "--" << option << ": empty list");
    return items;
}

std::vector<double>
ParseProbabilityList(const std::string& option, const std::string& text)
{
    std::vector<double> values;
    for (const std::string& item : SplitOptionList(option, text))
    {
        std::size_t used = 0;
        double v = -1;
        try
        {
            v = std::stod(item, &used);
        }
        catch (const std::exception&)
        {
            used = 0;
        }
        NS_ABORT_MSG_IF(used != item.size() || !(v >= 0 && v < 1),
                        "--" << option << ": '" << item << "' is not a probability in [0, 1)");
        values.push_back(v);
    }
    return values;
}

} // namespace ns3
