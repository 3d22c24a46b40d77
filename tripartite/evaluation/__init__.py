"""`tripartite eval`: Tripartite prompts against vector RAG, per object, on one corpus.

measure.py compares the prompts, sweep.py varies alpha and beta, report.py writes the
Markdown and JSON results and plot.py the figure.
"""
