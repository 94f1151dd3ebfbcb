#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Time reading a frame's blob table in Python.

A 1920x1080 GRAY8 frame of isolated dots (one every STEP_X columns and
STEP_Y rows: 103 680 blobs by default) goes through appsrc ! gpucclblob !
appsink once; then, on that buffer, the bench times:
  table       GpucclBlob meta .table(): the whole table as a NumPy array
              (the C records plus centroid, track id and value columns)
  records     meta .records(): the C records alone, as a NumPy array
  get_blob    a Python loop calling meta.get_blob(i) for every blob (peer)
  roi_metas   the old route: GstVideo ROI metas looked up one id at a time
              (each lookup walks the buffer's metas), for the first
              --roi-sample blobs only (peer)
and prints one CSV row per route: route,blobs,reps,best_ms,median_ms.

Run from a build:  meson devenv -C build bench/python_table.py
(the path to this file is relative to the source root).
"""
import argparse
import statistics
import sys
import time

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
gi.require_version("GpucclBlob", "1.0")
from gi.repository import Gst, GstVideo, GpucclBlob  # noqa: E402

import numpy  # noqa: E402


def dots_frame(width, height, step_x, step_y):
    frame = numpy.zeros((height, width), dtype=numpy.uint8)
    frame[::step_y, ::step_x] = 255
    return frame


def labelled_buffer(frame, element):
    height, width = frame.shape
    pipeline = Gst.parse_launch(
        "appsrc name=src format=time caps=video/x-raw,format=GRAY8,"
        f"width={width},height={height},framerate=0/1 ! {element} "
        "! appsink name=sink")
    src, sink = pipeline.get_by_name("src"), pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    buf = Gst.Buffer.new_wrapped(frame.tobytes())
    buf.pts = 0
    src.emit("push-buffer", buf)
    src.emit("end-of-stream")
    sample = sink.emit("pull-sample")
    pipeline.set_state(Gst.State.NULL)
    if sample is None:
        sys.exit("no frame came out of the pipeline")
    return sample.get_buffer()


def timed(fn, reps):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return min(times), statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--step-x", type=int, default=4)
    ap.add_argument("--step-y", type=int, default=5)
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--loop-reps", type=int, default=3)
    ap.add_argument("--roi-sample", type=int, default=1000,
                    help="ids looked up by the ROI route (it is quadratic)")
    ap.add_argument("--element", default="gpucclblob backend=cpu max-roi-metas=0",
                    help="the element (default: every blob as a ROI meta too)")
    args = ap.parse_args()

    Gst.init(None)
    frame = dots_frame(1920, 1080, args.step_x, args.step_y)
    buf = labelled_buffer(frame, args.element)
    meta = GpucclBlob.buffer_get_ccl_blob_meta(buf)
    n = meta.n_blobs
    expected = len(range(0, 1920, args.step_x)) * len(range(0, 1080, args.step_y))
    if n != expected:
        sys.exit(f"{n} blobs, the frame has {expected} dots")

    table = meta.table()
    # The table agrees with the per-blob accessor and with the frame.
    for i in (0, n // 2, n - 1):
        b = meta.get_blob(i)
        assert (table[i]["id"], table[i]["x0"], table[i]["cy"]) == (b.id, b.x0, b.get_centroid()[1])
    assert (table["area"] == 1).all() and (table["x0"] % args.step_x == 0).all()

    print("route,blobs,reps,best_ms,median_ms")
    best, med = timed(meta.table, args.reps)
    print(f"table,{n},{args.reps},{best:.3f},{med:.3f}")
    best, med = timed(meta.records, args.reps)
    print(f"records,{n},{args.reps},{best:.3f},{med:.3f}")

    def loop():
        return [meta.get_blob(i).area for i in range(n)]
    best, med = timed(loop, args.loop_reps)
    print(f"get_blob,{n},{args.loop_reps},{best:.3f},{med:.3f}")

    ids = table["id"][:args.roi_sample].tolist()

    def rois():
        return [GstVideo.buffer_get_video_region_of_interest_meta_id(buf, i)
                .get_param("gpucclblob").get_uint64("area")[1] for i in ids]
    best, med = timed(rois, 1)
    print(f"roi_metas,{len(ids)},1,{best:.3f},{med:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
