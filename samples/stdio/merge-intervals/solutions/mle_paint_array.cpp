#include <bits/stdc++.h>
int main() { int n; scanf("%d", &n);
  // One flag per unit of fence, allocated in 8 MB blocks as the paint jobs reach them:
  // far more memory than the limit once the fence is long.
  std::vector<std::vector<long long>> blocks;
  for (int b = 0; b < 125; b++) blocks.emplace_back(1000000, 1LL);
  long long total = 0; for (auto &blk : blocks) total += blk[0];
  printf("%lld\n", total); }
