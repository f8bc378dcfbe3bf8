"""click's documented lazy-subcommand group ("Lazily Loading Subcommands" in click's docs):
a command's module is imported only when that command is named, or when ``--help`` lists
its short help. Each command module imports click and little else at its top, its heavy
imports (the pipeline, servers, page extraction) inside the command body, so ``tamis --help``
and ``tamis search`` load no server and no extractor.

Lazy commands are not in ``group.commands``: whatever walks the tree uses ``list_commands``
and ``get_command`` (tests/interfaces/test_cli_help.py runs ``--help`` on every one).
"""

from __future__ import annotations

import importlib
from typing import Any

import click


class LazyGroup(click.Group):
    """A group whose ``lazy_subcommands`` map a command's name to ``"module.attribute"``."""

    def __init__(self, *args: Any, lazy_subcommands: dict[str, str] | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy_subcommands = lazy_subcommands or {}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *self.lazy_subcommands])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy_subcommands:
            return self._lazy_load(cmd_name)
        return super().get_command(ctx, cmd_name)

    def _lazy_load(self, cmd_name: str) -> click.Command:
        module_name, attribute = self.lazy_subcommands[cmd_name].rsplit(".", 1)
        command = getattr(importlib.import_module(module_name), attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"lazy command {cmd_name!r}: {module_name}.{attribute} is not a"
                            " click command")
        return command
