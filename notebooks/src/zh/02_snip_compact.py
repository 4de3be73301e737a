# %% [markdown] id="title"
# # 02 · 第二步 `snip_compact`：把长列表的中间段归档
#
# 第二步数的是**消息条数**。超过 `max_messages`（50）时，它把整个列表写入
# `.transcripts/transcript_<uuid4 hex>.jsonl`，只保留最初 3 条消息（最初交代的任务）和最近
# 47 条，中间插入一条标记：
#
#     [<N> messages archived at <path>]
#
# 切分永远不会把 `tool_use` 和它的 `tool_result` 分开（这样的列表会被 API 拒绝）：头部若结束在
# `tool_use` 上，就把后面的结果一起带上；尾部若将从 `tool_result` 开始，就提前一条开始。

# %% [markdown] id="goal"
# **目标。** 你将了解：第二步在哪里切分；transcript（完整记录）里保存了什么；为什么文章的第二步
# 在下一次调用中又会触发。然后你要算出切到目标条数的第二步多久归档一次，并写出这一步。自学约
# 30 分钟；在 90 分钟的课堂上用 6 分钟（docs/TEACHING.md）。

# %% [markdown] id="where-the-cut-falls"
# ## 切点落在哪里
#
# `long_session` 有 64 条消息。输出显示文章的两个切点两侧消息的类型，以及切点移到了哪里。

# %% [markdown] id="step-2s-run"
# ## 第二步的运行
#
# 两个切点原本都会拆散一对调用和结果，所以都移动了。输出依次是那条标记，一字不差（transcript 的
# uuid4 由固定种子的生成器产生）、列表的新长度和读回的 transcript。消息图中灰色的是被归档的消息。

# %% [markdown] id="archiving-again-and-again"
# ## 归档，再归档
#
# 文章保留 3 条 + 47 条 + 标记，一共 51 条：
# 还没有新消息进来就已经超过 50 了（这里由于配对规则，变成了 53 条）。下面再模拟十二次调用，
# 每次添加一条回复和一条结果：

# %% [markdown] id="check"
# 每次调用都写一个新的 transcript，每个都是整个列表的完整副本：这是
# [docs/DESIGN.md](../../docs/DESIGN.md) 中的缺陷 4 和缺陷 5；labs/01 会展示修正。
#
# ## 自测：不必每次调用都归档的第二步
#
# 假设改成把列表切到 `target` 条消息（标记也算一条）。写出
# `archive_calls(added, max_messages, target)`：第 1 次调用往空列表里加 `added[0]` 条消息，
# 第 2 次加 `added[1]` 条，依此类推；每次加完都运行第二步。返回第二步写出 transcript 的那些调用
# 的编号。检查器用你给的 `target` 运行包自己的第二步。

# %% [markdown] id="build-it"
# ## 动手实现：在自己的文件里写第二步
#
# 在 `my_compact.py` 中写出 `snip_compact`，保存，再运行这个单元。

# %% [markdown] id="recap"
# **小结。**
# - 超过 50 条消息时，第二步保留最初 3 条和最近的消息，中间用一条标记隔开。
# - 整个列表先写入 transcript，所以什么都不会丢。
# - 切分永远不会拆散一对调用和结果；它会留下 51 条或更多消息，所以每次调用都会再归档一次。
#
# **下一步：** notebook 03，第三步 `micro_compact`：旧结果缩成一行。

# %% [markdown] id="references"
# **参考资料。** 文章（learn-claude-code s08）的「四、第二步：snip_compact」一节；
# [docs/ARTICLE_MAP.md](../../docs/ARTICLE_MAP.md) 把它对应到代码。
