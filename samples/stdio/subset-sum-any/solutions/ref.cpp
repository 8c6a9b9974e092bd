#include <bits/stdc++.h>
int main() { int n, T; scanf("%d %d", &n, &T); std::vector<int> a(n); for (auto &x : a) scanf("%d", &x);
  std::vector<std::bitset<100001>> r(n + 1); r[0][0] = 1; for (int i = 0; i < n; i++) r[i + 1] = r[i] | (r[i] << a[i]);
  if (!r[n][T]) { puts("-1"); return 0; } std::vector<int> c; int s = T; for (int i = n; i >= 1; i--) if (!r[i - 1][s]) { c.push_back(i); s -= a[i - 1]; }
  printf("%zu", c.size()); for (int i = c.size() - 1; i >= 0; i--) printf(" %d", c[i]); puts(""); }
