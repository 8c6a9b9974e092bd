#include <bits/stdc++.h>
int main() { long long n; std::cin >> n; for (int i = 1; i <= 10; i++) std::cout << n << " x " << i << " = " << n * i << "\n"; }
