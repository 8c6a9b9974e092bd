assert roman_to_int('XIV') == 14
assert roman_to_int('MCMXCIV') == 1994
assert roman_to_int('XL') == 40
