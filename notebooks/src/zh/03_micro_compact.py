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
# **目标。** 你将了解：第三步会缩短哪些结果；“omitted”要付出什么代价。然后你会亲手写出这一步的
# 核心逻辑。自学约 25 分钟；在 90 分钟的课堂上用 12 分钟（docs/TEACHING.md）。

# %% [markdown] id="predict-first"
# ## 先预测
#
# `five_reads` 是文章的实验一：一次 glob，然后读取五个 README。运行单元格，看每条结果的大小。
# 用文章的第三步，有多少条会变成占位符？其中又有多少写着“omitted”？填进两个数字，再运行一次：
# 它会显示第三步留下了什么，以及消息图（绿色：磁盘上有副本；朱红色：omitted；上面一行按第三步
# 对每条消息的处理结果着色）。

# %% [markdown] id="move-the-thresholds"
# ## 拖动阈值
#
# **试一试。** 把 `keep_recent_results` 设为 1，再设为 5：哪些结果变成占位符？有没有写入文件？把它
# 设回 3，再把 `micro_min_chars` 调到 3,471 以上（较旧结果中最大的一条）：所有结果都保持完整。滑块
# 下方是设为 1 时的回放。

# %% [markdown] id="check"
# ## 自测：写出第三步的核心
#
# 写出 `older_result(text)`：对于**不在**最新 3 条之内的结果，第三步会在原处留下什么；依据是上面的
# 规则和第一步的 `<persisted-output>` 块（notebook 01；`context_compact.formats` 里有它的格式和 `OMITTED`）。
# 两个步骤之间没有映射表：文本本身就是纽带。
# 当心：agent 读过的文件可能*包含*一行 `Full output: `，但它并不是第一步的块
# （[docs/DESIGN.md](../../docs/DESIGN.md) 中的缺陷 6）。检查器在第一步真实保存的文件上运行包的
# 第三步。

# %% [markdown] id="build-it"
# ## 动手实现：在自己的文件里写第三步
#
# 在 `my_compact.py` 中写出 `micro_compact`，保存，再运行这个单元。上面的练习是它的核心；
# 检查器还会给出 agent 读到的文件里的一行 `Full output:`，以及指向不存在文件的第一步的块：
# 只有当文本就是第一步自己的块、并且文件在 `root/.task_outputs/tool-results/` 中时，才信任
# 这个路径（缺陷 6）。

# %% [markdown] id="recap"
# **小结。**
# - 第三步保留最近 3 条结果，以及所有不超过 120 个字符的结果；其余每条结果都变成一行，而且
#   每次调用都这样做。
# - 它通过读取第一步自己写下的块中的 `Full output:` 行，找到第一步保存的副本；自测在第一步真实
#   保存的文件上检查这一点。
# - 没有副本时，那一行写的是 `omitted`，第三步也不留副本（缺陷 1）：只有之前写下的 transcript
#   里还可能有这段文本（labs/01 里有一个这样的例子）。
#
# **下一步：** notebook 04，第四步 `compact_history`：唯一需要付出一次模型调用的步骤。

# %% [markdown] id="references"
# **参考资料。** 文章（learn-claude-code s08）的「五、第三步：micro_compact」一节；
# [docs/ARTICLE_MAP.md](../../docs/ARTICLE_MAP.md) 把它对应到代码。
