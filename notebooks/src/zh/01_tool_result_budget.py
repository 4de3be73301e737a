# %% [markdown]
# # 01 · 第一步 `tool_result_budget`：超大结果转存到磁盘
#
# 一次模型回复可以同时调用多个工具；这些工具结果会一起写进最后一条 user 消息，构成一个
# *批次*。第一步只看这个批次。批次总量超过 `TOOL_RESULT_BATCH_CHAR_LIMIT`（200,000 个字符）
# 时，它**从最大的结果开始**处理：每条长于 `LARGE_RESULT_CHAR_LIMIT`（30,000）的结果都被
# 完整写入
#
#     .task_outputs/tool-results/<tool_use_id>.txt
#
# 并在上下文中换成一个短块，只含文件路径和 2,000 个字符的预览：
#
#     <persisted-output>
#     Full output: <path>
#     Preview:
#     <first 2000 characters>
#     </persisted-output>
#
# 每替换一条，它就重新计算一次批次总量，一旦降到上限以内就停下。信息没有丢失：完整文本只需
# 一次 `read_file` 就能取回。所以它排在最前面：成本低，不需要模型，而且可以还原。
#
# 这段历史来自文章的实验二：agent 读取 `web/src/data/generated/docs.json`，一个
# 288,000 字符的文件。

# %% [markdown]
# **目标。** 你将了解：第一步何时动作（某个批次超过上限时）；它把哪些结果转存到磁盘，按什么
# 顺序；它在原处留下的文本块长什么样。然后你要把它的规则倒过来用，亲手选出一个阈值。自学约
# 25 分钟；在 90 分钟的课堂上用 10 分钟（docs/TEACHING.md）。

# %% [markdown]
# ## 最新的批次
#
# 最后一条 assistant 消息一次请求了四个工具：读取 `docs.json`，外加三条小命令。它们的结果
# 就是最后一条消息。

# %% [markdown]
# ## 运行第一步
#
# `replay` 在一个临时文件夹里让这段历史只经过这一步，并记录这一步做了什么。记录中的路径，
# 以及留在上下文里的文本中的路径，都相对于压缩器的根目录。

# %% [markdown]
# 只有那次读取大到需要转存。替换它之后，批次总量远低于上限，循环就停了。下面是它留在
# 上下文里的确切文本；为节省篇幅，预览部分做了截断：

# %% [markdown]
# ## 完整文本去了哪里
#
# `Full output:` 行所指的文件保存了完整结果，一个字符都不差。

# %% [markdown]
# 文件名就是 `tool_use_id`，其中 `[A-Za-z0-9._-]` 之外的每个字符都换成 `_`。之后，文章会直接
# 复用已经存在的文件。两个不同的 id 替换之后可能得到同一个文件名，这时第二条结果会从第一条的文件里
# 被“取回”（[docs/DESIGN.md](../../docs/DESIGN.md) 中的缺陷 7）。本课程的包在 id 无需替换时
# 沿用文章的文件名；需要替换时，再加上真实 id 的一个短哈希：

# %% [markdown]
# ## 压缩前后的字符数
#
# 每一步一对柱子：整个上下文（包括 JSON 转义）从 300,000 多个字符降到 5,000 以下，远低于
# 文章的上下文阈值（虚线）。

# %% [markdown]
# 这里没有丢失任何信息：文章的第一步把完整文本留在磁盘上，把路径留在上下文里。
#
# ## 拖动阈值
#
# **试一试。** 这里的批次共有 288,840 个字符的结果。把 `tool_result_batch_char_limit` 拖到
# 290,000，再看下方的图：第一步不再触发，可上下文仍然降到了约 2,500 个字符，而且没有写入
# 任何文件。这是第三步做的：这次读取是批次四条结果中最早的一条，不在最新 3 条之内，于是
# 文章的第三步在模型读到它之前，就把它换成了 `[Earlier tool result omitted.]`，也没有任何
# 地方留下副本。notebook 03 讲第三步，notebook 05 专门讨论这个例子。把上限拖回 288,840 以下，
# 文件就又会被保存。

# %% [markdown]
# 同样的回放，`tool_result_batch_char_limit` 设为 290,000，和滑块画出来的一样（上图：逐次
# 调用；下图：对整段历史运行一次 `prepare`）：

# %% [markdown]
# ## 自测：选出阈值
#
# 文章给出了第一步的循环代码；这里要把它倒过来用。写出 `largest_large_limit(sizes, batch_limit)`：
# 对一个超过 `batch_limit` 的批次（`sizes` 是其中各条结果的长度），返回能让第一步把这一批
# 降到不超过 `batch_limit` 的最大 `large_result_char_limit`。如果连 10,000 的阈值都做不到
# （更短的结果不值得转存），就返回 `None`。动手写代码之前，先在纸上算一个例子：哪些结果
# 必须转存？其中哪一个决定了阈值？
#
# 检查器会在临时文件夹里，用每个候选阈值运行包自己的第一步，再和你的答案比较；其中十个用例是随机
# 批次（固定随机种子，每次运行都一样）。失败的用例会打印它的输入、你的答案和正确答案。卡住的时候，
# 在检查下面的单元格里运行 `hint()`：它会指出检查器识别出的错误。

# %% [markdown]
# **小结。**
# - 第一步只看最新的批次，而且只在批次总量超过 200,000 个字符时动作。
# - 它从最大的开始，把长于 30,000 个字符的结果转存到 `.task_outputs/tool-results/`，直到
#   批次重新降到上限以内。
# - 原处留下一个 `<persisted-output>` 块：`Full output:` 行上是文件路径，后面是 2,000 个
#   字符的预览。
#
# **下一步：** notebook 02，第二步 `snip_compact`：长列表的中间段归档到 transcript（完整记录）。

# %% [markdown]
# **参考资料。**
# - 文章（learn-claude-code s08）的「三、第一步：tool_result_budget」一节；[docs/ARTICLE_MAP.md](../../docs/ARTICLE_MAP.md) 把文章各节对应到代码。
# - 上游代码：https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/code.py（本章的 README：https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/README.zh.md）。
# - API 文档，工具使用概览（Tool use overview）：https://platform.claude.com/docs/en/agents-and-tools/tool-use/overview
# - API 文档，上下文编辑（Context editing：在服务端清除旧的工具结果）：https://platform.claude.com/docs/en/build-with-claude/context-editing
# - Packer 等，*MemGPT: Towards LLMs as Operating Systems*，2023：https://arxiv.org/abs/2310.08560
#
# **课堂讨论。**
# 1. 你自己的 agent 的工具输出里，哪些可以低成本地重新获得（读一个文件），哪些不能（对不稳定服务跑的测试、会变化的网页）？两者都该用 30,000 字符的上限吗？
# 2. 预览是开头 2,000 个字符。对测试日志来说，开头是该保留的部分吗？
