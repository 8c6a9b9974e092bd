#include <bits/stdc++.h>
int main() { int n, q; scanf("%d %d", &n, &q); std::vector<long long> a(n); for (auto &x : a) scanf("%lld", &x); std::sort(a.begin(), a.end());
  for (int i = 0; i < q; i++) { long long x; scanf("%lld", &x); printf("%ld%c", (long)(std::upper_bound(a.begin(), a.end(), x) - a.begin()), i + 1 < q ? ' ' : '\n'); } }
