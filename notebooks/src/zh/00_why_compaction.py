# %% [markdown] id="title"
# # 00 · 为什么要压缩：上下文是一张草稿纸
#
# 编码 agent 把整段对话放在一个列表 `messages` 里，**每一次**调用模型都把它整个发出去。文章
# （learn-claude-code 第 s08 章）把它比作模型的草稿纸，大小固定：超过模型的窗口，API 就拒绝
# 请求，返回 `prompt is too long`。

# %% [markdown] id="goal"
# **目标。** 你会知道：文章怎样测量上下文；会话增长得有多快；文章的四个步骤各由什么触发、
# 各留下什么。自学约 10 分钟；在 90 分钟的课堂上用 12 分钟，含准备时间（docs/TEACHING.md）。
# 中英术语对照见 [docs/GLOSSARY.md](../../docs/GLOSSARY.md)。

# %% [markdown] id="the-whole-game-in-one-minute"
# ## 一分钟看完全局
#
# 文章的 agent 用离线模型（一个确定性程序，不是语言模型）比较两个大代码文件。`>` 开头的行是
# 它的工具调用，方括号里的行是压缩器：第二次读取之后，列表写入 transcript（完整记录），由一份
# 摘要取而代之，agent 接着往下做。

# %% [markdown] id="the-articles-measure-and-how"
# ## 文章的测量方法，以及会话增长得有多快
#
# 文章里的每个阈值都按**字符**计：`len(json.dumps(messages, ensure_ascii=False))`；API 按
# token 计。其中大部分是工具结果（第一行）。图中是一个长会话在每次模型调用时的大小：灰线是不压缩的上下文（虚线是推算到窗口的部分），
# 蓝线是 `prepare`（见下文）实际发送的内容。

# %% [markdown] id="check"
# ## 文章的答案，以及哪些步骤会起作用
#
# 在**每一次**模型调用之前，`prepare` 运行四个步骤，成本最低、最容易恢复的排在前面；图中写明
# 每一步的触发条件和它留下什么。预测一下：在 notebook 01-04 的四段历史上，哪些步骤会改变内容？
#
# - `five_reads`：9 条消息，约 17,000 个字符，读取五个 README；
# - `huge_result`：5 条消息；最新一批结果里有一次 288,000 字符的文件读取，外加三条小结果；
# - `long_session`：64 条消息（第二步的上限是 50 条），约 24,000 个字符；
# - `two_code_files`（就是“一分钟看完全局”里的任务）：5 条消息，约 65,000 个字符；
#   最新一批结果里有两个代码文件，各约 30,000 个字符。

# %% [markdown] id="recap"
# **小结。**
# - 文章用 JSON 的字符数衡量上下文；API 按 token 计。
# - 不做压缩，每次调用都重发全部内容，直到 API 拒绝。
# - `prepare` 在每次调用前运行四个步骤：把结果转存到磁盘；把长列表的中间段归档到
#   transcript；把旧结果缩成一行；仍然太大时才生成摘要。
#
# **下一步：** notebook 01，第一步 `tool_result_budget`：超大的结果转存到磁盘。

# %% [markdown] id="references"
# **参考资料。**
# - 文章（learn-claude-code s08）的「一、先理解上下文」和「二、为什么先整理工具结果」两节；[docs/ARTICLE_MAP.md](../../docs/ARTICLE_MAP.md) 把文章各节对应到代码。
