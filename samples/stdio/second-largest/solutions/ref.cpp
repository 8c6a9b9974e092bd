#include <bits/stdc++.h>
int main() { int n; std::cin >> n; std::vector<long long> a(n); for (auto &x : a) std::cin >> x; std::sort(a.begin(), a.end()); std::cout << a[n - 2] << "\n"; }
