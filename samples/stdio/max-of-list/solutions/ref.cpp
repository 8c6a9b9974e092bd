#include <bits/stdc++.h>
int main() { int n; std::cin >> n; long long best = LLONG_MIN, x;
  for (int i = 0; i < n; i++) { std::cin >> x; best = std::max(best, x); }
  std::cout << best << "\n"; }
