"""Lab 06's helpers: a tool loop with thinking on, through each profile, against the offline server.

    agent, refusal = agent_session(client, fresh_workspace(folder), "seed")   # the agent, thinking on
    messages = tool_loop(client, turns=3)                               # a raw SDK loop, thinking on
    rows = in_place_or_whole(turns=60)                                  # the bench: cost beside validity
    cost_chart(rows)                                                    # the lab's figure

The agent is `compact_course.agent.loop.Agent` with `thinking=THINKING`; the raw loop sends
each assistant turn back as received; `shrink_result` is the article's step 3 edit of one
message (its placeholder). The bench rows are `run_session` with thinking on, for the
seed, the default, and the default with `append_only_thinking` off (its in-place edits
kept), priced as the bench prices (`compact_course.bench.prices.DEFAULT_MODEL`).

Left out: a real model (the lab runs the offline server; with a key the same requests
go to the API, whose check this server plays).
"""


import anthropic
from matplotlib.figure import Figure

from context_compact.config import CompactionConfig
from context_compact.store import seeded_ids

from ..agent import tasks
from ..agent.loop import THINKING, Agent
from ..agent.tools import TOOLS
from ..agent.workspace import fresh_workspace  # noqa: F401  (lab 06 calls lab.fresh_workspace)
from ..bench.benchmark import COLOURS, run_session
from ..bench.prices import DEFAULT_MODEL, price
from ..bench.simulated import make_session
from ..display.fonts import use_cjk_fallback
from ..display.lang import choose
from ..offline import MODEL_NAME

SYSTEM = "You are a coding agent working in a workspace folder."
DESIGNS = (("seed", {}), ("default, edits in place", {"append_only_thinking": False}), ("default", {}))


def agent_session(client, workspace, profile: str, **config):
    """The five-README task with thinking on: (agent, the 400's message or None)."""
    agent = Agent(workspace, client, MODEL_NAME, config=CompactionConfig.named(profile, **config),
                  echo=None, new_id=seeded_ids(), thinking=THINKING)
    try:
        agent.ask(tasks.task_text("titles"))
    except anthropic.BadRequestError as error:
        return agent, error.body["error"]["message"]
    return agent, None


def tool_loop(client, turns: int = 3) -> list:
    """A tool loop with thinking on, every assistant turn sent back as received."""
    messages = [{"role": "user", "content": "What is the title of README.md? Read it."}]
    for n in range(turns):
        reply = client.messages.create(model=MODEL_NAME, max_tokens=4000, system=SYSTEM, tools=TOOLS,
                                       messages=messages, thinking=THINKING)
        messages.append({"role": "assistant", "content": [b.model_dump(exclude_none=True)
                                                          for b in reply.content]})
        uses = [b for b in reply.content if b.type == "tool_use"]
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": use.id, "content": f"# Title {n}\n" + "line\n" * 200}
            for use in uses] or f"Go on, turn {n}."})
    return messages


def shrink_result(messages: list, index: int) -> list:
    """The messages with message `index`'s tool results made the article's placeholder."""
    out = list(messages)
    out[index] = {**out[index], "content": [{**b, "content": "[Earlier tool result omitted.]"}
                                            for b in out[index]["content"]]}
    return out


def thinking_paths(messages) -> list[str]:
    return [f"messages.{i}.content.{j}" for i, m in enumerate(messages) if isinstance(m["content"], list)
            for j, b in enumerate(m["content"]) if b.get("type") == "thinking"]


def in_place_or_whole(kind: str = "tool-heavy", turns: int = 60, seed: int = 0) -> list[dict]:
    """Bench rows with thinking on, one per design of DESIGNS (its name in `design`)."""
    session = make_session(kind, turns, seed)
    return [{**run_session(session, name.split(",")[0], limits=limits, thinking=True), "design": name}
            for name, limits in DESIGNS]


def priced_as() -> str:
    return price(DEFAULT_MODEL).name


def cost_chart(rows: list[dict]) -> Figure:
    """Cost and thinking blocks invalidated, one bar each per design."""
    use_cjk_fallback()
    figure = Figure(figsize=(8, 3.2), dpi=100, layout="constrained")
    left, right = figure.subplots(1, 2)
    names = [r["design"] for r in rows]
    colours = [COLOURS["seed" if n == "seed" else "default"] for n in names]
    colours[1] = COLOURS["default+cold"]
    # Each panel's words go in its title and a short x label on two lines: two long
    # one-line x labels side by side ran into each other (issue 52).
    left.barh(names, [r["cost"] / 1000 for r in rows], color=colours)
    left.set_title(choose("cost", "费用"))
    left.set_xlabel(choose(f"thousands of base input tokens\n({priced_as()})",
                           f"千个基础输入 token\n（{priced_as()}）"))
    right.barh(names, [r["thinking_invalid"] for r in rows], color=colours)
    right.set_title(choose("thinking blocks sent back invalid", "发回时已失效的思考块"))
    # One block opens each turn's reply: the 60 are the turns, not the calls (summaries add some).
    turns = rows[0]["turns"]
    right.set_xlabel(choose(f"blocks (one per turn, of {turns})", f"块（每轮一个，共 {turns} 个）"))
    right.set_yticks([])
    for axis in (left, right):
        axis.invert_yaxis()
    return figure
