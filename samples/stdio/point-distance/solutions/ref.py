import math
x1, y1, x2, y2 = map(int, input().split())
print(f'{math.hypot(x2 - x1, y2 - y1):.9f}')
