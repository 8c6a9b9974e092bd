#include <bits/stdc++.h>
int main() { int n; scanf("%d", &n); std::vector<std::pair<long long, long long>> s(n); for (auto &[l, r] : s) scanf("%lld %lld", &l, &r); std::sort(s.begin(), s.end());
  long long total = 0, cl = s[0].first, cr = s[0].second; for (int i = 1; i < n; i++) { if (s[i].first > cr) { total += cr - cl; cl = s[i].first; cr = s[i].second; } else cr = std::max(cr, s[i].second); }
  printf("%lld\n", total + cr - cl); }
