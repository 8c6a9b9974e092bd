// Oracle for std::nyesno: pairwise YES/NO tokens (ASCII case-insensitive) while both
// files have tokens; a bad jury token is FAIL, a bad output token PE, a mismatch WA;
// then any tokens left on either side (jury's first) make it WA.
#include "testlib.h"
#include <string>

static bool yes_or_no(const std::string &t) { return t == "YES" || t == "NO"; }

int main(int argc, char *argv[]) {
    registerTestlibCmd(argc, argv);
    int k = 0;
    while (!ans.seekEof() && !ouf.seekEof()) {
        ++k;
        std::string expected = upperCase(ans.readToken());
        std::string found = upperCase(ouf.readToken());
        if (!yes_or_no(expected)) quitf(_fail, "jury token %d is not YES/NO", k);
        if (!yes_or_no(found)) quitf(_pe, "token %d is not YES/NO", k);
        if (expected != found) quitf(_wa, "token %d differs", k);
    }
    int more_ans = 0, more_ouf = 0;
    for (; !ans.seekEof(); ++more_ans) ans.readToken();
    for (; !ouf.seekEof(); ++more_ouf) ouf.readToken();
    if (more_ans > 0) quitf(_wa, "answer is longer");
    if (more_ouf > 0) quitf(_wa, "output is longer");
    quitf(_ok, "%d tokens", k);
}
