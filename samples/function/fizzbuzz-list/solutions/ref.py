def fizzbuzz(n: int) -> list[str]:
    """Return the FizzBuzz words for 1..n: "Fizz" for multiples of 3, "Buzz" for
    multiples of 5, "FizzBuzz" for multiples of both, else the number as a string.

    >>> fizzbuzz(5)
    ['1', '2', 'Fizz', '4', 'Buzz']
    """
    return ['FizzBuzz' if i % 15 == 0 else 'Fizz' if i % 3 == 0 else 'Buzz' if i % 5 == 0 else str(i) for i in range(1, n + 1)]
