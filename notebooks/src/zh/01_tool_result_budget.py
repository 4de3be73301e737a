# %% [markdown] id="title"
# # 01 · 第一步 `tool_result_budget`：超大结果转存到磁盘
#
# 一次模型回复可以同时调用多个工具；这些工具结果会一起写进最后一条 user 消息，构成一个
# *批次*。第一步只看这个批次。批次总量超过 `TOOL_RESULT_BATCH_CHAR_LIMIT` 时，它**从最大的
# 结果开始**，把每条长于 `LARGE_RESULT_CHAR_LIMIT` 的结果完整写入
# `.task_outputs/tool-results/<tool_use_id>.txt`，在原处留下一个短短的 `<persisted-output>`
# 块，一旦批次不超过上限就停下。它排在最前面：成本低，不需要模型，一次 `read_file` 就能
# 还原。这段历史来自文章的实验二：agent 读取一个 288,000 字符的文件 `docs.json`，并在同一批次
# 里运行三条小命令。

# %% [markdown] id="goal"
# **目标。** 你将了解：第一步何时动作（某个批次超过上限时）；它把哪些结果转存到磁盘；
# 它在原处留下的文本块长什么样。然后你要把它的规则倒过来用，亲手选出一个阈值。自学约
# 25 分钟；在 90 分钟的课堂上用 8 分钟（docs/TEACHING.md）。

# %% [markdown] id="run-step-1"
# ## 运行第一步
#
# `replay` 在一个临时文件夹里让这段历史只经过这一步。下面依次是：留在上下文里的文本块（这里
# 截断了它 2,000 字符的预览）、对它的 `Full output:` 行所指文件的检查（文件里是否正是这条结果），
# 以及整个上下文前后的字符数（虚线：文章的上下文阈值）。

# %% [markdown] id="move-the-thresholds"
# 只有那次读取被转存：转存之后，批次总量远低于上限。
#
# ## 拖动阈值
#
# **试一试。** 把 `tool_result_batch_char_limit` 拖到 290,000，高于这个批次，再看下方的图：
# 第一步不再触发，可上下文仍然降到了约 2,500 个字符，而且没有写入任何文件。这是第三步做的；
# 这要付出什么代价，是 notebook 05 的问题（缺陷 3）。
# 切换配置的开关、灰掉的 `snip_target_messages` 滑块（文章的第二步没有目标值）和标记条带里的
# `persist_largest` 一行（摘要之前的一道工序，这里从不运行）都属于本包的第二种配置
# （notebook 05；见 [docs/DESIGN.md](../../docs/DESIGN.md#the-flaws) 的缺陷 4 和缺陷 8）。

# %% [markdown] id="the-same-replay"
# 把阈值设为 290,000 的同一次回放，和滑块画出的图一样（上图：逐次调用；下图：对整段历史运行一次
# `prepare`）：

# %% [markdown] id="check"
# ## 自测：选出阈值
#
# 把第一步倒过来用。写出 `largest_large_limit(sizes, batch_limit)`：对一个超过
# `batch_limit` 的批次（`sizes` 是其中各条结果的长度），返回能让第一步把这一批降到不超过
# `batch_limit` 的最大 `large_result_char_limit`；连 10,000 都做不到时返回 `None`。先在纸上
# 算：哪些结果必须转存？其中哪一个决定了阈值？检查器对每个用例运行包自己的第一步，其中十个是
# 随机用例（固定种子）；失败的用例会打印它的输入。

# %% [markdown] id="build-it"
# ## 动手实现：在自己的文件里写第一步
#
# 从这里开始，课程的管线由你来写：它在这个 notebook 旁边的 `my_compact.py` 里逐步长大
# （在文件浏览器中双击打开），每个 notebook 一步，直到 notebook 08 把你的各步组合成 `prepare`。在
# `tool_result_budget` 的文档字符串下面写出它：函数签名以文章的数值为默认值，文档字符串说明
# 这一步必须做什么（包括安全规则），函数体由你来写，只用普通 dict 和标准库。保存（Ctrl-S），
# 再运行下面的单元。它每次都重新读取你的文件，并以包的 seed 配置为准评判你的函数：既有固定
# 用例，也有每次随机抽取的用例，所以每个数值都必须来自参数。失败的用例会显示它的输入和错在
# 哪里，绝不显示期望的输出；`hint()` 给出下一个思路。在你写好之前，它会如实说明。

# %% [markdown] id="recap"
# **小结。**
# - 第一步只看最新的批次，而且只在批次总量超过 200,000 个字符时动作。
# - 它把长于 30,000 个字符的结果转存到 `.task_outputs/tool-results/`，直到批次不超过上限；
#   从最大的开始，是自测检查的规则。
# - 原处留下一个 `<persisted-output>` 块：`Full output:` 行上是文件路径，后面是 2,000 个
#   字符的预览。
#
# **下一步：** notebook 02，第二步 `snip_compact`：长列表的中间段归档到 transcript（完整记录）。

# %% [markdown] id="references"
# **参考资料。**
# - 文章（learn-claude-code s08）的「三、第一步：tool_result_budget」一节；[docs/ARTICLE_MAP.md](../../docs/ARTICLE_MAP.md) 把文章各节对应到代码。
