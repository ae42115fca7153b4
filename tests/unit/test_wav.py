"""read_wav on files of every kind (PCM 8-32 bit, float, extensible, cut short, sox-made) and on bad ones."""

from __future__ import annotations

import shutil
import struct
import subprocess

import numpy as np
import pytest

from appliance.audio import AudioChunk, read_wav
from appliance.audio.mic import WavSource
from appliance.errors import BadInput, InputMissing
from tests.fixtures.speech import save
from tests.fixtures.wav_kinds import (
    FORMAT_PCM,
    KINDS,
    chunk,
    encode,
    fmt_chunk,
    riff,
    sine,
    step,
    wav_bytes,
    write_kind,
)


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize(("rate", "channels"), [(16000, 1), (44100, 2), (8000, 6)])
def test_every_kind_reads_back_the_samples_written(tmp_path, kind, rate, channels) -> None:
    written = sine(0.25, rate, channels)
    audio = read_wav(write_kind(tmp_path / "a.wav", written, rate, kind))
    assert (audio.rate, audio.channels, audio.frames) == (rate, channels, len(written))
    got = audio.to_float()
    expected = written.reshape(-1, channels)
    assert got.shape == expected.shape
    assert np.max(np.abs(got - expected)) <= step(kind)  # rounding to the nearest step, plus float32's own


def test_full_scale_and_beyond_in_float_clips_and_nan_is_silence(tmp_path) -> None:
    written = np.array([1.0, -1.0, 1.5, -3.0, np.nan, 0.5], dtype=np.float32)
    got = read_wav(write_kind(tmp_path / "f.wav", written, 16000, "f32")).to_float()[:, 0]
    assert got == pytest.approx([1.0, -1.0, 1.0, -1.0, 0.0, 0.5], abs=1e-6)


def test_eight_bit_is_unsigned_and_24_bit_keeps_its_sign() -> None:
    assert AudioChunk(bytes([0, 128, 255]), 8000, 1).to_float()[:, 0] == pytest.approx([-1.0, 0.0, 127 / 128])
    low_high = b"\x00\x00\x80" + b"\xff\xff\xff" + b"\x01\x00\x00" + b"\xff\xff\x7f"
    assert AudioChunk(low_high, 8000, 3).to_float()[:, 0] == pytest.approx(
        [-1.0, -(2.0**-23), 2.0**-23, 1 - 2.0**-23], abs=1e-9)
    assert AudioChunk(low_high, 8000, 3).to_int16().tolist() == [-32768, 0, 0, 32767]


@pytest.mark.parametrize("kind", ["u8", "s16", "s24", "s32", "f32", "ext-s24", "f64"])
def test_a_last_sample_cut_short_is_dropped_and_the_rest_read(tmp_path, kind) -> None:
    written = sine(0.1, 22050, 2)
    whole = wav_bytes(written, 22050, kind)
    frame = 2 * KINDS[kind][1] // 8
    for cut in (1, frame + 1, frame + frame // 2):  # a byte short, a frame and a byte, half a frame more
        (tmp_path / "cut.wav").write_bytes(whole[:-cut])
        audio = read_wav(tmp_path / "cut.wav")  # its header still says the whole length
        assert audio.frames == len(written) - -(-cut // frame), cut  # the frames that are whole
        assert np.max(np.abs(audio.to_float() - written[: audio.frames])) <= step(kind)


def test_a_data_chunk_of_odd_length_and_another_that_says_more_than_is_there(tmp_path) -> None:
    odd = riff(fmt_chunk(FORMAT_PCM, 1, 8000, 16), chunk(b"data", b"\x01\x00\x02"))  # 1.5 samples, padded
    (tmp_path / "odd.wav").write_bytes(odd)
    assert read_wav(tmp_path / "odd.wav").samples == b"\x01\x00"
    body = encode(sine(0.05, 8000), "s16")
    says_more = riff(fmt_chunk(FORMAT_PCM, 1, 8000, 16), chunk(b"data", body, size=10**8))
    (tmp_path / "long.wav").write_bytes(says_more)
    assert read_wav(tmp_path / "long.wav").samples == body


def test_chunks_in_any_order_with_padding_and_a_streamed_header(tmp_path) -> None:
    """Other chunks before fmt and data, an odd-sized one padded, fmt after data, and a data size
    left at 0xFFFFFFFF by a writer that streamed to a pipe (ffmpeg does)."""
    written = sine(0.05, 16000, 2)
    pcm = encode(written, "s24")
    fmt = fmt_chunk(FORMAT_PCM, 2, 16000, 24)
    layouts = {
        "list-first": riff(chunk(b"LIST", b"INFOISFT\x03\x00\x00\x00ab\x00"), fmt, chunk(b"data", pcm)),
        "fmt-after-data": riff(chunk(b"data", pcm), chunk(b"junk", b"x" * 7), fmt),
        "streamed": riff(fmt, chunk(b"data", pcm, size=0xFFFFFFFF)),
    }
    for name, data in layouts.items():
        (tmp_path / f"{name}.wav").write_bytes(data)
        audio = read_wav(tmp_path / f"{name}.wav")
        assert audio.frames == len(written), name
        assert np.max(np.abs(audio.to_float() - written)) <= step("s24"), name


def test_an_rf64_file_reads_its_data_size_from_ds64(tmp_path) -> None:
    pcm = encode(sine(0.05, 16000), "s16")
    ds64 = chunk(b"ds64", struct.pack("<QQQI", 0, len(pcm), len(pcm) // 2, 0))
    body = b"WAVE" + ds64 + fmt_chunk(FORMAT_PCM, 1, 16000, 16) + chunk(b"data", pcm, size=0xFFFFFFFF) \
        + chunk(b"LIST", b"INFO")
    (tmp_path / "rf64.wav").write_bytes(b"RF64" + struct.pack("<I", 0xFFFFFFFF) + body)
    assert read_wav(tmp_path / "rf64.wav").samples == pcm  # the LIST after the data is not audio


SOX_KINDS = {  # sox's options -> the kind it writes (sox chooses the header: extensible above 16 bits)
    ("-b", "8"): "u8", ("-b", "24"): "s24", ("-b", "32"): "s32",
    ("-e", "floating-point", "-b", "32"): "f32", ("-e", "floating-point", "-b", "64"): "f64",
    ("-c", "2", "-e", "floating-point", "-b", "32"): "f32", ("-c", "3", "-b", "24"): "s24",
}


@pytest.mark.parametrize("options", list(SOX_KINDS), ids=lambda o: "".join(o))
def test_files_sox_writes_read_back_as_the_16_bit_original(tmp_path, options) -> None:
    """A writer that is not ours: sox widens a 16-bit sine without loss, so every sample comes back."""
    sox = shutil.which("sox")
    if sox is None:
        pytest.skip("sox is not installed (apt-get install sox)")
    original = save(tmp_path / "in.wav", sine(0.2, 22050), 22050)
    subprocess.run([sox, "-D", str(original), *options, str(tmp_path / "out.wav")], check=True, timeout=60)
    expected = read_wav(original).to_float()[:, 0]
    audio = read_wav(tmp_path / "out.wav")
    assert (audio.rate, audio.frames) == (22050, len(expected))
    for channel in audio.to_float().T:  # sox copies the mono sine into every channel
        assert np.max(np.abs(channel - expected)) <= step(SOX_KINDS[options])


@pytest.mark.parametrize("kind", ["u8", "s24", "s32", "f32", "ext-f32", "f64"])
def test_wav_source_gives_the_same_16k_mono_as_from_16_bit(tmp_path, kind) -> None:
    """Any rate, channels and width go through the down-mix and soxr to 16 kHz mono int16."""
    written = sine(0.5, 48000, 2, amplitude=0.5)
    def heard(path, kind: str) -> np.ndarray:
        return np.concatenate([c.to_int16() for c in WavSource(write_kind(path, written, 48000, kind))])

    reference, got = heard(tmp_path / "r.wav", "s16"), heard(tmp_path / "k.wav", kind)
    assert got.dtype == np.dtype("<i2") and len(got) == len(reference) == 7 * 1280  # 0.5 s in 80 ms chunks
    tolerance = 2 if kind != "u8" else 2 * 32768 * step("u8")
    assert np.max(np.abs(got.astype(int) - reference.astype(int))) <= tolerance


def test_a_file_with_no_samples_is_read_as_silence_of_no_length(tmp_path) -> None:
    (tmp_path / "none.wav").write_bytes(riff(fmt_chunk(FORMAT_PCM, 2, 44100, 24), chunk(b"data", b"")))
    assert read_wav(tmp_path / "none.wav").frames == 0
    assert list(WavSource(tmp_path / "none.wav")) == []


BAD = {
    "text": (b"hello, this is not audio\n", "not a WAV file"),
    "empty": (b"", "is empty"),
    "flac": (b"fLaC\x00\x00\x00\x22" + b"\0" * 40, "a FLAC file"),
    "aiff": (b"FORM\x00\x00\x00\x10AIFFCOMM", "an AIFF file"),
    "avi": (b"RIFF\x04\x00\x00\x00AVI ", "a RIFF file of type b'AVI '"),
    "mu-law": (riff(fmt_chunk(0x0007, 1, 8000, 8), chunk(b"data", b"\xff" * 100)),
               "mu-law (WAV format tag 0x0007)"),
    "adpcm": (riff(fmt_chunk(0x0011, 1, 8000, 4), chunk(b"data", b"\0" * 100)), "IMA ADPCM"),
    "unknown-tag": (riff(fmt_chunk(0x1234, 1, 8000, 16), chunk(b"data", b"\0" * 100)), "an unknown encoding"),
    "ext-mu-law": (riff(fmt_chunk(0x0007, 1, 8000, 8, extensible=True), chunk(b"data", b"\0" * 10)),
                   "mu-law"),
    "ext-unknown-guid": (riff(fmt_chunk(1, 1, 8000, 16, extensible=True, sub_guid=b"\x01" * 16),
                              chunk(b"data", b"\0" * 10)), "unknown sub-format"),
    "ext-short": (riff(chunk(b"fmt ", struct.pack("<HHIIHH", 0xFFFE, 1, 8000, 16000, 2, 16)),
                       chunk(b"data", b"\0" * 10)), "WAVE_FORMAT_EXTENSIBLE"),
    "no-data": (riff(fmt_chunk(FORMAT_PCM, 1, 8000, 16), chunk(b"LIST", b"INFO")), "no data chunk"),
    "no-fmt": (riff(chunk(b"data", b"\0" * 100)), "no fmt chunk"),
    "header-only": (b"RIFF\x24\x00\x00\x00WAVE", "no fmt chunk"),
    "short-fmt": (riff(chunk(b"fmt ", b"\x01\x00\x01\x00"), chunk(b"data", b"\0" * 10)),
                  "fmt chunk of 4 bytes"),
    "zero-channels": (riff(fmt_chunk(FORMAT_PCM, 0, 8000, 16), chunk(b"data", b"\0" * 100)), "0 channels"),
    "zero-rate": (riff(fmt_chunk(FORMAT_PCM, 1, 0, 16), chunk(b"data", b"\0" * 100)), "0 Hz"),
    "48-bit": (riff(fmt_chunk(FORMAT_PCM, 1, 8000, 48), chunk(b"data", b"\0" * 120)), "48-bit PCM"),
    "16-bit-float": (riff(fmt_chunk(0x0003, 1, 8000, 16), chunk(b"data", b"\0" * 100)), "16-bit float"),
}


@pytest.mark.parametrize("name", list(BAD))
def test_what_cannot_be_read_says_which_file_and_why(tmp_path, name) -> None:
    data, why = BAD[name]
    path = tmp_path / f"{name}.wav"
    path.write_bytes(data)
    with pytest.raises(BadInput) as caught:
        read_wav(path)
    assert str(path) in str(caught.value) and why in str(caught.value)


def test_a_missing_file_or_a_folder_is_missing_input(tmp_path) -> None:
    with pytest.raises(InputMissing, match="WAV file not found: .*nope.wav"):
        read_wav(tmp_path / "nope.wav")
    with pytest.raises(InputMissing, match="is a folder"):
        read_wav(tmp_path)
