#include <bits/stdc++.h>
int main() { double a, b, c, e; std::cin >> a >> b >> c >> e; std::printf("%.9f\n", std::sqroot((c - a) * (c - a) + (e - b) * (e - b))); }
