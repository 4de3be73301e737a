# %% [markdown]
# # 06 · 补救压缩：API 仍然说“太长”
#
# notebook 01-04 的管线按**字符**计数，因为这样廉价又确定。API 却按 **token** 计数。两者之间
# 没有固定的换算比例（notebook 00 打印了英文、代码、JSON 和中文文本各自的比例），所以管线
# 放行的请求，仍可能被 API 拒绝，用 API 自己的话说就是：
#
#     prompt is too long: 210445 tokens > 200000 maximum
#
# 文章第八节给出的办法是一张安全网，也就是兜底路径 `reactive_compact`：
#
# 1. 把整个消息列表写入 `.transcripts/` 下的 transcript（完整记录）；
# 2. 把最近 `KEEP_RECENT_MESSAGES = 5` 条消息**之前**的全部内容总结成摘要
#    （切点宁可前移一条，也不把 `tool_use` 和它的 `tool_result` 拆开）；
# 3. 发送一条 `[Reactive compact]` 消息，加上这几条最新消息，再试一次。
#
# 每次模型调用最多只补救**一次**（`MAX_REACTIVE_RETRIES = 1`）。如果重试也被拒绝，错误交给
# 调用方，而不是无限循环。
#
# 本 notebook 让离线模型扮演一个窗口很小（8,000 token）的模型，用它回放预先录制的历史
# `overflow`。你会看到一次拒绝、一次重试，然后是第二次拒绝。
# 离线模型是一个按 Messages API 协议应答的确定性程序，不是语言模型。

# %% [markdown]
# **目标。** 你将了解：为什么字符数低于阈值的请求仍可能被拒绝；拒绝是怎样被识别的；
# `reactive_compact` 在哪里切分，为什么每次调用只补救一次。然后你要设计一个只让模型读一次请求
# 的尾部。自学约 30 分钟；在 90 分钟的课堂上用 8 分钟（docs/TEACHING.md）。

# %% [markdown]
# ## 这段历史：字符数低于阈值，却超出窗口
#
# `overflow` 记录了一次排查失败测试的过程：21 条消息，大部分是英文日志和代码。它的字符数低于
# `CONTEXT_CHAR_LIMIT`，所以 `prepare` 无事可做。我们把它交给一个窗口为 8,000 token 的模型（`start_offline_server(window=8_000)`）：
# 下面的每一次拒绝都发生在这个窗口上，计数用的正是它的 `count_tokens` 所给出的估算。放在
# 200,000 token 的窗口里，这段历史离拒绝还很远；下下个单元格打印它在两个窗口中的占比。

# %% [markdown]
# 先跑一遍管线，和每次模型调用之前一样。然后问离线模型的 `count_tokens` 接口（真实 API 也有
# 同样的调用）：这次请求要花多少 token。

# %% [markdown]
# ## 拒绝
#
# SDK 把 API 返回的 HTTP 400 变成 `anthropic.BadRequestError`。看看它的消息：这就是真实 API 的
# 原话。

# %% [markdown]
# 文章的循环用两种写法识别拒绝：`prompt_too_long` 和 `too many tokens`。真实的报错文字里两者都
# 没有。所以文章的检查会放过这个错误，agent 随之停止（[docs/DESIGN.md](../../docs/DESIGN.md) 中
# 的缺陷 9）。本包的 `is_prompt_too_long` 既检查 SDK 的错误类型，也识别全部三种写法。

# %% [markdown]
# ## reactive_compact，然后重试
#
# 最近 5 条消息逐字保留；它们之前的一切变成一条摘要。文章的 `reactive_compact` 只总结
# `messages[:tail_start]`，也就是被丢弃的部分，从不总结它保留的尾部。

# %% [markdown]
# 为什么保留 6 条，而不是 5 条？倒数第五条消息是一个 `tool_result`，它的 `tool_use` 就在前一条
# 消息里。在这里切开，就会发出一条孤立的工具结果，API 会拒绝。所以切点前移一条。下面是保留下来
# 的消息：

# %% [markdown]
# 没有任何内容永久丢失：transcript 保存着列表原来的每一条消息。

# %% [markdown]
# 重试通过了，模型接下来想读取完整的测试日志。
#
# ## 第二次拒绝，发生在 agent 循环里
#
# `workbench.agent.loop.Agent` 就是文章的循环：每次调用前运行 `prepare`；遇到拒绝，做一次
# `reactive_compact`；每次调用成功后，计数器归零。我们给它同样的历史、同样的窗口，让它继续工作。
#
# 尺度上有一处改动：摘要请求也发给这个小窗口的模型，所以发给它的文本同样必须装得进窗口。文章把摘要输入
# 限制在 `SUMMARY_INPUT_CHAR_LIMIT = 80,000` 个字符：按离线估算，一个字符最多算一个 token，也就是最多
# 80,000 个 token，放进 200,000 token 的窗口是安全的。窗口只有 8,000 token 时，我们把它设为 20,000，这已不是上面那条界限：每个字符一个
# token 的文本需要低于 8,000 的上限。它对这段历史成立：英文和 JSON 都是 ASCII，离线估算按四个字符
# 一个 token 计（notebook 00），约 5,000 个 token。
#
# 还有一项设置：`persist_oversized=False`。这样第一步像文章里那样，只处理超过 200,000 个字符的批次，
# 你就能看到补救压缩对一条刚到的大结果能做些什么。（默认配置的其他开关留到 notebook labs/01 再讲。）

# %% [markdown]
# 从上往下读这些输出：
#
# 1. 第一次调用被拒绝，`[reactive compact]` 运行，重试成功；
# 2. 模型读取 `logs/test_run.log`，结果超过 40,000 个字符。
#    上下文仍低于 50,000 个字符，所以 `prepare` 不动它；
#    但它超过了 8,000 token：下一次调用被拒绝；
# 3. 上一次调用成功，计数器已经归零，所以允许第二次 `[reactive compact]`。
#    但这条大结果就在最近 5 条消息之中，而它们要逐字保留：
#    重试的请求一样长。于是这连续的第二次拒绝被抛给了调用方。
#
# 补救压缩防的是历史越积越长，防不了一条刚到的结果本身就太长。那是第一步的职责。

# %% [markdown]
# 第 1 次调用就是上一节那次 `reactive_compact`，处理的是同一个列表，结果却是 2,621 个字符，而
# 不是 3,034。差别在摘要：上一节的摘要来自课程的抽取式摘要器（`make_compactor`，不调用模型）；
# 在循环里，agent 通过 SDK 向离线模型要摘要（就是那些 400 之间的 200），输入上限为 20,000 个
# 字符，得到的摘要更短。
#
# ## 压缩前后的字符数
#
# 每一对柱子是某次模型调用上的一个步骤：前三个廉价步骤在这里什么也没改变，只有每次
# `reactive_compact` 起了作用。

# %% [markdown]
# ## 自测：只读一次请求的尾部
#
# 文章正好保留最新的 5 条消息，而它的摘要消息里也带着请求：如果请求所在的那条消息就在这 5 条
# 之中，模型会把请求读两遍。写出 `tail_once(kinds, keep, request_at)`：返回第一条原样保留的消息
# 的下标。`kinds` 按类型列出各条消息：`"user"`、`"assistant"`、`"tool_use"`（含调用的 assistant
# 消息）或 `"tool_result"`（回应前一条调用的 user 消息）；请求是下标为 `request_at` 的那条 user
# 消息。保留最新的 `keep` 条消息，绝不把 `tool_use` 和它的 `tool_result` 分开，并让模型只在摘要
# 消息里读一次请求。
#
# 先在纸上预测一个例子：`["user", "assistant", "user", "assistant", "user", "tool_use",
# "tool_result", "assistant"]`，`keep=5`，请求在下标 4。文章的尾部从哪里开始？你的尾部又必须从哪里
# 开始？
#
# 检查器按这些类型构造真实的消息，在预设历史和随机历史上，和包的 `compact.reactive.tail_start`
# （默认配置）比较。`hint()` 会指出它识别出的错误。

# %% [markdown]
# **小结。**
# - 管线按字符计数，API 按 token 计数：低于字符阈值的请求仍可能被拒绝，
#   报错是 `prompt is too long: N tokens > M maximum`。
# - `reactive_compact` 写下 transcript，把最近 5 条消息之前的一切总结成摘要
#   （宁可多留一条，也不拆开配对），然后重试这次调用。
# - 每次模型调用只补救一次：连续第二次拒绝交给调用方。
#   本例就是这样：一条刚到的结果本身就太长。
#
# **下一步：** notebook 07，`compact` 工具：由模型自己请求摘要。

# %% [markdown]
# **参考资料。**
# - 文章（learn-claude-code s08）的「八、API 拒绝后的补救：reactive_compact」一节；[docs/ARTICLE_MAP.md](../../docs/ARTICLE_MAP.md) 把文章各节对应到代码。
