/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Structs the caller allocates travel with their size (docs/abi.md): the
 * library writes and reads only the bytes the caller's header gave them,
 * so an application and a library built against different headers of one
 * ABI version agree on every field both know. */
#include "backend.h"

#include <string.h>

void gpuccl_init_sized(void *dst, size_t dst_size, const void *defaults,
                       size_t size)
{
  if (!dst)
    return;
  memset(dst, 0, dst_size);
  memcpy(dst, defaults, dst_size < size ? dst_size : size);
}

bool gpuccl_read_sized(void *dst, size_t dst_size, const void *src,
                       size_t src_size)
{
  const unsigned char *tail = (const unsigned char *)src + dst_size;
  for (size_t i = dst_size; i < src_size; i++, tail++)
    if (*tail)
      return false; /* a field of a newer header, set */
  memcpy(dst, src, src_size < dst_size ? src_size : dst_size);
  return true;
}
