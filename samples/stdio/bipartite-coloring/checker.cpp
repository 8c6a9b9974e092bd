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
