#include <bits/stdc++.h>
typedef unsigned long long u64; const u64 M = 1000000007ULL;
std::pair<u64, u64> fib(u64 n) { if (!n) return {0, 1}; auto [a, b] = fib(n >> 1); u64 c = a * ((2 * b + M - a) % M) % M, d = (a * a + b * b) % M; return n & 1 ? std::make_pair(d, (c + d) % M) : std::make_pair(c, d); }
int main() { u64 n; std::cin >> n; std::cout << fib(n).first << "\n"; }
