# %% [markdown] id="title"
# # Lab 03 · 同样的工作，交给服务器
#
# **问题：** 该不该让 API 替你压缩？本课程锁定的 SDK（`anthropic` 2.17.0）带着在服务器一侧
# 做管线工作的 beta 功能：上下文编辑 `clear_tool_uses_20250919`（beta
# `context-management-2025-06-27`）对应第三步；服务器端压缩 `compact_20260112`
# （`compact-2026-01-12`）对应第四步。
#
# 厂商的建议（https://platform.claude.com/docs/en/build-with-claude/context-editing，英文原话）：
# "For most use cases, server-side compaction is the primary strategy for managing context
# in long-running conversations."（对大多数用例，服务器端压缩是管理长对话上下文的首要策略。）
# 本页的一切都运行在**离线服务器**上：它是一个程序，不是语言模型，按 SDK 的类型定义扮演这些功能；
# 凡是 API 没有写进文档的地方，都是它自己的选择（见 `docs/AFTER_THE_ARTICLE.md`）。

# %% [markdown] id="goal"
# **目标。** 你将在同一段会话上、在相同的触发阈值下，把每种服务器设计的成本和丢失与本课程的
# 管线作比较，并为一份预算挑选 edits。自学约 30 分钟；不在 90 分钟的课堂之内（docs/TEACHING.md）。

# %% [markdown] id="one-session-through-each-design"
# ## 一段会话，逐一经过每种设计
#
# 把会话按调用逐次回放，经过五种设计（回复都是制作好的历史里的）：**none**；
# **default**，客户端上本课程的默认配置；**server-clear**，用它的默认值；**server-compact**，
# 触发阈值 100,000 个 token（它的默认值 150,000 超过这段会话能达到的大小）；
# **default+server-compact**。各列：读取和写入缓存的 token（千），成本，没有延续上一次请求的调用
# （`breaks`），摘要次数，最大的一次请求，永久丢失的输出。
#
# 成本以**基础输入 token** 为单位（每个 token 按它的价格除以一个输入 token 的价格），权重来自
# API 给 Claude Sonnet 5 的价格（https://platform.claude.com/docs/en/about-claude/pricing 的
# “Prompt caching”一节）：输入 1，5 分钟缓存写入 1.25，缓存读取 0.1，输出 5。单元格会把它们打印出来。

# %% [markdown] id="what-clear-at-least-buys-with"
# 上图是每次调用发送的 token，下图是缓存能再次读到的比例。一大批结果让三条线一起跳高；
# 默认配置把它存到磁盘上。最后一行和 default 相同，它的线以虚线画在 default 的线上：默认配置
# 从不发送 100,000 个 token。从第 68 次调用起，server-clear 的缓存比例在 0 和约 0.9 之间来回摆动：
# 每次多清除一个结果的调用上它是 0（91 次中有 43 次），因为新的工具调用把一个结果挤出了最新的 3 次。
# `clear_at_least`（SDK 的 docstring："Context will only be modified if at least this many tokens
# can be removed"）把清除往后推，但只推迟第一次失效：一旦达到，之后每次调用都达到（离线服务器
# 每次请求都重新清除；`show_all = True` 打印触发阈值为 30,000 个 token 时它的几行）。

# %% [markdown] id="clearing-through-the-sdk"
# ## `show_all = True` 时：通过 SDK 发送 edits
#
# 取这段会话的第 100 次模型调用，用默认的 edit 发送；`count_tokens` 给出原始数量。你的列表没有变：
# 服务器清除的是它自己的副本。然后是服务器端压缩带签名的 `compaction` 块：发回去，它就代表它替换掉的
# 全部内容；改动过的块会被拒绝。

# %% [markdown] id="when-each-design-wins-the-same"
# ## 相同的触发阈值
#
# 上面，默认配置从 50,000 个字符起作用，服务器从 100,000 个 token 起。
# 基准测试里最长的工具密集型会话（400 轮）让每种服务器设计用它的默认触发阈值运行，
# 旁边是用相同触发阈值的默认配置。`forgot` 数的是探针（notebook labs/05 的五种）中，
# 这种设计发送的内容、它提到的文件和摘要都不保留的那些。

# %% [markdown] id="check"
# 在相同的触发阈值下，默认配置比两种服务器设计都便宜，也不遗忘任何探针：它移走的内容在磁盘上，
# 由标记指向。清除不会让你的列表丢任何东西，但模型拿到的是占位文本，没有文件可读；
# 压缩会丢掉它摘要掉的内容。这些是离线服务器和基准测试的数字，不是真实 API 的（notebook labs/02
# 把厂商公开发表的数字放在基准测试的数字旁边）。
#
# ## 自测
#
# 在 timeline_150 上的预算：成本不超过 850,000，缓存失效的次数少于同样的 edits 不设
# `clear_at_least` 时，没有任何内容被永久丢失（清除总能满足这一条：你的列表保留每个输出），
# 最新的 3 次工具调用保持完整。本页的设置都达不到，
# 单靠触发阈值也不行（一大批结果一下子越过 20,000 到 80,000 个 token 之间的每个阈值）。
# 读一读会话的工具，想一想哪些结果值得清除：每清除一次，省下它移走的内容，也让缓存失效一次。
# 写出 edits：一个由 `{"type": "clear_tool_uses_20250919", ...}` 组成的列表，用 SDK 的旋钮
# （`trigger`、`keep`、`clear_at_least`、`exclude_tools`）。

# %% [markdown] id="recap"
# **小结。**
# - 过了触发阈值，清除大约每隔一次调用就让缓存失效一次；`clear_at_least` 只能推迟这一点。
# - 在相同的触发阈值下，这里默认配置花得最少、遗忘得最少：它移走的内容在磁盘上；服务器的设计
#   留下的是占位文本或摘要。
# - 服务器端压缩不需要你自己的管线：这是它的长处。
#
# **下一步：** notebook labs/04，你自己的 agent 的会话。

# %% [markdown] id="references"
# **参考资料。**
# - 文章第五节和第六节；它的代码：
#   https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/code.py
# - 服务器端压缩：https://platform.claude.com/docs/en/build-with-claude/compaction
# - 提示缓存（Prompt caching）：https://platform.claude.com/docs/en/build-with-claude/prompt-caching
# - Factory Research，“Evaluating Context Compression for AI Agents”（探针五种中的四种）：
#   https://factory.ai/news/evaluating-compression
#
# **课堂讨论。** 在这里，清除遗忘了大部分探针，API 却仍然提供它。对哪些工具来说，清除一个结果根本不算损失？
