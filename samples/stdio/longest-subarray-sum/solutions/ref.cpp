#include <bits/stdc++.h>
int main() { int n; long long S; scanf("%d %lld", &n, &S); std::vector<long long> a(n); for (auto &x : a) scanf("%lld", &x);
  long long cur = 0; int lo = 0, best = 0; for (int hi = 0; hi < n; hi++) { cur += a[hi]; while (cur > S) cur -= a[lo++]; best = std::max(best, hi - lo + 1); }
  printf("%d\n", best); }
