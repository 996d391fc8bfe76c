import random, sys
n1, n2, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
random.seed(seed)
out = ['/* Two functions whose switch jump tables lie next to each other in .rodata */',
       '/* (reduce\'s, then destruct\'s), as yy_reduce\'s and yy_destructor\'s in SQLite. */',
       '#include <stdio.h>', '#include <stdlib.h>', '',
       'struct st { long a, b, c; long *p; };', '',
       '__attribute__((noinline)) static long reduce(struct st *s, int op, long x) {',
       '  long r = 0;', '  switch (op) {']
for i in range(n1):
    k = random.randint(0, 4)
    body = [f'r = s->a + {i} * x; s->b = r;',
            f'r = s->p[{i % 4}] ^ x; s->p[{(i + 1) % 4}] = r; s->c = s->b;',
            f'if (x > {i}) r = s->a * {i + 1}; else r = s->c - x; s->a = r;',
            f's->c = x << {i % 7}; r = s->c + s->b; s->p[0] = r;',
            f'r = s->b; s->b = s->a; s->a = r + {i};'][k]
    out.append(f'  case {i}: {body} break;')
out += ['  default: r = -1;', '  }', '  return r + s->a;', '}', '',
        '__attribute__((noinline)) static long destruct(struct st *s, int op) {', '  switch (op) {']
for i in range(n2):
    k = random.randint(0, 2)
    body = [f's->a -= {i}; return s->a;', f's->p[{i % 4}] = {i}; return {i * 3};',
            f's->b ^= s->c + {i}; return s->b;'][k]
    out.append(f'  case {i}: {body}')
out += ['  default: return 0;', '  }', '}', '',
        'int main(int argc, char **argv) {',
        '  long p[4] = {1, 2, 3, 4};', '  struct st s = {1, 2, 3, p};',
        '  int n = argc > 1 ? atoi(argv[1]) : 1000;', '  long sum = 0;',
        f'  for (int i = 0; i < n; i++) {{ sum += reduce(&s, (i * 7) % {n1 + 2}, i); sum += destruct(&s, (i * 5) % {n2 + 1}); }}',
        '  printf("%ld\\n", sum);', '  return 0;', '}']
print('\n'.join(out))
