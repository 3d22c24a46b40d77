"""What a run would cost, live and through the Batch API (half price), for `--dry-run`.
Prompt tokens are exact (cl100k_base); completion tokens are bounded by each request's
max_tokens, so the figure is an upper bound."""
from __future__ import annotations

from tripartite.infra.config import Settings
from tripartite.infra.tokens import count_tokens

# OpenAI's list prices, USD per million tokens (input, output), as published in 2025; set
# TRIPARTITE_LLM_PRICES (or [llm] prices) for another model or today's prices.
LIST_PRICES = {
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
}
BATCH_FACTOR = 0.5  # the Batch API's discount on both directions


def prices_for(settings: Settings) -> tuple[tuple[float, float], str] | None:
    """(input, output) USD per million tokens and where they come from, or None if unknown."""
    if settings.llm.prices:
        return settings.llm.prices, "TRIPARTITE_LLM_PRICES"
    model = settings.llm.model
    for name in sorted(LIST_PRICES, key=len, reverse=True):  # gpt-4o-mini before gpt-4o
        if model == name or model.startswith(name + "-"):
            return LIST_PRICES[name], f"{name} list price"
    return None


def cost(settings: Settings, runner, tasks: list) -> dict | None:
    """{"live", "batch", "prompt_tokens", "completion_tokens_at_most", "prices", "source"} in USD
    for the tasks not yet answered, or None where the model's price is unknown (or offline)."""
    found = prices_for(settings)
    if found is None or runner.provider.offline:
        return None
    (price_in, price_out), source = found
    due = [t for t in tasks if not runner.is_cached(t)]
    prompt = sum(count_tokens(t.prompt) for t in due)
    completion = sum(runner.max_tokens(t) for t in due)
    live = (prompt * price_in + completion * price_out) / 1e6
    return {"live": round(live, 4), "batch": round(live * BATCH_FACTOR, 4), "prompt_tokens": prompt,
            "completion_tokens_at_most": completion, "prices": [price_in, price_out], "source": source}


def cost_line(figures: dict | None) -> str | None:
    if not figures:
        return None
    return (f"cost at most ${figures['live']:,.2f} live, ${figures['batch']:,.2f} with --batch "
            f"({figures['prompt_tokens']:,} prompt tokens, at most {figures['completion_tokens_at_most']:,} completion "
            f"tokens; USD {figures['prices'][0]:g} in / {figures['prices'][1]:g} out per million, {figures['source']})")
