// Custom checker following testlib's exit-code contract (see checkio.h).
#include "checkio.h"

int main(int argc, char **argv) {
    if (argc < 4) quit(FAIL, "usage: checker input output answer");
    Tokens in(argv[1], FAIL), ouf(argv[2], PE), ans(argv[3], FAIL);
    long long n = in.integer("n", 2, 200000);
    std::vector<bool> used(n + 1, false);
    for (long long i = 1; i <= n; i++) {
        long long s = ouf.integer("seat", -1000000000LL, 1000000000LL);
        if (s < 1 || s > n) quit(WA, "seat out of range: " + std::to_string(s));
        if (used[s]) quit(WA, "seat " + std::to_string(s) + " given twice");
        if (s == i) quit(WA, "person " + std::to_string(i) + " keeps their seat");
        used[s] = true;
    }
    ouf.finish();
    quit(OK, "valid seating");
}
