/* A recursive function whose call to itself ends a block (the `if` joins after
   it), called from a loop in main. */
volatile int sink;

__attribute__((noinline)) int depth(int n) {
  if (n > 0)
    depth(n - 1);
  sink += n;
  return sink;
}

int main(int argc, char **argv) {
  (void)argv;
  for (int i = 0; i < 2000; i++)
    depth(argc + (i & 7));
  return 0;
}
