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
# 调用中又会触发。最后你会亲手写出保护配对的切分。约 20 分钟。

# %% [markdown]
# ## 一个长会话，切点落在哪里
#
# `long_session` 有 64 条消息，包含三个请求。下面按类型显示每条消息；注意文章的切点会落在的
# 两个位置。

# %% [markdown]
# 两个切点原本都会拆散一对配对，所以两个都移动了。现在运行第二步。

# %% [markdown]
# ## 留下的原文
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
# 第二步的缺陷 4 和缺陷 5（[docs/DESIGN.md](../../docs/DESIGN.md)），notebook 08 会展示修正。

# %% [markdown]
# ## 自测
#
# 写出 `cut_points(kinds, max_messages, keep_head)`。`kinds` 按类型列出各条消息：`"user"`、
# `"assistant"`、`"tool_use"`（含调用的 assistant 消息）或 `"tool_result"`（回应前一条调用
# 的 user 消息）。返回 `(head_end, tail_start)`：保留 `kinds[:head_end]` 和
# `kinds[tail_start:]`；在配对规则移动切点之前，尾部有 `max_messages - keep_head` 条消息。
# 检查器会按这些类型构造真实的消息，并和包自带的 `compact.snip.cut_points` 比较：用例既有
# 在每个切点上都放了一对配对的预设列表，也有十段随机历史（固定随机种子，每次运行都一样）。

# %% [markdown]
# **小结。**
# - 第二步数的是消息条数：超过 50 条时，保留最初 3 条和最近的消息，中间用一条
#   `[N messages archived at <path>]` 标记隔开。
# - 整个列表先写入 `.transcripts/` 下的文件，所以什么都不会丢。
# - 切分永远不会把 `tool_use` 和它的 `tool_result` 分开；而文章的切分会留下 51 条或更多
#   消息，所以每次调用都会再归档一次。
#
# **下一步：** notebook 03，第三步 `micro_compact`：旧结果缩成一行。
