/*
 * metaroce-perf: perftest's bandwidth and latency tests (ib_write_bw, ib_send_bw,
 * ib_write_lat, ib_send_lat) over libsoftmetaroce's engines on real UDP sockets: MetaRoCE or
 * RoCEv2, one UDP socket per plane, verified bytes. Run the server, then the client:
 *
 *   metaroce-perf --transport=metaroce                       # server
 *   metaroce-perf --transport=metaroce -s 1M -n 1024 127.0.0.1   # client
 *
 * Exit status: 0 when every message size ran and the server verified its bytes; 1 on a data
 * mismatch, a failed completion, a timeout or a session the server refused (client); 2 on a
 * bad option (one line naming it). The server serves clients one at a time until a session
 * runs to its end; a client whose control messages are wrong is refused in one line on stderr
 * and the next one is served (perf-run.h).
 */
#include "perf-options.h"
#include "perf-run.h"

#include <iostream>
#include <stdexcept>

int
main(int argc, char** argv)
{
    using namespace metaroce::perf;
    PerfOptions options;
    try
    {
        bool help = false;
        options = ParseOptions(argc, argv, help);
        if (help)
        {
            std::cout << UsageText();
            return 0;
        }
    }
    catch (const std::invalid_argument& e)
    {
        std::cerr << "metaroce-perf: " << e.what() << "\n";
        return 2;
    }
    try
    {
        return options.server ? RunServer(options) : RunClient(options);
    }
    catch (const std::exception& e)
    {
        std::cerr << "metaroce-perf: " << e.what() << "\n";
        return 1;
    }
}
