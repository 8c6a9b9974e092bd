#include <bits/stdc++.h>
int main() { int h, w; std::cin >> h >> w; std::string f, row; for (int i = 0; i < h; i++) { std::cin >> row; f += row; }
  int s = f.find('S'), t = f.find('T'); std::vector<int> prev(h * w, -1); std::vector<char> mv(h * w); prev[s] = s; std::queue<int> q; q.push(s);
  const int di[] = {-1, 1, 0, 0}, dj[] = {0, 0, -1, 1}; const char *mc = "UDLR";
  while (!q.empty() && prev[t] < 0) { int v = q.front(); q.pop(); int i = v / w, j = v % w;
    for (int k = 0; k < 4; k++) { int a = i + di[k], b = j + dj[k]; if (a < 0 || b < 0 || a >= h || b >= w) continue; int u = a * w + b; if (prev[u] < 0 && f[u] != '#') { prev[u] = v; mv[u] = mc[k]; q.push(u); } } }
  if (prev[t] < 0) { puts("-1"); return 0; } std::string p; for (int v = t; v != s; v = prev[v]) p += mv[v]; std::reverse(p.begin(), p.end()); printf("%zu\n%s\n", p.size(), p.c_str()); }
