#include <bits/stdc++.h>
typedef unsigned long long u64;
int main() { int q; scanf("%d", &q); while (q--) { u64 a, b, m; scanf("%llu %llu %llu", &a, &b, &m); u64 r = 1; a %= m; while (b) { if (b & 1) r = r * a % m; a = a * a % m; b >>= 1; } printf("%llu\n", r); } }
