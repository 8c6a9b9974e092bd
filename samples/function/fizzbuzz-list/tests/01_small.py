assert fizzbuzz(1) == ['1']
assert fizzbuzz(5) == ['1', '2', 'Fizz', '4', 'Buzz']
