"""A prompt's token count summed over its parts equals the count of the whole (tokens.py)."""
from hypothesis import given, settings
from hypothesis import strategies as st

from tripartite.infra.tokens import count_prompt_tokens, count_tokens

# Characters around which the tokenizer's pre-split behaves differently: letters, digits,
# punctuation and brackets, every kind of space and line break, CJK, accents and emoji.
TRICKY = list("aZé中文😀0123456789.,;:!?'\"()[]>-_#* \t\n\r\x0b\x0c\x85\u2028\u3000\u00a0") + [
    "'s", "'ll", "  ", "\n\n", "\r\n", " \n", "]\n", "] ", "[12]", "   [3] ", "http://x.y", "...", "。", "！"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(TRICKY), max_size=60).map("".join))
def test_parts_sum_to_the_whole_on_any_text(text):
    assert count_prompt_tokens(text) == count_tokens(text)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["", "1. Heart failure: ", "References:", "Question: "]),
                          st.lists(st.sampled_from(TRICKY), max_size=12).map("".join),
                          st.integers(1, 300)), max_size=20))
def test_parts_sum_to_the_whole_on_prompt_shaped_text(items):
    # Lines as build_prompt writes them: headings, "   [n] text" items, blank lines.
    lines = [f"{head}{text}" if i % 2 else f"   [{n}] {text}" for i, (head, text, n) in enumerate(items)]
    text = "\n".join(lines) + "\n"
    assert count_prompt_tokens(text) == count_tokens(text)
