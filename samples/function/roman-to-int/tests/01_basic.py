assert roman_to_int('III') == 3
assert roman_to_int('VIII') == 8
