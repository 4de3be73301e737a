# %% [markdown]
# # 07 · compact 工具：由模型请求摘要
#
# 自动阈值只知道上下文有多*大*。工作的某个阶段是否*结束*，只有模型自己清楚。所以文章（第十节）
# 在 5 个基础工具之外，新增了第 6 个工具：
#
#     {"name": "compact", "description": "Summarize earlier conversation to free context space."}
#
# 它不接收输入，也没有处理函数（handler）。规则写在 harness 里：
#
# 1. 先执行**整个**工具批次：一次回复可能包含多个调用，
#    比如先写一个文件，再调用 `compact`；
# 2. 用 `Compaction requested after this tool batch.` 回应 `compact` 调用，
#    并追加全部结果，让每个 `tool_use` 都有对应的 `tool_result`；
# 3. 然后才对这个已经闭合的回合运行 `compact_history`。
#
# 本 notebook 回放预先录制的历史 `compact_tool`：模型先读取五节课程的 README，然后在同一个批次里写入
# `notes/lessons.md` 并调用 `compact`。

# %% [markdown]
# **目标。** 你将了解：为什么 harness 要先执行完整批次，再做压缩；换成另外两种顺序会出什么问题。
# 然后你要写一个执行批次的函数，让它在某个工具失败时也能正确收尾。自学约 25 分钟；在 90 分钟的课堂上用 7 分钟（docs/TEACHING.md）。

# %% [markdown]
# ## 历史与批次
#
# 我们把历史停在 harness 回应最后一个批次之前，这样可以亲手执行这个批次。

# %% [markdown]
# ## 文章的 harness
#
# `workbench.agent.loop.Agent.run_batch` 完成这三步。它在示例工作区的一份副本中运行，所以文件
# 真的会被写入（agent 的文件夹也是压缩器的根目录：transcript 也写在那里）。离线模型（一个确定性
# 程序，不是语言模型）代替真实模型，由它来写摘要。

# %% [markdown]
# 批次按顺序执行：文件已经在磁盘上，`compact` 调用得到了固定的回应。然后，整个列表变成了一条
# `[Compacted]` 消息。

# %% [markdown]
# transcript 保留了这个已经闭合的回合：它的最后一条消息同时包含两个结果，所以摘要可以记下
# “写入已经发生”。

# %% [markdown]
# 现在 agent 继续工作。模型读到摘要，看到写入已有记录，于是不再重复（下面最后一行数出它的写入次数）。

# %% [markdown]
# ## 两个出错的 harness
#
# **错误 1：一看到 `compact` 调用就压缩**，然后才追加这个批次的结果。摘要替换掉了包含
# `tool_use` 块的 assistant 消息，这些结果就不再回应任何调用。API 拒绝下一次请求：

# %% [markdown]
# **错误 2：在批次之前压缩，并丢掉这个批次。** 这次请求是合法的，但摘要写于文件写入之前，
# 上下文中没有任何内容表明文件已经存在。模型从这个阶段的第一步重新开始，也就是下面的 `glob`；
# 它已经做过的写入不在任何一条消息里，没有什么能阻止它再写一次：副作用可能重复。

# %% [markdown]
# ## 压缩前后的字符数
#
# compact 工具花费一次摘要调用，把列表从 7 条消息变成 1 条，尽管列表远低于
# `CONTEXT_CHAR_LIMIT`：做决定的是模型，而不是阈值。下一次调用的 `prepare` 已经无事可做。

# %% [markdown]
# ## 自测：工具失败时也能正确收尾的批次执行
#
# 上面的 harness 运行每个调用、追加结果，需要时再压缩。它没有说工具抛出异常时会怎样：批次会
# 停在半路，已经发出的调用没有结果，而 API 会拒绝没有 `tool_result` 的 `tool_use`。写出
# `run_batch_safely(messages, tool_uses, run, compact)`。`messages` 以模型的回复结尾，这条回复
# 里是批次 `tool_uses`；`run(tool_use)` 返回一个工具的文本，也可能抛出异常；`compact` 没有处理
# 函数（它的回应是 `compact.formats.COMPACT_TOOL_ACK`），`compact(the list)` 返回压缩后的列表。
# 返回一个能应对失败的 harness 应当留下的列表，按包的规则：失败调用的结果写 `Error: <异常的消息>`
# （包里工具的写法），批次里之后的调用照样运行，请求过的 `compact` 也照样在结果之后运行。（别的
# 规则也可能合法；检查器拿你的列表和包的 harness 比较，所以要求的是这一条。）
#
# 检查器在一个临时工作区里运行包自己的 harness `Agent.run_batch`，在另一个相同的工作区里（那里
# `bash` 会抛出异常）用同样的工具运行你的函数，覆盖预设批次和随机批次。`hint()` 会指出它识别出的
# 错误。

# %% [markdown]
# **小结。**
# - `compact` 工具没有输入，也没有处理函数：模型提出请求，harness 负责执行。
# - harness 先执行整个批次，用固定文本回应 `compact`，追加全部结果，
#   然后才对已经闭合的回合运行 `compact_history`。
# - 提前压缩，要么让结果变成孤立的工具结果（API 拒绝），
#   要么忘掉这个批次做过什么（模型重复副作用）。
#
# **下一步：** notebook 09，实时运行 agent：文章的 agent 带着整条管线。

# %% [markdown]
# **参考资料。**
# - 文章第九节（agent 循环）和第十节（compact 工具）；这一章在上游仓库中的页面：
#   https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/README.zh.md
