# %% [markdown]
# # 06 · 补救压缩：API 仍然说「太长」
#
# 笔记本 01-04 的管线按**字符**计数，因为这样廉价又确定。
# API 却按 **token** 计数。两者只是大致对应：英文约四个字符一个 token，
# 中文约一个字符一个 token。所以管线放行的请求，仍可能被 API 拒绝：
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
# 每次模型调用最多只补救**一次**（`MAX_REACTIVE_RETRIES = 1`）。
# 如果重试也被拒绝，错误交给调用方，而不是无限循环。
#
# 本笔记本用一个很小的窗口，把预制历史 `overflow` 交给离线模型重放。
# 你会看到一次拒绝、一次重试，然后是第二次拒绝。
# 离线模型是一个确定性程序，不是语言模型；它实现的是 Messages API。

# %% [markdown]
# **目标。** 你将了解：为什么字符数低于阈值的请求仍可能被拒绝；
# 拒绝是怎样被识别的；`reactive_compact` 在哪里切分，
# 为什么每次调用只补救一次。你还会亲手写出它的切点。约 25 分钟。

# %% [markdown]
# ## 这段历史：字符数低于阈值，却超出窗口
#
# `overflow` 记录了一次排查失败测试的过程：21 条消息，大部分是英文日志和代码。
# 它的字符数低于 `CONTEXT_CHAR_LIMIT`，所以 `prepare` 无事可做。
# 我们给模型设一个 8,000 token 的窗口，代替真实的 200,000。
# 效果相同，而历史小到可以从头读完。

# %% [markdown]
# 先跑一遍管线，和每次模型调用之前一样。然后问离线模型的 `count_tokens` 接口
# （真实 API 也有同样的调用）：这次请求要花多少 token。

# %% [markdown]
# ## 拒绝
#
# SDK 把 API 返回的 HTTP 400 变成 `anthropic.BadRequestError`。
# 看看它的消息：这就是真实 API 的原话。

# %% [markdown]
# 文章的循环用两种写法识别拒绝：`prompt_too_long` 和 `too many tokens`。
# 真实的报错文字里两者都没有。所以文章的检查会放过这个错误，agent 随之停止
# （[docs/DESIGN.md](../../docs/DESIGN.md) 中的缺陷 9）。
# 本包的 `is_prompt_too_long` 既检查 SDK 的错误类型，也识别全部三种写法。

# %% [markdown]
# ## reactive_compact，然后重试
#
# 最近 5 条消息逐字保留；它们之前的一切变成一条摘要。
# 文章的 `reactive_compact` 只总结 `messages[:tail_start]`，也就是被丢弃的部分，
# 从不总结它保留的尾部。

# %% [markdown]
# 为什么保留 6 条，而不是 5 条？倒数第五条消息是一个 `tool_result`，
# 它的 `tool_use` 就在前一条消息里。在这里切开，就会发出一条孤立的工具结果，
# API 会拒绝。所以切点前移一条。下面是保留下来的消息：

# %% [markdown]
# 没有任何内容永久丢失：transcript 保存着列表原来的每一条消息。

# %% [markdown]
# 重试通过了，模型接下来想读取完整的测试日志。
#
# ## 第二次拒绝，发生在 agent 循环里
#
# `compact.agent.loop.Agent` 就是文章的循环：每次调用前运行 `prepare`；
# 遇到拒绝，做一次 `reactive_compact`；每次调用成功后，计数器归零。
# 我们给它同样的历史、同样的窗口，让它继续工作。
#
# 尺度上有一处改动：摘要请求也发给这个小窗口的模型，
# 所以发给它的文本同样必须装得进窗口。
# 文章把摘要输入限制在 `SUMMARY_INPUT_CHAR_LIMIT = 80,000` 个字符，
# 面对 200,000 token 的窗口是安全的；面对 8,000 token，我们把它设为 20,000。

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
# 补救压缩防的是历史越积越长，防不了一条刚到的结果本身就太长。
# 那是第一步的职责，而第一步的阈值以字符计。

# %% [markdown]
# ## 压缩前后的字符数
#
# 每一对柱子是某次模型调用上的一个步骤：前三个廉价步骤在这里什么也没改变，
# 只有每次 `reactive_compact` 起了作用。

# %% [markdown]
# ## 调整阈值
#
# 滑块按你选的阈值重放 `overflow`：上图逐次模型调用，下图是一次 `prepare`。
# 摘要来自抽取式摘要器，不调用模型。
#
# **试一试。** 滑块一开始用默认配置（default）。按文章的数字，什么都不会触发：
# 42,749 个字符低于阈值。把 `context_char_limit` 拖到 30,000，再拖到 15,000，
# 看下图：管线远在到达窗口之前，就开始缩减历史。
# 这是它唯一的手段，因为它看不到 token。
# 字符阈值低到足以应付这份以英文为主的日志，模型就失去了本可以保留的上下文。

# %% [markdown]
# 同样的重放，`context_char_limit` 设为 30,000，也就是滑块画出的图：

# %% [markdown]
# ## 自测
#
# 写出 `tail_start(kinds, keep)`：返回 `reactive_compact` 逐字保留的第一条消息的下标。
# `kinds` 描述每条消息的类型：`"user"`、`"assistant"`、
# `"tool_use"`（带调用的 assistant 消息）或 `"tool_result"`
# （回应前一条消息中调用的 user 消息）。
# 最近 `keep` 条消息保留；切点不能把 `tool_use` 和它的 `tool_result` 分开。
# 检查器按这些类型构造真实消息，在预制历史和随机历史上，
# 与本包的 `compact.reactive.tail_start` 比对。

# %% [markdown]
# **小结。**
# - 管线按字符计数，API 按 token 计数：低于字符阈值的请求仍可能被拒绝，
#   报错是 `prompt is too long: N tokens > M maximum`。
# - `reactive_compact` 写下 transcript，把最近 5 条消息之前的一切总结成摘要
#   （宁可多留一条，也不拆开配对），然后重试这次调用。
# - 每次模型调用只补救一次：连续第二次拒绝交给调用方。
#   本例就是这样：一条刚到的结果本身就太长。
#
# **下一步：** 笔记本 07，`compact` 工具：由模型自己请求摘要。
