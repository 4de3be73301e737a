"""The article's scripted experiments (section 13) and the compact tool (section 10).

Left out: the general policy's questions (kinds.py); route.py picks a script."""
