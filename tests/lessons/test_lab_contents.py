"""The course's contents manager hands out a Python notebook with the language_info its
kernel reports, so that JupyterLab's update on connect changes nothing (tests/browser/test_browser.py
sees the tab stay clean); the file on disk is untouched."""

import asyncio
import shutil
from pathlib import Path

from ipykernel.ipkernel import IPythonKernel

from compact_course.lessons.lab_contents import CourseContentsManager, as_the_kernel_reports

ROOT = Path(__file__).resolve().parents[2]
STORED = ROOT / "notebooks" / "00_why_compaction.ipynb"


def test_a_stored_notebook_is_served_with_the_kernels_language_info(tmp_path):
    shutil.copy(STORED, tmp_path / STORED.name)
    before = (tmp_path / STORED.name).read_bytes()
    model = asyncio.run(CourseContentsManager(root_dir=str(tmp_path)).get(STORED.name))
    served = model["content"]["metadata"]["language_info"]
    assert served == IPythonKernel.language_info            # what the kernel_info reply says
    assert served["version"] != "3.11"                      # the stored pin, a patch release now
    assert served is not IPythonKernel.language_info
    assert (tmp_path / STORED.name).read_bytes() == before  # nothing written


def test_other_models_are_left_alone():
    bash = {"type": "notebook", "content": {"metadata": {"language_info": {"name": "bash"}}}}
    assert as_the_kernel_reports(bash)["content"]["metadata"]["language_info"] == {"name": "bash"}
    listing = {"type": "notebook", "content": None}  # asked for without its content
    assert as_the_kernel_reports(listing) == listing
    text = {"type": "file", "content": "language_info"}
    assert as_the_kernel_reports(text) == text
    bare = {"type": "notebook", "content": {"metadata": {}, "cells": []}}
    assert as_the_kernel_reports(bare)["content"]["metadata"] == {}
