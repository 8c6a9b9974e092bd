#include <bits/stdc++.h>
int main() { int n, k; scanf("%d %d", &n, &k); std::vector<long long> a(n); for (auto &x : a) scanf("%lld", &x); std::deque<int> dq; std::string out;
  for (int i = 0; i < n; i++) { while (!dq.empty() && a[dq.back()] <= a[i]) dq.pop_back(); dq.push_back(i); if (dq.front() <= i - k) dq.pop_front();
    if (i >= k - 1) { out += std::to_string(a[dq.front()]); out += (i == n - 1 ? '\n' : ' '); } } fputs(out.c_str(), stdout); }
