#!/usr/bin/env python3
"""An independent reader of a safetensors file (struct, json and zlib only): prints, per tensor,
its dtype, shape, its first and last values and the CRC-32 of its bytes, as JSON."""
import json
import struct
import sys
import zlib

SIZES = {"F32": ("f", 4), "F64": ("d", 8), "I32": ("i", 4), "I64": ("q", 8)}

with open(sys.argv[1], "rb") as f:
    data = f.read()
(header_size,) = struct.unpack("<Q", data[:8])
header = json.loads(data[8:8 + header_size])
base = 8 + header_size
out = {}
for name, entry in header.items():
    if name == "__metadata__":
        continue
    code, size = SIZES[entry["dtype"]]
    begin, end = entry["data_offsets"]
    count = (end - begin) // size
    values = struct.unpack("<%d%s" % (count, code), data[base + begin:base + end])
    out[name] = {"dtype": entry["dtype"], "shape": entry["shape"],
                 "first": values[0], "last": values[-1], "count": count,
                 "crc32": zlib.crc32(data[base + begin:base + end])}
print(json.dumps(out))
