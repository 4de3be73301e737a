# %% [markdown] id="title"
# # Lab 01 · The article's design against the default profile
#
# **The question.** Over a whole session, what does the article's design lose and spend
# that the default profile does not?
#
# `CompactionConfig.seed()` is the article's design, flaws included:
# `tests/pipeline/test_differential.py` finds it doing what a flat copy of the article's code
# does, call after call, but for the safety fixes that hold in both profiles (flaws 6, 7,
# 9, 11, 12). `CompactionConfig()`, the default, keeps its thresholds and fixes the
# behavioural flaws, numbered 1-19 in [docs/DESIGN.md](../docs/DESIGN.md) (10 is withdrawn).
# The first cell prints its switches; the main ones:
#
# | flaw | the seed (the article) | the default |
# |---|---|---|
# | 1 | step 3 leaves `[Earlier tool result omitted.]`, no copy anywhere | saves the text first |
# | 2 | step 3 rewrites old messages on every call | acts only over the limit, down to a target |
# | 3 | a batch of more than 3 results can shrink unread | unread results stay whole |
# | 4, 5 | step 2 keeps 51 messages: the next call archives again | cuts to 30 |
# | 8, 18 | a large fresh result stays whole, or buys a summary | saved to disk first |
# | 14 | step 2 may archive this turn's request | the request stays visible, once |
# | 17 | with flaw 2 fixed, steps 2 and 3 break the cache on different calls | both in one call |

# %% [markdown] id="goal"
# **Goal.** You will see what the two profiles lose and spend call by call on a whole
# session, then count what flaw 3 costs in code of your own. About 25 minutes on your own; not part of
# the 90-minute class (docs/TEACHING.md).

# %%
# %matplotlib inline
from IPython.display import display

from compact_course.bench.cost import CostLedger, message_json
from compact_course.lessons.exercises import check_unread_shrunk, hint
from compact_course.lessons.prefix import PrefixCounter
from compact_course.lessons.replay import outputs_lost, timeline
from compact_course.lessons.widgets import explore, threshold_explorer
from context_compact import CompactionConfig

seed, default = CompactionConfig.seed(), CompactionConfig()
changed = {k: (v, default.as_dict()[k]) for k, v in seed.as_dict().items()
           if v != default.as_dict()[k] and k != "profile"}
for name, (in_seed, in_default) in changed.items():
    print(f"{name:28} seed: {in_seed!s:6} default: {in_default}")

# %% [markdown] id="a-whole-session-call-by-call"
# ## A whole session, call by call
#
# `timeline` feeds a canned session to `prepare` one model call at a time, as the agent
# would, and we count what each profile spends and loses. The cost is the requests' bill in
# base input tokens, cached as lab 02 bills it (a request that starts with the previous one
# reads it at 0.1; everything else is written at 1.25); nothing expires here.

# %%
def compare(name: str, profile: str) -> dict:
    ledger, prefix = CostLedger(), PrefixCounter()

    def book(_point, sent):
        ledger.add_request([message_json(m) for m in sent])
        prefix.add(sent)

    calls = timeline(name, profile, observe=book)
    written = calls.compactor.store.written
    return {
        "model calls": len(calls.points),
        "summary calls": sum(r.fired for r in calls.records if r.step == "compact_history"),
        "transcripts written": sum(f.startswith(".transcripts/") for f in written),
        "calls where step 3 rewrote old results": len(calls.calls_where("micro_compact")),
        "cached share of a request, mean (%)": prefix.cached_percent,
        "cost (thousands)": round(ledger.cost / 1000),
        "tool outputs lost for good": outputs_lost(name, profile),
    }


for name in ("long_session", "timeline_150"):
    rows = {profile: compare(name, profile) for profile in ("seed", "default")}
    print(f"{name + ':':42}{'seed':>8}{'default':>12}")
    for field in rows["seed"]:
        print(f"  {field:40}{rows['seed'][field]:>8,d}{rows['default'][field]:>12,d}")

# %% [markdown] id="read-the-table"
# Read it from the bottom. The seed loses tool outputs for good (flaw 1: step 3's `omitted`
# placeholders). It rewrites old results on many calls (flaw 2) and, past 50 messages,
# archives again and again (flaws 4 and 5), so a smaller share of each request is cached,
# and it costs more. The default loses nothing.
#
# ## The chart: every call of `timeline_150`
#
# Grey: the context as it reaches a call; blue: what `prepare` sends; the strip below marks
# the calls where each step fired.
#
# **Try this.** Switch the profile to default and compare the strip's `micro_compact` and
# `snip_compact` rows with the table. Then lower `context_char_limit` to 10,000:
# `snip_compact` marks more calls, each an archive that breaks the cache, and
# `micro_compact` still none: over the limit, step 2 archives the oldest messages in that
# same call (flaw 17's switch), leaving step 3 nothing old to shrink.

# %% tags=["nbval-ignore-output"]
threshold_explorer("timeline_150", profile="seed")

# %% [markdown] id="the-explorers-first"
# The explorer's first view (the seed profile at the article's numbers):

# %%
display(*explore("timeline_150", "seed"))

# %% [markdown] id="flaw-3"
# ## Check yourself: what flaw 3 costs
#
# The article's step 3 keeps the newest 3 results whole, but one batch can hold more: then
# results the model has not read yet are shrunk. The default's fix is one index: results
# after the model's last reply stay whole, however many there are.
#
# Write `unread_shrunk(sizes, fresh)`. `sizes` are the lengths, in characters, of every tool
# result in the list, oldest first; the last `fresh` arrived in one batch after the model's
# last reply. Return how many of those unread results the seed's step 3 turns into
# placeholders on this call: put step 3's two rules (notebook 03) together with the line
# between read and unread. The checker runs the package's own step 3 on messages of those
# sizes, fixed and random; `hint()` names the mistake it recognises.

# %%
def unread_shrunk(sizes, fresh) -> int:
    raise NotImplementedError  # your code here


result = check_unread_shrunk(unread_shrunk)

# %%
open_hint = False  # set it to True and run this cell: the hint for your last check
if open_hint:
    hint()

# %% [markdown] id="recap"
# **Recap.**
# - The seed profile is the article's code but for five safety fixes; the default keeps
#   its numbers and fixes its behavioural flaws.
# - Over a whole session the seed loses tool outputs for good and rewrites old messages on
#   many calls; the default loses none.
# - How often a design rewrites the start of the list decides its cost as much as how
#   small the list is.
#
# **Next:** lab 02, the benchmark: the designs over long generated sessions.

# %% [markdown] id="references"
# **References.** [docs/DESIGN.md](../docs/DESIGN.md), the flaws;
# [docs/AFTER_THE_ARTICLE.md](../docs/AFTER_THE_ARTICLE.md), what the upstream code changed
# after the article; [docs/ARTICLE_MAP.md](../docs/ARTICLE_MAP.md), the article's own tests
# on both profiles; prompt caching, which each rewrite of an old message breaks:
# https://platform.claude.com/docs/en/build-with-claude/prompt-caching
#
# **To discuss.** The seed's step 3 runs on every call, the default's only over the limit.
# For an agent billed by the cached token, which would you pick, and what would change your
# mind?
