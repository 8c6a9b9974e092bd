// Custom checker following testlib's exit-code contract (see checkio.h).
#include "checkio.h"

int main(int argc, char **argv) {
    if (argc < 4) quit(FAIL, "usage: checker input output answer");
    Tokens in(argv[1], FAIL), ouf(argv[2], PE), ans(argv[3], FAIL);
    long long n = in.integer("n", 1, 100000), m = in.integer("m", 0, 200000);
    std::vector<std::pair<int, int>> e(m);
    for (auto &x : e) { x.first = in.integer("u", 1, n); x.second = in.integer("v", 1, n); }
    bool jury_has = ans.integer("jury first team", -1, 2) != -1;
    std::vector<long long> team(n + 1);
    team[1] = ouf.integer("team", -1000000000LL, 1000000000LL);
    if (team[1] == -1) {
        ouf.finish();
        if (jury_has) quit(WA, "answered -1 but a split exists");
        quit(OK, "no split, correctly");
    }
    for (long long i = 2; i <= n; i++) team[i] = ouf.integer("team", -1000000000LL, 1000000000LL);
    ouf.finish();
    for (long long i = 1; i <= n; i++)
        if (team[i] != 1 && team[i] != 2) quit(WA, "team must be 1 or 2, got " + std::to_string(team[i]));
    for (auto &x : e)
        if (team[x.first] == team[x.second])
            quit(WA, "rivals " + std::to_string(x.first) + " and " + std::to_string(x.second) + " share a team");
    if (!jury_has) quit(FAIL, "contestant split a graph the jury says is not bipartite");
    quit(OK, "valid split");
}
