# %% [markdown] id="title"
# # Lab 06 · 今天的 API：让思考块保持有效的压缩
#
# **问题。** 文章的第二、三步会改写模型已经读过的消息。打开思考时，API 会拒绝其中哪些编辑？
# 补救又要付出什么代价？
#
# 规则来自 preserved thinking（保留思考）页面
# （https://platform.claude.com/docs/en/build-with-claude/preserved-thinking，2026-12-01 读取）：
# 从 Claude Fable 5.1 开始，请求中发回的 `thinking` 块要对照它的**前缀**检查：顶层 `system`、
# `tools`，以及这个块之前的每一条消息。
# - 前缀变了，这个块**和它之后的每个思考块**都失效：返回 400；或者，带上
#   `thinking.block_binding.prefix_mismatch_behavior: "drop_block"` 和 beta 请求头
#   `thinking-binding-controls-2026-08-01`，请求照常完成，只是不带这些块，每个块按路径
#   （`messages.5.content.0`）列在 `input_transformations` 里。
# - 从**最前面**删去思考块（先删最早的）是允许的：后面的块都不会失效。从中间删去一个，
#   它之后的块就失效。
#
# 这条规则由**离线服务器**扮演；它的签名怎样绑定前缀是它自己的做法，它的思考块只是程序写的替身，
# 不是模型的推理。

# %% [markdown] id="goal"
# **目标。** 你将看到第三步被拒绝，预测三种编辑之后 `drop_block` 会丢弃什么，并在账单上比较原地编辑与
# 整体压缩。自学约 20 分钟；不在 90 分钟的课堂之内（docs/TEACHING.md）。

# %% [markdown] id="the-articles-step-3-refused"
# ## 文章的第三步，被拒绝
#
# 本课程的 agent 打开思考，读五个 README，每个 assistant 轮次都原样发回。在原文配置（seed）里，
# 第三步就地替换较早的结果。

# %% [markdown] id="the-same-session-through-the"
# 被编辑的消息之后，每个思考块都失去了原来的前缀；400 点名的是其中第一个。重发也没用：历史里
# 仍然留着这次编辑。
#
# ## 同一段会话，经过默认配置
#
# 只要列表里还有思考块，默认配置就不编辑任何过去的消息（docs/DESIGN.md 的缺陷 19，
# `append_only_thinking`）。超过上限时（这里是 12,000 个字符，好让它触发），第四步整体压缩：
# 只留一条 user 消息，装着摘要和当前请求，也就是页面上的 "simple compaction"（简单压缩）。

# %% [markdown] id="drop-block-and-what-it-drops"
# 它的记录把代价数了出来：前面各轮的推理没了（连同之前的一切一起删去，这是允许的），提示缓存从
# 第 0 条消息重新开始。没有任何块在失效之后被发回。
#
# ## `drop_block`，以及它丢弃了什么
#
# 一个打开思考、做了三次工具调用的原生 SDK 循环；然后对第一个结果（第 2 条消息）做第三步的编辑，
# 带上 `drop_block` 和请求头发送。流式发送时，这个列表在 `message_start` 里。

# %% [markdown] id="predict"
# **预测。** 一个五轮的循环：第 0 条消息是请求；每条 assistant 消息（第 1、3、5、7、9 条）在
# `content.0` 有一个思考块，外加一次工具调用，紧随其后的 user 消息装着这次调用的结果。三种编辑：
# 第三步缩短 messages.4 里的结果；`system` 提示改了；删去最早的两个思考块。每种情况下，
# `drop_block` 会按顺序列出哪些路径？用开头的规则来推（什么都不丢弃时写 `[]`）。

# %% [markdown] id="the-servers-answer"
# **服务器的答案**要等你用完整的预测运行过检查器才会打开：它自己的检查（`binding.check`）作用在
# 检查器的会话上。

# %% [markdown] id="an-in-place-edit-beside-a"
# ## 原地编辑与整体压缩，放在账单上比较
#
# 基准测试里工具密集的会话：60 轮，每轮的回复都以一个思考块开头（`calls` 还算上了摘要调用），
# 按 lab 02 的方式计价（`compact_course/bench/prices.py`）。三种设计：原文配置；关掉
# `append_only_thinking` 的默认配置；出厂的默认配置。`thinking` 一栏数的是这 60 个块中，每种设计
# 在前缀改变之后仍然发回的块：每一个都是一次 400，或者在 `drop_block` 下丢掉推理。

# %% [markdown] id="a-practitioners-checklist"
# 在这份账单上，原地编辑更便宜（`cost k`）：它们让更多的提示留在缓存里（`read`）。可是每一次都会
# 让它之后的推理失效：在当前的模型上，就是一个被拒绝的请求。默认配置付出整体压缩的
# 费用（`summ`），不发回任何失效的块。token 数是离线估算。
#
# ## 实践者的检查清单
#
# - **在第一次发送之前缩短**（第一步）：最新的结果还没有谁读过。
# - **整体压缩**；不要从中间剪掉轮次，也不要就地编辑旧结果。
# - **思考块原样发回**；提醒写成新的消息。
# - **CI 里 `input_transformations` 应为空**：只要出现 `thinking_dropped` 条目就让构建失败。

# %% [markdown] id="recap"
# **小结。**
# - 思考块绑定在它之前的一切上；文章的第二、三步会编辑这段过去，下一个请求就是 400
#   （或者在 `drop_block` 下，推理没了）。
# - 只要思考还在，默认配置就只追加：第一步在第一次发送之前，超过上限时整体压缩。
# - `drop_block` 丢弃第一个失败的块和它之后的每一个，并把它们列在 `input_transformations` 里。
#
# **下一步：** 这是最后一个实验。要把这条管线放进你自己的 agent，请看 docs/RECIPE.md
# （`examples/own_loop.py`）。

# %% [markdown] id="references"
# **参考资料。**
# - Preserved thinking（保留思考）：https://platform.claude.com/docs/en/build-with-claude/preserved-thinking
# - 修复绑定到另一段对话的思考块：
#   https://platform.claude.com/docs/build-with-claude/preserved-thinking/fix-bound-to-a-different-conversation
# - 锁定的 SDK 的类型（`anthropic` 2.17.0，`anthropic/types/beta/`）：
#   `beta_thinking_block_binding_param.py`、`beta_message.py`（`input_transformations`）
# - 提示缓存：https://platform.claude.com/docs/en/build-with-claude/prompt-caching
#
# **课堂讨论。** 你的 agent 必须删掉三轮之前读到的一个密钥。在保留思考之下，这要付出什么代价？
# 你会怎样让代价变小？
