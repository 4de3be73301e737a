"""Shared test setup: the hypothesis profile and small fixtures.

The profile makes the property tests deterministic in CI (derandomize, no
example database) and large enough to mean something (200 examples each).
"""

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "compact-ci",
    max_examples=200,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("compact-ci")


@pytest.fixture
def root(tmp_path):
    """The compactor's root folder, inside tmp_path so strays can be seen."""
    folder = tmp_path / "root"
    folder.mkdir()
    return folder
