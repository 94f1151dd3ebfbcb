/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* See layout_check.h. */
#define _POSIX_C_SOURCE 200809L
#include "layout_check.h"

#include <stdlib.h>
#include <string.h>

/* The next line of s (advanced past it), without its newline; NULL at the
 * end. */
static char *next_line(char **s)
{
  if (!*s || !**s)
    return NULL;
  char *line = *s, *nl = strchr(line, '\n');
  if (nl) {
    *nl = '\0';
    *s = nl + 1;
  } else {
    *s = line + strlen(line);
  }
  return line;
}

static char *read_file(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  char *buf = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&buf, &len);
  char chunk[4096];
  size_t n;
  while (mem && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
    fwrite(chunk, 1, n, mem);
  fclose(f);
  if (mem)
    fclose(mem);
  return buf;
}

int layout_main(int argc, char **argv, const char *library, long version,
                void (*fill)(Layout *l))
{
  char *now = NULL;
  size_t now_len = 0;
  Layout l = {open_memstream(&now, &now_len)};
  if (!l.out)
    return 99;
  fprintf(l.out, "abi %s %ld\n", library, version);
  fill(&l);
  fclose(l.out);
  if (argc > 1 && strcmp(argv[1], "--print") == 0) {
    fputs(now, stdout);
    free(now);
    return 0;
  }
  if (argc < 2) {
    fprintf(stderr, "usage: %s MANIFEST | --print\n", argv[0]);
    free(now);
    return 99;
  }
  char *want = read_file(argv[1]);
  if (!want) {
    fprintf(stderr, "cannot read %s\n", argv[1]);
    free(now);
    return 99;
  }
  /* The first line is the version; then the layout, line by line. */
  char *a = want, *b = now;
  char *want_version = next_line(&a), *now_version = next_line(&b);
  const int bumped = strcmp(want_version, now_version) != 0;
  int differences = 0;
  for (;;) {
    char *x = next_line(&a), *y = next_line(&b);
    if (!x && !y)
      break;
    if (x && y && strcmp(x, y) == 0)
      continue;
    if (differences++ < 10)
      printf("manifest: %s\nbuilt:    %s\n", x ? x : "(nothing)",
             y ? y : "(nothing)");
  }
  int status = 0;
  if (differences && !bumped) {
    printf("FAIL: the public layout of %s changed, its ABI version (%ld) "
           "did not: bump it and the soname (docs/abi.md), then regenerate "
           "%s with --print\n",
           library, version, argv[1]);
    status = 1;
  } else if (bumped) {
    printf("FAIL: %s ABI version is now %ld (manifest: \"%s\"): regenerate "
           "%s with --print\n",
           library, version, want_version, argv[1]);
    status = 1;
  } else {
    printf("%s ABI %ld: layout as in %s\n", library, version, argv[1]);
  }
  free(want);
  free(now);
  return status;
}
