#include <bits/stdc++.h>
int main() { std::string line, w; std::getline(std::cin, line); std::istringstream in(line); int n = 0; while (in >> w) n++; std::cout << n << "\n"; }
