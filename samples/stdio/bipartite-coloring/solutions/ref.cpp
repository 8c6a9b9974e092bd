#include <bits/stdc++.h>
int main() { int n, m; scanf("%d %d", &n, &m); std::vector<std::vector<int>> adj(n + 1); for (int i = 0; i < m; i++) { int u, v; scanf("%d %d", &u, &v); adj[u].push_back(v); adj[v].push_back(u); }
  std::vector<int> c(n + 1, 0); for (int s = 1; s <= n; s++) { if (c[s]) continue; c[s] = 1; std::vector<int> q{s};
    for (size_t k = 0; k < q.size(); k++) for (int u : adj[q[k]]) { if (!c[u]) { c[u] = 3 - c[q[k]]; q.push_back(u); } else if (c[u] == c[q[k]]) { puts("-1"); return 0; } } }
  for (int i = 1; i <= n; i++) printf("%d%c", c[i], i == n ? '\n' : ' '); }
