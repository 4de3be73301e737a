# %% [markdown]
# # 00 · 为什么要压缩：上下文是一张草稿纸
#
# 编码 agent 把整段对话放在一个 Python 列表 `messages` 里：用户输入的内容、模型的回复、
# 模型发出的每个 `tool_use`，以及 harness 送回的每个 `tool_result`。**每一次**调用模型，
# 整个列表都要重新发给 API。文章（learn-claude-code 第 s08 章）把上下文（context）比作
# 模型的草稿纸：所有内容按顺序写在上面，模型每次继续工作，都要把它从头到尾重读一遍。
#
# 草稿纸的大小是固定的。内容超过模型的窗口，API 就会拒绝请求，返回 `prompt is too long`。
# 在编码工作中，占地方最多的是工具结果：一次长文件读取、一份测试日志、几次搜索。
#
# 本 notebook 先用文章的方法测量一段预先录制的对话，再观察一个长会话怎样随调用次数增长，
# 并算出 API 大约会在哪里拒绝它。最后画出文章给出的答案：四步压缩管线，
# notebook 01-04 逐一讲解其中的每一步。

# %% [markdown]
# **目标。** 学完本节，你会知道：文章怎样测量上下文（JSON 的字符数）；不做压缩时，会话增长得
# 有多快；文章管线的整体结构：四个步骤，各自由什么触发，各自在上下文里和磁盘上留下什么。
# 自学约 25 分钟；在 90 分钟的课堂上用 10 分钟（docs/TEACHING.md）。本课程的中英术语对照见
# [docs/GLOSSARY.md](../../docs/GLOSSARY.md)。

# %% [markdown]
# ## 一分钟看完全局
#
# 拆开之前，先看它完整地跑一遍。文章的 agent（用离线模型：127.0.0.1 上的一个确定性程序，不是
# 语言模型）在课程示例工作区的一份临时副本里比较两个大代码文件。以 `>` 开头的行是它的工具调用；
# 方括号里的行是压缩器在工作：第二次读取之后上下文超过阈值，于是整个列表写入 transcript（完整
# 记录），由一份摘要取而代之，agent 从摘要接着往下做。本 notebook 解释为什么要这样做；
# notebook 01-07 逐一讲解每个部分，notebook 09 会再完整地运行一次。

# %% [markdown]
# ## 一段小对话，逐条来看
#
# `five_reads` 是文章的实验一：agent 找到五节课程的 README，逐一读取。下面每一行是一条消息：
# 它的角色、它包含哪些内容，以及它的大小（JSON 的字符数）。

# %% [markdown]
# ## 文章的测量方法
#
# 文章里的每个阈值都是**字符**数，而且只用一种方法测量：
#
#     estimate_chars(messages) = len(json.dumps(messages, ensure_ascii=False))
#
# `ensure_ascii=False` 很重要。Python 默认把每个非 ASCII 字符写成六个字符长的转义
# （`\u8bf7`），这样请求里的每个汉字都会被算成六个字符。字符也不是 token。文章有意使用字符数，
# 因为它确定、廉价。离线模型（一个确定性程序，不是语言模型）按
# `ceil(ASCII characters / 4) + other characters` 估算 token 数：四个 ASCII 字符算一个
# token，其他每个字符（包括每个汉字）各算一个。最后一列就是这个估算值。

# %% [markdown]
# ## 字符与 token 并排对照
#
# 模型的限制和计费都以 token 为单位，而一个请求有多少 token，只有它的 API 知道：
# `messages.count_tokens`。`compact.TokenMeasure` 通过当前使用的客户端去问它。这里的客户端
# 就是课程各处选用的模型：没有密钥时是离线模型，它的计数就是上面的估算；设置了
# `ANTHROPIC_API_KEY` 和 `MODEL_ID` 时是真实 API（第一行会写明是哪一个；有密钥时，你看到的
# 数字是模型自己的计数）。
#
# 五段文本：英文散文（`five_reads`）、一份英文测试日志（`overflow`）、代码
# （`two_code_files`）、JSON（`huge_result`），以及中文：基准测试里中文类的一个会话
# （`workbench.bench.sessions`，12 轮，种子 0），其中的笔记、请求和文件内容都是中文。

# %% [markdown]
# ### 不同模型的分词器不同
#
# 每个模型家族都有自己的分词器，所以同一段文本在不同模型上的 token 数不同，只有模型自己的
# `count_tokens` 知道确切的数目。不调用它的 harness 只能估算。下面是同一段文本（上面的中文会话）
# 在两种常见估算下的结果；两者都是估算，都不是任何真实模型的计数。

# %% [markdown]
# 离线估算分不出散文、代码和 JSON：任何 ASCII 文本都是四个字符一个 token。中文会话也不是
# 一个字符一个 token：它的工具调用、路径和 JSON 都是 ASCII，所以结果落在两者之间。
#
# ### 文章的阈值放进窗口里意味着什么
#
# 文章的每个阈值都是字符数；换成 token 是多少，取决于文本本身。下面把每个阈值按各段文本
# 自己的比例换算成 token，再写成它占 200,000 token 窗口、1,000,000 token 窗口（已有 1M
# token 的窗口：按模型页面，Claude Sonnet 5 就是）和 32,000 token 窗口的比例。超过
# 100% 就表示这个阈值已经越过窗口：管线还没来得及动作，API 就会拒绝请求。

# %% [markdown]
# API 自己的上下文管理（context management）也按输入 token 计数：默认从 100,000 个 token
# 起清除旧的工具结果，从 150,000 个起做压缩：是 200,000 token 窗口的 0.5 和 0.75，
# 1,000,000 token 窗口的十分之一和不到六分之一（单元格逐一打印）。
# `CompactionConfig.for_window(window, fraction)` 用同样的方式给出管线的上限：窗口的一个
# 比例，单位是 token。这时压缩器需要一个 token 度量
# （`ContextCompactor(measure=TokenMeasure(client, model))`）；上限和度量的单位不一致时，
# 压缩器会拒绝。`CompactionConfig.seed()` 本身仍然是文章的字符数。

# %% [markdown]
# ### 每条消息数一次，还是整个请求数一次？
#
# 每次调用前都把整个列表数一遍，每次调用就要多花一个请求。`TokenMeasure` 每条消息只数
# 一次并记住结果（带 `tool_use` 的消息和它的结果算作一个单元，因为 API 拒绝其中任何一个
# 单独出现），所以一次 `prepare` 只为新内容发请求。各单元之和并不严格等于整个请求的一次
# 计数：每一块各自取整，还带着一点框架开销。下面的单元格在每段预先录制的历史上量出这个差距。

# %% [markdown]
# ## 会话增长得有多快
#
# `timeline_150` 是一个很长的工作会话：158 次模型调用，做了许多小任务，中间穿插着几次大块内容
# （一个 288,000 字符的 JSON 文件、两个代码文件、一整份测试日志）。不做任何压缩时，每次调用
# 的上下文就是到那时为止的全部消息。使用文章的管线时（`CompactionConfig.seed()`，即文章的
# 数值和设计），上下文是 `prepare` 实际发送的内容；`prepare` 具体做了什么，见下文的管线图。

# %% [markdown]
# 最后一行揭示了隐藏的成本：每次调用都要重发全部内容，所以不压缩时，累计发送的字符数随会话
# 长度的*平方*增长。
#
# ## API 会在哪里拒绝
#
# 离线模型的窗口默认是 200,000 个 token（`DEFAULT_WINDOW`）；真实模型的窗口写在 API 文档中
# 该模型的页面上。这个会话在 158 次调用内始终没有达到 200,000 个 token，但它只会越来越大。
# 什么时候会到达？这取决于假设的增长速度：平均每次调用的增长包含几次大的跳跃（下面打印
# 最大的一次），中位数那次调用的增长则不包含。单元格把两者都打印出来，所以答案是一个范围，
# 而不是某一次调用。

# %% [markdown]
# ## 压缩前后的字符数：整个会话
#
# 灰线：完全不压缩时的上下文。蓝线：文章的管线实际发送的内容。
# 两条虚线：黑色的是文章的 `CONTEXT_CHAR_LIMIT`，橙红色的是换算成字符数的窗口。灰线的
# 延长部分（点线）一直画到它与窗口线相交的地方。

# %% [markdown]
# ## 文章的答案：每次调用前走四个步骤
#
# 文章不会等到被拒绝才动手。在**每一次**模型调用之前，`prepare` 都按固定顺序运行四个步骤：
# 成本最低、最容易恢复的排在前面。图中每个方框写明三件事：这一步何时动作（触发条件）、
# 它在上下文里留下什么、它在磁盘上写入什么。数值都是文章的，读自 `CompactionConfig.seed()`。

# %% [markdown]
# 管线旁边还有两个入口：`reactive_compact`，即 API 仍然拒绝时的一次性补救压缩（notebook 06）；
# 以及模型可以自己调用的 `compact` 工具（notebook 07）。notebook 05 解释为什么顺序是固定的。
#
# ## 自测：哪些步骤会动作？
#
# 先读一读图中的触发条件，再做预测。下面用文章的数值，对四段预先录制的历史各运行一次
# `prepare`。这四段历史你会在 notebook 01-04 中再见到：
#
# - `five_reads`：9 条消息，约 17,000 个字符，读取五个 README；
# - `huge_result`：5 条消息；最新一批结果里有一次 288,000 字符的文件读取，外加三条小结果；
# - `long_session`：64 条短消息；
# - `two_code_files`：5 条消息，约 65,000 个字符；最新一批结果里有两个代码文件，各约
#   30,000 个字符。
#
# 在每段历史上，哪些步骤会改变内容？为每段历史写出一个步骤名称的列表，按运行顺序排列；
# 检查器会回放每段历史，并和你的答案比较。

# %% [markdown]
# **小结。**
# - 文章用 JSON 的字符数（`ensure_ascii=False`）衡量上下文的大小；字符不是 token。
# - 不做压缩，每次调用都重发全部内容，所以上下文和发送的字符数只增不减，直到 API 拒绝。
# - `prepare` 在每次调用前运行四个步骤：把结果转存到磁盘；把长列表的中间段归档到
#   transcript（完整记录）；把旧结果缩成一行；只有仍然太大时，才生成摘要。
#
# **下一步：** notebook 01，第一步 `tool_result_budget`：超大的结果转存到磁盘。

# %% [markdown]
# **参考资料。**
# - 文章（learn-claude-code s08）的「一、先理解上下文」和「二、为什么先整理工具结果」两节；[docs/ARTICLE_MAP.md](../../docs/ARTICLE_MAP.md) 把文章各节对应到代码。
# - 上游代码：https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/code.py（本章的 README：https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/README.zh.md）。
# - API 文档，上下文窗口（Context windows）：https://platform.claude.com/docs/en/build-with-claude/context-windows
# - API 文档，token 计数（Token counting）：https://platform.claude.com/docs/en/build-with-claude/token-counting
# - Liu 等，*Lost in the Middle: How Language Models Use Long Contexts*，TACL 2024：https://arxiv.org/abs/2307.03172
#
# **课堂讨论。**
# 1. 你的 agent 用的模型窗口有 1,000,000 个 token，它还需要压缩吗？除了被拒绝，再说出两项随上下文增长的代价（上面的单元格打印了其中一项）。
# 2. 文章测量字符，API 计数 token。在你自己的 harness 里，每次调用前你会测量哪一个？各自要付出什么？
