#include <bits/stdc++.h>
bool prime(long long x) { if (x < 2) return false; for (long long d = 2; d * d <= x; d++) if (x % d == 0) return false; return true; }
int main() { long long n; std::cin >> n; for (long long p = 2;; p++) if (prime(p) && prime(n - p)) { std::cout << p << " " << n - p << "\n"; return 0; } }
