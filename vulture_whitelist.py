"""Names vulture (`make lint`) reports as unused that are used, each with why; vulture reads this file
as code that uses them. Not imported by anything; kept out of ruff and mypy (bare attribute reads)."""

import yaml

from memwarm_cli.backends.sessions.redaction.clear_secrets import ClearFormat
from memwarm_cli.bootstrap.session_keys import SessionKey
from memwarm_cli.cli.commands import config_cmd
from memwarm_cli.cli.commands.search_cmd import SearchMode
from memwarm_cli import named_tuples
from memwarm_cli.startup.tzif import TzifZone

# Typer commands: registered on `config_app` by their decorator, never called by name.
config_cmd.path_command
config_cmd.check_command
config_cmd.show_command

# A --mode choice Typer offers from the enum's members; the search runs it by value.
SearchMode.vsearch

# PyYAML reads these: config_views.py's Dumper sets a scalar's analysis flags and its own allow_unicode
# to force double quotes and escapes for text the output policy escapes.
yaml.emitter.ScalarAnalysis.allow_flow_plain
yaml.emitter.ScalarAnalysis.allow_block_plain
yaml.emitter.ScalarAnalysis.allow_single_quoted
yaml.emitter.ScalarAnalysis.allow_block
yaml.SafeDumper.allow_unicode

# Read by tests only, and kept: the key-splitting test (tests/bootstrap/test_bootstrap_profiles.py) tells
# `agent:main:x` (the key names the agent) from `agent:main` (the default agent's fallback) by it.
SessionKey.agent_scoped

# Read by tests only, and kept beside the pattern it proves: each format's sample is run through the
# release's redaction (tests/interop) and memwarm's (tests/backends/sessions) to show it stays in clear.
ClearFormat.sample

# Python reads it: frozen_records sets a mutable record's __hash__ to None (unhashable, as a dataclass).
object.__hash__

# datetime calls it: fromtimestamp(t, zone) and astimezone(zone) ask the zone for the wall time.
TzifZone.fromutc

# Python reads them: a class statement asks its base's __mro_entries__, and readers of a NamedTuple its
# __annotations__ (named_tuples.py builds the class typing's NamedTupleMeta builds).
named_tuples.NamedTuple.__mro_entries__
named_tuples._NamedTupleMeta.__annotations__
