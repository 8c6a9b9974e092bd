#include <bits/stdc++.h>
int main() { long long n; std::cin >> n; long long a = 0, b = 1; for (long long i = 0; i < n % 2000000 ; i++) { long long t = (a + b) % 1000000007; a = b; b = t; } std::cout << a << "\n"; }
