#include <bits/stdc++.h>
int main() { long long n; std::cin >> n; long long c = 0; for (long long d = 1; d * d <= n; d++) if (n % d == 0) c += (d * d == n) ? 1 : 2; std::cout << c << "\n"; }
