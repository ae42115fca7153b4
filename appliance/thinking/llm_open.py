"""Opening a GGUF with llama-cpp-python: the Llama, its own chat template, and the owner's house facts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from appliance.config import LlmConfig
from appliance.errors import ModelError


class LlmError(ModelError):
    """The language model could not be loaded or used."""


def open_llama(cfg: LlmConfig, model_path: Path, n_threads: int, n_threads_batch: int) -> tuple[Any, Any, Any]:
    """(the Llama, the llama_cpp module, a formatter of the model's own chat template), or LlmError naming
    what is wrong and what to do."""
    try:
        import llama_cpp
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter
    except ImportError as exc:
        raise LlmError(f"llama-cpp-python is not installed ({exc}); run scripts/install.sh") from None
    try:
        llama = llama_cpp.Llama(
            model_path=str(model_path), n_ctx=cfg.n_ctx, n_batch=cfg.n_batch,
            n_ubatch=cfg.n_batch, n_threads=n_threads, n_threads_batch=n_threads_batch,
            use_mmap=cfg.use_mmap, use_mlock=cfg.use_mlock, flash_attn=cfg.flash_attn,
            seed=llama_cpp.LLAMA_DEFAULT_SEED if cfg.seed < 0 else cfg.seed, verbose=False)
    except (ValueError, RuntimeError) as exc:
        raise LlmError(f"Could not load the language model {model_path}: {exc}. Is it a "
                       "complete GGUF file? Fetch it again with `sudo appliance models fetch`.") from None
    template = llama.metadata.get("tokenizer.chat_template")
    if not template:
        raise LlmError(f"The language model {model_path} has no chat template "
                       "(tokenizer.chat_template); use an instruct GGUF.")
    model = llama._model
    eos, bos = llama.token_eos(), llama.token_bos()
    formatter = Jinja2ChatFormatter(
        template=template, eos_token=model.token_get_text(eos) if eos != -1 else "",
        bos_token=model.token_get_text(bos) if bos != -1 else "", add_generation_prompt=True)
    return llama, llama_cpp, formatter


def read_facts(cfg: LlmConfig) -> str | None:
    """The text of `llm.facts_file`, None when there are no facts to add; LlmError when it cannot be read."""
    if not cfg.facts_file or cfg.facts_max_tokens <= 0:
        return None
    path = Path(cfg.facts_file)
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LlmError(f"llm.facts_file {path} cannot be read ({exc}); fix or remove it") from None
