#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Blob intensities (measure-intensity) and masks (mask-location) as a
Python application sees them, against scipy.ndimage: the frame is labeled
by ndimage.label (8-connectivity) on the foreground computed here (sample >
threshold, and mask != 0), each blob's sum, min and max by ndimage.sum,
minimum and maximum over those labels. Ids are in raster order of each
blob's first pixel in both.

  intensity  random GRAY8 and GRAY16_LE frames, meta.intensity and
             table()'s columns; off by default (None)
  mask       a PNG mask (written with pngenc) through mask-location, with
             and without region, and through videoconvert from I420
  mask-errors  a mask of another size (the error names both sizes), a
             file that is not there (the error names it), mode=segments

Usage: test_intensity.py CASE
"""
import os
import sys
import tempfile

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GpucclBlob", "1.0")
from gi.repository import Gst, GpucclBlob  # noqa: E402

import numpy  # noqa: E402
from pipeline_check import BACKEND, check, one_frame  # noqa: E402
from scipy import ndimage  # noqa: E402

W, H = 160, 90
EIGHT = numpy.ones((3, 3), dtype=bool)


def blocky(seed, dtype=numpy.uint8, top=256):
    """Random values in 4 x 4 blocks with noise, so thresholds cut
    shapes of many sizes."""
    rng = numpy.random.default_rng(seed)
    blocks = rng.integers(0, top, size=(H // 4 + 1, W // 4 + 1))
    img = numpy.kron(blocks, numpy.ones((4, 4), dtype=numpy.int64))[:H, :W]
    noise = rng.integers(0, top, size=(H, W))
    img = numpy.where(rng.random((H, W)) < 0.1, noise, img)
    return img.astype(dtype)


def run(img, fmt, props, convert=""):
    """One frame of img (fmt) through gpucclblob; (buffer, error text)."""
    desc = (f"appsrc name=src format=time caps=video/x-raw,format={fmt},"
            f"width={W},height={H},framerate=0/1 {convert} ! gpucclblob "
            f"backend={BACKEND} {props} ! appsink name=sink")
    sample, error = one_frame(desc, img.tobytes())
    return (sample.get_buffer() if sample else None), error


def expected(samples, foreground, min_area):
    """scipy's blobs of foreground: (ids, areas, sums, mins, maxs) of
    those of at least min_area pixels, ids in raster order."""
    labels, n = ndimage.label(foreground, structure=EIGHT)
    index = numpy.arange(1, n + 1)
    area = ndimage.sum(numpy.ones_like(labels), labels, index)
    s = samples.astype(numpy.int64)
    sums = ndimage.sum(s, labels, index)
    mins = ndimage.minimum(s, labels, index)
    maxs = ndimage.maximum(s, labels, index)
    keep = area >= min_area
    return (index[keep], area[keep], sums[keep], mins[keep], maxs[keep])


def compare(buf, samples, foreground, min_area, what):
    check(buf is not None, f"{what}: a frame")
    meta = GpucclBlob.buffer_get_ccl_blob_meta(buf)
    table = meta.table()
    ids, area, sums, mins, maxs = expected(samples, foreground, min_area)
    check(len(ids) > 3, f"{what}: scipy finds {len(ids)} blobs")
    check(numpy.array_equal(table["id"], ids) and
          numpy.array_equal(table["area"], area),
          f"{what}: ids and areas as scipy's ({len(ids)} blobs)")
    intensity = meta.intensity
    check(intensity is not None and len(intensity) == len(ids),
          f"{what}: meta.intensity has a row per blob")
    check(numpy.array_equal(intensity["sum"], sums.astype(numpy.uint64)) and
          numpy.array_equal(intensity["min"], mins) and
          numpy.array_equal(intensity["max"], maxs),
          f"{what}: sum, min, max are ndimage.sum, minimum, maximum")
    check(numpy.array_equal(table["intensity_sum"], intensity["sum"]) and
          numpy.allclose(table["intensity_mean"], sums / area),
          f"{what}: table() columns, mean = sum / area")


def case_intensity():
    img = blocky(1)
    buf, error = run(img, "GRAY8", "threshold=150 min-area=3 "
                     "measure-intensity=true")
    check(error is None, f"no error ({error})")
    compare(buf, img, img > 150, 3, "GRAY8")
    wide = blocky(2, numpy.uint16, 65536)
    buf, error = run(wide, "GRAY16_LE", "threshold=40000 "
                     "measure-intensity=true")
    compare(buf, wide, wide > 40000, 1, "GRAY16_LE")
    buf, _ = run(img, "GRAY8", "threshold=150")
    meta = GpucclBlob.buffer_get_ccl_blob_meta(buf)
    check(meta.intensity is None and
          not meta.table()["intensity_sum"].any(),
          "measure-intensity is off by default: no intensities")


def write_png(path, mask):
    """mask (H x W uint8) as a GRAY8 PNG, written by GStreamer."""
    stride = (mask.shape[1] + 3) // 4 * 4  # GStreamer's GRAY8 rows
    rows = numpy.zeros((mask.shape[0], stride), dtype=numpy.uint8)
    rows[:, :mask.shape[1]] = mask
    pipeline = Gst.parse_launch(
        f"appsrc name=src caps=video/x-raw,format=GRAY8,width={mask.shape[1]},"
        f"height={mask.shape[0]},framerate=0/1 ! pngenc ! filesink "
        f"location={path}")
    pipeline.set_state(Gst.State.PLAYING)
    pipeline.get_by_name("src").emit("push-buffer",
                                      Gst.Buffer.new_wrapped(rows.tobytes()))
    pipeline.get_by_name("src").emit("end-of-stream")
    pipeline.get_bus().timed_pop_filtered(
        5 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)


def a_mask(width=W, height=H):
    """Zero in a band, a rectangle and random blocks; other values 1..255."""
    rng = numpy.random.default_rng(7)
    mask = rng.integers(1, 256, size=(height, width)).astype(numpy.uint8)
    mask[:, width // 3:width // 3 + 9] = 0
    mask[10:40, 100:130] = 0
    blocks = rng.random((height // 6 + 1, width // 6 + 1)) < 0.2
    mask[numpy.kron(blocks, numpy.ones((6, 6), dtype=bool))[:height, :width]] = 0
    return mask


def case_mask(tmp):
    img = blocky(3)
    mask = a_mask()
    path = os.path.join(tmp, "mask.png")
    write_png(path, mask)
    props = f"threshold=120 measure-intensity=true mask-location={path}"
    buf, error = run(img, "GRAY8", props)
    check(error is None, f"no error ({error})")
    compare(buf, img, (img > 120) & (mask != 0), 1, "mask")
    # With a region: only its rectangle, in frame coordinates.
    x, y, w, h = 21, 13, 100, 60
    buf, _ = run(img, "GRAY8", props + f" region=<{x},{y},{w},{h}>")
    inside = numpy.zeros_like(mask, dtype=bool)
    inside[y:y + h, x:x + w] = True
    compare(buf, img, (img > 120) & (mask != 0) & inside, 1, "mask + region")
    # The same through videoconvert from I420: the luma is the frame.
    yuv = numpy.concatenate([img.ravel(), numpy.full(W * H // 2, 128,
                                                     numpy.uint8)])
    buf, _ = run(yuv, "I420", props, "! videoconvert "
                 "! video/x-raw,format=I420")
    compare(buf, img, (img > 120) & (mask != 0), 1, "mask, I420")


def case_mask_errors(tmp):
    img = blocky(4)
    path = os.path.join(tmp, "small.png")
    write_png(path, a_mask(W - 1, H))
    buf, error = run(img, "GRAY8", f"mask-location={path}")
    check(error is not None and f"{W - 1}x{H}" in error and f"{W}x{H}" in error,
          f"a mask of another size: '{error}' names both sizes")
    buf, error = run(img, "GRAY8", "mode=segments measure-intensity=true")
    check(error is not None and "mode=binary" in error,
          f"measure-intensity in mode=segments: '{error}'")
    missing = os.path.join(tmp, "no-such-mask.png")
    buf, error = run(img, "GRAY8", f"mask-location={missing}")
    check(error is not None and "no-such-mask.png" in error,
          f"a missing mask file: '{error}' names it")


def main():
    Gst.init(None)
    case = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        if case == "intensity":
            case_intensity()
        elif case == "mask":
            case_mask(tmp)
        elif case == "mask-errors":
            case_mask_errors(tmp)
        else:
            sys.exit(f"unknown case {case}")


if __name__ == "__main__":
    main()
