# %% [markdown] id="title"
# # Lab 05 · 每种设计遗忘了什么
#
# **问题。** 一次压缩之后，模型还能回答什么？什么永远没了？
#
# Factory 的评测（https://factory.ai/news/evaluating-compression）在压缩之后
# 提出**探针**（probe）问题，分四类：**回忆**（recall，之前输出里的一个事实）、**产物**
# （artifact，读过或改过哪些文件）、**延续**（continuation，任务和下一步）和**决定**（decision，
# 选了什么）。本课程加了第五类，**最新值**（latest value）：一个变过的事实的最后一个值（一项设置、
# 一个先失败后通过的测试）；更早的值是**过时**的（stale），给出它的回答判为**错**。
#
# 探针直接从会话抽取，不用模型（`compact_course.probes`），每个探针处在四种**位置**之一：
# **在上下文中**（in context，全文就在发出的请求里）、**在磁盘上**（on disk，在上下文提到的某个文件里）、
# **只在摘要里**（summary only），或者**没了**（gone）。探针在上下文中或在摘要里，就算**还在**（held）；
# 还在或在磁盘上，就算**还能找回**（reachable）。然后离线模型（一个程序，不是语言模型）通过真实的 SDK
# 逐个作答，只根据它找到的文字：它说“无法确定”的次数，就是上下文丢掉的东西。

# %% [markdown] id="goal"
# **目标。** 你将审计一次记录下来的压缩，看五种**设计**（压缩的做法，同 labs 02-03）一次又一次压缩之后还有
# 哪些探针还在，并写出摘要必须保留的规则。自学约 35 分钟；不在 90 分钟的课堂之内（docs/TEACHING.md）。

# %% [markdown] id="a-compaction-recorded-in-a"
# ## 记录在会话文件里的一次压缩
#
# Claude Code 用一条 `compact_boundary` 记录标出一次压缩，后面跟着模型写的摘要。下面的文件是这个格式，
# 但它是**制作的，不是录制的**（`scripts/make_recorded_sessions.py`），所以每个答案都是已知的。在这个
# 会话里，用户把 timeout 从 30 改成 45，一个测试先失败后通过，一个文件里的 retries 从 2 变成 5；然后
# 上下文被压缩。它记录下来的摘要：

# %% [markdown] id="each-probe-of"
# `compact_boundary` 之前那些消息的每个探针都找出位置，再加一种位置：**重新读过**（re-read：agent
# 在边界之后又把它取了回来，这次调用是要付费的）。然后是那三个最新值探针：

# %% [markdown] id="the-summary-still"
# 摘要里仍然写着 "Set the timeout to 30."：信了它的模型会回答 30，被判为错。问题里说超时先后取过
# 两个值；离线模型只找到一个，它可能是过时的，所以回答“无法确定”。用同样的方法审计你自己的文件：
# `python -m compact_course probe ~/.claude/projects/<project>/<session>.jsonl --recorded`。

# %% [markdown] id="round-after-round"
# ## 一次又一次压缩
#
# 损失不是在一次压缩之后显现的。基准测试的 tool-heavy 会话，400 轮，依次经过五种设计：
# `none`、`summary`（只有第四步）、`seed` 和 `default` 两种配置，以及 `server-compact`（API 的压缩，
# 由离线服务器扮演）。一**回合**（round）是该设计自己的一次压缩；每一回合，单元格数出此前产生的探针中
# 还在的和还能找回的。

# %% [markdown] id="read-the-solid"
# 实线是还在的（模型不重新读取就拥有的）：随着回合下降。default 还在的很少，因为它把输出移到磁盘上，
# 而不是写进摘要。虚线是还能找回的（重新读取能拿回的）：`summary` 和 `default` 全都能找回（它们的
# transcript 和保存的输出），`seed` 少一些（第三步的占位符没有副本），`server-compact` 则不会多于还在的：
# 它不留文件。
#
# 参考表格（文章每一步单独运行、每种设计在会话结束时、账单、按类别列出的每一回合）在
# `show_all = True` 时打印。

# %% [markdown] id="check"
# ## 自测：摘要必须保留的规则
#
# 第四步的摘要（由离线模型写）会丢掉用户的指示（"Do not edit anything under web/."）。探针用一条规则
# `compact_course.probes.instructions` 找出它们；请从下面的示例里把它重写出来，每段文字后面打印了规则
# 保留的句子。哪些词让一个句子成为指示？大小写有没有关系？词藏在更长的词里呢？中文词与词之间没有空格，
# 又怎么办？这条规则只看词，不看意思：它“判错”的那些句子，告诉你它看的是什么。
#
# 写出 `instructions(text)`：`text` 中规则保留的句子，按原来的顺序，去掉首尾空白
# （`compact_course.probes.readable_units(text, "sentence")` 可以切出句子）。检查器在你没见过的制作好的
# 文字和带种子的随机文字上，把你的函数和包里的规则相比较。

# %% [markdown] id="recap"
# **小结。**
# - 探针是会话能回答的问题；压缩之后它的位置不用模型就能算出来，你自己的会话文件也一样
#   （`probe FILE --recorded`）。
# - 摘要留着过时的值，回答就是错的，而不只是缺失。
# - 一回合又一回合，每种设计还在的都更少；只有文件能让其余的还找得回来。
#
# **下一步：** Lab 06，今天的 API：让思考块保持有效的压缩。

# %% [markdown] id="references"
# **参考资料。**
# - Factory，Evaluating context compression：https://factory.ai/news/evaluating-compression
# - 文章第六节（摘要：只写事实，请求单独保留）：
#   https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/README.zh.md
# - API 的压缩功能，以及它的 `instructions`：https://platform.claude.com/docs/en/build-with-claude/compaction
# - Claude Code 压缩之后保留什么：https://code.claude.com/docs/en/context-window
#
# **课堂讨论。** 一个答案“只在摘要里”的探针，算是记住了吗？换成真实模型，你会测量什么来找出答案？
