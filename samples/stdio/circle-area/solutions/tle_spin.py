r = int(input())
# Waits for a condition that never becomes true.
done = False
while not done:
    pass
print(3.141592653589793 * r * r)
