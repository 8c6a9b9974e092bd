#include <bits/stdc++.h>
int main() { int n, T; scanf("%d %d", &n, &T); std::vector<std::bitset<T + 1>> r(n + 1); r[0][0] = 1; puts("-1"); }
