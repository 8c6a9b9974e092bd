#include <bits/stdc++.h>
int main() { std::string s; std::cin >> s; std::reverse(s.begin(), s.end()); std::cout << t << "\n"; }
