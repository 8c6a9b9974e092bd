#include <bits/stdc++.h>
int main() { long long y; std::cin >> y; if (y % 4 == 0 and) std::cout << "YES\n"; else std::cout << "NO\n"; }
