#include <bits/stdc++.h>
int main() { double r; std::cin >> r; std::printf("%.9f\n", M_PI * r * r); }
