#include <bits/stdc++.h>
int main() { unsigned long long n; std::cin >> n; std::string s; do { s += char('0' + n % 2); n /= 2; } while (n); std::reverse(s.begin(), s.end()); std::cout << s << "\n"; }
