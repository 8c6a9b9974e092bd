#include <bits/stdc++.h>
int main() { int n; std::cin >> n; std::set<int> seen; bool first = true; for (int i = 0; i < n; i++) { int x; std::cin >> x; if (seen.insert(x).second) { std::cout << (first ? "" : " ") << x; first = false; } } std::cout << "\n"; }
