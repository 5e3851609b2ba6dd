#!/usr/bin/env python3
"""vhost_user_blk.py - a vhost-user-blk back-end for the end-to-end tests: QEMU's
vhost-user-blk-pci device forwards its virtqueues to this process, which serves a
disk image from them, correctly or, by scenario, as a hostile device would.

  vhost_user_blk.py serve --socket-path PATH --blk-file IMAGE --log FILE
                          [--scenario NAME] [--session K] [--after N]
                          [--queues N] [--connect-timeout SECONDS]
  vhost_user_blk.py check LOG --dma BASE:SIZE --configs NAME,NAME,...
  vhost_user_blk.py scenarios

serve: listen on PATH (a Unix socket; a stale socket file is replaced, any other
file is an error), take one connection from QEMU (-chardev socket,path=PATH
-device vhost-user-blk-pci,chardev=...; guest RAM must be a shared memory backend,
e.g. -object memory-backend-memfd,share=on), serve IMAGE, and exit when QEMU
hangs up or on SIGTERM/SIGINT, removing the socket. Every event goes to the log as
one JSON object a line: control messages, device sessions (a session runs from the
front-end's SET_FEATURES, when the guest driver sets DRIVER_OK, to the rings being
stopped by GET_VRING_BASE, when it resets the device), every request with every
buffer address it was given, what the back-end found in each buffer the device is
to fill before filling it, and every lie it told. Exit status: 0 when QEMU hung
up (or a signal came) after a connection, 1 on a protocol error from the
front-end or the driver, 2 on bad arguments or when no connection came in time.

Scenarios (--scenario, default ok). The back-end serves correctly until it has
completed N requests (--after, default 16) in session K (--session, default 1:
sessions are counted from 1 in the order the driver starts the device; with
Sluice, one per DMA configuration and pass), then lies as the scenario says:
once, or until the session ends where the scenario says so. Other sessions are
served correctly, so that the kernel's other DMA modes run on an honest device
and their data can be checked on the host. A lie that needs the driver to have
consumed a completion in one go (repeat-id) assumes fewer than 32 requests in
flight per queue (Sluice's poll takes up to 32 completions at a time).

  ok                    serve everything correctly
  bad-id                complete the next request with a used id >= the queue size
                        instead of its own; that request is never completed
  repeat-id             complete the next request, then publish its id again, in
                        the same used->idx update, in place of the request after
                        it, which is completed correctly right after
  long-len              report a used length 4096 bytes larger than the request's
                        writable buffers for the next read (its data is correct)
  unsolicited           publish a used entry for a descriptor the driver never made
                        available in this session, in place of the next request's
                        completion, which follows right after
  write-after-complete  complete every request correctly, then, once the driver
                        has consumed that completion and the next one (used_event
                        moved two past it), fill the request's buffers with 0xa5;
                        buffers of requests in flight, or completed and not yet
                        consumed, are left alone
  idx-jump              complete the next request, then move used->idx 1000
                        entries further ahead without entries
  never-complete        take every request off the ring and complete none
  write-after-reset     complete none (as never-complete); when the driver resets
                        the device (GET_VRING_BASE), first fill every held request's
                        buffers with 0xa5 and publish a correct-looking completion
                        for each, then answer; when the next session starts, fill
                        those buffers again
  hang-reset            complete none (as never-complete); never answer the
                        GET_VRING_BASE of the driver's reset. QEMU 7.2 waits for
                        that answer before it completes the guest's write of the
                        status register: the guest stops dead, and QEMU no longer
                        ends on SIGTERM (presumably because that vCPU holds its
                        global lock); only SIGKILL ends the run

check: read a serve log and check what the host can see of a Sluice boot: in every
session of a confidential configuration, every ring, indirect table and buffer
lies inside the DMA region BASE:SIZE (hex or decimal) of the boot report, and no
buffer the device was to fill held a byte the host had not seen at that address
before (nothing private was disclosed). --configs names the configuration of
each session in order, as the kernel's `blk: mode=NAME N requests` lines do (one
a device start); the log must hold exactly that many sessions (OVMF does not
start this device before the kernel in our runs; if a firmware ever did, its
session would show up here as one too many). Buffers of the direct
configuration are private memory by design (the plain-VM baseline) and are only
counted. Prints one line per session; exit status 0 when every check passed.

Protocol: QEMU's docs/interop/vhost-user.rst (message layout, the REPLY_ACK,
CONFIG, MQ and SLAVE_REQ protocol features, ring states); the split virtqueue of
the virtio 1.2 specification, section 2.7; virtio-blk requests, section 5.2.6.
"""
import argparse
import json
import mmap
import os
import select
import signal
import socket
import stat
import struct
import sys
import time

# ------------------------------------------------------------ protocol constants
# Front-end message types (vhost-user.rst, "Front-end message types"): those this
# back-end answers; any other is logged and refused (non-zero REPLY_ACK).
GET_FEATURES = 1
SET_FEATURES = 2
SET_OWNER = 3
RESET_OWNER = 4
SET_MEM_TABLE = 5
SET_VRING_NUM = 8
SET_VRING_ADDR = 9
SET_VRING_BASE = 10
GET_VRING_BASE = 11
SET_VRING_KICK = 12
SET_VRING_CALL = 13
SET_VRING_ERR = 14
GET_PROTOCOL_FEATURES = 15
SET_PROTOCOL_FEATURES = 16
GET_QUEUE_NUM = 17
SET_VRING_ENABLE = 18
SET_SLAVE_REQ_FD = 21
GET_CONFIG = 24
SET_CONFIG = 25
GET_MAX_MEM_SLOTS = 36
MESSAGES = {num: name for name, num in list(globals().items())
            if name in ("GET_FEATURES", "SET_FEATURES", "SET_OWNER", "RESET_OWNER",
                        "SET_MEM_TABLE", "SET_VRING_NUM", "SET_VRING_ADDR", "SET_VRING_BASE",
                        "GET_VRING_BASE", "SET_VRING_KICK", "SET_VRING_CALL", "SET_VRING_ERR",
                        "GET_PROTOCOL_FEATURES", "SET_PROTOCOL_FEATURES", "GET_QUEUE_NUM",
                        "SET_VRING_ENABLE", "SET_SLAVE_REQ_FD", "GET_CONFIG", "SET_CONFIG",
                        "GET_MAX_MEM_SLOTS")}

# Header flags: version 1 in the low 2 bits, bit 2 reply, bit 3 need_reply.
VERSION = 0x1
F_REPLY = 0x4
F_NEED_REPLY = 0x8
HDR = struct.Struct("<III")

# Protocol features (vhost-user.rst, "Protocol features").
PF_MQ = 0
PF_REPLY_ACK = 3
PF_SLAVE_REQ = 5
PF_CONFIG = 9

# Virtio feature bits (virtio 1.2, 5.2.3 and 6).
BLK_F_SEG_MAX = 2
BLK_F_BLK_SIZE = 6
BLK_F_FLUSH = 9
BLK_F_MQ = 12
F_INDIRECT_DESC = 28
F_EVENT_IDX = 29
F_PROTOCOL_FEATURES = 30  # vhost-user's reuse of the reserved bit 30
F_VERSION_1 = 32
F_ACCESS_PLATFORM = 33    # VIRTIO_F_IOMMU_PLATFORM in QEMU's names

# Split virtqueue (virtio 1.2, 2.7.5-2.7.8).
DESC = struct.Struct("<QIHH")
D_NEXT, D_WRITE, D_INDIRECT = 1, 2, 4
AVAIL_F_NO_INTERRUPT = 1

# virtio-blk requests (virtio 1.2, 5.2.6).
T_IN, T_OUT, T_FLUSH = 0, 1, 4
S_OK, S_IOERR, S_UNSUPP = 0, 1, 2
SECTOR = 512
SEG_MAX = 126

SCENARIOS = ("ok", "bad-id", "repeat-id", "long-len", "unsolicited", "write-after-complete",
             "idx-jump", "never-complete", "write-after-reset", "hang-reset")
MARK = 0xA5
PAGE = 4096


class ProtocolError(Exception):
    pass


def need_event(event, new, old):
    """virtio 1.2, 2.7.10: notify when @event lies in (old, new]."""
    return ((new - event - 1) & 0xFFFF) < ((new - old) & 0xFFFF)


# ------------------------------------------------------------------ guest memory
class Region:
    def __init__(self, gpa, size, uva, offset, fd):
        self.gpa, self.size, self.uva, self.offset = gpa, size, uva, offset
        self.map = mmap.mmap(fd, offset + size, mmap.MAP_SHARED,
                             mmap.PROT_READ | mmap.PROT_WRITE)


class Memory:
    """Guest RAM as QEMU's SET_MEM_TABLE describes it; addresses are guest-physical."""

    def __init__(self):
        self.regions = []

    def set_table(self, regions):
        for r in self.regions:
            r.map.close()
        self.regions = regions

    def _find(self, gpa, n):
        for r in self.regions:
            if r.gpa <= gpa and gpa + n <= r.gpa + r.size:
                return r, r.offset + gpa - r.gpa
        return None, 0

    def contains(self, gpa, n):
        return self._find(gpa, n)[0] is not None

    def read(self, gpa, n):
        r, off = self._find(gpa, n)
        if r is None:
            raise ProtocolError(f"guest address {gpa:#x}+{n:#x} is outside guest RAM")
        return r.map[off:off + n]

    def write(self, gpa, data):
        r, off = self._find(gpa, len(data))
        if r is None:
            raise ProtocolError(f"guest address {gpa:#x}+{len(data):#x} is outside guest RAM")
        r.map[off:off + len(data)] = data

    def u16(self, gpa):
        return struct.unpack("<H", self.read(gpa, 2))[0]

    def put_u16(self, gpa, v):
        self.write(gpa, struct.pack("<H", v & 0xFFFF))

    def uva_to_gpa(self, uva):
        """Ring addresses come as QEMU user addresses when no vIOMMU translates
        (vhost-user.rst, "Memory access"): find the region holding @uva."""
        for r in self.regions:
            if r.uva <= uva < r.uva + r.size:
                return r.gpa + uva - r.uva
        raise ProtocolError(f"user address {uva:#x} is in no memory region")


class HostView:
    """What the host has seen or written at each guest address (4 KiB pages, only
    pages the device touched): a byte of a buffer the device is to fill that is
    neither 0 nor what the host saw there before came from the guest's private
    memory."""

    def __init__(self):
        self.pages = {}

    def saw(self, gpa, data):
        pos = 0
        while pos < len(data):
            page, off = divmod(gpa + pos, PAGE)
            n = min(PAGE - off, len(data) - pos)
            buf = self.pages.get(page)
            if buf is None:
                buf = self.pages[page] = bytearray(PAGE)
            buf[off:off + n] = data[pos:pos + n]
            pos += n

    def unknown(self, gpa, data):
        """Bytes of @data (found at @gpa) that are neither 0 nor known to the host."""
        if data.count(0) == len(data):
            return 0
        bad = 0
        pos = 0
        while pos < len(data):
            page, off = divmod(gpa + pos, PAGE)
            n = min(PAGE - off, len(data) - pos)
            seg = data[pos:pos + n]
            known = self.pages.get(page)
            if seg.count(0) != n and (known is None or known[off:off + n] != seg):
                if known is None:
                    bad += n - seg.count(0)
                else:
                    bad += sum(1 for i, b in enumerate(seg) if b and b != known[off + i])
            pos += n
        return bad


# ----------------------------------------------------------------------- vrings
class Request:
    def __init__(self, head, bufs, indirect):
        self.head = head
        self.bufs = bufs          # [(gpa, len, writable)]
        self.indirect = indirect  # indirect table (gpa, len) or None
        self.type = None
        self.sector = 0
        self.used_len = 0
        self.status = S_OK
        self.data_bufs = []       # writable data buffers (status byte excluded)
        self.leaked = 0           # bytes found there the host had not seen
        self.status_before = None


class Vring:
    def __init__(self, index):
        self.index = index
        self.num = 0
        self.desc = self.avail = self.used = None
        self.addr_uva = None
        self.kick = None
        self.call = None
        self.enabled = False
        self.started = False
        self.last_avail = 0
        self.used_idx = 0
        self.held = []            # requests taken off the ring and not completed
        self.seen = set()         # heads made available in this session

    def close_fds(self):
        for fd in (self.kick, self.call):
            if fd is not None:
                os.close(fd)
        self.kick = self.call = None


# ---------------------------------------------------------------------- back-end
class Backend:
    def __init__(self, args, log):
        self.args = args
        self.log_file = log
        self.image = os.open(args.blk_file, os.O_RDWR)
        self.capacity = os.fstat(self.image).st_size // SECTOR
        self.nqueues = args.queues
        self.scenario = args.scenario
        self.lie_session = args.session
        self.after = args.after
        self.mem = Memory()
        self.view = HostView()
        self.vrings = [Vring(i) for i in range(self.nqueues)]
        self.features = 0
        self.protocol_features = 0
        self.slave_fd = None
        self.session = 0
        self.in_session = False
        self.done = 0             # requests completed correctly in this session
        self.lying = False        # in the session where the lie started
        self.lied_in = None
        self.pending_scribbles = []  # write-after-complete: (used position, request)
        self.reset_victims = []      # write-after-reset: held requests to write again
        self.published = {}       # used position -> request, not yet consumed
        self.deferred = []        # (vring, used position, request): completed once the
                                  # driver has consumed the entry at that position
        self.stats = {}

    # ---------------------------------------------------------------- logging
    def log(self, **ev):
        ev.setdefault("s", self.session)
        self.log_file.write(json.dumps(ev, separators=(",", ":")) + "\n")

    def count(self, key, n=1):
        self.stats[key] = self.stats.get(key, 0) + n

    # ---------------------------------------------------------------- features
    def device_features(self):
        f = (1 << BLK_F_SEG_MAX) | (1 << BLK_F_BLK_SIZE) | (1 << BLK_F_FLUSH)
        f |= (1 << F_INDIRECT_DESC) | (1 << F_EVENT_IDX) | (1 << F_PROTOCOL_FEATURES)
        f |= (1 << F_VERSION_1) | (1 << F_ACCESS_PLATFORM)
        if self.nqueues > 1:
            f |= 1 << BLK_F_MQ
        return f

    def config_space(self):
        """struct virtio_blk_config (virtio 1.2, 5.2.4), little endian."""
        cfg = bytearray(64)
        struct.pack_into("<QII", cfg, 0, self.capacity, 0, SEG_MAX)
        struct.pack_into("<I", cfg, 20, SECTOR)
        struct.pack_into("<H", cfg, 34, self.nqueues)
        return bytes(cfg)

    # ---------------------------------------------------------------- messages
    def reply(self, conn, req, payload):
        conn.sendall(HDR.pack(req, VERSION | F_REPLY, len(payload)) + payload)

    def handle(self, conn, req, flags, payload, fds):
        name = MESSAGES.get(req, str(req))
        replied = False
        u64 = struct.unpack_from("<Q", payload)[0] if len(payload) >= 8 else 0
        if req == GET_FEATURES:
            self.reply(conn, req, struct.pack("<Q", self.device_features()))
            replied = True
        elif req == SET_FEATURES:
            self.features = u64
            self.start_session()
        elif req == GET_PROTOCOL_FEATURES:
            pf = (1 << PF_MQ) | (1 << PF_REPLY_ACK) | (1 << PF_SLAVE_REQ) | (1 << PF_CONFIG)
            self.reply(conn, req, struct.pack("<Q", pf))
            replied = True
        elif req == SET_PROTOCOL_FEATURES:
            self.protocol_features = u64
        elif req == GET_QUEUE_NUM:
            self.reply(conn, req, struct.pack("<Q", self.nqueues))
            replied = True
        elif req == SET_SLAVE_REQ_FD:
            # Kept open and unused: QEMU insists on the channel with ACCESS_PLATFORM,
            # but without a vIOMMU it sends no IOTLB traffic.
            if self.slave_fd is not None:
                os.close(self.slave_fd)
            self.slave_fd = fds.pop(0) if fds else None
        elif req == GET_CONFIG:
            offset, size, cflags = struct.unpack_from("<III", payload)
            data = self.config_space()[offset:offset + size]
            data += bytes(size - len(data))
            self.reply(conn, req, struct.pack("<III", offset, size, cflags) + data)
            replied = True
        elif req == SET_CONFIG:
            pass  # the configuration is read-only here (writeback cache toggle ignored)
        elif req == SET_MEM_TABLE:
            self.set_mem_table(payload, fds)
            fds = []
        elif req == SET_VRING_NUM:
            index, num = struct.unpack_from("<II", payload)
            self.vring(index).num = num
        elif req == SET_VRING_ADDR:
            index, vflags, desc, used, avail, log_addr = struct.unpack_from("<IIQQQQ", payload)
            self.vring(index).addr_uva = (desc, avail, used)
        elif req == SET_VRING_BASE:
            index, num = struct.unpack_from("<II", payload)
            v = self.vring(index)
            v.last_avail = num
        elif req == GET_VRING_BASE:
            index = struct.unpack_from("<I", payload)[0]
            v = self.vring(index)
            if self.lying and self.scenario == "hang-reset":
                self.log(ev="lie", what="GET_VRING_BASE never answered", q=index,
                         held=len(v.held))
                return
            self.stop_vring(v)
            self.reply(conn, req, struct.pack("<II", index, v.last_avail))
            replied = True
            if not any(x.started for x in self.vrings):
                self.end_session()
        elif req in (SET_VRING_KICK, SET_VRING_CALL, SET_VRING_ERR):
            index = u64 & 0xFF
            fd = None if (u64 & 0x100) or not fds else fds.pop(0)
            v = self.vring(index)
            if req == SET_VRING_KICK:
                if v.kick is not None:
                    os.close(v.kick)
                v.kick = fd
                self.start_vring(v)
            elif req == SET_VRING_CALL:
                if v.call is not None:
                    os.close(v.call)
                v.call = fd
            elif fd is not None:
                os.close(fd)
        elif req == SET_VRING_ENABLE:
            index, num = struct.unpack_from("<II", payload)
            self.vring(index).enabled = bool(num)
        elif req in (SET_OWNER, RESET_OWNER):
            pass
        elif req == GET_MAX_MEM_SLOTS:
            self.reply(conn, req, struct.pack("<Q", 8))
            replied = True
        else:
            # Anything else (dirty logging, IOTLB, inflight tracking) was not offered.
            self.log(ev="msg", req=name, unsupported=True)
            for fd in fds:
                os.close(fd)
            if flags & F_NEED_REPLY:
                self.reply(conn, req, struct.pack("<Q", 1))
            return
        for fd in fds:
            os.close(fd)
        self.log(ev="msg", req=name, payload=payload[:48].hex())
        if flags & F_NEED_REPLY and not replied:
            self.reply(conn, req, struct.pack("<Q", 0))

    def vring(self, index):
        if index >= len(self.vrings):
            raise ProtocolError(f"vring index {index} beyond {len(self.vrings)} queues")
        return self.vrings[index]

    def set_mem_table(self, payload, fds):
        nregions = struct.unpack_from("<I", payload)[0]
        if nregions != len(fds) or nregions > 8:
            raise ProtocolError(f"SET_MEM_TABLE: {nregions} regions, {len(fds)} fds")
        regions = []
        for i in range(nregions):
            gpa, size, uva, off = struct.unpack_from("<QQQQ", payload, 8 + 32 * i)
            regions.append(Region(gpa, size, uva, off, fds[i]))
            self.log(ev="region", gpa=gpa, size=size, uva=uva, offset=off)
        for fd in fds:
            os.close(fd)
        self.mem.set_table(regions)

    # ---------------------------------------------------------------- sessions
    def start_session(self):
        if self.in_session:
            return
        self.session += 1
        self.in_session = True
        self.done = 0
        self.published = {}
        self.log(ev="start", features=self.features)
        if self.reset_victims:
            self.rewrite_victims("next session started")

    def end_session(self):
        if not self.in_session:
            return
        self.in_session = False
        if self.lying:
            self.lying = False
            self.log(ev="lie-ends", why="the driver reset the device")
        self.pending_scribbles = []
        self.deferred = []
        self.log(ev="end")

    def start_vring(self, v):
        if v.addr_uva is None or not v.num:
            return
        desc, avail, used = (self.mem.uva_to_gpa(a) for a in v.addr_uva)
        v.desc, v.avail, v.used = desc, avail, used
        v.used_idx = self.mem.u16(used + 2)
        v.started = True
        v.held = []
        v.seen = set()
        self.log(ev="vring", q=v.index, num=v.num, desc=desc, avail=avail, used=used,
                 desc_len=16 * v.num, avail_len=6 + 2 * v.num, used_len=6 + 8 * v.num,
                 last_avail=v.last_avail, used_idx=v.used_idx)

    def stop_vring(self, v):
        if not v.started:
            return
        if self.scenario == "write-after-reset" and self.lying and v.held:
            # Before answering: the guest's vCPU waits in its status write, so the
            # driver cannot look until its reset has completed.
            for r in v.held:
                self.scribble(r, "held at reset")
                r.used_len = 1 + sum(n for _, n in r.data_bufs) if r.type == T_IN else 1
                self.publish(v, [(r.head, r.used_len)], lie="late completion at reset")
            self.reset_victims = list(v.held)
        self.log(ev="vring-stop", q=v.index, last_avail=v.last_avail, used_idx=v.used_idx,
                 held=len(v.held))
        v.started = False
        v.held = []

    def rewrite_victims(self, why):
        for r in self.reset_victims:
            self.scribble(r, why)
        self.reset_victims = []

    # ---------------------------------------------------------------- requests
    def pop(self, v):
        """The next available request, or None."""
        avail_idx = self.mem.u16(v.avail + 2)
        if avail_idx == v.last_avail:
            return None
        if ((avail_idx - v.last_avail) & 0xFFFF) > v.num:
            raise ProtocolError(f"queue {v.index}: avail idx {avail_idx} runs "
                                f"{(avail_idx - v.last_avail) & 0xFFFF} ahead of {v.last_avail}")
        head = self.mem.u16(v.avail + 4 + 2 * (v.last_avail % v.num))
        v.last_avail = (v.last_avail + 1) & 0xFFFF
        v.seen.add(head)
        return self.walk(v, head)

    def walk(self, v, head):
        if head >= v.num:
            raise ProtocolError(f"queue {v.index}: available head {head} >= size {v.num}")
        bufs, indirect = [], None
        table, tlen, i = v.desc, v.num, head
        for _ in range(v.num + 1):
            addr, length, flags, nxt = DESC.unpack(self.mem.read(table + 16 * i, 16))
            if flags & D_INDIRECT:
                if indirect is not None or length % 16 or not length:
                    raise ProtocolError(f"queue {v.index}: bad indirect descriptor {i}")
                indirect = (addr, length)
                table, tlen, i = addr, length // 16, 0
                continue
            bufs.append((addr, length, bool(flags & D_WRITE)))
            if not flags & D_NEXT:
                return Request(head, bufs, indirect)
            if nxt >= tlen:
                raise ProtocolError(f"queue {v.index}: next {nxt} beyond table of {tlen}")
            i = nxt
        raise ProtocolError(f"queue {v.index}: descriptor chain of head {head} loops")

    def execute(self, v, r):
        """Do what request @r asks; fill in its status and used length."""
        out = [(a, n) for a, n, w in r.bufs if not w]
        ins = [(a, n) for a, n, w in r.bufs if w]
        data_out = b"".join(self.mem.read(a, n) for a, n in out)
        for a, n in out:
            self.view.saw(a, self.mem.read(a, n))
        if len(data_out) < 16 or not ins:
            raise ProtocolError(f"queue {v.index}: request {r.head} without header or status")
        r.type, _, r.sector = struct.unpack_from("<IIQ", data_out)
        payload = data_out[16:]
        # The status byte is the last writable byte; data buffers come before it.
        status_at = ins[-1][0] + ins[-1][1] - 1
        r.data_bufs = ins[:-1] + ([(ins[-1][0], ins[-1][1] - 1)] if ins[-1][1] > 1 else [])
        writable = sum(n for _, n in r.data_bufs)
        leaked = 0
        for a, n in r.data_bufs:
            found = self.mem.read(a, n)
            leaked += self.view.unknown(a, found)
        r.leaked = leaked
        r.status_before = self.mem.read(status_at, 1)[0]
        r.status = S_OK
        written = 0
        if r.type == T_IN:
            if r.sector + writable // SECTOR > self.capacity or writable % SECTOR:
                r.status = S_IOERR
            else:
                data = os.pread(self.image, writable, r.sector * SECTOR)
                pos = 0
                for a, n in r.data_bufs:
                    self.mem.write(a, data[pos:pos + n])
                    self.view.saw(a, data[pos:pos + n])
                    pos += n
                written = writable
        elif r.type == T_OUT:
            if r.sector + len(payload) // SECTOR > self.capacity or len(payload) % SECTOR:
                r.status = S_IOERR
            else:
                os.pwrite(self.image, payload, r.sector * SECTOR)
        elif r.type == T_FLUSH:
            os.fsync(self.image)
        else:
            r.status = S_UNSUPP
        self.mem.write(status_at, bytes([r.status]))
        self.view.saw(status_at, bytes([r.status]))
        r.used_len = written + 1
        self.log(ev="req", q=v.index, head=r.head, type=r.type, sector=r.sector,
                 bufs=r.bufs, ind=r.indirect, leak=leaked, status_before=r.status_before,
                 status=r.status)
        self.count("requests")
        if leaked:
            self.count("leaked_bytes", leaked)

    def publish(self, v, entries, lie=None):
        """Write used entries (id, len) and move used->idx past them at once.
        Returns the used position of the first."""
        old = v.used_idx
        for ident, length in entries:
            slot = v.used + 4 + 8 * (v.used_idx % v.num)
            self.mem.write(slot, struct.pack("<II", ident & 0xFFFFFFFF, length & 0xFFFFFFFF))
            v.used_idx = (v.used_idx + 1) & 0xFFFF
        self.mem.put_u16(v.used + 2, v.used_idx)
        if lie:
            self.log(ev="lie", what=lie, q=v.index, entries=entries, used_idx=v.used_idx)
        self.signal(v, old)
        return old

    def consumed(self, v, pos, extra=0):
        """Whether the driver has taken the used entry at @pos and @extra more: its
        used_event (EVENT_IDX) is the next entry it will read (virtio 1.2, 2.7.10)."""
        used_event = self.mem.u16(v.avail + 4 + 2 * v.num)
        return ((used_event - pos - 1 - extra) & 0xFFFF) < 0x8000

    def defer(self, v, pos, r):
        """Complete @r once the driver has consumed the (lying) entry at @pos, which
        took its place: until then the used entries do not outnumber the requests
        in flight, so the lie cannot be caught by counting."""
        self.deferred.append((v, pos, r))

    def signal(self, v, old):
        if v.call is None:
            return
        if self.features & (1 << F_EVENT_IDX):
            used_event = self.mem.u16(v.avail + 4 + 2 * v.num)
            if not need_event(used_event, v.used_idx, old):
                return
        elif self.mem.u16(v.avail) & AVAIL_F_NO_INTERRUPT:
            return
        os.write(v.call, struct.pack("<Q", 1))

    def scribble(self, r, why):
        """Fill @r's writable buffers with MARK (the device writing after the fact)."""
        for a, n in r.data_bufs:
            self.mem.write(a, bytes([MARK]) * n)
            self.view.saw(a, bytes([MARK]) * n)
        self.count("scribbles")
        self.log(ev="scribble", why=why, head=r.head, bufs=r.data_bufs)

    # ---------------------------------------------------------------- the rings
    def service(self, v):
        """Take every available request and answer it, as the scenario says."""
        while v.started:
            r = self.pop(v)
            if r is None:
                if self.features & (1 << F_EVENT_IDX):
                    # avail_event: kick me for the next one; then look once more,
                    # or a request made meanwhile could wait for a kick never sent.
                    self.mem.put_u16(v.used + 4 + 8 * v.num, v.last_avail)
                    r = self.pop(v)
                if r is None:
                    break
            self.answer(v, r)
        for d in [d for d in self.deferred if d[0] is v and self.consumed(v, d[1])]:
            self.deferred.remove(d)
            self.publish(v, [(d[2].head, d[2].used_len)])
        if self.scenario == "write-after-complete" and self.lying:
            self.late_writes(v)

    def answer(self, v, r):
        if self.lying and self.scenario in ("never-complete", "write-after-reset", "hang-reset"):
            # Taken off the ring, never executed, never completed.
            v.held.append(r)
            self.log(ev="lie", what="held, never completed", q=v.index, head=r.head)
            return
        self.execute(v, r)
        if not self.lying:
            self.publish(v, [(r.head, r.used_len)])
            self.done += 1
            if (self.scenario != "ok" and self.lied_in is None and
                    self.session == self.lie_session and self.done == self.after):
                self.lying = True
                self.lied_in = self.session
                self.log(ev="lie-starts", scenario=self.scenario, after=self.after)
            return
        s = self.scenario
        if s == "bad-id":
            self.publish(v, [(v.num + 7, r.used_len)], lie="used id out of range")
            self.lying = False
        elif s == "repeat-id":
            if not v.held:
                v.held.append(r)  # completed together with the next request
                return
            first = v.held.pop()
            pos = self.publish(v, [(first.head, first.used_len), (first.head, r.used_len)],
                               lie="id repeated in place of the next request")
            self.defer(v, (pos + 1) & 0xFFFF, r)
            self.lying = False
        elif s == "long-len":
            if r.type == T_IN:
                self.publish(v, [(r.head, r.used_len + 4096)], lie="used length beyond the buffers")
                self.lying = False
            else:
                self.publish(v, [(r.head, r.used_len)])
        elif s == "unsolicited":
            never = max(i for i in range(v.num) if i not in v.seen)
            pos = self.publish(v, [(never, r.used_len)],
                               lie="completion of a descriptor never made available")
            self.defer(v, pos, r)
            self.lying = False
        elif s == "idx-jump":
            self.publish(v, [(r.head, r.used_len)])
            v.used_idx = (v.used_idx + 1000) & 0xFFFF
            self.mem.put_u16(v.used + 2, v.used_idx)
            self.log(ev="lie", what="used idx jumps 1000 entries", q=v.index, used_idx=v.used_idx)
            self.lying = False
        elif s == "write-after-complete":
            pos = self.publish(v, [(r.head, r.used_len)])
            self.published[pos] = r
            if r.data_bufs:
                self.pending_scribbles.append((pos, r))
        else:
            raise AssertionError(s)

    def late_writes(self, v):
        """write-after-complete: the completions the driver has consumed, and the
        one after them, are fair game."""
        for pos in list(self.published):
            if self.consumed(v, pos):
                del self.published[pos]
        busy = [b for r in self.published.values() for b in r.data_bufs]
        keep = []
        for pos, r in self.pending_scribbles:
            if not self.consumed(v, pos, extra=1):
                keep.append((pos, r))
                continue
            if any(a < b + m and b < a + n for a, n in r.data_bufs for b, m in busy):
                self.count("scribbles_skipped")
                continue
            self.scribble(r, "after its completion was consumed")
        self.pending_scribbles = keep


# ---------------------------------------------------------------------- serving
def serve(args):
    if args.scenario not in SCENARIOS:
        print(f"vhost_user_blk: unknown scenario '{args.scenario}' "
              f"(one of {', '.join(SCENARIOS)})", file=sys.stderr)
        return 2
    if args.queues < 1 or args.queues > 16:
        print("vhost_user_blk: --queues must be 1..16", file=sys.stderr)
        return 2
    if args.session < 1 or args.after < 1:
        print("vhost_user_blk: --session and --after must be at least 1", file=sys.stderr)
        return 2
    try:
        st = os.stat(args.blk_file)
    except OSError as e:
        print(f"vhost_user_blk: cannot use the image: {e}", file=sys.stderr)
        return 2
    if not stat.S_ISREG(st.st_mode) or st.st_size % SECTOR or not st.st_size:
        print(f"vhost_user_blk: {args.blk_file}: not a regular file of whole 512-byte sectors",
              file=sys.stderr)
        return 2
    try:
        st = os.lstat(args.socket_path)
        if not stat.S_ISSOCK(st.st_mode):
            print(f"vhost_user_blk: {args.socket_path} exists and is not a socket",
                  file=sys.stderr)
            return 2
        os.unlink(args.socket_path)
    except FileNotFoundError:
        pass

    stop = {"signal": None}

    def on_signal(signum, frame):
        stop["signal"] = signum

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        log = open(args.log, "w", buffering=1) if args.log != "-" else sys.stdout
    except OSError as e:
        print(f"vhost_user_blk: cannot write the log: {e}", file=sys.stderr)
        return 2
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn = None
    rc = 0
    try:
        listener.bind(args.socket_path)
        listener.listen(1)
        backend = Backend(args, log)
        backend.log(ev="listen", socket=args.socket_path, image=args.blk_file,
                    sectors=backend.capacity, scenario=args.scenario, session=args.session,
                    after=args.after, queues=args.queues)
        deadline = time.monotonic() + args.connect_timeout
        while conn is None and stop["signal"] is None:
            left = deadline - time.monotonic()
            if left <= 0:
                print(f"vhost_user_blk: no connection on {args.socket_path} within "
                      f"{args.connect_timeout} s", file=sys.stderr)
                return 2
            ready, _, _ = select.select([listener], [], [], min(left, 0.2))
            if ready:
                conn, _ = listener.accept()
        if conn is not None:
            rc = run(backend, conn, stop)
            backend.log(ev="exit", stats=backend.stats, lied_in=backend.lied_in,
                        signal=stop["signal"])
            print(f"vhost_user_blk: {args.scenario}: {json.dumps(backend.stats)}; "
                  f"lie told in session {backend.lied_in}", file=sys.stderr)
    except OSError as e:
        print(f"vhost_user_blk: {e}", file=sys.stderr)
        rc = 2
    finally:
        if conn is not None:
            conn.close()
        listener.close()
        try:
            os.unlink(args.socket_path)
        except FileNotFoundError:
            pass
        if log is not sys.stdout:
            log.close()
    return rc


def recv_msg(conn):
    """One message: header (with up to 8 fds), then the payload."""
    msg, fds, _, _ = socket.recv_fds(conn, HDR.size, 8)
    if not msg:
        return None
    while len(msg) < HDR.size:
        more = conn.recv(HDR.size - len(msg))
        if not more:
            raise ProtocolError("front-end closed the socket inside a header")
        msg += more
    req, flags, size = HDR.unpack(msg)
    if size > 4096:
        raise ProtocolError(f"message {req} announces {size} payload bytes")
    payload = b""
    while len(payload) < size:
        more = conn.recv(size - len(payload))
        if not more:
            raise ProtocolError("front-end closed the socket inside a payload")
        payload += more
    return req, flags, payload, list(fds)


def run(backend, conn, stop):
    try:
        while stop["signal"] is None:
            kicks = {v.kick: v for v in backend.vrings if v.started and v.kick is not None}
            active = any(v.started for v in backend.vrings)
            ready, _, _ = select.select([conn] + list(kicks), [], [], 0.002 if active else 0.2)
            if conn in ready:
                m = recv_msg(conn)
                if m is None:
                    backend.log(ev="hangup")
                    return 0
                backend.handle(conn, *m)
            for fd in ready:
                if fd in kicks:
                    try:
                        os.read(fd, 8)
                    except BlockingIOError:
                        pass
            # Polled as well as kicked: with EVENT_IDX the driver kicks only when
            # avail_event asks, and a lying device may not ask.
            for v in backend.vrings:
                if v.started:
                    backend.service(v)
        return 0
    except ProtocolError as e:
        backend.log(ev="error", error=str(e))
        print(f"vhost_user_blk: protocol error: {e}", file=sys.stderr)
        return 1
    except (ConnectionResetError, BrokenPipeError):
        backend.log(ev="hangup")
        return 0


# ---------------------------------------------------------------------- checking
def check(args):
    base, _, size = args.dma.partition(":")
    try:
        dma_lo = int(base, 0)
        dma_hi = dma_lo + int(size, 0)
    except ValueError:
        print(f"vhost_user_blk check: bad --dma '{args.dma}' (BASE:SIZE)", file=sys.stderr)
        return 2
    configs = [c for c in args.configs.split(",") if c]
    sessions = {}
    order = []
    try:
        events = [json.loads(line) for line in open(args.log)]
    except (OSError, ValueError) as e:
        print(f"vhost_user_blk check: cannot read {args.log}: {e}", file=sys.stderr)
        return 2
    for ev in events:
        s = ev.get("s", 0)
        if ev["ev"] == "start":
            sessions[s] = {"addrs": [], "leak": 0, "reqs": 0, "scribbles": 0, "lies": 0}
            order.append(s)
        elif s in sessions:
            x = sessions[s]
            if ev["ev"] == "vring":
                x["addrs"] += [(ev["desc"], ev["desc_len"], "desc table"),
                               (ev["avail"], ev["avail_len"], "avail ring"),
                               (ev["used"], ev["used_len"], "used ring")]
            elif ev["ev"] == "req":
                x["reqs"] += 1
                x["leak"] += ev["leak"]
                x["addrs"] += [(a, n, "buffer") for a, n, _ in ev["bufs"]]
                if ev["ind"]:
                    x["addrs"].append((ev["ind"][0], ev["ind"][1], "indirect table"))
            elif ev["ev"] == "scribble":
                x["scribbles"] += 1
            elif ev["ev"] == "lie":
                x["lies"] += 1
    if len(order) != len(configs):
        print(f"FAIL: {len(order)} device sessions in the log, {len(configs)} configurations "
              f"named", file=sys.stderr)
        return 1
    failed = 0
    for s, name in zip(order, configs):
        x = sessions[s]
        outside = [(a, n, what) for a, n, what in x["addrs"] if a < dma_lo or a + n > dma_hi]
        confidential = name != "direct"
        verdict = "ok"
        if confidential and outside:
            a, n, what = outside[0]
            verdict = (f"FAIL: {len(outside)} addresses outside the DMA region, first a "
                       f"{what} at {a:#x}+{n:#x}")
        elif confidential and x["leak"]:
            verdict = f"FAIL: {x['leak']} bytes of guest memory disclosed"
        if verdict != "ok":
            failed += 1
        print(f"session {s} ({name}): {x['reqs']} requests, {len(x['addrs'])} addresses, "
              f"{len(outside)} outside [{dma_lo:#x}, {dma_hi:#x}), {x['leak']} unknown bytes in "
              f"buffers to fill, {x['lies']} lies, {x['scribbles']} late writes: {verdict}")
    return 1 if failed else 0


def main(argv):
    p = argparse.ArgumentParser(prog="vhost_user_blk.py",
                                description="hostile vhost-user-blk back-end for Sluice's tests",
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    sub = p.add_subparsers(dest="cmd")
    s = sub.add_parser("serve", help="serve an image to QEMU")
    s.add_argument("--socket-path", required=True)
    s.add_argument("--blk-file", required=True)
    s.add_argument("--log", required=True, help="JSON-lines event log ('-': stdout)")
    s.add_argument("--scenario", default="ok")
    s.add_argument("--session", type=int, default=1,
                   help="the session (from 1) in which to lie")
    s.add_argument("--after", type=int, default=16,
                   help="requests completed correctly in that session before the lie")
    s.add_argument("--queues", type=int, default=1)
    s.add_argument("--connect-timeout", type=float, default=60.0)
    c = sub.add_parser("check", help="check a serve log against a boot's DMA region")
    c.add_argument("log")
    c.add_argument("--dma", required=True, help="BASE:SIZE of the boot report's DMA region")
    c.add_argument("--configs", required=True,
                   help="the kernel's configurations in session order")
    sub.add_parser("scenarios", help="list the scenarios")
    args = p.parse_args(argv[1:])
    if args.cmd == "serve":
        return serve(args)
    if args.cmd == "check":
        return check(args)
    if args.cmd == "scenarios":
        print("\n".join(SCENARIOS))
        return 0
    p.print_help(sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
