#include <bits/stdc++.h>
int main() { int n; scanf("%d", &n); std::vector<long long> t; for (int i = 0; i < n; i++) { long long x; scanf("%lld", &x);
    auto it = std::lower_bound(t.begin(), t.end(), x); if (it == t.end()) t.push_back(x); else *it = x; } printf("%zu\n", t.size()); }
