#include <bits/stdc++.h>
int main() { std::string s; std::cin >> s; std::string r(s.rbegin(), s.rend()); std::cout << (s == r ? "YES" : "NO") << "\n"; }
