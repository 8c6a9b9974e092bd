// Custom checker following testlib's exit-code contract (see checkio.h).
#include "checkio.h"

int main(int argc, char **argv) {
    if (argc < 4) quit(FAIL, "usage: checker input output answer");
    Tokens in(argv[1], FAIL), ouf(argv[2], PE), ans(argv[3], FAIL);
    long long h = in.integer("h", 1, 300), w = in.integer("w", 1, 300);
    std::vector<std::string> g(h);
    long long si = -1, sj = -1, ti = -1, tj = -1;
    for (long long i = 0; i < h; i++) {
        g[i] = in.word("grid row");
        if ((long long)g[i].size() != w) quit(FAIL, "bad grid row in input");
        for (long long j = 0; j < w; j++) {
            if (g[i][j] == 'S') { si = i; sj = j; }
            if (g[i][j] == 'T') { ti = i; tj = j; }
        }
    }
    long long best = ans.integer("jury length", -1, h * w);
    long long k = ouf.integer("route length", -1, 1000000000LL);
    if (k == -1) {
        ouf.finish();
        if (best != -1) quit(WA, "answered -1 but T is reachable");
        quit(OK, "unreachable, correctly");
    }
    if (k == 0) quit(WA, "S and T differ, a route needs at least one move");
    std::string route = ouf.word("route");
    ouf.finish();
    if ((long long)route.size() != k) quit(PE, "route has " + std::to_string(route.size()) + " letters, expected " + std::to_string(k));
    long long i = si, j = sj;
    for (char c : route) {
        if (c == 'U') i--; else if (c == 'D') i++; else if (c == 'L') j--; else if (c == 'R') j++;
        else quit(PE, std::string("route letter is not one of UDLR: ") + c);
        if (i < 0 || j < 0 || i >= h || j >= w) quit(WA, "route leaves the grid");
        if (g[i][j] == '#') quit(WA, "route walks into a wall");
    }
    if (i != ti || j != tj) quit(WA, "route does not end at T");
    if (best == -1) quit(FAIL, "contestant reached T, jury says unreachable");
    if (k > best) quit(WA, "route has " + std::to_string(k) + " moves, shortest is " + std::to_string(best));
    if (k < best) quit(FAIL, "contestant route shorter than the jury's");
    quit(OK, "shortest route");
}
