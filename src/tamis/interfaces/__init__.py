"""Thin shells over the one search core: CLI, MCP server, HTTP service."""
