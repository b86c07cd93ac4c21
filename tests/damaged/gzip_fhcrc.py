# A gzip file of three members whose third member's header, with a
# header CRC (FHCRC) and a name, starts 6 bytes before the reader's 1 MiB
# buffer ends (the second member's FEXTRA pads it there): every member is
# valid (gzip -t), and every line must load. Usage: gzip_fhcrc.py OUT
import zlib, struct, random, sys
def member(data, extra=None, hcrc=True, name=None):
    flags = 0
    hdr = bytearray(b'\x1f\x8b\x08\x00' + struct.pack('<I', 0) + b'\x00\x03')
    body = bytearray()
    if extra is not None:
        flags |= 4; body += struct.pack('<H', len(extra)) + extra
    if name is not None:
        flags |= 8; body += name + b'\x00'
    if hcrc: flags |= 2
    hdr[3] = flags
    h = bytes(hdr) + bytes(body)
    if hcrc: h += struct.pack('<H', zlib.crc32(h) & 0xffff)
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    d = c.compress(data) + c.flush()
    return h + d + struct.pack('<II', zlib.crc32(data) & 0xffffffff, len(data) & 0xffffffff)
random.seed(1)
lines = []
i = 0
def line(i):
    return ('{"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":%d,"dur":5,"ph":"X","args":{"ret":%d,"fname":"/d/%s"}}\n' % (1000+i, i, '%032x' % random.getrandbits(128))).encode()
n=34000
while True:
    data1 = b''.join(line(i) for i in range(n))
    m1 = member(data1, hcrc=False)
    if (1<<20) - 60000 < len(m1) < (1<<20) - 1000: break
    n = int(n * ((1<<20) - 30000) / len(m1))
    random.seed(1)
target = (1 << 20) - 6   # member 3's header starts 6 bytes before 1 MiB
data2 = b''.join(line(i) for i in range(n, n+10))
m2_base = member(data2, extra=b'', hcrc=True)
pad = target - len(m1) - len(m2_base)
assert 0 <= pad < 65535, pad
m2 = member(data2, extra=b'x' * pad, hcrc=True)
data3 = b''.join(line(i) for i in range(n+10, n+20))
m3 = member(data3, hcrc=True, name=b'part3.pfw')
open(sys.argv[1], 'wb').write(m1 + m2 + m3)
print(len(m1), len(m2), len(m1)+len(m2), 1<<20)
