#include <bits/stdc++.h>
int main() { int n; std::cin >> n; std::vector<long long> a(n); for (auto &x : a) std::cin >> x; a.sort(); for (int i = 0; i < n; i++) std::cout << a[i] << " "; }
