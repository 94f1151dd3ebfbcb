#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""What a user's pipeline negotiates with gpucclblob, and what it does at
the edges of the caps (docs/element.md#caps):

  luma       `SRC ! videoconvert ! gpucclblob` gets a luma format unless
             something needs RGB (channel, mode=segments, downstream caps,
             an RGB-only upstream); channel changes renegotiate.
  oversize   the pad templates end at 16384 a side; an upstream with only
             larger frames gets one element error naming videoscale, and
             with videoscale in between the stream plays.
  restart    track ids restart at 1 after READY.

Usage: test_negotiation.py CASE
"""
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
gi.require_version("GpucclBlob", "1.0")
from gi.repository import Gst, GstVideo, GpucclBlob  # noqa: E402

from pipeline_check import BACKEND, check  # noqa: E402



def run(desc, frames=2):
    """Runs desc (ending in appsink name=sink) to EOS; the negotiated caps
    of gpucclblob's sink pad, the buffers and the error messages."""
    pipeline = Gst.parse_launch(desc)
    sink = pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    buffers = []
    for _ in range(frames):
        sample = sink.emit("try-pull-sample", 5 * Gst.SECOND)
        if sample is None:
            break
        buffers.append(sample.get_buffer())
    errors = []
    bus = pipeline.get_bus()
    while (msg := bus.pop_filtered(Gst.MessageType.ERROR)) is not None:
        errors.append((msg.src.get_name(), msg.parse_error()[0].message))
    blob = pipeline.get_by_name("blob")
    caps = blob.get_static_pad("sink").get_current_caps()
    fmt = caps_format(caps)
    pipeline.set_state(Gst.State.NULL)
    return fmt, buffers, errors


def caps_format(caps):
    """The format of fixed video caps, or None. Through GstVideo: since
    GStreamer 1.26 the Python override makes Gst.Caps.get_structure() a
    context manager without the structure's getters."""
    if caps is None:
        return None
    info = GstVideo.VideoInfo.new_from_caps(caps)
    return GstVideo.VideoFormat.to_string(info.finfo.format) if info else None


def test_luma():
    blob = f"gpucclblob name=blob backend={BACKEND}"
    sink = "appsink name=sink"
    src = "videotestsrc num-buffers=2 pattern=ball"
    luma = {"I420", "NV12", "YV12", "GRAY8", "GRAY16_LE"}
    for upstream in ("", "! video/x-raw,format=YUY2", "! video/x-raw,format=BGRx",
                     "! video/x-raw,format=NV12"):
        fmt, bufs, _ = run(f"{src} {upstream} ! videoconvert ! {blob} ! {sink}")
        check(fmt in luma and len(bufs) == 2,
              f"'{upstream or 'videotestsrc'} ! videoconvert' gives a luma format ({fmt})")
    # A 16-bit source keeps its depth through videoconvert.
    fmt, bufs, _ = run(f"{src} ! video/x-raw,format=GRAY16_LE ! videoconvert ! {blob} ! {sink}")
    check(fmt == "GRAY16_LE" and len(bufs) == 2, f"GRAY16_LE stays GRAY16_LE ({fmt})")
    # Where RGB is needed it is what comes.
    rgb = {"RGBA", "BGRA", "RGBx", "BGRx"}
    for what, desc in (
            ("channel=red", f"{src} ! videoconvert ! {blob} channel=red ! {sink}"),
            ("mode=segments", f"{src} ! videoconvert ! {blob} mode=segments ! {sink}"),
            ("downstream BGRx",
             f"{src} ! videoconvert ! {blob} ! video/x-raw,format=BGRx ! {sink}"),
            ("an RGBA-only upstream", f"{src} ! video/x-raw,format=RGBA ! {blob} ! {sink}")):
        fmt, bufs, _ = run(desc)
        check(fmt in rgb and len(bufs) == 2, f"{what}: RGB ({fmt})")
    # The same scene through both paths finds the same one ball.
    for upstream in ("", "! video/x-raw,format=BGRx ! gpucclblob channel=luma"):
        _, bufs, _ = run(f"{src} ! videoconvert {upstream} ! {blob} ! {sink}")
        meta = GpucclBlob.buffer_get_ccl_blob_meta(bufs[0])
        check(meta is not None and meta.n_blobs == 1, "one ball")

    # channel changed while playing: upstream renegotiates to RGB.
    pipeline = Gst.parse_launch(
        f"videotestsrc is-live=true pattern=ball ! videoconvert ! {blob} ! {sink}")
    pipeline.set_state(Gst.State.PLAYING)
    appsink = pipeline.get_by_name("sink")
    first = appsink.emit("try-pull-sample", 5 * Gst.SECOND)
    pipeline.get_by_name("blob").set_property("channel", "green")
    fmt = None
    for _ in range(30):
        sample = appsink.emit("try-pull-sample", 5 * Gst.SECOND)
        fmt = caps_format(sample.get_caps()) if sample else None
        if fmt in rgb:
            break
    pipeline.set_state(Gst.State.NULL)
    first_fmt = caps_format(first.get_caps()) if first else None
    check(first_fmt in luma and fmt in rgb,
          f"channel=green while playing renegotiates ({first_fmt} -> {fmt})")


def test_oversize():
    factory = Gst.ElementFactory.find("gpucclblob")
    for templ in factory.get_static_pad_templates():
        # Each structure of the template, as text (see caps_format).
        for text in templ.get_caps().to_string().split(";"):
            for field in ("width", "height"):
                check(f"{field}=(int)[ 1, 16384 ]" in text,
                      f"{templ.name_template} template: {field} [1, 16384]")

    wide = "video/x-raw,format=GRAY8,width=20000,height=64,framerate=0/1"
    desc = (f"appsrc name=src format=time caps={wide} ! {{}} gpucclblob name=blob "
            f"backend={BACKEND} ! appsink name=sink")

    def push(desc):
        pipeline = Gst.parse_launch(desc)
        pipeline.set_state(Gst.State.PLAYING)
        src = pipeline.get_by_name("src")
        for i in range(3):
            buf = Gst.Buffer.new_wrapped(bytes(20000 * 64))
            buf.pts = i * Gst.SECOND
            src.emit("push-buffer", buf)
        src.emit("end-of-stream")
        sample = pipeline.get_by_name("sink").emit("try-pull-sample", 5 * Gst.SECOND)
        pipeline.get_state(5 * Gst.SECOND)
        errors = []
        bus = pipeline.get_bus()
        while (msg := bus.pop_filtered(Gst.MessageType.ERROR)) is not None:
            errors.append((msg.src.get_name(), msg.parse_error()[0].message))
        pipeline.set_state(Gst.State.NULL)
        return sample, errors

    sample, errors = push(desc.format(""))
    ours = [m for name, m in errors if name == "blob"]
    check(sample is None and len(ours) == 1, f"one error from the element ({errors})")
    check("16384" in ours[0] and "videoscale" in ours[0], f"it names the limit and the fix: {ours[0]}")
    sample, errors = push(desc.format("videoscale !"))
    check(sample is not None and not errors, f"through videoscale it plays ({errors})")
    meta = GpucclBlob.buffer_get_ccl_blob_meta(sample.get_buffer())
    check(meta is not None and meta.width == 16384, f"scaled to 16384 wide ({meta and meta.width})")


def test_restart():
    # A moving ball and a gate of 0 pixels: a new track (id) every frame,
    # so ids that went on across READY would show.
    desc = (f"videotestsrc pattern=ball num-buffers=4 ! video/x-raw,width=160,height=120 "
            f"! gpucclblob name=blob backend={BACKEND} track=true track-max-distance=0 "
            f"! fakesink")
    pipeline = Gst.parse_launch(desc)
    ids = []

    def probe(pad, info):
        meta = GpucclBlob.buffer_get_ccl_blob_meta(info.get_buffer())
        ids.extend(meta.get_track_id(i) for i in range(meta.n_blobs))
        return Gst.PadProbeReturn.OK

    pad = pipeline.get_by_name("blob").get_static_pad("src")
    pad.add_probe(Gst.PadProbeType.BUFFER, probe)
    runs = []
    for _ in range(2):
        ids.clear()
        pipeline.set_state(Gst.State.PLAYING)
        msg = pipeline.get_bus().timed_pop_filtered(
            10 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
        check(msg is not None and msg.type == Gst.MessageType.EOS, "the run ends")
        runs.append(list(ids))
        pipeline.set_state(Gst.State.READY)
    pipeline.set_state(Gst.State.NULL)
    check(runs[0] == [1, 2, 3, 4], f"a new id each frame in the first run ({runs[0]})")
    check(runs[1] == [1, 2, 3, 4], f"after READY the ids restart at 1 ({runs[1]})")


CASES = {"luma": test_luma, "oversize": test_oversize, "restart": test_restart}

if __name__ == "__main__":
    Gst.init(None)
    CASES[sys.argv[1]]()
