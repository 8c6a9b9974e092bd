#include <bits/stdc++.h>
int main() { std::string s; std::cin >> s; for (char &c : s) c = toupper(c); std::cout << s << "\n"; }
