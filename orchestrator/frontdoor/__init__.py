"""The front door (issue 7): operators and remote players over gRPC (`mtt serve`).

- `server`: the grpc.aio services (operators, players, the tables' gateway), health,
  reflection, `/metrics`, graceful shutdown.
- `desk`: tournaments from creation through registration to the run on Ray.
- `hub`: the players' streams, their action requests, time limits and Out states (OUT-1..3).
- `auth`: the operator credential, player tokens and the tables' secret.
"""
