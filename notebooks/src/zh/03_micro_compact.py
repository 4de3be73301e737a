# %% [markdown] id="title"
# # 03 · 第三步 `micro_compact`：旧结果收缩为占位符
#
# 第三步每次调用都运行，检查**全部**工具结果。最近 `KEEP_RECENT_RESULTS = 3` 条保持完整，
# 不超过 120 个字符的结果也保持不变；其余每条都换成一行。如果第一步转存过它，就从第一步那个块的
# `Full output: <path>` 行读回路径：
#
#     [Earlier tool result saved at <path>]
#
# 否则：
#
#     [Earlier tool result omitted.]

# %% [markdown] id="goal"
# **目标。** 你将了解：第三步会缩短哪些结果；“omitted”要付出什么代价。然后你会写出这一步的核心，
# 再写出整个步骤。自学约 30 分钟；在 90 分钟的课堂上用 12 分钟（docs/TEACHING.md）。

# %% [markdown] id="predict-first"
# ## 先预测
#
# `five_reads` 是文章的实验一：一次 glob，然后读取五个 README。运行单元格，看每条结果的大小。
# 用文章的第三步，有多少条会变成占位符？其中又有多少写着“omitted”？填进两个数字，再运行一次：
# 它会显示每条结果前后的字符数、第三步留下了什么，以及这些大小的条形图。

# %% [markdown] id="move-the-thresholds"
# ## 拖动阈值
#
# **试一试。** 把 `keep_recent_results` 设为 1，再设为 5：哪些结果变成占位符？有没有写入文件？设回
# 3 后，把 `micro_min_chars` 调到 3,471 以上（上表较旧结果中最大的一条）：所有结果都保持完整。滑块
# 下方是设为 1 时的回放。

# %% [markdown] id="check"
# ## 自测：写出第三步的核心
#
# 写出 `older_result(text)`：对于**不在**最新 3 条之内的结果，第三步会在原处留下什么；依据是上面的
# 规则和第一步的 `<persisted-output>` 块（`context_compact.formats` 里有它的格式和 `OMITTED`）。
# 两个步骤之间没有映射表：文本本身就是纽带。当心：agent 读过的文件可能*包含*一行
# `Full output: `，但它并不是第一步的块（[docs/DESIGN.md](../../docs/DESIGN.md) 中的缺陷 6）。

# %% [markdown] id="build-it"
# ## 动手实现：在自己的文件里写第三步
#
# 在 `my_compact.py` 中围绕练习里的核心写出 `micro_compact`，保存，再运行这个单元。只有当文本就是
# 第一步自己的块、并且文件在 `root/.task_outputs/tool-results/` 中时，才信任这个路径（缺陷 6）。

# %% [markdown] id="recap"
# **小结。**
# - 第三步保留最近 3 条结果，以及所有不超过 120 个字符的结果；其余每条都变成一行，每次调用都这样做。
# - 它通过第一步自己写下的块中的 `Full output:` 行，找到第一步保存的副本。
# - 没有副本时，那一行写的是 `omitted`，第三步也不留副本（缺陷 1）。
#
# **下一步：** notebook 04，第四步 `compact_history`：唯一需要付出一次模型调用的步骤。

# %% [markdown] id="references"
# **参考资料。** 文章（learn-claude-code s08）的「五、第三步：micro_compact」一节；
# [docs/ARTICLE_MAP.md](../../docs/ARTICLE_MAP.md) 把它对应到代码。
