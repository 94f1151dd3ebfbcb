# SPDX-License-Identifier: LGPL-2.1-or-later
"""PyGObject override of GpucclBlob-1.0, the typelib of GstCclBlobMeta.

Adds CclBlobMeta.table(): the frame's whole blob table as a NumPy structured
array, one row per blob, made with whole-column operations (no Python loop
over the blobs):

    meta = GpucclBlob.buffer_get_ccl_blob_meta(buffer)
    table = meta.table()
    big = table[table["area"] >= 100]
    print(big["track_id"], big["cx"], big["cy"])

Columns: the C record GstCclBlob (id, area, x0, y0, x1, y1: inclusive box,
sum_x, sum_y), read with the layout the typelib gives, then cx, cy
(centroid), track_id and value (from the meta's optional arrays: 0 and 1
where the meta has none), and intensity_sum, intensity_min, intensity_max,
intensity_mean (measure-intensity=true; 0 where the meta has none).
meta.blobs, meta.track_ids, meta.values and meta.intensity are NumPy
arrays too. A meta (and a blob from get_blob()) keeps its buffer
alive. NumPy is imported on first use only.
"""
from ..module import get_introspection_module

GpucclBlob = get_introspection_module("GpucclBlob")

__all__ = []

# GI type tags of GstCclBlob's fields -> NumPy type codes (native order).
_NUMPY_CODES = {
    "gint8": "i1", "guint8": "u1", "gint16": "i2", "guint16": "u2",
    "gint32": "i4", "guint32": "u4", "gint64": "i8", "guint64": "u8",
    "gfloat": "f4", "gdouble": "f8",
}
_record_dtype = None
_table_dtype = None
# GstCclBlobIntensity, as gstcclblobmeta.h lays it out (checked by
# tests/abi).
INTENSITY_DTYPE = {"names": ["sum", "min", "max"],
                   "formats": ["=u8", "=u4", "=u4"],
                   "offsets": [0, 8, 12], "itemsize": 16}


def record_dtype():
    """The NumPy dtype of one GstCclBlob record, from the typelib."""
    global _record_dtype
    if _record_dtype is None:
        import numpy
        info = GpucclBlob.CclBlob.__info__
        fields = info.get_fields()
        _record_dtype = numpy.dtype({
            "names": [f.get_name() for f in fields],
            "formats": ["=" + _NUMPY_CODES[f.get_type().get_tag_as_string()]
                        for f in fields],
            "offsets": [f.get_offset() for f in fields],
            "itemsize": info.get_size(),
        })
    return _record_dtype


def table_dtype():
    """The NumPy dtype of a row of CclBlobMeta.table(): the GstCclBlob
    record as it is, then cx, cy, track_id, value and the intensity."""
    global _table_dtype
    if _table_dtype is None:
        import numpy
        rec = record_dtype()
        extra = [("cx", "=f8", 0), ("cy", "=f8", 8), ("track_id", "=u4", 16),
                 ("value", "=u4", 20), ("intensity_sum", "=u8", 24),
                 ("intensity_min", "=u4", 32), ("intensity_max", "=u4", 36),
                 ("intensity_mean", "=f8", 40)]
        _table_dtype = numpy.dtype({
            "names": list(rec.names) + [e[0] for e in extra],
            "formats": [rec.fields[n][0] for n in rec.names] + [e[1] for e in extra],
            "offsets": [rec.fields[n][1] for n in rec.names]
            + [rec.itemsize + e[2] for e in extra],
            "itemsize": rec.itemsize + 48,
        })
    return _table_dtype


__all__ += ["record_dtype", "table_dtype", "INTENSITY_DTYPE"]


def _table(self):
    """The blob table as a NumPy structured array of n_blobs rows (a copy:
    it stays valid after the buffer is gone)."""
    import numpy
    rec, row = record_dtype(), table_dtype()
    raw = numpy.frombuffer(self.get_table_bytes(), dtype="=u8")
    words = rec.itemsize // 8  # the record is 8-byte aligned
    n = len(raw) // words
    out = numpy.empty(n, dtype=row)
    # Each row starts with the C record: one strided copy of all of them.
    out.view("=u8").reshape(n, row.itemsize // 8)[:, :words] = \
        raw.reshape(n, words)
    area = numpy.maximum(out["area"], 1)  # areas are >= 1; no 0 division
    numpy.divide(out["sum_x"], area, out=out["cx"])
    numpy.divide(out["sum_y"], area, out=out["cy"])
    ids, values = self.get_track_id_bytes(), self.get_value_bytes()
    out["track_id"] = numpy.frombuffer(ids, dtype="=u4") if ids else 0
    out["value"] = numpy.frombuffer(values, dtype="=u4") if values else 1
    intensity = _intensity(self)
    for name in ("sum", "min", "max"):
        out["intensity_" + name] = intensity[name] if intensity is not None \
            else 0
    if intensity is not None:
        numpy.divide(out["intensity_sum"], area, out=out["intensity_mean"])
    else:
        out["intensity_mean"] = 0
    return out


def _intensity(self):
    """Each blob's intensity (fields sum, min, max), a NumPy structured
    array (a copy), or None when the element did not measure it."""
    import numpy
    raw = self.get_intensity_bytes()
    return numpy.frombuffer(raw, dtype=numpy.dtype(INTENSITY_DTYPE)).copy() \
        if raw else None


def _records(self):
    """The GstCclBlob records as they are (fields id, area, x0, y0, x1, y1,
    sum_x, sum_y), a read-only NumPy array over one copy of the table: the
    cheapest view, without the derived columns of table()."""
    import numpy
    return numpy.frombuffer(self.get_table_bytes(), dtype=record_dtype())


def _column(getter):
    """A uint32 column from a *_bytes getter, or None where the meta has
    none (a copy)."""
    def read(self):
        import numpy
        raw = getter(self)
        return numpy.frombuffer(raw, dtype="=u4").copy() if raw else None
    return read


# CclBlobMeta is a plain struct (GstMeta has no GType), which override()
# does not take: the methods go on the introspected class itself.
GpucclBlob.CclBlobMeta.table = _table
GpucclBlob.CclBlobMeta.records = _records
# The C arrays (a length in another field) are what PyGObject cannot read
# as fields (a GLib CRITICAL and an empty list): NumPy arrays instead.
GpucclBlob.CclBlobMeta.blobs = property(_records, doc="the records()")
GpucclBlob.CclBlobMeta.track_ids = property(
    _column(GpucclBlob.CclBlobMeta.get_track_id_bytes),
    doc="each blob's track id (uint32 array), None without tracking")
GpucclBlob.CclBlobMeta.values = property(
    _column(GpucclBlob.CclBlobMeta.get_value_bytes),
    doc="each blob's value (uint32 array), None in mode=binary")
GpucclBlob.CclBlobMeta.intensity = property(
    _intensity, doc="each blob's intensity (sum, min, max), None unless "
    "measure-intensity=true")


# A meta lives inside its buffer, and a blob inside its meta: each Python
# object holds what it points into, so that reading it after the sample or
# buffer is released is still valid (it was a use-after-free before).
def _holding(getter):
    def get(owner, *args):
        found = getter(owner, *args)
        if found is not None:
            found._gpucclblob_owner = owner
        return found
    get.__doc__ = getter.__doc__
    return get


for _name in ("buffer_get_ccl_blob_meta", "buffer_get_nth_ccl_blob_meta",
              "buffer_get_ccl_blob_meta_by_source", "buffer_add_ccl_blob_meta"):
    globals()[_name] = _holding(getattr(GpucclBlob, _name))
    __all__.append(_name)
GpucclBlob.CclBlobMeta.get_blob = _holding(GpucclBlob.CclBlobMeta.get_blob)
