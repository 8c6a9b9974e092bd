#include <bits/stdc++.h>
int main() { int n; std::cin >> n; long long s = 0, x; for (int i = 0; i < n; i++) { std::cin >> x; s += x; } std::printf("%.9f\n", (double)s / n); }
