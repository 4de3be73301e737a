# %% [markdown] id="title"
# # 01 · 第一步 `tool_result_budget`：超大结果转存到磁盘
#
# 一次模型回复可以调用多个工具；这些结果一起写进最后一条 user 消息，构成一个*批次*。第一步只看
# 这个批次。批次总量超过 `TOOL_RESULT_BATCH_CHAR_LIMIT` 时，它**从最大的结果开始**，把每条长于
# `LARGE_RESULT_CHAR_LIMIT` 的结果写入 `.task_outputs/tool-results/<tool_use_id>.txt`，在原处
# 留下一个 `<persisted-output>` 块，一旦批次不超过上限就停下。不需要模型，一次 `read_file` 就能
# 还原。

# %% [markdown] id="goal"
# **目标。** 你将了解：第一步何时起作用；它把哪些结果转存到磁盘、留下什么文本块。然后你要把它的
# 规则倒过来用，并亲手写出这一步。自学约 30 分钟；在 90 分钟的课堂上用 7 分钟（docs/TEACHING.md）。

# %% [markdown] id="run-step-1"
# ## 运行第一步
#
# 文章的实验二：agent 读取一个 288,000 字符的文件，并在同一批次里运行三条小命令。`replay` 让它
# 只经过第一步：留下的文本块（这里截断了预览）、转存文件与原结果的核对，以及上下文前后的字符数。

# %% [markdown] id="move-the-thresholds"
# 只有那次读取被转存：转存之后，批次总量远低于上限。
#
# ## 拖动阈值
#
# **试一试。** 把 `tool_result_batch_char_limit` 拖到 290,000，高于这个批次：第一步不再触发，
# 可上下文仍然降到约 2,500 个字符，而且没有写入任何文件。这是第三步做的；代价是什么，是
# notebook 05 的问题。配置开关保持 seed。滑块下方是阈值设为
# 290,000 的同一次回放。

# %% [markdown] id="check"
# ## 自测：选出阈值
#
# 把第一步倒过来用。写出 `largest_large_limit(sizes, batch_limit)`：对一个超过 `batch_limit` 的
# 批次（`sizes`：各条结果的长度），返回能让第一步把这一批降到不超过 `batch_limit` 的最大
# `large_result_char_limit`；不小于 10,000 的阈值都做不到时返回 `None`（更短的结果不值得写成文件）。
# 转存的结果按它 2,000 个字符的预览计：预览外面的头部（上面是 103 个字符；id 越长它越长）
# 不决定任何用例。先在纸上算：哪些结果必须转存？
# 其中哪一个决定了阈值？检查器运行包自己的第一步。

# %% [markdown] id="build-it"
# ## 动手实现：在自己的文件里写第一步
#
# 从这里开始，管线由你来写：它在 `my_compact.py` 里逐步长大，每个 notebook
# 一步，直到 notebook 08 把它变成 `prepare`。在 `tool_result_budget` 的文档字符串下面写出它，只用
# 普通 dict；保存（Ctrl-S）后运行下面的单元。检查按文章的规则和文档字符串所列的修正评分，
# 也用随机抽取的用例，所以每个数值都必须来自参数；失败的用例显示它的输入，绝不显示期望的输出。

# %% [markdown] id="recap"
# **小结。**
# - 第一步只看最新的批次，而且只在它超过 200,000 个字符时起作用。
# - 它从最大的开始，把超过 30,000 个字符的结果转存到磁盘，直到批次不超过上限。
# - 原处留下一个 `<persisted-output>` 块：`Full output:` 行上是路径，后面是 2,000 个字符的预览。
#
# **下一步：** notebook 02，第二步 `snip_compact`：长列表的中间段归档到 transcript（完整记录）。

# %% [markdown] id="references"
# **参考资料。**
# - 文章（learn-claude-code s08）的「三、第一步：tool_result_budget」一节；[docs/ARTICLE_MAP.md](../../docs/ARTICLE_MAP.md) 把文章各节对应到代码。
