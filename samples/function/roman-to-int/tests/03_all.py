assert roman_to_int('MMMCMXCIX') == 3999
assert roman_to_int('CDXLIV') == 444
assert roman_to_int('I') == 1
