# %% [markdown] id="title"
# # 07 · compact 工具：由模型请求摘要
#
# 阈值只知道上下文有多*大*；工作的某个阶段是否*结束*，只有模型清楚。所以文章（第十节）新增了一个
# 工具 `compact`，它不接收输入，也没有处理函数（handler）。事情由 harness（agent 的循环）来做：
#
# 1. 先执行**整个**工具批次：一次回复可能既写一个文件，又调用 `compact`；
# 2. 用一段固定文本回应 `compact`，并追加全部结果，让每个 `tool_use` 都有对应的 `tool_result`；
# 3. 然后才对这个已经闭合的回合运行 `compact_history`。
#
# 制作的历史 `compact_tool` 正好停在这样一个批次之前：先写一个文件，再调用 `compact`。

# %% [markdown] id="goal"
# **目标。** 你将了解：为什么 harness 要先执行完整批次，再做压缩；换成另外两种顺序会出什么问题。
# 然后你要写一个执行批次的函数，让它在某个工具失败时也能正确收尾，再写出这一步。自学约 30 分钟；
# 在 90 分钟的课堂上用 7 分钟（docs/TEACHING.md）。

# %% [markdown] id="the-articles-harness"
# ## 文章的 harness
#
# `Agent.run_batch` 在示例工作区的一份副本里完成这三步，所以文件真的会被写入；摘要由离线模型（一个确定性程序，不是语言模型）来写，之后 agent 继续工作，没有再写一遍笔记。图中：这个已经闭合的回合共 7 条消息，变成了 1 条，
# 尽管它本来就低于上限：提出请求的是模型，而不是阈值。

# %% [markdown] id="two-harnesses-that-get-it-wrong"
# ## 两个出错的 harness
#
# **错误 1：一看到 `compact` 就压缩**，然后才追加结果：摘要替换掉了包含 `tool_use` 块的消息，
# 这些结果不再回应任何调用，API 拒绝请求。**错误 2：在批次之前压缩，并丢掉这个批次**：请求是合法的，
# 但摘要写于文件写入之前，于是 agent 从这个阶段的第一步重新开始，把笔记又写了一次：副作用重复了。

# %% [markdown] id="check"
# ## 自测：工具失败时也能正确收尾的批次执行
#
# 如果 harness 放任工具的异常抛出去，批次就会停在半路：已经发出的调用得不到结果。写出
# `run_batch_safely(messages, tool_uses, run, compact)`：`run(tool_use)` 返回一个工具的文本，也可能
# 抛出异常；`compact` 工具的回应是 `context_compact.formats.COMPACT_TOOL_ACK`，`compact(列表)` 返回
# 压缩后的列表。返回包的 harness
# 会留下的列表：失败调用的结果写 `Error: <异常的消息>`，之后的每个调用照样运行，请求过的 `compact`
# 也照样在结果之后运行。

# %% [markdown] id="build-it"
# ## 动手实现：在自己的文件里写 compact 工具的批次
#
# 在 `my_compact.py` 中写出 `run_tool_batch`：按顺序回应每个调用，`compact` 之后的也一样，
# `compact` 用那句固定的话回应。保存，再运行这个单元。

# %% [markdown] id="recap"
# **小结。**
# - `compact` 工具没有输入，也没有处理函数：模型提出请求，harness 负责执行。
# - harness 先执行整个批次，追加全部结果，然后才压缩闭合的回合。
# - 提前压缩，要么让结果变成孤立的工具结果（API 拒绝），要么忘掉这个批次做过什么（模型重复副作用）。
#
# **下一步：** notebook 08，综合练习：你用四个步骤搭出自己的 `prepare`。

# %% [markdown] id="references"
# **参考资料。**
# - 文章第九节（agent 循环）和第十节（compact 工具）；这一章在上游仓库中的页面：
#   https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/README.zh.md
#   （它的英文页面 README.en.md 的一个存档版本先压缩，再追加结果：即错误 1；docs/AFTER_THE_ARTICLE.md）
