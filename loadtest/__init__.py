"""The bot fleet that drives mtt over gRPC (see the front-door issue)."""
