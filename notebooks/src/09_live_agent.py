# %% [markdown] id="title"
# # 09 · The live agent run
#
# Everything so far replayed canned histories. Now the article's agent (sections 9 and 13)
# runs for real: `compact_course.agent.loop.Agent`, with its six tools, `prepare` before every
# model call, one reactive compaction on a refusal, and the compact tool.
#
# **Which model?** By default the offline model: a local server speaking the Messages API
# on 127.0.0.1 through the real `anthropic` SDK, with no key and no network. It is a
# deterministic program, not a language model: it answers only from what the request
# holds, or says it cannot tell (`tests/offline/test_offline_truth.py`). With `ANTHROPIC_API_KEY`
# and `MODEL_ID` set, the same cells talk to the real API and print what it answers; `CI`
# or `COMPACT_OFFLINE` keeps the notebook offline; a cassette replays a recorded run
# ([docs/INSTALL.md](../docs/INSTALL.md)).

# %% [markdown] id="goal"
# **Goal.** You will watch the whole pipeline work inside the article's agent, predict what
# your own `prepare` from notebook 08 does on a run no page shows, run it, and take it into a
# plain SDK loop of your own. About 25 minutes on your own; in the 90-minute class, 10
# (docs/TEACHING.md).

# %%
# %matplotlib inline
import tempfile
from pathlib import Path

from IPython.display import display

from context_compact import CompactionConfig
from context_compact.messages import text_of, tool_results, tool_uses
from compact_course.agent.loop import Agent
from compact_course.agent.tasks import COMPARE_CODE, DOCS_JSON
from compact_course.lessons.charts import timeline_chart
from compact_course.agent.workspace import fresh_workspace
from compact_course.lessons.live_run import calls_only, page_model
from compact_course.lessons.replay import call_points, seeded_ids

choice = page_model()   # prints which model answers, and whether a cassette records or replays
# The agent's folder is also the compactor's root: transcripts and saved results land in it.
scratch = tempfile.TemporaryDirectory(prefix="live-run-")
workspace = fresh_workspace(scratch.name)

# %% [markdown] id="experiment-3-two-large-code"
# ## Experiment 3: two large code files, the seed profile
#
# Lines starting `>` are tool calls, bracketed ones what the compactor prints, as in the
# article (`echo=print` shows the results too). After the summary neither file's text is
# left: the agent goes on from the `[Compacted]` message.

# %%
compare_run = Agent(workspace, choice.client, choice.model, config=CompactionConfig.seed(),
                    new_id=seeded_ids(), echo=calls_only)
compare_answer = compare_run.ask(COMPARE_CODE)
after = compare_run.messages  # the context from the summary on
for name in ("s08_context_compact/code.py", "s09_memory/code.py"):
    start = (workspace / name).read_text(encoding="utf-8")[:2000]
    present = any(start in text_of(b["content"]) for m in after for b in tool_results(m))
    print(f"{name}: its text in the context after the summary: {present}")
print("first message:", after[0]["content"].split("\n")[0], "; tool calls after it:",
      [use["name"] for m in after for use in tool_uses(m)])

# %% [markdown] id="experiment-2-a-huge-json-file"
# ## Experiment 2: a huge JSON file, the default profile, and what the runs leave
#
# A new agent in the same workspace: the read of `docs.json` is over step 1's limits, so it
# goes to disk with a preview, and no summary is needed. `.transcripts/` holds each list
# archived or summarized; `.task_outputs/tool-results/` the full text of each result moved
# out of the context. In the charts, grey is the context as it reached `prepare`, blue what
# was sent; the strip marks where a step fired (`persist_largest` is the default profile's
# pass before step 4: it saves the largest results to disk first, flaw 8 in docs/DESIGN.md).

# %%
json_run = Agent(workspace, choice.client, choice.model, config=CompactionConfig(),
                 new_id=seeded_ids(seed=9), echo=calls_only)
json_answer = json_run.ask(DOCS_JSON)
for name, agent in (("experiment 3, seed", compare_run), ("experiment 2, default", json_run)):
    fired = sorted({r.step for r in agent.compactor.records if r.fired})
    print(f"{name}: model calls {agent.model_calls}, summary calls "
          f"{sum(r.model_calls for r in agent.compactor.records)}, steps fired: {', '.join(fired)}")
    for written in agent.compactor.store.written:
        print(f"    {written}: {len((workspace / written).read_text(encoding='utf-8')):,d} characters")
limit = CompactionConfig().context_char_limit
display(timeline_chart(call_points(compare_run.compactor.records), limit,
                       title="Experiment 3, seed profile: context at each model call"),
        timeline_chart(call_points(json_run.compactor.records), limit,
                       title="Experiment 2, default profile: context at each model call"))
choice.close()   # the cells below start models of their own, never recorded

# %% [markdown] id="predict-your-prepare"
# ## Predict, then run: your prepare, live
#
# The agent now runs **your** `prepare` (`my_compact.py`) before every model call, at the
# article's numbers, on a run no page shows: experiments 2 then 3, in one conversation. With
# the offline model, the replies to calls 1 to 7 are: a read of `docs.json` (its result:
# 287,938 characters), a bash command (8,000), the answer; a read of s08's `code.py` (30,765),
# of s09's (30,166), a grep (2,822), the answer. Sizes are the tool results the model sees.
# First write in `prediction`, for each of your four steps, the calls at which it changes the
# list (step 4: runs), and the files on disk after: `saved_results` in
# `.task_outputs/tool-results/`, `transcripts` in `.transcripts/`. The checker compares it with
# your run; a pass shows the run's record.

# %%
from compact_course.lessons.exercises import check_my_run
from compact_course.lessons.live_run import live_run

prediction = None   # e.g. {"tool_result_budget": [1], "snip_compact": [], "micro_compact": [3, 4],
#                           "compact_history": [], "saved_results": 0, "transcripts": 2}

my_run = live_run(DOCS_JSON, COMPARE_CODE)   # one conversation: experiment 2, then 3
result = check_my_run(prediction, my_run)

# %% [markdown] id="your-own-loop"
# ## The same pipeline in your own loop
#
# Any agent on the `anthropic` SDK can run your `prepare`: before each `messages.create`, hand
# it the list, and send what it returns. `summarize` is the model call step 4 is handed. Copy
# `my_agent` into your own agent. It sends the agent's system prompt, which says to follow
# instructions only from "Current user request".
# [docs/RECIPE.md](../docs/RECIPE.md) and [examples/own_loop.py](../examples/own_loop.py) show
# the package's version, with what this one leaves out: the refusal's one retry
# (`reactive_compact`, notebook 06), the `compact` tool (07; not sent),
# token limits, and a guard that stops summaries that make no progress.

# %%
from compact_course.agent.loop import SYSTEM
from compact_course.agent.tools import TOOLS, run_tool
from compact_course.agent.model import choose_model
from compact_course.lessons.live_run import offline_forced, your_prepare
from context_compact.formats import SUMMARY_SYSTEM


def my_agent(client, model, root, request, prepare, limit=50_000):
    def summarize(text):   # step 4's model call
        reply = client.messages.create(model=model, system=SUMMARY_SYSTEM, max_tokens=2000,
                                       messages=[{"role": "user", "content": text}])
        return reply.content[0].text
    tools = [t for t in TOOLS if t["name"] != "compact"]   # this loop would not run it
    messages = [{"role": "user", "content": request}]
    while True:
        messages = prepare(messages, root, request, summarize, limit)   # before every call
        reply = client.messages.create(model=model, system=SYSTEM, max_tokens=4000, tools=tools,
                                       messages=messages)
        messages.append({"role": "assistant", "content": [b.model_dump(mode="json", exclude_none=True)
                                                          for b in reply.content]})
        uses = [b for b in reply.content if b.type == "tool_use"]
        if not uses:
            return "".join(b.text for b in reply.content if b.type == "text")
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": u.id, "content": str(run_tool(root, u.name, u.input))}
            for u in uses]})


own = choose_model(offline=offline_forced(), echo=None, record=False)
root = fresh_workspace(Path(scratch.name) / "own-loop")
answer = my_agent(own.client, own.model, root, DOCS_JSON, your_prepare())
own.close()
print("the answer's last line:", answer.strip().splitlines()[-1])
print("on disk:", sorted(p.relative_to(root).as_posix() for p in root.glob(".*/**/*") if p.is_file()))
scratch.cleanup()

# %% [markdown] id="recap"
# **Recap.**
# - Your `prepare` (the article's, until yours is written) ran before every call of a live
#   agent, and of a loop of your own.
# - In experiment 3 the two code files pushed the context over the limit and cost a summary;
#   in experiment 2 step 1 moved the huge JSON result to disk, with a preview.
# - Everything taken out of the context is in `.transcripts/` or `.task_outputs/tool-results/`.
#
# **Diff your build** against the article's own code as the project keeps it,
# [compact_course/article.py](../compact_course/article.py), and read where the package's
# default profile differs from it: the numbered flaws of [docs/DESIGN.md](../docs/DESIGN.md).
#
# **Next:** the labs (`labs/`), from lab 01: the article's design against the default
# profile.

# %% [markdown] id="references"
# **References.**
# - The article, sections 9 (the agent loop) and 13 (the experiments): the chapter's own
#   page, in English, https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/README.en.md
#   (where its code differs from the article: docs/AFTER_THE_ARTICLE.md)
