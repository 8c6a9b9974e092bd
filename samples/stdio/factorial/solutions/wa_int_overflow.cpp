#include <bits/stdc++.h>
int main() { int n; std::cin >> n; int r = 1; for (int i = 2; i <= n; i++) r *= i; std::cout << r << "\n"; }
