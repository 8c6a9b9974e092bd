#include <bits/stdc++.h>
int main() { long long s[3]; std::cin >> s[0] >> s[1] >> s[2]; std::sort(s, s + 3);
  if (s[0] + s[1] <= s[2]) puts("invalid"); else if (s[0] == s[2]) puts("equilateral"); else if (s[0] == s[1] || s[1] == s[2]) puts("isosceles"); else puts("scalene"); }
