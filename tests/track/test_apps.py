#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Tests of pipelines/: the demo scripts, the embedding application
gpucclblob-watch and the Python ROI reader, each run as a user would and
its output checked against what the generated input is known to hold.

Usage: test_apps.py CASE   (run by meson: see meson.build for the env)
  demo       demo-balls.sh: snapshots with boxes, ids and label colours;
             the balls' merges in the blob counts; four track ids
  demo-tracks the demo's scene: each track id stays on its ball through
             every merge (balls located by running each one alone)
  motion     motion.sh: snapshots, 20 warm-up frames without blobs, then
             at least the two balls in every frame
  camera     camera.sh without a camera: a message and exit 0
  csi-camera csi-camera.sh off a Jetson: a message and exit 0
  uri        uri-watch.sh: generated clip through appsink, 5 tracked blobs
  watch      gpucclblob-watch on a raw clip of known rectangles
  roi        roi_reader.py on the same clip (ROI metas)
  exit-codes gpucclblob-watch: bad description, errors, Ctrl-C
  watch-ends gpucclblob-watch on a one-picture source (--frames 1 ends),
             frames without metadata ("blobs":null), no warnings on the CPU

Environment: REPO (source root), GPUCCL_BUILD_DIR (build root),
GST_PLUGIN_PATH (the build's gst/), GPUCCL_TEST_BACKEND (cpu or cuda).
"""
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zlib

REPO = os.environ["REPO"]
BUILD = os.environ["GPUCCL_BUILD_DIR"]
WATCH = os.path.join(BUILD, "pipelines", "gpucclblob-watch")
BACKEND = os.environ.get("GPUCCL_TEST_BACKEND", "cpu")
BALLS = 4  # balls in the generated demo source (pipelines/common.sh)
# Frames where two balls of the demo touch (one blob less), in the first
# 90 frames: the right pair, then the left pair (pipelines/common.sh).
MERGES = [(7, 13), (16, 19), (81, 84), (87, 93)]
# The balls' own colours (pipelines/common.sh), R, G, B.
BALL_COLOURS = [(255, 255, 255), (255, 255, 64), (64, 255, 255), (255, 128, 255)]

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def run(args, timeout=300, env=None, **kw):
    e = dict(os.environ, GPUCCL_BACKEND=BACKEND, GPUCCL_BUILD_DIR=BUILD)
    e.update(env or {})
    return subprocess.run(args, env=e, capture_output=True, text=True,
                          timeout=timeout, **kw)


def script(name):
    return os.path.join(REPO, "pipelines", name)


def has_cuda_failure(proc):
    return BACKEND == "cuda" and "No usable CUDA device" in proc.stderr


# --- PNG: decode with zlib (8-bit RGB/RGBA, non-interlaced: what pngenc
# writes here), so the picture check needs nothing of our own. -----------

def png_pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            w, h, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or color not in (2, 6) or interlace:
                raise ValueError(f"{path}: unsupported PNG {depth=} {color=}")
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def png_gray(path, w, h, pixel):
    """Write an 8-bit grey PNG, pixel(x, y) -> 0..255."""
    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body)))
    raw = b"".join(b"\0" + bytes(pixel(x, y) for x in range(w)) for y in range(h))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def merged_frames(last, margin=0):
    """Frames in 0..last where the demo shows one blob less, each merge
    widened (margin > 0) or narrowed (margin < 0) by margin frames."""
    return {k for a, b in MERGES for k in range(a - margin, b + margin + 1)
            if 0 <= k <= last}


def check_merges(fewer, last, what):
    """The frames with one blob less are the scene's merges; one frame more
    or less at either end of a merge is allowed (another GStreamer version
    may draw the balls' rims a little differently, a codec may blur them)."""
    check(merged_frames(last, -1) <= fewer <= merged_frames(last, 1),
          f"{what}: frames with one blob less {sorted(fewer)}, merges {MERGES}")


def test_demo():
    out = tempfile.mkdtemp(prefix="demo-")
    frames = 90
    p = run([script("demo-balls.sh"), out], env={"FRAMES": str(frames)})
    if has_cuda_failure(p):
        sys.exit(77)
    check(p.returncode == 0, f"demo-balls.sh exit {p.returncode}: {p.stderr[-2000:]}")
    check("warning" not in p.stdout.lower() + p.stderr.lower(), f"demo warned: {p.stderr[-2000:]}")
    snaps = sorted(f for f in os.listdir(out) if f.startswith("snapshot-"))
    # 3 snapshots per second of 30 fps video: frames 0, 10, 20, ...
    check(len(snaps) == frames // 10, f"{len(snaps)} snapshots for {frames} frames")
    for name in snaps[:3]:
        w, h, bpp, rows = png_pixels(os.path.join(out, name))
        check((w, h) == (960, 360), f"{name} is {w}x{h}")
        px = [r[x:x + 3] for r in rows for x in range(0, w * bpp, bpp)]
        # Boxes, crosses and ids are white (box-color): the balls are
        # coloured by their labels and the background is black, so white
        # pixels exist only where the overlay was drawn.
        white = sum(1 for c in px if min(c) >= 245)
        check(white >= BALLS * 150, f"{name}: {white} white overlay pixels")
        # Label colours: most of each ball (about 1 100 pixels) is in a
        # colour that is not the ball's own (the palette's colours, as the
        # stream's colorimetry renders them) nor grey.
        labelled = sum(1 for c in px if max(c) - min(c) >= 40 and not any(
            all(abs(a - b) <= 40 for a, b in zip(c, q)) for q in BALL_COLOURS))
        check(labelled >= (BALLS - 1) * 700, f"{name}: {labelled} pixels in label colours")
    counts = [int(c) for c in
              __import__("re").findall(r"count=\(uint\)(\d+)",
                                       open(os.path.join(out, "messages.log")).read())]
    check(len(counts) == frames, f"{len(counts)} messages for {frames} frames")
    check_merges({k for k, c in enumerate(counts) if c < BALLS}, frames - 1, "demo")
    check(all(c in (BALLS - 1, BALLS) for c in counts), f"blob counts {sorted(set(counts))}")
    check("track ids seen: 1 2 3 4" in [l.strip() for l in p.stdout.splitlines()],
          f"summary: {p.stdout}")
    if shutil.which("gst-inspect-1.0") and run(["gst-inspect-1.0", "vp8enc"]).returncode == 0:
        webm = os.path.join(out, "demo.webm")
        check(os.path.exists(webm) and os.path.getsize(webm) > 1000, "no demo.webm")
    shutil.rmtree(out)


def balls_scene(element, frames, only=None):
    """gst-launch words of the demo's scene (pipelines/common.sh) through
    `element` into fakesink; with `only`, that ball alone."""
    words = subprocess.run(
        ["bash", "-c", f'source "{script("common.sh")}" && echo $(balls_mix) '
         f'! {element} ! fakesink $(balls_tiles {frames} {"" if only is None else only})'],
        env=dict(os.environ, GPUCCL_BUILD_DIR=BUILD), capture_output=True, text=True,
        check=True).stdout.split()
    return words


def test_demo_tracks():
    frames = 90
    # Where each ball is: the scene with that ball alone, one blob a frame.
    alone = []
    for i in range(BALLS):
        p = run([WATCH] + balls_scene(f"gpucclblob backend={BACKEND}", frames, i), timeout=120)
        if has_cuda_failure(p):
            sys.exit(77)
        lines = [json.loads(l) for l in p.stdout.splitlines()]
        check(p.returncode == 0 and len(lines) == frames and all(f["count"] == 1 for f in lines),
              f"ball {i} alone: exit {p.returncode}, {len(lines)} frames")
        alone.append([f["blobs"][0]["centroid"] if f["count"] else None for f in lines])
    p = run([WATCH] + balls_scene(f"gpucclblob backend={BACKEND} track=true track-max-lost=15",
                                  frames), timeout=120)
    lines = [json.loads(l) for l in p.stdout.splitlines()]
    check(p.returncode == 0 and len(lines) == frames, f"scene: exit {p.returncode}")
    ball_of = {}   # track id -> ball
    for k, f in enumerate(lines):
        if k in merged_frames(frames - 1, 1):
            continue
        check(f["count"] == BALLS, f"frame {k}: {f['count']} blobs")
        for b in f["blobs"]:
            # Apart, a ball's blob is exactly the ball alone: same centroid.
            near = [i for i in range(BALLS) if alone[i][k] and
                    all(abs(a - c) < 1e-6 for a, c in zip(b["centroid"], alone[i][k]))]
            check(len(near) == 1, f"frame {k}: blob {b} is no single ball")
            if len(near) == 1:
                ball = ball_of.setdefault(b["track-id"], near[0])
                check(ball == near[0], f"frame {k}: track {b['track-id']} moved from "
                      f"ball {ball} to ball {near[0]}")
    check(sorted(ball_of.values()) == list(range(BALLS)),
          f"track ids to balls: {ball_of}")


def test_motion():
    out = tempfile.mkdtemp(prefix="motion-")
    frames = 60
    p = run([script("motion.sh"), out], env={"FRAMES": str(frames)})
    if has_cuda_failure(p):
        sys.exit(77)
    check(p.returncode == 0, f"motion.sh exit {p.returncode}: {p.stderr[-2000:]}")
    check("warning" not in p.stdout.lower() + p.stderr.lower(), f"motion.sh warned: {p.stderr[-2000:]}")
    snaps = [f for f in os.listdir(out) if f.startswith("snapshot-")]
    check(len(snaps) == frames // 15, f"{len(snaps)} snapshots for {frames} frames")
    counts = [int(c) for c in re.findall(r"count=\(uint\)(\d+)",
                                         open(os.path.join(out, "messages.log")).read())]
    check(len(counts) == frames, f"{len(counts)} messages for {frames} frames")
    # 20 warm-up frames without blobs, then at least the two balls.
    check(counts[:20] == [0] * 20 and min(counts[20:]) >= 2,
          f"blobs per frame: {counts}")


def test_camera():
    p = run([script("camera.sh"), "/dev/no-such-camera"], timeout=60)
    check(p.returncode == 0, f"camera.sh exit {p.returncode}: {p.stderr}")
    check("no camera" in p.stdout, f"camera.sh said: {p.stdout!r}")


def test_csi_camera():
    p = run([script("csi-camera.sh")], timeout=60)
    check(p.returncode == 0, f"csi-camera.sh exit {p.returncode}: {p.stderr}")
    check("no nvarguscamerasrc" in p.stdout, f"csi-camera.sh said: {p.stdout!r}")


def test_uri():
    out = tempfile.mkdtemp(prefix="uri-")
    frames = 40
    p = run([script("uri-watch.sh"), "", out], env={"FRAMES": str(frames)})
    if has_cuda_failure(p):
        sys.exit(77)
    check(p.returncode == 0, f"uri-watch.sh exit {p.returncode}: {p.stderr[-2000:]}")
    lines = [json.loads(l) for l in open(os.path.join(out, "blobs.jsonl"))]
    check(len(lines) == frames, f"{len(lines)} JSON lines for {frames} frames")
    tracks = set()
    for f in lines:
        check(f["count"] in (BALLS - 1, BALLS) and f["count"] == len(f["blobs"]),
              f"frame {f['frame']}: {f['count']} blobs")
        tracks |= {b["track-id"] for b in f["blobs"]}
    check_merges({f["frame"] for f in lines if f["count"] < BALLS}, frames - 1, "uri")
    # The balls meet and part but never leave: one track each for the clip.
    check(tracks == set(range(1, BALLS + 1)), f"track ids {sorted(tracks)}")
    shutil.rmtree(out)


# --- A raw GRAY8 clip of known rectangles ---------------------------------

W, H, N_FRAMES, FPS = 160, 120, 12, 10


def rectangles(k):
    """(name, x0, y0, x1, y1) of the rectangles in frame k, inclusive."""
    rects = [
        ("a", 5 + 3 * k, 10, 5 + 3 * k + 9, 10 + 5),          # moves right
        ("b", 120 - 2 * k, 60 + k, 120 - 2 * k + 6, 60 + k + 12),  # left, down
        ("c", 40, 90, 40 + 19, 90 + 9),                         # still
    ]
    if k >= 4:
        rects.append(("d", 80, 20 + k, 80 + 4, 20 + k + 4))    # appears at 4
    if k not in (6, 7):
        rects.append(("e", 10, 50 + k, 10 + 7, 50 + k + 7))    # gone 2 frames
    return rects


def write_clip(path):
    with open(path, "wb") as f:
        for k in range(N_FRAMES):
            img = bytearray(W * H)
            for _, x0, y0, x1, y1 in rectangles(k):
                for y in range(y0, y1 + 1):
                    img[y * W + x0:y * W + x1 + 1] = b"\xc8" * (x1 - x0 + 1)
            f.write(img)


def clip_description(path, sink):
    return ["filesrc", f"location={path}", "!", "rawvideoparse", "format=gray8",
            f"width={W}", f"height={H}", f"framerate={FPS}/1", "!", "gpucclblob",
            f"backend={BACKEND}", "track=true", "track-max-lost=5", "!"] + sink


def expected_frame(k):
    """Blobs of frame k as the contract defines them: ids in raster order
    of the first pixel, area, inclusive box, centroid."""
    rects = sorted(rectangles(k), key=lambda r: (r[2], r[1]))
    return [{"name": n, "id": i + 1, "area": (x1 - x0 + 1) * (y1 - y0 + 1),
             "bbox": [x0, y0, x1, y1], "centroid": [(x0 + x1) / 2, (y0 + y1) / 2]}
            for i, (n, x0, y0, x1, y1) in enumerate(rects)]


def check_clip_output(frames, what, box_key):
    """Compare per-frame blobs with the known rectangles, and the track ids
    with the objects: one id per object, kept through its 2-frame gap."""
    check(len(frames) == N_FRAMES, f"{what}: {len(frames)} frames")
    track_of = {}
    for k, f in enumerate(frames):
        check(f["frame"] == k, f"{what}: frame index {f['frame']} != {k}")
        check(f["pts"] == k * 10**9 // FPS, f"{what}: frame {k} pts {f['pts']}")
        exp = expected_frame(k)
        got = sorted(f["blobs"], key=lambda b: b["id"])
        check(len(got) == len(exp), f"{what}: frame {k}: {len(got)} blobs, {len(exp)} known")
        for e, g in zip(exp, got):
            x0, y0, x1, y1 = e["bbox"]
            box = e["bbox"] if box_key == "bbox" else [x0, y0, x1 - x0 + 1, y1 - y0 + 1]
            check(g["id"] == e["id"] and g["area"] == e["area"] and g[box_key] == box
                  and all(abs(a - b) < 1e-9 for a, b in zip(g["centroid"], e["centroid"])),
                  f"{what}: frame {k}: blob {g} != rectangle {e}")
            tid = g["track-id"]
            check(tid > 0, f"{what}: frame {k}: no track id")
            if e["name"] in track_of:
                check(track_of[e["name"]] == tid,
                      f"{what}: frame {k}: {e['name']} track {track_of[e['name']]} -> {tid}")
            else:
                check(tid not in track_of.values(), f"{what}: id {tid} given twice")
                track_of[e["name"]] = tid
    check(len(track_of) == 5, f"{what}: objects tracked {track_of}")


def test_watch():
    d = tempfile.mkdtemp(prefix="watch-")
    clip = os.path.join(d, "rects.gray")
    write_clip(clip)
    p = run([WATCH] + clip_description(clip, ["fakesink"]), timeout=120)
    if has_cuda_failure(p):
        sys.exit(77)
    check(p.returncode == 0, f"gpucclblob-watch exit {p.returncode}: {p.stderr}")
    frames = [json.loads(l) for l in p.stdout.splitlines()]
    for f in frames:
        check(f["width"] == W and f["height"] == H and f["count"] == len(f["blobs"]),
              f"frame header {f}")
    check_clip_output(frames, "gpucclblob-watch", "bbox")
    # --frames stops early with EOS, exit 0.
    p = run([WATCH, "--frames", "3"] + clip_description(clip, ["fakesink"]))
    check(p.returncode == 0 and len(p.stdout.splitlines()) == 3,
          f"--frames 3: exit {p.returncode}, {len(p.stdout.splitlines())} lines")
    shutil.rmtree(d)


def test_roi():
    d = tempfile.mkdtemp(prefix="roi-")
    clip = os.path.join(d, "rects.gray")
    write_clip(clip)
    p = run(["/usr/bin/python3", script("roi_reader.py")]
            + clip_description(clip, ["appsink", "name=sink"]), timeout=120)
    if has_cuda_failure(p):
        sys.exit(77)
    check(p.returncode == 0, f"roi_reader.py exit {p.returncode}: {p.stderr}")
    frames = [json.loads(l) for l in p.stdout.splitlines()]
    check_clip_output(frames, "roi_reader.py", "box")
    shutil.rmtree(d)


def test_exit_codes():
    p = run([WATCH, "videotestsrc", "!", "no-such-element"])
    check(p.returncode == 2 and "bad pipeline description" in p.stderr,
          f"bad description: exit {p.returncode} {p.stderr!r}")
    p = run([WATCH, "videotestsrc", "num-buffers=1", "!", "fakesink"])
    check(p.returncode == 2 and "no gpucclblob" in p.stderr,
          f"no element: exit {p.returncode} {p.stderr!r}")
    p = run([WATCH, "--frames", "-1"])
    check(p.returncode == 2, f"--frames -1: exit {p.returncode}")
    p = run([WATCH, "filesrc", "location=/nonexistent/clip", "!", "rawvideoparse", "!",
             "gpucclblob", f"backend={BACKEND}", "!", "fakesink"])
    check(p.returncode == 1 and "error from" in p.stderr,
          f"runtime error: exit {p.returncode} {p.stderr!r}")
    # Ctrl-C on a live source: EOS, the lines written so far, then 130.
    env = dict(os.environ)
    proc = subprocess.Popen(
        [WATCH, "videotestsrc", "is-live=true", "pattern=ball", "!",
         "video/x-raw,width=160,height=120,framerate=30/1", "!", "gpucclblob",
         f"backend={BACKEND}", "!", "fakesink"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    first = proc.stdout.readline()
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    rest, err = proc.communicate(timeout=60)
    if BACKEND == "cuda" and "No usable CUDA device" in err:
        sys.exit(77)
    check(proc.returncode == 130, f"Ctrl-C: exit {proc.returncode} {err!r}")
    lines = [first] + rest.splitlines()
    check(len(lines) >= 2 and all(json.loads(l)["count"] == 1 for l in lines),
          f"Ctrl-C: output {lines[:3]}")


def test_watch_ends():
    d = tempfile.mkdtemp(prefix="watch-ends-")
    png = os.path.join(d, "two.png")
    # Two rectangles: (4..11, 3..8) and (20..29, 10..19).
    png_gray(png, 40, 30, lambda x, y: 200 if (4 <= x <= 11 and 3 <= y <= 8)
             or (20 <= x <= 29 and 10 <= y <= 19) else 0)
    source = ["filesrc", f"location={png}", "!", "pngdec", "!", "videoconvert",
              "!", "gpucclblob", f"backend={BACKEND}"]
    sinks = {"probe": ["!", "fakesink"], "appsink": ["!", "appsink", "sync=true"]}
    # The picture is the whole stream: --frames 1 is reached while the
    # pipeline prerolls and the source ends by itself; --frames 5 is never
    # reached. Each run ends (exit 0) with the one line.
    for n in ("1", "5"):
        for kind, sink in sinks.items():
            try:
                p = run([WATCH, "--frames", n] + source + sink, timeout=30)
            except subprocess.TimeoutExpired:
                check(False, f"--frames {n} ({kind}) on one picture: still running after 30 s")
                continue
            if has_cuda_failure(p):
                sys.exit(77)
            lines = [json.loads(l) for l in p.stdout.splitlines()]
            check(p.returncode == 0 and len(lines) == 1 and lines[0]["count"] == 2
                  and [b["bbox"] for b in lines[0]["blobs"]] == [[4, 3, 11, 8], [20, 10, 29, 19]],
                  f"--frames {n} ({kind}): exit {p.returncode}, {p.stdout!r} {p.stderr!r}")
    # Without metadata nothing was measured: no count, "blobs" null.
    p = run([WATCH, "videotestsrc", "num-buffers=3", "!", "gpucclblob",
             f"backend={BACKEND}", "attach-meta=false", "!", "fakesink"], timeout=60)
    if has_cuda_failure(p):
        sys.exit(77)
    lines = [json.loads(l) for l in p.stdout.splitlines()]
    check(p.returncode == 0 and len(lines) == 3, f"attach-meta=false: {p.returncode} {p.stdout!r}")
    for k, f in enumerate(lines):
        check(f == {"frame": k, "pts": k * 10**9 // 30, "blobs": None},
              f"attach-meta=false: frame line {f}")
    # backend=auto on a host without a GPU (or a build without CUDA) runs
    # on the CPU without a warning: none on the bus (the app prints those)
    # and none in the element's log.
    p = run([WATCH] + source[:-1] + ["backend=auto", "!", "fakesink"], timeout=30,
            env={"GST_DEBUG": "gpucclblob:2", "GST_DEBUG_NO_COLOR": "1"})
    check(p.returncode == 0, f"backend=auto: exit {p.returncode} {p.stderr!r}")
    check("warning" not in p.stderr.lower() and " WARN " not in p.stderr,
          f"backend=auto warned: {p.stderr!r}")
    shutil.rmtree(d)


CASES = {
    "demo": test_demo,
    "demo-tracks": test_demo_tracks,
    "motion": test_motion,
    "camera": test_camera,
    "csi-camera": test_csi_camera,
    "uri": test_uri,
    "watch": test_watch,
    "roi": test_roi,
    "exit-codes": test_exit_codes,
    "watch-ends": test_watch_ends,
}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in CASES:
        print(__doc__, file=sys.stderr)
        sys.exit(99)
    CASES[sys.argv[1]]()
    print(f"{sys.argv[1]}: {'FAILED' if failures else 'ok'}")
    sys.exit(1 if failures else 0)
