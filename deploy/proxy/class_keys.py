"""The teacher's tool for the class proxy: a key and a budget for each student, and their spend.

As root (docs/CLASS.md, "Live runs for a class"):

    python3 class_keys.py make --budget 2 alice bob ...   a key for each student who has none
    python3 class_keys.py make --budget 5 alice           a new budget (the key stays)

As root or as a member of the proxy folder's group (the teachers):

    python3 class_keys.py spend                           each student's spend and budget, in dollars

It writes two files: the hub's (HUB_FILE, root's, 600: each student's key in clear, with the
proxy's address and model; the hub's hook hands a student their own key, deploy/hub/home.py)
and the proxy's (PROXY_FILE, owned by the proxy's user, 640 with its folder's group: only the
SHA-256 of each key, with the student and their budget; class_auth.py reads it). Spend is
read from the proxy's ledger (SPEND_FILE, ledger.py writes it, 640 too), the one count there
is. The keys are random (secrets.token_urlsafe) and never printed.

Dollars are whole cents, always rounded against the student: a budget down (`--budget
0.555` is $0.55), spend and a call's worst case up. The table shows them so, and the proxy
refuses by the same cents (`over_budget`), so what the teacher reads is what is refused.
Left out: revoking one key (delete the student's line from both files), teams.
"""

import argparse
import hashlib
import json
import math
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


def write(path: Path, value: dict, owner: str = "root", mode: int = 0o600) -> None:
    """Replace `path` in one step with a file of `owner`'s and of its folder's group."""
    account = pwd.getpwnam(owner)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-")
    with os.fdopen(fd, "w") as file:
        os.fchown(file.fileno(), account.pw_uid, os.stat(path.parent).st_gid)
        os.fchmod(file.fileno(), mode)
        json.dump(value, file, indent=1, sort_keys=True)
    os.replace(temporary, path)


class JsonFile:
    """A JSON file, read again whenever it changes (the teacher adds a student; the ledger writes)."""

    def __init__(self, path: Path, empty):
        self.path, self.empty, self.stamp, self.value = path, empty, None, empty

    def read(self):
        try:
            info = os.stat(self.path)
        except FileNotFoundError:
            return self.empty
        if (info.st_mtime_ns, info.st_size, info.st_ino) != self.stamp:
            self.value = json.loads(self.path.read_text())
            self.stamp = (info.st_mtime_ns, info.st_size, info.st_ino)
        return self.value


def spent(spend_file: Path) -> dict:
    """{student: dollars spent}: the ledger, the one count of spend (ledger.py refuses by it)."""
    return {student: float(dollars) for student, dollars in read(spend_file, {}).items()}


def cents_up(dollars: float) -> int:
    # The 1e-9 keeps a float such as 0.07 * 100 = 7.000000000000001 at 7 cents.
    return math.ceil(dollars * 100 - 1e-9)


def cents_down(dollars: float) -> int:
    return math.floor(dollars * 100 + 1e-9)


def shown(cents: int) -> str:
    return f"{cents / 100:.2f}"


def over_budget(student: str, spend: float, held: float, worst: float, budget: float) -> str:
    """The refusal's text, or '' when the call fits: spend, the calls still running (`held`) and
    this call's worst case, each in cents rounded up, must not pass the budget in whole cents."""
    spend_c, held_c, worst_c = cents_up(spend), cents_up(held), cents_up(worst)
    budget_c = cents_down(budget)
    if spend_c + held_c + worst_c <= budget_c:
        return ""
    running = f", calls still running hold ${shown(held_c)}" if held_c else ""
    return (f"Budget has been exceeded! {student} has spent ${shown(spend_c)} of ${shown(budget_c)}"
            f"{running}, "
            f"and this call could cost up to ${shown(worst_c)} (its prompt and max_tokens at the model's "
            f"prices): ask your teacher, or send a shorter request or a smaller max_tokens.")


def make(args) -> int:
    hub = read(args.hub_file, {"keys": {}})
    hub.update(base_url=args.base_url, model=args.model)
    proxy = read(args.proxy_file, {"keys": {}})
    budget = cents_down(args.budget) / 100
    made = 0
    for student in args.students:
        pwd.getpwnam(student)  # a typo is a KeyError here, before any file changes
        key = hub["keys"].get(student)
        if key is None:
            key = hub["keys"][student] = "sk-class-" + secrets.token_urlsafe(32)
            made += 1
        proxy["keys"][hashlib.sha256(key.encode()).hexdigest()] = {"student": student, "budget": budget}
    write(args.proxy_file, proxy, args.proxy_user, 0o640)
    write(args.hub_file, hub)
    print(f"{made} new keys, {len(args.students) - made} kept; budget ${budget:.2f} each "
          f"for {len(args.students)} students")
    return 0


def spend(args) -> int:
    entries = read(args.proxy_file, {"keys": {}})["keys"].values()
    budgets = {entry["student"]: entry["budget"] for entry in entries}
    spend_of = spent(args.spend_file)
    print(f"{'student':<20} {'spend $':>10} {'budget $':>10} {'left $':>10}")
    for student in sorted(budgets):
        spend_c, budget_c = cents_up(spend_of.get(student, 0.0)), cents_down(budgets[student])
        left = max(budget_c - spend_c, 0)
        print(f"{student:<20} {shown(spend_c):>10} {shown(budget_c):>10} {shown(left):>10}")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hub-file", type=Path, default=HUB_FILE)
    parser.add_argument("--proxy-file", type=Path, default=PROXY_FILE)
    parser.add_argument("--spend-file", type=Path, default=SPEND_FILE)
    commands = parser.add_subparsers(dest="command", required=True)
    making = commands.add_parser("make", help="a key for each student who has none; the budget for all named")
    making.add_argument("students", nargs="+")
    making.add_argument("--budget", type=float, required=True,
                        help="dollars, for the whole course, in whole cents (rounded down)")
    making.add_argument("--base-url", default=BASE_URL, help="the proxy, as students' kernels reach it")
    making.add_argument("--model", default=MODEL, help="the model_name of deploy/proxy/litellm.yaml")
    making.add_argument("--proxy-user", default="course-proxy")
    commands.add_parser("spend", help="each student's spend, budget and what is left, in dollars")
    args = parser.parse_args(argv)
    try:
        return make(args) if args.command == "make" else spend(args)
    except PermissionError as error:   # a teacher outside the proxy folder's group
        print(f"error: {error.filename}: permission denied (root, or the group of its folder, may read it)",
              file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
