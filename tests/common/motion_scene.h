/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A camera-like scene whose truth is known, for binarisation by motion
 * (tests/motion, tests/gpu, bench): a textured static background
 * (gradients and fixed noise), a global light that brightens by one level
 * every 8 frames, sensor noise of -3..3 per pixel and frame, and dark
 * rectangles that enter after the warm-up, move, stop, move on and leave.
 * Every value is a function of (x, y, t), so any frame can be drawn in any
 * order, and the objects' rectangles of any frame are known exactly.
 *
 * Levels: background 60..219 + light (< 32 over 250 frames), objects
 * 10 +- 3, so an object differs from any background by more than 40 and
 * the background from itself (noise, light) by a few levels. */
#ifndef GPUCCL_MOTION_SCENE_H
#define GPUCCL_MOTION_SCENE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define MOTION_SCENE_OBJECTS 3

typedef struct {
  int x0, y0, x1, y1; /* inclusive, clipped to the frame; empty: x0 > x1 */
} SceneRect;

static inline uint32_t motion_scene_hash(uint32_t a, uint32_t b, uint32_t c)
{
  uint32_t h = a * 0x9e3779b1u ^ b * 0x85ebca77u ^ c * 0xc2b2ae3du;
  h ^= h >> 15;
  h *= 0x2c1b3c6du;
  h ^= h >> 12;
  h *= 0x297a2d39u;
  return h ^ (h >> 15);
}

/* Path of object i at frame t: position of its top-left corner (pixels,
 * frame coordinates; may be outside) and size; false before it enters.
 *  0: 14 x 10, enters at the left at t = 20, 3 px a frame to the right,
 *     leaves at the right;
 *  1: 12 x 16, from the top at t = 30, 2 px a frame down until t = 60,
 *     stops until t = 100, then 3 px a frame right, and leaves;
 *  2: 10 x 10, at t = 25 from the bottom left, (+2, -1) a frame. */
static inline bool motion_scene_object(int i, int t, int w, int h, int *x,
                                       int *y, int *ow, int *oh)
{
  switch (i) {
  case 0:
    *ow = 14, *oh = 10;
    *x = -14 + 3 * (t - 20), *y = h / 8;
    return t >= 20;
  case 1: {
    *ow = 12, *oh = 16;
    const int moved = (t < 60 ? t : 60) - 30;
    *y = -16 + 2 * moved;
    *x = w / 2 + (t > 100 ? 3 * (t - 100) : 0);
    return t >= 30;
  }
  default:
    *ow = 10, *oh = 10;
    *x = -10 + 2 * (t - 25), *y = h - (t - 25);
    return t >= 25;
  }
}

/* Object i's pixels in frame t, clipped. */
static inline SceneRect motion_scene_rect(int i, int t, int w, int h)
{
  int x, y, ow, oh;
  SceneRect r = {1, 1, 0, 0};
  if (!motion_scene_object(i, t, w, h, &x, &y, &ow, &oh))
    return r;
  r.x0 = x < 0 ? 0 : x;
  r.y0 = y < 0 ? 0 : y;
  r.x1 = x + ow - 1 >= w ? w - 1 : x + ow - 1;
  r.y1 = y + oh - 1 >= h ? h - 1 : y + oh - 1;
  if (r.x0 > r.x1 || r.y0 > r.y1)
    r = (SceneRect){1, 1, 0, 0};
  return r;
}

static inline bool motion_scene_inside(SceneRect r, int x, int y)
{
  return x >= r.x0 && x <= r.x1 && y >= r.y0 && y <= r.y1;
}

/* The sample at (x, y) in frame t. */
static inline uint8_t motion_scene_pixel(int x, int y, int t, int w, int h)
{
  const int noise = (int)(motion_scene_hash((uint32_t)x, (uint32_t)y,
                                            (uint32_t)t + 1u) % 7u) - 3;
  for (int i = 0; i < MOTION_SCENE_OBJECTS; i++)
    if (motion_scene_inside(motion_scene_rect(i, t, w, h), x, y))
      return (uint8_t)(10 + noise);
  const int texture = (int)(motion_scene_hash((uint32_t)x, (uint32_t)y, 0) %
                            20u);
  const int v = 60 + x * 100 / w + y * 40 / h + texture + t / 8 + noise;
  return (uint8_t)(v > 255 ? 255 : v);
}

/* Frame t into img (stride bytes a row). */
static inline void motion_scene_frame(uint8_t *img, size_t stride, int w,
                                      int h, int t)
{
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      img[(size_t)y * stride + x] = motion_scene_pixel(x, y, t, w, h);
}

#endif /* GPUCCL_MOTION_SCENE_H */
