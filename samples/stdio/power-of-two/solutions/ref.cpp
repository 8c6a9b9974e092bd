#include <bits/stdc++.h>
int main() { unsigned long long n; std::cin >> n; std::cout << (n && !(n & (n - 1)) ? "YES" : "NO") << "\n"; }
