// Oracle for std::icmp: one int32 each (readInt), equal.
#include "testlib.h"

int main(int argc, char *argv[]) {
    registerTestlibCmd(argc, argv);
    int expected = ans.readInt();
    int found = ouf.readInt();
    if (expected != found) quitf(_wa, "expected %d, found %d", expected, found);
    quitf(_ok, "%d", expected);
}
