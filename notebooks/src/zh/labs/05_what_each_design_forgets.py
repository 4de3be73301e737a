# %% [markdown] id="title"
# # Lab 05 · 每种设计遗忘了什么
#
# 说到压缩，人们最先问的是：“我的 agent 为什么忘了？”前面的 notebook 量过字符数、账单、
# 永久丢失的输出，以及调用时缺失的输出；但还没有逐个事实地问过：上下文被压缩之后，模型还能
# *回答*什么。业界已经开始问了：
# Factory 对压缩的评测（2025 年 12 月）在压缩之后向模型提出探针问题，分四类：**回忆**
# （recall，之前输出里的一个事实）、**产物**（artifact，读过、写过或改过哪些文件）、**延续**
# （continuation，任务是什么、下一步做什么）和**决定**（decision，选了什么、为什么）。第五类是摘要
# 最容易露馅的地方：会话中途变过的事实的**最新值**（latest value，比如用户改过的设置、先失败后通过的测试）。
#
# 这里的探针直接从会话本身抽取，不用模型（`compact_course.probes`）：
# - recall：某个工具输出中、其他输出都没有的一行，取靠近中间的；
# - artifact：read_file、write_file 或 edit_file 调用过的每个路径；
# - continuation：当前请求，以及 assistant 最后说出的下一步；
# - decision：用户的指示（含有“do not”这类提示词的句子：最后的练习会推出这条规则），以及
#   assistant 更早说出的每个步骤或决定（以“Let me”、“I'll”、“First”等开头的句子）；
# - latest value：一个事实被说过不止一次、值各不相同（形如 `name = value` 的一行、测试的 PASSED 或
#   FAILED、“Set the timeout to 45.”这样的句子）：最新的值是对的，更早的值是**错**的，而不是“无法确定”。
#
# 探针给出一行或一句话的开头（它的*提示*，cue），要求说出整行或整句；artifact 探针问某个工具
# 是否在某个路径上调用过。压缩之后，每个探针处在四种位置之一（`compact_course.probes.status`，只看消息
# 和文件，不用模型）：
# - **在上下文中**（in context）：全文就在发给模型的内容里；
# - **在磁盘上**（on disk）：上下文提到的某个文件（转存的输出、transcript）里有它，或者提到的
#   文件又提到了有它的文件；
# - **只在摘要里**（summary only）：只剩摘要还说到它；
# - **没了**（gone）：以上都不是。
#
# 然后逐个提问。离线模型通过真实的 SDK 作答，并可以用 `read_file` 重新读取上下文提到的文件
# （`compact_course.bench.probe_ask`）。它是一个确定性程序，不是语言模型：它只引用以提示开头的文字，
# 所以从不答错；它说“无法确定”的次数，就是上下文丢掉的东西。最新值的问题会说明这个事实先后有几个值；
# 离线模型只在能看到全部这些值的地方引用最后一个，所以它从不给出过时的值。只有当它为某个“在磁盘上”的探针
# 真的重新读了文件，这个探针才算答对。设置了 `ANTHROPIC_API_KEY` 和 `MODEL_ID` 时，
# `python -m compact_course probe FILE` 会把同样的问题交给 Claude（`--repeats N`：每次运行的回答会有
# 差异）；本 notebook 始终离线运行。

# %% [markdown] id="goal"
# **目标。** 你将审计一次 agent 记录在自己会话文件里的压缩，在一个能读懂的会话上看到五类探针，看文章的
# 每一步和 notebook labs/01-03 的每种设计把它们留在哪里，逐个探针检验文章对第一步的说法，看每种设计在
# 5 轮压缩中还留着什么，并写出摘要必须保留的规则。自学约 30 分钟；
# 不在 90 分钟的课堂之内（docs/TEACHING.md）。

# %% [markdown] id="a-compaction-recorded-in-a"
# ## 记录在会话文件里的一次压缩
#
# 你的 agent 以前压缩过，它的会话文件里写着。Claude Code 会写一条 `subtype: "compact_boundary"` 的
# `system` 记录，接着是模型写的摘要，放在一条标有 `isCompactSummary` 的 `user` 记录里；Codex 写的是一条
# `compacted` 记录。下面的文件是 Claude Code 的格式，但它是**制作的，不是录制的**：没有运行过 Claude Code，
# 摘要由本项目写出（`scripts/make_recorded_sessions.py`），所以每个答案都是已知的。在这个会话里，用户把
# timeout 从 30 改成 45，一个测试先失败后通过，一个文件里的 retries 从 2 变成 5；然后上下文被压缩。

# %% [markdown] id="each-probe-of"
# 边界之前那些消息的每个探针，此后处在上面那几种位置之一，记录下来的压缩和本课程的每种设计用同一条规则，
# 再加一种：**重新读过**（re-read：哪里都没有，但 agent 在文件后面又把它取了回来：某次工具调用的结果里有它）。
# 离线模型凭压缩留下的东西回答：它的摘要、它原样保留的消息、它指向的记录文件。每次缺失（发送的内容里没有
# 完整的某个工具输出）按重新读一次那个输出计价，以基础输入 token 计。报告还把这段切片的大小和压缩发生时的
# 大小并排打印出来：这个文件只有 agent 当时发送内容的一小部分
# （`python -m compact_course probe FILE --recorded` 打印的是同样的内容）。

# %% [markdown] id="the-summary-kept"
# 摘要保留了指示、改过的文件、错误和下一步。它丢掉了 assistant 的决定；有四个探针能找回来，只是因为
# agent 在边界之后又把它们取了一次，每次都是付了费的重新读取。在这个短会话上，本课程的设计除了一个输出之外什么都没丢（原文配置的第三步每次调用都会运行）。
# 再看那些变过的事实：

# %% [markdown] id="the-summary-still"
# 摘要里仍然写着“Set the timeout to 30.”和“test_total FAILED”：两个过时的值（报告里数出的就是这两个）。
# 相信它的模型会回答 30，这个回答算作错。离线模型看到的值只有 1 个，而问题说有 2 个，所以它说无法确定；
# 就连摘要写对了的 retries，它也不担保，因为它看不到那次变化。在你自己的文件上运行这个审计：
# `python -m compact_course probe ~/.claude/projects/<project>/<session>.jsonl --recorded`
# （Codex 的 rollout 也可以；加 `--json` 得到数字）。

# %% [markdown] id="five-kinds-of-probe-from-a"
# ## 五类探针，来自一个能读懂的会话
#
# `long_session` 是 notebook 02 的预先录制的历史：为课程工作区写一份状态报告，共 64 条消息。
# 它的第二条消息是用户的指示：“Do not edit anything under web/. Keep the report under 300 words.”

# %% [markdown] id="each-cue-was"
# 每个提示都经过挑选：会话里凡是以它开头的行或句子，都是期望的那一个；模型无论找到哪一份副本，
# 都是正确答案。artifact 探针写明工具和路径，期望的回答是“yes”。

# %% [markdown] id="each-step-of-the-article-alone"
# ## 文章的每一步，单独运行
#
# 每一步在原文配置（seed，即文章原样）下单独运行一次，用的是专门为它准备的预先录制的历史。然后定位每个
# 探针，并逐个提问。

# %% [markdown] id="step-2-moves"
# 第二步把 `long_session` 的中间部分移到一个 transcript，并在标记里写明它：离开上下文的内容在
# 磁盘上，离线模型会重新读取它。第四步用一条写明 transcript 的摘要替换 `two_code_files`：同样
# 如此。只有第三步让探针“没了”：在原文配置下，它把 `five_reads` 里较早的结果缩成
# `[Earlier tool result omitted.]`，没有任何副本（缺陷 1），模型说不出那些行。

# %% [markdown] id="the-articles-claim-about-step-1"
# ## 逐个探针检验文章对第一步的说法
#
# 文章说第一步转存的输出“完整内容仍然可以从路径中取回”。在 `huge_result` 上，第一步把 288,000
# 字符的 JSON 移到 `.task_outputs/tool-results/`，只留下 2,000 字符的预览。下面是这段历史的
# 每个探针、第一步之后它所在的位置，以及回答：

# %% [markdown] id="the-claim-holds"
# 在这段历史上，这个说法成立：预览之外的那一行在磁盘上，模型读取预览写明的路径，就把它取了
# 回来。

# %% [markdown] id="each-design-of-labs-01-03-at-the"
# ## notebook labs/01-03 的每种设计，在会话结束时
#
# 基准测试的设计（notebook labs/02）：`none`、`summary`（只有第四步）、`seed`、`default`，以及离线
# 服务器模拟的 API 自带的上下文管理（notebook labs/03）：`server-clear`、`server-compact`、
# `default+server-compact`；还有 `default+cold`，即打开缓存感知开关的 default
# （`compact_when_cold`：在提示缓存已过期的调用上，压缩到目标值）。`long_session` 在每种设计下
# 逐次调用回放，再为下一轮做准备，然后在
# 那里定位并询问每个探针。

# %% [markdown] id="the-seed-profiles"
# 原文配置的第三步让大部分 recall 行“没了”，模型无法确定；default 先把它们保存下来，所以它们
# 在磁盘上，也都答对了。这个会话太短，达不到服务器端设计的默认触发阈值（100,000 和 150,000 个
# token）：它们在这里什么也没改变。下面更长的会话会显示它们的作用。

# %% [markdown] id="the-summarys-weak-spot"
# ## 摘要的弱点
#
# Factory 发现，它试过的每种方法在产物轨迹（artifact trail）上都最弱。本课程写的摘要（离线模型
# 的抽取式摘要，第四步）又如何？每段预先录制的历史都被它的摘要消息替换，并且有意不看摘要背后的
# transcript：摘要自己保留了什么？

# %% [markdown] id="the-courses-summary"
# 本课程的摘要会列出它看到的每次调用及其路径，所以在这里它保留了全部产物轨迹。它的弱点在
# 别处：大部分 recall 行，以及用户的指示（它的文档字符串把用户的约束列在它不保留的内容里）。
# 这是离线替身的局限，不是文章的设计：文章的摘要提示要求真实模型保留用户约束。练习里的
# `instructions` 这样的规则，才能把它们留下。这里没有测量 Claude 写的摘要；设置密钥后运行 `python -m compact_course probe`，就能看到你的。

# %% [markdown] id="what-each-design-costs-and-what"
# ## 每种设计的花费，以及它遗忘的内容
#
# 一个更长的会话：基准测试的 tool-heavy 会话，120 轮，种子 0。每种设计的账单（notebook labs/02 的
# 账单，以基础输入 token 计）旁边，是结束时“没了”的探针数。

# %% [markdown] id="read-the-chart"
# 从左下角读这张图：缺失计价后（每次缺失按回读计费，见 notebook labs/02）最便宜、又什么都不遗忘的设计。在这个会话上，那就是 default 配置（还有加上
# 服务器端压缩的 default：服务器端压缩在这里从不触发，上面的单元格为它打印的摘要调用是 0 次，
# 服务器端压缩也算在内）。原文配置花得更多，也会遗忘；服务器端压缩会遗忘它的
# 摘要丢掉的内容；清除（clearing）会遗忘它清除的结果，而且在 API 的默认触发阈值下，它在做压缩的
# 设计里花费最高。`none` 什么都不遗忘，但花费高得多，“requests over the window”一列是它超出窗口、会被 API 拒绝的请求数（notebook labs/02）。

# %% [markdown] id="round-after-round"
# ## 一轮又一轮
#
# 损失不是在一次压缩之后显现的：业界是在几次之后才发现它（在一个一致性测试工具里，自由形式的摘要在第 2
# 轮还保留着全部植入的事实，到第 5 轮只剩十分之一）。基准测试的 tool-heavy 会话，400 轮，依次经过每种
# 设计；一**轮**（round）是该设计自己的一次压缩（写了一个 transcript，或者服务器端做了压缩）。每一轮，
# 它之前那些消息的每个探针都重新定位一次：**还在**（held）请求或它的摘要里，或者**还能找回**
# （reachable：请求提到的某个文件里也有它）。

# %% [markdown] id="read-the-solid"
# 先看实线：模型不重新读取就拥有的内容。每种做压缩的设计，每一轮还在的都更少：summary 设计从第 1 轮的
# 69% 降到第 5 轮的 44%，default 从 27% 降到 6%（它把输出移到磁盘上，而不是写进摘要），服务器端压缩在它
# 走到的 4 轮里从 32% 降到 12%。虚线是重新读取还能找回的：summary 设计和 default 每一轮都是 100%（它们的
# transcript 和保存的输出），原文配置到第 5 轮是 73%（第三步的占位符没有副本），服务器端压缩则不会多于
# 还在的：它不留文件。recall 行最先消失：到第 5 轮，没有哪种设计还留着一行。这里的摘要是离线模型的抽取式
# 摘要；模型写的摘要可能保留得多些或少些，`--recorded` 在你自己的文件上量的就是这个。

# %% [markdown] id="check"
# ## 自测：摘要必须保留的规则
#
# 本课程的摘要会丢掉用户的指示。探针用一条规则 `compact_course.probes.instructions` 找出它们；你要在
# 不读它的情况下重写这条规则：从下面的示例里推出来。每段文字后面打印了规则保留的句子（由包计算）。
# 哪些词让一个句子成为指示？大小写有没有关系？词藏在更长的词里怎么办？中文词与词之间没有空格，
# 又怎么办？这条规则只看词，不看意思：它会保留一些人不会称为指示的句子，也会漏掉一些人会称为
# 指示的句子；把它们找出来，就知道规则看的是什么。
#
# 然后写出 `instructions(text)`：`text` 中规则保留的句子，按原来的顺序，去掉首尾空白；
# `compact_course.probes.readable_units(text, "sentence")` 可以把文字切成句子。检查器在你没见过的预先录制
# 的文字和带种子的随机文字上，分别运行包里的规则和你的函数。`hint()` 会指出它识别出的错误。

# %% [markdown] id="recap"
# **小结。**
# - 探针是一个答案就在会话里的问题；压缩之后，它在上下文中、在磁盘上、只在摘要里，或者没了，
#   这一点不用模型就能算出来：对本课程的设计如此，对你的 agent 记录下来的压缩也如此（`probe FILE --recorded`）。
#   摘要留着的过时值会让回答变成错。
# - 文章的第一、二、四步把全文留在磁盘上；原文配置（seed）的第三步让它没了。一轮又一轮，设计还留着的东西
#   越来越少；只有文件能让它们还找得回来。
# - 本课程的摘要保留了产物轨迹，但丢掉了 recall 行和用户的指示：像 `instructions` 这样的规则，
#   就是摘要必须保留的东西。
#
# **下一步：** Lab 06，今天的 API：让思考块保持有效的压缩。

# %% [markdown] id="references"
# **参考资料。**
# - 文章第六节（摘要：只写事实，请求单独保留）和四条核心经验；这一章在上游仓库中的页面：
#   https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/README.zh.md
# - 上游摘要器的提示词：https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/code.py
# - API 的压缩功能，以及给摘要用的 `instructions`：
#   https://platform.claude.com/docs/en/build-with-claude/compaction
# - Claude Code 压缩之后保留什么：https://code.claude.com/docs/en/context-window
# - Lost in the Middle：语言模型怎样使用长上下文（Liu 等，2023），说明“还在上下文里”不等于
#   “被用上了”：https://arxiv.org/abs/2307.03172
#
# **课堂讨论。**
# - 用户的哪些指示你会完全不放进摘要？改放在哪里？
# - 一个答案“只在摘要里”的探针，算是记住了吗？换成真实模型，你会测量什么来找出答案？
