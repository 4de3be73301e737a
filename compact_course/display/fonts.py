"""The charts' fonts: DejaVu Sans, with Noto Sans CJK SC behind it for Chinese.

    use_cjk_fallback()   set matplotlib's font.family to that list (when the CJK font is there)

matplotlib draws each character in the first font of `font.family` that has
its glyph, so English text keeps DejaVu Sans, matplotlib's own default, and
looks as it always did, while a Chinese character falls through to Noto Sans
CJK SC (Debian's `fonts-noto-cjk`, installed by scripts/setup.sh when root).
Without the CJK font the list stays DejaVu Sans alone: naming a font that is
not installed would make matplotlib log a warning on every chart, and a
Chinese character then draws as a box with a "missing from font" warning,
which is what tests/lessons/test_chart_fonts.py looks for.

matplotlib is imported when a chart asks, not with this module (a lesson's import stays light).

Left out: other CJK fonts and any font file shipped with the course.
"""

LATIN = "DejaVu Sans"
CJK = "Noto Sans CJK SC"


def has_cjk_font() -> bool:
    from matplotlib import font_manager

    return any(font.name == CJK for font in font_manager.fontManager.ttflist)


def use_cjk_fallback() -> list[str]:
    """Set font.family to DejaVu Sans then Noto Sans CJK SC; return the list set."""
    import matplotlib

    family = [LATIN, CJK] if has_cjk_font() else [LATIN]
    matplotlib.rcParams["font.family"] = family
    matplotlib.rcParams["font.sans-serif"] = [*family, *(
        name for name in matplotlib.rcParams["font.sans-serif"] if name not in family)]
    return family
