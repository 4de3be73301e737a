"""00 · the pipeline: predict which steps act on four canned histories (seed profile).

The reference is a replay of each history through `prepare` with the
article's numbers: the steps whose record says they changed something, in
the order they ran.
"""

from .check import CheckResult, check_prediction, say

HISTORIES = ("five_reads", "huge_result", "long_session", "two_code_files")


def steps_that_act() -> dict:
    """{history: [steps that changed something]} for one seed `prepare` on each."""
    from ..replay import replay
    return {name: replay(name, profile="seed").fired() for name in HISTORIES}


def check_steps_that_act(answer) -> CheckResult:
    """00: predict {history: [step names]}, the steps one seed prepare runs to effect."""
    return check_prediction(
        "steps_that_act", answer, steps_that_act(),
        say("read the triggers in the picture: step 1 looks at the newest batch's size, step 2 "
        "at the number of messages, step 3 at every result but the newest 3 (on every call), "
        "step 4 at the size left after steps 1-3. List the names in the order they run.",
            "读图里的触发条件：第一步看最新一批的大小，第二步看消息条数，第三步看除最新 3 个以外的"
            "每个结果（每次调用都看），第四步看第一到三步之后剩下的大小。按运行顺序列出名字。"))
