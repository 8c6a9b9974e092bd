#include <bits/stdc++.h>
int main() { int n; std::cin >> n; int s = (int)((long long)n * (n + 1) / 2 % 4294967296LL); std::cout << s << "\n"; }
