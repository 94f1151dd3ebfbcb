# SPDX-License-Identifier: LGPL-2.1-or-later
"""What the Python tests of the element share: the backend under test
($GPUCCL_TEST_BACKEND), the check that ends a test at its first failure,
and one frame pushed through a pipeline."""
import os
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

BACKEND = os.environ.get("GPUCCL_TEST_BACKEND", "cpu")


def check(cond, what):
    if not cond:
        print("FAIL:", what, file=sys.stderr)
        sys.exit(1)
    print("ok:", what)


def one_frame(desc, data):
    """data (bytes) as the one frame of desc's "src" appsrc, to EOS; the
    sample its "sink" appsink got (None if none) and the first error's
    message (None if none). Exits 77 (skip) when the element finds no
    usable CUDA device."""
    pipeline = Gst.parse_launch(desc)
    pipeline.set_state(Gst.State.PLAYING)
    buf = Gst.Buffer.new_wrapped(data)
    buf.pts = 0
    pipeline.get_by_name("src").emit("push-buffer", buf)
    pipeline.get_by_name("src").emit("end-of-stream")
    # try-: after an element error no frame and no EOS come.
    sample = pipeline.get_by_name("sink").emit("try-pull-sample",
                                               5 * Gst.SECOND)
    msg = pipeline.get_bus().timed_pop_filtered(
        Gst.SECOND if sample is None else 0, Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    error = msg.parse_error()[0].message if msg is not None else None
    if error and "No usable CUDA device" in error:
        sys.exit(77)
    return sample, error
