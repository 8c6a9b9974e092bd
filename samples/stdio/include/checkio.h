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

// Whitespace-separated tokens of a file, read one by one as the checker asks for them (as
// testlib's streams do): memory stays flat whatever the contestant prints. (Reading them all
// up front let 21 MB of "1 " make the checker run out of memory: IE, a dropped sample.)
struct Tokens {
    std::ifstream in;
    std::string cur;  // the next token, once read
    bool have = false, done = false;
    Verdict bad;  // verdict when this stream is malformed: PE for the contestant, FAIL for jury files
    Tokens(const char *path, Verdict bad_) : in(path, std::ios::binary), bad(bad_) {
        if (!in) quit(FAIL, std::string("cannot open ") + path);
    }
    bool fill() {
        if (!have && !done) {
            if (in >> cur) have = true;
            else done = true;
        }
        return have;
    }
    bool eof() { return !fill(); }
    // The next token without taking it ("" at the end).
    const std::string &peek() {
        static const std::string none;
        return fill() ? cur : none;
    }
    std::string word(const char *what) {
        if (!fill()) quit(bad, std::string("expected ") + what + ", found end of file");
        have = false;
        return cur;
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
        if (fill()) quit(bad, "extra output after the answer: " + cur.substr(0, 30));
    }
};
