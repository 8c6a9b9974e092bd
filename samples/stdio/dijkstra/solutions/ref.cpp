#include <bits/stdc++.h>
int main() { int n, m; scanf("%d %d", &n, &m); std::vector<std::vector<std::pair<int, long long>>> adj(n + 1);
  for (int i = 0; i < m; i++) { int u, v; long long w; scanf("%d %d %lld", &u, &v, &w); adj[u].push_back({v, w}); }
  const long long INF = LLONG_MAX; std::vector<long long> d(n + 1, INF); d[1] = 0;
  std::priority_queue<std::pair<long long, int>, std::vector<std::pair<long long, int>>, std::greater<>> pq; pq.push({0, 1});
  while (!pq.empty()) { auto [du, u] = pq.top(); pq.pop(); if (du > d[u]) continue;
    for (auto [v, w] : adj[u]) if (du + w < d[v]) { d[v] = du + w; pq.push({d[v], v}); } }
  for (int i = 1; i <= n; i++) printf("%lld%c", d[i] == INF ? -1 : d[i], i == n ? '\n' : ' '); }
