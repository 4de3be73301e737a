# %% [markdown] id="title"
# # 08 · 自己搭一个 prepare
#
# 四个步骤你已经在 `my_compact.py` 里一个一个写好了，notebook 05 也讲了它们的顺序。现在把它们
# 组装起来：`prepare` 就是 agent 在每次模型调用之前运行的那个函数，几行代码就是整篇文章。

# %% [markdown] id="goal"
# **目标。** 你将在自己的文件里用自己的各步写出 `prepare`，在随机抽取的隐藏用例上检查它，然后在
# notebook 09 里让它实时运行。自学约 20 分钟；在 90 分钟的课堂上用 12 分钟（docs/TEACHING.md）。

# %% [markdown] id="what-prepare-does"
# ## prepare 做什么
#
# 第一、二、三步按文章的顺序运行，每一步作用在上一步返回的列表上。然后只有一个判断：第四步要花
# 一次模型调用，所以只有前三步留下的列表仍然超过上限时才运行它。下面是本包自己的 `prepare`
# （seed 配置，即文章的设计）在两段制作的历史上的运行，以及第一段的图：

# %% [markdown] id="huge-result-comes"
# `huge_result` 进来时远远超过 50,000 个字符的上限，第四步却没有运行：第一步把那次巨大的读取
# 存到了磁盘，第一到三步留下的已经低于上限。第三步也触发了：保存下来的块比最新的 3 条结果更早，
# 所以模型连它的预览都还没看到，第三步就把它缩成了 "saved at" 占位符（缺陷 3，见 docs/DESIGN.md）。
# `two_code_files` 是一个低于 200,000 个字符的批次，
# 它的结果就是最新的 3 条，所以没有哪个便宜的步骤能缩小它，由第四步做摘要。图中的条形是每一步
# 之前（灰色）和之后（蓝色）的大小。

# %% [markdown] id="build-it"
# ## 动手实现：在自己的文件里写 prepare
#
# 在 `my_compact.py` 中用你自己的函数写出 `prepare(messages, root, active_request, summarize,
# limit)`。先用自己的话说一遍：哪一步先运行、为什么（notebook 05），量什么、什么时候量、和哪个
# 数比较。检查器围绕你的各步留下的大小抽取上限，所以自己定的数值会在某些用例上判断错误。它也会
# 拒绝调用本包 `prepare` 的实现、先第三步后第一步的实现，以及文章自己的 `prepare` 因某个编号缺陷
# 而出错的用例（失败信息会写出缺陷的编号）。`hint()` 给出下一个思路，从不给代码。

# %% [markdown] id="recap"
# **小结。**
# - `prepare` 就是第一、二、三步，每一步作用在上一步返回的列表上，然后只在列表仍然超过给定的
#   上限时运行第四步。
# - 上限是在第一到第三步之后量的：它们常常已经让列表降到上限以下，这时就不用花钱做摘要。
# - 第一步在第三步之前（notebook 05）：否则一条巨大的结果会在保存之前就被缩短。
#
# **下一步：** notebook 09，你的 `prepare` 在一个实时 agent 的每次调用之前运行。

# %% [markdown] id="references"
# **参考资料。**
# - 文章第七节（顺序）和第九节（agent 循环，在每次模型调用之前运行 `prepare`）：
#   https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/README.zh.md
