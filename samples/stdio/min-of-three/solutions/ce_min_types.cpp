#include <bits/stdc++.h>
int main() { long long a, b; int c; std::cin >> a >> b >> c; std::cout << std::min(std::min(a, b), c) << "\n"; }
