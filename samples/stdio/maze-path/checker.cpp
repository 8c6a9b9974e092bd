// Custom checker following testlib's exit-code contract directly (no testlib.h):
//   checker <input> <contestant output> <jury answer>
//   exit 0 OK, 1 WA, 2 PE (malformed output), 3 FAIL (jury answer inconsistent).
// One line of explanation goes to stderr.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

enum Verdict { OK = 0, WA = 1, PE = 2, FAIL = 3 };

[[noreturn]] static void quit(Verdict v, const std::string &msg) {
    static const char *names[] = {"ok", "wrong answer", "presentation error", "FAIL"};
    std::fprintf(stderr, "%s: %s\n", names[v], msg.c_str());
    std::exit(v);
}

// Whitespace-separated tokens of a file, read one by one.
struct Tokens {
    std::vector<std::string> toks;
    size_t pos = 0;
    Verdict bad;  // verdict when this stream is malformed: PE for the contestant, FAIL for jury files
    Tokens(const char *path, Verdict bad_) : bad(bad_) {
        std::ifstream in(path, std::ios::binary);
        if (!in) quit(FAIL, std::string("cannot open ") + path);
        std::string t;
        while (in >> t) toks.push_back(t);
    }
    bool eof() const { return pos >= toks.size(); }
    std::string word(const char *what) {
        if (eof()) quit(bad, std::string("expected ") + what + ", found end of file");
        return toks[pos++];
    }
    long long integer(const char *what, long long lo, long long hi) {
        std::string t = word(what);
        size_t i = (t[0] == '-') ? 1 : 0;
        if (i == t.size() || t.size() - i > 18) quit(bad, std::string(what) + " is not an integer: " + t.substr(0, 30));
        for (size_t k = i; k < t.size(); k++)
            if (t[k] < '0' || t[k] > '9') quit(bad, std::string(what) + " is not an integer: " + t.substr(0, 30));
        long long v = std::atoll(t.c_str());
        if (v < lo || v > hi) quit(bad == FAIL ? FAIL : WA, std::string(what) + " out of range: " + t);
        return v;
    }
    void finish() {
        if (!eof()) quit(bad, "extra output after the answer: " + toks[pos].substr(0, 30));
    }
};

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
