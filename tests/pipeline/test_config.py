"""context_compact.config: the two profiles, and thresholds checked before anything runs.

An invalid threshold raises ValueError naming the field, at construction, so
no compactor can be built with it and no file is ever written under it.
"""

import dataclasses

import pytest

from context_compact import CompactionConfig, ContextCompactor
from tests.helpers import PROFILES, files_under, pairs_history

FLAGS = ("micro_lossless", "micro_only_over_limit", "micro_protect_fresh", "persist_before_summary")


def test_seed_turns_every_behavioural_fix_off():
    seed = CompactionConfig.seed()
    assert seed.profile == "seed" and seed.snip_target_messages is None
    assert not any(getattr(seed, flag) for flag in FLAGS)


def test_default_turns_every_behavioural_fix_on():
    default = CompactionConfig()
    assert default.profile == "default" and default.snip_target_messages == 30
    assert all(getattr(default, flag) for flag in FLAGS)
    assert default.target_chars == 30000 and default.snip_keep_total == 30


def test_named_profiles_and_overrides():
    assert CompactionConfig.named("seed") == CompactionConfig.seed()
    assert CompactionConfig.named("default") == CompactionConfig()
    seed = CompactionConfig.named("seed", context_char_limit=1000)
    assert seed.context_char_limit == 1000 and seed.profile == "seed" and not seed.micro_lossless
    with pytest.raises(ValueError, match="unknown profile 'fast'"):
        CompactionConfig.named("fast")


def test_config_is_frozen_and_a_changed_copy_is_checked():
    config = CompactionConfig()
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.context_char_limit = 1
    assert dataclasses.replace(config, context_char_limit=9000).context_char_limit == 9000
    with pytest.raises(ValueError, match="context_char_limit"):
        dataclasses.replace(config, context_char_limit=-1)


def test_as_dict_round_trips():
    for config in (CompactionConfig(), CompactionConfig.seed(preview_chars=10)):
        assert CompactionConfig(**config.as_dict()) == config


def test_seed_snip_target_follows_its_trigger():
    assert CompactionConfig.seed(snip_max_messages=10).snip_keep_total == 11


@pytest.mark.parametrize("field, value", [
    ("context_char_limit", 0), ("context_char_limit", -5), ("context_char_limit", 1.5),
    ("context_char_limit", True), ("tool_result_batch_char_limit", 0),
    ("large_result_char_limit", "30000"), ("summary_input_char_limit", 0),
    ("snip_max_messages", 0), ("snip_keep_head", 0), ("preview_chars", None),
    ("keep_recent_results", -1), ("keep_recent_messages", -1), ("max_reactive_retries", -1),
    ("micro_min_chars", 2.0), ("profile", "fast"), ("target_fraction", 0),
    ("target_fraction", 1.5), ("target_fraction", "half"), ("snip_target_messages", 50),
    ("snip_target_messages", 4), ("snip_target_messages", 12.5),
])
def test_invalid_threshold_raises_value_error_naming_it(field, value):
    with pytest.raises(ValueError, match=field):
        CompactionConfig(**{field: value})


def test_head_must_fit_below_the_trigger():
    with pytest.raises(ValueError, match="snip_keep_head"):
        CompactionConfig.seed(snip_max_messages=3)
    with pytest.raises(ValueError, match="snip_target_messages"):
        CompactionConfig(snip_max_messages=20)  # the default target 30 is not below 20
    assert CompactionConfig(snip_max_messages=20, snip_target_messages=12).snip_keep_total == 12


def test_zero_keeps_are_allowed():
    config = CompactionConfig(keep_recent_results=0, keep_recent_messages=0,
                              max_reactive_retries=0, micro_min_chars=0)
    assert config.keep_recent_results == 0


def test_invalid_threshold_means_no_file_is_written(tmp_path):
    with pytest.raises(ValueError):
        ContextCompactor(tmp_path, lambda m: "s",
                         CompactionConfig.seed(snip_max_messages=2)).prepare(pairs_history(30), "x")
    assert files_under(tmp_path) == []


def test_a_client_needs_a_model(tmp_path):
    with pytest.raises(ValueError, match="model"):
        ContextCompactor(tmp_path, client=object())


@pytest.mark.parametrize("flag", FLAGS)
@pytest.mark.parametrize("value", [None, 0, 1, "yes", "False"])
def test_a_switch_must_be_a_real_boolean(flag, value):
    with pytest.raises(ValueError, match=flag):
        CompactionConfig(**{flag: value})
    with pytest.raises(ValueError, match=flag):
        CompactionConfig.seed(**{flag: value})


def test_micro_lossless_none_is_refused_before_any_file(tmp_path):
    with pytest.raises(ValueError, match="micro_lossless must be True or False, got None"):
        ContextCompactor(tmp_path, None, CompactionConfig(micro_lossless=None))
    with pytest.raises(ValueError, match="micro_lossless"):
        dataclasses.replace(CompactionConfig(), micro_lossless=None)
    assert files_under(tmp_path) == []


def test_the_tests_profiles_are_the_ones_the_config_names(profile):
    # The `profile` fixture (tests/conftest.py) runs each test once a profile: each
    # name is one CompactionConfig.named knows, and the error names every one.
    assert CompactionConfig.named(profile).profile == profile
    with pytest.raises(ValueError) as error:
        CompactionConfig.named("other")
    assert all(repr(name) in str(error.value) for name in PROFILES)
