#include <bits/stdc++.h>
int main() { int k, A; scanf("%d %d", &k, &A); std::vectr<long long> w(A + 1, 0); w[0] = 1;
  for (int i = 0; i < k; i++) { int c; scanf("%d", &c); for (int s = c; s <= A; s++) w[s] = (w[s] + w[s - c]) % 1000000007; } printf("%lld\n", w[A]); }
