# %% [markdown] id="title"
# # Lab 06 · 今天的 API：让思考块保持有效的压缩
#
# 文章的设计之下，API 已经变了。preserved thinking（保留思考）页面
# （https://platform.claude.com/docs/en/build-with-claude/preserved-thinking，2026-12-01 读取）
# 写道（英文原话）："Starting with Claude Fable 5.1, when a `thinking` or `redacted_thinking`
# block comes back in a request, the API checks the block's `signature`"：检查当前模型能否读取它，
# 以及 "nothing before the thinking block has changed. The top-level `system` prompt, `tools`,
# and `messages` before the block are its prefix. If the prefix differs from what you sent when
# the block was produced, that block and every later thinking block are invalid, and the API
# rejects the request with a 400 error or drops the invalid blocks, whichever you choose."
# （从 Claude Fable 5.1 开始，请求中带回的思考块要检查它的签名：它之前的内容都没有改变；顶层
# `system`、`tools` 和它之前的 `messages` 就是它的前缀；前缀与生成该块时不同，该块及其后的所有
# 思考块都失效，API 按你的选择以 400 拒绝请求，或丢弃失效的块。）同一页面还说：对 2026 年 8 月 31 日
# 及之后创建的账户，API 默认执行前缀检查；现在就让你的集成只追加、不改写。
#
# 本课程锁定的 SDK（`anthropic` 2.17.0）有对应的类型：`BetaThinkingBlockBindingParam`
# （`prefix_mismatch_behavior`：默认 "error"，或 "drop_block"），以及回复顶层的
# `input_transformations`，它 "Requires `anthropic-beta: thinking-binding-controls-2026-08-01`"
# （需要这个 beta 请求头），流式时 "is final in `message_start`"（在 `message_start` 里就已确定）。
#
# 文章的第二、三步会改写模型已经读过的消息。本实验在打开思考的情况下，对着扮演这项检查的
# **离线服务器**运行它们。属于 API 的：规则本身、400 的文字、`drop_block`、`input_transformations`、
# beta 请求头。属于离线服务器自己的：签名怎样绑定前缀（对前缀做 HMAC，密钥由每个服务器启动时生成；
# `compact_course/offline/api/binding.py`），以及它写出的思考块，那只是推理的替身：它是一个程序，
# 不是语言模型。

# %% [markdown] id="goal"
# **目标。** 你将学会看出具有保留思考的模型会拒绝哪些对过去的编辑，读懂 `drop_block` 丢弃了什么，
# 并在账单上比较原地编辑与整体压缩；你还要预测一次编辑会丢弃哪些块。自学约 30 分钟；
# 不在 90 分钟的课堂之内（docs/TEACHING.md）。

# %% [markdown] id="the-articles-step-3-refused"
# ## 文章的第三步，被拒绝
#
# 本课程的 agent 打开思考，运行文章的第一个实验（读五个 README，比较标题）：每个回复都以一个带签名的
# 思考块开头，每个 assistant 轮次都原样发回。在原文配置（seed）里，第三步在每次调用之前运行，
# 把最新三个之前的结果就地换成 `[Earlier tool result omitted.]`。

# %% [markdown] id="the-same-session-through-the"
# 第三步就地缩短了一个旧结果，就在上面打印的那条消息里。它之后的每个思考块，前缀都不再是生成时的
# 前缀；其中第一个，就是 400 点名的块。把同一个请求再发一次也没用：历史里仍然留着这次编辑。
#
# ## 同一段会话，经过默认配置
#
# 默认配置知道这一点（docs/DESIGN.md 的缺陷 19，`append_only_thinking`）：只要列表里还有思考块，
# 就没有哪一步就地编辑过去。第一步仍然可以缩短最新一批结果，因为模型还没读过它们。超过上限时，
# 第四步整体压缩：只留一条 user 消息，装着摘要和当前请求，这正是保留思考页面所说的 "simple
# compaction"（简单压缩）。这里把上限设为 12,000 个字符，好让它在这段短会话里触发。

# %% [markdown] id="drop-block-and-what-it-drops"
# 这次压缩是有代价的，它的记录把代价数了出来：前面各轮的推理没了（连同之前的一切一起删去思考块，
# 是允许的），提示缓存从第 0 条消息重新开始。没有任何块在失效之后被发回。
#
# ## `drop_block`，以及它丢弃了什么
#
# 一个打开思考、做了三次工具调用的原生 SDK 循环；然后对第一个结果（第 2 条消息）做第三步的编辑，
# 带上 `thinking.block_binding.prefix_mismatch_behavior: "drop_block"` 和 beta 请求头发送。
# 请求成功，`input_transformations` 列出了服务器丢弃的每个块。流式发送时，这个列表在
# `message_start` 里。

# %% [markdown] id="predict"
# **预测。** 同样的五轮循环（思考块在第 1、3、5、7、9 条消息），三种编辑：第三步缩短 messages.4
# 的工具结果；`system` 提示改了；删去最早的两个思考块。每种情况下，`drop_block` 会列出哪些路径？
# 写出这些列表（什么都不丢弃时写 `[]`）。

# %% [markdown] id="the-servers-answer"
# **服务器的答案**要等你用完整的预测运行过检查器才会打开：离线服务器自己的检查（`binding.check`，
# 它的 HTTP 处理程序对每个请求都运行它），作用在检查器的五轮会话上，三种编辑各一行。

# %% [markdown] id="an-in-place-edit-beside-a"
# ## 原地编辑与压缩，放在账单上比较
#
# 基准测试里工具密集的会话，60 轮，打开思考（每个预先写好的回复都先思考；`compact_course/bench/thinking.py`），
# 按基准测试的方式计价：缓存规则和模型费率都在 `compact_course/bench/prices.py`。三种设计：原文配置；
# 关掉 `append_only_thinking`、保留原地编辑的默认配置；出厂的默认配置。`thinking` 一栏数的是
# 每种设计在前缀改变之后仍然发回的块：在当前的模型上，每一个都是一次 400，或者在 `drop_block` 下
# 丢掉它的推理。

# %% [markdown] id="a-practitioners-checklist"
# 在这份账单上，原地编辑更便宜：它们让提示的大部分留在缓存里。可是每一次原地编辑都会让它之后的推理
# 失效；在当前的模型上，更便宜的账单换来的是被拒绝的请求。默认配置改为付出整体压缩的费用，不发回
# 任何失效的块。账单按哪个模型计价，上面已经打印出来；token 数是离线估算。
#
# ## 实践者的检查清单
#
# 来自保留思考页面和上面这些运行：
# - **在第一次发送之前缩短。** 大的工具结果趁它还是最新一条消息时就截短或转存（第一步）：
#   还没有谁读过它，所以没有前缀改变。
# - **整体压缩。** 过去必须缩短时，就整个替换：一条 user 消息，装着摘要和下一条指示（页面上的
#   "simple compaction"；文章的 `compact_history`）。不要从中间剪掉轮次，也不要就地编辑旧结果。
# - **提醒写成新消息。** 要改指示，就追加一条对话中途的 `system` 消息，而不是编辑顶层 `system`
#   或旧消息。
# - **思考块原样发回**，也不要强制 `tool_choice`（`any`、`tool`）：打开思考的模型会拒绝它。
# - **CI 里 `input_transformations` 为空。** 带上 beta 请求头，只要出现 `thinking_dropped` 条目
#   就让构建失败：每一条都是你的代码改过的前缀。

# %% [markdown] id="recap"
# **小结。**
# - 思考块绑定在它之前的一切上；文章的第二、三步会编辑这段过去，下一个请求就是 400
#   （或者在 `drop_block` 下，推理没了）。
# - 只要思考还在，默认配置就只追加：第一步在第一次发送之前，超过上限时整体压缩，代价记在每一步的
#   记录里。
# - `drop_block` 丢弃第一个失败的块和它之后的每一个，并在 `input_transformations` 里说明；
#   CI 应当看到的是一个空列表。
#
# **下一步：** 这是最后一个实验 notebook；docs/TEACHING.md 给出了学习本课程的几条路线。

# %% [markdown] id="references"
# **参考资料。**
# - Preserved thinking（保留思考）：https://platform.claude.com/docs/en/build-with-claude/preserved-thinking
# - 修复绑定到另一段对话的思考块：
#   https://platform.claude.com/docs/build-with-claude/preserved-thinking/fix-bound-to-a-different-conversation
# - SDK 的类型，在 `anthropic/types/beta/` 里：`beta_thinking_block_binding_param.py`、
#   `beta_thinking_dropped_input_transformation.py`、`beta_message.py`（`input_transformations`）
# - 账单所依据的提示缓存：https://platform.claude.com/docs/en/build-with-claude/prompt-caching
#
# **课堂讨论。**
# - 你的 agent 必须删掉三轮之前读到的一个密钥。在保留思考之下，这要付出什么代价？你会怎样让代价变小？
# - 什么时候整体压缩值得它的缓存重启，什么时候你宁愿再等等？
