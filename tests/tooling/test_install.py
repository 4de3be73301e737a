"""Installable the way Python users expect: a wheel, the pinned files, the data found from outside.

- `pip install .` makes a wheel of every subpackage (agent, offline, course,
  bench); installed into a fresh venv it is the copy `import context_compact` finds
  from another folder, and the `compact` command is there. The wheel is built
  from a copy of the project (a build writes build/ and *.egg-info/ beside its
  sources) and installed without dependencies: `import context_compact` needs none.
- requirements.txt installs this project and pins every runtime and course
  dependency that pyproject.toml declares, at a version it allows;
  requirements-test.txt adds the test ones, and only those.
- The course data is found by `COMPACT_DATA`, by the checkout, or from the
  working folder; without it, importing still works and loading a history says
  where it looked.
- No script, test or notebook source edits sys.path or writes a .pth file.
"""

import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

from compact_course.sessions import histories

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SUBPACKAGES = ("display", "sessions", "probes", "offline", "offline/api", "offline/model", "agent", "bench",
               "lessons", "lessons/exercises")


def run(command, **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, **kwargs)
    assert result.returncode == 0, f"{command}:\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}"
    return result


def clean_env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "COMPACT_DATA")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    project = tmp_path_factory.mktemp("project")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, project / name)
    for package in ("context_compact", "compact_course"):
        shutil.copytree(ROOT / package, project / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path_factory.mktemp("dist")
    # No build isolation: the pinned setuptools of requirements-test.txt, no download.
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
         "--wheel-dir", str(out), str(project)], env=clean_env())
    (built,) = out.glob("compact_course-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """A fresh venv with the wheel installed; returns its python."""
    venv = tmp_path_factory.mktemp("venv")
    run([sys.executable, "-m", "venv", str(venv)], env=clean_env())
    python = venv / "bin" / "python"
    run([str(python), "-m", "pip", "install", "--no-deps", "--no-index", str(wheel)], env=clean_env())
    return python


def test_the_wheel_holds_every_subpackage(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for package in ("context_compact", "compact_course", *(f"compact_course/{sub}" for sub in SUBPACKAGES)):
        assert f"{package}/__init__.py" in names, package
    # Every module, and every data file a module reads (the checkers' texts.json).
    files = {p.relative_to(ROOT).as_posix() for package in ("context_compact", "compact_course")
             for p in (ROOT / package).rglob("*") if p.suffix in (".py", ".json")}
    assert files <= names, sorted(files - names)


def test_the_wheel_says_its_licence_and_carries_it(wheel):
    with zipfile.ZipFile(wheel) as archive:
        (metadata,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        text = archive.read(metadata).decode()
        licence = [n for n in archive.namelist() if n.endswith("/LICENSE")]
        assert licence, "the wheel carries no LICENSE"
        assert "MIT License" in archive.read(licence[0]).decode()
    assert "License-Expression: MIT" in text.splitlines()


def test_the_base_install_is_the_pipelines_and_aiohttp_comes_with_the_offline_extra():
    project = PYPROJECT["project"]
    assert project["dependencies"] == []
    holding = {group for group, texts in project["optional-dependencies"].items()
               if any(Requirement(t).name == "aiohttp" for t in texts)}
    assert holding == {"offline"}
    assert "compact-course[offline]" in project["optional-dependencies"]["course"]
    (sdk,) = [Requirement(t) for t in project["optional-dependencies"]["offline"]
              if Requirement(t).name == "anthropic"]
    # The SDK's range is bounded on both sides, and holds the pinned release.
    assert {s.operator for s in sdk.specifier} == {">=", "<"}
    assert sdk.specifier.contains(pins("requirements.txt")["anthropic"])


def test_import_compact_from_another_folder_finds_the_installed_copy(installed, tmp_path):
    code = "import context_compact, compact_course.sessions.histories; print(context_compact.__file__)"
    out = run([str(installed), "-c", code],
              cwd=tmp_path, env=clean_env()).stdout.strip()
    site = run([str(installed), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
               env=clean_env()).stdout.strip()
    assert Path(out) == Path(site) / "context_compact" / "__init__.py"
    assert (installed.parent / "compact-course").is_file()  # the [project.scripts] command


LOAD = ("from compact_course.sessions.histories import load_history; "
        "print(len(load_history('five_reads')['messages']))")


def test_the_installed_copy_says_where_it_looked_for_the_data(installed, tmp_path):
    result = subprocess.run([str(installed), "-c", LOAD], cwd=tmp_path, env=clean_env(),
                            capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("compact_course.sessions.histories.CourseDataMissing:")
    assert str(tmp_path / "data") in last and "COMPACT_DATA" in last


def test_the_installed_copy_finds_the_data_from_notebooks_or_by_compact_data(installed, tmp_path):
    from_notebooks = run([str(installed), "-c", LOAD], cwd=ROOT / "notebooks", env=clean_env())
    named = run([str(installed), "-c", LOAD], cwd=tmp_path,
                env={**clean_env(), "COMPACT_DATA": str(ROOT / "data")})
    expected = str(len(histories.load_history("five_reads")["messages"]))
    assert from_notebooks.stdout.strip() == named.stdout.strip() == expected


def test_compact_data_naming_a_folder_without_histories_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPACT_DATA", str(tmp_path))
    with pytest.raises(histories.CourseDataMissing, match=re.escape(f"COMPACT_DATA={tmp_path}")):
        histories.load_history("five_reads")


def test_a_history_given_by_path_needs_no_data_folder(tmp_path, monkeypatch):
    copy = tmp_path / "mine.json"
    shutil.copy(ROOT / "data" / "histories" / "five_reads.json", copy)
    monkeypatch.setattr(histories, "CHECKOUT_DATA", tmp_path / "nowhere")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(histories.CourseDataMissing):
        histories.list_histories()
    assert histories.load_history(copy)["messages"] == histories.load_history(
        ROOT / "data" / "histories" / "five_reads.json")["messages"]


# -- the pinned files --------------------------------------------------------------------

def pins(name: str) -> dict:
    found = {}
    for line in (ROOT / name).read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if not line or line.startswith(("-e ", "-r ")):
            continue
        package, sep, version = line.partition("==")
        assert sep and version and not re.search(r"[<>=!~;, ]", version), f"{name}: {line!r} is not pinned"
        found[canonicalize_name(package)] = version
    return found


def declared(*groups: str) -> list[Requirement]:
    project = PYPROJECT["project"]
    texts = [t for g in groups for t in (project["dependencies"] if g == "runtime"
                                         else project["optional-dependencies"][g])]
    return [Requirement(t) for t in texts if not t.startswith(project["name"])]


def test_requirements_txt_installs_the_project_and_pins_runtime_and_course():
    lines = (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    assert "-e ." in lines
    course = pins("requirements.txt")
    for requirement in declared("runtime", "offline", "course"):
        name = canonicalize_name(requirement.name)
        assert name in course, f"{name} is declared but not pinned in requirements.txt"
        assert requirement.specifier.contains(course[name]), f"{name}=={course[name]} vs {requirement}"


def test_requirements_test_txt_adds_only_the_test_pins():
    assert "-r requirements.txt" in (ROOT / "requirements-test.txt").read_text(encoding="utf-8").splitlines()
    course, test = pins("requirements.txt"), pins("requirements-test.txt")
    assert not set(course) & set(test), "a package is pinned in both files"
    for requirement in declared("test"):
        name = canonicalize_name(requirement.name)
        assert name in test, f"{name} is a test dependency but not pinned in requirements-test.txt"
        assert requirement.specifier.contains(test[name]), f"{name}=={test[name]} vs {requirement}"
    assert not {canonicalize_name(r.name) for r in declared("runtime", "offline", "course")} & set(test)


def test_nothing_edits_sys_path_or_writes_a_pth_file():
    # deploy/class/ came from scripts/; deploy/hub and deploy/proxy run where no install is.
    files = [*(ROOT / "scripts").iterdir(), *(ROOT / "deploy" / "class").iterdir(),
             *(ROOT / "tests").rglob("*.py"), *(ROOT / "notebooks" / "src").glob("*.py"),
             ROOT / "pytest.ini"]
    this = Path(__file__).resolve()
    offenders = [p.name for p in files if p.is_file() and p.resolve() != this
                 and re.search(r"sys\.path\.(insert|append)|\.pth\b", p.read_text(encoding="utf-8"))]
    assert offenders == []


def test_binder_is_told_the_interpreter_the_pins_are_for():
    assert (ROOT / "runtime.txt").read_text(encoding="utf-8") == "python-3.11\n"
    assert PYPROJECT["project"]["requires-python"] == ">=3.11"
    assert "pinned for Python 3.11" in (ROOT / "requirements.txt").read_text(encoding="utf-8")


def test_every_pin_installs_on_the_lowest_python_the_project_declares():
    # pyproject says >=3.11, so a learner's 3.11.0 (Debian 12 ships 3.11.2) must take
    # every pin; soupsieve's 3.x releases, for one, need 3.11.5. Read from the
    # installed copies, which are the pinned ones (checked first).
    lowest = PYPROJECT["project"]["requires-python"].removeprefix(">=") + ".0"
    refused = []
    for name, version in {**pins("requirements.txt"), **pins("requirements-test.txt")}.items():
        installed = metadata.metadata(name)
        assert installed["Version"] == version, f"{name} {installed['Version']} installed, {version} pinned"
        needs = installed.get("Requires-Python")
        if needs and not SpecifierSet(needs).contains(lowest):
            refused.append(f"{name}=={version} needs Python {needs}")
    assert refused == []


def test_the_readmes_clone_names_no_tag_and_a_url_that_says_it_is_yours_to_set():
    # A fork copies no tags, and the repository has none: a clone of `--branch v0.1.0` failed
    # (issue 38). The clone takes the fork's default branch, from a URL the teacher sets.
    text = (ROOT / "docs" / "CLASS.md").read_text(encoding="utf-8")
    clones = re.findall(r"^    (git clone\b[^\n]*)", text, re.M)
    assert clones == ['git clone --depth 1 "$COURSE_REPO" /opt/course   '
                      "# the fork's default branch: a fork copies no tags, so none is named"], clones
    setting = re.findall(r"^    COURSE_REPO=(\S+)\s+# (.*)$", text, re.M)
    assert len(setting) == 1 and "your fork's URL" in setting[0][1], setting
    for readme in ("README.md", "README.zh.md", "docs/CLASS.md"):
        assert "--branch v" not in (ROOT / readme).read_text(encoding="utf-8"), readme
    # deploy/class/fresh_debian_class.sh runs that step with a local clone in the URL's place.
    script = (ROOT / "deploy" / "class" / "fresh_debian_class.sh").read_text()
    assert "s|^COURSE_REPO=.*|COURSE_REPO=file:///srv/course-src.git|" in script
    assert " tag " not in script


# -- the first install says how far it is (issue 40: course.sh sat silent for minutes) ---------

def _setup_copy(tmp_path, pip_lines: str, pip_status: int):
    """scripts/setup.sh in a copy of the repository's pins, with a stand-in .venv whose pip
    prints `pip_lines` and exits `pip_status` (every other command of it succeeds)."""
    import stat
    root = tmp_path / "repo"
    (root / "scripts").mkdir(parents=True)
    for name in ("requirements.txt", "requirements-test.txt", "pyproject.toml"):
        shutil.copy(ROOT / name, root / name)
    for name in ("setup.sh", "heartbeat.py"):
        shutil.copy(ROOT / "scripts" / name, root / "scripts" / name)
    python = root / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(f'#!/bin/sh\nif [ "$2" = pip ]; then printf "{pip_lines}"; exit {pip_status}; fi\n'
                      "exit 0\n")
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    return root, subprocess.run(["bash", str(root / "scripts" / "setup.sh")], capture_output=True,
                                text=True, timeout=120)


def test_the_first_install_prints_a_line_per_package_it_collects(tmp_path):
    root, done = _setup_copy(tmp_path, "Collecting anthropic==2.17.0\\nDownloading x\\n"
                                       "Collecting httpx==0.28.1\\n", 0)
    pins = {line.split("==")[0] for line in (ROOT / "requirements.txt").read_text().splitlines()
            if re.match(r"^[A-Za-z0-9_.-]+==", line)}
    assert done.returncode == 0, done.stderr
    assert f"installing about {len(pins)} pinned packages (requirements.txt)" in done.stderr
    assert f"[1/{len(pins)}] anthropic==2.17.0" in done.stderr
    assert f"[2/{len(pins)}] httpx==0.28.1" in done.stderr and "Downloading" not in done.stderr
    assert (root / ".venv" / ".requirements.sha").read_text().startswith("course ")


def test_a_failed_install_shows_pips_own_output_and_stops(tmp_path):
    root, done = _setup_copy(tmp_path, "Collecting nosuch==9\\nERROR: No matching distribution\\n", 1)
    assert done.returncode == 1
    assert "ERROR: No matching distribution" in done.stderr
    assert not (root / ".venv" / ".requirements.sha").exists()
