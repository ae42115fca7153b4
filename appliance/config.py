"""Configuration: frozen dataclasses per section, loaded from YAML with strict, humane validation
(config_validation.py checks the YAML against these dataclasses)."""

from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal

from appliance.config_validation import Problem, Validator, format_number
from appliance.config_validation import bounded as _f
from appliance.config_wyoming import SATELLITE_EXAMPLE as SATELLITE_EXAMPLE
from appliance.config_wyoming import WYOMING_EXAMPLE as WYOMING_EXAMPLE
from appliance.config_wyoming import SatelliteConfig as SatelliteConfig
from appliance.config_wyoming import WyomingConfig as WyomingConfig
from appliance.config_wyoming import check_wyoming
from appliance.config_wyoming import satellite_address as satellite_address
from appliance.config_wyoming import satellite_name as satellite_name
from appliance.config_wyoming import wyoming_address as wyoming_address
from appliance.errors import BadConfig
from appliance.language import DEFAULT as DEFAULT_LANGUAGE
from appliance.language import KNOWN as KNOWN_LANGUAGES

SYSTEM_CONFIG: Final = Path("/etc/appliance/appliance.yaml")
SHIPPED_CONFIG: Final = Path(__file__).resolve().parent.parent / "config" / "appliance.yaml"
ENV_VAR: Final = "APPLIANCE_CONFIG"
EMERGENCY_NUMBER: Final = re.compile(r"[0-9]{2,6}")


@dataclass(frozen=True)
class AudioConfig:
    input_device: str | int | None = None
    """Microphone: part of its name, its ALSA card id or a PortAudio index; null finds one (choose.py)."""
    output_device: str | int | None = None
    """Speaker: a name substring, an ALSA card id or a PortAudio index; null finds one (audio/choose.py)."""
    rate: int = _f(16000, 8000, 48000)
    """Hz the pipeline works at; wake word and ASR models are trained at 16 kHz."""
    chunk_ms: int = _f(80, 10, 500)
    """Milliseconds per microphone chunk; openWakeWord scores 80 ms frames."""
    queue_chunks: int = _f(64, 4, 10000)
    """Chunks the capture queue holds (64 x 80 ms = 5 s) before it counts overflows."""
    stall_timeout_s: float = _f(3.0, 0.5, 60)
    """Seconds without a frame before the microphone is declared lost and reopened."""
    retry_backoff_s: list[float] = _f([1.0, 2.0, 5.0, 10.0])  # noqa: RUF009 - a default_factory
    """Seconds between reopen attempts of a lost device; the last value repeats."""
    output_latency_ms: int = _f(40, 5, 1000)
    """Milliseconds of output buffering: low for a quick stop, high enough to never underrun."""
    speaker_rest_s: float = _f(30.0, 0.0, 86400)
    """Seconds with nothing played after which the speaker's stream closes (at once while nothing has been
    played since start-up), on a device measured to start playing within 0.15 s (plain ALSA); it opens
    again for the next sound. 0 keeps it open."""
    echo_cancel: bool = True
    """Remove the hub's own sound (answers, earcons, chimes) from the microphone, so "hey jarvis" and a
    plain "stop" at a normal level are heard while it speaks; runs only while something plays, idle
    costs nothing (bench/echo.py, tests/e2e/test_run_room.py)."""
    echo_engine: Literal["speex", "webrtc"] = "speex"
    """speex: Speex's linear echo canceller (libspeexdsp), which leaves the person's voice as it was;
    webrtc: WebRTC's AEC3, which removes more echo but takes a voice under it down too (bench/echo.py)."""
    echo_tail_s: float = _f(1.5, 0.2, 10.0)
    """Seconds after the last sound played that echo cancellation keeps running (the room's echo)."""


@dataclass(frozen=True)
class WakeConfig:
    model: str = "hey_jarvis"
    """Wake-word model: a bundled name (hey_jarvis) or a path to an .onnx file."""
    threshold: float = _f(0.5, 0.01, 1.0)
    """Score (0-1) above which the wake word fires; openWakeWord's recommended default."""
    barge_in_threshold: float = _f(0.6, 0.01, 1.0)
    """Higher score needed while the appliance speaks, so its own voice cannot wake it (bench/echo.py: with
    the canceller, recall under the hub's answer 0.86 at 0.6 against 0.82 at 0.8, no self-wakes)."""
    barge_in_phases: int = _f(4, 1, 4)
    """While the appliance speaks, the wake word is scored at this many placings of its 80 ms frames, evenly
    apart (through the echo canceller a barge-in's score depends on where they fall); each costs what the idle
    wake word does, only while it speaks. bench/echo.py, warm canceller: under an answer 0.775 with 1, 0.815
    with 2, 0.861 with 4 (0.847 in silence)."""
    patience_frames: int = _f(1, 1, 50)
    """Consecutive 80 ms frames above the threshold before it fires (2-3 cuts false wakes)."""
    refractory_s: float = _f(2.0, 0.0, 60)
    """Seconds before the wake word may fire again."""
    preroll_s: float = _f(0.3, 0.0, 3.0)
    """Seconds of audio before the detection handed to ASR, for a question begun before the detection
    fired; the recognizer starts it after the pause that follows the wake word (hearing/wake_end.py)."""
    onnx_threads: int = _f(1, 1, 8)
    """onnxruntime threads for the wake model; one is plenty for 80 ms frames."""
    quiet_gate: bool = True
    """Skip the wake word's models on the frames of a quiet room (the same detections, far less CPU)."""
    stop_words: bool = True
    """While the hub speaks or a timer, alarm or reminder rings, a plain "stop" ("cancel", "be quiet",
    "that's enough") ends it with no wake word; never listened for while the hub is idle."""


@dataclass(frozen=True)
class AsrConfig:
    engine: Literal["auto", "vosk", "whisper"] = "auto"
    """auto takes Vosk when its model is installed, else Whisper tiny.en."""
    vosk_model: str | None = _f(None, exists=True)
    """Path to a Vosk model folder; null resolves it from the models folder."""
    whisper_model: str | None = _f(None, exists=True)
    """Path to a CTranslate2 Whisper model folder; null resolves it from the models folder."""
    endpoint_silence_s: float = _f(0.6, 0.1, 5.0)
    """Seconds of trailing silence after speech that end the question."""
    early_silence_s: float = _f(0.2, 0.0, 5.0)
    """Seconds of silence after speech when a transcript is made early, before the question is
    confirmed over (less than endpoint_silence_s); 0 turns it off."""
    turn_detector: bool = True
    """Ask a model (Smart Turn v3.2) at a pause whether the question is over: a finished
    one ends at once, an unfinished one waits up to unfinished_silence_s; off, silence alone decides
    (endpoint_silence_s)."""
    turn_model: str | None = _f(None, exists=True)
    """Path to the completion detector's .onnx file; null resolves it from the models folder."""
    turn_silence_s: float = _f(0.2, 0.05, 2.0)
    """Seconds of silence after speech when the completion detector is asked."""
    unfinished_silence_s: float = _f(1.5, 0.3, 5.0)
    """Seconds of silence after speech that end a question heard as unfinished, by the completion detector or
    by its last word (unfinished_words)."""
    unfinished_words: bool = True
    """Wait through a pause after a word a question does not end on ("set a timer for... ten minutes"):
    the language pack's list, read from the words heard so far."""
    no_speech_timeout_s: float = _f(6.0, 1.0, 60)
    """Seconds after the wake word with no speech before the turn gives up."""
    max_utterance_s: float = _f(12.0, 2.0, 120)
    """Seconds of speech at most: a television cannot keep it listening for ever."""
    vad_threshold: float = _f(0.5, 0.01, 0.99)
    """Voice-activity probability above which a frame counts as speech."""
    threads: int = _f(2, 1, 16)
    """CPU threads for the Whisper engine."""


@dataclass(frozen=True)
class LlmConfig:
    model: str | None = _f(None, exists=True)
    """Path to a GGUF file; null resolves Qwen2.5-0.5B-Instruct from the models folder."""
    quant: Literal["Q4_K_M", "Q5_K_M"] = "Q4_K_M"
    """Quantisation looked for in the models folder: Q4_K_M, or Q5_K_M (slower at prompts, answering no
    better in docs/models.md's fixed questions)."""
    n_ctx: int = _f(1024, 256, 32768)
    """Context tokens (product card): long contexts slow every token on a Pi."""
    max_new_tokens: int = _f(96, 8, 4096)
    """Tokens per spoken answer: short answers are less work and better to listen to."""
    max_new_tokens_long: int = _f(256, 8, 4096)
    """Tokens when the owner asks for a longer answer ("tell me more", "explain")."""
    temperature: float = _f(0.4, 0.0, 2.0)
    """Sampling temperature: small models wander at 0.8."""
    top_p: float = _f(0.8, 0.0, 1.0)
    """Nucleus sampling mass."""
    repeat_penalty: float = _f(1.15, 1.0, 2.0)
    """Penalty on repeated tokens: small models loop without it."""
    n_threads: int | None = _f(None, 1, 256)
    """Generation threads; null = physical cores minus one (3 on a Pi 5), leaving one for audio."""
    n_threads_batch: int | None = _f(None, 1, 256)
    """Prompt-processing threads; null = all cores."""
    n_threads_first: int | None = _f(None, 1, 256)
    """Generation threads for an answer's first phrase, while nothing else runs; null = n_threads_batch.
    The same as n_threads turns the switch off."""
    n_batch: int = _f(256, 8, 4096)
    """Prompt tokens per llama_decode call."""
    use_mmap: bool = True
    """Map the model file: fast start, pages shared with the page cache."""
    use_mlock: bool = False
    """Lock the model in RAM (worth it on a 4 GB board under memory pressure)."""
    flash_attn: bool = False
    """Flash attention: neutral or slower on published Pi figures; measure with appliance bench."""
    seed: int = _f(-1, -1, 2**31 - 1)
    """Sampling seed; -1 draws a new one each start."""
    answer_timeout_s: float = _f(20.0, 1.0, 600)
    """Seconds an answer may take before it is ended cleanly."""
    system_prompt: str | None = None
    """The model's instructions, kept byte-identical every turn (no clock in it) so its KV cache is
    reused; null takes the language pack's (appliance/language/)."""
    facts_file: str | None = _f(None, exists=True)
    """A few lines about the home (who lives here, rooms, guest Wi-Fi) added to the system prompt."""
    facts_max_tokens: int = _f(200, 0, 2048)
    """Tokens of the facts file at most, so the prompt stays cheap to process."""
    history_trim: float = _f(0.6, 0.1, 1.0)
    """Share (0-1) of the prompt room (n_ctx - max_new_tokens) the history is cut back to once it
    overflows, so the next turns reuse the cache instead of reprocessing it all; 1.0 drops one turn at a time."""


@dataclass(frozen=True)
class TtsConfig:
    voice: str | None = _f(None, exists=True)
    """Path to a Piper .onnx voice (its .onnx.json beside it); null resolves en_US-joe-medium."""
    onnx_threads: int = _f(1, 1, 8)
    """onnxruntime threads for Piper, capped so speech does not starve the language model."""
    length_scale: float = _f(1.0, 0.5, 2.0)
    """Speaking rate: above 1 is slower, below 1 faster."""
    volume: float = _f(1.0, 0.0, 2.0)
    """Output gain applied to the voice."""
    noise_scale: float = _f(0.667, 0.0, 2.0)
    """Piper's voice variation."""
    noise_w: float = _f(0.8, 0.0, 2.0)
    """Piper's phoneme-length variation."""


@dataclass(frozen=True)
class ConversationConfig:
    idle_reset_s: float = _f(300.0, 0.0, 86400)
    """Seconds after the last turn when the conversation starts afresh."""
    first_clause_min_words: int = _f(2, 0, 50)
    """Words before a comma may send the first clause to speech early; 0 turns it off."""
    first_phrase_max_words: int = _f(10, 0, 50)
    """With no punctuation in its first words, the first piece may also leave before a phrase
    word ("is", "because", "by"...) between word first_clause_min_words and this one; 0 = off."""
    follow_up: Literal["question", "always", "never"] = "question"
    """Listen again without the wake word: after an answer that asks a question, always, or never."""
    follow_up_s: float = _f(4.0, 0.5, 30)
    """Seconds to wait for a follow-up before going back to idle."""
    thinking_earcon_s: float = _f(1.5, 0.0, 30)
    """Seconds after the question with no speech ready before the "still thinking" sound."""
    earcons: bool = True
    """Play the short wake, thinking, error and timer sounds."""
    turn_timeout_s: float = _f(60.0, 5.0, 3600)
    """Seconds a whole turn may take, speech included."""
    listen_timeout_s: float = _f(20.0, 1.0, 600)
    """Seconds one question may go on for, in audio heard; once it has ended, its transcription is held
    to turn_timeout_s alone, so a CPU that lags the stream is not cut off."""
    think_timeout_s: float = _f(15.0, 1.0, 600)
    """Seconds from the question to the first sentence of the answer before the turn gives up."""
    preemptive: bool = True
    """Start answering from the early transcript (asr.early_silence_s); nothing is heard before the
    question is confirmed over, and the answer is dropped if the person goes on speaking."""
    prefill: bool = True
    """Read the question into the language model while it is being spoken: the words two partial
    transcripts in a row agree on go into the model's cache, so at the end only the last words are
    left to read before the answer starts."""
    prefill_pace_s: float = _f(0.4, 0.1, 5.0)
    """Seconds of speech between Whisper's partial transcripts for the prefill (each run takes the
    recognizer's threads for a moment; Vosk has a partial at every chunk for free)."""
    emergency_number: str = "112"
    """The number an emergency ("call an ambulance", "I've fallen") is told to call from a phone, for the
    hub cannot call: 112 across Europe and on any mobile phone, 999 in the UK, 911 in North America,
    000 in Australia, 111 in New Zealand."""


@dataclass(frozen=True)
class SkillsConfig:
    enabled: bool = True
    """Answer time, date, timers and stop locally, before the language model."""
    time_style: Literal["words", "digits"] = "digits"
    """"It's twenty past seven." (words) or "It's 7:20 PM." (digits)."""
    clock: Literal[12, 24] = 12
    """12- or 24-hour clock in spoken times."""
    timer_repeat_s: float = _f(60.0, 0.0, 3600)
    """Seconds a finished timer keeps announcing itself unless stopped."""
    timer_repeat_interval_s: float = _f(10.0, 1.0, 600)
    """Seconds between the announcements of a finished timer."""


@dataclass(frozen=True)
class HomeAssistantConfig:
    enabled: bool = False
    """Send what the local skills do not answer to Home Assistant's conversation API first."""
    url: str = ""
    """Home Assistant's address on your network, e.g. http://homeassistant.local:8123."""
    token_file: str | None = _f(None, exists=True)
    """A file holding a long-lived access token (HA profile -> Security), readable only by the
    service user; the token is never logged."""
    timeout_s: float = _f(5.0, 0.2, 60)
    """Seconds to wait for Home Assistant's answer before saying it is not reachable."""
    language: str = "en"
    """The language Home Assistant matches sentences in."""
    fallback: Literal["model", "home_assistant"] = "model"
    """Who answers what neither the skills nor a device in Home Assistant handle: the local model,
    or Home Assistant's own reply (its conversation agent may be an LLM of its own)."""
    area: str = ""
    """The Home Assistant area the hub stands in, e.g. Kitchen: "turn on the light" said to the hub
    is that area's light. Empty = none (HA then asks which one)."""


@dataclass(frozen=True)
class LoggingConfig:
    level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    """Log level; --debug overrides it."""
    transcripts: bool = False
    """Log what was heard and answered at INFO (off: private by default)."""


@dataclass(frozen=True)
class ModelsConfig:
    dir: str = "/var/lib/appliance/models"
    """Folder install.sh fills with the Pi models."""
    dev_packages: bool = True
    """Fall back to the small models that Python packages ship (docs/models.md) for a model not installed."""


@dataclass(frozen=True)
class ServiceConfig:
    state_dir: str = "/var/lib/appliance"
    """Folder for timers, lists, volumes and other state that survives a restart."""
    watchdog: bool = True
    """Feed systemd's watchdog only while the microphone delivers and the loop runs."""
    cpu_affinity: list[int] = _f([])  # noqa: RUF009 - a default_factory
    """CPU cores the process may use; empty leaves it to the kernel (or CPUAffinity= in a drop-in)."""


@dataclass(frozen=True)
class Config:
    language: str = DEFAULT_LANGUAGE
    """The language the hub speaks and understands: its words are in appliance/language/<language>.py."""
    audio: AudioConfig = field(default_factory=AudioConfig)
    wake: WakeConfig = field(default_factory=WakeConfig)
    asr: AsrConfig = field(default_factory=AsrConfig)
    llm: LlmConfig = field(default_factory=LlmConfig)
    tts: TtsConfig = field(default_factory=TtsConfig)
    conversation: ConversationConfig = field(default_factory=ConversationConfig)
    skills: SkillsConfig = field(default_factory=SkillsConfig)
    home_assistant: HomeAssistantConfig = field(default_factory=HomeAssistantConfig)
    wyoming: WyomingConfig = field(default_factory=WyomingConfig)
    logging: LoggingConfig = field(default_factory=LoggingConfig)
    models: ModelsConfig = field(default_factory=ModelsConfig)
    service: ServiceConfig = field(default_factory=ServiceConfig)
    source: str = field(default="built-in defaults", compare=False)
    """Where this config came from (a file path or built-in defaults)."""


# --------------------------------------------------------------------------------------
# Errors


class ConfigError(BadConfig):
    """One or more problems in a config file, all reported at once."""

    def __init__(self, source: str, problems: list[Problem]) -> None:
        self.source = source
        self.problems = problems
        lines = [p.render(source) for p in problems]
        if len(lines) == 1:
            text = lines[0]
        else:
            text = f"{len(lines)} problems in {source}:\n" + "\n".join(f"  {x}" for x in lines)
        super().__init__(text)


# --------------------------------------------------------------------------------------
# Loading


def config_path(explicit: str | os.PathLike[str] | None = None) -> Path | None:
    """The config file to read: --config, else $APPLIANCE_CONFIG, else /etc, else the shipped one."""
    if explicit:
        return Path(explicit)
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env)
    if SYSTEM_CONFIG.is_file():
        return SYSTEM_CONFIG
    if SHIPPED_CONFIG.is_file():
        return SHIPPED_CONFIG
    return None


def load(path: str | os.PathLike[str] | None = None) -> Config:
    """Load and validate the effective config; raises ConfigError listing every problem."""
    chosen = config_path(path)
    if chosen is None:
        return Config()
    source = str(chosen)
    try:
        text = chosen.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(source, [Problem("", "file not found; pass --config PATH or set APPLIANCE_CONFIG")]) from None
    except IsADirectoryError:
        raise ConfigError(source, [Problem("", "is a folder, not a YAML file")]) from None
    except PermissionError:
        raise ConfigError(source, [Problem("", "cannot be read (permission denied)")]) from None
    except UnicodeDecodeError as exc:
        raise ConfigError(source, [Problem("", f"is not UTF-8 text ({exc.reason} at byte {exc.start})")]) from None
    return loads(text, source=source, base_dir=chosen.resolve().parent)


def loads(text: str, source: str = "<string>", base_dir: Path | None = None) -> Config:
    """Validate YAML text against the schema; relative paths are taken from base_dir."""
    validator = Validator(base_dir)
    cfg = validator.load(text, Config)
    if cfg is not None and not validator.problems and cfg.asr.early_silence_s >= cfg.asr.endpoint_silence_s:
        validator.add("asr.early_silence_s", "must be less than asr.endpoint_silence_s "
                      f"({format_number(cfg.asr.endpoint_silence_s)}), or 0 to turn it off; "
                      f"got {format_number(cfg.asr.early_silence_s)}")
    if cfg is not None and cfg.home_assistant.enabled:
        ha = cfg.home_assistant
        if not ha.url.startswith(("http://", "https://")):
            validator.add("home_assistant.url", "must be Home Assistant's address, like "
                          f"http://homeassistant.local:8123, when home_assistant.enabled is true; got {ha.url!r}")
        if not ha.token_file:
            validator.add("home_assistant.token_file", "must name the file holding a long-lived access token "
                          "when home_assistant.enabled is true (HA: your profile -> Security)")
    if cfg is not None and not EMERGENCY_NUMBER.fullmatch(cfg.conversation.emergency_number):
        validator.add("conversation.emergency_number", "must be the emergency number people dial where the hub "
                      f"is, in digits (112, 999, 911, 000...); got {cfg.conversation.emergency_number!r}")
    if cfg is not None and cfg.language not in KNOWN_LANGUAGES:
        validator.add("language", "must be a language the hub has words for: "
                      f"{', '.join(KNOWN_LANGUAGES)}; got {cfg.language!r}")
    if cfg is not None:
        check_wyoming(cfg.wyoming, validator)
    if cfg is None or validator.problems:
        raise ConfigError(source, validator.problems)
    return dataclasses.replace(cfg, source=source)
