#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Read gpucclblob's blobs from Python through the standard ROI metadata.

gpucclblob attaches one GstVideo.VideoRegionOfInterestMeta (roi type
"blob") per blob, with a parameter structure "gpucclblob" holding id,
track-id, area, centroid-x and centroid-y. Any application can read them
with PyGObject, no gpucclblob header or binding needed. This example runs
a pipeline ending in an appsink named "sink" and prints one JSON line per
frame:

  {"frame": 0, "pts": 0, "blobs": [{"id": 1, "track-id": 1, "area": 1129,
   "box": [141, 101, 39, 39], "centroid": [160.0, 120.0]}]}

(box is x, y, width, height as in the ROI meta.)

Usage: /usr/bin/python3 pipelines/roi_reader.py [--frames N] [PIPELINE]
(GST_PLUGIN_PATH must reach the plugin when it is not installed, e.g.
GST_PLUGIN_PATH=build/gst.)
"""
import argparse
import json
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
from gi.repository import GLib, Gst, GstVideo  # noqa: E402

DEFAULT_PIPELINE = (
    "videotestsrc pattern=ball num-buffers=30 ! video/x-raw,width=320,height=240 "
    "! videoconvert ! gpucclblob track=true ! appsink name=sink"
)
BLOB_TYPE = GLib.quark_from_string("blob")


def blob_rois(buf, width, height):
    """The buffer's "blob" ROI metas. PyGObject cannot iterate a buffer's
    metas, so look them up by id: gpucclblob sets each ROI's id to the
    blob id (1..number of components), and the number of ROI metas says
    when all have been found."""
    wanted = buf.get_n_meta(GstVideo.VideoRegionOfInterestMeta.get_info().api)
    rois = []
    limit = width * height // 2 + 1  # most components a frame can have
    blob_id = 1
    while len(rois) < wanted and blob_id <= limit:
        roi = GstVideo.buffer_get_video_region_of_interest_meta_id(buf, blob_id)
        if roi is not None:
            wanted -= roi.roi_type != BLOB_TYPE  # another element's ROI
            if roi.roi_type == BLOB_TYPE:
                rois.append(roi)
        blob_id += 1
    return rois


def frame_json(index, buf, width, height):
    blobs = []
    for roi in blob_rois(buf, width, height):
        param = roi.get_param("gpucclblob")
        blobs.append({
            "id": param.get_uint("id")[1],
            "track-id": param.get_uint("track-id")[1],
            "area": param.get_uint64("area")[1],
            "box": [roi.x, roi.y, roi.w, roi.h],
            "centroid": [param.get_double("centroid-x")[1],
                         param.get_double("centroid-y")[1]],
        })
    pts = buf.pts if buf.pts != Gst.CLOCK_TIME_NONE else None
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
            caps = sample.get_caps().get_structure(0)
            width, height = caps.get_int("width")[1], caps.get_int("height")[1]
            print(json.dumps(frame_json(index, sample.get_buffer(), width, height)),
                  flush=True)
            index += 1
    except KeyboardInterrupt:
        status = 130
    finally:
        pipeline.set_state(Gst.State.NULL)
    return status


if __name__ == "__main__":
    sys.exit(main())
