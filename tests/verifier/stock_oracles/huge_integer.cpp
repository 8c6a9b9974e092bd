// Oracle for std::hcmp: one arbitrary-length integer token (0 or -?[1-9][0-9]*) each;
// the answer must hold exactly one token.
#include "testlib.h"
#include <string>

static bool canonical_integer(const std::string &t) {
    size_t i = (!t.empty() && t[0] == '-') ? 1 : 0;
    if (t == "0") return true;
    if (i >= t.size() || t[i] < '1' || t[i] > '9') return false;
    for (; i < t.size(); ++i)
        if (t[i] < '0' || t[i] > '9') return false;
    return true;
}

int main(int argc, char *argv[]) {
    registerTestlibCmd(argc, argv);
    std::string expected = ans.readToken();
    std::string found = ouf.readToken();
    if (!canonical_integer(expected)) quitf(_fail, "jury token is not an integer");
    if (!ans.seekEof()) quitf(_fail, "jury answer has more than one token");
    if (!canonical_integer(found)) quitf(_pe, "not an integer");
    if (expected != found) quitf(_wa, "differs");
    quitf(_ok, "equal");
}
