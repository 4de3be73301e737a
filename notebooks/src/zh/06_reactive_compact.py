# %% [markdown] id="title"
# # 06 · 补救压缩：API 仍然说“太长”
#
# 管线按**字符**计数，API 按 **token** 计数。API 仍然拒绝时，文章第八节给出的安全网是
# `reactive_compact`：把列表写入 transcript（完整记录），把最近 `KEEP_RECENT_MESSAGES = 5` 条消息
# **之前**的全部内容总结成摘要，然后用一条 `[Reactive compact]` 消息加上这几条消息再试，只试**一次**
# （`MAX_REACTIVE_RETRIES = 1`）：重试再被拒绝，就交给调用方。离线模型（一个确定性程序，不是语言模型）
# 扮演一个窗口只有 8,000 token 的模型。

# %% [markdown] id="goal"
# **目标。** 你将了解：字符数低于阈值的请求什么时候会被拒绝；`reactive_compact` 在哪里切分。然后
# 你要设计一个只让模型读一次请求的尾部，并写出这一步。自学约 45 分钟；在 90 分钟的课堂上用 8 分钟
# （docs/TEACHING.md）。

# %% [markdown] id="under-the-character-limit-over"
# ## 低于字符阈值，却超出窗口
#
# `overflow`（一段制作的历史）记录了一次排查失败测试的过程。请看两种配置的 `prepare` 各要发送
# 多少 token，与窗口相比如何：文章的第三步每次调用都收缩旧结果；默认配置只在超过字符阈值时才
# 收缩（对缺陷 2 的修正）。本 notebook 其余部分都用默认配置。

# %% [markdown] id="the-refusal-in-the-apis-words"
# ## 拒绝，用 API 的原话
#
# 先读默认配置收到的拒绝，再看文章的检查：它的两种写法都不是 API 的
# （[docs/DESIGN.md](../../docs/DESIGN.md) 中的缺陷 9）；`is_prompt_too_long` 既检查 SDK 的错误
# 类型，也识别全部三种写法。

# %% [markdown] id="reactive-compact-then-the-retry"
# ## `reactive_compact`，然后重试
#
# 请看原样保留了几条消息，以及最前面两条。

# %% [markdown] id="the-second-refusal-inside-the"
# 保留了 6 条，而不是 5 条：倒数第五条消息是一个 `tool_result`，所以切点前移了一条；重试要读取
# 完整的测试日志。
#
# ## 第二次拒绝，发生在 agent 循环里
#
# `Agent` 就是文章的循环：每次调用前运行 `prepare`；遇到拒绝，做一次 `reactive_compact`；每次调用
# 通过后，计数器归零。这里的配置让请求可以超出窗口，而摘要调用不会：default 配置；第一步用文章的
# （`persist_oversized=False`：default 的第一步会立刻把日志存到磁盘）；摘要器的输入限制在 20,000
# 个字符。图中第 2 次调用就是第 1 次的重试；请看第 3 次调用与点线窗口（按这段历史的字符与 token
# 之比换算成字符）的位置。

# %% [markdown] id="check"
# 第 2 次调用之后，模型读取 `logs/test_run.log`：低于字符阈值，却超出窗口。第 3 次调用的
# `reactive_compact` 保留了这份日志，所以它的重试又被拒绝，并抛给调用者。补救压缩防的是历史
# 越积越长；一条结果本身就太长，是第一步的职责。
#
# ## 自测：只读一次请求的尾部
#
# 摘要消息里也带着请求：如果请求所在的那条消息在保留的消息之中，模型会把请求读两遍。写出
# `tail_once(kinds, keep, request_at)`：返回第一条原样保留的消息的下标。`kinds` 按类型列出各条
# 消息：`"user"`、`"assistant"`、`"tool_use"` 或 `"tool_result"`；请求是下标为 `request_at` 的那条
# user 消息。保留最新的 `keep` 条消息，绝不拆开配对，并让模型只在摘要消息里读一次请求。

# %% [markdown] id="build-it"
# ## 动手实现：在自己的文件里写兜底
#
# 在 `my_compact.py` 中写出 `is_prompt_too_long` 和 `reactive_compact`，保存，再运行这个单元。

# %% [markdown] id="recap"
# **小结。**
# - 管线按字符计数，API 按 token 计数：低于字符阈值时，默认配置可能被拒绝，而文章的第三步原本
#   会把上下文收缩。
# - `reactive_compact` 写下 transcript，把最近 5 条消息之前的一切总结成摘要（宁可多留一条，也不
#   拆开配对），然后重试这次调用。
# - 重试再被拒绝，就把拒绝交给调用方，本例就是一条结果本身太长。
#
# **下一步：** notebook 07，`compact` 工具：由模型自己请求摘要。

# %% [markdown] id="references"
# **参考资料。**
# - 文章（learn-claude-code s08）的「八、API 拒绝后的补救：reactive_compact」一节；[docs/ARTICLE_MAP.md](../../docs/ARTICLE_MAP.md) 把文章各节对应到代码。
