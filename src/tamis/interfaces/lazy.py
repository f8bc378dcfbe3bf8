"""A click group whose subcommands are imported only when called, so `tamis --help` starts fast."""

from __future__ import annotations

import importlib

import click


class LazyGroup(click.Group):
    """Subcommands given as ``{"name": ("module.path", "attribute", "one-line help")}``."""

    def __init__(self, *args, lazy_commands: dict[str, tuple[str, str, str]] | None = None, **kw):
        super().__init__(*args, **kw)
        self.lazy_commands = lazy_commands or {}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(self.lazy_commands))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy_commands:
            module_name, attr, _help = self.lazy_commands[cmd_name]
            command = getattr(importlib.import_module(module_name), attr)
            if not isinstance(command, click.Command):  # pragma: no cover - programming error
                raise TypeError(f"{module_name}.{attr} is not a click command")
            return command
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """List lazy commands with their short help without importing them."""
        rows = []
        for name in self.list_commands(ctx):
            if name in self.lazy_commands:
                rows.append((name, self.lazy_commands[name][2]))
            else:
                cmd = super().get_command(ctx, name)
                if cmd is not None and not cmd.hidden:
                    rows.append((name, cmd.get_short_help_str(limit=formatter.width)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)
