#include <bits/stdc++.h>
int main() { int t; std::cin >> t; std::string s; while (t--) { std::cin >> s; std::string st; bool ok = true;
    for (char c : s) { if (c == '(' || c == '[' || c == '{') st += c; else { char o = c == ')' ? '(' : c == ']' ? '[' : '{'; if (st.empty() || st.back() != o) { ok = false; break; } st.pop_back(); } }
    std::cout << (ok && st.empty() ? "YES" : "NO") << "\n"; } }
