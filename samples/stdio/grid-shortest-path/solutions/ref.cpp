#include <bits/stdc++.h>
int main() { int h, w; std::cin >> h >> w; std::vector<std::string> g(h); for (auto &r : g) std::cin >> r;
  int s = 0, t = 0; for (int i = 0; i < h; i++) for (int j = 0; j < w; j++) { if (g[i][j] == 'S') s = i * w + j; if (g[i][j] == 'T') t = i * w + j; }
  std::vector<int> d(h * w, -1); std::queue<int> q; d[s] = 0; q.push(s);
  int di[] = {-1, 1, 0, 0}, dj[] = {0, 0, -1, 1};
  while (!q.empty()) { int v = q.front(); q.pop(); int i = v / w, j = v % w;
    for (int k = 0; k < 4; k++) { int ni = i + di[k], nj = j + dj[k];
      if (ni < 0 || nj < 0 || ni >= h || nj >= w || g[ni][nj] == '#') continue; int u = ni * w + nj;
      if (d[u] < 0) { d[u] = d[v] + 1; q.push(u); } } }
  std::cout << d[t] << "\n"; }
