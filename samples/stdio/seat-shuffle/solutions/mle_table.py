# Precomputes a "lookup table" far beyond the memory limit. Rows are written as they are
# built, so the resident size really climbs past memory_mb (no lazy zero pages).
table = []
for i in range(10**5):
    table.append([i] * 10**6)
print(len(table))
