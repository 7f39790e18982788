// ns-3's test runner over the metaroce TestSuites linked into this binary: the same
// --list, --suite=NAME, --fullness=QUICK|EXTENSIVE|TAKES_FOREVER and --verbose as ns-3's own.
#include "ns3/test.h"

int
main(int argc, char** argv)
{
    return ns3::TestRunner::Run(argc, argv);
}
