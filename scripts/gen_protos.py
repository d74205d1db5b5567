"""Generate Python stubs (with mypy-protobuf types) for every `.proto` under `proto/`.

Layout convention: `proto/<package>/<name>.proto` generates `<package>/_proto/<name>_pb2*.py[i]`,
so the Python package that owns an API also owns its stubs. protoc's virtual path mapping
(`-I <package>/_proto=proto/<package>`) makes the generated imports absolute
(`from rng_service._proto import deck_pb2`) without rewriting anything. Every package's mapping
is on the include path, so one package's proto imports another's by its virtual path
(`import "table_worker/_proto/gateway.proto";` in frontdoor.proto generates
`from table_worker._proto import gateway_pb2`).

Runs only when a `.proto` is newer than a stub (or one is missing), and then regenerates all of
them in one protoc run: a proto's stubs depend on the protos it imports, and there are few.
`--force` regenerates regardless.
Usage: python scripts/gen_protos.py [--force]
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO = ROOT / "proto"
SUFFIXES = ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py", "_pb2_grpc.pyi")


def packages() -> list[str]:
    """The Python packages that own a proto: the folders directly under `proto/`."""
    return sorted(folder.name for folder in PROTO.iterdir() if folder.is_dir())


def virtual(proto: Path) -> str:
    """The path protoc knows a proto by: `proto/<package>/x.proto` is `<package>/_proto/x.proto`."""
    rel = proto.relative_to(PROTO)
    return f"{rel.parts[0]}/_proto/{Path(*rel.parts[1:]).as_posix()}"


def outputs(proto: Path) -> list[Path]:
    stem = ROOT / Path(virtual(proto)).with_suffix("")
    return [stem.with_name(stem.name + suffix) for suffix in SUFFIXES]


def stale(protos: list[Path]) -> bool:
    newest = max(proto.stat().st_mtime for proto in protos)
    return any(
        not out.exists() or out.stat().st_mtime < newest
        for proto in protos
        for out in outputs(proto)
    )


def make_packages(proto: Path) -> None:
    """Every folder from `<package>/_proto/` down to the proto's stubs is a Python package."""
    top = ROOT / proto.relative_to(PROTO).parts[0] / "_proto"
    folder = outputs(proto)[0].parent
    folder.mkdir(parents=True, exist_ok=True)
    while folder != top.parent:
        (folder / "__init__.py").touch(exist_ok=True)
        folder = folder.parent


def generate(protos: list[Path]) -> None:
    from grpc_tools import protoc  # dev dependency; imported only when there is work to do

    for proto in protos:
        make_packages(proto)
    include = str(Path(protoc.__file__).parent / "_proto")  # well-known types
    args = [
        "grpc_tools.protoc",
        *(f"-I{package}/_proto={PROTO / package}" for package in packages()),
        f"-I{include}",
        f"--python_out={ROOT}",
        f"--grpc_python_out={ROOT}",
        f"--mypy_out=quiet:{ROOT}",
        f"--mypy_grpc_out=quiet:{ROOT}",
        *(virtual(proto) for proto in protos),
    ]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")
    for proto in protos:
        print(f"generated stubs for {proto.relative_to(ROOT)}")


def main(argv: list[str]) -> int:
    # protoc finds the mypy plugins (protoc-gen-mypy*) on PATH: use this interpreter's scripts.
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    protos = sorted(PROTO.rglob("*.proto"))
    if protos and ("--force" in argv or stale(protos)):
        generate(protos)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
