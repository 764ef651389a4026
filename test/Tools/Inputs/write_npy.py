"""Writes a C-order .npy file of random values without numpy:
   write_npy.py PATH DTYPE DIM [DIM ...]   (DTYPE: <f4, <f2, <i4, |b1)"""
import random
import struct
import sys

path, dtype, dims = sys.argv[1], sys.argv[2], [int(d) for d in sys.argv[3:]]
count = 1
for d in dims:
    count *= d
shape = "(" + ", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"
header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (dtype, shape)
header += " " * (63 - (10 + len(header)) % 64) + "\n"
rng = random.Random(7)
pack = {"<f4": lambda: struct.pack("<f", rng.gauss(0, 1)),
        "<f2": lambda: struct.pack("<e", rng.gauss(0, 1)),
        "<i4": lambda: struct.pack("<i", rng.randint(1, 8)),
        "|b1": lambda: struct.pack("<?", rng.random() < 0.8)}[dtype]
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    for _ in range(count):
        f.write(pack())
