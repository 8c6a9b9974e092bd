#include <bits/stdc++.h>
int main() { long long n; std::cin >> n; std::string r = n % 2; std::cout << r << "\n"; }
