// Custom checker following testlib's exit-code contract (see checkio.h).
#include "checkio.h"

static bool is_prime(long long x) {
    if (x < 2) return false;
    for (long long d = 2; d * d <= x; d++)
        if (x % d == 0) return false;
    return true;
}
int main(int argc, char **argv) {
    if (argc < 4) quit(FAIL, "usage: checker input output answer");
    Tokens in(argv[1], FAIL), ouf(argv[2], PE), ans(argv[3], FAIL);
    long long n = in.integer("n", 4, 1000000000LL);
    long long jp = ans.integer("jury p", 1, n), jq = ans.integer("jury q", 1, n);
    if (jp + jq != n || !is_prime(jp) || !is_prime(jq)) quit(FAIL, "jury pair is not valid");
    long long p = ouf.integer("p", -4000000000LL, 4000000000LL), q = ouf.integer("q", -4000000000LL, 4000000000LL);
    ouf.finish();
    if (p + q != n) quit(WA, "p + q != n");
    if (!is_prime(p)) quit(WA, std::to_string(p) + " is not prime");
    if (!is_prime(q)) quit(WA, std::to_string(q) + " is not prime");
    quit(OK, "valid pair");
}
