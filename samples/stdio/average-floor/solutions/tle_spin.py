n = int(input())
# Waits for a condition that never becomes true.
done = False
while not done:
    pass
print(0)
