# %% [markdown] id="title"
# # 04 · 第四步 `compact_history`：唯一需要调用模型的步骤
#
# 第一步到第三步之后，如果列表仍然超过 `CONTEXT_CHAR_LIMIT`（50,000 个字符），文章就打印
# `[auto compact]` 并运行第四步：把整个列表写入 `.transcripts/`，请模型为工作状态写一份只含事实
# 的摘要，然后用一条 `[Compacted]` 消息替换整个列表。

# %% [markdown] id="goal"
# **目标。** 你将了解：第四步何时运行；它留下的消息；摘要器的输入怎样截断；植入的一条指令落在
# 哪里。然后你要推算出摘要器看不到哪些消息，并写出这一步。自学约 45 分钟；在 90 分钟的课堂上
# 用 8 分钟（docs/TEACHING.md）。

# %% [markdown] id="run-prepare-seed-profile"
# ## 第四步何时运行
#
# 文章的实验三：agent 读进两个很长的代码文件。图中第一步到第三步之后，列表仍然超过阈值；
# 请看唯一改动了列表的那一步。

# %% [markdown] id="the-compacted-message"
# ## `[Compacted]` 消息
#
# 现在列表只剩这一条 user 消息。找出它的三个部分：用户本轮输入的请求、写成 JSON 字符串的摘要
# （由包里确定性的抽取式摘要器写成，不是语言模型），以及 transcript（完整记录）的路径。

# %% [markdown] id="what-the-summarizer-is-sent"
# 对这五条消息，模型今后只有这份摘要；代码现在只在 transcript 里。
#
# ## 摘要器收到什么
#
# 超过 `SUMMARY_INPUT_CHAR_LIMIT`（80,000）时，摘要器的输入从 JSON 开头取这个预算的四分之一，
# 从结尾取四分之三，中间放一个标记。两个文件放得下；`timeline_150` 放不下：

# %% [markdown] id="an-instruction-in-the-history-is"
# ## 历史里的指令只是数据
#
# 文章的最后一条经验：摘要只是参考数据。工作区里有一份笔记，标题是一条冲着 agent 来的命令；
# 用户问笔记里还有哪些工作没做完；agent 读了它，第四步随后做摘要。这条命令落在哪里，agent
# 接下来又做了什么？

# %% [markdown] id="check"
# 这条命令只出现在“reference only”（仅供参考）之下加了引号的摘要里，排在用户输入的请求之后。
# 起作用的是结构，而不是模型听话：离线模型本来就只按 `Current user request` 行事。“reference
# only”只是对模型的请求，不是沙箱；而在摘要之前，这份笔记只是一条普通的 `tool_result`。防范有害
# 命令的是沙箱（[docs/SAFETY.md](../../docs/SAFETY.md)）。
#
# ## 自测：摘要器看不到的消息
#
# 写出 `unseen(sizes, limit)`：`sizes` 是各条消息的 JSON 大小
# （`len(json.dumps(message, ensure_ascii=False))`），从最早到最新；返回截断后的输入里一个字符都
# 没有的那些消息的下标，从最早的开始。输入是整个列表的 `json.dumps`：算出每条消息从哪里开始；
# 被切点穿过的消息算是看到了一部分。

# %% [markdown] id="build-it"
# ## 动手实现：在自己的文件里写第四步
#
# 在 `my_compact.py` 中先写出 `summary_input`，再用它写出 `compact_history`，保存，再运行这个
# 单元。检查用一个小函数代替模型，它回答的摘要里有引号和换行：消息中必须把它写成 JSON 字符串。

# %% [markdown] id="recap"
# **小结。**
# - 只有在第一步到第三步之后列表仍超过 50,000 个字符时，第四步才会运行；只有它调用模型。
# - 它先写 transcript，然后只留下一条 `[Compacted]` 消息：请求、作为参考数据的摘要、transcript
#   的路径。
# - 摘要器的输入超过 80,000 个字符时被截断：开头取四分之一，其余取自结尾。
#
# **下一步：** notebook 05：四个步骤为什么按这个顺序运行，顺序错了又会丢失什么。

# %% [markdown] id="references"
# **参考资料。**
# - 文章（learn-claude-code s08）的「六、第四步：compact_history」一节；[docs/ARTICLE_MAP.md](../../docs/ARTICLE_MAP.md) 把文章各节对应到代码。
