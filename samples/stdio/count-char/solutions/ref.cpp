#include <bits/stdc++.h>
int main() { std::string s; char c; std::cin >> s >> c; std::cout << std::count(s.begin(), s.end(), c) << "\n"; }
