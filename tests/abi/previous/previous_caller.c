/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A caller built against the previous layout of the structs it allocates
 * (docs/abi.md, issue 28): this build's public headers with every field
 * marked "appended in ABI 2" taken out (previous/meson.build makes them), which is
 * what an application built before those fields sees. It runs against
 * this build's library: the calls' macros pass its sizes, so the library
 * reads and writes only those bytes (every struct here is allocated to
 * exactly its size: a read or write past it is an ASan or valgrind error)
 * and gives the missing fields their defaults. Before, the calls took no
 * size: a smaller struct was read past its end. */
#include "gpuccl.h"
#include "gpuccl_track.h"
#include "gpuccl_volume.h"
#include "test_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(GpucclTrackerParams) == 2 * sizeof(double),
               "compiled against the previous layout (no max_tracks)");

static int checks, failures; /* EXPECT's (test_check.h) */

/* A copy of *v on the heap, exactly its size. */
static void *exact(const void *v, size_t size)
{
  void *p = malloc(size);
  if (!p)
    abort();
  return memcpy(p, v, size);
}

/* Three squares, labeled with heap parameters of the caller's size. */
static void label(GpucclContext *ctx)
{
  enum { W = 32, H = 16 };
  static uint8_t px[W * H];
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      px[y * W + x] = (y >= 2 && y < 6 && x % 10 >= 2 && x % 10 < 6) ? 255 : 0;
  GpucclParams init;
  gpuccl_params_init(&init);
  GpucclParams *p = exact(&init, sizeof init);
  GpucclImage img = {px, W, H, W, GPUCCL_PIXEL_U8, 0, 0, 0};
  GpucclResult r;
  GpucclError e = {0};
  EXPECT(gpuccl_process(ctx, &img, p, &r, &e) == GPUCCL_OK && r.n_blobs == 3,
         "labeling: %s, %zu blobs", e.message, r.n_blobs);
  free(p);
}

/* A tracker from parameters of the previous size: set as given, and the
 * appended field at its default (two objects followed over frames, far
 * more tracks than any cap). */
static void track(void)
{
  GpucclTrackerParams *p = malloc(sizeof *p);
  gpuccl_tracker_params_init(p); /* writes sizeof *p bytes, no more */
  EXPECT(p->max_distance == 50.0 && p->max_lost == 5, "defaults %g %d",
         p->max_distance, p->max_lost);
  p->max_distance = 8.0;
  GpucclTracker *t = gpuccl_tracker_new(p);
  EXPECT(t != NULL, "tracker from %zu-byte parameters", sizeof *p);
  EXPECT(t && gpuccl_tracker_set_params(t, p), "set_params");
  uint32_t first[2] = {0, 0}, ids[2];
  for (int f = 0; t && f < 5; f++) {
    GpucclBlob b[2];
    for (int i = 0; i < 2; i++) {
      uint16_t x = (uint16_t)(10 + 3 * f + 40 * i), y = 10;
      b[i] = (GpucclBlob){(uint32_t)i + 1, 1, x, y, x, y, x, y};
    }
    EXPECT(gpuccl_tracker_update(t, b, 2, ids), "update %d", f);
    if (f == 0)
      memcpy(first, ids, sizeof ids);
    EXPECT(ids[0] == first[0] && ids[1] == first[1] && ids[0] != ids[1],
           "frame %d: ids %u %u, first %u %u", f, ids[0], ids[1], first[0],
           first[1]);
  }
  gpuccl_tracker_free(t);
  free(p);
}

static void volume(void)
{
  GpucclError e = {0};
  GpucclVolume *vol = gpuccl_volume_new(GPUCCL_BACKEND_CPU, 0, &e);
  static uint8_t cube[4 * 4 * 4];
  memset(cube, 200, sizeof cube);
  GpucclVolumeImage v = {cube, 4, 4, 4, 4, 16};
  GpucclVolumeParams init;
  gpuccl_volume_params_init(&init);
  GpucclVolumeParams *p = exact(&init, sizeof init);
  GpucclVolumeResult r;
  EXPECT(vol && gpuccl_volume_process(vol, &v, p, &r, &e) == GPUCCL_OK &&
             r.n_components == 1,
         "volume: %s", e.message);
  free(p);
  gpuccl_volume_free(vol);
}

int main(void)
{
  GpucclError e = {0};
  GpucclContext *ctx = gpuccl_context_new(GPUCCL_BACKEND_CPU, 0, &e);
  if (!ctx) {
    printf("FAIL: no CPU context: %s\n", e.message);
    return 1;
  }
  label(ctx);
  track();
  volume();
  gpuccl_context_free(ctx);
  printf("%s: a caller of the previous layout, ABI %u library\n",
         failures ? "FAIL" : "PASS", gpuccl_abi_version());
  return failures ? 1 : 0;
}
