"""Serving the prompt builders to other programs: tools.py (what each tool does, plain
Python), mcp_server.py (those tools over the Model Context Protocol, stdio or HTTP)."""
