#include <bits/stdc++.h>
int main() { int n, q; scanf("%d %d", &n, &q); std::vector<int> pre(n + 1, 0);
  for (int i = 1; i <= n; i++) { int x; scanf("%d", &x); pre[i] = pre[i - 1] + x; }
  while (q--) { int l, r; scanf("%d %d", &l, &r); printf("%d\n", pre[r] - pre[l - 1]); } }
