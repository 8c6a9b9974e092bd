// Oracle for std::rcmp4/rcmp6/rcmp9: for every double of the answer, one double of the
// output within doubleCompare(EPS); EPS is substituted by the test (@EPS@).
#include "testlib.h"

int main(int argc, char *argv[]) {
    const double eps = @EPS@;
    registerTestlibCmd(argc, argv);
    int k = 0;
    while (!ans.seekEof()) {
        ++k;
        double expected = ans.readDouble();
        double found = ouf.readDouble();
        if (!doubleCompare(expected, found, eps)) quitf(_wa, "number %d differs", k);
    }
    quitf(_ok, "%d numbers", k);
}
