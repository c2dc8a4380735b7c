"""`odradek`: the umbrella command. `odradek serve [broker flags]` (or `odradek broker`)
runs the broker exactly as `python -m broker` does; every other subcommand is the admin CLI
(`odradek.cli`), which speaks only the Kafka wire protocol."""

from __future__ import annotations

import sys

from odradek import __version__

SERVE_COMMANDS = ("serve", "broker")


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in ("--version", "-V"):
        print(f"odradek {__version__}")
        return 0
    if args and args[0] in SERVE_COMMANDS:
        # Imported here so that the admin commands start without loading the broker.
        from broker.__main__ import main as serve

        return serve(args[1:])
    from odradek.cli.main import main as admin

    return admin(args)


if __name__ == "__main__":
    sys.exit(main())
