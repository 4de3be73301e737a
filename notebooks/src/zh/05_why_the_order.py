# %% [markdown] id="title"
# # 05 · 为什么顺序是固定的
#
# 每次调用模型之前，`prepare` 都按同一个顺序运行各个步骤：
#
#     tool_result_budget -> snip_compact -> micro_compact -> compact_history（仅当仍超过阈值）
#
# 文章（第七节）给出了两个理由。成本：摘要是唯一需要模型的步骤，所以排在最后，而且只在前面几步
# 不够时才运行。损失：**第一步必须在第三步之前运行**。第一步把超大结果存到磁盘并留下路径，第三步
# 随后指向这个路径。

# %% [markdown] id="goal"
# **目标。** 你将了解：为什么第一步必须在第三步之前运行；“永久丢失”的确切含义（哪里都读不到：
# 不在上下文里，不在 transcript（完整记录）里，也不在保存的文件里）。你会认识包的默认配置，它修正了
# 导致这种丢失的缺陷；你还会写出判断输出是否丢失的检查。自学约 15 分钟；在 90 分钟的课堂上用 8 分钟
# （docs/TEACHING.md）。

# %% [markdown] id="the-history-and-your-prediction"
# ## 这段历史，以及你的预测
#
# 又是 `huge_result`（notebook 01）：一个批次，先是那次大读取，然后是三条小命令。

# %% [markdown] id="with-the-seed"
# 使用原文配置（seed），在这段历史上先运行第三步（`micro_compact`），再运行第一步
# （`tool_result_budget`）。有多少条工具输出会永久丢失？填入你的数字。

# %% [markdown] id="every-order-of-the-three-cheap"
# ## 三个廉价步骤的所有顺序
#
# `run_in_order` 在临时文件夹里按给定顺序运行这几个廉价步骤（编号 1-3），数出再也无法逐字读回的
# 结果：分别用原文配置（seed）和默认配置（见下一节）。你填入预测之后，表格和第二张图才会显示。

# %% [markdown] id="the-flaws-behind-the-loss-and"
# 唯一要紧的是第一步是否排在第三步之前：第二步在 5 条消息上什么都不做。图表显示不出丢失：两种
# 顺序最后的大小差不多。
#
# ## 导致丢失的缺陷，以及默认配置
#
# 文章第三步的两个缺陷（在 [docs/DESIGN.md](../../docs/DESIGN.md) 中都有编号）让这次丢失成为可能：
# **缺陷 1**，`[Earlier tool result omitted.]` 在任何地方都不留副本；**缺陷 3**，这次读取位于模型
# 还没回应的批次里，所以模型还没读到它，它就被收缩了。默认配置修正了这两个缺陷
# （labs/01 会逐一讲解这些修正）：见表格的 `lost, default` 一列。
#
# ## 自测：什么会永久丢失？
#
# 写出 `lost(originals, context, transcripts, saved)`：返回原始文本再也无法逐字读回的那些结果的
# id。`originals`：`{tool_use_id: text}`；`context`：各步骤运行之后的消息；`transcripts`：磁盘上
# 每个 transcript 对应一个消息列表；`saved`：`{path: text}`，保存的文件。一条结果算作可以读回，
# 条件是：在上下文或某个 transcript 中，有一个带着它的 id 的 `tool_result` 恰好保存着原始输出，
# 或者是我们自己的标记之一（`<persisted-output>`、`[Earlier tool result saved at ...]`），而标记
# 里的路径（用 `context_compact.formats.persisted_path` 和 `saved_path` 读出）指向一个保存着原始输出的
# 文件。`context_compact.messages.text_of` 取出一条结果的文本。

# %% [markdown] id="build-it"
# ## 动手实现：在自己的文件里写出顺序
#
# 在 `my_compact.py` 中写出 `cheap_steps`：你写的三步，按文章的顺序，用文章的数值。保存，再运行
# 这个单元。

# %% [markdown] id="recap"
# **小结。**
# - 第一步必须在第三步之前运行：这样在第三步把超大结果变成一行之前，它已经在磁盘上了，
#   那一行会指向这份副本。
# - 反过来，文章的第三步留下 `omitted`，而副本根本不存在：这条输出永久丢失，任何显示大小的
#   图表都看不出来。
# - 默认配置修正了背后的两个缺陷：第三步先保存再收缩，而且从不收缩模型还没读过的结果。
#
# **下一步：** notebook 06，`reactive_compact`：当 API 仍然拒绝时。

# %% [markdown] id="references"
# **参考资料。**
# - 文章（learn-claude-code s08）的「七、为什么顺序必须固定」一节；[docs/ARTICLE_MAP.md](../../docs/ARTICLE_MAP.md) 把文章各节对应到代码。
