#include <bits/stdc++.h>
int main() { unsigned long long n; std::cin >> n; int s = 0; while (n) { s += n % 10; n /= 10; } std::cout << s << "\n"; }
