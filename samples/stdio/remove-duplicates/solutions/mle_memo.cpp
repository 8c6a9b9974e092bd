#include <bits/stdc++.h>
using namespace std;
int main() {
    // A "memo table" far beyond the memory limit, filled row by row (pages really touched).
    vector<vector<long long>> memo;
    for (int i = 0; i < 100000; i++) memo.emplace_back(1000000, (long long)i);
    cout << memo.size() << endl;
}
