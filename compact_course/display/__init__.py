"""How the course shows things, shared by every part that prints or draws.

    phrases.py      the phrasebook: every sentence the package says, English and Chinese side by side
    lang.py         the notebook's language: COMPACT_LANG, else zh in notebooks/zh/, else en
    text.py         `shown` (text from data, safe for a terminal), `fixed_width` (the one
                    table printer) and `plural` (the one pluraliser)
    palette.py      the colours of every chart, a step's by its name: Okabe-Ito, safe for colour-blind readers
    chart_text.py   every word the charts draw, one table per language
    fonts.py        DejaVu Sans with Noto Sans CJK SC behind it, so Chinese labels draw

The lowest room: it imports nothing of the course, so the sessions (an import's
report), the offline model, the agent (the Chinese task prompts), the benchmark
and the lessons can all use it without importing each other.
"""
