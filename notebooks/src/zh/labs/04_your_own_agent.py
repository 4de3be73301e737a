# %% [markdown] id="title"
# # Lab 04 · 你自己的 agent，你自己的历史
#
# 前面每个 notebook 回放的都是课程自带的历史，用的都是文章的数值。
# 你的 agent 不是课程的 agent：它的工具返回的结果大小不同，会话可能更长也可能更短，
# 它的模型也有自己的窗口。这里你把 **你自己的 agent 的一次会话** 放进管线回放，
# 在它上面扫描各个阈值，为给定的窗口选出设置，再读一份“配方”：
# 怎样把管线接进一个普通的 SDK 工具循环。
#
# 导入器（`compact_course.sessions`）能读这些格式：
#
# - **Claude Code 的会话文件**，即 Claude Code 保存在 `~/.claude/projects/<project>/`
#   下的 JSONL。这是 Claude Code 自己的格式，没有官方文档；
#   导入器保留主线，以及 harness 发给模型的内容（斜杠命令展开后的提示，即 `isMeta` 记录），
#   跳过子 agent 的旁支（sidechain；子 agent 自己的文件则作为一个会话导入）和本地命令的提示（caveat）行，
#   把 Claude Code 按块分开写下的一次回复重新合成一条，把一批并行调用重新拼完整，
#   并把 Claude Code 自己做过的压缩原样记下，压缩之前的消息也照样读入；
# - **OpenAI Codex CLI 的 rollout 文件**、**Responses API 的请求体**和 **ATIF 轨迹**
#   （harbor 项目的交换格式），转换成 Messages API 的块；
# - **普通的 Messages API 历史**：一个 JSON 列表、`{"messages": [...]}`，或每行一条消息；
# - **OpenAI 聊天格式的日志**（`tool_calls`、`role: "tool"`），转换成 Messages API 的块。
#
# 无法解析的文件，或工具配对对不上的文件，都会被拒绝，并给出文件、行号和问题所在：
# 转换到一半的东西绝不会被回放。没有哪个导入器认领的文件，会被拒绝并说明它看起来像什么。

# %% [markdown] id="goal"
# **目标。** 你将载入另一个 agent 的会话文件，回放它，在它上面扫描阈值，
# 为一个窗口和一份预算选出设置，并看到工具循环需要的那四行。约 30 分钟。

# %% [markdown] id="what-the-file-holds-and-what-the"
# ## 文件里有什么，模型看到了什么
#
# 样例 `data/sessions/claude_code_sample.jsonl` 是 **制作的，不是录下来的**：
# 并没有真的运行 Claude Code。`scripts/make_claude_session.py` 用课程的工作区、
# 按 Claude Code 的格式写出它，里面是课程工具的真实输出、一个在自己的旁支里
# 读五节课 README 的子 agent，以及一次编辑之前的文件历史快照（file-history-snapshot）。
# 它的第一条记录就这样写明了。先按种类数一数它的记录，再看导入器留下了什么：

# %% [markdown] id="every-import-also"
# 每次导入还会说明它读了什么、略去了什么，按种类列出，并给出行号：
# 都在历史的 `import_report` 里（它的 `import_notes` 用英文写着同样的内容，供终端显示）。

# %% [markdown] id="the-sidechain-records"
# 旁支记录和 meta 行被略去：那一行是本地命令的说明（caveat）；而带着斜杠命令提示的 `isMeta`
# 记录被保留（报告里的 "1 user (isMeta)"）。`summary` 和 `file-history-snapshot` 是簿记，不是消息。
# assistant 记录比模型回复多：Claude Code 每个内容块写一条记录，
# 导入器把 `message.id` 相同的记录重新合成一条回复。
# 当前用户请求是由人输入的最新一段文本。

# %% [markdown] id="todays-claude-code-and-the-other"
# ## 今天的 Claude Code，以及其他格式
#
# 从 2.1.x 起，Claude Code 把一批并行调用的每个结果都记在它自己那条 `tool_use` 记录之下
# （`sourceToolAssistantUUID` 也这样写明），于是一批调用分叉成好几条分支；导入器把每一批重新拼完整。
# Claude Code 自己做过的压缩被原样记在历史的 `compactions` 里：发生在哪里，以及替换掉此前消息的那份摘要。
# `data/sessions/claude_code_2_1.jsonl` 和样例一样是制作的，由 `scripts/make_sessions.py` 写出；
# 其中的摘要是脚本写的，不是模型写的。

# %% [markdown] id="the-other-made"
# 其他制作的样例，每种格式一个，也都这样导入，`python -m compact_course replay FILE` 都接受：

# %% [markdown] id="one-prepare-over-the-whole"
# ## 对整个会话运行一次 `prepare`
#
# 和 notebook labs/01 一样，`replay` 用默认配置（default）和文章的数值，对整个列表运行一次管线：

# %% [markdown] id="call-by-call"
# ## 逐次调用
#
# `timeline` 把会话按模型调用逐次交给 `prepare`：
# 假如你的 agent 当初运行了这条管线，它也会这样做。回复是录下来的那些：
# 压缩器改变不了模型接下来做了什么。

# %% [markdown] id="sweep-the-thresholds-for-a"
# ## 为一个窗口扫描阈值
#
# 假设你的模型窗口是 16,000 个 token。这个样本很小（网格下面一行打印它不压缩时的峰值），所以
# 这里的窗口也小；换成 200,000 或 100 万 token 的窗口，会话一旦长过它，同样的问题就会出现，同样的
# 扫描也能回答。`sweep` 按下面网格里的每组设置回放一次会话，
# 两种配置都跑。上下文阈值要么是文章的、按字符计（`context_char_limit`），
# 要么按 token 计（`context_token_limit`，这里用离线模型的估算来数）；
# 每一种都和 `keep_recent_results`、`snip_target_messages` 的每个取值交叉组合。每一行衡量
#
# - **成本（cost）**：整个会话的账单，以基础输入 token 计，和 notebook labs/02 一样：
#   一次请求若是在上一次请求后面接着追加，就按每个 token 0.1 从提示缓存读出上一次的部分，
#   其余按 1.25 写入缓存；每条录下的回复按输出计，每个 token 5；每次摘要调用也计入账单
#   （表格第一行写明按哪个模型计价）；
# - **+misses**：把每次缺失（见下）按回读计价后的账单：对这次调用缺的每个名字，
#   把含有它的最新一条早先输出再读一遍；
# - **丢失（lost）**：任何地方都无法再逐字读到的工具输出；
# - **缺失（misses）**：录下的回复用到了某个名字（`snake_case`，8 个字符以上），
#   而这个名字只出现在更早的某个工具输出里，但那次调用发出的内容里哪儿都没有它
#   （结果、预览、摘要里都没有），这样的模型调用次数。这是本课程自己的衡量标准：你的模型本来得把那个输出再读一遍；
# - **峰值 token（peak tokens）**：最大的一次请求，按离线模型的估算；
# - **遗忘（forgot）**：会话的探针（notebook labs/05 的五种：recall，输出里的一行；artifact，动过的
#   文件；continuation，请求和说过的下一步；decision，说过的决定或用户的指令；latest value，变过的事实的最新值）中，这组设置为下一轮发送的内容、它提到的文件和摘要都不保留的那些。
#
# 排名只保留遗忘不比默认配置（默认设置下）多的行（表格下面那一行打印出这个数，以及它排除了
# 多少行，标为 `-`）。在这些行里，最佳行（`*`）放得进窗口、什么都不丢，其次缺失最少，再其次
# 把缺失计价后的账单（`+misses`）最低。`!` 标出超出窗口的行。

# %% [markdown] id="the-chart-draws"
# 图表画出每一行：横轴是成本，纵轴是缺失。实心点什么都不丢，空心点有丢失，
# 叉号放不进窗口；星号是最佳行，虚线是不压缩时的成本。

# %% [markdown] id="read-it-with"
# 用下面的检查来读它。原文配置（seed）的第三步不给它移走的内容留副本，
# 所以它的行都有丢失，也遗忘探针，排名把它们排除在外；默认配置（default）的行什么都不丢，
# 也不遗忘。
# 在默认配置里，无论哪种单位，最低的阈值都有成本最低的那一行，缺失也最多；但各阈值的成本
# 范围可能重叠（最后几行打印了哪里重叠），所以无论其他参数怎么设，更低的阈值并不总是更便宜。
# 按字符计的最大阈值放不进这么小的窗口。

# %% [markdown] id="the-chosen-settings"
# ## 选定的设置
#
# 最佳行的设置就是一个 `CompactionConfig`：把它交给你的压缩器。
# 按 token 计的阈值需要一个 token 度量配合它，即 `context_compact.tokens.TokenMeasure(client, model)`，
# 它去问你的模型自己的 `count_tokens`；阈值的单位和度量的单位不一致时，压缩器会拒绝。

# %% [markdown] id="the-recipe-four-lines-in-your"
# ## 配方：你自己循环里的四行
#
# [docs/RECIPE.md](../../docs/RECIPE.md) 逐行解释；`examples/own_loop.py` 是完整的循环，
# 有一个测试让它对着离线模型运行。这就是它的四个位置：
#
# 1. 每次调用模型之前 `prepare(messages, request)`；
# 2. API 仍然回答 `prompt is too long` 时，运行一次 `reactive_compact(messages, request)`
#    （补救压缩），然后重发同一次调用；
# 3. `compact` 工具：先执行整个批次，追加每一个结果，然后才 `compact_history`；
# 4. 把当前用户请求传给它们每一个。

# %% [markdown] id="check"
# ## 自测：为更小的模型选设置
#
# 你的团队把这个 agent 换到一个窗口只有 4,000 个 token 的模型上，在这次会话上能花的成本是
# 30,000（扫描用的单位）。下面的单元格会打印上面网格里有多少行放得进这个窗口：答案不在表里。
# 先别运行，预测一下：哪个参数决定峰值，往哪个方向调，这对成本又有什么影响？然后选一种配置、
# 一个上下文阈值（按字符或按 token）和另外两个阈值。检查器会回放你的选择（任何数值都行）并
# 评判：它必须放得进窗口、什么都不丢、遗忘的探针不比默认配置（默认设置下）多，而且不超预算（网格里没有一行放得进窗口，所以没有
# 最佳行可以比较缺失次数，检查器会说明这一点）。

# %% [markdown] id="recap"
# **小结。**
# - 导入器读得了 Claude Code（包括 2.1.x，它自己的压缩原样保留）、Codex CLI、Responses API、ATIF、
#   Messages API 和 OpenAI 聊天格式的文件，转换不了的地方会指出行号；
#   `python -m compact_course replay FILE` 和 `sweep FILE` 都接受它们。
# - 在你自己的会话上扫描，能看出每组设置在你的窗口下花多少、丢什么、遗忘什么、缺什么；
#   它只给遗忘不比默认配置多的行排名，最佳行就是一个可以留用的 `CompactionConfig`。
# - 四行就能把管线接进任何工具循环：`prepare`、遇到拒绝时的 `reactive_compact`、
#   整个批次之后的 `compact_history`，以及传入当前用户请求。
#
# **下一步：** notebook labs/05，每种设计遗忘了什么。

# %% [markdown] id="references"
# **参考资料。**
# - 文章第九节（在 agent 循环里，每次模型调用前都跑同一条管线），以及它的代码：
#   https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/code.py
# - token 计数（Token counting），用你自己的模型来计量按 token 计的阈值：
#   https://platform.claude.com/docs/en/build-with-claude/token-counting
# - 提示缓存（Prompt caching），扫描的成本一栏按它的规则计算：
#   https://platform.claude.com/docs/en/build-with-claude/prompt-caching
# - Lindenbauer 等，“The Complexity Trap: Simple Observation Masking Is as Efficient as LLM
#   Summarization for Agent Context Management”（2025）：https://arxiv.org/abs/2508.21433
#
# **课堂讨论。**
# - 扫描只在一个会话上排名。你要扫描自己的多少个会话、哪几类会话，才会信任它的最佳行？
# - 你的 agent 在一个私有仓库上工作。四种探针里，你会增加或更看重哪一种，为什么？
