def fizzbuzz(n: int) -> list[str]:
    """Return the FizzBuzz words for 1..n: "Fizz" for multiples of 3, "Buzz" for
    multiples of 5, "FizzBuzz" for multiples of both, else the number as a string.

    >>> fizzbuzz(5)
    ['1', '2', 'Fizz', '4', 'Buzz']
    """
