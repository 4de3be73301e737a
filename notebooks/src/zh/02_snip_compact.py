# %% [markdown]
# # 02 · 第二步 `snip_compact`：把长列表的中间段归档
#
# 第一步看的是大小；第二步看的是消息的**条数**。超过 `max_messages`（50）时，它先把整个
# 列表写入
#
#     .transcripts/transcript_<uuid4 hex>.jsonl      （每行一条 JSON 消息）
#
# 然后只保留最初 3 条消息（最初交代的任务）和最近 47 条，中间插入一条 user 消息，说明发生了
# 什么：
#
#     [<N> messages archived at <path>]
#
# 切分有一条硬规则：assistant 的 `tool_use` 和回应它的 user `tool_result` 必须待在一起。
# 只有结果没有调用，或者只有调用没有结果，下一次请求都会被 API 拒绝。所以：
#
# - 如果头部恰好结束在一条含 `tool_use` 的 assistant 消息上，头部就向后延伸，把紧随其后的
#   `tool_result` 消息一起带上；
# - 如果尾部将从一条 `tool_result` 开始，而它的 `tool_use` 就在前一条，尾部就提前一条开始。

# %% [markdown]
# **目标。** 你将了解：第二步何时动作（看消息条数，不看字符数）；它在哪里切分，切点为什么会
# 绕开工具配对；transcript（完整记录）里保存了什么；以及为什么文章的第二步在紧接着的下一次
# 调用中又会触发。然后你要算出：切到目标条数的第二步多久归档一次。自学约 25 分钟；在 90 分钟
# 的课堂上用 10 分钟（docs/TEACHING.md）。

# %% [markdown]
# ## 一个长会话，切点落在哪里
#
# `long_session` 有 64 条消息，包含三个请求。下面按类型显示每条消息；注意文章的切点会落在的
# 两个位置。

# %% [markdown]
# 两个切点原本都会拆散一对工具调用和结果，所以都移动了。现在运行第二步。

# %% [markdown]
# ## 留在上下文里的确切文本
#
# 列表现在依次是：头部、标记消息、最近的消息。下面就是那条标记，一字不差（文章中 transcript
# 的名字是随机的 uuid4；回放时由固定种子的生成器产生，所以这一页每次都一样）：

# %% [markdown]
# ## 完整文本去了哪里
#
# transcript 保存的是切分之前的**整个**列表，每行一条消息，而不只是被归档的中间段。

# %% [markdown]
# ## 压缩前后的字符数
#
# 第二步数的是消息条数，不是字符数：64 条短消息会触发它，10 条巨大的消息却不会。消息图
# 显示了哪些消息被归档（灰色）。

# %% [markdown]
# ## 归档，再归档
#
# 文章保留 3 条 + 最近 47 条 + 标记消息，一共 51 条：还没有新消息进来，就已经超过 50 了
# （这里由于配对规则，变成了 53 条）。所以下一次调用又会归档，再下一次也一样。下面再模拟
# 十二次调用，每次添加一条回复和一条结果，然后数一数写了多少个 transcript：

# %% [markdown]
# 每次调用都写一个新的 transcript，每个都是整个列表的完整副本。请记住这一点：这就是文章
# 第二步的缺陷 4 和缺陷 5（[docs/DESIGN.md](../../docs/DESIGN.md)），notebook labs/01 会展示修正。

# %% [markdown]
# ## 自测：不必每次调用都归档的第二步
#
# 文章的切法留下 51 条消息，比它的触发条件多一条，所以之后的每次调用都会再归档一次。假设
# 改成把列表切到 `target` 条消息（标记也算一条）。写出
# `archive_calls(added, max_messages, target)`：第 1 次调用往空列表里加 `added[0]` 条消息，
# 第 2 次加 `added[1]` 条，依此类推；每次加完都运行第二步。返回第二步写出 transcript 的那些
# 调用的编号。然后手算几个不同的 target：两次归档之间隔了几次调用？
#
# 检查器在一段不断变长的普通对话上，逐次调用运行包自己的第二步，切到你给的 `target`（也就是
# 它的 `snip_target_messages`，见 notebook labs/01），覆盖预设会话和八段随机会话（固定随机种子）。
# `hint()` 会指出它识别出的错误。

# %% [markdown]
# **小结。**
# - 第二步数的是消息条数：超过 50 条时，保留最初 3 条和最近的消息，中间用一条
#   `[N messages archived at <path>]` 标记隔开。
# - 整个列表先写入 `.transcripts/` 下的文件，所以什么都不会丢。
# - 切分永远不会把 `tool_use` 和它的 `tool_result` 分开；而文章的切分会留下 51 条或更多
#   消息，所以每次调用都会再归档一次。
#
# **下一步：** notebook 03，第三步 `micro_compact`：旧结果缩成一行。

# %% [markdown]
# **参考资料。**
# - 文章（learn-claude-code s08）的「四、第二步：snip_compact」一节；[docs/ARTICLE_MAP.md](../../docs/ARTICLE_MAP.md) 把文章各节对应到代码。
# - 上游代码：https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/code.py（本章的 README：https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/README.zh.md）。
# - API 文档，压缩（Compaction）：https://platform.claude.com/docs/en/build-with-claude/compaction
# - Liu 等，*Lost in the Middle: How Language Models Use Long Contexts*，TACL 2024：https://arxiv.org/abs/2307.03172
#
# **课堂讨论。**
# 1. 第二步保留列表的开头和结尾，把中间段归档。你的会话中间有什么模型以后可能用到的内容？它怎么知道该去 transcript 里找？
# 2. 一旦超过触发条件，文章每次调用都会再归档一次。你会把触发条件和切点放在哪里，让它很少归档？
