import math

def fizzbuzz(n):
    words = {3: 'Fizz', 5: 'Buzz', 15: 'FizzBuzz'}
    return [words[math.gcd(i, 15)] for i in range(1, n + 1)]
