"""The config loader: defaults, overrides, and every class of bad file reported at once with lines."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from appliance import EXIT_CONFIG, cli, config
from appliance.config import Config, ConfigError
from appliance.config_validation import Problem


def load_text(tmp_path: Path, text: str | bytes) -> Config:
    path = tmp_path / "appliance.yaml"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return config.load(path)


def problems(tmp_path: Path, text: str | bytes) -> list[Problem]:
    with pytest.raises(ConfigError) as info:
        load_text(tmp_path, text)
    assert cli.exit_code(info.value) == EXIT_CONFIG
    return info.value.problems


def test_shipped_yaml_equals_dataclass_defaults() -> None:
    shipped = config.load(config.SHIPPED_CONFIG)
    assert shipped == Config()
    assert shipped.source == str(config.SHIPPED_CONFIG)


def test_shipped_yaml_comments_every_key() -> None:
    """Every key of the shipped file has a comment line right above it (or belongs to a group)."""
    lines = config.SHIPPED_CONFIG.read_text().splitlines()
    uncommented = []
    for i, line in enumerate(lines):
        stripped = line.strip()
        if not line.startswith("  ") or stripped.startswith("#") or ":" not in stripped:
            continue
        if stripped.startswith("-") or line.startswith("    "):
            continue
        above = lines[i - 1].strip()
        # A key right under another key shares that key's comment (temperature/top_p/...).
        if not (above.startswith("#") or (":" in above and not above.endswith(":"))):
            uncommented.append(stripped)
    assert uncommented == []


def test_a_user_file_overrides_key_by_key(tmp_path: Path) -> None:
    cfg = load_text(tmp_path, "llm:\n  n_ctx: 2048\n")
    assert cfg.llm.n_ctx == 2048
    assert cfg.llm.temperature == Config().llm.temperature
    assert cfg.asr == Config().asr
    assert cfg.source == str(tmp_path / "appliance.yaml")


def test_the_issue_example_names_both_keys_lines_and_suggests(tmp_path: Path) -> None:
    found = problems(tmp_path, "llm: {n_ctxx: 1024}\naudio: {rate: fast}\n")
    by_key = {p.key: p for p in found}
    assert set(by_key) == {"llm.n_ctxx", "audio.rate"}
    assert by_key["llm.n_ctxx"].line == 1
    assert "did you mean 'n_ctx'" in by_key["llm.n_ctxx"].message
    assert by_key["audio.rate"].line == 2
    assert "whole number" in by_key["audio.rate"].message and "'fast'" in by_key["audio.rate"].message


def test_every_problem_is_reported_with_file_and_line(tmp_path: Path) -> None:
    text = (
        "audio:\n"
        "  chunk_ms: 80\n"
        "  rate: 4000\n"  # out of range, line 3
        "wake:\n"
        "  treshold: 0.5\n"  # typo, line 5
        "llm:\n"
        "  use_mmap: yes please\n"  # wrong type, line 7
        "  facts_file: no-such-facts.txt\n"  # missing path, line 8
        "sound: {}\n"  # unknown section, line 9
    )
    with pytest.raises(ConfigError) as info:
        load_text(tmp_path, text)
    err = info.value
    got = {(p.key, p.line) for p in err.problems}
    assert got == {("audio.rate", 3), ("wake.treshold", 5), ("llm.use_mmap", 7),
                   ("llm.facts_file", 8), ("sound", 9)}
    message = str(err)
    assert message.startswith("5 problems in ")
    assert "did you mean 'threshold'" in message
    assert "between 8000 and 48000, got 4000" in message
    assert "path does not exist" in message and "no-such-facts.txt" in message
    assert f"{tmp_path / 'appliance.yaml'} line 9" in message


@pytest.mark.parametrize(
    ("text", "needle", "line"),
    [
        ("", "empty", None),
        ("# only a comment\n", "empty", None),
        ("- llm\n- audio\n", "not a list", 1),
        ("just words\n", "single value", 1),
        ("llm:\n  n_ctx: [1024\n", "YAML syntax error", 3),
        ("llm:\n\tn_ctx: 1024\n", "YAML syntax error", 2),
        ("llm: 5\n", "must be a mapping of settings", 1),
        ("llm:\n  n_ctx: 1024\n  n_ctx: 2048\n", "appears twice", 3),
        ("llm:\n  n_ctx: !!python/object:os.system {}\n", "YAML", 2),
    ],
)
def test_bad_files_are_named_with_line(tmp_path: Path, text: str, needle: str, line: int | None) -> None:
    found = problems(tmp_path, text)
    assert any(needle in p.message for p in found), found
    if line is not None:
        assert any(p.line == line for p in found), found


def test_syntax_error_gives_line_and_column(tmp_path: Path) -> None:
    (problem,) = problems(tmp_path, "llm:\n  n_ctx: 1024\n  temperature: : 0.4\n")
    assert problem.line == 3 and problem.column is not None
    assert "line 3 column" in problem.render("f.yaml")


def test_unreadable_and_missing_files(tmp_path: Path) -> None:
    assert "not UTF-8" in problems(tmp_path, b"llm:\n  system_prompt: \xff\xfe\n")[0].message
    with pytest.raises(ConfigError, match="file not found"):
        config.load(tmp_path / "absent.yaml")
    with pytest.raises(ConfigError, match="is a folder"):
        config.load(tmp_path)


def test_types_are_strict(tmp_path: Path) -> None:
    found = problems(tmp_path, "llm:\n  n_ctx: true\n  temperature: '0.4'\n  n_threads: 2.5\n"
                               "skills:\n  clock: 13\nasr:\n  engine: kaldi\n")
    by_key = {p.key: p.message for p in found}
    assert "whole number" in by_key["llm.n_ctx"]  # a boolean is not a number
    assert "must be a number" in by_key["llm.temperature"]
    assert "whole number or null" in by_key["llm.n_threads"]
    assert "one of 12, 24" in by_key["skills.clock"]
    assert "'auto', 'vosk', 'whisper'" in by_key["asr.engine"]


def test_ints_are_accepted_for_floats_and_lists_checked(tmp_path: Path) -> None:
    cfg = load_text(tmp_path, "audio:\n  retry_backoff_s: [1, 3]\nllm:\n  temperature: 1\n")
    assert cfg.audio.retry_backoff_s == [1.0, 3.0]
    assert isinstance(cfg.llm.temperature, float)
    found = problems(tmp_path, "audio:\n  retry_backoff_s: [1, fast]\n")
    assert "list of numbers" in found[0].message


def test_relative_paths_are_taken_from_the_config_folder(tmp_path: Path) -> None:
    (tmp_path / "facts.txt").write_text("The guest Wi-Fi is called Meadow.\n")
    cfg = load_text(tmp_path, "llm:\n  facts_file: facts.txt\n")
    assert cfg.llm.facts_file == str(tmp_path / "facts.txt")


def test_path_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    explicit, env, system = (tmp_path / n for n in ("explicit.yaml", "env.yaml", "system.yaml"))
    for p in (explicit, env, system):
        p.write_text("llm: {}\n")
    monkeypatch.setattr(config, "SYSTEM_CONFIG", system)
    monkeypatch.setenv(config.ENV_VAR, str(env))
    assert config.config_path(explicit) == explicit
    assert config.config_path(None) == env
    monkeypatch.delenv(config.ENV_VAR)
    assert config.config_path(None) == system
    monkeypatch.setattr(config, "SYSTEM_CONFIG", tmp_path / "absent.yaml")
    assert config.config_path(None) == config.SHIPPED_CONFIG


def test_config_is_frozen() -> None:
    cfg = Config()
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.llm.n_ctx = 5  # type: ignore[misc]


# ---- property: any YAML either loads or gives ConfigError, never a traceback -----------------

SECTIONS = {f.name: f.type for f in dataclasses.fields(Config) if f.name != "source"}
KEYS = {name: [f.name for f in dataclasses.fields(getattr(config, cls))]
        for name, cls in {
            "audio": "AudioConfig", "wake": "WakeConfig", "asr": "AsrConfig", "llm": "LlmConfig",
            "tts": "TtsConfig", "conversation": "ConversationConfig", "skills": "SkillsConfig",
            "logging": "LoggingConfig", "models": "ModelsConfig", "service": "ServiceConfig"}.items()}

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-10**12, 10**12), st.floats(allow_nan=True),
    st.text(max_size=20), st.sampled_from(["auto", "vosk", "Q4_K_M", "INFO", "words", 12, 24, "/tmp"]),
)
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                        st.dictionaries(st.text(max_size=8), inner, max_size=3)),
                      max_leaves=6)
sections = st.sampled_from(sorted(KEYS)).flatmap(
    lambda name: st.tuples(st.just(name), st.dictionaries(
        st.one_of(st.sampled_from(KEYS[name]), st.text(max_size=10)), values, max_size=4)))
documents = st.one_of(
    st.lists(sections, max_size=4).map(dict),
    values,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents)
def test_random_yaml_values_never_raise_anything_but_config_error(document: object) -> None:
    text = yaml.safe_dump(document, allow_unicode=True)
    try:
        cfg = config.loads(text, source="random.yaml")
    except ConfigError as exc:
        assert exc.problems and all(p.message for p in exc.problems)
        assert cli.exit_code(exc) == EXIT_CONFIG
    else:
        assert isinstance(cfg, Config)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_random_text_never_raises_anything_but_config_error(text: str) -> None:
    try:
        config.loads(text, source="random.yaml")
    except ConfigError as exc:
        assert exc.problems
