#!/usr/bin/env python3
"""An independent reference reader for dfnav's grouped figures.

Written from the documentation only (README.md, man/dfnav.1 and the
DFTracer trace-format notes), never from dfnav's engine, so that dfnav's
numbers can be checked against a second reading of the same traces.

Records: ph "M" (4) is metadata (FH names the file hashes of the whole
set, the first definition in sorted file order wins, wherever it appears),
"C" (2) a counter sample; an aggregated record (ph 3) is args.dft_cnt calls
with their dur_sum and ret_sum; "B"/"E" on one thread pair into one call;
every other record with a valid ts is an event. Lines that are not one JSON
object, events without ts, with ts or dur out of range or a negative dur are
malformed and skipped. Durations are microseconds unless the file's end
record says otherwise (args.cfg.time_metric NS, MS or SEC).

For every event of a trace set it sums, per group,

    count   events
    time_s  sum of durations (seconds)
    bytes   bytes moved: ret of the POSIX/STDIO reads and writes when
            ret > 0, size * ret for fread/fwrite, size_sum where present

grouped by one of

    func      the event's name
    file      the resolved file: args.fname inline, or args.fhash resolved
              through the FH metadata of the whole set (the hash itself
              when unresolved); "" for events without a file
    own.NAME  the text of the event's own argument NAME ("" when absent):
              a string as it is (so quoted and bare integers give the
              same text), other values (1.5, 1e3, true, null, arrays,
              objects) as written (dfnav's arg.NAME also takes the
              argument of enclosing calls, which this reader does not)
    time      bins of --bin seconds (README "Dimensions" and "Time
              ranges", man dfnav DIMENSIONS and TIME RANGES), see below

Time bins. Times are whole microseconds (ts and dur, in the file's
time_metric, each rounded to the nearest: README "Time units") from the
trace start, the earliest start of any event of the whole set. A call is
the interval [ts, ts + dur), a B/E pair from B to E, an aggregated record
its dft_cnt calls with their time (dur_sum) placed from its ts (README,
"Aggregated records": [ts, ts + dur_sum) with the bytes of all the calls,
counted where it starts). Bins
lie on multiples of the bin width from the trace start; a key is the bin's
start in seconds to the microsecond, without trailing zeros ("0", "0.5",
"1000.001"). A window [A, B) (--window A:B, seconds from the trace start:
dfnav's --where 'time>=A time<B'; either side may be left out) clips every
call to it. In a bin (or a window):

    count   the calls that start in it (dft_cnt for an aggregated record)
    time_s  the length of the part of each call inside it
    bytes   each call's bytes shared in proportion to its time inside:
            the piece from offset a to b (microseconds from the call's
            start) of a call of length d gets floor(bytes * b / d) -
            floor(bytes * a / d), so the shares of a call add up to its
            bytes; a call of zero length gives all of them where it starts

Every bin the window reaches is a row, empty ones too (the first bin is
cut when the window starts between two edges); the window ends at the end
of the trace (the latest ts + dur), since a bin past the end of a trace is
absent (man dfnav, compare), and calls of zero length at the very end add
their bin. Windows of more than 10000 bins have a row for each bin that a
call reaches only. Without --bin the width is 1, 2 or 5 times a power of
ten, the smallest giving at most 60 bins over the window.

Usage:

    dfnav_ref.py --by DIM PATH...
        print CSV shaped as `dfnav report --by DIM -m count,time_s,bytes
        -f csv --sort key PATH...`

    dfnav_ref.py --by time [--bin SECONDS] [--window A:B] PATH...
        the same for `dfnav report --by time --bin SECONDS --where
        'time>=A time<B' ...`

    dfnav_ref.py --check DIM=CSV [--check DIM=CSV ...] PATH...
        compare dfnav's CSV files (made with the command above) with the
        reference, in one pass over the traces: the same keys in byte
        order of the key, counts and bytes equal, time_s equal to the
        microsecond when the durations are whole microseconds (below 2^53),
        else within 1e-6 relative. Prints "ok DIM CSV" or "not ok DIM CSV"
        for each, and every mismatch with the dimension, the key and both
        values; exit status 1 when anything differs. DIM time takes the
        --bin and --window given; time/BIN and time/BIN/A:B give their own
        (many bins and windows in one pass: --check time/0.25/2.5:7.3=CSV).

Standard library only.
"""

import argparse
import codecs
import csv
from fractions import Fraction
import io
import json
import math
import os
import re
import sys
import zlib

# ---------------------------------------------------------------- the rules

# Calls whose ret is the number of bytes moved when ret > 0 (trace-format.md,
# "POSIX and STDIO arguments"; README, "Metrics": "ret of reads and writes").
RET_BYTES = {
    "read", "pread", "pread64", "readv", "preadv",
    "write", "pwrite", "pwrite64", "writev", "pwritev",
}
# fread/fwrite: ret counts items of args.size bytes.
ITEM_BYTES = {"fread", "fwrite"}
# Reads and writes are I/O classes of POSIX and STDIO calls only (man dfnav,
# DIMENSIONS: "class: I/O class of POSIX and STDIO calls ... (non-I/O
# categories are other)"); categories compare ignoring case.
IO_CATS = {"posix", "stdio"}

# Record kinds by ph (trace-format.md): "M"/4 metadata, "C"/2 counter
# samples of a time series (not calls), 3 aggregated calls, "B"/"E" begin
# and end of one call on a thread. Everything else with a ts is an event
# ("X"/1 complete, instants, and kinds a reader does not know: never
# dropped).
META_PH = {"M", 4}
COUNTER_PH = {"C", 2}
AGG_PH = {3}

MAX_TS = 1 << 62          # ts and dur at or above 2^62 are out of range
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1

# JSON's number grammar, also for numbers written as strings ("ret":"4096")
INT_RE = re.compile(r"-?(?:0|[1-9][0-9]*)\Z")
NUM_RE = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?\Z")
SKIP_LINES = {"", "[", "]", "{", "}", "]["}

# DFTRACER_TIME_METRIC, recorded in the end record as args.cfg.time_metric:
# the unit of ts and dur, here in microseconds.
TIME_UNITS = {"US": 1, "NS": 0.001, "MS": 1000, "SEC": 1000000}
# the same exactly, for the start and length of a call in time bins
EXACT_UNITS = {"US": 1, "NS": Fraction(1, 1000), "MS": 1000, "SEC": 1000000}


def _bytes_of_surrogates(err):
    """Text to bytes again: bytes that were not UTF-8 (kept by
    surrogateescape) as they were; any other surrogate (none should be left,
    see fix_surrogates) in its 3-byte form rather than an exception."""
    out = bytearray()
    for ch in err.object[err.start:err.end]:
        c = ord(ch)
        if 0xDC80 <= c <= 0xDCFF:
            out.append(c - 0xDC00)
        else:
            out += ch.encode("utf-8", "surrogatepass")
    return bytes(out), err.end


codecs.register_error("dfnav_ref", _bytes_of_surrogates)


class RawNum(str):
    """A JSON number with a fraction or exponent, kept as its text."""


class RawJSON(str):
    """A nested argument value (array or object), kept as its text."""


def as_int(v):
    """A JSON integer, a number with an integral value or a quoted integer
    as an int; None otherwise."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, str) and not isinstance(v, RawJSON):
        if INT_RE.match(v):
            return int(v)
        if NUM_RE.match(v):
            f = float(v)
            if math.isfinite(f) and f == int(f):
                return int(f)
    return None


def as_num(v):
    """A JSON number or a quoted number as an int or a float; None otherwise."""
    i = as_int(v)
    if i is not None:
        return i
    if isinstance(v, str) and NUM_RE.match(v):
        f = float(v)
        return f if math.isfinite(f) else None
    return None


def good_id(v):
    """pid and tid: absent, an integer within int64 (bare or quoted), or a
    name (other tools write a host or worker name)."""
    if v is None or isinstance(v, bool):
        return v is None
    if isinstance(v, int):
        return INT64_MIN <= v <= INT64_MAX
    if isinstance(v, RawNum):
        return False
    if isinstance(v, str):
        i = as_int(v)
        return i is None or INT64_MIN <= i <= INT64_MAX
    return False


def hash_key(v):
    """The text a hash is compared by: decimal digits for integers, the
    string otherwise (hex digits compare ignoring case)."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        s = v.strip()
        return s.lower() if re.fullmatch(r"[0-9A-Fa-f]+", s) else s
    return None


def hash_text(v):
    """An unresolved hash is shown as the hash, as it was written."""
    if isinstance(v, int) and not isinstance(v, bool):
        return str(v)
    if isinstance(v, str):
        return v
    return json_text(v)


def json_text(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, RawNum, RawJSON)):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ",".join(json_text(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + json_text(x)
                              for k, x in v.items()) + "}"
    return str(v)


def arg_text(v):
    """The text of an argument value for arg.NAME: a string as it is (so a
    quoted integer reads as the bare one), anything else as its JSON text."""
    if isinstance(v, str) and not isinstance(v, (RawNum, RawJSON)):
        return v
    return json_text(v)


def is_io(name, cat):
    """A read or write of the POSIX or STDIO layer."""
    return (isinstance(cat, str) and cat.lower() in IO_CATS
            and (name in RET_BYTES or name in ITEM_BYTES))


def count_arg(args, key):
    """A byte or item count (ssize_t in the traced call): a positive
    integer within int64, else None."""
    v = as_int(args.get(key))
    return v if v is not None and 0 < v <= INT64_MAX else None


def moved_bytes(name, cat, args):
    """Bytes moved by one call: size_sum where present, else ret of reads
    and writes when positive, size * ret for fread/fwrite."""
    if not is_io(name, cat):
        return 0
    if "size_sum" in args:
        return count_arg(args, "size_sum") or 0
    ret = count_arg(args, "ret")
    if ret is None:
        return 0
    if name in ITEM_BYTES:
        size = count_arg(args, "size")
        return size * ret if size is not None else 0
    return ret


# ------------------------------------------------------------------ reading

def trace_files(paths):
    """Every trace file under PATHs: *.pfw and *.pfw.gz in directories
    (recursively, hidden directories skipped), files given by name as they
    are; in sorted order, the order in which the first definition of a hash
    wins."""
    out = []
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs[:] = [d for d in dirs if not d.startswith(".")]
                for f in files:
                    if f.endswith(".pfw") or f.endswith(".pfw.gz"):
                        out.append(os.path.join(root, f))
        else:
            out.append(p)
    return sorted(set(out), key=os.fsencode)


def read_bytes(path):
    """The text of a trace file: plain, one gzip member or many (detected by
    content, not by name). Damaged gzip gives the complete lines inflated
    before the damage and a message."""
    with open(path, "rb") as fh:
        data = fh.read()
    if data[:2] != b"\x1f\x8b":
        return data, None
    out = []
    pos = 0
    err = None
    while pos < len(data):
        if data[pos:pos + 2] != b"\x1f\x8b":
            err = "trailing garbage after gzip member at byte %d" % pos
            break
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            out.append(d.decompress(data[pos:]))
        except zlib.error as e:
            err = "corrupt gzip data at byte %d: %s" % (pos, e)
            break
        if not d.eof:
            err = "gzip data truncated"
            break
        pos = len(data) - len(d.unused_data)
    text = b"".join(out)
    if err is not None:
        cut = text.rfind(b"\n")
        text = text[:cut + 1] if cut >= 0 else b""
    return text, err


DECODER = json.JSONDecoder(parse_float=RawNum, strict=False)
# numbers written with leading zeros (01), which strict JSON refuses
LEADING_ZEROS = re.compile(r'("(?:[^"\\]|\\.)*")|(?<![\w.])(-?)0+([0-9])')


SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
LONE_SURROGATE = re.compile("[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]")


def fix_surrogates(v, keep_raw_bytes):
    """\\u escapes of lone surrogates are no text: U+FFFD instead (bytes that
    were not UTF-8 stay as they were)."""
    if isinstance(v, str):
        if type(v) is not str:
            return v
        def repl(m):
            c = ord(m.group(0))
            return m.group(0) if keep_raw_bytes and 0xDC80 <= c <= 0xDCFF else "\ufffd"
        return LONE_SURROGATE.sub(repl, v)
    if isinstance(v, list):
        return [fix_surrogates(x, keep_raw_bytes) for x in v]
    if isinstance(v, dict):
        return {fix_surrogates(k, keep_raw_bytes): fix_surrogates(x, keep_raw_bytes)
                for k, x in v.items()}
    return v


def parse_line(s):
    obj = parse_json(s)
    if obj is not None and SURROGATE_ESCAPE.search(s):
        raw_bytes = any(0xDC80 <= ord(c) <= 0xDCFF for c in s)
        obj = fix_surrogates(obj, raw_bytes)
    return obj


def parse_json(s):
    try:
        return DECODER.decode(s)
    except (ValueError, RecursionError):
        pass
    fixed = LEADING_ZEROS.sub(lambda m: m.group(1) or m.group(2) + m.group(3), s)
    if fixed == s:
        return None
    try:
        return DECODER.decode(fixed)
    except (ValueError, RecursionError):
        return None


def raw_members(s, i):
    """The members of the JSON object starting at s[i] as (key, raw text of
    the value, value end)."""
    dec = DECODER
    i += 1
    n = len(s)
    while i < n:
        while i < n and s[i] in " \t\r\n":
            i += 1
        if i < n and s[i] == "}":
            return
        if i < n and s[i] == ",":
            i += 1
            continue
        key, i = dec.raw_decode(s, i)
        while s[i] in " \t\r\n:":
            i += 1
        j = i
        _, i = dec.raw_decode(s, j)
        yield key, j, i


def raw_nested_args(s, args):
    """Nested argument values (arrays, objects) as the text they were
    written with (the text of an argument is what the trace says), in a
    dict of their own."""
    raw = {}
    try:
        start = s.index("{")
        for key, j, end in raw_members(s, start):
            if key == "args" and s[j] == "{":
                for akey, aj, aend in raw_members(s, j):
                    if isinstance(args.get(akey), (list, dict)):
                        raw[akey] = RawJSON(s[aj:aend])
    except (ValueError, IndexError):
        pass
    return raw


def parse_lines(text):
    """The JSON objects of a file's lines; malformed lines are skipped."""
    for raw in text.split(b"\n"):
        if b"\0" in raw:
            continue
        line = raw.strip(b" \t\r\f\v")
        if line.endswith(b","):
            line = line[:-1].rstrip()
        s = line.decode("utf-8", "surrogateescape")
        if s in SKIP_LINES:
            continue
        if s.startswith("[") and s[1:].lstrip().startswith("{"):
            s = s[1:].lstrip()   # "[ {...": the first event after the bracket
        obj = parse_line(s)
        if isinstance(obj, dict):
            args = obj.get("args")
            raw = {}
            if isinstance(args, dict) and any(isinstance(v, (list, dict)) for v in args.values()):
                raw = raw_nested_args(s, args)
            yield obj, raw


class Event:
    __slots__ = ("name", "file", "args", "raw", "count", "dur", "bytes",
                 "ts", "span", "pair")


def exact(v):
    """A time as an int, or as an exact Fraction when it has a fraction."""
    if isinstance(v, float):
        v = Fraction(v)
    if isinstance(v, Fraction) and v.denominator == 1:
        return int(v)
    return v


def make_event(o, args, raw, ph, dur, ts, pair=False):
    name = o.get("name")
    if not isinstance(name, str) or isinstance(name, RawNum):
        name = "" if name is None else json_text(name)
    cat = o.get("cat")
    e = Event()
    e.name = name
    e.args = args
    e.raw = raw
    e.count = 1
    e.dur = dur
    e.bytes = moved_bytes(name, cat, args)
    if ph in AGG_PH:
        aggregate(e, cat, args, dur)
    # the call is [ts, ts + span) in time bins; an aggregated record's time
    # is placed from its ts (README, "Aggregated records")
    e.ts = exact(ts)
    e.span = exact(e.dur)
    e.pair = pair          # a B/E pair: ts and ts + span are the values
    # the file of the call: inline fname, else fhash (resolved at the end)
    if type(args.get("fname")) is str:
        e.file = ("name", args["fname"])
    elif "fhash" in args:
        e.file = ("hash", args["fhash"])
    else:
        e.file = ("name", "")
    return e


def aggregate(e, cat, args, dur):
    """An aggregated record (ph 3) stands for dft_cnt calls. An argument that
    varied is given as NAME_min, NAME_max, NAME_sum; one that took a single
    value as plain NAME, the value of each call (trace-format.md)."""
    cnt = as_int(args.get("dft_cnt"))
    cnt = cnt if cnt is not None and cnt > 0 else 1
    e.count = cnt

    def total(key):   # the sum of KEY over the folded calls, or None
        if key + "_sum" in args:
            return as_num(args[key + "_sum"])
        if key in args and as_num(args[key]) is not None:
            return as_num(args[key]) * cnt
        return None

    t = total("dur")
    e.dur = t if t is not None else dur * cnt
    if not is_io(e.name, cat):
        return
    ret = total("ret")
    if e.name in ITEM_BYTES:
        size = as_int(args.get("size"))    # plain: one size for every call
        e.bytes = size * ret if size and ret and size > 0 and ret > 0 else 0
    else:
        e.bytes = ret if ret and ret > 0 else 0


def load(paths, stats=None):
    """All events of a trace set, their files resolved through the set's
    FH metadata."""
    fmap = {}     # FH: hash text -> path (first definition wins)
    events = []
    for path in trace_files(paths):
        text, err = read_bytes(path)
        if err and stats is not None:
            stats.setdefault("errors", []).append("%s: %s" % (path, err))
        file_events = []
        open_b = {}   # (pid, tid) -> stack of B records
        unit = "US"
        for o, raw in parse_lines(text):
            ph = o.get("ph")
            args = o.get("args")
            if not isinstance(args, dict):
                args = {}
            if ph in META_PH:
                if o.get("name") == "FH":
                    k = hash_key(args.get("value"))
                    nm = args.get("name")
                    if k is not None and isinstance(nm, str) and k not in fmap:
                        fmap[k] = nm
                continue
            if ph in COUNTER_PH:
                continue      # samples of a time series, not calls
            # an event: a valid ts, pid and tid, and a dur that is not negative
            ts = as_num(o.get("ts"))
            if ts is None or ts < 0 or ts >= MAX_TS:
                continue
            if not (good_id(o.get("pid")) and good_id(o.get("tid"))):
                continue
            if "dur" in o:
                dur = as_num(o["dur"])
                if dur is None or dur < 0 or dur >= MAX_TS:
                    continue
            else:
                dur = 0
            if ph == "B":
                open_b.setdefault((o.get("pid"), o.get("tid")), []).append((o, args, raw, ts))
                continue
            if ph == "E":
                stack = open_b.get((o.get("pid"), o.get("tid")))
                if stack:
                    bo, bargs, braw, bts = stack.pop()
                    file_events.append(make_event(bo, bargs, braw, "X", max(ts - bts, 0), bts, True))
                continue
            file_events.append(make_event(o, args, raw, ph, dur, ts))
            if o.get("name") == "end":
                cfg = args.get("cfg")
                if isinstance(cfg, dict) and isinstance(cfg.get("time_metric"), str):
                    unit = cfg["time_metric"].upper()
        for stack in open_b.values():     # a begin without its end: a call of 0 s
            for bo, bargs, braw, bts in stack:
                file_events.append(make_event(bo, bargs, braw, "X", 0, bts))
        if TIME_UNITS.get(unit, 1) != 1:
            for e in file_events:
                e.dur = e.dur * TIME_UNITS[unit]
                e.ts = exact(e.ts * EXACT_UNITS[unit])
                e.span = exact(e.span * EXACT_UNITS[unit])
        events.extend(file_events)
    for e in events:
        kind, v = e.file
        if kind == "hash":
            k = hash_key(v)
            e.file = fmap.get(k, hash_text(v)) if k is not None else hash_text(v)
        else:
            e.file = v
    return events


def key_of(e, dim):
    if dim == "func":
        return e.name
    if dim == "file":
        return e.file
    if dim.startswith("own."):
        name = dim[4:]
        if name not in e.args:
            return ""
        if name in e.raw:
            return e.raw[name]
        return arg_text(e.args[name])
    raise SystemExit("dfnav_ref.py: unsupported dimension %r (func, file, own.NAME, time)" % dim)


def group(events, dim):
    rows = {}
    for e in events:
        k = key_of(e, dim)
        r = rows.get(k)
        if r is None:
            r = rows[k] = [0, 0, 0]
        r[0] += e.count
        r[1] += e.dur
        r[2] += e.bytes
    return rows


# ------------------------------------------------------------- time bins

US = 1000000
MAX_ROWS_EMPTY = 10000    # windows of more bins list the bins calls reach


def seconds(text, what):
    """Seconds written in decimal (or with an exponent) as exact
    microseconds."""
    if not NUM_RE.match(text.strip()):
        raise SystemExit("dfnav_ref.py: %s: not a number of seconds: %r" % (what, text))
    return exact(Fraction(text.strip()) * US)


class TimeSpec:
    """A bin width and a window, in microseconds from the trace start (None:
    the default width; an open side of the window)."""

    def __init__(self, bin_s=None, window=None):
        self.width = None
        if bin_s is not None:
            self.width = seconds(bin_s, "--bin")
            if self.width <= 0:
                raise SystemExit("dfnav_ref.py: --bin must be above 0")
        self.lo = self.hi = None
        if window:
            a, sep, b = window.partition(":")
            if not sep:
                raise SystemExit("dfnav_ref.py: --window wants A:B, got %r" % window)
            self.lo = seconds(a, "--window") if a.strip() else None
            self.hi = seconds(b, "--window") if b.strip() else None

    @classmethod
    def parse(cls, dim, bin_s, window):
        """DIM is time (with --bin and --window), time/BIN or time/BIN/A:B."""
        parts = dim.split("/")
        if parts[0] != "time" or len(parts) > 3:
            return None
        if len(parts) >= 2:
            bin_s = parts[1] or None
            window = parts[2] if len(parts) == 3 else None
        return cls(bin_s, window)


def bin_count(lo, hi, w):
    """The bins of width W that [lo, hi) reaches: first, last + 1 (none
    when it is empty)."""
    first = math.floor(Fraction(lo) / w)
    if hi <= lo:
        return first, first
    return first, math.ceil(Fraction(hi) / w)


def default_width(lo, hi):
    """1, 2 or 5 times a power of ten: the smallest giving at most 60 bins
    over [lo, hi)."""
    n = -6
    while True:
        for m in (1, 2, 5):
            w = exact(Fraction(m) * Fraction(10) ** n * US)
            first, last = bin_count(lo, hi, w)
            if last - first <= 60:
                return w
        n += 1


def time_key(start_us):
    """A bin's start in seconds to the microsecond: 0, 0.5, 1000.001."""
    us = math.floor(Fraction(start_us) + Fraction(1, 2))
    sign = "-" if us < 0 else ""
    sec, frac = divmod(abs(us), US)
    return sign + ("%d.%06d" % (sec, frac)).rstrip("0").rstrip(".")


def whole_us(t):
    """Times are kept in whole microseconds, each value rounded to the
    nearest (README, "Time units": a call under 0.5 us counts 0 s)."""
    return t if isinstance(t, int) else math.floor(t + Fraction(1, 2))


def interval(e):
    """A call's start and length in whole microseconds: ts and dur rounded
    each, or for a B/E pair the ts of each."""
    s = whole_us(e.ts)
    if e.pair:
        return s, max(whole_us(e.ts + e.span) - s, 0)
    return s, whole_us(e.span)


def time_bins(events, spec):
    """count, time_s and bytes per time bin (see the docstring)."""
    if not events:
        return {}
    calls = [(interval(e), e) for e in events]
    t0 = min(s for (s, d), e in calls)
    end = max(s + d for (s, d), e in calls) - t0
    lo = spec.lo if spec.lo is not None else 0
    hi = spec.hi              # None: open
    wend = end if hi is None else min(hi, end)   # no bin past the trace's end
    w = spec.width if spec.width is not None else default_width(lo, max(wend, lo))
    bins = {}                 # bin number -> [count, time, bytes]

    def row(k):
        r = bins.get(k)
        if r is None:
            r = bins[k] = [0, 0, 0]
        return r

    for (s, d), e in calls:
        s -= t0               # the call [s, f)
        f = s + d
        starts_in = s >= lo and (hi is None or s < hi)
        if starts_in:
            r = row(math.floor(Fraction(s) / w))
            r[0] += e.count
            if d == 0:        # all its bytes where it starts
                r[2] += e.bytes
        if d == 0:
            continue
        a = max(s, lo)        # the part inside the window
        b = f if hi is None else min(f, hi)
        if a >= b:
            continue
        k = math.floor(Fraction(a) / w)
        while a < b:
            edge = min((k + 1) * w, b)
            r = row(k)
            r[1] += edge - a
            if e.bytes:
                r[2] += (e.bytes * (edge - s)) // d - (e.bytes * (a - s)) // d
            a = edge
            k += 1
    first, last = bin_count(lo, max(wend, lo), w)
    if last - first <= MAX_ROWS_EMPTY:
        for k in range(first, last):
            row(k)
    out = {}
    for k, (c, t, b) in bins.items():
        t = exact(t)
        out[time_key(k * w)] = [c, t if isinstance(t, int) else float(t), b]
    return out


NUMBER = re.compile(r"^(-?)([0-9]+)(?:\.([0-9]+))?$")


def sort_key(k):
    """The documented key order: the empty key, then keys that are plain
    decimal numbers by value (exactly, at any length), then the rest by
    their bytes; equal numbers ("1", "01") by their bytes."""
    raw = k.encode("utf-8", "dfnav_ref")
    if not k:
        return (0, 0, (), raw)
    m = NUMBER.match(k)
    if not m:
        return (2, 0, (), raw)
    value = Fraction(int(m.group(2)) * 10 ** len(m.group(3) or "") + int(m.group(3) or "0"),
                     10 ** len(m.group(3) or ""))
    if m.group(1):
        value = -value
    return (1, value, (), raw)


def fmt_time(us):
    return "%.6f" % (us / 1e6) if isinstance(us, float) else "%d.%06d" % divmod(us, 1000000)


def write_csv(dim, rows, out):
    w = csv.writer(out, lineterminator="\r\n")
    w.writerow([dim, "count", "time_s", "bytes"])
    for k in sorted(rows, key=sort_key):
        c, t, b = rows[k]
        w.writerow([k, c, fmt_time(t), b])


# ---------------------------------------------------------------- checking

def same_time(got, want_us):
    """dfnav's time_s (text) against the reference's sum of microseconds.
    Whole microseconds below 2^53 (a double holds them exactly) must print
    exactly, to the microsecond; other sums (fractional durations, beyond
    2^53 us) may differ by 1e-6 relative and dfnav's rounding to 6 digits."""
    if isinstance(want_us, int) and want_us < (1 << 53):
        return got == fmt_time(want_us)
    want = want_us / 1e6
    try:
        return abs(float(got) - want) <= 1e-6 * abs(want) + 5.1e-7
    except ValueError:
        return False


def check(dim, csv_path, rows, column=None):
    """Compare dfnav's CSV with the reference rows; print every mismatch.
    COLUMN is the name of the key column (DIM unless given)."""
    with open(csv_path, "rb") as fh:
        text = fh.read().decode("utf-8", "surrogateescape")
    table = list(csv.reader(io.StringIO(text, newline="")))
    problems = []

    def bad(msg):
        problems.append("%s: %s" % (dim, msg))

    if not table:
        bad("dfnav printed nothing")
        return problems
    want_header = [column or dim, "count", "time_s", "bytes"]
    if table[0] != want_header:
        bad("header: dfnav %r, reference %r" % (table[0], want_header))
        return problems
    seen = {}
    order = []
    for r in table[1:]:
        if len(r) != 4:
            bad("malformed dfnav row %r" % (r,))
            continue
        if r[0] in seen:
            bad("key %r: printed twice by dfnav" % r[0])
        seen[r[0]] = r[1:]
        order.append(r[0])
    for k in sorted(set(rows) | set(seen), key=sort_key):
        if k not in seen:
            c, t, b = rows[k]
            bad("key %r: dfnav has no row; reference count=%d time_s=%s bytes=%d"
                % (k, c, fmt_time(t), b))
            continue
        if k not in rows:
            bad("key %r: reference has no row; dfnav count=%s time_s=%s bytes=%s"
                % (k, *seen[k]))
            continue
        c, t, b = rows[k]
        dc, dt, db = seen[k]
        if dc != str(c):
            bad("key %r: count dfnav=%s reference=%d" % (k, dc, c))
        if not same_time(dt, t):
            bad("key %r: time_s dfnav=%s reference=%s" % (k, dt, fmt_time(t)))
        if db != str(b):
            bad("key %r: bytes dfnav=%s reference=%d" % (k, db, b))
    if not problems and order != sorted(order, key=sort_key):
        bad("rows of --sort key are not in key order (empty, numbers by value, then bytes)")
    return problems


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--by", help="func, file, own.NAME or time: print the reference CSV")
    ap.add_argument("--bin", metavar="SECONDS",
                    help="width of the time bins (default: 1, 2 or 5 x 10^n s, at most 60 bins)")
    ap.add_argument("--window", metavar="A:B",
                    help="time window [A, B) in seconds from the trace start "
                         "(dfnav --where 'time>=A time<B'); A or B may be left out")
    ap.add_argument("--check", action="append", default=[], metavar="DIM=CSV",
                    help="compare dfnav's CSV for DIM with the reference")
    ap.add_argument("--label", default="", help="prefix for mismatch messages")
    ap.add_argument("paths", nargs="+", metavar="PATH")
    a = ap.parse_args(argv)
    if not a.by and not a.check:
        ap.error("give --by DIM or --check DIM=CSV")
    stats = {}
    events = load(a.paths, stats)
    for msg in stats.get("errors", []):
        print("dfnav_ref.py: %s" % msg, file=sys.stderr)

    done = {}

    def rows_of(dim):     # (key column, rows), once a dimension
        if dim not in done:
            spec = TimeSpec.parse(dim, a.bin, a.window)
            if spec is not None:
                done[dim] = "time", time_bins(events, spec)
            else:
                done[dim] = dim, group(events, dim)
        return done[dim]

    if a.by:
        out = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8",
                               errors="dfnav_ref", newline="")
        column, rows = rows_of(a.by)
        write_csv(column, rows, out)
        out.flush()
        out.detach()
    status = 0
    label = a.label + " " if a.label else ""
    for spec in a.check:
        dim, sep, path = spec.partition("=")
        if not sep:
            ap.error("--check wants DIM=CSV, got %r" % spec)
        column, rows = rows_of(dim)
        problems = check(dim, path, rows, column)
        print("%s %s %s" % ("not ok" if problems else "ok", dim, path))
        for p in problems[:20]:
            print("MISMATCH %s%s (%s)" % (label, p, path))
        if len(problems) > 20:
            print("MISMATCH %s%s: %d more (%s)" % (label, dim, len(problems) - 20, path))
        if problems:
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
