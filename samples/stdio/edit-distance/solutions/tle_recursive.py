import sys
sys.setrecursionlimit(10000)
a = input().strip()
b = input().strip()
def dist(i, j):
    if i == len(a):
        return len(b) - j
    if j == len(b):
        return len(a) - i
    if a[i] == b[j]:
        return dist(i + 1, j + 1)
    return 1 + min(dist(i + 1, j), dist(i, j + 1), dist(i + 1, j + 1))
print(dist(0, 0))
