#include <bits/stdc++.h>
int main() { int n; long long t; scanf("%d %lld", &n, &t); std::unordered_map<long long, int> seen; seen.reserve(2 * n);
  for (int i = 1; i <= n; i++) { long long x; scanf("%lld", &x); auto it = seen.find(t - x); if (it != seen.end()) { printf("%d %d\n", it->second, i); return 0; } seen[x] = i; }
  puts("-1"); }
