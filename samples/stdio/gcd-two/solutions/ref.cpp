#include <bits/stdc++.h>
int main() { long long a, b; std::cin >> a >> b; while (b) { long long t = a % b; a = b; b = t; } std::cout << a << "\n"; }
