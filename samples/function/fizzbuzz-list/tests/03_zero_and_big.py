assert fizzbuzz(0) == []
r = fizzbuzz(3000)
assert len(r) == 3000 and r.count('FizzBuzz') == 200
