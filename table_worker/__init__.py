"""One table: the pure hold'em hand engine, bots, hand histories and (later) the Ray actor."""
