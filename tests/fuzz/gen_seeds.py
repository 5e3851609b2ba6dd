#!/usr/bin/env python3
# gen_seeds.py - write the hand-made seed corpora of the fuzz targets into
# tests/fuzz/corpus/<target>/ (and hand-made bug reproducers into
# tests/fuzz/regressions/<target>/). Reproducers minimised by libFuzzer
# (tests/fuzz/pending/) are binary files kept as found, not generated here.
#
# Each seed is a short, readable script in the byte format the target's reader
# consumes (see fuzz_<target>.c: every fuzz_u8/u16/u32/below call in order);
# libFuzzer mutates from there. Rerun after changing a target's input format:
#   python3 tests/fuzz/gen_seeds.py
import os
import struct

TOP = os.path.dirname(os.path.abspath(__file__))


class Seed:
    """Bytes in the order the C readers consume them (little-endian)."""

    def __init__(self):
        self.b = bytearray()

    def u8(self, v):
        self.b += struct.pack('<B', v & 0xff)
        return self

    def u16(self, v):
        self.b += struct.pack('<H', v & 0xffff)
        return self

    def u32(self, v):
        self.b += struct.pack('<I', v & 0xffffffff)
        return self

    def u64(self, v):
        self.b += struct.pack('<Q', v & 0xffffffffffffffff)
        return self

    def below(self, n, v):
        """fuzz_below(n): one byte when n <= 256, else four."""
        assert 0 <= v < n
        return self.u8(v) if n <= 256 else self.u32(v)

    def raw(self, data):
        self.b += data
        return self


def write(kind, target, name, seed):
    d = os.path.join(TOP, kind, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(bytes(seed.b))


# ---------------------------------------------------------------- virtqueue
def vq_header(log2num, flags, policy):
    return Seed().below(9, log2num).u8(flags).below(4, policy).below(8, 3)


def vq_add(s, num, lens, n_out, kind=0, offs=None):
    lim = min(num + 1, 20)
    s.u8(0).below(lim, len(lens) - 1).below(len(lens) + 1, n_out).u8(kind)
    for i, ln in enumerate(lens):
        s.below(4096, ln - 1).below(65536 - 4096, (offs or [0] * len(lens))[i])
    return s


def vq_push(s, how, pick=0, extra=()):
    """how: bits 0-2 id choice, 3-5 length choice, 6 do not publish."""
    s.u8(2).u8(how).u8(pick)
    for e in extra:
        e(s)
    return s


def vq_get(s, status=1):
    return s.u8(4).u8(status)


def gen_virtqueue():
    t = 'fuzz_virtqueue_used'
    # A well-behaved device: one receive buffer, then a readable+writable chain.
    s = vq_header(4, 0, 3)
    vq_add(s, 16, [1500], 0)
    s.u8(6)                      # kick
    vq_push(s, 0)                # right head, exact length
    vq_get(s)
    vq_add(s, 16, [16, 512, 1], 1, offs=[0, 4096, 8192])
    s.u8(6)
    vq_push(s, 0)
    vq_get(s)
    write('corpus', t, 'good_device', s)

    # Confidential, indirect, event index: an indirect chain, a private buffer.
    s = vq_header(8, 7, 0)
    vq_add(s, 256, [16, 4096, 4096, 1], 1)
    vq_add(s, 256, [64, 64], 1, kind=2)          # one private buffer: refused
    s.u8(6)
    vq_push(s, 0)
    vq_get(s)
    write('corpus', t, 'confidential_indirect', s)

    # Hostile: out-of-range id, a length too long, a replay, an index jump, reset.
    s = vq_header(3, 1, 1)
    vq_add(s, 8, [100], 0)
    vq_add(s, 8, [200], 0)
    vq_push(s, 3, 0, [lambda x: x.u32(0x10000)])     # id out of range
    vq_push(s, 0 | (3 << 3), 0)                      # right id, length + 1
    vq_get(s)
    vq_get(s)
    vq_push(s, 4, 0)                                 # replay of the last head
    vq_get(s)
    s.u8(7).u8(0).u16(0x8000)                        # used->idx far ahead
    vq_get(s)
    vq_add(s, 8, [10], 0)                            # refused: broken
    s.u8(9).u8(0)                                    # device reset
    vq_add(s, 8, [10], 0)
    vq_push(s, 0)
    vq_get(s)
    write('corpus', t, 'hostile_device', s)

    # Values changed right after each read (the read hook): a double fetch.
    s = vq_header(5, 4, 2)
    vq_add(s, 32, [300], 0)
    vq_add(s, 32, [300], 0)
    vq_push(s, 0, 0)
    vq_push(s, 0, 1)
    s.u8(7).u8(1)                                    # mutate on
    s.u8(4).u8(1)                                    # get_used; hook bytes follow
    s.raw(bytes([1, 0xff, 0xff, 0, 0, 1, 5, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0x7f]))
    s.u8(4).u8(1).raw(bytes([1, 1, 0, 0, 0, 1, 0, 0x10, 0, 0]))
    s.u8(6).raw(bytes([1, 0, 0]))
    write('corpus', t, 'double_fetch', s)


# ---------------------------------------------------------------- virtio-pci
def cap(cfg, at, nxt, typ, bar, off, length, mult=None):
    cfg[at] = 0x09
    cfg[at + 1] = nxt
    cfg[at + 2] = 20 if mult is not None else 16
    cfg[at + 3] = typ
    cfg[at + 4] = bar
    struct.pack_into('<II', cfg, at + 8, off, length)
    if mult is not None:
        struct.pack_into('<I', cfg, at + 16, mult)


def pci_cfg(bar64=False):
    cfg = bytearray(256)
    struct.pack_into('<HH', cfg, 0, 0x1af4, 0x1042)
    struct.pack_into('<HH', cfg, 4, 0x0006, 0x0010)    # command; status: caps
    struct.pack_into('<I', cfg, 8, 0x01000001)
    if bar64:
        struct.pack_into('<II', cfg, 0x10, 0xfe00000c, 0)
    else:
        struct.pack_into('<I', cfg, 0x10, 0xfe000000)
    cfg[0x34] = 0x40
    cap(cfg, 0x40, 0x54, 1, 0, 0x000, 0x38)
    cap(cfg, 0x54, 0x6c, 2, 0, 0x100, 0x40, mult=4)
    cap(cfg, 0x6c, 0x80, 3, 0, 0x200, 4)
    cap(cfg, 0x80, 0x00, 4, 0, 0x300, 0x40)
    return cfg


def pci_bar_mem():
    mem = bytearray(0x400)
    struct.pack_into('<H', mem, 0x12, 2)        # num_queues
    struct.pack_into('<H', mem, 0x18, 256)      # queue_size
    struct.pack_into('<H', mem, 0x1e, 3)        # queue_notify_off
    for i in range(0x40):
        mem[0x300 + i] = i
    return mem


def gen_pci():
    t = 'fuzz_virtio_pci_caps'
    masks = [0xfffffc00, 0, 0, 0, 0, 0]
    s = Seed().u8(0).raw(pci_cfg())
    for m in masks:
        s.u32(m)
    write('corpus', t, 'modern_layout', s)

    # The same layout, then the transport's registers in a 1 KiB BAR.
    s = Seed().u8(2).raw(pci_cfg())
    for m in masks:
        s.u32(m)
    s.raw(pci_bar_mem()).u8(1)
    s.u8(0)                                          # num_queues
    s.u8(1).u16(0)                                   # queue_max_size(0)
    s.u8(2).below(66, 0).u16(64).u64(0x1000).u64(0x2000).u64(0x3000)
    s.u8(3).u16(0)                                   # notify queue 0
    s.u8(4).u8(0).u8(8).below(65, 8)                 # config read 8 @ 8
    s.u8(4).u8(1).u32(0x3c).below(65, 8)             # crosses the end
    s.u8(5).u8(0)                                    # reset
    write('corpus', t, 'transport_ops', s)

    # A 64-bit BAR and a notify offset that points outside the structure.
    s = Seed().u8(2).raw(pci_cfg(bar64=True))
    for m in [0xfffffc0c, 0xffffffff, 0, 0, 0, 0]:
        s.u32(m)
    mem = pci_bar_mem()
    struct.pack_into('<H', mem, 0x1e, 0x4000)
    s.raw(mem).u8(0)
    s.u8(2).below(66, 1).u16(16).u64(0).u64(0).u64(0)
    write('corpus', t, 'bar64_bad_notify', s)

    # The same layout in a BAR the platform refused (mode bit 2, BAR 0): refused.
    s = Seed().u8(4 | (0 << 3)).raw(pci_cfg())
    for m in masks:
        s.u32(m)
    write('corpus', t, 'refused_bar', s)

    # Fixed bug (regression): a vendor capability pointing at itself.
    cfg = pci_cfg()
    cfg[0x41] = 0x40
    s = Seed().u8(0).raw(cfg)
    for m in masks:
        s.u32(m)
    write('regressions', t, 'cap_self_loop', s)

    # Fixed bug (regression): an unaligned common-configuration offset was accepted.
    cfg = pci_cfg()
    struct.pack_into('<I', cfg, 0x40 + 8, 0x101)     # common at 0x101
    struct.pack_into('<I', cfg, 0x54 + 8, 0x180)     # notify moved out of its way
    s = Seed().u8(2).raw(cfg)
    for m in masks:
        s.u32(m)
    s.raw(pci_bar_mem()).u8(0).u8(0)
    write('regressions', t, 'unaligned_common', s)

    # Fixed bug (regression): the device capability at 0xf4 runs past the 256
    # bytes of configuration space; its length (at 0x100) read back all ones,
    # and with a 64-bit BAR of 8 GiB the 4 GiB region [0x300, +0xffffffff) was
    # accepted. Capabilities must lie whole in the configuration space.
    cfg = pci_cfg(bar64=True)
    cfg[0x6c + 1] = 0xf4                             # isr -> 0xf4
    cfg[0x80:0x94] = bytes(0x14)
    cfg[0xf4:0xfc] = bytes([0x09, 0x00, 16, 4, 0, 0, 0, 0])
    struct.pack_into('<I', cfg, 0xfc, 0x300)         # its length would be at 0x100
    s = Seed().u8(0).raw(cfg)
    for m in [0x0000000c, 0xfffffffe, 0, 0, 0, 0]:  # 2^33 bytes
        s.u32(m)
    write('regressions', t, 'cap_past_config_space', s)

    # Fixed bug (regression): a BAR whose sizing readback has a hole (0xfffffc40:
    # 960 bytes, no power of two) was sized as the lie says; it is left unsized.
    s = Seed().u8(0).raw(pci_cfg())
    for m in [0xfffffc40, 0, 0, 0, 0, 0]:
        s.u32(m)
    write('regressions', t, 'bar_mask_with_hole', s)


# ---------------------------------------------------------------- virtio-blk
def blk_header(mode, feat, qsizes=(64, 64), nq=1, size_max_log=0):
    s = Seed().u8(mode).u16(feat).raw(bytes(64))
    if not feat & 0x100:
        s.u8(0).u16(0)                       # capacity 4096 sectors
        if not feat & 0x200:
            s.below(8, size_max_log)
    s.below(2, nq - 1)
    for q in qsizes:
        s.below(64, q - 1)
    return s


def blk_submit(s, op, sectors, sector=0, q=None):
    how = 0x80 if q is not None else 0
    s.u8(0).u8(how)
    if q is not None:
        s.below(3, q)
    return s.below(3, op).below(129, sectors).u8(sector)


def blk_serve(s, how=0, q=0):
    """how: bits 0-1 data (3: none), 2-4 status, 5-7 used entry."""
    return s.u8(2 | (q << 4)).u8(how).u8(0x33).u8(0).u8(0)


def blk_poll(s, q=0):
    return s.u8(4 | (q << 4))


def gen_blk():
    t = 'fuzz_virtio_blk_completion'
    s = blk_header(0, 0x10)                  # flush
    blk_submit(s, 0, 8)
    s.u8(6)
    blk_serve(s)
    blk_poll(s)
    blk_submit(s, 1, 1, 7)
    blk_serve(s)
    blk_poll(s)
    blk_submit(s, 2, 0)
    blk_serve(s)
    blk_poll(s)
    write('corpus', t, 'read_write_flush', s)

    # Confidential, indirect, event index, two queues; errors and lies.
    s = blk_header(0x11, 0x10 | 0x20 | 0x40 | 0x80, nq=2)
    blk_submit(s, 0, 4)
    blk_serve(s, how=3 << 2)                 # IOERR
    blk_poll(s)
    blk_submit(s, 0, 4)
    blk_serve(s, how=(4 << 5))               # used length one off
    s.u8(1)
    blk_poll(s)
    blk_submit(s, 0, 2, q=1)
    blk_serve(s, how=(6 << 2), q=1)          # status never written
    blk_poll(s, q=1)
    blk_submit(s, 1, 2)
    blk_serve(s, how=(2 << 2) | (7 << 5))    # UNSUPP, published twice
    blk_poll(s)
    blk_poll(s)
    write('corpus', t, 'hostile_status', s)

    # size_max of one sector: a 16-sector read takes 16 segments.
    s = blk_header(0x0a, 0x01 | 0x40, size_max_log=0)
    blk_submit(s, 0, 16)
    blk_serve(s, how=2)                      # only half of each segment written
    blk_poll(s)
    blk_submit(s, 0, 20)                     # more segments than seg_max
    write('corpus', t, 'many_segments', s)

    # mode bits 5-7: 4 DRIVER_OK refused, 5 the negotiation's reset fails, 6 the
    # next reset (removal) fails, 7 every reset from FEATURES_OK on fails.
    # Removal of a device that does not reset, requests in flight on both
    # queues, one answered: quarantine.
    s = blk_header(0x11 | (6 << 5), 0x20 | 0x10, nq=2)
    blk_submit(s, 0, 8)
    blk_submit(s, 1, 2, q=1)
    blk_submit(s, 0, 4)
    blk_serve(s)
    blk_poll(s)
    write('corpus', t, 'reset_fails_at_removal', s)

    # DRIVER_OK refused after the queues were set up; then the negotiation's
    # reset failing; then every reset from FEATURES_OK on.
    write('corpus', t, 'driver_ok_refused', blk_header(4 << 5, 0x10))
    write('corpus', t, 'reset_fails_at_negotiation', blk_header(5 << 5, 0x10))
    s = blk_header(0x08 | (7 << 5), 0x10)
    blk_submit(s, 1, 3)
    write('corpus', t, 'reset_fails_after_init', s)

    # Fixed bug (regression): a device given indirect tables that did not
    # reset at removal was quarantined without them in quarantined_bytes.
    s = blk_header(6 << 5, 0x40)             # VIRTIO_F_RING_INDIRECT_DESC
    blk_submit(s, 0, 8)
    write('regressions', t, 'quarantine_indirect_tables', s)


# ---------------------------------------------------------------- virtio-net
NET_HDR, NET_MIN, NET_MAX, NET_BUF = 12, 14, 1514, 2048


def net_header(mode, dev, sizes=(16, 16), max_queue=0, mac=b'\x52\x54\x00\x12\x34\x56',
               link=1, resets=None):
    """mode: bit 0 confidential, 1-2 policy, 3 scrub zero, 4 in place, 5 mutate,
    6 config reads fail, 7 DRIVER_OK refused. dev: bit 0 not a NIC, 1 FEATURES_OK
    refused, 2 no VERSION_1, 3 no ACCESS_PLATFORM, 4 MAC, 5 STATUS, 6 offloads,
    7 resets fail (resets: bit k, reset call k)."""
    s = Seed().u8(mode).u8(dev | (0x80 if resets is not None else 0))
    if resets is not None:
        s.u8(resets)
    cfg = bytearray(16)
    cfg[0:6] = mac
    struct.pack_into('<H', cfg, 6, link)
    s.raw(bytes(cfg))
    for q in sizes:
        if q > 64:
            s.u8(0xff).u16(q)
        else:
            s.u8(q)
    return s.u8(max_queue)


def net_recv(s, max_len=None):
    if max_len is None:
        return s.u8(0).u8(1)                     # a 2048-byte buffer
    return s.u8(0).u8(0).below(NET_BUF + 1, max_len)


def net_serve(s, flen=60, pick=0, hdr=None, fields=None, nbuf=None, used=None, id_how=0,
              extra=(), replay=False, keep=False, kind=None):
    """One receive completion. kind: None (a valid frame of flen), 'runt' (flen
    < 14), 'any' (flen up to the buffer), 'huge' (flen as u16), 'max' (1514).
    used: None (exact), ('u32', v) or ('short', v) / ('long', v)."""
    how = {None: 0, 'runt': 4, 'any': 5, 'huge': 6, 'max': 7}[kind]
    if hdr is not None:
        how |= 0x08
    if fields is not None:
        how |= 0x10
    if nbuf is not None:
        how |= 0x20
    if used is not None:
        how |= 0x80 if used[0] == 'u32' else 0xc0
    how2 = id_how | (0x04 if replay else 0) | (0x08 if keep else 0)
    s.u8(1).u8(how).u8(how2).u8(0x40).u8(pick)
    if kind is None:
        s.below(NET_MAX - NET_MIN + 1, flen - NET_MIN)
    elif kind == 'runt':
        s.below(NET_MIN, flen)
    elif kind == 'any':
        s.below(NET_BUF - NET_HDR + 1, flen)
    elif kind == 'huge':
        s.u16(flen)
    if hdr is not None:
        s.raw(bytes(hdr))
    if fields is not None:
        s.raw(bytes(fields))
    if nbuf is not None:
        s.u16(nbuf)
    if used is not None:
        if used[0] == 'u32':
            s.u32(used[1])
        elif used[0] == 'long':
            s.u8(1).u8(used[1])
        else:
            s.u8(0).below(NET_HDR + NET_MIN, used[1])
    for e in extra:
        e(s)
    return s


def net_send(s, flen=60, kind=None, null=False):
    how = {None: 0, 'runt': 5, 'long': 6, 'huge': 7}[kind] | (0x80 if null else 0)
    s.u8(3).u8(how)
    if kind is None:
        s.below(NET_MAX - NET_MIN + 1, flen - NET_MIN)
    elif kind == 'runt':
        s.below(NET_MIN, flen)
    elif kind == 'long':
        s.below(64, flen - NET_MAX - 1)
    else:
        s.u8(1)                                  # SIZE_MAX
    return s


def net_complete(s, pick=0, id_how=0, ln=None, replay=False, extra=()):
    how = id_how | (0x04 if ln is not None else 0) | (0x08 if replay else 0)
    s.u8(4).u8(how).u8(pick)
    for e in extra:
        e(s)
    if ln is not None:
        s.u32(ln)
    return s


def gen_net_good(t):
    # A well-behaved device: frames both ways, the smallest and the largest.
    s = net_header(0x00, 0x30)
    for n in (60, 1514):
        net_send(s, n)
        net_complete(s)
        s.u8(5)                                  # reclaim
        net_serve(s, n)
        net_recv(s)
    s.u8(6)                                      # link status
    write('corpus', t, 'good_traffic', s)


def gen_net_confidential(t):
    # Confidential, buffers in the in-place region, sluice policy, zero scrub,
    # eight entries: a full transmit ring, a receive buffer too small.
    s = net_header(0x01 | 0x06 | 0x08 | 0x10, 0x30, sizes=(64, 32), max_queue=8)
    for i in range(9):
        net_send(s, 100 + i)                     # the ninth: busy
    for i in range(8):
        net_complete(s)
    s.u8(5)
    net_serve(s, 200)
    net_recv(s, 100)                             # dropped: 200 > 100
    net_serve(s, 200)
    net_recv(s, 200)
    write('corpus', t, 'confidential_inplace', s)


def gen_net_headers(t):
    # Headers: offloads asked for (dropped), csum fields and num_buffers with no
    # flag (delivered), the device offering offloads the driver must refuse.
    s = net_header(0x02, 0x70)
    net_serve(s, 80, hdr=[1, 0, 0, 0, 0, 0, 14, 0, 16, 0, 1, 0])    # NEEDS_CSUM
    net_recv(s)
    net_serve(s, 80, hdr=[0, 3, 42, 0, 0xa8, 5, 0, 0, 0, 0, 1, 0])  # GSO UDP
    net_recv(s)
    net_serve(s, 80, hdr=[2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0])      # DATA_VALID
    net_recv(s)
    net_serve(s, 80, fields=[0xff, 0xff, 0x34, 0x12, 0xfe, 0xff, 0x00, 0x80])
    net_recv(s)
    net_serve(s, 80, nbuf=7)
    net_recv(s)
    net_serve(s, 80, nbuf=0)
    net_recv(s)
    write('corpus', t, 'hostile_headers', s)


def gen_net_lengths(t):
    # Lengths and ids: a runt, a frame claimed longer than the buffer, used
    # lengths below header + 14 and above the buffer, ids out of range, another
    # buffer's, replays, a used->idx jump; sends of bad lengths.
    s = net_header(0x04, 0x30, sizes=(8, 8))
    net_serve(s, 5, kind='runt')
    net_recv(s)
    net_serve(s, 4000, kind='huge')
    net_recv(s)
    net_serve(s, 60, used=('short', 25))
    net_recv(s)
    net_serve(s, 60, used=('long', 0))
    net_recv(s)
    net_serve(s, 60, used=('u32', 0xffffffff))
    net_recv(s)
    net_serve(s, 2036, kind='any')               # exactly the buffer
    net_recv(s)
    net_serve(s, 60, id_how=3, extra=[lambda x: x.u8(1).u32(0x10000)])  # id out of range
    net_serve(s, 60, id_how=2, extra=[lambda x: x.below(8, 3)])        # another head
    net_serve(s, 60, replay=True)
    net_recv(s)
    net_recv(s)
    net_recv(s)
    net_send(s, 13, kind='runt')
    net_send(s, 1515, kind='long')
    net_send(s, kind='huge')
    net_send(s, 60, null=True)
    net_send(s, 60)
    net_complete(s, ln=0xffffffff)             # a length means nothing for transmit
    s.u8(5)
    s.u8(7).u8(0).u32(3).u32(100)               # a stray used entry
    net_recv(s)
    s.u8(7).u8(1).u16(0x8000)                    # used->idx far ahead: broken
    net_recv(s)
    net_send(s, 60)
    s.u8(5)
    write('corpus', t, 'hostile_lengths', s)


def gen_net_unusable(t):
    # A device no driver can use: a queue size of 65535 (more buffers than the
    # allocator gives), then one refusing DRIVER_OK.
    s = net_header(0x00, 0x30, sizes=(65535, 65535))
    write('corpus', t, 'bad_queue_size', s)
    s = net_header(0x80, 0x30)
    write('corpus', t, 'driver_ok_refused', s)


def gen_net_double_fetch(t):
    # Fields changed right after the queue read them (mutate on): the hook's
    # bytes follow each read.
    s = net_header(0x20, 0x30, sizes=(4, 4))
    net_serve(s, 60)
    net_serve(s, 70, pick=0)
    s.u8(0).u8(1)                                # recv; hook bytes follow
    s.raw(bytes([0, 0x34, 0x12, 0, 0, 0, 0xff, 0xff, 0x7f, 0, 0, 1, 0, 0, 0, 1, 1]))
    s.u8(0).u8(1).raw(bytes([1, 1, 1, 1, 1, 1]))
    write('corpus', t, 'double_fetch', s)


def gen_net_quarantine(t):
    # A NIC that does not reset at removal, a frame sent and not completed, one
    # received: rings and posted buffers quarantined. Then the same in place.
    for name, mode in (('reset_fails_at_removal', 0x00), ('reset_fails_in_place', 0x11)):
        s = net_header(mode, 0x30, sizes=(8, 8), resets=0x02)
        net_send(s, 100)
        net_serve(s, 60)
        net_recv(s)
        write('corpus', t, name, s)
    # DRIVER_OK refused (init fails with every buffer posted) and the reset of
    # the clean-up fails: quarantined inside init.
    write('corpus', t, 'reset_fails_in_failed_init',
          net_header(0x80, 0x30, sizes=(8, 8), resets=0x02))


def gen_net():
    t = 'fuzz_virtio_net_rx'
    for gen in (gen_net_good, gen_net_confidential, gen_net_headers, gen_net_lengths,
                gen_net_unusable, gen_net_double_fetch, gen_net_quarantine):
        gen(t)


# ---------------------------------------------------------------- virtio-net multiqueue
def mq_header(mode=0, wanted=2, dev=0x0f, pairs=2, nq=None, nq_alt=0, size=16, odd=None,
              ctrl_size=8, due=0, ack=0, ln='one', ident='head', resets=None,
              max_queue=16, mac=b'\x52\x54\x00\x12\x34\x56'):
    """mode: as net_header's. dev: bit 0 CTRL_VQ, 1 MQ, 2 MAC, 3 STATUS offered;
    wanted: pairs the driver asks for. pairs: max_virtqueue_pairs (a u16 above
    239). nq: num_queues (2 * pairs + 1 by default); nq_alt: every second read.
    due: polls after the kick at which the command is answered (0: at the kick;
    None: never). ack, ln ('one', 'zero', 'two', or a number), ident ('head',
    ('other', k), ('out', id), 'break'): the answer."""
    if nq is None:
        nq = 2 * pairs + 1
    s = Seed().u8(mode).u8(dev | (0x10 if resets is not None else 0) | ((wanted - 1) << 5))
    if resets is not None:
        s.u8(resets)
    cfg = bytearray(8)
    cfg[0:6] = mac
    struct.pack_into('<H', cfg, 6, 1)
    s.raw(bytes(cfg))
    for v in (pairs, nq, nq_alt):
        if v < 0xf0 and v < 20:
            s.u8(v)
        else:
            s.u8(0xf0).u16(v)
    s.u8(size) if size < 0xff else s.u8(0xff).u16(size)
    if odd is None:
        s.u8(0)
    else:
        s.u8(odd[0]).u8(odd[1])
    s.u8(ctrl_size) if ctrl_size < 0xff else s.u8(0xff).u16(ctrl_size)
    s.u8(0xe0 if due is None else due)
    s.u8(ack)
    lens = {'one': 0, 'zero': 5, 'two': 6}
    lbits = lens.get(ln, 7)
    if ident == 'head':
        ibits = 0
    elif ident == 'break':
        ibits = 7
    else:
        ibits = 5 if ident[0] == 'other' else 6
    s.u8(lbits | (ibits << 3))
    if lbits == 7:
        s.u32(ln)
    if ident not in ('head', 'break'):
        if ident[0] == 'other':
            s.u8(ident[1])
        else:
            s.u32(ident[1])
    return s.below(64, max_queue - 1)


def mq_op(s, op, pair, alloc):
    """op on pair: the selector is (op >> 4) % (alloc + 1)."""
    assert pair <= alloc
    return s.u8((pair << 4) | op)


def gen_mq():
    t = 'fuzz_virtio_net_mq'
    # Four pairs, the command acknowledged at the kick: frames on every pair.
    s = mq_header(wanted=4, pairs=4)
    for p in range(4):
        mq_op(s, 1, p, 4).u8(0).u8(0).u8(0x40 + p).u8(0).below(NET_MAX - NET_MIN + 1, 60 + p)
        mq_op(s, 0, p, 4).u8(1)
        mq_op(s, 3, p, 4).u8(0).below(NET_MAX - NET_MIN + 1, 100 - NET_MIN)
        mq_op(s, 4, p, 4).u8(0).u8(0)
        mq_op(s, 5, p, 4)
    mq_op(s, 3, 4, 4)                            # a pair that does not exist
    write('corpus', t, 'four_pairs', s)

    # The command refused (ack VIRTIO_NET_ERR): one pair; frames on the second
    # pair, which the driver set up but must never read.
    s = mq_header(wanted=2, ack=0xc1)
    mq_op(s, 1, 1, 2).u8(0).u8(0).u8(0x11).u8(0).below(NET_MAX - NET_MIN + 1, 50)
    mq_op(s, 0, 1, 2).u8(1)
    mq_op(s, 3, 1, 2).u8(0).below(NET_MAX - NET_MIN + 1, 50)
    mq_op(s, 0, 0, 2).u8(1)
    write('corpus', t, 'command_refused', s)

    # Never answered (the deadline), answered late, answered wrong.
    write('corpus', t, 'command_unanswered', mq_header(wanted=3, pairs=3, due=None))
    write('corpus', t, 'command_late', mq_header(wanted=2, due=6))
    write('corpus', t, 'command_other_id', mq_header(wanted=2, ident=('other', 2)))
    write('corpus', t, 'command_bad_id', mq_header(wanted=2, ident=('out', 0x10000)))
    write('corpus', t, 'command_len_two', mq_header(wanted=2, ln='two'))
    write('corpus', t, 'command_len_zero', mq_header(wanted=2, ln='zero'))
    write('corpus', t, 'command_breaks_queue', mq_header(wanted=2, ident='break'))

    # max_virtqueue_pairs 0x8000: 2N wraps a 16-bit index onto receive queue 0;
    # refused whatever num_queues says. 0x7fff with num_queues 0xffff: the
    # control queue at 0xfffe. A second read of num_queues below 2N + 1, a
    # control queue of two entries, no CTRL_VQ, no MQ, a queue of size 0.
    write('corpus', t, 'pairs_0x8000', mq_header(wanted=8, pairs=0x8000, nq=0xffff))
    write('corpus', t, 'ctrl_at_0xfffe', mq_header(wanted=8, pairs=0x7fff, nq=0xffff))
    write('corpus', t, 'num_queues_changes', mq_header(wanted=2, pairs=2, nq=5, nq_alt=3))
    write('corpus', t, 'ctrl_queue_too_small', mq_header(wanted=2, ctrl_size=2))
    write('corpus', t, 'no_ctrl_vq', mq_header(wanted=4, dev=0x0e, pairs=4))
    write('corpus', t, 'no_mq', mq_header(wanted=4, dev=0x0d, pairs=4))
    write('corpus', t, 'queue_size_zero', mq_header(wanted=4, pairs=4, odd=(5, 0)))
    write('corpus', t, 'config_fails', mq_header(mode=0x40, wanted=2))

    # Fixed bug (regression): a NIC with a control queue that did not reset at
    # removal was quarantined without the control queue's rings in the count.
    s = mq_header(wanted=2, due=None, resets=0x02)
    write('regressions', t, 'quarantine_ctrl_rings', s)


# ---------------------------------------------------------------- reset failures
def rs_blk(point, conf=0, policy=0, zero=0, feat=0, size_log=0, resets=0):
    """point: 0 negotiation, 1 init failure, 2 removal, 3 deadline (rw)."""
    mode = (point << 6) | (conf << 1) | (policy << 2) | (zero << 4)
    return Seed().u8(mode).u8(feat).u8(size_log).u8(resets)


def rs_net(point, conf=0, policy=0, zero=0, inplace=0, feat=0, size_log=1, resets=0,
           mac=b'\x52\x54\x00\x12\x34\x56'):
    mode = 1 | (point << 6) | (conf << 1) | (policy << 2) | (zero << 4) | (inplace << 5)
    return Seed().u8(mode).u8(feat).u8(size_log).raw(mac).u8(resets)


def rs_submit(s, write=False, sectors=8, q=0):
    return s.u8(0).u8((1 if write else 0) | (q << 7)).below(32, sectors - 1).u8(0)


def gen_reset():
    t = 'fuzz_virtio_reset'
    write('corpus', t, 'blk_negotiation', rs_blk(0))
    write('corpus', t, 'blk_driver_ok_refused', rs_blk(1, conf=1, feat=0x02))
    write('corpus', t, 'blk_queue_refused', rs_blk(1, feat=0x01 | 0x08 | 0x10))
    s = rs_blk(2, conf=1, policy=3, feat=0x01 | 0x02, size_log=1)
    rs_submit(s, sectors=8)
    rs_submit(s, write=True, sectors=32, q=1)
    rs_submit(s, sectors=1)
    s.u8(2).below(128, 0)                    # the first one answered
    s.u8(3)
    write('corpus', t, 'blk_removal_in_flight', s)
    s = rs_blk(3, zero=1, feat=0x80, resets=0x01)
    rs_submit(s, write=True, sectors=4)
    s.u8(3).u8(0).u8(0)                      # rw: never answered, a read
    write('corpus', t, 'blk_deadline', s)
    s = rs_blk(3, policy=1)
    s.u8(3).u8(1).u8(1)                      # rw: the queue broken, a write
    write('corpus', t, 'blk_broken_queue', s)
    write('corpus', t, 'net_negotiation', rs_net(0))
    write('corpus', t, 'net_driver_ok_refused', rs_net(1, conf=1))
    write('corpus', t, 'net_mac_unreadable', rs_net(1, feat=0x01))
    s = rs_net(2, conf=1, policy=2)
    net_send(s, 300)
    net_serve(s, 80)
    net_recv(s)
    net_serve(s, 90)
    s.u8(6)
    write('corpus', t, 'net_removal', s)
    s = rs_net(2, inplace=1, zero=1, resets=0x02)
    net_send(s, 60)
    net_serve(s, 60)
    s.u8(6)
    write('corpus', t, 'net_removal_in_place', s)
    s = rs_net(3, feat=0x80)
    net_serve(s, 70)
    s.u8(0x11).u8(0).u8(0).u8(0x22).u8(0).below(NET_MAX - NET_MIN + 1, 70)  # pair 1
    s.u8(6)
    write('corpus', t, 'net_command_deadline', s)


# ---------------------------------------------------------------- dma
def dma_len(s, ln):
    if ln <= 4096:
        return s.u8(1).u16(ln - 1)
    if ln <= 65536:
        return s.u8(4).u32(ln - 1)
    return s.u8(7).u32(ln - 1)


def sluice_dma_map(s, tag, d, off, ln, block=None, boff=0, bsize=4096):
    s.u8(0).below(8, tag).u8(d)
    if block is None:
        s.u8(0).below(256 * 1024, off)
    else:
        s.u8(1).u8(block).below(bsize, boff)
    return dma_len(s, ln)


def gen_dma():
    t = 'fuzz_dma_ops'
    TO, FROM, BIDI = 9 + 0, 9 + 1, 9 + 2     # d >= 8: dir = 1 + d % 3

    # linux policy, copy scrub, one CPU, arena: maps, device writes, syncs.
    s = Seed().u8(0x00).u8(0).u8(0).u8(0).u8(0)      # mode, cap, three default tags
    sluice_dma_map(s, 0, TO, 0, 4096)
    sluice_dma_map(s, 0, FROM, 8192, 3000)
    s.u8(7).u8(1).u8(1).below(3000, 10).below(2990, 100).u8(0x77)  # device writes
    s.u8(5).u8(1).u8(0).below(3002, 0).u8(1).below(3002, 50).u8(1)  # sync for cpu
    s.u8(3).u8(1)                                    # unmap the from-device one
    s.u8(10).u8(0)
    dma_len(s, 8192)                                 # coherent 8 KiB
    s.u8(11).u8(40).u32(16383)                       # arena block of 16 KiB
    sluice_dma_map(s, 0, BIDI, 0, 1000, block=0, boff=100, bsize=16384)
    s.u8(9).u8(1).u8(0).u8(0x42).below(16384, 0).below(8192, 99)  # cpu writes the block
    s.u8(3).u8(0)
    write('corpus', t, 'linux_basics', s)

    # sluice policy, zero scrub, four CPUs, a second pool, failures, reclaim.
    s = Seed().u8(0x03 | 0x04 | 0x18 | 0x40).u8(0xc1).u8(0).u8(0).u8(0)
    for cpu in range(4):
        s.u8(14).u8(cpu)
        sluice_dma_map(s, 0, FROM, cpu * 20000, 5000)
        sluice_dma_map(s, 0, TO, cpu * 20000 + 10000, 2048)
    s.u8(8).u8(0).u32(12345).u32(4000).u8(0xee)     # host scribbles free slots
    s.u8(15).u8(1).u8(1)                             # next set_shared fails
    s.u8(11).u8(200).u32(4095)
    s.u8(11).u8(200).u32(4095)
    s.u8(12).u8(0)
    s.u8(15).u8(2).u8(0)                             # next set_private fails
    s.u8(13).u8(0)                                   # reclaim: leaks a chunk
    s.u8(4).u8(0).u8(4).u8(2)
    write('corpus', t, 'sluice_growth_failures', s)

    # bitmap and lifo with device tags: NVMe min_align, alloc align, boundary,
    # a 32-bit device, and random masks.
    for name, policy in (('bitmap_tags', 1), ('lifo_tags', 2)):
        s = Seed().u8(policy | 0x20).u8(0)
        s.u8(0x07).u8(12).u8(12).u8(5)              # tag 5: all three masks
        s.u8(0x80).u64(0x123).u64(7).u64(0xfff).u64(~0).u32(0)  # tag 6: invalid
        s.u8(0x10).u32(300)                          # tag 7: max_mapping 300
        for tag in range(8):
            sluice_dma_map(s, tag, BIDI, 777 + tag * 9000, 1500 + tag * 1000)
        sluice_dma_map(s, 0, FROM, 0, 200 * 1024)
        s.u8(5).u8(2).u8(0).u8(0).u8(0)              # sync with the wrong direction
        write('corpus', t, name, s)

    # Fixed bug (regression): coherent memory of 8 KiB that was not page aligned,
    # for a tag with min_align_mask 2047 (below a page).
    s = Seed().u8(0x20).u8(0)
    s.u8(0x01).below(16, 11).u8(0).u8(0)            # tag 5: min_align_mask 2047
    s.u8(10).below(8, 0)
    dma_len(s, 2048)                                 # one slot first
    s.u8(10).below(8, 5)
    dma_len(s, 8192)
    write('regressions', t, 'coherent_not_page_aligned', s)

    # Fixed bug (regression): a sync two bytes long on an in-place mapping of one
    # byte at the end of its arena block trapped ("not in any pool nor in-place
    # region") where a bounce mapping returns SLUICE_DMA_ERR_RANGE.
    s = Seed().u8(0x00).u8(0).u8(0).u8(0).u8(0)
    s.u8(11).u8(40).u32(4095)                        # arena block of 4 KiB
    sluice_dma_map(s, 0, FROM, 0, 1, block=0, boff=4095, bsize=4096)
    s.u8(5).u8(0).u8(0).u8(1).below(3, 2).u8(1)     # sync_for_cpu(0, 2)
    write('regressions', t, 'inplace_sync_past_block', s)

    # Fixed bug (regression): the same sync at offset 2 went into the next arena
    # block, live too, and was accepted (0) where it leaves its mapping's block
    # (SLUICE_DMA_ERR_RANGE): the layer checked the synced range alone, not from the
    # mapping's start.
    s = Seed().u8(0x00).u8(0).u8(0).u8(0).u8(0)
    s.u8(11).u8(40).u32(4095)                        # arena block of 4 KiB
    s.u8(11).u8(40).u32(4095)                        # and the next one
    sluice_dma_map(s, 0, FROM, 0, 1, block=0, boff=4095, bsize=4096)
    s.u8(5).u8(0).u8(1).below(3, 2).u8(1).below(3, 2).u8(1)  # sync_for_cpu(2, 2)
    write('regressions', t, 'inplace_sync_into_next_block', s)


# ---------------------------------------------------------------- PCI set-up
# fuzz_pci_setup.c: the memory map, the kernel's regions, the MCFG window and up
# to four functions, then windows checked directly. Addresses and sizes are
# written raw (tag 0); the fuzzer finds the other encodings.
EFI_RESERVED, EFI_LOADER_DATA, EFI_BS_DATA, EFI_RT_DATA = 0, 2, 4, 6
EFI_CONVENTIONAL, EFI_ACPI_RECLAIM, EFI_ACPI_NVS, EFI_MMIO = 7, 9, 10, 11
GIB = 1 << 30


def ps_addr(s, a):
    return s.u8(0).u64(a)


def ps_size(s, n):
    return s.u8(0).u64(n)


# A BAR: (writer, slots it fills).
def ps_bar32(base, size, prefetch=False):
    """An honest 32-bit memory BAR (size a power of two, 16 B to 2 GiB)."""
    log = size.bit_length() - 1
    return (lambda s: ps_addr(s.u8(1 | (0x10 if prefetch else 0)), base).u8(log - 4), 1)


def ps_bar64(base, size):
    log = size.bit_length() - 1
    return (lambda s: ps_addr(s.u8(2), base).u8(log - 4), 2)


def ps_raw(value, answer, later=None):
    """Any BAR value and sizing answer; later: the answer of every later sizing."""
    def f(s):
        s.u8(3 | (4 if later is not None else 0)).u32(value).u32(answer)
        if later is not None:
            s.u32(later)
    return (f, 1)


PS_NONE = (lambda s: s.u8(0), 1)


OVMF_MAP = [  # (EFI type, write-back, base, size): q35 with 2 GiB, as OVMF lists it
    (EFI_CONVENTIONAL, True, 0x0, 0x9f000),
    (EFI_CONVENTIONAL, True, 0x100000, 0x7e700000),
    (EFI_LOADER_DATA, True, 0x7e800000, 0x400000),
    (EFI_BS_DATA, True, 0x7ec00000, 0x800000),
    (EFI_RT_DATA, True, 0x7f400000, 0x200000),
    (EFI_ACPI_NVS, True, 0x7f600000, 0x200000),
    (EFI_RESERVED, False, 0xb0000000, 0x10000000),   # the ECAM window, uncached
    (EFI_MMIO, False, 0xffc00000, 0x400000),         # the flash
]
OVMF_BUSY = [(0x7e800000, 0x100000), (0x7e900000, 0x100000), (0x7ea00000, 0x200000),
             (0x7e000000, 0x800000), (0x7ef00000, 0x100000), (0x8000, 0x1000)]
OVMF_LAPIC = 0xfee00000


def ps_virtio(dev, bars, bus=0, command=0x0007):
    """A virtio function at bus:dev.0: BAR1 32-bit (MSI-X), BAR4 64-bit."""
    return dict(bus=bus, devfn=dev << 3, flags=0, command=command, bars=bars)


def ovmf_bars(i):
    return [PS_NONE, ps_bar32(0xc0000000 + i * 0x1000, 0x1000), PS_NONE, PS_NONE,
            ps_bar64(0x800000000 + i * 0x4000, 0x4000)]


def ps_seed(flags=0x03, call=0, bits=48, ranges=OVMF_MAP, busy=OVMF_BUSY, lapic=OVMF_LAPIC,
            mcfg=(0xb0000000, 0, 255), fns=None, probes=()):
    s = Seed().u8((flags & ~1) | (1 if mcfg else 0)).u8(call).u8(bits)
    s.below(9, len(ranges))
    for t, wb, base, size in ranges:
        s.u8((t & 0x1f) | (0x40 if wb else 0))
        ps_size(ps_addr(s, base), size)
    s.u8((1 << len(busy)) - 1 | (0x40 if lapic else 0))
    for base, size in busy:
        ps_size(ps_addr(s, base), size)
    if lapic:
        ps_addr(s, lapic)
    if mcfg:
        ps_addr(s.u8(mcfg[1]).u8(mcfg[2]), mcfg[0])
    if fns is None:
        fns = [dict(bus=0, devfn=0, flags=0, command=0x0006, bars=[])] + \
              [ps_virtio(2 + i, ovmf_bars(i)) for i in range(3)]
    s.below(5, len(fns))
    for f in fns:
        s.u8(f['bus']).u8(f['devfn']).u8(f['flags'])
        if f['flags'] & 8:
            s.u16(f['vendor'])
        s.u16(f['command'])
        slots = 0
        for writer, n in f['bars']:
            writer(s)
            slots += n
        while slots < 6:
            PS_NONE[0](s)
            slots += 1
    s.below(17, len(probes))
    for ecam, base, size in probes:
        ps_size(ps_addr(s.u8((0x80 if ecam else 0) | 63), base), size)
    return s


def gen_pci_setup():
    t = 'fuzz_pci_setup'
    # OVMF on q35: RAM below 2 GiB, ECAM at 0xb0000000 reserved and uncached,
    # BARs at 0xc0000000 and a 64-bit one above 4 GiB: all accepted, ECAM used.
    write('corpus', t, 'ovmf_q35', ps_seed(probes=[(True, 0xb0000000, 0x10000000),
                                                  (False, 0xc0000000, 0x1000),
                                                  (False, 0x7f5ff000, 0x2000)]))
    # A virtio BAR the host points into RAM: that function refused.
    bars = ovmf_bars(0)
    bars[4] = ps_bar64(0x1000000, 0x4000)
    write('corpus', t, 'bar_over_ram',
          ps_seed(fns=[ps_virtio(2, bars), ps_virtio(3, ovmf_bars(1))]))
    # A 32 KiB BAR at 0x98000: its first 28 KiB are the end of the RAM below
    # 640 KiB, the rest a hole.
    bars = ovmf_bars(0)
    bars[1] = ps_bar32(0x98000, 0x8000)
    write('corpus', t, 'bar_straddling_ram',
          ps_seed(fns=[ps_virtio(2, bars), ps_virtio(3, ovmf_bars(1))]))
    # Sizing answers with a hole in the mask (32-bit, and the upper half of a
    # 64-bit BAR), and one that changes after the first sizing, on a function
    # that answers at all eight function numbers.
    write('corpus', t, 'mask_with_hole', ps_seed(fns=[
        ps_virtio(2, [ps_raw(0xc0004000, 0xfff0fff0), PS_NONE, PS_NONE, PS_NONE,
                      ps_raw(0x00000004, 0xffffc004), ps_raw(0x8, 0xfffeffff)]),
        dict(bus=0, devfn=3 << 3, flags=0x03, command=0x0007,
             bars=[ps_raw(0xc0010000, 0xffff0000, later=0x0000fff0)]),
    ]))
    # Lies about placement: a BAR at 0, one over the local APIC, one over the DMA
    # region in a hole of the map, one beyond a 36-bit address space.
    write('corpus', t, 'bars_at_zero_apic_busy', ps_seed(bits=36, fns=[
        ps_virtio(2, [ps_bar32(0, 0x1000)]),
        ps_virtio(3, [ps_bar32(OVMF_LAPIC, 0x1000)]),
        ps_virtio(4, [ps_bar32(0x7ea00000, 0x1000)]),
        ps_virtio(5, [PS_NONE, PS_NONE, ps_bar64(0xfffff0000, 0x100000)]),
    ]))
    # The MCFG window over RAM: refused, the ports scan 256 buses; a function on
    # bus 0x80 is found that way.
    write('corpus', t, 'ecam_over_ram', ps_seed(mcfg=(0x0, 0, 3), fns=[
        ps_virtio(2, ovmf_bars(0)), ps_virtio(0, ovmf_bars(1), bus=0x80)]))
    # ECAM in write-back reserved memory is refused; with no MCFG the ports.
    ranges = list(OVMF_MAP)
    ranges[6] = (EFI_RESERVED, True, 0xb0000000, 0x10000000)
    write('corpus', t, 'ecam_cacheable', ps_seed(ranges=ranges))
    write('corpus', t, 'no_mcfg', ps_seed(mcfg=None))
    # The mapping fails (PT_ERR_EXIST, PT_ERR_NOMEM) or comes out private.
    write('corpus', t, 'map_exists', ps_seed(flags=0x03 | (1 << 2), call=3))
    write('corpus', t, 'map_nomem', ps_seed(flags=0x03 | (2 << 2), call=1))
    write('corpus', t, 'map_private', ps_seed(flags=0x03 | (3 << 2), call=2))


gen_virtqueue()
gen_pci()
gen_blk()
gen_net()
gen_mq()
gen_reset()
gen_dma()
gen_pci_setup()
