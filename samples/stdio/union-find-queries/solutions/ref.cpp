#include <bits/stdc++.h>
std::vector<int> p;
int find(int x) { while (p[x] != x) { p[x] = p[p[x]]; x = p[x]; } return x; }
int main() { int n, q; scanf("%d %d", &n, &q); p.resize(n + 1); std::iota(p.begin(), p.end(), 0); char op[16];
  while (q--) { int a, b; scanf("%15s %d %d", op, &a, &b); int ra = find(a), rb = find(b);
    if (op[0] == 'u') p[ra] = rb; else puts(ra == rb ? "YES" : "NO"); } }
