#include <bits/stdc++.h>
int main() { int h, w; std::cin >> h >> w; std::vector<std::string> g(h); for (auto &r : g) std::cin >> r; int cnt = 0;
  for (int si = 0; si < h; si++) for (int sj = 0; sj < w; sj++) { if (g[si][sj] != '#') continue; cnt++; std::vector<std::pair<int, int>> st{{si, sj}}; g[si][sj] = '.';
    while (!st.empty()) { auto [i, j] = st.back(); st.pop_back(); int di[] = {-1, 1, 0, 0}, dj[] = {0, 0, -1, 1};
      for (int k = 0; k < 4; k++) { int a = i + di[k], b = j + dj[k]; if (a >= 0 && b >= 0 && a < h && b < w && g[a][b] == '#') { g[a][b] = '.'; st.push_back({a, b}); } } } }
  std::cout << cnt << "\n"; }
