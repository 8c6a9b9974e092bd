#include <bits/stdc++.h>
int main() { std::string s; std::getline(std::cin, s); int n = 0;
  for (char c : s) if (std::string("aeiou").find(c) != std::string::npos) n++;
  std::cout << n << "\n"; }
