assert fizzbuzz(15)[-1] == 'FizzBuzz'
assert fizzbuzz(15)[8] == 'Fizz'
