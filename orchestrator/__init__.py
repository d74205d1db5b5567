"""The tournament brain: a pure core, the shells that carry its decisions out, the views
that read its log, the front door and the `mtt` command line (docs/ARCHITECTURE.md)."""
