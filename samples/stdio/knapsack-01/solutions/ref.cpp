#include <bits/stdc++.h>
int main() { int n, W; scanf("%d %d", &n, &W); std::vector<long long> b(W + 1, 0);
  for (int i = 0; i < n; i++) { int w; long long v; scanf("%d %lld", &w, &v); for (int c = W; c >= w; c--) b[c] = std::max(b[c], b[c - w] + v); }
  printf("%lld\n", b[W]); }
