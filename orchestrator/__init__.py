"""The tournament brain: a pure core, with the CLI and Ray/gRPC shells around it."""
