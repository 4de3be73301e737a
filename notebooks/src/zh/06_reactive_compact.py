# %% [markdown] id="title"
# # 06 · 补救压缩：API 仍然说“太长”
#
# notebook 01-04 的管线按**字符**计数，API 却按 **token** 计数。所以管线放行的请求，仍可能被拒绝。
# 文章第八节给出的安全网是 `reactive_compact`：把整个列表写入 transcript（完整记录），把最近
# `KEEP_RECENT_MESSAGES = 5` 条消息**之前**的全部内容总结成摘要（切点宁可前移一条，也不把
# `tool_use` 和它的 `tool_result` 拆开），然后用一条 `[Reactive compact]` 消息加上这几条最新消息
# 再试一次。每次模型调用只补救**一次**（`MAX_REACTIVE_RETRIES = 1`）：如果重试也被拒绝，错误交给
# 调用方，而不是无限循环。
#
# 预先录制的历史 `overflow` 由离线模型（一个按 Messages API 协议应答的确定性程序，不是语言模型）来应答，
# 它扮演一个窗口只有 8,000 token 的模型：你会看到一次拒绝和一次成功的重试，然后又是一次拒绝，
# 而它的重试也被拒绝。

# %% [markdown] id="goal"
# **目标。** 你将了解：为什么字符数低于阈值的请求仍可能被拒绝；拒绝是怎样被识别的；
# `reactive_compact` 在哪里切分，为什么每次调用只补救一次。然后你要设计一个只让模型读一次请求
# 的尾部。自学约 25 分钟；在 90 分钟的课堂上用 8 分钟（docs/TEACHING.md）。

# %% [markdown] id="under-the-character-limit-over"
# ## 字符数低于阈值，却超出窗口
#
# `overflow` 记录了一次排查失败测试的过程。和每次模型调用之前一样，先运行 `prepare`。

# %% [markdown] id="the-refusal"
# ## 拒绝
#
# SDK 把 API 返回的 HTTP 400 变成 `anthropic.BadRequestError`，它的消息就是真实 API 的原话。
# 旁边是文章识别拒绝的检查，以及本包的检查：

# %% [markdown] id="reactive-compact-then-the-retry"
# 真实的报错文字里没有文章的两种写法中的任何一种，所以文章的循环会放过这个错误，agent 随之停止
# （[docs/DESIGN.md](../../docs/DESIGN.md) 中的缺陷 9）。`is_prompt_too_long` 既检查 SDK 的错误类型，
# 也识别全部三种写法。
#
# ## `reactive_compact`，然后重试

# %% [markdown] id="the-second-refusal-inside-the"
# 保留了 6 条，而不是 5 条：倒数第五条消息是一个 `tool_result`，在那里切开就会把它和它的
# `tool_use` 分开发送，API 会拒绝；所以切点前移了一条。重试通过了，模型接下来想读取完整的测试日志。
#
# ## 第二次拒绝，发生在 agent 循环里
#
# `compact_course.agent.loop.Agent` 就是文章的循环：每次调用前运行 `prepare`；遇到拒绝，做一次
# `reactive_compact`；每次调用通过后，计数器归零。它拿到同样的历史和窗口，外加两项设置：摘要器的
# 输入限制在 20,000 个字符，因为摘要请求也发给这个小模型；以及 `persist_oversized=False`，这样第一步
# 像文章里那样，只处理超过 200,000 个字符的批次。

# %% [markdown] id="check"
# 第一次调用被拒绝，`[reactive compact]` 运行，重试通过（即输出里的那几个 200）。模型读取
# `logs/test_run.log`，结果超过 40,000 个字符：列表仍低于 50,000 个字符，所以 `prepare` 不动它，
# 但它超过了 8,000 token。下一次调用被拒绝；计数器已经归零，所以第二次 `reactive_compact` 运行
# （第 3 次调用），但这条大结果就在它要逐字保留的最新消息之中：重试的请求一样长，于是这连续的第二次
# 拒绝被抛给了调用方。补救压缩防的是历史越积越长，防不了一条刚到的结果本身就太长：那是第一步的职责。
#
# ## 自测：只读一次请求的尾部
#
# 文章保留最新的 5 条消息，而它的摘要消息里也带着请求：如果请求所在的那条消息就在这 5 条之中，
# 模型会把请求读两遍。写出 `tail_once(kinds, keep, request_at)`：返回第一条原样保留的消息的下标。
# `kinds` 按类型列出各条消息：`"user"`、`"assistant"`、`"tool_use"`（含调用的 assistant 消息）或
# `"tool_result"`（回应前一条调用的 user 消息）；请求是下标为 `request_at` 的那条 user 消息。保留
# 最新的 `keep` 条消息，绝不把 `tool_use` 和它的 `tool_result` 分开，并让模型只在摘要消息里读一次请求。
#
# 检查器在预先录制的历史和随机历史上，和包的 `context_compact.reactive.tail_start`（默认配置）比较。

# %% [markdown] id="build-it"
# ## 动手实现：在自己的文件里写兜底
#
# 在 `my_compact.py` 中写出 `is_prompt_too_long` 和 `reactive_compact`，保存，再运行这个单元。

# %% [markdown] id="recap"
# **小结。**
# - 管线按字符计数，API 按 token 计数：低于字符阈值的请求仍可能被拒绝，
#   报错是 `prompt is too long: N tokens > M maximum`。
# - `reactive_compact` 写下 transcript，把最近 5 条消息之前的一切总结成摘要
#   （宁可多留一条，也不拆开配对），然后重试这次调用。
# - 每次模型调用只补救一次：连续第二次拒绝交给调用方。
#   本例就是这样：一条刚到的结果本身就太长。
#
# **下一步：** notebook 07，`compact` 工具：由模型自己请求摘要。

# %% [markdown] id="references"
# **参考资料。**
# - 文章（learn-claude-code s08）的「八、API 拒绝后的补救：reactive_compact」一节；[docs/ARTICLE_MAP.md](../../docs/ARTICLE_MAP.md) 把文章各节对应到代码。
