#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora, tests/fuzz/corpus/<target>/, deterministically.

Each corpus holds a few small valid files (so the fuzzer starts inside the format) and a few
invalid ones (one per kind of mistake the reader must refuse). Run it again after changing a
format; the files are committed, so CI never runs this. Standard library only.
"""
import gzip
import json
import os
import struct
import zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def write(target, name, data):
    d = os.path.join(ROOT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def gz(data):
    return gzip.compress(data, mtime=0)


# ---- IDX ---------------------------------------------------------------------------
def idx_labels(labels):
    return struct.pack(">II", 0x801, len(labels)) + bytes(labels)


def idx_images(count, rows, cols):
    pixels = bytes((i * 37) % 256 for i in range(count * rows * cols))
    return struct.pack(">IIII", 0x803, count, rows, cols) + pixels


def idx_corpus():
    labels = idx_labels([5, 0, 4, 1, 9])
    images = idx_images(2, 4, 3)
    write("idx", "labels-valid", labels)
    write("idx", "images-valid", images)
    write("idx", "labels-valid.gz", gz(labels))
    write("idx", "images-valid.gz", gz(images))
    write("idx", "two-members.gz", gz(images[:10]) + gz(images[10:]))
    write("idx", "images-truncated", images[:-1])
    write("idx", "labels-trailing-byte", labels + b"\x00")
    write("idx", "bad-magic", struct.pack(">II", 0x802, 1) + b"\x00")
    write("idx", "zero-items", struct.pack(">II", 0x801, 0))
    write("idx", "huge-side", struct.pack(">IIII", 0x803, 1, 5000, 1))
    write("idx", "gzip-truncated.gz", gz(images)[:-6])
    write("idx", "gzip-trailing-junk.gz", gz(labels) + b"junk")


# ---- CSV ---------------------------------------------------------------------------
def csv_corpus():
    write("csv", "valid", b"x0,x1,label\n0.5,1,0\n-2,3e-2,1\n4,5,2\n")
    write("csv", "quoted-bom-crlf", b'\xef\xbb\xbf"a, b",c,label\r\n"1",2,0\r\n\r\n" 3 ",4,1\r\n')
    write("csv", "label-first", b"label,f\n1,0.25\n0,0.75\n")
    write("csv", "not-a-number", b"a,label\nxyz,0\n")
    write("csv", "unclosed-quote", b'a,label\n"1,0\n')
    write("csv", "field-count", b"a,b,label\n1,2\n")
    write("csv", "label-out-of-range", b"a,label\n1,10000\n")
    write("csv", "infinite", b"a,label\ninf,0\n")
    write("csv", "header-only", b"a,label\n")
    write("csv", "one-column", b"label\n1\n")


# ---- safetensors -------------------------------------------------------------------
DTYPES = {"F32": ("f", 4), "I32": ("i", 4), "I8": ("b", 1), "U8": ("B", 1)}
RANK = {"U8": 0, "I8": 1, "I32": 2, "F32": 3}


def safetensors(tensors, metadata=None, checksum=False):
    """tensors: {name: (dtype, shape, values)}; laid out as seatorch's writer does."""
    order = sorted(tensors, key=lambda n: (-RANK[tensors[n][0]], n))
    data = b""
    header = {}
    if metadata or checksum:
        header["__metadata__"] = dict(metadata or {})
    entries = {}
    for name in order:
        dtype, shape, values = tensors[name]
        fmt, _ = DTYPES[dtype]
        raw = struct.pack("<%d%s" % (len(values), fmt), *values)
        entries[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    if checksum:
        header["__metadata__"]["data_crc32"] = "%08x" % (zlib.crc32(data) & 0xFFFFFFFF)
    header.update(entries)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + data


def float_checkpoint():
    return {
        "0.weight": ("F32", [3, 2], [0.5, -1.0, 0.25, 2.0, -0.5, 1.5]),
        "0.bias": ("F32", [3], [0.0, 0.1, -0.1]),
        "2.weight": ("F32", [2, 3], [1.0, -1.0, 0.5, 0.5, 0.25, -2.0]),
        "2.bias": ("F32", [2], [0.0, 0.0]),
    }


def safetensors_corpus():
    meta = {"format": "pt", "architecture": "2-3-2", "activation": "relu"}
    good = safetensors(float_checkpoint(), meta, checksum=True)
    write("safetensors", "checkpoint-checksummed", good)
    write("safetensors", "checkpoint-plain", safetensors(float_checkpoint(), meta))
    write("safetensors", "every-dtype", safetensors({
        "f": ("F32", [2], [1.5, -2.0]), "i": ("I32", [], [-7]), "b": ("I8", [3], [-128, 0, 127]),
        "u": ("U8", [1, 2], [0, 255]), "empty": ("F32", [0, 4], [])}))
    write("safetensors", "empty", b"\x02\x00\x00\x00\x00\x00\x00\x00{}")
    flipped = bytearray(good)
    flipped[-3] ^= 0x01
    write("safetensors", "checksum-mismatch", bytes(flipped))
    write("safetensors", "truncated", good[:-4])
    write("safetensors", "header-past-end", struct.pack("<Q", 1000) + b"{}")
    write("safetensors", "overlap", raw_safetensors(
        b'{"a":{"dtype":"I32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"I32","shape":[1],"data_offsets":[4,8]}}',
        b"\x00" * 8))
    write("safetensors", "bad-dtype", raw_safetensors(b'{"t":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}}',
                                                      b"\x00" * 8))
    write("safetensors", "nested-shape", raw_safetensors(
        b'{"t":{"dtype":"U8","shape":[[[[[[1]]]]]],"data_offsets":[0,1]}}', b"\x00"))


def raw_safetensors(header, data):
    """A file from a hand-written header, for layouts the writer above would not produce."""
    return struct.pack("<Q", len(header)) + header + data


# ---- int8 model --------------------------------------------------------------------
def int8_model(version="1", multiplier=1 << 30):
    """A valid 4-3-2 int8 model: per-tensor first layer, per-channel second."""
    s_x, s_h, s_y = 1.0 / 255.0, 0.05, 0.1
    layers = [
        dict(inp=4, out=3, w=[1, -2, 3, -4, 5, -6, 7, -8, 9, -10, 11, -12], b=[10, -20, 30],
             wscale=[0.01], sx=s_x, sy=s_h, zx=-128, zw=3, zy=-128, relu=1),
        dict(inp=3, out=2, w=[20, -30, 40, -50, 60, -70], b=[100, -100],
             wscale=[0.02, 0.03], sx=s_h, sy=s_y, zx=-128, zw=0, zy=5, relu=0),
    ]
    tensors = {}
    for k, l in enumerate(layers):
        p = "layers.%d." % k
        tensors[p + "weight"] = ("I8", [l["out"], l["inp"]], l["w"])
        tensors[p + "bias"] = ("I32", [l["out"]], l["b"])
        tensors[p + "multiplier"] = ("I32", [l["out"]], [multiplier] * l["out"])
        tensors[p + "shift"] = ("I32", [l["out"]], [7] * l["out"])
        tensors[p + "weight_scale"] = ("F32", [len(l["wscale"])], l["wscale"])
        tensors[p + "input_scale"] = ("F32", [], [l["sx"]])
        tensors[p + "output_scale"] = ("F32", [], [l["sy"]])
        tensors[p + "input_zero_point"] = ("I32", [], [l["zx"]])
        tensors[p + "weight_zero_point"] = ("I32", [], [l["zw"]])
        tensors[p + "output_zero_point"] = ("I32", [], [l["zy"]])
        tensors[p + "relu"] = ("U8", [], [l["relu"]])
    meta = {"format": "seatorch-int8", "format_version": version, "architecture": "4-3-2"}
    return tensors, meta


def int8_corpus():
    tensors, meta = int8_model()
    write("int8_file", "model-valid", safetensors(tensors, meta, checksum=True))
    write("int8_file", "model-valid-plain", safetensors(tensors, meta))
    bad_version = dict(meta, format_version="2")
    write("int8_file", "wrong-version", safetensors(tensors, bad_version))
    t, m = int8_model(multiplier=(1 << 30) - 1)
    write("int8_file", "multiplier-out-of-range", safetensors(t, m))
    missing = dict(tensors)
    del missing["layers.1.shift"]
    write("int8_file", "missing-tensor", safetensors(missing, meta))
    chain = dict(tensors)
    chain["layers.1.input_zero_point"] = ("I32", [], [0])
    write("int8_file", "layers-do-not-chain", safetensors(chain, meta))
    write("int8_file", "float-checkpoint", safetensors(float_checkpoint(), {"format": "pt"}))
    # Regression: a 1-1 model at every bound at once. At pixel 255 its accumulator is exactly
    # INT32_MAX, srdhm with M = 2^31 - 1 gives 2^31 - 2, and adding z_y = 127 overflowed int32
    # in requantize; the reader now keeps |bias| 255 further from the limit and refuses it.
    one = {"layers.0.weight": ("I8", [1, 1], [127]), "layers.0.bias": ("I32", [1], [2**31 - 1 - 255 * 255]),
           "layers.0.multiplier": ("I32", [1], [2**31 - 1]), "layers.0.shift": ("I32", [1], [0]),
           "layers.0.weight_scale": ("F32", [1], [0.01]), "layers.0.input_scale": ("F32", [], [1.0 / 255.0]),
           "layers.0.output_scale": ("F32", [], [0.1]), "layers.0.input_zero_point": ("I32", [], [-128]),
           "layers.0.weight_zero_point": ("I32", [], [-128]), "layers.0.output_zero_point": ("I32", [], [127]),
           "layers.0.relu": ("U8", [], [0])}
    write("int8_file", "requantize-extremes", safetensors(one, dict(meta, architecture="1-1"), checksum=True))
    one["layers.0.bias"] = ("I32", [1], [2**31 - 1 - 255 * 255 - 255])  # at the limit: accepted
    write("int8_file", "requantize-at-limit", safetensors(one, dict(meta, architecture="1-1"), checksum=True))


# ---- NPU image (.hex), its manifest, frames -----------------------------------------
# The layout of docs/NPU.md ("The model image", "Layer descriptors"), written here a second
# time from the document, so the valid seeds also cross-check src/npu/image.cpp.
LANES = 16
REGION = {"header": 0x0, "bias": 0x1, "multiplier": 0x2, "shift": 0x3, "weights": 0x4}
CRC_ADDRESS = 0xF << 20


def u32(v):
    return v & 0xFFFFFFFF


def npu_layers():
    """The 4-3-2 model of int8_model(), as the NPU sees it (no scales)."""
    return [
        dict(inp=4, out=3, w=[1, -2, 3, -4, 5, -6, 7, -8, 9, -10, 11, -12], b=[10, -20, 30], zx=-128, zw=3, zy=-128,
             relu=1),
        dict(inp=3, out=2, w=[20, -30, 40, -50, 60, -70], b=[100, -100], zx=-128, zw=0, zy=5, relu=0),
    ]


def npu_image(layers, version=1, multiplier=1 << 30, shift=7):
    """(sections as [(name, address, words)], crc, layer table for the manifest)."""
    header = [0x55504E53, version | LANES << 16 | len(layers) << 24, layers[0]["inp"] | layers[-1]["out"] << 16, 0]
    bias, mult, shifts, weights, table = [], [], [], [], []
    for l in layers:
        groups = (l["out"] + LANES - 1) // LANES
        d = dict(w_base=len(weights) // (LANES // 4), row_base=len(bias), weight_rows=groups * l["inp"])
        header += [l["inp"] | l["out"] << 16, d["w_base"], d["row_base"],
                   (l["zx"] & 0xFF) | (l["zw"] & 0xFF) << 8 | (l["zy"] & 0xFF) << 16 | l["relu"] << 24]
        bias += [u32(b) for b in l["b"]]
        mult += [multiplier] * l["out"]
        shifts += [shift] * l["out"]
        for g in range(groups):
            for i in range(l["inp"]):
                for bank in range(LANES // 4):
                    word = 0
                    for k in range(4):
                        j = g * LANES + 4 * bank + k
                        w = l["w"][j * l["inp"] + i] if j < l["out"] else 0
                        word |= (w & 0xFF) << (8 * k)
                    weights.append(word)
        table.append(dict(l, **d))
    sections = [(name, REGION[name] << 20, words) for name, words in
                [("header", header), ("bias", bias), ("multiplier", mult), ("shift", shifts), ("weights", weights)]]
    return sections, image_crc(sections), table


def image_crc(sections):
    data = b"".join(struct.pack("<%dI" % len(words), *words) for _, _, words in sections)
    return zlib.crc32(data) & 0xFFFFFFFF


def hex_text(sections, crc, comments=True, newline="\n"):
    lines = ["// seatorch NPU image (fuzz seed)"] if comments else []
    for name, address, words in sections:
        if comments:
            lines.append("// section %s: %d words at 0x%06x" % (name, len(words), address))
        lines.append("@%06x" % address)
        lines += ["%08x" % w for w in words]
    lines += ["@%06x" % CRC_ADDRESS, "%08x" % crc]
    return (newline.join(lines) + newline).encode()


def manifest(sections, crc, table):
    return {
        "format": "seatorch-npu-image", "format_version": 1, "lanes": LANES,
        "architecture": "-".join(str(n) for n in [table[0]["inp"]] + [l["out"] for l in table]),
        "input_size": table[0]["inp"], "output_size": table[-1]["out"],
        "total_words": sum(len(w) for _, _, w in sections),
        "macs": sum(l["inp"] * l["out"] for l in table),
        "crc32": crc, "crc32_hex": "0x%08x" % crc,
        "sections": [dict(name=n, address=a, words=len(w)) for n, a, w in sections] +
                    [dict(name="crc", address=CRC_ADDRESS, words=1)],
        "layers": [dict((k, l[k]) for k in ("w_base", "weight_rows", "row_base")) |
                   {"in": l["inp"], "out": l["out"], "relu": bool(l["relu"]), "input_zero_point": l["zx"],
                    "weight_zero_point": l["zw"], "output_zero_point": l["zy"], "macs": l["inp"] * l["out"]}
                   for l in table],
    }


def with_words(sections, name, change):
    """A copy of the sections with `change(words)` applied to section `name`."""
    return [(n, a, change(list(w)) if n == name else w) for n, a, w in sections]


def npu_hex_corpus():
    sections, crc, _ = npu_image(npu_layers())
    write("npu_hex", "valid.hex", hex_text(sections, crc))
    write("npu_hex", "valid-bare-crlf.hex", hex_text(sections, crc, comments=False, newline="\r\n"))
    write("npu_hex", "crc-mismatch.hex", hex_text(sections, crc ^ 1))
    write("npu_hex", "truncated.hex", hex_text(sections, crc)[:-30])
    write("npu_hex", "bad-digit.hex", hex_text(sections, crc).replace(b"55504e53", b"55504e5g"))
    s, c, _ = npu_image(npu_layers(), version=2)
    write("npu_hex", "version-2.hex", hex_text(s, c))
    s = with_words(sections, "header", lambda w: w[:5] + [1000] + w[6:])  # layer 0's w_base
    write("npu_hex", "weights-out-of-range.hex", hex_text(s, image_crc(s)))
    s = with_words(sections, "shift", lambda w: [32] + w[1:])
    write("npu_hex", "shift-32.hex", hex_text(s, image_crc(s)))
    # Regression: a bias that lets the reference's int32 accumulator overflow (row 0's
    # products reach -3570 below it); decode + int8_forward_ref was undefined behaviour.
    s = with_words(sections, "bias", lambda w: [0x80000000] + w[1:])
    write("npu_hex", "bias-overflow.hex", hex_text(s, image_crc(s)))


def npu_manifest_corpus():
    sections, crc, table = npu_image(npu_layers())
    good = manifest(sections, crc, table)
    dump = lambda m: json.dumps(m, indent=2).encode()
    write("npu_manifest", "valid.json", dump(good))
    write("npu_manifest", "other-image.json", dump(dict(good, crc32=crc ^ 1, crc32_hex="0x%08x" % (crc ^ 1))))
    write("npu_manifest", "bad-json.json", dump(good)[:-20])
    write("npu_manifest", "lanes-string.json", dump(dict(good, lanes="16")))
    bad_layer = dict(good["layers"][1], output_zero_point=200)
    write("npu_manifest", "zero-point-200.json", dump(dict(good, layers=[good["layers"][0], bad_layer])))
    write("npu_manifest", "total-words-wrong.json", dump(dict(good, total_words=good["total_words"] + 1)))
    write("npu_manifest", "unknown-field.json", dump(dict(good, note="hand-edited")))
    write("npu_manifest", "many-sections.json",
          dump(dict(good, sections=[good["sections"][0]] * 20 + [good["sections"][-1]])))


def frame(ftype, seq, payload):
    body = struct.pack("<BBH", ftype, seq, len(payload)) + bytes(payload)
    return b"\xa5\x5a" + body + struct.pack("<I", zlib.crc32(body) & 0xFFFFFFFF)


def escape(line):
    """The npu_frame target's input escaping: FE -> FE 00."""
    return line.replace(b"\xfe", b"\xfe\x00")


def npu_frame_corpus():
    ack, nak = 0x06, 0x15
    status = bytes([1, 16, 15, 1, 2, 0]) + struct.pack("<HHHIHHHH", 1024, 1024, 1024, 16384, 784, 10, 7, 1)
    result = struct.pack("<HI", 3, 4242) + bytes([0x80, 0x7F, 0x00, 0xFE, 0x12])
    write("npu_frame", "status-ack", b"\x00" + escape(frame(ack, 1, b"\x01" + status)))
    write("npu_frame", "infer-ack", b"\x00" + escape(frame(ack, 2, b"\x20" + result)))
    write("npu_frame", "nak-then-echo", b"\x00" + escape(frame(nak, 3, b"\x11\x01") + frame(ack, 4, b"\x02hello")))
    write("npu_frame", "noise-then-frame", b"\x00" + escape(b"\xa5\xa5\x00\x5a" + frame(ack, 5, b"\x10")))
    bad_crc = bytearray(frame(ack, 6, b"\x01" + status))
    bad_crc[-1] ^= 0x40
    write("npu_frame", "crc-error", b"\x00" + escape(bytes(bad_crc)))
    f = escape(frame(ack, 7, b"\x10"))
    write("npu_frame", "framing-error", b"\x00" + f[:5] + b"\xfe\x01" + f[5:])
    write("npu_frame", "length-error", b"\x00" + b"\xa5\x5a\x06\x08\xff\xff")
    write("npu_frame", "small-limit", b"\x84" + escape(frame(ack, 8, b"\x02hello")))
    write("npu_frame", "timeout-mid-frame", b"\x00" + f[:6] + b"\xfe\x02" + f)


# ---- pictures (PNG, BMP, JPEG through stb_image; PGM/PPM) ------------------------------
def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png(width, height, color_type, rows, bit_depth=8, palette=None, interlaced=False):
    """rows: the filtered scanlines (each starting with its filter byte), in pass order when
    interlaced."""
    ihdr = struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0, 1 if interlaced else 0)
    out = b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr)
    if palette:
        out += png_chunk(b"PLTE", palette)
    return out + png_chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) + png_chunk(b"IEND", b"")


def png_rows(width, height, samples_per_pixel, filt=0):
    return [bytes([filt] + [(x * 40 + y * 25 + c * 70) % 256 for x in range(width) for c in range(samples_per_pixel)])
            for y in range(height)]


ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def png_interlaced_rows(width, height):
    """An 8-bit gray image's scanlines in Adam7 pass order (filter 0)."""
    rows = []
    for x0, y0, dx, dy in ADAM7:
        for y in range(y0, height, dy):
            line = [(x * 31 + y * 17) % 256 for x in range(x0, width, dx)]
            if line:
                rows.append(bytes([0] + line))
    return rows


def bmp(width, height, bpp, pixel_rows, palette=b""):
    """Bottom-up rows of pixel bytes, each padded here to a multiple of 4 bytes."""
    stride = (width * bpp + 31) // 32 * 4
    data = b"".join(r + b"\x00" * (stride - len(r)) for r in pixel_rows)
    offset = 14 + 40 + len(palette)
    info = struct.pack("<IiiHHIIiiII", 40, width, height, 1, bpp, 0, len(data), 2835, 2835, len(palette) // 4, 0)
    return b"BM" + struct.pack("<IHHI", offset + len(data), 0, 0, offset) + info + palette + data


# stb_image_write's stbi_write_jpg of a 16 x 8 RGB pattern (sample i = (i * 29) % 256),
# quality 75: Python's standard library has no JPEG encoder.
JPEG_16X8 = bytes.fromhex(
    "ffd8ffe000104a46494600010100000100010000ffdb008400080606070605080707070909080a0c140d0c0b0b0c1912"
    "130f141d1a1f1e1d1a1c1c20242e2720222c231c1c2837292c30313434341f27393d38323c2e333432010909090c0b0c"
    "180d0d1832211c2132323232323232323232323232323232323232323232323232323232323232323232323232323232"
    "32323232323232323232ffc00011080008001003012200021101031101ffc401a2000001050101010101010000000000"
    "0000000102030405060708090a0b100002010303020403050504040000017d0102030004110512213141061351610722"
    "7114328191a1082342b1c11552d1f02433627282090a161718191a25262728292a3435363738393a434445464748494a"
    "535455565758595a636465666768696a737475767778797a838485868788898a92939495969798999aa2a3a4a5a6a7a8"
    "a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae1e2e3e4e5e6e7e8e9eaf1f2f3f4f5f6f7f8f9"
    "fa0100030101010101010101010000000000000102030405060708090a0b110002010204040304070504040001027700"
    "0102031104052131061241510761711322328108144291a1b1c109233352f0156272d10a162434e125f11718191a2627"
    "28292a35363738393a434445464748494a535455565758595a636465666768696a737475767778797a82838485868788"
    "898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae2"
    "e3e4e5e6e7e8e9eaf2f3f4f5f6f7f8f9faffda000c03010002110311003f0064821409340a8202aafe5c71a9548918f9"
    "607046d2dd31bd738da257cb07c6588f2e4de090d1b9312f563ba7272ddb80d96c7fcf4727f7755ecffe4076ff00f60a"
    "b1ff00d2d35766fb977feeeb1fcc52c54bd8349754dffe02aebfcbd0c154bf45fd7f5faee7ffd9")


def image_corpus():
    write("image", "gray-8x8.png", png(8, 8, 0, png_rows(8, 8, 1)))
    write("image", "rgba-4x4-paeth.png", png(4, 4, 6, png_rows(4, 4, 4, filt=4)))
    write("image", "gray16-3x3.png", png(3, 3, 0, png_rows(3, 3, 2), bit_depth=16))
    write("image", "palette-4x2.png", png(4, 2, 3, [bytes([0, 0, 1, 2, 1]), bytes([0, 2, 1, 0, 0])],
                                          palette=bytes([0, 0, 0, 255, 255, 255, 128, 64, 32])))
    write("image", "interlaced-9x9.png", png(9, 9, 0, png_interlaced_rows(9, 9), interlaced=True))
    good = png(8, 8, 2, png_rows(8, 8, 3))
    write("image", "truncated.png", good[:-20])
    write("image", "huge-header.png", png(100000, 100000, 0, [b"\x00"]))
    write("image", "bad-zlib.png", good[:45] + b"\xff\xff\xff" + good[48:])
    rgb = [bytes((x * 50 + y * 30 + c * 90) % 256 for x in range(5) for c in range(3)) for y in range(3)]
    write("image", "rgb-5x3.bmp", bmp(5, 3, 24, rgb))
    write("image", "palette-4x4.bmp", bmp(4, 4, 8, [bytes([y % 4, 1, 2, 3]) for y in range(4)],
                                          palette=bytes([0, 0, 0, 0, 255, 255, 255, 0, 10, 20, 30, 0, 90, 80, 70, 0])))
    write("image", "truncated.bmp", bmp(5, 3, 24, rgb)[:-7])
    write("image", "huge.bmp", bmp(5000, 1, 8, []))
    write("image", "rgb-16x8.jpg", JPEG_16X8)
    write("image", "truncated.jpg", JPEG_16X8[:400])
    write("image", "gray-3x2.pgm", b"P5\n# seed\n3 2\n255\n" + bytes([0, 100, 255, 30, 60, 90]))
    write("image", "gray16-2x1.pgm", b"P5 2 1 65535\n" + bytes([0x12, 0x34, 0xff, 0xff]))
    write("image", "rgb-2x2.ppm", b"P6\n2 2\n15\n" + bytes([15, 0, 0, 0, 15, 0, 0, 0, 15, 7, 7, 7]))
    write("image", "long-number.pgm", b"P5 99999999999 1 255\n\x00")
    write("image", "trailing.pgm", b"P5 1 1 255\n\x00\x00")
    write("image", "not-an-image.txt", b"3,1,4,1,5\n")


if __name__ == "__main__":
    idx_corpus()
    csv_corpus()
    safetensors_corpus()
    int8_corpus()
    npu_hex_corpus()
    npu_manifest_corpus()
    npu_frame_corpus()
    image_corpus()
