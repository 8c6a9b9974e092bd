// Custom checker following testlib's exit-code contract (see checkio.h).
#include "checkio.h"

int main(int argc, char **argv) {
    if (argc < 4) quit(FAIL, "usage: checker input output answer");
    Tokens in(argv[1], FAIL), ouf(argv[2], PE), ans(argv[3], FAIL);
    long long n = in.integer("n", 1, 200000), m = in.integer("m", 0, 200000);
    std::vector<std::pair<int, int>> rules(m);
    for (auto &r : rules) { r.first = in.integer("a", 1, n); r.second = in.integer("b", 1, n); }
    bool jury_possible = ans.word("jury answer") != "IMPOSSIBLE";
    if (ouf.peek() == "IMPOSSIBLE") {
        ouf.word("IMPOSSIBLE");
        ouf.finish();
        if (jury_possible) quit(WA, "answered IMPOSSIBLE but an order exists");
        quit(OK, "IMPOSSIBLE, correctly");
    }
    std::vector<int> pos(n + 1, -1);
    for (long long k = 0; k < n; k++) {
        long long v = ouf.integer("task number", -2000000000LL, 2000000000LL);
        if (v < 1 || v > n) quit(WA, "task number out of range: " + std::to_string(v));
        if (pos[v] != -1) quit(WA, "task " + std::to_string(v) + " printed twice");
        pos[v] = k;
    }
    ouf.finish();
    for (auto &r : rules)
        if (pos[r.first] > pos[r.second])
            quit(WA, "rule " + std::to_string(r.first) + " before " + std::to_string(r.second) + " broken");
    if (!jury_possible) quit(FAIL, "contestant found an order the jury says is impossible");
    quit(OK, "valid order");
}
