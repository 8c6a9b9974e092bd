#include <bits/stdc++.h>
int main() { int n; std::cin >> n; std::vector<char> s(n + 1, 1); s[0] = 0; if (n >= 1) s[1] = 0;
  for (long long i = 2; i * i <= n; i++) if (s[i]) for (long long j = i * i; j <= n; j += i) s[j] = 0;
  std::cout << std::count(s.begin(), s.end(), 1) << "\n"; }
