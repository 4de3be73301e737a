"""Shared test setup: the hypothesis profiles, the compaction profiles (`profile`),
a folder for the compactor, and the offline model with the network shut off.

The tests live in rooms, one a product (docs/CONTRIBUTING.md): tests/pipeline and
tests/lessons are the quick loop; each room runs alone (`bash scripts/test.sh ROOM`). This
file loads nothing heavy: the SDK and the offline server are imported by the fixtures that
start them, and the per-test resets below touch only modules a test has already loaded.

Two hypothesis profiles, both deterministic (derandomize, no example
database): "quick" (25 examples a property) for a developer's run, and
"thorough" (200) when the environment says CI=true, as CI's does. Set
HYPOTHESIS_PROFILE=thorough to run CI's numbers by hand.
`no_network` is not autouse: a test file that talks to a model turns it on
for all its tests with `pytestmark = pytest.mark.usefixtures("no_network")`.
"""

import os
import socket
import sys

import pytest
from hypothesis import HealthCheck, settings

from .helpers import PROFILES

LOOPBACK = ("127.0.0.1", "::1", "localhost")

COMMON = dict(deadline=None, derandomize=True, database=None, print_blob=False,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("quick", max_examples=25, **COMMON)
settings.register_profile("thorough", max_examples=200, **COMMON)


def profile_name(environ) -> str:
    """HYPOTHESIS_PROFILE if set, else thorough in CI (CI=true), else quick."""
    if environ.get("HYPOTHESIS_PROFILE"):
        return environ["HYPOTHESIS_PROFILE"]
    in_ci = environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
    return "thorough" if in_ci else "quick"


settings.load_profile(profile_name(os.environ))


@pytest.fixture(autouse=True)
def fresh_kernel():
    """Each test starts as a fresh kernel for the checkers: no failing run counted yet,
    no prediction made, so a test's first wrong try is a first try (hints.py)."""
    hints = sys.modules.get("compact_course.lessons.exercises.hints")
    if hints is not None:      # not loaded yet: nothing counted
        hints.forget()


@pytest.fixture(autouse=True)
def settings_files_forgotten(monkeypatch):
    """Each test starts as a fresh process for the settings files: none named yet, so a
    file one test pointed at (and left in tmp_path, with a key) does not make another
    test's unsandboxed bash refuse (compact_course.agent.model.settings_files)."""
    model = sys.modules.get("compact_course.agent.model")
    if model is not None:      # not loaded yet: no file named
        monkeypatch.setattr(model, "_named", [])


@pytest.fixture(params=PROFILES)
def profile(request) -> str:
    """Each profile by name: a test that takes `profile` runs once with each."""
    return request.param


@pytest.fixture
def root(tmp_path):
    """The compactor's root folder, inside tmp_path so strays can be seen."""
    folder = tmp_path / "root"
    folder.mkdir()
    return folder


@pytest.fixture
def no_network(monkeypatch):
    """Any connection that is not to loopback fails the test."""
    real_connect = socket.socket.connect

    def connect(sock, address):
        host = address[0] if isinstance(address, tuple) else address
        if host not in LOOPBACK:
            raise AssertionError(f"a test tried to reach {address}")
        return real_connect(sock, address)

    monkeypatch.setattr(socket.socket, "connect", connect)


@pytest.fixture
def offline():
    """The offline model on 127.0.0.1, stopped after the test."""
    from compact_course.offline.api.server import start_offline_server

    with start_offline_server(window=200_000) as handle:
        yield handle


@pytest.fixture
def client(offline):
    """The real anthropic SDK pointed at `offline`, without retries."""
    from compact_course.agent.model import offline_client

    sdk = offline_client(offline.base_url, max_retries=0)
    yield sdk
    sdk.close()
