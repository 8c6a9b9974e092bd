#include <bits/stdc++.h>
int main() { long long n; std::cin >> n; bool ok = n >= 2; for (long long d = 2; d * d <= n; d++) if (n % d == 0) { ok = false; break; } std::cout << (ok ? "YES" : "NO") << "\n"; }
