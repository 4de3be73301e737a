"""How the course shows things, shared by every part that prints or draws.

    palette.py      the colours of every chart: Okabe-Ito, safe for colour-blind readers
    text.py         `shown` (text from data, safe for a terminal), `fixed_width` (the one
                    table printer) and `plural` (the one pluraliser)
    lang.py         the notebook's language: COMPACT_LANG, else zh in notebooks/zh/, else en
    chart_text.py   every word the charts draw, one table per language
    fonts.py        DejaVu Sans with Noto Sans CJK SC behind it, so Chinese labels draw

It imports nothing else from compact, so the agent (the Chinese task prompts),
the benchmark (its chart) and the course (charts, checkers, widgets) can all
use it without importing each other.
"""
