#include <bits/stdc++.h>
int main() { long long n; std::cin >> n; std::cout << (n % 2 == 1 ? "ODD" : "EVEN") << "\n"; }
