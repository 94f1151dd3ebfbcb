#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The blob metadata as a Python application reads it, after the elements
users put behind gpucclblob.

Frames of known rectangles go through appsrc ! gpucclblob ! DOWNSTREAM !
appsink; the test reads GstCclBlobMeta through the GpucclBlob typelib
(meta.table(), meta.get_blob()) and the blobs' GstVideo ROI metas, and
compares both with the rectangles (the generator's truth, scaled by the
rule of docs/metadata.md where the frame is scaled).

Usage: test_metadata.py CASE (see CASES at the end).
"""
import math
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
gi.require_version("GpucclBlob", "1.0")
from gi.repository import GLib, Gst, GstVideo, GpucclBlob  # noqa: E402

import numpy  # noqa: E402
from pipeline_check import BACKEND, check, one_frame  # noqa: E402

W, H = 96, 60
# Inclusive (x0, y0, x1, y1), apart from each other (8-connectivity).
RECTS = [(3, 2, 12, 9), (20, 4, 20, 4), (30, 10, 31, 10), (50, 20, 79, 21),
         (5, 30, 6, 45), (60, 40, 94, 58), (40, 50, 40, 59)]


def frame(rects):
    img = numpy.zeros((H, W), dtype=numpy.uint8)
    for x0, y0, x1, y1 in rects:
        img[y0:y1 + 1, x0:x1 + 1] = 200
    return img


def run(img, downstream, props="max-roi-metas=0"):
    """One frame through the pipeline; the buffer the appsink got."""
    desc = (f"appsrc name=src format=time caps=video/x-raw,format=GRAY8,width={W},"
            f"height={H},framerate=0/1 ! gpucclblob backend={BACKEND} {props} ! "
            f"{downstream} ! appsink name=sink")
    sample, error = one_frame(desc, img.tobytes())
    check(sample is not None, f"no frame out of {desc} ({error})")
    # VideoInfo: Gst.Caps.get_structure() is a context manager since 1.26
    return sample.get_buffer(), GstVideo.VideoInfo.new_from_caps(sample.get_caps())


def truth(rects, ow=W, oh=H):
    """The rectangles as blob rows in id order (raster order of the first
    pixel), scaled from W x H to ow x oh: a box keeps the output pixels its
    continuous range touches, the centroid (pixel centres at +0.5) and the
    area scale."""
    rows = []
    for x0, y0, x1, y1 in sorted(rects, key=lambda r: (r[1], r[0])):
        def interval(a, b, n_in, n_out):
            a2 = a * n_out // n_in
            b2 = min(-(-(b + 1) * n_out // n_in), n_out)
            return a2, max(b2, a2 + 1) - 1
        sx0, sx1 = interval(x0, x1, W, ow)
        sy0, sy1 = interval(y0, y1, H, oh)
        area = (x1 - x0 + 1) * (y1 - y0 + 1) * (ow / W) * (oh / H)
        rows.append({"x0": sx0, "y0": sy0, "x1": sx1, "y1": sy1,
                     "area": max(1, round(area)),
                     "cx": max(0.0, ((x0 + x1) / 2 + 0.5) * ow / W - 0.5),
                     "cy": max(0.0, ((y0 + y1) / 2 + 0.5) * oh / H - 0.5)})
    return rows


def roi_metas(buf):
    """The buffer's "blob" ROI metas by id, found through the table's ids,
    and the number of ROI metas on the buffer."""
    api = GstVideo.VideoRegionOfInterestMeta.get_info().api
    meta = GpucclBlob.buffer_get_ccl_blob_meta(buf)
    found = {}
    for i in meta.table()["id"].tolist():
        roi = GstVideo.buffer_get_video_region_of_interest_meta_id(buf, i)
        if roi is not None:
            found[i] = roi
    return found, buf.get_n_meta(api)


def check_frame(buf, info, rects, what, n_roi=None):
    ow, oh = info.width, info.height
    exp = truth(rects, ow, oh)
    meta = GpucclBlob.buffer_get_ccl_blob_meta(buf)
    check(meta is not None, f"{what}: no GstCclBlobMeta")
    check((meta.width, meta.height) == (ow, oh),
          f"{what}: meta {meta.width}x{meta.height}, frame {ow}x{oh}")
    t = meta.table()
    check(len(t) == meta.n_blobs == len(exp), f"{what}: {len(t)} rows, {len(exp)} rects")
    check((t["id"] == numpy.arange(1, len(exp) + 1)).all(), f"{what}: ids {t['id']}")
    for name in ("x0", "y0", "x1", "y1", "area"):
        want = numpy.array([e[name] for e in exp])
        check((t[name] == want).all(), f"{what}: {name} {t[name]} != {want}")
    for name in ("cx", "cy"):
        # Scaled, the sums are rounded: sum / area is the centroid to
        # 0.5 / area pixel (exact when not scaled).
        want = numpy.array([e[name] for e in exp])
        tol = 0.5 / t["area"] + 1e-9 if (ow, oh) != (W, H) else 1e-9
        check((abs(t[name] - want) <= tol).all(), f"{what}: {name} {t[name]} != {want}")
    check((t["value"] == 1).all() and (t["track_id"] == 0).all(),
          f"{what}: value {t['value']} track {t['track_id']}")
    # get_blob() reads the same memory, one blob at a time.
    for i in range(len(t)):
        b = meta.get_blob(i)
        check((b.id, b.x0, b.y1, b.area, b.sum_x) + tuple(b.get_centroid()) ==
              (t["id"][i], t["x0"][i], t["y1"][i], t["area"][i], t["sum_x"][i],
               t["cx"][i], t["cy"][i]), f"{what}: get_blob({i})")
        check(meta.get_track_id(i) == t["track_id"][i] and meta.get_value(i) == 1,
              f"{what}: get_track_id/get_value({i})")
    check(meta.get_blob(len(t)) is None, f"{what}: get_blob past the end")

    # The ROI metas: one per blob (n_roi of them under a cap), box and
    # parameters equal to the table's row.
    rois, n_on_buffer = roi_metas(buf)
    n_roi = len(t) if n_roi is None else n_roi
    check(meta.n_roi_metas == n_roi == len(rois) == n_on_buffer,
          f"{what}: n_roi_metas {meta.n_roi_metas}, {len(rois)} found, "
          f"{n_on_buffer} on the buffer, {n_roi} expected")
    # Under a cap the largest blobs have one (equal areas: the smaller id).
    largest = sorted(range(len(exp)), key=lambda i: (-exp[i]["area"], i))[:n_roi]
    check(sorted(rois) == sorted(i + 1 for i in largest),
          f"{what}: ROI metas for blobs {sorted(rois)}, largest {largest}")
    for row in t:
        roi = rois.get(int(row["id"]))
        if roi is None:
            continue
        check(GLib.quark_to_string(roi.roi_type) == "blob", f"{what}: roi type")
        check((roi.x, roi.y, roi.w, roi.h) ==
              (row["x0"], row["y0"], row["x1"] - row["x0"] + 1, row["y1"] - row["y0"] + 1),
              f"{what}: ROI box {(roi.x, roi.y, roi.w, roi.h)} != row {row}")
        p = roi.get_param("gpucclblob")
        check(p is not None, f"{what}: ROI {row['id']} lost its parameters")
        check(p.get_uint("id")[1] == row["id"] and p.get_uint64("area")[1] == row["area"]
              and p.get_uint("track-id")[1] == row["track_id"]
              and p.get_uint("value")[1] == row["value"]
              and math.isclose(p.get_double("centroid-x")[1], row["cx"], abs_tol=1e-9)
              and math.isclose(p.get_double("centroid-y")[1], row["cy"], abs_tol=1e-9),
              f"{what}: ROI parameters {p.to_string()} != row {row}")
    return t


def test_plain():
    buf, info = run(frame(RECTS), "identity")
    check_frame(buf, info, RECTS, "plain")


def test_convert_tee_queue():
    down = ("videoconvert ! video/x-raw,format=RGBA ! tee name=t ! queue ! "
            "fakesink sync=false t. ! queue ! videoconvert ! video/x-raw,format=I420")
    buf, info = run(frame(RECTS), down)
    check_frame(buf, info, RECTS, "videoconvert/tee/queue")


def test_scale_up():
    down = f"videoscale ! video/x-raw,width={2 * W},height={2 * H} ! queue"
    buf, info = run(frame(RECTS), down)
    check_frame(buf, info, RECTS, "videoscale x2")


def test_scale_down():
    """A third of the width: 1- and 2-pixel blobs would be 0 wide in
    GStreamer's own ROI scaling; their boxes keep the pixels they touch."""
    down = (f"videoconvert ! videoscale ! video/x-raw,format=I420,width={W // 3 + 1},"
            f"height={H // 2} ! tee ! queue")
    buf, info = run(frame(RECTS), down)
    t = check_frame(buf, info, RECTS, "videoscale /3")
    check((t["x1"] >= t["x0"]).all(), "box of width 0")


def test_roi_cap():
    """max-roi-metas: the largest blobs get a ROI meta, the table has all;
    -1 (default): one per 1024 pixels of the frame."""
    buf, info = run(frame(RECTS), "videoconvert", "max-roi-metas=3")
    check_frame(buf, info, RECTS, "max-roi-metas=3", n_roi=3)
    buf, info = run(frame(RECTS), "identity", "")
    check_frame(buf, info, RECTS, "max-roi-metas default", n_roi=W * H // 1024)


def test_table_large():
    """Many blobs: meta.table() against the frame itself (numpy)."""
    global W, H
    W, H = 640, 360
    img = numpy.zeros((H, W), dtype=numpy.uint8)
    img[1::3, 2::4] = 255  # isolated dots
    buf, _ = run(img, "identity", "max-roi-metas=0")
    t = GpucclBlob.buffer_get_ccl_blob_meta(buf).table()
    ys, xs = numpy.nonzero(img)  # raster order: the ids' order
    check(len(t) == len(xs), f"{len(t)} blobs, {len(xs)} dots")
    check((t["x0"] == xs).all() and (t["y0"] == ys).all() and (t["x1"] == xs).all()
          and (t["area"] == 1).all() and (t["cx"] == xs).all(), "dot table")


def pull_meta(pipeline, img):
    """Push img, pull its sample, and return only the meta, read through
    the sample's buffer in one expression: nothing else holds the buffer."""
    buf = Gst.Buffer.new_wrapped(img.tobytes())
    buf.pts = 0
    pipeline.get_by_name("src").emit("push-buffer", buf)
    del buf
    sample = pipeline.get_by_name("sink").emit("pull-sample")
    return GpucclBlob.buffer_get_ccl_blob_meta(sample.get_buffer())


def test_keeps_buffer():
    """Issue 28: a meta read after its sample is released. Before, the
    buffer died with the sample: the meta and its table were freed, and
    the next frame's table took their memory (a use-after-free)."""
    desc = (f"appsrc name=src format=time caps=video/x-raw,format=GRAY8,width={W},"
            f"height={H},framerate=0/1 ! gpucclblob backend={BACKEND} ! "
            "appsink name=sink")
    pipeline = Gst.parse_launch(desc)
    pipeline.set_state(Gst.State.PLAYING)
    first = pull_meta(pipeline, frame(RECTS))
    import gc
    gc.collect()
    # The same number of blobs elsewhere: a table of the same size.
    moved = [(x0 + 1, y0, x1 + 1, y1) for x0, y0, x1, y1 in RECTS]
    second = pull_meta(pipeline, frame(moved))
    pipeline.set_state(Gst.State.NULL)
    for meta, rects, what in ((first, RECTS, "first"), (second, moved, "second")):
        t = meta.table()
        want = truth(rects)
        check(len(t) == len(want) and all(
            (t["x0"][i], t["y1"][i], t["area"][i]) == (w["x0"], w["y1"], w["area"])
            for i, w in enumerate(want)), f"{what} frame's table: {t[['x0', 'y1']]}")
        check(meta.get_blob(0).x0 == want[0]["x0"], f"{what}: get_blob(0)")


def test_fields():
    """Issue 28: meta.blobs (and track_ids, values) from Python: arrays, not
    a GLib CRITICAL and an empty list."""
    buf, _ = run(frame(RECTS), "identity", "track=true")
    meta = GpucclBlob.buffer_get_ccl_blob_meta(buf)
    blobs = meta.blobs
    check(len(blobs) == meta.n_blobs == len(RECTS), f"meta.blobs: {blobs}")
    check((blobs["x0"] == meta.table()["x0"]).all(), "meta.blobs != table()")
    check(meta.track_ids is not None and len(meta.track_ids) == len(RECTS)
          and (meta.track_ids > 0).all(), f"track_ids {meta.track_ids}")
    check(meta.values is None, f"values in mode=binary: {meta.values}")


def test_two_elements():
    """Issue 28: two gpucclblob in one pipeline, both tables reachable, by
    index (upstream first) and by element name."""
    buf, _ = run(frame(RECTS), "gpucclblob name=second threshold=250 ! identity",
                 "name=first")
    n = GpucclBlob.buffer_get_n_ccl_blob_metas(buf)
    check(n == 2, f"{n} tables")
    first = GpucclBlob.buffer_get_nth_ccl_blob_meta(buf, 0)
    second = GpucclBlob.buffer_get_nth_ccl_blob_meta(buf, 1)
    check(first.get_source() == "first" and second.get_source() == "second",
          f"sources {first.get_source()} {second.get_source()}")
    check(first.n_blobs == len(RECTS) and second.n_blobs == 0,
          f"{first.n_blobs} and {second.n_blobs} blobs")
    by_name = GpucclBlob.buffer_get_ccl_blob_meta_by_source(buf, "second")
    check(by_name is not None and by_name.threshold == 250, "by source")
    check(GpucclBlob.buffer_get_nth_ccl_blob_meta(buf, 2) is None, "index 2")


CASES = {
    "plain": test_plain,
    "convert-tee-queue": test_convert_tee_queue,
    "scale-up": test_scale_up,
    "scale-down": test_scale_down,
    "roi-cap": test_roi_cap,
    "table-large": test_table_large,
    "keeps-buffer": test_keeps_buffer,
    "fields": test_fields,
    "two-elements": test_two_elements,
}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in CASES:
        sys.exit(f"usage: {sys.argv[0]} {'|'.join(CASES)}")
    Gst.init(None)
    CASES[sys.argv[1]]()
