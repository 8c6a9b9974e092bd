#include <bits/stdc++.h>
int main() { long long a, b, c; std::cin >> a >> b >> c; std::cout << std::min({a, b, c}) << "\n"; }
