// Oracle for std::lcmp: each answer line equals the output line as a list of
// tokens split by C's isspace (std::istringstream), lines read with readLine.
#include "testlib.h"
#include <sstream>
#include <string>
#include <vector>

static std::vector<std::string> split_ws(const std::string &line) {
    std::istringstream in(line);
    std::vector<std::string> words;
    for (std::string w; in >> w;) words.push_back(w);
    return words;
}

int main(int argc, char *argv[]) {
    registerTestlibCmd(argc, argv);
    int lines = 0;
    for (;;) {
        if (ans.eof()) break;
        std::string expected = ans.readLine();
        if (expected.empty() && ans.eof()) break;
        std::string found = ouf.readLine();
        ++lines;
        if (split_ws(expected) != split_ws(found))
            quitf(_wa, "line %d differs", lines);
    }
    quitf(_ok, "%d lines", lines);
}
