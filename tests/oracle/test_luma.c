/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* PACKED4 luma on the CPU backend, every colour: an image holding all
 * 2^24 (r, g, b) in three channel layouts (RGBx, BGRx and one with R last),
 * a width that is not a multiple of 64 (each row ends in a partial word),
 * thresholds across the range and both polarities. Oracle: the BT.601
 * fixed point written out here, (19595 r + 38470 g + 7471 b + 32768) >> 16
 * (docs/element.md#caps), against each pixel's label being non-zero.
 * The same image by one channel (red, green, blue): the byte itself. */
#include <gpuccl.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

enum { WIDTH = 4099, COLOURS = 1 << 24, CHANNELS = 4 };
#define HEIGHT ((COLOURS + WIDTH - 1) / WIDTH)

static unsigned luma(unsigned r, unsigned g, unsigned b)
{
  return (19595 * r + 38470 * g + 7471 * b + 32768) >> 16;
}

typedef struct {
  uint8_t r, g, b;
  const char *name;
} Layout;

/* The sample of colour c (0xRRGGBB) that `channel` thresholds. */
static unsigned sample_of(unsigned c, GpucclChannel channel)
{
  const unsigned r = c >> 16, g = (c >> 8) & 255, b = c & 255;
  switch (channel) {
  case GPUCCL_CHANNEL_RED: return r;
  case GPUCCL_CHANNEL_GREEN: return g;
  case GPUCCL_CHANNEL_BLUE: return b;
  default: return luma(r, g, b);
  }
}

/* Every threshold and polarity of the image in `layout` by `channel`
 * against the oracle's samples y; returns the failures, *checks counted. */
static int check(GpucclContext *ctx, const GpucclImage *image,
                 const Layout *layout, GpucclChannel channel,
                 const uint8_t *y, int *checks)
{
  static const int thresholds[] = {0, 1, 15, 16, 100, 127, 128, 200, 235, 254, 255};
  const size_t pixels = (size_t)image->width * image->height;
  int failures = 0;
  for (size_t t = 0; t < sizeof thresholds / sizeof *thresholds; t++) {
    for (int invert = 0; invert < 2; invert++) {
      GpucclParams params;
      GpucclResult result;
      GpucclError error = {0};
      gpuccl_params_init(&params);
      params.threshold = thresholds[t];
      params.invert = invert;
      params.channel = channel;
      params.want_labels = true;
      if (gpuccl_process(ctx, image, &params, &result, &error) != GPUCCL_OK) {
        printf("FAIL %s: %s\n", layout->name, error.message);
        return failures + 1;
      }
      size_t wrong = 0, first = 0;
      for (size_t i = 0; i < pixels; i++) {
        bool fg = (y[i] > thresholds[t]) != invert;
        if ((result.labels[i] != 0) != fg && wrong++ == 0)
          first = i;
      }
      (*checks)++;
      if (wrong) {
        failures++;
        printf("FAIL %s channel %d threshold %d invert %d: %zu pixels "
               "wrong, first at %zu (colour 0x%06zx)\n",
               layout->name, (int)channel, thresholds[t], invert, wrong,
               first, first % COLOURS);
      }
    }
  }
  return failures;
}

int main(void)
{
  static const Layout layouts[] = {
      {0, 1, 2, "RGBx"}, {2, 1, 0, "BGRx"}, {3, 0, 1, "GBxR"}};
  size_t pixels = (size_t)WIDTH * HEIGHT;
  uint8_t *data = malloc(4 * pixels);
  uint8_t *y = malloc(pixels);
  GpucclError error = {0};
  GpucclContext *ctx = gpuccl_context_new(GPUCCL_BACKEND_CPU, 0, &error);
  int failures = 0, checks = 0;

  if (!data || !y || !ctx) {
    printf("setup failed: %s\n", error.message);
    return 1;
  }
  for (size_t l = 0; l < sizeof layouts / sizeof *layouts; l++) {
    for (size_t i = 0; i < pixels; i++) {
      unsigned c = (unsigned)(i % COLOURS);
      uint8_t *p = data + 4 * i;
      p[layouts[l].r] = (uint8_t)(c >> 16);
      p[layouts[l].g] = (uint8_t)(c >> 8);
      p[layouts[l].b] = (uint8_t)c;
    }
    GpucclImage image = {.data = data, .width = WIDTH, .height = HEIGHT,
                         .stride = 4 * WIDTH, .format = GPUCCL_PIXEL_PACKED4,
                         .offset_r = layouts[l].r, .offset_g = layouts[l].g,
                         .offset_b = layouts[l].b};
    for (int ch = 0; ch < CHANNELS; ch++) {
      for (size_t i = 0; i < pixels; i++)
        y[i] = (uint8_t)sample_of((unsigned)(i % COLOURS), (GpucclChannel)ch);
      failures += check(ctx, &image, &layouts[l], (GpucclChannel)ch, y,
                        &checks);
    }
  }
  printf("%d of %d layout/channel/threshold/polarity cases exact over %zu "
         "pixels\n", checks - failures, checks, pixels);
  gpuccl_context_free(ctx);
  free(data);
  free(y);
  return failures ? 1 : 0;
}
