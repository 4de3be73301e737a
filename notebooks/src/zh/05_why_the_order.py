# %% [markdown] id="title"
# # 05 · 为什么顺序是固定的
#
# 每次调用模型之前，`prepare` 都按同一个顺序运行各个步骤：
#
#     tool_result_budget -> snip_compact -> micro_compact -> compact_history（仅当仍超过阈值）
#
# 文章（第七节）给出了两个理由。成本：只有摘要需要模型，所以排在最后，只在前面几步不够时才运行。
# 损失：**第一步必须在第三步之前运行**，这样第三步留下的那一行才能指向第一步存在磁盘上的副本。

# %% [markdown] id="goal"
# **目标。** 你将了解：为什么第一步必须在第三步之前运行；“永久丢失”的确切含义（哪里都读不到：
# 不在上下文里，不在 transcript（完整记录）里，也不在保存的文件里）。你会认识包的默认配置，写出
# 判断输出是否丢失的检查，再写出顺序。自学约 30 分钟；在 90 分钟的课堂上用 8 分钟（docs/TEACHING.md）。

# %% [markdown] id="the-history-and-your-prediction"
# ## 你的预测，以及所有顺序
#
# 又是 `huge_result`（notebook 01）：先是一次 glob，然后是一个批次，那次大读取排在最前。使用原文配置
# （seed），先运行第三步（`micro_compact`），再运行第一步（`tool_result_budget`）：有多少条工具
# 输出会永久丢失？填入你的数字。`every_order` 按全部六种顺序运行第 1-3 步，两种配置各一次（见下一节），
# 数出丢失的输出；你填入预测之后，它的表格和第二张图才会显示。

# %% [markdown] id="the-flaws-behind-the-loss-and"
# 唯一要紧的是第一步是否排在第三步之前；图表显示不出丢失：两种顺序最后的大小差不多。
#
# ## 导致丢失的缺陷，以及默认配置
#
# 文章第三步的两个缺陷（[docs/DESIGN.md](../../docs/DESIGN.md)）让这次丢失成为可能：**缺陷 1**，
# `[Earlier tool result omitted.]` 不留副本；**缺陷 3**，这次读取位于模型还没回应的批次里。包的
# 默认配置修正了这两个缺陷（labs/01 逐一讲解）：见 `lost, default` 一列。
#
# ## 自测：什么会永久丢失？
#
# 写出 `lost(originals, context, transcripts, saved)`：返回文本再也无法逐字读回的那些结果的 id。
# `originals`：`{tool_use_id: text}`；`context`：各步骤之后的消息；`transcripts`：每个 transcript
# 一个消息列表；`saved`：`{path: text}`。一条结果算作可以读回，条件是：在上下文或某个 transcript
# 中，有一个带着它的 id 的 `tool_result` 恰好保存着原始输出，或者是我们自己的标记之一，而标记里的
# 路径（`context_compact.formats.persisted_path`、`saved_path`）指向一个保存着原始输出的文件。

# %% [markdown] id="build-it"
# ## 动手实现：在自己的文件里写出顺序
#
# 在 `my_compact.py` 中写出 `cheap_steps`：你写的三步，按文章的顺序。保存，再运行这个单元。

# %% [markdown] id="recap"
# **小结。**
# - 第一步在第三步之前：超大结果先存到磁盘，第三步再把它变成指向这份副本的一行。
# - 反过来，文章的第三步留下 `omitted`：这条输出永久丢失，任何显示大小的图表都看不出来。
# - 默认配置先保存再收缩，而且从不收缩还没读过的结果。
#
# **下一步：** notebook 06，`reactive_compact`：当 API 仍然拒绝时。

# %% [markdown] id="references"
# **参考资料。**
# - 文章（learn-claude-code s08）的「七、为什么顺序必须固定」一节；[docs/ARTICLE_MAP.md](../../docs/ARTICLE_MAP.md) 把文章各节对应到代码。
