/* The program BOLT instruments for bench/bolt-profiles.sh: SQLite (the bundled
 * amalgamation of the libsqlite3-sys crate) running the SQL scripts named on the
 * command line, each in a fresh in-memory database (or FILE.db with -f). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite3.h"

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) { perror(path); exit(1); }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc(n + 1);
  if (fread(s, 1, n, f) != (size_t)n) { perror(path); exit(1); }
  s[n] = 0;
  fclose(f);
  return s;
}

static int rows(void *acc, int n, char **v, char **c) {
  (void)c;
  unsigned long *h = acc;
  for (int i = 0; i < n; i++)
    for (const char *p = v[i] ? v[i] : ""; *p; p++) *h = *h * 31 + (unsigned char)*p;
  return 0;
}

int main(int argc, char **argv) {
  const char *dbname = ":memory:";
  int i = 1;
  if (i + 1 < argc && !strcmp(argv[i], "-f")) { dbname = argv[i + 1]; i += 2; }
  unsigned long h = 0;
  for (; i < argc; i++) {
    sqlite3 *db;
    if (sqlite3_open(dbname, &db) != SQLITE_OK) { fprintf(stderr, "open failed\n"); return 1; }
    char *sql = slurp(argv[i]), *err = 0;
    if (sqlite3_exec(db, sql, rows, &h, &err) != SQLITE_OK) {
      fprintf(stderr, "%s: %s\n", argv[i], err);
      return 1;
    }
    free(sql);
    sqlite3_close(db);
  }
  printf("%lx\n", h);
  return 0;
}
