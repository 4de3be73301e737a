"""Which of the request's tools does each job the model knows (ROLES), read from each
tool's name, `input_schema` and `description` (docs/DESIGN.md, "The tools it may call").

Left out: a tool that searches file contents (the model greps through a shell), inputs
that are not flat text, and telling two fitting tools apart (the first offered wins).
"""

import re
from dataclasses import dataclass

# A property's name holds one of these words: it takes that input of the model's.
KEYS = {"path": ("path", "file"), "content": ("content", "text", "data"),
        "command": ("command", "cmd", "script"), "pattern": ("pattern", "glob")}


@dataclass(frozen=True)
class Role:
    name: str        # the model's name for the job, the course's tool
    keys: tuple      # the inputs the model fills, all of which the tool must take
    verbs: tuple | None   # a word of these in its name or description; None: by its name only
    without: tuple = ()   # inputs the tool must not take


ROLES = (
    Role("write_file", ("path", "content"), ("write", "create", "save")),
    Role("read_file", ("path",), ("read", "open", "view", "show", "cat"),
         without=("content", "command", "pattern")),
    Role("bash", ("command",), ()),
    Role("glob", ("pattern",), (), without=("command",)),
    Role("compact", (), None),   # the article's own tool, known by its name
)


def fitting(role: Role, tool: dict) -> dict | None:
    """The tool's property for each input of the role's, or None when the tool does not do the job."""
    schema = tool.get("input_schema") if isinstance(tool.get("input_schema"), dict) else {}
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    found = {}   # the model's input key -> the first property that takes it
    for prop in props:
        key = next((k for k, words in KEYS.items() if any(w in prop.lower() for w in words)), None)
        found.setdefault(key, prop)
    said = f"{tool.get('name')} {tool.get('description') or ''}".lower()
    if role.verbs is None or any(k not in found for k in role.keys) \
            or any(k in found for k in role.without):
        return None
    if role.verbs and not any(re.search(rf"(?<![a-z]){verb}", said) for verb in role.verbs):
        return None
    if role.name == "glob" and re.search(r"regex|regular expression|grep", said):
        return None   # a search of file contents: its patterns are not globs
    filled = {found[k]: k for k in role.keys}
    if any(prop not in filled for prop in schema.get("required") or []):
        return None   # it needs an input the model cannot give
    return {key: prop for prop, key in filled.items()}


class Tools:
    """The request's tools, by the job each does for the model."""

    def __init__(self, request: dict):
        offered = [t for t in request.get("tools") or [] if isinstance(t, dict) and t.get("name")]
        self.jobs = {}   # the model's name -> (the tool's name, {model's key: tool's property})
        for role in ROLES:
            if any(t["name"] == role.name for t in offered):   # its name says its job, as always
                self.jobs[role.name] = (role.name, {k: k for k in role.keys})
                continue
            taken = {r.name for r in ROLES} | {name for name, _ in self.jobs.values()}
            fits = ((t["name"], fitting(role, t)) for t in offered if t["name"] not in taken)
            if found := next(((name, keys) for name, keys in fits if keys is not None), None):
                self.jobs[role.name] = found
        self.names = frozenset(self.jobs)

    def name(self, job: str) -> str:
        return self.jobs.get(job, (job,))[0]

    def to_tool(self, job: str, model_input: dict) -> tuple[str, dict]:
        name, keys = self.jobs[job]
        return name, {keys.get(k, k): v for k, v in model_input.items()}

    def to_model(self, name: str, tool_input: dict) -> tuple[str, dict]:
        job = next((j for j, (n, _) in self.jobs.items() if n == name), None)
        back = {prop: key for key, prop in self.jobs[job][1].items()} if job else {}
        return job or name, {back.get(k, k): v for k, v in tool_input.items()}
