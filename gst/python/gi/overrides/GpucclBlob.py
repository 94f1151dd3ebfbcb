# SPDX-License-Identifier: LGPL-2.1-or-later
"""PyGObject override of GpucclBlob-1.0, the typelib of GstCclBlobMeta.

Adds CclBlobMeta.table(): the frame's whole blob table as a NumPy structured
array (one record per blob, the fields of GstCclBlob), made from the table's
memory in one copy, without a Python loop over the blobs:

    meta = GpucclBlob.buffer_get_ccl_blob_meta(buffer)
    table = meta.table()
    big = table[table["area"] >= 100]
    print(big["track_id"], big["cx"], big["cy"])

The record layout is read from the typelib (field names, offsets and types of
GstCclBlob), so it follows the C struct. NumPy is imported on first use only.
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
_dtype = None


def blob_dtype():
    """The NumPy dtype of one GstCclBlob record."""
    global _dtype
    if _dtype is None:
        import numpy
        info = GpucclBlob.CclBlob.__info__
        fields = info.get_fields()
        _dtype = numpy.dtype({
            "names": [f.get_name() for f in fields],
            "formats": ["=" + _NUMPY_CODES[f.get_type().get_tag_as_string()]
                        for f in fields],
            "offsets": [f.get_offset() for f in fields],
            "itemsize": info.get_size(),
        })
    return _dtype


__all__.append("blob_dtype")


def _table(self):
    """The blob table as a NumPy structured array of n_blobs records (a
    copy: it stays valid after the buffer is gone)."""
    import numpy
    return numpy.frombuffer(self.get_table_bytes(), dtype=blob_dtype())


# CclBlobMeta is a plain struct (GstMeta has no GType), which override()
# does not take: the method goes on the introspected class itself.
GpucclBlob.CclBlobMeta.table = _table
