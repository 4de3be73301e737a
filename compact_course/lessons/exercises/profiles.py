"""labs/01 · the article against the default profile.

Code: `unread_shrunk(sizes, fresh)`, flaw 3 counted. `sizes` are the lengths
of every tool result in the list, oldest first; the last `fresh` of them came
in the batch after the model's last reply, so the model has not read them
yet. The learner returns how many of those unread results the seed profile's
step 3 turns into placeholders on this call. No sentence gives the count: it
takes the two rules of step 3 together (the newest 3 results stay whole, by
position, whatever their size; an older one is shrunk only when longer than
120 characters) and the line between read and unread. The reference runs the
package's own step 3 (seed profile) on real messages of those sizes and counts.
The traps: counting every unread result over 120 (forgetting that the newest
3 of the whole list stay whole, unread ones too); counting every result
shrunk, read ones too; keeping the newest 3 *long* results instead of the
newest 3; shrinking 120 characters exactly; counting every unread result older
than the newest 3 whatever its size (`max(0, fresh - 3)`: a short one is never
shrunk).
The default profile shrinks none of them (flaw 3's fix), which the notebook
shows beside the checker.

Left out: the default's own count (always 0, nothing to compute).
"""

import tempfile

from context_compact.config import CompactionConfig
from context_compact.messages import text_of, tool_results

from ...display.phrases import say
from .build import rng, tool_pair
from .catalogue import exercise
from .check import CheckResult, check_function, hint

CASES = [
    ("five unread reads", ([5000, 8000, 8000, 8000, 8000, 8000], 5)),
    ("three unread: the newest 3 stay", ([5000, 5000, 8000, 8000, 8000], 3)),
    ("a short one among the newest 3", ([8000, 8000, 8000, 8000, 60], 5)),
    ("exactly 120 characters, unread", ([60, 120, 121, 8000, 8000, 8000], 6)),
    ("everything read already", ([8000] * 6, 0)),
    ("old reads shrink too, but were read", ([9000, 9000, 9000, 400, 400, 400, 400], 4)),
    ("short unread ones stay whole", ([8000, 60, 60, 8000, 8000, 8000], 5)),
]
SIZES = (60, 120, 121, 3_000, 30_000)


def messages_for(sizes, fresh: int) -> list:
    """A request, one call per read result, then the unread ones in one batch."""
    texts = [(f"toolu_{n:03d}", "x" * size) for n, size in enumerate(sizes)]
    read, unread = texts[:len(texts) - fresh], texts[len(texts) - fresh:]
    messages = [{"role": "user", "content": "Read the files."}]
    for pair in read:
        messages += tool_pair([pair])
    if unread:
        messages += tool_pair(unread)
    return messages


def reference(sizes, fresh) -> int:
    from context_compact.compactor import ContextCompactor

    from ...offline.model.extractive import extractive_summary  # never asked: no summary here
    messages = messages_for(sizes, fresh)
    unread = {f"toolu_{n:03d}" for n in range(len(sizes) - fresh, len(sizes))}
    with tempfile.TemporaryDirectory(prefix="compact-exercise-") as root:
        after = ContextCompactor(root, extractive_summary, CompactionConfig.seed()).micro_compact(messages)
        return sum(1 for m in after for b in tool_results(m)
                   if b["tool_use_id"] in unread and text_of(b["content"]).startswith("[Earlier"))


def random_cases(count: int = 10) -> list:
    draw = rng()
    cases = []
    for n in range(count):
        sizes = [draw.choice(SIZES) for _ in range(draw.randint(1, 9))]
        cases.append((f"random list {n + 1}", (sizes, draw.randint(0, len(sizes)))))
    return cases


def _diagnose(args, expected, got):
    sizes, fresh = args
    if not isinstance(got, int) or isinstance(got, bool):
        return say("profiles: return one count")
    older = range(max(0, len(sizes) - 3))
    unread = range(len(sizes) - fresh, len(sizes))
    long_ones = [i for i, size in enumerate(sizes) if size > 120]
    newest_long = set(long_ones[-3:])
    # Each slip's count on this case; a hint is tied to the case only when one slip alone
    # gives that count (two slips may agree on a case, and then the hint could misname it).
    slips = {
        "profiles: the newest 3 stay whole, unread too": sum(1 for i in unread if sizes[i] > 120),
        "profiles: the read ones count too": sum(1 for i in older if sizes[i] > 120),
        "profiles: the newest 3 by position": sum(
            1 for i in long_ones[:-3] if i >= len(sizes) - fresh and i not in newest_long),
        "profiles: 120 is left alone": sum(
            1 for i in older if i >= len(sizes) - fresh and sizes[i] >= 120),
        "profiles: short ones stay whole": sum(1 for i in older if i >= len(sizes) - fresh),
    }
    named = [key for key, count in slips.items() if count == got]
    return say(named[0]) if len(named) == 1 else None


@exercise("labs/01", writes_code=True)
def check_unread_shrunk(unread_shrunk) -> CheckResult:
    """unread_shrunk(sizes, fresh) -> how many unread results the seed's step 3 shrinks."""
    cases = [(label, (list(sizes), fresh), reference(sizes, fresh))
             for label, (sizes, fresh) in CASES + random_cases()]
    return check_function("unread_shrunk", unread_shrunk, cases, hint("unread_shrunk"),
                          diagnose=_diagnose)
