// Oracle for std::fcmp: each answer line equals the output line byte for byte,
// lines read with readLine.
#include "testlib.h"
#include <string>

int main(int argc, char *argv[]) {
    registerTestlibCmd(argc, argv);
    int lines = 0;
    for (;;) {
        if (ans.eof()) break;
        std::string expected = ans.readLine();
        if (expected.empty() && ans.eof()) break;
        std::string found = ouf.readLine();
        ++lines;
        if (expected != found) quitf(_wa, "line %d differs", lines);
    }
    quitf(_ok, "%d lines", lines);
}
