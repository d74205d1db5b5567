"""Generate Python stubs (with mypy-protobuf types) for every `.proto` under `proto/`.

Layout convention: `proto/<package>/<name>.proto` generates `<package>/_proto/<name>_pb2*.py[i]`,
so the Python package that owns an API also owns its stubs. protoc's virtual path mapping
(`-I <package>/_proto=proto/<package>`) makes the generated imports absolute
(`from rng_service._proto import deck_pb2`) without rewriting anything.

Runs only when a `.proto` is newer than its stubs (or they are missing); `--force` regenerates.
Usage: python scripts/gen_protos.py [--force]
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO = ROOT / "proto"
SUFFIXES = ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py", "_pb2_grpc.pyi")


def outputs(proto: Path) -> list[Path]:
    rel = proto.relative_to(PROTO)
    package, rest = rel.parts[0], Path(*rel.parts[1:])
    stem = ROOT / package / "_proto" / rest.with_suffix("")
    return [stem.with_name(stem.name + suffix) for suffix in SUFFIXES]


def stale(proto: Path) -> bool:
    mtime = proto.stat().st_mtime
    return any(not out.exists() or out.stat().st_mtime < mtime for out in outputs(proto))


def generate(proto: Path) -> None:
    from grpc_tools import protoc  # dev dependency; imported only when there is work to do

    package = proto.relative_to(PROTO).parts[0]
    out_dir = ROOT / package / "_proto"
    folder = outputs(proto)[0].parent
    folder.mkdir(parents=True, exist_ok=True)
    while folder != out_dir.parent:  # every generated folder is a package
        (folder / "__init__.py").touch(exist_ok=True)
        folder = folder.parent
    include = str(Path(protoc.__file__).parent / "_proto")  # well-known types
    virtual = f"{package}/_proto/{proto.relative_to(PROTO / package).as_posix()}"
    args = [
        "grpc_tools.protoc",
        f"-I{package}/_proto={PROTO / package}",
        f"-I{include}",
        f"--python_out={ROOT}",
        f"--grpc_python_out={ROOT}",
        f"--mypy_out=quiet:{ROOT}",
        f"--mypy_grpc_out=quiet:{ROOT}",
        virtual,
    ]
    if protoc.main(args) != 0:
        raise SystemExit(f"protoc failed on {proto}")
    print(f"generated stubs for {proto.relative_to(ROOT)}")


def main(argv: list[str]) -> int:
    # protoc finds the mypy plugins (protoc-gen-mypy*) on PATH: use this interpreter's scripts.
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    force = "--force" in argv
    for proto in sorted(PROTO.rglob("*.proto")):
        if force or stale(proto):
            generate(proto)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
