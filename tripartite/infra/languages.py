"""Which language a text is in, as the default embedder routes it: a text largely of Chinese
characters to the Chinese model, every other to the English one (infra/embeddings.py)."""
from __future__ import annotations

import re

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]")
CHINESE_SHARE = 0.3  # a text whose visible characters are this share Chinese is read by the Chinese model


def text_language(text: str) -> str:
    """'zh' for a text that is largely Chinese characters, else 'en' (Latin script and the rest)."""
    visible = sum(1 for ch in text if not ch.isspace())
    return "zh" if visible and len(_CJK.findall(text)) >= CHINESE_SHARE * visible else "en"
