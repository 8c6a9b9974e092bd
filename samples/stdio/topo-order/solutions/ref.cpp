#include <bits/stdc++.h>
int main() { int n, m; scanf("%d %d", &n, &m); std::vector<std::vector<int>> adj(n + 1); std::vector<int> deg(n + 1, 0);
  for (int i = 0; i < m; i++) { int a, b; scanf("%d %d", &a, &b); adj[a].push_back(b); deg[b]++; }
  std::vector<int> order; for (int v = 1; v <= n; v++) if (!deg[v]) order.push_back(v);
  for (size_t k = 0; k < order.size(); k++) for (int u : adj[order[k]]) if (--deg[u] == 0) order.push_back(u);
  if ((int)order.size() != n) { puts("IMPOSSIBLE"); return 0; }
  for (int i = 0; i < n; i++) printf("%d%c", order[i], i + 1 == n ? '\n' : ' '); }
