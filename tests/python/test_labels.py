#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The label image (attach-labels=true) as a Python application reads it:
the custom meta "GpucclBlobLabelsMeta" (a GstBuffer of guint32 ids) and,
on GStreamer >= 1.26, the analytics segmentation mask. Frames of known
rectangles, so the truth is the generator's: each rectangle's pixels carry
one id, the id of the table row whose box is the rectangle; background 0.

  labels      the image against the rectangles and the table; off by default
  downstream  kept by videoconvert, tee and queue; dropped by videoscale
  analytics   the segmentation mask and its relations (77 before 1.26)
  region      region=<x,y,w,h>: the table, centroids and label image of the
              rectangles clipped to it, in frame coordinates

Usage: test_labels.py CASE
"""
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GpucclBlob", "1.0")
from gi.repository import Gst, GpucclBlob  # noqa: E402

import numpy  # noqa: E402
from pipeline_check import BACKEND, check, one_frame  # noqa: E402

W, H = 96, 60
# Inclusive (x0, y0, x1, y1), apart from each other (8-connectivity); the
# last one is 1 pixel, below min-area=2.
RECTS = [(3, 2, 12, 9), (30, 10, 31, 10), (50, 20, 79, 21), (5, 30, 6, 45),
         (60, 40, 94, 58), (40, 50, 40, 59), (20, 4, 20, 4)]
SMALL = RECTS[-1]


def frame():
    img = numpy.zeros((H, W), dtype=numpy.uint8)
    for x0, y0, x1, y1 in RECTS:
        img[y0:y1 + 1, x0:x1 + 1] = 200
    return img


def run(props, downstream="identity", fmt="GRAY8"):
    desc = (f"appsrc name=src format=time caps=video/x-raw,format=GRAY8,width={W},"
            f"height={H},framerate=0/1 ! videoconvert ! video/x-raw,format={fmt} "
            f"! gpucclblob backend={BACKEND} min-area=2 {props} ! {downstream} "
            f"! appsink name=sink")
    sample, error = one_frame(desc, frame().tobytes())
    check(sample is not None, f"a frame out of {desc} ({error})")
    return sample.get_buffer()


def labels_of(buf):
    """The label image as a (height, width) uint32 array, or None."""
    meta = buf.get_custom_meta("GpucclBlobLabelsMeta")
    if meta is None:
        return None
    s = meta.get_structure()
    labels = s.get_value("labels")
    ok, info = labels.map(Gst.MapFlags.READ)
    check(ok, "the labels buffer maps")
    rows = numpy.frombuffer(info.data, dtype=numpy.uint8).reshape(
        s.get_value("height"), s.get_value("stride"))
    image = rows[:, :4 * s.get_value("width")].copy().view(numpy.uint32)
    labels.unmap(info)
    return image


def check_labels(image, buf, what):
    check(image is not None and image.shape == (H, W), f"{what}: a {W}x{H} label image")
    table = GpucclBlob.buffer_get_ccl_blob_meta(buf).table()
    boxes = {(int(r["x0"]), int(r["y0"]), int(r["x1"]), int(r["y1"])): int(r["id"])
             for r in table}
    inside = numpy.zeros((H, W), dtype=bool)
    ids = set()
    for rect in RECTS:
        x0, y0, x1, y1 = rect
        inside[y0:y1 + 1, x0:x1 + 1] = True
        values = numpy.unique(image[y0:y1 + 1, x0:x1 + 1])
        check(len(values) == 1 and values[0] != 0, f"{what}: {rect} one non-zero id")
        ids.add(int(values[0]))
        if rect == SMALL:
            check(int(values[0]) not in boxes.values(),
                  f"{what}: the filtered 1-pixel blob keeps its component id, not in the table")
        else:
            check(boxes.get(rect) == int(values[0]),
                  f"{what}: {rect} has its table row's id {boxes.get(rect)}")
    check(len(ids) == len(RECTS), f"{what}: a different id per rectangle")
    check(not image[~inside].any(), f"{what}: background 0")


def test_labels():
    buf = run("")
    check(labels_of(buf) is None, "off by default: no label image")
    for fmt in ("GRAY8", "I420", "BGRx"):
        buf = run("attach-labels=true", fmt=fmt)
        check_labels(labels_of(buf), buf, fmt)
    buf = run("attach-labels=true attach-meta=false")
    check(labels_of(buf) is None, "attach-meta=false: no label image either")


def test_downstream():
    for downstream in ("videoconvert ! video/x-raw,format=I420",
                       "tee name=t t. ! queue"):
        buf = run("attach-labels=true", downstream)
        check_labels(labels_of(buf), buf, downstream)
    buf = run("attach-labels=true", f"videoscale ! video/x-raw,width={2 * W},height={2 * H}")
    check(labels_of(buf) is None, "videoscale drops the label image (it is per pixel)")


# x, y, width, height: cuts three rectangles, drops three, keeps one.
REGION = (24, 4, 50, 50)


def clipped(rect):
    """The part of an inclusive rectangle inside REGION, or None."""
    rx, ry, rw, rh = REGION
    x0, y0 = max(rect[0], rx), max(rect[1], ry)
    x1, y1 = min(rect[2], rx + rw - 1), min(rect[3], ry + rh - 1)
    return (x0, y0, x1, y1) if x0 <= x1 and y0 <= y1 else None


def test_region():
    rx, ry, rw, rh = REGION
    parts = [c for c in map(clipped, RECTS) if c is not None]
    kept = [c for c in parts if (c[2] - c[0] + 1) * (c[3] - c[1] + 1) >= 2]
    check(len(parts) == 4 and len(kept) == 4 and len(parts) < len(RECTS),
          "the scene: the region cuts and drops rectangles")
    for fmt in ("GRAY8", "I420", "BGRx"):
        buf = run(f'attach-labels=true region="<{rx},{ry},{rw},{rh}>"', fmt=fmt)
        table = GpucclBlob.buffer_get_ccl_blob_meta(buf).table()
        boxes = {(int(r["x0"]), int(r["y0"]), int(r["x1"]), int(r["y1"])):
                 (int(r["id"]), float(r["cx"]), float(r["cy"])) for r in table}
        check(sorted(boxes) == sorted(kept), f"{fmt}: boxes {sorted(boxes)} are the clipped rectangles")
        for x0, y0, x1, y1 in kept:
            _, cx, cy = boxes[(x0, y0, x1, y1)]
            check((cx, cy) == ((x0 + x1) / 2, (y0 + y1) / 2),
                  f"{fmt}: centroid of {(x0, y0, x1, y1)} in frame coordinates")
        image = labels_of(buf)
        check(image is not None and image.shape == (H, W), f"{fmt}: a frame-sized label image")
        inside = numpy.zeros((H, W), dtype=bool)
        for x0, y0, x1, y1 in parts:
            inside[y0:y1 + 1, x0:x1 + 1] = True
            values = numpy.unique(image[y0:y1 + 1, x0:x1 + 1])
            check(len(values) == 1 and values[0] == boxes[(x0, y0, x1, y1)][0],
                  f"{fmt}: {(x0, y0, x1, y1)} labeled with its row's id")
        check(not image[~inside].any(), f"{fmt}: 0 outside the clipped rectangles")


def test_analytics():
    try:
        gi.require_version("GstAnalytics", "1.0")
        from gi.repository import GstAnalytics
    except (ValueError, ImportError):
        print("SKIP: no GstAnalytics typelib")
        sys.exit(77)
    if not hasattr(GstAnalytics, "SegmentationMtd"):
        print("SKIP: GstAnalytics before 1.26 (no segmentation metadata)")
        sys.exit(77)
    buf = run("attach-labels=true max-roi-metas=0")
    image = labels_of(buf)
    table = GpucclBlob.buffer_get_ccl_blob_meta(buf).table()
    rmeta = GstAnalytics.buffer_get_analytics_relation_meta(buf)
    check(rmeta is not None, "a relation meta")
    n = len(table)
    # Entries 0..n-1 are the blobs' object detections (no tracking), then
    # the segmentation.
    check(GstAnalytics.relation_get_length(rmeta) == n + 1,
          f"{n} detections and one segmentation")
    ok, seg = rmeta.get_segmentation_mtd(n)
    check(ok, "entry n is the segmentation")
    mask, x, y, w, h = seg.get_mask()
    check((x, y, w, h) == (0, 0, W, H), f"the mask covers the frame ({x},{y} {w}x{h})")
    gi.require_version("GstVideo", "1.0")
    from gi.repository import GstVideo
    vmeta = GstVideo.buffer_get_video_meta(mask)
    ok, info = mask.map(Gst.MapFlags.READ)
    values = numpy.frombuffer(info.data, dtype="<u2").reshape(H, W).astype(numpy.uint32)
    mask.unmap(info)
    check(vmeta is not None and vmeta.format == GstVideo.VideoFormat.GRAY16_LE,
          "the mask is GRAY16_LE")
    listed = numpy.isin(image, table["id"])
    check((values == numpy.where(listed, image, 0)).all(),
          "the mask is the label image of the listed blobs")
    regions = [seg.get_region_id(i) for i in range(seg.get_region_count())]
    check(regions == [int(i) for i in table["id"]], "region i is entry i's blob id")
    for i in range(n):
        check(rmeta.get_relation(i, n) == GstAnalytics.RelTypes.RELATE_TO,
              f"detection {i} relates to the segmentation")


CASES = {"labels": test_labels, "downstream": test_downstream,
         "analytics": test_analytics, "region": test_region}

if __name__ == "__main__":
    Gst.init(None)
    CASES[sys.argv[1]]()
