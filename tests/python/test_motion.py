#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""binarize=difference|background (issue 29) against the same model
computed here in NumPy from gpuccl.h's definition, independently of the
library's C: every frame's foreground (the label image's non-zero pixels,
attach-labels=true) and threshold must be exactly NumPy's.

  numpy        a textured scene with noise, a brightening light and moving
               squares pushed as GRAY8 and GRAY16_LE: difference, running
               average (with and without selective, a slow rate that
               rounding decides, invert, Otsu), warm-up frames
  videoconvert a camera-like source: videotestsrc's moving ball in I420
               through videoconvert to BGRx; the model of the BT.601 luma
               of the frames the element passed on

Usage: test_motion.py CASE
"""
import os
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GpucclBlob", "1.0")
from gi.repository import Gst, GpucclBlob  # noqa: E402

import numpy  # noqa: E402

BACKEND = os.environ.get("GPUCCL_TEST_BACKEND", "cpu")
W, H = 83, 61   # odd: words and rows cut anywhere


def check(cond, what):
    if not cond:
        print("FAIL:", what, file=sys.stderr)
        sys.exit(1)


class Model:
    """gpuccl.h's background model: B in fixed point (`shift` fraction
    bits), rate Q16, steps rounded half up, warm-up at least 1/(k+1)."""

    def __init__(self, mode, rate, selective, warmup, wide):
        self.mode, self.selective = mode, selective
        self.rate = 65536 if mode == "difference" else int(round(rate * 65536))
        self.warmup = max(1, warmup)
        self.shift = 16 if wide else 8
        self.b = None
        self.k = 0

    def diff(self, s):
        level = (self.b + (1 << (self.shift - 1))) >> self.shift
        return numpy.abs(s - level)

    def frame(self, s, threshold, invert, otsu):
        """The foreground of samples s (int64 array) and the threshold."""
        s = s.astype(numpy.int64)
        if self.b is None:
            self.b = numpy.zeros(s.shape, numpy.int64)
        warm = self.k < self.warmup
        rate = max(self.rate, 65536 // (self.k + 1)) if warm else self.rate
        d = self.diff(s) if self.k else numpy.zeros(s.shape, numpy.int64)
        if otsu:
            t = otsu_threshold(numpy.bincount((d >> 8 if self.shift == 16 else d).ravel(),
                                              minlength=256))
            threshold = (t << 8) | 0xff if self.shift == 16 else t
        learn = numpy.ones(s.shape, bool)
        if self.selective and not warm and self.mode == "background":
            learn = d <= threshold
        step = (((s << self.shift) - self.b) * rate + 32768) >> 16
        self.b = numpy.where(learn, self.b + step, self.b)
        self.k += 1
        fg = (d > threshold) != invert
        return (fg & (not warm)), threshold


def otsu_threshold(hist):
    """kernels/otsu.h, the same double operations."""
    hist = [int(v) for v in hist]
    total = sum(hist)
    total_sum = sum(i * v for i, v in enumerate(hist))
    w0 = s0 = 0
    best, best_t = 0.0, 0
    for t in range(255):
        w0 += hist[t]
        s0 += t * hist[t]
        w1 = total - w0
        if w0 == 0 or w1 == 0:
            continue
        mu0 = s0 / w0
        mu1 = (total_sum - s0) / w1
        diff = mu0 - mu1
        between = (float(w0) * float(w1)) * (diff * diff)
        if between > best:
            best, best_t = between, t
    return best_t


def scene(t, wide):
    """Frame t: gradient and fixed texture, light +1 every 6 frames, noise
    -4..4, squares moving at different speeds (one stops at t = 12)."""
    rng = numpy.random.default_rng(1000 + t)
    y, x = numpy.mgrid[0:H, 0:W]
    texture = numpy.random.default_rng(7).integers(0, 25, (H, W))
    img = 50 + x * 90 // W + y * 50 // H + texture + t // 6
    img = img + rng.integers(-4, 5, (H, W))
    for (x0, y0, vx, vy, side, level, stop) in [(2, 5, 3, 0, 9, 15, 99),
                                                (60, 2, -2, 2, 7, 240, 12),
                                                (10, 40, 2, -1, 6, 5, 99)]:
        tt = min(t, stop)
        xa, ya = x0 + vx * tt, y0 + vy * tt
        img[max(ya, 0):max(ya + side, 0), max(xa, 0):max(xa + side, 0)] = level
    img = numpy.clip(img, 0, 255)
    if wide:
        return (img << 8 | rng.integers(0, 256, (H, W))).astype(numpy.uint16)
    return img.astype(numpy.uint8)


def labels_of(buf):
    meta = buf.get_custom_meta("GpucclBlobLabelsMeta")
    check(meta is not None, "a label image")
    s = meta.get_structure()
    labels = s.get_value("labels")
    ok, info = labels.map(Gst.MapFlags.READ)
    rows = numpy.frombuffer(info.data, dtype=numpy.uint8).reshape(
        s.get_value("height"), s.get_value("stride"))
    image = rows[:, :4 * s.get_value("width")].copy().view(numpy.uint32)
    labels.unmap(info)
    return image


def element(props):
    return (f"gpucclblob backend={BACKEND} attach-labels=true max-roi-metas=0 "
            f"{props}")


def skip_without_cuda(pipeline):
    msg = pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
    if msg is not None:
        text = msg.parse_error()[0].message
        if "No usable CUDA device" in text:
            sys.exit(77)
        check(False, text)


def run_numpy(binarize, rate, selective, warmup, threshold, invert=False,
              otsu=False, wide=False, frames=30):
    fmt = "GRAY16_LE" if wide else "GRAY8"
    props = (f"binarize={binarize} learning-rate={rate} "
             f"background-selective={str(selective).lower()} "
             f"background-frames={warmup} threshold={threshold} "
             f"invert={str(invert).lower()} "
             f"auto-threshold={'otsu' if otsu else 'none'}")
    desc = (f"appsrc name=src format=time caps=video/x-raw,format={fmt},width={W},"
            f"height={H},framerate=25/1 ! {element(props)} ! appsink name=sink "
            f"sync=false")
    pipeline = Gst.parse_launch(desc)
    pipeline.set_state(Gst.State.PLAYING)
    src, sink = pipeline.get_by_name("src"), pipeline.get_by_name("sink")
    model = Model(binarize, rate, selective, warmup, wide)
    what = f"{fmt} {props}"
    for t in range(frames):
        img = scene(t, wide)
        # GStreamer's default strides: rows padded to 4 bytes.
        row = img.shape[1] * img.itemsize
        padded = numpy.zeros((H, (row + 3) // 4 * 4), numpy.uint8)
        padded[:, :row] = img.view(numpy.uint8).reshape(H, row)
        buf = Gst.Buffer.new_wrapped(padded.tobytes())
        buf.pts = t * Gst.SECOND // 25
        src.emit("push-buffer", buf)
        sample = sink.emit("try-pull-sample", 5 * Gst.SECOND)
        if sample is None:
            skip_without_cuda(pipeline)
        check(sample is not None, f"{what}: frame {t} out")
        out = sample.get_buffer()
        fg, thr = model.frame(img, threshold, invert, otsu)
        got = labels_of(out) != 0
        check(got.shape == fg.shape and (got == fg).all(),
              f"{what}: frame {t}: {int((got != fg).sum())} pixels differ "
              f"from NumPy's model ({int(fg.sum())} foreground)")
        meta = GpucclBlob.buffer_get_ccl_blob_meta(out)
        check(meta.threshold == thr, f"{what}: frame {t}: threshold "
              f"{meta.threshold}, NumPy {thr}")
    pipeline.set_state(Gst.State.NULL)
    print(f"ok: {what}: {frames} frames as NumPy's model")


def test_numpy():
    run_numpy("difference", 0.05, False, 0, 20)
    run_numpy("background", 0.05, False, 4, 20)
    run_numpy("background", 0.1, True, 3, 25)
    run_numpy("background", 0.003, False, 2, 2)       # rounding decides
    run_numpy("background", 0.3, False, 1, 0)         # any step shows
    run_numpy("difference", 0.05, False, 0, 12, invert=True)
    run_numpy("background", 0.05, True, 3, 0, otsu=True)
    run_numpy("background", 0.05, False, 2, 20 * 256, wide=True)
    run_numpy("background", 0.07, True, 2, 0, otsu=True, wide=True)


def luma601(r, g, b):
    return (19595 * r + 38470 * g + 7471 * b + 32768) >> 16


def test_videoconvert():
    props = ("binarize=background learning-rate=0.1 background-frames=3 "
             "threshold=25")
    desc = ("videotestsrc pattern=ball num-buffers=24 ! video/x-raw,format=I420,"
            "width=160,height=120,framerate=30/1 ! videoconvert "
            f"! video/x-raw,format=BGRx ! {element(props)} ! appsink name=sink "
            "sync=false")
    pipeline = Gst.parse_launch(desc)
    pipeline.set_state(Gst.State.PLAYING)
    sink = pipeline.get_by_name("sink")
    model = Model("background", 0.1, False, 3, False)
    frames = blobs = 0
    while True:
        sample = sink.emit("try-pull-sample", 10 * Gst.SECOND)
        if sample is None:
            break
        buf = sample.get_buffer()
        ok, info = buf.map(Gst.MapFlags.READ)
        px = numpy.frombuffer(info.data, numpy.uint8)[:160 * 120 * 4].reshape(
            120, 160, 4).astype(numpy.int64)
        buf.unmap(info)
        fg, _ = model.frame(luma601(px[..., 2], px[..., 1], px[..., 0]), 25,
                            False, False)
        got = labels_of(buf) != 0
        check((got == fg).all(), f"videoconvert frame {frames}: "
              f"{int((got != fg).sum())} pixels differ from NumPy's model")
        blobs += GpucclBlob.buffer_get_ccl_blob_meta(buf).n_blobs
        frames += 1
    skip_without_cuda(pipeline)
    pipeline.set_state(Gst.State.NULL)
    check(frames == 24, f"24 frames out ({frames})")
    check(blobs > 0, "the moving ball is a blob after the warm-up")
    print(f"ok: videoconvert I420 -> BGRx: {frames} frames as NumPy's model, "
          f"{blobs} blobs")


def main():
    Gst.init(None)
    cases = {"numpy": test_numpy, "videoconvert": test_videoconvert}
    if len(sys.argv) != 2 or sys.argv[1] not in cases:
        print(__doc__, file=sys.stderr)
        return 2
    cases[sys.argv[1]]()
    return 0


if __name__ == "__main__":
    sys.exit(main())
