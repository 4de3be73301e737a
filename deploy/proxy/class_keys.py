"""The teacher's tool for the class proxy: a key and a budget for each student, and their spend.

As root (README, "Live runs for a class"):

    python3 class_keys.py make --budget 2 alice bob ...   a key for each student who has none
    python3 class_keys.py make --budget 5 alice           a new budget (the key stays)
    python3 class_keys.py spend                           each student's spend and budget

It writes two files, both 600: the hub's (HUB_FILE: each student's key in clear, with the
proxy's address and model; the hub's hook hands a student their own key, deploy/hub/home.py)
and the proxy's (PROXY_FILE, owned by the proxy's user: only the SHA-256 of each key, with
the student and their budget; class_auth.py reads it). Spend is read from the proxy's
ledger (SPEND_FILE), the one count there is: the proxy refuses a student by the same file and
the same figures (`spent`, `over_budget`), so it refuses them exactly when this table's spend
reaches their budget. The keys are random (secrets.token_urlsafe) and never printed.
Left out: revoking one key (delete the student's line from both files), teams.
"""

import argparse
import hashlib
import json
import os
import pwd
import secrets
import sys
import tempfile
from pathlib import Path

HUB_FILE = Path("/srv/jupyterhub/class-keys.json")
PROXY_FILE = Path("/var/lib/course-proxy/keys.json")
SPEND_FILE = Path("/var/lib/course-proxy/spend.json")
BASE_URL = "http://127.0.0.1:4000"
MODEL = "course-model"


def read(path: Path, empty: dict) -> dict:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        return empty


def write(path: Path, value: dict, owner: str = "root") -> None:
    """Replace `path` in one step with a 600 file of `owner`'s."""
    account = pwd.getpwnam(owner)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-")
    with os.fdopen(fd, "w") as file:
        os.fchown(file.fileno(), account.pw_uid, account.pw_gid)
        os.fchmod(file.fileno(), 0o600)
        json.dump(value, file, indent=1, sort_keys=True)
    os.replace(temporary, path)


def spent(spend_file: Path) -> dict:
    """{student: dollars spent}: the ledger, the one count of spend (class_auth.py refuses by it)."""
    return {student: float(dollars) for student, dollars in read(spend_file, {}).items()}


def dollars(spend: float, budget: float) -> tuple:
    """The spend and budget as this table and the proxy's refusal both print them."""
    return f"{spend:.4f}", f"{budget:.2f}"


def over_budget(student: str, spend: float, budget: float) -> str:
    """The refusal's text, or '' while the student is under budget: spend >= budget refuses."""
    if spend < budget:
        return ""
    shown_spend, shown_budget = dollars(spend, budget)
    return (f"Budget has been exceeded! {student} has spent ${shown_spend} of ${shown_budget} "
            f"(Current cost: {shown_spend}, Max budget: {shown_budget}): ask your teacher.")


def make(args) -> int:
    hub = read(args.hub_file, {"keys": {}})
    hub.update(base_url=args.base_url, model=args.model)
    proxy = read(args.proxy_file, {"keys": {}})
    made = 0
    for student in args.students:
        pwd.getpwnam(student)  # a typo is a KeyError here, before any file changes
        key = hub["keys"].get(student)
        if key is None:
            key = hub["keys"][student] = "sk-class-" + secrets.token_urlsafe(32)
            made += 1
        proxy["keys"][hashlib.sha256(key.encode()).hexdigest()] = {"student": student, "budget": args.budget}
    write(args.proxy_file, proxy, args.proxy_user)
    write(args.hub_file, hub)
    print(f"{made} new keys, {len(args.students) - made} kept; budget ${args.budget:.2f} each "
          f"for {len(args.students)} students")
    return 0


def spend(args) -> int:
    entries = read(args.proxy_file, {"keys": {}})["keys"].values()
    budgets = {entry["student"]: entry["budget"] for entry in entries}
    spend_of = spent(args.spend_file)
    print(f"{'student':<20} {'spend $':>10} {'budget $':>10}")
    for student in sorted(budgets):
        shown_spend, shown_budget = dollars(spend_of.get(student, 0.0), budgets[student])
        print(f"{student:<20} {shown_spend:>10} {shown_budget:>10}")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hub-file", type=Path, default=HUB_FILE)
    parser.add_argument("--proxy-file", type=Path, default=PROXY_FILE)
    parser.add_argument("--spend-file", type=Path, default=SPEND_FILE)
    commands = parser.add_subparsers(dest="command", required=True)
    making = commands.add_parser("make", help="a key for each student who has none; the budget for all named")
    making.add_argument("students", nargs="+")
    making.add_argument("--budget", type=float, required=True, help="dollars, for the whole course")
    making.add_argument("--base-url", default=BASE_URL, help="the proxy, as students' kernels reach it")
    making.add_argument("--model", default=MODEL, help="the model_name of deploy/proxy/litellm.yaml")
    making.add_argument("--proxy-user", default="course-proxy")
    commands.add_parser("spend", help="each student's spend and budget")
    args = parser.parse_args(argv)
    return make(args) if args.command == "make" else spend(args)


if __name__ == "__main__":
    sys.exit(main())
