"""The deck service: unbiased, never-repeated, verifiable decks over gRPC."""
