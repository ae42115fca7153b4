"""Reading WAV files of every common kind (PCM 8-32 bit, float 32/64, extensible, RF64) into an AudioChunk."""

from __future__ import annotations

import logging
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np

from appliance.chunk import AudioChunk
from appliance.errors import BadInput, InputMissing

_LOGGER = logging.getLogger(__name__)

FORMAT_PCM: Final = 0x0001
FORMAT_IEEE_FLOAT: Final = 0x0003
FORMAT_EXTENSIBLE: Final = 0xFFFE
# The 14 bytes after the format tag in every standard WAVE_FORMAT_EXTENSIBLE sub-format GUID.
_GUID_TAIL: Final = b"\x00\x00\x00\x00\x10\x00\x80\x00\x00\xaa\x00\x38\x9b\x71"
_UNSIZED: Final = 0xFFFFFFFF  # a data size RF64 puts in ds64, and some streaming writers leave unset

# Format tags people meet, so that a refusal can say what the file is.
_CODECS: Final = {
    0x0002: "Microsoft ADPCM", 0x0006: "A-law", 0x0007: "mu-law", 0x0011: "IMA ADPCM",
    0x0031: "GSM 6.10", 0x0050: "MPEG audio", 0x0055: "MP3", 0x00FF: "AAC", 0x1610: "AAC",
    0x2000: "AC-3", 0x674F: "Ogg Vorbis", 0xF1AC: "FLAC",
}
# What a file that is not a RIFF WAV starts with, so that a refusal can say what it looks like.
_MAGIC: Final = {
    b"RIFX": "a big-endian WAV (RIFX)", b"FORM": "an AIFF file", b"fLaC": "a FLAC file",
    b"OggS": "an Ogg file (Vorbis or Opus)", b"ID3": "an MP3 file", b"\xff\xfb": "an MP3 file",
    b"\xff\xf3": "an MP3 file", b"\x1aE\xdf\xa3": "a WebM/Matroska file", b"caff": "a Core Audio file",
    b".snd": "a Sun/NeXT .au file",
}
_CONVERT: Final = "convert it with `sox {name} -r 16000 -c 1 -b 16 out.wav`"


@dataclass(frozen=True)
class WavFormat:
    """What a WAV's fmt chunk says, reduced to what reading the samples needs."""

    tag: int  # FORMAT_PCM or FORMAT_IEEE_FLOAT (an extensible file's sub-format)
    channels: int
    rate: int  # Hz
    width: int  # bytes per sample, one channel


def read_wav(path: str | Path) -> AudioChunk:
    """A whole WAV file as one AudioChunk: integer PCM in its own width (8-bit unsigned, 16, 24, 32),
    float samples as int32; a last frame cut short is dropped. Raises InputMissing or BadInput."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputMissing(f"WAV file not found: {path}") from None
    except IsADirectoryError:
        raise InputMissing(f"{path} is a folder, not a WAV file") from None
    except OSError as exc:
        raise InputMissing(f"WAV file {path} cannot be read: {exc.strerror or exc}") from None
    return parse_wav(data, str(path))


def parse_wav(data: bytes, name: str) -> AudioChunk:
    """The samples in the WAV file `data` (named `name` in errors) as one AudioChunk."""
    fmt, samples = _chunks(data, name)
    frame = fmt.width * fmt.channels
    cut = len(samples) % frame
    if cut:
        _LOGGER.info("%s: the audio ends in part of a sample frame (%d of %d bytes): dropped",
                     name, cut, frame)
        samples = samples[: len(samples) - cut]
    if fmt.tag == FORMAT_PCM:
        return AudioChunk(bytes(samples), fmt.rate, fmt.width, fmt.channels)
    floats = np.frombuffer(samples, dtype="<f4" if fmt.width == 4 else "<f8")
    return AudioChunk(_float_to_int32(floats, name), fmt.rate, 4, fmt.channels)


def _float_to_int32(floats: np.ndarray, name: str) -> bytes:
    """Float samples as int32 bytes: [-1, 1] spans the int32 range, beyond it is clipped, NaN is silence."""
    floats = np.nan_to_num(floats, nan=0.0, posinf=1.0, neginf=-1.0)  # a copy, worked on in place
    if floats.size and (floats.max() > 1.0 or floats.min() < -1.0):
        _LOGGER.info("%s: float samples beyond [-1, 1] clipped", name)
    top = np.nextafter(floats.dtype.type(1.0), floats.dtype.type(0.0))  # times 2**31 still fits an int32
    np.clip(floats, -1.0, top, out=floats)
    floats *= 2147483648.0  # a power of two: exact in float32 as in float64
    return floats.astype("<i4").tobytes()


def _chunks(data: bytes, name: str) -> tuple[WavFormat, memoryview]:
    """The format and the sample bytes of the WAV in `data`, found by walking its RIFF chunks."""
    if not data:
        raise BadInput(f"{name} is empty (0 bytes), not a WAV file")
    if len(data) < 12 or data[:4] not in (b"RIFF", b"RF64", b"BW64") or data[8:12] != b"WAVE":
        looks = next((what for magic, what in _MAGIC.items() if data.startswith(magic)), None)
        if looks is None and data[:4] == b"RIFF":
            looks = f"a RIFF file of type {data[8:12]!r}"
        raise BadInput(f"{name} is not a WAV file ({looks or 'it does not start with a RIFF/WAVE header'}); "
                       + _CONVERT.format(name=Path(name).name))
    view = memoryview(data)
    fmt: WavFormat | None = None
    samples: memoryview | None = None
    data_size64: int | None = None  # RF64: the data chunk's real size, from the ds64 chunk
    pos = 12
    while pos + 8 <= len(data):
        chunk_id = bytes(view[pos:pos + 4])
        (size,) = struct.unpack_from("<I", data, pos + 4)
        body = pos + 8
        if chunk_id == b"data":
            if size == _UNSIZED and data_size64 is not None:
                size = data_size64
            end = body + size
            if size == _UNSIZED or end > len(data):  # unfinished header or a file cut short: what is there
                if size != _UNSIZED:
                    _LOGGER.info("%s: the data chunk says %d bytes, the file holds %d (cut short?): "
                                 "reading what is there", name, size, len(data) - body)
                end = len(data)
            samples = view[body:end]
            if fmt is not None:
                break
        elif chunk_id == b"fmt ":
            fmt = _format(view[body:min(body + size, len(data))], name)
            if samples is not None:
                break
        elif chunk_id == b"ds64" and size >= 16 and body + 16 <= len(data):
            (data_size64,) = struct.unpack_from("<Q", data, body + 8)
        pos = body + size + (size & 1)  # chunks are padded to an even length
    if fmt is None:
        raise BadInput(f"{name} has no fmt chunk: it does not say how its samples are stored, so it is not "
                       f"a WAV file that can be read")
    if samples is None:
        raise BadInput(f"{name} has no data chunk: there is no audio in it")
    return fmt, samples


def _format(body: memoryview, name: str) -> WavFormat:
    """The fmt chunk read and checked: every refusal names the file and what it holds instead."""
    if len(body) < 16:
        raise BadInput(f"{name} has a fmt chunk of {len(body)} bytes (at least 16 are needed): "
                       f"the file is damaged")
    tag, channels, rate, _byte_rate, _block_align, bits = struct.unpack_from("<HHIIHH", body)
    if tag == FORMAT_EXTENSIBLE:
        if len(body) < 40:
            raise BadInput(f"{name} says WAVE_FORMAT_EXTENSIBLE but its fmt chunk has {len(body)} bytes, "
                           f"not 40: the file is damaged")
        guid = bytes(body[24:40])
        if guid[2:] != _GUID_TAIL:
            raise BadInput(f"{name} is a WAVE_FORMAT_EXTENSIBLE file of an unknown sub-format (GUID "
                           f"{guid.hex()}); " + _CONVERT.format(name=Path(name).name))
        (tag,) = struct.unpack_from("<H", guid)
    if tag not in (FORMAT_PCM, FORMAT_IEEE_FLOAT):
        what = _CODECS.get(tag, "an unknown encoding")
        raise BadInput(f"{name} holds {what} (WAV format tag 0x{tag:04X}), not PCM or float samples; "
                       + _CONVERT.format(name=Path(name).name))
    if channels == 0:
        raise BadInput(f"{name} says it has 0 channels: the file is damaged")
    if rate == 0:
        raise BadInput(f"{name} says its sample rate is 0 Hz: the file is damaged")
    width = (bits + 7) // 8  # 20-bit samples, say, are stored in 3 bytes
    if tag == FORMAT_PCM and width not in (1, 2, 3, 4):
        raise BadInput(f"{name} holds {bits}-bit PCM samples; 8, 16, 24 and 32-bit can be read: "
                       + _CONVERT.format(name=Path(name).name))
    if tag == FORMAT_IEEE_FLOAT and bits not in (32, 64):
        raise BadInput(f"{name} holds {bits}-bit float samples; 32 and 64-bit can be read: "
                       + _CONVERT.format(name=Path(name).name))
    return WavFormat(tag, channels, rate, width)
