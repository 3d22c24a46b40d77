"""Measuring prompts (cypher/evaluation/): `tripartite eval` compares Tripartite prompts with
vector RAG, per object, on one corpus, and `tripartite demo` does it on the built-in sample.

measure.py compares the prompts, sweep.py varies alpha and beta, report.py writes the
Markdown and JSON results and plot.py the figure; run.py strings them together, demo.py
runs them on the sample.
"""
