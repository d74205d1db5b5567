"""One table: the pure hold'em hand engine, bots, hand histories, the protocol it speaks with
the orchestrator, and the Ray actor."""
