/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A main() for the fuzz targets when libFuzzer is not there (gcc builds,
 * valgrind): runs the target once on each file named on the command line,
 * or on each file of a named directory, like libFuzzer does with files.
 * Used by the regression tests, which replay every input that once crashed
 * and the seed corpus. */
#define _DEFAULT_SOURCE /* scandir */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int run_file(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return 1;
  }
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  /* A private copy of exactly `size` bytes, as libFuzzer passes it. */
  uint8_t *data = malloc(size > 0 ? (size_t)size : 1);
  if (!data || fread(data, 1, (size_t)size, f) != (size_t)size) {
    fprintf(stderr, "%s: cannot read\n", path);
    fclose(f);
    free(data);
    return 1;
  }
  fclose(f);
  LLVMFuzzerTestOneInput(data, (size_t)size);
  free(data);
  return 0;
}

int main(int argc, char **argv)
{
  int failed = 0, runs = 0;
  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize(&argc, &argv);
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      perror(argv[i]);
      failed++;
      continue;
    }
    if (!S_ISDIR(st.st_mode)) {
      failed += run_file(argv[i]);
      runs++;
      continue;
    }
    struct dirent **names;
    int n = scandir(argv[i], &names, NULL, alphasort);
    for (int k = 0; k < n; k++) {
      if (names[k]->d_name[0] != '.') {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", argv[i], names[k]->d_name);
        failed += run_file(path);
        runs++;
      }
      free(names[k]);
    }
    free(names);
  }
  printf("replayed %d inputs, %d unreadable\n", runs, failed);
  return failed ? 1 : 0;
}
