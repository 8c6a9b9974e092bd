// What the sample set's custom checkers (samples/stdio/*/checker.cpp) share. They follow
// testlib's exit-code contract directly (no testlib.h):
//   checker <input> <contestant output> <jury answer>
//   exit 0 OK, 1 WA, 2 PE (malformed output), 3 FAIL (jury answer inconsistent).
// One line of explanation goes to stderr. A set-level header: the own format looks up a
// checker header beside problem.yaml, then in the set's include/ (docs/problem-format.md).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

enum Verdict { OK = 0, WA = 1, PE = 2, FAIL = 3 };

[[noreturn]] static void quit(Verdict v, const std::string &msg) {
    static const char *names[] = {"ok", "wrong answer", "presentation error", "FAIL"};
    std::fprintf(stderr, "%s: %s\n", names[v], msg.c_str());
    std::exit(v);
}

// Whitespace-separated tokens of a file, read one by one.
struct Tokens {
    std::vector<std::string> toks;
    size_t pos = 0;
    Verdict bad;  // verdict when this stream is malformed: PE for the contestant, FAIL for jury files
    Tokens(const char *path, Verdict bad_) : bad(bad_) {
        std::ifstream in(path, std::ios::binary);
        if (!in) quit(FAIL, std::string("cannot open ") + path);
        std::string t;
        while (in >> t) toks.push_back(t);
    }
    bool eof() const { return pos >= toks.size(); }
    std::string word(const char *what) {
        if (eof()) quit(bad, std::string("expected ") + what + ", found end of file");
        return toks[pos++];
    }
    long long integer(const char *what, long long lo, long long hi) {
        std::string t = word(what);
        size_t i = (t[0] == '-') ? 1 : 0;
        if (i == t.size() || t.size() - i > 18) quit(bad, std::string(what) + " is not an integer: " + t.substr(0, 30));
        for (size_t k = i; k < t.size(); k++)
            if (t[k] < '0' || t[k] > '9') quit(bad, std::string(what) + " is not an integer: " + t.substr(0, 30));
        long long v = std::atoll(t.c_str());
        if (v < lo || v > hi) quit(bad == FAIL ? FAIL : WA, std::string(what) + " out of range: " + t);
        return v;
    }
    void finish() {
        if (!eof()) quit(bad, "extra output after the answer: " + toks[pos].substr(0, 30));
    }
};
