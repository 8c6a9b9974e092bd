#include <bits/stdc++.h>
int main() { int n; scanf("%d", &n); std::vector<long long> a(n); for (auto &x : a) scanf("%lld", &x); std::vector<long long> s = a; std::sort(s.begin(), s.end()); s.erase(std::unique(s.begin(), s.end()), s.end());
  int m = s.size(); std::vector<int> t(m + 1, 0); unsigned inv = 0;
  for (int k = 0; k < n; k++) { int r = std::lower_bound(s.begin(), s.end(), a[k]) - s.begin() + 1; int le = 0; for (int i = r; i > 0; i -= i & -i) le += t[i]; inv += k - le; for (int i = r; i <= m; i += i & -i) t[i]++; }
  printf("%d\n", (int)inv); }
