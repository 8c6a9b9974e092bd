// Custom checker following testlib's exit-code contract (see checkio.h).
#include "checkio.h"

int main(int argc, char **argv) {
    if (argc < 4) quit(FAIL, "usage: checker input output answer");
    Tokens in(argv[1], FAIL), ouf(argv[2], PE), ans(argv[3], FAIL);
    long long n = in.integer("n", 1, 200000), t = in.integer("t", -4000000000LL, 4000000000LL);
    std::vector<long long> a(n + 1);
    for (long long i = 1; i <= n; i++) a[i] = in.integer("a_i", -1000000000LL, 1000000000LL);
    bool jury_has = ans.integer("jury first index", -1, n) != -1;
    long long i = ouf.integer("first index", -1, n);
    if (i == -1) {
        ouf.finish();
        if (jury_has) quit(WA, "answered -1 but a pair exists");
        quit(OK, "no pair, correctly");
    }
    long long j = ouf.integer("second index", -1, n);
    ouf.finish();
    if (i < 1 || j < 1) quit(WA, "positions must be between 1 and n");
    if (i == j) quit(WA, "the two positions must differ");
    if (a[i] + a[j] != t) quit(WA, "a_i + a_j != t for i=" + std::to_string(i) + " j=" + std::to_string(j));
    if (!jury_has) quit(FAIL, "contestant found a pair the jury missed");
    quit(OK, "valid pair");
}
