"""Prompts built by search: the vector-RAG baseline `rag-prompt`."""
from __future__ import annotations

import click

from tripartite.cli.common import App, output, pass_app, probability
from tripartite.cli.selection import question_option
from tripartite.infra.embeddings import make_embedder
from tripartite.search.vector import object_rag_prompt


def _rag_text(result: dict) -> list[str]:
    click.echo(result["prompt"], nl=False)
    click.echo(f"\n({result['tokens']} tokens, cl100k_base; {len(result['chunks'])} chunks)", err=True)
    return []


@click.command("rag-prompt")
@click.argument("object_id")
@click.option("--top-k", type=click.IntRange(min=1), help="Take the k chunks most similar to the object's text.")
@click.option("--min-score", type=float, callback=probability("--min-score"),
              help="Take every chunk whose index score, (1 + cos) / 2, is at least this.")
@question_option
@output(_rag_text, formats=True)
@pass_app
def rag_prompt_command(app: App, object_id: str, top_k: int | None, min_score: float | None,
                       question: str | None) -> dict:
    """The vector-RAG baseline prompt for an object (neo4j-graphrag's VectorRetriever)."""
    if (top_k is None) == (min_score is None):
        raise click.UsageError("give exactly one of --top-k K or --min-score S")
    return object_rag_prompt(app.graph, make_embedder(app.settings), object_id, top_k, min_score,
                             question or app.settings.selection.question or None)


COMMANDS = [rag_prompt_command]
