"""`python -m odradek.cli`: the admin commands without the umbrella."""

from __future__ import annotations

import sys

from odradek.cli.main import main

sys.exit(main())
