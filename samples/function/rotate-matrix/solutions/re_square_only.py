def rotate(matrix):
    n = len(matrix)
    out = [[0] * n for _ in range(n)]
    for i in range(n):
        for j in range(len(matrix[0])):
            out[j][n - 1 - i] = matrix[i][j]
    return out
