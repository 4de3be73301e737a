# %% [markdown] id="title"
# # Lab 02 · 证据：各设计在长会话中的花费与损失
#
# **问题。** 有提示缓存时，把上下文保持得最小的设计，也是最便宜的吗？
# 基准测试（`python -m compact_course bench`）让模拟的长会话（tool-heavy、chat-heavy，以及同类的
# 中文会话；120 轮；8 个随机种子）经过五种设计：**none**（不压缩：超过 200,000 token 窗口的请求被拒绝）、**summary**（只有
# 第四步）、**seed**（文章的管线）、**default**（修正了缺陷）和 **oracle**（下限：它知道之后的调用
# 会用到哪些输出）。
#
# 每次请求都按 Claude Sonnet 5 的基础输入 token 计费：开头与仍在缓存中（自上次使用起 5 分钟）的
# 先前请求相同的部分按 0.1 读取，其余输入按 1.25 写入，摘要调用的输入（从不缓存）按 1 计，输出按 5 计。某个步骤改写了一条旧消息，
# 下一次请求就要把全部内容重新写入。
#
# 各列：**+misses k**，账单（千），每次**缺失**（需要的早先输出没有完整地在请求里）按把它读回来的
# 那次调用计价；**x oracle**，它与 oracle 账单之比；**read**，从缓存读取的输入占比；**summ**，摘要
# 调用次数；**refused**，超出窗口的请求，每个数字都把它们当作 API 接受了来计；**lost**，哪儿都读不到的输出；**forgot**，什么都没保留下来的探针（notebook labs/05）。每一列
# 和每个价格，连同出处，见
# [docs/DESIGN.md，"The benchmark's reference"](../../docs/DESIGN.md#the-benchmarks-reference-lab-02)。

# %% [markdown] id="goal"
# **目标。** 读懂有提示缓存时每种设计花费多少、丢失什么，再算出一次压缩何时回本。自学约 30 分钟；
# 不在 90 分钟的课堂之内（docs/TEACHING.md）。

# %% [markdown] id="the-chart"
# ## 图表
#
# 左图是 tool-heavy 会话（种子 0）中每次请求的大小（**none** 超出图表）；右图是每种设计的账单，
# 缺失不计价（对数刻度）；`show_all = True` 画出全部面板。图的上方按会话列出：三种做压缩的设计
# （summary、seed、default）中，哪一种平均发送的请求最小，哪一种最便宜。
#
# - **seed** 在 tool-heavy 和中文会话上发送的请求最小，但它改写旧消息太频繁，从缓存读得最少，
#   账单也高得多；
# - **default** 发送的请求更大，很少改写，在每类会话上都是三者中最便宜的；上面的几条声明在全部
#   8 个种子上检验它；
# - **summary** 要为一份又一份摘要付费，每份摘要之后缓存都从头开始。
#
# 所以答案是否定的：有提示缓存时，上下文最小，账单并不最便宜。

# %% [markdown] id="the-same-ideas-on-the-apis-side"
# ## 同样的思路，在 API 一侧
#
# 上下文编辑（`clear_tool_uses_20250919`）就是放在服务器端的第三步，服务器端压缩
# （`compact_20260112`）就是第四步（notebook labs/03）。Anthropic 在它自己的任务上测得的节省：在
# 100 轮的网页搜索评测中，上下文编辑让 token 用量减少了 84%
# （https://www.anthropic.com/news/context-management）；cookbook 的客户端压缩让一个处理工单的任务
# 的输入 token 从 204,416 降到 82,171
# （https://platform.claude.com/cookbook/tool-use-automatic-context-compaction）。下面是基准测试同一类的
# 数字（输入 token，default 对 none）：任务和模型都不同，不排高下。

# %% [markdown] id="check"
# ## 自测：压缩要多少次调用才能回本？
#
# 一个让列表变短的步骤，会让之后的每次请求都变小，但它也改变了缓存里存着的那个列表。写出
# `calls_to_pay_off(before, after, summary=None, cold=False)`：
#
# - `before`：刚发出的请求，它的消息按从旧到新排列，每条是一个 `(名字, token 数)` 对；
#   缓存里存着它，也只存着它（断点在它末尾；这是简化：API 也保留更早请求的缓存条目，并向前最多
#   查找 20 个块）；
# - `after`：某个步骤留下的列表，形式相同；名字相同就是同一条消息，没有改动；
# - `summary`：第四步的摘要调用 `(输入 token 数, 输出 token 数)`，其他步骤为 `None`；
# - `cold`：下一次调用发生在一段比缓存存活时间更长的停顿之后。
#
# 之后，不管有没有这个步骤，会话都照样继续：每次调用加上一条回复和一条用户消息（共 500 个
# token），按上面的方式计费（回复两边一样，不用算）。返回要经过多少次调用（步骤之后
# 的那一次算第 1 次），有这个步骤的会话累计花费才不超过没有它的会话；永远做不到时返回 `None`。
#
# 写代码之前先想一想：第三步缩短一条 8,000 token 的旧结果，和第四步用一份摘要替换整个列表，
# 哪个回本更快？

# %% [markdown] id="recap"
# **小结。**
# - 有提示缓存时，一次请求的成本取决于它是否以完整的上一次请求开头：最小的上下文不等于最便宜的
#   账单。
# - 压缩的代价付在下一次调用上，那次调用读不到被改过的内容；之后每次调用，每删掉一个 token 省
#   0.1，所以删得少，回本就慢。
# - 默认配置什么也不丢、不遗忘，很少改写：在这里，它是最便宜的压缩器。
#
# **下一步：** notebook labs/03，同样的工作由 API 自己的上下文管理来做。

# %% [markdown] id="references"
# **参考资料。** Prompt caching：https://platform.claude.com/docs/en/build-with-claude/prompt-caching；
# 上下文编辑：https://platform.claude.com/docs/en/build-with-claude/context-editing；
# “The Complexity Trap”（2025），观察遮蔽与摘要的比较：https://arxiv.org/abs/2508.21433。
#
# **课堂讨论。** 会话是合成的，回复出自确定性的程序：它的哪些结论你预计在你自己 agent 的会话上
# 也成立，哪些你会重新测量？
