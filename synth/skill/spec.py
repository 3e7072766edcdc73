"""The Agent Skills format's limits and names, as skill3 applies them (one copy for the generator and the linter)."""

from __future__ import annotations

import re

SPEC_KEYS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")
ALLOWED_KEYS = SPEC_KEYS
DROPPED_KEYS = ("allowed-tools", "license")  # a skill learned from the web never pre-approves tools or states a licence
RESERVED_WORDS = ("anthropic", "claude")
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_COMPATIBILITY = 500
MAX_BODY_LINES = 500
NAME_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
FOOTER_PREFIX = "_Created with skill3"
