/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The tracker's moving scene, shared by its benchmark and its GPU test:
 * squares of one side bouncing off the frame's edges, drawn at 255 on 0
 * into an 8-bit image. Squares that touch are one blob, so a tracker meets
 * merges, splits and new blobs as with real video. */
#ifndef GPUCCL_MOVING_SQUARES_H
#define GPUCCL_MOVING_SQUARES_H

#include <stdint.h>
#include <string.h>

typedef struct {
  double x, y, vx, vy; /* top-left corner, pixels per frame */
} MovingSquare;

/* Move every square one frame and draw the frame (w x h, stride w). */
static inline void moving_squares_step(uint8_t *img, int w, int h, int side,
                                       MovingSquare *m, int n)
{
  memset(img, 0, (size_t)w * h);
  for (int i = 0; i < n; i++) {
    MovingSquare *o = &m[i];
    o->x += o->vx;
    o->y += o->vy;
    if (o->x < 0 || o->x > w - side) { o->vx = -o->vx; o->x += 2 * o->vx; }
    if (o->y < 0 || o->y > h - side) { o->vy = -o->vy; o->y += 2 * o->vy; }
    int x0 = (int)o->x, y0 = (int)o->y;
    for (int y = y0; y < y0 + side && y < h; y++)
      memset(img + (size_t)y * w + x0, 255, (size_t)(x0 + side <= w ? side : w - x0));
  }
}

#endif /* GPUCCL_MOVING_SQUARES_H */
