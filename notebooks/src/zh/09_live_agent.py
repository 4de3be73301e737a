# %% [markdown] id="title"
# # 09 · 实时运行 agent
#
# 到目前为止，我们回放的都是制作的历史。现在，文章的 agent 真正运行起来（第九节和
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
# **目标。** 你将看到整条管线在文章的 agent 里运行，预测你在 notebook 08 写的 `prepare` 在一次
# 没有页面展示过的运行里会做什么，运行它，再把它放进你自己的一个普通 SDK 循环。自学约 25 分钟；
# 在 90 分钟的课堂上用 10 分钟（docs/TEACHING.md）。

# %% [markdown] id="experiment-3-two-large-code"
# ## 实验三：两个大代码文件，原文配置（seed）
#
# 以 `>` 开头的行是工具调用，方括号里的行是压缩器打印的内容，和文章中一样（`echo=print` 还会显示
# 工具结果）。摘要之后，两个文件的正文都不在上下文里了：agent 从 `[Compacted]` 消息继续工作。

# %% [markdown] id="experiment-2-a-huge-json-file"
# ## 实验二：一个巨大的 JSON 文件，默认配置，以及运行留下了什么
#
# 同一个工作区，一个新的 agent：对 `docs.json` 的读取超过了第一步的阈值，所以它带着预览转存到
# 磁盘，不需要摘要。`.transcripts/` 保存每一次被归档或被摘要的列表；`.task_outputs/tool-results/`
# 保存每条被移出上下文的结果的全文。图中灰色是上下文到达 `prepare` 时的大小，蓝色是实际发送的
# 大小；下方的条带标出某一步触发的位置（`persist_largest` 是默认配置在第四步之前的一遍：先把最大的
# 结果存到磁盘，见 docs/DESIGN.md 的缺陷 8）。

# %% [markdown] id="predict-your-prepare"
# ## 先预测，再运行：你的 prepare，实时
#
# agent 现在在每次模型调用之前运行**你的** `prepare`（`my_compact.py`），用文章的数值，跑一次没有
# 哪个页面展示过的运行：同一段对话里先做实验二，再做实验三。用离线模型时，第 1 到 7 次调用的回复
# 依次是：读取 `docs.json`（结果 287,938 个字符）、一条 bash 命令（8,000）、回答；读取 s08 的
# `code.py`（30,765）、s09 的（30,166）、一次 grep（2,822）、回答。大小是模型看到的工具结果。
# 先在 `prediction` 里写下：你的四个步骤各自在哪几次调用时改变了列表（第四步：运行了），以及运行后
# 磁盘上的文件：`.task_outputs/tool-results/` 中的 `saved_results`，`.transcripts/` 中的
# `transcripts`。检查器拿它和你的运行比较；通过后显示这次运行的记录。

# %% [markdown] id="your-own-loop"
# ## 在你自己的循环里用同一条管线
#
# 任何基于 `anthropic` SDK 的 agent 都能运行你的 `prepare`：每次 `messages.create` 之前，把列表
# 交给它，发送它返回的列表。`summarize` 是交给第四步的那次模型调用。把 `my_agent` 复制到你自己的
# agent 里。它发送 agent 的系统提示，要求只遵循 "Current user request" 中的指令。
# [docs/RECIPE.md](../../docs/RECIPE.md) 和
# [examples/own_loop.py](../../examples/own_loop.py) 给出本包的版本，以及这里省略的部分：被拒绝时的
# 一次重试（`reactive_compact`，notebook 06）、`compact` 工具（07；没有发送）、
# 按 token 计的上限，以及一个在摘要毫无进展时停下来的守卫。

# %% [markdown] id="recap"
# **小结。**
# - 你的 `prepare`（你写好之前是文章的）在一个实时 agent 的每次调用之前运行了，也在你自己的循环里运行了。
# - 实验三中，两个代码文件把上下文推过了上限，付出了一次摘要；实验二中，第一步把巨大的 JSON
#   结果连同预览移到了磁盘。
# - 从上下文中拿出的一切都在 `.transcripts/` 或 `.task_outputs/tool-results/` 里。
#
# **对照你的实现**：与本项目保存的文章原始代码
# [compact_course/article.py](../../compact_course/article.py) 逐行比较，再读本包默认配置与它的
# 不同之处：[docs/DESIGN.md](../../docs/DESIGN.md) 中编号的缺陷。
#
# **下一步：** `labs/` 里的进阶 notebook（lab），从 labs/01 开始：文章的设计与默认配置对照。

# %% [markdown] id="references"
# **参考资料。**
# - 文章第九节（agent 循环）和第十三节（动手实验）；这一章在上游仓库中的页面：
#   https://github.com/shareAI-lab/learn-claude-code/blob/main/s08_context_compact/README.zh.md
