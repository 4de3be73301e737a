"""A class on one machine, the students' side: notebooks run through each kernel's websocket, and memory.

`deploy/class/classroom.py` makes the students and starts the hub; here, a notebook
runs in every student's server at once, as a browser tab would run it (each code
cell an `execute_request` on the kernel's websocket), and each server's and
kernel's RSS is read as root. deploy/class/bench_classroom.py prints the figures;
tests/deploy/test_hub.py checks isolation with the same pieces.

Left out: widgets and anything else a browser renders, and timing per cell.
"""

import json
import pwd
import time
import urllib.error
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

MB = 1024 * 1024


# -- a notebook through the kernel websocket ---------------------------------------------

@dataclass
class NotebookRun:
    """One student's run of one notebook: its kernel, how long, and what went wrong."""
    student: str
    notebook: str
    kernel_id: str = ""
    session_id: str = ""
    seconds: float = 0.0
    kernel_started: bool = False
    errors: list = field(default_factory=list)


def message(msg_type: str, content: dict, session: str) -> dict:
    header = {"msg_id": uuid.uuid4().hex, "msg_type": msg_type, "session": session,
              "username": "classroom", "date": "", "version": "5.3"}
    return {"header": header, "parent_header": {}, "metadata": {}, "content": content,
            "channel": "shell", "buffers": []}


def await_reply(ws, request: dict, errors: list, timeout: float) -> dict:
    """Messages until the request's reply and its idle status; error outputs go to `errors`."""
    ws.settimeout(timeout)
    msg_id, reply, idle = request["header"]["msg_id"], None, False
    while reply is None or not idle:
        answer = json.loads(ws.recv())
        if answer.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        kind = answer["header"]["msg_type"]
        if kind == "error":
            errors.append(f"{answer['content']['ename']}: {answer['content']['evalue']}")
        elif kind == "status" and answer["content"]["execution_state"] == "idle":
            idle = True
        elif kind.endswith("_reply"):
            reply = answer
    return reply


def run_notebook(hub, student: str, notebook: str, cell_timeout: float = 300) -> NotebookRun:
    """Open `notebooks/<notebook>` in the student's server and run its code cells in order."""
    import nbformat
    import websocket
    run = NotebookRun(student, notebook)
    base = f"/user/{student}"
    started = time.monotonic()
    try:
        session = hub.api("POST", f"{base}/api/sessions", {
            "path": f"notebooks/{notebook}", "type": "notebook", "name": notebook,
            "kernel": {"name": "python3"}}, timeout=120)
        run.session_id, run.kernel_id = session["id"], session["kernel"]["id"]
        # The client's session id in the URL, as JupyterLab sends it (the server warns without one).
        client = uuid.uuid4().hex
        ws = websocket.create_connection(
            f"ws://127.0.0.1:{hub.port}{base}/api/kernels/{run.kernel_id}/channels?session_id={client}",
            header=[f"Authorization: token {hub.token}"], timeout=60, suppress_origin=True)
    except Exception as error:  # noqa: BLE001  any failure to start is a failed kernel start
        run.errors.append(f"kernel start: {type(error).__name__}: {error}")
        return run
    try:
        info = message("kernel_info_request", {}, client)
        ws.send(json.dumps(info))
        run.kernel_started = await_reply(ws, info, run.errors, timeout=120) is not None
        cells = nbformat.read(hub.course / "notebooks" / notebook, as_version=4).cells
        for cell in (c for c in cells if c.cell_type == "code"):
            request = message("execute_request", {
                "code": cell.source, "silent": False, "store_history": True,
                "user_expressions": {}, "allow_stdin": False, "stop_on_error": True}, client)
            ws.send(json.dumps(request))
            reply = await_reply(ws, request, run.errors, timeout=cell_timeout)
            if reply["content"].get("status") != "ok":
                break
    except Exception as error:  # noqa: BLE001  a dead kernel or a lost socket, said as such
        run.errors.append(f"{type(error).__name__}: {error}")
    finally:
        ws.close()
    run.seconds = time.monotonic() - started
    return run


def run_everywhere(hub, notebook: str) -> list:
    """The notebook in every student's server at once, one thread each."""
    with ThreadPoolExecutor(max_workers=len(hub.students)) as pool:
        return list(pool.map(lambda student: run_notebook(hub, student, notebook), hub.students))


def close_sessions(hub, runs: list) -> None:
    for run in runs:
        if run.session_id:
            try:
                hub.api("DELETE", f"/user/{run.student}/api/sessions/{run.session_id}")
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass


# -- memory ------------------------------------------------------------------------------

def memory_of(student: str) -> dict:
    """RSS in MB of a student's server and of each of their kernels."""
    import psutil
    uid, server, kernels = pwd.getpwnam(student).pw_uid, 0.0, []
    for process in psutil.process_iter(["uids", "cmdline", "memory_info"]):
        if not process.info["uids"] or process.info["uids"].real != uid:
            continue
        command = " ".join(process.info["cmdline"] or ())
        rss = process.info["memory_info"].rss / MB
        if "ipykernel_launcher" in command:
            kernels.append(rss)
        elif "jupyterhub-singleuser" in command:
            server += rss
    return {"server": server, "kernels": kernels}


def connection_file(hub, student: str, kernel_id: str) -> dict:
    """A kernel's connection file, from the student's runtime folder (root reads it)."""
    uid = pwd.getpwnam(student).pw_uid
    return json.loads((hub.runtime_root / str(uid) / f"kernel-{kernel_id}.json").read_text())
