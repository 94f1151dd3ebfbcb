/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The layout of a library's public structs and enums, written line by
 * line and compared with a checked-in manifest (docs/abi.md): a test that
 * fails when a layout changed, telling whether the ABI version was bumped
 * (then the manifest is regenerated) or not (then it must be). */
#ifndef GPUCCL_LAYOUT_CHECK_H
#define GPUCCL_LAYOUT_CHECK_H

#include <stddef.h>
#include <stdio.h>

typedef struct {
  FILE *out;
} Layout;

#define LAYOUT_STRUCT(l, T)                                                   \
  fprintf((l)->out, "struct %s %zu %zu\n", #T, sizeof(T), _Alignof(T))
#define LAYOUT_FIELD(l, T, f)                                                 \
  fprintf((l)->out, "field %s.%s %zu %zu\n", #T, #f, offsetof(T, f),         \
          sizeof(((T *)0)->f))
#define LAYOUT_ENUM(l, E)                                                     \
  fprintf((l)->out, "enum %s %zu\n", #E, sizeof(E))
#define LAYOUT_VALUE(l, v) fprintf((l)->out, "value %s %lld\n", #v, (long long)(v))

/* Write the layout with fill() and compare it with the manifest at path;
 * `library` and `version` name the ABI it belongs to. With --print (argv)
 * the layout goes to stdout instead (to regenerate the manifest). Returns
 * the process exit status. */
int layout_main(int argc, char **argv, const char *library, long version,
                void (*fill)(Layout *l));

#endif /* GPUCCL_LAYOUT_CHECK_H */
