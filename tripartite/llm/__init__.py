"""Every LLM call goes through here: providers, a persistent cache, retries, validation and
token accounting (see runner.py)."""
