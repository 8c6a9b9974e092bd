#include <bits/stdc++.h>
int main() { std::string s; std::getline(std::cin, s); std::cout << s.size() << "\n"; }
