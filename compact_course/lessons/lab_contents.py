"""The course's JupyterLab serves a stored notebook with the kernel's own `language_info`.

When a kernel connects, JupyterLab writes the kernel's `language_info` (from its
kernel_info reply) into the notebook's metadata, and any value that differs from
the stored one marks the document as changed: the tab's "unsaved" dot, and an
"unsaved changes" prompt on close, for a notebook nobody touched. The stored
notebooks pin `language_info.version` to "3.11" (scripts/build_notebooks.py), so
that a build is the same bytes on every machine; ipykernel reports its patch
release ("3.11.7"). The JupyterLab server and its python3 kernel are the same
interpreter (the course's .venv), so this contents manager hands out each Python
notebook with the `language_info` that interpreter's ipykernel reports: on connect
JupyterLab finds the same value, changes nothing, and the notebook opens clean on
any 3.11, 3.12 or 3.13. The file on disk is not touched; a notebook the learner
saves gets what the kernel reported, as it would anyway.

scripts/course.sh and deploy/hub/jupyterhub_config.py name the class with
`--ServerApp.contents_manager_class`; jupytext's server extension builds its own
manager on top of it, so .py sources still open as notebooks.

Left out: a kernel other than this interpreter's ipykernel (a user's own python3
kernelspec) still rewrites the version on connect, and the dot shows.
"""

import copy

from ipykernel.ipkernel import IPythonKernel
from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager


def as_the_kernel_reports(model: dict) -> dict:
    """A contents model, with a Python notebook's language_info set to this kernel's."""
    if model.get("type") != "notebook" or not isinstance(model.get("content"), dict):
        return model
    metadata = model["content"].get("metadata")
    stored = metadata.get("language_info") if isinstance(metadata, dict) else None
    if isinstance(stored, dict) and stored.get("name") == "python":
        # A copy: the kernel's class attribute must not be shared with a model.
        metadata["language_info"] = copy.deepcopy(IPythonKernel.language_info)
    return model


class CourseContentsManager(AsyncLargeFileManager):
    """jupyter_server's default contents manager; notebooks served as above."""

    async def get(self, path, content=True, type=None, format=None, **kwargs):
        model = await super().get(path, content=content, type=type, format=format, **kwargs)
        return as_the_kernel_reports(model)
