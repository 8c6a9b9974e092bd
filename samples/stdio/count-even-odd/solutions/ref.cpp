#include <bits/stdc++.h>
int main() { int n; std::cin >> n; int ev = 0; for (int i = 0; i < n; i++) { long long x; std::cin >> x; if (x % 2 == 0) ev++; } std::cout << ev << " " << n - ev << "\n"; }
