# %% [markdown] id="title"
# # 00 · 为什么要压缩：上下文是一张草稿纸
#
# 编码 agent 把整段对话放在一个列表 `messages` 里：用户的话、模型的回复、每个 `tool_use` 和
# 每个 `tool_result`。**每一次**调用模型，整个列表都要重新发给 API。文章（learn-claude-code
# 第 s08 章）把它比作模型的草稿纸，而草稿纸的大小是固定的：超过模型的窗口，API 就拒绝请求，
# 返回 `prompt is too long`。

# %% [markdown] id="goal"
# **目标。** 学完本节，你会知道：文章怎样测量上下文（JSON 的字符数）；不做压缩时，会话增长得
# 有多快；文章管线的整体结构：四个步骤，各自由什么触发，各自在上下文里和磁盘上留下什么。
# 自学约 25 分钟；在 90 分钟的课堂上用 8 分钟（docs/TEACHING.md）。本课程的中英术语对照见
# [docs/GLOSSARY.md](../../docs/GLOSSARY.md)。

# %% [markdown] id="the-whole-game-in-one-minute"
# ## 一分钟看完全局
#
# 文章的 agent 用离线模型（一个确定性程序，不是语言模型）比较两个大代码文件。以 `>` 开头的行
# 是它的工具调用；方括号里的行是压缩器：第二次读取之后上下文超过阈值，于是列表写入
# transcript（完整记录），由一份摘要取而代之，agent 接着往下做。

# %% [markdown] id="the-articles-measure-and-how"
# ## 文章的测量方法，以及会话增长得有多快
#
# 文章里的每个阈值都按**字符**计：
# `estimate_chars(messages) = len(json.dumps(messages, ensure_ascii=False))`，廉价而确定。
# API 按 token 计。`five_reads`
# 是一段小对话；`timeline_150` 是一个长会话。灰线：不压缩时的上下文；蓝线：
# 文章的 `prepare` 实际发送的内容；虚线：`CONTEXT_CHAR_LIMIT` 和窗口；点线：按这个会话的
# 平均增速，灰线到达窗口的位置。

# %% [markdown] id="the-articles-answer-four-steps"
# ## 文章的答案：每次调用前走四个步骤
#
# 在**每一次**模型调用之前，`prepare` 都按固定顺序运行四个步骤，成本最低、最容易恢复的排在
# 前面。每个方框写明这一步的触发条件，以及它在上下文和磁盘上留下什么
# （`CompactionConfig.seed()`）。

# %% [markdown] id="check"
# ## 自测：哪些步骤会动作？
#
# 下面用文章的数值，对 notebook 01-04 的四段历史各运行一次 `prepare`：
#
# - `five_reads`：9 条消息，约 17,000 个字符，读取五个 README；
# - `huge_result`：5 条消息；最新一批结果里有一次 288,000 字符的文件读取，外加三条小结果；
# - `long_session`：64 条消息（第二步的上限是 50 条），约 24,000 个字符；
# - `two_code_files`（就是“一分钟看完全局”里的任务）：5 条消息，约 65,000 个字符；
#   最新一批结果里有两个代码文件，各约 30,000 个字符。
#
# 在每段历史上，哪些步骤会改变内容？为每段历史按运行顺序写出步骤名称。

# %% [markdown] id="recap"
# **小结。**
# - 文章用 JSON 的字符数（`ensure_ascii=False`）衡量上下文的大小；API 按 token 计。
# - 不做压缩，每次调用都重发全部内容，所以上下文只增不减，直到 API 拒绝。
# - `prepare` 在每次调用前运行四个步骤：把结果转存到磁盘；把长列表的中间段归档到
#   transcript（完整记录）；把旧结果缩成一行；只有仍然太大时，才生成摘要。
#
# **下一步：** notebook 01，第一步 `tool_result_budget`：超大的结果转存到磁盘。

# %% [markdown] id="references"
# **参考资料。**
# - 文章（learn-claude-code s08）的「一、先理解上下文」和「二、为什么先整理工具结果」两节；[docs/ARTICLE_MAP.md](../../docs/ARTICLE_MAP.md) 把文章各节对应到代码。
