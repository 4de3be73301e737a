# %% [markdown]
# # 05 · 为什么顺序是固定的
#
# 每次调用模型之前，`prepare` 都按同一个顺序运行各个步骤：
#
#     tool_result_budget -> snip_compact -> micro_compact -> compact_history（仅当仍超过阈值）
#
# 文章（第七节）给出了两个理由。第一是成本：第一步到第三步不需要模型，所以唯一需要模型的
# 摘要排在最后，而且只在前面几步不够时才运行。第二是信息损失：**第一步必须在第三步之前
# 运行**。第一步把超大结果转存到磁盘并留下路径；第三步随后找到这个路径，让占位符指向这份
# 副本。反过来，第三步就会先看到超大结果，而文章的第三步会把它换成
# `[Earlier tool result omitted.]`。副本从来没有生成过，文本就永久丢失了。
#
# 本 notebook 按错误的顺序运行各个步骤，数一数丢失了什么。

# %% [markdown]
# **目标。** 你将了解：为什么第一步必须在第三步之前运行；“永久丢失”的确切含义（哪里都读不到：
# 不在上下文里，不在 transcript（完整记录）里，也不在保存的文件里）。你会亲手写出这个判断。
# 你还会认识包的第二种配置，它修正了导致这种丢失的缺陷。自学约 20 分钟；在 90 分钟的课堂上
# 用 10 分钟（docs/TEACHING.md）。

# %% [markdown]
# ## 这段历史
#
# 又是 `huge_result`（notebook 01）。看看那次大读取在批次中的位置：模型最先请求它，然后才
# 请求三条小命令。

# %% [markdown]
# ## 先预测
#
# 使用原文配置（seed），在这段历史上先运行第三步（`micro_compact`），再运行第一步
# （`tool_result_budget`）。有多少条工具输出会永久丢失，也就是在上下文里和任何文件里
# 都读不到？填入你的数字，然后运行单元格。

# %% [markdown]
# ## 文章的顺序，与错误的顺序
#
# `run_in_order` 在临时文件夹里按任意顺序运行三个廉价的步骤，然后调用
# `workbench.bench.cost.lost_outputs`，查出哪些原始结果再也无法逐字读回：不在上下文里，不在
# 保存的文件里，也不在 transcript 里。

# %% [markdown]
# 在错误的顺序中，第三步先运行。那次读取不在最新 3 条结果之内，所以变成了 `omitted`。接着
# 第一步计算批次总量：不到 1,000 个字符，远低于它的上限，没有什么要保存。`docs.json` 的
# 288,000 个字符从此哪里都不存在了。在这个例子里 agent 还可以重新读取文件；但如果是改变
# 工作区的命令的输出，或者一次很慢的测试运行的输出，就做不到了。
#
# ## 三个廉价步骤的所有顺序

# %% [markdown]
# 第二步在 5 条消息上什么都不做，所以唯一要紧的是：第一步是否排在第三步之前。
#
# ## 导致丢失的缺陷，以及默认配置
#
# 文章第三步的两个缺陷让这次丢失成为可能（两者在 [docs/DESIGN.md](../../docs/DESIGN.md) 中
# 都有编号）：
#
# - **缺陷 1**：`[Earlier tool result omitted.]` 在任何地方都不留副本；
# - **缺陷 3**：这次读取位于模型还没回应的批次里，所以模型还没读到它，它就被收缩了；受保护
#   的只有最新 3 条结果。
#
# 包还有第二种配置，即默认配置（default）`CompactionConfig()`：它保留文章的数值，并修正
# 文章的缺陷；notebook labs/01 会逐一讲解。就这两个缺陷而言，它的第三步从不收缩比模型最近一次
# 回复更新的结果，并且在写入占位符之前先保存完整文本。所以即使顺序错了，它也不会丢失任何
# 内容：

# %% [markdown]
# ## 压缩前后的字符数
#
# 两种顺序最后的大小差不多。图表显示不出差别；丢失输出的计数才显示得出来。

# %% [markdown]
# ## 自测：什么会永久丢失？
#
# 写出 `lost(originals, context, transcripts, saved)`：返回原始文本再也无法逐字读回的那些
# 工具结果的 id。你会得到
#
# - `originals`：`{tool_use_id: text}`，每条结果最初返回时的样子；
# - `context`：各步骤运行之后的消息；
# - `transcripts`：由消息列表组成的列表，磁盘上每个 transcript 对应一个；
# - `saved`：`{path: text}`，第一步（或修正后的第三步）保存的文件。
#
# 一条结果算作可以读回，条件是：在上下文或某个 transcript 中，有一个带着它的 id 的
# `tool_result` 恰好保存着原始输出；或者这样的结果是我们自己的标记之一（`<persisted-output>` 或
# `[Earlier tool result saved at ...]`），而标记里的路径指向一个保存着原始输出的文件（用
# `compact.formats.persisted_path` 和 `saved_path` 读回路径）。一条结果的 content 可能是由
# 多个块组成的列表：用 `compact.messages.text_of` 取出它的文本。
#
# 检查器会在预设历史上，用两种配置、按所有顺序运行包的各个步骤，并和基准测试自带的
# `workbench.bench.cost.lost_outputs` 比较。

# %% [markdown]
# **小结。**
# - 第一步必须在第三步之前运行：这样在第三步把超大结果变成一行之前，它已经在磁盘上了，
#   那一行会指向这份副本。
# - 反过来，文章的第三步留下 `omitted`，而副本根本不存在：这条输出永久丢失，任何显示大小的
#   图表都看不出来。
# - 默认配置修正了背后的两个缺陷：第三步先保存再收缩，而且从不收缩模型还没读过的结果。
#
# **下一步：** notebook 06，`reactive_compact`：当 API 仍然拒绝时。

# %% [markdown]
# **参考资料。**
# - 文章（learn-claude-code s08）的「七、为什么顺序必须固定」一节；[docs/ARTICLE_MAP.md](../../docs/ARTICLE_MAP.md) 把文章各节对应到代码。
# - 上游代码：https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/code.py（本章的 README：https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/README.zh.md）。
# - API 文档，上下文编辑（Context editing）：https://platform.claude.com/docs/en/build-with-claude/context-editing
#
# **课堂讨论。**
# 1. 在只显示大小的图表上，两种顺序都让上下文变小；只有丢失输出的计数能显示差别。在你自己的 harness 里，什么检查能发现一条丢失的输出？
# 2. 有没有一种四步顺序什么都不丢、但成本更高？你会怎么取舍？
