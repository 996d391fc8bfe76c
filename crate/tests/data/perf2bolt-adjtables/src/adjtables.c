/* Two functions whose switch jump tables lie next to each other in .rodata */
/* (reduce's, then destruct's), as yy_reduce's and yy_destructor's in SQLite. */
#include <stdio.h>
#include <stdlib.h>

struct st { long a, b, c; long *p; };

__attribute__((noinline)) static long reduce(struct st *s, int op, long x) {
  long r = 0;
  switch (op) {
  case 0: r = s->b; s->b = s->a; s->a = r + 0; break;
  case 1: if (x > 1) r = s->a * 2; else r = s->c - x; s->a = r; break;
  case 2: if (x > 2) r = s->a * 3; else r = s->c - x; s->a = r; break;
  case 3: r = s->b; s->b = s->a; s->a = r + 3; break;
  case 4: r = s->a + 4 * x; s->b = r; break;
  case 5: s->c = x << 5; r = s->c + s->b; s->p[0] = r; break;
  case 6: r = s->p[2] ^ x; s->p[3] = r; s->c = s->b; break;
  case 7: r = s->a + 7 * x; s->b = r; break;
  case 8: r = s->p[0] ^ x; s->p[1] = r; s->c = s->b; break;
  case 9: r = s->a + 9 * x; s->b = r; break;
  case 10: if (x > 10) r = s->a * 11; else r = s->c - x; s->a = r; break;
  case 11: s->c = x << 4; r = s->c + s->b; s->p[0] = r; break;
  case 12: r = s->p[0] ^ x; s->p[1] = r; s->c = s->b; break;
  case 13: s->c = x << 6; r = s->c + s->b; s->p[0] = r; break;
  case 14: r = s->b; s->b = s->a; s->a = r + 14; break;
  case 15: r = s->a + 15 * x; s->b = r; break;
  case 16: r = s->b; s->b = s->a; s->a = r + 16; break;
  case 17: r = s->p[1] ^ x; s->p[2] = r; s->c = s->b; break;
  case 18: r = s->a + 18 * x; s->b = r; break;
  case 19: r = s->p[3] ^ x; s->p[0] = r; s->c = s->b; break;
  case 20: s->c = x << 6; r = s->c + s->b; s->p[0] = r; break;
  case 21: if (x > 21) r = s->a * 22; else r = s->c - x; s->a = r; break;
  case 22: r = s->p[2] ^ x; s->p[3] = r; s->c = s->b; break;
  case 23: s->c = x << 2; r = s->c + s->b; s->p[0] = r; break;
  case 24: r = s->p[0] ^ x; s->p[1] = r; s->c = s->b; break;
  case 25: r = s->a + 25 * x; s->b = r; break;
  case 26: r = s->p[2] ^ x; s->p[3] = r; s->c = s->b; break;
  case 27: r = s->b; s->b = s->a; s->a = r + 27; break;
  case 28: r = s->b; s->b = s->a; s->a = r + 28; break;
  case 29: s->c = x << 1; r = s->c + s->b; s->p[0] = r; break;
  case 30: r = s->p[2] ^ x; s->p[3] = r; s->c = s->b; break;
  case 31: r = s->p[3] ^ x; s->p[0] = r; s->c = s->b; break;
  case 32: r = s->a + 32 * x; s->b = r; break;
  case 33: r = s->a + 33 * x; s->b = r; break;
  case 34: r = s->p[2] ^ x; s->p[3] = r; s->c = s->b; break;
  case 35: r = s->p[3] ^ x; s->p[0] = r; s->c = s->b; break;
  case 36: r = s->p[0] ^ x; s->p[1] = r; s->c = s->b; break;
  case 37: r = s->p[1] ^ x; s->p[2] = r; s->c = s->b; break;
  case 38: if (x > 38) r = s->a * 39; else r = s->c - x; s->a = r; break;
  case 39: if (x > 39) r = s->a * 40; else r = s->c - x; s->a = r; break;
  case 40: r = s->p[0] ^ x; s->p[1] = r; s->c = s->b; break;
  case 41: r = s->b; s->b = s->a; s->a = r + 41; break;
  case 42: r = s->p[2] ^ x; s->p[3] = r; s->c = s->b; break;
  case 43: r = s->p[3] ^ x; s->p[0] = r; s->c = s->b; break;
  case 44: r = s->p[0] ^ x; s->p[1] = r; s->c = s->b; break;
  case 45: s->c = x << 3; r = s->c + s->b; s->p[0] = r; break;
  case 46: if (x > 46) r = s->a * 47; else r = s->c - x; s->a = r; break;
  case 47: r = s->a + 47 * x; s->b = r; break;
  default: r = -1;
  }
  return r + s->a;
}

__attribute__((noinline)) static long destruct(struct st *s, int op) {
  switch (op) {
  case 0: s->p[0] = 0; return 0;
  case 1: s->p[1] = 1; return 3;
  case 2: s->a -= 2; return s->a;
  case 3: s->a -= 3; return s->a;
  case 4: s->p[0] = 4; return 12;
  case 5: s->a -= 5; return s->a;
  case 6: s->p[2] = 6; return 18;
  case 7: s->p[3] = 7; return 21;
  case 8: s->b ^= s->c + 8; return s->b;
  case 9: s->b ^= s->c + 9; return s->b;
  default: return 0;
  }
}

int main(int argc, char **argv) {
  long p[4] = {1, 2, 3, 4};
  struct st s = {1, 2, 3, p};
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  long sum = 0;
  for (int i = 0; i < n; i++) { sum += reduce(&s, (i * 7) % 50, i); sum += destruct(&s, (i * 5) % 11); }
  printf("%ld\n", sum);
  return 0;
}
