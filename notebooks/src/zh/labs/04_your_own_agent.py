# %% [markdown] id="title"
# # Lab 04 · 你自己的 agent，你自己的历史
#
# **问题：** 哪些设置放得进 *你的* agent 的窗口，它们各花多少？
# 前面每个 notebook 回放的都是课程自带的历史，用的都是文章的数值。你的 agent 的工具返回的
# 结果大小不同，会话可能更长也可能更短，它的模型也有自己的窗口。这里你回放它的一次会话，
# 在上面扫描各个阈值，为一个窗口选出设置。
#
# 导入器能读 Claude Code 的会话文件、Codex CLI 的 rollout、Responses API 的请求体、
# ATIF 轨迹、Messages API 历史和 OpenAI 聊天格式的日志；
# [docs/RECIPE.md](../../docs/RECIPE.md) 写明每种格式保留什么、略去什么。读不了的文件会被拒绝，
# 并给出文件、行号和问题所在。

# %% [markdown] id="goal"
# **目标。** 你将载入另一个 agent 的一次会话，在它上面扫描阈值，读懂扫描的图表，
# 并为一个扫描里没有一行放得进的更小窗口选出设置。约 25 分钟。

# %% [markdown] id="what-the-file-holds-and-what-the"
# 样例是 **制作的，不是录下来的**：`scripts/make_claude_session.py` 用课程的工作区、
# 按 Claude Code 的格式写出它，里面是工具的真实输出。导入结果写明它略去了什么
# （子 agent 的旁支 sidechain、簿记记录），又把哪些记录合在了一起
# （Claude Code 每个内容块写一条记录）。

# %% [markdown] id="sweep-the-thresholds-for-a"
# ## 为一个窗口扫描阈值
#
# 假设你的模型窗口是 16,000 个 token（样例很小，所以窗口也小；200,000 token 的窗口
# 只是更晚遇到同一个问题）。`sweep` 按网格里的每组设置把会话逐次调用回放一遍，两种配置都跑。
# 阈值按字符计（`context_char_limit`）或按 token 计（`context_token_limit`，用离线模型的估算），
# 再和 `keep_recent_results` 交叉组合。每一行衡量：
#
# - **成本（cost）**：整个会话的账单，以基础输入 token 计，带提示缓存（和 notebook labs/02 一样）；
# - **丢失（lost）**：任何地方都无法再逐字读到的工具输出；
# - **缺失（misses）**：录下的回复用到了一个只在更早的输出里出现过的名字，而那次调用发出的
#   内容里没有它，这样的调用次数（本课程自己的衡量标准）；
# - **峰值（peak）**：最大的一次请求，以 token 计。
#
# 最佳行放得进窗口、什么都不丢，其次缺失最少，再其次成本最低。（notebook labs/05 的遗忘探针
# 这里不列：在每一行上它都等于丢失（lost）。）把 `show_all` 设为 `True` 可以打印每一行。

# %% [markdown] id="read-it-with"
# 横轴是成本，纵轴是缺失。实心点什么都不丢，空心点有丢失，叉号放不进窗口；
# 星号是最佳行，虚线是不压缩。下面是同样这些行的数字，默认配置按阈值分组：

# %% [markdown] id="the-chosen-settings"
# 原文配置（seed）的每一行都有丢失：它的第三步不给移走的内容留副本。在默认配置里，
# 阈值越低，峰值越低，缺失越多；而成本既随阈值变，也随 `keep_recent_results` 变。
# 最佳行的设置就是一个 `CompactionConfig`：把它交给你的压缩器。按 token 计的阈值需要
# `context_compact.tokens.TokenMeasure(client, model)` 配合，它去问你的模型的 `count_tokens`。
#
# 要把管线接进你自己的循环，读 [docs/RECIPE.md](../../docs/RECIPE.md)：每次调用前 `prepare`，
# 遇到 "prompt is too long" 时运行一次 `reactive_compact`，`compact` 工具的整个批次先执行完，
# 并把当前用户请求传给它们每一个。`examples/own_loop.py` 就是那个循环。

# %% [markdown] id="check"
# ## 自测：更小的模型
#
# 你的团队把这个 agent 换到一个窗口只有 5,000 个 token 的模型上，在这次会话上能花的成本是
# 29,000。扫描里没有一行放得进这个窗口。选一种配置和一个 `context_char_limit`（其他设置沿用
# 该配置自己的）。检查器回放你的选择：它必须放得进窗口、什么都不丢，而且不超预算。
#
# 一个 token 四个字符只是猜测，不是测量；在这里它刚好成立（20,000 个字符的峰值是 4,942 个
# token），放进窗口并不难。决定账单的是两股力量：阈值贴近窗口时，每次调用都发送将近一整个
# 窗口；远低于窗口时，压缩来得频繁，每次都改写缓存里的提示（4,000 个字符时有 7 次摘要）。
# 账单在两者之间最低，而且相邻阈值之间高低不平，所以瞄准谷底的中间。想看清它，只扫描阈值：
# `sweep(history, {"context_char_limit": (...)}, window_tokens=own.LAB_WINDOW)`。

# %% [markdown] id="recap"
# **小结。**
# - 导入器读得了其他 agent 的会话文件，转换不了的地方会指出行号；
#   `python -m compact_course sweep FILE` 都接受它们。
# - 在你自己的会话上扫描，能看出每组设置在你的窗口下花多少、丢什么、缺什么；
#   最佳行就是一个可以留用的 `CompactionConfig`。
# - 最便宜的设置靠回放找出，而不是靠经验法则：阈值和 `keep_recent_results` 都会改变成本。
#
# **下一步：** notebook labs/05，每种设计遗忘了什么。

# %% [markdown] id="references"
# **参考资料。**
# - 文章第九节（每次模型调用前都跑同一条管线），以及它的代码：
#   https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/code.py
# - token 计数（Token counting）：https://platform.claude.com/docs/en/build-with-claude/token-counting
# - 提示缓存（Prompt caching），成本按它的规则计算：
#   https://platform.claude.com/docs/en/build-with-claude/prompt-caching
#
# **课堂讨论。** 扫描只在一个会话上排名。你要扫描自己的多少个会话、哪几类会话，才会信任它的最佳行？
