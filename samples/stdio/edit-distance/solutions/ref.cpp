#include <bits/stdc++.h>
int main() { std::string a, b; std::cin >> a >> b; std::vector<int> prev(b.size() + 1), cur(b.size() + 1); std::iota(prev.begin(), prev.end(), 0);
  for (size_t i = 1; i <= a.size(); i++) { cur[0] = i; for (size_t j = 1; j <= b.size(); j++) cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])}); std::swap(prev, cur); }
  std::cout << prev[b.size()] << "\n"; }
