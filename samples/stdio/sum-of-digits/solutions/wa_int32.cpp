#include <bits/stdc++.h>
int main() { long long big; std::cin >> big; int n = (int)big; int s = 0; while (n > 0) { s += n % 10; n /= 10; } std::cout << s << "\n"; }
