#include <bits/stdc++.h>
int main() { int n; std::cin >> n; int odd = 0; for (int i = 0; i < n; i++) { long long x; std::cin >> x; if (x % 2 == 1) odd++; } std::cout << n - odd << " " << odd << "\n"; }
