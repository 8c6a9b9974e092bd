// Custom checker following testlib's exit-code contract (see checkio.h).
#include "checkio.h"

int main(int argc, char **argv) {
    if (argc < 4) quit(FAIL, "usage: checker input output answer");
    Tokens in(argv[1], FAIL), ouf(argv[2], PE), ans(argv[3], FAIL);
    long long n = in.integer("n", 1, 100), T = in.integer("T", 1, 100000);
    std::vector<long long> a(n + 1);
    for (long long i = 1; i <= n; i++) a[i] = in.integer("a_i", 1, 1000);
    bool jury_has = ans.integer("jury count", -1, n) != -1;
    long long k = ouf.integer("count", -1, 1000000000LL);
    if (k == -1) {
        ouf.finish();
        if (jury_has) quit(WA, "answered -1 but a choice exists");
        quit(OK, "impossible, correctly");
    }
    if (k < 1 || k > n) quit(WA, "count must be between 1 and n");
    std::vector<bool> used(n + 1, false);
    long long sum = 0;
    for (long long c = 0; c < k; c++) {
        long long i = ouf.integer("position", -1000000000LL, 1000000000LL);
        if (i < 1 || i > n) quit(WA, "position out of range: " + std::to_string(i));
        if (used[i]) quit(WA, "position " + std::to_string(i) + " used twice");
        used[i] = true;
        sum += a[i];
    }
    ouf.finish();
    if (sum != T) quit(WA, "chosen values add up to " + std::to_string(sum) + ", not " + std::to_string(T));
    if (!jury_has) quit(FAIL, "contestant found a choice the jury missed");
    quit(OK, "valid choice");
}
