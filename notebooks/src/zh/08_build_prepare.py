# %% [markdown] id="title"
# # 08 · 自己搭一个 prepare
#
# 四个步骤你已经一个一个见过了，notebook 05 也讲了它们的顺序为什么是固定的。现在把它们组装起来：
# `prepare` 就是 agent 在每次模型调用之前运行的那个函数，几行代码就是整篇文章：
#
#     tool_result_budget -> snip_compact -> micro_compact -> compact_history（只在仍然超过上限时）

# %% [markdown] id="goal"
# **目标。** 你将用本包的四个步骤亲手写出 `prepare`，在预先录制的历史和随机历史上和本包自己的
# `ContextCompactor.prepare` 对照检查，然后让 notebook 09 的实时 agent 用它运行。自学约 15 分钟；
# 在 90 分钟的课堂上用 12 分钟（docs/TEACHING.md）。

# %% [markdown] id="the-four-steps-as-methods"
# ## 四个步骤，就是四个方法
#
# 一个压缩器（`make_compactor(folder, "seed")`：文章的配置，写入 `folder`）每一步有一个方法。
# 每个方法接收列表、返回一个新列表；第二步和第四步还要接收用户这一轮输入的请求：
#
# | 步骤 | 调用 |
# |---|---|
# | 1 | `compactor.tool_result_budget(messages)` |
# | 2 | `compactor.snip_compact(messages, active_request)` |
# | 3 | `compactor.micro_compact(messages)` |
# | 4 | `compactor.compact_history(messages, active_request)` |
#
# 第一到第三步自己判断有没有事可做。第四步不会：它每次都要花钱做一次摘要，所以 `prepare` 只在
# `compactor.size(messages)` 超过 `compactor.config.context_limit`（这里是 50,000 个字符）时才调用它。
# 下面是本包自己的 `prepare` 在两段历史上的运行，以及第一段的图：

# %% [markdown] id="huge-result-comes"
# `huge_result` 进来时超过 300,000 个字符，第四步却没有运行：第一步把那次巨大的读取存到了磁盘，
# 第一到第三步之后只剩约 2,500 个字符。`two_code_files` 有 65,000 个字符，没有哪个便宜的步骤能
# 缩小它（它的批次低于 200,000，它的 3 条结果就是最新的 3 条），所以它仍然超过上限，由第四步
# 做摘要。图中的条形是每一步之前（灰色）和之后（蓝色）的大小。

# %% [markdown] id="check"
# ## 自测：写出 prepare
#
# 写 `my_prepare(compactor, messages, active_request)`：按文章的顺序运行四个步骤，每一步作用在
# 上一步返回的列表上，第四步只在列表仍然超过上限时运行，最后返回要发送的列表。检查器在六段
# 预先录制的历史和八段固定随机种子的随机历史上，各用一个单独的临时文件夹运行它和本包的
# `prepare`，比较两边的列表和写下的文件。14 个用例全部通过之后，把你的函数带到 notebook 09：
# 它的最后一个单元格“轮到你了”用 `prepare=my_prepare` 运行文章的 agent，在一次实时运行里，
# 每次模型调用之前运行的都是你的管线。

# %% [markdown] id="build-it"
# ## 动手实现：在自己的文件里写 prepare
#
# 在 `my_compact.py` 中用你自己的各步写出 `prepare`：先第一到三步，之后只有列表仍超过给定的
# 上限时才运行第四步。检查器围绕你的各步留下的大小抽取上限，所以自己定的数值会在某些用例上
# 判断错误；它也包含文章自己的 `prepare` 因缺陷而出错的用例。

# %% [markdown] id="recap"
# **小结。**
# - `prepare` 就是第一、二、三步，每一步作用在上一步返回的列表上，然后只在列表仍然超过上限时
#   运行第四步。
# - 上限是在第一到第三步之后量的：它们常常已经让列表降到上限以下，这时就不用花钱做摘要。
# - 第一步在第三步之前（notebook 05）：否则一条巨大的结果会在保存之前就被缩短。
#
# **下一步：** notebook 09，实时运行 agent，里面用的是你的 `prepare`。

# %% [markdown] id="references"
# **参考资料。**
# - 文章第七节（顺序）和第九节（agent 循环，在每次模型调用之前运行 `prepare`）：
#   https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/README.zh.md
