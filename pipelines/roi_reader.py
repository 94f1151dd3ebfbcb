#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Read gpucclblob's blob table from Python, one JSON line per frame.

The element attaches the whole table of each frame as a GstCclBlobMeta;
the GpucclBlob typelib gives it to PyGObject and meta.table() makes it a
NumPy structured array (fields id, track_id, x0, y0, x1, y1, area, sum_x,
sum_y, cx, cy, value) without a loop over the blobs. The table follows the
frame through videoscale (scaled), videoconvert, tee and queue. This
example runs a pipeline ending in an appsink named "sink" and prints:

  {"frame": 0, "pts": 0, "blobs": [{"id": 1, "track-id": 1, "area": 1125,
   "box": [142, 102, 37, 37], "centroid": [160.0, 120.0]}]}

(box: x, y, width, height; "blobs": null for a frame without the meta.)

Usage: pipelines/roi_reader.py [--frames N] [PIPELINE]
From the source tree, without installing:
  meson devenv -C build -w . python3 pipelines/roi_reader.py ...
"""
import argparse
import json
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GpucclBlob", "1.0")
from gi.repository import GLib, Gst, GpucclBlob  # noqa: E402

DEFAULT_PIPELINE = (
    "videotestsrc pattern=ball num-buffers=30 ! video/x-raw,width=320,height=240 "
    "! videoconvert ! gpucclblob track=true ! appsink name=sink"
)


def frame_json(index, buf):
    pts = buf.pts if buf.pts != Gst.CLOCK_TIME_NONE else None
    meta = GpucclBlob.buffer_get_ccl_blob_meta(buf)
    if meta is None:
        return {"frame": index, "pts": pts, "blobs": None}
    t = meta.table()  # NumPy: select, sort, sum... whole columns at once
    columns = zip(t["id"].tolist(), t["track_id"].tolist(), t["area"].tolist(),
                  t["x0"].tolist(), t["y0"].tolist(),
                  (t["x1"] - t["x0"] + 1).tolist(), (t["y1"] - t["y0"] + 1).tolist(),
                  t["cx"].tolist(), t["cy"].tolist())
    blobs = [{"id": i, "track-id": tid, "area": a, "box": [x, y, w, h],
              "centroid": [cx, cy]} for i, tid, a, x, y, w, h, cx, cy in columns]
    return {"frame": index, "pts": pts, "blobs": blobs}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=0,
                    help="stop after N frames (default: until end of stream)")
    ap.add_argument("pipeline", nargs="*",
                    help="gst-launch description with an appsink named sink")
    args = ap.parse_args()

    Gst.init(None)
    try:
        pipeline = Gst.parse_launch(" ".join(args.pipeline) or DEFAULT_PIPELINE)
    except GLib.Error as e:
        print(f"bad pipeline description: {e.message}", file=sys.stderr)
        return 2
    sink = pipeline.get_by_name("sink")
    if sink is None:
        print("the pipeline needs an appsink named sink", file=sys.stderr)
        return 2

    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    status, index = 0, 0
    try:
        while not args.frames or index < args.frames:
            # Wait a little at a time: after an error no sample ever comes,
            # and the error is on the bus.
            msg = bus.pop_filtered(Gst.MessageType.ERROR)
            if msg is not None:
                err, _ = msg.parse_error()
                print(f"error from {msg.src.get_name()}: {err.message}", file=sys.stderr)
                status = 1
                break
            sample = sink.emit("try-pull-sample", 100 * Gst.MSECOND)
            if sample is None:
                if sink.get_property("eos"):
                    break
                continue
            print(json.dumps(frame_json(index, sample.get_buffer())), flush=True)
            index += 1
    except KeyboardInterrupt:
        status = 130
    finally:
        pipeline.set_state(Gst.State.NULL)
    return status


if __name__ == "__main__":
    sys.exit(main())
