# %% [markdown] id="title"
# # Lab 03 · 同样的工作，交给服务器
#
# 文章的管线在客户端运行：每次调用之前，由你的代码改写 `messages` 列表。
# 现在，Anthropic API 也可以在服务器一侧替你完成这份工作的大部分：
# 它提供了三项 beta 功能，本课程锁定的 SDK（`anthropic` 2.17.0）把它们放在
# `anthropic.types.beta` 里：
#
# | API 的功能 | beta | 做什么 | 文章里最接近的一步 |
# |---|---|---|---|
# | 上下文编辑，`clear_tool_uses_20250919` | `context-management-2025-06-27` | 在模型读到提示之前清除旧的工具结果；你自己的列表保持完整 | 第三步，`micro_compact` |
# | 服务器端压缩，`compact_20260112` | `compact-2026-01-12` | 超过触发阈值后做摘要，回复一个 `compaction` 块，由你发回 | 第四步，`compact_history` |
# | 按需压缩，`compaction={"type": "summarize"}` | `compact-2026-09-04` | 立即压缩；SDK 的 tool runner 通过 `compact_before_next_turn()` 发送它 | `compact` 工具 |
#
# **API 文档的建议。** 上下文编辑（context editing）页面
# （https://platform.claude.com/docs/en/build-with-claude/context-editing；它的 Markdown 有一份
# 2026-05-09 的副本：https://kb.kakadata.com/entries/source-url-https-platform-claude-com-docs-en-build-with-claude-context-editing）
# 的 "Overview" 一节以这样一条说明开头（英文原话）："For most use cases, server-side compaction is
# the primary strategy for managing context in long-running conversations. The strategies on
# this page are useful for specific scenarios where you need more fine-grained control over
# what content is cleared."（对大多数用例，服务器端压缩是管理长对话上下文的首要策略；本页的
# 策略适用于需要更细地控制清除哪些内容的特定场景。）本页从这条建议出发，再在相同的触发阈值、相同的峰值下，把每种设计与
# 本课程的默认配置（本课程对文章的修正，不是文章自己的设计）作比较。
#
# 本页的一切都运行在**离线服务器**上，它按 SDK 的类型定义扮演这三项功能。
# 它是一个程序，不是语言模型：它写的摘要，就是第四步从它那里拿到的同一份状态摘要；
# 凡是真实 API 没有写进文档的行为（摘要的文字、确切的 token 数、清除之后留在结果位置上的内容），
# 本页都会说明那是离线服务器自己的选择。`docs/AFTER_THE_ARTICLE.md` 列出了这些选择。

# %% [markdown] id="goal"
# **目标。** 你将学会为 API 自带的上下文管理写请求，读懂它的回复
# （`applied_edits`、`compaction` 块、`usage.iterations`），
# 并在一段预先录制的会话上判断每种设计相对于本课程的管线花费多少、丢失什么；
# 最后你要为一份预算挑选 edits。约 35 分钟。

# %% [markdown] id="the-request-bodies-in-full"
# ## 完整的请求体
#
# 一段很小的对话（一个请求、一次工具调用），以及请服务器帮忙的三种方式。
# 每个请求体都是 SDK 实际发送的 JSON：模型、`max_tokens`、只打印一次的小对话，以及每项功能
# 添加的键，打印在它的 beta 下面。beta 写在 `anthropic-beta` 请求头里，由 `betas=[...]` 填入。

# %% [markdown] id="clearing-through-the-sdk"
# 每个请求体都按打印出来的样子发给了离线服务器。这段小对话远低于任何触发阈值，
# 所以前两个请求照常回答，没有应用任何 edit；第三个立即压缩，只回复一个 `compaction` 块。
# `clear_tool_uses_20250919` 的每个参数都在里面：`trigger`（输入 token 数，或工具调用次数）、
# `keep`（保留的最新几次工具调用）、`clear_at_least`（至少能清掉这么多才清除）、
# `exclude_tools`（永不清除的工具）和 `clear_tool_inputs`（连同调用的输入一起清除：
# `true`，或一个工具名列表）。
#
# ## 通过 SDK 清除
#
# 取这段会话的第 100 次模型调用，用默认的 edit 发送（触发阈值 100,000 个输入 token，保留 3 次）。
# 带同样 `context_management` 的 `count_tokens` 会回答清除之后的数量和原始数量。

# %% [markdown] id="one-session-through-each-design"
# 你发出的列表没有变：清除发生在服务器上，作用于它自己的副本。所以没有任何内容被永久丢失，
# 下一次调用时你照样发送整个列表。API 的文档只说被清除的结果会换成“占位文本”；
# 上面打印的那一行是离线服务器自己的写法。token 数也是：它们来自 `compact_course.offline.tokens`
# 的离线估算，而不是 API 的分词器。
#
# ## 同一段会话，逐一经过每种设计
#
# 现在逐次调用回放整段会话，让它依次经过五种设计。模型的回复取自历史，
# 所以设计无法改变模型下一步做什么；改变的是它读到的内容。
#
# - **none**：列表原样增长；
# - **default**：本课程默认配置下的管线，在客户端运行（`prepare`）；
# - **server-clear**：使用默认参数的 `clear_tool_uses_20250919`；
# - **server-compact**：触发阈值为 100,000 个 token 的 `compact_20260112`
#   （它的默认值 150,000 比这段会话能达到的最大值还高，单元格会打印出高多少）；
# - **default+server-compact**：先运行本课程的默认配置，再对它发出的内容做服务器端压缩。
#   它的一行和 default 相同：默认配置发出的请求远远不到 100,000 个 token（表格里的
#   `max ktok` 就是它的最大请求），所以服务器从不压缩。

# %% [markdown] id="the-columns-thousands"
# 各列依次是：整段会话中模型读到的输入 token 数（千，`read ktok`），写入提示缓存的 token 数
# （千，`written`），成本（以基础输入 token 的价格为单位，千；按基准测试的方式计费：离线
# 服务器的提示缓存，Claude Sonnet 5 的价格：输入 1，缓存写入 1.25，缓存读取 0.1，输出 5；
# 摘要的输入和输出也计入；各次调用紧接着发出，所以没有条目过期），
# 请求不以上一次请求的全部内容开头的调用次数（`breaks`），摘要调用次数，
# 最大的一次请求，以及被永久丢失的工具输出（既不在客户端的列表里，也不在管线保存的文件里）。

# %% [markdown] id="what-clear-at-least-buys-with"
# 从上往下读这张图。一大批工具结果在上面单元格打印的那次调用时到达：
# none、server-clear 和 server-compact 的曲线随之跳高。本课程的默认配置立刻把它挡在提示之外，
# 存到磁盘并留下预览，所以它的曲线几乎不动（表格里它的最大请求仍然很小，而且什么也没丢：
# 这批结果在磁盘上）。当提示超过触发阈值时，server-clear 清掉除最新 3 条以外的所有旧结果，
# server-compact 用一份摘要替换全部内容：两条曲线都落下来。此后 server-compact 的缓存比例
# （下图）恢复了，server-clear 的却在触发阈值之后大约每隔一次调用就掉到零（表格里 `breaks` 是 43 对 1）：
# 每来一次新的工具调用，清除的边界就移动一次
# （见下一节）。请对照表格里的 `breaks`，以及默认配置的请求：都很小，所以它每次失效代价不大。
#
# ## `clear_at_least` 在提示缓存上换来了什么
#
# SDK 的文档字符串定义了这两个参数：`keep` 是“在对话中保留的工具调用次数”，`clear_at_least`
# 是一道门槛：“只有至少能删掉这么多 token 时，才会修改上下文”。所以超过触发阈值之后，
# 除最新的 `keep` 次以外，每次工具调用都会被清除；再来一次工具调用时，原先第 3 新的那次也被清除：
# 提示在那里改变，缓存读不到上一次请求的任何内容（断点在每次请求的末尾）。
# 同一段会话，触发阈值设为 30,000 个 token：

# %% [markdown] id="what-a-compaction-block-holds"
# `clear_at_least` 让清除一直等到能一次清掉这么多为止；此后每次调用都满足这道门槛。所以它
# 推迟了第一次失效，仅此而已：表格里的 `breaks` 在 5,000 时从 60 降到 58，从 5,000 到 20,000
# 则完全不变。两次请求之间 API 怎么做，
# 文档没有写：离线服务器按文档字符串的字面意思，每次请求都从头清除（这是它的选择，见
# `docs/AFTER_THE_ARTICLE.md`），这些表格里 server-clear 的成本就建立在这种理解之上。
#
# ## `compaction` 块里装着什么，为什么必须发回去
#
# 对第 100 次调用时的会话请求服务器端压缩，触发阈值设为 50,000 个 token（离线服务器接受的
# 最小值 `sc.MIN_TRIGGER`，这是它的选择；SDK 的类型只写了默认值 150,000），并打开
# `pause_after_compaction`，这样回复里只有这个块。

# %% [markdown] id="the-block-holds"
# 这个块装着摘要（`content`）、不透明的元数据（`encrypted_content`：真实 API 的是加密的；
# 离线服务器的只是这个块所代表内容的 base64 明文，上面已解码打印出来）、
# 一个 `signature` 和 `tool_changes`。按 SDK 的文档字符串，`usage.iterations` 中的
# `compaction` 条目是压缩操作本身的用量，而不是它所关闭的上下文的大小：关闭约 200k token
# 上下文的一次压缩，“可能只报告几千个 token”。API 如何得出这些数字，文档没有写；离线服务器的
# 数字（它的估算）是：输入为摘要提示的说明文字，输出为摘要。它们不计入顶层的 `usage`，
# 而这里顶层为零，因为除此之外没有生成任何内容。
#
# 把它放在最前面发回去，后面跟着下一个问题，服务器就把它当作它所替换的全部内容的摘要来读：
# 请求只花原来会话的一小部分，模型仍然读得到目标、文件和其中的事实。
# 不发它，模型就只读到那个问题，对这段会话一无所知；改动它，服务器就拒绝。

# %% [markdown] id="on-demand-through-the-sdks-tool"
# 签名是一个 HMAC，密钥由每个离线服务器在启动时生成：真实 API 的签名格式没有公开，
# 而且一个离线服务器发出的块会被另一个离线服务器拒绝。
# SDK 根据错误里的代码（`error.details.error_code`）抛出它自己的异常类，
# 也就是上面的 `CompactionContentMismatchError`。
#
# ## 按需压缩，通过 SDK 的 tool runner
#
# `compaction={"type": "summarize"}` 立即压缩，只返回这个块。SDK 的 tool runner 会替你发送它：
# 调用 `compact_before_next_turn()`，当前这一轮结束后，它请求压缩块，
# 把它交给你（`stop_reason` 为 `"compaction"`），然后从这个块接着往下运行。
# 这里它在示例工作区上运行文章的第一个实验，并在第二次回复之后压缩。

# %% [markdown] id="when-each-design-wins-the-same"
# 压缩块之后，模型只读到摘要和它后面的几轮，但它仍然把列表补完了，连 s01 的标题也在内：
# 摘要带着它在压缩之前读到的标题。（runner 一开始会请服务器在一个 thread 里保存对话；
# 离线服务器拒绝了，返回的错误代码让 runner 改为每一轮都发送完整的历史。）
#
# ## 哪种设计胜出：相同的触发阈值，相同的峰值
#
# 在 `timeline_150` 上，上面的设计是按各自的原样比较的：本课程的默认配置从 50,000 个字符
# （在这段英文文本里约 12,500 个 token）起动手，服务器的 edit 则从 100,000 和 150,000 个
# token 起。这并不公平。基准测试中最长的 tool-heavy 会话（400 轮，种子 0）让每种服务器设计
# 用它的默认触发阈值运行，旁边是把上限设为同一触发阈值的默认配置（按这段会话自己每个 token
# 的字符数换算）；50,000 个字符的上限也在其中。每一行给出有用户停顿时的成本（会话时钟：
# 超过 5 分钟没用的缓存条目就没了）和没有停顿时的成本、最大的一次请求（`peak`）、
# 永久丢失的输出、摘要次数、缺失（所需的早先输出没有完整出现在所发请求中的调用），以及
# **遗忘**（notebook labs/05 的探针，分四种：recall，输出里的一行；artifact，动过的文件；
# continuation，请求和说过的下一步；decision，说过的决定或用户的指令；若设计为下一轮发送的内
# 容、它提到的文件和摘要都不保留某个探针，这个探针就算遗忘）。

# %% [markdown] id="check"
# 逐行对照着读，先看最后两行：它们把每种服务器设计放在峰值与它最接近的那一行默认配置旁边
# （相同的峰值），上面各行则把它放在相同触发阈值的默认配置旁边（相同的触发阈值）。
#
# - **成本。** 在相同的触发阈值下、在最接近的峰值下，默认配置都比两种服务器设计便宜
#   （最后两行的 `x` 是它的成本除以对方的成本）。
# - **遗忘。** 默认配置的各行一个探针也不遗忘：它从提示里拿走的内容都在磁盘上，由模型能跟着
#   去读的标记指明。服务器端清除让你自己的列表保持完整（`lost` 为 0），但模型收到的是每个被
#   清除结果的占位符，也没有可以读回的文件，所以大多数探针都不在模型够得着的地方了；服务器端
#   压缩遗忘得比清除少，因为它的摘要保留了其中一些，而它摘要掉的每条输出都永久丢失，除非你
#   自己保留一份历史。
# - **缺失。** 服务器端压缩的缺失最少：`fewest misses` 那一行写的就是它。缺失统计的是
#   没有完整出现在请求中的输出；默认配置的这些输出在磁盘上，一次 `read_file` 就能取回，
#   遗忘一栏算进了这一点，缺失一栏没有。
#
# 所以，各自在什么时候胜出：如果你在客户端写并运行一条管线，默认配置在试过的每个触发阈值上
# 都在成本和遗忘上胜出；服务器端压缩在缺失上胜出，不需要管线，而且当你希望由 API 来做这件
# 事时，它正是 API 推荐的做法，代价是它的摘要丢掉的内容；清除只在被清除的结果不会再被需要时
# 胜出（模型可以再运行一次工具），而它的缓存成本在这里最高。这里的每个数字都来自离线服务器和
# 基准测试（合成的会话、预先录制的回复、离线的 token 估算、本课程的探针），而不是对真实 API 的测量。
#
# ## 自测
#
# 预算（timeline_150 上）：成本不超过 850,000，缓存失效次数少于不设 `clear_at_least`
# 的同样 edits，没有任何工具输出被永久丢失，最新的 3 次工具调用始终完整。本页打印过的设置
# 都达不到：请求体里的 `CLEAR` 成本 863,334，`clear_at_least` 各行 887k 和 979k，默认值
# 1,088k。只改触发阈值也达不到：在这段会话上，20,000 到 80,000 个 token 之间的触发阈值成本都一样，
# 因为一大批结果一次就越过了它们。读一读下面这段会话的工具表（每个工具调用了几次、结果多大），
# 想一想哪些结果值得清除：每清除一次，省下它删掉的内容，而过了触发阈值之后，下一次调用的缓存也断一次。
# 写出满足预算的 `context_management` 的 `edits`（一个 edit 列表，和上面的请求体一样）。
# 检查器会在这段会话上运行它们，并逐条报告，附上测得的数字。

# %% [markdown] id="recap"
# **小结。**
# - API 可以在它那一侧清除旧的工具结果（`clear_tool_uses_20250919`），或做摘要
#   （`compact_20260112`，或按需压缩）；请求里写明 beta 和 edit。
# - 清除让你的列表保持完整；超过触发阈值后它只保留最新的 `keep` 次工具调用，
#   `clear_at_least` 推迟它。`compaction` 块代表它所替换的内容，必须发回去。
# - API 文档把服务器端压缩作为首要策略；在这些会话上、相同的触发阈值下，本课程的默认配置
#   成本最低，压缩的缺失最少，但它摘要掉的内容，除非你自己保留，否则就没有了；清除遗忘了
#   大多数探针，因为模型够得着的地方都不再有它清除的内容。
#
# **下一步：** notebook labs/04，用同样的度量看你自己 agent 的会话。

# %% [markdown] id="references"
# **参考资料。**
# - 文章第五节（第三步 `micro_compact`）和第六节（第四步 `compact_history`），本页运行的是它们
#   在服务器端的对应做法；上游代码：
#   https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/code.py
# - 上下文编辑，以及厂商“服务器端压缩是首要策略”的建议：
#   https://platform.claude.com/docs/en/build-with-claude/context-editing
# - 服务器端压缩：https://platform.claude.com/docs/en/build-with-claude/compaction
# - 提示缓存（Prompt caching：断点、存活时间、价格）：
#   https://platform.claude.com/docs/en/build-with-claude/prompt-caching
# - Factory Research，“Evaluating Context Compression for AI Agents”（探针的四种类型）：
#   https://factory.ai/news/evaluating-compression
#
# **课堂讨论。**
# - 你的 agent 的用户会在会话中途去吃午饭。你会用表中的哪种设计？为了确认，你会先在自己的
#   会话上测量什么？
# - 在这里清除遗忘了大多数探针，可 API 仍然提供它。对哪些工具来说，结果被清除根本不算损失？
