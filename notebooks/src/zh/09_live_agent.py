# %% [markdown] id="title"
# # 09 · 实时运行 agent
#
# 到目前为止，我们回放的都是预先录制的历史。现在，文章的 agent 真正运行起来（第九节和
# 第十三节）：`compact_course.agent.loop.Agent`，带 6 个工具，每次模型调用前运行 `prepare`，
# 遇到拒绝时做一次补救压缩，还有 compact 工具。
#
# **用哪个模型？** 默认用离线模型：一个在 127.0.0.1 上实现 Messages API 的本地服务器，通过真实的
# `anthropic` SDK 访问；不需要密钥，也不需要网络。它是一个确定性程序，不是语言模型：它只根据请求里的
# 内容回答，否则就说明它无法确定（`tests/offline/test_offline_truth.py`）。设置了 `ANTHROPIC_API_KEY` 和
# `MODEL_ID` 时，同样的单元格会改为连接真实 API，打印它的回答；设置了 `CI` 或 `COMPACT_OFFLINE` 时，
# 本 notebook 保持离线；cassette 文件可以回放一次录下的运行（[docs/INSTALL.md](../../docs/INSTALL.md)）。
#
# 中文版的两个实验直接使用文章第十三节的中文提示，与英文任务的对应见
# [docs/ZH_PROMPTS.md](../../docs/ZH_PROMPTS.md)。

# %% [markdown] id="goal"
# **目标。** 你将看到整条管线在文章的 agent 里、在一个真实的工作区上运行，读懂它留在磁盘上的
# 东西，再用你在 notebook 08 里写的 `prepare` 运行它。自学约 20 分钟；在 90 分钟的课堂上用 10 分钟（docs/TEACHING.md）。

# %% [markdown] id="predict-first"
# ## 先预测
#
# 下面的实验三用原文配置（seed）运行，要付出一次摘要的代价。请预测同一个任务在**默认配置**
# （default）、同样 50,000 个字符下的运行，这次运行只在“轮到你了”里出现：
#
# - `files_saved`：第一步往 `.task_outputs/` 写了几个文件（规则见
#   [docs/DESIGN.md](../../docs/DESIGN.md) 的缺陷 18）；
# - `model_calls`：模型调用的次数，包括回答那一次（上下文里只剩预览时，离线模型会先搜索保存的
#   副本，再回答）。
#
# 在运行“轮到你了”之前先运行检查器；`hint()` 会指出它识别出的错误。

# %% [markdown] id="experiment-3-two-large-code"
# ## 实验三：两个大代码文件，原文配置（seed）
#
# 以 `>` 开头的行是工具调用，方括号里的行是压缩器打印的内容，和文章中一样（`echo=print` 还会显示
# 工具结果）。摘要之后，两个文件的正文都不在上下文里了：agent 从 `[Compacted]` 消息继续工作；
# “轮到你了”会再运行一次，并打印回答。

# %% [markdown] id="experiment-2-a-huge-json-file"
# ## 实验二：一个超大的 JSON 文件，默认配置（default）
#
# 同一个工作区，一个新的 agent：读取 `docs.json` 的结果超过第一步的阈值，所以它连同一段预览转存到
# 磁盘，不需要摘要。

# %% [markdown] id="what-the-runs-leave-and-the"
# ## 两次运行留下的东西，以及每次调用时的上下文
#
# `.transcripts/` 保存每个被归档或被总结的列表；`.task_outputs/tool-results/` 保存
# 移出上下文的每条结果的全文。图中灰色是上下文到达 `prepare` 时的大小，蓝色是发出的大小；条带
# 标出某个步骤触发的调用。

# %% [markdown] id="your-turn-your-prepare-your"
# ## 轮到你了：你的 prepare，你的设置
#
# **试一试。** 把你在 notebook 08 里写好的 `def my_prepare(...)` 放到 `my_prepare = None` 这一行的
# 位置。`your_run`（`compact_course/lessons/live_run.py`）在一份新的工作区副本里用
# `Agent(prepare=my_prepare)` 再运行一次实验三：每次模型调用之前运行你的管线，打印的第一行会说明
# 这一点。然后设 `my_profile = "default"` 核对你的预测，再在 `my_question` 里写一个你自己的问题。
# 回答的第一行是离线模型对刚完整读到的结果（这里是大纲）记下的笔记。

# %% [markdown] id="recap"
# **小结。**
# - 回放时运行的那个 `prepare`，现在在实时 agent 的每次调用之前运行，你自己的也可以代替它。
# - 在实验三中，两个代码文件把上下文推过阈值，花了一次摘要；
#   在实验二中，第一步把超大的 JSON 结果转存到磁盘，留下一段预览。
# - 从上下文中移出的一切，都在工作区里的 `.transcripts/` 或 `.task_outputs/tool-results/` 中。
#
# **下一步：** `labs/` 里的进阶 notebook（lab），从 labs/01 开始：文章的设计与默认配置对照。

# %% [markdown] id="references"
# **参考资料。**
# - 文章第九节（agent 循环）和第十三节（动手实验）；这一章在上游仓库中的页面：
#   https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/README.zh.md
