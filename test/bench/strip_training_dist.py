#!/usr/bin/env python3
# Writes a gbdt model file without its training-distribution section (tag 5,
# format version 4), as the build before that section wrote it: drops the
# section (and the section count when it was the only one), sets the version
# back to 1 (no other section) and reseals length and checksum.
import struct, sys
def fnv(b):
    h = 1469598103934665603
    for x in b:
        h ^= x; h = (h * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h
d = open(sys.argv[1], 'rb').read()
assert d[:8] == b'GBDTMDL\0'
ver, plen = struct.unpack_from('<IQ', d, 8)
pay = d[20:20 + plen]
assert ver == 4, ver
# the section is last: find tag 5 whose length reaches the payload's end
for o in range(len(pay) - 12, -1, -1):
    tag, sl = struct.unpack_from('<IQ', pay, o)
    if tag == 5 and o + 12 + sl == len(pay):
        break
else:
    sys.exit('no training distribution section')
ns = struct.unpack_from('<I', pay, o - 4)[0]
assert ns == 1, 'other sections present: not handled'
pay = pay[:o - 4]
out = b'GBDTMDL\0' + struct.pack('<IQ', 1, len(pay)) + pay
out += struct.pack('<Q', fnv(out))
open(sys.argv[2], 'wb').write(out)
