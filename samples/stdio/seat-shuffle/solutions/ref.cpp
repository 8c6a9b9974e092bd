#include <bits/stdc++.h>
int main() { int n; scanf("%d", &n); for (int i = 1; i <= n; i++) printf("%d%c", i % n + 1, i == n ? '\n' : ' '); }
