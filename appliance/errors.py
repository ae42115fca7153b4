"""The named errors the parts raise: each says what went wrong for people; cli.py gives them exit codes."""

from __future__ import annotations


class ApplianceError(Exception):
    """An expected error with a message for people (no traceback is shown)."""


class UsageError(ApplianceError):
    """The command line asks for something that cannot be done as asked."""


class BadConfig(ApplianceError):
    """The configuration is wrong (config.ConfigError lists each problem by key and line)."""


class ModelMissing(ApplianceError):
    """A model file could not be found anywhere it may be."""


class ModelError(ApplianceError):
    """A model was found but cannot be loaded or used (llm_open.LlmError, tts.VoiceError, ModelBusy)."""


class ModelBusy(ModelError):
    """The language model has not returned from an earlier answer (a call that ignores its cancel)."""


class MissingLibrary(ApplianceError):
    """A library a stage needs is not installed (Vosk, faster-whisper, openWakeWord, onnxruntime)."""


class AudioDeviceError(ApplianceError):
    """The sound system (PortAudio) is not there."""


class InputMissing(ApplianceError):
    """An input file or folder does not exist (a WAV, a questions file, a manifest, a model in a folder)."""


class BadInput(ApplianceError):
    """An input file exists but cannot be used (a WAV that cannot be read, no questions in it)."""


class OutputError(ApplianceError):
    """An output file (the spoken reply as WAV) cannot be written."""


class NotWritable(ApplianceError):
    """A folder the appliance keeps its files in (the models) cannot be written."""


class TimerError(ApplianceError):
    """A timer request that cannot be carried out (too many, too long, cannot be saved)."""


class ListError(ApplianceError):
    """A list request that cannot be carried out (the list is full, an item too long, cannot be saved);
    `kind` says which, for the words the hub answers with."""

    def __init__(self, message: str, kind: str = "store", limit: int = 0) -> None:
        super().__init__(message)
        self.kind = kind
        """'full' (the list holds its most), 'lists' (too many lists), 'long' (an item too long), 'store'."""
        self.limit = limit
        """The bound that was reached, for 'full', 'lists' and 'long'."""


class ServiceUnavailable(ApplianceError):
    """A system service is not there or refuses us (the journal)."""


class FetchError(ApplianceError):
    """A model could not be downloaded (network, server); trying again later may work."""


class FileUnavailable(FetchError):
    """The server says the file is not there: trying again will not help."""


class ChecksumMismatch(FetchError):
    """A downloaded or copied file is not the file the manifest names; it has been removed."""


class HostUnknown(ApplianceError):
    """A host the configuration names (Home Assistant's) does not resolve to an address."""


class HomeAssistantUnreachable(ApplianceError):
    """The configured Home Assistant cannot be reached right now (down, wrong address, timeout)."""


class HomeAssistantLacks(HomeAssistantUnreachable):
    """The configured Home Assistant answers, but has nothing at the address asked (HTTP 404): an
    integration the request needs (the shopping list) is not set up there."""


class HomeAssistantRefused(ApplianceError):
    """The configured Home Assistant refuses the access token."""
