n = int(input())
sieve = bytearray([1]) * (n + 1)
sieve[0] = 0
if n >= 1:
    sieve[1] = 0
i = 2
while i * i <= n:
    if sieve[i]:
        sieve[i * i::i] = bytes(len(range(i * i, n + 1, i)))
    i += 1
print(sum(sieve))
