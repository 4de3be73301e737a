# %% [markdown]
# # 03 · 第三步 `micro_compact`：旧结果收缩为占位符
#
# 第二步保留了最近的消息，但其中较旧的工具结果仍可能有几千个字符，而模型已经用不上它们了。
# 第三步检查列表中的**全部**工具结果：
#
# - 最近 `KEEP_RECENT_RESULTS`（3）条保持完整；
# - 较旧的结果如果不超过 120 个字符，也保持不变（不值得处理）；
# - 较旧且更长的结果换成一行。如果第一步转存过它，就从它的 `Full output: <path>` 行读回
#   路径：
#
#       [Earlier tool result saved at <path>]
#
#   否则：
#
#       [Earlier tool result omitted.]
#
# 文章指出，步骤之间没有共享的映射表：第三步是通过读取第一步自己写下的标记文本，找到第一步
# 保存的副本的。文章也说明，“omitted”的结果无法恢复。本 notebook 回放文章的实验一
# `five_reads`，专门看这一点。

# %% [markdown]
# **目标。** 你将了解：第三步会缩短哪些结果、保留哪些结果；它怎样通过 `Full output:` 行找到
# 第一步保存的副本；“omitted”要付出什么代价。最后你会亲手写出这一步的核心逻辑。自学约
# 30 分钟；在 90 分钟的课堂上用 15 分钟（docs/TEACHING.md）。

# %% [markdown]
# ## 工具结果，从旧到新

# %% [markdown]
# ## 先预测
#
# 运行第三步之前想一想：使用原文配置（seed），也就是文章的第三步和它的数值，这些结果中有多少
# 会变成占位符？其中又有多少写着“omitted”？把两个数字填进元组，然后运行单元格。检查器会
# 回放这一步并比较。

# %% [markdown]
# ## 运行第三步（原文配置）

# %% [markdown]
# ## 留在上下文里的确切文本，以及完整文本去了哪里
#
# 两份较旧的 README 现在都变成了同样的 30 个字符。“files written”一栏是空的：文章的第三步
# 什么都没保存，而第一步也没有要保存的内容（这些结果远低于它的阈值）。于是 s01 课程的标题
# 已经离开了对话：它不在上下文里，也不在压缩器写下的任何文件里（既没有 transcript，
# 也没有保存的副本）。只有 README 本身还在工作区里，所以在这个例子里 agent 还可以
# 重新读取它；但如果是一条改变了工作区的命令的输出，或者一次很慢的测试运行的输出，就再也
# 拿不回来了。

# %% [markdown]
# 而且这个上下文只有 17,000 个字符，是 `CONTEXT_CHAR_LIMIT` 的三分之一：根本没有什么需要
# 收缩。可文章的第三步每次调用都会运行（缺陷 2）；某次调用若找到一个还没收缩过的较旧结果，
# 它就会改写一条旧消息，这也会破坏提示缓存（prompt cache）。并不是每次调用都会找到：
# notebook labs/01 的表统计了找到的调用次数（在 `timeline_150` 上，158 次中有 49 次）。
#
# ## 另一种占位符：有保存的副本
#
# 在 `huge_result` 上，第一步先把那次大读取转存了。同一次 `prepare` 中第三步运行时，它在
# `Full output:` 行找到路径，于是占位符指向这个文件：

# %% [markdown]
# ## 压缩前后的字符数
#
# 原文配置的第三步在 `five_reads` 上的效果，以及消息图（绿色：占位符，磁盘上有副本；朱红色：
# omitted，没有副本）。

# %% [markdown]
# ## 拖动阈值
#
# **试一试。** `keep_recent_results` 和 `micro_min_chars` 是第三步的两个参数。把
# `keep_recent_results` 设为 1：又有两份 README 变成 `omitted`，上下文进一步缩小，仍然没有
# 写入任何文件。设为 5：第三步什么都不动。然后把它设回 3，再把 `micro_min_chars` 调到比两份
# 较旧 README 都大：它们就保持完整。留意下方图中 `micro_compact` 的柱子，以及“写入文件”。

# %% [markdown]
# 同样的回放，`keep_recent_results` 设为 1，和滑块画出来的一样：

# %% [markdown]
# ## 当 KEEP_RECENT_RESULTS 为 0 时
#
# 文章用切片 `results[:-KEEP_RECENT_RESULTS]` 选出较旧的结果。Python 把 `-0` 当作 `0`，所以
# 取 0 时切片是空的：这时文章的第三步**一条**结果都不缩短，而不是全部缩短。下面单独演示这个
# 切片，用五个代替真实结果的字符串：

# %% [markdown]
# ## 自测：写出第三步的核心
#
# 写出 `older_result(text)`：对于**不在**最新 3 条之内的结果，第三步会在原处留下什么。你的依据
# 是你已经看到的东西，而不是现成的步骤：开头打印的阈值、上面第三步留下的占位符（在 `five_reads`
# 上写着 omitted，在 `huge_result` 上指向保存下来的副本），以及 notebook 01 里第一步的 `<persisted-output>` 块（`compact.formats`
# 里有它的格式和 `OMITTED`）。两个步骤之间没有映射表：文本本身就是纽带。写代码之前，先根据这些例子
# 想清楚：你的函数怎样判断一段文本是第一步的块，路径又在块里的什么位置。
#
# 这里要当心：agent 读过的某个文件可能*包含*一行 `Full output: `，但它并不是第一步的块。文章的第三步
# 也相信这样的行（[docs/DESIGN.md](../../docs/DESIGN.md) 中的缺陷 6）；本包在两种配置下都不信，检查器
# 按本包的读法评分。检查器会让包的第一步在临时文件夹里保存真实的文件，对每段文本运行包的第三步，然后
# 比较；失败的用例会显示它的输入、你的答案和正确答案，`hint()` 会给出规则。

# %% [markdown]
# **小结。**
# - 第三步保留最近 3 条结果，以及所有不超过 120 个字符的结果；其余每条结果都变成一行，而且
#   每次调用都这样做。
# - 它通过读取第一步自己写下的块中的 `Full output:` 行，找到第一步保存的副本。
# - 没有这样的副本时，那一行写的是 `omitted`：这条结果的文本从此不在任何文件里，这就是文章的
#   缺陷 1。
#
# **下一步：** notebook 04，第四步 `compact_history`：唯一需要付出一次模型调用的步骤。

# %% [markdown]
# **参考资料。**
# - 文章（learn-claude-code s08）的「五、第三步：micro_compact」一节；[docs/ARTICLE_MAP.md](../../docs/ARTICLE_MAP.md) 把文章各节对应到代码。
# - 上游代码：https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/code.py（本章的 README：https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/README.zh.md）。
# - API 文档，上下文编辑（Context editing：`clear_tool_uses` 保留最新的几次工具调用）：https://platform.claude.com/docs/en/build-with-claude/context-editing
#
# **课堂讨论。**
# 1. KEEP_RECENT_RESULTS 是 3。对一个先读十个文件、再改其中一个的 agent，你会取多少？为什么？
# 2. 在没有任何副本时，harness 应该把一条输出换成 `omitted` 吗？你会怎么做？
