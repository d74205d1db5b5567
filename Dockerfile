# One image for every mtt process: the deck service, the front door and the Ray nodes
# (KubeRay runs `ray start` in it, so table actors import the same code).
FROM python:3.11-slim

WORKDIR /app
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1

COPY pyproject.toml README.md ./
COPY proto/ proto/
COPY scripts/ scripts/
COPY orchestrator/ orchestrator/
COPY table_worker/ table_worker/
COPY rng_service/ rng_service/
COPY loadtest/ loadtest/

# Stubs are generated, never committed; grpcio-tools is needed only for that step.
# `cluster` brings Ray's metrics agent and dashboard (ray[default]) for Prometheus and KubeRay.
RUN pip install --no-cache-dir "grpcio-tools>=1.85,<2" "mypy-protobuf>=5.1,<6" \
    && python scripts/gen_protos.py --force \
    && pip install --no-cache-dir ".[cluster]" \
    && pip uninstall -y grpcio-tools mypy-protobuf

RUN useradd --create-home mtt
USER mtt

# Ray in a cluster must use the pod's address (the packages default to 127.0.0.1 for local runs).
ENV RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=1
# 7070 deck service gRPC, 9100 its metrics; 50051 front door gRPC, 50052 its table gateway,
# 9090 its metrics.
EXPOSE 7070 9100 50051 50052 9090
CMD ["mtt", "--help"]
