#include <bits/stdc++.h>
int main() { int n, m; scanf("%d %d", &n, &m); std::vector<std::vector<std::pair<int, int>>> adj(n + 1);
  for (int i = 0; i < m; i++) { int u, v, w; scanf("%d %d %d", &u, &v, &w); adj[u].push_back({v, w}); }
  std::vector<int> d(n + 1, INT_MAX); d[1] = 0; std::priority_queue<std::pair<int, int>, std::vector<std::pair<int, int>>, std::greater<>> pq; pq.push({0, 1});
  while (!pq.empty()) { auto [du, u] = pq.top(); pq.pop(); if (du > d[u]) continue; for (auto [v, w] : adj[u]) { int nd = (int)((unsigned)du + (unsigned)w); if (nd >= 0 && nd < d[v]) { d[v] = nd; pq.push({nd, v}); } } }
  for (int i = 1; i <= n; i++) printf("%d%c", d[i] == INT_MAX ? -1 : d[i], i == n ? '\n' : ' '); }
